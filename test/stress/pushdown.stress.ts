/**
 * Costly filters on an agent whose state is in PostgreSQL (issue 25, finding 2): eight clients at
 * once send `or` filters of 80 clauses (within the bound: pushed down), then of 2,000 clauses (past
 * it: decided by the agent), over 2,000 jobs, while another client writes jobs and asks for the
 * leader every 100 ms. Before the fix one 800-clause filter took 32 s in PostgreSQL, a 2,000-clause
 * one was a 500, and eight at once starved writes and heartbeats into 500s after 10 s.
 *
 * Needs a PostgreSQL server: `BEXPR_TEST_POSTGRES_URL` (PGlite lives in one process, and the
 * agent here is a child process). Printed: each kind of request's statuses, median and longest
 * time. Asserted: no 5xx, anywhere.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POSTGRES_URL_VARIABLE } from "../sql/databases.js";
import { call, job, printTable, sleep, startChildAgent, stats, type ChildAgent } from "./support.js";

const URL = process.env[POSTGRES_URL_VARIABLE];
const JOBS = 2_000;
const CONCURRENT = 8;

const ownerFilter = (clauses: number, seed: number) => Array.from({ length: clauses }, (_, i) => `Meta.owner == "nobody-${seed}-${i}"`).join(" or ");

describe.runIf(URL !== undefined)(`${CONCURRENT} costly filters at once on a PostgreSQL store of ${JOBS} jobs`, () => {
  let agent: ChildAgent;
  const schema = `stress_${randomBytes(6).toString("hex")}`;
  const rows: Record<string, unknown>[] = [];

  beforeAll(async () => {
    agent = await startChildAgent({ placementDelayMs: 600_000, store: { url: URL!, schema } }, 60_000);
    for (let i = 0; i < JOBS; i += 50) {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, k) => call(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(`job-${i + k}`, { Meta: { owner: `team-${(i + k) % 17}` } }) }) })),
      );
      for (const reply of replies) expect(reply.status).toBe(200);
    }
  }, 600_000);

  afterAll(async () => {
    await agent?.stop();
    const client = new pg.Client({ connectionString: URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
    printTable(`${CONCURRENT} filters at once, ${JOBS} jobs in PostgreSQL, writes and the leader asked meanwhile`, rows);
  });

  it.each([80, 800, 2_000])("answers %i-clause filters without a 5xx, and writes and the leader meanwhile", async (clauses) => {
    const others = { write: [] as number[], leader: [] as number[], statuses: {} as Record<string, number> };
    let stop = false;
    const background = (async () => {
      for (let i = 0; !stop && i < 10_000; i++) {
        const write = await call(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(`meanwhile-${clauses}-${i}`) }), timeoutMs: 120_000 });
        const leader = await call(`${agent.url}/v1/status/leader`, { timeoutMs: 120_000 });
        others.write.push(write.ms);
        others.leader.push(leader.ms);
        for (const status of [write.status, leader.status]) others.statuses[status] = (others.statuses[status] ?? 0) + 1;
        await sleep(100);
      }
    })();
    const filters = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, seed) => call(`${agent.url}/v1/jobs?filter=${encodeURIComponent(ownerFilter(clauses, seed))}`, { timeoutMs: 300_000 })),
    );
    stop = true;
    await background;
    const statuses: Record<string, number> = {};
    for (const reply of filters) statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
    const filterTimes = stats(filters.map((reply) => reply.ms));
    const writes = stats(others.write);
    const leader = stats(others.leader);
    rows.push({
      clauses,
      "filter statuses": JSON.stringify(statuses),
      "filter p50 / max": `${filterTimes.p50} / ${filterTimes.max} ms`,
      "writes and leader statuses": JSON.stringify(others.statuses),
      "write p50 / max": `${writes.p50} / ${writes.max} ms`,
      "leader p50 / max": `${leader.p50} / ${leader.max} ms`,
    });
    for (const reply of filters) expect(reply.status, reply.text.slice(0, 200)).toBe(200);
    expect(Object.keys(others.statuses).filter((status) => Number(status) >= 500)).toEqual([]);
  });
});
