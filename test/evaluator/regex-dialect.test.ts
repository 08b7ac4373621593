/**
 * The dialect of `matches` is Go 1.23's `regexp` (go-bexpr v0.1.16 calls `regexp.Compile`): the
 * same patterns are accepted, with the same matches, and a rejected pattern gets Go's error text.
 *
 * Each table cites where its rows come from: Go's own tests (`regexp/syntax/parse_test.go`:
 * `invalidRegexps`, `onlyPerl`, `onlyPOSIX`, `parseTests`; `regexp/all_test.go`: `goodRe`, `badRe`)
 * or the function of Go 1.23's `regexp/syntax/parse.go` whose rule the rows exercise. Every
 * expected outcome was checked against Go 1.23's `regexp/syntax` built from source (with the
 * Unicode 15.0.0 tables Go 1.21 to 1.24 ship), as were 300,000 random patterns.
 */
import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compileFilter, FilterSyntaxError, MAX_PATTERN_SIZE } from "../../src/index.js";
import { translatePattern } from "../../src/evaluator/go-regexp.js";
import { compilePattern, patternBudget, patternSizeBound, programSize } from "../../src/evaluator/regex.js";
import { patternArb } from "../support/arbitraries.js";
import { catchError } from "../support/errors.js";

/** Go's verdict on `source`: null when it compiles, else its error without "error parsing regexp: ". */
function verdict(source: string): string | null {
  const compiled = compilePattern(source);
  if (compiled.ok) return null;
  expect(compiled.tooLarge).toBe(false);
  expect(compiled.reason.startsWith("error parsing regexp: ")).toBe(true);
  return compiled.reason.slice("error parsing regexp: ".length);
}

function matches(source: string, text: string): boolean {
  const compiled = compilePattern(source);
  if (!compiled.ok) throw new Error(compiled.reason);
  return compiled.pattern.test(text);
}

describe("the patterns of Go's own tests", () => {
  it.each<[string, string | null]>([
    // parse_test.go invalidRegexps (the last six, too large or too deep, are below)
    ["(", "missing closing ): `(`"],
    [")", "unexpected ): `)`"],
    ["(a", "missing closing ): `(a`"],
    ["a)", "unexpected ): `a)`"],
    ["(a))", "unexpected ): `(a))`"],
    ["(a|b|", "missing closing ): `(a|b|`"],
    ["a|b|)", "unexpected ): `a|b|)`"],
    ["(a|b|))", "unexpected ): `(a|b|))`"],
    ["(a|b", "missing closing ): `(a|b`"],
    ["a|b)", "unexpected ): `a|b)`"],
    ["(a|b))", "unexpected ): `(a|b))`"],
    ["[a-z", "missing closing ]: `[a-z`"],
    ["([a-z)", "missing closing ]: `[a-z)`"],
    ["[a-z)", "missing closing ]: `[a-z)`"],
    ["([a-z]))", "unexpected ): `([a-z]))`"],
    ["x{1001}", "invalid repeat count: `{1001}`"],
    ["x{9876543210}", "invalid repeat count: `{9876543210}`"],
    ["x{2,1}", "invalid repeat count: `{2,1}`"],
    ["x{1,9876543210}", "invalid repeat count: `{1,9876543210}`"],
    ["\udcff", "invalid UTF-8: `\\xff`"],
    ["[\udcff]", "invalid UTF-8: `\\xff]`"],
    ["[\\\udcff]", "invalid UTF-8: `\\xff]`"],
    ["\\\udcff", "invalid UTF-8: `\\xff`"],
    ["(?P<name>a", "missing closing ): `(?P<name>a`"],
    ["(?P<name>", "missing closing ): `(?P<name>`"],
    ["(?P<name", "invalid named capture: `(?P<name`"],
    ["(?P<x y>a)", "invalid named capture: `(?P<x y>`"],
    ["(?P<>a)", "invalid named capture: `(?P<>`"],
    ["(?<name>a", "missing closing ): `(?<name>a`"],
    ["(?<name>", "missing closing ): `(?<name>`"],
    ["(?<name", "invalid named capture: `(?<name`"],
    ["(?<x y>a)", "invalid named capture: `(?<x y>`"],
    ["(?<>a)", "invalid named capture: `(?<>`"],
    ["[a-Z]", "invalid character class range: `a-Z`"],
    ["(?i)[a-Z]", "invalid character class range: `a-Z`"],
    ["\\Q\\E*", "missing argument to repetition operator: `*`"],
    ["a{100000}", "invalid repeat count: `{100000}`"],
    ["a{100000,}", "invalid repeat count: `{100000,}`"],
    ["((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}){2})", "invalid repeat count: `{2}`"],
    ["(?:[a-z]{4}){0,251}", "invalid repeat count: `{0,251}`"],
    // parse_test.go onlyPOSIX: repetitions of repetitions are errors in Perl mode
    ["a++", "invalid nested repetition operator: `++`"],
    ["a**", "invalid nested repetition operator: `**`"],
    ["a?*", "invalid nested repetition operator: `?*`"],
    ["a+*", "invalid nested repetition operator: `+*`"],
    ["a{1}*", "invalid nested repetition operator: `{1}*`"],
    [".{1}{2}.{3}", "invalid nested repetition operator: `{1}{2}`"],
    // parse_test.go onlyPerl
    ["[a-b-c]", null],
    ["\\Qabc\\E", null],
    ["\\Q*+?{[\\E", null],
    ["\\Q\\\\E", null],
    ["\\Q\\\\\\E", null],
    ["\\Q\\\\\\\\E", null],
    ["\\Q\\\\\\\\\\E", null],
    ["(?:a)", null],
    ["(?P<name>a)", null],
    // all_test.go badRe
    ["*", "missing argument to repetition operator: `*`"],
    ["+", "missing argument to repetition operator: `+`"],
    ["?", "missing argument to repetition operator: `?`"],
    ["(abc", "missing closing ): `(abc`"],
    ["abc)", "unexpected ): `abc)`"],
    ["x[a-z", "missing closing ]: `[a-z`"],
    ["[z-a]", "invalid character class range: `z-a`"],
    ["abc\\", "trailing backslash at end of expression: ``"],
    ["a*+", "invalid nested repetition operator: `*+`"],
    ["\\x", "invalid escape sequence: `\\x`"],
    // all_test.go goodRe
    ["", null],
    [".", null],
    ["^.$", null],
    ["a*|b*", null],
    ["(a*|b)(c*|d)", null],
    ["[a-abc-c\\-\\]\\[]", null],
    ["[^1234]", null],
    ["[^\\n]", null],
    ["\\!\\\\", null],
  ])("%j: %j", (source, expected) => {
    expect(verdict(source)).toBe(expected);
  });

  // parse_test.go parseTests (Go 1.23's rows; the dump each parses to is checked by the matches below)
  it.each([
    "a", "a.", "a.b", "ab", "a|^", "a|b", "(a)", "(a)|b", "a*", "a+", "a?", "a{2}", "a{2,3}", "a{2,}", "a*?", "a+?", "a??",
    "a{2}?", "a{2,3}?", "a{2,}?", "x{1001", "x{9876543210", "x{9876543210,", "x{2,1", "x{1,9876543210", "", "|", "|x|", ".",
    "^", "$", "\\|", "\\(", "\\)", "\\*", "\\+", "\\?", "{", "}", "\\.", "\\^", "\\$", "\\\\", "[ace]", "[abc]", "[a-z]", "[a]",
    "\\-", "-", "\\_", "abc|def", "abc|def|ghi", "[[:lower:]]", "[^[:lower:]]", "[[:^lower:]]", "(?i)[[:lower:]]",
    "(?i)[a-z]", "(?i)[^[:lower:]]", "(?i)[[:^lower:]]", "\\d", "\\D", "\\s", "\\S", "\\w", "\\W", "(?i)\\w", "(?i)\\W",
    "[^\\\\]", "\\p{Braille}", "\\P{Braille}", "\\p{^Braille}", "\\P{^Braille}", "\\pZ", "[\\p{Braille}]", "[\\P{Braille}]",
    "[\\p{^Braille}]", "[\\P{^Braille}]", "[\\pZ]", "\\p{Lu}", "\\p{Canadian_Aboriginal}", "[\\p{Lu}]", "(?i)[\\p{Lu}]",
    "\\p{Any}", "\\p{^Any}", "[\\012-\\234]\\141", "[\\x{41}-\\x7a]\\x61", "a{,2}", "\\.\\^\\$\\\\", "[a-zABC]", "[^a]",
    "[α-ε☺]", "a*{", "(?:ab)*", "(ab)*", "ab|cd", "a(b|c)d", "(?:a)", "(?:ab)(?:cd)", "(?:a+b+)(?:c+d+)",
    "(?:a+|b+)|(?:c+|d+)", "(?:a|b)|(?:c|d)", "a|.", ".|a", "(?:[abc]|A|Z|hello|world)", "(?:[abc]|A|Z)", "\\Q+|*?{[\\E",
    "\\Q+\\E+", "\\Qab\\E+", "\\Q\\\\E", "\\Q\\\\\\E", "(?m)^", "(?m)$", "(?-m)^", "(?-m)$", "(?m)\\A", "(?m)\\z", "(?-m)\\A",
    "(?-m)\\z", "(?P<name>a)", "(?<name>a)", "[Aa]", "[\\x{100}\\x{101}]", "[Δδ]", "abcde", "[Aa][Bb]cd",
    "abc|abd|aef|bcx|bcy", "ax+y|ax+z|ay+w", "(?:.)", "(?:x|(?:xa))", "(?:.|(?:.a))", "(?:A(?:A|a))", "(?:A|a)",
    "A|(?:A|a)", "(?s).", "(?-s).", "(?:(?:^).)", "(?-s)(?:(?:^).)", "[\\s\\S]a", "abc|abd", "a(?:b)c|abd", "abc|x|abd",
    "(?i)abc|ABD", "[ab]c|[ab]d", ".c|.d", "x{2}|x{2}[0-9]", "x{2}y|x{2}[0-9]y", "a.*?c|a.*?b",
    "((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}))", "((((((((((x{1}){2}){2}){2}){2}){2}){2}){2}){2}){2})",
    "(?:[a-z]{4}){0,250}", "(".repeat(999) + ")".repeat(999), "(?:".repeat(999) + ")*".repeat(999), `(${"|".repeat(12345)})`,
  ])("compiles %j", (source) => {
    expect(verdict(source)).toBeNull();
  });
});

describe("Go 1.23's rules, function by function", () => {
  it.each<[string, string | null]>([
    // parsePerlFlags: named groups. Go 1.23 allows a name twice, and (?<name>…) since Go 1.22; the
    // group needs more than "(?P<" or "(?<" to be one, so shorter texts are Perl flags.
    ["(?P<n>a)(?P<n>b)", null],
    ["(?<n>a)(?P<n>b)", null],
    ["(?<n>a)", null],
    ["(?P<n_1>a)", null],
    ["(?P<é>a)", "invalid named capture: `(?P<é>`"],
    ["(?P<n", "invalid named capture: `(?P<n`"],
    ["(?P<", "invalid or unsupported Perl syntax: `(?P`"],
    ["(?P", "invalid or unsupported Perl syntax: `(?P`"],
    ["(?<", "invalid or unsupported Perl syntax: `(?<`"],
    ["(?<=a)b", "invalid named capture: `(?<=a)b`"],
    ["(?<!a)b", "invalid named capture: `(?<!a)b`"],
    ["(?P=n)", "invalid or unsupported Perl syntax: `(?P`"],
    ["(?P>n)", "invalid or unsupported Perl syntax: `(?P`"],
    ["(?'n'a)", "invalid or unsupported Perl syntax: `(?'`"],
    // parsePerlFlags: the flags i, m, s and U, negated after one `-` that a flag must follow
    ["(?i)", null],
    ["(?-i)", null],
    ["(?i-s:a)", null],
    ["(?imsU)a", null],
    ["(?)", null],
    ["(?:)", null],
    ["(?i-i)", null],
    ["(?", "invalid or unsupported Perl syntax: `(?`"],
    ["(?x)", "invalid or unsupported Perl syntax: `(?x`"],
    ["(?#c)", "invalid or unsupported Perl syntax: `(?#`"],
    ["(?-)", "invalid or unsupported Perl syntax: `(?-)`"],
    ["(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"],
    ["(?--i)", "invalid or unsupported Perl syntax: `(?--`"],
    ["(?i:", "missing closing ): `(?i:`"],
    // flags push nothing: the repetition applies to what comes before, and is not nested
    ["a*(?i)*", null],
    ["(?i)*", "missing argument to repetition operator: `*`"],
    // parseUnicodeClass and unicodeTable: Go 1.23 knows "Any", unicode.Categories and
    // unicode.Scripts (Unicode 15.0.0), by their exact names; no Cn, LC, aliases or properties
    ["\\pL", null],
    ["\\pN", null],
    ["\\p{Lu}", null],
    ["\\PL", null],
    ["\\p{^Greek}", null],
    ["\\P{^Greek}", null],
    ["\\p{Any}", null],
    ["\\p{^Any}", null],
    ["\\p{Kawi}", null],
    ["\\p{Nag_Mundari}", null],
    ["[\\P{Greek}\\d]", null],
    ["\\p{Cn}", "invalid character class range: `\\p{Cn}`"],
    ["\\p{LC}", "invalid character class range: `\\p{LC}`"],
    ["\\p{Lc}", "invalid character class range: `\\p{Lc}`"],
    ["\\p{L&}", "invalid character class range: `\\p{L&}`"],
    ["\\p{Ascii}", "invalid character class range: `\\p{Ascii}`"],
    ["\\p{ASCII}", "invalid character class range: `\\p{ASCII}`"],
    ["\\p{Assigned}", "invalid character class range: `\\p{Assigned}`"],
    ["\\p{Letter}", "invalid character class range: `\\p{Letter}`"],
    ["\\p{greek}", "invalid character class range: `\\p{greek}`"],
    ["\\p{Emoji}", "invalid character class range: `\\p{Emoji}`"],
    ["\\p{White_Space}", "invalid character class range: `\\p{White_Space}`"],
    ["\\p{Unknown}", "invalid character class range: `\\p{Unknown}`"],
    ["\\p{Zzzz}", "invalid character class range: `\\p{Zzzz}`"],
    ["\\p{Garay}", "invalid character class range: `\\p{Garay}`"],
    ["\\p{Sunuwar}", "invalid character class range: `\\p{Sunuwar}`"],
    ["[\\p{Cn}]", "invalid character class range: `\\p{Cn}`"],
    ["\\pé", "invalid character class range: `\\pé`"],
    ["\\p", "invalid character class range: `\\p`"],
    ["\\P", "invalid character class range: `\\P`"],
    ["\\p{", "invalid character class range: `\\p{`"],
    ["\\p{Greek", "invalid character class range: `\\p{Greek`"],
    ["\\p{}", "invalid character class range: `\\p{}`"],
    ["\\p{^}", "invalid character class range: `\\p{^}`"],
    // parseEscape: C escapes, up to three octal digits after \0 (\1 to \7 need a second one),
    // \xHH, \x{…} up to 10FFFF, escaped punctuation; in the main loop \A \b \B \z \Q…\E, never \C or \Z
    ["\\a\\f\\t\\n\\r\\v", null],
    ["\\0", null],
    ["\\07", null],
    ["\\012", null],
    ["\\0123", null],
    ["\\08", null],
    ["\\8", "invalid escape sequence: `\\8`"],
    ["\\18", "invalid escape sequence: `\\1`"],
    ["\\x41", null],
    ["\\x{41}", null],
    ["\\x{10FFFF}", null],
    ["\\x{110000}", "invalid escape sequence: `\\x{110000`"],
    ["\\x{}", "invalid escape sequence: `\\x{}`"],
    ["\\x{41", "invalid escape sequence: `\\x{41`"],
    ["\\x{4g}", "invalid escape sequence: `\\x{4g`"],
    ["\\x4", "invalid escape sequence: `\\x4`"],
    ["\\xZZ", "invalid escape sequence: `\\xZZ`"],
    ["\\_", null],
    ["\\-", null],
    ["\\é", "invalid escape sequence: `\\é`"],
    ["\\q", "invalid escape sequence: `\\q`"],
    ["\\b", null],
    ["\\B", null],
    ["\\A", null],
    ["\\z", null],
    ["\\C", "invalid escape sequence: `\\C`"],
    ["\\Z", "invalid escape sequence: `\\Z`"],
    ["[\\b]", "invalid escape sequence: `\\b`"],
    ["[\\A]", "invalid escape sequence: `\\A`"],
    ["[\\Q]", "invalid escape sequence: `\\Q`"],
    ["\\Qa.b\\E", null],
    ["\\Qab", null],
    ["\\Q", null],
    // parseClass and parseNamedClass: `]` first is a literal, `-` before `]` too; a POSIX name
    // runs to the next ":]" anywhere after "[:"
    ["[]a]", null],
    ["[^]", "missing closing ]: `[^]`"],
    ["[]", "missing closing ]: `[]`"],
    ["[", "missing closing ]: `[`"],
    ["[^", "missing closing ]: `[^`"],
    ["[a-]", null],
    ["[-a]", null],
    ["[z-a]", "invalid character class range: `z-a`"],
    ["[a-\\d]", "invalid escape sequence: `\\d`"],
    ["[\\d-z]", null],
    ["[\\x{10FFFF}-\\x{0}]", "invalid character class range: `\\x{10FFFF}-\\x{0}`"],
    ["[[:alpha:]]", null],
    ["[[:^alpha:]]", null],
    ["[[:word:]]", null],
    ["[[:foo:]]", "invalid character class range: `[:foo:]`"],
    ["[[:^foo:]]", "invalid character class range: `[:^foo:]`"],
    ["[[:]]", null],
    ["[[:a]b:]]", "invalid character class range: `[:a]b:]`"],
    ["[[:alpha:]", "missing closing ]: `[[:alpha:]`"],
    // parseRepeat and repeat: counts up to 1000 without a leading zero (else `{` is a literal);
    // no repetition of a repetition; repeatIsValid: nested counts multiplied stay within 1000
    ["a{1000}", null],
    ["a{1001}", "invalid repeat count: `{1001}`"],
    ["a{1000,}", null],
    ["a{0,1000}", null],
    ["a{1,1001}", "invalid repeat count: `{1,1001}`"],
    ["a{,2}", null],
    ["a{01}", null],
    ["a{1,01}", null],
    ["a{2}{3}", "invalid nested repetition operator: `{2}{3}`"],
    ["a*?*", "invalid nested repetition operator: `*?*`"],
    ["a{2}?{3}", "invalid nested repetition operator: `{2}?{3}`"],
    ["**", "missing argument to repetition operator: `*`"],
    ["{2}", "missing argument to repetition operator: `{2}`"],
    ["(?:)*", null],
    ["()+", null],
    ["(|a)*", null],
    ["^*", null],
    ["$+", null],
    ["\\b*", null],
    ["(a{500}){500}", "invalid repeat count: `{500}`"],
    ["(a{2}){500}", null],
    ["(a{2}){501}", "invalid repeat count: `{501}`"],
    ["(a{10}|b{100}){10}", null],
    ["(a{10}|b{100}){11}", "invalid repeat count: `{11}`"],
    ["(?:a{2,}){501}", "invalid repeat count: `{501}`"],
    ["(?:a{0}){1000}", null],
    ["(?:(?:a{1000}){0}){5}", null],
    ["(?:(?:a{0}){1000}){2}", "invalid repeat count: `{2}`"],
    ["(?:(?:a{2}){500}){0,1}", null],
    ["(?:(?:a{2}){500}){1,2}", "invalid repeat count: `{1,2}`"],
    ["(?:(?:a{2}){500})*", null],
    ["(?:a{2}){0}{1000}", "invalid nested repetition operator: `{0}{1000}`"],
    // nextRune and checkUTF8: a byte that is not UTF-8 is an error where Go reads it, quoting what
    // is left of the text it reads (the pattern, a group name, a \p name, a \Q…\E run)
    ["a\udcffb", "invalid UTF-8: `\\xffb`"],
    [")\udcff", "unexpected ): `)\\xff`"],
    ["\udcff)", "invalid UTF-8: `\\xff)`"],
    ["[a\udcff", "invalid UTF-8: `\\xff`"],
    ["(?P<n\udcffm>a)", "invalid UTF-8: `\\xffm`"],
    ["(?P<n\udcff", "invalid UTF-8: `\\xff`"],
    ["\\p{Gr\udcffk}", "invalid UTF-8: `\\xffk`"],
    ["\\p{\udcff", "invalid UTF-8: `\\xff`"],
    ["\\p\udcff", "invalid UTF-8: `\\xff`"],
    ["\\Qa\udcffb\\Ec", "invalid UTF-8: `\\xffb`"],
    ["\\x\udcff", "invalid UTF-8: `\\xff`"],
    ["\\x{4\udcff}", "invalid UTF-8: `\\xff}`"],
    ["(?i\udcff)", "invalid UTF-8: `\\xff)`"],
  ])("%j: %j", (source, expected) => {
    expect(verdict(source)).toBe(expected);
  });

  // parse_test.go invalidRegexps, "too deep": a parse tree over maxHeight (1000) levels.
  it.each(["(".repeat(1000) + ")".repeat(1000), "(?:".repeat(1000) + ")*".repeat(1000)])("rejects %#, which nests too deeply", (source) => {
    expect(verdict(source)).toBe(`expression nests too deeply: \`${source}\``);
  });

  // parse_test.go invalidRegexps, "too long" and "too many runes": Go's `expression too large`
  // (over 3,355,443 instructions or 33,554,432 class runes) is far beyond the pattern budget,
  // which refuses them first.
  it.each(["(" + "(xx?)".repeat(1000) + "){1000}", "(xx?){1000}".repeat(1000), "\\pL".repeat(27000)])("refuses %#, too large for Go, as too large", (source) => {
    expect(compilePattern(source, patternBudget(MAX_PATTERN_SIZE))).toMatchObject({ ok: false, tooLarge: true });
  });
});

describe("matches as Go 1.23", () => {
  it.each<[string, string, boolean]>([
    // unicode.Categories: C is Cc, Cf, Co and Cs (no unassigned code points in Go 1.23)
    ["\\pC", "\u0378", false], // U+0378 is unassigned
    ["\\PC", "\u0378", true],
    ["\\p{C}", "\u00ad", true], // soft hyphen, Cf
    ["\\p{Co}", "\ue000", true],
    // Unicode 15.0.0: code points assigned in Unicode 16 and 17 are in no category or script
    ["\\pL", "\u{10d50}", false], // GARAY CAPITAL LETTER A (16.0)
    ["\\p{Lu}", "\ua7cb", false], // LATIN CAPITAL LETTER RAMS HORN (16.0)
    ["\\p{Latin}", "\ua7cb", false],
    ["\\p{Han}", "\u{31350}", true], // CJK Extension H (15.0)
    ["\\p{Han}", "\u{323b0}", false], // CJK Extension J (17.0)
    ["\\p{Kawi}", "\u{11f00}", true], // KAWI SIGN CANDRABINDU (15.0)
    ["\\pN", "\u0661", true],
    ["\\p{Greek}", "\u03a9", true],
    ["\\p{^Greek}", "\u03a9", false],
    ["\\P{^Greek}", "\u03a9", true],
    ["\\p{Any}", "\n", true],
    ["\\p{^Any}", "a", false],
    ["[^\\p{Any}]", "a", false],
    // unicode.SimpleFold (Unicode 15.0.0 orbits) under (?i), for literals, classes and tables
    ["(?i)\u0264", "\ua7cb", false], // U+0264 and U+A7CB pair up in Unicode 16 only
    ["(?i)\ua7cb", "\u0264", false],
    ["(?i)\u1c8a", "\u1c89", false], // a Unicode 16 pair
    ["(?i)[\u0264]", "\ua7cb", false],
    ["(?i)\\p{Lu}", "\u0264", false],
    ["(?i)k", "\u212a", true], // KELVIN SIGN
    ["(?i)\u212a", "k", true],
    ["(?i)s", "\u017f", true], // LONG S
    ["(?i)\u03b8", "\u03d1", true],
    ["(?i)\u03b8", "\u03f4", true],
    ["(?i)i", "\u0130", false], // CAPITAL I WITH DOT ABOVE folds to nothing
    ["(?i)\u0131", "I", false], // DOTLESS I folds to nothing
    ["(?i)\u00df", "\u1e9e", true],
    ["(?i)[^k]", "\u212a", false],
    ["(?i)\\W", "\u017f", false],
    ["(?i)[[:lower:]]", "\u212a", true],
    ["(?i)[a-z]", "\u017f", true],
    ["(?i)\\w", "\u212a", true],
    ["(?i)\\Qk\\E", "\u212a", true],
    ["(?i)\\p{Greek}", "\u00b5", true], // MICRO SIGN (Common) folds into Greek: unicode.FoldScript
    ["\\p{Greek}", "\u00b5", false],
    ["(?i)\\p{Latin}", "\u212a", true],
    // flags last to the end of their group
    ["(?i:k)K", "\u212aK", true],
    ["(?i:k)K", "\u212ak", false],
    ["(?i)k(?-i)k", "Kk", true],
    ["(?i)k(?-i)k", "KK", false],
    ["((?i)k)k", "KK", false],
    ["(?s).", "\n", true],
    [".", "\n", false],
    ["(?m)^b$", "a\nb", true],
    ["^b$", "a\nb", false],
    ["(?U)a+", "a", true],
    ["\\Aa\\z", "a\n", false],
    ["a*(?i)*", "aaa", true],
    // escapes
    ["\\0", "\u0000", true],
    ["\\012", "\n", true],
    ["\\0123", "\n3", true],
    ["\\x{10FFFF}", "\u{10ffff}", true],
    ["\\Qa.b\\E", "axb", false],
    ["\\Qa.b\\E", "a.b", true],
    ["\\_", "_", true],
    // classes
    ["[]a]", "]", true],
    ["[a-]", "-", true],
    ["[a-b-c]", "-", true],
    ["[[:]]", ":]", true], // the class [ and :, then ]
    ["[[:]]", "[", false],
    ["[[:^alpha:]]", "1", true],
    ["[\\d-z]", "-", true],
    ["[^\\n]", "\n", false],
    ["[^a]", "\n", true],
    // named groups
    ["(?P<n>a)(?P<n>b)", "ab", true],
    ["(?<n>a)", "a", true],
  ])("%j against %j is %s", (source, text, expected) => {
    expect(matches(source, text)).toBe(expected);
  });
});

describe("Go 1.23's Unicode class names", () => {
  // unicode.Categories (tables.go, Unicode 15.0.0): the one-letter unions and the 29 categories.
  const categories = "C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs".split(" ");
  // unicode.Scripts (tables.go, Unicode 15.0.0): 163 names, Common and Inherited included.
  const scripts = (
    "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki Bopomofo " +
    "Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee Chorasmian Common " +
    "Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs " +
    "Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han Hangul " +
    "Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi Inscriptional_Parthian " +
    "Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha " +
    "Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi " +
    "Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar " +
    "Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian " +
    "Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage " +
    "Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra " +
    "Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog " +
    "Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto Ugaritic " +
    "Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square"
  ).split(" ");

  it("has Go's 36 categories and 163 scripts", () => {
    expect(categories).toHaveLength(36);
    expect(scripts).toHaveLength(163);
  });

  it.each(["Any", ...categories, ...scripts])("accepts \\p{%s}, \\P{%s} and \\p{^…} of it, each matching something", (name) => {
    expect(verdict(`\\p{${name}}`)).toBeNull();
    expect(verdict(`[\\P{^${name}}]`)).toBeNull();
    if (name.length === 1) expect(verdict(`\\p${name}`)).toBeNull();
    const compiled = compilePattern(`\\p{${name}}`);
    expect(compiled.ok && compiled.pattern.size).toBeGreaterThan(0);
  });

  // What re2js 2.10 (Go 1.25, Unicode 17) knows and Go 1.23 does not: Cn and LC (Go 1.25), its
  // special names, binary properties, Unknown, and the scripts of Unicode 16 and 17.
  it.each([
    "Cn", "LC", "Lc", "Ascii", "Assigned", "ASCII_Hex_Digit", "Alphabetic", "Dash", "Emoji", "Emoji_Component",
    "Emoji_Modifier", "Emoji_Modifier_Base", "Emoji_Presentation", "Extended_Pictographic", "Hex_Digit", "Lowercase", "Math",
    "Quotation_Mark", "Terminal_Punctuation", "Uppercase", "White_Space", "Unknown", "Garay", "Gurung_Khema", "Kirat_Rai",
    "Ol_Onal", "Sunuwar", "Todhri", "Tulu_Tigalari", "Beria_Erfe", "Sidetic", "Tai_Yo", "Tolong_Siki",
  ])("rejects \\p{%s}, which re2js accepts", (name) => {
    expect(() => RE2JS.compile(`\\p{${name}}`)).not.toThrow();
    expect(verdict(`\\p{${name}}`)).toBe(`invalid character class range: \`\\p{${name}}\``);
  });
});

describe("the translation for re2js", () => {
  const pattern = patternArb(
    ["a", "k", "\u017f", "\u0264", ".", "\\d", "\\W", "[a-z]", "[^k]", "\\pL", "\\p{Greek}", "[\\PL\\d]", "[[:alpha:]]", "\\b", "^", "$", "\\Qk.s\\E", "(?i)", "(?-i)", "(?s)"],
    ["(", "(?:", "(?i:", "(?P<n>", "(?<n>"],
    ["*", "+?", "{2}", "{0,3}"],
  );

  it("never leaves re2js a Unicode table, the i flag or a group name to read", () => {
    fc.assert(
      fc.property(pattern, (source) => {
        const translation = translatePattern(source);
        if (!translation.ok) throw new Error(translation.reason);
        const translated = translation.pattern();
        expect(translated).not.toMatch(/\\[pP]|\(\?[a-zA-Z-]*i|\(\?P?</);
        // Its program is within the bound read from the text.
        expect(programSize(RE2JS.compile(translated))).toBeLessThanOrEqual(translation.bound + Math.ceil(translated.length / 8));
      }),
      { numRuns: 2_000 },
    );
  });

  it("counts the ranges a Unicode table writes out in the size bound", () => {
    expect(patternSizeBound("\\pL")).toBeGreaterThan(80);
    expect(patternSizeBound("[a-z]")).toBe(5);
    expect(patternSizeBound("\\p{Cn}")).toBe(Infinity);
  });

  it("refuses a pattern of many tables before writing them out", () => {
    // 40,000 × \pL would be 26 million ranges written out.
    const compiled = compilePattern("\\pL".repeat(40_000), patternBudget(MAX_PATTERN_SIZE));
    expect(compiled).toMatchObject({ ok: false, tooLarge: true });
  });
});

describe("through a filter", () => {
  it.each([
    ["Name matches `\\p{Cn}`", "error parsing regexp: invalid character class range: `\\p{Cn}`"],
    ["Name matches `(?P<`", "error parsing regexp: invalid or unsupported Perl syntax: `(?P`"],
    // A double-quoted `\xff` is a byte that is not UTF-8; Go quotes what is left from it.
    ['Name matches "a\\xffb"', "error parsing regexp: invalid UTF-8: `\\xffb`"],
    // Go's verdict comes before the pattern budget: this is no pattern, however large it would be.
    ["Name matches `(a{500}){500}`", "error parsing regexp: invalid repeat count: `{500}`"],
  ])("reports %s as invalid_regex, with Go's reason", (source, reason) => {
    const error = catchError(() => compileFilter(source));
    expect(error).toBeInstanceOf(FilterSyntaxError);
    const diagnostic = (error as FilterSyntaxError).diagnostics[0]!;
    expect(diagnostic.code).toBe("invalid_regex");
    expect(diagnostic.message.endsWith(`: ${reason}`)).toBe(true);
  });

  it.each([
    ['Name matches "a\\xffb"', 'failed to compile regular expression "a\\xffb": error parsing regexp: invalid UTF-8: `\\xffb`'],
    ["Name matches `\\p{Cn}`", 'failed to compile regular expression "\\\\p{Cn}": error parsing regexp: invalid character class range: `\\p{Cn}`'],
  ])("quotes the pattern of %s as Go's %%q does", (source, message) => {
    const error = catchError(() => compileFilter(source));
    expect((error as FilterSyntaxError).diagnostics[0]!.message).toBe(message);
  });

  it.each([
    ["Name matches `(?P<n>a)(?P<n>b)`", { Name: "ab" }, true],
    ["Name matches `(?<first>web)-api`", { Name: "web-api" }, true],
    ["Name matches `^\\pL+$`", { Name: "\u{10d50}" }, false],
    ["Name matches `(?i)\u0264`", { Name: "\ua7cb" }, false],
  ])("evaluates %s on %j as Go does", (source, value, expected) => {
    expect(compileFilter(source).test(value)).toBe(expected);
  });
});
