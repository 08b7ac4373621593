/**
 * Boolean evaluation and errors (filter-semantics.md §6): `and`/`or` evaluate left to right and
 * short-circuit, returning the left side's error if it has one; errors are per object; `not`
 * propagates errors; in a list request one failing object fails the whole request.
 */
import { describe, expect, it } from "vitest";
import { compileFilter, FilterEvaluationError } from "../../src/index.js";
import { expectOutcome, spanOf, type Outcome } from "./support.js";

const running = { Name: "web", Status: "running", Priority: 50, Datacenters: ["dc1"], Multiregion: null, Stop: false };
const dead = { Name: "batch", Status: "dead", Priority: 10, Datacenters: ["dc2"], Multiregion: null, Stop: true };

describe("short-circuit", () => {
  // §6: "`Status == "dead" and Nope == 1` errors only on dead jobs, and `… or Nope == 1` only where
  // the left side is false."
  it.each([
    ['Status == "dead" and Nope == 1', false, "missing_key"],
    ['Status == "running" or Nope == 1', true, "missing_key"],
    ['Nope == 1 and Status == "x"', "missing_key", "missing_key"],
    ['Nope == 1 or Status == "running"', "missing_key", "missing_key"],
    ["not Nope == 1", "missing_key", "missing_key"],
    ['not (Status == "dead" and Nope == 1)', true, "missing_key"],
    ['Status == "running" and not Nope == 1', "missing_key", false],
    ['(Status == "dead" or Priority == 50) and Nope == 1', "missing_key", "missing_key"],
    ['Status == "dead" and Priority == 10 and Nope == 1', false, "missing_key"],
    ['Status == "x" or Status == "y" or Nope == 1', "missing_key", "missing_key"],
    ['Stop == true and Multiregion matches "x"', false, "nil_value"],
    ['Stop == false or Multiregion matches "x"', true, "nil_value"],
    ['Datacenters == "x" or Status == "running"', "unsupported_operand", "unsupported_operand"],
    ['Status == "running" or Datacenters == "x"', true, "unsupported_operand"],
    ['Stop == true and Priority == "high"', false, "invalid_literal"],
    ['Stop == false or Priority == "high"', true, "invalid_literal"],
    ['Status == "dead" and (any Nope as x { x == 1 })', false, "missing_key"],
  ])("%s gives %s on a running job and %s on a dead one", (source, onRunning, onDead) => {
    expectOutcome(source, running, onRunning as Outcome);
    expectOutcome(source, dead, onDead as Outcome);
  });
});

describe("the error of one object", () => {
  // §6 "Errors are per object"; errors.ts: `span` is that of the failing clause.
  it.each([
    ['Status == "dead" and Nope == 1', "Nope == 1", "missing_key"],
    ['Status == "dead" and "5" in Priority', '"5" in Priority', "unsupported_operand"],
    ['Status == "dead" and Datacenters is nil or Multiregion matches "x"', 'Multiregion matches "x"', "nil_value"],
    // A parenthesised clause carries the span of its parentheses.
    ['Status == "dead" and not (Priority is empty)', "(Priority is empty)", "unsupported_operand"],
    ['Status == "dead" and not Priority is empty', "Priority is empty", "unsupported_operand"],
    ["any Datacenters as dc { Stop == true and dc.x == 1 }", "dc.x == 1", "invalid_path"],
    ['any Datacenters as dc, dc { dc == "x" }', 'any Datacenters as dc, dc { dc == "x" }', "duplicate_binding"],
    ["any Priority as p { p == 1 }", "any Priority as p { p == 1 }", "not_a_collection"],
  ])("%s fails at %s with %s", (source, clause, code) => {
    const filter = compileFilter(source);
    let error: unknown;
    try {
      filter.test(dead);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FilterEvaluationError);
    const evaluation = error as FilterEvaluationError;
    expect(evaluation.code).toBe(code);
    expect(evaluation.span).toEqual(spanOf(source, clause));
    expect(evaluation.line).toBe(1);
    expect(evaluation.column).toBe(source.indexOf(clause) + 1);
    expect(evaluation.index).toBeUndefined();
  });

  // §1 "Parse error format" applies the same line/column rules to evaluation errors here:
  // 1-based lines, code-point columns, UTF-16 spans.
  it.each([
    ['Status == "running" and\n  Nope == 1', "Nope == 1", 2, 3],
    ['Name == "🚀" or\n\t"🚀" in Nope', '"🚀" in Nope', 2, 2],
    ['Name == "🚀🚀" or Nope == 1', "Nope == 1", 1, 17],
    ['Name == "x" or\r\nNope == 1', "Nope == 1", 2, 1],
  ])("%j fails at line %i column %i", (source, clause, line, column) => {
    let error: unknown;
    try {
      compileFilter(source).test(running);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FilterEvaluationError);
    const evaluation = error as FilterEvaluationError;
    expect(evaluation.span).toEqual(spanOf(source, clause));
    expect(evaluation.line).toBe(line);
    expect(evaluation.column).toBe(column);
  });
});

describe("filtering a list", () => {
  // §6: "In Nomad's paginator an evaluation error aborts the whole list request; it does not just
  // skip the object."
  it("keeps the matching values in order", () => {
    const other = { ...running, Name: "api" };
    const kept = compileFilter('Status == "running"').filter([running, dead, other]);
    expect(kept).toEqual([running, other]);
    expect(kept[0]).toBe(running);
    expect(kept[1]).toBe(other);
  });

  it("fails the whole list at the first failing value, with its index", () => {
    const filter = compileFilter('Status == "dead" and Nope == 1');
    let error: unknown;
    try {
      filter.filter([running, running, dead, dead]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FilterEvaluationError);
    expect((error as FilterEvaluationError).code).toBe("missing_key");
    expect((error as FilterEvaluationError).index).toBe(2);
  });

  it("does not fail when no value reaches the failing clause", () => {
    expect(compileFilter('Status == "dead" and Nope == 1').filter([running, running])).toEqual([]);
  });

  // §5/§6: a filter is compiled once and evaluated many times; errors do not stick to it.
  it("evaluates again after an error", () => {
    const filter = compileFilter('Status == "running" or Nope == 1');
    expect(() => filter.test(dead)).toThrow(FilterEvaluationError);
    expect(filter.test(running)).toBe(true);
  });
});
