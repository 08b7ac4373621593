/**
 * Typed checks (with a schema, in strict mode): what can never work is a diagnostic before any
 * object is met, each with its severity, and a fix where one exists. The evaluator agrees: on an
 * object of the schema's shape, the filter fails as the diagnostic says.
 */
import { describe, expect, it } from "vitest";
import { applyFix, compileFilter, schemas, validate } from "../../src/index.js";

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
