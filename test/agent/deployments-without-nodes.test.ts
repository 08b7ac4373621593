/**
 * A service job no node can take still gets its deployment, as the reference's reconciler makes
 * one whether or not its placements succeed: it runs with nothing placed (so the job is
 * `running`), waits without a progress deadline, and takes the allocations once a node can.
 * On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, useAgent } from "./support.js";

type Item = Record<string, any>;

describe("a service job on an agent without client nodes", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 0 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;

  it("has a running deployment with nothing placed, which waits whatever the time", async () => {
    const registered = await agent.register(job("web", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance(0);
    const deployments = await read<Item[]>("/v1/deployments");
    expect(deployments).toHaveLength(1);
    expect(deployments[0]).toMatchObject({
      JobID: "web",
      JobVersion: 0,
      Status: "running",
      StatusDescription: "Deployment is running",
      TaskGroups: { g: { DesiredTotal: 2, PlacedAllocs: 0, HealthyAllocs: 0, RequireProgressBy: null } },
    });
    expect(await read<Item[]>("/v1/job/web/allocations")).toEqual([]);
    // The deployment is going, so the job runs (`getJobStatus`), its allocations queued behind a blocked evaluation.
    expect((await read("/v1/job/web")).Status).toBe("running");
    expect((await read<{ Summary: Record<string, Item> }>("/v1/job/web/summary")).Summary.g).toMatchObject({ Queued: 2 });
    const evaluation = await read(`/v1/evaluation/${registered.EvalID}`);
    expect(evaluation).toMatchObject({ Status: "complete", DeploymentID: deployments[0]!.ID, QueuedAllocations: { g: 2 } });
    expect(await read(`/v1/evaluation/${evaluation.BlockedEval as string}`)).toMatchObject({ Status: "blocked", TriggeredBy: "queued-allocs" });
    await agent.agent.clock.advance("1h");
    expect((await read<Item[]>("/v1/deployments"))[0]).toMatchObject({ Status: "running" });
  });

  it("is acted on as the reference's tests act on it: failed, paused and resumed", async () => {
    for (const id of ["to-fail", "to-pause"]) await agent.register(job(id));
    await agent.agent.clock.advance(0);
    const deploymentOf = async (id: string) => (await read<Item[]>(`/v1/job/${id}/deployments`))[0]!;
    const post = (path: string, body?: unknown) => send(agent.url + path, { method: "POST", ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const failing = await deploymentOf("to-fail");
    expect((await post(`/v1/deployment/fail/${failing.ID}`)).status).toBe(200);
    expect((await deploymentOf("to-fail")).Status).toBe("failed");
    const pausing = await deploymentOf("to-pause");
    expect((await post(`/v1/deployment/pause/${pausing.ID}`, { DeploymentID: pausing.ID, Pause: true })).status).toBe(200);
    expect((await deploymentOf("to-pause")).Status).toBe("paused");
    expect((await post(`/v1/deployment/pause/${pausing.ID}`, { DeploymentID: pausing.ID, Pause: false })).status).toBe(200);
    await agent.agent.clock.advance(0);
    expect((await deploymentOf("to-pause")).Status).toBe("running");
  });

  it("gives a batch job no deployment: it is pending", async () => {
    await agent.register(job("report", { Type: "batch" }));
    await agent.agent.clock.advance(0);
    expect(await read<Item[]>("/v1/job/report/deployments")).toEqual([]);
    expect((await read("/v1/job/report")).Status).toBe("pending");
  });
});

describe("a service job whose nodes are all down", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;

  it("is placed into the deployment it had once a node is ready, which completes once the allocation has run MinHealthyTime", async () => {
    const down = agent.agent.scenarios.add({ on: "node", set: { Status: "down" } });
    await agent.agent.clock.advance(0);
    await agent.register(job("later"));
    await agent.agent.clock.advance("10m");
    const [waiting] = await read<Item[]>("/v1/job/later/deployments");
    expect(waiting).toMatchObject({ Status: "running", TaskGroups: { g: { PlacedAllocs: 0 } } });
    agent.agent.scenarios.remove(down);
    const up = agent.agent.scenarios.add({ on: "node", select: 'Name == "client-1"', set: { Status: "ready" } });
    await agent.agent.clock.advance(0);
    const deployments = await read<Item[]>("/v1/job/later/deployments");
    expect(deployments).toHaveLength(1);
    expect(deployments[0]).toMatchObject({ ID: waiting!.ID, Status: "running", TaskGroups: { g: { PlacedAllocs: 1 } } });
    expect(deployments[0]!.TaskGroups.g.RequireProgressBy).not.toBeNull();
    // It runs half the placement delay after it is placed, and is healthy 10 s (the default MinHealthyTime) later.
    await agent.agent.clock.advance("10499ms");
    expect((await read<Item[]>("/v1/job/later/deployments"))[0]).toMatchObject({ Status: "running" });
    await agent.agent.clock.advance("1ms");
    expect((await read<Item[]>("/v1/job/later/deployments"))[0]).toMatchObject({ Status: "successful", TaskGroups: { g: { HealthyAllocs: 1 } } });
    agent.agent.scenarios.remove(up);
  });
});
