/**
 * JSON with int64 exact: the fast writer gives lossless-json's bytes exactly, and the reader
 * lossless-json's values and error messages (it was lossless-json's `parse`, which built strings a
 * character at a time).
 */
import fc from "fast-check";
import { isInteger, LosslessNumber, parse, stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestingDepth, parseJson, stringifyJson } from "../src/json.js";
import { jsonTextArb, malformedJsonTextArb } from "./support/json-text.js";

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

/** What parseJson was: lossless-json's `parse`, integers beyond 2^53 as bigints, the last duplicate key winning. */
function losslessParse(text: string): unknown {
  return parse(text, null, {
    parseNumber: (number: string) => {
      if (isInteger(number)) {
        const value = BigInt(number);
        if (value < BigInt(Number.MIN_SAFE_INTEGER) || value > BigInt(Number.MAX_SAFE_INTEGER)) return value;
      }
      return Number(number);
    },
    onDuplicateKey: ({ newValue }) => newValue,
  });
}

/** The value `read` gives for `text`, or the error it throws (its class and message). */
function outcome(read: (text: string) => unknown, text: string): { value: unknown } | { error: string } {
  try {
    return { value: read(text) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** Whether every object of `value` has the prototype a parsed object has. */
function plainPrototypes(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (Object.getPrototypeOf(value) !== (Array.isArray(value) ? Array.prototype : Object.prototype)) return false;
  return Object.values(value).every(plainPrototypes);
}

describe("parseJson", () => {
  it("reads what lossless-json read: bigints beyond 2^53, escapes, duplicate and __proto__ keys", () => {
    fc.assert(
      fc.property(jsonTextArb, (text) => {
        expect(outcome(parseJson, text)).toEqual(outcome(losslessParse, text));
        expect(plainPrototypes(parseJson(text))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("refuses what lossless-json refused, with its message and position", () => {
    fc.assert(
      fc.property(malformedJsonTextArb, (text) => {
        expect(outcome(parseJson, text)).toEqual(outcome(losslessParse, text));
      }),
      { numRuns: 10000 },
    );
  });

  it.each<[string, unknown]>([
    ['{"SubmitTime":1717000000123456789,"Priority":50}', { SubmitTime: 1717000000123456789n, Priority: 50 }],
    ["[9007199254740991,9007199254740992,-9007199254740991,-9007199254740992]", [9007199254740991, 9007199254740992n, -9007199254740991, -9007199254740992n]],
    ["[1e400, 12345678901234567890.0, 1.50]", [Infinity, 12345678901234567000, 1.5]],
    ['{"a":1,"b":2,"a":"three"}', { a: "three", b: 2 }],
    ['{"a":1,"a":99999999999999999999}', { a: 99999999999999999999n }],
    ['"\\ud83d\\ude80 \\/ \\u00e9"', "🚀 / é"],
  ])("reads %s", (text, expected) => {
    expect(parseJson(text)).toEqual(expected);
  });

  it("keeps the sign of -0, and the last of duplicate keys even when they differ only there", () => {
    expect(Object.is(parseJson("-0"), -0)).toBe(true);
    expect(Object.is((parseJson('{"a":0,"a":-0}') as { a: number }).a, -0)).toBe(true);
    expect(Object.is((parseJson('{"a":-0,"a":0}') as { a: number }).a, 0)).toBe(true);
    expect(Object.is((parseJson("[-0, 99999999999999999999]") as unknown[])[0], -0)).toBe(true);
  });

  it.each(["", "{}", "[18446744073709551615]"])("keeps a __proto__ key as data, not as the prototype (beside %s)", (other) => {
    const text = `{"__proto__":{"polluted":true},"a":1${other === "" ? "" : `,"b":${other}`}}`;
    const value = parseJson(text) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)[0]).toBe("__proto__");
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: true });
    expect((value as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it.each([
    ["an array", (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`],
    ["an object", (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`],
    ["a big integer inside", (depth: number) => `${"[".repeat(depth)}18446744073709551615${"]".repeat(depth)}`],
  ])(`reads ${MAX_JSON_DEPTH} levels of %s and refuses one more, where it starts`, (_name, nested) => {
    expect(() => parseJson(nested(MAX_JSON_DEPTH))).not.toThrow();
    const deeper = nested(MAX_JSON_DEPTH + 1);
    const position = nestingDepth(deeper).position;
    expect(deeper[position]).toMatch(/[[{]/);
    expect(() => parseJson(deeper)).toThrow(new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep at position ${position}`));
    // Brackets in strings do not count; the depth is checked before the syntax.
    expect(parseJson(`["${"[".repeat(MAX_JSON_DEPTH + 1)}"]`)).toEqual(["[".repeat(MAX_JSON_DEPTH + 1)]);
    expect(() => parseJson(`${deeper} x`)).toThrow(/nested more than/);
  });
});
