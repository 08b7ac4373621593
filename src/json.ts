/**
 * JSON that keeps int64 values exact: integers beyond 2^53 (`SubmitTime` in nanoseconds) are
 * read as bigints and written back as JSON integers; every other number is a JS number.
 *
 * @module
 */
import { isInteger, parse, stringify } from "lossless-json";

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
 * Parses JSON text; integers outside the safe range become bigints.
 *
 * @throws SyntaxError for malformed JSON.
 */
export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

/**
 * Writes a value as JSON, bigints as integers: compact, or with `pretty` indented by 4 spaces
 * with a final newline (as the reference agent's pretty output).
 */
export function stringifyJson(value: unknown, pretty = false): string {
  const text = pretty ? stringify(value, null, 4) : stringify(value);
  if (text === undefined) throw new TypeError("the value cannot be written as JSON");
  return pretty ? `${text}\n` : text;
}
