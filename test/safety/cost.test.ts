/**
 * The cost model (issue 10, finding 1): every evaluation is metered, a filter knows its worst case
 * as a function of the sizes it meets, and an evaluation that would spend more than its budget
 * stops with `cost_exceeded` instead of running for minutes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileFilter, CostBudget, FilterEvaluationError, MAX_EVALUATION_COST, type Filter } from "../../src/index.js";
import { KEY_LIST_COST, MAP_ENTRY_COST, PATTERN_CALL_COST, textCost } from "../../src/evaluator/cost.js";
import { compilePattern } from "../../src/evaluator/regex.js";
import { datumArb, expressionArb } from "../support/arbitraries.js";
import { catchError } from "../support/errors.js";

const job = { Name: "web-api", Status: "running", Stop: false, Datacenters: ["dc1", "dc2", "dc3"], Meta: { owner: "team-a", tier: "gold" } };
const patternSize = (source: string) => {
  const compiled = compilePattern(source);
  if (!compiled.ok) throw new Error(compiled.reason);
  return compiled.pattern.size;
};

/** The filter: `any Datacenters as d0 { any … { Datacenters contains "dc9" } }`, `levels` deep. */
function nested(levels: number): string {
  let body = 'Datacenters contains "dc9"';
  for (let i = levels - 1; i >= 0; i--) body = `any Datacenters as d${i} { ${body} }`;
  return body;
}

/**
 * Its cost on a job with three datacenters: the top collection's lookup (2), then at each level
 * three elements, each a visit (1) and the body's lookup (2) and the level below; the innermost
 * body scans the three datacenters (3).
 */
function nestedCost(levels: number): number {
  let run = 3;
  for (let level = 0; level < levels; level++) run = 3 * (1 + 2 + run);
  return 2 + run;
}

describe("the price of each step", () => {
  it.each<[string, string, unknown, number]>([
    ["a clause: one unit and one per segment", 'Status == "running"', job, 2],
    ["a deeper selector", 'Meta.owner == "team-a"', job, 3],
    ["`in` on a list: one per element", '"dc3" in Datacenters', job, 2 + 3],
    ["`in` on a string: one per 4 characters", 'Name contains "api"', job, 2 + textCost(7)],
    ["a literal pattern: a text search", 'Name matches "^web"', job, 2 + textCost(7)],
    ["a regular expression: its size per character", 'Name matches "^web-[a-z]+$"', job, 2 + PATTERN_CALL_COST + patternSize("^web-[a-z]+$") * 8],
    ["any: one per element visited and the body's clauses", 'any Datacenters as d { d == "dc2" }', job, 2 + 2 * (1 + 2)],
    ["all over a map: its keys listed, then each entry", 'all Meta as k, v { v != "" }', job, 2 + 2 * KEY_LIST_COST + 2 * (MAP_ENTRY_COST + 2)],
    ["is empty on a map: its keys listed", "Meta is empty", job, 2 + 2 * KEY_LIST_COST],
    ["clauses skipped by short-circuit are charged too (the fixed cost)", 'Stop == true and Name matches "x"', job, 2 + 2],
  ])("%s", (_name, source, value, units) => {
    expect(compileFilter(source).cost(value)).toBe(units);
  });

  it("charges the fixed cost once, up front, as filter.fixedCost", () => {
    const filter = compileFilter('Status == "running" and (Meta.owner == "x" or Stop == false)');
    expect(filter.fixedCost).toBe(2 + 3 + 2);
    expect(filter.cost(job)).toBe(7);
  });

  it(`gives every evaluation a budget of ${MAX_EVALUATION_COST} units by default`, () => {
    expect(compileFilter("a == 1").maxCost).toBe(MAX_EVALUATION_COST);
  });
});

describe("the budget of one evaluation", () => {
  it("accepts an evaluation that costs exactly its budget and stops one that costs one unit more", () => {
    const source = 'any Datacenters as d { d == "dc9" }';
    const units = compileFilter(source).cost(job);
    expect(units).toBe(2 + 3 * 3);
    expect(compileFilter(source, { limits: { maxCost: units } }).test(job)).toBe(false);
    const error = catchError(() => compileFilter(source, { limits: { maxCost: units - 1 } }).test(job));
    expect(error).toBeInstanceOf(FilterEvaluationError);
    expect((error as FilterEvaluationError).code).toBe("cost_exceeded");
    expect((error as FilterEvaluationError).reason).toBe(`the evaluation exceeded its cost budget of ${units - 1} units`);
    expect((error as FilterEvaluationError).span).toEqual({ start: 0, end: source.length });
  });

  it("fails a filter whose fixed cost alone is over the budget, metered or not", () => {
    for (const source of ["a == 1 and b == 2", '"x" in a and b == 2']) {
      const error = catchError(() => compileFilter(source, { limits: { maxCost: 3 } }).test({ a: 1, b: 2 }));
      expect((error as FilterEvaluationError).code, source).toBe("cost_exceeded");
    }
  });

  it.each([8, 14, 20, 40])("stops the issue's %i-level nested collections at the budget", (levels) => {
    const filter = compileFilter(nested(levels));
    expect(filter.worstCaseCost({ length: 3, textLength: 3 })).toBeGreaterThanOrEqual(nestedCost(levels));
    if (nestedCost(levels) <= MAX_EVALUATION_COST) {
      expect(filter.cost(job)).toBe(nestedCost(levels));
      expect(filter.test(job)).toBe(false);
      return;
    }
    // Metered with a shared budget, to count the units spent before it stopped.
    const budget = new CostBudget(Number.MAX_SAFE_INTEGER);
    const error = catchError(() => filter.test(job, budget));
    expect((error as FilterEvaluationError).code).toBe("cost_exceeded");
    // It stopped on the unit that went over: never more than one step (a few units) past the budget.
    expect(budget.spent).toBeGreaterThan(MAX_EVALUATION_COST);
    expect(budget.spent).toBeLessThanOrEqual(MAX_EVALUATION_COST + 10);
  });

  it("stops a large regular expression on a long text", () => {
    const filter = compileFilter('Name matches ".{1000}.{1000}"');
    const long = { Name: "a".repeat(2_000) };
    expect(filter.worstCaseCost({ length: 0, textLength: 2_000 })).toBeGreaterThan(MAX_EVALUATION_COST);
    expect((catchError(() => filter.test(long)) as FilterEvaluationError).code).toBe("cost_exceeded");
    // On a realistic name it is cheap enough.
    expect(filter.test({ Name: "web-api" })).toBe(false);
  });

  it("stops listing the keys of a huge map", () => {
    const huge = { Meta: Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, "v"])) };
    const filter = compileFilter(Array.from({ length: 100 }, () => "Meta is empty").join(" or "));
    const budget = new CostBudget(Number.MAX_SAFE_INTEGER);
    expect((catchError(() => filter.test(huge, budget)) as FilterEvaluationError).code).toBe("cost_exceeded");
    // One listing of 40,000 keys is 640,000 units: the second clause never runs.
    expect(budget.spent).toBe(filter.fixedCost + 40_000 * KEY_LIST_COST);
  });
});

describe("a budget shared by many evaluations", () => {
  const rows = Array.from({ length: 10 }, (_, i) => ({ ...job, Name: `web-${i}` }));

  it("is charged every evaluation's cost", () => {
    const filter = compileFilter('"dc3" in Datacenters and Name contains "web"');
    const budget = new CostBudget(1_000);
    expect(filter.filter(rows, budget)).toHaveLength(10);
    expect(budget.spent).toBe(rows.reduce((sum, row) => sum + filter.cost(row), 0));
  });

  it("stops the list when it runs out, naming the shared budget and the row", () => {
    const filter = compileFilter('Status == "running"');
    const budget = new CostBudget(2 * 5);
    const error = catchError(() => filter.filter(rows, budget)) as FilterEvaluationError;
    expect(error.code).toBe("cost_exceeded");
    expect(error.reason).toBe("the evaluations exceeded their shared cost budget of 10 units");
    expect(error.index).toBe(5);
  });

  it("refuses a budget that is not a number", () => {
    expect(() => new CostBudget(-1)).toThrow(TypeError);
    expect(() => new CostBudget(Number.NaN)).toThrow(TypeError);
  });
});

describe("the worst case is an upper bound", () => {
  /** The largest list or map and the longest string anywhere in a value. */
  function sizesOf(value: unknown): { length: number; textLength: number } {
    if (typeof value === "string") return { length: 0, textLength: value.length };
    if (typeof value !== "object" || value === null) return { length: 0, textLength: 0 };
    const children = Array.isArray(value) ? value : Object.values(value);
    const keys = Array.isArray(value) ? [] : Object.keys(value);
    return children.map(sizesOf).reduce(
      (a, b) => ({ length: Math.max(a.length, b.length), textLength: Math.max(a.textLength, b.textLength) }),
      { length: children.length, textLength: Math.max(0, ...keys.map((key) => key.length)) },
    );
  }

  it("holds for any filter on any value: cost(value) ≤ worstCaseCost(sizes of value)", () => {
    fc.assert(
      fc.property(expressionArb, datumArb, (expression, datum) => {
        let filter: Filter;
        try {
          filter = compileFilter(expression);
        } catch {
          return;
        }
        let cost: number;
        try {
          cost = filter.cost(datum);
        } catch (error) {
          if (error instanceof FilterEvaluationError) return;
          throw error;
        }
        expect(cost).toBeLessThanOrEqual(filter.worstCaseCost(sizesOf(datum)));
      }),
      { numRuns: 3_000 },
    );
  });
});
