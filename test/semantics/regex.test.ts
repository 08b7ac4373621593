/**
 * `matches` (filter-semantics.md §5): Go regexp (RE2), unanchored search, rune-based; the pattern is
 * the unquoted literal. Invalid patterns are rejected by compileFilter (deliberate decision 2).
 */
import { describe, expect, it } from "vitest";
import { compileFilter, FilterSyntaxError, parse } from "../../src/index.js";
import { show } from "../support/show.js";
import { outcomeTable, type Outcome } from "./support.js";

const value = {
  Name: "web-api",
  Num: "web-1",
  Launch: "🚀 launch",
  Lines: "a\nb",
  Accent: "é",
  Upper: "É",
  Arabic: "٣",
  Nbsp: "\u00a0",
  TrailingNewline: "a\n",
  Cr: "a\rb",
  LineSeparator: "a\u2028b",
  VerticalTab: "\v",
  Priority: 50,
  Stop: false,
  Datacenters: ["dc1"],
  Meta: { owner: "team-a" },
  Multiregion: null,
};

function table(rows: ReadonlyArray<readonly [string, Outcome]>) {
  return outcomeTable(value, rows);
}

describe("RE2 search semantics", () => {
  // §5: unanchored search; `(?i)`, `(?s)`, `(?m)`, `(?i:…)`, `\pL`, `\p{Lu}`, `[[:alpha:]]`,
  // `(?P<name>…)`, `\A`, `\z` and `\b` are supported; `.` is one code point.
  table([
    ['Name matches "^web"', true],
    ['Name matches "api"', true],
    ['Name matches "^api"', false],
    ['Name matches "web-api$"', true],
    ['Name matches "^WEB"', false],
    ['Name matches ""', true],
    ["Name matches web", true],
    ['Name matches "(?i)^WEB"', true],
    ['Name matches "(?i:W)eb"', true],
    ['Name matches "W(?i:eb)"', false],
    ['Lines matches "a.b"', false],
    ['Lines matches "(?s)a.b"', true],
    ['Lines matches "^b$"', false],
    ['Lines matches "(?m)^b$"', true],
    ["Accent matches `^\\pL$`", true],
    ['Accent matches "^\\\\pL$"', true],
    ["Upper matches `\\p{Lu}`", true],
    ["Accent matches `\\p{Lu}`", false],
    ["Name matches `^[[:alpha:]]+-`", true],
    // POSIX classes are ASCII-only in RE2.
    ["Accent matches `[[:alpha:]]`", false],
    ["Name matches `(?P<first>web)-api`", true],
    ["Name matches `\\Aweb`", true],
    ["Name matches `api\\z`", true],
    ["Lines matches `a\\z`", false],
    ["Name matches `\\bapi\\b`", true],
    ["Name matches `\\bpi`", false],
    ["Launch matches `^.{8}$`", true],
    ["Launch matches `^.{9}$`", false],
    ["Launch matches `^\\x{1F680} `", true],
    ["Accent matches `(?i)É`", true],
    // RE2's \d, \s and \w are ASCII-only.
    ["Num matches `\\d$`", true],
    ["Arabic matches `\\d`", false],
    ["Nbsp matches `\\s`", false],
    ["Accent matches `\\w`", false],
    ["VerticalTab matches `\\s`", false],
    ["Accent matches `\\bé`", false],
    // Without (?m), `$` is the end of the text, even before a final newline.
    ['TrailingNewline matches "a$"', false],
    ['TrailingNewline matches "(?m)a$"', true],
    // `.` excludes only LF.
    ['Cr matches "^a.b$"', true],
    ['LineSeparator matches "^a.b$"', true],
    // Classes hold code points, not UTF-16 units.
    ['Launch matches "^[🚀] "', true],
    ['Launch matches "^[^a] l"', true],
    ["Launch matches `^\\S\\s`", true],
    // §5: "double-quoted patterns need `\\d`".
    ['Num matches "\\\\d"', true],
    ['Name matches "\\\\d"', false],
    ['Num matches "\\d"', "syntax:invalid_string"],
    // §1: a double-quoted pointer-looking pattern is rewritten: "/web" is the pattern "web".
    ['Name matches "/web"', true],
    ['Name not matches "^web"', false],
    ['Name not matches "^api"', true],
  ]);
});

describe("matches by kind", () => {
  // §5: "`matches` works only on values convertible to `[]byte` (string kinds); ints, bools, arrays
  // and maps give an error, and null gives a panic" (nil_value here, deliberate decision 1).
  table([
    ['Priority matches "5"', "unsupported_operand"],
    ['Stop matches "f"', "unsupported_operand"],
    ['Datacenters matches "dc"', "unsupported_operand"],
    ['Meta matches "owner"', "unsupported_operand"],
    ['Multiregion matches "x"', "nil_value"],
    ['Multiregion not matches "x"', "nil_value"],
    ['Meta.nope matches "x"', false],
    ['Meta.nope not matches "x"', true],
    ['Nope matches "x"', "missing_key"],
  ]);
});

describe("invalid patterns", () => {
  // §5 "Unsupported: lookaround, backreferences and `\Z`. These fail to compile." (plus other RE2
  // compile errors). This project reports them from compileFilter as invalid_regex, on the pattern.
  it.each([
    ["Name matches `[unclosed`", "`[unclosed`"],
    ["Name matches `(?=x)`", "`(?=x)`"],
    ["Name matches `(?!x)`", "`(?!x)`"],
    ["Name matches `(?<=x)y`", "`(?<=x)y`"],
    ["Name matches `(a)\\1`", "`(a)\\1`"],
    ["Name matches `a\\Z`", "`a\\Z`"],
    ["Name matches `a{1001}`", "`a{1001}`"],
    ["Name matches `a{2,1}`", "`a{2,1}`"],
    ["Name matches `a++`", "`a++`"],
    ["Name matches `x**`", "`x**`"],
    ['Name not matches "("', '"("'],
    // §1 `\x` escapes give raw bytes, and Go's regexp rejects a pattern that is not valid UTF-8.
    [String.raw`Name matches "\xff"`, String.raw`"\xff"`],
    ['Status == "x" and Name matches "["', '"["'],
    ['any Datacenters as dc { dc matches "(" }', '"("'],
  ])("rejects %s when compiling, at %s", (source, pattern) => {
    expect(() => parse(source)).not.toThrow();
    let error: unknown;
    try {
      compileFilter(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FilterSyntaxError);
    const syntax = error as FilterSyntaxError;
    expect(syntax.code).toBe("invalid_regex");
    const start = source.lastIndexOf(pattern);
    expect(syntax.diagnostics[0]?.span).toEqual({ start, end: start + pattern.length });
  });

  // §5: the regex is only compiled when reached in go-bexpr; parse alone never compiles it.
  it("keeps an invalid pattern in the AST that parse returns", () => {
    expect(show(parse('Status == "x" and Name matches "["'))).toBe('(and (== Status "x") (matches Name "["))');
  });

  // §5: patterns that Go accepts must compile.
  it.each(["Name matches `a{1000}`", "Name matches `\\pN`", "Name matches `(?i)(?s)(?m)^a.b$`", "Name matches `[[:digit:]]`"])(
    "compiles %s",
    (source) => {
      expect(() => compileFilter(source)).not.toThrow();
    },
  );
});
