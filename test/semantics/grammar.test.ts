/**
 * The grammar of filter-semantics.md §1: operators, precedence, keywords, whitespace, bare words,
 * numbers and collections, checked on the AST (as an S-expression) or on the syntax error.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../src/index.js";
import { expectSyntaxError, shape } from "./support.js";

describe("operators", () => {
  // §1 "Operators": the twelve spellings; contains/not contains are in/not in with operands swapped.
  it.each([
    ['Status == "running"', '(== Status "running")'],
    ['Status != "running"', '(!= Status "running")'],
    ['"dc1" in Datacenters', '(in Datacenters "dc1")'],
    ['"dc1" not in Datacenters', '(not-in Datacenters "dc1")'],
    ['Datacenters contains "dc1"', '(in Datacenters "dc1")'],
    ['Datacenters not contains "dc1"', '(not-in Datacenters "dc1")'],
    ['Name matches "^web"', '(matches Name "^web")'],
    ['Name not matches "^web"', '(not-matches Name "^web")'],
    ["Meta is empty", "(empty Meta)"],
    ["Meta is not empty", "(not-empty Meta)"],
    ["Meta is nil", "(nil Meta)"],
    ["Meta is not nil", "(not-nil Meta)"],
  ])("parses %s as %s", (source, expected) => {
    expect(shape(source)).toBe(expected);
  });

  // §1 "Operators": contains is recorded as an In match with its spelling, for the printer.
  it.each([
    ['Datacenters contains "dc1"', "In", "contains"],
    ['"dc1" in Datacenters', "In", "in"],
    ['Datacenters not contains "dc1"', "NotIn", "contains"],
    ['"dc1" not in Datacenters', "NotIn", "in"],
  ])("records %s as %s spelled %s", (source, operator, spelling) => {
    const ast = parse(source);
    expect(ast.kind === "Match" && ast.operator).toBe(operator);
    expect(ast.kind === "Match" && "spelling" in ast && ast.spelling).toBe(spelling);
  });

  // §1 "Operators": there are no ordering or C-style boolean operators.
  it.each([
    ["Priority >= 50", { start: 9, end: 11 }],
    ["Priority > 50", { start: 9, end: 10 }],
    ["Priority < 50", { start: 9, end: 10 }],
    ["Priority <= 50", { start: 9, end: 11 }],
    ["Priority = 50", { start: 9, end: 10 }],
    ["a == 1 && b == 2", { start: 7, end: 9 }],
    ["a == 1 || b == 2", { start: 7, end: 9 }],
    ["!(a == 1)", { start: 0, end: 1 }],
  ])("rejects %s with unsupported_operator at %j", (source, span) => {
    expectSyntaxError(source, { code: "unsupported_operator", span, line: 1, column: span.start + 1 });
  });
});

describe("precedence and folding", () => {
  // §1 "Precedence": match, then not, then and, then or; chains are flat (ast.ts); `not not` folds.
  it.each([
    ["a == 1 or b == 2 and c == 3", '(or (== a "1") (and (== b "2") (== c "3")))'],
    ["a == 1 and b == 2 or c == 3", '(or (and (== a "1") (== b "2")) (== c "3"))'],
    ["not a == 1 and b == 2", '(and (not (== a "1")) (== b "2"))'],
    ["not a == 1 or not b == 2", '(or (not (== a "1")) (not (== b "2")))'],
    ["a == 1 and b == 2 and c == 3", '(and (== a "1") (== b "2") (== c "3"))'],
    ["a == 1 or b == 2 or c == 3", '(or (== a "1") (== b "2") (== c "3"))'],
    ["a == 1 and (b == 2 and c == 3)", '(and (== a "1") (== b "2") (== c "3"))'],
    ["(a == 1 or b == 2) and c == 3", '(and (or (== a "1") (== b "2")) (== c "3"))'],
    ["not (a == 1 or b == 2)", '(not (or (== a "1") (== b "2")))'],
    ["not not a == 1", '(== a "1")'],
    ["not (not a == 1)", '(== a "1")'],
    ["not (not (a == 1))", '(== a "1")'],
    ["not not not a == 1", '(not (== a "1"))'],
    ["not (not (not a == 1))", '(not (== a "1"))'],
    ["not not (a == 1 and b == 2)", '(and (== a "1") (== b "2"))'],
    ["((a == 1))", '(== a "1")'],
    ["(not a == 1)", '(not (== a "1"))'],
    ["not (not a == 1 and b == 2)", '(not (and (not (== a "1")) (== b "2")))'],
    ["any X as x { not not x == 1 }", '(any X x (== x "1"))'],
    ["not (not (any X as x { x == 1 }))", '(any X x (== x "1"))'],
  ])("parses %s as %s", (source, expected) => {
    expect(shape(source)).toBe(expected);
  });
});

describe("whitespace", () => {
  // §1 "Whitespace": only space, tab, CR and LF, allowed before and after the expression;
  // `==` and `!=` need none, the word operators accept any amount.
  it.each([
    [' \t\r\n Status == "running" \n', '(== Status "running")'],
    [' ( a == 1 ) ', '(== a "1")'],
    ['Name=="x"', '(== Name "x")'],
    ['Name!="x"', '(!= Name "x")'],
    ['Name== "x"', '(== Name "x")'],
    ['Name =="x"', '(== Name "x")'],
    ['Name==x', '(== Name "x")'],
    ['Name==-5', '(== Name "-5")'],
    ['Status\n==\n"running"', '(== Status "running")'],
    ["not  \n (a == 1)", '(not (== a "1"))'],
    ["a == 1\rand\tb == 2", '(and (== a "1") (== b "2"))'],
    ["a == 1\r\nor\r\nb == 2", '(or (== a "1") (== b "2"))'],
    ["Meta is\n\tnot\r\nempty", "(not-empty Meta)"],
    ["Meta  is  nil", "(nil Meta)"],
    ['"dc1"\nin\nDatacenters', '(in Datacenters "dc1")'],
    ['"dc1" not\tin Datacenters', '(not-in Datacenters "dc1")'],
    ['Datacenters not\ncontains "dc1"', '(not-in Datacenters "dc1")'],
  ])("accepts %j as %s", (source, expected) => {
    expect(shape(source)).toBe(expected);
  });

  // §1 "Whitespace": NBSP (and every other space that is not [ \t\r\n]) is a parse error.
  it.each([
    ['Status ==\u00a0"running"', 9],
    ['\u00a0Status == "running"', 0],
    ['Status == "running"\u00a0', 19],
    ['Status ==\u2003"running"', 9],
    ['Status ==\f"running"', 9],
    ['Status ==\v"running"', 9],
    ['Status == "running"\u00a0and a == 1', 19],
  ])("rejects %j with unexpected_character at %i", (source, start) => {
    expectSyntaxError(source, { code: "unexpected_character", span: { start, end: start + 1 }, line: 1, column: start + 1 });
  });

  // §1: "Empty or whitespace-only input is a parse error."
  it.each(["", " ", "   ", " \t\r\n ", "\n\n"])("rejects %j with empty_expression", (source) => {
    expectSyntaxError(source, { code: "empty_expression" });
  });
});

describe("keywords", () => {
  // §1 "Keywords are lower-case only": an upper-case keyword is an identifier where none may stand.
  it.each([
    ['Status == "running" AND Stop == false', { start: 20, end: 23 }],
    ['Status == "running" OR Stop == false', { start: 20, end: 22 }],
    ['Status == "running" And Stop == false', { start: 20, end: 23 }],
    ["Meta IS EMPTY", { start: 5, end: 7 }],
    ['Name MATCHES "x"', { start: 5, end: 12 }],
    ['"a" IN Datacenters', { start: 4, end: 6 }],
    ['Datacenters CONTAINS "a"', { start: 12, end: 20 }],
  ])("rejects %s with unexpected_token at %j", (source, span) => {
    expectSyntaxError(source, { code: "unexpected_token", span });
  });

  // §1 "Keywords are lower-case only": `NOT` is not the `not` keyword.
  it.each(["NOT Stop == true", "Not Stop == true"])("rejects %s", (source) => {
    expectSyntaxError(source, { code: "unexpected_token" });
  });

  // §1 "They need whitespace around them": `(a == 1)and(b == 2)` and `not(a == 1)` are parse errors
  // (errors.ts names both as missing_whitespace); the span starts at the keyword.
  it.each([
    ["(a == 1)and(b == 2)", 8],
    ["(a == 1) and(b == 2)", 9],
    ["(a == 1)and (b == 2)", 8],
    ["(a == 1)or(b == 2)", 8],
    ["not(a == 1)", 0],
    ["not not(a == 1)", 4],
    ['a == "x"and b == 1', 8],
    ['"dc1"in Datacenters', 5],
    ['Datacenters contains"dc1"', 12],
    ['Name matches"x"', 5],
  ])("rejects %s with missing_whitespace at %i", (source, start) => {
    expectSyntaxError(source, { code: "missing_whitespace", start, line: 1, column: start + 1 });
  });

  // §1 grammar: `Ident <- [a-zA-Z] [a-zA-Z0-9_/]*` reserves no word, and the PEG backtracks, so a
  // keyword spelled where a selector or a bare value is expected is one.
  it.each([
    ["Status == and", '(== Status "and")'],
    ["Status == not", '(== Status "not")'],
    ["and == 1", '(== and "1")'],
    ["any == 1", '(== any "1")'],
    ['"x" in in', '(in in "x")'],
    // Identifiers that merely start with a keyword are identifiers.
    ["Status == notice", '(== Status "notice")'],
    ["Status == index and order == 1", '(and (== Status "index") (== order "1"))'],
    ["android == 1 or isEmpty is empty", '(or (== android "1") (empty isEmpty))'],
    ["notx == 1", '(== notx "1")'],
    ["anything in allow", '(in allow "anything")'],
    ['Name matches matchesx', '(matches Name "matchesx")'],
    ['any Datacenters as asx { asx == "dc1" }', '(any Datacenters asx (== asx "dc1"))'],
    ['all Datacenters as nil { nil == "dc1" }', '(all Datacenters nil (== nil "dc1"))'],
  ])("parses the keyword-named %s as %s", (source, expected) => {
    expect(shape(source)).toBe(expected);
  });
});

describe("bare words", () => {
  // §1 "Bare words are values": Value tries Selector first, so `.` and `/` may appear; a selector on
  // the right-hand side is never dereferenced.
  it.each([
    ["Status == running", '(== Status "running")'],
    ["Status == running.now", '(== Status "running.now")'],
    ["Status == a/b", '(== Status "a/b")'],
    ["Status == running.0", '(== Status "running.0")'],
    ["Status == true", '(== Status "true")'],
    ["Status matches web", '(matches Status "web")'],
    ["web in Name", '(in Name "web")'],
    ["Name contains web", '(in Name "web")'],
    ["JobSpecModifyIndex != JobModifyIndex", '(!= JobSpecModifyIndex "JobModifyIndex")'],
  ])("parses %s as %s", (source, expected) => {
    expect(shape(source)).toBe(expected);
  });

  // §1 "Bare words are values": `Name == web-api` is a parse error (`-` starts no token).
  it("rejects Name == web-api at the hyphen", () => {
    expectSyntaxError("Name == web-api", { code: "unexpected_character", span: { start: 11, end: 12 }, line: 1, column: 12 });
  });
});

describe("numbers", () => {
  // §1 "Numbers": `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, kept as text, followed by whitespace, `)` or EOF.
  it.each([
    ["Priority == 50", '(== Priority "50")'],
    ["Priority == -5", '(== Priority "-5")'],
    ["Priority == 0", '(== Priority "0")'],
    ["Priority == -0", '(== Priority "-0")'],
    ["Priority == 0.5", '(== Priority "0.5")'],
    ["Priority == 10.250", '(== Priority "10.250")'],
    ["Priority == -0.0", '(== Priority "-0.0")'],
    ["(Priority == 50)", '(== Priority "50")'],
    ["Priority == 50\n", '(== Priority "50")'],
    ["Priority == 50\tand x == 1", '(and (== Priority "50") (== x "1"))'],
    ["(Priority == 50) and x == 1", '(and (== Priority "50") (== x "1"))'],
    ['50 in Tags', '(in Tags "50")'],
  ])("parses %s as %s", (source, expected) => {
    expect(shape(source)).toBe(expected);
  });

  // §1 "Numbers": anything else after a number is `Invalid number literal`.
  it.each([
    ["Priority == 1e3", 12],
    ["Priority == 050", 12],
    ["Priority == 50x", 12],
    ["Priority == 50.", 12],
    ["Priority == 5.5.5", 12],
    ["Priority == 1.5e3", 12],
    ["Priority == 0x32", 12],
    ["Priority == 0o62", 12],
    ["Priority == 0b110010", 12],
    ["Priority == 1_000", 12],
    ["Priority == 50}", 12],
    ["Priority == 50,", 12],
    ["Priority == 1and x == 1", 12],
    ["Name == 1Status", 8],
    ["ID == 5d2c0d8e-9b1c-4c55-8f7e-2f6a3b1c0d9e", 6],
    ["any Datacenters as x { x == 1}", 28],
  ])("rejects %s with invalid_number at %i", (source, start) => {
    expectSyntaxError(source, { code: "invalid_number", start, line: 1, column: start + 1 });
  });

  // §1 "Numbers": `.5`, `+5` and `--5` are "no match found" errors.
  it.each([
    ["Priority == .5", "unexpected_token", 12],
    ["Priority == +5", "unexpected_character", 12],
    ["Priority == --5", "unexpected_character", 12],
    ["Priority == -", "unexpected_character", 12],
  ])("rejects %s with %s at %i", (source, code, start) => {
    expectSyntaxError(source, { code, start });
  });
});

describe("structure errors", () => {
  // §1 Paren: "Unmatched parentheses".
  it.each([
    ["(a == 1", { start: 0, end: 1 }],
    ["((a == 1)", { start: 0, end: 1 }],
    ["(a == 1 and (b == 2)", { start: 0, end: 1 }],
    ["a == 1)", { start: 6, end: 7 }],
    ["(a == 1))", { start: 8, end: 9 }],
  ])("rejects %s with unmatched_parenthesis at %j", (source, span) => {
    expectSyntaxError(source, { code: "unmatched_parenthesis", span });
  });

  // §1 grammar: a token the grammar cannot take here.
  it.each([
    ["()", 1],
    ["( )", 2],
    ["a == 1 b == 2", 7],
    ["Meta is foo", 8],
    ['Name == "a" "b"', 12],
  ])("rejects %s with unexpected_token at %i", (source, start) => {
    expectSyntaxError(source, { code: "unexpected_token", start });
  });

  // §1 grammar: the source ends where more is needed.
  it.each(["a ==", "Status", "not", "a == 1 and", "a == 1 or", "Meta is", "Meta is not", '"dc1" in', "(", "any Datacenters as dc {"])(
    "rejects %j with unexpected_end",
    (source) => {
      expectSyntaxError(source, { code: "unexpected_end", start: source.length });
    },
  );
});

describe("collections", () => {
  // §1 "Collections" and §7: `any|all Selector as bindings { Or }`, only as an `Or` alternative.
  it.each([
    ['any Datacenters as dc { dc == "dc1" }', '(any Datacenters dc (== dc "dc1"))'],
    ['all Datacenters as dc { dc == "dc1" }', '(all Datacenters dc (== dc "dc1"))'],
    ["any Datacenters as i, dc { i == 0 }", '(any Datacenters i,dc (== i "0"))'],
    ["any Datacenters as i,dc{i == 0 }", '(any Datacenters i,dc (== i "0"))'],
    ['any Meta as k, _ { k == "owner" }', '(any Meta k,_ (== k "owner"))'],
    ['any Meta as _, v { v == "x" }', '(any Meta _,v (== v "x"))'],
    ['any Datacenters as dc {dc == "dc1"}', '(any Datacenters dc (== dc "dc1"))'],
    ['any Datacenters as dc, dc { dc == "dc1" }', '(any Datacenters dc,dc (== dc "dc1"))'],
    ['any "/Datacenters" as dc { dc == "dc1" }', '(any /Datacenters dc (== dc "dc1"))'],
    ['( any Datacenters as dc { dc == "dc1" } )', '(any Datacenters dc (== dc "dc1"))'],
    ['(any Datacenters as dc { dc == "dc1" }) and Stop == false', '(and (any Datacenters dc (== dc "dc1")) (== Stop "false"))'],
    ['not (all Datacenters as dc { dc == "dc1" })', '(not (all Datacenters dc (== dc "dc1")))'],
    ['Stop == false or any Datacenters as dc { dc == "dc1" }', '(or (== Stop "false") (any Datacenters dc (== dc "dc1")))'],
    ["a == 1 and b == 2 or any X as x { x == 1 }", '(or (and (== a "1") (== b "2")) (any X x (== x "1")))'],
    ['any Datacenters as dc { dc == "dc1" or dc == "dc2" }', '(any Datacenters dc (or (== dc "dc1") (== dc "dc2")))'],
    ['any Groups as g { all g.Tags as t { t == "a" } }', '(any Groups g (all g.Tags t (== t "a")))'],
  ])("parses %s as %s", (source, expected) => {
    expect(shape(source)).toBe(expected);
  });

  // §1 "Collections": "`any … {…} and X` and `not any …` are parse errors".
  it.each([
    ['any Datacenters as dc { dc == "dc1" } and Stop == false', "and"],
    ['any Datacenters as dc { dc == "dc1" } or Stop == false', "or"],
  ])("rejects %s at the %s after the collection", (source, word) => {
    const start = source.indexOf(`} ${word}`) + 2;
    expectSyntaxError(source, { code: "unexpected_token", span: { start, end: start + word.length } });
  });

  // §1 "Collections": a collection cannot be negated or be the left/right of `and` without parentheses.
  it.each([
    'not any Datacenters as dc { dc == "dc1" }',
    'Stop == false and any Datacenters as dc { dc == "dc1" }',
    'ANY Datacenters as dc { dc == "dc1" }',
    'any Datacenters dc { dc == "dc1" }',
    "any Datacenters as dc { }",
    'any Datacenters as _ { x == "a" }',
    'any Datacenters as _, _ { x == "a" }',
    'any Datacenters as dc, { dc == "a" }',
    'any Datacenters as _x { _x == "a" }',
  ])("rejects %s", (source) => {
    expect(() => parse(source)).toThrow();
    expectSyntaxError(source, { code: "unexpected_token" });
  });
});
