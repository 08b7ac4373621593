/**
 * The casing of the control API. Over HTTP every field is written in the reference's PascalCase
 * (`ID`, `Fired`, `LatencyMs`) and read in any case, as Go's `encoding/json` matches a key to a
 * field; in JavaScript (`agent.faults`, `agent.scenarios`) the same records are camelCase. The
 * routes convert at the edge, field by field: values (a fault's body and headers, a rule's `Set`,
 * which already names the row's fields) are never touched.
 *
 * @module
 */

/** A JavaScript field name as the HTTP API writes it: `id` → `ID`, `latencyMs` → `LatencyMs`. */
export function pascalName(name: string): string {
  return name === "id" ? "ID" : name.charAt(0).toUpperCase() + name.slice(1);
}

/** A record with its own keys in PascalCase, values as they are; undefined values are left out. */
export function pascalKeys(record: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[pascalName(key)] = value;
  return out;
}

/**
 * A JSON body whose keys are matched to `fields` (camelCase) whatever their case, as Go's
 * `encoding/json` matches them (`Method`, `method` and `METHOD` are all `method`). Keys that match
 * no field are kept as written, for the validation to name them; a body that is not an object is
 * returned as it is.
 */
export function fieldsInAnyCase(body: unknown, fields: readonly string[]): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const byLowerCase = new Map(fields.map((field) => [field.toLowerCase(), field]));
  const out: Record<string, unknown> = {};
  // Defined, not assigned: a `__proto__` key stays an own (unknown) field instead of becoming the prototype.
  for (const [key, value] of Object.entries(body)) Object.defineProperty(out, byLowerCase.get(key.toLowerCase()) ?? key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}
