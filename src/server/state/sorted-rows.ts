/**
 * The rows of an in-memory table in the table's order: a list of sorted blocks (the layout of
 * Python's `sortedcontainers.SortedList`), so that a row put anywhere costs a binary search and a
 * move within one block of at most {@link BLOCK_ROWS} rows, not a move of every row after it (a
 * plain sorted array spent 42% of a 100,000-job registration moving rows). Reads stay positional
 * (`at(position)`), which the list endpoints' paging and segments are written against: a position
 * is found through the blocks' running counts (rebuilt once after a change to the blocks'
 * number or sizes), and a read at the next position of the block last read takes no search, so
 * walking a run costs no more than walking an array.
 *
 * Hand-written rather than taken from a library: the ordered maps that fit Node 20 (`sorted-btree`,
 * `js-sdsl`) either have no positional reads or pay a tree descent for each one, where the list
 * endpoints read tens of thousands of consecutive positions per request.
 *
 * @module
 */

/** The most rows of one block: past it a block is split in two. */
export const BLOCK_ROWS = 512;

/** The first position in `rows` (sorted) at which `compare(row)` is not below zero, by binary search. */
export function lowerBound<Row>(rows: { at(position: number): Row | undefined }, size: number, compare: (row: Row) => number, from = 0): number {
  let low = from;
  let high = size;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(rows.at(middle)!) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Rows kept in an order: positional reads, and inserts and removals in O(log n + {@link BLOCK_ROWS}). */
export class SortedRows<Row> {
  /** The blocks, each sorted and non-empty, in order. */
  #blocks: Row[][] = [];
  /** The position of each block's first row; undefined once the blocks changed shape, until read again. */
  #starts: number[] | undefined = [];
  #size = 0;
  /** The block last read, and its start: a read next to the last one takes no search. */
  #lastBlock = -1;
  #lastStart = 0;

  constructor(
    private readonly order: (a: Row, b: Row) => number,
    /** The most rows of a block (tests make it small, to split and merge blocks often). */
    private readonly blockRows = BLOCK_ROWS,
  ) {}

  /** @internal The sizes of the blocks, in order. */
  get blockSizes(): readonly number[] {
    return this.#blocks.map((rows) => rows.length);
  }

  /** How many rows there are. */
  get size(): number {
    return this.#size;
  }

  /** The row at `position` (0 ≤ position < size), else undefined. */
  at(position: number): Row | undefined {
    if (position < 0 || position >= this.#size) return undefined;
    const last = this.#lastBlock;
    if (last >= 0) {
      const offset = position - this.#lastStart;
      const block = this.#blocks[last]!;
      if (offset >= 0 && offset < block.length) return block[offset];
    }
    const starts = this.#positions();
    const index = lowerBound(starts, starts.length, (start) => (start <= position ? -1 : 0)) - 1;
    this.#lastBlock = index;
    this.#lastStart = starts[index]!;
    return this.#blocks[index]![position - this.#lastStart];
  }

  /** The first position at which `compare(row)` is not below zero (the rows sorted by it). */
  lowerBound(compare: (row: Row) => number): number {
    const blocks = this.#blocks;
    // The first block whose last row is not below: the position is in it, or it is the end.
    const block = lowerBound(blocks, blocks.length, (rows) => compare(rows[rows.length - 1]!));
    if (block === blocks.length) return this.#size;
    const rows = blocks[block]!;
    return this.#positions()[block]! + lowerBound(rows, rows.length, compare);
  }

  /** Puts `row` in its place in the order (after the rows equal to it). */
  insert(row: Row): void {
    const blocks = this.#blocks;
    this.#size++;
    if (blocks.length === 0) {
      blocks.push([row]);
      this.#changed();
      return;
    }
    // The first block whose last row comes after `row`, or the last block.
    const found = lowerBound(blocks, blocks.length, (rows) => (this.order(rows[rows.length - 1]!, row) <= 0 ? -1 : 0));
    const index = Math.min(found, blocks.length - 1);
    const rows = blocks[index]!;
    const at = lowerBound(rows, rows.length, (stored) => (this.order(stored, row) <= 0 ? -1 : 0));
    if (at === rows.length) rows.push(row);
    else rows.splice(at, 0, row);
    if (rows.length > this.blockRows) blocks.splice(index + 1, 0, rows.splice(rows.length >>> 1));
    this.#changed();
  }

  /** Puts `row` in place of `previous` (a stored row), which it must sort as. */
  replace(previous: Row, row: Row): void {
    const [block, offset] = this.#find(previous);
    this.#blocks[block]![offset] = row;
  }

  /** Removes `row` (a stored row). */
  remove(row: Row): void {
    const [block, offset] = this.#find(row);
    const blocks = this.#blocks;
    const rows = blocks[block]!;
    rows.splice(offset, 1);
    this.#size--;
    if (rows.length === 0) blocks.splice(block, 1);
    else if (block > 0 && rows.length + blocks[block - 1]!.length <= this.blockRows >>> 1) {
      // Two small neighbours become one, so that removals do not leave a trail of tiny blocks.
      blocks[block - 1]!.push(...rows);
      blocks.splice(block, 1);
    }
    this.#changed();
  }

  /** Every row, in order. */
  *[Symbol.iterator](): IterableIterator<Row> {
    for (const rows of this.#blocks) yield* rows;
  }

  /** The rows for which `keep` holds, in order, as an array. */
  filter(keep: (row: Row) => boolean): Row[] {
    const kept: Row[] = [];
    for (const rows of this.#blocks) for (const row of rows) if (keep(row)) kept.push(row);
    return kept;
  }

  /** The block and offset of `row` (a stored row, by identity). */
  #find(row: Row): [number, number] {
    const blocks = this.#blocks;
    const block = lowerBound(blocks, blocks.length, (rows) => this.order(rows[rows.length - 1]!, row));
    const rows = blocks[block];
    if (rows !== undefined) {
      const offset = lowerBound(rows, rows.length, (stored) => this.order(stored, row));
      if (rows[offset] === row) return [block, offset];
    }
    // A total order finds the row; a scan is only a safeguard.
    for (let index = 0; index < blocks.length; index++) {
      const offset = blocks[index]!.indexOf(row);
      if (offset >= 0) return [index, offset];
    }
    throw new Error("the row is not stored");
  }

  /** The blocks' start positions, computed again after a change. */
  #positions(): number[] {
    if (this.#starts !== undefined) return this.#starts;
    const starts: number[] = new Array<number>(this.#blocks.length);
    let start = 0;
    for (let i = 0; i < this.#blocks.length; i++) {
      starts[i] = start;
      start += this.#blocks[i]!.length;
    }
    this.#starts = starts;
    return starts;
  }

  /** The blocks' sizes or number changed: their starts are found again when next needed. */
  #changed(): void {
    this.#starts = undefined;
    this.#lastBlock = -1;
  }
}
