/** Deterministic job list items (spec section 2.2) for benchmarks. */

/** A small linear congruential generator, so every run measures the same data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export function jobListItems(count: number) {
  const next = random(42);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const id = `${pick(["web", "api", "cache", "batch", "worker"])}-${i.toString().padStart(6, "0")}`;
    const status = pick(["running", "running", "pending", "dead"]);
    return {
      ID: id,
      ParentID: "",
      Name: id,
      Namespace: pick(["default", "default", "prod"]),
      Datacenters: pick([["dc1"], ["dc1", "dc2"], ["dc2"], ["dc3"]]),
      NodePool: "default",
      Multiregion: null,
      Type: pick(["service", "service", "batch", "system"]),
      Priority: pick([50, 50, 70, 30]),
      Periodic: false,
      ParameterizedJob: false,
      Stop: next() < 0.1,
      Status: status,
      StatusDescription: "",
      JobSummary: {
        JobID: id,
        Namespace: "default",
        Summary: { "web-api": { Queued: 0, Complete: 0, Failed: 0, Running: pick([1, 2, 3]), Starting: 0, Lost: 0, Unknown: 0 } } as Record<string, { Running: number }>,
        Children: { Pending: 0, Running: 0, Dead: 0 },
        CreateIndex: i + 10,
        ModifyIndex: i + 20,
      },
      CreateIndex: i + 10,
      ModifyIndex: i + 20,
      JobModifyIndex: i + 10,
      SubmitTime: 1_717_000_000_000_000_000n + BigInt(i),
      Meta: { owner: pick(["team-a", "team-b"]), tier: pick(["gold", "silver", ""]) } as Record<string, string>,
    };
  });
}

/**
 * What the benchmarks' agents start from: the three client nodes an agent has by default (in
 * `dc1`), and one in each other datacenter of the benchmark jobs, so that every job is placed (a
 * job no node can take would be blocked, with no allocation or deployment: less work than a real
 * one). A data file's nodes are the agent's nodes.
 */
export const BENCH_AGENT_DATA = {
  Nodes: [
    { Name: "client-1", Datacenter: "dc1" },
    { Name: "client-2", Datacenter: "dc1" },
    { Name: "client-3", Datacenter: "dc1" },
    { Name: "client-dc2", Datacenter: "dc2" },
    { Name: "client-dc3", Datacenter: "dc3" },
  ],
};
