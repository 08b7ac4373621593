/**
 * complete() under hostile input (issue 10, finding 3): the same limits as parse, work linear in
 * the length of the filter, and the same answers as running content assist on the whole prefix.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { complete, MAX_NESTING_DEPTH, MAX_SOURCE_LENGTH, print } from "../../src/index.js";
import { equivalentPrefix, nextTokenTypes } from "../../src/parser/analysis.js";
import { tokenize } from "../../src/lexer/lexer.js";
import { expressionArb, sourceArb } from "../support/arbitraries.js";

const names = (types: ReadonlySet<{ name: string }>) => [...types].map((type) => type.name).sort();

describe("complete: bounded work", () => {
  it("asks the grammar about a few tokens whatever the length of the filter", () => {
    for (const clauses of [10, 1_000, 5_000]) {
      const source = "a == 1 and ".repeat(clauses);
      const { tokens } = tokenize(source);
      expect(tokens.length).toBe(4 * clauses);
      // A clause standing for all those before the last `and`, and the `and`.
      expect(equivalentPrefix(tokens).map((token) => token.image)).toEqual(["x", "==", "x", "and"]);
    }
  });

  it("keeps only the innermost group of deeply nested input", () => {
    const source = "(a == 1 and ".repeat(MAX_NESTING_DEPTH) + "b ==";
    const prefix = equivalentPrefix(tokenize(source).tokens);
    expect(prefix.map((token) => token.image)).toEqual(["(", "x", "==", "x", "and", "b", "=="]);
  });

  it.each([
    ["1,000 opening parentheses", "(".repeat(1_000)],
    ["4,000 opening parentheses", "(".repeat(4_000)],
    ["1,000 repetitions of (a == 1 and", "(a == 1 and ".repeat(1_000)],
    ["100,000 opening parentheses", "(".repeat(100_000)],
  ])("offers nothing past the nesting limit: %s", (_name, source) => {
    expect(complete(source, source.length)).toEqual([]);
  });

  it("stands one clause for each group or body closed before the cursor, however deep", () => {
    const deep = `${"(".repeat(MAX_NESTING_DEPTH)}a == 1${")".repeat(MAX_NESTING_DEPTH)}`;
    expect(equivalentPrefix(tokenize(deep).tokens).map((token) => token.image)).toEqual(["(", "x", "==", "x", ")"]);
    const body = `not ${"any L as x { ".repeat(MAX_NESTING_DEPTH)}x == 1${" }".repeat(MAX_NESTING_DEPTH)}`;
    expect(equivalentPrefix(tokenize(body).tokens).map((token) => token.image)).toEqual(["not", "any", "L", "as", "x", "{", "x", "==", "x", "}"]);
    expect(complete(deep + " ", deep.length + 1).map((c) => c.label)).toEqual(["and", "or"]);
  });

  it.each([
    ["`&&` joining clauses (read as `and`)", "x == 1 && ".repeat(10_000), ["x", "==", "x", "&&"]],
    ["30,000 `not`", `${"not ".repeat(30_000)}x `, ["not", "not", "x"]],
    ["a path of 60,000 segments", `x${".y".repeat(60_000)} `, ["x", ".", "y"]],
    ["a path of 25,000 indexes", `x${'["a"]'.repeat(25_000)} `, ["x", "[", '"a"', "]"]],
  ])("hands content assist a few tokens for %s", (_name, source, expected) => {
    expect(equivalentPrefix(tokenize(source).tokens).map((token) => token.image)).toEqual(expected);
  });

  it.each([
    ["parentheses", `${"(".repeat(MAX_NESTING_DEPTH + 1)}a == 1${")".repeat(MAX_NESTING_DEPTH + 1)} `],
    ["collection bodies", `${"any L as x { ".repeat(MAX_NESTING_DEPTH + 1)}x == 1${" }".repeat(MAX_NESTING_DEPTH + 1)} `],
    ["20,000 ( closed by }", `${"(".repeat(20_000)}${"}".repeat(20_000)}`],
  ])("offers nothing when %s nest past the limit anywhere, even closed before the cursor (as parse refuses it)", (_name, source) => {
    expect(complete(source, source.length)).toEqual([]);
  });

  it(`offers nothing for a source longer than ${MAX_SOURCE_LENGTH} characters, and completes one at the limit`, () => {
    const atLimit = `${" ".repeat(MAX_SOURCE_LENGTH - 7)}Status `;
    expect(complete(atLimit, atLimit.length).map((c) => c.label)).toContain("==");
    expect(complete(`${atLimit} `, atLimit.length + 1)).toEqual([]);
  });

  it("applies lower limits given in the options", () => {
    expect(complete("((a ", 4, { limits: { maxNestingDepth: 1 } })).toEqual([]);
    expect(complete("(a ", 3, { limits: { maxNestingDepth: 1 } }).map((c) => c.label)).toContain("==");
  });

  it("completes after 5,000 clauses as after one", () => {
    const long = 'Status == "x" and '.repeat(5_000) + "Stop ";
    expect(complete(long, long.length)).toEqual(complete("Stop ", 5).map((c) => ({ ...c, range: { start: long.length, end: long.length } })));
  });

  it.each([
    ["a number", 42],
    ["null", null],
    ["an object", {}],
  ])("throws a TypeError for %s as the source", (_name, source) => {
    expect(() => complete(source as never, 0)).toThrow(TypeError);
  });

  it("throws a TypeError for an offset that is not a number", () => {
    expect(() => complete("a", "1" as never)).toThrow(new TypeError("the offset must be a number, got string"));
  });
});

describe("complete: the short prefix means what the whole one means", () => {
  it("allows the same next tokens after every prefix of a valid filter", () => {
    fc.assert(
      fc.property(expressionArb, (expression) => {
        const { tokens } = tokenize(print(expression));
        for (let k = 0; k <= tokens.length; k++) {
          const prefix = tokens.slice(0, k);
          expect(names(nextTokenTypes(equivalentPrefix(prefix))), print(expression) + ` @${k}`).toEqual(names(nextTokenTypes(prefix)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on arbitrary text, at any offset", () => {
    fc.assert(
      fc.property(sourceArb, fc.nat(), (source, offset) => {
        expect(Array.isArray(complete(source, offset % (source.length + 1)))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
