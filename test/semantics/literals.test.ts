/**
 * Literals (filter-semantics.md §1): double-quoted strings through Go's strconv.Unquote, backtick
 * strings, and double-quoted values that look like JSON pointers.
 */
import { describe, expect, it } from "vitest";
import { parse, type Expression } from "../../src/index.js";
import { expectOutcome, expectSyntaxError } from "./support.js";

/** The decoded literal of a single match expression. */
function rawOf(source: string): string {
  const ast: Expression = parse(source);
  if (ast.kind !== "Match" || !("value" in ast)) throw new Error(`${source} is not a match with a value`);
  return ast.value.raw;
}

describe("double-quoted strings", () => {
  // §1 "Double-quoted strings": all Go escapes work.
  it.each([
    [String.raw`Name == "a\nb"`, "a\nb"],
    [String.raw`Name == "\t"`, "\t"],
    [String.raw`Name == "\\"`, "\\"],
    [String.raw`Name == "a\\d"`, "a\\d"],
    [String.raw`Name == "\x41"`, "A"],
    [String.raw`Name == "\101"`, "A"],
    [String.raw`Name == "\u00e9"`, "é"],
    [String.raw`Name == "\U0001F680"`, "🚀"],
    [String.raw`Name == "\a\b\f\r\v"`, "\x07\b\f\r\v"],
    [String.raw`Name == "a\x22b"`, 'a"b'],
    [String.raw`Name == "it's"`, "it's"],
    [`Name == "🚀 launch"`, "🚀 launch"],
    // Unquote has no special case for a raw CR or tab inside "…": they are kept.
    ['Name == "a\rb"', "a\rb"],
    ['Name == "a\tb"', "a\tb"],
    [`Name == ""`, ""],
  ])("decodes %j to %j", (source, raw) => {
    expect(rawOf(source)).toBe(raw);
  });

  // §1: "A bad escape (`\q`, `\d`, a short `\u12`) or a literal newline inside "…" gives the parse
  // error `rule "string": invalid syntax`"; so do the other escapes Go rejects in double quotes.
  it.each([
    [String.raw`Name == "a\qb"`, 10],
    [String.raw`Name == "\d"`, 9],
    [String.raw`Name == "\u12"`, 9],
    [String.raw`Name == "\'"`, 9],
    [String.raw`Name == "\/"`, 9],
    [String.raw`Name == "\x4"`, 9],
    [String.raw`Name == "\xGG"`, 9],
    [String.raw`Name == "\400"`, 9],
    [String.raw`Name == "\8"`, 9],
    [String.raw`Name == "\U00110000"`, 9],
    [String.raw`Name == "\ud800"`, 9],
    ['Name == "a\nb"', 10],
  ])("rejects %j with invalid_string at the bad escape (offset %i)", (source, start) => {
    expectSyntaxError(source, { code: "invalid_string", start, line: 1, column: start + 1 });
  });

  // §1: "An escaped quote `\"` cannot be written, because the scanner stops at it and Unquote
  // then fails; use `\x22` or a backtick string."
  it.each([
    [String.raw`Name == "a\"b"`, 10],
    [String.raw`Name == "a\"`, 10],
    [String.raw`Name == "\"" and x == 1`, 9],
  ])("rejects %s with invalid_string at the escaped quote (offset %i)", (source, start) => {
    expectSyntaxError(source, { code: "invalid_string", start });
  });

  // §1 grammar: a string that never ends.
  it.each([['Name == "abc'], ["Name == `abc"], ['Name == "abc\\'], ["Name == `a\nb"]])(
    "rejects %j with unterminated_string",
    (source) => {
      expectSyntaxError(source, { code: "unterminated_string", start: 8, line: 1, column: 9 });
    },
  );

  // §1: "Single quotes are not strings."
  it("rejects single-quoted strings at the quote", () => {
    expectSyntaxError("Name == 'x'", { code: "unexpected_character", span: { start: 8, end: 9 } });
  });

  // §1: "`\x`/octal escapes give raw bytes." Go compares strings byte by byte, and the data's "é"
  // is the two UTF-8 bytes C3 A9.
  it.each([
    [String.raw`Name == "\xc3\xa9"`, true],
    [String.raw`Name == "\303\251"`, true],
    [String.raw`Name == "\u00e9"`, true],
    [String.raw`Name == "\xe9"`, false],
    [String.raw`Name == "\351"`, false],
    [String.raw`Name != "\xe9"`, true],
    // Substrings and map keys compare bytes too: "é" contains the byte C3.
    [String.raw`"\xc3" in Name`, true],
    [String.raw`"\xa9" in Name`, true],
    [String.raw`"\xe9" in Name`, false],
    [String.raw`"\xc3\xa9" in Meta`, true],
    [String.raw`"\xe9" in Meta`, false],
  ])("evaluates %s on Name é to %s", (source, expected) => {
    expectOutcome(source, { Name: "é", Meta: { "é": 1 } }, expected);
  });

  // A byte that is not UTF-8 is not U+FFFD: Go compares the byte FF with the bytes EF BF BD.
  it.each([
    [String.raw`Name == "\xff"`, { Name: "\uFFFD" }, false],
    [String.raw`Name == "\xef\xbf\xbd"`, { Name: "\uFFFD" }, true],
    [String.raw`Name == "\x00"`, { Name: "\u0000" }, true],
    [String.raw`Name == "\000"`, { Name: "" }, false],
  ])("evaluates %s on %j to %s", (source, value, expected) => {
    expectOutcome(source, value, expected);
  });
});

describe("backtick strings", () => {
  // §1 "Backtick strings have no escapes and may span lines; Go's Unquote drops CR characters".
  it.each([
    ["Name == `a\\nb`", "a\\nb"],
    ["Name == `a\nb`", "a\nb"],
    ["Name == `a\r\nb`", "a\nb"],
    ["Name == `a\rb`", "ab"],
    ["Name == `\r`", ""],
    ['Name == `a"b`', 'a"b'],
    ["Name == `\\x22`", "\\x22"],
    ["Name == ``", ""],
  ])("decodes %j to %j", (source, raw) => {
    expect(rawOf(source)).toBe(raw);
  });

  // §1: `a\r\nb` in backticks equals "a\nb" (evaluated, not only parsed).
  it("matches a value with LF when written with CRLF between backticks", () => {
    expectOutcome("Name == `a\r\nb`", { Name: "a\nb" }, true);
    expectOutcome("Name == `a\r\nb`", { Name: "a\r\nb" }, false);
  });
});

describe("values that look like JSON pointers", () => {
  // §1 "Quoted values that look like JSON pointers are rewritten": segments `[\pL\pN-_.~:|]+`,
  // joined by `/` without the leading slash, `~1`→`/` then `~0`→`~`. Backticks never.
  it.each([
    ['Name == "/web-api"', "web-api"],
    ['"/dc1" in Datacenters', "dc1"],
    ['Datacenters contains "/dc1"', "dc1"],
    ['Name == "/a/b"', "a/b"],
    ['Name == "/a~1b"', "a/b"],
    ['Name == "/a~0b"', "a~b"],
    ['Name == "/~01"', "~1"],
    ['Name == "/é:x|y.z_w-1"', "é:x|y.z_w-1"],
    ['Name == "/٣"', "٣"],
    ['Name matches "/web"', "web"],
    ['Name == "/"', "/"],
    ['Name == "/a b"', "/a b"],
    ['Name == "/a/"', "/a/"],
    ['Name == "//a"', "//a"],
    ['Name == "/a+b"', "/a+b"],
    ['Name == "/🚀"', "/🚀"],
    ["Name == `/web-api`", "/web-api"],
    // The pointer form is checked on the source text, before unquoting: `\x2d` is not a segment character.
    [String.raw`Name == "/web\x2dapi"`, "/web-api"],
  ])("reads %s with the value %j", (source, raw) => {
    expect(rawOf(source)).toBe(raw);
  });

  // §1: `Name == "/web-api"` matches `web-api`, and `"/dc1" in Datacenters` tests for `dc1`.
  it.each([
    ['Name == "/web-api"', { Name: "web-api" }, true],
    ['Name == "/web-api"', { Name: "/web-api" }, false],
    ["Name == `/web-api`", { Name: "/web-api" }, true],
    ["Name == `/web-api`", { Name: "web-api" }, false],
    ['"/dc1" in Datacenters', { Datacenters: ["dc1"] }, true],
    ['"/dc1" in Datacenters', { Datacenters: ["/dc1"] }, false],
    ['"/owner" in Meta', { Meta: { owner: "a" } }, true],
    ['"/run" in Status', { Status: "running" }, true],
    ['"/run" in Status', { Status: "run" }, true],
    ['Name == "/a~1b"', { Name: "a/b" }, true],
    ['Name == "/a~0b"', { Name: "a~b" }, true],
    ['Name == "/"', { Name: "/" }, true],
    ['Name == "/a b"', { Name: "/a b" }, true],
    [String.raw`Name == "/web\x2dapi"`, { Name: "/web-api" }, true],
  ])("evaluates %s on %j to %s", (source, value, expected) => {
    expectOutcome(source, value, expected);
  });
});
