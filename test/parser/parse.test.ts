import { describe, expect, it } from "vitest";
import { parse } from "../../src/index.js";
import { syntaxErrorOf } from "../support/errors.js";
import { show } from "../support/show.js";

describe("parse", () => {
  // filter-semantics.md §1: precedence and normalisation (each operator's spelling is in
  // test/semantics/grammar.test.ts).
  it.each([
    ["a == 1 and b == 2 or c == 3", '(or (and (== a "1") (== b "2")) (== c "3"))'],
    ["a == 1 or b == 2 and c == 3", '(or (== a "1") (and (== b "2") (== c "3")))'],
    ["not a == 1 and b == 2", '(and (not (== a "1")) (== b "2"))'],
    ["(a == 1 or b == 2) and c == 3", '(and (or (== a "1") (== b "2")) (== c "3"))'],
    ["a == 1 and (b == 2 and c == 3)", '(and (== a "1") (== b "2") (== c "3"))'],
    ["(a == 1 or b == 2) or c == 3", '(or (== a "1") (== b "2") (== c "3"))'],
    ["not not a == 1", '(== a "1")'],
    ["not not not a == 1", '(not (== a "1"))'],
    ["not (not a == 1)", '(== a "1")'],
    ["not  \n (a == 1)", '(not (== a "1"))'],
    ["  (a == 1)  ", '(== a "1")'],
    ["((a == 1))", '(== a "1")'],
  ])("reads %j as %s", (source, expected) => {
    expect(show(parse(source))).toBe(expected);
  });

  // §1: values — bare words, numbers, strings, pointer rewriting.
  it.each([
    ["Status == running", '(== Status "running")'],
    ["Status == running.now", '(== Status "running.now")'],
    ['Status == a["b c"]', '(== Status "a.b c")'],
    ["Status == Meta/owner", '(== Status "Meta/owner")'],
    ["JobSpecModifyIndex != JobModifyIndex", '(!= JobSpecModifyIndex "JobModifyIndex")'],
    ["Priority == 50", '(== Priority "50")'],
    ["Priority == -5", '(== Priority "-5")'],
    ["Priority == 0.5", '(== Priority "0.5")'],
    ["Priority == `50`", '(== Priority "50")'],
    ['Name == "/web-api"', '(== Name "web-api")'],
    ['"/dc1" in Datacenters', '(in Datacenters "dc1")'],
    ['Name == "/a~1b/c~0d"', '(== Name "a/b/c~d")'],
    ['Name == "/"', '(== Name "/")'],
    ['Name == "/a b"', '(== Name "/a b")'],
    ["Name == `/web-api`", '(== Name "/web-api")'],
    ['Name == ""', '(== Name "")'],
    ['Name == "\\x2fweb"', '(== Name "/web")'],
    ['Name == "tab\\there"', '(== Name "tab\\there")'],
    ['Name == "\\u00e9\\U0001F680"', '(== Name "é🚀")'],
    ['Name == "\\xc3\\xa9"', '(== Name "é")'],
    ['Name == "\\101"', '(== Name "A")'],
    ["Name == `a\r\nb`", '(== Name "a\\nb")'],
    ["Name == `multi\nline`", '(== Name "multi\\nline")'],
    ["Name==\"x\"", '(== Name "x")'],
    ["Name!=x", '(!= Name "x")'],
  ])("reads the value of %j as in %s", (source, expected) => {
    expect(show(parse(source))).toBe(expected);
  });

  // §1: selectors.
  it.each([
    ['Meta["owner"] == x', '(== Meta.owner "x")'],
    ['Meta[ "owner" ] == x', '(== Meta.owner "x")'],
    ["Meta[`web-api`] == x", '(== Meta."web-api" "x")'],
    ['Meta["/not/a/pointer"] == x', '(== Meta./not/a/pointer "x")'],
    ["Items.0 == x", '(== Items.0 "x")'],
    ["Items.0.1 == x", '(== Items.0.1 "x")'],
    ["Items.007 == x", '(== Items.007 "x")'],
    ["Meta/owner == x", '(== Meta/owner "x")'],
    ["a.b_c.D9 == x", '(== a.b_c.D9 "x")'],
    ['"/JobSummary/Summary/web-api/Running" == 3', '(== /JobSummary/Summary/web-api/Running "3")'],
    ['"/a~1b" == 3', '(== /a/b "3")'],
    ['"" == 3', '(== / "3")'],
    ["Meta.in == x", '(== Meta.in "x")'],
    ["Meta.not.and == x", '(== Meta.not.and "x")'],
  ])("reads the selector of %j as in %s", (source, expected) => {
    expect(show(parse(source))).toBe(expected);
  });

  // §1: there are no reserved words; keywords are names wherever a match can be read.
  it.each([
    ["not == 1", '(== not "1")'],
    ["not is empty", "(empty not)"],
    ["not is not empty", "(not-empty not)"],
    ["not in X", '(in X "not")'],
    ["not not in X", '(not (in X "not"))'],
    ["not contains x", '(in not "x")'],
    ["not not contains x", '(not (in not "x"))'],
    ["not in in X", '(not (in X "in"))'],
    ["not is is empty", "(not (empty is))"],
    ["not.x == 1", '(== not.x "1")'],
    ["any == 1", '(== any "1")'],
    ["all is empty", "(empty all)"],
    ["any in X", '(in X "any")'],
    ["and == or", '(== and "or")'],
    ["in in in", '(in in "in")'],
    ["is is nil", "(nil is)"],
    ["empty == empty", '(== empty "empty")'],
    ["Status == and and x == 1", '(and (== Status "and") (== x "1"))'],
    ["android == 1", '(== android "1")'],
    ["any as as x { x == 1 }", '(any as x (== x "1"))'],
  ])("reads %j as %s", (source, expected) => {
    expect(show(parse(source))).toBe(expected);
  });

  // §1 and §7: collections, and where they may stand.
  it.each([
    ['any Datacenters as dc { dc == "dc1" }', '(any Datacenters dc (== dc "dc1"))'],
    ['all Datacenters as dc{dc == "dc1"}', '(all Datacenters dc (== dc "dc1"))'],
    ['any TaskGroups as name, tg { tg.Count == 2 }', '(any TaskGroups name,tg (== tg.Count "2"))'],
    ["any TaskGroups as name, _ { name == web }", '(any TaskGroups name,_ (== name "web"))'],
    ["any TaskGroups as _, tg { tg.Count == 2 }", '(any TaskGroups _,tg (== tg.Count "2"))'],
    ["any TaskGroups as a,b { a == 1 }", '(any TaskGroups a,b (== a "1"))'],
    ['any "/Meta/tags" as t { t == x }', '(any /Meta/tags t (== t "x"))'],
    ["(any X as x { x == 1 })", '(any X x (== x "1"))'],
    ["(any X as x { x == 1 }) and y == 2", '(and (any X x (== x "1")) (== y "2"))'],
    ["not (all X as x { x == 1 })", '(not (all X x (== x "1")))'],
    ["y == 2 or any X as x { x == 1 }", '(or (== y "2") (any X x (== x "1")))'],
    ["y == 2 or z == 3 or all X as x { x == 1 }", '(or (== y "2") (== z "3") (all X x (== x "1")))'],
    ["any X as x { any x.Y as y { y == 1 } }", '(any X x (any x.Y y (== y "1")))'],
    ["any X as x { x == 1 or any x.Y as y { y == 1 } }", '(any X x (or (== x "1") (any x.Y y (== y "1"))))'],
    ["any X as x, x { x == 1 }", '(any X x,x (== x "1"))'],
  ])("reads the collection %j as %s", (source, expected) => {
    expect(show(parse(source))).toBe(expected);
  });

  // §1 and §14: inputs the reference rejects.
  it.each([
    ["", "empty_expression"],
    ["   \n\t ", "empty_expression"],
    ["Status", "unexpected_end"],
    ["Status ==", "unexpected_end"],
    ["== x", "unexpected_token"],
    ["Priority > 5", "unsupported_operator"],
    ["Priority >= 5", "unsupported_operator"],
    ["Priority < 5", "unsupported_operator"],
    ["Priority <= 5", "unsupported_operator"],
    ["a == 1 && b == 2", "unsupported_operator"],
    ["a == 1 || b == 2", "unsupported_operator"],
    ["!a == 1", "unsupported_operator"],
    ["Status = x", "unsupported_operator"],
    ['Status == "running" AND Stop == false', "unexpected_token"],
    ['Status == "running" Or Stop == false', "unexpected_token"],
    ["NOT Status == x", "unexpected_token"],
    ["Status IN x", "unexpected_token"],
    ["(a == 1)and(b == 2)", "missing_whitespace"],
    ["a == 1 and(b == 2)", "missing_whitespace"],
    ["(a == 1)or b == 2", "missing_whitespace"],
    ['"a"in X', "missing_whitespace"],
    ['"a" in"/X"', "missing_whitespace"],
    ['X contains"a"', "missing_whitespace"],
    ['X matches"a"', "missing_whitespace"],
    ['"/X"is empty', "missing_whitespace"],
    ["not(a == 1)", "missing_whitespace"],
    ["any X as x { x == 1 } and y == 2", "unexpected_token"],
    ["y == 2 and any X as x { x == 1 }", "unexpected_token"],
    ["not any X as x { x == 1 }", "unexpected_token"],
    ["any X as x { x == 1 } or y == 2", "unexpected_token"],
    ["any X as _ { x == 1 }", "unexpected_token"],
    ["any X as _, _ { x == 1 }", "unexpected_token"],
    ["anyX as x { x == 1 }", "unexpected_token"],
    ["Name == web-api", "unexpected_character"],
    ["Name == 'web'", "unexpected_character"],
    ["Name\u00a0== x", "unexpected_character"],
    ["ünïcode == x", "unexpected_character"],
    ["_x == 1", "unexpected_token"],
    ["Meta[0] == x", "invalid_index"],
    ["Meta[x] == x", "invalid_index"],
    ['Meta["x" == x', "unclosed_index"],
    ["Meta .x == 1", "unexpected_token"],
    ["Meta. x == 1", "unexpected_token"],
    ["x == 1e3", "invalid_number"],
    ["x == 050", "invalid_number"],
    ["x == 50x", "invalid_number"],
    ["x == 50.", "invalid_number"],
    ["x == 1Status", "invalid_number"],
    ["x == 4d3f2a1b-0000", "invalid_number"],
    ["any X as x { x == 1}", "invalid_number"],
    ["x == .5", "unexpected_token"],
    ["x == +5", "unexpected_character"],
    ["x == --5", "unexpected_character"],
    ['x == "a\\"b"', "invalid_string"],
    ['x == "a\\qb"', "invalid_string"],
    ['x == "\\u12"', "invalid_string"],
    ['x == "\\ud800"', "invalid_string"],
    ['x == "\\400"', "invalid_string"],
    ['x == "\\\'"', "invalid_string"],
    ['x == "line\nbreak"', "invalid_string"],
    ['x == "open', "unterminated_string"],
    ["x == `open", "unterminated_string"],
    ["(a == 1", "unmatched_parenthesis"],
    ["a == 1)", "unmatched_parenthesis"],
    ["((a == 1) or b == 2", "unmatched_parenthesis"],
    ['"abc" == x', "invalid_selector"],
    ["5 == x", "invalid_selector"],
    ['x in "abc"', "invalid_selector"],
    ["x in `/abc`", "invalid_selector"],
  ])("rejects %j with %s", (source, code) => {
    expect(syntaxErrorOf(source).code).toBe(code);
  });
});

describe("syntax error positions", () => {
  it.each([
    // source, code, span start, span end, line, column
    ["Status == running AND x == 1", "unexpected_token", 18, 21, 1, 19],
    ["Status ==", "unexpected_end", 9, 9, 1, 10],
    ["Name == web-api", "unexpected_character", 11, 12, 1, 12],
    ["x == 1}", "invalid_number", 5, 7, 1, 6],
    ['x == "a\\qb"', "invalid_string", 7, 9, 1, 8],
    ["(a == 1", "unmatched_parenthesis", 0, 1, 1, 1],
    ["a == 1 and\n(b == 2 or\n c === 3)", "unsupported_operator", 27, 28, 3, 6],
    ['Name == "🚀" andx', "unexpected_token", 13, 17, 1, 13],
    ['Name == "🚀🚀"\n  and x ≠ 1', "unexpected_character", 23, 24, 2, 9],
    ["\tStatus == x AND y", "unexpected_token", 13, 16, 1, 14],
  ])("reports %j as %s at [%i, %i), line %i, column %i", (source, code, start, end, line, column) => {
    const error = syntaxErrorOf(source);
    const first = error.diagnostics[0]!;
    expect(first.code).toBe(code);
    expect(first.span).toEqual({ start, end });
    expect([first.line, first.column]).toEqual([line, column]);
    expect([error.line, error.column, error.span]).toEqual([line, column, { start, end }]);
  });

  it.each([
    ['Name == "/web" and Name == "\\q"', "pointer_literal"],
    ['Status == null and Name == "\\q"', "null_literal"],
  ])("takes the code and span of %j from its error, not from the %s warning before it", (source, warning) => {
    const error = syntaxErrorOf(source);
    expect(error.diagnostics.map((d) => [d.code, d.severity])).toEqual([[warning, "warning"], ["invalid_string", "error"]]);
    expect([error.code, error.span]).toEqual(["invalid_string", { start: 28, end: 30 }]);
  });

  it("shows the source line with carets under the spot", () => {
    const error = syntaxErrorOf('Status == "running" AND Stop == false');
    expect(error.message).toBe(
      [
        '1:21: unexpected "AND" after a complete expression',
        '    Status == "running" AND Stop == false',
        "                        ^^^",
        '    hint: keywords are lower-case: write "and", not "AND"',
      ].join("\n"),
    );
  });

  it("shows only the line of the spot in a multi-line filter", () => {
    const error = syntaxErrorOf('Status == "running"\n  and Priority >= 50\n  and Stop == false');
    expect(error.message.split("\n").slice(0, 3)).toEqual([
      '2:16: ">=" is not an operator: the filter language has no ordering comparisons',
      "      and Priority >= 50",
      "                   ^^",
    ]);
  });

  it("lists every lexical problem it finds in one pass", () => {
    const error = syntaxErrorOf("a == 'x' and b == 1e3 and c >= 2");
    expect(error.diagnostics.map((d) => d.code)).toEqual([
      "unexpected_character",
      "unexpected_character",
      "invalid_number",
      "unsupported_operator",
    ]);
  });

  it.each([
    ['Status == "running" AND Stop == false', 'keywords are lower-case: write "and", not "AND"'],
    ["Name == web-api", 'quote the value: "web-api"'],
    ["Priority >= 50", 'use "==", "!=", "in" or "matches", or compare on the client'],
    ["a == 1 && b == 2", 'write "and"'],
    ["x == 1}", 'put a space between 1 and "}"'],
    ["y == 2 and any X as x { x == 1 }", 'a collection can be combined with "and" or negated only inside parentheses: (any … { … })'],
    ["(a == 1)and(b == 2)", 'write " and " with spaces around it'],
  ])("suggests a fix for %j", (source, suggestion) => {
    expect(syntaxErrorOf(source).diagnostics[0]!.suggestion).toBe(suggestion);
  });
});

describe("AST spans", () => {
  it("records the span of every node", () => {
    const source = 'not Status == "x" or ("a" in Meta.tags and (any L as v { v is empty }))';
    const ast = parse(source);
    const text = (span: { start: number; end: number }) => source.slice(span.start, span.end);
    expect(ast.kind).toBe("Or");
    if (ast.kind !== "Or") return;
    const [left, right] = ast.operands;
    expect(text(ast.span)).toBe(source);
    expect(text(left!.span)).toBe('not Status == "x"');
    expect(text(right!.span)).toBe('("a" in Meta.tags and (any L as v { v is empty }))');
    if (left!.kind !== "Not" || right!.kind !== "And") throw new Error("unexpected shape");
    expect(text(left!.operand.span)).toBe('Status == "x"');
    const [inMatch, collection] = right!.operands;
    if (inMatch!.kind !== "Match" || !("value" in inMatch!)) throw new Error("unexpected shape");
    expect(text(inMatch!.selector.span)).toBe("Meta.tags");
    expect(text(inMatch!.value.span)).toBe('"a"');
    expect(text(collection!.span)).toBe("(any L as v { v is empty })");
  });
});
