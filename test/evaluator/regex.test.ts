import fc from "fast-check";
import { RE2JS } from "re2js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { translatePattern } from "../../src/evaluator/go-regexp.js";
import { compilePattern, literalPattern, NATIVE_MAX_HEIGHT, NATIVE_MAX_OVERLAP, NATIVE_MAX_SIZE, NATIVE_MAX_TEXT_LENGTH, nativeProgram, patternSizeBound } from "../../src/evaluator/regex.js";
import { patternArb } from "../support/arbitraries.js";

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

  it.each([["(a)"], ["a{2}"], ["(?i)a"], ["\\d"], ["[^a]"], ["[]a]"], ["[a-]"], ["[[:alpha:]]"], ["é"], ["\\pL"], ["a?"], ["^a+"]])(
    "runs %j on V8's engine too: no repetition, or a repetition decided by the next character",
    (source) => {
      expect(nativeProgram(source)).toBeInstanceOf(RegExp);
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

/** re2js's answer on the pattern as Go reads it (the reference the V8 path must agree with). */
function re2(source: string, text: string): boolean {
  const translation = translatePattern(source);
  if (!translation.ok) throw new Error(translation.reason);
  return RE2JS.compile(translation.pattern()).test(text);
}

function compiled(source: string) {
  const result = compilePattern(source);
  if (!result.ok) throw new Error(result.reason);
  return result.pattern;
}

describe("grouped patterns on V8's engine", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each<[string, string, boolean]>([
    ["^(web|api)-", "api-7f3a", true],
    ["^(web|api)-", "cache-web-1", false],
    ["^(?:web|api)-[0-9]+$", "web-12", true],
    ["^(?:web|api)-[0-9]+$", "web-12\n", false],
    ["^(?P<svc>web|api)-(?:a|b)", "web-b", true],
    ["(web|api)-[0-9]+$", "my-api-3", true],
    ["(web|api)-[0-9]+$", "my-api-3x", false],
    ["-(v[0-9]+)$", "svc-v12", true],
    ["\\.(com|org)$", "example.org", true],
    ["\\.(com|org)$", "example.org.uk", false],
    ["^([a-z]+-)?[0-9]+$", "42", true],
    ["^([a-z]+-)?[0-9]+$", "db-42", true],
    ["^([a-z]+-)?[0-9]+$", "db-", false],
    // (?i) folds as Go does: K, k and the Kelvin sign, ſ and s; no other flag reaches V8.
    ["(?i)^(web|kit)-", "\u212Aİt-", false],
    ["(?i)^(web|kit)-", "\u212AIT-", true],
    ["(?i)^(ſvc|x)$", "SVC", true],
    // `.` is any character but \n, or any with (?s); `$` is the end of the text, not before a last \n.
    ["^(a.|b)c$", "a\nc", false],
    ["^(a.|b)c$", "a\rc", true],
    ["(?s)^(a.|b)c$", "a\nc", true],
    ["^(web|api)$", "web\n", false],
    // (?m): ^ and $ at \n only, not at \r or U+2028 as JavaScript's m flag would.
    ["(?m)^(web|api)$", "x\nweb\ny", true],
    ["(?m)^(web|api)$", "x\rweb", false],
    ["(?m)^(web|api)$", "x\u2028web", false],
    ["(?m)(a|$)(b|^)", "🚀", false],
    ["(?m)(a|$)(b|^)", "🚀\n", true],
    // \b, \d, \w and \s are ASCII.
    ["\\b(web|api)\\b", "é-web-é", true],
    ["\\b(web|api)\\b", "éwebé", true],
    ["\\b(web|api)\\b", "_web", false],
    ["^(\\d{3})-(\\d{2})$", "٣٣٣-12", false],
    ["^(\\d{3})-(\\d{2})$", "333-12", true],
    ["^(\\w|\\s)+$", "a b\u00a0", false],
    // Code points, not UTF-16 units; a lone surrogate is one character.
    ["^(é|🚀)+$", "🚀é🚀", true],
    ["^(.)$", "🚀", true],
    ["^(.)$", "\udcff", true],
    ["^(\\pL|_)\\w*$", "éa1", true],
    ["^(\\pL|_)\\w*$", "1a", false],
    // Empty alternatives and groups, and (?U)'s lazy repetitions.
    ["^(web|)-", "-x", true],
    ["^()(a|b)$", "b", true],
    ["(?U)^(a+)b", "aaab", true],
    ["^(a|b)*c$", "ababc", true],
    ["^(a|b)*c$", "ababa", false],
    ["^(ab){2,3}$", "ababab", true],
    ["^(ab){2,3}$", "abababab", false],
  ])("runs %j on V8 and answers %j as re2js does: %s", (source, text, expected) => {
    expect(nativeProgram(source)).toBeInstanceOf(RegExp);
    expect(compiled(source).test(text)).toBe(expected);
    expect(re2(source, text)).toBe(expected);
  });

  it.each([
    // A repetition of a repetition, or of alternatives one character cannot tell apart: exponential when backtracking.
    ["^(a+)+$"],
    ["(a|a)*b"],
    ["(a|ab)*c"],
    ["(\\w+\\s?)*$"],
    ["(a*)*b"],
    ["^(a|aa)+$"],
    ["(x+x+)+y"],
    ["^(.*a){12}$"],
    ["^(a?){20}a{20}$"],
    ["^(|a)+$"],
    // Adjacent repetitions that overlap: polynomial.
    ["^a*a*a*b"],
    ["^\\d+\\w+x"],
    // Not anchored, with a repetition a match may start inside: quadratic, V8 trying each position.
    ["a*b"],
    ["[a-z]+x"],
    ["(web|api)[a-z]*-"],
    ["x[^y]*$"],
    // V8 also tries the middle of a surrogate pair, where \B holds (on a🚀b, RE2 finds no place for it).
    ["\\B"],
    ["(web|api)\\B"],
  ])("leaves %j to re2js, which matches it in linear time", (source) => {
    expect(nativeProgram(source)).toBeUndefined();
    const compile = vi.spyOn(RE2JS, "compile");
    const pattern = compiled(source);
    expect(compile).toHaveBeenCalledTimes(1);
    const hostile = "a".repeat(2_000) + " " + "x".repeat(2_000);
    expect(pattern.test(hostile)).toBe(re2(source, hostile));
  });

  it("gives the same answer on V8's engine as on re2js for generated grouped patterns", () => {
    const pattern = patternArb(
      ["a", "b", "ab", ".", "^", "$", "\\b", "\\B", "\\d", "[ab]", "[^a]", "(?i)k", "(?s).", "(?m)^", "(?m)$", "é", "\\pL", ""],
      ["(", "(?:", "(?P<n>", "(?i:", "(?s:", "(?U)("],
      ["*", "+", "?", "*?", "{2}", "{1,3}", "{2,}", "??"],
    );
    const text = fc.string({ unit: fc.constantFrom("a", "b", "k", "K", "\u212a", "1", "é", "🚀", "\n", "\r", "\u2028", "\udcff", " ", "_"), maxLength: 10 });
    let taken = 0;
    let grouped = 0;
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 4 }), (source, inputs) => {
        const native = nativeProgram(source);
        const translation = translatePattern(source);
        if (native === undefined || !translation.ok) return;
        taken++;
        if (source.includes("(")) grouped++;
        const re = RE2JS.compile(translation.pattern());
        for (const input of inputs) expect(native.test(input)).toBe(re.test(input));
      }),
      { numRuns: 3_000 },
    );
    // About half the patterns drawn run on V8, two thirds of those with a group.
    expect(taken).toBeGreaterThan(1_000);
    expect(grouped).toBeGreaterThan(600);
  });

  it(`answers a text of up to ${NATIVE_MAX_TEXT_LENGTH} characters on V8, and a longer one with re2js`, () => {
    const compile = vi.spyOn(RE2JS, "compile");
    const pattern = compiled("^(a|b)*$");
    expect(pattern.test("ab".repeat(NATIVE_MAX_TEXT_LENGTH / 2))).toBe(true);
    expect(compile).not.toHaveBeenCalled();
    expect(pattern.test("ab".repeat(NATIVE_MAX_TEXT_LENGTH / 2) + "a")).toBe(true);
    expect(pattern.test("ab".repeat(NATIVE_MAX_TEXT_LENGTH / 2) + "c")).toBe(false);
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it(`runs a pattern not anchored at the start on V8 when a match holds at most ${NATIVE_MAX_OVERLAP} characters outside unbounded repetitions`, () => {
    expect(nativeProgram(`[0-9a-f]{${NATIVE_MAX_OVERLAP}}`)).toBeInstanceOf(RegExp);
    expect(nativeProgram(`[0-9a-f]{${NATIVE_MAX_OVERLAP + 1}}`)).toBeUndefined();
    expect(nativeProgram(`-[0-9a-f]{${NATIVE_MAX_OVERLAP - 1}}[g-z]*$`)).toBeInstanceOf(RegExp);
    expect(nativeProgram(`^[0-9a-f]{${NATIVE_MAX_OVERLAP + 1}}`)).toBeInstanceOf(RegExp);
  });

  it(`runs patterns of up to ${NATIVE_MAX_SIZE} instructions on V8`, () => {
    const sized = (n: number) => `^(?:a|b)${"x".repeat(n)}$`;
    let n = 1;
    while (n < 5_000 && patternSizeBound(sized(n + 1)) <= NATIVE_MAX_SIZE) n++;
    expect(patternSizeBound(sized(n))).toBe(NATIVE_MAX_SIZE);
    expect(nativeProgram(sized(n))).toBeInstanceOf(RegExp);
    expect(nativeProgram(sized(n + 1))).toBeUndefined();
  });

  it(`runs syntax trees up to ${NATIVE_MAX_HEIGHT} levels tall on V8, leaving taller ones to re2js (Go refuses over 1,000)`, () => {
    const nested = (n: number) => `${"(a".repeat(n)}${")".repeat(n)}`;
    let n = 1;
    while (n < 1_000) {
      const next = translatePattern(nested(n + 1));
      if (!next.ok || !(next.height <= NATIVE_MAX_HEIGHT)) break;
      n++;
    }
    expect(nativeProgram(nested(n))).toBeInstanceOf(RegExp);
    expect(nativeProgram(nested(n + 1))).toBeUndefined();
    expect(compilePattern(nested(1_000))).toMatchObject({ ok: false, tooLarge: false, reason: expect.stringContaining("expression nests too deeply") });
  });
});
