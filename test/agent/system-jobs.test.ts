/**
 * System and sysbatch jobs, as the reference's system scheduler places them
 * (`scheduler/scheduler_system.go`, `scheduler/reconciler/reconcile_node.go`): one allocation
 * per ready, eligible node of the job's datacenters, every one named `<job>.<group>[0]`; a node
 * that becomes ready or eligible gets one through a `node-update` evaluation
 * (`nomad/node_endpoint.go` `createNodeEvals`); a node that goes down has its allocation lost,
 * and nothing is placed elsewhere; sysbatch allocations run to completion and the job is then
 * dead (`getJobStatus`), and a finished one is not placed again; a system job's version rolls
 * out behind a deployment, `MaxParallel` nodes at a time, when every eligible client is 1.11 or
 * newer (`createDeployment`, `evictAndPlace`). On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { SIMULATED_ATTRIBUTES } from "../../src/server/scheduler/fingerprint.js";
import { job, send, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, unknown>;

const read = async <T = Item>(agent: TestAgent, path: string) => parseJson((await agent.get(path)).text) as T;
const allocations = (agent: TestAgent, id: string) => read<Item[]>(agent, `/v1/job/${id}/allocations`);
const byNode = (allocs: readonly Item[]) => allocs.map((alloc) => `${alloc.NodeName as string} ${alloc.Name as string} ${alloc.ClientStatus as string}`).sort();

describe("a system or sysbatch job on 3 ready nodes", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });

  it.each(["system", "sysbatch"])("places one %s allocation on each node, every one named <job>.g[0]", async (type) => {
    const id = `each-${type}`;
    await agent.register(job(id, { Type: type }));
    await agent.agent.clock.advance(0);
    const allocs = await allocations(agent, id);
    expect(byNode(allocs)).toEqual([`client-1 ${id}.g[0] pending`, `client-2 ${id}.g[0] pending`, `client-3 ${id}.g[0] pending`]);
    const evaluation = await read(agent, `/v1/evaluation/${allocs[0]!.EvalID as string}`);
    expect(evaluation).toMatchObject({ Status: "complete", Type: type, QueuedAllocations: { g: 0 } });
  });

  it.each(["system", "sysbatch"])("skips a node its constraints filter out, without a failed placement or a blocked evaluation (%s)", async (type) => {
    const id = `constrained-${type}`;
    await agent.register(job(id, { Type: type, Constraints: [{ LTarget: "${node.unique.name}", RTarget: "client-2", Operand: "!=" }] }));
    await agent.agent.clock.advance(0);
    const allocs = await allocations(agent, id);
    expect(byNode(allocs)).toEqual([`client-1 ${id}.g[0] pending`, `client-3 ${id}.g[0] pending`]);
    const evals = await read<Item[]>(agent, `/v1/job/${id}/evaluations`);
    expect(evals.map((evaluation) => [evaluation.Status, evaluation.FailedTGAllocs ?? null, evaluation.QueuedAllocations])).toEqual([["complete", null, { g: 0 }]]);
  });

  it("reports the nodes filtered when its constraints keep it off every node, as the reference's system scheduler (mergeNodeFiltered)", async () => {
    await agent.register(job("nowhere", { Type: "system", Constraints: [{ LTarget: "${node.unique.name}", RTarget: "nowhere", Operand: "=" }] }));
    await agent.agent.clock.advance(0);
    expect(await allocations(agent, "nowhere")).toEqual([]);
    const [evaluation] = await read<Item[]>(agent, "/v1/job/nowhere/evaluations");
    expect(evaluation!.FailedTGAllocs).toMatchObject({ g: { NodesEvaluated: 3, NodesFiltered: 3 } });
  });

  it("counts what it placed on the other nodes for a distinct_property (one node of the datacenter takes it)", async () => {
    await agent.register(job("distinct", { Type: "system", Constraints: [{ LTarget: "${node.datacenter}", RTarget: "1", Operand: "distinct_property" }] }));
    await agent.agent.clock.advance(0);
    expect(await allocations(agent, "distinct")).toHaveLength(1);
  });

  it("names its allocations after the job's Name, as materializeSystemTaskGroups", async () => {
    await agent.register(job("named", { Type: "system", Name: "other" }));
    await agent.agent.clock.advance(0);
    expect([...new Set((await allocations(agent, "named")).map((alloc) => alloc.Name))]).toEqual(["other.g[0]"]);
  });

  it.each([
    ["system", { MaxParallel: 1, HealthCheck: "checks", MinHealthyTime: 10e9 }],
    ["sysbatch", null],
  ])("gives a %s job without an update block the API's default one (%j), as the reference's Job.Canonicalize", async (type, update) => {
    const id = `update-${type}`;
    await agent.register(job(id, { Type: type }));
    const stored = await read<{ Update: Item | null; TaskGroups: { Update: Item | null }[] }>(agent, `/v1/job/${id}`);
    if (update === null) expect([stored.Update, stored.TaskGroups[0]!.Update]).toEqual([null, null]);
    else expect([stored.Update, stored.TaskGroups[0]!.Update]).toMatchObject([update, update]);
  });
});

describe("a system job and an ineligible node", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });

  it("skips the node, and places on it once it is eligible again, by a node-update evaluation naming it", async () => {
    const ineligible = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-2"', set: { SchedulingEligibility: "ineligible" } });
    await agent.agent.clock.advance(0);
    await agent.register(job("sys", { Type: "system" }));
    await agent.agent.clock.advance("1s");
    expect(byNode(await allocations(agent, "sys"))).toEqual(["client-1 sys.g[0] running", "client-3 sys.g[0] running"]);
    agent.agent.scenarios.remove(ineligible);
    const eligible = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-2"', set: { SchedulingEligibility: "eligible" } });
    await agent.agent.clock.advance(0);
    const allocs = await allocations(agent, "sys");
    expect(byNode(allocs)).toEqual(["client-1 sys.g[0] running", "client-2 sys.g[0] pending", "client-3 sys.g[0] running"]);
    const placed = allocs.find((alloc) => alloc.NodeName === "client-2")!;
    expect(await read(agent, `/v1/evaluation/${placed.EvalID as string}`)).toMatchObject({ TriggeredBy: "node-update", NodeID: placed.NodeID, Status: "complete" });
    agent.agent.scenarios.remove(eligible);
  });
});

describe("a system job and a node that goes down and comes back", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });

  it("loses the node's allocation without placing it elsewhere, and places one there when the node is ready again", async () => {
    await agent.register(job("sys", { Type: "system" }));
    await agent.agent.clock.advance("1s");
    const victim = (await allocations(agent, "sys")).find((alloc) => alloc.NodeName === "client-1")!;
    const down = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-1"', set: { Status: "down" } });
    await agent.agent.clock.advance("1s");
    expect(byNode(await allocations(agent, "sys"))).toEqual(["client-1 sys.g[0] lost", "client-2 sys.g[0] running", "client-3 sys.g[0] running"]);
    const lost = await read(agent, `/v1/allocation/${victim.ID as string}`);
    expect(lost).toMatchObject({ DesiredStatus: "stop", ClientStatus: "lost", DesiredDescription: "alloc is lost since its node is down" });
    expect(lost.NextAllocation).toBeUndefined();
    const nodeUpdate = (await read<Item[]>(agent, "/v1/job/sys/evaluations")).find((evaluation) => evaluation.TriggeredBy === "node-update")!;
    expect(nodeUpdate).toMatchObject({ Status: "complete", NodeID: victim.NodeID });
    expect(nodeUpdate.FailedTGAllocs).toBeUndefined();
    expect((await read<{ Summary: Record<string, Record<string, number>> }>(agent, "/v1/job/sys/summary")).Summary.g).toMatchObject({ Running: 2, Lost: 1, Queued: 0 });
    agent.agent.scenarios.remove(down);
    const up = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-1"', set: { Status: "ready" } });
    await agent.agent.clock.advance("1s");
    expect(byNode(await allocations(agent, "sys"))).toEqual(["client-1 sys.g[0] lost", "client-1 sys.g[0] running", "client-2 sys.g[0] running", "client-3 sys.g[0] running"]);
    expect((await read(agent, "/v1/job/sys")).Status).toBe("running");
    agent.agent.scenarios.remove(up);
  });
});

describe("a sysbatch job", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });

  it("runs to completion on every node, the job then dead, and a finished allocation is not placed again", async () => {
    await agent.register(job("once", { Type: "sysbatch" }));
    await agent.agent.clock.advance("1m");
    expect(byNode(await allocations(agent, "once"))).toEqual(["client-1 once.g[0] complete", "client-2 once.g[0] complete", "client-3 once.g[0] complete"]);
    expect((await read(agent, "/v1/job/once")).Status).toBe("dead");
    expect((await read<{ Summary: Record<string, Record<string, number>> }>(agent, "/v1/job/once/summary")).Summary.g).toMatchObject({ Complete: 3, Running: 0, Starting: 0 });
    // The job's nodes written again (one briefly ineligible), and the job evaluated again by re-registering it unchanged: nothing more runs.
    const touched = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-2"', set: { SchedulingEligibility: "ineligible" } });
    await agent.agent.clock.advance(0);
    agent.agent.scenarios.remove(touched);
    const back = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-2"', set: { SchedulingEligibility: "eligible" } });
    await agent.register(job("once", { Type: "sysbatch" }));
    await agent.agent.clock.advance("1m");
    expect(await allocations(agent, "once")).toHaveLength(3);
    expect((await read(agent, "/v1/job/once")).Status).toBe("dead");
    agent.agent.scenarios.remove(back);
  });
});

describe("a system job's new version and its stop", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });

  it("replaces each node's allocation on the same node with the new version, and stops them all when the job is stopped", async () => {
    await agent.register(job("sys", { Type: "system" }));
    await agent.agent.clock.advance("1s");
    const first = await allocations(agent, "sys");
    await agent.register(job("sys", { Type: "system", Meta: { v: "2" } }));
    // The default update block rolls one node at a time, each healthy after its MinHealthyTime (10 s).
    await agent.agent.clock.advance("1m");
    const allocs = await allocations(agent, "sys");
    const current = allocs.filter((alloc) => alloc.JobVersion === 1);
    expect(byNode(current)).toEqual(["client-1 sys.g[0] running", "client-2 sys.g[0] running"]);
    for (const alloc of current) {
      const full = await read(agent, `/v1/allocation/${alloc.ID as string}`);
      const previous = first.find((each) => each.ID === full.PreviousAllocation)!;
      expect(previous.NodeID).toBe(alloc.NodeID);
      expect(await read(agent, `/v1/allocation/${previous.ID as string}`)).toMatchObject({ DesiredStatus: "stop", DesiredDescription: "alloc is being updated due to job update", ClientStatus: "complete" });
    }
    expect((await agent.get("/v1/job/sys", { method: "DELETE" })).status).toBe(200);
    await agent.agent.clock.advance("1s");
    expect((await allocations(agent, "sys")).filter((alloc) => alloc.DesiredStatus === "run")).toEqual([]);
    expect((await read(agent, "/v1/job/sys")).Status).toBe("dead");
  });

  it("runs a sysbatch job's new version once more on every node", async () => {
    await agent.register(job("again", { Type: "sysbatch" }));
    await agent.agent.clock.advance("1m");
    await agent.register(job("again", { Type: "sysbatch", Meta: { v: "2" } }));
    await agent.agent.clock.advance("1m");
    const allocs = await allocations(agent, "again");
    expect(byNode(allocs.filter((alloc) => alloc.JobVersion === 1))).toEqual(["client-1 again.g[0] complete", "client-2 again.g[0] complete"]);
    expect(allocs).toHaveLength(4);
    expect((await read(agent, "/v1/job/again")).Status).toBe("dead");
  });
});

describe("a system job's deployments", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const deployments = (id: string) => read<Item[]>(agent, `/v1/job/${id}/deployments`);
  const update = { MaxParallel: 1, MinHealthyTime: 2e9, HealthyDeadline: 60e9, ProgressDeadline: 120e9 };

  it("places a first registration on every node at once behind a deployment, successful once all are healthy, the job stable", async () => {
    await agent.register(job("first", { Type: "system", Update: update }));
    await agent.agent.clock.advance(0);
    expect(byNode(await allocations(agent, "first"))).toEqual(["client-1 first.g[0] pending", "client-2 first.g[0] pending", "client-3 first.g[0] pending"]);
    const [running] = await deployments("first");
    expect(running).toMatchObject({ Status: "running", JobVersion: 0, TaskGroups: { g: { DesiredTotal: 3, PlacedAllocs: 3, HealthyAllocs: 0 } } });
    await agent.agent.clock.advance("10s");
    expect(await read(agent, `/v1/deployment/${running!.ID as string}`)).toMatchObject({ Status: "successful", StatusDescription: "Deployment completed successfully", TaskGroups: { g: { DesiredTotal: 3, HealthyAllocs: 3 } } });
    expect(await read(agent, "/v1/job/first")).toMatchObject({ Version: 0, Stable: true, Status: "running" });
  });

  it("replaces one node's allocation at a time with MaxParallel 1, each after the one before is healthy, then is successful and the job stable", async () => {
    await agent.register(job("roll", { Type: "system", Update: update }));
    await agent.agent.clock.advance("10s");
    await agent.register(job("roll", { Type: "system", Update: update, Meta: { v: "1" } }));
    await agent.agent.clock.advance(0);
    const latest = async () => (await deployments("roll")).find((each) => each.JobVersion === 1)!;
    const rolled = async () => (await allocations(agent, "roll")).filter((alloc) => alloc.JobVersion === 1 && alloc.DesiredStatus === "run");
    expect(await latest()).toMatchObject({ Status: "running", TaskGroups: { g: { DesiredTotal: 3, PlacedAllocs: 1 } } });
    // Second by second: never more than one new allocation not yet healthy, and the old one on its node kept until then.
    const placedAt: number[] = [];
    for (let second = 0; second < 30 && placedAt.length < 3; second++) {
      const current = await rolled();
      const waiting = current.filter((alloc) => (alloc.DeploymentStatus as Item | null)?.Healthy !== true);
      expect(waiting.length).toBeLessThanOrEqual(1);
      const old = (await allocations(agent, "roll")).filter((alloc) => alloc.JobVersion === 0 && alloc.DesiredStatus === "run");
      expect(old.length + current.length).toBe(3);
      while (placedAt.length < current.length) placedAt.push(second);
      if (placedAt.length < 3) await agent.agent.clock.advance("1s");
    }
    // Each next node waits for the one before: placed, running a second later, healthy its MinHealthyTime (2 s) after that.
    expect(placedAt[0]).toBe(0);
    for (const at of [1, 2]) expect(placedAt[at]! - placedAt[at - 1]!).toBeGreaterThanOrEqual(2);
    await agent.agent.clock.advance("10s");
    expect(byNode(await rolled())).toEqual(["client-1 roll.g[0] running", "client-2 roll.g[0] running", "client-3 roll.g[0] running"]);
    expect(await latest()).toMatchObject({ Status: "successful", TaskGroups: { g: { DesiredTotal: 3, PlacedAllocs: 3, HealthyAllocs: 3, UnhealthyAllocs: 0 } } });
    expect(await read(agent, "/v1/job/roll")).toMatchObject({ Version: 1, Stable: true });
    const evals = await read<Item[]>(agent, "/v1/job/roll/evaluations");
    expect(evals.filter((evaluation) => evaluation.TriggeredBy === "deployment-watcher").length).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ["promoted by a client", { AutoPromote: false }, "Deployment is running but requires manual promotion"],
    ["promoting itself", { AutoPromote: true }, undefined],
  ])("replaces Canary percent of the nodes first (at most MaxParallel), waits for their promotion, then rolls the rest (%s)", async (name, promote, waiting) => {
    const id = `canary-${promote.AutoPromote ? "auto" : "manual"}`;
    const canaries = { ...update, MaxParallel: 2, Canary: 50, ...promote };
    await agent.register(job(id, { Type: "system", Update: canaries }));
    await agent.agent.clock.advance("10s");
    await agent.register(job(id, { Type: "system", Update: canaries, Meta: { v: "1" } }));
    await agent.agent.clock.advance(0);
    const latest = async () => (await deployments(id)).find((each) => each.JobVersion === 1)!;
    const rolled = async () => (await allocations(agent, id)).filter((alloc) => alloc.JobVersion === 1 && alloc.DesiredStatus === "run");
    // 50 % of 3 nodes, rounded up: 2 canaries, each replacing its node's allocation.
    const placed = await rolled();
    expect(placed.map((alloc) => (alloc.DeploymentStatus as Item).Canary)).toEqual([true, true]);
    expect(await latest()).toMatchObject({ Status: "running", TaskGroups: { g: { DesiredCanaries: 2, DesiredTotal: 3, Promoted: false } } });
    await agent.agent.clock.advance("10s");
    if (waiting !== undefined) {
      // Healthy canaries wait for a client's promotion; the third node keeps the old version.
      expect(await latest()).toMatchObject({ Status: "running", StatusDescription: waiting, TaskGroups: { g: { HealthyAllocs: 2, Promoted: false } } });
      expect(await rolled()).toHaveLength(2);
      const waitingId = (await latest()).ID as string;
      const promoted = await send(`${agent.url}/v1/deployment/promote/${waitingId}`, { method: "POST", body: JSON.stringify({ DeploymentID: waitingId, All: true }) });
      expect(promoted.status, name).toBe(200);
    }
    await agent.agent.clock.advance("20s");
    expect(byNode(await rolled())).toEqual([`client-1 ${id}.g[0] running`, `client-2 ${id}.g[0] running`, `client-3 ${id}.g[0] running`]);
    expect(await latest()).toMatchObject({ Status: "successful", TaskGroups: { g: { DesiredCanaries: 2, DesiredTotal: 3, HealthyAllocs: 3, Promoted: true } } });
    expect(await read(agent, `/v1/job/${id}`)).toMatchObject({ Version: 1, Stable: true });
  });

  it("updates every node's allocation in place at once when its tasks can take the change, in the new deployment, then successful", async () => {
    await agent.register(job("inplace", { Type: "system", Update: update }));
    await agent.agent.clock.advance("10s");
    const before = (await allocations(agent, "inplace")).map((alloc) => alloc.ID).sort();
    await agent.register(job("inplace", { Type: "system", Update: update, Priority: 70 }));
    await agent.agent.clock.advance(0);
    const after = await allocations(agent, "inplace");
    // The same allocations, at the new version: MaxParallel limits replacements, not updates in place.
    expect(after.map((alloc) => alloc.ID).sort()).toEqual(before);
    expect(after.map((alloc) => alloc.JobVersion)).toEqual([1, 1, 1]);
    const deployment = (await deployments("inplace")).find((each) => each.JobVersion === 1)!;
    expect(deployment).toMatchObject({ Status: "running", TaskGroups: { g: { DesiredTotal: 3, PlacedAllocs: 3, HealthyAllocs: 0 } } });
    const full = await Promise.all(after.map((alloc) => read(agent, `/v1/allocation/${alloc.ID as string}`)));
    expect(full.map((alloc) => [alloc.DeploymentID, alloc.DeploymentStatus ?? null])).toEqual(Array(3).fill([deployment.ID, null]));
    await agent.agent.clock.advance("10s");
    expect(await read(agent, `/v1/deployment/${deployment.ID as string}`)).toMatchObject({ Status: "successful", TaskGroups: { g: { HealthyAllocs: 3 } } });
    expect(await read(agent, "/v1/job/inplace")).toMatchObject({ Version: 1, Stable: true });
  });

  it("cancels the deployment of an older version still rolling out when a newer one is registered", async () => {
    await agent.register(job("newer", { Type: "system", Update: update }));
    await agent.agent.clock.advance("10s");
    await agent.register(job("newer", { Type: "system", Update: update, Meta: { v: "1" } }));
    await agent.agent.clock.advance(0);
    await agent.register(job("newer", { Type: "system", Update: update, Meta: { v: "2" } }));
    await agent.agent.clock.advance(0);
    const byVersion = Object.fromEntries((await deployments("newer")).map((each) => [each.JobVersion, [each.Status, each.StatusDescription]]));
    expect(byVersion).toEqual({ 0: ["successful", "Deployment completed successfully"], 1: ["cancelled", "Cancelled due to newer version of job"], 2: ["running", "Deployment is running"] });
  });
});

describe("a system job on a cluster with a client older than 1.11", () => {
  const node = (Name: string, version?: string) => ({ Name, Attributes: version === undefined ? SIMULATED_ATTRIBUTES : { ...SIMULATED_ATTRIBUTES, "nomad.version": version } });
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, data: { Nodes: [node("client-1"), node("client-2", "1.10.5"), node("client-3")] } });

  it("makes no deployment, and replaces MaxParallel allocations per evaluation with nothing to roll the rest, as the reference's compatibility check", async () => {
    expect((await read<Item[]>(agent, "/v1/nodes")).map((node) => `${node.Name as string} ${node.Version as string}`).sort()).toEqual(["client-1 2.0.6", "client-2 1.10.5", "client-3 2.0.6"]);
    await agent.register(job("legacy", { Type: "system" }));
    await agent.agent.clock.advance("1m");
    await agent.register(job("legacy", { Type: "system", Meta: { v: "1" } }));
    await agent.agent.clock.advance("1m");
    const allocs = await allocations(agent, "legacy");
    expect(allocs.filter((alloc) => alloc.JobVersion === 1 && alloc.DesiredStatus === "run")).toHaveLength(1);
    expect(allocs.filter((alloc) => alloc.JobVersion === 0 && alloc.DesiredStatus === "run")).toHaveLength(2);
    expect(await read<Item[]>(agent, "/v1/job/legacy/deployments")).toEqual([]);
  });
});

describe("a system job whose new version no longer fits some nodes", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });

  it("stops its allocations there, though nothing replaces them (evictAndPlace)", async () => {
    await agent.register(job("narrowed", { Type: "system" }));
    await agent.agent.clock.advance("11s");
    await agent.register(job("narrowed", { Type: "system", Constraints: [{ LTarget: "${node.unique.name}", RTarget: "client-2", Operand: "=" }] }));
    // One node a step (MaxParallel 1), each step once the last is healthy.
    for (let step = 0; step < 4; step++) await agent.agent.clock.advance("12s");
    const running = (await allocations(agent, "narrowed")).filter((alloc) => alloc.DesiredStatus === "run");
    expect(running.map((alloc) => `${alloc.NodeName as string} v${alloc.JobVersion as number}`)).toEqual(["client-2 v1"]);
  });
});
