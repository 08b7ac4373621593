/**
 * JSON that keeps int64 values exact: integers beyond 2^53 (`SubmitTime` in nanoseconds) are
 * read as bigints and written back as JSON integers; every other number is a JS number.
 *
 * @module
 */
import { isInteger, parse } from "lossless-json";

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function parseNumber(text: string): number | bigint {
  if (isInteger(text)) {
    const value = BigInt(text);
    if (value < MIN_SAFE || value > MAX_SAFE) return value;
  }
  return Number(text);
}

/**
 * The deepest nesting of arrays and objects read (the parser recurses once per level; Go's
 * decoder stops at 10,000, this well before the stack could run out).
 */
export const MAX_JSON_DEPTH = 1_000;

/**
 * How deep arrays and objects nest in JSON text (counted outside strings): the deepest level, and
 * where it was reached; the scan stops at the first level deeper than `limit`.
 */
export function nestingDepth(text: string, limit = Infinity): { readonly depth: number; readonly position: number } {
  let depth = 0;
  let deepest = 0;
  let position = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > deepest) [deepest, position] = [depth, i];
      if (depth > limit) break;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return { depth: deepest, position };
}

/** Throws when `text` nests arrays and objects deeper than {@link MAX_JSON_DEPTH}. */
function checkDepth(text: string): void {
  const { depth, position } = nestingDepth(text, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep at position ${position}`);
}

/**
 * Parses JSON text; integers outside the safe range become bigints; of duplicate keys the last
 * wins, as with `JSON.parse` and Go.
 *
 * @throws SyntaxError for malformed JSON, or JSON nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function parseJson(text: string): unknown {
  checkDepth(text);
  return parse(text, null, { parseNumber, onDuplicateKey: ({ newValue }) => newValue });
}

/**
 * The mark of a number `JSON.stringify` cannot write itself (a bigint, or a number kept as its
 * text): it writes the string `"<mark><digits>"`, and the quotes and mark are then taken away.
 * The mark holds a random part chosen at start-up, so no string of the data can be taken for one
 * (from Web Crypto, which Node and browsers both have, so the engine bundles for either).
 */
const NUMBER_MARK = `bexpr-number-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("")}:`;
const MARKED_NUMBER = new RegExp(`"${NUMBER_MARK}(-?[0-9][0-9.eE+-]*)"`, "g");

/** A number kept as its text by lossless-json or go-json (`LosslessNumber`). */
function isNumberText(value: object): value is { value: string } {
  return (value as { isLosslessNumber?: unknown }).isLosslessNumber === true && typeof (value as { value?: unknown }).value === "string";
}

function markNumbers(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return `${NUMBER_MARK}${value}`;
  if (typeof value === "object" && value !== null && isNumberText(value)) return `${NUMBER_MARK}${value.value}`;
  return value;
}

/**
 * Writes a value as JSON, bigints (and numbers kept as text) as JSON numbers: compact, or with
 * `pretty` indented by 4 spaces with a final newline (as the reference agent's pretty output).
 * `JSON.stringify` does the work, about five times faster than lossless-json's own writer, with
 * the same bytes (a property test compares them).
 */
export function stringifyJson(value: unknown, pretty = false): string {
  const text = pretty ? JSON.stringify(value, markNumbers, 4) : JSON.stringify(value, markNumbers);
  if (text === undefined) throw new TypeError("the value cannot be written as JSON");
  const written = text.includes(NUMBER_MARK) ? text.replace(MARKED_NUMBER, "$1") : text;
  return pretty ? `${written}\n` : written;
}
