/**
 * The lane of repeated list requests: a request answered before is answered again before the
 * router, from the pipeline's answer cache, with the very bytes and headers the router sent and
 * the same metrics; it never answers with what the pipeline would no longer answer: after a
 * write, an ACL change, a token's expiry, or when a blocking query must wait.
 */
import net from "node:net";
import { gzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { ServerResponse } from "node:http";
import { ASYNC_GZIP_BYTES } from "../../src/server/list/pipeline.js";
import { LIST_LANE_BYTES, startAgent, type Agent, type AgentOptions, type MetricsSummary } from "../../src/server/index.js";
import { eventually, job, ON_POSTGRES, send, startTestAgent, testStore } from "./support.js";

async function withAgent<T>(options: AgentOptions, test: (agent: Agent) => Promise<T>): Promise<T> {
  const agent = await startTestAgent({ port: 0, demo: false, logLevel: "silent", placementDelayMs: 60_000, ...options });
  try {
    return await test(agent);
  } finally {
    await agent.close();
  }
}

/** A request as raw bytes on its own connection: the status line, the headers (without Date) and the body. */
function raw(agent: Agent, path: string, headers: Record<string, string> = {}): Promise<{ head: string[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(agent.port, "127.0.0.1", () => {
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join("")}Connection: close\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const head = all.subarray(0, split).toString("latin1").split("\r\n").filter((line) => !/^date:/i.test(line));
      resolve({ head, body: all.subarray(split + 4) });
    });
  });
}

/** The bytes of a chunked body. */
function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf("\r\n", at);
    const size = parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** How many list answers came from each source, by endpoint. */
async function answers(agent: Agent, endpoint = "job"): Promise<Record<string, number>> {
  const document = JSON.parse((await send(`${agent.url}/v1/metrics`)).text) as MetricsSummary;
  const counts: Record<string, number> = { computed: 0, cache: 0, lane: 0 };
  for (const counter of document.Counters) {
    if (counter.Name === "svc.svc.list.answers" && counter.Labels.endpoint === endpoint) counts[counter.Labels.source!] = counter.Sum;
  }
  return counts;
}

const put = (agent: Agent, id: string, fields: Record<string, unknown> = {}, token?: string) =>
  send(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(id, fields) }), headers: token === undefined ? {} : { "x-svc-token": token } });

/** Waits until the scheduler's work for the jobs just registered (their evaluations) is written. */
async function settled(agent: Agent): Promise<void> {
  let index = "";
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    const now = String((await send(`${agent.url}/v1/jobs?prefix=%00`)).headers["x-svc-index"]);
    if (now === index) return;
    index = now;
  }
}

const ONE_INTERVAL = { intervalMs: 2 ** 40, retentionMs: 2 ** 40 };

// On both stores: agents sharing their state in PostgreSQL ask the lane after the consistency barrier (see the tests at the end).
describe("the lane of repeated list requests", () => {
  it.each([
    ["/v1/jobs", {}],
    ["/v1/jobs?per_page=1&pretty", {}],
    [`/v1/jobs?filter=${encodeURIComponent('ID == "b"')}`, {}],
    ["/v1/jobs", { "accept-encoding": "gzip" }],
    ["/v1/deployments", {}],
    ["/v1/namespaces", {}],
  ] as [string, Record<string, string>][])("answers %s %j again with the router's bytes and headers", async (path, headers) =>
    withAgent({ metrics: ONE_INTERVAL }, async (agent) => {
      for (const id of ["a", "b"]) expect((await put(agent, id)).status).toBe(200);
      await settled(agent);
      const endpoint = path.startsWith("/v1/jobs") ? "job" : path.startsWith("/v1/deployments") ? "deployment" : "namespace";
      const first = await raw(agent, path, headers);
      const before = await answers(agent, endpoint);
      const again = await raw(agent, path, headers);
      const after = await answers(agent, endpoint);
      expect(after.lane! - before.lane!).toBe(1);
      expect(after.computed! + after.cache!).toBe(before.computed! + before.cache!);
      expect(again.head).toEqual(first.head);
      expect(again.body.equals(first.body)).toBe(true);
    }),
  );

  it("hands Node a lane answer's headers as a flat list of names and values (its counted loop, not a for…in over an object)", async () =>
    withAgent({}, async (agent) => {
      const writeHead = vi.spyOn(ServerResponse.prototype, "writeHead");
      try {
        for (let i = 0; i < 2; i++) expect((await raw(agent, "/v1/jobs?per_page=7")).head[0]).toBe("HTTP/1.1 200 OK");
        const written = writeHead.mock.contexts.flatMap((response, i) => ((response as ServerResponse).req.url === "/v1/jobs?per_page=7" ? [writeHead.mock.calls[i]![1]] : []));
        expect(written).toHaveLength(2);
        for (const headers of written) expect(headers).toEqual(["vary", "Accept-Encoding", "x-svc-index", expect.any(String), "x-svc-knownleader", "true", "x-svc-lastcontact", "0", "content-type", "application/json", "content-length", expect.any(String)]);
        expect((await answers(agent)).lane).toBe(1);
      } finally {
        writeHead.mockRestore();
      }
    }));

  it("records the metrics the router would: the request, the list timer, the query", async () =>
    withAgent({ metrics: ONE_INTERVAL }, async (agent) => {
      await send(`${agent.url}/v1/jobs`);
      const read = async () => {
        const document = JSON.parse((await send(`${agent.url}/v1/metrics`)).text) as MetricsSummary;
        const find = (kind: "Counters" | "Samples", name: string, labels: Record<string, string> = {}) =>
          document[kind].find((item) => item.Name === name && Object.entries(labels).every(([key, value]) => item.Labels[key] === value))?.Count ?? 0;
        return [find("Counters", "svc.http.requests", { route: "/v1/jobs", code: "200" }), find("Samples", "svc.http.request", { route: "/v1/jobs" }), find("Samples", "svc.svc.job.list"), find("Counters", "svc.svc.rpc.query")];
      };
      const before = await read();
      for (let i = 0; i < 3; i++) await send(`${agent.url}/v1/jobs`);
      const after = await read();
      expect(after.map((count, i) => count - before[i]!)).toEqual([3, 3, 3, 3]);
      expect((await answers(agent)).lane).toBe(3);
    }),
  );

  it("answers with the new state after a write", async () =>
    withAgent({}, async (agent) => {
      await put(agent, "a");
      await settled(agent);
      const first = await send(`${agent.url}/v1/jobs`);
      await send(`${agent.url}/v1/jobs`);
      await put(agent, "b");
      const after = await send(`${agent.url}/v1/jobs`);
      expect(Number(after.headers["x-svc-index"])).toBeGreaterThan(Number(first.headers["x-svc-index"]));
      expect((JSON.parse(after.text) as { ID: string }[]).map((item) => item.ID)).toEqual(["a", "b"]);
    }),
  );

  it("lets a blocking query wait rather than answer from the lane", async () =>
    withAgent({}, async (agent) => {
      await put(agent, "a");
      await settled(agent);
      const first = await send(`${agent.url}/v1/jobs`);
      const index = first.headers["x-svc-index"];
      // The same blocking request, answered once by a write, then asked again at the same index.
      const path = `${agent.url}/v1/jobs?index=${index}&wait=200ms`;
      const timedOut = await send(path);
      expect(timedOut.headers["x-svc-index"]).toBe(index);
      const started = Date.now();
      const waiting = send(path);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(agent.blockingQueries).toBe(1);
      await waiting;
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    }),
  );

  it("refuses a token once it is deleted, stripped of its rights, or expired", async () => {
    const root = "0b7e3c2a-1d4f-4e5a-8b6c-9d0e1f2a3b4c";
    // The agent's own clock, driven by the test: a token expires when the test says, whatever the machine's load.
    await withAgent({ clock: "manual", acl: { enabled: true, bootstrapToken: root, tokenMinExpirationTTL: "1ms" } }, async (agent) => {
      const as = (token: string, path: string, method = "GET", body?: unknown) =>
        send(`${agent.url}${path}`, { method, headers: { "x-svc-token": token }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      await as(root, "/v1/acl/policy/readers", "PUT", { Name: "readers", Rules: 'namespace "default" { policy = "read" }' });
      const create = async (fields: Record<string, unknown>) => (await as(root, "/v1/acl/token", "PUT", { Type: "client", Policies: ["readers"], ...fields })).json<{ SecretID: string; AccessorID: string }>();
      const reader = await create({ Name: "reader" });
      const ttlMs = 60_000;
      const shortLived = await create({ Name: "short", ExpirationTTL: `${ttlMs}ms` });
      for (const token of [reader, shortLived]) {
        expect((await as(token.SecretID, "/v1/jobs")).status).toBe(200);
        expect((await as(token.SecretID, "/v1/jobs")).status).toBe(200);
      }
      // Still good a moment before it expires; expired once its time came: no write happened, only time passed.
      await agent.clock.advance(ttlMs - 1);
      expect((await as(shortLived.SecretID, "/v1/jobs")).status).toBe(200);
      await agent.clock.advance(1);
      expect((await as(shortLived.SecretID, "/v1/jobs")).status).toBe(403);
      // Stripped of its rights.
      await as(root, "/v1/acl/policy/readers", "PUT", { Name: "readers", Rules: 'namespace "other" { policy = "read" }' });
      expect((await as(reader.SecretID, "/v1/jobs")).status).toBe(403);
      // Deleted.
      const again = await create({ Name: "again" });
      await as(root, "/v1/acl/policy/readers", "PUT", { Name: "readers", Rules: 'namespace "default" { policy = "read" }' });
      expect((await as(again.SecretID, "/v1/jobs")).status).toBe(200);
      expect((await as(again.SecretID, "/v1/jobs")).status).toBe(200);
      await as(root, `/v1/acl/token/${again.AccessorID}`, "DELETE");
      expect((await as(again.SecretID, "/v1/jobs")).status).toBe(403);
    });
  });

  it("keeps requests of different tokens, encodings and URLs apart", async () =>
    withAgent({}, async (agent) => {
      await put(agent, "a");
      await put(agent, "b");
      await settled(agent);
      const paths = ["/v1/jobs", "/v1/jobs?per_page=1", "/v1/jobs?prefix=b", "/v1/jobs?reverse=true"];
      const first = await Promise.all(paths.map((path) => raw(agent, path)));
      const again = await Promise.all(paths.map((path) => raw(agent, path)));
      expect(again.map((response) => [response.head, response.body.toString()])).toEqual(first.map((response) => [response.head, response.body.toString()]));
      expect(new Set(first.map((response) => response.body.toString())).size).toBe(paths.length);
      const gzipped = await raw(agent, "/v1/jobs", { "accept-encoding": "gzip" });
      expect(gzipped.head).toContain("content-encoding: gzip");
      expect((await raw(agent, "/v1/jobs")).head).not.toContain("content-encoding: gzip");
    }),
  );

  it("gzips a large answer off the event loop, once for the clients asking meanwhile, then answers gzip from the lane", async () =>
    withAgent({ metrics: ONE_INTERVAL }, async (agent) => {
      for (let i = 0; i < 150; i++) await put(agent, `job-${String(i).padStart(3, "0")}`, { Meta: { padding: "x".repeat(200) } });
      await settled(agent);
      const plain = await raw(agent, "/v1/jobs");
      expect(plain.body.length).toBeGreaterThan(ASYNC_GZIP_BYTES);
      const gzipped = await Promise.all(Array.from({ length: 5 }, () => raw(agent, "/v1/jobs?meta=true", { "accept-encoding": "gzip" })));
      const identity = await raw(agent, "/v1/jobs?meta=true");
      for (const response of gzipped) {
        expect(response.head).toContain("content-encoding: gzip");
        expect(dechunk(response.body).equals(gzipSync(identity.body))).toBe(true);
      }
      const before = await answers(agent);
      const again = await raw(agent, "/v1/jobs?meta=true", { "accept-encoding": "gzip" });
      expect((await answers(agent)).lane! - before.lane!).toBe(1);
      expect(dechunk(again.body).equals(dechunk(gzipped[0]!.body))).toBe(true);
    }),
  );

  it(`forgets the least recently used requests beyond ${LIST_LANE_BYTES} bytes of keys, which the router then answers`, async () =>
    withAgent({ metrics: ONE_INTERVAL }, async (agent) => {
      // Each request's key holds its URL and its part of the answer cache's key: about 20 KB here.
      const path = (i: number) => `/v1/jobs?prefix=${String(i).padStart(5, "0")}${"x".repeat(5_000)}`;
      const count = Math.ceil(LIST_LANE_BYTES / 20_000) + 20;
      for (let i = 0; i < count; i++) expect((await send(`${agent.url}${path(i)}`)).status).toBe(200);
      const before = await answers(agent);
      await send(`${agent.url}${path(count - 1)}`);
      const recent = await answers(agent);
      expect(recent.lane! - before.lane!).toBe(1);
      await send(`${agent.url}${path(0)}`);
      const oldest = await answers(agent);
      expect(oldest.lane).toBe(recent.lane);
      expect(oldest.cache! + oldest.computed!).toBe(recent.cache! + recent.computed! + 1);
    }),
  );
});

describe.runIf(ON_POSTGRES)("agents that share their state", () => {
  it("answer a repeated consistent list request from the lane, once their copy caught up, with the router's bytes and headers", async () =>
    withAgent({}, async (agent) => {
      await put(agent, "a");
      await settled(agent);
      // A pair of requests with no write between them (the scheduler's last writes may still come on a
      // loaded machine, and a summary's write moves the list's index without changing its bytes).
      const indexOf = (head: readonly string[]) => head.find((line) => line.startsWith("x-svc-index:"));
      const { routed, before, again } = await eventually(async () => {
        const pair = { routed: await raw(agent, "/v1/jobs"), before: await answers(agent), again: await raw(agent, "/v1/jobs") };
        return pair.again.body.equals(pair.routed.body) && indexOf(pair.again.head) === indexOf(pair.routed.head) ? pair : undefined;
      });
      expect(again.head).toEqual(routed.head);
      expect(again.body.equals(routed.body)).toBe(true);
      expect(again.head).toContain("x-svc-lastcontact: 0");
      const after = await answers(agent);
      expect(after.lane).toBe(before.lane! + 1);
      expect(after.cache! + after.computed!).toBe(before.cache! + before.computed!);
    }));

  it.each([
    ["a ?stale read (its LastContact is the copy's age)", "/v1/jobs?stale"],
    ["a ?stale= read", "/v1/jobs?stale="],
  ])("answer %s through the router, never from the lane", async (_name, path) =>
    withAgent({}, async (agent) => {
      await put(agent, "a");
      for (let i = 0; i < 3; i++) expect((await send(`${agent.url}${path}`)).status).toBe(200);
      expect((await answers(agent)).lane).toBe(0);
    }));

  it("answer from the lane what another agent wrote before the request came (the copy catches up first)", async () => {
    const { store, drop } = await testStore();
    const agents: Agent[] = [];
    try {
      for (const name of ["reader", "writer"]) agents.push(await startAgent({ port: 0, demo: false, logLevel: "silent", placementDelayMs: 60_000, store, nodeName: name }));
      const [reader, writer] = agents as [Agent, Agent];
      await put(reader, "first");
      await settled(reader);
      const ids = async () => (await send(`${reader.url}/v1/jobs`)).json<{ ID: string }[]>().map((item) => item.ID);
      // Remembered by the lane, then answered from it (once the scheduler's writes for the job are done).
      await eventually(async () => (expect(await ids()).toEqual(["first"]), (await answers(reader)).lane! > 0 ? true : undefined));
      expect((await put(writer, "second")).status).toBe(200);
      // At once, whether or not the writer's notification has come: the barrier reads the database's index.
      expect(await ids()).toEqual(["first", "second"]);
      await eventually(async () => (expect(await ids()).toEqual(["first", "second"]), (await answers(reader)).lane! > 1 ? true : undefined));
    } finally {
      await Promise.all(agents.map((agent) => agent.close()));
      await drop();
    }
  });
});
