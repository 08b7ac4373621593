/**
 * Structural limits (filter-semantics.md preamble: "we never let a filter hang or exhaust memory";
 * src/limits.ts gives the project's bounds). Far-from-the-edge rows only: the exact edges are the
 * implementation's own tests.
 */
import { describe, expect, it } from "vitest";
import { compileFilter, parse } from "../../src/index.js";
import { expectSyntaxError } from "./support.js";

describe("limits", () => {
  it("rejects a source longer than 128 KiB with source_too_long", () => {
    expectSyntaxError(`Name == "${"x".repeat(140_000)}"`, { code: "source_too_long" });
  });

  it("rejects thousands of nested parentheses with nesting_too_deep, without exhausting the stack", () => {
    expectSyntaxError(`${"(".repeat(5_000)}a == 1${")".repeat(5_000)}`, { code: "nesting_too_deep" });
    expectSyntaxError(`${"not (".repeat(2_000)}a == 1${")".repeat(2_000)}`, { code: "nesting_too_deep" });
    expectSyntaxError(`${"any X as x { ".repeat(1_000)}a == 1${" }".repeat(1_000)}`, { code: "nesting_too_deep" });
  });

  it("rejects more than ten thousand clauses with too_many_clauses", () => {
    expectSyntaxError(Array.from({ length: 12_000 }, () => "a == 1").join(" or "), { code: "too_many_clauses" });
  });

  // §8: the reference accepts about 5,400 `a == "b" or` clauses; filters of that size must keep working.
  it("accepts the 5,400-clause filters the reference accepts, and evaluates them", () => {
    const source = Array.from({ length: 5_400 }, (_, i) => `a == "b${i}"`).join(" or ");
    expect(() => parse(source)).not.toThrow();
    expect(compileFilter(source).test({ a: "b5399" })).toBe(true);
    expect(compileFilter(source).test({ a: "c" })).toBe(false);
  });

  it("accepts twenty nested parentheses and a long not-chain", () => {
    expect(compileFilter(`${"(".repeat(20)}a == 1${")".repeat(20)}`).test({ a: 1 })).toBe(true);
    expect(compileFilter(`${"not ".repeat(1_001)}a == 1`).test({ a: 1 })).toBe(false);
  });
});
