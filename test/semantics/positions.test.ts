/**
 * Positions of syntax errors (filter-semantics.md §1 "Parse error format": 1-based lines, 1-based
 * rune columns; deliberate decision 3: our spans are UTF-16 offsets, end exclusive, and our columns
 * count code points).
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../src/index.js";
import { expectSyntaxError, spanOf, syntaxErrorOf } from "./support.js";

describe("lines and columns", () => {
  // §1: L is the 1-based line, C the 1-based rune column (code points; an emoji is one column but
  // two UTF-16 units of the span).
  it.each([
    ['Status == "running"\nand Stop == false\nAND x == 1', "AND", 3, 1],
    ['Name == "🚀" AND x == 1', "AND", 1, 13],
    ['Name == "🚀" andx', "andx", 1, 13],
    ['Name == "🚀🚀"\n  and Name == "é" OR x == 1', "OR", 2, 19],
    ['a == 1 and\n"🚀" in Tags AND x == 1', "AND", 2, 13],
    ['Status ==\t"running"\tAND x == 1', "AND", 1, 21],
    ['Status == "running"\r\nAND x == 1', "AND", 2, 1],
    ['Status == "running"\r\n  \r\n\tAND x == 1', "AND", 3, 2],
    ['Name == `🚀\n🚀` AND x == 1', "AND", 2, 4],
    // Only LF starts a line; a lone CR is whitespace on the same line.
    ['Status == "x"\rAND y == 1', "AND", 1, 15],
    // A combining accent is a code point of its own.
    ['Name == "e\u0301" AND x == 1', "AND", 1, 14],
  ])("reports %j at %s, line %i column %i", (source, token, line, column) => {
    expectSyntaxError(source, { code: "unexpected_token", span: spanOf(source, token), line, column });
  });

  it.each([
    ['Name == "🚀" and Priority >= 5', ">=", 1, 26],
    ['Name == "🚀"\n and Priority == 1e3', "1e3", 2, 18],
    ['Name == "🚀" and Name == "\\q"', "\\q", 1, 26],
    ['Name == "🚀" and\n\u00a0Name == "x"', "\u00a0", 2, 1],
    ['Name == "🚀" and ünï == "x"', "ü", 1, 17],
    ["a == x\u2028and b == 2", "\u2028", 1, 7],
    // §1 Numbers: a number followed by U+2028 (not whitespace) is an invalid number literal.
    ["a == 1\u2028and b == 2", "1", 1, 6],
  ])("reports %j at %j, line %i column %i", (source, token, line, column) => {
    const error = syntaxErrorOf(source);
    const start = source.indexOf(token);
    expect(error.span.start).toBe(start);
    expect(error.line).toBe(line);
    expect(error.column).toBe(column);
    expect(error.diagnostics[0]?.line).toBe(line);
    expect(error.diagnostics[0]?.column).toBe(column);
  });

  // The end of the source is after its last character, on its last line.
  it.each([
    ["a ==", 1, 5],
    ["a == 1 and\n", 2, 1],
    ['Name == "🚀" and', 1, 16],
  ])("reports the end of %j at line %i column %i", (source, line, column) => {
    expectSyntaxError(source, { code: "unexpected_end", start: source.length, line, column });
  });
});

describe("the error object", () => {
  // errors.ts: the error's own code, span, line and column are those of its first error, and
  // it keeps the source.
  it("carries the source and at least one diagnostic", () => {
    const source = 'Status == "running" AND Stop == false';
    const error = syntaxErrorOf(source);
    expect(error.source).toBe(source);
    expect(error.diagnostics.length).toBeGreaterThanOrEqual(1);
    expect(error.diagnostics[0]?.severity).toBe("error");
    expect(error.name).toBe("FilterSyntaxError");
    expect(() => parse(source)).toThrow(error.constructor as new () => Error);
  });
});
