/**
 * JSON null in map mode (filter-semantics.md §3 "Invalid" row, §14.5 "null is not empty"): a null
 * that is present is a value of the Invalid kind, not a missing key.
 */
import { describe } from "vitest";
import { outcomeTable, type Outcome } from "./support.js";

const value = {
  Multiregion: null,
  Meta: { nothing: null, owner: "team-a" },
  WithNull: [null, "a"],
  OnlyNulls: [null, null],
};

function table(rows: ReadonlyArray<readonly [string, Outcome]>) {
  return outcomeTable(value, rows);
}

describe("a null value", () => {
  // §14.5: "In map mode, `is empty`, `in`, `==` and `contains` on JSON null are errors, `is nil` is
  // true, and `matches` panics" (nil_value, decision 1).
  table([
    ["Multiregion is nil", true],
    ["Multiregion is not nil", false],
    ["Multiregion is empty", "unsupported_operand"],
    ["Multiregion is not empty", "unsupported_operand"],
    ['Multiregion == ""', "unsupported_operand"],
    ["Multiregion == null", "unsupported_operand"],
    ["Multiregion != nil", "unsupported_operand"],
    ['"" in Multiregion', "unsupported_operand"],
    ['Multiregion contains ""', "unsupported_operand"],
    ['Multiregion matches ".*"', "nil_value"],
    ['Multiregion not matches ".*"', "nil_value"],
  ]);
});

describe("a null under a map is present, not missing", () => {
  // §2 disposition applies to a missing key only; a key holding null resolves to null (§3 Invalid).
  table([
    ["Meta.nothing is nil", true],
    ["Meta.nothing is not nil", false],
    ["Meta.nothing is empty", "unsupported_operand"],
    ['Meta.nothing == "x"', "unsupported_operand"],
    ['Meta.nothing != "x"', "unsupported_operand"],
    ['"x" in Meta.nothing', "unsupported_operand"],
    ['Meta.nothing matches "x"', "nil_value"],
    ['"nothing" in Meta', true],
    // Compare with the missing key next to it, which takes the disposition.
    ['Meta.missing == "x"', false],
    ["Meta.missing is empty", true],
  ]);
});

describe("null elements", () => {
  // §3 Invalid row through an index or a binding; §2 a null parent with more segments is an error.
  table([
    ["WithNull.0 is nil", true],
    ["WithNull.1 is nil", "unsupported_operand"],
    ['WithNull.0 == "x"', "unsupported_operand"],
    ["WithNull.0.x is nil", "invalid_path"],
    ["WithNull is nil", false],
    ["WithNull is empty", false],
    ["all OnlyNulls as x { x is nil }", true],
    ['any WithNull as x { x == "a" }', "unsupported_operand"],
    ['any WithNull as x { x is nil }', true],
    ['all WithNull as x { x is not nil }', false],
  ]);
});
