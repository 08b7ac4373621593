/**
 * Blocking queries whose clients go away (issue 10, the leak half of finding 6): 10,000 blocking
 * reads parked with a five-minute wait, then aborted by their clients in batches. Each one holds a
 * socket, a timer and a waiter in the state store while it waits; all of it must be released when
 * the client leaves, not when the five minutes are over.
 *
 * The agent runs in this process (startAgent), so its handles can be counted directly with
 * `process.getActiveResourcesInfo()` (the same count as the `svc.runtime.active_handles` gauge).
 * Client and server sockets are both counted here; after the run both sides must be back to the
 * baseline, within a small slack for keep-alive connections.
 */
import { Agent as UndiciAgent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgent, type Agent } from "../../src/server/index.js";
import { call, job, mib, printTable, since, until, within } from "./support.js";

const TOTAL = 10_000;
const BATCH = 500;
/** Extra handles tolerated after the run (keep-alive sockets, the metrics timer's own work). */
const SLACK = 5;

/** Handles and requests keeping the event loop alive, by type. */
function resources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

const gc = (globalThis as { gc?: () => void }).gc;

describe(`${TOTAL} blocking queries aborted by their clients`, () => {
  let agent: Agent;
  let index = 0;
  const snapshots: Record<string, unknown>[] = [];

  /** Counts now, under `label`, for the table. */
  async function snapshot(label: string): Promise<{ timeouts: number; sockets: number }> {
    gc?.();
    const counts = resources();
    const row = {
      moment: label,
      "blocking queries": agent.blockingQueries,
      Timeout: counts.Timeout ?? 0,
      TCPSocketWrap: counts.TCPSocketWrap ?? 0,
      "all resources": Object.values(counts).reduce((a, b) => a + b, 0),
      RSS: mib(process.memoryUsage().rss),
      "heap used": mib(process.memoryUsage().heapUsed),
    };
    snapshots.push(row);
    return { timeouts: row.Timeout, sockets: row.TCPSocketWrap };
  }

  beforeAll(async () => {
    // One metrics interval for the whole run: the document then holds every wake since the start.
    // A placement delay longer than the run: no deployment finishing in the middle moves the index.
    agent = await startAgent({ port: 0, demo: false, logLevel: "silent", placementDelayMs: 30 * 60_000, metrics: { intervalMs: 2 ** 40, retentionMs: 2 ** 40 } });
    const registered = await call(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("watched") }) });
    expect(registered.status).toBe(200);
    index = Number((await call(`${agent.url}/v1/jobs`)).headers["x-svc-index"]);
    expect(index).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await agent?.close();
    printTable(`aborted blocking queries: ${TOTAL} in batches of ${BATCH} (agent in-process)`, snapshots);
  });

  it("releases every waiter, timer and socket when the clients abort, batch after batch", async () => {
    // Let the first requests' keep-alive sockets close, so the baseline is the idle agent.
    await until(() => (resources().TCPSocketWrap ?? 0) <= 1, 10_000, 100);
    const baseline = await snapshot("before");
    const dispatcher = new UndiciAgent({ connections: BATCH + 10, pipelining: 1 });
    const started = performance.now();
    let answered = 0;
    let aborted = 0;
    let peak: { timeouts: number; sockets: number } | undefined;
    const batchTimes: number[] = [];

    for (let opened = 0; opened < TOTAL; opened += BATCH) {
      const batchStarted = performance.now();
      // The current index: each query waits for a change after it.
      index = Number((await call(`${agent.url}/v1/jobs`)).headers["x-svc-index"]);
      const controllers = Array.from({ length: BATCH }, () => new AbortController());
      const replies = controllers.map((controller) =>
        call(`${agent.url}/v1/jobs?index=${index}&wait=5m`, { dispatcher, signal: controller.signal, timeoutMs: 600_000 }).then(
          () => void answered++,
          (error: Error) => void (error.name === "AbortError" ? aborted++ : answered++),
        ),
      );
      const parked = await until(() => agent.blockingQueries >= BATCH, 60_000, 5);
      expect(parked, `only ${agent.blockingQueries} of ${BATCH} queries were parked`).toBe(true);
      if (opened === 0 || opened + BATCH >= TOTAL) peak = await snapshot(`${opened + BATCH} opened, ${BATCH} waiting`);
      for (const controller of controllers) controller.abort();
      await within(Promise.all(replies), 60_000, "the aborted requests");
      const released = await until(() => agent.blockingQueries === 0, 60_000, 5);
      expect(released, `${agent.blockingQueries} queries still waiting after their clients left`).toBe(true);
      batchTimes.push(since(batchStarted));
    }

    expect(answered, "a query was answered although its client left").toBe(0);
    expect(aborted).toBe(TOTAL);
    await dispatcher.close();
    // Closed sockets leave the list once their close callbacks have run.
    await until(() => (resources().TCPSocketWrap ?? 0) <= baseline.sockets + SLACK && (resources().Timeout ?? 0) <= baseline.timeouts + SLACK, 30_000, 100);
    const after = await snapshot(`after all ${TOTAL} aborted`);
    console.log(`${TOTAL} blocking queries parked and aborted in ${(since(started) / 1000).toFixed(1)} s; per batch of ${BATCH}: ${Math.min(...batchTimes)}–${Math.max(...batchTimes)} ms`);
    expect(peak?.timeouts ?? 0).toBeGreaterThanOrEqual(BATCH);
    expect(after.sockets).toBeLessThanOrEqual(baseline.sockets + SLACK);
    expect(after.timeouts).toBeLessThanOrEqual(baseline.timeouts + SLACK);
  });

  it("counts every one of them as woken by a disconnect in the metrics", async () => {
    const document = JSON.parse((await call(`${agent.url}/v1/metrics`)).text) as { Counters: { Name: string; Sum: number; Labels: Record<string, string> }[] };
    const woken = document.Counters.filter((counter) => counter.Name === "svc.svc.blocking.woken");
    const byReason = Object.fromEntries(woken.map((counter) => [counter.Labels.reason, counter.Sum]));
    console.log(`svc.svc.blocking.woken by reason: ${JSON.stringify(byReason)}`);
    expect(byReason.disconnect).toBe(TOTAL);
  });

  it("still answers a blocking query after all that", async () => {
    index = Number((await call(`${agent.url}/v1/jobs`)).headers["x-svc-index"]);
    const waiting = call(`${agent.url}/v1/jobs?index=${index}&wait=30s`, { timeoutMs: 40_000 });
    await until(() => agent.blockingQueries === 1, 10_000, 5);
    await call(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("wakes-it") }) });
    const reply = await waiting;
    expect(reply.status).toBe(200);
    expect(reply.text).toContain("wakes-it");
  });
});
