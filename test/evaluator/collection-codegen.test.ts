/**
 * `any`/`all` written out as generated code (`codegen.ts`) against their closures (`compile.ts`):
 * the same result or error, and the same units charged to a shared budget, for lists and maps,
 * typed and untyped, bindings of every mode, missing keys and budgets that run out mid-loop.
 */
import { describe, expect, it } from "vitest";
import { compileFilter, CostBudget, FilterEvaluationError, type CompileOptions } from "../../src/index.js";
import type { FieldSchema } from "../../src/evaluator/schema.js";

const job = {
  Status: "running",
  Datacenters: ["dc1", "dc2"],
  Meta: { owner: "team-a", team: "" },
  Nil: null,
  Groups: [
    { Name: "a", Tags: ["x"], Meta: {} },
    { Name: "b", Tags: ["y"], Meta: { zone: "eu" } },
  ],
};

const schema: FieldSchema = {
  kind: "object",
  fields: {
    Status: "string",
    Datacenters: { kind: "array", items: "string" },
    Meta: { kind: "map", values: "string" },
    Nil: { kind: "array", items: "string" },
    Groups: { kind: "array", items: { kind: "object", fields: { Name: "string", Tags: { kind: "array", items: "string" }, Meta: { kind: "map", values: "string" } } } },
  },
};

type Outcome = boolean | string;

/** The result, or the error's code, and the units a shared budget was charged. */
function run(source: string, options: CompileOptions & { tierUpAfter?: number }): { outcome: Outcome; spent: number } {
  const filter = compileFilter(source, options);
  const budget = new CostBudget(100_000);
  try {
    return { outcome: filter.test(job, budget), spent: budget.spent };
  } catch (error) {
    if (error instanceof FilterEvaluationError) return { outcome: error.code, spent: budget.spent };
    throw error;
  }
}

const rows: ReadonlyArray<readonly [string, Outcome, Outcome?]> = [
  // [filter, untyped outcome, typed outcome when it differs]
  ['any Datacenters as dc { dc matches "^(dc1|dc2)$" }', true],
  ['all Datacenters as dc { dc matches "^dc1$" }', false],
  ['all Meta as k, v { v != "" }', false],
  ['any Meta as k, v { v == "team-a" }', true],
  ['any Meta as k { k == "owner" }', true],
  ['any Meta as k { k.x == "a" }', "invalid_binding_path"],
  ['any Datacenters as i, _ { i == 1 }', true],
  ['any Groups as g { g.Name == "b" }', true],
  ['any Groups as _, g { "y" in g.Tags }', true],
  ['any Groups as g { g.Meta.zone == "eu" }', true],
  ['all Groups as g { g.Meta.zone == "eu" }', false],
  ['any Groups as g { (any g.Tags as t { t == "y" }) and g.Name == "b" }', true],
  ['all Groups as g { all g.Tags as t { t != "z" } }', true],
  ['any Meta.none as x { x == "a" }', false],
  ['all Meta.none as x { x == "a" }', true],
  ['any Status as s { s == "running" }', "not_a_collection"],
  ['any Nil as s { s == "a" }', "not_a_collection", false],
  ['all Nil as s { s == "a" }', "not_a_collection", true],
  ['any Datacenters as d, d { d == "dc1" }', "duplicate_binding"],
  ['(any Datacenters as dc { dc == "dc1" }) and Status == "running"', true],
  ['not (any Datacenters as dc { dc == "dc9" }) or Status == "dead"', true],
];

describe("generated any/all", () => {
  const filled = rows.map(([source, untyped, typed = untyped]): [string, Outcome, Outcome] => [source, untyped, typed]);
  it.each(filled)("%s gives what its closure gives, and charges the budget alike", (source, untyped, typed) => {
    for (const [options, expected] of [[{}, untyped], [{ schema }, typed]] as const) {
      const generated = run(source, { ...options, tierUpAfter: 0 });
      expect(generated.outcome).toBe(expected);
      expect(generated).toEqual(run(source, { ...options, codegen: false }));
    }
  });

  it.each([
    // 8 units: the clause's fixed cost, then each element's visit and its body's fixed cost.
    ['any Datacenters as dc { dc == "dc9" }', 8, false],
    ['any Datacenters as dc { dc == "dc9" }', 7, "cost_exceeded"],
    // 42 units: a map lists its keys first (16 each), then visits each entry.
    ['any Meta as k { k == "none" }', 42, false],
    ['any Meta as k { k == "none" }', 41, "cost_exceeded"],
    ['any Meta as k { k == "none" }', 33, "cost_exceeded"],
  ] as const)("%s with a budget of %i units: %s, on both paths", (source, maxCost, expected) => {
    for (const options of [{}, { schema }]) {
      const generated = run(source, { ...options, limits: { maxCost }, tierUpAfter: 0 });
      expect(generated.outcome).toBe(expected);
      expect(generated).toEqual(run(source, { ...options, limits: { maxCost }, codegen: false }));
    }
  });
});

describe("generated code on a root that is not a plain object", () => {
  // The written clauses read the root's keys unchecked: the predicate hands other roots to the closures.
  const roots: ReadonlyArray<readonly [string, unknown]> = [
    ["null", null],
    ["a string", "running"],
    ["a number", 5],
    ["a list", [{ Status: "running" }]],
    ["undefined", undefined],
  ];
  const filters = ['Status == "running"', 'Meta.owner == "team-a" or Name matches "^(web|api)-"', 'any Datacenters as dc { dc == "dc1" }', 'not ("x" in Tags)'];
  it.each(roots.flatMap(([name, root]) => filters.map((source) => [source, name, root] as const)))("%s on %s: what the closures give", (source, _name, root) => {
    const outcome = (options: CompileOptions & { tierUpAfter?: number }) => {
      try {
        return compileFilter(source, options).test(root);
      } catch (error) {
        if (error instanceof FilterEvaluationError) return error.code;
        throw error;
      }
    };
    expect(outcome({ tierUpAfter: 0 })).toBe(outcome({ codegen: false }));
    expect(typeof outcome({ codegen: false })).toBe("string");
  });
});
