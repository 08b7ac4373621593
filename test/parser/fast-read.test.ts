/**
 * The hand-written fast path of `parse` must read exactly what the Chevrotain parser reads, or
 * give up: for every source, either it gives up, or the full parser accepts the source and
 * builds the same AST (spans included).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { print } from "../../src/index.js";
import { DEFAULT_LIMITS, resolveLimits } from "../../src/limits.js";
import { fastRead } from "../../src/parser/fast-read.js";
import { analyze } from "../../src/parser/parse.js";
import { expressionArb, sourceArb } from "../support/arbitraries.js";

/** What the full parser makes of `source`: its AST when it has no error. */
function fullParse(source: string, limits = DEFAULT_LIMITS) {
  const analysis = analyze(source, { recover: false, limits });
  return analysis.diagnostics.some((d) => d.severity === "error") ? undefined : analysis.expression;
}

/** Checks one source; whether the fast path read it. */
function agrees(source: string, limits = DEFAULT_LIMITS): boolean {
  const fast = fastRead(source, resolveLimits(limits));
  if (fast === undefined) return false;
  expect(fast, source).toEqual(fullParse(source, limits));
  return true;
}

describe("the fast path of parse", () => {
  it.each([
    'Status == "running"',
    'Status != "dead" and Priority == 50',
    '(Status == "running" or Status == "pending") and not Stop == true',
    'Name matches "^web" and Name not matches `-canary$`',
    '"dc1" in Datacenters and "dc9" not in Datacenters',
    'Datacenters contains "dc1" or Datacenters not contains "dc2"',
    'Meta.owner is empty or Meta["web-api"] is not empty or Multiregion is nil or Update is not nil',
    'JobSummary.Summary["web-api"].Running == 3 and Items.0.Name == x',
    "Priority == -5.25 and Count == 0",
    'not not (Status == "a")',
    "not (not (A == 1))",
    "((((a == 1))))",
    'Meta/owner == "x"',
    "Status == null",
    'Status == "a\\tb\\x41"',
    'Status == "" and "" in Tags and Meta[""] != ``',
    "a == 1 or (b == 2 and (c == 3 or d == 4))",
    "any Datacenters as dc { dc == 1 }",
    '(any Datacenters as dc { dc matches "^dc[12]$" }) and (all Meta as k, v { v != "" })',
    'Status == "x" or all Meta as _, v { v is not empty }',
    "any TaskGroups as i, _{any Tasks as t{t == `a`}}",
    "not (all Meta as k , v { k == v or v != \"\" })",
    "any  Items  as  x\n{\tx.Name == \"a\" }",
  ])("reads %s as the full parser does", (source) => {
    expect(agrees(source)).toBe(true);
  });

  it.each([
    // Left to the full parser: pointers, unusual spacing, keywords as names, errors.
    "any Datacenters as dc { dc == 1}",
    "any == 1",
    "any in Datacenters",
    "any Datacenters as dc { dc == 1 } and a == 1",
    "any Datacenters as dc { dc == 1 } or a == 1",
    "a == 1 and any Datacenters as dc { dc == 1 }",
    "not any Datacenters as dc { dc == 1 }",
    "any Datacenters as in { in == 1 }",
    "any Datacenters as _ { a == 1 }",
    "any Datacenters as _, _ { a == 1 }",
    "any Datacenters as _x, y { a == 1 }",
    "any Datacenters as dc, v_ w { a == 1 }",
    "any Datacenters as dc dc == 1",
    "any Datacenters as dc { dc == 1",
    'any "/Datacenters" as dc { dc == 1 }',
    "any Datacenters.0 as{ dc == 1 }",
    "any Datacentersas dc { dc == 1 }",
    "anyDatacenters as dc { dc == 1 }",
    "any(Datacenters) as dc { dc == 1 }",
    '"/Status" == "running"',
    'Status == "/x"',
    '(a == 1)and(b == 2)',
    'a == "x"or b == 1',
    "Meta[ \"x\" ] == 1",
    "Meta .owner == 1",
    "in == 1",
    "Status == empty",
    "a.in == 1",
    "Priority == 0x32",
    "Priority == 050",
    "x == 1e3",
    'Status === "a"',
    "Status = 1",
    "!Stop",
    "not(Stop == true)",
    "not not(a == 1)",
    "Stop",
    'Status == "a" Name == "b"',
    '"a" == Status',
    "a == b.c",
    'Status == "unterminated',
    'Status == "\\q"',
    "",
  ])("leaves %j to the full parser", (source) => {
    expect(fastRead(source, DEFAULT_LIMITS)).toBeUndefined();
  });

  it("gives up at a limit, so that the full parser reports it", () => {
    const limits = resolveLimits({ maxNestingDepth: 3, maxClauses: 2 });
    expect(fastRead("((((a == 1))))", limits)).toBeUndefined();
    expect(fastRead("a == 1 or b == 2 or c == 3", limits)).toBeUndefined();
    expect(fastRead("a == 1 or b == 2", limits)).toBeDefined();
    expect(fastRead('a == "12345"', resolveLimits({ maxSourceLength: 5 }))).toBeUndefined();
    // Collection bodies nest as parentheses do, and a collection is a clause.
    expect(fastRead("(any a as x { (any b as y { (c == 1) }) })", limits)).toBeUndefined();
    expect(fastRead("any a as x { any b as y { c == 1 } }", limits)).toBeUndefined();
    expect(fastRead("any a as x { c == 1 }", limits)).toBeDefined();
  });

  it("reads every printed expression it takes as the full parser does, and takes most of them", () => {
    let read = 0;
    let total = 0;
    fc.assert(
      fc.property(expressionArb, (expression) => {
        const source = print(expression);
        total++;
        if (agrees(source)) read++;
      }),
      { numRuns: 5000 },
    );
    expect(read / total).toBeGreaterThan(0.3);
  });

  it("agrees with the full parser on arbitrary sources, valid or not", () => {
    fc.assert(
      fc.property(sourceArb, (source) => {
        agrees(source);
      }),
      { numRuns: 20_000 },
    );
  });

  it("agrees with the full parser whatever the whitespace between tokens", () => {
    const space = fc.constantFrom("", " ", "  ", "\t", "\n", " \r\n ");
    fc.assert(
      fc.property(expressionArb, fc.array(space, { minLength: 64, maxLength: 64 }), (expression, spaces) => {
        // Re-space the printed source at its existing spaces, parentheses, braces and commas.
        let k = 0;
        const source = print(expression).replace(/ |\(|\)|\{|\}|,/g, (match) => (match === " " ? spaces[k++ % 64]! : match === "(" || match === "{" ? `${match}${spaces[k++ % 64]}` : `${spaces[k++ % 64]}${match}`));
        agrees(source);
      }),
      { numRuns: 5000 },
    );
  });
});
