import { describe, expect, it } from "vitest";
import { compileFilter, FilterSyntaxError, MAX_CLAUSES, MAX_NESTING_DEPTH, MAX_SOURCE_LENGTH, parse } from "../src/index.js";

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof FilterSyntaxError) return error.code;
    throw error;
  }
}

const nested = (depth: number) => `${"(".repeat(depth)}a == 1${")".repeat(depth)}`;
const clauses = (count: number) => Array.from({ length: count }, (_, i) => `a == ${i % 10}`).join(" or ");

describe("limits", () => {
  it(`accepts ${MAX_NESTING_DEPTH} nested parentheses and rejects ${MAX_NESTING_DEPTH + 1}`, () => {
    expect(codeOf(() => compileFilter(nested(MAX_NESTING_DEPTH)).test({ a: 1 }))).toBeUndefined();
    expect(compileFilter(nested(MAX_NESTING_DEPTH)).test({ a: 1 })).toBe(true);
    expect(codeOf(() => parse(nested(MAX_NESTING_DEPTH + 1)))).toBe("nesting_too_deep");
  });

  it("rejects 10,000 nested parentheses with a syntax error, not a stack overflow", () => {
    const error = (() => {
      try {
        parse(nested(10_000));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(FilterSyntaxError);
    expect((error as FilterSyntaxError).code).toBe("nesting_too_deep");
    expect((error as FilterSyntaxError).span).toEqual({ start: MAX_NESTING_DEPTH, end: MAX_NESTING_DEPTH + 1 });
  });

  it("counts collection bodies as nesting", () => {
    const deep = (depth: number) =>
      Array.from({ length: depth }, (_, i) => `any L${i} as x${i} { `).join("") + "x == 1" + " }".repeat(depth);
    expect(codeOf(() => parse(deep(MAX_NESTING_DEPTH)))).toBeUndefined();
    expect(codeOf(() => parse(deep(MAX_NESTING_DEPTH + 1)))).toBe("nesting_too_deep");
  });

  it(`accepts ${MAX_CLAUSES} clauses and rejects ${MAX_CLAUSES + 1}`, () => {
    expect(codeOf(() => parse(clauses(MAX_CLAUSES)))).toBeUndefined();
    expect(codeOf(() => parse(clauses(MAX_CLAUSES + 1)))).toBe("too_many_clauses");
  });

  it(`accepts a source of ${MAX_SOURCE_LENGTH} characters and rejects one more`, () => {
    const padded = (length: number) => `a == 1${" ".repeat(length - 6)}`;
    expect(codeOf(() => parse(padded(MAX_SOURCE_LENGTH)))).toBeUndefined();
    expect(codeOf(() => parse(padded(MAX_SOURCE_LENGTH + 1)))).toBe("source_too_long");
  });

  it("takes lower limits per call", () => {
    const limits = { maxSourceLength: 20, maxNestingDepth: 2, maxClauses: 2 };
    expect(codeOf(() => parse("a == 1 or b == 2 or c == 3", { limits }))).toBe("source_too_long");
    expect(codeOf(() => parse("(((a == 1)))", { limits }))).toBe("nesting_too_deep");
    expect(codeOf(() => parse("a==1 or b==2 or c==3", { limits }))).toBe("too_many_clauses");
    expect(codeOf(() => compileFilter("(((a == 1)))", { limits }))).toBe("nesting_too_deep");
  });

  it("evaluates a filter with the most clauses without exhausting the stack", () => {
    const filter = compileFilter(Array.from({ length: MAX_CLAUSES }, (_, i) => `a==${i}`).join(" and "));
    expect(filter.test({ a: 0 })).toBe(false);
    const any = compileFilter(Array.from({ length: MAX_CLAUSES }, (_, i) => `a==${i}`).join(" or "));
    expect(any.test({ a: MAX_CLAUSES - 1 })).toBe(true);
  });
});
