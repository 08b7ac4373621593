/** JSON written with int64 exact: the fast writer gives lossless-json's bytes exactly. */
import fc from "fast-check";
import { LosslessNumber, stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "../src/json.js";

/** JSON-like values with bigints beyond 2^53 and numbers kept as their text. */
const valueArb: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string({ unit: "binary" }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
    fc.constantFrom("1.50", "-0", "1e400", "12345678901234567890").map((text) => new LosslessNumber(text)),
    fc.constantFrom("bexpr-number-0000:1", '"quoted"', "\u2028"),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("stringifyJson", () => {
  it("writes what lossless-json writes, compact and pretty", () => {
    fc.assert(
      fc.property(valueArb, fc.boolean(), (value, pretty) => {
        const expected = pretty ? `${stringify(value, null, 4)}\n` : stringify(value);
        expect(stringifyJson(value, pretty)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps int64 exact both ways", () => {
    const text = '{"SubmitTime":1717000000123456789,"Priority":50,"Ratio":0.5}';
    expect(stringifyJson(parseJson(text))).toBe(text);
  });
});
