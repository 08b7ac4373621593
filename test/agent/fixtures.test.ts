/**
 * Fixtures and isolation: snapshots of the whole state and their restore (byte-identical lists,
 * blocking queries woken, the scheduler taking the restored work up), the reset, named snapshots
 * over HTTP behind the control gate, the data an agent starts from (a fixture or a snapshot,
 * `--data`), the errors of documents that cannot be used, and many agents in one process.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentOptions } from "../../src/cli/agent.js";
import { parseJson, stringifyJson } from "../../src/json.js";
import { AgentDataError, MAX_NAMED_SNAPSHOTS, OptionsError, SNAPSHOT_FORMAT, startAgent, type Agent, type AgentOptions, type AgentSnapshot } from "../../src/server/index.js";
import { eventually, job, send, startTestAgent, type Response } from "./support.js";

const ROOT = "00000000-0000-4000-8000-00000000f001";
/** The example data file of docs/agent.md, loaded as a test suite would. */
const EXAMPLE = resolve(import.meta.dirname, "../../docs/examples/agent-data.json");
/** The tokens of the example file. */
const CI_TOKEN = "5f0e2c8a-1d3b-4e6f-8a9c-7b2d4e6f8a01";
const OPERATOR_TOKEN = "9a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

/** The lists a test compares, whole: every table shows in one of them. */
const LISTS = [
  "/v1/jobs?namespace=*",
  "/v1/jobs?namespace=*&meta=true",
  "/v1/deployments?namespace=*",
  "/v1/acl/tokens",
  "/v1/acl/policies",
  "/v1/namespaces",
  "/v1/allocations?namespace=*",
  "/v1/evaluations?namespace=*",
  "/v1/nodes",
] as const;

/** Each list's body, as sent (status first, so a refusal shows). */
async function listBodies(url: string, token = ROOT): Promise<Record<string, string>> {
  const bodies: Record<string, string> = {};
  for (const path of LISTS) {
    const response = await send(`${url}${path}`, { headers: { "x-svc-token": token } });
    bodies[path] = `${response.status} ${response.text}`;
  }
  return bodies;
}

/** A request with the root token. */
function call(agent: Agent, path: string, options: { method?: string; body?: unknown; token?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = options.token === "" ? {} : { "x-svc-token": options.token ?? ROOT };
  const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  return send(`${agent.url}${path}`, { method: options.method ?? "GET", headers, ...(body === undefined ? {} : { body }) });
}

async function register(agent: Agent, spec: Record<string, unknown>, namespace = "default"): Promise<void> {
  const response = await call(agent, `/v1/jobs?namespace=${namespace}`, { method: "PUT", body: { Job: spec } });
  if (response.status !== 200) throw new Error(`register failed: ${response.status} ${response.text}`);
}

/** The jobs of a namespace (`*`: all), parsed. */
async function jobs(agent: Agent, namespace = "*"): Promise<{ ID: string; Namespace: string; Status: string; JobSummary: { Summary: Record<string, Record<string, number>> } }[]> {
  return parseJson((await call(agent, `/v1/jobs?namespace=${namespace}`)).text) as never;
}

async function deployments(agent: Agent): Promise<{ JobID: string; Namespace: string; JobVersion: number; Status: string; StatusDescription: string }[]> {
  return parseJson((await call(agent, "/v1/deployments?namespace=*")).text) as never;
}

/** The options of an agent with ACLs on (the root token manages), on the manual clock. */
const MANAGED: AgentOptions = { port: 0, demo: false, logLevel: "silent", clock: "manual", placementDelayMs: 1000, acl: { enabled: true, bootstrapToken: ROOT } };

describe("a snapshot and its restore", () => {
  let agent: Agent;
  beforeAll(async () => {
    agent = await startTestAgent({ ...MANAGED, namespaces: [{ Name: "prod" }] });
  });
  afterAll(async () => {
    await agent.close();
  });

  it("gives back, byte for byte, every list as it was when the snapshot was taken", async () => {
    await register(agent, job("web", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }], Meta: { team: "a" } }));
    await register(agent, job("report", { Type: "batch" }));
    await register(agent, job("api"), "prod");
    await call(agent, "/v1/acl/policy/readonly", { method: "PUT", body: { Name: "readonly", Rules: '{"namespace": {"*": {"policy": "read"}}}' } });
    expect((await call(agent, "/v1/acl/token", { method: "PUT", body: { Name: "reader", Type: "client", Policies: ["readonly"] } })).status).toBe(200);
    await agent.clock.advance("2s");
    const before = await listBodies(agent.url);
    expect(before["/v1/jobs?namespace=*"]).toMatch(/^200 .*"SubmitTime":\d{19}/);
    const snapshot = await agent.snapshot();
    expect(snapshot).toMatchObject({ Format: SNAPSHOT_FORMAT, Version: 1 });
    const indexBefore = Number((await call(agent, "/v1/jobs")).headers["x-svc-index"]);

    // Changes to every kind of row: a new version, a new job, a stopped one, ACL and namespace writes.
    await register(agent, job("web", { TaskGroups: [{ Name: "g", Count: 3, Tasks: [{ Name: "t", Driver: "mock", Config: { v: 2 } }] }] }));
    await register(agent, job("extra"), "prod");
    expect((await call(agent, "/v1/job/report?purge=true", { method: "DELETE" })).status).toBe(200);
    await call(agent, "/v1/acl/policy/readonly", { method: "DELETE" });
    await call(agent, "/v1/namespace/dev", { method: "PUT", body: { Name: "dev" } });
    await agent.clock.advance("2s");
    const changed = await listBodies(agent.url);
    for (const path of ["/v1/jobs?namespace=*", "/v1/deployments?namespace=*", "/v1/acl/policies", "/v1/namespaces", "/v1/allocations?namespace=*"]) expect(changed[path]).not.toBe(before[path]);

    const index = await agent.restore(snapshot);
    expect(index).toBeGreaterThan(indexBefore);
    expect(await listBodies(agent.url)).toEqual(before);
    // The index kept growing: lists say the restore's.
    expect(Number((await call(agent, "/v1/jobs")).headers["x-svc-index"])).toBe(index);
    // Nothing was left scheduled for the discarded state.
    await agent.clock.advance("5s");
    expect(await listBodies(agent.url)).toEqual(before);
  });

  it("keeps its nanosecond times exact through text, and the caller's copy is its own", async () => {
    await register(agent, job("exact"));
    await agent.clock.advance("2s");
    const snapshot = await agent.snapshot();
    const text = stringifyJson(snapshot);
    const read = parseJson(text) as AgentSnapshot;
    const submitTime = snapshot.Tables.jobs[0]!.SubmitTime as bigint;
    expect(typeof submitTime).toBe("bigint");
    expect(submitTime > 2n ** 53n).toBe(true);
    expect(read.Tables.jobs[0]!.SubmitTime).toBe(submitTime);
    expect(read.Tables.acl_token[0]!.secretHash).toMatch(/^[0-9a-f]{64}$/);
    const first = `/v1/job/${snapshot.Tables.jobs[0]!.ID}?namespace=${snapshot.Tables.jobs[0]!.Namespace}`;
    const bodies = async () => ({ ...(await listBodies(agent.url)), job: (await call(agent, first)).text });
    const before = await bodies();
    expect(before.job).toMatch(/^\{"Stop":false/);
    // Changing the document does not change the state, nor does a restore keep the caller's objects.
    /** The first job of a document, to change. */
    const firstJob = (document: AgentSnapshot) => document.Tables.jobs[0] as { Name: string; TaskGroups: { Name: string }[] };
    firstJob(snapshot).Name = "renamed";
    firstJob(snapshot).TaskGroups[0]!.Name = "renamed";
    expect(await bodies()).toEqual(before);
    await agent.restore(read);
    firstJob(read).Name = "renamed";
    firstJob(read).TaskGroups[0]!.Name = "renamed";
    expect(await bodies()).toEqual(before);
  });

  it("wakes a blocking query, which then answers the restored list", async () => {
    const snapshot = await agent.snapshot();
    const listed = await call(agent, "/v1/jobs?namespace=*");
    await register(agent, job("transient"));
    await agent.clock.advance("2s");
    const index = Number((await call(agent, "/v1/jobs")).headers["x-svc-index"]);
    const waiting = call(agent, `/v1/jobs?namespace=*&index=${index}&wait=30s`);
    await eventually(async () => (agent.blockingQueries > 0 ? true : undefined));
    const restoredAt = await agent.restore(snapshot);
    const woken = await waiting;
    expect(Number(woken.headers["x-svc-index"])).toBe(restoredAt);
    expect(woken.text).toBe(listed.text);
  });

  it("has the scheduler take the work up from the restored state: a scenario rule acts again on a row put back", async () => {
    await register(agent, job("crashy", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.clock.advance("1s");
    const rule = agent.scenarios.add({ on: "allocation", select: 'JobID == "crashy"', after: "30s", set: { ClientStatus: "failed" } });
    const snapshot = await agent.snapshot();
    const summary = async () => (await jobs(agent, "default")).find((item) => item.ID === "crashy")!.JobSummary.Summary.g;
    await agent.clock.advance("30s");
    expect(await summary()).toMatchObject({ Running: 0, Failed: 1 });
    await agent.restore(snapshot);
    expect(await summary()).toMatchObject({ Running: 1, Failed: 0 });
    await agent.clock.advance("29s");
    expect(await summary()).toMatchObject({ Running: 1, Failed: 0 });
    await agent.clock.advance("1s");
    expect(await summary()).toMatchObject({ Running: 0, Failed: 1 });
    agent.scenarios.remove(rule);
  });

  it("finishes the work in flight of the restored state, not that of the state it replaced", async () => {
    await agent.reset();
    await register(agent, job("rolling"));
    await agent.clock.advance(0);
    const snapshot = await agent.snapshot();
    expect((await deployments(agent)).map((d) => [d.JobID, d.Status])).toEqual([["rolling", "running"]]);
    await register(agent, job("discarded"));
    await agent.restore(snapshot);
    // Running at half the placement delay, healthy 10 s (the default MinHealthyTime) later.
    await agent.clock.advance("10.5s");
    expect((await deployments(agent)).map((d) => [d.JobID, d.Status])).toEqual([["rolling", "successful"]]);
    expect((await jobs(agent)).map((item) => item.ID)).toEqual(["rolling"]);
  });
});

describe("the reset", () => {
  const configured: AgentOptions = {
    port: 0,
    logLevel: "silent",
    placementDelayMs: 50,
    namespaces: [{ Name: "staging", Description: "configured" }],
    acl: { enabled: true, bootstrapToken: ROOT, policies: [{ Name: "anonymous", Rules: '{"node": {"policy": "read"}}' }], tokens: [{ Name: "configured", Type: "management" }] },
  };

  it("empties the state back to a new agent's: default and configured namespaces, its nodes, its ACL configuration", async () => {
    const agent = await startTestAgent({ ...configured, demo: false });
    try {
      const fresh = await listBodies(agent.url);
      // On the real clock: healthy as soon as it runs (no MinHealthyTime).
      await register(agent, job("web", { Update: { MaxParallel: 1, MinHealthyTime: 0 } }));
      await call(agent, "/v1/namespace/dev", { method: "PUT", body: { Name: "dev" } });
      await call(agent, "/v1/acl/token", { method: "PUT", body: { Name: "extra", Type: "management" } });
      await eventually(async () => ((await deployments(agent))[0]?.Status === "successful" ? true : undefined));
      expect(await listBodies(agent.url)).not.toEqual(fresh);
      const index = await agent.reset();
      expect(await listBodies(agent.url)).toEqual(fresh);
      expect(Number((await call(agent, "/v1/jobs")).headers["x-svc-index"])).toBe(index);
      // And it works as a new agent does.
      await register(agent, job("again", { Update: { MaxParallel: 1, MinHealthyTime: 0 } }));
      await eventually(async () => ((await deployments(agent))[0]?.Status === "successful" ? true : undefined));
    } finally {
      await agent.close();
    }
  });

  it("makes the ACL bootstrap possible again when the state it goes back to was not bootstrapped, and not when it was", async () => {
    const agent = await startTestAgent({ port: 0, logLevel: "silent", demo: false, acl: { enabled: true } });
    try {
      const bootstrap = () => call(agent, "/v1/acl/bootstrap", { method: "POST", token: "" });
      const unbootstrapped = await agent.snapshot();
      expect((await bootstrap()).status).toBe(200);
      const bootstrapped = await agent.snapshot();
      const again = await bootstrap();
      expect([again.status, again.text]).toEqual([400, expect.stringMatching(/^ACL bootstrap already done \(reset index: \d+\)$/)]);
      await agent.reset();
      expect((await bootstrap()).status).toBe(200);
      await agent.restore(unbootstrapped);
      expect((await bootstrap()).status).toBe(200);
      await agent.restore(bootstrapped);
      expect((await bootstrap()).status).toBe(400);
    } finally {
      await agent.close();
    }
  });

  it("leaves out the demo data: a demo agent is emptied too", async () => {
    const agent = await startTestAgent({ ...configured, demo: true });
    try {
      expect((await jobs(agent)).length).toBeGreaterThan(0);
      await agent.reset();
      expect(await jobs(agent)).toEqual([]);
      expect(await deployments(agent)).toEqual([]);
      const namespaces = parseJson((await call(agent, "/v1/namespaces")).text) as { Name: string }[];
      expect(namespaces.map((namespace) => namespace.Name)).toEqual(["default", "staging"]);
      const tokens = parseJson((await call(agent, "/v1/acl/tokens")).text) as { Name: string }[];
      expect(tokens.map((token) => token.Name).sort()).toEqual(["Bootstrap Token", "configured"]);
      expect((parseJson((await call(agent, "/v1/nodes")).text) as unknown[]).length).toBe(3);
    } finally {
      await agent.close();
    }
  });
});

describe("named snapshots over HTTP", () => {
  let agent: Agent;
  beforeAll(async () => {
    agent = await startTestAgent(MANAGED);
  });
  afterAll(async () => {
    await agent.close();
  });

  it.each([
    ["GET", "/_bexpr/snapshots"],
    ["PUT", "/_bexpr/snapshots/before"],
    ["GET", "/_bexpr/snapshots/before"],
    ["POST", "/_bexpr/snapshots/before/restore"],
    ["DELETE", "/_bexpr/snapshots/before"],
    ["POST", "/_bexpr/reset"],
  ])("%s %s needs a management token with ACLs on", async (method, path) => {
    for (const token of ["", "00000000-0000-4000-8000-0000000000ff"]) {
      const response = await call(agent, path, { method, token });
      expect(response.status).toBe(403);
      expect(response.text).toBe("Permission denied");
    }
  });

  it("takes, lists, reads, restores and deletes a snapshot by name", async () => {
    await register(agent, job("web"));
    await agent.clock.advance("2s");
    const before = await listBodies(agent.url);
    const taken = await call(agent, "/_bexpr/snapshots/before", { method: "PUT" });
    expect(taken.status).toBe(200);
    const info = taken.json<{ Name: string; Index: number; Time: string; Bytes: number }>();
    expect(info).toMatchObject({ Name: "before", Index: Number((await call(agent, "/v1/jobs")).headers["x-svc-index"]) });
    const document = await call(agent, "/_bexpr/snapshots/before");
    expect(document.headers["content-type"]).toMatch(/^application\/json/);
    expect(document.json<AgentSnapshot>()).toMatchObject({ Format: SNAPSHOT_FORMAT, Index: info.Index });
    expect(Buffer.byteLength(document.text)).toBe(info.Bytes);
    expect((await call(agent, "/_bexpr/snapshots")).json()).toEqual([info]);

    await register(agent, job("later"));
    await agent.clock.advance("2s");
    expect(await listBodies(agent.url)).not.toEqual(before);
    const restored = await call(agent, "/_bexpr/snapshots/before/restore", { method: "POST" });
    expect(restored.status).toBe(200);
    const { Index } = restored.json<{ Index: number }>();
    expect(Number(restored.headers["x-svc-index"])).toBe(Index);
    expect(await listBodies(agent.url)).toEqual(before);

    // A document taken elsewhere (here, the one read above) is kept under a name of its own.
    expect((await call(agent, "/_bexpr/snapshots/copy.v1", { method: "PUT", body: document.text })).status).toBe(200);
    expect((await call(agent, "/_bexpr/snapshots")).json<{ Name: string }[]>().map((named) => named.Name)).toEqual(["before", "copy.v1"]);
    expect((await call(agent, "/_bexpr/snapshots/before", { method: "DELETE" })).status).toBe(200);
    const gone = await call(agent, "/_bexpr/snapshots/before");
    expect([gone.status, gone.text]).toEqual([404, 'snapshot "before" not found']);
    expect((await call(agent, "/_bexpr/snapshots/copy.v1", { method: "DELETE" })).status).toBe(200);
  });

  it("resets over HTTP", async () => {
    await register(agent, job("web"));
    const reset = await call(agent, "/_bexpr/reset", { method: "POST" });
    expect(reset.status).toBe(200);
    expect(Number(reset.headers["x-svc-index"])).toBe(reset.json<{ Index: number }>().Index);
    expect(await jobs(agent)).toEqual([]);
  });

  it.each([
    ["PUT", "/_bexpr/snapshots/-dash", undefined, /^invalid snapshot name "-dash": 1 to 128 letters/],
    ["PUT", `/_bexpr/snapshots/${"a".repeat(129)}`, undefined, /^invalid snapshot name/],
    ["PUT", "/_bexpr/snapshots/a%20b", undefined, /^invalid snapshot name "a b"/],
    ["GET", "/_bexpr/snapshots/missing", undefined, /^snapshot "missing" not found$/],
    ["POST", "/_bexpr/snapshots/missing/restore", undefined, /^snapshot "missing" not found$/],
    ["PUT", "/_bexpr/snapshots/doc", "{not json", /^the body is not JSON: /],
    ["PUT", "/_bexpr/snapshots/doc", '{"Jobs": []}', /^Format: expected "bexpr-snapshot", got nothing: this is not a snapshot$/],
    ["PUT", "/_bexpr/snapshots/doc", "[1]", /^expected a snapshot: an object with "Format": "bexpr-snapshot", got a list$/],
    ["PUT", "/_bexpr/snapshots/doc", '{"Format": "bexpr-snapshot", "Version": 9}', /^Version: expected 1, the version this agent reads, got 9$/],
    ["PATCH", "/_bexpr/snapshots/doc", undefined, /^Invalid method$/],
  ])("answers %s %s (%s) with a plain-text reason", async (method, path, body, reason) => {
    const response = await call(agent, path, { method, ...(body === undefined ? {} : { body }) });
    expect(response.status).toBe(method === "PATCH" ? 405 : reason.source.includes("not found") ? 404 : 400);
    expect(response.headers["content-type"]).toMatch(/^text\/plain/);
    expect(response.text).toMatch(reason);
  });

  it(`keeps at most ${MAX_NAMED_SNAPSHOTS} named snapshots, and replacing one does not count`, async () => {
    for (let i = 0; i < MAX_NAMED_SNAPSHOTS; i++) expect((await call(agent, `/_bexpr/snapshots/s${i}`, { method: "PUT" })).status).toBe(200);
    const refused = await call(agent, "/_bexpr/snapshots/one-more", { method: "PUT" });
    expect([refused.status, refused.text]).toEqual([400, `the agent keeps at most ${MAX_NAMED_SNAPSHOTS} named snapshots: delete some first`]);
    expect((await call(agent, "/_bexpr/snapshots/s0", { method: "PUT" })).status).toBe(200);
    for (let i = 0; i < MAX_NAMED_SNAPSHOTS; i++) await call(agent, `/_bexpr/snapshots/s${i}`, { method: "DELETE" });
    expect((await call(agent, "/_bexpr/snapshots")).json()).toEqual([]);
  });

  it("is not served when control over HTTP is off", async () => {
    const closed = await startAgent({ port: 0, demo: false, logLevel: "silent", control: false });
    try {
      expect((await send(`${closed.url}/_bexpr/snapshots/x`, { method: "PUT" })).status).toBe(404);
      expect((await send(`${closed.url}/_bexpr/reset`, { method: "POST" })).status).toBe(404);
    } finally {
      await closed.close();
    }
  });
});

// Issue 25, finding 7: a restored snapshot whose tokens shared a SecretID made the bootstrap
// secret read as the other token, and every control route, the restore included, answered 403.
describe("a snapshot of two tokens of one secret", () => {
  const CLIENT = "00000000-0000-4000-8000-00000000f0c1";
  let agent: Agent;
  beforeAll(async () => {
    agent = await startTestAgent({
      ...MANAGED,
      acl: { ...MANAGED.acl, policies: [{ Name: "reader", Rules: 'namespace "*" { policy = "read" }' }], tokens: [{ SecretID: CLIENT, Name: "client", Policies: ["reader"] }] },
    });
  });
  afterAll(async () => {
    await agent.close();
  });

  /** The state now, with the client token given the bootstrap token's secret (and a hash that matches it). */
  async function secretShared(): Promise<{ text: string; bootstrap: number; client: number }> {
    expect((await call(agent, "/_bexpr/snapshots/now", { method: "PUT" })).status).toBe(200);
    const document = (await call(agent, "/_bexpr/snapshots/now")).json<Record<string, any>>();
    const tokens = document.Tables.acl_token as { Name: string; SecretID: string; secretHash: string }[];
    const bootstrap = tokens.findIndex((token) => token.SecretID === ROOT);
    const client = tokens.findIndex((token) => token.SecretID === CLIENT);
    expect([bootstrap, client].every((i) => i >= 0)).toBe(true);
    tokens[client]!.SecretID = ROOT;
    tokens[client]!.secretHash = createHash("sha256").update(ROOT).digest("hex");
    return { text: stringifyJson(document), bootstrap, client };
  }

  it("answers 400 naming the second row, keeps nothing, and the bootstrap token still controls the agent", async () => {
    const { text, bootstrap, client } = await secretShared();
    const refused = await call(agent, "/_bexpr/snapshots/shared", { method: "PUT", body: text });
    expect(refused.status).toBe(400);
    const [second, first] = [Math.max(bootstrap, client), Math.min(bootstrap, client)];
    expect(refused.text).toBe(`Tables.acl_token[${second}].SecretID: a second row with the SecretID of Tables.acl_token[${first}]`);
    expect(refused.text).not.toContain(ROOT);
    // Not kept, so there is nothing to restore under that name.
    expect((await call(agent, "/_bexpr/snapshots/shared/restore", { method: "POST" })).status).toBe(404);
    // The programmatic restore refuses it too, and writes nothing.
    const before = await listBodies(agent.url);
    const error = await agent.restore(parseJson(text) as AgentSnapshot).then(
      () => undefined,
      (refusal: unknown) => refusal,
    );
    expect(error).toBeInstanceOf(AgentDataError);
    expect((error as AgentDataError).path).toBe(`Tables.acl_token[${second}].SecretID`);
    expect(await listBodies(agent.url)).toEqual(before);
    // The bootstrap secret is still the management token: control routes answer it, the client's secret still reads.
    expect((await call(agent, "/_bexpr/snapshots")).status).toBe(200);
    expect((await call(agent, "/_bexpr/snapshots/now/restore", { method: "POST" })).status).toBe(200);
    expect((await call(agent, "/v1/acl/token/self")).json<{ Type: string }>().Type).toBe("management");
    expect((await call(agent, "/v1/jobs", { token: CLIENT })).status).toBe(200);
    expect((await call(agent, "/_bexpr/snapshots", { token: CLIENT })).status).toBe(403);
  });
});

describe("the data an agent starts from", () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "bexpr-data-"));
  });
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("takes --data FILE", () => {
    expect(agentOptions(["--data", "fixtures/suite.json", "--no-demo"])).toMatchObject({ data: "fixtures/suite.json", demo: false });
  });

  it("loads the example fixture of docs/agent.md: namespaces, nodes, jobs with their states, deployments, ACL", async () => {
    const agent = await startTestAgent({ port: 0, logLevel: "silent", clock: "manual", data: EXAMPLE, acl: { enabled: true, bootstrapToken: ROOT } });
    try {
      expect(agent.options.demo).toBe(false);
      const statuses = async () => Object.fromEntries((await jobs(agent)).map((item) => [`${item.Namespace}/${item.ID}`, item.Status]));
      const summary = async (id: string) => (await jobs(agent)).find((item) => item.ID === id)!.JobSummary.Summary[id];
      expect(await statuses()).toEqual({ "default/web": "running", "default/report": "running", "default/etl": "running", "default/legacy": "dead", "prod/api": "running" });
      // Without a status, as far as the run time: running; left running, only placed.
      expect(await summary("report")).toMatchObject({ Running: 1, Complete: 0 });
      expect(await summary("etl")).toMatchObject({ Starting: 2, Running: 0 });
      expect(await summary("legacy")).toMatchObject({ Running: 0, Complete: 1 });
      // The rest follows the agent's clock: the batch job finishes, the one with an hour to run runs.
      await agent.clock.advance("3s");
      expect(await statuses()).toMatchObject({ "default/report": "dead", "default/etl": "running" });
      expect(await summary("report")).toMatchObject({ Running: 0, Complete: 1 });
      expect(await summary("etl")).toMatchObject({ Starting: 0, Running: 2 });
      const rollouts = (await deployments(agent)).map((d) => `${d.Namespace}/${d.JobID} v${d.JobVersion} ${d.Status}`);
      expect(rollouts.sort()).toEqual(["default/legacy v0 successful", "default/web v0 successful", "prod/api v0 successful", "prod/api v1 failed"]);

      const nodes = parseJson((await call(agent, "/v1/nodes", { token: OPERATOR_TOKEN })).text) as { ID: string; Name: string; Status: string }[];
      expect(nodes.map((node) => [node.Name, node.Status]).sort()).toEqual([["client-1", "ready"], ["client-2", "ready"], ["client-3", "down"]]);
      const allocations = parseJson((await call(agent, `/v1/allocations?filter=${encodeURIComponent('JobID == "web"')}`, { token: OPERATOR_TOKEN })).text) as { NodeName: string }[];
      expect(allocations.map((allocation) => allocation.NodeName).sort()).toEqual(["client-1", "client-2"]);

      // The fixture's tokens: `ci` reads everywhere and writes nowhere.
      expect((await call(agent, "/v1/jobs?namespace=prod", { token: CI_TOKEN })).status).toBe(200);
      expect((await call(agent, "/v1/jobs", { method: "PUT", body: { Job: job("nope") }, token: CI_TOKEN })).status).toBe(403);
      expect((await call(agent, "/v1/acl/tokens", { token: OPERATOR_TOKEN })).status).toBe(200);
    } finally {
      await agent.close();
    }
  });

  it("gives the same node IDs on every start, and a reset leaves the data out", async () => {
    const first = await startTestAgent({ port: 0, logLevel: "silent", data: EXAMPLE });
    const second = await startTestAgent({ port: 0, logLevel: "silent", data: EXAMPLE });
    try {
      const ids = async (agent: Agent) => (parseJson((await call(agent, "/v1/nodes")).text) as { ID: string }[]).map((node) => node.ID);
      expect(await ids(first)).toEqual(await ids(second));
      await first.reset();
      expect(await jobs(first)).toEqual([]);
      expect((await ids(first)).length).toBe(3);
      expect(await ids(first)).not.toEqual(await ids(second));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("restores a snapshot file into a new agent: the same lists, and indexes from then on above the snapshot's", async () => {
    const source = await startTestAgent(MANAGED);
    try {
      await register(source, job("web"));
      await register(source, job("report", { Type: "batch" }));
      for (let i = 0; i < 20; i++) await register(source, job("web", { Meta: { round: String(i) } }));
      await source.clock.advance("2s");
      const snapshot = await source.snapshot();
      const file = join(directory, "snapshot.json");
      writeFileSync(file, stringifyJson(snapshot));
      const copy = await startTestAgent({ ...MANAGED, data: file });
      try {
        expect(await listBodies(copy.url)).toEqual(await listBodies(source.url));
        expect(Number((await call(copy, "/v1/jobs")).headers["x-svc-index"])).toBeGreaterThan(snapshot.Index);
        await register(copy, job("new"));
        const created = (parseJson((await call(copy, "/v1/job/new")).text) as { CreateIndex: number }).CreateIndex;
        expect(created).toBeGreaterThan(snapshot.Index);
      } finally {
        await copy.close();
      }
      // The document itself, as the `data` option.
      const inline = await startTestAgent({ ...MANAGED, data: snapshot });
      try {
        expect(await listBodies(inline.url)).toEqual(await listBodies(source.url));
      } finally {
        await inline.close();
      }
    } finally {
      await source.close();
    }
  });

  const task = [{ Name: "t", Driver: "mock" }];
  it.each<[string, unknown, RegExp]>([
    ["not an object", [1], /^invalid value for data: \[1\]; expected the path of a data file \(a snapshot or a fixture\), or such a document$/],
    ["an unknown field", { Job: [] }, /^data: Job: unknown field; the fields are Namespaces, Nodes, Jobs, Deployments, ACL$/],
    ["a job that is not an object", { Jobs: ["web"] }, /^data: Jobs\[0\]: expected job \(an object\), got "web"$/],
    ["a job without an ID", { Jobs: [{ TaskGroups: [] }] }, /^data: Jobs\[0\]\.ID: expected a non-empty string, got nothing$/],
    ["a job status the agent cannot hold", { Jobs: [{ ID: "web", Status: "pending", TaskGroups: [{ Name: "g", Tasks: task }] }] }, /^data: Jobs\[0\]\.Status: expected running or dead/],
    ["a field of the wrong type, in Go's words", { Jobs: [{ ID: "web", Priority: "high" }] }, /^data: Jobs\[0\]: json: cannot unmarshal string into Go struct field .*Priority of type int$/],
    ["a job registration refuses", { Jobs: [{ ID: "web" }] }, /^data: Jobs\[0\]: 1 error occurred:\n\t\* Missing job task groups$/],
    ["a job in a namespace that does not exist", { Jobs: [{ ID: "web", Namespace: "nowhere", TaskGroups: [{ Name: "g", Tasks: task }] }] }, /^data: Jobs\[0\]: 1 error occurred:\n\t\* job "web" is in nonexistent namespace "nowhere"$/],
    ["a Status on an entry a later one registers again", { Jobs: [{ ID: "web", Status: "dead", TaskGroups: [{ Name: "g", Tasks: task }] }, { ID: "web", TaskGroups: [{ Name: "g", Tasks: task }] }] }, /^data: Jobs\[0\]\.Status: only a job's last entry may have a Status, and Jobs\[1\] registers "web" again$/],
    ["a bad namespace", { Namespaces: [{ Name: "no spaces" }] }, /^data: Namespaces\[0\]: Invalid namespace "no spaces": 1 error occurred/],
    ["a node status", { Nodes: [{ Name: "n1", Status: "gone" }] }, /^data: Nodes\[0\]\.Status: expected one of initializing, ready, down, disconnected, got "gone"$/],
    ["two nodes of one name", { Nodes: [{ Name: "n1" }, { Name: "n1" }] }, /^data: Nodes\[1\]\.Name: a second node named "n1" \(Nodes\[0\]\)$/],
    ["a deployment of an unknown job", { Deployments: [{ JobID: "web", Status: "failed" }] }, /^data: Deployments\[0\]\.JobID: no job "web" in namespace "default" among Jobs$/],
    ["a deployment of a batch job", { Jobs: [{ ID: "b", Type: "batch", TaskGroups: [{ Name: "g", Tasks: task }] }], Deployments: [{ JobID: "b", Status: "failed" }] }, /^data: Deployments\[0\]: job "b" has no deployment: only service jobs/],
    ["a running deployment of a job to be dead", { Jobs: [{ ID: "w", Status: "dead", TaskGroups: [{ Name: "g", Tasks: task }] }], Deployments: [{ JobID: "w", Status: "running" }] }, /^data: Deployments\[0\]\.Status: job "w" is to be dead/],
    ["a token secret that is not a UUID", { ACL: { Tokens: [{ SecretID: "secret" }] } }, /^data: ACL\.Tokens\[0\]\.SecretID: expected a UUID, got "secret"$/],
    ["two namespaces of one name", { Namespaces: [{ Name: "prod" }, { Name: "dev" }, { Name: "prod", Description: "again" }] }, /^data: Namespaces\[2\]\.Name: a second namespace named "prod" \(Namespaces\[0\]\)$/],
    ["two policies of one name", { ACL: { Policies: [{ Name: "p", Rules: 'namespace "*" { policy = "read" }' }, { Name: "p", Rules: 'namespace "*" { policy = "write" }' }] } }, /^data: ACL\.Policies\[1\]\.Name: a second policy named "p" \(ACL\.Policies\[0\]\)$/],
    ["two tokens of one secret", { ACL: { Tokens: [{ SecretID: CI_TOKEN, Type: "management" }, { SecretID: OPERATOR_TOKEN }, { SecretID: CI_TOKEN, Type: "management" }] } }, /^data: ACL\.Tokens\[2\]\.SecretID: the SecretID of ACL\.Tokens\[0\]$/],
    ["two tokens of one accessor", { ACL: { Tokens: [{ AccessorID: CI_TOKEN, SecretID: OPERATOR_TOKEN }, { AccessorID: CI_TOKEN }] } }, /^data: ACL\.Tokens\[1\]\.AccessorID: the AccessorID of ACL\.Tokens\[0\]$/],
    ["a token of the bootstrap token's secret", { ACL: { BootstrapToken: ROOT, Tokens: [{ SecretID: ROOT, Policies: ["p"] }] } }, /^data: ACL\.Tokens\[0\]\.SecretID: the SecretID of ACL\.BootstrapToken$/],
    ["policy rules that do not parse", { ACL: { Policies: [{ Name: "p", Rules: '{"namespace": {"*": {"policy": "own"}}}' }] } }, /^data: ACL\.Policies\[0\]: acl policy "p" in the configuration: policy 0 invalid: 1 error occurred:\n\t\* failed to parse rules: Invalid namespace policy/],
    ["a snapshot of another version", { Format: "bexpr-snapshot", Version: 2 }, /^data: Version: expected 1, the version this agent reads, got 2$/],
  ])("refuses a fixture with %s, naming the place and what is expected", async (_what, data, message) => {
    const error = await startTestAgent({ port: 0, logLevel: "silent", data: data as AgentOptions["data"] }).then(
      async (agent) => {
        await agent.close();
        return undefined;
      },
      (refusal: unknown) => refusal,
    );
    expect(error).toBeInstanceOf(OptionsError);
    expect((error as Error).message).toMatch(message);
  });

  it("refuses a fixture token whose secret or accessor is one of the agent's acl option", async () => {
    const acl = { enabled: true, bootstrapToken: ROOT, tokens: [{ AccessorID: OPERATOR_TOKEN, Name: "configured", Type: "management" as const }] };
    const start = (token: Record<string, unknown>) => startTestAgent({ port: 0, logLevel: "silent", acl, data: { ACL: { Tokens: [token] } } });
    await expect(start({ SecretID: ROOT, Type: "management" })).rejects.toThrow(/^data: ACL\.Tokens\[0\]\.SecretID: the SecretID of a token the agent has already \(of its acl option\)$/);
    await expect(start({ AccessorID: OPERATOR_TOKEN, SecretID: CI_TOKEN, Type: "management" })).rejects.toThrow(/^data: ACL\.Tokens\[0\]\.AccessorID: the AccessorID of a token the agent has already \(of its acl option\)$/);
    const agent = await start({ SecretID: CI_TOKEN, Type: "management" });
    try {
      expect((await call(agent, "/v1/acl/token/self", { token: CI_TOKEN })).status).toBe(200);
      expect((await call(agent, "/_bexpr/snapshots")).status).toBe(200);
    } finally {
      await agent.close();
    }
  });

  it("names the file it cannot read, or whose JSON is broken", async () => {
    const broken = join(directory, "broken.json");
    writeFileSync(broken, '{"Jobs": [');
    await expect(startAgent({ port: 0, logLevel: "silent", data: join(directory, "missing.json") })).rejects.toThrow(new RegExp(`^data file ${directory}/missing\\.json: cannot be read: ENOENT`));
    await expect(startAgent({ port: 0, logLevel: "silent", data: broken })).rejects.toThrow(new RegExp(`^data file ${directory}/broken\\.json: cannot be read: not valid JSON`));
    const wrong = join(directory, "wrong.json");
    writeFileSync(wrong, JSON.stringify({ Nodes: [{ Name: "n", Drain: "yes" }] }));
    await expect(startAgent({ port: 0, logLevel: "silent", data: wrong })).rejects.toThrow(new RegExp(`^data file ${directory}/wrong\\.json: Nodes\\[0\\]\\.Drain: expected true or false, got "yes"$`));
  });

  it("refuses the demo data with data, and data that is neither a path nor a document", async () => {
    await expect(startAgent({ port: 0, logLevel: "silent", demo: true, data: EXAMPLE })).rejects.toThrow(/^demo and data cannot both be loaded/);
    await expect(startAgent({ port: 0, logLevel: "silent", data: 7 as never })).rejects.toThrow(/^invalid value for data: 7; expected the path of a data file/);
  });
});

describe("documents that are not snapshots", () => {
  let agent: Agent;
  let snapshot: AgentSnapshot;
  beforeAll(async () => {
    agent = await startTestAgent(MANAGED);
    await register(agent, job("web"));
    await agent.clock.advance("2s");
    snapshot = parseJson(stringifyJson(await agent.snapshot())) as AgentSnapshot;
  });
  afterAll(async () => {
    await agent.close();
  });

  /** The snapshot with `change` made to a copy of it. */
  const changed = (change: (document: Record<string, any>) => void): unknown => {
    const copy = parseJson(stringifyJson(snapshot)) as Record<string, any>;
    change(copy);
    return copy;
  };

  it.each<[string, (document: Record<string, any>) => void, string, RegExp]>([
    ["no tables", (d) => delete d.Tables, "Tables", /^expected an object of every table's rows, got nothing$/],
    ["a table missing", (d) => delete d.Tables.allocs, "Tables.allocs", /^expected the table's rows \(a list\), got nothing$/],
    ["an unknown table", (d) => (d.Tables.volumes = []), "Tables.volumes", /^unknown table: the tables are jobs, /],
    ["an unknown field", (d) => (d.Extra = 1), "Extra", /^unknown field/],
    ["a row that is not an object", (d) => d.Tables.jobs.push(null), "Tables.jobs[1]", /^expected a row \(an object\), got null$/],
    ["a time that is not a number", (d) => (d.Tables.jobs[0].SubmitTime = "now"), "Tables.jobs[0].SubmitTime", /^expected nanoseconds since the epoch: a whole number, got "now"$/],
    ["an index above the snapshot's", (d) => (d.Tables.jobs[0].ModifyIndex = d.Index + 1), "Tables.jobs[0].ModifyIndex", /is above it\)$/],
    ["a status the agent does not know", (d) => (d.Tables.allocs[0].ClientStatus = "crashed"), "Tables.allocs[0].ClientStatus", /^expected one of pending, running, complete, failed, lost, unknown, got "crashed"$/],
    ["two rows of one key", (d) => d.Tables.jobs.push(d.Tables.jobs[0]), "Tables.jobs[1]", /^a second row with the key of Tables\.jobs\[0\]$/],
    ["a job registration would refuse", (d) => (d.Tables.jobs[0].TaskGroups = []), "Tables.jobs[0]", /^the job is not valid: 1 error occurred:\n\t\* Missing job task groups$/],
    ["no default namespace", (d) => (d.Tables.namespaces = []), "Tables.namespaces", /^expected the default namespace/],
    ["a secret hash of another secret", (d) => (d.Tables.acl_token[0].secretHash = "00".repeat(32)), "Tables.acl_token[0].secretHash", /^expected the SHA-256 of the token's SecretID, in hex$/],
    ["two tokens of one secret", (d) => d.Tables.acl_token.push({ ...d.Tables.acl_token[0], AccessorID: OPERATOR_TOKEN, Name: "second" }), "Tables.acl_token[1].SecretID", /^a second row with the SecretID of Tables\.acl_token\[0\]$/],
    ["two tokens of one accessor", (d) => d.Tables.acl_token.push({ ...d.Tables.acl_token[0], SecretID: CI_TOKEN, secretHash: createHash("sha256").update(CI_TOKEN).digest("hex") }), "Tables.acl_token[1]", /^a second row with the key of Tables\.acl_token\[0\]$/],
    ["two policies of one name", (d) => d.Tables.acl_policy.push({ Name: "p", Description: "", Rules: "", CreateIndex: 1, ModifyIndex: 1 }, { Name: "p", Description: "", Rules: "", CreateIndex: 1, ModifyIndex: 1 }), "Tables.acl_policy[1]", /^a second row with the key of Tables\.acl_policy\[0\]$/],
    ["two namespaces of one name", (d) => d.Tables.namespaces.push(d.Tables.namespaces[0]), "Tables.namespaces[1]", /^a second row with the key of Tables\.namespaces\[0\]$/],
  ])("refuses a snapshot with %s, naming the place", async (_what, change, path, reason) => {
    const before = await listBodies(agent.url);
    const error = await agent.restore(changed(change) as AgentSnapshot).then(
      () => undefined,
      (refusal: unknown) => refusal,
    );
    expect(error).toBeInstanceOf(AgentDataError);
    expect((error as AgentDataError).code).toBe("invalid_snapshot");
    expect((error as AgentDataError).path).toBe(path);
    expect((error as AgentDataError).reason).toMatch(reason);
    // Nothing was written.
    expect(await listBodies(agent.url)).toEqual(before);
  });

  it("refuses a snapshot whose index is too far ahead to catch up with", async () => {
    await expect(agent.restore(changed((d) => (d.Index = 10 ** 12)) as AgentSnapshot)).rejects.toThrow(/^Index: the snapshot's index 1000000000000 is more than 1000000 ahead of the agent's/);
  });
});

describe("the worked example of docs/agent.md", () => {
  let agent: Agent;
  beforeEach(async () => {
    agent = await startTestAgent({ port: 0, logLevel: "silent", clock: "manual", data: EXAMPLE });
  });
  afterEach(() => agent.close());

  const list = async (path: string) => (await fetch(`${agent.url}${path}`)).text();

  it("stops a job, then puts the state back as it was", async () => {
    const before = await agent.snapshot();
    const jobs = await list("/v1/jobs?namespace=*");

    await fetch(`${agent.url}/v1/job/web`, { method: "DELETE" });
    await agent.clock.advance(0);
    expect(JSON.parse(await list("/v1/jobs")).find((job: { ID: string }) => job.ID === "web").Status).toBe("dead");

    await agent.restore(before);
    expect(await list("/v1/jobs?namespace=*")).toBe(jobs);
  });
});

describe("many agents in one process", () => {
  it("starts 100 agents, each of which answers /v1/agent/members", async () => {
    const agents: Agent[] = [];
    try {
      for (let i = 0; i < 100; i++) agents.push(await startAgent({ port: 0, demo: false, logLevel: "silent", nodeName: `agent-${i}` }));
      expect(new Set(agents.map((agent) => agent.port)).size).toBe(100);
      const members = await Promise.all(agents.map(async (agent) => (await send(`${agent.url}/v1/agent/members`)).json<{ Members: { Name: string; Port: number }[] }>()));
      members.forEach((answer, i) => expect(answer.Members.map((member) => member.Name)).toEqual([`agent-${i}.global`]));
    } finally {
      await Promise.all(agents.map((agent) => agent.close()));
    }
  }, 60_000);
});
