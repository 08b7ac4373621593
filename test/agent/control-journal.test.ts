/**
 * The request journal: every request the agent served, queryable with a bexpr filter, secrets
 * redacted, bounded by entries and bytes.
 */
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { Journal, keptHeaders, keptHeadersBytes, sameHeaders } from "../../src/server/control/journal.js";
import { FilterEvaluationError, FilterSyntaxError } from "../../src/errors.js";
import { JOURNAL_DROPPED_HEADER } from "../../src/server/index.js";
import { JOURNAL_BYTES, JOURNAL_ENTRY_OVERHEAD_BYTES, journalEntryBytes, MAX_JOURNAL_ENTRIES, REDACTED, type JournalEntry } from "../../src/server/index.js";
import { job, settled, useAgent, type TestAgent } from "./support.js";

const agent = useAgent({ namespaces: [{ Name: "prod" }] });

/** The journal over HTTP. */
async function journal(target: TestAgent, filter?: string): Promise<JournalEntry[]> {
  const response = await target.get(`/_bexpr/requests${filter === undefined ? "" : `?filter=${encodeURIComponent(filter)}`}`);
  expect(response.status, response.text).toBe(200);
  return response.json();
}

/** Sends `count` requests to distinct unknown paths, `batch` at a time (`?stale`: no consistency barrier on PostgreSQL). */
async function flood(target: TestAgent, count: number, from = 0, headers: Record<string, string> = {}, batch = 32): Promise<void> {
  for (let start = 0; start < count; start += batch) {
    const requests = [];
    for (let i = start; i < Math.min(count, start + batch); i++) requests.push(target.get(`/nowhere/${from + i}?stale`, { headers }));
    for (const response of await Promise.all(requests)) expect(response.status).toBe(404);
  }
}

describe("the request journal", () => {
  it("keeps one copy of the headers of a page polled again and again (the lane answers it), as each entry's Headers", async () => {
    await agent.get("/v1/jobs?per_page=1");
    agent.agent.clearRequests();
    for (let i = 0; i < 3; i++) expect((await agent.get("/v1/jobs?per_page=1")).status).toBe(200);
    const entries = agent.agent.requests("Path == `/v1/jobs`");
    expect(entries.map((entry) => entry.RawQuery)).toEqual(["per_page=1", "per_page=1", "per_page=1"]);
    expect(entries.map((entry) => entry.Headers === entries[0]!.Headers)).toEqual([true, true, true]);
    expect(entries[0]!.Headers["host"]).toBe(new URL(agent.agent.url).host);
  });

  it("records every request with its method, path, query, headers, status, time and index", async () => {
    agent.agent.clearRequests();
    const before = Date.now();
    const registered = await agent.put("/v1/jobs?namespace=prod&namespace=other&pretty", { Job: job("journal-web") });
    const after = Date.now();
    expect(registered.status).toBe(200);
    const [entry, ...rest] = agent.agent.requests();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      Method: "PUT",
      Path: "/v1/jobs",
      Query: { namespace: "prod", pretty: "" },
      RawQuery: "namespace=prod&namespace=other&pretty",
      Status: 200,
      Index: Number(registered.headers["x-svc-index"]),
      Fault: "",
    });
    expect(Object.keys(entry!)).toEqual(["Method", "Path", "Query", "RawQuery", "Headers", "Time", "Status", "DurationMs", "Index", "Fault"]);
    expect(entry!.Headers["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify({ Job: job("journal-web") }))));
    expect(entry!.Time).toBeGreaterThanOrEqual(before);
    expect(entry!.Time).toBeLessThanOrEqual(after);
    expect(entry!.DurationMs).toBeGreaterThanOrEqual(0);
  });

  it("is queried with a bexpr filter, programmatically and over HTTP", async () => {
    agent.agent.clearRequests();
    expect((await agent.put("/v1/jobs", "{")).status).toBe(400);
    expect((await agent.put("/v1/jobs", { Job: { ID: "no groups" } })).status).toBe(400);
    expect((await agent.put("/v1/jobs", { Job: job("journal-ok") })).status).toBe(200);
    expect((await agent.get("/v1/jobs")).status).toBe(200);

    const failed = agent.agent.requests('Method == "PUT" and Status == 400');
    expect(failed.map((entry) => entry.Headers["content-length"])).toEqual(["1", String(JSON.stringify({ Job: { ID: "no groups" } }).length)]);
    expect(await journal(agent, 'Method == "PUT" and Status == 400')).toEqual(JSON.parse(JSON.stringify(failed)));
    expect(agent.agent.requests("Path == `/v1/jobs` and Method == GET")).toHaveLength(1);
    expect(agent.agent.requests()).toHaveLength(4);
  });

  it("leaves the control routes out", async () => {
    agent.agent.clearRequests();
    await journal(agent);
    await agent.get("/_bexpr/faults");
    await agent.get("/v1/namespaces");
    expect((await journal(agent)).map((entry) => entry.Path)).toEqual(["/v1/namespaces"]);
  });

  it("leaves them out by the route a request reaches, however its path is spelled", async () => {
    agent.agent.clearRequests();
    expect((await agent.get("/%5Fbexpr/requests")).status).toBe(200);
    expect((await agent.get("/_bexpr/%66aults")).status).toBe(200);
    expect((await agent.get("/_bexpr/explain?list=jobs")).status).toBe(400);
    expect(agent.agent.requests().map((entry) => entry.Path)).toEqual(["/_bexpr/explain"]);
  });

  it("records the repeated list requests the lane answers before the router, with their index", async () => {
    await settled(agent.url);
    // A pair that a late write of the scheduler parts (the second answer then a new one) is asked again.
    let first: Awaited<ReturnType<typeof agent.get>>;
    let second: Awaited<ReturnType<typeof agent.get>>;
    for (let attempt = 1; ; attempt++) {
      agent.agent.clearRequests();
      first = await agent.get("/v1/jobs?namespace=*");
      second = await agent.get("/v1/jobs?namespace=*");
      if (second.text === first.text || attempt === 20) break;
    }
    expect(second.text).toBe(first.text);
    const entries = agent.agent.requests();
    expect(entries.map((entry) => [entry.Path, entry.Status, entry.Index])).toEqual([
      ["/v1/jobs", 200, Number(first.headers["x-svc-index"])],
      ["/v1/jobs", 200, Number(second.headers["x-svc-index"])],
    ]);
  });

  it("records a request whose client left before the answer with status 0", async () => {
    await settled(agent.url);
    agent.agent.clearRequests();
    // The namespaces: no write of the scheduler wakes the parked query before its client leaves.
    const index = (await agent.get("/v1/namespaces?stale")).headers["x-svc-index"];
    const controller = new AbortController();
    const parked = agent.get(`/v1/namespaces?stale&index=${index}&wait=30s`, { signal: controller.signal }).catch((error: unknown) => error);
    while (agent.agent.blockingQueries === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await parked;
    const deadline = Date.now() + 5000;
    while (agent.agent.requests(`"index" in Query`).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(agent.agent.requests(`"index" in Query`).map((entry) => entry.Status)).toEqual([0]);
  });

  it("never keeps the secrets of tokens and cookies", async () => {
    agent.agent.clearRequests();
    const secret = "0f8ec3e2-8a4e-4a0c-9a55-5ee1ef5ec4e7";
    await agent.get("/v1/jobs", { headers: { "x-svc-token": secret } });
    await agent.get("/v1/jobs", { headers: { authorization: `Bearer ${secret}`, cookie: `session=${secret}`, "proxy-authorization": `Basic ${secret}` } });
    const entries = agent.agent.requests();
    expect(entries[0]!.Headers["x-svc-token"]).toBe(REDACTED);
    expect(entries[1]!.Headers).toMatchObject({ authorization: REDACTED, cookie: REDACTED, "proxy-authorization": REDACTED });
    const response = await agent.get("/_bexpr/requests");
    expect(response.text).not.toContain(secret);
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect(REDACTED).toBe("[redacted]");
  });

  it("answers 400 with the filter's own error for a filter that is not valid", async () => {
    const response = await agent.get(`/_bexpr/requests?filter=${encodeURIComponent("Method ==")}`);
    expect(response.status).toBe(400);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.text).toMatch(/^failed to read filter expression: 1:\d+: .*\n {4}Method ==\n/);
    expect(() => agent.agent.requests("Method ==")).toThrow(FilterSyntaxError);
  });

  it("answers 400 when the filter cannot be evaluated on an entry", async () => {
    await agent.get("/v1/jobs");
    const response = await agent.get(`/_bexpr/requests?filter=${encodeURIComponent('Headers == "x"')}`);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/^failed to evaluate filter: /);
    expect(() => agent.agent.requests('Headers == "x"')).toThrow(FilterEvaluationError);
  });

  it("is emptied by DELETE /_bexpr/requests", async () => {
    await agent.get("/v1/jobs");
    expect((await agent.get("/_bexpr/requests", { method: "DELETE" })).status).toBe(200);
    expect(agent.agent.requests()).toEqual([]);
  });
});

describe("the journal's bounds", () => {
  it(`keeps the last ${MAX_JOURNAL_ENTRIES} entries, dropping the oldest and counting them`, async () => {
    agent.agent.clearRequests();
    await flood(agent, MAX_JOURNAL_ENTRIES);
    expect(agent.agent.requests()).toHaveLength(MAX_JOURNAL_ENTRIES);
    expect(agent.agent.droppedRequests).toBe(0);

    await flood(agent, 1, MAX_JOURNAL_ENTRIES);
    const entries = agent.agent.requests();
    expect(entries).toHaveLength(MAX_JOURNAL_ENTRIES);
    expect(agent.agent.droppedRequests).toBe(1);
    expect(entries[0]!.Path).toBe("/nowhere/1");
    expect(entries.at(-1)!.Path).toBe(`/nowhere/${MAX_JOURNAL_ENTRIES}`);
    const response = await agent.get(`/_bexpr/requests?filter=${encodeURIComponent('Path == "\\x2fnowhere/0"')}`);
    expect(response.json()).toEqual([]);
    expect(response.headers[JOURNAL_DROPPED_HEADER.toLowerCase()]).toBe("1");

    agent.agent.clearRequests();
    expect(agent.agent.droppedRequests).toBe(0);
  }, 120_000);

  it(`keeps at most ${JOURNAL_BYTES} bytes of entries`, async () => {
    agent.agent.clearRequests();
    // Requests of about 1 MB each (a header's value; a request's headers may take 1 MiB).
    const pad = { "x-pad": "p".repeat(1_000_000) };
    await flood(agent, 1, 0, pad);
    const [one] = agent.agent.requests();
    const weight = journalEntryBytes(one!);
    expect(weight).toBeGreaterThan(1_000_000 + JOURNAL_ENTRY_OVERHEAD_BYTES);
    const fits = Math.floor(JOURNAL_BYTES / weight);
    await flood(agent, fits - 1, 1, pad, 4);
    expect(agent.agent.requests()).toHaveLength(fits);
    expect(agent.agent.droppedRequests).toBe(0);

    await flood(agent, 1, fits, pad);
    const kept = agent.agent.requests();
    const total = kept.reduce((sum, entry) => sum + journalEntryBytes(entry), 0);
    expect(total).toBeLessThanOrEqual(JOURNAL_BYTES);
    expect(total + weight).toBeGreaterThan(JOURNAL_BYTES);
    expect(agent.agent.droppedRequests).toBe(1);
    // The oldest went: the first request, recorded alone (the others were four at a time, recorded as they finished).
    expect(kept.map((entry) => entry.Path)).not.toContain("/nowhere/0");
    expect(new Set(kept.map((entry) => entry.Path))).toEqual(new Set(Array.from({ length: fits }, (_, n) => `/nowhere/${n + 1}`)));
    agent.agent.clearRequests();
  }, 60_000);
});

describe("the journal's time", () => {
  const manual = useAgent({ clock: "manual" });

  it("is the agent's clock", async () => {
    await manual.agent.clock.advance("1h");
    await manual.get("/v1/jobs");
    const [entry] = manual.agent.requests();
    expect(entry!.Time).toBe(manual.agent.clock.now().getTime());
    expect(Math.abs(entry!.Time - Date.now() - 3_600_000)).toBeLessThan(60_000);
  });
});

describe("the journal's observation of one request (issue 39: its cost per request)", () => {
  /** A request and a response as the journal sees them (Node's, without a socket). */
  function exchange(headers: Record<string, string | string[]>, url = "/v1/jobs?per_page=100") {
    const request = Object.assign(new EventEmitter(), { method: "GET", url, headers }) as unknown as IncomingMessage;
    const response = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true, getHeader: () => undefined }) as unknown as ServerResponse;
    return { request, response };
  }
  const journalOf = () => new Journal({ now: () => 1_000, filterCostPerQuery: 1_000_000, indexHeader: "x-svc-index" });

  it("listens for close with one listener of its own, not a once wrapper (two objects fewer a request)", () => {
    const { request, response } = exchange({ host: "localhost" });
    journalOf().observe(request, response);
    const listeners = response.rawListeners("close");
    expect(listeners).toHaveLength(1);
    // `once` registers a wrapper that holds the listener as `.listener`.
    expect((listeners[0] as { listener?: unknown }).listener).toBeUndefined();
  });

  it("records a request once when its response closes twice (a client that left)", () => {
    const journal = journalOf();
    const { request, response } = exchange({ host: "localhost" });
    journal.observe(request, response);
    response.emit("close");
    response.emit("close");
    expect(journal.query().map((entry) => [entry.Path, entry.Status])).toEqual([["/v1/jobs", 200]]);
  });

  it("takes the index of a lane answer from its observation, with no header to read", () => {
    const journal = journalOf();
    const { request, response } = exchange({ host: "localhost" });
    journal.observe(request, response).answered(4_242);
    response.emit("close");
    expect(journal.query()[0]!.Index).toBe(4_242);
  });

  it("keeps one copy of the headers of requests like the one before (a client polling a page), and a copy of its own for a request unlike it", () => {
    const journal = journalOf();
    // Equal headers in objects of their own, as Node makes them for each request.
    const sent = [{ host: "h", "x-svc-token": "t" }, { host: "h", "x-svc-token": "t" }, { host: "h", "x-svc-token": "u" }, { host: "h", "x-svc-token": "u" }];
    for (const headers of sent) {
      const { request, response } = exchange(headers);
      journal.observe(request, response);
      response.emit("close");
    }
    const kept = journal.query().map((entry) => entry.Headers);
    expect(kept.map((headers) => kept.indexOf(headers))).toEqual([0, 0, 2, 2]);
    // Redacted alike: the token that differs is a secret.
    expect(kept[0]).toEqual(kept[2]);
    expect(journal.bytes).toBe(4 * journalEntryBytes(journal.query()[0]!));
  });

  it.each([
    ["the same names and values", { a: "1", b: "2" }, { a: "1", b: "2" }, true],
    ["no headers", {}, {}, true],
    ["the same repeated values", { a: ["1", "2"] }, { a: ["1", "2"] }, true],
    ["another value", { a: "1", b: "2" }, { a: "1", b: "3" }, false],
    ["a header more", { a: "1" }, { a: "1", b: "2" }, false],
    ["a header fewer", { a: "1", b: "2" }, { a: "1" }, false],
    ["another name", { a: "1" }, { b: "1" }, false],
    ["other repeated values", { a: ["1", "2"] }, { a: ["1", "3"] }, false],
    ["a repeated value against one", { a: ["1"] }, { a: "1" }, false],
  ] as [string, Record<string, string | string[]>, Record<string, string | string[]>, boolean][])("tells whether headers with %s are the same", (_name, a, b, same) => {
    expect([sameHeaders(a, b), sameHeaders(b, a)]).toEqual([same, same]);
  });

  it.each(["/v1/jobs", "/v1/jobs?", "/v1/jobs?prefix=a&per_page=3", "/v1/jobs?a=1?b=2", "/"])("weighs the target %s as its entry's Path and RawQuery, without cutting it", (url) => {
    const journal = journalOf();
    const { request, response } = exchange({ host: "h" }, url);
    journal.observe(request, response);
    response.emit("close");
    const [entry] = journal.query();
    expect(entry!.Path + (url.includes("?") ? "?" : "") + entry!.RawQuery).toBe(url);
    expect(journal.bytes).toBe(journalEntryBytes(entry!));
  });

  it.each([
    ["a plain header", { host: "localhost:4646" }],
    ["a secret header", { host: "h", "x-svc-token": "secret-secret", authorization: "Bearer x", cookie: "a=b" }],
    ["a repeated header", { host: "h", "x-many": ["one", "two", "three"] }],
    ["no header", {}],
  ])("weighs %s as the copy it makes when read, which it makes only then", (_name, headers) => {
    const journal = journalOf();
    const { request, response } = exchange(headers, "/v1/jobs?prefix=a&per_page=3");
    journal.observe(request, response);
    response.emit("close");
    const [entry] = journal.query();
    expect(keptHeadersBytes(headers)).toBe(Object.entries(keptHeaders(headers)).reduce((sum, [name, value]) => sum + name.length + value.length, 0));
    expect(journal.bytes).toBe(journalEntryBytes(entry!));
    expect(entry!.Headers).toEqual(keptHeaders(headers));
    for (const secret of ["x-svc-token", "authorization", "cookie"]) if (secret in headers) expect(entry!.Headers[secret]).toBe(REDACTED);
  });
});
