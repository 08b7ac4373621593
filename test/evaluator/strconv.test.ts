import { describe, expect, it } from "vitest";
import { parseGoBool, parseGoFloat, parseGoInt, parseGoUint } from "../../src/go/strconv.js";

const value = <T>(parsed: { ok: true; value: T } | { ok: false; error: string }) => (parsed.ok ? parsed.value : parsed.error);

describe("Go's strconv.ParseInt(s, 0, 64)", () => {
  it.each([
    ["50", 50n],
    ["+50", 50n],
    ["-50", -50n],
    ["-0", 0n],
    ["0", 0n],
    ["0x32", 50n],
    ["0X32", 50n],
    ["0o62", 50n],
    ["0O62", 50n],
    ["0b110010", 50n],
    ["062", 50n],
    ["0_62", 50n],
    ["5_0", 50n],
    ["0x_32", 50n],
    ["1_000_000", 1_000_000n],
    ["9223372036854775807", 9223372036854775807n],
    ["-9223372036854775808", -9223372036854775808n],
    ["1717000000123456789", 1717000000123456789n],
  ])("reads %j as %s", (input, expected) => {
    expect(value(parseGoInt(input))).toBe(expected);
  });

  it.each([
    ["50.0", "invalid syntax"],
    ["1e2", "invalid syntax"],
    [" 50", "invalid syntax"],
    ["50 ", "invalid syntax"],
    ["", "invalid syntax"],
    ["-", "invalid syntax"],
    ["+-5", "invalid syntax"],
    ["08", "invalid syntax"],
    ["0x", "invalid syntax"],
    ["0b2", "invalid syntax"],
    ["5__0", "invalid syntax"],
    ["_50", "invalid syntax"],
    ["50_", "invalid syntax"],
    ["0x32_", "invalid syntax"],
    ["abc", "invalid syntax"],
    ["9223372036854775808", "value out of range"],
    ["-9223372036854775809", "value out of range"],
    ["99999999999999999999999", "value out of range"],
  ])("rejects %j: %s", (input, why) => {
    expect(value(parseGoInt(input))).toBe(`strconv.ParseInt: parsing ${JSON.stringify(input)}: ${why}`);
  });
});

describe("Go's strconv.ParseUint(s, 0, 64)", () => {
  it.each([
    ["50", 50n],
    ["0x32", 50n],
    ["18446744073709551615", 18446744073709551615n],
  ])("reads %j as %s", (input, expected) => {
    expect(value(parseGoUint(input))).toBe(expected);
  });

  it.each([
    ["-1", "invalid syntax"],
    ["+1", "invalid syntax"],
    ["-0", "invalid syntax"],
    ["18446744073709551616", "value out of range"],
  ])("rejects %j: %s", (input, why) => {
    expect(value(parseGoUint(input))).toBe(`strconv.ParseUint: parsing ${JSON.stringify(input)}: ${why}`);
  });
});

describe("Go's strconv.ParseFloat(s, 64)", () => {
  it.each([
    ["50", 50],
    ["50.0", 50],
    ["1e2", 100],
    ["1E2", 100],
    ["1e+2", 100],
    ["1e-2", 0.01],
    [".5", 0.5],
    ["5.", 5],
    ["+0.5", 0.5],
    ["-0.5", -0.5],
    ["062", 62],
    ["1_000.5", 1000.5],
    ["1e1_0", 1e10],
    ["0x1p-2", 0.25],
    ["0x1.8p1", 3],
    ["0X.8P1", 1],
    ["0x_1p0", 1],
    ["inf", Infinity],
    ["+Inf", Infinity],
    ["-infinity", -Infinity],
    ["0.1", 0.1],
    ["1e-400", 0],
    ["0x1p-1074", 5e-324],
    ["0x1.fffffffffffffp1023", Number.MAX_VALUE],
    ["0x1.00000000000008p0", 1],
    ["0x1.00000000000018p0", 1.0000000000000004],
    ["9007199254740993", 9007199254740992],
  ])("reads %j as %s", (input, expected) => {
    expect(value(parseGoFloat(input))).toBe(expected);
  });

  it("reads nan as NaN", () => {
    expect(Number.isNaN(value(parseGoFloat("NaN")))).toBe(true);
  });

  it.each([
    ["0x32", "invalid syntax"],
    ["0o62", "invalid syntax"],
    ["0b1", "invalid syntax"],
    ["", "invalid syntax"],
    [".", "invalid syntax"],
    ["1e", "invalid syntax"],
    ["1e+", "invalid syntax"],
    ["1_.5", "invalid syntax"],
    ["_1", "invalid syntax"],
    ["+nan", "invalid syntax"],
    ["infin", "invalid syntax"],
    [" 1", "invalid syntax"],
    ["1e400", "value out of range"],
    ["-1e400", "value out of range"],
    ["0x1p2000", "value out of range"],
    ["0x1.fffffffffffff8p1023", "value out of range"],
  ])("rejects %j: %s", (input, why) => {
    expect(value(parseGoFloat(input))).toBe(`strconv.ParseFloat: parsing ${JSON.stringify(input)}: ${why}`);
  });
});

describe("Go's strconv.ParseBool", () => {
  it.each([["1"], ["t"], ["T"], ["TRUE"], ["true"], ["True"]])("reads %j as true", (input) => {
    expect(value(parseGoBool(input))).toBe(true);
  });
  it.each([["0"], ["f"], ["F"], ["FALSE"], ["false"], ["False"]])("reads %j as false", (input) => {
    expect(value(parseGoBool(input))).toBe(false);
  });
  it.each([["yes"], ["tRuE"], ["no"], [""], [" true"], ["2"]])("rejects %j", (input) => {
    expect(value(parseGoBool(input))).toBe(`strconv.ParseBool: parsing ${JSON.stringify(input)}: invalid syntax`);
  });
});
