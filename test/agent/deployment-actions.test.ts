/**
 * Deployments the test drives: canaries that wait for promotion, a progress deadline that fails
 * a deployment, and the fail, pause and promote actions, on the manual clock.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, startTestAgent, useAgent } from "./support.js";

const MINUTE_NS = 60_000_000_000;

interface DeploymentView {
  ID: string;
  JobID: string;
  Status: string;
  StatusDescription: string;
  TaskGroups: Record<string, { Promoted: boolean; PlacedCanaries: string[] | null; DesiredCanaries: number; HealthyAllocs: number; UnhealthyAllocs: number }>;
}

describe("deployments on the manual clock", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000 });

  async function deploymentOf(jobId: string): Promise<DeploymentView> {
    const deployments = parseJson((await agent.get("/v1/deployments")).text) as DeploymentView[];
    const found = deployments.filter((deployment) => deployment.JobID === jobId).at(-1);
    if (found === undefined) throw new Error(`no deployment of ${jobId}`);
    return found;
  }

  const post = (path: string, body?: unknown) => send(agent.url + path, { method: "POST", ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  it("holds canaries for promotion, then completes once they are promoted", async () => {
    await agent.register(job("canary", { Update: { MaxParallel: 1, Canary: 1 }, TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("1s");
    const waiting = await deploymentOf("canary");
    expect(waiting).toMatchObject({ Status: "running", StatusDescription: "Deployment is running but requires manual promotion" });
    expect(waiting.TaskGroups.g).toMatchObject({ DesiredCanaries: 1, Promoted: false });
    expect(waiting.TaskGroups.g!.PlacedCanaries).toHaveLength(1);
    // It waits whatever the time.
    await agent.agent.clock.advance("1h");
    expect((await deploymentOf("canary")).Status).toBe("running");
    const promoted = await post(`/v1/deployment/promote/${waiting.ID}`, { DeploymentID: waiting.ID, All: true });
    expect(promoted.status).toBe(200);
    expect(promoted.json()).toMatchObject({ DeploymentModifyIndex: Number(promoted.headers["x-svc-index"]), RevertedJobVersion: null });
    await agent.agent.clock.advance(0);
    expect(await deploymentOf("canary")).toMatchObject({ Status: "successful", TaskGroups: { g: { Promoted: true } } });
  });

  it("fails a deployment scripted to fail at its progress deadline, not before", async () => {
    await agent.register(job("doomed", { Meta: { "bexpr.fail_deployment": "true" }, Update: { MaxParallel: 1, ProgressDeadline: 10 * MINUTE_NS } }));
    await agent.agent.clock.advance("9m");
    expect((await deploymentOf("doomed")).Status).toBe("running");
    await agent.agent.clock.advance("1m");
    expect(await deploymentOf("doomed")).toMatchObject({ Status: "failed", StatusDescription: "Failed due to progress deadline", TaskGroups: { g: { HealthyAllocs: 0, UnhealthyAllocs: 1 } } });
  });

  it("marks a deployment failed on request, and refuses to act on it again", async () => {
    await agent.register(job("stopme", { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance(0);
    const { ID } = await deploymentOf("stopme");
    const failed = await post(`/v1/deployment/fail/${ID}`);
    expect(failed.status).toBe(200);
    expect(Object.keys(failed.json() as object)).toEqual(["EvalID", "EvalCreateIndex", "DeploymentModifyIndex", "RevertedJobVersion", "Index"]);
    expect(await deploymentOf("stopme")).toMatchObject({ Status: "failed", StatusDescription: "Deployment marked as failed" });
    const again = await post(`/v1/deployment/fail/${ID}`);
    expect([again.status, again.text]).toEqual([400, "can't fail terminal deployment"]);
  });

  it("pauses a deployment past its time, and completes it once resumed", async () => {
    await agent.register(job("paused", { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance(0);
    const { ID } = await deploymentOf("paused");
    expect((await post(`/v1/deployment/pause/${ID}`, { DeploymentID: ID, Pause: true })).status).toBe(200);
    await agent.agent.clock.advance("5s");
    expect(await deploymentOf("paused")).toMatchObject({ Status: "paused", StatusDescription: "Deployment is paused" });
    expect((await post(`/v1/deployment/pause/${ID}`, { DeploymentID: ID, Pause: false })).status).toBe(200);
    await agent.agent.clock.advance(0);
    expect((await deploymentOf("paused")).Status).toBe("successful");
  });

  it.each([
    ["pause", undefined, "Request body is empty"],
    ["pause", { DeploymentID: "other", Pause: true }, "Deployment ID does not match"],
    ["promote", { DeploymentID: "ID" }, "must promote all task groups or name the groups to promote"],
  ])("answers %s with %j: 400 %s", async (action, body, message) => {
    await agent.register(job(`bad-${action}-${message.length}`, { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance(0);
    const { ID } = await deploymentOf(`bad-${action}-${message.length}`);
    const withId = body === undefined ? undefined : JSON.parse(JSON.stringify(body).replace('"ID"', JSON.stringify(ID)));
    const response = await post(`/v1/deployment/${action}/${ID}`, withId);
    expect([response.status, response.text]).toEqual([400, message]);
  });

  it("answers 404 for a deployment that does not exist", async () => {
    const response = await post("/v1/deployment/fail/00000000-0000-0000-0000-000000000000");
    expect([response.status, response.text]).toEqual([404, "deployment not found"]);
  });
});

describe("deployment actions with ACLs", () => {
  it("act only on deployments of namespaces the token may submit to, and say nothing of the others", async () => {
    const agent = await startTestAgent({
      port: 0,
      demo: false,
      logLevel: "silent",
      clock: "manual",
      namespaces: [{ Name: "a" }, { Name: "b" }],
      acl: {
        enabled: true,
        bootstrapToken: "11111111-1111-4111-8111-111111111111",
        policies: [{ Name: "a-write", Rules: 'namespace "a" { policy = "write" }' }],
        tokens: [
          { SecretID: "22222222-2222-4222-8222-222222222222", Policies: ["a-write"] },
          { SecretID: "33333333-3333-4333-8333-333333333333", Type: "client", Policies: [] },
        ],
      },
    });
    try {
      const root = { "X-Svc-Token": "11111111-1111-4111-8111-111111111111" };
      for (const namespace of ["a", "b"]) {
        const registered = await send(`${agent.url}/v1/jobs?namespace=${namespace}`, { method: "PUT", headers: root, body: JSON.stringify({ Job: job(`web-${namespace}`, { Update: { MaxParallel: 1 } }) }) });
        expect(registered.status).toBe(200);
      }
      await agent.clock.advance(0);
      const deployments = parseJson((await send(`${agent.url}/v1/deployments?namespace=*`, { headers: root })).text) as { ID: string; Namespace: string }[];
      const inA = deployments.find((deployment) => deployment.Namespace === "a")!;
      const inB = deployments.find((deployment) => deployment.Namespace === "b")!;
      const fail = (id: string, secret: string) => send(`${agent.url}/v1/deployment/fail/${id}`, { method: "POST", headers: { "X-Svc-Token": secret } });
      const other = await fail(inB.ID, "22222222-2222-4222-8222-222222222222");
      const missing = await fail("00000000-0000-0000-0000-000000000000", "22222222-2222-4222-8222-222222222222");
      // Another namespace's deployment looks exactly like one that does not exist.
      expect([other.status, other.text]).toEqual([missing.status, missing.text]);
      expect(other.status).toBe(404);
      expect((await fail(inA.ID, "33333333-3333-4333-8333-333333333333")).status).toBe(403);
      expect((await fail(inA.ID, "22222222-2222-4222-8222-222222222222")).status).toBe(200);
    } finally {
      await agent.close();
    }
  });
});
