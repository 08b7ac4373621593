import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FilterSyntaxError, parse, print } from "../../src/index.js";
import { analyze } from "../../src/parser/parse.js";
import { expressionArb, sourceArb } from "../support/arbitraries.js";
import { withoutSpans } from "../support/show.js";

describe("parsing properties", () => {
  it("parses the printed form of any AST back to the same AST", () => {
    fc.assert(
      fc.property(expressionArb, (ast) => {
        const printed = print(ast);
        expect(withoutSpans(parse(printed))).toEqual(withoutSpans(ast));
      }),
      { numRuns: 5000 },
    );
  });

  it("prints a fixed point: print(parse(print(e))) is print(e)", () => {
    fc.assert(
      fc.property(expressionArb, (ast) => {
        const printed = print(ast);
        expect(print(parse(printed))).toBe(printed);
      }),
      { numRuns: 2000 },
    );
  });

  it("throws nothing but a FilterSyntaxError on arbitrary input", () => {
    fc.assert(
      fc.property(sourceArb, (source) => {
        try {
          parse(source);
        } catch (error) {
          expect(error).toBeInstanceOf(FilterSyntaxError);
          const syntax = error as FilterSyntaxError;
          expect(syntax.diagnostics.length).toBeGreaterThan(0);
          for (const d of syntax.diagnostics) {
            expect(d.span.start).toBeGreaterThanOrEqual(0);
            expect(d.span.end).toBeLessThanOrEqual(source.length);
            expect(d.span.start).toBeLessThanOrEqual(d.span.end);
          }
        }
      }),
      { numRuns: 20000 },
    );
  });

  it("never crashes while recovering from errors (the editor mode)", () => {
    fc.assert(
      fc.property(sourceArb, (source) => {
        const analysis = analyze(source, { recover: true });
        expect(Array.isArray(analysis.diagnostics)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("does work linear in the number of tokens: the lookahead visits at most a few tokens per token", () => {
    fc.assert(
      fc.property(sourceArb, (source) => {
        const { lookaheadSteps, tokens } = analyze(source, { recover: false });
        expect(lookaheadSteps).toBeLessThanOrEqual(8 * tokens.length + 8);
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ["a chain of 20,000 nots", `${"not ".repeat(20_000)}x == 1`],
    ["a chain of nots ending in a keyword match", `${"not ".repeat(20_000)}in X`],
    ["20,000 clauses joined by or", Array.from({ length: 5_000 }, (_, i) => `a == ${i}`).join(" or ")],
  ])("keeps the lookahead linear on %s", (_name, source) => {
    const { lookaheadSteps, tokens } = analyze(source, { recover: false });
    expect(lookaheadSteps).toBeLessThanOrEqual(8 * tokens.length + 8);
  });
});
