/**
 * The one list pipeline of the agent, as the reference's paginator runs it: skip to
 * `next_token`, keep the permitted namespaces, filter, count, and cut the page. The item after a
 * full page is not returned; its token becomes `X-Svc-Nexttoken`, so the next page starts with it.
 *
 * Unlike the reference, rows the caller may not see are dropped *before* the filter: a hidden row
 * never reaches the filter, so its evaluation error (400) or its absence (200) cannot tell a
 * caller that it exists.
 *
 * @module
 */
import type { Filter } from "../evaluator/compile.js";
import type { CostBudget } from "../evaluator/cost.js";

/** How one list endpoint's rows are paged. */
export interface PageSource<Row> {
  /** The rows, in the endpoint's order (the pipeline reverses them for `reverse=true`). */
  readonly rows: readonly Row[];
  /** The pagination token of a row. */
  readonly token: (row: Row) => string;
  /** Compares a row's token with the requested `next_token` (negative: the row comes before it). */
  readonly compare: (token: string, nextToken: string) => number;
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
 * Cuts one page. Filter errors (FilterEvaluationError, `cost_exceeded` when the budget runs out)
 * propagate to the caller; the reference fails the whole request on them.
 */
export function cutPage<Row>(source: PageSource<Row>, request: PageRequest): Page<Row> {
  const { rows, token, compare, filterTarget, permitted } = source;
  const { perPage, nextToken, reverse, filter, budget } = request;
  const page: Row[] = [];
  let started = nextToken === "";
  let evaluated = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[reverse ? rows.length - 1 - i : i]!;
    const rowToken = token(row);
    if (!started) {
      const order = compare(rowToken, nextToken);
      // Rows before the token (after it, in reverse) were on earlier pages.
      if (reverse ? order > 0 : order < 0) continue;
    }
    if (!permitted(row)) continue;
    if (filter !== undefined) {
      evaluated++;
      if (!filter.test(filterTarget(row), budget)) continue;
    }
    started = true;
    if (perPage > 0 && page.length === perPage) return { rows: page, nextToken: rowToken, evaluated };
    page.push(row);
  }
  return { rows: page, nextToken: "", evaluated };
}
