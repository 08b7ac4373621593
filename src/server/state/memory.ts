/**
 * The in-memory {@link Store}: each table keeps its rows by key, in the table's order (sorted
 * blocks: a binary search and a move within one block per change, see `sorted-rows.ts`) and by group, so that reads seek and no write scans a table. The
 * index starts at 1 and grows by one with every write; each table remembers the index of its last
 * change; a write wakes the blocking queries that watch a table it touched, in batches.
 *
 * @module
 */
import { compareStrings } from "../../go/order.js";
import { LeafInterner } from "./intern.js";
import type { Job } from "./model.js";
import { runTransaction } from "./overlay.js";
import { cutPage } from "./page.js";
import { ProjectionCache } from "./projection.js";
import { lowerBound, SortedRows } from "./sorted-rows.js";
import {
  ALL_NAMESPACES,
  TABLE_NAMES,
  TABLES,
  type AppliedWrite,
  type Changes,
  type ListPage,
  type ListPageRequest,
  type Listing,
  type Queries,
  type RowRange,
  type Rows,
  type Store,
  type TableDefinition,
  type TableName,
  type Tables,
  type Transaction,
  type WriteMessage,
  type WriteTable,
} from "./store.js";

/** A view of `rows[start, end)`, with segment starts relative to `start`. */
function range<Row>(rows: { at(position: number): Row | undefined }, start: number, end: number, segments: readonly number[] = []): RowRange<Row> {
  return { size: end - start, at: (position) => rows.at(start + position)!, segments };
}

const EMPTY_GROUP: ReadonlyMap<string, never> = new Map<string, never>();

/** One table of a {@link MemoryStore}. */
class MemoryTable<Row> implements WriteTable<Row> {
  readonly #rows = new Map<string, Row>();
  /** The rows in order, kept up to date by each change. */
  readonly #sorted: SortedRows<Row>;
  /**
   * The rows of each group: the row itself while it is the group's only one (most jobs have one
   * version, one deployment, one evaluation…), a map by key once there are more. A map of one row
   * costs some 150 bytes more than none, and a store keeps four groups a job.
   */
  readonly #groups = new Map<string, Map<string, Row> | Row>();

  constructor(
    readonly name: TableName,
    private readonly definition: TableDefinition<Row>,
    /** Throws unless a write transaction that names this table is under way. */
    private readonly assertWriting: (table: TableName) => void,
  ) {
    this.#sorted = new SortedRows(definition.order);
  }

  get(key: string): Row | undefined {
    return this.#rows.get(key);
  }

  get size(): number {
    return this.#rows.size;
  }

  all(): RowRange<Row> {
    return range(this.#sorted, 0, this.#sorted.size);
  }

  values(): IterableIterator<Row> {
    return this.#rows.values();
  }

  /** The sorted rows themselves, for the named queries of this module. */
  get sorted(): SortedRows<Row> {
    return this.#sorted;
  }

  group(group: string): ReadonlyMap<string, Row> {
    const rows = this.#groups.get(group);
    if (rows === undefined) return EMPTY_GROUP;
    return rows instanceof Map ? rows : new Map([[this.definition.key(rows), rows]]);
  }

  /** Puts `row` into its group (in place of the row of the same key, if any). */
  #link(group: string, key: string, row: Row): void {
    const rows = this.#groups.get(group);
    if (rows === undefined || (!(rows instanceof Map) && this.definition.key(rows) === key)) this.#groups.set(group, row);
    else if (rows instanceof Map) rows.set(key, row);
    else this.#groups.set(group, new Map([[this.definition.key(rows), rows], [key, row]]));
  }

  put(row: Row): void {
    this.assertWriting(this.name);
    const { key: keyOf, order, group: groupOf } = this.definition;
    const key = keyOf(row);
    const previous = this.#rows.get(key);
    if (previous !== undefined && order(previous, row) === 0 && groupOf?.(previous) === groupOf?.(row)) {
      // The usual update: the row keeps its place and its group.
      this.#sorted.replace(previous, row);
      this.#rows.set(key, row);
      if (groupOf !== undefined) this.#link(groupOf(row), key, row);
      return;
    }
    if (previous !== undefined) this.#unlink(key, previous);
    this.#rows.set(key, row);
    this.#sorted.insert(row);
    if (groupOf !== undefined) this.#link(groupOf(row), key, row);
  }

  delete(key: string): boolean {
    this.assertWriting(this.name);
    const previous = this.#rows.get(key);
    if (previous === undefined) return false;
    this.#unlink(key, previous);
    this.#rows.delete(key);
    return true;
  }

  #unlink(key: string, row: Row): void {
    this.#sorted.remove(row);
    const groupOf = this.definition.group;
    if (groupOf !== undefined) {
      const group = groupOf(row);
      const rows = this.#groups.get(group);
      if (!(rows instanceof Map)) {
        if (rows !== undefined && this.definition.key(rows) === key) this.#groups.delete(group);
      } else {
        rows.delete(key);
        if (rows.size === 1) this.#groups.set(group, rows.values().next().value as Row);
      }
    }
  }
}

/** Something waiting for a table to change. */
interface Waiter {
  readonly tables: readonly TableName[];
  readonly afterIndex: number;
  readonly wake: () => void;
}

/**
 * Blocking queries woken at once by one write: more are woken a turn of the event loop later, a
 * batch at a time, so that the write's own answer and other requests are not held behind
 * thousands of answers being computed and sent.
 */
export const WAKE_BATCH = 256;

/** Wakes `waiters`: the first {@link WAKE_BATCH} now, each next batch on a later turn of the event loop. */
function wakeInBatches(waiters: readonly Waiter[]): void {
  let next = 0;
  const batch = () => {
    const end = Math.min(next + WAKE_BATCH, waiters.length);
    // Waking is idempotent: a waiter whose client left in between has already been woken.
    for (; next < end; next++) waiters[next]!.wake();
    if (next < waiters.length) setImmediate(batch);
  };
  batch();
}

type MemoryTables = { readonly [Name in TableName]: MemoryTable<Rows[Name]> };

/** The in-memory state store. */
export class MemoryStore implements Store {
  #index = 1;
  readonly #tableIndex = new Map<TableName, number>();
  /** The waiters on each table (a waiter on several tables is in several sets). */
  readonly #waiters = new Map<TableName, Set<Waiter>>(TABLE_NAMES.map((name) => [name, new Set()]));
  #waiting = 0;
  #closed = false;
  /** The tables the commit under way may change; undefined outside one. */
  #writing: ReadonlySet<TableName> | undefined;
  #applying = false;
  readonly #claims = new Set<string>();
  readonly #listeners = new Set<(write: AppliedWrite) => void>();
  readonly #tables: MemoryTables;
  /** Equal leaves of the rows put, shared (see `intern.ts`). */
  readonly #leaves = new LeafInterner();
  /** The filter projections of the lists read with filters (see `projection.ts`). */
  readonly #projections = new ProjectionCache();
  /** How many commits changed each table, seeds included (which keep the index): the projections' version of a list's rows. */
  readonly #commits = new Map<TableName, number>();

  constructor() {
    const assertWriting = (table: TableName) => {
      if (this.#writing?.has(table) !== true) {
        throw new Error(`the table ${table} was changed outside a write that names it: blocking queries on it would never wake`);
      }
    };
    const tables: Partial<Record<TableName, MemoryTable<unknown>>> = {};
    for (const name of TABLE_NAMES) tables[name] = new MemoryTable(name, TABLES[name] as TableDefinition<unknown>, assertWriting);
    this.#tables = tables as MemoryTables;
  }

  get index(): number {
    return this.#index;
  }

  get tables(): Tables {
    return this.#tables;
  }

  readonly queries: Queries = {
    jobs: (namespace, prefix) => jobsOf(this.#tables.jobs.sorted, namespace, prefix),
    byKeyPrefix: (table, prefix) => {
      // Names sort as the table does, so the rows with a prefix are one run of it. (The cast: the
      // tables this query takes are keyed by Name, which their union of row types does not say.)
      const rows = this.#tables[table].sorted as unknown as SortedRows<{ Name: string }>;
      const start = rows.lowerBound((row) => compareStrings(row.Name, prefix));
      const end = lowerBound(rows, rows.size, (row) => (row.Name.startsWith(prefix) ? -1 : 1), start);
      return range(rows, start, end) as RowRange<Rows[typeof table]>;
    },
  };

  tableIndex(...tables: readonly TableName[]): number {
    let index = 1;
    for (const table of tables) index = Math.max(index, this.#tableIndex.get(table) ?? 0);
    return index;
  }

  /** A page of the list's rows in memory, at once: sought to `next_token` and cut by the paginator. */
  page<Row>(listing: Listing<Row>, request: ListPageRequest<Row>): ListPage<Row> {
    const { namespace, prefix, filterTarget, filter } = request;
    const rows = listing.rows(this, namespace, prefix);
    const target = (row: Row) => filterTarget(row, this);
    const page = cutPage(
      {
        rows,
        token: (row) => listing.token(row, prefix),
        compare: (token, next) => listing.compare(token, next, prefix),
        seekable: listing.seekable(request.nextToken, prefix),
        filterTarget: target,
        permitted: request.permitted,
        targetAt: filter === undefined ? undefined : this.#projections.targets(listing, namespace, prefix, filter.expression, rows, this.#version(listing.tables) + this.#version(listing.targetTables ?? []), target),
      },
      request,
    );
    return { ...page, index: this.tableIndex(...listing.tables), view: this };
  }

  async seed<Names extends TableName>(tables: readonly Names[], apply: (transaction: Transaction<Names>) => void): Promise<void> {
    const { changes } = runTransaction(this.#tables, tables, this.#index, apply);
    this.#commit(changes);
  }

  async write<Names extends TableName, T>(tables: readonly Names[], apply: (transaction: Transaction<Names>) => T, message: WriteMessage): Promise<{ index: number; result: T }> {
    if (this.#applying) throw new Error("a write transaction is already under way");
    const index = this.#index + 1;
    // Atomic: what `apply` changes is kept aside until it returns.
    this.#applying = true;
    let outcome: ReturnType<typeof runTransaction<Names, T>>;
    try {
      outcome = runTransaction(this.#tables, tables, index, apply);
    } finally {
      this.#applying = false;
    }
    const { result, changes } = outcome;
    this.replicate({ index, changes, messages: new Map([[index, message]]) }, tables);
    return { index, result };
  }

  /**
   * Applies a write made elsewhere (by a store this one is the copy of) at its index: its changes,
   * the index of every table it named, the wakes and the listeners. A write at or below the
   * current index is already here and is ignored.
   */
  replicate(write: AppliedWrite, tables: Iterable<TableName> = Object.keys(write.changes) as TableName[], tableIndexes?: ReadonlyMap<TableName, number>): boolean {
    const { index, changes } = write;
    if (index <= this.#index) return false;
    this.#commit(changes);
    this.#index = index;
    const touched = new Set(tables);
    for (const table of touched) this.#tableIndex.set(table, tableIndexes?.get(table) ?? index);
    const due = new Set<Waiter>();
    for (const table of touched) {
      for (const waiter of this.#waiters.get(table)!) if (this.tableIndex(...waiter.tables) > waiter.afterIndex) due.add(waiter);
    }
    wakeInBatches([...due]);
    for (const listener of this.#listeners) listener(write);
    return true;
  }

  /**
   * The version of the rows of a list made of `tables`: it moves with every commit that changes
   * one of them (the list's items and filter targets are made from those tables, as its answers'
   * index says).
   */
  #version(tables: readonly TableName[]): number {
    let version = 0;
    for (const table of tables) version += this.#commits.get(table) ?? 0;
    return version;
  }

  /** Puts a write's changes into the tables. */
  #commit(changes: Changes): void {
    const names = Object.keys(changes) as TableName[];
    for (const name of names) this.#commits.set(name, (this.#commits.get(name) ?? 0) + 1);
    this.#writing = new Set(names);
    try {
      for (const name of names) {
        const table = this.#tables[name] as MemoryTable<unknown>;
        for (const [key, row] of changes[name]!) {
          if (row === undefined) table.delete(key);
          else {
            this.#leaves.shareLeaves(row as object);
            table.put(row);
          }
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }

  async claim(name: string): Promise<boolean> {
    if (this.#claims.has(name)) return false;
    this.#claims.add(name);
    return true;
  }

  subscribe(listener: (write: AppliedWrite) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  waitForChange(tables: readonly TableName[], afterIndex: number, signal: AbortSignal): Promise<void> {
    if (this.#closed || signal.aborted || this.tableIndex(...tables) > afterIndex) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        tables,
        afterIndex,
        wake: () => {
          if (!this.#waiters.get(tables[0]!)!.delete(waiter)) return;
          for (const table of tables) this.#waiters.get(table)!.delete(waiter);
          this.#waiting--;
          signal.removeEventListener("abort", waiter.wake);
          resolve();
        },
      };
      for (const table of tables) this.#waiters.get(table)!.add(waiter);
      this.#waiting++;
      signal.addEventListener("abort", waiter.wake, { once: true });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  get waiting(): number {
    return this.#waiting;
  }

  close(): void {
    this.#closed = true;
    const all = new Set<Waiter>();
    for (const waiters of this.#waiters.values()) for (const waiter of waiters) all.add(waiter);
    for (const waiter of all) waiter.wake();
  }
}

/**
 * The jobs of a namespace (`*`: all) whose ID starts with `prefix`: the jobs table is sorted by
 * namespace then ID, so one namespace's jobs with a prefix are one run of it, found by binary
 * search. Across namespaces, each namespace's run is a segment.
 */
function jobsOf(jobs: SortedRows<Job>, namespace: string, prefix: string): RowRange<Job> {
  if (namespace !== ALL_NAMESPACES) {
    const start = jobs.lowerBound((job) => compareStrings(job.Namespace, namespace) || compareStrings(job.ID, prefix));
    // From `start`, the namespace's jobs with the prefix come first: the run ends at the first other.
    const end = lowerBound(jobs, jobs.size, (job) => (job.Namespace === namespace && job.ID.startsWith(prefix) ? -1 : 1), start);
    return range(jobs, start, end);
  }
  const selected = prefix === "" ? jobs : jobs.filter((job) => job.ID.startsWith(prefix));
  const size = selected instanceof SortedRows ? selected.size : selected.length;
  const segments: number[] = [];
  // The next namespace starts where the current one's jobs end: one binary search per namespace.
  for (let start = 0; start < size; ) {
    const namespaceOfRun = selected.at(start)!.Namespace;
    start = lowerBound(selected, size, (job) => (compareStrings(job.Namespace, namespaceOfRun) <= 0 ? -1 : 1), start);
    if (start < size) segments.push(start);
  }
  return range(selected, 0, size, segments);
}
