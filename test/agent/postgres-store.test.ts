/**
 * A shared store's reads and writes with the database's answers or notifications held back: reads
 * share barrier queries (`PostgresStore.catchUp`), and a read never relies on a query sent before
 * it came (which may not see a write committed in between); a batch stored optimistically on a copy
 * that another agent's write has overtaken is refused, and applied again on the state as it is.
 */
import { describe, expect, it } from "vitest";
import { jobsEndpoint, SEARCH_DOCUMENTS } from "../../src/server/list/endpoints.js";
import type { Job } from "../../src/server/state/model.js";
import type { Database, SqlSession, TextRow } from "../../src/server/state/postgres/database.js";
import type { ListPageRequest } from "../../src/server/state/store.js";
import { PostgresStore } from "../../src/server/state/postgres/store.js";
import { ON_POSTGRES, openTestDatabase, SERVER_URL, testStore, withSharedSchema } from "./support.js";

/** The statement of a barrier. */
const BARRIER = /^SELECT index::text AS index FROM "[a-z0-9_]+"\.state$/;

/**
 * A database whose barrier answers wait until the test releases them (each query is run at
 * once: only its answer is held), and whose notifications the test may hold as well.
 */
function held(database: Database): { database: Database; barriers: () => number; release: () => void; quiet: (on: boolean) => void } {
  let count = 0;
  let waiting: (() => void)[] = [];
  let gate: Promise<void> | undefined;
  let silent = false;
  const wrapped: Database = {
    ...database,
    get listening() {
      return database.listening;
    },
    async query(sql: string, params?: readonly unknown[]): Promise<TextRow[]> {
      if (!BARRIER.test(sql)) return database.query(sql, params);
      count++;
      const answer = await database.query(sql, params);
      if (gate !== undefined) await gate;
      return answer;
    },
    transaction: (work) => database.transaction(work),
    listTransaction: (work, statementTimeoutMs) => database.listTransaction(work, statementTimeoutMs),
    listen: (channel, onPayload, onReconnect) => database.listen(channel, (payload) => void (silent || onPayload(payload)), onReconnect),
    close: () => database.close(),
  };
  return {
    database: wrapped,
    barriers: () => count,
    release: () => {
      const released = waiting;
      waiting = [];
      gate = undefined;
      for (const go of released) go();
    },
    quiet: (on) => {
      silent = on;
      gate = on ? new Promise<void>((resolve) => waiting.push(resolve)) : gate;
    },
  };
}

const namespace = (name: string, index: number) => ({ Name: name, Description: "", Quota: "", Meta: null, CreateIndex: index, ModifyIndex: index });

describe.runIf(ON_POSTGRES)("the barrier of consistent reads", () => {
  it("is shared by the reads that come while one is under way, and never one sent before a read came", async () => {
    await withSharedSchema(held, async ({ first: writerStore, second: readerStore, watched: reader }) => {
      await readerStore.catchUp();
      // A barrier's query is answered, its answer held; meanwhile another agent writes, and the reader hears nothing of it.
      reader.quiet(true);
      const before = reader.barriers();
      const first = readerStore.catchUp();
      await expect.poll(() => reader.barriers()).toBe(before + 1);
      const { index } = await writerStore.write(["namespaces"], (state) => state.namespaces.put(namespace("after-the-first-query", state.index)), "JobRegister");
      // Reads that come now wait for the next barrier, one query for all of them.
      const later = Array.from({ length: 20 }, () => readerStore.catchUp());
      reader.release();
      reader.quiet(false);
      await first;
      await Promise.all(later);
      expect(reader.barriers()).toBe(before + 2);
      // The second query was sent after the write was committed: the reads that waited for it see the write.
      expect(readerStore.index).toBeGreaterThanOrEqual(index);
      expect(readerStore.tables.namespaces.get("after-the-first-query")).toBeDefined();
    });
  });

  it("applies a write again when another agent wrote since the copy's index: nothing of the refused batch is stored", async () => {
    await withSharedSchema(held, async ({ schema, first: alpha, firstDatabase: aDatabase, second: beta, watched: b }) => {
      // Beta hears nothing of alpha's writes: its copy is behind, and it does not know.
      b.quiet(true);
      b.release();
      const { index: first } = await alpha.write(["namespaces"], (state) => state.namespaces.put(namespace("first", state.index)), "JobRegister");
      expect(beta.index).toBeLessThan(first);
      let applied = 0;
      const seen: boolean[] = [];
      const { index, result } = await beta.write(["namespaces"], (state) => {
        applied++;
        seen.push(state.namespaces.get("first") !== undefined);
        state.namespaces.put(namespace("second", state.index));
        return state.index;
      }, "JobRegister");
      // Applied on the stale copy (refused: the index had moved), then on the state brought up to date.
      expect(applied).toBe(2);
      expect(seen).toEqual([false, true]);
      expect([index, result]).toEqual([first + 1, first + 1]);
      b.quiet(false);
      // One row of "second", at its one index: alpha reads it as beta wrote it.
      await alpha.catchUp();
      expect(alpha.tables.namespaces.get("second")).toMatchObject({ Name: "second", CreateIndex: first + 1 });
      const rows = await aDatabase.query(`SELECT key, modify_index::text AS modified FROM "${schema}".rows WHERE tbl = 'namespaces' AND key IN ('"first"', '"second"') ORDER BY key`);
      expect(rows).toEqual([
        { key: '"first"', modified: String(first) },
        { key: '"second"', modified: String(first + 1) },
      ]);
    });
  });
});

/**
 * A database that records the statements of each list page (the transaction's begin is the
 * database's own) and the text columns of their rows, and runs `afterBatch` before a page's batch
 * is answered.
 */
function recorded(database: Database): { database: Database; pages: { sql: string; docs: (string | null | undefined)[] }[][]; afterBatch: { run?: () => Promise<void> } } {
  const pages: { sql: string; docs: (string | null | undefined)[] }[][] = [];
  const afterBatch: { run?: () => Promise<void> } = {};
  const wrapped: Database = {
    ...database,
    get listening() {
      return database.listening;
    },
    query: (sql, params, since) => database.query(sql, params, since),
    transaction: (work, since) => database.transaction(work, since),
    listTransaction: (work, statementTimeoutMs) =>
      database.listTransaction((session: SqlSession) => {
        const statements: { sql: string; docs: (string | null | undefined)[] }[] = [];
        pages.push(statements);
        return work({
          async query(sql, params) {
            const rows = await session.query(sql, params);
            statements.push({ sql, docs: rows.map((row) => row.doc) });
            const run = afterBatch.run;
            afterBatch.run = undefined;
            await run?.();
            return rows;
          },
        });
      }, statementTimeoutMs),
    listen: (channel, onPayload, onReconnect) => database.listen(channel, onPayload, onReconnect),
    close: () => database.close(),
  };
  return { database: wrapped, pages, afterBatch };
}

/** A job row with what the jobs' keyset reads of it (no search documents: the store is opened without them). */
const jobRow = (id: string, index: number) => ({ ID: id, Name: id, Namespace: "default", SubmitTime: 1n, CreateIndex: index, ModifyIndex: index, JobModifyIndex: index }) as unknown as Job;

/** A consistent page of every job, unfiltered. */
const everyJob = (perPage: number): ListPageRequest<Job> => ({
  perPage,
  nextToken: "",
  reverse: false,
  filter: undefined,
  budget: undefined,
  namespace: "*",
  prefix: "",
  schema: undefined,
  permitted: () => true,
  filterTarget: (job) => job,
  stale: false,
});

describe.runIf(ON_POSTGRES)("a consistent page read from the database", () => {
  it("is one statement in its snapshot, whose rows come without their text when the copy is at the snapshot's index (the copy's own objects are taken)", async () => {
    const { store, drop } = await testStore();
    const schema = (store as { schema: string }).schema;
    const database = await openTestDatabase(store);
    const reader = recorded(database);
    const own = await PostgresStore.open(reader.database, { schema });
    try {
      for (const id of ["a", "b", "c"]) await own.write(["jobs"], (state) => state.jobs.put(jobRow(id, state.index)), "JobRegister");
      const page = await own.page(jobsEndpoint, everyJob(2));
      expect(page.rows.map((job) => job.ID)).toEqual(["a", "b"]);
      expect(page.nextToken).toBe("default.c");
      expect(page.rows[0]).toBe([...own.tables.jobs.values()].find((job) => job.ID === "a"));
      expect(reader.pages).toHaveLength(1);
      expect(reader.pages[0]!.map((statement) => statement.docs)).toEqual([[null, null, null]]);
    } finally {
      own.close();
      await database.close();
      await drop();
    }
  });

  it("takes the rows' text from its snapshot when the copy is behind", async () => {
    await withReader(async ({ reader, readerStore, writerStore }) => {
      for (const id of ["a", "b"]) await writerStore.write(["jobs"], (state) => state.jobs.put(jobRow(id, state.index)), "JobRegister");
      expect(readerStore.index).toBeLessThan(writerStore.index);
      const page = await readerStore.page(jobsEndpoint, everyJob(0));
      expect(page.rows.map((job) => job.ID)).toEqual(["a", "b"]);
      expect(page.index).toBe(writerStore.index);
      expect(reader.pages.at(-1)!.map((statement) => statement.docs.map((doc) => typeof doc))).toEqual([["string", "string"]]);
    });
  });

  // PGlite runs one transaction at a time: another write cannot come while a page's batch is read.
  it.runIf(SERVER_URL !== undefined)("reads a batch again, with the rows' text, when the copy moves while it is read", async () => {
    await withReader(async ({ quiet, reader, readerStore, writerStore }) => {
      quiet(false);
      for (const id of ["a", "b"]) await writerStore.write(["jobs"], (state) => state.jobs.put(jobRow(id, state.index)), "JobRegister");
      await readerStore.catchUp();
      const at = readerStore.index;
      // The batch is sent for rows without their text (the copy at the snapshot's index); while it is read, the copy takes up another write.
      reader.afterBatch.run = async () => {
        await writerStore.write(["jobs"], (state) => state.jobs.put(jobRow("c", state.index)), "JobRegister");
        await readerStore.catchUp();
      };
      const page = await readerStore.page(jobsEndpoint, everyJob(0));
      expect(readerStore.index).toBeGreaterThan(at);
      // The page is the snapshot's (without c).
      expect(page.rows.map((job) => job.ID)).toEqual(["a", "b"]);
      expect(page.index).toBe(at);
      expect(reader.pages.at(-1)!.map((statement) => statement.docs.map((doc) => typeof doc))).toEqual([
        ["object", "object"],
        ["string", "string"],
      ]);
    });
  });
});

/** Runs `test` with a reader store that hears nothing of the writer's writes until `quiet(false)`, and a writer store, on one schema. */
function withReader(
  test: (stores: { quiet: (on: boolean) => void; reader: ReturnType<typeof recorded>; readerStore: PostgresStore; writerStore: PostgresStore }) => Promise<void>,
): Promise<void> {
  const silencedAndRecorded = (database: Database) => {
    const silenced = held(database);
    return { silenced, ...recorded(silenced.database) };
  };
  return withSharedSchema(silencedAndRecorded, async ({ first: writerStore, second: readerStore, watched }) => {
    watched.silenced.quiet(true);
    watched.silenced.release();
    await test({ quiet: watched.silenced.quiet, reader: watched, readerStore, writerStore });
  });
}

describe.runIf(ON_POSTGRES)("the indexes of the rows", () => {
  it("keep the orders of the lists with a keyset only, the rows of other tables out of them (dropped where tables made before had them)", async () => {
    const { store, drop } = await testStore();
    const schema = (store as { schema: string }).schema;
    const database = await openTestDatabase(store);
    try {
      (await PostgresStore.open(database, { schema, documents: SEARCH_DOCUMENTS })).close();
      // Tables made before: an order index over every table's rows. An agent opens them again (a database of its own: each listens once).
      await database.query(`CREATE INDEX IF NOT EXISTS rows_by_id ON "${schema}".rows (tbl, id) WHERE doc IS NOT NULL`);
      const again = await openTestDatabase(store);
      (await PostgresStore.open(again, { schema, documents: SEARCH_DOCUMENTS })).close();
      await again.close();
      const indexes = await database.query(`SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = $1 AND tablename = 'rows' ORDER BY indexname`, [schema]);
      expect(indexes.map((index) => index.name)).toEqual(["rows_changes", "rows_jobs_documents", "rows_listed_by_creation", "rows_listed_by_id", "rows_listed_by_namespace", "rows_pkey", "rows_undocumented"]);
      for (const index of indexes.filter((index) => index.name!.startsWith("rows_listed_"))) expect(index.definition).toMatch(/tbl = ANY \(ARRAY\['jobs'::text, 'deployment'::text, 'acl_token'::text\]\)/);
      // A page of jobs is read in the order of its index (sequential scans off: these few rows would be read whole otherwise).
      const plan = await database.transaction(async (session) => {
        await session.query("SET LOCAL enable_seqscan = off");
        return session.query(`EXPLAIN SELECT r.key FROM "${schema}".rows AS r WHERE r.tbl = 'jobs' AND r.doc IS NOT NULL ORDER BY r.ns, r.id LIMIT 3`);
      });
      expect(JSON.stringify(plan)).toContain("rows_listed_by_namespace");
    } finally {
      await database.close();
      await drop();
    }
  });
});
