/**
 * Deployments the test drives: canaries that wait for promotion, a progress deadline that fails
 * a deployment, and the fail, pause and promote actions, on the manual clock.
 */
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, useAgent } from "./support.js";

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

  it("holds an update's canaries for promotion, then completes once they are promoted", async () => {
    const spec = (image: string) => job("canary", { Update: { MaxParallel: 1, Canary: 1 }, TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "docker", Config: { image } }] }] });
    // A new job has nothing for canaries to replace: the reference places none, and the deployment completes.
    await agent.register(spec("v1"));
    // Running half a second after placement, healthy 10 s (the default MinHealthyTime) later.
    await agent.agent.clock.advance("10.5s");
    expect(await deploymentOf("canary")).toMatchObject({ Status: "successful", TaskGroups: { g: { DesiredCanaries: 0 } } });
    await agent.register(spec("v2"));
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
    // The rest of the update rolls out (one allocation, MaxParallel 1), and is healthy once it has run MinHealthyTime.
    await agent.agent.clock.advance("10.5s");
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
    // Past the time its allocation is healthy (10.5 s).
    await agent.agent.clock.advance("15s");
    expect(await deploymentOf("paused")).toMatchObject({ Status: "paused", StatusDescription: "Deployment is paused" });
    expect((await post(`/v1/deployment/pause/${ID}`, { DeploymentID: ID, Pause: false })).status).toBe(200);
    await agent.agent.clock.advance(0);
    expect((await deploymentOf("paused")).Status).toBe("successful");
  });

  it("refuses a promotion that names no group, after finding the deployment", async () => {
    await agent.register(job("no-groups", { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance(0);
    const { ID } = await deploymentOf("no-groups");
    const response = await post(`/v1/deployment/promote/${ID}`, { DeploymentID: ID });
    expect([response.status, response.text]).toEqual([400, "must promote all task groups or name the groups to promote"]);
  });

  it("answers 404 for a deployment that does not exist", async () => {
    const response = await post("/v1/deployment/fail/00000000-0000-0000-0000-000000000000");
    expect([response.status, response.text]).toEqual([404, "deployment not found"]);
  });
});

describe("deployment action bodies, checked as the reference's handler checks them", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000 });
  // No deployment has this ID: every refusal below comes before the deployment is looked up.
  const UNKNOWN = "5ad6b4f0-7e1c-4d2a-9b3f-0c1d2e3f4a5b";
  const STRUCTS = { pause: "DeploymentPauseRequest", promote: "DeploymentPromoteRequest" } as const;

  type Framing = { readonly kind: "none" } | { readonly kind: "text"; readonly body: string } | { readonly kind: "chunked"; readonly chunks: readonly string[] };
  const text = (body: string): Framing => ({ kind: "text", body });
  const rows: readonly [string, Framing, (struct: string) => string][] = [
    ["no body", { kind: "none" }, () => "Request body is empty"],
    ["a body of no bytes with a Content-Type", text(""), () => "Request body is empty"],
    ["a chunked body of no bytes", { kind: "chunked", chunks: [] }, () => "EOF"],
    ["a body of spaces", text(" \n\t"), () => "EOF"],
    ["a chunked body of spaces", { kind: "chunked", chunks: ["  "] }, () => "EOF"],
    ["a cut-off object", text('{"DeploymentID":'), () => "unexpected EOF"],
    ["text that is not JSON", text("pause"), () => "invalid character 'p' looking for beginning of value"],
    ["an array", text("[]"), (struct) => `json: cannot unmarshal array into Go value of type structs.${struct}`],
    ["a number for the ID", text('{"DeploymentID":5}'), (struct) => `json: cannot unmarshal number into Go struct field ${struct}.DeploymentID of type string`],
    ["a number for the region", text(`{"DeploymentID":"${UNKNOWN}","Region":1}`), (struct) => `json: cannot unmarshal number into Go struct field ${struct}.Region of type string`],
    ["null", text("null"), () => "DeploymentID must be specified"],
    ["an object without the ID", text('{"Pause":true,"All":true}'), () => "DeploymentID must be specified"],
    ["an empty ID", text('{"DeploymentID":""}'), () => "DeploymentID must be specified"],
    ["another deployment's ID", text('{"DeploymentID":"00000000-0000-4000-8000-000000000000"}'), () => "Deployment ID does not match"],
    ["the path's ID in capitals", text(`{"DeploymentID":"${UNKNOWN.toUpperCase()}"}`), () => "Deployment ID does not match"],
  ];
  const cases = (["pause", "promote"] as const).flatMap((action) => rows.map(([what, framing, message]) => [action, what, framing, message(STRUCTS[action])] as const));

  it.each(cases)("answers %s with %s: 400 %j", async (action, _what, framing, message) => {
    const url = `${agent.url}/v1/deployment/${action}/${UNKNOWN}`;
    const response =
      framing.kind === "chunked"
        ? await sendChunked(url, framing.chunks)
        : await send(url, { method: "POST", ...(framing.kind === "text" ? { body: framing.body, headers: { "content-type": "application/json" } } : {}) });
    expect([response.status, response.text]).toEqual([400, message]);
  });

  it.each([
    ["fail", undefined, 400, "missing deployment ID"],
    ["pause", {}, 400, "DeploymentID must be specified"],
    ["promote", { DeploymentID: UNKNOWN }, 400, "Deployment ID does not match"],
  ])("acts on the empty ID of %s/ as the reference does (body %j): %i %s", async (action, body, status, message) => {
    const response = await send(`${agent.url}/v1/deployment/${action}/`, { method: "PUT", ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect([response.status, response.text]).toEqual([status, message]);
  });

  it.each([
    ["the body before the region", "?region=elsewhere", "{}", 400, "DeploymentID must be specified"],
    ["the region before the deployment", "?region=elsewhere", `{"DeploymentID":"${UNKNOWN}"}`, 500, "No path to region"],
    ["the body's region when the query names none", "", `{"DeploymentID":"${UNKNOWN}","Region":"elsewhere"}`, 500, "No path to region"],
    ["the query's region over the body's", "?region=global", `{"DeploymentID":"${UNKNOWN}","Region":"elsewhere"}`, 404, "deployment not found"],
  ])("checks %s", async (_what, query, body, status, message) => {
    const response = await send(`${agent.url}/v1/deployment/pause/${UNKNOWN}${query}`, { method: "POST", body });
    expect([response.status, response.text]).toEqual([status, message]);
  });

  it("reads no body for fail, whatever it holds", async () => {
    const response = await send(`${agent.url}/v1/deployment/fail/${UNKNOWN}`, { method: "POST", body: "not JSON" });
    expect([response.status, response.text]).toEqual([404, "deployment not found"]);
  });

  it("matches the body's field names in any case, as Go's decoder does", async () => {
    await agent.register(job("folded", { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance(0);
    const deployments = parseJson((await agent.get("/v1/deployments")).text) as { ID: string; JobID: string }[];
    const { ID } = deployments.find((deployment) => deployment.JobID === "folded")!;
    const response = await send(`${agent.url}/v1/deployment/pause/${ID}`, { method: "POST", body: JSON.stringify({ deploymentid: ID, PAUSE: true }) });
    expect(response.status).toBe(200);
    expect(parseJson((await agent.get(`/v1/deployment/${ID}`)).text)).toMatchObject({ Status: "paused" });
  });
});

/** POSTs `chunks` with `Transfer-Encoding: chunked` (none: a chunked body of no bytes). */
function sendChunked(url: string, chunks: readonly string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: "POST", headers: { "transfer-encoding": "chunked" } }, (response) => {
      const parts: Buffer[] = [];
      response.on("data", (part: Buffer) => parts.push(part));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString("utf8") }));
      response.on("error", reject);
    });
    request.on("error", reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

describe("deployment actions with ACLs", () => {
  const ROOT = "11111111-1111-4111-8111-111111111111";
  const A_WRITER = "22222222-2222-4222-8222-222222222222";
  const NO_RIGHTS = "33333333-3333-4333-8333-333333333333";
  const agent = useAgent({
    clock: "manual",
    namespaces: [{ Name: "a" }, { Name: "b" }],
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [{ Name: "a-write", Rules: 'namespace "a" { policy = "write" }' }],
      tokens: [
        { SecretID: A_WRITER, Policies: ["a-write"] },
        { SecretID: NO_RIGHTS, Type: "client", Policies: [] },
      ],
    },
  });

  /** Registers a job in `namespace` and returns its deployment. */
  async function deploymentIn(namespace: string, jobId: string): Promise<{ ID: string; Namespace: string }> {
    const registered = await send(`${agent.url}/v1/jobs?namespace=${namespace}`, { method: "PUT", headers: { "X-Svc-Token": ROOT }, body: JSON.stringify({ Job: job(jobId, { Update: { MaxParallel: 1 } }) }) });
    expect(registered.status).toBe(200);
    await agent.agent.clock.advance(0);
    const deployments = parseJson((await send(`${agent.url}/v1/deployments?namespace=${namespace}`, { headers: { "X-Svc-Token": ROOT } })).text) as { ID: string; JobID: string; Namespace: string }[];
    return deployments.find((deployment) => deployment.JobID === jobId)!;
  }

  it("act only on deployments of namespaces the token may submit to, and say nothing of the others", async () => {
    const inA = await deploymentIn("a", "web-a");
    const inB = await deploymentIn("b", "web-b");
    const fail = (id: string, secret: string) => send(`${agent.url}/v1/deployment/fail/${id}`, { method: "POST", headers: { "X-Svc-Token": secret } });
    const other = await fail(inB.ID, A_WRITER);
    const missing = await fail("00000000-0000-0000-0000-000000000000", A_WRITER);
    // Another namespace's deployment looks exactly like one that does not exist.
    expect([other.status, other.text]).toEqual([missing.status, missing.text]);
    expect(other.status).toBe(404);
    expect((await fail(inA.ID, NO_RIGHTS)).status).toBe(403);
    expect((await fail(inA.ID, A_WRITER)).status).toBe(200);
  });

  it("checks the body before the token, as the reference's handler does", async () => {
    const { ID } = await deploymentIn("a", "body-first");
    const response = await send(`${agent.url}/v1/deployment/pause/${ID}`, { method: "POST", body: "{}" });
    expect([response.status, response.text]).toEqual([400, "DeploymentID must be specified"]);
  });

  it.each([
    ["the body's AuthToken without a token header", {}, A_WRITER, 200],
    ["the token header over the body's AuthToken", { "X-Svc-Token": NO_RIGHTS }, A_WRITER, 403],
    ["no token at all", {}, "", 403],
  ])("acts with %s", async (_what, headers, authToken, status) => {
    const { ID } = await deploymentIn("a", `auth-${status}-${authToken.length}-${Object.keys(headers).length}`);
    const response = await send(`${agent.url}/v1/deployment/pause/${ID}`, { method: "POST", headers, body: JSON.stringify({ DeploymentID: ID, Pause: true, AuthToken: authToken }) });
    expect(response.status).toBe(status);
  });
});
