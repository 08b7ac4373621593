import { describe, expect, it } from "vitest";
import { blockingQuery, blockingWait, DEFAULT_WAIT_MS, JITTER_FRACTION, MAX_WAIT_MS } from "../../src/server/list/blocking.js";
import type { BlockingObserver } from "../../src/server/metrics/index.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import { startAgent } from "../../src/server/index.js";
import { eventually, job, send, settled, startTestAgent, useAgent } from "./support.js";

const agent = useAgent({ placementDelayMs: 60_000 });

async function currentIndex(path = "/v1/jobs"): Promise<number> {
  return Number((await agent.get(path)).headers["x-svc-index"]);
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await run();
  return { result, ms: performance.now() - start };
}

describe("blocking queries", () => {
  it("starts the index at 1 or more on a new agent", async () => {
    expect(await currentIndex()).toBeGreaterThanOrEqual(1);
    expect(await currentIndex("/v1/deployments")).toBeGreaterThanOrEqual(1);
  });

  it("waits the whole wait (plus at most a sixteenth) on a quiet store, then answers with the same index", async () => {
    const index = await currentIndex();
    const { result, ms } = await timed(() => agent.get(`/v1/jobs?index=${index}&wait=1s`));
    expect(result.status).toBe(200);
    expect(result.headers["x-svc-index"]).toBe(String(index));
    expect(ms).toBeGreaterThanOrEqual(990);
    expect(ms).toBeLessThan(1000 + 1000 / JITTER_FRACTION + 500);
  });

  it("wakes up on a write and answers with the new index", async () => {
    const index = await currentIndex();
    const waiting = timed(() => agent.get(`/v1/jobs?index=${index}&wait=10s`));
    await eventually(async () => (agent.agent.blockingQueries > 0 ? true : undefined));
    await agent.register(job("wake-up"));
    const { result, ms } = await waiting;
    expect(ms).toBeLessThan(5000);
    expect(Number(result.headers["x-svc-index"])).toBeGreaterThan(index);
    expect(result.json<{ ID: string }[]>().map((stub) => stub.ID)).toContain("wake-up");
  });

  it("wakes a deployments query when the scheduler starts a deployment", async () => {
    await settled(agent.url);
    const index = await currentIndex("/v1/deployments");
    const waiting = agent.get(`/v1/deployments?index=${index}&wait=10s`);
    await eventually(async () => (agent.agent.blockingQueries > 0 ? true : undefined));
    await agent.register(job("deploys"));
    const result = await waiting;
    expect(Number(result.headers["x-svc-index"])).toBeGreaterThan(index);
    expect(result.json<{ JobID: string }[]>().some((d) => d.JobID === "deploys")).toBe(true);
  });

  it.each([["?index=0&wait=5s"], ["?wait=5s"], ["?index=&wait=5s"]])("does not block with %s", async (query) => {
    const { result, ms } = await timed(() => agent.get(`/v1/jobs${query}`));
    expect(result.status).toBe(200);
    expect(ms).toBeLessThan(1000);
  });

  it("keeps waiting for an index above the current one, even through writes, then answers with the current index", async () => {
    const index = await currentIndex();
    const { result, ms } = await timed(async () => {
      const waiting = agent.get(`/v1/jobs?index=${index + 1000}&wait=1s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await agent.register(job("meanwhile"));
      return waiting;
    });
    expect(result.status).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(990);
    expect(Number(result.headers["x-svc-index"])).toBeGreaterThan(index);
    expect(Number(result.headers["x-svc-index"])).toBeLessThan(index + 1000);
  });

  it("stops waiting when the client goes away", async () => {
    const index = await currentIndex();
    const abort = new AbortController();
    const request = send(`${agent.url}/v1/jobs?index=${index + 1000}&wait=60s`, { signal: abort.signal }).catch((error: Error) => error);
    await eventually(async () => (agent.agent.blockingQueries > 0 ? true : undefined));
    const before = agent.agent.blockingQueries;
    abort.abort();
    expect(await request).toBeInstanceOf(Error);
    await eventually(async () => (agent.agent.blockingQueries < before ? true : undefined));
  });

  it("answers every waiting query when the agent closes", async () => {
    const own = await startTestAgent({ port: 0, demo: false, logLevel: "silent" });
    const index = Number((await send(`${own.url}/v1/jobs`)).headers["x-svc-index"]);
    const waiting = timed(() => send(`${own.url}/v1/jobs?index=${index}&wait=60s`));
    await eventually(async () => (own.blockingQueries > 0 ? true : undefined));
    await own.close();
    const { result, ms } = await waiting;
    expect(result.status).toBe(200);
    expect(result.headers["x-svc-index"]).toBe(String(index));
    expect(ms).toBeLessThan(5000);
  });
});

describe("the wait of a blocking query", () => {
  const noJitter = () => 0;
  const mostJitter = () => 0.999_999;

  it.each([
    [undefined, DEFAULT_WAIT_MS],
    [0, DEFAULT_WAIT_MS],
    [-1000, DEFAULT_WAIT_MS],
    [1000, 1000],
    [MAX_WAIT_MS, MAX_WAIT_MS],
    [MAX_WAIT_MS + 1, MAX_WAIT_MS],
    [60 * 60_000, MAX_WAIT_MS],
  ])("waits %s ms as %i ms before jitter", (requested, expected) => {
    expect(blockingWait(requested, noJitter)).toBe(expected);
  });

  it("adds jitter in [0, wait/16)", () => {
    expect(blockingWait(1600, mostJitter)).toBe(1699);
    expect(blockingWait(MAX_WAIT_MS * 2, mostJitter)).toBeLessThan(MAX_WAIT_MS + MAX_WAIT_MS / 16);
    expect(DEFAULT_WAIT_MS).toBe(5 * 60_000);
    expect(MAX_WAIT_MS).toBe(10 * 60_000);
  });
});

describe("what a blocking query reports to its observer", () => {
  /** Runs a query on a real store, recording what it reports; `act` runs while it waits. */
  async function observe(minIndex: number, act: (store: MemoryStore, abort: () => void) => void, options: { waitMs?: number; failAfterWake?: boolean } = {}) {
    const store = new MemoryStore();
    const events: string[] = [];
    const observer: BlockingObserver = {
      pass: () => events.push("pass"),
      parked: () => events.push("parked"),
      woken: (reason) => events.push(`woken:${reason}`),
    };
    const controller = new AbortController();
    let runs = 0;
    const query = () => {
      runs++;
      if (options.failAfterWake && runs > 1) throw new Error("failed after waking");
      return { index: store.tableIndex("jobs") };
    };
    const done = blockingQuery({ store, tables: ["jobs"], minIndex, waitMs: options.waitMs, signal: controller.signal, observer, random: () => 0 }, query).catch((error: Error) => error.message);
    act(store, () => controller.abort());
    const result = await done;
    return { events, result };
  }

  it("reports one pass and no wait without an index, or when the index has already passed", async () => {
    expect((await observe(0, () => {})).events).toEqual(["pass"]);
  });

  it("reports a wake by change, with the pass after it", async () => {
    const { events } = await observe(1, (store) => store.write(["jobs"], () => {}, "JobRegister"));
    expect(events).toEqual(["pass", "parked", "pass", "woken:change"]);
  });

  it("reports a timeout", async () => {
    expect((await observe(1, () => {}, { waitMs: 5 })).events).toEqual(["pass", "parked", "pass", "woken:timeout"]);
  });

  it("reports a disconnect when the client goes away", async () => {
    expect((await observe(1, (_store, abort) => abort())).events).toEqual(["pass", "parked", "pass", "woken:disconnect"]);
  });

  it("reports a shutdown when the store closes", async () => {
    expect((await observe(1, (store) => store.close())).events).toEqual(["pass", "parked", "pass", "woken:shutdown"]);
  });

  it("reports a query that fails after waking as woken by the change, and passes the error on", async () => {
    const { events, result } = await observe(1, (store) => store.write(["jobs"], () => {}, "JobRegister"), { failAfterWake: true });
    expect(events).toEqual(["pass", "parked", "pass", "woken:change"]);
    expect(result).toBe("failed after waking");
  });
});
