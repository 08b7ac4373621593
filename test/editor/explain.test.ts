import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { explain, formatExplanation, MAX_EXPLAINED_CLAUSES, MAX_PREVIEW_LENGTH, preview, type ExplainedClause, type Explanation } from "../../src/editor/explain.js";
import { compileFilter, FilterEvaluationError, FilterSyntaxError, print, schemas } from "../../src/index.js";
import { datumArb, expressionArb, schemaArb } from "../support/arbitraries.js";

/** Every clause of an explanation, depth first (element bodies included). */
function clauses(clause: ExplainedClause): ExplainedClause[] {
  switch (clause.kind) {
    case "And":
    case "Or":
      return [clause, ...clause.operands.flatMap(clauses)];
    case "Not":
      return [clause, ...clauses(clause.operand)];
    case "Match":
      return [clause];
    case "Collection":
      return [clause, ...clause.elements.flatMap((element) => clauses(element.body))];
  }
}

/** The clause whose text is `text`. */
function clause(explanation: Explanation, text: string): ExplainedClause {
  const found = clauses(explanation.root).find((each) => each.text === text);
  if (found === undefined) throw new Error(`no clause ${text}`);
  return found;
}

/** The test's own result: true, false, or the evaluation error's code. */
function testOutcome(source: string, value: unknown, schema?: Parameters<typeof compileFilter>[1]): boolean | string {
  try {
    return compileFilter(source, schema).test(value);
  } catch (error) {
    if (error instanceof FilterEvaluationError) return error.code;
    throw error;
  }
}

/** A group's, not's or collection's outcome follows from its parts, as the evaluator's short-circuits go. */
function checkConsistent(clause: ExplainedClause): void {
  if (clause.outcome === "skipped") {
    for (const part of clauses(clause)) expect(part.outcome).toBe("skipped");
    return;
  }
  switch (clause.kind) {
    case "And":
    case "Or": {
      const stopsOn = clause.kind === "Or";
      const evaluated = clause.operands.filter((operand) => operand.outcome !== "skipped");
      // Operands are evaluated left to right, up to the first that decides.
      expect(clause.operands.slice(0, evaluated.length)).toEqual(evaluated);
      const last = evaluated.at(-1)!;
      if (clause.outcome === "error") expect(last.outcome).toBe("error");
      else if (clause.outcome === stopsOn) expect(last.outcome).toBe(stopsOn);
      else expect(evaluated).toHaveLength(clause.operands.length);
      for (const operand of evaluated.slice(0, -1)) expect(operand.outcome).toBe(!stopsOn);
      break;
    }
    case "Not":
      expect(clause.outcome).toBe(typeof clause.operand.outcome === "boolean" ? !clause.operand.outcome : "error");
      break;
    case "Collection": {
      const stopsOn = clause.quantifier === "Any";
      for (const element of clause.elements) expect(element.body.outcome).toBe(element.outcome);
      if (clause.outcome === stopsOn && clause.omitted === 0) expect(clause.elements.at(-1)?.outcome).toBe(stopsOn);
      break;
    }
    case "Match":
      if (typeof clause.outcome === "boolean") expect(clause.found).toBeDefined();
      break;
  }
  for (const part of clauses(clause).slice(1)) if (part !== clause) checkConsistent(part);
}

describe("explain", () => {
  it("agrees with Filter.test on every filter, value and schema (property)", () => {
    fc.assert(
      fc.property(expressionArb, datumArb, fc.option(schemaArb, { nil: undefined }), (expression, datum, schema) => {
        const source = print(expression);
        const options = schema === undefined ? {} : { schema };
        let expected: boolean | string;
        try {
          expected = testOutcome(source, datum, options);
        } catch (error) {
          // A generated pattern that is not RE2: explain refuses it the same way.
          expect(error).toBeInstanceOf(FilterSyntaxError);
          expect(() => explain(source, datum, options)).toThrow(FilterSyntaxError);
          return;
        }
        const explanation = explain(source, datum, options);
        expect(explanation.error?.code ?? explanation.matched).toBe(expected);
        expect(explanation.root.outcome).toBe(typeof expected === "boolean" ? expected : "error");
        expect(explanation.root.decided).toBe(typeof expected === "boolean");
        checkConsistent(explanation.root);
      }),
      { numRuns: 1_000 },
    );
  });

  it("gives each top-level match the truth that match alone has on the value (property)", () => {
    fc.assert(
      fc.property(expressionArb, datumArb, (expression, datum) => {
        const source = print(expression);
        let explanation: Explanation;
        try {
          explanation = explain(source, datum);
        } catch {
          return;
        }
        // Matches outside any/all bodies stand alone: evaluated alone, each has its recorded truth.
        const outside = (clause: ExplainedClause): ExplainedClause[] =>
          clause.kind === "And" || clause.kind === "Or" ? clause.operands.flatMap(outside) : clause.kind === "Not" ? outside(clause.operand) : [clause];
        for (const match of outside(explanation.root)) {
          if (typeof match.outcome !== "boolean") continue;
          expect(testOutcome(match.text, datum)).toBe(match.outcome);
        }
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['Status == "running"', { Status: "running" }, { value: "running" }],
    ['Meta.owner == "x"', { Meta: {} }, { missing: true }],
    ['Meta["web-api"] != "x"', { Meta: { "web-api": "y" } }, { value: "y" }],
    ["Tags is empty", { Tags: [] }, { value: [] }],
  ])("records what the selector of %s found", (source, value, found) => {
    const explanation = explain(source, value);
    expect(explanation.root).toMatchObject({ kind: "Match", found, decided: true });
  });

  it("shows a typed field's zero value where the object lacks it", () => {
    const explanation = explain('Status == ""', { ID: "web", Namespace: "default" }, { schema: schemas.job });
    expect(explanation.matched).toBe(true);
    expect(explanation.root).toMatchObject({ found: { value: "" } });
  });

  it("marks the first false operand of a false and as the one that decided, and skips the rest", () => {
    const explanation = explain('Status == "running" and Priority == 50 and Stop == false', { Status: "running", Priority: 10, Stop: false });
    expect(explanation.matched).toBe(false);
    expect(clause(explanation, 'Status == "running"')).toMatchObject({ outcome: true, decided: false });
    expect(clause(explanation, "Priority == 50")).toMatchObject({ outcome: false, decided: true, found: { value: 10 } });
    expect(clause(explanation, "Stop == false")).toMatchObject({ outcome: "skipped", decided: false });
    expect(clause(explanation, "Stop == false")).not.toHaveProperty("found");
  });

  it("marks every operand of a true and, and of a false or, as deciding", () => {
    const and = explain("A == 1 and B == 2", { A: 1, B: 2 });
    expect([clause(and, "A == 1").decided, clause(and, "B == 2").decided]).toEqual([true, true]);
    const or = explain("A == 1 or B == 2", { A: 0, B: 0 });
    expect([clause(or, "A == 1").decided, clause(or, "B == 2").decided]).toEqual([true, true]);
  });

  it("records each element any visits, up to the one that decided", () => {
    const explanation = explain('any TaskGroups as g { g.Count > 0 or g.Name == "api" }'.replace("g.Count > 0", "g.Count == 2"), {
      TaskGroups: [
        { Name: "web", Count: 1 },
        { Name: "api", Count: 1 },
        { Name: "db", Count: 2 },
      ],
    });
    expect(explanation.matched).toBe(true);
    const root = explanation.root;
    if (root.kind !== "Collection") throw new Error("not a collection");
    expect(root.elements.map((element) => [element.key, element.outcome, element.decided])).toEqual([
      [0, false, false],
      [1, true, true],
    ]);
    expect(root.elements[1]!.value).toEqual({ Name: "api", Count: 1 });
    expect(root.elements[0]!.body).toMatchObject({ kind: "Or", outcome: false });
  });

  it("records map keys for all over a map, and the element that made all false", () => {
    const explanation = explain('all Meta as k { k != "secret" }', { Meta: { a: "1", secret: "2", z: "3" } });
    const root = explanation.root;
    if (root.kind !== "Collection") throw new Error("not a collection");
    expect(root.elements.map((element) => [element.key, element.outcome, element.decided])).toEqual([
      ["a", true, false],
      ["secret", false, true],
    ]);
  });

  it("reports an evaluation error with the clause it came from, and decides nothing", () => {
    const explanation = explain("Missing == 1 and X == 2", { X: 2 });
    expect(explanation).toMatchObject({ matched: false, error: { code: "missing_key", span: { start: 0, end: 12 } } });
    expect(clause(explanation, "Missing == 1")).toMatchObject({ outcome: "error", decided: false });
    expect(clause(explanation, "X == 2").outcome).toBe("skipped");
    expect(explanation.root.outcome).toBe("error");
  });

  it("reports a cost budget spent, on a filter whose fixed cost alone is over it", () => {
    const explanation = explain("A == 1 and B == 2", { A: 1, B: 2 }, { limits: { maxCost: 1 } });
    expect(explanation.error?.code).toBe("cost_exceeded");
    expect(explanation.root.outcome).toBe("error");
  });

  it("stops recording at MAX_EXPLAINED_CLAUSES and counts the elements it left out", () => {
    const list = Array.from({ length: MAX_EXPLAINED_CLAUSES * 2 }, (_, i) => i);
    const explanation = explain("all L as x { x != -1 }", { L: list }, { limits: { maxCost: 1_000_000 } });
    expect(explanation.matched).toBe(true);
    const root = explanation.root;
    if (root.kind !== "Collection") throw new Error("not a collection");
    expect(root.elements.length).toBe(MAX_EXPLAINED_CLAUSES - 1);
    expect(root.elements.length + root.omitted).toBe(list.length);
    expect(clauses(root).length).toBeLessThanOrEqual(MAX_EXPLAINED_CLAUSES);
    expect(formatExplanation(explanation)).toContain(`… ${root.omitted} more not shown`);
  });

  it("throws FilterSyntaxError for a filter that is not valid", () => {
    expect(() => explain("Status = 1", {})).toThrow(FilterSyntaxError);
    expect(() => explain(5 as unknown as string, {})).toThrow(TypeError);
  });

  it("prints a tree with the outcomes, what was found and what decided", () => {
    const text = formatExplanation(
      explain('Status == "running" and ("dc1" in Datacenters or Meta.zone == "a")', { Status: "running", Datacenters: ["dc2"], Meta: { zone: "a" } }),
    );
    expect(text).toBe(
      [
        'match: Status == "running" and ("dc1" in Datacenters or Meta.zone == "a")',
        "✓ and  ← decided",
        '  ✓ Status == "running"  (Status is "running")  ← decided',
        "  ✓ or  ← decided",
        '    ✗ "dc1" in Datacenters  (Datacenters is ["dc2"])',
        '    ✓ Meta.zone == "a"  (Meta.zone is "a")  ← decided',
        "",
      ].join("\n"),
    );
    expect(formatExplanation(explain("Nope == 1", {}))).toBe('error [missing_key]: error finding value in datum: /Nope at part 0: couldn\'t find key "Nope"\n! Nope == 1\n');
  });
});

describe("preview", () => {
  it.each([
    [{ a: [1, "x", null, true] }, '{"a":[1,"x",null,true]}'],
    [2n ** 64n, "18446744073709551616"],
    ["x".repeat(100), `"${"x".repeat(MAX_PREVIEW_LENGTH - 2)}…`],
  ])("writes value %# compactly, cut at the limit", (value, expected) => {
    expect(preview(value, MAX_PREVIEW_LENGTH)).toBe(expected);
  });

  it("stays within the limit whatever the value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 80 }), (value, max) => {
        const text = preview(value, max);
        expect(text.length).toBeLessThanOrEqual(max);
        const whole = JSON.stringify(value);
        if (whole.length <= max) expect(text).toBe(whole);
        else expect(text.endsWith("…")).toBe(true);
      }),
    );
  });
});
