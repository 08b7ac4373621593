/**
 * A filter compiled without options builds its closures on first use (see `compileExpression`):
 * whatever is asked of it first, it must answer exactly as a filter built at once (`eager`),
 * compile errors, results, evaluation errors, budget stops and costs alike.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Expression, MatchExpression } from "../../src/ast.js";
import { TIER_UP_EVALUATIONS } from "../../src/evaluator/codegen.js";
import { compileExpression, type EvaluatorOptions, type Filter } from "../../src/evaluator/compile.js";
import { compileFilter, CostBudget, FilterEvaluationError, FilterSyntaxError } from "../../src/index.js";
import { datumArb, expressionArb, FIELDS, patternArb, schemaArb } from "../support/arbitraries.js";

const SPAN = { start: 0, end: 0 };

/** `matches` clauses with valid, invalid and large patterns, so that compiling fails too, and on which clause. */
const patternClauseArb: fc.Arbitrary<MatchExpression> = fc
  .tuple(
    fc.constantFrom("Matches", "NotMatches") as fc.Arbitrary<"Matches" | "NotMatches">,
    fc.constantFrom(...FIELDS),
    fc.oneof(patternArb(["a", "b", ".", "\\d", "[a-c]", "^", "$", "(", "a{2,300}", "\\q", "(?i)x", "[z-a]"], ["(", "(?:", "(?P<n>"], ["*", "+", "?", "{3}", "{1,40}"]), fc.constantFrom("^(web|api)-", "^(dc1|dc2)$", "")),
  )
  .map(([operator, field, raw]) => ({ kind: "Match", operator, selector: { kind: "Selector", form: "Bexpr", path: [field], span: SPAN }, value: { kind: "Value", raw, span: SPAN }, spelling: "in", span: SPAN }));

/** Expressions of the usual shapes, joined with pattern clauses. */
const lazyExpressionArb: fc.Arbitrary<Expression> = fc
  .tuple(expressionArb, fc.array(patternClauseArb, { maxLength: 3 }), fc.constantFrom("And", "Or") as fc.Arbitrary<"And" | "Or">)
  .map(([expression, patterns, kind]) => (patterns.length === 0 ? expression : { kind, operands: [expression, ...patterns], span: SPAN }));

/** The first thing asked of a filter, which materialises a lazy one. */
const FIRST_USES = ["test", "filter", "cost", "fixedCost", "memoryEstimate", "worstCaseCost"] as const;
type FirstUse = (typeof FIRST_USES)[number];

/** An outcome of `run`: its value, or the code, reason and index of the evaluation error it threw. */
function settle(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    if (error instanceof FilterEvaluationError) return { error: error.code, reason: error.reason, index: error.index };
    throw error;
  }
}

/** Everything a filter answers, asked in an order that starts with `first`. */
function answers(filter: Filter, first: FirstUse, data: readonly unknown[], limit: number): unknown[] {
  const asked: Record<FirstUse, () => unknown> = {
    test: () => data.map((datum) => settle(() => filter.test(datum))),
    filter: () => {
      const budget = new CostBudget(limit);
      return [settle(() => filter.filter(data, budget).map((datum) => data.indexOf(datum))), budget.spent];
    },
    cost: () => data.map((datum) => settle(() => filter.cost(datum))),
    fixedCost: () => filter.fixedCost,
    memoryEstimate: () => filter.memoryEstimate,
    worstCaseCost: () => filter.worstCaseCost({ length: 3, textLength: 10 }),
  };
  return [first, ...FIRST_USES.filter((use) => use !== first)].map((use) => asked[use]());
}

/** The filter's answers, or its compile error's codes and spans. */
function compiledAnswers(expression: Expression, options: EvaluatorOptions, first: FirstUse, data: readonly unknown[], limit: number): unknown {
  let filter: Filter;
  try {
    filter = compileExpression(expression, options);
  } catch (error) {
    if (error instanceof FilterSyntaxError) return { syntax: error.diagnostics.map((d) => [d.code, d.severity, d.span.start, d.span.end, d.message]) };
    throw error;
  }
  return answers(filter, first, data, limit);
}

describe("a filter built on first use", () => {
  it("answers exactly as one built when compiled, whatever is asked of it first, errors, budgets and pattern limits included", () => {
    fc.assert(
      fc.property(
        lazyExpressionArb,
        fc.option(schemaArb, { nil: undefined }),
        fc.array(datumArb, { maxLength: 4 }),
        fc.constantFrom(...FIRST_USES),
        fc.integer({ min: 0, max: 120 }),
        fc.record({ maxCost: fc.integer({ min: 1, max: 200 }), maxPatternSize: fc.constantFrom(5, 40, 1_000) }),
        fc.boolean(),
        (expression, schema, data, first, limit, limits, codegen) => {
          const options: EvaluatorOptions = { ...(schema === undefined ? {} : { schema }), limits, codegen };
          expect(compiledAnswers(expression, options, first, data, limit)).toEqual(compiledAnswers(expression, { ...options, eager: true }, first, data, limit));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it.each(["test", "filter"] as const)("tiers up to generated code from its first %s(), with the closures' results", (first) => {
    const source = '(Status == "running" or Name matches "^(web|api)-") and Priority == 50';
    const lazy = compileFilter<Record<string, unknown>>(source);
    const closures = compileFilter<Record<string, unknown>>(source, { codegen: false });
    const values = Array.from({ length: TIER_UP_EVALUATIONS }, (_, i) => ({ Status: i % 3 === 0 ? "running" : "dead", Name: i % 5 === 0 ? "api-1" : "db", Priority: i % 2 === 0 ? 50 : 10 }));
    const before = lazy.test;
    const results = first === "test" ? values.map((value) => lazy.test(value)) : lazy.filter(values).map((value) => values.indexOf(value));
    const expected = first === "test" ? values.map((value) => closures.test(value)) : closures.filter(values).map((value) => values.indexOf(value));
    expect(results).toEqual(expected);
    expect(lazy.test).not.toBe(before);
    expect(values.map((value) => lazy.test(value))).toEqual(values.map((value) => closures.test(value)));
  });

  it.each([
    ['Name matches "("', "invalid_regex"],
    ['Status == "x" and Name matches "a{1001}"', "invalid_regex"],
    ['Status == "x" or Name matches "^(web|api)-[0-9]+$"', "pattern_too_large"],
  ])("still refuses %s when compiled: %s", (source, code) => {
    expect(() => compileFilter(source, { limits: { maxPatternSize: 10 } })).toThrow(expect.objectContaining({ code }) as unknown as Error);
  });

  it.each([{}, { codegen: false }])("has test and filter that work unbound (%j), as its own functions", (options) => {
    const { test, filter } = compileFilter<{ Status: string }>('Status == "running"', options);
    expect(test({ Status: "running" })).toBe(true);
    expect(filter([{ Status: "dead" }, { Status: "running" }])).toEqual([{ Status: "running" }]);
  });
});
