/**
 * The agent under hostile clients (issue 10, findings 2 and 4 to 10), each over a real socket and
 * each checked by statuses, texts, counts and sizes, never by timing.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { MAX_EVALUATION_COST, MAX_SOURCE_LENGTH } from "../../src/index.js";
import { globMatches } from "../../src/server/domain/acl-policy.js";
import { MAX_HEADER_BYTES, MAX_JOB_ALLOCATIONS, MAX_JOB_PLACEMENT_RULES, MAX_JSON_DEPTH, MAX_PATH_PARAM_LENGTH, MAX_POLICY_RULES_BYTES, type AgentOptions } from "../../src/server/index.js";
import { MAX_HCL_DEPTH } from "../../src/server/domain/hcl.js";
import { eventually, job, ON_POSTGRES, useAgent, type TestAgent } from "../agent/support.js";

const ROOT = "00000000-0000-4000-8000-0000000000a1";
const PROD_READER = "00000000-0000-4000-8000-0000000000a2";
const as = (target: TestAgent, token: string | undefined, path: string, method = "GET", body?: unknown) =>
  target.get(path, { method, headers: token === undefined ? {} : { "x-svc-token": token }, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });

/** An agent with ACLs, a `prod` namespace and a `prod-read` policy, plus `acl`'s settings. */
const withProdReaders = (acl: Partial<NonNullable<AgentOptions["acl"]>>): AgentOptions => ({
  demo: false,
  namespaces: [{ Name: "prod" }],
  acl: { enabled: true, bootstrapToken: ROOT, policies: [{ Name: "prod-read", Rules: 'namespace "prod" { policy = "read" }' }], ...acl },
});

/** The gauge of the filter cache, from the metrics document. */
async function cacheBytes(target: TestAgent): Promise<number> {
  const metrics = (await target.get("/v1/metrics")).json<{ Gauges: { Name: string; Value: number }[] }>();
  return metrics.Gauges.find((gauge) => gauge.Name === "svc.svc.filter.cache_bytes")?.Value ?? 0;
}

describe("finding 2: filters that cost too much", () => {
  // One metrics interval for the whole file: the document then shows the gauges' latest values.
  const agent = useAgent({ demo: true, placementDelayMs: 60_000, metrics: { intervalMs: 2 ** 40, retentionMs: 2 ** 40 }, limits: { filterCacheBytes: 8 * 1024 * 1024 } });

  it("keeps the filter cache within its memory limit, however many heavy filters arrive", async () => {
    for (let k = 0; k < 30; k++) {
      // Two distinct 1,000-instruction patterns: about 2.6 MB each (their DFAs' share included).
      const filter = Array.from({ length: 2 }, (_, i) => `Name matches ".{1000}|x${k}_${i}"`).join(" or ");
      const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent(filter)}`);
      expect(response.status, response.text).toBeLessThan(500);
    }
    const bytes = await cacheBytes(agent);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
  });

  it("answers a filter whose patterns are too large with 400, before compiling them all", async () => {
    const filter = Array.from({ length: 200 }, (_, k) => `Name matches ".{1000}|i_${k}"`).join(" or ");
    const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent(filter)}`);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/^failed to create result paginator: failed to read filter expression: 1:\d+: the regular expression compiles to/);
  });

  it("receives the issue's 16 KB filter whole (Node's 16 KiB header limit answered 431) and answers 400", async () => {
    const clauses: string[] = [];
    for (let k = 0; clauses.join(" or ").length < 16_384; k++) clauses.push(`Name matches ".{1000}|i_${k}"`);
    const filter = clauses.join(" or ");
    expect(filter.length).toBeGreaterThanOrEqual(16_384);
    const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent(filter)}`);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/^failed to create result paginator: failed to read filter expression: 1:\d+: the (regular expression compiles to|filter's regular expressions are too large)/);
  });

  it("answers the issue's nested collections with 400 and the engine's message", async () => {
    let body = 'Datacenters contains "dc9"';
    for (let i = 19; i >= 0; i--) body = `any Datacenters as d${i} { ${body} }`;
    // The demo's web job has two datacenters: 2^20 paths are far past the budget.
    const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent(body)}`);
    expect(response.status).toBe(400);
    expect(response.text.split("\n")[0]).toBe(`failed to read result page: the evaluation exceeded its cost budget of ${MAX_EVALUATION_COST} units`);
  });
});

describe("finding 2: one request's filtering is bounded over all its rows", () => {
  const agent = useAgent({ demo: true, placementDelayMs: 60_000, limits: { filterCostPerRequest: 20 } });

  it("answers 400 once the rows together cost more than the request's budget", async () => {
    const ok = await agent.get(`/v1/jobs?namespace=prod&filter=${encodeURIComponent('Status != ""')}`);
    expect(ok.status).toBe(200);
    const cheap = 'Status != "" and Type != "" and Name != "" and ID != ""';
    // The agent's own evaluations are bounded. On PostgreSQL the database decides the filters its
    // translation is exact for, at no cost to the agent (a decision of docs/agent.md): there the
    // budget bounds the rows the agent re-checks, as those of a regular expression.
    const heavy = ON_POSTGRES ? 'Status matches "(r|d).*" and Type matches "(s|b).*"' : cheap;
    const response = await agent.get(`/v1/jobs?namespace=*&filter=${encodeURIComponent(heavy)}`);
    expect(response.status).toBe(400);
    expect(response.text.split("\n")[0]).toBe("failed to read result page: the evaluations exceeded their shared cost budget of 20 units");
    if (ON_POSTGRES) expect((await agent.get(`/v1/jobs?namespace=*&filter=${encodeURIComponent(cheap)}`)).status).toBe(200);
  });

  // The agent evaluates these rows itself on the memory store only (PostgreSQL decides `!=` exactly).
  it.skipIf(ON_POSTGRES).each([
    ["answers a page whose rows and the row after it cost exactly the budget", 4, 200],
    ["answers 400 for a page one row longer (its rows cost 4 units over)", 5, 400],
  ])("%s", async (_name, perPage, status) => {
    // The filter costs 4 units a row (two clauses of one segment); the page's filter meets its rows and the row after them.
    const all = (await agent.get("/v1/jobs?namespace=*")).json<unknown[]>();
    expect(all.length).toBeGreaterThan(perPage);
    const response = await agent.get(`/v1/jobs?namespace=*&per_page=${perPage}&filter=${encodeURIComponent('Status != "" and Type != ""')}`);
    expect(response.status).toBe(status);
    if (status === 200) expect(response.json<unknown[]>()).toHaveLength(perPage);
  });
});

describe("finding 4: namespace globs", () => {
  const agent = useAgent({ acl: { enabled: true, bootstrapToken: ROOT, policies: [{ Name: "anonymous", Rules: 'namespace "*-*-*-prod" { policy = "read" }' }] } });

  it.each<[string, string, boolean]>([
    ["*-*-*-prod", "a-b-c-prod", true],
    ["*-*-*-prod", "--prod-x-prod", true],
    ["*-*-*-prod", "a-b-prod", false],
    ["*", "", true],
    ["dev-*", "dev-", true],
    ["dev-*", "dev", false],
    ["*-api-*", "x-api-", true],
    ["a*b*a", "aba", true],
    ["a*b*a", "ab", false],
    ["prod", "prod", true],
    ["prod", "prod2", false],
  ])("%s matches %j: %s", (glob, name, matches) => {
    expect(globMatches(glob, name)).toBe(matches);
  });

  it("matches in one pass: a glob of six stars against 100,000 dashes (a backtracking matcher never returns)", () => {
    expect(globMatches("*-*-*-*-*-*-prod", "-".repeat(100_000))).toBe(false);
    expect(globMatches("*-*-*-*-*-*-prod", `${"-".repeat(100_000)}prod`)).toBe(true);
  });

  it("answers the issue's 3,200 dashes with 403 at once (one pass, no backtracking)", async () => {
    const response = await agent.get(`/v1/jobs?namespace=${"-".repeat(3_200)}`);
    expect(response.status).toBe(403);
    // The same anonymous policy still grants what it names.
    expect((await agent.get("/v1/jobs?namespace=a-b-c-prod")).status).toBe(200);
  });
});

describe("finding 5: rows a token may not read never change a response", () => {
  const agent = useAgent(withProdReaders({ tokens: [{ SecretID: PROD_READER, Policies: ["prod-read"] }] }));

  const probes = ['Namespace == "default" and ID matches "^w" and ID.x == 1', 'Namespace == "default" and Datacenters.9 == "x"', "Nope == 1"];

  it.each(probes)("answers %j alike whether or not default holds such a job", async (filter) => {
    const ask = () => as(agent, PROD_READER, `/v1/jobs?namespace=*&filter=${encodeURIComponent(filter)}`);
    const before = await ask();
    await as(agent, ROOT, "/v1/jobs", "PUT", { Job: job("web", { Datacenters: Array.from({ length: 12 }, (_, i) => `dc${i}`) }) });
    const after = await ask();
    expect([after.status, after.text]).toEqual([before.status, before.text]);
    expect(after.status).toBe(200);
    expect(after.text).toBe("[]");
  });

  it("still evaluates the filter on the token's own rows, errors included", async () => {
    await as(agent, ROOT, "/v1/jobs?namespace=prod", "PUT", { Job: job("api") });
    const response = await as(agent, PROD_READER, `/v1/jobs?namespace=*&filter=${encodeURIComponent("ID.x == 1")}`);
    expect(response.status).toBe(400);
  });
});

describe("finding 6: revocation reaches waiting queries", () => {
  // No nodes: the jobs the tests register stay blocked, so no scheduler write wakes a query after them.
  const agent = useAgent({ ...withProdReaders({ tokenMinExpirationTTL: "1ms" }), nodes: 0 });

  async function token(ttl?: string): Promise<{ AccessorID: string; SecretID: string }> {
    const body = { Name: "watcher", Type: "client", Policies: ["prod-read"], ...(ttl === undefined ? {} : { ExpirationTTL: ttl }) };
    return (await as(agent, ROOT, "/v1/acl/token", "PUT", body)).json();
  }

  /** Starts a blocking query as `secret`, waits until it is parked, and gives its answer to come. */
  async function watch(secret: string, mayExpire = false): Promise<{ answer: ReturnType<typeof as> }> {
    // The scheduler has done with the jobs registered so far: no write of its own wakes the query.
    for (;;) {
      const evaluations = (await as(agent, ROOT, "/v1/evaluations?namespace=*")).json<{ Status: string }[]>();
      if (evaluations.every((evaluation) => evaluation.Status !== "pending")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const first = await as(agent, secret, "/v1/jobs?namespace=prod");
    // A short-lived token may have expired already on a loaded machine: that answer is the one to check.
    if (mayExpire && first.status === 403) return { answer: Promise.resolve(first) };
    expect(first.status).toBe(200);
    const parked = agent.agent.blockingQueries;
    const answer = as(agent, secret, `/v1/jobs?namespace=prod&index=${first.headers["x-svc-index"]}&wait=30s`);
    // Parked, or already answered (on a loaded machine a short-lived token may expire before it parks).
    let settled = false;
    void answer.finally(() => (settled = true)).catch(() => undefined);
    while (agent.agent.blockingQueries === parked && !settled) await new Promise((resolve) => setTimeout(resolve, 5));
    return { answer };
  }

  it("answers 403, not the job written after it, to a token deleted while it waited", async () => {
    const { AccessorID, SecretID } = await token();
    const { answer } = await watch(SecretID);
    expect((await as(agent, ROOT, `/v1/acl/token/${AccessorID}`, "DELETE")).status).toBe(200);
    await as(agent, ROOT, "/v1/jobs?namespace=prod", "PUT", { Job: job("after-delete") });
    const response = await answer;
    expect([response.status, response.text]).toEqual([403, "Permission denied"]);
  });

  it("answers 403 to a token whose policy was deleted while it waited", async () => {
    const { SecretID } = await token();
    const { answer } = await watch(SecretID);
    expect((await as(agent, ROOT, "/v1/acl/policy/prod-read", "DELETE")).status).toBe(200);
    const response = await answer;
    expect([response.status, response.text]).toEqual([403, "Permission denied"]);
    await as(agent, ROOT, "/v1/acl/policy/prod-read", "PUT", { Name: "prod-read", Rules: 'namespace "prod" { policy = "read" }' });
  });

  it("goes back to waiting when a write leaves its rights as they were", async () => {
    const { SecretID } = await token();
    const { answer } = await watch(SecretID);
    const parked = agent.agent.blockingQueries;
    // A policy written (unchanged) wakes the query; it checks the token, and waits again (on a
    // loaded machine and a database the check may take a while: the count comes back, whenever).
    await as(agent, ROOT, "/v1/acl/policy/prod-read", "PUT", { Name: "prod-read", Rules: 'namespace "prod" { policy = "read" }' });
    await eventually(async () => (agent.agent.blockingQueries === parked ? true : undefined));
    // Had it answered at the policy's write, its answer would not hold the job written next.
    await as(agent, ROOT, "/v1/jobs?namespace=prod", "PUT", { Job: job("wakes-it") });
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.json<{ ID: string }[]>().map((stub) => stub.ID)).toContain("wakes-it");
  });

  it("answers 403 when the token expires, without waiting for a write or the end of the wait", async () => {
    const { SecretID } = await token("300ms");
    const started = Date.now();
    const response = await (await watch(SecretID, true)).answer;
    expect([response.status, response.text]).toEqual([403, "Permission denied"]);
    // It woke at the expiry, far before its 30 s wait: a count of seconds, not a timing assertion.
    expect(Math.floor((Date.now() - started) / 10_000)).toBe(0);
  });
});

describe("a blocking query's token expiring on a clock the test drives", () => {
  const agent = useAgent({ ...withProdReaders({ tokenMinExpirationTTL: "1ms" }), nodes: 0, clock: "manual" });

  it("answers 403 when the test moves the clock to the token's expiry, and not before", async () => {
    const ttlMs = 3_600_000;
    const { SecretID } = (await as(agent, ROOT, "/v1/acl/token", "PUT", { Name: "watcher", Type: "client", Policies: ["prod-read"], ExpirationTTL: `${ttlMs}ms` })).json<{ SecretID: string }>();
    const first = await as(agent, SecretID, "/v1/jobs?namespace=prod");
    expect(first.status).toBe(200);
    const parked = agent.agent.blockingQueries;
    const started = Date.now();
    let settled = false;
    const answer = as(agent, SecretID, `/v1/jobs?namespace=prod&index=${first.headers["x-svc-index"]}&wait=60s`).finally(() => (settled = true));
    await eventually(async () => (agent.agent.blockingQueries > parked ? true : undefined));
    // A millisecond before its expiry on the agent's clock, the token is good: the query goes on waiting.
    await agent.agent.clock.advance(ttlMs - 1);
    await as(agent, ROOT, "/v1/agent/self");
    expect(settled).toBe(false);
    // The wake at the expiry was set on the machine's clock, an hour away: the query waited out its 60 s.
    await agent.agent.clock.advance(1);
    const response = await answer;
    expect([response.status, response.text]).toEqual([403, "Permission denied"]);
    // Answered at the move, far before its 60 s wait: a count of tens of seconds, not a timing assertion.
    expect(Math.floor((Date.now() - started) / 20_000)).toBe(0);
  });
});

describe("findings 7 and 10: bodies that used to be 500s or silently changed", () => {
  const agent = useAgent({ demo: false, acl: { enabled: true, bootstrapToken: ROOT } });
  const put = (path: string, body: string) => as(agent, ROOT, path, "PUT", body);

  it("takes the last of duplicate keys, as Go does", async () => {
    const response = await put("/v1/jobs", '{"Job":{"ID":"dup","Priority":10,"Priority":70,"TaskGroups":[{"Name":"g","Tasks":[{"Name":"t","Driver":"d"}]}]}}');
    expect(response.status, response.text).toBe(200);
    const jobs = (await as(agent, ROOT, "/v1/jobs")).json<{ ID: string; Priority: number }[]>();
    expect(jobs.find((stub) => stub.ID === "dup")?.Priority).toBe(70);
    const policy = await put("/v1/acl/policy/dup", '{"Name":"dup","Rules":"","Rules":"node { policy = \\"read\\" }"}');
    expect(policy.status, policy.text).toBe(200);
  });

  it(`accepts nesting ${MAX_JSON_DEPTH} deep and refuses one level more, as Go refuses its own limit`, async () => {
    const nested = (depth: number) => `{"Job":{"ID":"deep","Meta":{"k":"v"},"Constraints":${"[".repeat(depth - 2)}${"]".repeat(depth - 2)},"TaskGroups":[{"Name":"g","Tasks":[{"Name":"t","Driver":"d"}]}]}}`;
    const accepted = await put("/v1/jobs", nested(MAX_JSON_DEPTH));
    expect(accepted.status, accepted.text).toBe(200);
    const refused = await put("/v1/jobs", nested(MAX_JSON_DEPTH + 1));
    expect([refused.status, refused.text]).toEqual([400, "invalid character '[' exceeded max depth"]);
    for (const depth of [5_000, 100_000]) {
      const response = await put("/v1/jobs", nested(depth));
      expect([response.status, response.text]).toEqual([400, "invalid character '[' exceeded max depth"]);
    }
    // The deep job is listed, filtered and printed like any other.
    const listed = await as(agent, ROOT, `/v1/jobs?pretty&filter=${encodeURIComponent('ID == "deep"')}`);
    expect(listed.status).toBe(200);
    expect(listed.json<unknown[]>()).toHaveLength(1);
  });

  it.each<[string, string]>([
    ['{"Job":{"ID":"x","Priority":9223372036854775808}}', "json: cannot unmarshal number 9223372036854775808 into Go struct field JobRegisterRequest.Job.Priority of type int"],
    ['{"Job":{"ID":"x","TaskGroups":[{"Name":"g","Count":99999999999999999999}]}}', "json: cannot unmarshal number 99999999999999999999 into Go struct field JobRegisterRequest.Job.TaskGroups.Count of type int"],
    ['{"Job":{"ID":"x","TaskGroups":[{"Name":"g","Count":-99999999999999999999}]}}', "json: cannot unmarshal number -99999999999999999999 into Go struct field JobRegisterRequest.Job.TaskGroups.Count of type int"],
    ['{"Job":{"ID":"x","Priority":1e2}}', "json: cannot unmarshal number 1e2 into Go struct field JobRegisterRequest.Job.Priority of type int"],
    ['{"Job":{"ID":"x","Update":{"ProgressDeadline":1e300}}}', "json: cannot unmarshal number 1e300 into Go struct field JobRegisterRequest.Job.Update.ProgressDeadline of type int"],
    ['{"Job":{"ID":"x"},"JobModifyIndex":-1}', "json: cannot unmarshal number -1 into Go struct field JobRegisterRequest.JobModifyIndex of type uint64"],
    ['{"Job":{"ID":"x","TaskGroups":[{"Name":"g","Tasks":[{"Name":"t","Driver":"d","Config":{"n":1e400}}]}]}}', "json: cannot unmarshal number 1e400 into Go struct field JobRegisterRequest.Job.TaskGroups.Tasks.Config of type float64"],
  ])("refuses %s with Go's words", async (body, text) => {
    const response = await put("/v1/jobs", body);
    expect([response.status, response.text]).toEqual([400, text]);
  });

  it(`refuses a job asking for more than ${MAX_JOB_ALLOCATIONS} allocations`, async () => {
    const response = await put("/v1/jobs", JSON.stringify({ Job: job("huge", { TaskGroups: [{ Name: "g", Count: 1_000_000_000, Tasks: [{ Name: "t", Driver: "d" }] }] }) }));
    expect(response.status).toBe(400);
    expect(response.text).toContain(`the task groups ask for 1000000000 allocations; the mini-agent places at most ${MAX_JOB_ALLOCATIONS} for one job`);
  });

  it(`refuses a job with more than ${MAX_JOB_PLACEMENT_RULES} constraints, affinities and spreads, and takes one with that many`, async () => {
    const rules = (count: number) => Array.from({ length: count }, (_, i) => ({ LTarget: "${node.unique.name}", Operand: "regexp", RTarget: `c|${i}` }));
    // Half on the job, half on its task: they count together.
    const spec = (count: number) => job("ruled", { Constraints: rules(count - 500), TaskGroups: [{ Name: "g", Count: 3, Tasks: [{ Name: "t", Driver: "d", Constraints: rules(500) }] }] });
    const refused = await put("/v1/jobs", JSON.stringify({ Job: spec(MAX_JOB_PLACEMENT_RULES + 1) }));
    expect([refused.status, refused.text]).toEqual([400, `1 error occurred:\n\t* the job has ${MAX_JOB_PLACEMENT_RULES + 1} constraints, affinities and spreads; the mini-agent checks at most ${MAX_JOB_PLACEMENT_RULES} for one job\n\n`]);
    expect((await put("/v1/jobs", JSON.stringify({ Job: spec(MAX_JOB_PLACEMENT_RULES) }))).status).toBe(200);
  });

  it.each<[unknown, string]>([
    ["1e400", "json: cannot unmarshal number 1e400 into Go struct field ACLToken.ExpirationTTL of type float64"],
    ["1e20", "json: cannot unmarshal number 100000000000000000000 into Go struct field ACLToken.ExpirationTTL of type time.Duration"],
  ])("refuses the token TTL %s with 400", async (ttl, text) => {
    const response = await put("/v1/acl/token", `{"Name":"t","Type":"management","ExpirationTTL":${ttl as string}}`);
    expect([response.status, response.text]).toEqual([400, text]);
  });

  it("refuses an expiration time that is not RFC 3339", async () => {
    const response = await put("/v1/acl/token", '{"Name":"t","Type":"management","ExpirationTime":"tomorrow"}');
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/^parsing time "\\"tomorrow\\"" as/);
  });
});

describe("finding 8: slow and heavy bodies", () => {
  const agent = useAgent({ demo: false, acl: { enabled: true, bootstrapToken: ROOT }, limits: { requestTimeoutMs: 500 } });

  it("answers a body trickled byte by byte with 408 once the request timeout passes", async () => {
    const { port } = agent.agent;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      let received = "";
      let trickle: NodeJS.Timeout | undefined;
      socket.on("data", (chunk) => (received += chunk.toString()));
      socket.on("close", () => {
        clearInterval(trickle);
        resolve(received);
      });
      socket.on("error", reject);
      socket.write("PUT /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{");
      trickle = setInterval(() => socket.writable && socket.write(" "), 100);
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(answer.endsWith("the request was not received within 500 ms")).toBe(true);
  });

  it(`refuses policy rules over ${MAX_POLICY_RULES_BYTES} bytes without parsing them`, async () => {
    const rules = 'namespace "ns" {\n  policy = "read"\n}\n'.repeat(70_000);
    const response = await as(agent, ROOT, "/v1/acl/policy/big", "PUT", { Name: "big", Rules: rules });
    expect(response.status).toBe(400);
    expect(response.text).toContain(`failed to parse rules: the rules are ${Buffer.byteLength(rules)} bytes long; the limit is ${MAX_POLICY_RULES_BYTES}`);
  });

  // 8,000 nested lists in 16 KiB crashed hcl2json's Go runtime (`fatal error: malloc deadlock`),
  // and every HCL policy and jobspec of the process failed after it.
  it(`refuses policy rules nested deeper than ${MAX_HCL_DEPTH} brackets before parsing them, and HCL is still read after`, async () => {
    const nested = (depth: number) => `namespace "ns" {\n  policy = "read"\n  capabilities = ${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}\n}\n`;
    const atLimit = await as(agent, ROOT, "/v1/acl/policy/deep", "PUT", { Name: "deep", Rules: nested(MAX_HCL_DEPTH) });
    expect(atLimit.text).not.toContain("levels of brackets");
    const bomb = await as(agent, ROOT, "/v1/acl/policy/deep", "PUT", { Name: "deep", Rules: nested(8_000) });
    expect(bomb.status).toBe(400);
    expect(bomb.text).toContain(`Failed to parse ACL Policy: the text nests deeper than ${MAX_HCL_DEPTH} levels of brackets`);
    const next = await as(agent, ROOT, "/v1/acl/policy/after", "PUT", { Name: "after", Rules: 'namespace "ns" {\n  policy = "read"\n}\n' });
    expect(next.status, next.text).toBe(200);
  });
});

describe(`request lines and headers up to ${MAX_HEADER_BYTES} bytes, as Go's server`, () => {
  const agent = useAgent({ demo: true, placementDelayMs: 60_000 });

  it(`reads a filter of ${MAX_SOURCE_LENGTH} characters from the query string`, async () => {
    const filter = `Name == "web"${" ".repeat(MAX_SOURCE_LENGTH - 13)}`;
    const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent(filter)}`);
    expect(response.status, response.text).toBe(200);
    expect(response.json<{ Name: string }[]>().map((row) => row.Name)).toEqual(["web"]);
  });

  it("answers 431 with a plain-text reason past the limit", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(agent.agent.port, "127.0.0.1");
      let received = "";
      socket.on("data", (chunk) => (received += chunk.toString()));
      socket.on("close", () => resolve(received));
      socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" || error.code === "EPIPE" ? resolve(received) : reject(error)));
      socket.write(`GET /v1/jobs?filter=${"x".repeat(MAX_HEADER_BYTES)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(answer.endsWith("the request's headers are too large")).toBe(true);
  });
});

describe("finding 9: long names", () => {
  const agent = useAgent({ demo: false, acl: { enabled: true, bootstrapToken: ROOT } });

  it.each([100, 101, 128])("creates, reads and deletes a namespace and a policy named with %i characters", async (length) => {
    const name = "n".repeat(length);
    expect((await as(agent, ROOT, `/v1/namespace/${name}`, "PUT", { Name: name })).status).toBe(200);
    expect((await as(agent, ROOT, `/v1/namespace/${name}`)).status).toBe(200);
    expect((await as(agent, ROOT, `/v1/namespace/${name}`, "DELETE")).status).toBe(200);
    expect((await as(agent, ROOT, `/v1/acl/policy/${name}`, "PUT", { Name: name, Rules: 'node { policy = "read" }' })).status).toBe(200);
    expect((await as(agent, ROOT, `/v1/acl/policy/${name}`)).status).toBe(200);
    expect((await as(agent, ROOT, `/v1/acl/policy/${name}`, "DELETE")).status).toBe(200);
  });

  it("answers a name past every limit with the API's own 400, and a path past the router's with 404", async () => {
    const name = "n".repeat(129);
    const response = await as(agent, ROOT, `/v1/namespace/${name}`, "PUT", { Name: name });
    expect(response.status).toBe(400);
    expect((await as(agent, ROOT, `/v1/namespace/${"n".repeat(MAX_PATH_PARAM_LENGTH + 1)}`)).status).toBe(404);
  });
});
