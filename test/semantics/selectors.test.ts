/**
 * Selectors (filter-semantics.md §1 "Selectors" and §2): how they are written and how they are
 * resolved against the value, in map mode.
 */
import { describe, expect, it } from "vitest";
import { parse, type Expression } from "../../src/index.js";
import { expectOutcome, expectSyntaxError } from "./support.js";

function selectorOf(source: string): { form: string; path: readonly string[] } {
  const ast: Expression = parse(source);
  if (ast.kind !== "Match") throw new Error(`${source} is not a match`);
  return { form: ast.selector.form, path: ast.selector.path };
}

describe("selector syntax", () => {
  // §1 "Selectors": segments `.Ident`, `["string"]`, `` [`raw`] `` (inner whitespace and Go escapes
  // allowed), `.123`; `/` is an identifier character; the JSON-pointer form `"/a/b"`.
  it.each([
    ['Meta.owner == "x"', "Bexpr", ["Meta", "owner"]],
    ['Meta["owner"] == "x"', "Bexpr", ["Meta", "owner"]],
    ['Meta[`owner`] == "x"', "Bexpr", ["Meta", "owner"]],
    ['Meta[ "owner" ] == "x"', "Bexpr", ["Meta", "owner"]],
    ['Meta[\n"owner"\t] == "x"', "Bexpr", ["Meta", "owner"]],
    ['Meta["web-api"] == "x"', "Bexpr", ["Meta", "web-api"]],
    ['Meta["a.b c"] == "x"', "Bexpr", ["Meta", "a.b c"]],
    [String.raw`Meta["\x41\u00e9"] == "x"`, "Bexpr", ["Meta", "Aé"]],
    ['Meta["ünï"] == "x"', "Bexpr", ["Meta", "ünï"]],
    ['Meta[""] == "x"', "Bexpr", ["Meta", ""]],
    // An index is a string literal, not a value: no JSON-pointer rewriting inside `[...]`.
    ['Meta["/web-api"] == "x"', "Bexpr", ["Meta", "/web-api"]],
    ['Datacenters.0 == "x"', "Bexpr", ["Datacenters", "0"]],
    ['Datacenters.10.x == "x"', "Bexpr", ["Datacenters", "10", "x"]],
    ['Meta/owner == "x"', "Bexpr", ["Meta/owner"]],
    ['a/b/c.d/e == "x"', "Bexpr", ["a/b/c", "d/e"]],
    ['a1_B == "x"', "Bexpr", ["a1_B"]],
    ['JobSummary.Summary["web-api"].Running == 3', "Bexpr", ["JobSummary", "Summary", "web-api", "Running"]],
    ['"/Meta/owner" == "x"', "Pointer", ["Meta", "owner"]],
    ['"/Meta/a~1b" == "x"', "Pointer", ["Meta", "a/b"]],
    ['"/Meta/a~0b" == "x"', "Pointer", ["Meta", "a~b"]],
    ['"/JobSummary/Summary/web-api/Running" == 3', "Pointer", ["JobSummary", "Summary", "web-api", "Running"]],
    ['"x" in "/Datacenters"', "Pointer", ["Datacenters"]],
    ['"/Meta/ünï" is empty', "Pointer", ["Meta", "ünï"]],
    ["Meta[`a\r\nb`] is empty", "Bexpr", ["Meta", "a\nb"]],
    ['"/Meta/~01" is empty', "Pointer", ["Meta", "~1"]],
  ])("reads the selector of %j as %s %j", (source, form, path) => {
    expect(selectorOf(source)).toEqual({ form, path });
  });

  // §1 "Selectors": `[0]` is `Invalid index`; a missing `]` is `Unclosed index expression`.
  it.each([
    ['Datacenters[0] == "x"', "invalid_index", 12],
    ['Meta[owner] == "x"', "invalid_index", 5],
    ['Meta[] == "x"', "invalid_index", 5],
    ['Meta["owner" == "x"', "unclosed_index", 13],
    // At the end of the filter the open "[" itself is pointed at, as an unclosed "(" is.
    ['Meta["owner"', "unclosed_index", 4],
    ['Datacenters[x] == "x"', "invalid_index", 12],
  ])("rejects %s with %s at %i", (source, code, start) => {
    expectSyntaxError(source, { code, start, line: 1, column: start + 1 });
  });

  // §1 "Selectors": an identifier is ASCII only and starts with a letter.
  it.each([
    ["ünïcode == 1", "unexpected_character", { start: 0, end: 1 }],
    ["Meta.ünï == 1", "unexpected_character", { start: 5, end: 6 }],
    ["Meta.-x == 1", "unexpected_character", { start: 5, end: 6 }],
    ["_x == 1", "unexpected_token", { start: 0, end: 1 }],
  ])("rejects %s with %s at %j", (source, code, span) => {
    expectSyntaxError(source, { code, span });
  });

  // §1 "Selectors": pointer segments allow `\pL\pN-_.~:|` but not spaces or empty segments; a
  // quoted string where a selector is required and that is not a pointer is `Invalid selector`.
  it.each([
    ['"/a b" == 1', { start: 0, end: 6 }],
    ['"/" == 1', { start: 0, end: 3 }],
    ['"/Meta//owner" == 1', { start: 0, end: 14 }],
    ['"Status" == "running"', { start: 0, end: 8 }],
    ['"dc1" in "Datacenters"', { start: 9, end: 22 }],
    ['"dc1" not in "/a b"', { start: 13, end: 19 }],
    ["`/Meta` == 1", { start: 0, end: 7 }],
  ])("rejects %s with invalid_selector at %j", (source, span) => {
    expectSyntaxError(source, { code: "invalid_selector", span });
  });
});

const job = {
  Name: "web-api",
  Status: "running",
  Priority: 50,
  Stop: false,
  Multiregion: null,
  Datacenters: ["dc1", "dc2"],
  Meta: { owner: "team-a", "web-api": "yes", "a/b": "slash", "a~b": "tilde", "a.b c": "odd", ünï: "u", "": "blank", "/web-api": "slashed" },
  "Meta/owner": "top-level key with a slash",
  JobSummary: { Summary: { "web-api": { Running: 3 } } },
  Items: [{ a: 1 }, { b: 2 }],
  Codes: { "404": "not found" },
};

describe("selector lookup", () => {
  // §2: maps by exact, case-sensitive key; slices by integer segment; `/` in identifiers is a key character.
  it.each([
    ['Meta.owner == "team-a"', true],
    ['Meta["owner"] == "team-a"', true],
    ['Meta[`owner`] == "team-a"', true],
    ['Meta["web-api"] == "yes"', true],
    ['Meta["a/b"] == "slash"', true],
    ['Meta["a.b c"] == "odd"', true],
    ['Meta["ünï"] == "u"', true],
    ['Meta[""] == "blank"', true],
    ['Meta["/web-api"] == "slashed"', true],
    ['Meta/owner == "top-level key with a slash"', true],
    ['Datacenters.0 == "dc1"', true],
    ['Datacenters.1 == "dc2"', true],
    ['Datacenters["1"] == "dc2"', true],
    ['JobSummary.Summary["web-api"].Running == 3', true],
    ['Items.0.a == 1', true],
    ['Codes.404 == "not found"', true],
    ['"/Codes/404" == "not found"', true],
    ['"/Meta/owner" == "team-a"', true],
    ['"/Meta/a~1b" == "slash"', true],
    ['"/Meta/a~0b" == "tilde"', true],
    ['"/Meta/ünï" == "u"', true],
    ['"/JobSummary/Summary/web-api/Running" == 3', true],
    ['"/Datacenters/1" == "dc2"', true],
    ['"dc2" in "/Datacenters"', true],
    // Keys are compared exactly and case-sensitively: a wrong case under a map is a missing last key.
    ['Meta.Owner == "team-a"', false],
    ['Meta.Owner != "team-a"', true],
  ])("evaluates %s to %s", (source, expected) => {
    expectOutcome(source, job, expected);
  });

  // §2 "Slice/array": out of range is an error, and so are negative or non-numeric segments;
  // "Anything else … when more segments remain: invalid value kind".
  it.each([
    ['Datacenters.2 == "x"', "index_out_of_range"],
    ['Datacenters.2 is nil', "index_out_of_range"],
    ['Datacenters.2 is empty', "index_out_of_range"],
    ['Datacenters["-1"] == "x"', "index_out_of_range"],
    ['Datacenters.x == "x"', "index_out_of_range"],
    ['"/Datacenters/7" == "x"', "index_out_of_range"],
    ['Status.length == 1', "invalid_path"],
    ['Priority.x == 1', "invalid_path"],
    ['Stop.x == 1', "invalid_path"],
    ['Multiregion.Strategy.OnFailure == "x"', "invalid_path"],
    ['Datacenters.0.x == "x"', "invalid_path"],
    ['meta.owner == "team-a"', "missing_key"],
  ])("evaluates %s to the error %s", (source, expected) => {
    expectOutcome(source, job, expected);
  });
});

describe("keys a JS object inherits are not keys", () => {
  // §2 "Map: the key must exist, compared exactly": inherited JS properties (prototype members,
  // an array's length) are not map keys or list indexes.
  const value = {
    Meta: { owner: "team-a" },
    Datacenters: ["dc1", "dc2"],
    Own: JSON.parse('{"__proto__": "own", "constructor": "mine"}') as unknown,
  };
  it.each([
    ['Meta.toString == "x"', false],
    ["Meta.toString is nil", true],
    ["Meta.constructor is nil", true],
    ['Meta.hasOwnProperty != "x"', true],
    ['Meta["__proto__"] is nil', true],
    ['"toString" in Meta', false],
    ['"constructor" in Meta', false],
    ['"__proto__" in Meta', false],
    ['toString == "x"', "missing_key"],
    ["constructor is nil", "missing_key"],
    ['Datacenters.length == 2', "index_out_of_range"],
    ['Datacenters["length"] is nil', "index_out_of_range"],
    ['"length" in Datacenters', false],
    ['Own["__proto__"] == "own"', true],
    ['"__proto__" in Own', true],
    ['Own.constructor == "mine"', true],
    ['any Meta as k { k == "toString" }', false],
  ])("%s gives %s", (source, expected) => {
    expectOutcome(source, value, expected);
  });
});

describe("the root value", () => {
  // §2 "Anything else (string, number, bool, nil/JSON null) when more segments remain":
  // a root that is not an object cannot be selected into.
  it.each([
    ["a == 1", null, "invalid_path"],
    ["a == 1", "text", "invalid_path"],
    ["a == 1", 5, "invalid_path"],
    ["a is nil", true, "invalid_path"],
    ["a == 1", {}, "missing_key"],
  ])("%s on %j gives %s", (source, value, expected) => {
    expectOutcome(source, value, expected);
  });
});
