/**
 * Coercion of the literal to the kind of the field (filter-semantics.md §4), in map (number) mode:
 * integers within int64 are int64 (ParseInt base 0), other numbers float64 (ParseFloat), booleans
 * use ParseBool; strings compare the raw text. Plus int64 exactness with bigint (§9, §14.10).
 */
import { describe } from "vitest";
import { outcomeTable, type Outcome } from "./support.js";

type Row = readonly [string, Outcome];

const values = {
  Priority: 50,
  Zero: 0,
  Negative: -50,
  Max: 9223372036854775807n,
  Min: -9223372036854775808n,
  Ratio: 2.5,
  Tiny: 0.1,
  Huge: 1.5e300,
  Stop: false,
  Periodic: true,
  Name: "50",
  SubmitTime: 1717000000123456789n,
  Big: 2 ** 60,
  Imprecise: 1717000000123456789,
  BeyondInt64: 18446744073709551615n,
  NegativeZero: -0,
  TwoTo63: 2 ** 63,
  TenTo19: 1e19,
  MinusTwoTo63: -(2 ** 63),
};

function table(rows: readonly Row[]) {
  return outcomeTable(values, rows);
}

describe("int fields: strconv.ParseInt(raw, 0, 64)", () => {
  // §4 "int kinds": base prefixes, leading-0 octal, underscores and a sign are accepted.
  table([
    ["Priority == 50", true],
    ['Priority == "50"', true],
    ["Priority == `50`", true],
    ['Priority == "0x32"', true],
    ['Priority == "0X32"', true],
    ['Priority == "0o62"', true],
    ['Priority == "0O62"', true],
    ['Priority == "0b110010"', true],
    ['Priority == "062"', true],
    ['Priority == "62"', false],
    ['Priority == "5_0"', true],
    ['Priority == "0x_32"', true],
    ['Priority == "+50"', true],
    ['Negative == "-50"', true],
    ["Negative == -50", true],
    ['Negative == "-0x32"', true],
    ['Zero == "-0"', true],
    ["Zero == -0", true],
    ['Zero == "+0"', true],
    ['Zero == "00"', true],
    ['Zero == "0x0"', true],
    ["Max == 9223372036854775807", true],
    ["Min == -9223372036854775808", true],
    ['Max == "0x7fffffffffffffff"', true],
  ]);

  // §4: "It rejects `50.0`, `1e2`, `" 50"`, `""` and overflow, each as an evaluation error".
  table([
    ["Priority == 50.0", "invalid_literal"],
    ['Priority == "50.0"', "invalid_literal"],
    ['Priority == "1e2"', "invalid_literal"],
    ['Priority == " 50"', "invalid_literal"],
    ['Priority == "50 "', "invalid_literal"],
    ['Priority == ""', "invalid_literal"],
    ["Priority == -1.5", "invalid_literal"],
    ["Priority == 9223372036854775808", "invalid_literal"],
    ["Priority == -9223372036854775809", "invalid_literal"],
    ["Priority != 9223372036854775808", "invalid_literal"],
    ['Priority == "08"', "invalid_literal"],
    ['Priority == "0x"', "invalid_literal"],
    ['Priority == "_50"', "invalid_literal"],
    ['Priority == "50_"', "invalid_literal"],
    ['Priority == "5__0"', "invalid_literal"],
    ['Priority == "--50"', "invalid_literal"],
    ['Priority == "٥٠"', "invalid_literal"],
    ["Priority == high", "invalid_literal"],
    // §1 "Bare words": the right-hand selector is the text "JobModifyIndex", which no int parses.
    ["Priority != JobModifyIndex", "invalid_literal"],
  ]);
});

describe("float fields: strconv.ParseFloat", () => {
  // §4 "float64 (… JS numbers)": `50.0` matches 50, `"1e2"` is 100, base prefixes are errors.
  table([
    ["Ratio == 2.5", true],
    ['Ratio == "2.50"', true],
    ['Ratio == "25e-1"', true],
    ['Ratio == "0.25E1"', true],
    ['Ratio == "+2.5"', true],
    ['Ratio == "2.5e0"', true],
    ["Ratio == 2.50", true],
    ["Ratio == -2.5", false],
    ['Tiny == "0.1"', true],
    ['Tiny == ".1"', true],
    ['Tiny == "1e-1"', true],
    ['Huge == "1.5e300"', true],
    ['Huge == "15e299"', true],
    // ParseFloat also reads Go's hexadecimal floats (a `p` exponent is required) and Inf/NaN.
    ['Ratio == "0x1.4p1"', true],
    ['Ratio != "Inf"', true],
    ['Ratio != "NaN"', true],
    ['Ratio == "0x32"', "invalid_literal"],
    ['Ratio == "0o62"', "invalid_literal"],
    ['Ratio == "0b10"', "invalid_literal"],
    ['Ratio == " 2.5"', "invalid_literal"],
    ['Ratio == ""', "invalid_literal"],
    ['Ratio == "2.5x"', "invalid_literal"],
    ['Ratio == "two"', "invalid_literal"],
    // Out of float64 range: ParseFloat returns ErrRange, an error.
    ['Ratio == "1e400"', "invalid_literal"],
  ]);
});

describe("bool fields: strconv.ParseBool", () => {
  // §4 "bool": accepts `1 t T TRUE true True 0 f F FALSE false False`; `yes` and `tRuE` are errors.
  table([
    ["Periodic == 1", true],
    ["Periodic == t", true],
    ["Periodic == T", true],
    ["Periodic == TRUE", true],
    ["Periodic == true", true],
    ["Periodic == True", true],
    ['Periodic == "true"', true],
    ["Periodic == 0", false],
    ["Periodic == false", false],
    ["Stop == 0", true],
    ["Stop == f", true],
    ["Stop == F", true],
    ["Stop == FALSE", true],
    ["Stop == false", true],
    ["Stop == False", true],
    ["Stop == 1", false],
    ["Stop == T", false],
    ["Stop != T", true],
    ["Stop == yes", "invalid_literal"],
    ["Stop == tRuE", "invalid_literal"],
    ["Stop == no", "invalid_literal"],
    ['Stop == ""', "invalid_literal"],
    ['Stop == " false"', "invalid_literal"],
    ["Stop == 2", "invalid_literal"],
    ["Stop == 00", "syntax:invalid_number"],
    ['Stop == "00"', "invalid_literal"],
  ]);
});

describe("string fields: the raw text", () => {
  // §4 "string: the raw text, with no trimming or case folding" — numbers are not normalised either.
  table([
    ["Name == 50", true],
    ['Name == "50"', true],
    ["Name == 50.0", false],
    ['Name == "0x32"', false],
    ['Name == " 50"', false],
  ]);
});

describe("int64 exactness", () => {
  // §9 "integers above 2^53 lose precision" in float64 mode only; number mode compares int64 exactly
  // (a bigint is an exact int64; a JS number that is an integer within int64 is that int64).
  table([
    ["SubmitTime == 1717000000123456789", true],
    ["SubmitTime == 1717000000123456790", false],
    ["SubmitTime != 1717000000123456790", true],
    ["SubmitTime == 1717000000123456788", false],
    ['SubmitTime == "0x17d402672eb44d15"', true],
    ['SubmitTime == "0137240046345655046425"', true],
    ['SubmitTime == "0x17d402672eb44d16"', false],
    ["Big == 1152921504606846976", true],
    ["Big == 1152921504606846977", false],
    // The JS number 1717000000123456789 is the double 1717000000123456768.
    ["Imprecise == 1717000000123456768", true],
    ["Imprecise == 1717000000123456789", false],
    ["NegativeZero == 0", true],
    ['NegativeZero == "-0"', true],
    // Beyond int64, json.Number falls back to float64: the literal is parsed as a float and both
    // round to 2^64.
    ["BeyondInt64 == 18446744073709551615", true],
    ["BeyondInt64 == 18446744073709551614", true],
    ["BeyondInt64 == 18446744073709551615.0", true],
    // A JS number at or beyond 2^63 is not an int64 either: 9223372036854775807 parses to the same double.
    ["TwoTo63 == 9223372036854775807", true],
    ["TwoTo63 == 9223372036854775808", true],
    ["TenTo19 == 10000000000000000000", true],
    ['TenTo19 == "0x8AC7230489E80000"', "invalid_literal"],
    // -2^63 is an int64, compared exactly.
    ["MinusTwoTo63 == -9223372036854775808", true],
    ["MinusTwoTo63 == -9223372036854775807", false],
  ]);
});
