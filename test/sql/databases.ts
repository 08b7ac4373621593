/**
 * Real PostgreSQL engines for tests of SQL: PGlite (PostgreSQL compiled to WebAssembly, run in the
 * test's own process) always, and a PostgreSQL server as well when {@link POSTGRES_URL_VARIABLE}
 * names one (the suite's set-up, test/support/global-setup.ts, starts one where PostgreSQL's programs are installed).
 *
 * Every value comes back as the text PostgreSQL sent, whatever its type: no client-side parsing.
 * bexpr's documents may hold int64 values beyond 2^53, which a JavaScript number cannot hold: the
 * clients' default parsers would turn `9007199254740993` inside a json or jsonb value into
 * `9007199254740992` (JSON.parse), and int8 into a bigint on PGlite but a string on pg. Raw text on
 * both engines is exact, and the same on both, so one test's expectations hold on each.
 */
import { randomBytes } from "node:crypto";
import { PGlite, type QueryOptions } from "@electric-sql/pglite";
import { Client, type QueryConfig } from "pg";
import { afterAll, beforeAll, describe } from "vitest";

/** The environment variable naming a PostgreSQL server to test on besides PGlite, as a connection URL. */
export const POSTGRES_URL_VARIABLE = "BEXPR_TEST_POSTGRES_URL";

/** One open database: PGlite, or a fresh schema of its own on the PostgreSQL server. */
export interface TestDatabase {
  /** `pglite` or `postgres`, for test titles. */
  readonly name: string;
  /**
   * Runs one statement with parameters `$1`, `$2`… and returns its rows, each column's value as the
   * text PostgreSQL sent (or null). Strings are the portable parameters: both clients send a string
   * as it is, while they serialize other values each their own way.
   */
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs one or more statements without parameters, such as a schema's set-up. */
  exec(sql: string): Promise<void>;
  /** Closes the connection (on the server, after dropping the schema). Closing twice does nothing. */
  close(): Promise<void>;
}

/** The hooks' time to open the databases: PGlite takes seconds, more on a loaded machine. */
const OPEN_TIMEOUT_MS = 60_000;

/** A parser that keeps the text PostgreSQL sent. */
const asText = (value: string): string => value;

/** The names of the databases {@link openDatabases} opens, in its order, known before opening them. */
function databaseNames(): string[] {
  return process.env[POSTGRES_URL_VARIABLE] ? ["pglite", "postgres"] : ["pglite"];
}

/**
 * Opens PGlite, and the server named by {@link POSTGRES_URL_VARIABLE} when it is set; closes what
 * was opened and throws when one cannot be opened (a variable that is set must name a working
 * server). Call it once per test file, as {@link describeEachDatabase} does: a PGlite instance
 * costs seconds and hundreds of MB.
 */
export async function openDatabases(): Promise<TestDatabase[]> {
  const opened: TestDatabase[] = [];
  try {
    opened.push(await openPglite());
    const url = process.env[POSTGRES_URL_VARIABLE];
    if (url) opened.push(await openServer(url));
  } catch (error) {
    await Promise.allSettled(opened.map((db) => db.close()));
    throw error;
  }
  return opened;
}

/**
 * Declares the suite `fn` once per database, as `title` › `on pglite` (and › `on postgres`): the
 * databases are opened once in a `beforeAll` and closed in an `afterAll`. `fn` runs while the suite
 * is declared, before the databases are open, so its `db` may be used inside tests and hooks only.
 *
 * ```ts
 * describeEachDatabase("jsonb", (db) => {
 *   beforeAll(() => db.exec("create table docs (id int primary key, doc jsonb not null)"));
 *   it("keeps int64 exact", async () => {
 *     expect(await db.query("select '9007199254740993'::int8 as n")).toEqual([{ n: "9007199254740993" }]);
 *   });
 * });
 * ```
 */
export function describeEachDatabase(title: string, fn: (db: TestDatabase) => void): void {
  describe(title, () => {
    let opened: TestDatabase[] = [];
    beforeAll(async () => {
      opened = await openDatabases();
    }, OPEN_TIMEOUT_MS);
    afterAll(async () => {
      await Promise.all(opened.map((db) => db.close()));
    });
    describe.each(databaseNames())("on %s", (name) => fn(deferred(name, () => opened)));
  });
}

/** A database that forwards to the one named `name` among those `opened` once they are open. */
function deferred(name: string, opened: () => readonly TestDatabase[]): TestDatabase {
  const target = (): TestDatabase => {
    const db = opened().find((candidate) => candidate.name === name);
    if (!db) throw new Error(`the ${name} database is not open: use it in tests and hooks, not while declaring the suite`);
    return db;
  };
  return {
    name,
    query: async (sql, params) => target().query(sql, params),
    exec: async (sql) => target().exec(sql),
    close: async () => target().close(),
  };
}

/** An in-memory PGlite instance. */
async function openPglite(): Promise<TestDatabase> {
  const db = await PGlite.create();
  // PGlite's `parsers` option cannot cover every type: it names types one by one, and PGlite
  // replaces those of array types with its own after the option is read. A query's own parsers
  // win over both, so every type the database knows gets the text parser on every query; types
  // created later have no parser of PGlite's and come back as text anyway.
  const { rows } = await db.query<{ oid: number }>("select oid::int4 as oid from pg_catalog.pg_type");
  const options: QueryOptions = { parsers: Object.fromEntries(rows.map(({ oid }) => [oid, asText])) };
  return {
    name: "pglite",
    async query(sql, params = []) {
      return (await db.query<Record<string, unknown>>(sql, [...params], options)).rows;
    },
    async exec(sql) {
      await db.exec(sql);
    },
    async close() {
      if (!db.closed) await db.close();
    },
  };
}

/** A connection to the server at `url`, in a schema of its own so that test files running at once do not meet. */
async function openServer(url: string): Promise<TestDatabase> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000, types: { getTypeParser: () => asText } });
  await client.connect();
  // Random hex: a valid identifier that needs no quoting.
  const schema = `bexpr_test_${randomBytes(8).toString("hex")}`;
  try {
    await client.query(`create schema ${schema}`);
    await client.query(`set search_path to ${schema}`);
    // As docs/sql.md advises for filters from clients: JIT compiles the WHERE clause, in time that
    // grows with the filter's SQL (an `and` of 1,000 clauses over two rows took 31 s with it, 0.8 s without).
    await client.query("set jit = off");
  } catch (error) {
    await client.end();
    throw error;
  }
  let closed = false;
  return {
    name: "postgres",
    async query(sql, params = []) {
      // The extended protocol even without parameters, as PGlite's query always uses: one
      // statement per call on both. @types/pg does not declare pg's queryMode option.
      const config: QueryConfig & { queryMode: "extended" } = { text: sql, values: [...params], queryMode: "extended" };
      return (await client.query<Record<string, unknown>>(config)).rows;
    },
    async exec(sql) {
      await client.query(sql);
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.query(`drop schema ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
