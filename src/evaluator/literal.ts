/**
 * A literal decoded once into each kind it meets at evaluation time. The reference re-parses the
 * literal text for every object; we parse it once per kind, on first use, and keep the outcome,
 * error included, so evaluation only compares.
 *
 * @module
 */
import { escapedBytes } from "../go/strings.js";
import { parseGoBool, parseGoFloat, parseGoInt, parseGoUint, type Parsed } from "../go/strconv.js";

/** An integer literal: exact as a bigint, and as a number when that is exact too. */
export interface IntegerLiteral {
  readonly big: bigint;
  /** The same value as a number, or `undefined` when it is outside the safe-integer range. */
  readonly safe: number | undefined;
}

/** The literal of a match clause, pre-coerced to each kind. */
export interface Literal {
  /** The text, compared as is against strings. */
  readonly raw: string;
  /**
   * The literal's bytes when `\x`/octal escapes wrote bytes that are not UTF-8 (see
   * `src/strings.ts`); substring tests then compare bytes, as the reference does.
   */
  readonly bytes: Uint8Array | undefined;
  readonly int: Parsed<IntegerLiteral>;
  readonly uint: Parsed<IntegerLiteral>;
  readonly float: Parsed<number>;
  readonly bool: Parsed<boolean>;
}

function toIntegerLiteral(parsed: Parsed<bigint>): Parsed<IntegerLiteral> {
  if (!parsed.ok) return parsed;
  const big = parsed.value;
  const asNumber = Number(big);
  return { ok: true, value: { big, safe: Number.isSafeInteger(asNumber) ? asNumber : undefined } };
}

/**
 * A literal converted to each kind the first time that kind is asked for, then kept: a clause
 * meets one or two kinds of value, and compiling a filter should not pay for the others.
 */
class CoercedLiteral implements Literal {
  readonly bytes: Uint8Array | undefined;
  #int: Parsed<IntegerLiteral> | undefined;
  #uint: Parsed<IntegerLiteral> | undefined;
  #float: Parsed<number> | undefined;
  #bool: Parsed<boolean> | undefined;

  constructor(readonly raw: string) {
    this.bytes = escapedBytes(raw);
  }

  get int(): Parsed<IntegerLiteral> {
    return (this.#int ??= toIntegerLiteral(parseGoInt(this.raw)));
  }

  get uint(): Parsed<IntegerLiteral> {
    return (this.#uint ??= toIntegerLiteral(parseGoUint(this.raw)));
  }

  get float(): Parsed<number> {
    return (this.#float ??= parseGoFloat(this.raw));
  }

  get bool(): Parsed<boolean> {
    return (this.#bool ??= parseGoBool(this.raw));
  }
}

/** The literal `raw`, to be coerced to the kinds it meets. */
export function createLiteral(raw: string): Literal {
  return new CoercedLiteral(raw);
}

/** `value` (a number or bigint holding an integer) equals the literal exactly. */
export function equalsInteger(value: number | bigint, literal: IntegerLiteral): boolean {
  if (typeof value === "bigint") return value === literal.big;
  if (Number.isSafeInteger(value)) return value === literal.safe;
  // Doubles beyond 2^53 are exact integers too; compare them without rounding the literal.
  return Number.isInteger(value) ? BigInt(value) === literal.big : value === Number(literal.big);
}

const utf8 = new TextEncoder();

/**
 * Go's `strings.Contains` for a literal holding non-UTF-8 bytes: a byte-wise search, by
 * Knuth-Morris-Pratt so that it stays linear in the text whatever the literal.
 */
export function containsBytes(text: string, bytes: Uint8Array): boolean {
  const haystack = utf8.encode(text);
  if (bytes.length === 0) return true;
  // failure[k]: the length of the longest proper border of bytes[0..k].
  const failure = new Int32Array(bytes.length);
  for (let k = 1, border = 0; k < bytes.length; k++) {
    while (border > 0 && bytes[k] !== bytes[border]) border = failure[border - 1]!;
    if (bytes[k] === bytes[border]) border++;
    failure[k] = border;
  }
  for (let i = 0, matched = 0; i < haystack.length; i++) {
    while (matched > 0 && haystack[i] !== bytes[matched]) matched = failure[matched - 1]!;
    if (haystack[i] === bytes[matched]) matched++;
    if (matched === bytes.length) return true;
  }
  return false;
}
