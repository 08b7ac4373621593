/**
 * Go's `strconv` parsing functions, which the reference uses to coerce a literal to the kind of
 * the value it meets: `ParseInt(s, 0, 64)`, `ParseUint(s, 0, 64)`, `ParseFloat(s, 64)` and
 * `ParseBool(s)`, with their accepted syntax (base prefixes, `_` separators, a leading `0` meaning
 * octal, `inf`/`nan`, hex floats) and their error texts.
 *
 * Integers are returned as `bigint` so that int64 values above 2^53 stay exact.
 *
 * @module
 */
import { goQuote } from "./strings.js";

/** A coercion outcome: the value, or Go's error text and whether it was a syntax error. */
export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string; readonly syntax: boolean };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A failed conversion. Its text is built only when read: a literal is converted to every kind when
 * it is compiled, and most of those conversions fail without their error ever being shown.
 */
class Failure {
  readonly ok = false;

  constructor(
    private readonly fn: string,
    private readonly input: string,
    readonly syntax: boolean,
  ) {}

  get error(): string {
    return `strconv.${this.fn}: parsing ${goQuote(this.input)}: ${this.syntax ? "invalid syntax" : "value out of range"}`;
  }
}

function syntaxError(fn: string, input: string): Parsed<never> {
  return new Failure(fn, input, true);
}

function rangeError(fn: string, input: string): Parsed<never> {
  return new Failure(fn, input, false);
}


function lower(ch: string): string {
  return ch.toLowerCase();
}

/** Go's `underscoreOK`: underscores may only separate digits (a base prefix counts as a digit). */
function underscoreOK(input: string): boolean {
  let s = input;
  let saw = "^";
  let i = 0;
  if (s.length >= 1 && (s[0] === "-" || s[0] === "+")) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "box".includes(lower(s[1]!))) {
    i = 2;
    saw = "0";
    hex = lower(s[1]!) === "x";
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= "0" && c <= "9") || (hex && lower(c) >= "a" && lower(c) <= "f")) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** `strconv.ParseUint(s, 0, 64)`, reporting errors under the name `fn` and the text `reported`. */
function parseUnsigned(input: string, fn: string, reported: string): Parsed<bigint> {
  if (input === "") return syntaxError(fn, reported);
  let base = 10n;
  let digits = input;
  if (input[0] === "0") {
    const prefix = input.length >= 3 ? lower(input[1]!) : "";
    if (prefix === "b") [base, digits] = [2n, input.slice(2)];
    else if (prefix === "o") [base, digits] = [8n, input.slice(2)];
    else if (prefix === "x") [base, digits] = [16n, input.slice(2)];
    else [base, digits] = [8n, input.slice(1)];
  }
  let n = 0n;
  let underscores = false;
  for (const c of digits) {
    let d: number;
    if (c === "_") {
      underscores = true;
      continue;
    } else if (c >= "0" && c <= "9") d = c.charCodeAt(0) - 48;
    else if (lower(c) >= "a" && lower(c) <= "z") d = lower(c).charCodeAt(0) - 97 + 10;
    else return syntaxError(fn, reported);
    if (BigInt(d) >= base) return syntaxError(fn, reported);
    n = n * base + BigInt(d);
    if (n > UINT64_MAX) return rangeError(fn, reported);
  }
  if (underscores && !underscoreOK(input)) return syntaxError(fn, reported);
  return { ok: true, value: n };
}

/** Go's `strconv.ParseInt(s, 0, 64)`. */
export function parseGoInt(input: string): Parsed<bigint> {
  if (input === "") return syntaxError("ParseInt", input);
  const negative = input[0] === "-";
  const unsigned = input[0] === "+" || negative ? input.slice(1) : input;
  const parsed = parseUnsigned(unsigned, "ParseInt", input);
  if (!parsed.ok) return parsed.syntax ? parsed : rangeError("ParseInt", input);
  const value = negative ? -parsed.value : parsed.value;
  if (value < INT64_MIN || value > INT64_MAX) return rangeError("ParseInt", input);
  return { ok: true, value };
}

/** Go's `strconv.ParseUint(s, 0, 64)`: no sign is accepted, so negative literals are errors. */
export function parseGoUint(input: string): Parsed<bigint> {
  return parseUnsigned(input, "ParseUint", input);
}

const TRUE_WORDS = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE_WORDS = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** Go's `strconv.ParseBool`: `1 t T TRUE true True` and `0 f F FALSE false False`. */
export function parseGoBool(input: string): Parsed<boolean> {
  if (TRUE_WORDS.has(input)) return { ok: true, value: true };
  if (FALSE_WORDS.has(input)) return { ok: true, value: false };
  return syntaxError("ParseBool", input);
}

const DECIMAL_FLOAT = /^[+-]?(?:[0-9_]*[0-9][0-9_]*(?:\.[0-9_]*)?|[0-9_]*\.[0-9_]*[0-9][0-9_]*)(?:[eE][+-]?[0-9][0-9_]*)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]((?:[0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?|[0-9a-fA-F_]*\.[0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*))[pP]([+-]?[0-9][0-9_]*)$/;
const SPECIAL_FLOAT = /^(?:[+-]?(?:inf|infinity)|nan)$/i;

/** Go's `strconv.ParseFloat(s, 64)`: decimal and hex (`0x1p-2`) floats, `_` separators, `inf`, `nan`. */
export function parseGoFloat(input: string): Parsed<number> {
  if (SPECIAL_FLOAT.test(input)) {
    if (/nan/i.test(input)) return { ok: true, value: Number.NaN };
    return { ok: true, value: input.startsWith("-") ? -Infinity : Infinity };
  }
  let value: number;
  const hex = HEX_FLOAT.exec(input);
  if (hex !== null) {
    if (input.includes("_") && !underscoreOK(input)) return syntaxError("ParseFloat", input);
    value = hexFloat(hex[1] === "-", hex[2]!.replace(/_/g, ""), Number(hex[3]!.replace(/_/g, "")));
  } else if (DECIMAL_FLOAT.test(input)) {
    if (input.includes("_") && !underscoreOK(input)) return syntaxError("ParseFloat", input);
    value = Number(input.replace(/_/g, ""));
  } else {
    return syntaxError("ParseFloat", input);
  }
  if (!Number.isFinite(value)) return rangeError("ParseFloat", input);
  return { ok: true, value };
}

/** The double nearest to `0x<mantissa> * 2^exponent`, rounding half to even as Go does. */
function hexFloat(negative: boolean, mantissaText: string, exponent: number): number {
  const dot = mantissaText.indexOf(".");
  const fractionDigits = dot === -1 ? 0 : mantissaText.length - dot - 1;
  let mantissa = BigInt(`0x${mantissaText.replace(".", "") || "0"}`);
  let exp = exponent - 4 * fractionDigits;
  if (mantissa === 0n) return negative ? -0 : 0;
  const bits = mantissa.toString(2).length;
  // The unit in the last place of the result: 53 significant bits, or fewer below the normal range.
  const ulpExponent = Math.max(bits + exp - 1 - 52, -1074);
  const shift = ulpExponent - exp;
  if (shift > 0) {
    const shifted = mantissa >> BigInt(shift);
    const remainder = mantissa - (shifted << BigInt(shift));
    const half = 1n << BigInt(shift - 1);
    mantissa = remainder > half || (remainder === half && (shifted & 1n) === 1n) ? shifted + 1n : shifted;
    exp += shift;
  }
  const magnitude = Number(mantissa) * 2 ** exp;
  return negative ? -magnitude : magnitude;
}
