import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Expression } from "../../src/ast.js";
import { compileExpression, type EvaluatorOptions, type Filter } from "../../src/evaluator/compile.js";
import { CostBudget, FilterEvaluationError, FilterSyntaxError } from "../../src/index.js";
import { datumArb, expressionArb, schemaArb, scopedDatumArb, scopedExpressionArb } from "../support/arbitraries.js";

type Outcome = { result: boolean } | { error: string };

/** The compiled filter, or undefined when a generated pattern is invalid RE2 (rejected at compile time). */
function compiled(expression: Expression, options: EvaluatorOptions): Filter | undefined {
  try {
    return compileExpression(expression, options);
  } catch (error) {
    if (error instanceof FilterSyntaxError && error.code === "invalid_regex") return undefined;
    throw error;
  }
}

/** What filter() gives over a list: the indexes accepted, or the error's code and index. */
function listOutcome(expression: Expression, data: unknown[], options: EvaluatorOptions): unknown {
  const filter = compiled(expression, options);
  if (filter === undefined) return undefined;
  try {
    return filter.filter(data).map((datum) => data.indexOf(datum));
  } catch (error) {
    if (error instanceof FilterEvaluationError) return { error: error.code, index: error.index };
    throw error;
  }
}

/**
 * What filter() gives over a list with a shared budget of `limit` units: the indexes accepted or
 * the error's code, reason and index, and the units charged either way.
 */
function budgetedListOutcome(expression: Expression, data: unknown[], limit: number, options: EvaluatorOptions): unknown {
  const filter = compiled(expression, options);
  if (filter === undefined) return undefined;
  const budget = new CostBudget(limit);
  try {
    const accepted = filter.filter(data, budget).map((datum) => data.indexOf(datum));
    return { accepted, spent: budget.spent };
  } catch (error) {
    if (error instanceof FilterEvaluationError) return { error: error.code, reason: error.reason, index: error.index, spent: budget.spent };
    throw error;
  }
}

/** Evaluates, turning an evaluation error into its code (the only acceptable failure). */
function outcome(expression: Expression, datum: unknown, options: EvaluatorOptions = {}): Outcome | undefined {
  const filter = compiled(expression, options);
  if (filter === undefined) return undefined;
  try {
    return { result: filter.test(datum) };
  } catch (error) {
    if (error instanceof FilterEvaluationError) return { error: error.code };
    throw error;
  }
}

const SPAN = { start: 0, end: 0 };
const not = (operand: Expression): Expression => ({ kind: "Not", operand, span: SPAN });
const and = (...operands: Expression[]): Expression => ({ kind: "And", operands, span: SPAN });
const or = (...operands: Expression[]): Expression => ({ kind: "Or", operands, span: SPAN });

describe("evaluation properties", () => {
  it("never throws anything but a FilterEvaluationError, and always returns a boolean", () => {
    fc.assert(
      fc.property(expressionArb, datumArb, (expression, datum) => {
        const result = outcome(expression, datum);
        if (result !== undefined && "result" in result) expect(typeof result.result).toBe("boolean");
      }),
      { numRuns: 3000 },
    );
  });

  it("not not e is e, errors included", () => {
    fc.assert(
      fc.property(expressionArb, datumArb, (e, datum) => {
        expect(outcome(not(not(e)), datum)).toEqual(outcome(e, datum));
      }),
      { numRuns: 2000 },
    );
  });

  it("not (a and b) is (not a) or (not b), errors included", () => {
    fc.assert(
      fc.property(expressionArb, expressionArb, datumArb, (a, b, datum) => {
        expect(outcome(not(and(a, b)), datum)).toEqual(outcome(or(not(a), not(b)), datum));
      }),
      { numRuns: 2000 },
    );
  });

  it("not (a or b) is (not a) and (not b), errors included", () => {
    fc.assert(
      fc.property(expressionArb, expressionArb, datumArb, (a, b, datum) => {
        expect(outcome(not(or(a, b)), datum)).toEqual(outcome(and(not(a), not(b)), datum));
      }),
      { numRuns: 2000 },
    );
  });

  it("the generated code gives exactly what the closures give, test() and filter() alike", () => {
    fc.assert(
      fc.property(expressionArb, fc.option(schemaArb, { nil: undefined }), fc.array(datumArb, { maxLength: 4 }), (e, schema, data) => {
        const options = schema === undefined ? {} : { schema };
        const generated = { ...options, tierUpAfter: 0 };
        const closures = { ...options, codegen: false };
        for (const datum of data) expect(outcome(e, datum, generated)).toEqual(outcome(e, datum, closures));
        expect(listOutcome(e, data, generated)).toEqual(listOutcome(e, data, closures));
      }),
      { numRuns: 3000 },
    );
  });

  it("with a shared budget, the generated filter() accepts, charges and stops exactly as the closures do", () => {
    // Budgets and per-evaluation limits small enough to run out anywhere: before a value, within
    // one, where the shared budget falls below the filter's own.
    fc.assert(
      fc.property(expressionArb, fc.array(datumArb, { maxLength: 6 }), fc.integer({ min: 0, max: 120 }), fc.integer({ min: 1, max: 60 }), (e, data, limit, maxCost) => {
        const generated = { limits: { maxCost }, tierUpAfter: 0 };
        const closures = { limits: { maxCost }, codegen: false };
        expect(budgetedListOutcome(e, data, limit, generated)).toEqual(budgetedListOutcome(e, data, limit, closures));
      }),
      { numRuns: 3000 },
    );
  });

  it("generated any/all give exactly what their closures give: results, errors, and the units a shared budget is charged, near and over the limit", () => {
    /** test() with a shared budget of `shared` units: the outcome and the units charged. */
    const budgeted = (e: Expression, datum: unknown, options: EvaluatorOptions, shared: number) => {
      const filter = compiled(e, options);
      if (filter === undefined) return undefined;
      const budget = new CostBudget(shared);
      try {
        return { result: filter.test(datum, budget), spent: budget.spent };
      } catch (error) {
        if (error instanceof FilterEvaluationError) return { error: error.code, spent: budget.spent };
        throw error;
      }
    };
    // Nested collections whose names shadow fields and each other, and collections over every kind of value, typed or not.
    const cases = fc.oneof(
      fc.tuple(scopedExpressionArb, fc.constant(undefined), fc.array(scopedDatumArb, { minLength: 1, maxLength: 3 })),
      fc.tuple(
        expressionArb.filter((e) => JSON.stringify(e).includes('"Collection"')),
        fc.option(schemaArb, { nil: undefined }),
        fc.array(datumArb, { minLength: 1, maxLength: 3 }),
      ),
    );
    fc.assert(
      fc.property(cases, fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 400 }), ([e, schema, data], maxCost, shared) => {
        const options = { ...(schema === undefined ? {} : { schema }), limits: { maxCost } };
        const generated = { ...options, tierUpAfter: 0 };
        const closures = { ...options, codegen: false };
        for (const datum of data) {
          expect(outcome(e, datum, generated)).toEqual(outcome(e, datum, closures));
          expect(budgeted(e, datum, generated, shared)).toEqual(budgeted(e, datum, closures, shared));
        }
        expect(listOutcome(e, data, generated)).toEqual(listOutcome(e, data, closures));
      }),
      { numRuns: 3000 },
    );
  });

  it("the fast paths give exactly what the general code gives", () => {
    fc.assert(
      fc.property(expressionArb, datumArb, (e, datum) => {
        expect(outcome(e, datum)).toEqual(outcome(e, datum, { generalOnly: true }));
      }),
      { numRuns: 5000 },
    );
  });

  it("the fast paths give exactly what the general code gives in typed mode", () => {
    fc.assert(
      fc.property(expressionArb, schemaArb, datumArb, (e, schema, datum) => {
        expect(outcome(e, datum, { schema })).toEqual(outcome(e, datum, { schema, generalOnly: true }));
      }),
      { numRuns: 5000 },
    );
  });

  it("not not e is e, and De Morgan holds, in typed mode too", () => {
    fc.assert(
      fc.property(expressionArb, expressionArb, schemaArb, datumArb, (a, b, schema, datum) => {
        expect(outcome(not(not(a)), datum, { schema })).toEqual(outcome(a, datum, { schema }));
        expect(outcome(not(and(a, b)), datum, { schema })).toEqual(outcome(or(not(a), not(b)), datum, { schema }));
      }),
      { numRuns: 2000 },
    );
  });

  it("filter returns a subsequence of its input: exactly the values test accepts, in order", () => {
    fc.assert(
      fc.property(expressionArb, fc.array(datumArb, { maxLength: 8 }), (e, data) => {
        let filter;
        try {
          filter = compileExpression<Record<string, unknown>>(e);
        } catch {
          return;
        }
        let accepted: Record<string, unknown>[];
        try {
          accepted = filter.filter(data);
        } catch (error) {
          expect(error).toBeInstanceOf(FilterEvaluationError);
          const index = (error as FilterEvaluationError).index!;
          // The index is that of the first value that fails on its own.
          expect(() => filter.test(data[index]!)).toThrow(FilterEvaluationError);
          for (const datum of data.slice(0, index)) expect(() => filter.test(datum)).not.toThrow();
          return;
        }
        expect(accepted).toEqual(data.filter((datum) => filter.test(datum)));
        let cursor = 0;
        for (const value of accepted) {
          cursor = data.indexOf(value, cursor) + 1;
          expect(cursor).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
