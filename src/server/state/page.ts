/**
 * The one paginator, as the reference's (`nomad/state/paginator/`): skip to `next_token`, keep the
 * permitted rows, filter, count, and cut. The item after a full page is not returned; its token
 * becomes `X-Svc-Nexttoken`, so the next page starts with it. Every store cuts its pages here
 * ({@link Store.page}): the memory store from its sorted tables ({@link cutPage}), PostgreSQL
 * from the batches it reads by keyset ({@link PageCut}, fed a batch at a time).
 *
 * The skip is a seek: the reference starts at the first row, in the list's order, whose token is
 * not before `next_token` (in reverse, not after it), and so does this, by binary search within
 * each segment of the rows where the tokens grow with the order (see {@link RowRange}), or by a
 * scan where they do not (a token that does not parse as the endpoint's tokens do). A database
 * seeks with a keyset bound instead, and offers the rows from there.
 *
 * Unlike the reference, rows the caller may not see are dropped *before* the filter: a hidden row
 * never reaches the filter, so its evaluation error (400) or its absence (200) cannot tell a
 * caller that it exists.
 *
 * @module
 */
import { FilterEvaluationError } from "../../errors.js";
import type { Filter } from "../../evaluator/compile.js";
import type { CostBudget } from "../../evaluator/cost.js";
import { lowerBound } from "./sorted-rows.js";
import type { Page, PageRequest, RowRange } from "./store.js";

/**
 * The most rows a page's filter is given at once by {@link cutPage}: over a batch, the filter runs
 * in its own loop (`Filter.filter`, which V8 optimises with the filter's code inlined) rather than
 * once a row through a call that stays in the interpreter for a filter never seen before (2 ms of
 * 10,000 rows against 0.2). The bound keeps a batch's arrays small whatever the list's length.
 */
export const FILTER_BATCH_ROWS = 1_024;

/**
 * The `permitted` of a caller who may see every row of the list (a management token, or rights
 * in the one namespace asked for): a page that is given it does not read the rows to ask.
 */
export const EVERY_ROW: (row: unknown) => boolean = () => true;

/** How one list's rows are paged from memory. */
export interface PageSource<Row> {
  /** The rows, in the endpoint's order (walked backwards for `reverse=true`). */
  readonly rows: RowRange<Row>;
  /** The pagination token of a row. */
  readonly token: (row: Row) => string;
  /** Compares a row's token with the requested `next_token` (negative: the row comes before it). */
  readonly compare: (token: string, nextToken: string) => number;
  /** Whether `compare` orders the tokens of each segment as the rows are ordered (so a seek may search). */
  readonly seekable: boolean;
  /** The value the filter is evaluated on. */
  readonly filterTarget: (row: Row) => unknown;
  /** Whether the caller may see the row (its namespace is permitted). */
  readonly permitted: (row: Row) => boolean;
  /**
   * What the filter is evaluated on at a position of the rows, when it is not the row's
   * {@link PageSource.filterTarget} itself but a value it decides on exactly as on it (a projection,
   * see `projection.ts`).
   */
  readonly targetAt?: ((position: number, row: Row) => unknown) | undefined;
}

/**
 * A page being cut from the rows a store offers, in the list's order from where the page starts:
 * the rule of every page, whatever keeps the rows. Filter errors (FilterEvaluationError,
 * `cost_exceeded` when the budget runs out) propagate to the caller; the reference fails the
 * whole request on them.
 */
export class PageCut<Row> {
  readonly rows: Row[] = [];
  /** The token of the row after a full page ("" until it is found). */
  nextToken = "";
  /** How many rows the filter was evaluated on. */
  evaluated = 0;
  readonly #perPage: number;
  readonly #filter: Filter | undefined;
  readonly #budget: CostBudget | undefined;
  readonly #rows: Pick<PageSource<Row>, "permitted" | "filterTarget" | "token">;

  /** @param rows - what the page needs to know of a row: whether the caller may see it, what the filter sees of it, its token. */
  constructor(request: Pick<PageRequest, "perPage" | "filter" | "budget">, rows: Pick<PageSource<Row>, "permitted" | "filterTarget" | "token">) {
    this.#perPage = request.perPage;
    this.#filter = request.filter;
    this.#budget = request.budget;
    this.#rows = rows;
  }

  /**
   * Offers the next row; true once the page is cut (the row after a full page was found): offer no
   * more. `decided`: the filter was decided for this row already (by a database, exactly).
   */
  offer(row: Row, decided = false): boolean {
    const rows = this.#rows;
    if (!rows.permitted(row)) return false;
    const filter = this.#filter;
    if (filter !== undefined && !decided) {
      this.evaluated++;
      if (!filter.test(rows.filterTarget(row), this.#budget)) return false;
    }
    return this.#keep(row);
  }

  /**
   * Offers the next rows the caller may see, in order, to the filter at once: at most
   * {@link PageCut.wanted} of them, so that the filter meets exactly the rows {@link PageCut.offer}
   * would have given it one by one (the page cannot be cut before the last), and charges the
   * budget as much, in the same order. True once the page is cut. `given` holds, when it is
   * given, what the filter is evaluated on for each row in place of its target.
   */
  offerPermitted(rows: readonly Row[], given?: readonly unknown[]): boolean {
    if (rows.length > this.wanted) throw new RangeError(`${rows.length} rows offered to a page that wants ${this.wanted}`);
    const filter = this.#filter;
    if (filter === undefined) return rows.some((row) => this.#keep(row));
    const { filterTarget } = this.#rows;
    // `given`: what the filter decides on for each row, instead of its target (one object per row).
    const targets = given ?? rows.map((row) => filterTarget(row));
    this.evaluated += rows.length;
    let accepted: unknown[];
    try {
      accepted = filter.filter(targets, this.#budget);
    } catch (error) {
      // As `Filter.test` throws it, without the index within the batch.
      if (error instanceof FilterEvaluationError && error.index !== undefined) throw new FilterEvaluationError(error.code, error.reason, error.span, error.source, undefined, error.suggestion);
      throw error;
    }
    // The accepted targets, in their order: matched back to their rows one after the other.
    let next = 0;
    for (let i = 0; i < rows.length && next < accepted.length; i++) {
      if (targets[i] !== accepted[next]) continue;
      next++;
      if (this.#keep(rows[i]!)) return true;
    }
    return false;
  }

  /** Keeps a row the filter accepted; true when it is the row after a full page (its token is the next page's). */
  #keep(row: Row): boolean {
    if (this.#perPage > 0 && this.rows.length === this.#perPage) {
      this.nextToken = this.#rows.token(row);
      return true;
    }
    this.rows.push(row);
    return false;
  }

  /** How many more rows the page and the row after it may take (Infinity without `per_page`): what a store reads next. */
  get wanted(): number {
    return this.#perPage > 0 ? this.#perPage + 1 - this.rows.length : Infinity;
  }

  /** The page as cut so far (the last page, when the rows ran out). */
  page(): Page<Row> {
    return { rows: this.rows, nextToken: this.nextToken, evaluated: this.evaluated };
  }
}

/**
 * A `<CreateIndex>.<ID>` token's parts when the reference parses it as an index (a signed decimal
 * within int64, here within the doubles' safe integers); undefined when it does not, and the token
 * is then compared as text.
 */
export function creationToken(token: string): { readonly index: number; readonly id: string } | undefined {
  const dot = token.indexOf(".");
  if (dot === -1 || !/^[+-]?[0-9]+$/.test(token.slice(0, dot))) return undefined;
  const index = Number(token.slice(0, dot));
  return Number.isSafeInteger(index) ? { index, id: token.slice(dot + 1) } : undefined;
}

/**
 * The position the page starts at: the first row (walking forwards) whose token is not before
 * `nextToken`, or walking backwards the first whose token is not after it; past the end (`size`,
 * or -1 backwards) when there is none.
 */
export function seek<Row>(source: Pick<PageSource<Row>, "rows" | "token" | "compare" | "seekable">, nextToken: string, reverse: boolean): number {
  const { rows, token, compare, seekable } = source;
  if (nextToken === "") return reverse ? rows.size - 1 : 0;
  const order = (position: number) => compare(token(rows.at(position)), nextToken);
  if (!seekable) {
    if (reverse) {
      let position = rows.size - 1;
      while (position >= 0 && order(position) > 0) position--;
      return position;
    }
    let position = 0;
    while (position < rows.size && order(position) < 0) position++;
    return position;
  }
  const starts = [0, ...rows.segments];
  if (reverse) {
    for (let segment = starts.length - 1; segment >= 0; segment--) {
      const start = starts[segment]!;
      const end = segment + 1 < starts.length ? starts[segment + 1]! : rows.size;
      if (start === end || order(start) > 0) continue;
      // The last row of the segment that is not after the token.
      return lowerBound(rows, end, (row) => (compare(token(row), nextToken) <= 0 ? -1 : 1), start) - 1;
    }
    return -1;
  }
  for (let segment = 0; segment < starts.length; segment++) {
    const start = starts[segment]!;
    const end = segment + 1 < starts.length ? starts[segment + 1]! : rows.size;
    if (start === end || order(end - 1) < 0) continue;
    return lowerBound(rows, end, (row) => compare(token(row), nextToken), start);
  }
  return rows.size;
}

/**
 * Cuts one page of rows in memory: from the {@link seek}'s position, each row offered to a
 * {@link PageCut}; with a filter, the rows the caller may see a batch at a time (at most
 * {@link FILTER_BATCH_ROWS}, and no more than the page wants), each evaluated on its
 * {@link PageSource.targetAt} when the source gives one.
 */
export function cutPage<Row>(source: PageSource<Row>, request: PageRequest): Page<Row> {
  const { rows, permitted } = source;
  const cut = new PageCut(request, source);
  const step = request.reverse ? -1 : 1;
  let position = seek(source, request.nextToken, request.reverse);
  if (request.filter === undefined) {
    for (; position >= 0 && position < rows.size; position += step) {
      if (cut.offer(rows.at(position))) break;
    }
    return cut.page();
  }
  const { targetAt } = source;
  // Rows lie where they were made, each read a wait on memory: not read when the caller sees them all.
  const everyRow = permitted === EVERY_ROW;
  // One pair of arrays for the request's batches, written over (emptying an array gives its
  // storage back, so each batch would grow new storage: 430 KB a request on 10,000 rows).
  const capacity = Math.min(cut.wanted, FILTER_BATCH_ROWS, rows.size);
  const batch = new Array<Row>(capacity);
  const targets: unknown[] | undefined = targetAt === undefined ? undefined : new Array<unknown>(capacity);
  while (position >= 0 && position < rows.size) {
    const size = Math.min(cut.wanted, capacity);
    let count = 0;
    for (; count < size && position >= 0 && position < rows.size; position += step) {
      const row = rows.at(position);
      if (!everyRow && !permitted(row)) continue;
      batch[count] = row;
      if (targets !== undefined) targets[count] = targetAt!(position, row);
      count++;
    }
    // A shorter batch (the last, or the end of a page) shortens the arrays in place.
    if (count < batch.length) {
      batch.length = count;
      if (targets !== undefined) targets.length = count;
    }
    if (cut.offerPermitted(batch, targets)) break;
  }
  return cut.page();
}
