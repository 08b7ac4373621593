/**
 * Collections (filter-semantics.md §7): `any`/`all` with default, index/value, index-only and
 * value-only bindings, in map mode.
 */
import { describe } from "vitest";
import { outcomeTable, type Outcome } from "./support.js";

const job = {
  Status: "running",
  Priority: 50,
  Stop: false,
  Datacenters: ["dc1", "dc2"],
  Tags: [],
  Meta: { owner: "team-a", team: "core" },
  EmptyMeta: {},
  Multiregion: null,
  JobSummary: { Summary: { "web-api": { Running: 3, Failed: 0 }, worker: { Running: 0, Failed: 1 } } },
  Groups: [
    { Name: "a", Tags: ["x", "y"] },
    { Name: "b", Tags: [] },
  ],
  Items: [{ a: { b: 1 } }, {}],
  ItemsReversed: [{}, { a: { b: 1 } }],
  Ordered: { first: { a: { b: 1 } }, second: {} },
  OrderedReversed: { second: {}, first: { a: { b: 1 } } },
};

function table(rows: ReadonlyArray<readonly [string, Outcome]>) {
  return outcomeTable(job, rows);
}

describe("default binding", () => {
  // §7 "Default binding (`as x`): for an array, `x` is the element; for a map, `x` is the key."
  // "An empty collection gives `any`=false and `all`=true."
  table([
    ['any Datacenters as dc { dc == "dc1" }', true],
    ['any Datacenters as dc { dc == "dc3" }', false],
    ['all Datacenters as dc { dc == "dc1" }', false],
    ['all Datacenters as dc { dc matches "^dc" }', true],
    ['all Datacenters as dc { "dc" in dc }', true],
    ['any Tags as t { t == "x" }', false],
    ['all Tags as t { t == "x" }', true],
    ['any EmptyMeta as k { k == "x" }', false],
    ['all EmptyMeta as k { k == "x" }', true],
    ['any Meta as k { k == "owner" }', true],
    ['any Meta as k { k == "team-a" }', false],
    ['all Meta as k { k matches "^(owner|team)$" }', true],
    ['any Groups as g { g.Name == "b" }', true],
    ['any Groups as g { "y" in g.Tags }', true],
    ['any "/Datacenters" as dc { dc == "dc2" }', true],
    // Root fields stay visible in the body; a binding hides a root field of the same name.
    ['any Datacenters as dc { dc == "dc1" and Status == "running" }', true],
    ['any Datacenters as Status { Status == "dc1" }', true],
  ]);
});

describe("index and value bindings", () => {
  // §7 "Index/value binding (`as i, v`), `as i, _` or `as _, v`: `i` is the index or key, and `v`
  // is an alias of the element path, so `v.Field` works."
  table([
    ['any Datacenters as i, dc { i == 1 and dc == "dc2" }', true],
    ['any Datacenters as i, dc { i == 0 and dc == "dc2" }', false],
    ["any Datacenters as i, _ { i == 1 }", true],
    ["all Datacenters as i, _ { i == 0 }", false],
    ['any Datacenters as i, _ { i == "0x1" }', true],
    ['any Datacenters as _, dc { dc == "dc2" }', true],
    ['any Meta as k, v { k == "owner" and v == "team-a" }', true],
    ['any Meta as k, v { k == "owner" and v == "core" }', false],
    ['any Meta as _, v { v == "core" }', true],
    ['any Meta as k, _ { k == "team" }', true],
    ['any JobSummary.Summary as name, tg { name == "worker" and tg.Failed == 1 }', true],
    ["any JobSummary.Summary as _, tg { tg.Running == 3 }", true],
    ["all JobSummary.Summary as _, tg { tg.Running == 3 }", false],
    // The element is a map: its missing last key takes the disposition.
    ["any JobSummary.Summary as _, tg { tg.Nope == 1 }", false],
    ["all JobSummary.Summary as _, tg { tg.Nope != 1 }", true],
  ]);
});

describe("nesting and combination", () => {
  // §7 and §1 "Collections": bodies are `Or` expressions, so collections nest; combined or negated
  // collections need parentheses.
  table([
    ['any Groups as g { all g.Tags as t { t == "x" } }', true],
    ['all Groups as g { any g.Tags as t { t == "x" } }', false],
    ['any Groups as g { any g.Tags as t { t == "x" and g.Name == "a" } }', true],
    ['any Groups as g { any g.Tags as t { t == "x" and g.Name == "b" } }', false],
    ['any Groups as g { any g.Tags as g { g == "y" } }', true],
    ['any Groups as g { "/g/Name" == "b" }', true],
    ['any Groups as g { g["Name"] == "b" }', true],
    ['any Meta as k { "own" in k }', true],
    ["any Meta as k { k is empty }", false],
    ['any Datacenters as i, _ { "1" in i }', "unsupported_operand"],
    ['(any Datacenters as dc { dc == "dc1" }) and Status == "running"', true],
    ['(any Datacenters as dc { dc == "dc1" }) and Status == "dead"', false],
    ['not (all Datacenters as dc { dc == "dc1" })', true],
    ['Status == "dead" or any Datacenters as dc { dc == "dc2" }', true],
    ['Status == "running" or any Nope as x { x == 1 }', true],
  ]);
});

describe("what is iterated", () => {
  // §7: "A selector whose last key is missing under an existing map makes `any` false and `all`
  // true, with no error. Any other not-found … is the usual error. A non-list/map gives
  // `Priority is not a list or a map`."
  table([
    ['any Meta.nope as x { x == "a" }', false],
    ['all Meta.nope as x { x == "a" }', true],
    ['all Nope as x { x == "a" }', "missing_key"],
    ['any Nope as x { x == "a" }', "missing_key"],
    ["any Meta.nope.deeper as x { x == 1 }", "missing_key"],
    ["any Priority as p { p == 1 }", "not_a_collection"],
    ['any Status as s { s == "r" }', "not_a_collection"],
    ["all Stop as s { s == 1 }", "not_a_collection"],
    ["any Multiregion as m { m == 1 }", "not_a_collection"],
    ["any Multiregion.Regions as r { r == 1 }", "invalid_path"],
    ["any Datacenters.5 as r { r == 1 }", "index_out_of_range"],
  ]);
});

describe("bindings", () => {
  // §7: "`as dc, dc` is an error, but only once the loop runs, so empty arrays silently skip the check."
  table([
    ['any Datacenters as dc, dc { dc == "dc1" }', "duplicate_binding"],
    ['all Datacenters as dc, dc { dc == "dc1" }', "duplicate_binding"],
    ['any Meta as k, k { k == "owner" }', "duplicate_binding"],
    ['any Tags as dc, dc { dc == "x" }', false],
    ['all Tags as dc, dc { dc == "x" }', true],
    ['any EmptyMeta as k, k { k == "x" }', false],
    ['any Meta.nope as k, k { k == "x" }', false],
  ]);

  // §7: a key or index binding is a value, not a path; §2 "Anything else … when more segments
  // remain" is an error (invalid_binding_path here), and only when the body runs.
  table([
    ['any Meta as k { k.owner == "x" }', "invalid_binding_path"],
    ['any Meta as k, _ { k.owner == "x" }', "invalid_binding_path"],
    ["any Datacenters as i, _ { i.x == 1 }", "invalid_binding_path"],
    ['any EmptyMeta as k { k.owner == "x" }', false],
    ["any Datacenters as dc { dc.x == 1 }", "invalid_path"],
  ]);
});

describe("short-circuit and order", () => {
  // §7 "the loop short-circuits"; §6 errors are per evaluation; decision 4: maps iterate in JS key order.
  table([
    ["any Items as x { x.a.b == 1 }", true],
    ["any ItemsReversed as x { x.a.b == 1 }", "missing_key"],
    ["all Items as x { x.a.b == 2 }", false],
    ["all ItemsReversed as x { x.a.b == 2 }", "missing_key"],
    ["any Ordered as _, v { v.a.b == 1 }", true],
    ["any OrderedReversed as _, v { v.a.b == 1 }", "missing_key"],
    ["all Ordered as _, v { v.a.b == 2 }", false],
    ["all OrderedReversed as _, v { v.a.b == 2 }", "missing_key"],
  ]);
});
