/**
 * The bounds on what a client's filter makes PostgreSQL do (issue 25, finding 2): a filter is
 * pushed down only within PUSHDOWN_MAX_COST and PUSHDOWN_MAX_SQL_BYTES, and decided by the agent
 * past them; a page whose statement the server cancels (its `statement_timeout`) is read again
 * with the filter decided by the agent; list pages run on connections of their own, so that
 * writes and heartbeats always find one. None of it ever answers a client's filter with a 500.
 */
import { describe, expect, it } from "vitest";
import { compileFilter } from "../../src/filter.js";
import { schemas } from "../../src/schemas.js";
import { PUSHDOWN_MAX_COST, PUSHDOWN_MAX_SQL_BYTES, pushdownCost } from "../../src/server/state/postgres/pages.js";
import { connectServer, DatabaseBusyError, LIST_STATEMENT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS } from "../../src/server/state/postgres/database.js";
import { startAgent } from "../../src/server/index.js";
import { job, ON_POSTGRES, send, SERVER_URL, testStore, useAgent } from "./support.js";

/** An `or` of `clauses` clauses on `Meta.owner`, of which the last matches `team-3`. */
const ownerFilter = (clauses: number) =>
  Array.from({ length: clauses }, (_, i) => (i === clauses - 1 ? 'Meta.owner == "team-3"' : `Meta.owner == "nobody-${i}"`)).join(" or ");

describe("the cost of a filter, as the bound on pushing it down counts it", () => {
  it.each([
    ['Status == "running"', 2],
    ['Meta.owner == "a"', 3],
    ['Meta.owner == "a" or Meta.owner == "b"', 6],
    ["any TaskGroups as g { g.Count == 2 }", 5],
    ["any TaskGroups as g { g.Count == 2 and g.Name == \"x\" }", 8],
    [ownerFilter(85), 255],
    [ownerFilter(86), 258],
  ])("%s costs %i", (filter, cost) => {
    expect(pushdownCost(compileFilter(filter, { schema: schemas.job }))).toBe(cost);
  });

  it(`is at most ${PUSHDOWN_MAX_COST} units for a filter to be pushed down, and its SQL at most ${PUSHDOWN_MAX_SQL_BYTES} bytes`, () => {
    expect(PUSHDOWN_MAX_COST).toBe(256);
    expect(PUSHDOWN_MAX_SQL_BYTES).toBe(64 * 1024);
  });
});

describe.runIf(ON_POSTGRES)("a client's filter on a store in PostgreSQL", () => {
  const agent = useAgent({ placementDelayMs: 60_000, limits: { responseCacheBytes: 0 } });
  const JOBS = 40;

  it("answers filters of 10 to 2,000 clauses as the agent's own copy does, where PostgreSQL would refuse the SQL of the largest", async () => {
    for (let i = 0; i < JOBS; i++) await agent.register(job(`job-${i}`, { Meta: { owner: `team-${i % 7}` } }));
    for (const clauses of [10, 85, 86, 800, 2_000]) {
      const query = `/v1/jobs?filter=${encodeURIComponent(ownerFilter(clauses))}`;
      const consistent = await agent.get(query);
      const stale = await agent.get(`${query}&stale`);
      expect(consistent.status, `${clauses} clauses: ${consistent.text.slice(0, 300)}`).toBe(200);
      expect(consistent.text).toBe(stale.text);
      expect(consistent.json<{ ID: string }[]>().map((item) => item.ID)).toEqual(
        Array.from({ length: JOBS }, (_, i) => i)
          .filter((i) => i % 7 === 3)
          .map((i) => `job-${i}`)
          .sort(),
      );
    }
  });

  it("answers a filter past the bound that fails on a row with the reference's 400, as the agent's own copy does", async () => {
    const failing = `${ownerFilter(100)} or Priority == "high"`;
    const consistent = await agent.get(`/v1/jobs?filter=${encodeURIComponent(failing)}`);
    const stale = await agent.get(`/v1/jobs?filter=${encodeURIComponent(failing)}&stale`);
    expect(consistent.status).toBe(400);
    expect(consistent.text).toBe(stale.text);
  });
});

describe.runIf(ON_POSTGRES && SERVER_URL !== undefined)("the statements an agent sends a PostgreSQL server", () => {
  it("read a page again with the filter decided by the agent when the server cancels its statement", async () => {
    const { store, drop } = await testStore();
    // A timeout no pushed-down page over these rows meets: every filtered page is cancelled.
    const own = await startAgent({ port: 0, demo: false, logLevel: "silent", placementDelayMs: 60_000, limits: { responseCacheBytes: 0 }, store: { ...(store as object), listStatementTimeoutMs: 1 } });
    try {
      for (let i = 0; i < 300; i++) {
        const response = await send(`${own.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(`job-${i}`, { Meta: { owner: `team-${i % 7}` } }) }) });
        expect(response.status).toBe(200);
      }
      const query = `/v1/jobs?filter=${encodeURIComponent(ownerFilter(60))}`;
      const consistent = await send(own.url + query);
      const stale = await send(`${own.url}${query}&stale`);
      expect(consistent.status, consistent.text.slice(0, 300)).toBe(200);
      expect(consistent.text).toBe(stale.text);
      expect(JSON.parse(consistent.text)).toHaveLength(43);
    } finally {
      await own.close();
      await drop();
    }
  });

  it("have a statement_timeout on every connection, and list pages have connections of their own", async () => {
    const database = await connectServer(SERVER_URL!, { listPoolSize: 1, listConnectionWaitMs: 200 });
    try {
      expect(await database.query("SHOW statement_timeout")).toEqual([{ statement_timeout: `${STATEMENT_TIMEOUT_MS / 1000}s` }]);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // The only list connection, taken by a page that does not end until released.
      const page = database.listTransaction(async (session) => {
        const rows = await session.query("SHOW statement_timeout");
        await held;
        return rows;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Writes and heartbeats run meanwhile; another page waits, then is refused as busy.
      expect(await database.query("SELECT 1::text AS one")).toEqual([{ one: "1" }]);
      expect(await database.transaction((session) => session.query("SELECT 2::text AS two"))).toEqual([{ two: "2" }]);
      await expect(database.listTransaction((session) => session.query("SELECT 3::text AS three"))).rejects.toBeInstanceOf(DatabaseBusyError);
      release();
      expect(await page).toEqual([{ statement_timeout: `${LIST_STATEMENT_TIMEOUT_MS / 1000}s` }]);
    } finally {
      await database.close();
    }
  });
});
