/**
 * The reference's parameterized block (`ParameterizedJobConfig` in `nomad/structs/structs.go`):
 * its checks (`Validate`), and what a dispatch request must give it (`validateDispatchRequest`
 * in `nomad/job_endpoint.go`): the payload its rule asks for, at most
 * {@link DISPATCH_PAYLOAD_SIZE_LIMIT} bytes, the required meta keys and no key it does not name.
 *
 * @module
 */
import type { JsonObject } from "../state/model.js";

/** The payload rules (`DispatchPayloadOptional`, `…Required`, `…Forbidden`); `optional` when none is given. */
export const DISPATCH_PAYLOAD_RULES: ReadonlySet<string> = new Set(["optional", "required", "forbidden"]);

/** The largest payload a dispatch may carry, before compression (the reference's `DispatchPayloadSizeLimit`, 16 KiB). */
export const DISPATCH_PAYLOAD_SIZE_LIMIT = 16 * 1024;

/** A list of strings of the block (`MetaRequired`, `MetaOptional`), none when absent. */
function keysOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((key): key is string => typeof key === "string") : [];
}

/** Go's `%v` of a `[]string`: `[a b]`. */
function goList(values: readonly string[]): string {
  return `[${values.join(" ")}]`;
}

/** The reference's `ParameterizedJobConfig.Validate`, as the items of a multi-error. */
export function validateParameterized(config: JsonObject): string[] {
  const errors: string[] = [];
  const payload = typeof config.Payload === "string" ? config.Payload : "";
  if (!DISPATCH_PAYLOAD_RULES.has(payload)) errors.push(`Unknown payload requirement: ${JSON.stringify(payload)}`);
  const optional = new Set(keysOf(config.MetaOptional));
  const both = [...new Set(keysOf(config.MetaRequired))].filter((key) => optional.has(key));
  if (both.length > 0) errors.push(`Required and optional meta keys should be disjoint. Following keys exist in both: ${goList(both)}`);
  return errors;
}

/** What a dispatch asks for: the payload (its bytes) and the meta to merge. */
export interface DispatchInput {
  readonly payload: Buffer;
  readonly meta: Readonly<Record<string, string>>;
  readonly priority: number;
}

/**
 * The reference's `validateDispatchRequest`: the first rule a dispatch breaks, as its text, or
 * undefined. The keys of a refusal are listed sorted (the reference lists them in Go's map order,
 * which is random).
 */
export function dispatchRefusal(input: DispatchInput, config: JsonObject): string | undefined {
  const rule = typeof config.Payload === "string" && config.Payload !== "" ? config.Payload : "optional";
  const given = input.payload.length !== 0;
  if (rule === "required" && !given) return "Payload is not provided but required by parameterized job";
  if (rule === "forbidden" && given) return "Payload provided but forbidden by parameterized job";
  if (input.payload.length > DISPATCH_PAYLOAD_SIZE_LIMIT) return `Payload exceeds maximum size; ${input.payload.length} > ${DISPATCH_PAYLOAD_SIZE_LIMIT}`;
  const required = keysOf(config.MetaRequired);
  const permitted = new Set([...required, ...keysOf(config.MetaOptional)]);
  const unpermitted = Object.keys(input.meta).filter((key) => !permitted.has(key)).sort();
  if (unpermitted.length > 0) return `Dispatch request included unpermitted metadata keys: ${goList(unpermitted)}`;
  const missing = [...new Set(required.filter((key) => !Object.hasOwn(input.meta, key)))].sort();
  if (missing.length > 0) return `Dispatch did not provide required meta keys: ${goList(missing)}`;
  if (input.priority < 1 || input.priority > 100) return "dispatch job priority must be between [1, 100]";
  return undefined;
}
