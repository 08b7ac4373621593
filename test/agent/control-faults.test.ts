/**
 * Fault rules: answers and delays instead of the routes', by method, path, filter, probability
 * and count; listed, spent and removed; over HTTP and programmatically.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FaultRuleError, MAX_FAULT_BODY_BYTES, MAX_FAULT_LATENCY_MS, MAX_FAULT_SEED, MAX_FAULTS, type Fault } from "../../src/server/index.js";
import { send, settled, startTestAgent, useAgent } from "./support.js";

const agent = useAgent({ namespaces: [{ Name: "prod" }] });

afterEach(() => {
  agent.agent.faults.clear();
});

/** A fault as the HTTP routes list it: the fields of {@link Fault} in PascalCase. */
interface FaultOverHttp {
  readonly ID: string;
  readonly [field: string]: unknown;
}

/** Adds a rule over HTTP and returns it as listed. */
async function addOverHttp(rule: unknown): Promise<FaultOverHttp> {
  const response = await agent.get("/_bexpr/faults", { method: "POST", body: JSON.stringify(rule) });
  expect(response.status, response.text).toBe(200);
  return response.json();
}

describe("a fault with a count", () => {
  it("answers 503 twice, then lets the route answer", async () => {
    await settled(agent.url);
    // The same request once before: the lane of repeated list requests knows it, and must not answer it while a fault may fire.
    expect((await agent.get("/v1/jobs")).status).toBe(200);
    agent.agent.clearRequests();
    const fault = await addOverHttp({ Method: "GET", Path: "/v1/jobs", Status: 503, Body: "No cluster leader", Count: 2 });
    expect(fault).toEqual({ Method: "GET", Path: "/v1/jobs", Status: 503, Body: "No cluster leader", Count: 2, ID: fault.ID, Fired: 0, Spent: false });

    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await agent.get("/v1/jobs"));
    expect(answers.map((answer) => answer.status)).toEqual([503, 503, 200]);
    expect(answers[0]!.text).toBe("No cluster leader");
    expect(answers[0]!.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(answers[0]!.headers.vary).toBe("Accept-Encoding");
    expect(answers[0]!.headers["x-svc-index"]).toBeUndefined();
    expect(answers[2]!.json()).toEqual([]);

    expect((await agent.get("/_bexpr/faults")).json()).toEqual([{ ...fault, Fired: 2, Spent: true }]);
    // In JavaScript, the same fault in camelCase.
    expect(agent.agent.faults.list()).toEqual([{ method: "GET", path: "/v1/jobs", status: 503, body: "No cluster leader", count: 2, id: fault.ID, fired: 2, spent: true }]);
    expect(agent.agent.requests().map((entry) => [entry.Status, entry.Fault])).toEqual([
      [503, fault.ID],
      [503, fault.ID],
      [200, ""],
    ]);
  });
});

describe("a fault with a filter", () => {
  it("answers only the requests the filter selects: Query.namespace == \"prod\"", async () => {
    const id = agent.agent.faults.add({ filter: 'Query.namespace == "prod"', status: 500, body: { Error: "prod is down" } });
    const prodJobs = await agent.get("/v1/jobs?namespace=prod");
    expect(prodJobs.status).toBe(500);
    expect(prodJobs.headers["content-type"]).toBe("application/json");
    expect(prodJobs.json()).toEqual({ Error: "prod is down" });
    expect((await agent.get("/v1/deployments?namespace=prod")).status).toBe(500);
    expect((await agent.get("/v1/jobs?namespace=default")).status).toBe(200);
    expect((await agent.get("/v1/jobs")).status).toBe(200);
    expect(agent.agent.faults.list()).toMatchObject([{ id, fired: 2, spent: false }]);
  });

  it("sees the method, path, headers and query of the request (a token's value redacted)", async () => {
    agent.agent.faults.add({ filter: 'Method == "PUT" and Path matches "^/v1/jobs$" and Headers["x-svc-token"] == "[redacted]"', status: 403, body: "Permission denied" });
    expect((await agent.put("/v1/jobs", { Job: { ID: "x" } }, { headers: { "x-svc-token": "secret" } })).text).toBe("Permission denied");
    expect((await agent.put("/v1/jobs", "{")).status).toBe(400);
  });

  it("does not fire when its filter cannot be evaluated on a request, and says why", async () => {
    agent.agent.faults.add({ filter: 'Headers == "x"', status: 500 });
    expect((await agent.get("/v1/jobs")).status).toBe(200);
    const [listed] = agent.agent.faults.list();
    expect(listed).toMatchObject({ fired: 0, spent: false });
    expect(listed!.lastError).toMatch(/^1:1: unable to find suitable primitive comparison function/);
  });
});

describe("a fault with latency", () => {
  it("delays the real answer", async () => {
    const id = agent.agent.faults.add({ path: "/v1/namespaces", latencyMs: 300 });
    const start = performance.now();
    const response = await agent.get("/v1/namespaces");
    expect(performance.now() - start).toBeGreaterThanOrEqual(290);
    expect(response.status).toBe(200);
    expect(response.json<{ Name: string }[]>().map((namespace) => namespace.Name)).toContain("prod");
    const [entry] = agent.agent.requests(`Fault == "${id}"`);
    expect(entry!.DurationMs).toBeGreaterThanOrEqual(290);
    const quick = performance.now();
    expect((await agent.get("/v1/jobs")).status).toBe(200);
    expect(performance.now() - quick).toBeLessThan(290);
  });

  it("delays its own answer when it has a status", async () => {
    agent.agent.faults.add({ path: "/v1/job/*", latencyMs: 200, status: 504, body: "timeout" });
    const start = performance.now();
    const response = await agent.get("/v1/job/web");
    expect(performance.now() - start).toBeGreaterThanOrEqual(190);
    expect([response.status, response.text]).toEqual([504, "timeout"]);
  });

  it("ends its wait when the agent closes, and the request is answered", async () => {
    const own = await startTestAgent({ port: 0, demo: false, logLevel: "silent" });
    own.faults.add({ latencyMs: MAX_FAULT_LATENCY_MS });
    const pending = send(`${own.url}/v1/jobs`);
    while (own.faults.list()[0]!.fired === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const start = performance.now();
    await own.close();
    expect((await pending).status).toBe(200);
    expect(performance.now() - start).toBeLessThan(5_000);
  });
});

describe("a fault with a probability", () => {
  /** The statuses of `count` requests under a rule. */
  async function run(rule: Record<string, unknown>, count = 40): Promise<number[]> {
    agent.agent.faults.clear();
    agent.agent.faults.add({ path: "/v1/jobs", status: 503, ...rule });
    const statuses = [];
    for (let i = 0; i < count; i++) statuses.push((await agent.get("/v1/jobs")).status);
    return statuses;
  }

  it("fires the same requests again with the same seed", async () => {
    const first = await run({ probability: 0.5, seed: 42 });
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await run({ probability: 0.5, seed: 42 })).toEqual(first);
    expect(await run({ probability: 0.5, seed: 43 })).not.toEqual(first);
  });

  it("never fires at 0 and always at 1", async () => {
    expect(new Set(await run({ probability: 0 }, 10))).toEqual(new Set([200]));
    expect(new Set(await run({ probability: 1 }, 10))).toEqual(new Set([503]));
  });
});

describe("the rules", () => {
  it("are tried in the order added, the first that fires deciding", async () => {
    agent.agent.faults.add({ path: "/v1/jobs", status: 502, count: 1 });
    agent.agent.faults.add({ path: "/v1/*", status: 503 });
    expect((await agent.get("/v1/jobs")).status).toBe(502);
    expect((await agent.get("/v1/jobs")).status).toBe(503);
    expect((await agent.get("/v1/namespaces")).status).toBe(503);
  });

  it("are listed with how often they fired, spent ones too, until removed", async () => {
    const once = agent.agent.faults.add({ method: "get", path: "/v1/namespaces", status: 500, count: 1 });
    const always = agent.agent.faults.add({ method: "PUT", status: 500 });
    expect((await agent.get("/v1/namespaces")).status).toBe(500);
    expect((await agent.get("/v1/namespaces")).status).toBe(200);
    expect(agent.agent.faults.list()).toEqual([
      { method: "get", path: "/v1/namespaces", status: 500, count: 1, id: once, fired: 1, spent: true },
      { method: "PUT", status: 500, id: always, fired: 0, spent: false },
    ]);
    expect((await agent.get(`/_bexpr/faults/${once}`)).json()).toEqual({ Method: "get", Path: "/v1/namespaces", Status: 500, Count: 1, ID: once, Fired: 1, Spent: true });

    expect((await agent.get(`/_bexpr/faults/${always}`, { method: "DELETE" })).status).toBe(200);
    expect(agent.agent.faults.list().map((fault) => fault.id)).toEqual([once]);
    expect(agent.agent.faults.remove(always)).toBe(false);
    const missing = await agent.get(`/_bexpr/faults/${always}`, { method: "DELETE" });
    expect([missing.status, missing.text]).toEqual([404, `fault "${always}" not found`]);
    expect(agent.agent.faults.remove(once)).toBe(true);

    const next = agent.agent.faults.add({ status: 500, path: "/nowhere" });
    expect([once, always]).not.toContain(next);
    expect((await agent.get("/_bexpr/faults", { method: "DELETE" })).status).toBe(200);
    expect(agent.agent.faults.list()).toEqual([]);
  });

  it("answer with their headers and a JSON body, compressed as the client asks", async () => {
    agent.agent.faults.add({ status: 429, headers: { "Retry-After": "2", "X-Svc-Index": "7" }, body: { Error: "slow down" } });
    const response = await agent.get("/v1/jobs", { headers: { "accept-encoding": "gzip" } });
    expect(response.status).toBe(429);
    expect(response.headers["retry-after"]).toBe("2");
    expect(response.headers["x-svc-index"]).toBe("7");
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(response.json()).toEqual({ Error: "slow down" });
    expect(agent.agent.requests(`Status == 429`).at(-1)!.Index).toBe(7);
  });

  it("answer with an empty body without a Content-Type", async () => {
    agent.agent.faults.add({ status: 500 });
    const response = await agent.get("/v1/jobs");
    expect(response.status).toBe(500);
    expect(response.raw.length).toBe(0);
    expect(response.headers["content-type"]).toBeUndefined();
  });

  it("never apply to the control routes, which are how a test removes them", async () => {
    agent.agent.faults.add({ path: "/*", status: 500 });
    expect((await agent.get("/v1/jobs")).status).toBe(500);
    expect((await agent.get("/_bexpr/explain?list=jobs")).status).toBe(500);
    expect((await agent.get("/_bexpr/faults")).status).toBe(200);
    expect((await agent.get("/_bexpr/requests")).status).toBe(200);
    expect((await agent.get("/%5Fbexpr/faults")).status).toBe(200);
    expect((await agent.get("/_bexpr/faults", { method: "DELETE" })).status).toBe(200);
    expect((await agent.get("/v1/jobs")).status).toBe(200);
  });

  it(`are at most ${MAX_FAULTS}`, async () => {
    for (let i = 0; i < MAX_FAULTS; i++) agent.agent.faults.add({ path: `/nowhere/${i}`, status: 500 });
    expect(() => agent.agent.faults.add({ status: 500 })).toThrow(FaultRuleError);
    const response = await agent.get("/_bexpr/faults", { method: "POST", body: JSON.stringify({ status: 500 }) });
    expect([response.status, response.text]).toEqual([400, `the agent holds ${MAX_FAULTS} fault rules, the most it may; remove some first`]);
    expect((await agent.get("/v1/jobs")).status).toBe(200);
  });
});

describe("a rule that is not valid", () => {
  it.each([
    ["an empty body", "", "Request body is empty"],
    ["text that is not JSON", "{", "the body is not JSON: "],
    ["an array", "[]", "a fault rule must be a JSON object, got []"],
    ["a __proto__ field (kept a field, never the rule's prototype)", '{"__proto__": {"status": 503}}', 'unknown field "__proto__" in the fault rule;'],
    ["an unknown field", { status: 500, colour: "red" }, 'unknown field "colour" in the fault rule; known fields: method, path, filter, status, body, headers, latencyMs, probability, count, seed'],
    ["neither a status nor a latency", { path: "/v1/jobs" }, "a fault rule needs a status (to answer instead of the route), a latencyMs (to delay the answer), or both"],
    ["a body without a status", { latencyMs: 5, body: "x" }, "a fault rule with a body or headers needs a status"],
    ["a method that is not a token", { method: "GET /", status: 500 }, 'method must be an HTTP method such as "GET", got "GET /"'],
    ["a relative path", { path: "v1/jobs", status: 500 }, 'path must start with "/", got "v1/jobs"'],
    ["a * inside the path", { path: "/v1/*/jobs", status: 500 }, 'path may hold "*" only at its end (a prefix), got "/v1/*/jobs"'],
    ["a control route's path", { path: "/_bexpr/faults", status: 500 }, "faults never apply to the control routes, such as /_bexpr/faults"],
    ["a filter that does not parse", { filter: "Method ==", status: 500 }, "failed to read filter expression: 1:"],
    ["a status below 200", { status: 199 }, "status must be a whole number from 200 to 599, got 199"],
    ["a status above 599", { status: 600 }, "status must be a whole number from 200 to 599, got 600"],
    ["a status as text", { status: "503" }, 'status must be a whole number from 200 to 599, got "503"'],
    ["a negative latency", { latencyMs: -1 }, `latencyMs must be a whole number from 0 to ${MAX_FAULT_LATENCY_MS}, got -1`],
    ["a latency above the most", { latencyMs: MAX_FAULT_LATENCY_MS + 1 }, `latencyMs must be a whole number from 0 to ${MAX_FAULT_LATENCY_MS}, got ${MAX_FAULT_LATENCY_MS + 1}`],
    ["a probability above 1", { status: 500, probability: 1.5 }, "probability must be a number from 0 to 1, got 1.5"],
    ["a count of 0", { status: 500, count: 0 }, `count must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, got 0`],
    ["a seed above 32 bits", { status: 500, seed: MAX_FAULT_SEED + 1 }, `seed must be a whole number from 0 to ${MAX_FAULT_SEED}, got ${MAX_FAULT_SEED + 1}`],
    ["a header that frames the body", { status: 500, headers: { "Content-Length": "5" } }, "the header Content-Length is set by the agent from the body; a fault may not set it"],
    ["a header value with a line break", { status: 500, headers: { "X-A": "a\r\nX-B: b" } }, 'the value of header X-A must be a string without control characters, got "a\\r\\nX-B: b"'],
    ["a body for a 204", { status: 204, body: "x" }, "a 204 answer has no body"],
    ["a body larger than the most", { status: 500, body: "x".repeat(MAX_FAULT_BODY_BYTES + 1) }, `body is ${MAX_FAULT_BODY_BYTES + 1} bytes; a fault's body may have at most ${MAX_FAULT_BODY_BYTES}`],
  ])("is a 400 with the reason: %s", async (_what, rule, reason) => {
    const response = await agent.get("/_bexpr/faults", { method: "POST", body: typeof rule === "string" ? rule : JSON.stringify(rule) });
    expect(response.status).toBe(400);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.text.startsWith(reason), response.text).toBe(true);
    if (typeof rule !== "string") expect(() => agent.agent.faults.add(rule as never)).toThrow(FaultRuleError);
    expect(agent.agent.faults.list()).toEqual([]);
  });

  it.each([
    [{ latencyMs: MAX_FAULT_LATENCY_MS }],
    [{ status: 200 }],
    [{ status: 599, body: "x".repeat(MAX_FAULT_BODY_BYTES) }],
    [{ status: 500, seed: MAX_FAULT_SEED, probability: 0 }],
    [{ status: 500, count: Number.MAX_SAFE_INTEGER }],
  ])("takes the limits themselves: %j", async (rule) => {
    expect((await agent.get("/_bexpr/faults", { method: "POST", body: JSON.stringify(rule) })).status).toBe(200);
  });

  it.each([
    [{ Method: "PUT", Path: "/nowhere", Status: 500, LatencyMs: 1 }],
    [{ method: "PUT", path: "/nowhere", status: 500, latencyMs: 1 }],
    [{ METHOD: "PUT", pAtH: "/nowhere", STATUS: 500, latencyms: 1 }],
  ])("reads the fields of a rule over HTTP in any case, as Go's encoding/json does: %j", async (rule) => {
    const added = await addOverHttp(rule);
    expect(added).toEqual({ Method: "PUT", Path: "/nowhere", Status: 500, LatencyMs: 1, ID: added.ID, Fired: 0, Spent: false });
  });
});
