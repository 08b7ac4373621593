/**
 * Missing keys (filter-semantics.md §2 "Missing-key disposition" and §14.4): a fixed result only when
 * the path has two or more segments and the immediate parent of the last one exists and is a map;
 * an evaluation error everywhere else.
 */
import { describe, expect, it } from "vitest";
import { compileFilter, FilterSyntaxError, parse } from "../../src/index.js";
import { show } from "../support/show.js";
import { expectOutcome, outcomeTable, type Outcome } from "./support.js";

const job = {
  Status: "running",
  Multiregion: null,
  Datacenters: ["dc1"],
  Meta: { owner: "team-a", nested: { deep: "x" }, nothing: null },
  JobSummary: { Summary: { "web-api": { Running: 3 } } },
  Items: [{ a: 1 }],
};

type Row = readonly [string, Outcome];

function table(rows: readonly Row[]) {
  return outcomeTable(job, rows);
}

describe("last key missing under an existing map", () => {
  // §2 disposition table: == false, != true, in/contains false, not in true, is empty true,
  // is not empty false, matches false, not matches true, is nil true, is not nil false.
  table([
    ['Meta.nope == "x"', false],
    ['Meta.nope != "x"', true],
    ['"x" in Meta.nope', false],
    ['Meta.nope contains "x"', false],
    ['"x" not in Meta.nope', true],
    ['Meta.nope not contains "x"', true],
    ["Meta.nope is empty", true],
    ["Meta.nope is not empty", false],
    ['Meta.nope matches "x"', false],
    ['Meta.nope not matches "x"', true],
    ["Meta.nope is nil", true],
    ["Meta.nope is not nil", false],
    // The literal is never coerced: there is nothing to coerce it to.
    ["Meta.nope == 50.5", false],
    // Deeper maps, map elements of arrays, pointer selectors and `["…"]` segments follow the same rule.
    ['Meta.nested.nope == "x"', false],
    ['JobSummary.Summary["web-api"].Nope == 1', false],
    ['JobSummary.Summary.nope != 1', true],
    ["Items.0.b is nil", true],
    ['"/Meta/nope" == "x"', false],
    ['"/Meta/nope" is nil', true],
    ['Meta["no such key"] != "x"', true],
    // Keys are case-sensitive.
    ['Meta.Owner == "team-a"', false],
  ]);
});

describe("missing keys that are errors", () => {
  // §2: "In every other case the result is an evaluation error": a missing top-level field and a
  // missing intermediate key are missing_key, whatever the operator.
  table([
    ['Nope == "x"', "missing_key"],
    ['Nope != "x"', "missing_key"],
    ['"x" in Nope', "missing_key"],
    ['"x" not in Nope', "missing_key"],
    ["Nope is empty", "missing_key"],
    ["Nope is not empty", "missing_key"],
    ['Nope matches "x"', "missing_key"],
    ['Nope not matches "x"', "missing_key"],
    ["Nope is nil", "missing_key"],
    ["Nope is not nil", "missing_key"],
    ['"/Nope" == "x"', "missing_key"],
    ['status == "running"', "missing_key"],
    ["JobSummary.Summary.nope.Running == 3", "missing_key"],
    ["JobSummary.Summary.nope.Running is nil", "missing_key"],
    ['Meta.nope.deeper == "x"', "missing_key"],
    ['Meta.nope.deeper != "x"', "missing_key"],
    ["Nope.deeper is nil", "missing_key"],
    ['"/Meta/nope/deeper" is empty', "missing_key"],
  ]);

  // §2 "Anything else (string, number, bool, nil/JSON null) when more segments remain" is an error,
  // and §14.4 "a null parent" is not a map that exists: no disposition.
  table([
    ['Multiregion.Strategy == "x"', "invalid_path"],
    ["Multiregion.Strategy is nil", "invalid_path"],
    ['Multiregion.Strategy != "x"', "invalid_path"],
    ["Meta.nothing.x is nil", "invalid_path"],
    ["Multiregion.Strategy.OnFailure is empty", "invalid_path"],
    ["Status.nope is nil", "invalid_path"],
    // A missing index under a list is out of range, not a missing key.
    ["Datacenters.1 is nil", "index_out_of_range"],
    ['Items.1.a == 1', "index_out_of_range"],
  ]);
});

describe("a regex behind a missing key", () => {
  // §2: "With disposition, `Meta.nope matches "["` never compiles the invalid regex" in go-bexpr;
  // this project rejects an invalid regex when compiling (deliberate decision 2), while parse accepts it.
  it('parses Meta.nope matches "[" but refuses to compile it', () => {
    expect(show(parse('Meta.nope matches "["'))).toBe('(matches Meta.nope "[")');
    expect(() => compileFilter('Meta.nope matches "["')).toThrow(FilterSyntaxError);
    expectOutcome('Meta.nope matches "["', job, "syntax:invalid_regex");
  });
});
