/**
 * Blocked evaluations: a job no node can take (none ready and eligible in its datacenters) is not
 * placed; its evaluation completes with the groups it could not place and a blocked evaluation
 * waits, linked to it, until a node can take the job. On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { matchesGlob } from "../../src/server/scheduler/cluster.js";
import { job, send, useAgent } from "./support.js";

type Item = Record<string, unknown>;

describe("a job no node can take", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const evaluations = (id: string) => read<Item[]>(`/v1/job/${id}/evaluations`);
  const summary = async (id: string) => (await read<{ Summary: Record<string, Record<string, number>> }>(`/v1/job/${id}/summary`)).Summary.g!;
  const jobStatus = async (id: string) => (await read(`/v1/job/${id}`)).Status;

  it("is blocked: its evaluation names the blocked one and why, its allocations queued; the job runs its deployment", async () => {
    await agent.register(job("elsewhere", { Datacenters: ["dc9"], TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("1m");
    const evals = await evaluations("elsewhere");
    const first = evals.find((evaluation) => evaluation.TriggeredBy === "job-register")!;
    const blocked = evals.find((evaluation) => evaluation.Status === "blocked")!;
    expect(first).toMatchObject({ Status: "complete", BlockedEval: blocked.ID, QueuedAllocations: { g: 2 }, FailedTGAllocs: { g: { NodesEvaluated: 0, NodesInPool: 0, NodePool: "default", CoalescedFailures: 1 } } });
    // Ready nodes by datacenter, of those in the job's: none (`readyNodesInDCsAndPool` counts only the datacenters it finds nodes in).
    expect((first.FailedTGAllocs as Record<string, Item>).g!.NodesAvailable).toEqual({});
    expect(blocked).toMatchObject({ TriggeredBy: "queued-allocs", PreviousEval: first.ID, StatusDescription: "created to place remaining allocations", JobID: "elsewhere" });
    expect(await read<Item[]>("/v1/job/elsewhere/allocations")).toEqual([]);
    // The reconciler makes the service job's deployment whether or not its placements succeed, so the job is running (`getJobStatus`).
    expect(await read<Item[]>("/v1/job/elsewhere/deployments")).toMatchObject([{ Status: "running", TaskGroups: { g: { PlacedAllocs: 0 } } }]);
    expect(await jobStatus("elsewhere")).toBe("running");
    expect(await summary("elsewhere")).toMatchObject({ Queued: 2, Starting: 0 });
    // Each is the other's related evaluation.
    const related = await read(`/v1/evaluation/${first.ID as string}?related=true`);
    expect((related.RelatedEvals as Item[]).map((evaluation) => evaluation.ID)).toEqual([blocked.ID]);
  });

  it("is placed once a new version can be, its blocked evaluation canceled and nothing left queued", async () => {
    await agent.register(job("moved", { Datacenters: ["dc9"] }));
    await agent.agent.clock.advance(0);
    await agent.register(job("moved", { Datacenters: ["dc*"] }));
    await agent.agent.clock.advance("1s");
    const statuses = (await evaluations("moved")).map((evaluation) => evaluation.Status).sort();
    expect(statuses).toEqual(["canceled", "complete", "complete"]);
    expect((await read<Item[]>("/v1/job/moved/allocations")).map((alloc) => alloc.ClientStatus)).toEqual(["running"]);
    expect(await summary("moved")).toMatchObject({ Queued: 0, Running: 1 });
  });

  it("waits while the nodes are down and is placed when one is ready again", async () => {
    const down = agent.agent.scenarios.add({ on: "node", set: { Status: "down" } });
    await agent.agent.clock.advance(0);
    await agent.register(job("waiting", { Datacenters: ["dc1"] }));
    await agent.agent.clock.advance("1m");
    expect((await evaluations("waiting")).map((evaluation) => evaluation.Status).sort()).toEqual(["blocked", "complete"]);
    agent.agent.scenarios.remove(down);
    const up = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-2"', set: { Status: "ready" } });
    await agent.agent.clock.advance("1s");
    const evals = await evaluations("waiting");
    expect(evals.map((evaluation) => evaluation.Status)).toEqual(["complete", "complete"]);
    const [alloc] = await read<Item[]>("/v1/job/waiting/allocations");
    expect(alloc).toMatchObject({ ClientStatus: "running", NodeName: "client-2", EvalID: evals.find((evaluation) => evaluation.TriggeredBy === "queued-allocs")!.ID });
    expect(await summary("waiting")).toMatchObject({ Queued: 0, Running: 1 });
    expect(await jobStatus("waiting")).toBe("running");
    agent.agent.scenarios.remove(up);
    const again = agent.agent.scenarios.add({ on: "node", set: { Status: "ready" } });
    await agent.agent.clock.advance(0);
    agent.agent.scenarios.remove(again);
  });

  it("queues nothing once stopped, and is dead", async () => {
    await agent.register(job("abandoned", { Datacenters: ["dc9"] }));
    await agent.agent.clock.advance(0);
    expect((await send(`${agent.url}/v1/job/abandoned`, { method: "DELETE" })).status).toBe(200);
    await agent.agent.clock.advance(0);
    expect((await evaluations("abandoned")).map((evaluation) => evaluation.Status).sort()).toEqual(["canceled", "complete", "complete"]);
    expect(await summary("abandoned")).toMatchObject({ Queued: 0 });
    expect(await jobStatus("abandoned")).toBe("dead");
  });
});

describe("a job's datacenters", () => {
  it.each([
    ["dc1", "dc1", true],
    ["dc1", "dc2", false],
    ["*", "anything", true],
    ["dc*", "dc1", true],
    ["dc*", "eu-dc1", false],
    ["*-1", "eu-west-1", true],
    ["eu-*-1", "eu-west-1", true],
    ["eu-*-1", "eu-1", false],
    ["a*b*c", "abc", true],
    ["a*b*c", "acb", false],
    ["", "", true],
  ])("%s matches %s: %s", (pattern, datacenter, expected) => {
    expect(matchesGlob(pattern, datacenter)).toBe(expected);
  });
});
