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
 * The deepest nesting of arrays and objects read (the parser recurses once per level; Go's
 * decoder stops at 10,000, this well before the stack could run out).
 */
export const MAX_JSON_DEPTH = 1_000;

/** Throws when `text` nests arrays and objects deeper than {@link MAX_JSON_DEPTH} (counted outside strings). */
function checkDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep at position ${i}`);
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
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
 * Writes a value as JSON, bigints as integers: compact, or with `pretty` indented by 4 spaces
 * with a final newline (as the reference agent's pretty output).
 */
export function stringifyJson(value: unknown, pretty = false): string {
  const text = pretty ? stringify(value, null, 4) : stringify(value);
  if (text === undefined) throw new TypeError("the value cannot be written as JSON");
  return pretty ? `${text}\n` : text;
}
