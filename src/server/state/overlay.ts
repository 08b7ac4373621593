/**
 * A write transaction's view of the tables: the changes it makes are kept aside, over the stored
 * rows, until the store commits them all at once; a write whose `apply` throws leaves nothing
 * behind. Every store runs its writes through it, so a write is atomic whatever keeps the rows.
 *
 * @module
 */
import { TABLE_NAMES, TABLES, type Changes, type ReadTable, type RowRange, type Rows, type TableDefinition, type TableName, type Transaction, type WriteTable } from "./store.js";

/** A table as a write transaction sees it: its stored rows with the write's changes over them. */
class OverlayTable<Row> implements WriteTable<Row> {
  /** The changes so far: the new row, or undefined for a deletion. */
  readonly changes = new Map<string, Row | undefined>();

  constructor(
    private readonly base: ReadTable<Row>,
    private readonly definition: TableDefinition<Row>,
  ) {}

  get(key: string): Row | undefined {
    return this.changes.has(key) ? this.changes.get(key) : this.base.get(key);
  }

  get size(): number {
    let size = this.base.size;
    for (const [key, row] of this.changes) size += (row === undefined ? 0 : 1) - (this.base.get(key) === undefined ? 0 : 1);
    return size;
  }

  all(): RowRange<Row> {
    if (this.changes.size === 0) return this.base.all();
    const rows = [...this.values()].sort(this.definition.order);
    return { size: rows.length, at: (position) => rows[position]!, segments: [] };
  }

  *values(): IterableIterator<Row> {
    for (const row of this.base.values()) {
      if (!this.changes.has(this.definition.key(row))) yield row;
    }
    for (const row of this.changes.values()) if (row !== undefined) yield row;
  }

  group(group: string): ReadonlyMap<string, Row> {
    const stored = this.base.group(group);
    const groupOf = this.definition.group;
    if (this.changes.size === 0 || groupOf === undefined) return stored;
    let rows: Map<string, Row> | undefined;
    for (const [key, row] of this.changes) {
      const inGroup = row !== undefined && groupOf(row) === group;
      if (!inGroup && !stored.has(key)) continue;
      rows ??= new Map(stored);
      rows.delete(key);
      if (inGroup) rows.set(key, row);
    }
    return rows ?? stored;
  }

  put(row: Row): void {
    this.changes.set(this.definition.key(row), row);
  }

  delete(key: string): boolean {
    const existed = this.get(key) !== undefined;
    if (existed) this.changes.set(key, undefined);
    return existed;
  }
}

/**
 * Runs `apply` on a transaction over `tables` (the named ones, at `index`) and returns what it
 * returned with the changes it made; nothing is changed in `tables`.
 */
export function runTransaction<Names extends TableName, T>(
  tables: { readonly [Name in TableName]: ReadTable<Rows[Name]> },
  names: readonly Names[],
  index: number,
  apply: (transaction: Transaction<Names>) => T,
): { result: T; changes: Changes } {
  const transaction: Record<string, unknown> = { index };
  const overlays: Partial<Record<TableName, OverlayTable<unknown>>> = {};
  for (const name of names) {
    const overlay = new OverlayTable(tables[name] as ReadTable<unknown>, TABLES[name] as TableDefinition<unknown>);
    overlays[name] = overlay;
    transaction[name] = overlay;
  }
  const result = apply(transaction as Transaction<Names>);
  const changes: Partial<Record<TableName, ReadonlyMap<string, unknown>>> = {};
  for (const name of names) if (overlays[name]!.changes.size > 0) changes[name] = overlays[name]!.changes;
  return { result, changes: changes as Changes };
}

/** `tables` with `changes` made (a view: nothing is changed in `tables`). */
export function withChanges(tables: { readonly [Name in TableName]: ReadTable<Rows[Name]> }, changes: Changes): { readonly [Name in TableName]: ReadTable<Rows[Name]> } {
  const view: Partial<Record<TableName, ReadTable<unknown>>> = {};
  for (const name of TABLE_NAMES) {
    const changed = changes[name] as ReadonlyMap<string, unknown> | undefined;
    if (changed === undefined || changed.size === 0) {
      view[name] = tables[name] as ReadTable<unknown>;
      continue;
    }
    const overlay = new OverlayTable(tables[name] as ReadTable<unknown>, TABLES[name] as TableDefinition<unknown>);
    for (const [key, row] of changed) overlay.changes.set(key, row);
    view[name] = overlay;
  }
  return view as { readonly [Name in TableName]: ReadTable<Rows[Name]> };
}

/** Adds `next`'s changes to `merged` (a later change of a key replaces an earlier one). */
export function mergeChanges(merged: Partial<Record<TableName, Map<string, unknown>>>, next: Changes): void {
  for (const name of Object.keys(next) as TableName[]) {
    const rows = (merged[name] ??= new Map());
    for (const [key, row] of next[name]!) rows.set(key, row);
  }
}
