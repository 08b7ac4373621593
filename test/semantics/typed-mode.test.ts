/**
 * Typed mode (filter-semantics.md §3 "struct" row, §9 "typed mode"): evaluation against the
 * reference's Go structs, described by a schema. Absent fields are zero values, nil lists and maps
 * are real (empty) values, uint fields reject negative literals, structs and times support no
 * operator but `is nil`, and a field the struct lacks is an error.
 */
import { describe, expect, it } from "vitest";
import { compileFilter, FilterSyntaxError, type ObjectSchema } from "../../src/index.js";
import { expectOutcome, outcomeTable, type Outcome } from "./support.js";

const summarySchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.JobSummary",
  fields: {
    JobID: "string",
    Children: { kind: "object", typeName: "structs.JobChildrenSummary", fields: { Dead: "int", Pending: "int", Running: "int" } },
    Summary: { kind: "map", values: { kind: "object", typeName: "structs.TaskGroupSummary", fields: { Running: "int", Failed: "int" } } },
  },
};

const jobSchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.JobListStub",
  fields: {
    Name: "string",
    Status: "string",
    StatusDescription: "string",
    Priority: "int",
    Ratio: "float",
    Stop: "bool",
    Periodic: "bool",
    CreateIndex: "uint",
    ModifyIndex: "uint",
    JobModifyIndex: "uint",
    SubmitTime: "int",
    Datacenters: { kind: "array", items: "string" },
    PlacedCanaries: { kind: "array", items: "string" },
    Ints: { kind: "array", items: "int" },
    Meta: { kind: "map", values: "string" },
    JobSummary: summarySchema,
    RequireProgressBy: "time",
    Multiregion: {
      kind: "object",
      typeName: "structs.Multiregion",
      fields: { Strategy: { kind: "object", fields: { OnFailure: "string" } } },
    },
    Extra: "any",
  },
};

const full = {
  Name: "web-api",
  Status: "running",
  StatusDescription: "",
  Priority: 50,
  Ratio: 2.5,
  Stop: false,
  Periodic: true,
  CreateIndex: 10,
  ModifyIndex: 18446744073709551615n,
  JobModifyIndex: 7,
  SubmitTime: 1717000000123456789n,
  Datacenters: ["dc1", "dc2"],
  PlacedCanaries: [],
  Ints: [5, 7],
  Meta: { owner: "team-a" },
  JobSummary: {
    JobID: "web-api",
    Children: { Dead: 0, Pending: 1, Running: 2 },
    Summary: { "web-api": { Running: 3, Failed: 0 } },
  },
  RequireProgressBy: "2024-05-01T00:00:00Z",
  Multiregion: null,
  Extra: null,
};

/** Every field absent: the struct holds zero values. */
const sparse = { Name: "batch" };

/** Every field null: the same zero values as when absent. */
const nulls = Object.fromEntries(Object.keys(jobSchema.fields).map((key) => [key, null]));

function table(value: unknown, rows: ReadonlyArray<readonly [string, Outcome]>) {
  return outcomeTable(value, rows, jobSchema);
}

describe("scalars of a full object", () => {
  // §3 rows string/int/uint/float/bool and §4 coercion by the field's kind; §9 "uint64 fields
  // reject negative literals with an error".
  table(full, [
    ['Status == "running"', true],
    ['"run" in Status', true],
    ["Status is empty", false],
    ["StatusDescription is empty", true],
    ["Status is nil", "unsupported_operand"],
    ['Status matches "^run"', true],
    ["Priority == 50", true],
    ['Priority == "0x32"', true],
    ['Priority == "062"', true],
    ['Priority == "5_0"', true],
    ["Priority == 50.0", "invalid_literal"],
    ['Priority == "1e2"', "invalid_literal"],
    ['"5" in Priority', "unsupported_operand"],
    ["Priority is empty", "unsupported_operand"],
    ["Priority is nil", "unsupported_operand"],
    ['Priority matches "5"', "unsupported_operand"],
    ["SubmitTime == 1717000000123456789", true],
    ["SubmitTime == 1717000000123456790", false],
    ["CreateIndex == 10", true],
    ['CreateIndex == "0xA"', true],
    ['CreateIndex == "012"', true],
    ['CreateIndex == "1_0"', true],
    ["CreateIndex == -1", "invalid_literal"],
    ["CreateIndex != -1", "invalid_literal"],
    ["CreateIndex == -0", "invalid_literal"],
    ['CreateIndex == "+10"', "invalid_literal"],
    ["CreateIndex == 10.0", "invalid_literal"],
    ["CreateIndex == 18446744073709551616", "invalid_literal"],
    ["ModifyIndex == 18446744073709551615", true],
    ['ModifyIndex == "0xffffffffffffffff"', true],
    ["ModifyIndex == 18446744073709551614", false],
    ['"1" in CreateIndex', "unsupported_operand"],
    ["CreateIndex is empty", "unsupported_operand"],
    ["CreateIndex is nil", "unsupported_operand"],
    ["JobModifyIndex != JobModifyIndex", "invalid_literal"],
    ['Ratio == "2.50"', true],
    ['Ratio == "25e-1"', true],
    ['Ratio == "0x32"', "invalid_literal"],
    ["Ratio is nil", "unsupported_operand"],
    ["Stop == F", true],
    ["Periodic == 1", true],
    ["Stop == yes", "invalid_literal"],
    ["Stop is empty", "unsupported_operand"],
    ["Stop is nil", "unsupported_operand"],
  ]);
});

describe("lists, maps and structs of a full object", () => {
  // §3 slice/map/struct rows; §9 "`*JobChildrenSummary` and `time.Time` are structs, so `in`, `==`
  // and `is empty` on them error"; a concrete-typed list coerces the literal to its element kind
  // (no skipping of elements, which only JSON arrays do).
  table(full, [
    ['"dc1" in Datacenters', true],
    ['"dc" in Datacenters', false],
    ["5 in Datacenters", false],
    ['Datacenters == "dc1"', "unsupported_operand"],
    ["Datacenters is empty", false],
    ['Datacenters matches "dc"', "unsupported_operand"],
    ["PlacedCanaries is empty", true],
    ["PlacedCanaries is nil", false],
    ["5 in Ints", true],
    ['"0x5" in Ints', true],
    ['"05" in Ints', true],
    ["6 in Ints", false],
    ['"7" not in Ints', false],
    ['"5.0" in Ints', "invalid_literal"],
    ['"abc" in Ints', "invalid_literal"],
    ['"owner" in Meta', true],
    ['"team-a" in Meta', false],
    ['Meta.owner == "team-a"', true],
    ['Meta.nope == "x"', false],
    ["Meta.nope is nil", true],
    ["Meta is empty", false],
    ["Meta is nil", false],
    ['Meta == "x"', "unsupported_operand"],
    ['Meta matches "x"', "unsupported_operand"],
    ['JobSummary == "x"', "unsupported_operand"],
    ['"JobID" in JobSummary', "unsupported_operand"],
    ["JobSummary is empty", "unsupported_operand"],
    ["JobSummary is nil", false],
    ["JobSummary is not nil", true],
    ['JobSummary matches "x"', "unsupported_operand"],
    ['JobSummary.JobID == "web-api"', true],
    ["JobSummary.Children.Pending == 1", true],
    ['JobSummary.Children == "x"', "unsupported_operand"],
    ["JobSummary.Children is nil", false],
    ['JobSummary.Summary["web-api"].Running == 3', true],
    ['"/JobSummary/Summary/web-api/Running" == 3', true],
    ['RequireProgressBy == "2024-05-01T00:00:00Z"', "unsupported_operand"],
    ['"2024" in RequireProgressBy', "unsupported_operand"],
    ["RequireProgressBy is empty", "unsupported_operand"],
    ["RequireProgressBy is nil", false],
    ["RequireProgressBy is not nil", true],
    ['RequireProgressBy matches "2024"', "unsupported_operand"],
  ]);
});

describe("missing fields and keys", () => {
  // §9: "A missing field under a *struct* (`JobSummary.Nope`, `TaskGroups[..].Nope`) is an error;
  // under a map it takes the disposition."
  table(full, [
    ["Nope == 1", "missing_field"],
    ["Nope is nil", "missing_field"],
    ["JobSummary.Nope == 1", "missing_field"],
    ["JobSummary.Nope is nil", "missing_field"],
    ['JobSummary.jobID == "web-api"', "missing_field"],
    ['JobSummary.Summary["web-api"].Nope == 1', "missing_field"],
    ["JobSummary.Summary.nope.Running == 3", "missing_key"],
    ["JobSummary.Summary.nope is nil", true],
    ['JobSummary.Summary.nope == "x"', false],
    ['JobSummary.Summary.nope != "x"', true],
    ['Meta.nope.deeper == "x"', "missing_key"],
    ["Datacenters.2 is nil", "index_out_of_range"],
    ['Status.x == "y"', "invalid_path"],
  ]);
});

describe("nil pointers and untyped fields", () => {
  // §3 "Invalid (JSON null, nil pointer)": `is nil` true, `==`/`in`/`is empty` errors, `matches`
  // a panic (nil_value); a nil parent with more segments is an error.
  table(full, [
    ["Multiregion is nil", true],
    ["Multiregion is not nil", false],
    ['Multiregion == "x"', "unsupported_operand"],
    ["Multiregion is empty", "unsupported_operand"],
    ['Multiregion matches "x"', "nil_value"],
    ['Multiregion.Strategy.OnFailure == "x"', "invalid_path"],
    ["Multiregion.Strategy is nil", "invalid_path"],
    ["Extra is nil", true],
    ['Extra == "x"', "unsupported_operand"],
  ]);
});

describe.each([
  ["absent", sparse],
  ["null", nulls],
])("fields that are %s", (_, value) => {
  // §9: "Fields absent from the JSON become nil maps or slices, which are real values, instead of
  // 'missing top-level key' errors. So `Meta.owner == "x"` is false/true by disposition where map mode
  // errors. Likewise `Meta is empty` and `Meta is nil` are true." "A null slice has the Slice kind,
  // so `PlacedCanaries is empty` is true and `"x" in PlacedCanaries` is false." Scalars are zero.
  table(value, [
    ['Meta.owner == "x"', false],
    ['Meta.owner != "x"', true],
    ["Meta is empty", true],
    ["Meta is nil", true],
    ["Meta is not nil", false],
    ['"x" in Meta', false],
    ['Meta.owner.x == "y"', "missing_key"],
    ["PlacedCanaries is empty", true],
    ['"x" in PlacedCanaries', false],
    ['"x" not in PlacedCanaries', true],
    ["PlacedCanaries is nil", true],
    ['Status == ""', true],
    ["Status is empty", true],
    ["Priority == 0", true],
    ["CreateIndex == 0", true],
    ["Ratio == 0", true],
    ["Stop == false", true],
    ["JobSummary is nil", true],
    ['JobSummary.JobID == "x"', "invalid_path"],
    ["RequireProgressBy is nil", false],
    ['RequireProgressBy == "x"', "unsupported_operand"],
    ["Extra is nil", true],
    ['any PlacedCanaries as c { c == "x" }', false],
    ['all PlacedCanaries as c { c == "x" }', true],
    ['any Meta as k { k == "x" }', false],
  ]);
});

describe("the same values without a schema", () => {
  // §9: "… where map mode errors"; "In map mode null is Invalid, which gives an error."
  it.each([
    ['Meta.owner == "x"', "absent", "missing_key"],
    ["Meta is empty", "absent", "missing_key"],
    ["Meta is nil", "absent", "missing_key"],
    ["Priority == 0", "absent", "missing_key"],
    ["PlacedCanaries is empty", "null", "unsupported_operand"],
    ['"x" in PlacedCanaries', "null", "unsupported_operand"],
    ["PlacedCanaries is nil", "null", true],
    ["Meta is nil", "null", true],
    ['Meta.owner == "x"', "null", "invalid_path"],
    ['RequireProgressBy == "2024-05-01T00:00:00Z"', "full", true],
    ['"JobID" in JobSummary', "full", true],
    ["JobSummary.Nope == 1", "full", false],
    ["CreateIndex == -1", "full", false],
  ])("%s on the %s object gives %s", (source, which, expected) => {
    expectOutcome(source, { absent: sparse, null: nulls, full }[which], expected);
  });
});

describe("null elements of typed lists", () => {
  // §9 typed structs: a JSON null decoded into a []string or []int element is the zero value.
  it.each([
    ['"" in Datacenters', { Datacenters: [null, "dc1"] }, true],
    ["0 in Ints", { Ints: [null, 5] }, true],
  ])("%s on %j gives %s", (source, value, expected) => {
    expectOutcome(source, value, expected, jobSchema);
  });
});

describe("collections over typed values", () => {
  // §7 with typed elements: map values are structs, so a missing field in the body is an error.
  table(full, [
    ["any JobSummary.Summary as name, tg { tg.Running == 3 }", true],
    ['any JobSummary.Summary as name, _ { name == "web-api" }', true],
    ["any JobSummary.Summary as _, tg { tg.Nope == 1 }", "missing_field"],
    ['any Datacenters as i, dc { i == 1 and dc == "dc2" }', true],
    ['any Ints as n { n == "0x7" }', true],
    ["any JobSummary as x { x == 1 }", "not_a_collection"],
  ]);
});

const deploymentSchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.Deployment",
  fields: {
    JobSpecModifyIndex: "uint",
    JobModifyIndex: "uint",
    TaskGroups: {
      kind: "map",
      values: {
        kind: "object",
        typeName: "structs.DeploymentState",
        fields: {
          DesiredTotal: "int",
          PlacedCanaries: { kind: "array", items: "string" },
          RequireProgressBy: "time",
          Promoted: "bool",
        },
      },
    },
  },
};

const deployment = {
  JobSpecModifyIndex: 3,
  JobModifyIndex: 3,
  TaskGroups: { cache: { DesiredTotal: 1, PlacedCanaries: null, RequireProgressBy: null, Promoted: false } },
};

describe("a deployment, typed and untyped", () => {
  // §2 "a missing intermediate key (… `TaskGroups["web-api"].DesiredTotal` on a deployment without
  // that group)"; §9 null slices are empty in typed mode and Invalid (errors) in map mode; §1
  // "`JobSpecModifyIndex != JobModifyIndex` compares the field with the literal string".
  it.each([
    ['TaskGroups["web-api"].DesiredTotal == 3', "missing_key", "missing_key"],
    ["TaskGroups.cache.DesiredTotal == 1", true, true],
    ["TaskGroups.cache.Nope == 1", "missing_field", false],
    ["TaskGroups.cache.PlacedCanaries is empty", true, "unsupported_operand"],
    ['"x" in TaskGroups.cache.PlacedCanaries', false, "unsupported_operand"],
    ["TaskGroups.cache.PlacedCanaries is nil", true, true],
    ['TaskGroups.cache.RequireProgressBy == "2024-01-01"', "unsupported_operand", "unsupported_operand"],
    ["TaskGroups.cache.RequireProgressBy is nil", false, true],
    ["JobSpecModifyIndex != JobModifyIndex", "invalid_literal", "invalid_literal"],
    ["JobSpecModifyIndex == 3", true, true],
  ])("%s gives %s typed and %s untyped", (source, typed, untyped) => {
    expectOutcome(source, deployment, typed, deploymentSchema);
    expectOutcome(source, deployment, untyped);
  });
});

describe("strict typed mode", () => {
  // CompileOptions.strict: selectors naming fields the schema lacks are rejected when compiling
  // (unknown_field) instead of failing per object; map keys are data, never unknown.
  it.each([
    ["Nope == 1", "Nope"],
    ["JobSummary.Nope == 1", "JobSummary.Nope"],
    ["JobSummary.Summary.any.Nope == 1", "JobSummary.Summary.any.Nope"],
    ['"/JobSummary/Nope" == 1', '"/JobSummary/Nope"'],
    ["any JobSummary.Summary as _, tg { tg.Nope == 1 }", "tg.Nope"],
    ['Status == "x" or Nope == 1', "Nope"],
  ])("rejects %s with unknown_field at %s", (source, selector) => {
    let error: unknown;
    try {
      compileFilter(source, { schema: jobSchema, strict: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FilterSyntaxError);
    expect((error as FilterSyntaxError).code).toBe("unknown_field");
    expect((error as FilterSyntaxError).span.start).toBe(source.indexOf(selector));
  });

  it.each([
    ['Meta.anything == "x"', false],
    ['JobSummary.Summary["web-api"].Running == 3', true],
    ["JobSummary.Summary.any.Running == 1", "missing_key"],
    ['Status == "running"', true],
  ])("accepts %s and gives %s", (source, expected) => {
    expectOutcome(source, full, expected, jobSchema, true);
  });
});

const mixedSchema: ObjectSchema = {
  kind: "object",
  fields: {
    Amount: "float",
    Anything: "any",
    AnyList: { kind: "array", items: "any" },
    Counts: { kind: "map", values: "int" },
    Labels: { kind: "map", values: "string" },
    Flags: { kind: "array", items: "bool" },
    Floats: { kind: "array", items: "float" },
    Uids: { kind: "array", items: "uint" },
    Groups: { kind: "array", items: { kind: "object", typeName: "structs.Group", fields: { Name: "string", Count: "int" } } },
  },
};

describe("field kinds come from the schema", () => {
  // §4 "Coercion follows the field's type": a float field holding 100 takes ParseFloat (map mode
  // would see an int64); an `any` field or list is plain decoded JSON (§3 JSON-array rules);
  // map values and struct lists have their declared kinds (§9).
  it.each([
    ['Amount == "1e2"', { Amount: 100 }, true],
    ["Amount == 100.0", { Amount: 100 }, true],
    ['Amount == "0x64"', { Amount: 100 }, "invalid_literal"],
    ['Anything == "0x5"', { Anything: 5 }, true],
    ['"05" in Anything', { Anything: [5] }, false],
    ['"5" in AnyList', { AnyList: [true, 5] }, true],
    ['"yes" in AnyList', { AnyList: [true, 5] }, false],
    ['"a" in AnyList', { AnyList: [null] }, "nil_value"],
    ["Anything.x is nil", { Anything: { y: 1 } }, true],
    ['Counts.a == "0x1"', { Counts: { a: 1 } }, true],
    ["Counts.b == 1", { Counts: { a: 1 } }, false],
    ['Labels.owner == ""', { Labels: { owner: null } }, true],
    ["Labels.owner is empty", { Labels: { owner: null } }, true],
    ["Labels is nil", { Labels: {} }, false],
    ["Labels is empty", { Labels: {} }, true],
    ["Labels is nil", {}, true],
    // A typed list coerces the literal once, to its element kind: no element is skipped.
    ['"1" in Flags', { Flags: [true] }, true],
    ['"yes" in Flags', { Flags: [true] }, "invalid_literal"],
    ['"1.50" in Floats', { Floats: [1.5] }, true],
    ['"15e-1" in Floats', { Floats: [1.5] }, true],
    ['"0x7" in Uids', { Uids: [7] }, true],
    ['"-1" in Uids', { Uids: [7] }, "invalid_literal"],
    ["Groups.0.Count == 2", { Groups: [{ Name: "a", Count: 2 }] }, true],
    ["Groups.0.Nope == 2", { Groups: [{ Name: "a", Count: 2 }] }, "missing_field"],
    ["Groups.0 is nil", { Groups: [null] }, true],
    ["Groups.0.Count == 0", { Groups: [null] }, "invalid_path"],
    ['any Groups as g { g.Name == "a" }', { Groups: [{ Name: "a", Count: 2 }] }, true],
    ["any Groups as g { g.Nope == 1 }", { Groups: [{ Name: "a", Count: 2 }] }, "missing_field"],
  ])("%s on %j gives %s", (source, value, expected) => {
    expectOutcome(source, value, expected, mixedSchema);
  });

  // §2 "Struct: the field is found by … its exact Go field name": names a JS object inherits are not fields.
  it.each([
    ["toString == 1", "missing_field"],
    ["constructor is nil", "missing_field"],
    ["Groups.0.toString == 1", "missing_field"],
  ])("%s gives %s", (source, expected) => {
    expectOutcome(source, { Groups: [{ Name: "a", Count: 2 }] }, expected, mixedSchema);
  });

  it.each(["toString == 1", "Groups.0.hasOwnProperty == 1"])("strict mode rejects %s with unknown_field", (source) => {
    expect(() => compileFilter(source, { schema: mixedSchema, strict: true })).toThrow(FilterSyntaxError);
    expectOutcome(source, {}, "syntax:unknown_field", mixedSchema, true);
  });
});
