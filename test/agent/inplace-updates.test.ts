/**
 * A new version of a job updates its allocations in place or replaces them, as the reference's
 * scheduler decides per task group (`scheduler/util.go` `tasksUpdated`, `genericAllocUpdateFn`;
 * `reconcile_cluster.go` `computeUpdates`): a change its tasks can take (the count, the update
 * block, the priority) keeps every allocation, same ID on the same node, at the new version and in
 * the new deployment, which counts it among its placements and waits for its health; a change of a
 * task's config, or of the job's metadata (a task's metadata is combined with its group's and its
 * job's), replaces them. On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { useAgent } from "./support.js";

type Item = Record<string, any>;

/** A service job of one group `g` whose task runs `image`, rolled out one allocation at a time. */
const service = (id: string, fields: { count?: number; image?: string; meta?: Record<string, string>; priority?: number } = {}) => ({
  ID: id,
  Priority: fields.priority ?? 50,
  Update: { MaxParallel: 1 },
  ...(fields.meta === undefined ? {} : { Meta: fields.meta }),
  TaskGroups: [{ Name: "g", Count: fields.count ?? 2, Tasks: [{ Name: "t", Driver: "docker", Config: { image: fields.image ?? "web:1" } }] }],
});

describe("a new version of a job", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const allocations = (id: string) => read<Item[]>(`/v1/job/${id}/allocations`);
  const running = async (id: string) => (await allocations(id)).filter((alloc) => alloc.DesiredStatus === "run");

  /** Registers version 0 of the job and lets its deployment finish. */
  const deployed = async (id: string) => {
    await agent.register(service(id));
    // Healthy once running for the update block's MinHealthyTime (10 s by default): running at 0.5 s, healthy at 10.5 s.
    await agent.agent.clock.advance("11s");
    expect((await read(`/v1/job/${id}/deployment`)).Status).toBe("successful");
    return await allocations(id);
  };

  it.each([
    { change: "the count, 2 to 4", update: { count: 4 }, kept: 2, placed: 2, replaced: 0 },
    { change: "the priority", update: { priority: 70 }, kept: 2, placed: 0, replaced: 0 },
    { change: "a task's config (its image)", update: { image: "web:2" }, kept: 0, placed: 0, replaced: 1 },
    { change: "the job's Meta (combined into each task's)", update: { meta: { owner: "team-b" } }, kept: 0, placed: 0, replaced: 1 },
  ])("changing $change keeps $kept allocations in place, places $placed and replaces $replaced at once", async ({ update, kept, placed, replaced }) => {
    const id = `job-${kept}-${placed}-${replaced}-${Object.keys(update)[0]}`;
    const before = await deployed(id);
    await agent.register(service(id, update));
    await agent.agent.clock.advance(0);

    const after = await running(id);
    const deployment = await read(`/v1/job/${id}/deployment`);
    expect(deployment.JobVersion).toBe(1);
    const inPlace = after.filter((alloc) => alloc.JobVersion === 1 && before.some((old) => old.ID === alloc.ID));
    expect(inPlace).toHaveLength(kept);
    for (const alloc of inPlace) {
      const old = before.find((each) => each.ID === alloc.ID)!;
      // Same allocation, same node, at the new version and in the new deployment, its health there not yet known.
      expect(alloc).toMatchObject({ Name: old.Name, NodeID: old.NodeID, JobVersion: 1, ClientStatus: "running" });
      const full = await read(`/v1/allocation/${alloc.ID}`);
      expect(full).toMatchObject({ DeploymentID: deployment.ID, Job: { Version: 1 } });
      expect(full.DeploymentStatus ?? null).toBeNull();
    }
    const stopped = (await allocations(id)).filter((alloc) => alloc.DesiredStatus === "stop");
    expect(stopped.map((alloc) => alloc.DesiredDescription)).toEqual(Array(replaced).fill("alloc is being updated due to job update"));
    const replacements = await Promise.all(stopped.map(async (alloc) => (await read(`/v1/allocation/${alloc.ID}`)).NextAllocation));
    expect(after.filter((alloc) => replacements.includes(alloc.ID)).map((alloc) => alloc.JobVersion)).toEqual(Array(replaced).fill(1));
    expect(after.filter((alloc) => !before.some((old) => old.ID === alloc.ID) && !replacements.includes(alloc.ID))).toHaveLength(placed);
    // The deployment counts the allocations updated in place and the new ones (DesiredTotal: destructive + in place + placed).
    expect(deployment.TaskGroups.g).toMatchObject({ DesiredTotal: kept + placed + (replaced === 0 ? 0 : before.length), PlacedAllocs: kept + placed + replaced, HealthyAllocs: 0 });
  });

  it("places no canary for a change taken in place: canaries stand in only for allocations to replace", async () => {
    const update = { MaxParallel: 1, Canary: 1 };
    await agent.register({ ...service("canaried"), Update: update });
    await agent.agent.clock.advance("11s");
    const before = await allocations("canaried");
    await agent.register({ ...service("canaried", { count: 3 }), Update: update });
    await agent.agent.clock.advance(0);
    const deployment = await read("/v1/job/canaried/deployment");
    expect(deployment).toMatchObject({ JobVersion: 1, StatusDescription: "Deployment is running", TaskGroups: { g: { DesiredCanaries: 0, DesiredTotal: 3, PlacedCanaries: null } } });
    const after = await running("canaried");
    expect(after.map((alloc) => alloc.JobVersion)).toEqual([1, 1, 1]);
    expect(after.filter((alloc) => before.some((old) => old.ID === alloc.ID))).toHaveLength(2);
    await agent.agent.clock.advance("11s");
    expect((await read("/v1/job/canaried/deployment")).Status).toBe("successful");
  });

  it("counts the allocations updated in place as healthy once their clients find them so; the deployment then succeeds", async () => {
    const before = await deployed("grown");
    await agent.register(service("grown", { count: 4 }));
    await agent.agent.clock.advance(0);
    expect((await read("/v1/job/grown/deployment")).Status).toBe("running");
    // The allocations kept ran long before, but their clients track their health again from the update: MinHealthyTime from then.
    await agent.agent.clock.advance("9s");
    expect((await read("/v1/job/grown/deployment")).TaskGroups.g.HealthyAllocs).toBe(0);
    await agent.agent.clock.advance("2s");
    const deployment = await read("/v1/job/grown/deployment");
    expect(deployment).toMatchObject({ JobVersion: 1, Status: "successful", TaskGroups: { g: { DesiredTotal: 4, PlacedAllocs: 4, HealthyAllocs: 4 } } });
    const kept = await Promise.all(before.map((alloc) => read(`/v1/allocation/${alloc.ID}`)));
    expect(kept.map((alloc) => [alloc.DesiredStatus, alloc.Job.Version, alloc.DeploymentID, alloc.DeploymentStatus?.Healthy])).toEqual([
      ["run", 1, deployment.ID, true],
      ["run", 1, deployment.ID, true],
    ]);
    expect((await read("/v1/job/grown")).Stable).toBe(true);
  });

  it("marks an allocation updated in place unhealthy when it fails in its new deployment, which replaces it and succeeds", async () => {
    const before = await deployed("failing");
    await agent.register(service("failing", { count: 3 }));
    await agent.agent.clock.advance(0);
    const rule = agent.agent.scenarios.add({ on: "allocation", select: `ID == "${before[0]!.ID}"`, after: "1s", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("1s");
    const failed = await read(`/v1/allocation/${before[0]!.ID}`);
    expect([failed.ClientStatus, failed.DeploymentStatus?.Healthy]).toEqual(["failed", false]);
    expect((await read("/v1/job/failing/deployment")).TaskGroups.g.UnhealthyAllocs).toBe(1);
    // The watcher lets it be replaced (the group has a progress deadline): by the reschedule policy's 30 s delay, then healthy 10 s after it runs.
    await agent.agent.clock.advance("60s");
    expect((await read("/v1/job/failing/deployment")).Status).toBe("successful");
    agent.agent.scenarios.remove(rule);
  });

  it("finds allocations updated in place before they ran healthy MinHealthyTime after they run, not at their HealthyDeadline", async () => {
    await agent.register(service("early"));
    await agent.agent.clock.advance(0);
    // Still pending: the priority changes, and both are updated in place into the new deployment.
    await agent.register(service("early", { priority: 70 }));
    await agent.agent.clock.advance(0);
    expect((await running("early")).map((alloc) => [alloc.ClientStatus, alloc.JobVersion])).toEqual([
      ["pending", 1],
      ["pending", 1],
    ]);
    await agent.agent.clock.advance("11s");
    expect(await read("/v1/job/early/deployment")).toMatchObject({ JobVersion: 1, Status: "successful", TaskGroups: { g: { HealthyAllocs: 2 } } });
  });

  it("replaces an allocation whose node no longer meets the new version's constraints, and keeps the other in place", async () => {
    const before = await deployed("fenced");
    const [leaving, staying] = before;
    await agent.register({ ...service("fenced"), Constraints: [{ LTarget: "${node.unique.id}", RTarget: leaving!.NodeID, Operand: "!=" }] });
    await agent.agent.clock.advance(0);
    const after = await allocations("fenced");
    expect(after.find((alloc) => alloc.ID === staying!.ID)).toMatchObject({ JobVersion: 1, DesiredStatus: "run" });
    expect(after.find((alloc) => alloc.ID === leaving!.ID)).toMatchObject({ JobVersion: 0, DesiredStatus: "stop", DesiredDescription: "alloc is being updated due to job update" });
    const replacement = after.find((alloc) => alloc.ID !== leaving!.ID && alloc.ID !== staying!.ID)!;
    expect(replacement.NodeID).not.toBe(leaving!.NodeID);
  });
});
