/**
 * The PostgreSQL {@link Store}: the state several agents share, as the servers of one region share
 * their Raft log.
 *
 * - **One counter.** Every write bumps the one row of `state` in its own transaction: the row lock
 *   makes writes of every agent take turns, and the index they get is global and monotonic.
 * - **A copy in each agent.** Each agent keeps the whole state in memory (a {@link MemoryStore}),
 *   as each reference server keeps its state store: reads, the scheduler's decisions and `?stale`
 *   lists use it. A write first brings the copy up to the database's index (inside its transaction,
 *   holding the counter's lock), runs `apply` on it, stores the rows it changed, and applies them to
 *   the copy once committed.
 * - **Waking other agents.** A write notifies the schema's channel (`LISTEN`/`NOTIFY`) with its
 *   index; every agent then reads the rows changed since its copy's index, applies them, and wakes
 *   its blocking queries. A notification is not durable: after its listening connection comes back
 *   the agent reads again whatever changed; the membership heartbeat reads the index every second
 *   as well.
 * - **Rows** are kept as JSON text that gives the same row back, with their order columns, and for
 *   listed tables a jsonb search document (see `rows.ts`); a deleted row stays as a tombstone (no
 *   document), so that an agent catching up learns of the deletion.
 *
 * @module
 */
import { nestingDepth, stringifyJson } from "../../../json.js";
import { MemoryStore } from "../memory.js";
import { mergeChanges, runTransaction, withChanges } from "../overlay.js";
import {
  TABLE_NAMES,
  type AppliedWrite,
  type Changes,
  type ListPage,
  type ListPageRequest,
  type Listing,
  type Queries,
  type SearchDocument,
  type SearchDocuments,
  type Store,
  type TableName,
  type Tables,
  type Transaction,
  type WriteMessage,
} from "../store.js";
import { DatabaseUnavailableError, type Database, type SqlSession, type TextRow, type TransactionSession } from "./database.js";
import { sqlPage } from "./pages.js";
import { decodeRow, rowColumns, RowEncoder } from "./rows.js";

/** The version of the tables this code reads and writes; a database made by another version is refused. */
export const SCHEMA_VERSION = 1;

/** The PostgreSQL schema the agent's tables are in unless another is named. */
export const DEFAULT_SCHEMA = "bexpr";

/** A schema name the agent accepts: a plain lower-case identifier (it is also part of the notification channel's name). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,50}$/;

/** How often an agent looks whether the work of another's claim is done. */
const CLAIM_POLL_MS = 50;

/**
 * How long after another agent's write an agent takes the counter's lock before it applies a batch
 * (rather than trying optimistically first): agents that write at once would mostly be refused, and
 * apply every batch twice.
 */
const CONTENDED_MS = 1_000;

/** The most writes committed in one transaction (a group commit). */
export const MAX_BATCH_WRITES = 256;

/** The database's index a batch was applied at (`base`), its last write's index, and the last index of each table it names. */
interface Counter {
  readonly base: number;
  readonly index: number;
  readonly tableIndexes: ReadonlyMap<string, number>;
}

/** A batch applied to the copy: the writes done (with their indexes and changes), the writes refused, and the counter's move. */
interface AppliedBatch {
  readonly done: readonly { readonly write: QueuedWrite; readonly index: number; readonly changes: Changes; readonly result: unknown }[];
  readonly refused: readonly { readonly write: QueuedWrite; readonly error: unknown }[];
  readonly counter: Counter;
}

/** A write waiting for its group commit. */
interface QueuedWrite {
  readonly tables: readonly TableName[];
  readonly message: WriteMessage;
  readonly apply: (transaction: Transaction<TableName>) => unknown;
  readonly resolve: (done: { index: number; result: unknown }) => void;
  readonly reject: (error: unknown) => void;
  /** When it was queued (`performance.now()`): the database's hold for it counts from then. */
  readonly since: number;
}

/** Options of a {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** The PostgreSQL schema that holds the agent's tables (created when missing); agents share state when they share it. */
  readonly schema?: string;
  /** The search documents of the listed tables (see `rows.ts`). */
  readonly documents?: SearchDocuments;
}

/** The error of a database that cannot be used (another schema version, a malformed schema name). */
export class StoreSetupError extends Error {
  override readonly name = "StoreSetupError";
}

/** The state several agents share through PostgreSQL. */
export class PostgresStore implements Store {
  /** The agent's copy of the state. */
  readonly #copy = new MemoryStore();
  readonly #documents: SearchDocuments;
  /** The schema's name, quoted for SQL. */
  readonly sqlSchema: string;
  /** The channel writes are announced on. */
  readonly #channel: string;
  /** When the copy last matched the database (epoch milliseconds): what `?stale` reads report as their age. */
  #syncedAt = Date.now();
  /** A catch-up running, and whether another must follow it (a notification came meanwhile). */
  #syncing: Promise<void> | undefined;
  #syncAgain = false;
  /** Why the last catch-up failed, if it did. */
  #syncError: unknown;
  /** The writes waiting for the next group commit, and whether one is under way. */
  readonly #queue: QueuedWrite[] = [];
  #flushing = false;
  /** The highest index announced on the channel. */
  #announced = 0;
  /** The last index of the batch being stored (0 when none is). */
  #storing = 0;
  /**
   * True while a group commit waits for the counter's lock, which comes with every write committed
   * before it: the notifications of those writes then start no catch-up of their own, which would
   * read the same rows again.
   */
  #locking = false;
  /** The barrier of consistent reads under way, and the next one, which reads that came meanwhile wait for (see {@link PostgresStore.catchUp}). */
  #barrier: Promise<void> | undefined;
  #nextBarrier: Promise<void> | undefined;
  /** When the first read waiting for the next barrier came (`performance.now()`). */
  #nextSince: number | undefined;
  /** When the copy last took up another agent's write (`performance.now()`), or -Infinity. */
  #othersWroteAt = -Infinity;

  private constructor(
    readonly database: Database,
    readonly schema: string,
    documents: SearchDocuments,
  ) {
    this.sqlSchema = `"${schema}"`;
    this.#channel = `bexpr_${schema}`;
    this.#documents = documents;
  }

  /**
   * Opens the state in `database`: creates the schema and its tables when missing (once, when
   * several agents start together), loads the whole state into the agent's copy, and listens for
   * the other agents' writes.
   *
   * @throws StoreSetupError for a malformed schema name or a database of another schema version.
   */
  static async open(database: Database, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const schema = options.schema ?? DEFAULT_SCHEMA;
    if (!SCHEMA_NAME.test(schema)) throw new StoreSetupError(`the schema name ${JSON.stringify(schema)} must be a lower-case identifier of at most 51 characters (a-z, 0-9, _)`);
    const store = new PostgresStore(database, schema, options.documents ?? {});
    await store.#createTables();
    await database.listen(
      store.#channel,
      (payload) => {
        const index = Number(payload);
        if (index > store.#announced) store.#announced = index;
        if (index > store.index && index > store.#storing && !store.#locking) void store.sync();
      },
      () => void store.sync(),
    );
    await store.sync();
    return store;
  }

  async #createTables(): Promise<void> {
    const s = this.sqlSchema;
    await this.database.transaction(async (session) => {
      // Agents starting together on an empty database: one creates the tables, the others wait and find them.
      await session.query("SELECT 'locked' AS locked FROM (SELECT pg_advisory_xact_lock(hashtext($1))) AS held", [`bexpr schema ${this.schema}`]);
      await session.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await session.query(`CREATE TABLE IF NOT EXISTS ${s}.state (id int PRIMARY KEY CHECK (id = 1), index bigint NOT NULL, version int NOT NULL, seeded boolean NOT NULL DEFAULT false)`);
      await session.query(`INSERT INTO ${s}.state (id, index, version) VALUES (1, 1, $1) ON CONFLICT (id) DO NOTHING`, [String(SCHEMA_VERSION)]);
      const [state] = await session.query(`SELECT version::text AS version FROM ${s}.state`);
      if (Number(state!.version) !== SCHEMA_VERSION) {
        throw new StoreSetupError(`the schema ${this.schema} holds tables of version ${state!.version}; this agent reads version ${SCHEMA_VERSION}: name another schema`);
      }
      await session.query(`CREATE TABLE IF NOT EXISTS ${s}.table_index (tbl text PRIMARY KEY, index bigint NOT NULL)`);
      await session.query(
        `CREATE TABLE IF NOT EXISTS ${s}.rows (
          tbl text COLLATE "C" NOT NULL,
          key text COLLATE "C" NOT NULL,
          doc text,
          document jsonb,
          ns text COLLATE "C",
          id text COLLATE "C" NOT NULL,
          create_index bigint,
          modify_index bigint NOT NULL,
          PRIMARY KEY (tbl, key))`,
      );
      // The message of the write that last changed each row (a store's \`WriteMessage\`; null: none), for the event types of
      // the writes other agents catch up with. Added to tables made before it; they read as written with no message.
      await session.query(`ALTER TABLE ${s}.rows ADD COLUMN IF NOT EXISTS message text`);
      // lz4 compresses the rows' text and documents several times faster than PostgreSQL's default (pglz), which was half
      // of the server's time storing a batch of registrations: where the server has it (PostgreSQL 14 and later, built with it).
      const [compression] = await session.query(
        `SELECT (SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression')::text AS available,
          (SELECT bool_and(attcompression = 'l') FROM pg_attribute WHERE attrelid = '${s}.rows'::regclass AND attname IN ('doc', 'document'))::text AS used`,
      );
      if (compression!.available === "true" && compression!.used !== "true") {
        await session.query(`ALTER TABLE ${s}.rows ALTER COLUMN doc SET COMPRESSION lz4, ALTER COLUMN document SET COMPRESSION lz4`);
      }
      await session.query(`CREATE INDEX IF NOT EXISTS rows_changes ON ${s}.rows (modify_index)`);
      await session.query(`CREATE INDEX IF NOT EXISTS rows_jobs_documents ON ${s}.rows USING gin (document jsonb_path_ops) WHERE tbl = 'jobs'`);
      const documented = Object.keys(this.#documents).map((table) => `'${table}'`);
      if (documented.length > 0) {
        // The orders of the pages read from the database, over the rows of the lists with a keyset (the tables with search
        // documents) only: most writes are of other tables (allocations, evaluations, summaries, versions), and each of
        // their rows was kept in three more indexes that no query reads. Tables made before had those: they are dropped.
        await session.query(`DROP INDEX IF EXISTS ${s}.rows_by_namespace, ${s}.rows_by_creation, ${s}.rows_by_id`);
        const listed = `WHERE doc IS NOT NULL AND tbl IN (${documented.join(", ")})`;
        await session.query(`CREATE INDEX IF NOT EXISTS rows_listed_by_namespace ON ${s}.rows (tbl, ns, id) ${listed}`);
        await session.query(`CREATE INDEX IF NOT EXISTS rows_listed_by_creation ON ${s}.rows (tbl, create_index, id) ${listed}`);
        await session.query(`CREATE INDEX IF NOT EXISTS rows_listed_by_id ON ${s}.rows (tbl, id) ${listed}`);
        // The rows without a search document, which every pushed-down filter selects: almost always none.
        await session.query(`CREATE INDEX IF NOT EXISTS rows_undocumented ON ${s}.rows (tbl) WHERE doc IS NOT NULL AND document IS NULL AND tbl IN (${documented.join(", ")})`);
      }
      // The counter's lock and the changes since an index, in one statement (see #commitLocked): a function, volatile, so that its
      // second statement's snapshot is taken once the lock is held, and holds every write committed before it.
      await session.query(
        `CREATE OR REPLACE FUNCTION ${s}.locked_changes(after bigint) RETURNS TABLE (kind text, tbl text, key text, doc text, idx text, message text)
          LANGUAGE sql VOLATILE AS $body$ SELECT index FROM ${s}.state FOR UPDATE; ${changesQuery(s, "after")} $body$`,
      );
      await session.query(`CREATE TABLE IF NOT EXISTS ${s}.claims (name text PRIMARY KEY, claimed_at timestamptz NOT NULL DEFAULT now(), done boolean NOT NULL DEFAULT false)`);
      await session.query(
        `CREATE TABLE IF NOT EXISTS ${s}.members (
          name text PRIMARY KEY, address text NOT NULL, port int NOT NULL, datacenter text NOT NULL, node_id text NOT NULL,
          version text NOT NULL, status text NOT NULL, heartbeat timestamptz NOT NULL)`,
      );
      await session.query(`CREATE TABLE IF NOT EXISTS ${s}.leader (id int PRIMARY KEY CHECK (id = 1), holder text NOT NULL, expires timestamptz NOT NULL)`);
    });
  }

  get index(): number {
    return this.#copy.index;
  }

  get tables(): Tables {
    return this.#copy.tables;
  }

  get queries(): Queries {
    return this.#copy.queries;
  }

  tableIndex(...tables: readonly TableName[]): number {
    return this.#copy.tableIndex(...tables);
  }

  /**
   * How old the agent's copy may be, in milliseconds: 0 while the agent listens for the other
   * agents' writes and has applied every one announced; otherwise the time since the copy last
   * caught up with the database.
   */
  get copyAgeMs(): number {
    return this.database.listening && this.#announced <= this.#copy.index ? 0 : Date.now() - this.#syncedAt;
  }

  /**
   * One page of a list. A consistent read of a list with a keyset is read from the database, at
   * its index, in one snapshot, with the filter pushed down where it is within its bounds (see
   * `pages.ts`): it sees every write committed before it, whichever agent made it. `?stale` reads,
   * and lists without a keyset, are paged from the agent's copy (which a consistent read's barrier
   * brought up to the database first).
   */
  page<Row>(listing: Listing<Row>, request: ListPageRequest<Row>): ListPage<Row> | Promise<ListPage<Row>> {
    const { keyset } = listing;
    if (request.stale || keyset === undefined) return this.#copy.page(listing, request);
    return sqlPage(this.database, this.sqlSchema, this.#copy, listing, keyset, request);
  }

  async seed<Names extends TableName>(tables: readonly Names[], apply: (transaction: Transaction<Names>) => void): Promise<void> {
    const s = this.sqlSchema;
    const seeded = await this.database.transaction(async (session) => {
      const [state] = await session.query(`SELECT seeded::text AS seeded FROM ${s}.state FOR UPDATE`);
      if (state!.seeded === "true") return undefined;
      const { changes } = runTransaction(this.#copy.tables, tables, 1, apply);
      await this.#store(session, [{ index: 1, changes }]);
      await session.query(`UPDATE ${s}.state SET seeded = true`);
      return changes;
    });
    if (seeded !== undefined) await this.#copy.seed(tables, (transaction) => applyChanges(transaction as Transaction<TableName>, seeded));
    else await this.#loadSeed();
  }

  /** Reads the rows of the seed (index 1), which the copy may have been loaded without. */
  async #loadSeed(): Promise<void> {
    const rows = await this.database.query(`SELECT tbl, key, doc FROM ${this.sqlSchema}.rows WHERE modify_index <= 1 AND doc IS NOT NULL`);
    const changes = changesOf(rows);
    const names = Object.keys(changes) as TableName[];
    if (names.length > 0) await this.#copy.seed(names, (transaction) => applyChanges(transaction, changes));
  }

  /**
   * Claims `name` in the shared state: true for the first agent that claims it (the one that loads
   * the demo data), false for every other and every later claim.
   */
  async claim(name: string): Promise<boolean> {
    const rows = await this.database.query(`INSERT INTO ${this.sqlSchema}.claims (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING name`, [name]);
    return rows.length === 1;
  }

  /** Marks the work of a claim done (see {@link PostgresStore.waitForClaim}). */
  async finishClaim(name: string): Promise<void> {
    await this.database.query(`UPDATE ${this.sqlSchema}.claims SET done = true WHERE name = $1`, [name]);
  }

  /**
   * Waits until the agent that claimed `name` has done its work (the demo data loaded), at most
   * `timeoutMs`; resolves false when it has not by then (that agent died on the way, say).
   */
  async waitForClaim(name: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [claim] = await this.database.query(`SELECT done::text AS done FROM ${this.sqlSchema}.claims WHERE name = $1`, [name]);
      if (claim?.done === "true") return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
    }
  }

  /**
   * Runs a write: queued, and committed with the writes queued beside it in one transaction (a
   * group commit), each at its own index, in the order they came, each seeing the ones before it.
   * A write whose `apply` throws is left out (it rejects), and the others go on.
   */
  write<Names extends TableName, T>(tables: readonly Names[], apply: (transaction: Transaction<Names>) => T, message: WriteMessage): Promise<{ index: number; result: T }> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ tables, message, apply: apply as (transaction: Transaction<TableName>) => unknown, resolve: resolve as (done: { index: number; result: unknown }) => void, reject, since: performance.now() });
      if (!this.#flushing) void this.#flush();
    });
  }

  /** Commits the queued writes, a batch at a time, until none is left. */
  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) await this.#commit(this.#queue.splice(0, MAX_BATCH_WRITES));
    } finally {
      this.#flushing = false;
    }
  }

  /**
   * One group commit. While no other agent writes, optimistically: the writes applied to the copy as
   * it is, and stored in one statement (its own transaction) on condition that the database's index
   * is still the copy's, so that the counter's row is locked only while PostgreSQL stores the rows.
   * Otherwise, or when another agent wrote meanwhile (nothing is then stored), the batch is applied
   * holding the counter's lock, on the state brought up to date (`apply` may therefore run twice: it
   * changes nothing but its transaction). The other agents wait for that lock: it is held for two
   * statements, each one round trip on a server (the lock with the changes since the copy's index,
   * then the rows stored with the commit), rather than four (the lock, the changes, the rows, the
   * commit, each answered before the next was sent, each costing a wake-up of both processes).
   */
  async #commit(batch: readonly QueuedWrite[]): Promise<void> {
    // While the database is away, a batch waits for it as long as its first write may (see `Database.transaction`).
    const since = Math.min(...batch.map((write) => write.since));
    let applied: AppliedBatch;
    try {
      applied =
        (await this.#commitOptimistically(batch, since)) ??
        (await this.#commitLocked(batch, since));
    } catch (error) {
      // The database refused the statement or the transaction (or is away): no write of the batch happened.
      for (const write of batch) write.reject(error);
      // The notifications left while the lock was awaited.
      if (this.#announced > this.#copy.index) void this.sync();
      return;
    }
    for (const { write, index, changes, result } of applied.done) {
      this.#copy.replicate({ index, changes, messages: new Map([[index, write.message]]) }, write.tables);
      write.resolve({ index, result });
    }
    for (const { write, error } of applied.refused) write.reject(error);
    // A notification of another agent's write that came while this batch was being stored was left for now.
    if (this.#announced > this.#copy.index) void this.sync();
  }

  /**
   * The batch applied holding the counter's lock, on the state brought up to date, and stored. A
   * catch-up under way is awaited first (outside the lock), so that the rows it reads are not read
   * again with the lock; the notifications that come while the lock is awaited are left to it.
   */
  async #commitLocked(batch: readonly QueuedWrite[], since: number): Promise<AppliedBatch> {
    await this.#syncing;
    this.#locking = true;
    try {
      return await this.database.transaction(async (session) => {
        // The counter's row lock: from here until the commit, no other agent writes. With it come the writes of other agents
        // committed since the copy's index, which bring the copy up to them, so that each `apply` sees the latest state.
        let index: number;
        try {
          index = await this.#readChanges(session, true);
        } finally {
          this.#locking = false;
        }
        const again = this.#apply(batch, index);
        if (again.done.length === 0) return again;
        // The notification of the batch's own index is not taken for another agent's write meanwhile (see `#commitOptimistically`).
        this.#storing = again.counter.index;
        await this.#store(session, again.done, again.counter, true);
        return again;
      }, since);
    } finally {
      this.#locking = false;
      this.#storing = 0;
    }
  }

  /**
   * The batch applied to the copy as it is and stored, when no other agent writes (none wrote in
   * the last {@link CONTENDED_MS}, none is announced beyond the copy) and none wrote meanwhile;
   * undefined, with nothing stored, otherwise. While it is stored, the notification of its own
   * index is not taken for another agent's write (which would read the batch's rows back).
   */
  async #commitOptimistically(batch: readonly QueuedWrite[], since: number): Promise<AppliedBatch | undefined> {
    if (performance.now() - this.#othersWroteAt < CONTENDED_MS || this.#announced > this.#copy.index) return undefined;
    const applied = this.#apply(batch, this.#copy.index);
    if (applied.done.length === 0) return applied;
    this.#storing = applied.counter.index;
    try {
      // One statement, its own transaction: lost on its way, it may have been committed or not.
      return (await this.#store({ query: (sql, params) => this.database.write(sql, params, since) }, applied.done, applied.counter)) ? applied : undefined;
    } finally {
      this.#storing = 0;
    }
  }

  /**
   * Applies a batch to the copy's state at the database's index `base` (nothing changes in the
   * copy): each write at its own index, seeing the ones before it; a write whose `apply` throws is
   * refused and the others go on.
   */
  #apply(batch: readonly QueuedWrite[], base: number): AppliedBatch {
    const done: AppliedBatch["done"][number][] = [];
    const refused: AppliedBatch["refused"][number][] = [];
    const merged: Partial<Record<TableName, Map<string, unknown>>> = {};
    let index = base;
    for (const write of batch) {
      try {
        const { result, changes } = runTransaction(withChanges(this.#copy.tables, merged as Changes), write.tables, index + 1, write.apply);
        index++;
        mergeChanges(merged, changes);
        done.push({ write, index, changes, result });
      } catch (error) {
        refused.push({ write, error });
      }
    }
    const tableIndexes = new Map<string, number>();
    for (const { write, index: at } of done) for (const table of write.tables) tableIndexes.set(table, at);
    return { done, refused, counter: { base, index, tableIndexes } };
  }

  /**
   * Stores the rows a batch of writes changed (each key's last version, at the index of the write
   * that made it; tombstones for deletions) and rewrites the search documents they are part of; with
   * `counter`, in the same statement and only if the database's index is still `counter.base`,
   * moves the state's index and the tables' indexes and announces the index on the channel
   * (delivered at the commit). Resolves false when the index had moved: nothing was stored.
   *
   * The rows go as one JSON parameter, each row's text and search document in it as they are (see
   * {@link jsonText}): `pg`'s array literals, which escaped every quote of every row again in
   * JavaScript, were a sixth of the agent's time when registering jobs. A row put again unchanged
   * (the same object as the copy holds) is not stored again.
   */
  async #store(
    session: SqlSession,
    writes: readonly { index: number; changes: Changes; write?: { readonly message: WriteMessage } }[],
    counter?: Counter,
    commit = false,
  ): Promise<boolean> {
    const last = new Map<string, { table: TableName; key: string; row: unknown; index: number; message: WriteMessage | undefined }>();
    const merged: Partial<Record<TableName, Map<string, unknown>>> = {};
    for (const { index, changes, write } of writes) {
      mergeChanges(merged, changes);
      for (const table of Object.keys(changes) as TableName[]) {
        for (const [key, row] of changes[table]!) last.set(`${table} ${key}`, { table, key, row, index, message: write?.message });
      }
    }
    const view = withChanges(this.#copy.tables, merged as Changes) as Tables;
    const rows: string[] = [];
    const encoder = new RowEncoder();
    const stored = new Set<string>();
    for (const [storedKey, { table, key, row, index, message }] of last) {
      // A row put again as it was (a job whose status did not change) is in the database already.
      if (row !== undefined && row === this.#copy.tables[table].get(key)) continue;
      stored.add(storedKey);
      // A tombstone's id is never read (lookups skip rows without a doc), but a namespaced key's NUL cannot be stored as text: its JSON form is.
      const { namespace, id, createIndex } = row === undefined ? { namespace: null, id: sqlKey(key), createIndex: null } : rowColumns(table, row as never);
      const text = row === undefined ? undefined : encoder.encode(table, row as never);
      const document = row === undefined ? `"document":null` : this.#documentJson(table, row, text!, view);
      rows.push(
        `{"tbl":${JSON.stringify(table)},"key":${JSON.stringify(sqlKey(key))},"doc":${text === undefined ? "null" : jsonText(text)},${document},` +
          `"ns":${JSON.stringify(namespace)},"id":${JSON.stringify(id)},"create_index":${createIndex === null ? "null" : createIndex},"modify_index":${index},"message":${JSON.stringify(message ?? null)}}`,
      );
    }
    // The documents a changed row is part of (a job's, for its summary), when the document's own row is not stored.
    const rewritten: string[] = [];
    for (const [followed, definition] of Object.entries(this.#documents) as [TableName, SearchDocument<unknown>][]) {
      const follows = definition.follows;
      if (follows === undefined) continue;
      const owners = new Set<string>();
      for (const row of merged[follows.table]?.values() ?? []) if (row !== undefined) owners.add(follows.key(row as never));
      for (const key of owners) {
        const owner = view[followed].get(key);
        if (owner === undefined || stored.has(`${followed} ${key}`)) continue;
        // An overlay is laid over the stored document (which stays null where it is not stored); a whole document replaces it.
        const document = definition.overlay === undefined ? `"document":${storableDocument(definition.document(owner, view)) ?? "null"}` : `"overlay":${storableDocument(definition.overlay(owner, view)) ?? "null"}`;
        rewritten.push(`{"tbl":${JSON.stringify(followed)},"key":${JSON.stringify(sqlKey(key))},${document}}`);
      }
    }
    const s = this.sqlSchema;
    const params: string[] = [];
    const param = (value: string) => `$${params.push(value)}`;
    const parts: string[] = [];
    // With a counter, every part stores only if the counter moved: `counted` holds a row then.
    const gate = counter === undefined ? "" : "WHERE EXISTS (SELECT FROM counted)";
    if (counter !== undefined) {
      parts.push(`counted AS (UPDATE ${s}.state SET index = ${param(String(counter.index))}::bigint WHERE index = ${param(String(counter.base))}::bigint RETURNING 1)`);
      parts.push(`indexed AS (INSERT INTO ${s}.table_index (tbl, index) SELECT key, value::text::bigint FROM json_each(${param(JSON.stringify(Object.fromEntries(counter.tableIndexes)))}::json) ${gate}
        ON CONFLICT (tbl) DO UPDATE SET index = excluded.index RETURNING 1)`);
    }
    if (rows.length > 0) {
      parts.push(`written AS (INSERT INTO ${s}.rows (tbl, key, doc, document, ns, id, create_index, modify_index, message)
        SELECT tbl, key, doc, CASE WHEN overlay IS NULL THEN document ELSE doc::jsonb || overlay END, ns, id, create_index, modify_index, message
        FROM json_to_recordset(${param(`[${rows.join(",")}]`)}::json)
          AS t(tbl text, key text, doc text, document jsonb, overlay jsonb, ns text, id text, create_index bigint, modify_index bigint, message text) ${gate}
        ON CONFLICT (tbl, key) DO UPDATE SET doc = excluded.doc, document = excluded.document, ns = excluded.ns, id = excluded.id,
          create_index = excluded.create_index, modify_index = excluded.modify_index, message = excluded.message
        RETURNING 1)`);
    }
    if (rewritten.length > 0) {
      parts.push(`rewritten AS (UPDATE ${s}.rows AS r SET document = CASE WHEN t.whole THEN t.document ELSE r.document || t.overlay END
        FROM (SELECT *, json_typeof(e->'document') IS NOT NULL AS whole FROM json_array_elements(${param(`[${rewritten.join(",")}]`)}::json) AS e,
          json_to_record(e) AS x(tbl text, key text, document jsonb, overlay jsonb)) AS t
        WHERE r.tbl = t.tbl AND r.key = t.key ${gate.replace("WHERE", "AND")} RETURNING 1)`);
    }
    if (counter === undefined) {
      if (parts.length > 0) await session.query(`WITH ${parts.join(",\n")} SELECT 'stored' AS stored`, params);
      return true;
    }
    const notify = `SELECT pg_notify(${param(this.#channel)}, ${param(String(counter.index))}) FROM counted`;
    const sql = `WITH ${parts.join(",\n")} SELECT (SELECT count(*) FROM (${notify}) AS notified)::text AS stored`;
    const [outcome] = commit ? await (session as TransactionSession).queryAndCommit(sql, params) : await session.query(sql, params);
    return outcome!.stored === "1";
  }

  /**
   * The fields of a stored row's entry that make its search document: none for a table without
   * documents; `"overlay"` for a document PostgreSQL makes from the row's text; `"document"` for one
   * given whole. Null (an undocumented row, re-checked by every pushed-down filter) where jsonb
   * cannot hold the document.
   */
  #documentJson(table: TableName, row: unknown, text: string, view: Tables): string {
    const definition = this.#documents[table] as SearchDocument<unknown> | undefined;
    if (definition === undefined) return `"document":null`;
    if (definition.document !== undefined) return `"document":${storableDocument(definition.document(row, view)) ?? "null"}`;
    // The row's text is the document's larger part: what jsonb cannot hold in it, the document cannot either.
    const overlay = unstorable(text) ? null : storableDocument(definition.overlay(row, view));
    return overlay === null ? `"document":null` : `"overlay":${overlay}`;
  }

  /**
   * Brings the copy up to the database: reads, in one snapshot, the index, the tables' indexes and
   * the rows changed since the copy's index, and applies them as one write (which wakes the
   * blocking queries of the tables it touched and reaches the store's listeners); with `lock`,
   * taking the counter's lock first, in the same statement. Resolves to the database's index.
   */
  async #readChanges(session: SqlSession, lock = false): Promise<number> {
    const after = String(this.#copy.index);
    const s = this.sqlSchema;
    const rows = await session.query(lock ? `SELECT * FROM ${s}.locked_changes($1::bigint)` : changesQuery(s, "$1::bigint"), [after]);
    const index = Number(rows.find((row) => row.kind === "state")!.idx);
    const tableIndexes = new Map<TableName, number>();
    for (const row of rows) if (row.kind === "table" && isTable(row.tbl)) tableIndexes.set(row.tbl, Number(row.idx));
    const changed = rows.filter((row) => row.kind === "row");
    const changes = changesOf(changed);
    if (index > this.#copy.index) {
      this.#copy.replicate({ index, changes, ...messagesOf(changed) }, tableIndexes.keys(), tableIndexes);
      this.#othersWroteAt = performance.now();
    }
    this.#syncedAt = Date.now();
    return index;
  }

  /**
   * Brings the copy up to the database's index as of now: the barrier of a consistent read, which
   * then sees every write committed before it, whichever agent made it. One query when the copy is
   * current (a notification may still be on its way).
   *
   * Reads share barriers: a read that comes while a barrier's query is under way (sent before the
   * read came, so not one it may rely on) waits for the next query, which every read that came
   * meanwhile shares. Under load one query so serves many reads, and none waits for more than two.
   */
  catchUp(): Promise<void> {
    const since = performance.now();
    if (this.#barrier === undefined) return this.#startBarrier(since);
    // The next barrier's hold, while the database is away, counts from the first read waiting for it.
    this.#nextSince ??= since;
    return (this.#nextBarrier ??= this.#barrier.then(
      () => this.#startBarrier(this.#nextSince!),
      () => this.#startBarrier(this.#nextSince!),
    ));
  }

  #startBarrier(since: number): Promise<void> {
    this.#nextBarrier = undefined;
    this.#nextSince = undefined;
    const barrier = this.#runBarrier(since).finally(() => {
      if (this.#barrier === barrier) this.#barrier = undefined;
    });
    this.#barrier = barrier;
    return barrier;
  }

  async #runBarrier(since: number): Promise<void> {
    const [state] = await this.database.query(`SELECT index::text AS index FROM ${this.sqlSchema}.state`, undefined, since);
    const index = Number(state!.index);
    for (let attempt = 0; this.index < index; attempt++) {
      // The database went away meanwhile: the read fails as one that could not reach it.
      if (attempt === 2) throw this.#syncError instanceof DatabaseUnavailableError ? this.#syncError : new Error(`the agent's copy of the state could not catch up with the database (index ${this.index} of ${index})`);
      await this.sync();
    }
  }

  /**
   * Brings the copy up to the database now (a notification, a reconnection, the heartbeat): one
   * catch-up at a time, and one more after it when asked meanwhile.
   */
  sync(): Promise<void> {
    if (this.#syncing !== undefined) {
      this.#syncAgain = true;
      return this.#syncing;
    }
    this.#syncing = (async () => {
      try {
        do {
          this.#syncAgain = false;
          await this.#readChanges(this.database);
        } while (this.#syncAgain);
        this.#syncError = undefined;
      } catch (error) {
        // The database is away: the next notification, reconnection or heartbeat tries again.
        this.#syncError = error;
      } finally {
        this.#syncing = undefined;
      }
    })();
    return this.#syncing;
  }

  subscribe(listener: (write: AppliedWrite) => void): () => void {
    return this.#copy.subscribe(listener);
  }

  waitForChange(tables: readonly TableName[], afterIndex: number, signal: AbortSignal): Promise<void> {
    return this.#copy.waitForChange(tables, afterIndex, signal);
  }

  get closed(): boolean {
    return this.#copy.closed;
  }

  get waiting(): number {
    return this.#copy.waiting;
  }

  close(): void {
    this.#copy.close();
  }
}

/**
 * The statement that reads, in one snapshot, the database's index, the tables' indexes and the rows
 * changed after the index `after` (an SQL expression) of the schema `s` (quoted).
 */
function changesQuery(s: string, after: string): string {
  return `SELECT 'state'::text AS kind, NULL::text AS tbl, NULL::text AS key, NULL::text AS doc, index::text AS idx, NULL::text AS message FROM ${s}.state
       UNION ALL SELECT 'table', tbl, NULL, NULL, index::text, NULL FROM ${s}.table_index WHERE index > ${after}
       UNION ALL SELECT 'row', tbl, key, doc, modify_index::text, message FROM ${s}.rows WHERE modify_index > ${after}`;
}

function isTable(name: string | null | undefined): name is TableName {
  return typeof name === "string" && (TABLE_NAMES as readonly string[]).includes(name);
}

/** The changes that rows read from the database make (a row without `doc` is a deletion). */
function changesOf(rows: readonly TextRow[]): Changes {
  const changes: Partial<Record<TableName, Map<string, unknown>>> = {};
  for (const row of rows) {
    if (!isTable(row.tbl)) continue;
    const { key, doc } = row;
    (changes[row.tbl] ??= new Map()).set(JSON.parse(key!) as string, doc === null || doc === undefined ? undefined : decodeRow(row.tbl, doc));
  }
  return changes as Changes;
}

/** The messages of the writes whose rows were read (by the index of each), and the index each deletion was made at. */
function messagesOf(rows: readonly TextRow[]): { messages: Map<number, WriteMessage>; deletedAt: Map<string, number> } {
  const messages = new Map<number, WriteMessage>();
  const deletedAt = new Map<string, number>();
  for (const row of rows) {
    const index = Number(row.idx);
    if (row.message !== null && row.message !== undefined) messages.set(index, row.message as WriteMessage);
    if (row.doc === null || row.doc === undefined) deletedAt.set(`${row.tbl} ${JSON.parse(row.key!) as string}`, index);
  }
  return { messages, deletedAt };
}

/** Makes `changes` in a transaction of the copy. */
function applyChanges(transaction: Transaction<TableName>, changes: Changes): void {
  for (const name of Object.keys(changes) as TableName[]) {
    // The cast: each table's rows are that table's (changesOf read them by their table), which a loop over the names cannot tell TypeScript.
    const table = (transaction as Partial<Transaction<TableName>>)[name]! as unknown as { put(row: unknown): void; delete(key: string): boolean };
    for (const [key, row] of changes[name]!) {
      if (row === undefined) table.delete(key);
      else table.put(row);
    }
  }
}

/**
 * A row's key as stored: JSON text, so that the NUL of namespaced keys (which PostgreSQL's text
 * cannot hold) is written `\u0000`.
 */
export function sqlKey(key: string): string {
  return JSON.stringify(key);
}

/**
 * A row's JSON text as a value of the JSON parameter that carries it to a `text` column: as it is
 * (PostgreSQL keeps an object's text as written there, and nothing need be escaped again), or as a
 * JSON string when it holds an escape that PostgreSQL's JSON reader refuses to turn into text (NUL,
 * a lone surrogate).
 */
function jsonText(text: string): string {
  return UNSTORABLE_ESCAPE.test(text) ? JSON.stringify(text) : text;
}

/** Escapes of the characters jsonb cannot hold: NUL and lone surrogates (a `\\u0000` written by a user is taken for one: its row is only re-checked). */
const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f][0-9a-f]{2})/i;

/**
 * A search document as jsonb text (int64 values exact), or null for a document jsonb cannot hold:
 * its row is then selected by every pushed-down filter and checked by the compiled filter.
 */
function storableDocument(document: unknown): string | null {
  const text = stringifyJson(document);
  return unstorable(text) ? null : text;
}

/** Whether jsonb cannot hold the JSON `text` (or should not: see {@link MAX_DOCUMENT_DEPTH}). */
function unstorable(text: string): boolean {
  return UNSTORABLE_ESCAPE.test(text) || nestingDepth(text, MAX_DOCUMENT_DEPTH).depth > MAX_DOCUMENT_DEPTH;
}

/**
 * The deepest search document kept in jsonb. Deeper ones (a job's `Constraints` nested 1,000 deep
 * is a valid job) are left to the re-check: PGlite's WebAssembly stack overflows indexing them, and
 * no filter's path reaches that far into a document that the database would need to decide it.
 */
export const MAX_DOCUMENT_DEPTH = 64;

