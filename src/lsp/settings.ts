/**
 * The language server's settings: which schema and sample objects completion, hover and
 * validation use. They come from the client's `initializationOptions` and from its `bexpr`
 * settings section; a schema is a shipped one (`job`, `deployment`) or a JSON file holding a
 * {@link FieldSchema}, and the samples a JSON file holding an array. Nothing here throws on a
 * bad setting: each one that cannot be used is a problem to show the user, and is left out.
 *
 * @module
 */
import type { FieldSchema } from "../evaluator/schema.js";
import { describe, isObject, readJsonFile, readSchema } from "../schema-file.js";

export { fieldSchemaProblem, MAX_SETTINGS_FILE_SIZE } from "../schema-file.js";

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
    else {
      const read = readSchema(schemaSetting, baseDirectory);
      if ("problem" in read) problems.push(`bexpr.schema: ${read.problem}`);
      else schema = read.schema;
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




