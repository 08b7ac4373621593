/**
 * Cutting one page, as the reference's paginator does: skip to `next_token`, keep the permitted
 * rows, filter, count, and cut. The item after a full page is not returned; its token becomes
 * `X-Svc-Nexttoken`, so the next page starts with it.
 *
 * The skip is a seek: the reference starts at the first row, in the list's order, whose token is
 * not before `next_token` (in reverse, not after it), and so does this, by binary search within
 * each segment of the rows where the tokens grow with the order (see {@link RowRange}), or by a
 * scan where they do not (a token that does not parse as the endpoint's tokens do).
 *
 * Unlike the reference, rows the caller may not see are dropped *before* the filter: a hidden row
 * never reaches the filter, so its evaluation error (400) or its absence (200) cannot tell a
 * caller that it exists.
 *
 * @module
 */
import type { Filter } from "../../evaluator/compile.js";
import type { CostBudget } from "../../evaluator/cost.js";
import { lowerBound } from "../state/sorted-rows.js";
import type { RowRange } from "../state/store.js";

/** How one list endpoint's rows are paged. */
export interface PageSource<Row> {
  /** The rows, in the endpoint's order (the pipeline walks them backwards for `reverse=true`). */
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
}

/** The paging parameters of a request. */
export interface PageRequest {
  readonly perPage: number;
  readonly nextToken: string;
  readonly reverse: boolean;
  readonly filter: Filter | undefined;
  /** The cost budget of all the filter's evaluations for this page. */
  readonly budget?: CostBudget;
}

/** One page: its rows, the token of the next page ("" on the last page), and how many rows the filter saw. */
export interface Page<Row> {
  readonly rows: Row[];
  readonly nextToken: string;
  readonly evaluated: number;
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
 * Cuts one page. Filter errors (FilterEvaluationError, `cost_exceeded` when the budget runs out)
 * propagate to the caller; the reference fails the whole request on them.
 */
export function cutPage<Row>(source: PageSource<Row>, request: PageRequest): Page<Row> {
  const { rows, token, filterTarget, permitted } = source;
  const { perPage, nextToken, reverse, filter, budget } = request;
  const page: Row[] = [];
  let evaluated = 0;
  const step = reverse ? -1 : 1;
  for (let position = seek(source, nextToken, reverse); position >= 0 && position < rows.size; position += step) {
    const row = rows.at(position);
    if (!permitted(row)) continue;
    if (filter !== undefined) {
      evaluated++;
      if (!filter.test(filterTarget(row), budget)) continue;
    }
    if (perPage > 0 && page.length === perPage) return { rows: page, nextToken: token(row), evaluated };
    page.push(row);
  }
  return { rows: page, nextToken: "", evaluated };
}
