/**
 * Reading a fixture document's fields: its lists (each at most {@link MAX_FIXTURE_ENTRIES}
 * entries), the known fields of an entry, strings, enumerations, string maps and blocks of the
 * reference's structs, values no two entries may share, and the {@link AgentDataError} naming the
 * place in the document where one does not fit.
 *
 * @module
 */
import { AclConfigError } from "../domain/acl.js";
import { GoJsonError } from "../../go/json.js";
import { Refusal } from "../base/errors.js";
import type { StructDecl } from "../../structs/declare.js";
import { misfit } from "../../structs/derive.js";
import { AgentDataError, describeRefused, isObject } from "./snapshot.js";

/**
 * The most entries in each list of a fixture (namespaces, nodes, jobs, deployments, policies,
 * tokens): every job is registered and scheduled while the agent starts, at about a millisecond
 * each.
 */
export const MAX_FIXTURE_ENTRIES = 10_000;

/** A UUID, in either case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The error of a fixture that cannot be used, at `path` in it. */
export function invalidFixture(path: string, reason: string): AgentDataError {
  return new AgentDataError("invalid_fixture", path, reason);
}

/** The list at `path`, each entry an object, at most {@link MAX_FIXTURE_ENTRIES}. */
export function listAt(value: unknown, path: string, entry: string): Record<string, unknown>[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidFixture(path, `expected a list of ${entry}, got ${describeRefused(value)}`);
  if (value.length > MAX_FIXTURE_ENTRIES) throw invalidFixture(path, `holds ${value.length} entries; a fixture holds at most ${MAX_FIXTURE_ENTRIES} of each kind`);
  value.forEach((item, i) => {
    if (!isObject(item)) throw invalidFixture(`${path}[${i}]`, `expected ${entry.replace(/s$/, "")} (an object), got ${describeRefused(item)}`);
  });
  return value as Record<string, unknown>[];
}

/** Refuses fields of `entry` outside `known`. */
export function knownFields(entry: Record<string, unknown>, known: readonly string[], path: string): void {
  const unknown = Object.keys(entry).find((key) => !known.includes(key));
  if (unknown !== undefined) throw invalidFixture(path === "" ? unknown : `${path}.${unknown}`, `unknown field; the fields are ${known.join(", ")}`);
}

/** A string field (optional unless `required`). */
export function stringAt(entry: Record<string, unknown>, field: string, path: string, required = false): string | undefined {
  const value = entry[field];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || (required && value === "")) throw invalidFixture(`${path}.${field}`, `expected ${required ? "a non-empty string" : "a string"}, got ${describeRefused(value)}`);
  return value;
}

/** An optional field holding one of `values`. */
export function oneOf<T extends string>(entry: Record<string, unknown>, field: string, values: readonly T[], path: string): T | undefined {
  const value = entry[field];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !(values as readonly string[]).includes(value)) throw invalidFixture(`${path}.${field}`, `expected one of ${values.join(", ")}, got ${describeRefused(value)}`);
  return value as T;
}

/** An optional object of strings. */
export function stringMapAt(entry: Record<string, unknown>, field: string, path: string): Record<string, string> | undefined {
  const value = entry[field];
  if (value === undefined) return undefined;
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === "string")) throw invalidFixture(`${path}.${field}`, `expected an object of strings, got ${describeRefused(value)}`);
  return value as Record<string, string>;
}

/** An optional block of a reference's struct, each of its fields fitting the struct's (as Go's decoder reads it). */
export function structAt(entry: Record<string, unknown>, field: string, decl: StructDecl, path: string): void {
  const value = entry[field];
  if (value === undefined) return;
  const found = misfit(decl, value, `${path}.${field}`);
  if (found !== undefined) throw invalidFixture(found[0], `expected ${found[1]}, got ${describeRefused(getAt(entry, found[0].slice(path.length + 1)))}`);
}

/** The value at a dotted path (with `[i]` for list items) inside `value`. */
function getAt(value: unknown, path: string): unknown {
  let at = value;
  for (const part of path.split(/\.|\[(\d+)\]/).filter((each) => each !== undefined && each !== "")) {
    at = isObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[part] : undefined;
  }
  return at;
}

/** The message of a refusal by the domain, or undefined for another error. */
export function refusalMessage(error: unknown): string | undefined {
  if (error instanceof Refusal || error instanceof GoJsonError || error instanceof AclConfigError) return error.message.trimEnd();
  return undefined;
}

/**
 * Refuses at `path.field` a value an earlier entry has already (`seen` maps each value to the
 * entry that has it), in the words `says` gives from that entry; then remembers the value as
 * `path`'s. The agent keys these by the value, or finds a thing by it: a second entry would
 * silently replace the first, or be dropped.
 */
export function distinct(seen: Map<string, string>, value: string, path: string, field: string, says: (first: string) => string): void {
  const first = seen.get(value);
  if (first !== undefined) throw invalidFixture(`${path}.${field}`, says(first));
  seen.set(value, path);
}
