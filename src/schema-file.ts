/**
 * Schemas and sample objects read from the user's JSON files, for the language server's settings
 * and the command's `--schema`: read within a size limit, and checked, each mistake a message
 * rather than an exception.
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { FieldSchema, ScalarKind } from "./evaluator/schema.js";
import { parseJson } from "./json.js";
import { schemas } from "./schemas.js";


/**
 * The largest schema or samples file read, in bytes. A settings file is the user's own, but a
 * path pointing at a log or a dump by mistake should be a message, not a server holding a
 * gigabyte; sample objects only feed completion, a few thousand are plenty.
 */
export const MAX_SETTINGS_FILE_SIZE = 16 * 1024 * 1024;

const SCALAR_KINDS: readonly ScalarKind[] = ["string", "int", "uint", "float", "bool", "time", "any"];


/** A schema named by a setting or a flag: `"job"`, `"deployment"`, or the path of a JSON file holding a {@link FieldSchema} (relative: to `baseDirectory`). */
export function readSchema(setting: string, baseDirectory: string): { readonly schema: FieldSchema } | { readonly problem: string } {
  if (setting === "job" || setting === "deployment") return { schema: schemas[setting] };
  const read = readJsonFile(setting, baseDirectory);
  if ("problem" in read) return read;
  const problem = fieldSchemaProblem(read.value, "the schema");
  return problem === undefined ? { schema: read.value as FieldSchema } : { problem: `${read.path} does not hold a field schema: ${problem}` };
}

/** A JSON file's value, or why it could not be read. */
export function readJsonFile(path: string, baseDirectory: string): { readonly value: unknown; readonly path: string } | { readonly problem: string } {
  const absolute = isAbsolute(path) ? path : resolve(baseDirectory, path);
  try {
    const size = statSync(absolute).size;
    if (size > MAX_SETTINGS_FILE_SIZE) return { problem: `${absolute} is ${size} bytes; the limit is ${MAX_SETTINGS_FILE_SIZE}` };
    return { value: parseJson(readFileSync(absolute, "utf8")), path: absolute };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    return { problem: `cannot read ${absolute}: ${reason}` };
  }
}

/**
 * What is wrong with `value` as a {@link FieldSchema}, at the first place found (`the schema.fields.Meta.values`),
 * or undefined when it is one. Recursion follows the JSON's nesting, which `parseJson` bounds.
 */
export function fieldSchemaProblem(value: unknown, at: string): string | undefined {
  if (typeof value === "string") return SCALAR_KINDS.includes(value as ScalarKind) ? undefined : `${at} is ${JSON.stringify(value)}, not a kind (${SCALAR_KINDS.join(", ")})`;
  if (!isObject(value)) return `${at} must be a kind name or an object with a "kind", not ${describe(value)}`;
  switch (value.kind) {
    case "array":
      return fieldSchemaProblem(value.items, `${at}.items`);
    case "map":
      if (value.keys !== undefined && !(Array.isArray(value.keys) && value.keys.every((key) => typeof key === "string"))) return `${at}.keys must be a list of strings`;
      return fieldSchemaProblem(value.values, `${at}.values`);
    case "object": {
      if (value.typeName !== undefined && typeof value.typeName !== "string") return `${at}.typeName must be a string`;
      if (!isObject(value.fields)) return `${at}.fields must be an object of field schemas`;
      if (value.docs !== undefined && !(isObject(value.docs) && Object.values(value.docs).every((doc) => typeof doc === "string"))) return `${at}.docs must be an object of strings (a line on each field)`;
      for (const [name, field] of Object.entries(value.fields)) {
        const problem = fieldSchemaProblem(field, `${at}.fields.${name}`);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    default:
      return `${at}.kind must be "array", "map" or "object", not ${describe(value.kind)}`;
  }
}

/** Whether `value` is a JSON object (not null, not a list). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value, shortly, for a message. */
export function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}
