/**
 * A node that goes down loses its allocations: each of their jobs gets a `node-update`
 * evaluation, the allocations are lost, and those of the job's version are replaced on another
 * node (linked both ways), or queued behind a blocked evaluation when no node is left. On the
 * manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, useAgent } from "./support.js";

type Item = Record<string, unknown>;

describe("a node that goes down", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;

  it("loses its allocations, and they are replaced on another node, each naming the other", async () => {
    await agent.register(job("survivor", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("1s");
    const before = await read<Item[]>("/v1/job/survivor/allocations");
    const victim = before.find((alloc) => alloc.NodeName === "client-1")!;
    const down = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-1"', set: { Status: "down" } });
    await agent.agent.clock.advance(0);
    const evals = await read<Item[]>("/v1/job/survivor/evaluations");
    const nodeUpdate = evals.find((evaluation) => evaluation.TriggeredBy === "node-update")!;
    expect(nodeUpdate).toMatchObject({ Status: "complete", NodeID: victim.NodeID });
    const lost = await read(`/v1/allocation/${victim.ID as string}`);
    expect(lost).toMatchObject({ DesiredStatus: "stop", ClientStatus: "lost", DesiredDescription: "alloc is lost since its node is down", ClientDescription: "alloc is lost since its node is down" });
    const replacement = await read(`/v1/allocation/${lost.NextAllocation as string}`);
    expect(replacement).toMatchObject({ Name: victim.Name, PreviousAllocation: victim.ID, EvalID: nodeUpdate.ID, ClientStatus: "pending" });
    expect(replacement.NodeName).not.toBe("client-1");
    await agent.agent.clock.advance("1s");
    expect(await read(`/v1/allocation/${replacement.ID as string}`)).toMatchObject({ ClientStatus: "running" });
    const summary = (await read<{ Summary: Record<string, Record<string, number>> }>("/v1/job/survivor/summary")).Summary.g;
    expect(summary).toMatchObject({ Running: 2, Lost: 1, Starting: 0 });
    expect((await read("/v1/job/survivor")).Status).toBe("running");
    agent.agent.scenarios.remove(down);
  });

  it("queues the replacements behind a blocked evaluation when no node is left, and places them when one is back", async () => {
    await agent.register(job("stranded"));
    await agent.agent.clock.advance("1s");
    const down = agent.agent.scenarios.add({ on: "node", set: { Status: "down" } });
    await agent.agent.clock.advance(0);
    const statuses = async () => (await read<Item[]>("/v1/job/stranded/allocations")).map((alloc) => alloc.ClientStatus).sort();
    expect(await statuses()).toEqual(["lost"]);
    const evals = await read<Item[]>("/v1/job/stranded/evaluations");
    expect(evals.filter((evaluation) => evaluation.Status === "blocked")).toHaveLength(1);
    expect((await read<{ Summary: Record<string, Record<string, number>> }>("/v1/job/stranded/summary")).Summary.g).toMatchObject({ Queued: 1, Lost: 1, Running: 0 });
    agent.agent.scenarios.remove(down);
    const up = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-3"', set: { Status: "ready" } });
    await agent.agent.clock.advance("1s");
    expect(await statuses()).toEqual(["lost", "running"]);
    expect((await read<{ Summary: Record<string, Record<string, number>> }>("/v1/job/stranded/summary")).Summary.g).toMatchObject({ Queued: 0, Running: 1 });
    agent.agent.scenarios.remove(up);
  });
});

describe("nodes going down while the evaluate step is off", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });

  it("leave one node-update evaluation a job, however many node writes follow, processed once it is back on", async () => {
    await agent.register(job("patient", { TaskGroups: [{ Name: "g", Count: 3, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("1s");
    agent.agent.scenarios.changeStep("evaluate", { enabled: false });
    agent.agent.scenarios.add({ on: "node", select: 'Name != "client-3"', set: { Status: "down" } });
    await agent.agent.clock.advance(0);
    agent.agent.scenarios.add({ on: "node", select: 'Name == "client-3"', set: { StatusDescription: "still here" } });
    await agent.agent.clock.advance(0);
    const updates = async () => (parseJson((await agent.get("/v1/job/patient/evaluations")).text) as Item[]).filter((evaluation) => evaluation.TriggeredBy === "node-update");
    expect((await updates()).map((evaluation) => evaluation.Status)).toEqual(["pending"]);
    agent.agent.scenarios.resetLifecycle();
    await agent.agent.clock.advance("1s");
    expect((await updates()).map((evaluation) => evaluation.Status)).toEqual(["complete"]);
    const allocs = parseJson((await agent.get("/v1/job/patient/allocations")).text) as Item[];
    expect(allocs.map((alloc) => alloc.ClientStatus).sort()).toEqual(["lost", "lost", "running", "running", "running"]);
    expect(allocs.filter((alloc) => alloc.ClientStatus === "running").every((alloc) => alloc.NodeName === "client-3")).toBe(true);
  });
});
