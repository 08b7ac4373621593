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

/** A table: rows by key, with a cached key order. */
export class Table<Row> {
  readonly #rows = new Map<string, Row>();
  #sorted: Row[] | undefined;

  constructor(private readonly order: (a: Row, b: Row) => number) {}

  get(key: string): Row | undefined {
    return this.#rows.get(key);
  }

  get size(): number {
    return this.#rows.size;
  }

  /** Rows in the table's order (a cached array; do not modify it). */
  sorted(): readonly Row[] {
    this.#sorted ??= [...this.#rows.values()].sort(this.order);
    return this.#sorted;
  }

  values(): IterableIterator<Row> {
    return this.#rows.values();
  }

  /** Inserts or replaces a row. Only the store's write transaction should call this. */
  put(key: string, row: Row): void {
    this.#rows.set(key, row);
    this.#sorted = undefined;
  }

  /** Removes a row. Only the store's write transaction should call this. */
  delete(key: string): boolean {
    this.#sorted = undefined;
    return this.#rows.delete(key);
  }
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

  /**
   * Runs one write at the next index: `apply` changes the tables it names; the index moves, the
   * tables remember it, and the blocking queries watching them wake up.
   */
  write<T>(tables: readonly TableName[], apply: (index: number) => T): { index: number; result: T } {
    const index = this.#index + 1;
    const result = apply(index);
    this.#index = index;
    for (const table of tables) this.#tableIndex.set(table, index);
    const touched = new Set(tables);
    for (const waiter of this.#waiters) {
      if ([...waiter.tables].some((table) => touched.has(table)) && index > waiter.afterIndex) waiter.wake();
    }
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
