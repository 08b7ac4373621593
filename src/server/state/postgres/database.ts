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
 * A server may go away (stopped, restarting, full, its backends terminated): nothing it does ends
 * the agent, the connections stay bounded, one loop brings the listening connection back, and a
 * statement that cannot reach the server waits for it up to {@link DATABASE_HOLD_MS}, then fails
 * with {@link DatabaseUnavailableError} (docs/agent.md, "When the database is away").
 *
 * @module
 */
import type pg from "pg";
import { loadOptional } from "../../../optional-packages.js";
import { StoreBusyError } from "../store.js";

/** A row as the agent reads it: every column as text (or null). */
export type TextRow = Record<string, string | null>;

/** Something that runs statements: the database, or one transaction of it. */
export interface SqlSession {
  /** Runs one statement with parameters `$1`, `$2`…; every selected column must be text. */
  query(sql: string, params?: readonly unknown[]): Promise<TextRow[]>;
}

/** One transaction of the database: its statements, and the last one, which commits it. */
export interface TransactionSession extends SqlSession {
  /**
   * Runs `sql`, the transaction's last statement, and commits the transaction with it: on a
   * server in one round trip (the statement and the `COMMIT` sent as one script, its parameters,
   * strings, written into it as literals), so that a transaction holding a lock others wait for
   * holds it no longer than that statement's answer. Nothing may run in the transaction after it.
   */
  queryAndCommit(sql: string, params?: readonly string[]): Promise<TextRow[]>;
}

/** A PostgreSQL database as the agent's store uses it. */
export interface Database extends SqlSession {
  /**
   * Runs one statement that changes data as a transaction of its own. When the connection is lost
   * while it runs, whether it was committed is unknown: the {@link DatabaseUnavailableError} says so.
   */
  write(sql: string, params?: readonly unknown[], since?: number): Promise<TextRow[]>;
  /** {@link SqlSession.query}; `since` as for {@link Database.transaction}. */
  query(sql: string, params?: readonly unknown[], since?: number): Promise<TextRow[]>;
  /**
   * Runs `work` in a transaction: committed when it resolves, rolled back when it rejects. On a
   * server, a statement or transaction that cannot reach the database waits for it
   * ({@link DATABASE_HOLD_MS}), then fails with {@link DatabaseUnavailableError}, as does one whose
   * connection is lost. The hold ends {@link DATABASE_HOLD_MS} after `since` (a `performance.now()`
   * time: when the request that needs the transaction arrived; now by default), so that a request
   * queued behind another's hold waits no longer than its own.
   */
  transaction<T>(work: (session: TransactionSession) => Promise<T>, since?: number): Promise<T>;
  /**
   * Runs `work`, which only reads, in a `REPEATABLE READ READ ONLY` transaction (one snapshot for
   * all its statements) on the connections kept for list pages (each statement cancelled by the
   * server after {@link LIST_STATEMENT_TIMEOUT_MS}, or `statementTimeoutMs`); held as
   * {@link Database.transaction} is, from now. On a server the transaction, its isolation and its
   * timeout begin in one round trip.
   *
   * @throws {@link DatabaseBusyError} when no such connection came free within
   * {@link LIST_CONNECTION_WAIT_MS}.
   */
  listTransaction<T>(work: (session: SqlSession) => Promise<T>, statementTimeoutMs?: number): Promise<T>;
  /**
   * Listens on `channel`: `onPayload` gets each notification's payload; `onReconnect` is called
   * after the connection was lost and came back (notifications sent meanwhile are lost).
   */
  listen(channel: string, onPayload: (payload: string) => void, onReconnect: () => void): Promise<void>;
  /** True while the listening connection is up (notifications arrive, and the database is there). */
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

/** No connection for a list page came free in time: every one is busy with other pages (the store is busy). */
export class DatabaseBusyError extends StoreBusyError {
  override readonly name = "DatabaseBusyError";
}

/**
 * The database cannot be reached: the server is stopped or restarting, refuses new connections
 * (too many clients, shutting down), or dropped the connection while a statement ran. A statement
 * that could not reach it waited {@link DATABASE_HOLD_MS} for it first. The agent answers a
 * request that needed it with the reference's `500 No cluster leader`, or `500 leadership lost
 * while committing log` when {@link DatabaseUnavailableError.outcomeUnknown} (docs/agent.md, "When
 * the database is away").
 */
export class DatabaseUnavailableError extends Error {
  /** `"DatabaseUnavailableError"`, set here so that bundling cannot rename it. */
  override readonly name = "DatabaseUnavailableError";

  constructor(
    message: string,
    /**
     * True when the connection was lost while a commit was on its way (a `COMMIT`, or a statement
     * that is its own transaction): the write may have been committed, or not. False when nothing
     * was committed.
     */
    readonly outcomeUnknown: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * How long a statement that cannot reach the database waits for it to come back before it fails
 * with {@link DatabaseUnavailableError}: the reference's `RPCHoldTimeout` (5 s), for which a
 * server holds a request while its cluster has no leader before it answers `No cluster leader`
 * (`nomad/rpc.go`, `forward`): a short outage is a slow answer rather than an error.
 */
export const DATABASE_HOLD_MS = 5_000;

/**
 * The first wait of the one loop that connects again after the database dropped the listening
 * connection; each failed attempt doubles it, up to {@link RECONNECT_MAX_DELAY_MS}, and each wait
 * is drawn between half of it and all of it (jitter, so that the agents of a cluster do not come
 * back in step). Statements held meanwhile wait for that loop rather than trying on their own.
 */
export const RECONNECT_MIN_DELAY_MS = 100;

/**
 * The longest wait between two attempts to connect again: once the database is back, the agent is
 * too within about this long (and so are the statements it held).
 */
export const RECONNECT_MAX_DELAY_MS = 1_000;

/** How long a connection attempt to the server may take. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * TCP keepalive on every connection, from this long idle: a server that vanished without closing
 * its connections (a host or network gone) is noticed in seconds rather than hours.
 */
const KEEPALIVE_IDLE_MS = 10_000;

/** The sizes and timeouts of {@link connectServer}'s pools; each defaults to its constant. */
export interface ServerOptions {
  /** Connections for writes, heartbeats and catching up (default {@link POOL_SIZE}). */
  readonly poolSize?: number;
  /** {@link LIST_POOL_SIZE} by default. */
  readonly listPoolSize?: number;
  /** {@link STATEMENT_TIMEOUT_MS} by default. */
  readonly statementTimeoutMs?: number;
  /** {@link LIST_STATEMENT_TIMEOUT_MS} by default. */
  readonly listStatementTimeoutMs?: number;
  /** {@link LIST_CONNECTION_WAIT_MS} by default. */
  readonly listConnectionWaitMs?: number;
  /** {@link DATABASE_HOLD_MS} by default. */
  readonly holdMs?: number;
  /** Told when the listening connection is lost (false, with the error) and when it is back (true): the agent logs both. */
  readonly onListening?: (listening: boolean, error?: Error) => void;
  /** Told of each notice the server sends on a pooled connection (its severity, `WARNING` or `NOTICE` say, and its message). */
  readonly onNotice?: (severity: string, message: string) => void;
}

/** The connections kept for writes, heartbeats and catching up. */
export const POOL_SIZE = 8;

/**
 * How long a pooled connection is used before it is replaced (when idle): so that the agent learns
 * of a smart shutdown (which refuses new connections and waits for the open ones to close) within
 * about this long, and lets go of its connections (see `connectServer`).
 */
export const CONNECTION_LIFETIME_MS = 10_000;

/**
 * The SQLSTATEs of a server that cannot serve the connection rather than the statement: class 08
 * (connection exception), 57P01–57P03 (shut down by an administrator, after a crash, or not yet
 * accepting connections) and 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]$|53300$)/;

/** The SQLSTATE of a server that refuses new connections as it starts up or shuts down (`cannot_connect_now`). */
const CANNOT_CONNECT_NOW = "57P03";

/**
 * A database served by PostgreSQL at `url` (`postgres://user:password@host:port/database`).
 *
 * At most {@link POOL_SIZE} + {@link LIST_POOL_SIZE} + 2 connections are open or being opened at
 * any moment (the pools, the listening connection, and the one attempt of its reconnect loop),
 * whatever the database does; while pools a shutdown made the agent let go of finish their work,
 * their connections count too.
 */
export async function connectServer(url: string, options: ServerOptions = {}): Promise<Database> {
  // Loaded only by agents that use a server: the others start without it.
  const { default: pg } = await loadOptional("the PostgreSQL store", () => import("pg"));
  const common = { connectionString: url, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS };
  /** The error each pooled connection raised, if it did. */
  const broken = new WeakMap<pg.Client, Error>();
  const watch = (client: pg.Client) => {
    client.on("error", (error: Error) => void (broken.has(client) || broken.set(client, error)));
    const { onNotice } = options;
    if (onNotice !== undefined) client.on("notice", (notice) => onNotice(notice.severity ?? "", notice.message ?? ""));
  };
  const newPools = () => {
    const pools = {
      main: new pg.Pool({
        ...common,
        max: options.poolSize ?? POOL_SIZE,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        maxLifetimeSeconds: CONNECTION_LIFETIME_MS / 1000,
        statement_timeout: options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
      }),
      list: new pg.Pool({
        ...common,
        max: options.listPoolSize ?? LIST_POOL_SIZE,
        connectionTimeoutMillis: options.listConnectionWaitMs ?? LIST_CONNECTION_WAIT_MS,
        maxLifetimeSeconds: CONNECTION_LIFETIME_MS / 1000,
        statement_timeout: options.listStatementTimeoutMs ?? LIST_STATEMENT_TIMEOUT_MS,
        // No JIT: its compile time grows with the filter's SQL, not the rows (an `and` of 1,000
        // clauses over two rows took 31 s with it, 0.8 s without), and a client writes the filter.
        options: "-c jit=off",
      }),
    };
    // An idle connection the server drops is replaced on the next query; the error must not go unheard.
    pools.main.on("error", () => {});
    pools.list.on("error", () => {});
    // Every connection is heard for its whole life: the pool listens on idle ones only, and a broken
    // connection's error may come as it is handed out, before its taker can listen (the server's
    // last answer and its termination read in one chunk), and an unheard error ends the process.
    pools.main.on("connect", watch);
    pools.list.on("connect", watch);
    return pools;
  };
  let pools = newPools();
  /** Pools let go of (see `yieldConnections`), ending as their connections come back. */
  const ending = new Set<Promise<void>>();
  const holdMs = options.holdMs ?? DATABASE_HOLD_MS;
  const listener = new Listener(() => new pg.Client({ ...common, connectionTimeoutMillis: CONNECT_TIMEOUT_MS }), (channel) => pg.escapeIdentifier(channel), options.onListening);

  /**
   * Whether `error`, from a statement, says that the connection failed rather than the statement:
   * any error but the server's answer to the statement, and the server's answers about the connection.
   */
  const connectionFailed = (error: unknown): boolean => (error instanceof pg.DatabaseError ? UNAVAILABLE_SQLSTATE.test(error.code ?? "") : error instanceof Error);
  const unavailable = (error: unknown, outcomeUnknown: boolean) => new DatabaseUnavailableError(`the database cannot be reached: ${(error as Error).message}`, outcomeUnknown, { cause: error });

  /**
   * The server refuses new connections as it shuts down: a smart shutdown waits for every session
   * to end, so the agent lets go of its connections (the listening one, and the pools' as their
   * work ends) rather than keep the server from stopping; it connects again once the server is
   * back. The agent learns of the shutdown at its next new connection: a pool's connections are
   * replaced every {@link CONNECTION_LIFETIME_MS}, and the heartbeat needs one every second.
   */
  const yieldConnections = () => {
    if (!listener.up) return;
    const old = pools;
    pools = newPools();
    const ended = Promise.all([old.main.end(), old.list.end()]).then(() => {});
    ending.add(ended);
    void ended.finally(() => ending.delete(ended));
    listener.drop(new Error("the database is shutting down: it refuses new connections, and the agent lets go of its own so that the shutdown can end"));
  };

  /** Whether a connection was ever made: before that, a failure to connect is the agent's start failing, at once. */
  let reached = false;

  /**
   * A connection of a pool, for one statement or transaction: when the database cannot be reached,
   * held until it is back, or until {@link DATABASE_HOLD_MS} after `since`. While the listening
   * connection is down no attempt is made here (its reconnect loop finds when the database is
   * back); while it is up, attempts back off as that loop does. Whatever makes a connection fail
   * (the server away, refusing clients, shutting down, or not accepting this database now) is the
   * database being unreachable for the agent.
   */
  const acquire = async (kind: "main" | "list", since: number): Promise<pg.PoolClient> => {
    const deadline = since + holdMs;
    for (let delay = RECONNECT_MIN_DELAY_MS; ; delay = Math.min(delay * 2, RECONNECT_MAX_DELAY_MS)) {
      if (listener.closed) throw new DatabaseUnavailableError("the agent is closing its connections to the database", false);
      let failure: unknown;
      if (listener.up) {
        const pool = pools[kind];
        try {
          const client = await pool.connect();
          reached = true;
          const lost = broken.get(client);
          if (lost === undefined) return client;
          // Broken as it was handed out: dropped, and counted as a failed attempt.
          client.release(lost);
          throw lost;
        } catch (error) {
          if (kind === "list" && isPoolTimeout(pool, error)) {
            // Every connection of the pool is taken and none came free in time.
            throw new DatabaseBusyError(`no connection for a list page came free within ${options.listConnectionWaitMs ?? LIST_CONNECTION_WAIT_MS} ms: all ${pool.options.max} are reading other pages`);
          }
          if (!reached) throw unavailable(error, false);
          if (error instanceof pg.DatabaseError && error.code === CANNOT_CONNECT_NOW) yieldConnections();
          failure = error;
        }
      }
      const left = deadline - performance.now();
      if (left <= 0) throw failure === undefined ? new DatabaseUnavailableError(`the database was unreachable for ${holdMs} ms (the agent is connecting again)`, false) : unavailable(failure, false);
      // Down: until the reconnect loop is back (or the hold is over). Up, but this attempt failed: a while.
      await listener.whenUp(failure === undefined ? left : Math.min(left, jittered(delay)));
    }
  };

  /**
   * Runs `sql` on a checked-out connection. A failure of the connection becomes a
   * {@link DatabaseUnavailableError}; `outcomeUnknown` when the statement was a commit.
   */
  const statement = async (client: pg.PoolClient, sql: string, params: readonly unknown[] | undefined, outcomeUnknown: boolean): Promise<TextRow[]> => {
    try {
      return (await client.query<TextRow>(sql, params as unknown[] | undefined)).rows;
    } catch (error) {
      throw connectionFailed(error) ? unavailable(error, outcomeUnknown) : error;
    }
  };

  /** Checks out a connection for `use`, and gives it back, or drops it when broken (see `watch`). */
  const withClient = async <T>(kind: "main" | "list", since: number | undefined, use: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await acquire(kind, since ?? performance.now());
    let failure: Error | undefined;
    try {
      return await use(client);
    } catch (error) {
      if (error instanceof DatabaseUnavailableError) failure = error;
      throw error;
    } finally {
      client.release(broken.get(client) ?? failure);
    }
  };

  /**
   * Runs `sql` and then `COMMIT` as one script (the simple protocol: one round trip, no
   * parameters); the rows of `sql`. The commit's outcome is unknown when the connection fails.
   */
  const statementAndCommit = async (client: pg.PoolClient, sql: string, outcomeUnknown: boolean): Promise<TextRow[]> => {
    try {
      // A script of several statements answers with a result for each.
      const results = (await client.query<TextRow>(`${sql};\nCOMMIT`)) as unknown as pg.QueryResult<TextRow> | pg.QueryResult<TextRow>[];
      return (Array.isArray(results) ? results[0]! : results).rows;
    } catch (error) {
      throw connectionFailed(error) ? unavailable(error, outcomeUnknown) : error;
    }
  };

  /**
   * A transaction on a connection of `kind`, begun by `begin` (one statement, or several without
   * parameters, which the server takes in one round trip): the list pool's only read, so a commit
   * lost on its way leaves nothing unknown.
   */
  const transaction = <T>(kind: "main" | "list", work: (session: TransactionSession) => Promise<T>, since?: number, begin = "BEGIN"): Promise<T> =>
    withClient(kind, since, async (client) => {
      await statement(client, begin, undefined, false);
      const { session, committed } = sessionOf(
        (sql, params) => statement(client, sql, params, false),
        (sql, params) => statementAndCommit(client, inlineParameters(sql, params ?? []), kind === "main"),
      );
      try {
        const result = await work(session);
        if (!committed()) await statement(client, "COMMIT", undefined, kind === "main");
        return result;
      } catch (error) {
        // A transaction its last statement committed has nothing to roll back (the server would warn of it).
        if (!(error instanceof DatabaseUnavailableError) && !committed()) await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });

  return {
    query: (sql, params, since) => withClient("main", since, (client) => statement(client, sql, params, false)),
    write: (sql, params, since) => withClient("main", since, (client) => statement(client, sql, params, true)),
    transaction: (work, since) => transaction("main", work, since),
    listTransaction: (work, statementTimeoutMs) =>
      transaction("list", work, undefined, `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY${statementTimeoutMs === undefined ? "" : `; SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}`}`),
    listen: (channel, onPayload, onReconnect) => listener.start(channel, onPayload, onReconnect),
    get listening() {
      return listener.up;
    },
    async close() {
      await listener.close();
      await Promise.all([pools.main.end(), pools.list.end(), ...ending]);
    },
  };
}

/**
 * The session of a transaction whose statements `run` runs and whose last statement, the one that
 * commits it, `runAndCommit` runs: a statement after that one is refused. `committed` tells
 * whether that one was answered (the transaction is over then: there is nothing to roll back).
 */
function sessionOf(
  run: (sql: string, params?: readonly unknown[]) => Promise<TextRow[]>,
  runAndCommit: (sql: string, params?: readonly string[]) => Promise<TextRow[]>,
): { readonly session: TransactionSession; readonly committed: () => boolean } {
  let last = false;
  let committed = false;
  const open = () => {
    if (last) throw new Error("the transaction was committed by its last statement");
  };
  const session: TransactionSession = {
    query: async (sql, params) => {
      open();
      return run(sql, params);
    },
    queryAndCommit: async (sql, params) => {
      open();
      last = true;
      const rows = await runAndCommit(sql, params);
      committed = true;
      return rows;
    },
  };
  return { session, committed: () => committed };
}

/**
 * `sql` with its parameters `$1`, `$2`… written in as string literals (`E'…'`, whose escapes do not
 * depend on `standard_conforming_strings`): for a script, which the simple protocol runs without
 * parameters. A literal is typed by its context as a parameter is (`$1::json`, a function's
 * argument). Only for the agent's own statements, whose text holds no `$` but its parameters'.
 */
export function inlineParameters(sql: string, params: readonly string[]): string {
  return sql.replace(/\$(\d+)/g, (_, position: string) => {
    const value = params[Number(position) - 1];
    if (value === undefined) throw new Error(`the statement has no parameter ${position}`);
    return `E'${value.replace(/[\\']/g, (character) => (character === "'" ? "''" : "\\\\"))}'`;
  });
}

/**
 * Whether `error` is the pool's own timeout waiting for one of its connections while every one is
 * out (pg says so in words only: its error has no code).
 */
function isPoolTimeout(pool: pg.Pool, error: unknown): boolean {
  return pool.totalCount >= (pool.options.max ?? 0) && /timeout exceeded when trying to connect/i.test((error as Error).message);
}

/** A wait drawn between half of `delay` and all of it. */
function jittered(delay: number): number {
  return delay / 2 + Math.random() * (delay / 2);
}

/**
 * The connection that listens for the other agents' notifications, and the agent's one probe of
 * the database while it is away. When the server drops it, one loop (never more: the handlers of a
 * connection that failed or was replaced do nothing) connects again, with exponential backoff and
 * jitter from {@link RECONNECT_MIN_DELAY_MS} to {@link RECONNECT_MAX_DELAY_MS}, as lib/pq's
 * `Listener` keeps one loop between a minimum and a maximum interval; statements that cannot reach
 * the database wait for it ({@link Listener.whenUp}).
 */
class Listener {
  #client: pg.Client | undefined;
  #subscription: { readonly channel: string; readonly onPayload: (payload: string) => void; readonly onReconnect: () => void } | undefined;
  #reconnecting: Promise<void> | undefined;
  #closed = false;
  /** Resolvers of {@link Listener.whenUp} waits, called when the connection is back or the listener closes. */
  readonly #waiters = new Set<() => void>();

  constructor(
    private readonly newClient: () => pg.Client,
    private readonly quote: (channel: string) => string,
    private readonly onListening: (listening: boolean, error?: Error) => void = () => {},
  ) {}

  /** False while the listening connection is down (the database is away), or after {@link Listener.close}; true otherwise (before any listen too). */
  get up(): boolean {
    return !this.#closed && (this.#subscription === undefined || this.#client !== undefined);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Listens on `channel` (once per database): resolves once listening, rejects when the first connection fails. */
  async start(channel: string, onPayload: (payload: string) => void, onReconnect: () => void): Promise<void> {
    if (this.#subscription !== undefined) throw new Error("the database listens on one channel only");
    this.#subscription = { channel, onPayload, onReconnect };
    await this.#connect();
  }

  /** Resolves when the listening connection is up, or after `ms`, or when the listener closes, whichever comes first. */
  whenUp(ms: number): Promise<void> {
    if (this.up || this.#closed) return new Promise((resolve) => setTimeout(resolve, this.up ? ms : 0));
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
    });
  }

  /** One attempt: a new connection, listening; it becomes the current one only once it listens. */
  async #connect(): Promise<void> {
    const { channel, onPayload } = this.#subscription!;
    const client = this.newClient();
    let gone = false;
    // Whatever this connection raises from now on: only the loss of the current one starts the loop.
    const lost = (error?: Error) => {
      if (gone) return;
      gone = true;
      void client.end().catch(() => {});
      if (client === this.#client) this.#lost(error);
    };
    client.on("error", lost);
    client.on("end", () => lost());
    client.on("notification", (message) => {
      if (!gone) onPayload(message.payload ?? "");
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.quote(channel)}`);
    } catch (error) {
      lost(error as Error);
      throw error;
    }
    if (this.#closed || gone) {
      lost();
      if (!this.#closed) throw new Error("the listening connection was lost as it started");
      return;
    }
    this.#client = client;
    for (const wake of [...this.#waiters]) wake();
  }

  /** Lets go of the listening connection, for `reason`: the loop connects again once it can. */
  drop(reason: Error): void {
    const client = this.#client;
    if (client === undefined) return;
    this.#lost(reason);
    void client.end().catch(() => {});
  }

  /** The current connection is gone: the loop starts, unless it runs already. */
  #lost(error: Error | undefined): void {
    this.#client = undefined;
    if (this.#closed || this.#reconnecting !== undefined) return;
    this.onListening(false, error);
    this.#reconnecting = this.#reconnect().finally(() => (this.#reconnecting = undefined));
  }

  /** The one reconnect loop: attempts with backoff until one listens, then the owner catches up (notifications sent meanwhile are lost). */
  async #reconnect(): Promise<void> {
    for (let delay = RECONNECT_MIN_DELAY_MS; !this.#closed && this.#client === undefined; delay = Math.min(delay * 2, RECONNECT_MAX_DELAY_MS)) {
      await new Promise((resolve) => setTimeout(resolve, jittered(delay)));
      if (this.#closed) return;
      try {
        await this.#connect();
      } catch {
        // Still away: try again, a little later.
        continue;
      }
      if (this.#client === undefined) continue;
      this.onListening(true);
      this.#subscription!.onReconnect();
    }
  }

  /** Stops listening and the loop; wakes every wait. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of [...this.#waiters]) wake();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}

/** A database served by a PGlite instance the caller opened (and closes). */
export function fromPglite(instance: PgliteLike): Database {
  const unlisten: ((...args: never[]) => Promise<void>)[] = [];
  const query: Database["query"] = async (sql, params) => (await instance.query<TextRow>(sql, params === undefined ? undefined : [...params])).rows;
  const transaction: Database["transaction"] = (work) =>
    instance.transaction((tx) => {
      // In-process, a statement costs no round trip: the last one is a statement like the others, and the transaction commits as `work` resolves.
      const query = async (sql: string, params?: readonly unknown[]) => (await tx.query<TextRow>(sql, params === undefined ? undefined : [...params])).rows;
      return work(sessionOf(query, query).session);
    });
  return {
    query,
    write: query,
    transaction,
    // One engine, one statement at a time: there is no other connection to keep for list pages, and
    // no statement to time out (PGlite cannot interrupt one).
    listTransaction: (work) =>
      transaction(async (session) => {
        await session.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
        return work(session);
      }),
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
