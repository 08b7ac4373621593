/**
 * The fields of a job version diff: primitive fields flattened as the reference's
 * `flatmap.Flatten` gives them, the field diffs between two flattenings, the reference's order of
 * field and object diffs, and the JSON values' tests and text (Go's `%v` of numbers, canonical
 * JSON text, `reflect.DeepEqual`) the rest of the diff reads them with.
 *
 * @module
 */
import { compareStrings } from "../../go/order.js";
import type { JsonObject } from "../state/model.js";

/** How a field, object, task, group or job changed (the reference's `DiffType`). */
export type DiffType = "None" | "Added" | "Deleted" | "Edited";

/** A change of one primitive field (`structs.FieldDiff`); Old and New are `""` where absent. */
export interface FieldDiff {
  readonly Type: DiffType;
  readonly Name: string;
  readonly Old: string;
  readonly New: string;
  /** Set by the reference's scheduler in a plan (`forces create/destroy update`); null here. */
  readonly Annotations: readonly string[] | null;
}

/** A change of a nested object (`structs.ObjectDiff`); empty lists are null, as the reference's nil slices. */
export interface ObjectDiff {
  readonly Type: DiffType;
  readonly Name: string;
  readonly Fields: readonly FieldDiff[] | null;
  readonly Objects: readonly ObjectDiff[] | null;
}

/**
 * How many generic objects deep (below a job, group or task) a diff descends before it compares a
 * nested value whole, as JSON text in one field. Jobs come from users; the reference's deepest
 * hand-written diffs (a service's Connect proxy upstreams) are about six objects deep.
 */
export const MAX_DIFF_DEPTH = 8;

// ---------------------------------------------------------------------------------------------
// Fields

/** Field paths to their values' text, as `flatmap.Flatten` gives them. */
type Flat = Map<string, string>;

/** No field ignored. */
export const NOTHING: ReadonlySet<string> = new Set();

/** The `map[string]string` fields of the reference's structs, which flatmap keeps as `Name[key]` fields. */
const STRING_MAPS: ReadonlySet<string> = new Set(["Meta", "Env", "GetterOptions", "GetterHeaders", "Target", "CanaryMeta", "TaggedAddresses"]);

/**
 * `flatmap.Flatten(struct, ignored, true)`: the object's primitive fields, and its string maps as
 * `Name[key]`; nested objects and lists are left out. An absent object has no fields.
 */
export function flattenPrimitive(object: unknown, ignored: ReadonlySet<string> = NOTHING): Flat {
  const flat: Flat = new Map();
  if (!isObject(object)) return flat;
  for (const [name, value] of Object.entries(object)) {
    if (isPrimitive(value)) flat.set(name, formatValue(value));
    else if (STRING_MAPS.has(name) && isObject(value)) {
      for (const [key, item] of Object.entries(value)) flat.set(`${name}[${key}]`, isPrimitive(item) ? formatValue(item) : canonicalText(item));
    }
  }
  for (const name of ignored) flat.delete(name);
  return flat;
}

/**
 * `flatmap.Flatten(map, nil, false)` of a free-form map: top-level keys bare, then `[key]` and
 * `[index]`, null as `nil`; deeper than {@link MAX_DIFF_DEPTH} levels, a value's JSON text.
 */
export function flattenFree(value: unknown): Flat {
  const flat: Flat = new Map();
  const walk = (item: unknown, path: string, depth: number): void => {
    if (isAbsent(item)) flat.set(path, "nil");
    else if (isPrimitive(item)) flat.set(path, formatFree(item));
    else if (depth > MAX_DIFF_DEPTH) flat.set(path, canonicalText(item));
    else if (Array.isArray(item)) item.forEach((element, index) => walk(element, `${path}[${index}]`, depth + 1));
    else for (const [key, element] of Object.entries(item as JsonObject)) walk(element, path === "" ? key : `${path}[${key}]`, depth + 1);
  };
  if (isObject(value)) for (const [key, element] of Object.entries(value)) walk(element, key, 1);
  return flat;
}

/** `fieldDiff`: none when equal (unless `contextual`), Added from `""`, Deleted to `""`, else Edited. */
export function fieldDiff(older: string, newer: string, name: string, contextual: boolean): FieldDiff | null {
  if (older === newer) return contextual ? { Type: "None", Name: name, Old: older, New: newer, Annotations: null } : null;
  const type: DiffType = older === "" ? "Added" : newer === "" ? "Deleted" : "Edited";
  return { Type: type, Name: name, Old: older, New: newer, Annotations: null };
}

/** `fieldDiffs`: every path of either side (a missing one is `""`), sorted. */
export function fieldDiffs(older: Flat, newer: Flat, contextual: boolean): FieldDiff[] {
  const diffs: FieldDiff[] = [];
  for (const [name, value] of older) {
    const diff = fieldDiff(value, newer.get(name) ?? "", name, contextual);
    if (diff !== null) diffs.push(diff);
  }
  for (const [name, value] of newer) {
    if (older.has(name)) continue;
    const diff = fieldDiff("", value, name, contextual);
    if (diff !== null) diffs.push(diff);
  }
  return diffs.sort(compareFieldDiffs);
}

// ---------------------------------------------------------------------------------------------
// Order: the reference's `FieldDiff.Less` and `ObjectDiff.Less`, with Go's string order

/** `DiffType.Less` sorts Edited, then Added, then Deleted, then None. */
const TYPE_ORDER: { readonly [type in DiffType]: number } = { Edited: 0, Added: 1, Deleted: 2, None: 3 };

/** By name, then the old value, then the new one. */
export function compareFieldDiffs(a: FieldDiff, b: FieldDiff): number {
  return compareStrings(a.Name, b.Name) || compareStrings(a.Old, b.Old) || compareStrings(a.New, b.New);
}

/** By name, type, number of fields, number of objects, then the fields and objects themselves. */
export function compareObjectDiffs(a: ObjectDiff, b: ObjectDiff): number {
  const byShape =
    compareStrings(a.Name, b.Name) ||
    TYPE_ORDER[a.Type] - TYPE_ORDER[b.Type] ||
    (a.Fields?.length ?? 0) - (b.Fields?.length ?? 0) ||
    (a.Objects?.length ?? 0) - (b.Objects?.length ?? 0);
  if (byShape !== 0) return byShape;
  const fields = a.Fields ?? [];
  for (let i = 0; i < fields.length; i++) {
    const order = compareFieldDiffs(fields[i]!, b.Fields![i]!);
    if (order !== 0) return order;
  }
  const objects = a.Objects ?? [];
  for (let i = 0; i < objects.length; i++) {
    const order = compareObjectDiffs(objects[i]!, b.Objects![i]!);
    if (order !== 0) return order;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Values

type Primitive = string | number | boolean | bigint;

/** Whether a value is a string, a number (a bigint too) or a boolean: a field of its own, not an object or list. */
export function isPrimitive(value: unknown): value is Primitive {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" || typeof value === "bigint";
}

/** Whether a value is a JSON object (not null, not a list). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A nil pointer, slice or map. */
export function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** Whether a member is an object or list of its own (a string map is fields). */
export function isNested(key: string, value: unknown): boolean {
  return Array.isArray(value) || (isObject(value) && !STRING_MAPS.has(key));
}

/** The field `name` of an object; undefined for anything else. */
export function field(object: unknown, name: string): unknown {
  return isObject(object) ? object[name] : undefined;
}

/** The elements of a list; none for anything else (a nil slice). */
export function elements(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** How many fields an object has; 0 for anything else. */
export function size(value: unknown): number {
  return isObject(value) ? Object.keys(value).length : 0;
}

/** The keys of `a`, then those of `b` that `a` lacks. */
export function unionKeys(a: JsonObject, b: JsonObject): string[] {
  return [...Object.keys(a), ...Object.keys(b).filter((key) => !Object.hasOwn(a, key))];
}

/** A list, or null when it is empty (the reference's nil slice). */
export function orNull<T>(list: readonly T[]): readonly T[] | null {
  return list.length === 0 ? null : list;
}

/** A struct field's value as Go's `%v` writes it: integers in decimal, other numbers as a float64. */
function formatValue(value: Primitive): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  return Number.isSafeInteger(value) ? String(value) : formatGoFloat(value);
}

/** A free-form map's value: Go decodes JSON numbers there as float64. */
function formatFree(value: Primitive): string {
  if (typeof value === "number" || typeof value === "bigint") return formatGoFloat(Number(value));
  return formatValue(value);
}

/**
 * Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest digits, in
 * exponent form when the exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`).
 */
function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(value);
  return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

/** A string set's element as text. */
export function elementText(value: unknown): string {
  return isPrimitive(value) ? formatValue(value) : canonicalText(value);
}

/** A pointer's or a value compared whole (past the depth limit): its text, `""` when absent (nil). */
export function wholeText(value: unknown): string {
  if (isAbsent(value)) return "";
  return isPrimitive(value) ? formatValue(value) : canonicalText(value);
}

/** JSON text with object keys sorted, so equal values (whatever their key order) have equal text. */
export function canonicalText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort(compareStrings);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalText(value[key])}`).join(",")}}`;
  }
  if (typeof value === "bigint") return value.toString();
  return JSON.stringify(value) ?? "null";
}

/** The reference's `reflect.DeepEqual` of two decoded JSON values (a nil and a missing value are equal). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b || (isAbsent(a) && isAbsent(b))) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((element, i) => sameJson(element, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
}
