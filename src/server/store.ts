/**
 * The agent's in-memory state: tables of jobs, job summaries, deployments, evaluations,
 * allocations and namespaces, and a raft-like index. The index starts at 1 and grows by one with
 * every write; each table remembers the index of its last change, and a write wakes the blocking
 * queries that watch any table it touched.
 *
 * @module
 */

/** The tables of the state store. */
export type TableName = "jobs" | "job_summary" | "deployment" | "evals" | "allocs" | "namespaces" | "acl_policy" | "acl_token";

/** Something waiting for a table to change. */
interface Waiter {
  readonly tables: ReadonlySet<TableName>;
  readonly afterIndex: number;
  readonly wake: () => void;
}

/** Orders strings as Go does (by UTF-8 bytes, which is code-point order). */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only surrogates (code points above U+FFFF) sort differently as UTF-16 and as code points.
    if (x >= 0xd800 && x <= 0xdfff) return y >= 0xe000 ? 1 : x - y;
    if (y >= 0xd800 && y <= 0xdfff) return x >= 0xe000 ? -1 : x - y;
    return x - y;
  }
  return a.length - b.length;
}

/** The first position in `rows` (sorted) at which `compare(row)` is not below zero, by binary search. */
export function lowerBound<Row>(rows: readonly Row[], compare: (row: Row) => number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(rows[middle]!) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A table: rows by key, kept in the table's order, and optionally grouped (by job, for the
 * deployments, evaluations and allocations of one job) so that a write never scans the table.
 * Rows are changed only inside a write transaction of the store that names the table; a change
 * anywhere else throws, so that no write can forget to wake the queries watching the table.
 */
export class Table<Row> {
  readonly #rows = new Map<string, Row>();
  /** The rows in order, kept up to date by each change (a binary search and one move). */
  readonly #sorted: Row[] = [];
  readonly #groups = new Map<string, Map<string, Row>>();

  /**
   * @param name - the table's name in the store's write transactions.
   * @param store - the store whose transactions may change it.
   * @param order - the table's order (of the list endpoints); ties broken by nothing else, so it must be total.
   * @param groupOf - the group of a row, for {@link Table.group}.
   */
  constructor(
    readonly name: TableName,
    private readonly store: StateStore,
    private readonly order: (a: Row, b: Row) => number,
    private readonly groupOf?: (row: Row) => string,
  ) {}

  get(key: string): Row | undefined {
    return this.#rows.get(key);
  }

  get size(): number {
    return this.#rows.size;
  }

  /** Rows in the table's order (the table's own array: do not modify it). */
  sorted(): readonly Row[] {
    return this.#sorted;
  }

  values(): IterableIterator<Row> {
    return this.#rows.values();
  }

  /** The rows of one group (see the constructor's `groupOf`), by key. */
  group(group: string): ReadonlyMap<string, Row> {
    return this.#groups.get(group) ?? EMPTY_GROUP;
  }

  /** Inserts or replaces a row, inside a write transaction that names this table. */
  put(key: string, row: Row): void {
    this.store.assertWriting(this.name);
    const previous = this.#rows.get(key);
    if (previous !== undefined && this.order(previous, row) === 0 && this.groupOf?.(previous) === this.groupOf?.(row)) {
      // The usual update: the row keeps its place and its group.
      this.#sorted[this.#indexOf(previous)] = row;
      this.#rows.set(key, row);
      this.#groups.get(this.groupOf?.(row) ?? "")?.set(key, row);
      return;
    }
    if (previous !== undefined) this.#unlink(key, previous);
    this.#rows.set(key, row);
    this.#sorted.splice(this.#position(row), 0, row);
    if (this.groupOf !== undefined) {
      const group = this.groupOf(row);
      let rows = this.#groups.get(group);
      if (rows === undefined) this.#groups.set(group, (rows = new Map()));
      rows.set(key, row);
    }
  }

  /** Removes a row, inside a write transaction that names this table. */
  delete(key: string): boolean {
    this.store.assertWriting(this.name);
    const previous = this.#rows.get(key);
    if (previous === undefined) return false;
    this.#unlink(key, previous);
    this.#rows.delete(key);
    return true;
  }

  /** Where `row` (a stored row) is in the sorted array. */
  #indexOf(row: Row): number {
    const at = this.#position(row);
    // A total order puts the row at its position; a scan is only a safeguard.
    return this.#sorted[at] === row ? at : this.#sorted.indexOf(row);
  }

  #unlink(key: string, row: Row): void {
    this.#sorted.splice(this.#indexOf(row), 1);
    if (this.groupOf !== undefined) {
      const group = this.groupOf(row);
      const rows = this.#groups.get(group);
      rows?.delete(key);
      if (rows?.size === 0) this.#groups.delete(group);
    }
  }

  /** The first position whose row does not come before `row`. */
  #position(row: Row): number {
    return lowerBound(this.#sorted, (stored) => this.order(stored, row));
  }

}

const EMPTY_GROUP: ReadonlyMap<string, never> = new Map<string, never>();

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

/** The index and change notification of the state store. */
export class StateStore {
  #index = 1;
  readonly #tableIndex = new Map<TableName, number>();
  readonly #waiters = new Set<Waiter>();
  #closed = false;

  /** The index of the latest write (1 on a new store). */
  get index(): number {
    return this.#index;
  }

  /** The index of the last write to any of `tables`, at least 1 (an untouched table answers 1). */
  tableIndex(...tables: TableName[]): number {
    let index = 1;
    for (const table of tables) index = Math.max(index, this.#tableIndex.get(table) ?? 0);
    return index;
  }

  /** The tables the write under way may change; undefined outside a write. */
  #writing: ReadonlySet<TableName> | undefined;

  /** Throws unless a write transaction that names `table` is under way (see {@link Table}). */
  assertWriting(table: TableName): void {
    if (this.#writing?.has(table) !== true) {
      throw new Error(`the table ${table} was changed outside a write that names it: blocking queries on it would never wake`);
    }
  }

  /** Fills tables before the first write (the agent's initial state), without moving the index. */
  seed(tables: readonly TableName[], apply: () => void): void {
    this.#writing = new Set(tables);
    try {
      apply();
    } finally {
      this.#writing = undefined;
    }
  }

  /**
   * Runs one write at the next index: `apply` changes the tables it names (and no other: a change
   * to another throws); the index moves, the tables remember it, and the blocking queries watching
   * them wake up.
   */
  write<T>(tables: readonly TableName[], apply: (index: number) => T): { index: number; result: T } {
    if (this.#writing !== undefined) throw new Error("a write transaction is already under way");
    const index = this.#index + 1;
    this.#writing = new Set(tables);
    let result: T;
    try {
      result = apply(index);
    } finally {
      this.#writing = undefined;
    }
    this.#index = index;
    for (const table of tables) this.#tableIndex.set(table, index);
    const due: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (index > waiter.afterIndex && tables.some((table) => waiter.tables.has(table))) due.push(waiter);
    }
    wakeInBatches(due);
    return { index, result };
  }

  /**
   * Resolves once a write to one of `tables` passes `afterIndex`, the signal aborts, or the store
   * closes; whichever comes first. Never rejects.
   */
  waitForChange(tables: readonly TableName[], afterIndex: number, signal: AbortSignal): Promise<void> {
    if (this.#closed || signal.aborted || this.tableIndex(...tables) > afterIndex) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        tables: new Set(tables),
        afterIndex,
        wake: () => {
          this.#waiters.delete(waiter);
          signal.removeEventListener("abort", waiter.wake);
          resolve();
        },
      };
      this.#waiters.add(waiter);
      signal.addEventListener("abort", waiter.wake, { once: true });
    });
  }

  /** True once the store has been closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** How many blocking queries are waiting (for metrics and tests). */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** Wakes every waiter and refuses to wait from now on (the agent is stopping). */
  close(): void {
    this.#closed = true;
    for (const waiter of [...this.#waiters]) waiter.wake();
  }
}
