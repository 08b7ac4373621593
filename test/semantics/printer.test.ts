/**
 * The printer against the traps of filter-semantics.md §1: printing an AST and parsing the text
 * again must give the same AST (spans aside), so printed values must survive pointer rewriting,
 * Unquote, CR dropping in backticks, number lexing and keyword spelling.
 */
import { describe, expect, it } from "vitest";
import { parse, print } from "../../src/index.js";
import { withoutSpans } from "../support/show.js";

describe("print then parse gives the same tree", () => {
  it.each([
    // Operators and structure.
    'Status == "running"',
    'Status != "running"',
    '"dc1" in Datacenters',
    'Datacenters contains "dc1"',
    '"dc1" not in Datacenters',
    'Datacenters not contains "dc1"',
    'Name matches "^web"',
    'Name not matches "^web"',
    "Meta is empty",
    "Meta is not empty",
    "Meta is nil",
    "Meta is not nil",
    "a == 1 or b == 2 and c == 3",
    "(a == 1 or b == 2) and c == 3",
    "not (a == 1 or b == 2)",
    "not a == 1 and not (b == 2 and c == 3)",
    'not (any Datacenters as dc { dc == "dc1" })',
    '(any Datacenters as dc { dc == "dc1" }) and Stop == false',
    'Stop == false or any Datacenters as dc { dc == "dc1" }',
    '(any Datacenters as dc { dc == "dc1" }) or Stop == false',
    'a == 1 and (b == 2 or any X as x { x == "a" })',
    'any Groups as g { all g.Tags as t { t == "a" } }',
    "any Meta as k, v { k == v }",
    "any Meta as k, _ { k == 1 }",
    "any Meta as _, v { v == 1 }",
    // §1 pointer values: the raw value must not be re-read as a pointer, or read as a plain string.
    'Name == "/web-api"',
    "Name == `/web-api`",
    'Name == "/a~1b"',
    'Name == "/~01"',
    'Name == "/"',
    'Name == "/a b"',
    String.raw`Name == "/web\x2dapi"`,
    // §1 strings: quotes, backticks, escapes, CR (dropped from backticks), raw bytes.
    String.raw`Name == "a\x22b"`,
    'Name == `a"b`',
    String.raw`Name == "a\x60b\x22c"`,
    String.raw`Name == "a\nb"`,
    "Name == `a\nb`",
    String.raw`Name == "a\rb"`,
    "Name == `a\r\nb`",
    String.raw`Name == "tab\there"`,
    String.raw`Name == "\x00"`,
    String.raw`Name == "\xff"`,
    String.raw`Name == "\xc3\xa9"`,
    String.raw`Name == "\u00e9"`,
    'Name == "🚀"',
    'Name == ""',
    // §1 numbers and bare words: values that are not numbers must not be printed as numbers.
    "Priority == 50",
    "Priority == -0.50",
    'Priority == "050"',
    'Priority == "1e3"',
    'Priority == "+5"',
    'Priority == ".5"',
    'Priority == "50 "',
    "Status == running.now",
    "Status == and",
    'Status == "a-b"',
    'Status == "two words"',
    // §1 selectors.
    'Meta["web-api"] == 1',
    'Meta["a.b c"] == 1',
    String.raw`Meta["a\x22b"] == 1`,
    String.raw`Meta["a\x60b\x22c"] == 1`,
    'Meta[""] == 1',
    'Meta["/web-api"] == 1',
    'Meta["ünï"] == 1',
    String.raw`Meta["\n"] == 1`,
    '"/Meta/a~1b" == 1',
    '"/Meta/a~0b" == 1',
    '"/Meta/ünï" == 1',
    "Datacenters.0 == 1",
    "Meta/owner == 1",
    '"x" in "/Datacenters"',
  ])("%s", (source) => {
    const tree = parse(source);
    const printed = print(tree);
    expect(withoutSpans(parse(printed)), printed).toEqual(withoutSpans(tree));
    // Printing is stable.
    expect(print(parse(printed))).toBe(printed);
  });
});
