/**
 * Lists answer from the JSON of their items, written once per version of each row: the bytes
 * must be those of a fresh serialization (int64 included, compact and pretty alike), and a write
 * must change exactly the items it changes.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "../../src/json.js";
import { Cluster } from "../../src/server/scheduler/cluster.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import { namespacedKey } from "../../src/server/state/store.js";
import { RESPONSE_CACHE_BYTES, startAgent } from "../../src/server/index.js";
import { jobsEndpoint } from "../../src/server/list/endpoints.js";
import { decodeRegisterRequest } from "../../src/server/scheduler/job-spec.js";
import { job, send, useAgent, startTestAgent, settled } from "./support.js";

const agent = useAgent({ placementDelayMs: 60_000 });

/** The items of a list body, each as the JSON text it was sent as (a fresh serialization of it). */
function items(text: string): string[] {
  return (parseJson(text) as unknown[]).map((item) => stringifyJson(item));
}

describe("a list answered from cached item JSON", () => {
  it("sends the bytes a fresh serialization gives, compact and pretty, int64 exact", async () => {
    for (const id of ["a", "b", "c"]) await agent.register(job(id, { Meta: { owner: id } }));
    await settled(agent.url);
    for (const query of ["", "?meta=true", "?per_page=2", "?filter=" + encodeURIComponent('Meta.owner == "b"')]) {
      const first = await agent.get(`/v1/jobs${query}`);
      const again = await agent.get(`/v1/jobs${query}`);
      expect(again.text).toBe(first.text);
      expect(first.text).toBe(stringifyJson(parseJson(first.text)));
      const pretty = await agent.get(`/v1/jobs${query}${query === "" ? "?" : "&"}pretty=true`);
      expect(pretty.text).toBe(stringifyJson(parseJson(first.text), true));
      // SubmitTime is beyond 2^53: it came back as a bigint, exact.
      expect(typeof (parseJson(first.text) as { SubmitTime: unknown }[])[0]!.SubmitTime).toBe("bigint");
    }
  });

  it("changes exactly the items a write changes", async () => {
    const before = items((await agent.get("/v1/jobs?meta=true")).text);
    await agent.register(job("b", { Meta: { owner: "someone else" } }));
    await settled(agent.url);
    const after = items((await agent.get("/v1/jobs?meta=true")).text);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after[1]).toContain('"owner":"someone else"');
    expect(after[2]).toBe(before[2]);
  });

  it("lists a namespace's jobs, found by range, as a scan would", async () => {
    const response = await agent.get("/v1/jobs?namespace=default&prefix=b");
    expect((parseJson(response.text) as { ID: string }[]).map((item) => item.ID)).toEqual(["b"]);
    expect((parseJson((await agent.get("/v1/jobs?prefix=")).text) as { ID: string }[]).map((item) => item.ID)).toEqual(["a", "b", "c"]);
  });

  it("follows a change of a job's summary alone (the job row unchanged)", async () => {
    const store = new MemoryStore();
    const cluster = new Cluster(store, { region: "global", placementDelayMs: 60_000 });
    await cluster.seed();
    const registration = decodeRegisterRequest(JSON.stringify({ Job: job("web") }));
    await cluster.register(registration, "default", "global");
    const key = namespacedKey("default", "web");
    const stored = store.tables.jobs.get(key)!;
    const before = jobsEndpoint.itemJson(stored, store, { meta: false });
    await store.write(["job_summary"], (state) => {
      const summary = state.job_summary.get(key)!;
      state.job_summary.put({ ...summary, Summary: { g: { ...summary.Summary["g"]!, Running: 7 } }, ModifyIndex: state.index });
    }, "JobRegister");
    expect(store.tables.jobs.get(key)).toBe(stored);
    const after = jobsEndpoint.itemJson(stored, store, { meta: false });
    expect(after).not.toBe(before);
    expect(after).toContain('"Running":7');
    expect(after).toBe(stringifyJson(jobsEndpoint.item(stored, store, { meta: false })));
    expect(jobsEndpoint.filterTarget(stored, store)).toMatchObject({ JobSummary: { Summary: { g: { Running: 7 } } } });
    cluster.close();
  });

  it("answers the blocking queries one write wakes from one computation, with the same bytes", async () => {
    const shared = await startTestAgent({ port: 0, demo: false, logLevel: "silent", placementDelayMs: 60_000, metrics: { intervalMs: 2 ** 40, retentionMs: 2 ** 40 } });
    try {
      const put = (id: string) => send(`${shared.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(id) }) });
      for (const id of ["x1", "x2"]) expect((await put(id)).status).toBe(200);
      await settled(shared.url);
      // A filter the job written below matches; that job is periodic, so the scheduler makes no write
      // of its own after it (which would wake the queries at another index).
      const filter = encodeURIComponent('ParentID == ""');
      const computed = async () =>
        (await send(`${shared.url}/v1/metrics`))
          .json<{ Counters: { Name: string; Labels: Record<string, string>; Sum: number }[] }>()
          .Counters.find((counter) => counter.Name === "svc.svc.list.answers" && counter.Labels["source"] === "computed" && counter.Labels["endpoint"] === "job")?.Sum ?? 0;
      const first = await send(`${shared.url}/v1/jobs?filter=${filter}`);
      const computedBefore = await computed();
      const index = first.headers["x-svc-index"];
      const waiting = Array.from({ length: 5 }, () => send(`${shared.url}/v1/jobs?filter=${filter}&index=${index}&wait=30s`));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await send(`${shared.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("x3", { Type: "batch", Periodic: { Spec: "0 * * * *" } }) }) })).status).toBe(200);
      const answers = await Promise.all(waiting);
      expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
      expect(answers[0]!.text).toContain('"ID":"x3"');
      const document = (await send(`${shared.url}/v1/metrics`)).json<{ Counters: { Name: string; Labels: Record<string, string>; Sum: number; Count: number }[] }>();
      const evaluations = document.Counters.find((counter) => counter.Name === "svc.svc.filter.evaluations" && counter.Labels["endpoint"] === "job");
      // The first request's run, then one run for all five (however many times the write woke them):
      // 2 jobs, then 3, not 2 + 5 × 3.
      expect(evaluations?.Sum).toBeLessThanOrEqual(2 + 3 * 2);
      // Computed once after the write, not once per waiting query: on PostgreSQL, the queries woken
      // together share the database's one computation.
      expect((await computed()) - computedBefore).toBe(1);
    } finally {
      await shared.close();
    }
  });

  it.each([
    [-1, "invalid value for limits.responseCacheBytes: -1; expected a non-negative whole number"],
    [1.5, "invalid value for limits.responseCacheBytes: 1.5"],
  ])("refuses limits.responseCacheBytes %j", async (value, message) => {
    await expect(startTestAgent({ port: 0, logLevel: "silent", limits: { responseCacheBytes: value } })).rejects.toThrow(message);
  });

  it(`answers the same with the cache off (0), and defaults to ${RESPONSE_CACHE_BYTES} bytes`, async () => {
    // The demo's allocations would start running between two reads (at half the placement delay):
    // a long delay keeps the state still once the scheduler has placed what it places at once.
    const off = await startTestAgent({ port: 0, demo: true, logLevel: "silent", placementDelayMs: 600_000, limits: { responseCacheBytes: 0 } });
    const on = await startTestAgent({ port: 0, demo: true, logLevel: "silent", placementDelayMs: 600_000 });
    try {
      expect(on.options.limits.responseCacheBytes).toBe(RESPONSE_CACHE_BYTES);
      await Promise.all([settled(off.url), settled(on.url)]);
      const ids = (text: string) => (parseJson(text) as { ID: string }[]).map((item) => item.ID);
      const [a, b] = await Promise.all([send(`${off.url}/v1/jobs?namespace=*`), send(`${on.url}/v1/jobs?namespace=*`)]);
      expect(ids(a.text)).toEqual(ids(b.text));
      expect((await send(`${off.url}/v1/jobs?namespace=*`)).text).toBe(a.text);
    } finally {
      await Promise.all([off.close(), on.close()]);
    }
  });

  it("sends a cached answer's gzip as the compression plugin would: the same bytes, streamed", async () => {
    const plain = await agent.get("/v1/jobs?meta=true");
    for (let i = 0; i < 2; i++) {
      const gzipped = await agent.get("/v1/jobs?meta=true", { headers: { "accept-encoding": "gzip" } });
      expect(gzipped.headers["content-encoding"]).toBe("gzip");
      expect(gzipped.headers["content-length"]).toBeUndefined();
      expect(gzipped.headers["vary"]).toMatch(/accept-encoding/i);
      expect(gzipped.raw.equals(gzipSync(plain.raw))).toBe(true);
    }
    // Weighted or several encodings: the plugin negotiates, as before.
    const negotiated = await agent.get("/v1/jobs?meta=true", { headers: { "accept-encoding": "deflate;q=1, gzip;q=0.5" } });
    expect(negotiated.text).toBe(plain.text);
  });
});
