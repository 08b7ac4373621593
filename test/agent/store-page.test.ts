/**
 * One paginator, behind the store: every store cuts its pages by `state/page.ts` (`PageCut`), the
 * memory store from its sorted rows, PostgreSQL from the batches it reads by keyset, and the list
 * pipeline asks the `Store` interface for a page, knowing no store class. The paginator's rules
 * are tested here as a function, with tables like the reference's paginator tests
 * (`nomad/state/paginator/paginator_test.go`); the pages over HTTP, on both stores, in
 * pagination.property.test.ts and sql-pages.property.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FilterEvaluationError } from "../../src/errors.js";
import { CostBudget } from "../../src/evaluator/cost.js";
import { compileFilter } from "../../src/filter.js";
import { compareStrings } from "../../src/go/order.js";
import { cutPage, FILTER_BATCH_ROWS, PageCut, type PageSource } from "../../src/server/state/page.js";
import type { PageRequest } from "../../src/server/state/store.js";

const SRC = join(import.meta.dirname, "../../src");

/** The project files `file` (relative to src/) imports, types included, relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  return [...text.matchAll(/^(?:import|export)[^;]*?from "(\.[^"]+)";$/gm)].map(([, from]) => relative(SRC, join(SRC, dirname(file), from!)).replace(/\.js$/, ".ts"));
}

describe("the list pipeline's seam with the store", () => {
  const list = readdirSync(join(SRC, "server/list")).map((file) => `server/list/${file}`);

  it.each(list)("%s imports no store backend, only the Store interface and the paginator", (file) => {
    expect(importsOf(file).filter((to) => to.startsWith("server/state/postgres/") || to === "server/state/memory.ts")).toEqual([]);
  });
});

/** Rows 1…n whose tokens are their zero-padded numbers, in order. */
function numbered(values: readonly number[]) {
  const rows = { size: values.length, at: (position: number) => values[position]!, segments: [] };
  const token = (value: number) => String(value).padStart(3, "0");
  return { rows, token, compare: compareStrings, seekable: true, filterTarget: (value: number) => ({ Value: value }), permitted: () => true };
}

describe("a page, cut as the reference's paginator cuts it", () => {
  const rows = [1, 2, 3, 4, 5];
  it.each([
    ["size-3 page-1", 3, "", false, [1, 2, 3], "004"],
    ["size-5 page-1 stops at the end", 5, "", false, [1, 2, 3, 4, 5], ""],
    ["size-3 page-2 reads off the end", 3, "004", false, [4, 5], ""],
    ["starting off the end", 3, "009", false, [], ""],
    ["a token between rows starts at the next row", 2, "0025", false, [3, 4], "005"],
    ["no per_page: every row", 0, "", false, [1, 2, 3, 4, 5], ""],
    ["reverse size-2 page-1", 2, "", true, [5, 4], "003"],
    ["reverse size-2 from a token", 2, "003", true, [3, 2], "001"],
  ] as const)("%s", (_name, perPage, nextToken, reverse, expected, next) => {
    const page = cutPage(numbered(rows), { perPage, nextToken, reverse, filter: undefined });
    expect(page.rows).toEqual(expected);
    expect(page.nextToken).toBe(next);
    expect(page.evaluated).toBe(0);
  });

  it.each([
    ["the filter keeps the matching rows and counts every row it saw, the row after the page too", "Value != 1 and Value != 2", 2, [3, 4], "005", 5],
    ["a page of one with the filter", "Value != 2", 1, [1], "003", 3],
    ["a filter no row matches reads to the end", "Value == 9", 2, [], "", 5],
  ] as const)("%s", (_name, source, perPage, expected, next, evaluated) => {
    const filter = compileFilter(source);
    const page = cutPage(numbered(rows), { perPage, nextToken: "", reverse: false, filter });
    expect([page.rows, page.nextToken, page.evaluated]).toEqual([expected, next, evaluated]);
  });

  it("drops rows the caller may not see before the filter, which never sees them", () => {
    const seen: number[] = [];
    const source = { ...numbered(rows), permitted: (value: number) => value % 2 === 1, filterTarget: (value: number) => (seen.push(value), { Value: value }) };
    const page = cutPage(source, { perPage: 1, nextToken: "", reverse: false, filter: compileFilter("Value != 0") });
    expect([page.rows, page.nextToken, page.evaluated, seen]).toEqual([[1], "003", 2, [1, 3]]);
  });

  it("fails the page when the filter's evaluations spend the request's budget", () => {
    const page = () => cutPage(numbered(rows), { perPage: 0, nextToken: "", reverse: false, filter: compileFilter("Value != 0"), budget: new CostBudget(5) });
    expect(page).toThrow(FilterEvaluationError);
    expect(() => page()).toThrow(expect.objectContaining({ code: "cost_exceeded" }));
  });
});

describe("a page fed a batch at a time (as PostgreSQL reads it)", () => {
  const rules = { permitted: (value: number) => value !== 2, filterTarget: (value: number) => ({ Value: value }), token: (value: number) => String(value) };

  it("asks for the page and the row after it, then fewer as rows are kept", () => {
    const cut = new PageCut({ perPage: 3, filter: undefined }, rules);
    expect(cut.wanted).toBe(4);
    expect(cut.offer(1)).toBe(false);
    expect(cut.offer(2)).toBe(false); // not permitted: not kept, not counted
    expect(cut.wanted).toBe(3);
    expect([cut.offer(3), cut.offer(4), cut.offer(5)]).toEqual([false, false, true]);
    expect(cut.page()).toEqual({ rows: [1, 3, 4], nextToken: "5", evaluated: 0 });
  });

  it("wants every row without per_page", () => {
    expect(new PageCut({ perPage: 0, filter: undefined }, rules).wanted).toBe(Infinity);
  });

  it("evaluates the filter only on rows the database did not decide exactly", () => {
    const cut = new PageCut({ perPage: 0, filter: compileFilter("Value == 4") }, rules);
    // Decided rows are kept as they come (the database selected them); the others are checked.
    for (const [value, decided] of [[1, true], [3, false], [4, false], [6, true]] as const) cut.offer(value, decided);
    expect(cut.page()).toEqual({ rows: [1, 4, 6], nextToken: "", evaluated: 2 });
  });
});

/** The page {@link cutPage} cuts, as offered one row at a time (the per-row rule it must keep): rows, token, count, units spent, or the error. */
function outcomeOf(cut: () => { rows: readonly number[]; nextToken: string; evaluated: number }, budget: CostBudget | undefined): unknown {
  try {
    const page = cut();
    return { rows: page.rows, nextToken: page.nextToken, evaluated: page.evaluated, spent: budget?.spent };
  } catch (error) {
    if (error instanceof FilterEvaluationError) return { error: error.code, reason: error.reason, index: error.index, span: error.span, spent: budget?.spent };
    throw error;
  }
}

/** {@link cutPage} row by row through {@link PageCut.offer}: the rule the batches must keep. */
function rowByRow(source: PageSource<number>, request: PageRequest): { rows: readonly number[]; nextToken: string; evaluated: number } {
  const cut = new PageCut(request, source);
  const step = request.reverse ? -1 : 1;
  for (let position = request.reverse ? source.rows.size - 1 : 0; position >= 0 && position < source.rows.size; position += step) {
    if (cut.offer(source.rows.at(position))) break;
  }
  return cut.page();
}

describe("a filtered page, cut a batch at a time", () => {
  /** Rows 1…n; the filter's target of row v has `Value` v, and no `Value` at all when v is in `broken` (the filter fails there). */
  function source(count: number, hidden: ReadonlySet<number>, broken: ReadonlySet<number>): PageSource<number> {
    const values = Array.from({ length: count }, (_, i) => i + 1);
    return { ...numbered(values), permitted: (value) => !hidden.has(value), filterTarget: (value) => (broken.has(value) ? {} : { Value: value }) };
  }

  it.each([
    ["every row (no per_page): three batches, the last of a few rows", 0, 2 * FILTER_BATCH_ROWS + 3, 2 * FILTER_BATCH_ROWS + 3, ""],
    ["a page one row shorter than a batch", FILTER_BATCH_ROWS - 1, 3 * FILTER_BATCH_ROWS, FILTER_BATCH_ROWS - 1, String(FILTER_BATCH_ROWS)],
    ["a page of a batch: its next row is a batch of its own", FILTER_BATCH_ROWS, 3 * FILTER_BATCH_ROWS, FILTER_BATCH_ROWS, String(FILTER_BATCH_ROWS + 1)],
    ["a page one row longer than a batch", FILTER_BATCH_ROWS + 1, 3 * FILTER_BATCH_ROWS, FILTER_BATCH_ROWS + 1, String(FILTER_BATCH_ROWS + 2)],
    ["the last page, ending with the rows", FILTER_BATCH_ROWS, FILTER_BATCH_ROWS, FILTER_BATCH_ROWS, ""],
  ])("%s: the rows, next token and count of row by row", (_name, perPage, count, kept, next) => {
    const rows = source(count, new Set(), new Set());
    const request = { perPage, nextToken: "", reverse: false, filter: compileFilter("Value != 0") };
    const page = cutPage(rows, request);
    expect([page.rows.length, page.nextToken.replace(/^0+/, "")]).toEqual([kept, next]);
    expect(page).toEqual(rowByRow(rows, request));
  });

  it("fills a page past the rows the caller may not see, batch after batch", () => {
    // Every row but each 5th is hidden: the page of 300 spans about 1,500 rows, two batches and more.
    const hidden = new Set(Array.from({ length: 3 * FILTER_BATCH_ROWS }, (_, i) => i + 1).filter((value) => value % 5 !== 0));
    const rows = source(3 * FILTER_BATCH_ROWS, hidden, new Set());
    const request = { perPage: 300, nextToken: "", reverse: false, filter: compileFilter("Value != 10") };
    const page = cutPage(rows, request);
    expect([page.rows.length, page.rows[1], page.nextToken]).toEqual([300, 15, "1510"]);
    expect(page).toEqual(rowByRow(rows, request));
  });

  it("never gives the filter a row after the next page's first: one the filter fails on there is not reached", () => {
    // Row 4 is the next page's first; row 5 would fail the filter (no Value), so reaching it would fail the page.
    const rows = source(10, new Set(), new Set([5]));
    const page = cutPage(rows, { perPage: 3, nextToken: "", reverse: false, filter: compileFilter("Value != 0") });
    expect([page.rows, page.nextToken, page.evaluated]).toEqual([[1, 2, 3], "004", 4]);
  });

  it.each([
    ["the page and the row after it cost exactly the budget", 4 * 2, { rows: [1, 2, 3], nextToken: "004", evaluated: 4, spent: 8 }],
    ["the budget runs out on the row after the page", 4 * 2 - 1, { error: "cost_exceeded", reason: "the evaluations exceeded their shared cost budget of 7 units", index: undefined, span: { start: 0, end: 10 }, spent: 6 }],
  ])("charges the request's budget as row by row: %s", (_name, limit, expected) => {
    const rows = source(10, new Set(), new Set());
    const budget = new CostBudget(limit);
    expect(outcomeOf(() => cutPage(rows, { perPage: 3, nextToken: "", reverse: false, filter: compileFilter("Value != 0"), budget }), budget)).toEqual(expected);
  });

  it("gives what offering one row at a time gives, errors, budgets, hidden rows and both orders included", () => {
    const FILTERS = ["Value != 0", "Value != 3", "Value == 7 or Value == 9", '"x" in Tags', "Value matches \"^1\""];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 10 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 2 }),
        fc.integer({ min: 0, max: 6 }),
        fc.boolean(),
        fc.constantFrom(...FILTERS),
        fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
        (count, hidden, broken, perPage, reverse, text, limit) => {
          const rows = source(count, new Set(hidden), new Set(broken));
          const run = (cut: (source: PageSource<number>, request: PageRequest) => unknown) => {
            // A fresh filter and budget for each: the generated code from the first value, as a filter tiers up on a long list.
            const budget = limit === undefined ? undefined : new CostBudget(limit);
            const filter = compileFilter(text, { tierUpAfter: 0 } as object);
            return outcomeOf(() => cut(rows, { perPage, nextToken: "", reverse, filter, ...(budget === undefined ? {} : { budget }) }) as never, budget);
          };
          expect(run(cutPage)).toEqual(run(rowByRow));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
