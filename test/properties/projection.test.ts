/**
 * A filter decides on a row's projection (`src/server/state/projection.ts`) exactly as on the row:
 * the rows it accepts, the evaluation error it stops on (code, reason, row), and the cost it
 * charges, with and without a schema, on both of its evaluators, for filters that read paths of
 * every depth and collections whose bodies name bindings and fields alike.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Expression } from "../../src/ast.js";
import { compileExpression, type EvaluatorOptions } from "../../src/evaluator/compile.js";
import { CostBudget, FilterEvaluationError, FilterSyntaxError } from "../../src/index.js";
import { filterPaths, MAX_COPIED_LENGTH, MAX_PROJECTED_KEYS, project } from "../../src/server/state/projection.js";
import { datumArb, expressionArb, schemaArb, scopedDatumArb, scopedExpressionArb } from "../support/arbitraries.js";

/** What filtering `data` answers: the accepted rows' positions or the error, and the cost spent. */
function outcome(expression: Expression, options: EvaluatorOptions, data: readonly unknown[], limit: number): unknown {
  let filter;
  try {
    filter = compileExpression(expression, options);
  } catch (error) {
    if (error instanceof FilterSyntaxError) return "syntax";
    throw error;
  }
  const budget = new CostBudget(limit);
  try {
    return { accepted: filter.filter(data, budget).map((datum) => data.indexOf(datum)), spent: budget.spent };
  } catch (error) {
    if (error instanceof FilterEvaluationError) return { error: error.code, reason: error.reason, index: error.index, spent: budget.spent };
    throw error;
  }
}

/** The rows' projections for `expression`, or the rows when it has none. */
function projected(expression: Expression, data: readonly Record<string, unknown>[]): readonly unknown[] {
  const paths = filterPaths(expression);
  return paths === undefined ? data : data.map((datum) => project(datum, paths.tree));
}

describe("a filter on rows' projections", () => {
  it.each([
    ["datum", expressionArb, datumArb],
    ["collection", scopedExpressionArb, scopedDatumArb],
  ] as const)("decides as on the rows (%s filters): rows accepted, errors and costs", (_, expressions, data) => {
    fc.assert(
      fc.property(
        expressions,
        fc.option(schemaArb, { nil: undefined }),
        fc.array(data, { maxLength: 5 }),
        fc.integer({ min: 0, max: 400 }),
        fc.boolean(),
        (expression, schema, rows, limit, codegen) => {
          const options: EvaluatorOptions = { ...(schema === undefined ? {} : { schema }), codegen };
          expect(outcome(expression, options, projected(expression, rows), limit)).toEqual(outcome(expression, options, rows, limit));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("keeps only the fields a filter reads, down its paths, short arrays of strings copied and other values shared", () => {
    const meta = { commit: "f6a1", owner: "team-a" };
    const tags = ["a", "b"];
    const groups = [{ Name: "g" }];
    const row = { ID: "web-1", Status: "running", Meta: meta, Tags: tags, TaskGroups: groups };
    const { tree } = filterPaths(compileExpression({ kind: "And", operands: [match(["Meta", "commit"]), match(["Status"]), match(["Tags"]), match(["TaskGroups"])], span: SPAN }).expression)!;
    const view = project(row, tree) as Record<string, unknown>;
    expect(view).toEqual({ Meta: { commit: "f6a1" }, Status: "running", Tags: tags, TaskGroups: groups });
    expect(view["Tags"]).not.toBe(tags);
    expect(view["TaskGroups"]).toBe(groups);
    expect(Object.hasOwn(view, "ID")).toBe(false);
  });

  it.each([
    ["an array with a hole", [, "a"]],
    ["an array with a number", ["a", 1]],
    [`an array of more than ${MAX_COPIED_LENGTH} strings`, Array.from({ length: MAX_COPIED_LENGTH + 1 }, () => "a")],
    [`an array of more than ${MAX_COPIED_LENGTH * 4} characters`, Array.from({ length: 5 }, () => "a".repeat(MAX_COPIED_LENGTH))],
  ])("shares %s with the row", (_, value) => {
    const { tree } = filterPaths(match(["Tags"]))!;
    expect((project({ Tags: value }, tree) as Record<string, unknown>)["Tags"]).toBe(value);
  });

  it("keeps a key absent where the row has none, and a value that is no plain object as it is", () => {
    const { tree } = filterPaths(match(["Meta", "commit"]))!;
    expect(project({ Status: "x" }, tree)).toEqual({});
    expect(Object.hasOwn(project({ Meta: {} }, tree) as object, "Meta")).toBe(true);
    const list = [{ commit: "a" }];
    expect((project({ Meta: list }, tree) as Record<string, unknown>)["Meta"]).toBe(list);
    expect((project({ Meta: ["commit"] }, tree) as Record<string, unknown>)["Meta"]).toEqual(["commit"]);
    expect((project({ Meta: null }, tree) as Record<string, unknown>)["Meta"]).toBeNull();
  });

  it.each([
    ["__proto__ on a path", [match(["Meta", "__proto__"])]],
    [`more than ${MAX_PROJECTED_KEYS} keys`, Array.from({ length: MAX_PROJECTED_KEYS + 1 }, (_, i) => match([`F${i}`]))],
  ])("is not made for a filter with %s", (_, operands) => {
    expect(filterPaths(operands.length === 1 ? operands[0]! : { kind: "And", operands, span: SPAN })).toBeUndefined();
  });
});

const SPAN = { start: 0, end: 0 };

/** `path == "x"`. */
function match(path: string[]): Expression {
  return { kind: "Match", operator: "Equal", selector: { kind: "Selector", form: "Bexpr", path, span: SPAN }, value: { kind: "Value", raw: "x", span: SPAN }, spelling: "in", span: SPAN };
}
