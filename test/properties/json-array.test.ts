/**
 * A list answer's bytes (`list/json-array.ts`) are those of its items joined as a JSON array and
 * encoded, whatever the items hold: non-ASCII text, characters outside the BMP, lone surrogates.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonArrayBytes } from "../../src/server/list/json-array.js";

const joined = (items: readonly string[]) => Buffer.from(`[${items.join(",")}]`);

describe("jsonArrayBytes", () => {
  it.each([
    ["no item", []],
    ["one item", ['{"ID":"a"}']],
    ["two-byte and four-byte characters", ['{"Name":"é"}', '"😀"', '"\u2028"']],
    ["a lone surrogate", ['"\ud800"', '"x\udc00y"']],
    ["empty texts", ["", "", ""]],
  ])("writes %s as the joined text's bytes", (_, items) => {
    expect(jsonArrayBytes(items).equals(joined(items))).toBe(true);
  });

  it("writes any items as the joined text's bytes", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: "binary" }), fc.json(), fc.string({ unit: "grapheme" }))), (items) => {
        expect(jsonArrayBytes(items).equals(joined(items))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
