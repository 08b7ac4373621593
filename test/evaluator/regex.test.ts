import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { translatePattern } from "../../src/evaluator/go-regexp.js";
import { compilePattern, literalPattern, nativeProgram } from "../../src/evaluator/regex.js";

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

  it.each([["^dc[12]$"], ["a.c"], ["^web|api$"], ["[a-z0-9]x"], ["\\.com$"], ["a|"]])("runs the linear pattern %j on V8's engine", (source) => {
    expect(nativeProgram(source)).toBeInstanceOf(RegExp);
  });

  it.each([["a+"], ["(a)"], ["a{2}"], ["(?i)a"], ["\\d"], ["[^a]"], ["[]a]"], ["[a-]"], ["[[:alpha:]]"], ["é"], ["\\pL"], ["a?"]])(
    "leaves %j to re2js: a repetition, a group, a flag, a negated or unusual class, non-ASCII",
    (source) => {
      expect(nativeProgram(source)).toBeUndefined();
    },
  );

  it("gives the same answer on V8's engine as on re2js, for every pattern it takes", () => {
    const atom = fc.constantFrom("a", "b", "1", ".", "^", "$", "|", "[12]", "[a-c]", "[ab1-2]", "\\.", "\\$", "-", " ", ":");
    const text = fc.string({ unit: fc.constantFrom("a", "b", "1", "2", "c", ".", "$", "\n", "\r", "\u2028", "é", "🚀", "\udcff", "-", " "), maxLength: 8 });
    let taken = 0;
    fc.assert(
      fc.property(fc.array(atom, { maxLength: 6 }), text, (atoms, input) => {
        const source = atoms.join("");
        const native = nativeProgram(source);
        const translation = translatePattern(source);
        if (native === undefined || !translation.ok) return;
        taken++;
        expect(native.test(input)).toBe(RE2JS.compile(translation.pattern()).test(input));
      }),
      { numRuns: 5000 },
    );
    expect(taken).toBeGreaterThan(2500);
  });
});
