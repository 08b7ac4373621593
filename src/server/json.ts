/**
 * Request bodies, read as the reference reads them with Go's `json.Decoder`: an empty body is
 * `Request body is empty`, malformed JSON is Go's syntax error text, and anything after the first
 * value is ignored. Numbers keep their int64 precision (see `src/json.ts`).
 *
 * @module
 */
import { parseJson } from "../json.js";
import { goJsonSyntaxError } from "./go-json.js";
import { badRequest } from "./http-errors.js";

/**
 * Decodes the JSON body of a request.
 *
 * @throws a 400 HttpError with the reference's text.
 */
export function decodeJsonBody(body: string): unknown {
  if (body.length === 0) throw badRequest("Request body is empty");
  const { error, end } = goJsonSyntaxError(body);
  if (error !== undefined) throw badRequest(error);
  return parseJson(body.slice(0, end));
}
