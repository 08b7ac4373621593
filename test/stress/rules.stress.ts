/**
 * A hundred costly scenario rules (issue 25, finding 6): each rule's filter spends about the
 * engine's whole budget for a row (three nested `any` over 60 tasks), over 210 running allocations.
 * Before the fix, the rules multiplied: registering a 10-allocation job blocked the agent's loop
 * 12 s, a leader loss and return 176 s. Now they share `limits.rulesCostPerWrite` per write and
 * per scan of the state.
 *
 * Printed: the longest wait of a cheap request (seen from outside) while the job is placed, and
 * across a leader loss and return; how many rules the budget stopped. Asserted: every request
 * answers, and the budget stopped rules (the work was bounded, not merely fast on this machine).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, printTable, probeLatency, sleep, startChildAgent, until, type ChildAgent } from "./support.js";

const TASKS = Array.from({ length: 60 }, (_, i) => ({ Name: `task-${i}`, Driver: "mock" }));
const RULES = 100;
const SEED_JOBS = 21;

const jobBody = (id: string) => JSON.stringify({ Job: { ID: id, TaskGroups: [{ Name: "g", Count: 10, Tasks: TASKS }] } });

describe(`${RULES} costly scenario rules over ${SEED_JOBS * 10} allocations`, () => {
  let agent: ChildAgent;
  const rows: Record<string, unknown>[] = [];

  const running = async (prefix: string) => {
    const reply = await call(`${agent.url}/v1/allocations?stale&filter=${encodeURIComponent(`ClientStatus == "running" and JobID matches "^${prefix}"`)}`, { timeoutMs: 120_000 });
    return (JSON.parse(reply.text) as unknown[]).length;
  };
  const leader = (known: boolean) => call(`${agent.url}/_bexpr/leader`, { method: "PUT", body: JSON.stringify({ KnownLeader: known }), timeoutMs: 300_000 });

  beforeAll(async () => {
    agent = await startChildAgent({ placementDelayMs: 200 }, 60_000);
    for (let i = 0; i < SEED_JOBS; i++) expect((await call(`${agent.url}/v1/jobs`, { method: "PUT", body: jobBody(`seed-${i}`) })).status).toBe(200);
    expect(await until(async () => (await running("seed-")) === SEED_JOBS * 10, 120_000, 100)).toBe(true);
    // Added while the leader is lost, so that adding them scans nothing: the return is the first scan.
    expect((await leader(false)).status).toBe(200);
    for (let i = 0; i < RULES; i++) {
      const select = `any TaskRun.Tasks as a { any TaskRun.Tasks as b { any TaskRun.Tasks as c { c == "never-${i}" } } }`;
      const reply = await call(`${agent.url}/_bexpr/scenarios`, { method: "POST", body: JSON.stringify({ on: "allocation", select, set: { ClientStatus: "failed" } }) });
      expect(reply.status, reply.text).toBe(200);
    }
  }, 600_000);

  afterAll(async () => {
    await agent?.stop();
    printTable(`${RULES} rules of three nested any over 60 tasks, ${SEED_JOBS * 10} running allocations`, rows);
  });

  async function measure(what: string, run: () => Promise<void>) {
    const probe = probeLatency(agent.url, 5);
    const started = performance.now();
    await run();
    const took = Math.round(performance.now() - started);
    await sleep(300);
    const latency = await probe.stop();
    const rules = JSON.parse((await call(`${agent.url}/_bexpr/scenarios`)).text) as { LastError?: string }[];
    const stopped = rules.filter((rule) => rule.LastError !== undefined).length;
    rows.push({ what, "took": `${took} ms`, "longest wait of GET /v1/metrics": `${latency.max} ms`, "p50 wait": `${latency.p50} ms`, "rules stopped by the budget so far": stopped, "probe errors": latency.errors });
    expect(latency.errors).toBe(0);
    return stopped;
  }

  it("bounds the leader's return (a scan of the whole state)", async () => {
    const stopped = await measure("the leader's return", async () => {
      expect((await leader(true)).status).toBe(200);
    });
    expect(stopped).toBeGreaterThan(0);
  });

  it("bounds the placement of a 10-allocation job", async () => {
    await measure("registering a 10-allocation job until it runs", async () => {
      expect((await call(`${agent.url}/v1/jobs`, { method: "PUT", body: jobBody("probe") })).status).toBe(200);
      expect(await until(async () => (await running("probe")) === 10, 300_000, 50)).toBe(true);
    });
  });

  it("bounds a leader loss and return", async () => {
    await measure("a leader loss and return", async () => {
      expect((await leader(false)).status).toBe(200);
      expect((await leader(true)).status).toBe(200);
    });
  });
});
