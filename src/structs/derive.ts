/**
 * What the agent derives from a struct's declaration (`declare.ts`):
 *
 * - {@link schemaOf}: the filter schema of typed mode (`structs.Job` as the evaluator sees it);
 * - {@link present}: the JSON the reference writes for a row: the struct's fields in declaration
 *   order, a field the row lacks at its zero value, nested structs written the same way, unset
 *   times `null`, and `omitempty` fields left out when empty, as Go's encoder leaves them out;
 * - {@link overlay} and {@link fill}: the API's `Merge` and `Canonicalize` of a block, which
 *   registration applies;
 * - {@link structValue}: a stored block of scalars read as its typed value, as Go holds the struct;
 * - {@link rowChecks}: what a snapshot's row must hold, from the fields' row rules;
 * - {@link fieldDocs}: each field's doc line, for editors.
 *
 * @module
 */
import type { FieldSchema, ObjectSchema } from "../evaluator/schema.js";
import type { FieldDecl, FieldNames, GoType, Scalar, StructDecl, StructValue } from "./declare.js";

/** A decoded JSON object. */
export type JsonObject = { [key: string]: unknown };

// ---------------------------------------------------------------------------------------------
// Filter schemas

const schemaCache = new WeakMap<StructDecl, ObjectSchema>();

/** The filter schema of a Go type: durations and times since the epoch are `int`, indexes `uint`, an untyped value `any`. */
export function fieldSchemaOf(type: GoType): FieldSchema {
  if (typeof type === "string") {
    switch (type) {
      case "int":
      case "duration":
      case "nanotime":
        return "int";
      case "uint":
      case "index":
        return "uint";
      default:
        return type;
    }
  }
  switch (type.kind) {
    case "untyped":
      return "any";
    case "slice":
      return { kind: "array", items: fieldSchemaOf(type.of) };
    case "map":
      return { kind: "map", values: fieldSchemaOf(type.of) };
    case "pointer":
      return fieldSchemaOf(type.to);
    case "struct":
      return schemaOf(type);
  }
}

/** The filter schema of a struct (one object per declaration, so that schemas built from it share it). */
export function schemaOf(decl: StructDecl): ObjectSchema {
  let schema = schemaCache.get(decl);
  if (schema === undefined) {
    const fields: Record<string, FieldSchema> = {};
    const docs: Record<string, string> = {};
    for (const each of decl.fields) {
      fields[each.name] = fieldSchemaOf(each.type);
      docs[each.name] = each.doc;
    }
    schema = { kind: "object", typeName: decl.name, fields, docs };
    schemaCache.set(decl, schema);
  }
  return schema;
}

/** The schema of `decl` with the fields of `extra` added after its own (a filter target laying a stub's fields over the struct). */
export function schemaWith(decl: StructDecl, extra: readonly FieldDecl[]): ObjectSchema {
  const base = schemaOf(decl);
  const fields: Record<string, FieldSchema> = { ...base.fields };
  const docs: Record<string, string> = { ...base.docs };
  for (const each of extra) {
    fields[each.name] = fieldSchemaOf(each.type);
    docs[each.name] = each.doc;
  }
  return { kind: "object", typeName: base.typeName!, fields, docs };
}

// ---------------------------------------------------------------------------------------------
// The reference's JSON

/** The value a Go type holds when unset: `""`, `0`, `false`, `null` (nil, or the zero time), a struct of zero values. */
export function zeroOf(type: GoType): unknown {
  if (typeof type === "string") return type === "string" ? "" : type === "bool" ? false : type === "time" ? null : 0;
  return type.kind === "struct" ? present(type, {}) : null;
}

/** How a value of a type is written: undefined when as it is, else the function that writes it (a struct through its declaration, a time `null` when unset). */
type Writer = ((value: unknown) => unknown) | undefined;

/** The writer of a Go type (see {@link Writer}). */
function writerOf(type: GoType): Writer {
  if (typeof type === "string") return type === "time" ? (value) => (value === "" ? null : value) : undefined;
  switch (type.kind) {
    case "untyped":
      return undefined;
    case "pointer":
      return writerOf(type.to);
    case "struct":
      return type.asSent ? undefined : (value) => (isObject(value) ? present(type, value) : value);
    case "slice": {
      const element = writerOf(type.of);
      return element === undefined ? undefined : (value) => (Array.isArray(value) ? value.map((each) => (each === null ? null : element(each))) : value);
    }
    case "map": {
      const element = writerOf(type.of);
      return element === undefined ? undefined : (value) => (isObject(value) ? Object.fromEntries(Object.entries(value).map(([key, each]) => [key, each === null ? null : element(each)])) : value);
    }
  }
}

/** A field as {@link present} writes it, worked out once per declaration. */
interface FieldPlan {
  readonly name: string;
  /** Its zero value (a struct held by value: one with every field at its zero value, frozen and shared). */
  readonly zero: unknown;
  readonly write: Writer;
  /** Whether `omitempty` leaves out the value; undefined when the field is always written. */
  readonly omit: ((value: unknown) => boolean) | undefined;
}

/** How a struct is written: its fields, and an object of them all to copy (see {@link present}). */
interface StructPlan {
  readonly fields: readonly FieldPlan[];
  readonly template: JsonObject;
  /** Some field is `omitempty`: the object is made from the list of the fields written. */
  readonly omits: boolean;
}

const plans = new WeakMap<StructDecl, StructPlan>();

/** How each field of `decl` is written. */
function planOf(decl: StructDecl): StructPlan {
  let plan = plans.get(decl);
  if (plan === undefined) {
    const fields = decl.fields.map((each) => {
      const type = each.type;
      const zero = typeof type !== "string" && type.kind === "struct" ? Object.freeze(present(type, {})) : zeroOf(type);
      return { name: each.name, zero, write: writerOf(type), omit: each.omitempty ? (value: unknown) => omitted(type, value) : undefined };
    });
    plan = { fields, template: Object.fromEntries(fields.map((each) => [each.name, null])), omits: fields.some((each) => each.omit !== undefined) };
    plans.set(decl, plan);
  }
  return plan;
}

/**
 * `row` as the reference writes the struct: its fields in declaration order, each as the row has
 * it (nested structs likewise) or at its zero value, `omitempty` fields left out when empty.
 * Fields the struct does not declare are not written. `over` holds values that replace the row's
 * (what a presenter derives), without copying the row.
 */
export function present(decl: StructDecl, row: object, over?: JsonObject): JsonObject {
  const plan = planOf(decl);
  // Objects made at once (a copy of one with every field, or from a list of them): an object
  // given one struct's fields after another's, field by field, is kept by V8 as a dictionary
  // (slow to read, copy and write as JSON).
  const written: JsonObject | undefined = plan.omits ? undefined : { ...plan.template };
  const entries: [string, unknown][] = [];
  for (const field of plan.fields) {
    // Field names are Go's exported names, capitalised: never one of Object.prototype's.
    const own = over !== undefined && Object.hasOwn(over, field.name) ? over[field.name] : (row as JsonObject)[field.name];
    const value = own === undefined ? field.zero : own === null || field.write === undefined ? own : field.write(own);
    if (written !== undefined) written[field.name] = value;
    else if (field.omit === undefined || !field.omit(value)) entries.push([field.name, value]);
  }
  return written ?? Object.fromEntries(entries);
}

/**
 * `row` with its fields in `decl`'s declaration order (the order Go's JSON writes them, which the
 * agent's rows keep), a field it lacks as undefined. Every field of `row` must be one `decl`
 * declares (a type error otherwise), so none is dropped: the row keeps its type.
 */
export function inDeclaredOrder<S extends StructDecl, T extends { readonly [K in keyof T]: K extends FieldNames<S> ? unknown : never }>(decl: S, row: T): T {
  const fields = row as JsonObject;
  const ordered: JsonObject = {};
  for (const { name } of decl.fields) ordered[name] = fields[name];
  // The same fields (T's are all declared, see the constraint), of the same values, in another order.
  return ordered as T;
}

/** Whether a value is one `omitempty` leaves out: empty text, zero, false, nil, an empty list or map. */
function empty(value: unknown): boolean {
  if (value === null || value === undefined || value === "" || value === 0 || value === 0n || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

/**
 * Whether Go's encoder leaves out an `omitempty` field of `type` holding `value`: a pointer only
 * when nil (one to an all-zero struct is kept), a struct held by value when all its fields are
 * empty, anything else when {@link empty}.
 */
function omitted(type: GoType, value: unknown): boolean {
  const pointer = typeof type !== "string" && (type.kind === "pointer" || (type.kind === "untyped" && type.go.startsWith("*")));
  if (pointer) return value === null || value === undefined;
  if (typeof type !== "string" && type.kind === "struct" && isObject(value)) return Object.values(value).every(empty);
  return empty(value);
}

/** A JSON object (not a list, not null). */
function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Canonicalisation

/**
 * The API's `Merge`: `given`'s fields over `base`'s, a nil (absent or null) field of `given`
 * keeping `base`'s, in declaration order; fields neither has stay absent.
 */
export function overlay(decl: StructDecl, base: object | null | undefined, given: object | null | undefined): JsonObject {
  const merged: JsonObject = {};
  for (const { name } of decl.fields) {
    const over = given === null || given === undefined ? undefined : (given as JsonObject)[name];
    const under = base === null || base === undefined ? undefined : (base as JsonObject)[name];
    const value = over ?? under;
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

/** The API's `Canonicalize` of a block: its nil fields take `defaults`' (else the zero value), written as the reference writes the struct. */
export function fill(decl: StructDecl, given: object | null | undefined, defaults: object): JsonObject {
  return present(decl, overlay(decl, defaults, given));
}

/** A struct whose fields are all scalars (an update strategy, a restart policy): {@link structValue} reads it. */
export type ScalarStructDecl = StructDecl<readonly FieldDecl<string, Scalar>[]>;

/** A scalar field's value as Go holds it: of its type, else its zero value; an integer decoded beyond 2^53 (a bigint) as a number. */
function scalarValue(type: Scalar, value: unknown): unknown {
  switch (type) {
    case "string":
      return typeof value === "string" ? value : "";
    case "bool":
      return value === true;
    case "time":
      return typeof value === "string" ? value : null;
    case "nanotime":
      return typeof value === "bigint" ? value : typeof value === "number" && Number.isInteger(value) ? BigInt(value) : 0n;
    default:
      return typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : 0;
  }
}

/**
 * A stored block of a struct of scalars as its typed value, the way Go holds the struct the row
 * decodes into: each field the block has, the others (absent, null, or not of the field's type)
 * at their zero values. No default is applied: registration did that (`fill`), once; a row that
 * did not pass through it (a snapshot's) reads as the reference would read it.
 *
 * @example
 * structValue(UPDATE_STRATEGY, { MaxParallel: 2 }).Canary; // 0
 */
export function structValue<S extends ScalarStructDecl>(decl: S, block: object | null | undefined): StructValue<S> {
  const value: JsonObject = {};
  for (const each of decl.fields) value[each.name] = scalarValue(each.type, block === null || block === undefined ? undefined : (block as JsonObject)[each.name]);
  // Each declared field, of its declared type (above): what StructValue<S> says, which TypeScript cannot follow through the loop.
  return value as StructValue<S>;
}

// ---------------------------------------------------------------------------------------------
// Snapshot rows

/**
 * What a row's field must hold, as a snapshot check reads it: a kind (`string`, `strings`,
 * `boolean`, `integer`, `index`, `nanoseconds`, `object`, `array`), with `|null` when it may be
 * null and a trailing `?` when it may be absent; or the list of strings it may be.
 */
export type RowCheck = string | readonly string[];

/** The kind a snapshot check reads a Go type as. */
function checkKind(type: GoType, owner: string, name: string): string {
  if (typeof type === "string") {
    switch (type) {
      case "string":
      case "time":
        return "string";
      case "bool":
        return "boolean";
      case "index":
        return "index";
      case "nanotime":
        return "nanoseconds";
      case "float":
        throw new TypeError(`${owner}.${name}: no snapshot check reads a float`);
      default:
        return "integer";
    }
  }
  switch (type.kind) {
    case "slice":
      return type.of === "string" ? "strings" : "array";
    case "pointer":
      return checkKind(type.to, owner, name);
    case "untyped":
      if (type.go.startsWith("[]")) return "array";
      if (type.go.startsWith("*") || type.go.startsWith("map[")) return "object";
      throw new TypeError(`${owner}.${name}: no snapshot check reads ${type.go}`);
    default:
      return "object";
  }
}

/** The checks of the fields (and agent fields) the struct's rows keep, in declaration order. */
export function rowChecks(decl: StructDecl): Record<string, RowCheck> {
  const checks: Record<string, RowCheck> = {};
  for (const each of [...decl.fields, ...decl.agentFields]) {
    if (each.row === undefined) continue;
    if (each.oneOf !== undefined) {
      checks[each.name] = each.oneOf;
      continue;
    }
    const kind = checkKind(each.type, decl.name, each.name);
    checks[each.name] = `${kind}${each.row === "nullable" ? "|null" : ""}${each.row === "optional" ? "?" : ""}`;
  }
  return checks;
}

/** What a value of a scalar type must be, for {@link misfit}'s message. */
const SCALAR_EXPECTS: Readonly<Record<string, string>> = {
  string: "a string",
  time: "a string",
  bool: "true or false",
  float: "a number",
  int: "a whole number",
  duration: "a whole number",
  nanotime: "a whole number",
  uint: "a whole number from 0",
  index: "a whole number from 0",
};

/**
 * Where a decoded JSON value (a data file's) does not fit a Go type: the first misfit, as its path
 * and what was expected there, or undefined. Null fits a pointer, a slice, a map and an untyped
 * value, as Go's decoder takes it; a struct's fields must be the declaration's (a misspelt one
 * would otherwise be dropped without a word), each fitting its type.
 */
export function misfit(type: GoType, value: unknown, path: string): readonly [path: string, expected: string] | undefined {
  if (typeof type === "string") {
    const fits =
      type === "string" || type === "time" ? typeof value === "string"
      : type === "bool" ? typeof value === "boolean"
      : type === "float" ? typeof value === "number" && Number.isFinite(value)
      : Number.isSafeInteger(value) && ((type !== "uint" && type !== "index") || (value as number) >= 0);
    return fits ? undefined : [path, SCALAR_EXPECTS[type]!];
  }
  if (type.kind === "untyped" || (value === null && type.kind !== "struct")) return undefined;
  switch (type.kind) {
    case "pointer":
      return misfit(type.to, value, path);
    case "slice":
      if (!Array.isArray(value)) return [path, "a list"];
      for (const [i, each] of value.entries()) {
        const found = misfit(type.of, each, `${path}[${i}]`);
        if (found !== undefined) return found;
      }
      return undefined;
    case "map":
      if (!isObject(value)) return [path, "an object"];
      for (const [key, each] of Object.entries(value)) {
        const found = misfit(type.of, each, `${path}.${key}`);
        if (found !== undefined) return found;
      }
      return undefined;
    case "struct": {
      if (!isObject(value)) return [path, `an object (${type.name})`];
      for (const [key, each] of Object.entries(value)) {
        const declared = type.fields.find((candidate) => candidate.name === key);
        if (declared === undefined) return [`${path}.${key}`, `one of the fields of ${type.name}: ${type.fields.map((candidate) => candidate.name).join(", ")}`];
        const found = misfit(declared.type, each, `${path}.${key}`);
        if (found !== undefined) return found;
      }
      return undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Documentation

/** The Go type as the reference's source writes it (`[]*structs.TaskGroup`, `time.Duration`). */
export function goTypeName(type: GoType): string {
  if (typeof type === "string") {
    const names: Record<string, string> = { int: "int", uint: "uint64", float: "float64", bool: "bool", string: "string", duration: "time.Duration", time: "time.Time", nanotime: "int64", index: "uint64" };
    return names[type]!;
  }
  switch (type.kind) {
    case "untyped":
      return type.go;
    case "slice":
      return `[]${goTypeName(type.of)}`;
    case "map":
      return `map[string]${goTypeName(type.of)}`;
    case "pointer":
      return `*${goTypeName(type.to)}`;
    case "struct":
      return type.name;
  }
}

/** Each field's doc line, with its Go type: `{ Priority: "int: scheduling importance…" }`. */
export function fieldDocs(decl: StructDecl): Record<string, string> {
  return Object.fromEntries(decl.fields.map((each) => [each.name, `${goTypeName(each.type)}: ${each.doc}`]));
}
