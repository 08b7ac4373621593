/**
 * `in` over decoded JSON arrays (filter-semantics.md §3, last paragraph; deliberate decision 5):
 * the literal is coerced per element by that element's kind, elements whose coercion fails with a
 * syntax error are skipped, numbers inside arrays are json.Number (compared by their decimal text,
 * String(n)), objects and arrays are errors, null is a go-bexpr panic (nil_value here).
 */
import { describe } from "vitest";
import { outcomeTable, type Outcome } from "./support.js";

const value = {
  Mixed: [true, 5, "x"],
  Falses: [false],
  Ints: [5],
  Floats: [1.5],
  Tiny: [0.1],
  Exp: [1e21],
  Big: [2 ** 60],
  NegativeZero: [-0],
  BigInts: [1717000000123456789n],
  Strings: ["dc1"],
  Objects: [{}],
  Nested: [[1]],
  ObjectAfter: ["a", {}],
  NullAfter: ["a", null],
  NullFirst: [null, "a"],
  OnlyNulls: [null, null],
};

function table(rows: ReadonlyArray<readonly [string, Outcome]>) {
  return outcomeTable(value, rows);
}

describe("elements of mixed kinds", () => {
  // §3: "`"5" in X` is true for `X = [true, 5]`"; bools use ParseBool, strings compare exactly.
  table([
    ['"5" in Mixed', true],
    ["5 in Mixed", true],
    ['"true" in Mixed', true],
    ['"1" in Mixed', true],
    ['"t" in Mixed', true],
    ['"x" in Mixed', true],
    ['"X" in Mixed', false],
    ['"yes" in Mixed', false],
    ['"false" in Mixed', false],
    ['"yes" not in Mixed', true],
    ['"0" in Falses', true],
    ['"f" in Falses', true],
    ['"true" in Falses', false],
    ['"dc1" in Strings', true],
    ["dc in Strings", false],
  ]);
});

describe("numbers inside arrays are compared as text", () => {
  // Decision 5: numbers inside JSON arrays are json.Number, compared by String(n) for `in`.
  table([
    ["5 in Ints", true],
    ['"05" in Ints', false],
    ['"5.0" in Ints', false],
    ['"0x5" in Ints', false],
    ['"+5" in Ints', false],
    ['"1.5" in Floats', true],
    ['"1.50" in Floats', false],
    ['"0.1" in Tiny', true],
    ['"1e+21" in Exp', true],
    ['"1000000000000000000000" in Exp', false],
    ['"1152921504606847000" in Big', true],
    ['"1152921504606846976" in Big', false],
    ['"0" in NegativeZero', true],
    ['"-0" in NegativeZero', false],
    ["1717000000123456789 in BigInts", true],
    ["1717000000123456790 in BigInts", false],
  ]);

  // §3: "In map mode a json.Number is first turned into int64, or float64" when it is the selected
  // value itself, so an element reached by index is coerced as a number.
  table([
    ['Ints.0 == "0x5"', true],
    ["Ints.0 == 5", true],
    ['Floats.0 == "1.50"', true],
    ["BigInts.0 == 1717000000123456789", true],
    ["BigInts.0 == 1717000000123456790", false],
    ['any Ints as n { n == "0x5" }', true],
    ['any Floats as n { n == "1.50" }', true],
  ]);
});

describe("objects, arrays and null inside arrays", () => {
  // §3: "A JSON `null` element causes a Go panic. An object element causes an error." Both only
  // when the loop reaches them.
  table([
    ['"a" in Objects', "unsupported_operand"],
    ['"a" in Nested', "unsupported_operand"],
    ['"a" in ObjectAfter', true],
    ['"b" in ObjectAfter', "unsupported_operand"],
    ['"b" not in ObjectAfter', "unsupported_operand"],
    ['"a" in NullAfter', true],
    ['"b" in NullAfter', "nil_value"],
    ['"b" not in NullAfter', "nil_value"],
    ['NullAfter contains "b"', "nil_value"],
    ['"a" in NullFirst', "nil_value"],
    ['"a" in OnlyNulls', "nil_value"],
  ]);
});
