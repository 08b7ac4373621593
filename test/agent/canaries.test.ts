/**
 * Canaries and rolling updates as the reference's reconciler runs them: a new job places no
 * canary (there is nothing to replace); an update places only its canaries and keeps the old
 * version running until they are promoted, then replaces the old allocations `MaxParallel` at a
 * time, each batch once the one before is healthy; pausing a deployment writes no evaluation.
 * On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, useAgent } from "./support.js";

type Item = Record<string, any>;

/** From placement until healthy: the allocations run at half the placement delay (0.5 s), then the default MinHealthyTime (10 s). */
const HEALTHY = "10.5s";

const group = (count: number, image: string) => [{ Name: "g", Count: count, Tasks: [{ Name: "t", Driver: "docker", Config: { image } }] }];

describe("canaries", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const deployments = (id: string) => read<Item[]>(`/v1/job/${id}/deployments`);
  const latest = async (id: string) => (await read(`/v1/job/${id}/deployment`)) as Item;
  const allocations = (id: string) => read<Item[]>(`/v1/job/${id}/allocations`);
  const byVersion = async (id: string, version: number) => (await allocations(id)).filter((alloc) => alloc.JobVersion === version);
  const post = (path: string, body: unknown) => send(agent.url + path, { method: "POST", body: JSON.stringify(body) });

  it("are not placed for a new job: it has nothing to replace, and its deployment completes", async () => {
    await agent.register(job("fresh", { Update: { MaxParallel: 1, Canary: 1 }, TaskGroups: group(2, "v1") }));
    await agent.agent.clock.advance(0);
    expect(await latest("fresh")).toMatchObject({ Status: "running", StatusDescription: "Deployment is running", TaskGroups: { g: { DesiredCanaries: 0, DesiredTotal: 2, PlacedCanaries: null } } });
    expect((await allocations("fresh")).map((alloc) => alloc.DeploymentStatus?.Canary)).toEqual([false, false]);
    await agent.agent.clock.advance(HEALTHY);
    expect(await latest("fresh")).toMatchObject({ Status: "successful", TaskGroups: { g: { HealthyAllocs: 2 } } });
  });

  it("of an update are placed alone while the old version keeps running, until they are promoted; then the rest rolls out one at a time", async () => {
    await agent.register(job("web", { Update: { MaxParallel: 1, Canary: 1 }, TaskGroups: group(3, "v1") }));
    await agent.agent.clock.advance(HEALTHY);
    expect((await latest("web")).Status).toBe("successful");
    await agent.register(job("web", { Update: { MaxParallel: 1, Canary: 1 }, TaskGroups: group(3, "v2") }));
    await agent.agent.clock.advance(0);

    const waiting = await latest("web");
    expect(waiting).toMatchObject({ JobVersion: 1, Status: "running", StatusDescription: "Deployment is running but requires manual promotion", TaskGroups: { g: { DesiredCanaries: 1, DesiredTotal: 3, Promoted: false } } });
    const [canary] = await byVersion("web", 1);
    expect(waiting.TaskGroups.g.PlacedCanaries).toEqual([canary!.ID]);
    expect(canary).toMatchObject({ Name: "web.g[0]", DeploymentStatus: { Canary: true } });
    expect((await byVersion("web", 0)).map((alloc) => [alloc.DesiredStatus, alloc.ClientStatus])).toEqual([
      ["run", "running"],
      ["run", "running"],
      ["run", "running"],
    ]);

    // Not promotable before it is healthy (the reference answers 500; a client mistake here).
    const early = await post(`/v1/deployment/promote/${waiting.ID}`, { DeploymentID: waiting.ID, All: true });
    expect([early.status, early.text]).toEqual([400, '1 error occurred:\n\t* Task group "g" has 0/1 healthy allocations\n\n']);
    await agent.agent.clock.advance("1h");
    expect(await latest("web")).toMatchObject({ Status: "running", TaskGroups: { g: { HealthyAllocs: 1, Promoted: false } } });
    expect(await byVersion("web", 1)).toHaveLength(1);

    const promoted = await post(`/v1/deployment/promote/${waiting.ID}`, { DeploymentID: waiting.ID, All: true });
    expect(promoted.status).toBe(200);
    await agent.agent.clock.advance(0);
    expect(await latest("web")).toMatchObject({ StatusDescription: "Deployment is running", TaskGroups: { g: { Promoted: true } } });
    // The old allocation of the canary's name is not needed; one more is replaced (MaxParallel 1).
    const stopped = (await byVersion("web", 0)).filter((alloc) => alloc.DesiredStatus === "stop");
    expect(stopped.map((alloc) => [alloc.Name, alloc.DesiredDescription]).sort()).toEqual([
      ["web.g[0]", "alloc not needed due to job update"],
      ["web.g[1]", "alloc is being updated due to job update"],
    ]);
    expect((await byVersion("web", 1)).map((alloc) => alloc.Name).sort()).toEqual(["web.g[0]", "web.g[1]"]);
    expect((await read(`/v1/allocation/${canary!.ID}`)).DeploymentStatus).toMatchObject({ Canary: false, Healthy: true });

    await agent.agent.clock.advance(HEALTHY);
    expect((await byVersion("web", 1)).map((alloc) => alloc.Name).sort()).toEqual(["web.g[0]", "web.g[1]", "web.g[2]"]);
    expect((await latest("web")).Status).toBe("running");
    await agent.agent.clock.advance(HEALTHY);
    expect(await latest("web")).toMatchObject({ Status: "successful", TaskGroups: { g: { HealthyAllocs: 3, PlacedAllocs: 3, PlacedCanaries: [canary!.ID] } } });
    expect((await byVersion("web", 0)).every((alloc) => alloc.DesiredStatus === "stop" && alloc.ClientStatus === "complete")).toBe(true);
    expect((await read("/v1/job/web")).Stable).toBe(true);
  });

  it("promote themselves once healthy when the update says AutoPromote", async () => {
    const update = { MaxParallel: 2, Canary: 1, AutoPromote: true };
    await agent.register(job("auto", { Update: update, TaskGroups: group(2, "v1") }));
    await agent.agent.clock.advance(HEALTHY);
    await agent.register(job("auto", { Update: update, TaskGroups: group(2, "v2") }));
    await agent.agent.clock.advance(0);
    expect(await latest("auto")).toMatchObject({ JobVersion: 1, StatusDescription: "Deployment is running pending automatic promotion" });
    await agent.agent.clock.advance(HEALTHY);
    expect(await latest("auto")).toMatchObject({ StatusDescription: "Deployment is running", TaskGroups: { g: { Promoted: true } } });
    await agent.agent.clock.advance(HEALTHY);
    expect((await latest("auto")).Status).toBe("successful");
    expect((await byVersion("auto", 1)).map((alloc) => alloc.DesiredStatus)).toEqual(["run", "run"]);
  });

  // autoPromoteDeployment: the groups are promoted together, and only when every group with canaries says AutoPromote.
  it.each([
    { name: "every group with canaries says AutoPromote", id: "both", second: { Canary: 1, AutoPromote: true }, promoted: true },
    { name: "a group without canaries does not", id: "mixed", second: { Canary: 0 }, promoted: true },
    { name: "another group with canaries does not", id: "manual", second: { Canary: 1, AutoPromote: false }, promoted: false },
  ])("promote themselves once healthy only when $name", async ({ id, second, promoted }) => {
    const groups = (image: string) => [
      { Name: "a", Count: 1, Update: { MaxParallel: 1, Canary: 1, AutoPromote: true }, Tasks: [{ Name: "t", Driver: "docker", Config: { image } }] },
      { Name: "b", Count: 1, Update: { MaxParallel: 1, ...second }, Tasks: [{ Name: "t", Driver: "docker", Config: { image } }] },
    ];
    await agent.register(job(id, { TaskGroups: groups("v1") }));
    await agent.agent.clock.advance(HEALTHY);
    await agent.register(job(id, { TaskGroups: groups("v2") }));
    await agent.agent.clock.advance(HEALTHY);
    expect(Object.values((await latest(id)).TaskGroups).map((group) => (group as Item).Promoted)).toEqual([promoted, promoted]);
    // Promoted, each group's one canary is all it wants: the deployment is complete.
    expect((await latest(id)).StatusDescription).toBe(promoted ? "Deployment completed successfully" : "Deployment is running but requires manual promotion");
  });

  it("roll an update without canaries out MaxParallel at a time, each batch once the last is healthy", async () => {
    await agent.register(job("rolling", { Update: { MaxParallel: 2 }, TaskGroups: group(4, "v1") }));
    await agent.agent.clock.advance(HEALTHY);
    await agent.register(job("rolling", { Update: { MaxParallel: 2 }, TaskGroups: group(4, "v2") }));
    const running = async (version: number) => (await byVersion("rolling", version)).filter((alloc) => alloc.DesiredStatus === "run").length;
    await agent.agent.clock.advance(0);
    expect([await running(0), await running(1)]).toEqual([2, 2]);
    await agent.agent.clock.advance(HEALTHY);
    expect([await running(0), await running(1)]).toEqual([0, 4]);
    expect((await latest("rolling")).Status).toBe("running");
    await agent.agent.clock.advance(HEALTHY);
    expect(await latest("rolling")).toMatchObject({ Status: "successful", TaskGroups: { g: { DesiredTotal: 4, HealthyAllocs: 4 } } });
    expect((await deployments("rolling")).map((deployment) => deployment.Status)).toEqual(["successful", "successful"]);
  });
});

describe("pausing a deployment", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000 });
  const post = (path: string, body: unknown) => send(agent.url + path, { method: "POST", body: JSON.stringify(body) });
  const evaluations = async (id: string) => parseJson((await agent.get(`/v1/job/${id}/evaluations`)).text) as Item[];

  it("writes no evaluation and answers none; resuming writes one for the deployment", async () => {
    await agent.register(job("held", { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance(0);
    const [deployment] = parseJson((await agent.get("/v1/job/held/deployments")).text) as Item[];
    const before = await evaluations("held");

    const paused = await post(`/v1/deployment/pause/${deployment!.ID}`, { DeploymentID: deployment!.ID, Pause: true });
    expect(paused.status).toBe(200);
    const index = Number(paused.headers["x-svc-index"]);
    expect(paused.json()).toEqual({ EvalID: "", EvalCreateIndex: 0, DeploymentModifyIndex: index, RevertedJobVersion: null, Index: index });
    expect(await evaluations("held")).toEqual(before);

    const resumed = await post(`/v1/deployment/pause/${deployment!.ID}`, { DeploymentID: deployment!.ID, Pause: false });
    const answer = resumed.json<Item>();
    expect(answer).toMatchObject({ EvalCreateIndex: Number(resumed.headers["x-svc-index"]), DeploymentModifyIndex: answer.Index });
    const evaluation = (await evaluations("held")).find((each) => each.ID === answer.EvalID);
    expect(evaluation).toMatchObject({ TriggeredBy: "deployment-watcher", DeploymentID: deployment!.ID, JobID: "held" });
  });
});
