/**
 * Draining a node (`PUT /v1/node/<id>/drain`), as the reference's drainer: the node is ineligible
 * with its `DrainStrategy` set; a service group's allocations there are marked to migrate a few
 * at a time (its `migrate` block's `MaxParallel`, never fewer than `Count - MaxParallel` left
 * healthy), each stopped as migrating and replaced on another node; the drain is complete when
 * nothing but system jobs is left (the strategy cleared, the node still ineligible, `Node drain
 * complete`), or at its deadline, when what is left is moved at once. On the manual clock, over
 * real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, useAgent } from "./support.js";

type Item = Record<string, unknown>;
type Alloc = Item & { ID: string; NodeID: string; Name: string; ClientStatus: string; DesiredStatus: string; DesiredDescription: string; DesiredTransition?: { Migrate: boolean | null } };
type Node = Item & { ID: string; Name: string; SchedulingEligibility: string; DrainStrategy: { Deadline: number; ForceDeadline: string; StartedAt: string; IgnoreSystemJobs: boolean } | null; Events: { Message: string; Subsystem: string; Details: Record<string, string> | null }[] };

const SECOND_NS = 1_000_000_000;

describe("draining a node", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const nodeOf = (id: string) => read<Node>(`/v1/node/${id}`);
  const allocsOf = (jobId: string) => read<Alloc[]>(`/v1/job/${jobId}/allocations`).then((stubs) => Promise.all(stubs.map((stub) => read<Alloc>(`/v1/allocation/${stub.ID}`))));
  /** The node holding most of the job's allocations, and how many it holds. */
  const busiest = async (jobId: string) => {
    const counts = new Map<string, number>();
    for (const alloc of await allocsOf(jobId)) counts.set(alloc.NodeID, (counts.get(alloc.NodeID) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1])[0]!;
  };
  const drain = (id: string, body: unknown) => agent.put(`/v1/node/${id}/drain`, body);

  it("migrates a group's allocations MaxParallel at a time, then completes, leaving the node ineligible", async () => {
    // Every allocation on one node: the other two are made ineligible while the job is placed.
    const nodes = await read<Node[]>("/v1/nodes");
    for (const other of nodes.slice(1)) expect((await agent.put(`/v1/node/${other.ID}/eligibility`, { Eligibility: "ineligible" })).status).toBe(200);
    await agent.register(job("web", { TaskGroups: [{ Name: "g", Count: 3, Migrate: { MaxParallel: 1 }, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("30s");
    for (const other of nodes.slice(1)) expect((await agent.put(`/v1/node/${other.ID}/eligibility`, { Eligibility: "eligible" })).status).toBe(200);
    const [nodeId, held] = await busiest("web");
    expect(held).toBe(3);

    const response = await drain(nodeId, { DrainSpec: { Deadline: 3600 * SECOND_NS, IgnoreSystemJobs: false }, Meta: { reason: "test" } });
    expect(response.status, response.text).toBe(200);
    const answer = response.json<Item>();
    expect(answer).toMatchObject({ EvalIDs: null, EvalCreateIndex: 0 });
    expect(answer.Index).toBe(answer.NodeModifyIndex);
    expect(response.headers["x-svc-index"]).toBe(String(answer.Index));
    const draining = await nodeOf(nodeId);
    expect(draining).toMatchObject({ SchedulingEligibility: "ineligible", Drain: true, DrainStrategy: { Deadline: 3600 * SECOND_NS, IgnoreSystemJobs: false } });
    expect(Date.parse(draining.DrainStrategy!.ForceDeadline) - Date.parse(draining.DrainStrategy!.StartedAt)).toBe(3600_000);
    expect(draining.Events.at(-1)).toMatchObject({ Message: "Node drain strategy set", Subsystem: "Drain" });

    await agent.agent.clock.advance(0);
    const first = await allocsOf("web");
    const migrating = first.filter((alloc) => alloc.DesiredTransition?.Migrate === true);
    expect(migrating).toHaveLength(1);
    expect(migrating[0]).toMatchObject({ DesiredStatus: "stop", DesiredDescription: "alloc is being migrated" });
    const replacement = first.find((alloc) => alloc.PreviousAllocation === migrating[0]!.ID)!;
    expect(replacement).toMatchObject({ Name: migrating[0]!.Name, DesiredStatus: "run" });
    expect(replacement.NodeID).not.toBe(nodeId);
    const evals = await read<Item[]>("/v1/job/web/evaluations");
    expect(evals.filter((evaluation) => evaluation.TriggeredBy === "node-drain").length).toBeGreaterThan(0);

    // Step by step: never fewer than Count - MaxParallel allocations running, until the drain is complete.
    let node = await nodeOf(nodeId);
    for (let step = 0; step < 60 && node.DrainStrategy !== null; step++) {
      await agent.agent.clock.advance("1s");
      const running = (await allocsOf("web")).filter((alloc) => alloc.DesiredStatus === "run" && alloc.ClientStatus === "running");
      expect(running.length).toBeGreaterThanOrEqual(2);
      node = await nodeOf(nodeId);
    }
    expect(node).toMatchObject({ DrainStrategy: null, Drain: false, SchedulingEligibility: "ineligible" });
    expect(node.Events.at(-1)).toMatchObject({ Message: "Node drain complete", Subsystem: "Drain", Details: null });
    // The drain is complete once nothing runs there; the last replacement runs a moment later.
    await agent.agent.clock.advance("1s");
    const after = await allocsOf("web");
    const live = after.filter((alloc) => alloc.DesiredStatus === "run");
    expect(live.map((alloc) => alloc.Name).sort()).toEqual(["web.g[0]", "web.g[1]", "web.g[2]"]);
    expect(live.every((alloc) => alloc.NodeID !== nodeId && alloc.ClientStatus === "running")).toBe(true);
    expect(after.filter((alloc) => alloc.NodeID === nodeId).every((alloc) => alloc.DesiredDescription === "alloc is being migrated" && alloc.ClientStatus === "complete")).toBe(true);

    // Nothing is placed there until it is eligible again: MarkEligible without a drain spec.
    const back = await drain(nodeId, { DrainSpec: null, MarkEligible: true });
    expect(back.status, back.text).toBe(200);
    expect(await nodeOf(nodeId)).toMatchObject({ SchedulingEligibility: "eligible", DrainStrategy: null });
  });

  it("stops what is left at the deadline, a batch allocation without a replacement, and says the deadline was reached", async () => {
    const nodes = await read<Node[]>("/v1/nodes");
    const target = nodes.find((node) => node.SchedulingEligibility === "eligible")!;
    for (const other of nodes.filter((node) => node.ID !== target.ID)) await agent.put(`/v1/node/${other.ID}/eligibility`, { Eligibility: "ineligible" });
    await agent.register(job("crunch", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance("2s");
    for (const other of nodes.filter((node) => node.ID !== target.ID)) await agent.put(`/v1/node/${other.ID}/eligibility`, { Eligibility: "eligible" });
    const [batch] = await allocsOf("crunch");
    expect(batch).toMatchObject({ NodeID: target.ID, ClientStatus: "running" });

    expect((await drain(target.ID, { DrainSpec: { Deadline: 10 * SECOND_NS } })).status).toBe(200);
    await agent.agent.clock.advance("9s");
    // A batch allocation is left to finish until the deadline.
    expect(await read<Alloc>(`/v1/allocation/${batch!.ID}`)).toMatchObject({ DesiredStatus: "run", ClientStatus: "running" });
    expect((await nodeOf(target.ID)).DrainStrategy).not.toBeNull();
    await agent.agent.clock.advance("1s");
    const node = await nodeOf(target.ID);
    expect(node).toMatchObject({ DrainStrategy: null, SchedulingEligibility: "ineligible" });
    expect(node.Events.at(-1)).toMatchObject({ Message: "Node drain complete", Details: { deadline_reached: "true" } });
    expect(await read<Alloc>(`/v1/allocation/${batch!.ID}`)).toMatchObject({ DesiredStatus: "stop", DesiredDescription: "alloc is being migrated", DesiredTransition: { Migrate: true, MigrateDisablePlacement: true } });
    // Its work is not started over elsewhere (the drainer's MigrateDisablePlacement), even once the node is eligible again.
    await agent.agent.clock.advance("1s");
    expect((await agent.put(`/v1/node/${target.ID}/eligibility`, { Eligibility: "eligible" })).status).toBe(200);
    await agent.agent.clock.advance("1s");
    expect((await allocsOf("crunch")).map((alloc) => alloc.ID)).toEqual([batch!.ID]);
  });

  it.each([
    ["a body that is not the request", "[]", 400, "json: cannot unmarshal array into Go value of type api.NodeUpdateDrainRequest"],
    ["a deadline of the wrong type", '{"DrainSpec":{"Deadline":"1h"}}', 400, "json: cannot unmarshal string into Go struct field NodeUpdateDrainRequest.DrainSpec.Deadline of type int"],
    ["a deadline past a hundred years", '{"DrainSpec":{"Deadline":4000000000000000000}}', 400, "drain deadline must be at most"],
  ])("refuses %s with a 400", async (_, body, status, text) => {
    const [node] = await read<Node[]>("/v1/nodes");
    const response = await drain(node!.ID, body);
    expect(response.status).toBe(status);
    expect(response.text).toContain(text);
  });
});

describe.each([false, true])("draining a node with IgnoreSystemJobs %s", (ignoreSystemJobs) => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const allocsOf = (jobId: string) => read<Alloc[]>(`/v1/job/${jobId}/allocations`).then((stubs) => Promise.all(stubs.map((stub) => read<Alloc>(`/v1/allocation/${stub.ID}`))));

  it(`moves the system job's allocation ${ignoreSystemJobs ? "never" : "last, once the others are gone"}`, async () => {
    await agent.register(job("sys", { Type: "system" }));
    await agent.register(job("svc", { TaskGroups: [{ Name: "g", Count: 1, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("30s");
    const [service] = await allocsOf("svc");
    const nodeId = service!.NodeID;
    const system = (await allocsOf("sys")).find((alloc) => alloc.NodeID === nodeId)!;
    expect(system).toMatchObject({ ClientStatus: "running" });

    expect((await agent.put(`/v1/node/${nodeId}/drain`, { DrainSpec: { Deadline: 0, IgnoreSystemJobs: ignoreSystemJobs } })).status).toBe(200);
    await agent.agent.clock.advance(0);
    expect(await read<Alloc>(`/v1/allocation/${service!.ID}`)).toMatchObject({ DesiredStatus: "stop", DesiredDescription: "alloc is being migrated" });
    let node = await read<Node>(`/v1/node/${nodeId}`);
    for (let step = 0; step < 30 && node.DrainStrategy !== null; step++) {
      await agent.agent.clock.advance("1s");
      node = await read<Node>(`/v1/node/${nodeId}`);
    }
    expect(node).toMatchObject({ DrainStrategy: null, SchedulingEligibility: "ineligible" });
    await agent.agent.clock.advance("1s");
    const after = await read<Alloc>(`/v1/allocation/${system.ID}`);
    if (ignoreSystemJobs) expect(after).toMatchObject({ DesiredStatus: "run", ClientStatus: "running" });
    else {
      expect(after).toMatchObject({ DesiredStatus: "stop", DesiredTransition: { Migrate: true } });
      // Last: after the service allocation had stopped running there.
      const serviceDone = await read<Alloc>(`/v1/allocation/${service!.ID}`);
      expect(serviceDone.ClientStatus).toBe("complete");
      expect(after.ModifyIndex as number).toBeGreaterThan(serviceDone.ModifyIndex as number);
    }
    // Nothing of the system job runs on the drained node but what was left there.
    const live = (await allocsOf("sys")).filter((alloc) => alloc.NodeID === nodeId && alloc.DesiredStatus === "run");
    expect(live).toHaveLength(ignoreSystemJobs ? 1 : 0);
  });
});
