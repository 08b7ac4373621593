import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compilePattern, literalPattern } from "../../src/evaluator/regex.js";

describe("matches", () => {
  it.each([
    ["^.{8}$", "🚀 launch", true],
    ["^.{9}$", "🚀 launch", false],
    ["(?i)WEB", "my-web", true],
    ["\\pL+", "é", true],
    ["\\p{Lu}", "É", true],
    ["[[:alpha:]]", "a", true],
    ["(?P<name>web)", "web", true],
    ["(?P<n>w)(?P<n>eb)", "web", true],
    ["\\Aweb\\z", "web", true],
    ["\\bweb\\b", "a web b", true],
    ["a.c", "a\nc", false],
    ["(?s)a.c", "a\nc", true],
    ["^b$", "a\nb", false],
    ["(?m)^b$", "a\nb", true],
    ["\\d", "٣", false],
    ["web", "my-web-api", true],
    ["", "anything", true],
    ["(a*)*b", "a".repeat(10_000), false],
  ])("%j against %j is %s", (source, text, expected) => {
    const compiled = compilePattern(source);
    if (!compiled.ok) throw new Error(compiled.reason);
    expect(compiled.pattern.test(text)).toBe(expected);
  });

  it.each([
    ["[unclosed", "error parsing regexp: missing closing ]: `[unclosed`"],
    ["(?=x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
    ["(a)\\1", "error parsing regexp: invalid escape sequence: `\\1`"],
    ["\\Z", "error parsing regexp: invalid escape sequence: `\\Z`"],
    // Go 1.23 knows no \p{Cn} (Go 1.25 added it); the whole dialect is in regex-dialect.test.ts.
    ["\\p{Cn}", "error parsing regexp: invalid character class range: `\\p{Cn}`"],
    ["abc\\", "error parsing regexp: trailing backslash at end of expression: ``"],
    // A byte that is not UTF-8 (from a "\xff" escape) is quoted from where Go reads it.
    ["a\udcffb", "error parsing regexp: invalid UTF-8: `\\xffb`"],
  ])("rejects %j as Go does: %s", (source, reason) => {
    expect(compilePattern(source)).toEqual({ ok: false, reason, tooLarge: false });
  });

  it.each([
    ["web", { text: "web", start: false, end: false }],
    ["^web", { text: "web", start: true, end: false }],
    ["-api$", { text: "-api", start: false, end: true }],
    ["^\\.example\\.com$", { text: ".example.com", start: true, end: true }],
    ["a\\$", { text: "a$", start: false, end: false }],
  ])("answers the plain-text pattern %j with string operations", (source, literal) => {
    expect(literalPattern(source)).toEqual(literal);
  });

  it.each([["a.c"], ["^web|api"], ["a+"], ["(?i)web"], ["\\d"], ["a\\\\$"], ["[ab]"], ["a{2}"]])("leaves %j to RE2", (source) => {
    expect(literalPattern(source)).toBeUndefined();
  });

  it("gives the same answer as RE2 for every plain-text pattern", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", ".", "$", "^", "\n", "é", "🚀"), maxLength: 8 });
    const literal = fc.string({ unit: fc.constantFrom("a", "b", "\\.", "\\$", "é", "🚀", "-"), maxLength: 4 });
    fc.assert(
      fc.property(fc.boolean(), literal, fc.boolean(), text, (start, body, end, input) => {
        const source = `${start ? "^" : ""}${body}${end ? "$" : ""}`;
        const compiled = compilePattern(source);
        if (!compiled.ok) throw new Error(compiled.reason);
        expect(compiled.pattern.test(input)).toBe(RE2JS.compile(source).test(input));
      }),
      { numRuns: 3000 },
    );
  });
});
