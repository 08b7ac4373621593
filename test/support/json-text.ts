/**
 * fast-check arbitraries of JSON text as people and programs write it: whitespace anywhere,
 * escapes of every kind, integers beyond 2^53, numbers in every form, duplicate and `__proto__`
 * keys; and of text that is almost JSON (a character dropped, added or changed, or cut short),
 * so that a reader's values and its error messages can be compared with another's.
 */
import fc from "fast-check";

const whitespace = fc.constantFrom("", "", "", " ", "\n", "\t", "\r\n", "  ");

/** Numbers in the forms JSON allows, integers beyond 2^53 among them. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom("9007199254740991", "9007199254740992", "-9007199254740991", "-9007199254740992", "1717000000123456789", "18446744073709551615"),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.constantFrom("0", "-0", "1.50", "1e400", "-1e400", "1E+2", "0.1e-5", "2e-400", "12345678901234567890.0", "9007199254740993e0"),
);

/** A string escaped as JSON.stringify escapes it, or with every character as `\uXXXX`, or with `\/`. */
const stringText = fc.oneof(
  { arbitrary: fc.string({ unit: "binary", maxLength: 12 }).map((value) => JSON.stringify(value)), weight: 4 },
  fc.string({ unit: "binary", maxLength: 6 }).map((value) => `"${Array.from({ length: value.length }, (_, k) => `\\u${value.charCodeAt(k).toString(16).padStart(4, "0")}`).join("")}"`),
  fc.constantFrom('"a\\/b"', '"\\b\\f\\n\\r\\t\\"\\\\"', '"\\uD83D\\ude80"', '"\\ud800"', '"a string longer than twelve characters"'),
);

/** Keys from a small set, so that objects often repeat one; `__proto__` among them. */
const keyText = fc.oneof(fc.constantFrom("a", "b", "__proto__", "constructor", "0", "toString", "").map((key) => JSON.stringify(key)), stringText);

/** JSON text: one value, with whitespace around its tokens. */
export const jsonTextArb: fc.Arbitrary<string> = fc.letrec<{ value: string; element: string }>((tie) => ({
  element: fc.tuple(whitespace, tie("value"), whitespace).map((parts) => parts.join("")),
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberText,
    stringText,
    fc.constantFrom("true", "false", "null"),
    fc.array(tie("element"), { maxLength: 4 }).chain((elements) => whitespace.map((space) => `[${elements.length === 0 ? space : elements.join(",")}]`)),
    fc
      .array(fc.tuple(whitespace, keyText, whitespace, tie("element")), { maxLength: 4 })
      .chain((entries) => whitespace.map((space) => `{${entries.length === 0 ? space : entries.map(([before, key, after, element]) => `${before}${key}${after}:${element}`).join(",")}}`)),
  ),
})).element;

/** The characters a mistake is made of: JSON's own, a control character, and letters. */
const mistake = fc.constantFrom("{", "}", "[", "]", '"', ":", ",", "\\", "-", "+", ".", "e", "E", "0", "1", "t", "f", "n", "u", "x", " ", "\n", "\u0001", "\u00e9", "\ud83d");

/** Text that is probably not JSON: a JSON text with one character dropped, added or changed, or cut short. */
export const malformedJsonTextArb: fc.Arbitrary<string> = jsonTextArb.chain((text) =>
  fc.integer({ min: 0, max: text.length }).chain((at) =>
    fc.oneof(
      fc.constant(text.slice(0, at) + text.slice(at + 1)),
      mistake.map((character) => text.slice(0, at) + character + text.slice(at)),
      mistake.map((character) => text.slice(0, at) + character + text.slice(at + 1)),
      fc.constant(text.slice(0, at)),
    ),
  ),
);
