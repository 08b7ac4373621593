import { describe, expect, it } from "vitest";
import { compileFilter, FilterEvaluationError, FilterSyntaxError, parse, type FieldSchema } from "../../src/index.js";
import { TIER_UP_EVALUATIONS } from "../../src/evaluator/codegen.js";
import { catchError, evaluationErrorOf } from "../support/errors.js";

const job = {
  ID: "web",
  Status: "running",
  Priority: 50,
  Datacenters: ["dc1"],
  Meta: { owner: "team-a" },
  Multiregion: null,
  TaskGroups: { web: { Count: 2 } },
};

describe("evaluation errors", () => {
  // filter-semantics.md §2–§7: the reason is worded as the reference words it.
  it.each([
    ["Nope == 1", "missing_key", 'error finding value in datum: /Nope at part 0: couldn\'t find key "Nope"'],
    ["TaskGroups.api.Count == 1", "missing_key", 'error finding value in datum: /TaskGroups/api/Count at part 1: couldn\'t find key "api"'],
    ["Status.length == 1", "invalid_path", "error finding value in datum: /Status/length: at part 1, invalid value kind: string"],
    ["Multiregion.Strategy == 1", "invalid_path", "error finding value in datum: /Multiregion/Strategy: at part 1, invalid value kind: invalid"],
    ["Datacenters.5 == x", "index_out_of_range", "error finding value in datum: /Datacenters/5 at part 1: index 5 is out of range (length = 1)"],
    // pointerstructure's ErrConvert reads "couldn't convert value", then the segment as %#v.
    ["Datacenters.x == x", "index_out_of_range", 'error finding value in datum: /Datacenters/x at part 1: couldn\'t convert value "x" to type int'],
    // With UseNumber a JSON number is a json.Number, whose kind is string, when a path goes through it.
    ["Priority.x == 1", "invalid_path", "error finding value in datum: /Priority/x: at part 1, invalid value kind: string"],
    ["Datacenters.0.x == 1", "invalid_path", "error finding value in datum: /Datacenters/0/x: at part 2, invalid value kind: string"],
    ["Priority == 50.0", "invalid_literal", 'error getting match value in expression: strconv.ParseInt: parsing "50.0": invalid syntax'],
    ["Priority == 99999999999999999999", "invalid_literal", 'error getting match value in expression: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ['"5" in Priority', "unsupported_operand", 'cannot perform in/contains operations on type int64 for selector: "Priority"'],
    ['"x" in Priority', "invalid_literal", 'error getting match value in expression: strconv.ParseInt: parsing "x": invalid syntax'],
    ["Priority is empty", "unsupported_operand", 'cannot perform is-empty operations on type int64 for selector: "Priority"'],
    ["Status is nil", "unsupported_operand", 'cannot perform is-nil operations on type string for selector: "Status"'],
    ["Meta == x", "unsupported_operand", "unable to find suitable primitive comparison function for matching"],
    ["Priority matches x", "unsupported_operand", "value of type int64 is not convertible to []byte"],
    ["Datacenters matches x", "unsupported_operand", "value of type []interface {} is not convertible to []byte"],
    ["Multiregion matches x", "nil_value", 'cannot match a null value for selector: "Multiregion" (the reference panics here)'],
    ["any Priority as p { p == 1 }", "not_a_collection", "Priority is not a list or a map"],
    ["any Datacenters as d, d { d == 1 }", "duplicate_binding", '"d" cannot be used as a placeholder for both the index and the value'],
    ["any Meta as k { k.x == 1 }", "invalid_binding_path", "/k references a string so /k/x is invalid"],
    ["any Datacenters as i, _ { i.x == 1 }", "invalid_binding_path", "/i references a int so /i/x is invalid"],
    // A bound list index is Go's int, not int64.
    ["any Datacenters as i, _ { i is empty }", "unsupported_operand", 'cannot perform is-empty operations on type int for selector: "i"'],
    ["any Datacenters as i, _ { i matches x }", "unsupported_operand", "value of type int is not convertible to []byte"],
    ['any Datacenters as i, _ { "0" in i }', "unsupported_operand", 'cannot perform in/contains operations on type int for selector: "i"'],
    ["any TaskGroups as _, tg { tg.Nope.X == 1 }", "missing_key", 'error finding value in datum: /TaskGroups/web/Nope/X at part 2: couldn\'t find key "Nope"'],
  ])("%s fails with %s: %s", (filter, code, reason) => {
    const error = evaluationErrorOf(filter, job);
    expect(error.code).toBe(code);
    expect(error.reason).toBe(reason);
  });

  it("points at the failing clause with a caret", () => {
    const error = evaluationErrorOf('Status == "running" and\n  Nope == 1', job);
    expect(error.span).toEqual({ start: 26, end: 35 });
    expect([error.line, error.column]).toEqual([2, 3]);
    expect(error.message).toBe(
      ["2:3: error finding value in datum: /Nope at part 0: couldn't find key \"Nope\"", "      Nope == 1", "      ^^^^^^^^^"].join("\n"),
    );
  });

  it("reports the index of the first failing value from filter()", () => {
    const filter = compileFilter('Status == "dead" and Nope == 1');
    const values = [{ Status: "running" }, { Status: "dead" }, { Status: "dead" }];
    expect(() => filter.filter(values)).toThrow(FilterEvaluationError);
    try {
      filter.filter(values);
    } catch (error) {
      expect((error as FilterEvaluationError).index).toBe(1);
      expect((error as FilterEvaluationError).message).toContain("(value at index 1)");
    }
  });

  it("filters any iterable, not only arrays", () => {
    const filter = compileFilter("x == 1");
    const values = new Set([{ x: 1 }, { x: 2 }, { x: 1 }]);
    expect(filter.filter(values)).toEqual([{ x: 1 }, { x: 1 }]);
  });
});

describe("values", () => {
  it("compares int64 values above 2^53 exactly when they are bigints", () => {
    const filter = compileFilter("SubmitTime == 1717000000123456789");
    expect(filter.test({ SubmitTime: 1717000000123456789n })).toBe(true);
    expect(filter.test({ SubmitTime: 1717000000123456790n })).toBe(false);
    expect(compileFilter("SubmitTime != 1717000000123456790").test({ SubmitTime: 1717000000123456789n })).toBe(true);
    expect(compileFilter('SubmitTime == "0x17d402672eb44d15"').test({ SubmitTime: 1717000000123456789n })).toBe(true);
    expect(compileFilter("N == 9007199254740993").test({ N: 2 ** 53 })).toBe(false);
    expect(compileFilter("N == 1152921504606846976").test({ N: 2 ** 60 })).toBe(true);
  });

  it("reads only values of the object, never inherited methods or the prototype", () => {
    const filter = (source: string) => compileFilter(source);
    expect(filter("Meta.constructor is empty").test({ Meta: {} })).toBe(true);
    expect(filter('"toString" in Meta').test({ Meta: {} })).toBe(false);
    expect(filter('Meta["__proto__"] is nil').test({ Meta: {} })).toBe(true);
    expect(filter('Meta["__proto__"] == x').test({ Meta: JSON.parse('{"__proto__": "x"}') })).toBe(true);
    expect(() => filter("constructor == x").test({})).toThrow(FilterEvaluationError);
  });

  it("reads getters of class instances", () => {
    class Job {
      constructor(private readonly status: string) {}
      get Status(): string {
        return this.status;
      }
    }
    expect(compileFilter('Status == "running"').test(new Job("running"))).toBe(true);
  });

  it("evaluates a filter re-entered from inside its own evaluation", () => {
    const filter = compileFilter('any Items as i { i.Name == "x" }');
    let inner: boolean | undefined;
    const nested = { Items: [{ Name: "y" }] };
    const outer = {
      Items: [
        {
          get Name() {
            inner = filter.test(nested);
            return "x";
          },
        },
      ],
    };
    expect(filter.test(outer)).toBe(true);
    expect(inner).toBe(false);
  });
});

describe("typed mode", () => {
  const schema: FieldSchema = {
    kind: "object",
    typeName: "structs.JobListStub",
    fields: {
      ID: "string",
      Priority: "int",
      CreateIndex: "uint",
      Stop: "bool",
      Meta: { kind: "map", values: "string" },
      Datacenters: { kind: "array", items: "string" },
      Ports: { kind: "array", items: "int" },
      PlacedCanaries: { kind: "array", items: "string" },
      Multiregion: { kind: "object", fields: { Strategy: "string" } },
      JobSummary: { kind: "object", typeName: "structs.JobSummary", fields: { Children: { kind: "object", fields: { Running: "int" } } } },
      RequireProgressBy: "time",
      Config: "any",
    },
  };
  const typed = (source: string) => compileFilter(source, { schema });
  const outcome = (source: string, value: object) => {
    try {
      return typed(source).test(value);
    } catch (error) {
      return (error as FilterEvaluationError).code;
    }
  };

  // filter-semantics.md §9 (typed mode) and the README's examples.
  it.each([
    ['Meta.owner == "team-a"', {}, false],
    ["Meta is empty", {}, true],
    ["Meta is nil", {}, true],
    ["PlacedCanaries is empty", { PlacedCanaries: null }, true],
    ['"x" in PlacedCanaries', { PlacedCanaries: null }, false],
    ["PlacedCanaries is nil", { PlacedCanaries: null }, true],
    ["PlacedCanaries is nil", { PlacedCanaries: [] }, false],
    ['ID == ""', {}, true],
    ["ID is empty", { ID: null }, true],
    ["Priority == 0", {}, true],
    ["Stop == false", {}, true],
    ["CreateIndex == -1", { CreateIndex: 5 }, "invalid_literal"],
    ["CreateIndex == 5", { CreateIndex: 5 }, true],
    ['"80" in Ports', { Ports: [80, 443] }, true],
    ['"http" in Ports', { Ports: [80] }, "invalid_literal"],
    ['"x" in Ports', { Ports: [] }, "invalid_literal"],
    ['"x" in Ports', {}, "invalid_literal"],
    ['"80" in Ports', {}, false],
    ["Multiregion is nil", {}, true],
    ["Multiregion.Strategy == x", {}, "invalid_path"],
    ["Multiregion == x", { Multiregion: null }, "unsupported_operand"],
    ["JobSummary.Nope == 1", { JobSummary: {} }, "missing_field"],
    ["JobSummary.Children.Running == 0", { JobSummary: {} }, "invalid_path"],
    ["JobSummary.Children.Running == 0", { JobSummary: { Children: {} } }, true],
    ["JobSummary is nil", { JobSummary: { Children: {} } }, false],
    ["JobSummary is empty", { JobSummary: {} }, "unsupported_operand"],
    ['RequireProgressBy == "2024-01-01T00:00:00Z"', { RequireProgressBy: "2024-01-01T00:00:00Z" }, "unsupported_operand"],
    ["RequireProgressBy is nil", { RequireProgressBy: null }, false],
    ['RequireProgressBy matches "2024"', { RequireProgressBy: "2024-01-01T00:00:00Z" }, "unsupported_operand"],
    ["Nope == 1", {}, "missing_field"],
    ["Config.image == redis", { Config: { image: "redis" } }, true],
    ["Config.port == 80", { Config: { port: 80 } }, true],
    ["Config.missing == 80", { Config: {} }, false],
  ])("%s on %j gives %s", (source, value, expected) => {
    expect(outcome(source, value)).toBe(expected);
  });

  it("words typed errors with the Go kinds", () => {
    expect(evaluationErrorOf("Priority is empty", {}, { schema }).reason).toBe('cannot perform is-empty operations on type int for selector: "Priority"');
    expect(evaluationErrorOf('"x" in CreateIndex', { CreateIndex: 1 }, { schema }).reason).toBe(
      'error getting match value in expression: strconv.ParseUint: parsing "x": invalid syntax',
    );
    expect(evaluationErrorOf("JobSummary.Nope == 1", { JobSummary: {} }, { schema }).reason).toBe(
      'error finding value in datum: /JobSummary/Nope at part 1: couldn\'t find struct field with name "Nope"',
    );
    expect(evaluationErrorOf("Datacenters matches x", { Datacenters: [] }, { schema }).reason).toBe("value of type []string is not convertible to []byte");
  });

  it("rejects unknown fields at compile time in strict mode, with the nearest name", () => {
    try {
      compileFilter('Priorty == 50 and JobSummary.Childrn.Running == 1 and "a" in Meta.x', { schema, strict: true });
      throw new Error("expected an error");
    } catch (error) {
      expect(error).toBeInstanceOf(FilterSyntaxError);
      const diagnostics = (error as FilterSyntaxError).diagnostics;
      expect(diagnostics.map((d) => [d.code, d.message, d.suggestion, d.span])).toEqual([
        ["unknown_field", 'the object has no field "Priorty"', 'did you mean "Priority"?', { start: 0, end: 7 }],
        ["unknown_field", '"JobSummary" has no field "Childrn"', 'did you mean "Children"?', { start: 18, end: 44 }],
      ]);
    }
  });

  it("follows the data where it contradicts the schema", () => {
    expect(outcome("Priority == high", { Priority: "high" })).toBe(true);
    expect(outcome('"dc1" in Datacenters', { Datacenters: "dc1,dc2" })).toBe(true);
  });

  it("binds elements and keys of typed collections", () => {
    expect(outcome('any Datacenters as dc { dc == "dc2" }', { Datacenters: ["dc1", "dc2"] })).toBe(true);
    expect(outcome("all Datacenters as i, _ { i == 0 }", { Datacenters: ["dc1", "dc2"] })).toBe(false);
    expect(outcome('any Meta as k { k == "owner" }', { Meta: { owner: "x" } })).toBe(true);
    expect(outcome("any Meta as k, v { v == x }", { Meta: { owner: "x" } })).toBe(true);
    expect(outcome("all PlacedCanaries as c { c == x }", { PlacedCanaries: null })).toBe(true);
    expect(outcome("any Meta as k { k == x }", {})).toBe(false);
  });
});

describe("compiling an AST", () => {
  it("compiles what parse returns, with the source for excerpts", () => {
    const source = "Nope == 1";
    const filter = compileFilter(parse(source), { source });
    expect(() => filter.test({})).toThrow(/1:1: error finding value/);
  });

  it("reports problems without a source at their offsets", () => {
    try {
      compileFilter(parse('Name matches "("'));
    } catch (error) {
      expect((error as FilterSyntaxError).diagnostics[0]).toMatchObject({ code: "invalid_regex", span: { start: 13, end: 16 }, line: 1, column: 14 });
    }
  });

  it("keeps the expression and the source on the filter", () => {
    const filter = compileFilter('Status == "x"');
    expect(filter.source).toBe('Status == "x"');
    expect(filter.expression.kind).toBe("Match");
  });

  it.each([{}, { codegen: false }])("is read-only (%j): no field can be assigned, none added", (options) => {
    const filter = compileFilter('Status == "x"', options);
    for (const key of ["source", "expression", "maxCost", "test", "filter"]) {
      expect(() => Object.assign(filter, { [key]: 1 }), key).toThrow(TypeError);
    }
    expect(() => Object.assign(filter, { extra: 1 })).toThrow(TypeError);
    expect(Object.isExtensible(filter)).toBe(false);
  });
});

describe("generated code", () => {
  it(`takes over from the closures after ${TIER_UP_EVALUATIONS} evaluations, with the same results`, () => {
    const filter = compileFilter<{ Status: string }>('Status == "running"');
    const first = filter.test;
    for (let i = 1; i < TIER_UP_EVALUATIONS; i++) expect(filter.test({ Status: i % 2 === 0 ? "running" : "dead" })).toBe(i % 2 === 0);
    expect(filter.test).toBe(first);
    expect(filter.test({ Status: "running" })).toBe(true);
    expect(filter.test).not.toBe(first);
    expect(filter.test({ Status: "running" })).toBe(true);
    expect(filter.test({ Status: "dead" })).toBe(false);
  });

  it("takes over at once for a filter() over a list that long, and reports the failing index", () => {
    const filter = compileFilter<{ Status?: string }>('Status == "running"');
    const values = Array.from({ length: TIER_UP_EVALUATIONS }, (_, i) => ({ Status: i === 7 ? "running" : "dead" }));
    const first = filter.filter;
    expect(filter.filter(values)).toEqual([values[7]]);
    expect(filter.filter).not.toBe(first);
    const error = catchError(() => filter.filter([{ Status: "dead" }, {}]));
    expect(error).toBeInstanceOf(FilterEvaluationError);
    expect((error as FilterEvaluationError).index).toBe(1);
  });

  it("is never generated with codegen: false, as under a Content-Security-Policy without unsafe-eval", () => {
    const filter = compileFilter('Status == "running"', { codegen: false });
    expect(Object.hasOwn(filter, "test")).toBe(false);
    expect(filter.filter(Array.from({ length: TIER_UP_EVALUATIONS }, () => ({ Status: "running" }))).length).toBe(TIER_UP_EVALUATIONS);
    expect(Object.hasOwn(filter, "filter")).toBe(false);
  });
});

describe("evaluation errors explain themselves", () => {
  it.each<[string, unknown, string, string]>([
    ['Priority == "high"', { Priority: 50 }, 'error getting match value in expression: strconv.ParseInt: parsing "high": invalid syntax', "Priority holds integers: compare it with a whole number, such as 50"],
    ["Stop == yes", { Stop: true }, 'error getting match value in expression: strconv.ParseBool: parsing "yes": invalid syntax', "Stop holds true or false: compare it with true or false"],
    ["Ratio == x", { Ratio: 0.5 }, 'error getting match value in expression: strconv.ParseFloat: parsing "x": invalid syntax', "Ratio holds numbers: compare it with a number, such as 1.5"],
  ])("%s: the reference's reason, and a hint", (source, value, reason, hint) => {
    const error = evaluationErrorOf(source, value);
    expect(error.reason).toBe(reason);
    expect(error.suggestion).toBe(hint);
    expect(error.message).toContain(`hint: ${hint}`);
    expect(error.atIndex(3).suggestion).toBe(hint);
  });
});
