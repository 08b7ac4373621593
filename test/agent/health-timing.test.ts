/**
 * When a deployment's allocations are healthy, as the reference's client health tracker decides
 * it (`client/allochealth/tracker.go`) from the group's update block: healthy once their tasks
 * have run `MinHealthyTime`, unhealthy at `HealthyDeadline` when they are not healthy by then (a
 * job's `bexpr.fail_deployment`, or tasks that never start). The placement delay only says when
 * allocations start running. On the manual clock, over real sockets.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, useAgent } from "./support.js";

type Item = Record<string, any>;

const SECOND_NS = 1_000_000_000;

const spec = (id: string, update: Item, meta?: Record<string, string>) => job(id, { Update: update, ...(meta === undefined ? {} : { Meta: meta }), TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] });

describe("health timing", () => {
  // Allocations run half the placement delay after they are placed: at 0.5 s.
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const latest = (id: string) => read(`/v1/job/${id}/deployment`);
  const health = async (id: string) => (await read<Item[]>(`/v1/job/${id}/allocations`)).map((alloc) => alloc.DeploymentStatus?.Healthy ?? null);

  afterEach(async () => {
    await send(`${agent.url}/_bexpr/lifecycle`, { method: "DELETE" });
  });

  it("keeps the deployment running until its allocations have run MinHealthyTime", async () => {
    await agent.register(spec("slow", { MaxParallel: 2, MinHealthyTime: 60 * SECOND_NS }));
    await agent.agent.clock.advance("500ms");
    expect((await read<Item[]>(`/v1/job/slow/allocations`)).map((alloc) => alloc.ClientStatus)).toEqual(["running", "running"]);
    // Seconds since they started running, and what the deployment says then.
    const checkpoints = [
      { since: 10, status: "running", healthy: [null, null] },
      { since: 59, status: "running", healthy: [null, null] },
      { since: 60, status: "successful", healthy: [true, true] },
    ];
    let since = 0;
    for (const checkpoint of checkpoints) {
      await agent.agent.clock.advance((checkpoint.since - since) * 1000);
      since = checkpoint.since;
      expect([since, (await latest("slow")).Status, await health("slow")]).toEqual([since, checkpoint.status, checkpoint.healthy]);
    }
    expect((await latest("slow")).TaskGroups.g).toMatchObject({ HealthyAllocs: 2, UnhealthyAllocs: 0 });
    expect((await read("/v1/job/slow")).Stable).toBe(true);
  });

  it("uses the default update block's MinHealthyTime, 10 s, when the job gives none", async () => {
    await agent.register(job("defaults", { TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("10s");
    expect((await latest("defaults")).Status).toBe("running");
    await agent.agent.clock.advance("500ms");
    expect((await latest("defaults")).Status).toBe("successful");
  });

  it.each([
    { name: "its job scripts a failure (bexpr.fail_deployment)", id: "scripted", meta: { "bexpr.fail_deployment": "true" }, held: false },
    { name: "its tasks never start", id: "held", meta: undefined, held: true },
  ])("finds the allocations unhealthy at HealthyDeadline when $name", async ({ id, meta, held }) => {
    if (held) {
      const narrowed = await send(`${agent.url}/_bexpr/lifecycle/run`, { method: "PATCH", body: JSON.stringify({ Select: `ClientStatus == "pending" and JobID != "${id}"` }) });
      expect(narrowed.status).toBe(200);
    }
    await agent.register(spec(id, { MaxParallel: 2, MinHealthyTime: 5 * SECOND_NS, HealthyDeadline: 30 * SECOND_NS, ProgressDeadline: 0 }, meta));
    await agent.agent.clock.advance("29s");
    expect([(await latest(id)).Status, await health(id)]).toEqual(["running", [null, null]]);
    await agent.agent.clock.advance("1s");
    expect(await health(id)).toEqual([false, false]);
    expect((await latest(id)).TaskGroups.g).toMatchObject({ HealthyAllocs: 0, UnhealthyAllocs: 2 });
    // Without a progress deadline, the watcher fails the deployment at the first unhealthy allocation.
    await agent.agent.clock.advance("1s");
    expect(await latest(id)).toMatchObject({ Status: "failed", StatusDescription: "Failed due to unhealthy allocations" });
  });

  it("writes nothing at HealthyDeadline for allocations found healthy before it, while a group waits for room", async () => {
    // Group "a" is placed and found healthy at 5.5 s; group "b" fits no node, so the deployment stays running.
    const nowhere = [{ LTarget: "${node.datacenter}", RTarget: "nowhere", Operand: "=" }];
    const groups = [
      { Name: "a", Count: 1, Tasks: [{ Name: "t", Driver: "mock" }] },
      { Name: "b", Count: 1, Constraints: nowhere, Tasks: [{ Name: "t", Driver: "mock" }] },
    ];
    await agent.register(job("healthy-early", { Update: { MaxParallel: 1, MinHealthyTime: 5 * SECOND_NS, HealthyDeadline: 30 * SECOND_NS, ProgressDeadline: 0 }, TaskGroups: groups }));
    await agent.agent.clock.advance("6s");
    expect([(await latest("healthy-early")).Status, await health("healthy-early")]).toEqual(["running", [true]]);
    const before = { jobs: (await agent.get("/v1/jobs")).headers["x-svc-index"], evaluations: await read<Item[]>("/v1/job/healthy-early/evaluations") };
    // Past the deadline counted from the placement: the allocation's health was told at 5.5 s, so its client has nothing more to say.
    await agent.agent.clock.advance("30s");
    const after = { jobs: (await agent.get("/v1/jobs")).headers["x-svc-index"], evaluations: await read<Item[]>("/v1/job/healthy-early/evaluations") };
    expect(after).toEqual(before);
  });

  it("fails a deployment that has not made progress by its RequireProgressBy", async () => {
    await send(`${agent.url}/_bexpr/lifecycle/run`, { method: "PATCH", body: JSON.stringify({ Select: 'ClientStatus == "pending" and JobID != "stuck"' }) });
    await agent.register(spec("stuck", { MaxParallel: 2, HealthyDeadline: 30 * SECOND_NS, ProgressDeadline: 90 * SECOND_NS }));
    await agent.agent.clock.advance(0);
    const placed = await latest("stuck");
    const deadline = Date.parse(placed.TaskGroups.g.RequireProgressBy);
    expect(deadline - agent.agent.clock.now().getTime()).toBe(90_000);
    await agent.agent.clock.advance("89s");
    expect((await latest("stuck")).Status).toBe("running");
    await agent.agent.clock.advance("1s");
    expect(await read(`/v1/deployment/${placed.ID}`)).toMatchObject({ Status: "failed", StatusDescription: "Failed due to progress deadline" });
  });
});
