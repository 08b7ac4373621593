import type { FieldSchema } from "../../src/evaluator/schema.js";

/**
 * Where `value` does not have the shape and kinds of `schema` (paths, with what was found); every
 * path visited is added to `seen`, for a test that also wants each described path met.
 */
export function mismatches(schema: FieldSchema, value: unknown, path: string, seen: Set<string> = new Set()): string[] {
  seen.add(path);
  if (value === null || schema === "any") return [];
  const found = `${path}: ${Array.isArray(value) ? "array" : typeof value}`;
  if (typeof schema === "string") {
    const fits =
      schema === "string" || schema === "time" ? typeof value === "string"
      : schema === "bool" ? typeof value === "boolean"
      : schema === "float" ? typeof value === "number"
      : (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint";
    return fits ? [] : [`${found}, declared ${schema}`];
  }
  if (schema.kind === "array") {
    if (!Array.isArray(value)) return [`${found}, declared a list`];
    return value.flatMap((element) => mismatches(schema.items, element, `${path}[]`, seen));
  }
  if (typeof value !== "object" || Array.isArray(value)) return [`${found}, declared a ${schema.kind}`];
  const entries = Object.entries(value as Record<string, unknown>);
  if (schema.kind === "map") return entries.flatMap(([, element]) => mismatches(schema.values, element, `${path}[*]`, seen));
  return entries.flatMap(([key, element]) =>
    Object.hasOwn(schema.fields, key) ? mismatches(schema.fields[key]!, element, `${path}.${key}`, seen) : [`${path}.${key}: not in the schema`],
  );
}
