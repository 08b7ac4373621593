/**
 * A rename the language server allows never changes what a filter means: for random filters (with
 * nested `any`/`all`, every binding form, names shared by variables and fields), one of their
 * variables renamed to one of those names or a fresh one, the renamed filter gives every random
 * object the result, or the evaluation error, the filter gave it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyTokens, renameVariable } from "../../src/editor/structure.js";
import { compileFilter, FilterError } from "../../src/index.js";
import { print } from "../../src/parser/printer.js";
import { datumArb, expressionArb, FIELDS, scopedDatumArb, scopedExpressionArb } from "../support/arbitraries.js";

/** The new names tried: the generated variables' names, the fields', and one neither uses. */
const NEW_NAMES = ["x", "v", "k", "item", ...FIELDS, "fresh"];

/**
 * Generated filters that bind at least one variable, printed: any filter, and nested scopes over
 * names that are variables in some and fields in others.
 */
const bindingFilterArb = fc
  .oneof(expressionArb, scopedExpressionArb)
  .map(print)
  .filter((source) => classifyTokens(source).some((token) => token.declaration));

/** The results of `source` for each datum, or the code of the error it throws (at compile time too: an invalid pattern). */
function outcomes(source: string, data: readonly unknown[]): (boolean | string)[] {
  try {
    const filter = compileFilter(source);
    return data.map((datum) => {
      try {
        return filter.test(datum);
      } catch (error) {
        if (error instanceof FilterError) return error.code;
        throw error;
      }
    });
  } catch (error) {
    if (error instanceof FilterError) return data.map(() => error.code);
    throw error;
  }
}

describe("renaming a variable", () => {
  it("keeps every result and error of the filter when it is allowed", () => {
    const answers = new Map<string, number>();
    fc.assert(
      fc.property(bindingFilterArb, fc.array(fc.oneof(datumArb, scopedDatumArb), { minLength: 2, maxLength: 6 }), (source, data) => {
        const declarations = classifyTokens(source).filter((token) => token.declaration);
        // Every variable to every name tried and to the names of the filter's other variables, where shadowing is.
        const names = new Set([...NEW_NAMES, ...declarations.map((token) => source.slice(token.start, token.end))]);
        const expected = outcomes(source, data);
        for (const declaration of declarations) {
          for (const newName of names) {
            const rename = renameVariable(source, declaration.start, newName);
            const answer = rename.kind === "refused" ? rename.code : rename.kind;
            answers.set(answer, (answers.get(answer) ?? 0) + 1);
            if (rename.kind === "refused") continue;
            const renamed = [...rename.spans].sort((a, b) => b.start - a.start).reduce((text, span) => text.slice(0, span.start) + newName + text.slice(span.end), source);
            expect(outcomes(renamed, data), renamed).toEqual(expected);
          }
        }
      }),
      { numRuns: 600 },
    );
    // Each answer comes often enough for the property to say something about it (a quarter to a
    // sixth of what a run gives; shadowing needs a use of a variable inside a nested collection).
    const least = { renamed: 3000, captured_reference: 300, bound_twice: 300, pointer_use: 100, shadowed_use: 10 };
    for (const [answer, count] of Object.entries(least)) expect(answers.get(answer) ?? 0, answer).toBeGreaterThan(count);
  });
});
