/**
 * Regular expressions under hostile input (issue 10, finding 2): a filter's patterns are bounded
 * by their compiled size, not their length; identical patterns compile once; oversized ones are
 * refused before they are compiled; each pattern's lazy DFA has a bounded share of memory.
 */
import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compileFilter, FilterEvaluationError, FilterSyntaxError, MAX_PATTERN_SIZE } from "../../src/index.js";
import { capDfa, compilePattern, dfaBytesFor, patternBudget, patternSizeBound, programSize } from "../../src/evaluator/regex.js";
import { patternArb } from "../support/arbitraries.js";
import { catchError } from "../support/errors.js";

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
/** `x{998}` compiles to 1,000 instructions (998 copies, and the program's FAIL and MATCH). */
const thousand = (i: number) => `Name matches "${LETTERS[i]}{998}"`;

function syntaxCodes(run: () => unknown): string[] {
  const error = catchError(run);
  if (!(error instanceof FilterSyntaxError)) throw error;
  return error.diagnostics.map((d) => d.code);
}

describe("the pattern budget of a filter", () => {
  it(`accepts patterns of ${MAX_PATTERN_SIZE} instructions in all, and refuses one more`, () => {
    expect(programSize(RE2JS.compile("a{998}"))).toBe(1_000);
    const full = Array.from({ length: MAX_PATTERN_SIZE / 1_000 }, (_, i) => thousand(i)).join(" or ");
    expect(compileFilter(full).test({ Name: "x" })).toBe(false);
    expect(syntaxCodes(() => compileFilter(`${full} or Name matches "z{1}"`))).toEqual(["pattern_too_large"]);
  });

  it("says how large the pattern is and what is left, at the pattern", () => {
    const source = 'Name matches "a{998}" or Name matches "b{998}"';
    const error = catchError(() => compileFilter(source, { limits: { maxPatternSize: 1_800 } })) as FilterSyntaxError;
    expect(error.diagnostics).toHaveLength(1);
    expect(error.diagnostics[0]).toMatchObject({
      code: "pattern_too_large",
      message: "the regular expression compiles to 1000 instructions; the filter's patterns may hold 800 more",
      span: { start: source.lastIndexOf('"b'), end: source.length },
    });
  });

  it("counts a pattern used by many clauses once (running it 4,000 times is then the budget's business)", () => {
    const source = Array.from({ length: 4_000 }, () => 'Name matches "(?s).{1000}"').join(" or ");
    const filter = compileFilter(source);
    expect((catchError(() => filter.test({ Name: "short" })) as FilterEvaluationError).code).toBe("cost_exceeded");
  });

  it("costs nothing for plain-text patterns, whatever their length", () => {
    const literal = `Name matches "^${"x".repeat(100_000)}$"`;
    expect(compileFilter(literal, { limits: { maxPatternSize: 0 } }).test({ Name: "x" })).toBe(false);
  });

  it("counts the ranges of character classes (\\pL holds hundreds)", () => {
    expect(programSize(RE2JS.compile("\\pL"))).toBeGreaterThan(50);
    expect(syntaxCodes(() => compileFilter("Name matches `\\pL{500}`"))).toEqual(["pattern_too_large"]);
  });

  it("refuses the issue's 16 KB filter of distinct `.{1000}|i_k` patterns, compiling no more than twice the limit", () => {
    const clauses = Array.from({ length: 600 }, (_, k) => `Name matches ".{1000}|i_${k}"`);
    const source = clauses.join(" or ").slice(0, 16_384).replace(/ or [^o]*$/, "");
    const error = catchError(() => compileFilter(source)) as FilterSyntaxError;
    expect(error.diagnostics.every((d) => d.code === "pattern_too_large")).toBe(true);
    // Each is 1,256 with its ranges: the first seven fit in 10,000, the others are refused.
    expect(error.diagnostics.length).toBe(source.split(" or ").length - 7);
    // A few more are compiled, then refused: compiling stops once it has done 20,000 instructions;
    // the rest are refused unread.
    const refusedSizes = error.diagnostics.flatMap((d) => /^the regular expression compiles to (\d+) instructions/.exec(d.message)?.[1] ?? []).map(Number);
    const compiledAndRefused = refusedSizes.length;
    const work = 7 * 1_256 + refusedSizes.reduce((sum, size) => sum + size, 0);
    expect(work).toBeGreaterThan(2 * MAX_PATTERN_SIZE - 1_300);
    expect(work - refusedSizes.at(-1)!).toBeLessThanOrEqual(2 * MAX_PATTERN_SIZE);
    const unread = error.diagnostics.filter((d) => d.message === "the filter's regular expressions are too large: compiling them stopped at twice what they may hold");
    expect(unread.length).toBe(source.split(" or ").length - 7 - compiledAndRefused);
  });

  it("refuses a pattern whose program would be huge before compiling it", () => {
    const huge = "(?:\\pL\\pN\\pL){1000}".repeat(1_000);
    expect(patternSizeBound(huge)).toBeGreaterThan(1_000_000);
    const compiled = compilePattern(huge, patternBudget(MAX_PATTERN_SIZE));
    expect(compiled).toEqual({
      ok: false,
      tooLarge: true,
      reason: `the regular expression compiles to up to ${patternSizeBound(huge)} instructions; the filter's patterns may hold ${MAX_PATTERN_SIZE} more`,
    });
  });
});

describe("the size bound read from a pattern's text", () => {
  const pattern = patternArb(
    ["a", ".", "\\d", "[a-z]", "\\pL", "(?i)b", "\\b", "^", "$", "\\Qx.y\\E", "[^]a]"],
    ["(", "(?:", "(?P<n>"],
    ["*", "+", "?", "*?", "{3}", "{2,5}", "{4,}", "{0,2}?"],
  );

  it("is never below the program RE2 compiles", () => {
    fc.assert(
      fc.property(pattern, (source) => {
        let re: RE2JS;
        try {
          re = RE2JS.compile(source);
        } catch {
          return;
        }
        expect(patternSizeBound(source)).toBeGreaterThanOrEqual(re.programSize());
      }),
      { numRuns: 5_000 },
    );
  });
});

describe("the memory of a pattern's DFA", () => {
  it("is held to its share, in the re2js internals this version keeps", () => {
    const re = RE2JS.compile("[a-c]+x[0-9]{3}");
    expect(capDfa(re, dfaBytesFor(programSize(re)))).toBe(true);
    const dfa = (re as unknown as { re2Input: { dfa: { stateBudget: number; memBudget: number } } }).re2Input.dfa;
    expect(dfa.stateBudget).toBe(dfaBytesFor(programSize(re)));
    expect(dfa.stateBudget).toBeLessThan(8 * 1024 * 1024);
    // Matching still works, and stays within the share however much text it sees.
    expect(re.test("abcx123")).toBe(true);
    for (let i = 0; i < 200; i++) re.test(`${"abc".repeat(i)}x${i}`);
    expect(dfa.memBudget).toBeGreaterThanOrEqual(0);
  });

  it("is capped on first use by the compiled filter", () => {
    const compiled = compilePattern("[a-c]+x[0-9]{3}");
    if (!compiled.ok) throw new Error(compiled.reason);
    expect(compiled.pattern.test("zzabcx123")).toBe(true);
    expect(compiled.pattern.size).toBe(programSize(RE2JS.compile("[a-c]+x[0-9]{3}")));
  });
});
