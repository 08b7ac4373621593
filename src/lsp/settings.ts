/**
 * The language server's settings: which schema and sample objects completion, hover and
 * validation use. They come from the client's `initializationOptions` and from its `bexpr`
 * settings section; a schema is a shipped one (`job`, `deployment`) or a JSON file holding a
 * {@link FieldSchema}, and the samples a JSON file holding an array. Nothing here throws on a
 * bad setting: each one that cannot be used is a problem to show the user, and is left out.
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { FieldSchema, ScalarKind } from "../evaluator/schema.js";
import { parseJson } from "../json.js";
import { schemas } from "../schemas.js";

/**
 * The largest schema or samples file read, in bytes. A settings file is the user's own, but a
 * path pointing at a log or a dump by mistake should be a message, not a server holding a
 * gigabyte; sample objects only feed completion, a few thousand are plenty.
 */
export const MAX_SETTINGS_FILE_SIZE = 16 * 1024 * 1024;

/** The settings as the client gives them (`initializationOptions`, or the `bexpr` settings section). */
export interface ServerSettings {
  /** `"job"`, `"deployment"`, or the path of a JSON file holding a field schema (relative: to the workspace). */
  readonly schema?: string;
  /** The path of a JSON file holding an array of sample objects (relative: to the workspace). */
  readonly samples?: string;
}

/** The settings read: the schema and samples to use, and what could not be used. */
export interface LoadedSettings {
  /** The schema of the objects the filters are for, if one is set and could be read. */
  readonly schema?: FieldSchema;
  /** Sample objects (map keys and values for completion), if set and readable. */
  readonly samples?: readonly unknown[];
  /** One sentence for each setting that could not be used (it is left out). */
  readonly problems: readonly string[];
}

const SCALAR_KINDS: readonly ScalarKind[] = ["string", "int", "uint", "float", "bool", "time", "any"];

/**
 * The settings to apply: the later sources override the earlier ones, setting by setting, and a
 * setting that is absent, null or empty in a later source leaves the earlier one in place.
 */
export function mergeSettings(...sources: readonly unknown[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const source of sources) {
    if (!isObject(source)) continue;
    for (const key of ["schema", "samples"] as const) {
      const value = source[key];
      if (value !== undefined && value !== null && value !== "") merged[key] = value;
    }
  }
  return merged;
}

/**
 * Reads the schema and samples `settings` names (see {@link ServerSettings}); relative paths are
 * resolved against `baseDirectory`. Each setting that cannot be used is reported in `problems`.
 */
export function loadSettings(settings: unknown, baseDirectory: string): LoadedSettings {
  const problems: string[] = [];
  if (settings !== undefined && settings !== null && !isObject(settings)) {
    return { problems: [`the bexpr settings must be an object such as { "schema": "job" }, got ${describe(settings)}`] };
  }
  const { schema: schemaSetting, samples: samplesSetting } = (settings ?? {}) as Record<string, unknown>;
  let schema: FieldSchema | undefined;
  let samples: readonly unknown[] | undefined;
  if (schemaSetting !== undefined && schemaSetting !== null && schemaSetting !== "") {
    if (typeof schemaSetting !== "string") problems.push(`bexpr.schema must be "job", "deployment" or the path of a JSON file, got ${describe(schemaSetting)}`);
    else if (schemaSetting === "job" || schemaSetting === "deployment") schema = schemas[schemaSetting];
    else {
      const read = readJsonFile(schemaSetting, baseDirectory);
      if ("problem" in read) problems.push(`bexpr.schema: ${read.problem}`);
      else {
        const problem = fieldSchemaProblem(read.value, "the schema");
        if (problem === undefined) schema = read.value as FieldSchema;
        else problems.push(`bexpr.schema: ${read.path} does not hold a field schema: ${problem}`);
      }
    }
  }
  if (samplesSetting !== undefined && samplesSetting !== null && samplesSetting !== "") {
    if (typeof samplesSetting !== "string") problems.push(`bexpr.samples must be the path of a JSON file, got ${describe(samplesSetting)}`);
    else {
      const read = readJsonFile(samplesSetting, baseDirectory);
      if ("problem" in read) problems.push(`bexpr.samples: ${read.problem}`);
      else if (!Array.isArray(read.value)) problems.push(`bexpr.samples: ${read.path} must hold a JSON array of sample objects, not ${describe(read.value)}`);
      else samples = read.value;
    }
  }
  return { ...(schema === undefined ? {} : { schema }), ...(samples === undefined ? {} : { samples }), problems };
}

/** A JSON file's value, or why it could not be read. */
function readJsonFile(path: string, baseDirectory: string): { readonly value: unknown; readonly path: string } | { readonly problem: string } {
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value, shortly, for a message. */
function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}
