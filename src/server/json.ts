/**
 * JSON in and out, without losing int64 values: integers beyond 2^53 (`SubmitTime` in
 * nanoseconds) are read as bigints and written back as JSON integers.
 *
 * Output is compact, or, with `pretty`, indented by 4 spaces with a final newline, byte for byte
 * as the reference's pretty encoder writes it.
 *
 * @module
 */
import { isInteger, parse, stringify } from "lossless-json";
import { badRequest } from "./http-errors.js";
import { goJsonSyntaxError } from "./go-json.js";

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Integers outside the safe range become bigints; every other number a number. */
function parseNumber(text: string): number | bigint {
  if (isInteger(text)) {
    const value = BigInt(text);
    if (value < MIN_SAFE || value > MAX_SAFE) return value;
  }
  return Number(text);
}

/** Writes a value as JSON; bigints become integers. */
export function encodeJson(value: unknown, pretty: boolean): string {
  const text = pretty ? stringify(value, null, 4) : stringify(value);
  if (text === undefined) throw new TypeError("value cannot be written as JSON");
  return pretty ? `${text}\n` : text;
}

/**
 * Reads the JSON body of a request as the reference does with Go's `json.Decoder`: an empty body
 * is `Request body is empty`, malformed JSON is Go's syntax error text, and anything after the
 * first value is ignored. All are 400 errors.
 */
export function decodeJsonBody(body: string): unknown {
  if (body.length === 0) throw badRequest("Request body is empty");
  const { error, end } = goJsonSyntaxError(body);
  if (error !== undefined) throw badRequest(error);
  return parse(body.slice(0, end), null, parseNumber);
}
