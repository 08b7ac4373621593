/**
 * The agent's connection to PostgreSQL, whichever engine serves it: a server (through `pg`, a
 * pool for writes, heartbeats and catching up, a pool of its own for list pages, and one
 * connection that listens for notifications and comes back after the server drops it), or a
 * PGlite instance the caller opened (an embedded PostgreSQL, for tests and single-process use).
 *
 * On a server every statement has a `statement_timeout`: list pages, whose filters come from
 * clients, {@link LIST_STATEMENT_TIMEOUT_MS}, and the rest {@link STATEMENT_TIMEOUT_MS}. List pages
 * run on connections of their own ({@link LIST_POOL_SIZE}), so that however many clients filter
 * at once, writes and the leader's heartbeat always find a connection. PGlite runs each statement
 * on the agent's own thread and cannot interrupt one: there, what bounds a list page is the cost
 * bound on the filters pushed down (see `state/postgres/pages.ts`).
 *
 * Every value the agent selects is cast to text in its SQL, and parameters are strings or arrays of
 * strings: both engines then pass values through unchanged, so int64 values stay exact.
 *
 * @module
 */
import type pg from "pg";
import { loadOptional } from "../../../optional-packages.js";

/** A row as the agent reads it: every column as text (or null). */
export type TextRow = Record<string, string | null>;

/** Something that runs statements: the database, or one transaction of it. */
export interface SqlSession {
  /** Runs one statement with parameters `$1`, `$2`…; every selected column must be text. */
  query(sql: string, params?: readonly unknown[]): Promise<TextRow[]>;
}

/** A PostgreSQL database as the agent's store uses it. */
export interface Database extends SqlSession {
  /** Runs `work` in a transaction: committed when it resolves, rolled back when it rejects. */
  transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in a transaction on the connections kept for list pages (each statement cancelled
   * by the server after {@link LIST_STATEMENT_TIMEOUT_MS}).
   *
   * @throws {@link DatabaseBusyError} when no such connection came free within
   * {@link LIST_CONNECTION_WAIT_MS}.
   */
  listTransaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Listens on `channel`: `onPayload` gets each notification's payload; `onReconnect` is called
   * after the connection was lost and came back (notifications sent meanwhile are lost).
   */
  listen(channel: string, onPayload: (payload: string) => void, onReconnect: () => void): Promise<void>;
  /** True while the listening connection is up (notifications arrive). */
  readonly listening: boolean;
  /** Closes every connection. */
  close(): Promise<void>;
}

/**
 * What the agent needs of a PGlite instance (`@electric-sql/pglite`), which the caller opens (the
 * agent does not depend on PGlite): several agents in one process may share one instance, each in
 * a schema of its own.
 */
export interface PgliteLike {
  /** Runs one statement with parameters. */
  query<T>(query: string, params?: unknown[]): Promise<PgliteResults<T>>;
  /** Runs `callback` in a transaction, with the connection to itself. */
  transaction<T>(callback: (tx: { query<R>(query: string, params?: unknown[]): Promise<PgliteResults<R>> }) => Promise<T>): Promise<T>;
  /** Listens on a channel; resolves to the function that stops listening. */
  listen(channel: string, callback: (payload: string) => void): Promise<(...args: never[]) => Promise<void>>;
}

/** What a PGlite query gives back (the part the agent reads). */
export interface PgliteResults<T> {
  /** The rows, each column by name. */
  readonly rows: T[];
}

/**
 * How long one statement of the agent's own (a write, a heartbeat, catching up) may run on a
 * server before it cancels it: none should take a second, and none may hang forever.
 */
export const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * How long one statement of a list page may run on a server before it cancels it. A page whose
 * pushed-down filter takes longer is read again with the filter decided by the agent.
 */
export const LIST_STATEMENT_TIMEOUT_MS = 5_000;

/** The connections kept for list pages, apart from the pool of writes and heartbeats. */
export const LIST_POOL_SIZE = 4;

/** How long a list page waits for one of those connections before its request is refused as busy. */
export const LIST_CONNECTION_WAIT_MS = 30_000;

/** No connection for a list page came free in time: every one is busy with other pages. */
export class DatabaseBusyError extends Error {
  override readonly name = "DatabaseBusyError";
}

/** The longest wait between two attempts to bring the listening connection back. */
const MAX_RECONNECT_DELAY_MS = 2000;

/** How long a connection attempt to the server may take. */
const CONNECT_TIMEOUT_MS = 10_000;

/** The sizes and timeouts of {@link connectServer}'s pools; each defaults to its constant. */
export interface ServerOptions {
  /** Connections for writes, heartbeats and catching up (default 8). */
  readonly poolSize?: number;
  /** {@link LIST_POOL_SIZE} by default. */
  readonly listPoolSize?: number;
  /** {@link STATEMENT_TIMEOUT_MS} by default. */
  readonly statementTimeoutMs?: number;
  /** {@link LIST_STATEMENT_TIMEOUT_MS} by default. */
  readonly listStatementTimeoutMs?: number;
  /** {@link LIST_CONNECTION_WAIT_MS} by default. */
  readonly listConnectionWaitMs?: number;
}

/** A database served by PostgreSQL at `url` (`postgres://user:password@host:port/database`). */
export async function connectServer(url: string, options: ServerOptions = {}): Promise<Database> {
  // Loaded only by agents that use a server: the others start without it.
  const { default: pg } = await loadOptional("the PostgreSQL store", () => import("pg"));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 8,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
  });
  const listPool = new pg.Pool({
    connectionString: url,
    max: options.listPoolSize ?? LIST_POOL_SIZE,
    connectionTimeoutMillis: options.listConnectionWaitMs ?? LIST_CONNECTION_WAIT_MS,
    statement_timeout: options.listStatementTimeoutMs ?? LIST_STATEMENT_TIMEOUT_MS,
    // No JIT: its compile time grows with the filter's SQL, not the rows (an `and` of 1,000
    // clauses over two rows took 31 s with it, 0.8 s without), and a client writes the filter.
    options: "-c jit=off",
  });
  // An idle connection the server drops is replaced on the next query; the error must not go unheard.
  pool.on("error", () => {});
  listPool.on("error", () => {});
  let listener: pg.Client | undefined;
  let listening = false;
  let closed = false;
  const run = async (client: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) => (await client.query<TextRow>(sql, params as unknown[] | undefined)).rows;
  const transaction = async <T>(client: pg.PoolClient, work: (session: SqlSession) => Promise<T>): Promise<T> => {
    try {
      await client.query("BEGIN");
      const result = await work({ query: (sql, params) => run(client, sql, params) });
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
  return {
    query: (sql, params) => run(pool, sql, params),
    transaction: async (work) => transaction(await pool.connect(), work),
    async listTransaction(work) {
      let client: pg.PoolClient;
      try {
        client = await listPool.connect();
      } catch (error) {
        // Every connection of the pool is taken and none came free in time (pg says so in words only).
        if (listPool.totalCount >= listPool.options.max && /timeout/i.test((error as Error).message)) {
          throw new DatabaseBusyError(`no connection for a list page came free within ${options.listConnectionWaitMs ?? LIST_CONNECTION_WAIT_MS} ms: all ${listPool.options.max} are reading other pages`);
        }
        throw error;
      }
      return transaction(client, work);
    },
    async listen(channel, onPayload, onReconnect) {
      const connect = async (): Promise<void> => {
        const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
        let lost = false;
        const reconnect = () => {
          if (lost || closed) return;
          lost = true;
          listening = false;
          void client.end().catch(() => {});
          void (async () => {
            for (let delay = 50; !closed; delay = Math.min(delay * 2, MAX_RECONNECT_DELAY_MS)) {
              await new Promise((resolve) => setTimeout(resolve, delay));
              try {
                await connect();
                onReconnect();
                return;
              } catch {
                // The server is still away: try again, a little later.
              }
            }
          })();
        };
        client.on("error", reconnect);
        client.on("end", reconnect);
        client.on("notification", (message) => onPayload(message.payload ?? ""));
        await client.connect();
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        listener = client;
        listening = true;
      };
      await connect();
    },
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      listening = false;
      await listener?.end().catch(() => {});
      await Promise.all([pool.end(), listPool.end()]);
    },
  };
}

/** A database served by a PGlite instance the caller opened (and closes). */
export function fromPglite(instance: PgliteLike): Database {
  const unlisten: ((...args: never[]) => Promise<void>)[] = [];
  const transaction: Database["transaction"] = (work) =>
    instance.transaction((tx) => work({ query: async (sql, params) => (await tx.query<TextRow>(sql, params === undefined ? undefined : [...params])).rows }));
  return {
    query: async (sql, params) => (await instance.query<TextRow>(sql, params === undefined ? undefined : [...params])).rows,
    transaction,
    // One engine, one statement at a time: there is no other connection to keep for list pages.
    listTransaction: transaction,
    async listen(channel, onPayload) {
      // In-process: the connection is never lost.
      unlisten.push(await instance.listen(channel, onPayload));
    },
    get listening() {
      return unlisten.length > 0;
    },
    async close() {
      await Promise.all(unlisten.map((stop) => stop()));
    },
  };
}
