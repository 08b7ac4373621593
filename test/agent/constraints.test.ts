/**
 * Where the scheduler places a job's allocations (issue 37, finding 8): only on nodes that meet
 * its constraints and drivers and have room for it, as the reference's feasibility checks and bin
 * packing decide (`scheduler/feasible/`), and a placement that fits nowhere is blocked with the
 * reference's metrics (`FailedTGAllocs`). Three simulated nodes (`client-1` to `client-3`, each
 * 4 × 2500 MHz, 16 GiB, 100 GiB of disk), on the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, settled, useAgent } from "./support.js";

type Item = Record<string, unknown>;

/** A job of one group `g` of `count` allocations of one task `t`, with the given group and task fields. */
function constrained(id: string, count: number, group: Item = {}, task: Item = {}, fields: Item = {}): Item {
  return job(id, { ...fields, TaskGroups: [{ Name: "g", Count: count, ...group, Tasks: [{ Name: "t", Driver: "mock", ...task }] }] });
}

describe("placement on feasible nodes with room", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const placedOn = async (id: string) => (await read<Item[]>(`/v1/job/${id}/allocations`)).map((alloc) => String(alloc.NodeName)).sort();
  const register = async (spec: Item) => {
    await agent.register(spec);
    await settled(agent.url);
  };
  const failed = async (id: string) => {
    const evaluation = (await read<Item[]>(`/v1/job/${id}/evaluations`)).find((each) => each.TriggeredBy === "job-register")!;
    return evaluation.FailedTGAllocs as Record<string, Item> | undefined;
  };

  it("places every allocation on the one node a `${node.unique.name}` constraint names", async () => {
    await register(constrained("pinned", 3, {}, {}, { Constraints: [{ LTarget: "${node.unique.name}", RTarget: "client-2", Operand: "=" }] }));
    expect(await placedOn("pinned")).toEqual(["client-2", "client-2", "client-2"]);
    expect(await failed("pinned")).toBeUndefined();
  });

  it.each<[string, Item, number, string[]]>([
    ["a regexp on the name", { LTarget: "${node.unique.name}", RTarget: "client-[13]$", Operand: "regexp" }, 2, ["client-1", "client-3"]],
    ["!= on the name", { LTarget: "${node.unique.name}", RTarget: "client-1", Operand: "!=" }, 2, ["client-2", "client-3"]],
    ["set_contains_any on the name", { LTarget: "${node.unique.name}", RTarget: "client-3, client-9", Operand: "set_contains_any" }, 1, ["client-3"]],
    ["an attribute the nodes have", { LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "=" }, 3, ["client-1", "client-2", "client-3"]],
    ["a version of the client", { LTarget: "${attr.nomad.version}", RTarget: ">= 1.11, < 3", Operand: "version" }, 3, ["client-1", "client-2", "client-3"]],
    ["distinct_hosts", { Operand: "distinct_hosts" }, 3, ["client-1", "client-2", "client-3"]],
  ])("places by %s as the reference's checks do", async (_name, constraint, count, nodes) => {
    const id = `by-${String(constraint.Operand).replace(/[^a-z]/g, "-")}-${String(constraint.LTarget ?? "").replace(/[^a-z]/g, "")}`;
    await register(constrained(id, count, { Constraints: [constraint] }));
    expect(await placedOn(id)).toEqual(nodes);
  });

  it("ranks the node an affinity prefers first", async () => {
    await register(constrained("liking", 1, {}, {}, { Affinities: [{ LTarget: "${node.unique.name}", RTarget: "client-3", Operand: "=", Weight: 100 }] }));
    expect(await placedOn("liking")).toEqual(["client-3"]);
  });

  it("blocks a group too big for any node, with the reference's exhaustion metrics", async () => {
    await register(constrained("huge", 2, {}, { Resources: { CPU: 100, MemoryMB: 20_000 } }));
    expect(await placedOn("huge")).toEqual([]);
    const metric = (await failed("huge"))!.g!;
    expect(metric).toEqual({
      NodesEvaluated: 3,
      NodesFiltered: 0,
      NodesInPool: 3,
      NodePool: "default",
      NodesAvailable: { dc1: 3 },
      ClassFiltered: null,
      ConstraintFiltered: null,
      NodesExhausted: 3,
      ClassExhausted: null,
      DimensionExhausted: { memory: 3 },
      QuotaExhausted: null,
      // What the group asked of the exhausted dimension, once per failed placement.
      ResourcesExhausted: { t: { CPU: 0, Cores: 0, MemoryMB: 40_000, MemoryMaxMB: 0, DiskMB: 0, IOPS: 0, Networks: null, Devices: null, NUMA: null, SecretsMB: 0 } },
      Scores: null,
      ScoreMetaData: null,
      AllocationTime: 0,
      CoalescedFailures: 1,
    });
    const blocked = (await read<Item[]>("/v1/job/huge/evaluations")).find((each) => each.Status === "blocked");
    expect(blocked).toMatchObject({ TriggeredBy: "queued-allocs", FailedTGAllocs: { g: { DimensionExhausted: { memory: 3 } } } });
  });

  it("places what fits and blocks the rest once the nodes are full", async () => {
    // 6 GiB each: two fit on a node of 16 GiB.
    await register(constrained("fill", 7, {}, { Resources: { CPU: 100, MemoryMB: 6144 } }));
    expect(await placedOn("fill")).toEqual(["client-1", "client-1", "client-2", "client-2", "client-3", "client-3"]);
    expect((await failed("fill"))!.g).toMatchObject({ NodesEvaluated: 3, NodesExhausted: 3, DimensionExhausted: { memory: 3 }, CoalescedFailures: 0 });
    expect((await read<{ Summary: Record<string, Item> }>("/v1/job/fill/summary")).Summary.g).toMatchObject({ Queued: 1 });
  });

  it.each<[string, string, Item, Item, Item]>([
    ["a constraint no node meets (one node judged, the others of its class skipped)", "windows", { Constraints: [{ LTarget: "${attr.kernel.name}", RTarget: "windows", Operand: "=" }] }, {}, { NodesFiltered: 3, ConstraintFiltered: { "${attr.kernel.name} = windows": 1, "computed class ineligible": 2 } }],
    ["a constraint on a name no node has (each node judged)", "nameless", { Constraints: [{ LTarget: "${node.unique.name}", RTarget: "client-9", Operand: "=" }] }, {}, { NodesFiltered: 3, ConstraintFiltered: { "${node.unique.name} = client-9": 3 } }],
    ["a driver no node has", "podman", {}, { Driver: "podman" }, { NodesFiltered: 3, ConstraintFiltered: { "missing drivers": 1, "computed class ineligible": 2 } }],
    ["distinct_property used up", "one-per-dc", { Count: 2, Constraints: [{ LTarget: "${node.datacenter}", Operand: "distinct_property" }] }, {}, { NodesFiltered: 3, ConstraintFiltered: { "distinct_property: ${node.datacenter}=dc1 used by 1 allocs": 3 } }],
  ])("counts the nodes filtered by %s", async (_name, id, group, task, expected) => {
    await register(constrained(id, 1, group, task));
    expect((await failed(id))!.g).toMatchObject({ NodesEvaluated: 3, NodesExhausted: 0, DimensionExhausted: null, ...expected });
  });
});

describe("room freed on a node", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;

  it("unblocks the evaluation of a job that found no room, as the reference does when a client reports an allocation finished", async () => {
    await agent.register(constrained("hog", 1, {}, { Resources: { CPU: 100, MemoryMB: 10_000 } }));
    await settled(agent.url);
    await agent.register(constrained("waiting", 1, {}, { Resources: { CPU: 100, MemoryMB: 10_000 } }));
    await settled(agent.url);
    expect(await read<Item[]>("/v1/job/waiting/allocations")).toEqual([]);
    expect((await read<Item[]>("/v1/job/waiting/evaluations")).find((each) => each.Status === "blocked")).toMatchObject({ FailedTGAllocs: { g: { DimensionExhausted: { memory: 1 } } } });
    expect((await agent.put("/v1/job/hog", "", { method: "DELETE" })).status).toBe(200);
    await settled(agent.url);
    await agent.agent.clock.advance("1s");
    await settled(agent.url);
    expect((await read<Item[]>("/v1/job/waiting/allocations")).map((alloc) => alloc.NodeName)).toEqual(["client-1"]);
    expect((await read<Item[]>("/v1/job/waiting/evaluations")).some((each) => each.Status === "blocked")).toBe(false);
  });

  it("writes nothing for a blocked evaluation that the room freed still cannot place (the reference reblocks it in memory)", async () => {
    // The node's room, whatever the test before left on it.
    await agent.put("/v1/job/waiting", "", { method: "DELETE" });
    await settled(agent.url);
    await agent.agent.clock.advance("1s");
    await settled(agent.url);
    await agent.register(constrained("hog2", 1, {}, { Resources: { CPU: 100, MemoryMB: 10_000 } }));
    await settled(agent.url);
    await agent.register(constrained("small", 1, {}, { Resources: { CPU: 100, MemoryMB: 100 } }));
    await agent.register(constrained("big", 1, {}, { Resources: { CPU: 100, MemoryMB: 10_000 } }));
    await settled(agent.url);
    const blockedOf = async () => (await read<Item[]>("/v1/job/big/evaluations")).find((each) => each.Status === "blocked");
    const before = await blockedOf();
    expect(before).toMatchObject({ FailedTGAllocs: { g: { DimensionExhausted: { memory: 1 } } } });
    // The small job's allocation stops: room is freed, too little for the big one, which is processed again and still blocked.
    expect((await agent.put("/v1/job/small", "", { method: "DELETE" })).status).toBe(200);
    await settled(agent.url);
    await agent.agent.clock.advance("1s");
    await settled(agent.url);
    expect((await read<Item[]>("/v1/job/small/allocations")).map((alloc) => alloc.ClientStatus)).toEqual(["complete"]);
    // Neither unblocked (pending) nor blocked again: the evaluation is as it was, and no other was made.
    expect(await blockedOf()).toEqual(before);
    expect((await read<Item[]>("/v1/job/big/evaluations")).map((each) => each.Status).sort()).toEqual(["blocked", "complete"]);
    expect((await agent.put("/v1/job/hog2", "", { method: "DELETE" })).status).toBe(200);
    await settled(agent.url);
    await agent.agent.clock.advance("1s");
    await settled(agent.url);
    // Room enough once the hog is gone: the same blocked evaluation places the job and completes.
    expect((await read<Item[]>("/v1/job/big/allocations")).map((alloc) => alloc.EvalID)).toEqual([before!.ID]);
    expect((await read<Item[]>("/v1/job/big/evaluations")).find((each) => each.ID === before!.ID)).toMatchObject({ Status: "complete" });
  });
});
