import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { format, FilterSyntaxError, parse, print } from "../../src/index.js";
import { expressionArb } from "../support/arbitraries.js";
import { withoutSpans } from "../support/show.js";

describe("format", () => {
  it.each([
    ['(Status=="running")  and  ((Meta["owner"] == `team-a`))', 'Status == "running" and Meta.owner == "team-a"'],
    ["a == 1 or (b == 2 and c == 3)", "a == 1 or b == 2 and c == 3"],
    ["(a == 1 or b == 2) and c == 3", "(a == 1 or b == 2) and c == 3"],
    ["not (a == 1 and b == 2)", "not (a == 1 and b == 2)"],
    ["not not Stop == true", "Stop == true"],
    ['Stop == "false"', "Stop == false"],
    ["Status == running", 'Status == "running"'],
    ["Priority == 50", "Priority == 50"],
    ['Tags  contains   "x"', 'Tags contains "x"'],
    ['"x"   in Tags', '"x" in Tags'],
    ["Name matches `^web-\\d+$`", "Name matches `^web-\\d+$`"],
    ['Name matches "^web-\\\\d+$"', "Name matches `^web-\\d+$`"],
    ['Meta["web-api"] is not empty', 'Meta["web-api"] is not empty'],
    ['"/Meta/owner" == x', '"/Meta/owner" == "x"'],
    ["any  TaskGroups as g {g.Count==1 }", "any TaskGroups as g { g.Count == 1 }"],
    ['Status == "running"\n  and\tStop == false', 'Status == "running" and Stop == false'],
  ])("writes %j as %j", (source, expected) => {
    expect(format(source)).toBe(expected);
    // The canonical form means the same, and is its own canonical form.
    expect(withoutSpans(parse(expected))).toEqual(withoutSpans(parse(source)));
    expect(format(expected)).toBe(expected);
  });

  it("is idempotent and keeps the meaning of any expression", () => {
    fc.assert(
      fc.property(expressionArb, (ast) => {
        const once = format(print(ast));
        expect(format(once)).toBe(once);
        expect(withoutSpans(parse(once))).toEqual(withoutSpans(ast));
      }),
      { numRuns: 2000 },
    );
  });

  it("throws a FilterSyntaxError for a filter that is not valid", () => {
    expect(() => format("Status == ")).toThrow(FilterSyntaxError);
  });
});
