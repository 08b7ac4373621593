/**
 * Typed checks (with a schema, in strict mode): what can never work is a diagnostic before any
 * object is met, each with its severity, and a fix where one exists. The evaluator agrees: on an
 * object of the schema's shape, the filter fails as the diagnostic says.
 */
import { describe, expect, it } from "vitest";
import { applyFix, compileFilter, complete, schemas, validate } from "../../src/index.js";

const JOB = { Priority: 50, Stop: false, Status: "running", Datacenters: ["dc1"], Meta: { owner: "a" } };

describe("typed checks", () => {
  it.each([
    ['Priority matches "5"', "unsupported_operand", "error", 'Priority == "5"'],
    ['Priority not contains "5"', "unsupported_operand", "error", 'Priority != "5"'],
    ['Stop contains "true"', "unsupported_operand", "error", 'Stop == "true"'],
    ['Priority matches "x"', "unsupported_operand", "error", undefined],
    ["Priority is empty", "unsupported_operand", "error", undefined],
    ['"x" in Priority', "unsupported_operand", "error", undefined],
    ['Datacenters matches "x"', "unsupported_operand", "error", undefined],
    ['Priority == "high"', "invalid_literal", "error", undefined],
    ["Status == null", "null_literal", "warning", "Status is nil"],
    ["Status != null", "null_literal", "warning", "Status is not nil"],
  ])("%s: %s (%s), fixed as %j", (source, code, severity, fixed) => {
    const [problem, ...others] = validate(source, { schema: schemas.job });
    expect(others).toEqual([]);
    expect([problem?.code, problem?.severity]).toEqual([code, severity]);
    expect(problem?.fixes?.[0] === undefined ? undefined : applyFix(source, problem.fixes[0])).toBe(fixed);
    if (fixed !== undefined && severity === "error") expect(validate(fixed, { schema: schemas.job })).toEqual([]);
    // What the error says: every object would fail there.
    if (severity === "error") expect(() => compileFilter(source, { schema: schemas.job, strict: false }).test(JOB)).toThrow();
  });

  it("leaves what applies alone: text operators on text, list operators on lists, maps", () => {
    for (const source of ['Status contains "run"', 'Status matches "^run"', '"dc1" in Datacenters', "Datacenters is empty", 'Meta contains "owner"', "Meta is not empty", "Priority == 50"]) {
      expect(validate(source, { schema: schemas.job }), source).toEqual([]);
    }
  });

  it("offers the text too for == null: quoted, it compares with the text", () => {
    const [problem] = validate("Status == null", { schema: schemas.job });
    expect(problem!.fixes!.map((fix) => applyFix("Status == null", fix))).toEqual(["Status is nil", 'Status == "null"']);
  });
});

describe("map keys the schema lists", () => {
  const schema = {
    kind: "object",
    fields: {
      Labels: { kind: "map", values: "string", keys: ["team", "tier", "web-api"] },
      Meta: { kind: "map", values: "string" },
      Groups: { kind: "map", values: { kind: "map", values: "int", keys: ["Running", "Failed"] } },
    },
  } as const;

  it.each([
    ['Labels.tema == "a"', "Labels", "tema", 'Labels.team == "a"'],
    ['Labels.Tier == "a"', "Labels", "Tier", 'Labels.tier == "a"'],
    ["Groups.web.Runing == 1", "Groups.web", "Runing", "Groups.web.Running == 1"],
    ['Labels["zzz"] == "a"', "Labels", "zzz", undefined],
  ])("warns of %s, a key the schema does not list, with the nearest key as a fix", (source, parent, key, fixed) => {
    const [problem, ...others] = validate(source, { schema });
    expect(others).toEqual([]);
    expect(problem).toMatchObject({ code: "unknown_key", severity: "warning", message: `"${key}" is not one of the keys the schema lists for "${parent}"` });
    expect(problem?.fixes?.[0] === undefined ? undefined : applyFix(source, problem.fixes[0])).toBe(fixed);
    if (fixed !== undefined) expect(validate(fixed, { schema })).toEqual([]);
    // Only a warning: the filter compiles, and a missing key is the operator's missing-key result.
    expect(compileFilter(source, { schema, strict: true }).test({ Labels: {}, Groups: { web: {} } })).toBe(false);
  });

  it("leaves listed keys, maps without a list and bound keys alone", () => {
    for (const source of ['Labels.team == "a"', 'Labels["web-api"] == "a"', 'Meta.anything == "a"', "Groups.any.Failed == 0", 'Labels is empty', 'any Labels as k { k == "zzz" }']) {
      expect(validate(source, { schema }), source).toEqual([]);
    }
  });

  it("offers the listed keys as completions, first", () => {
    const labels = complete("Labels.", 7, { schema, samples: [{ Labels: { seen: "x" } }] });
    expect(labels.map((completion) => [completion.label, completion.kind])).toEqual([
      ["team", "key"],
      ["tier", "key"],
      ["web-api", "key"],
      ["seen", "key"],
    ]);
    expect(labels[2]?.text).toBe('["web-api"]');
  });
});
