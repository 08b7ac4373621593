/**
 * The language the reference's structs are declared in, once each: a struct is its Go name, a
 * line of doc and its fields in declaration order (the order Go's JSON writes them), each field a
 * name, a Go type, a line of doc and its `omitempty`. From a declaration derive (`derive.ts`):
 * the filter schema of typed mode, the JSON the agent writes (field order, zero values,
 * `omitempty`), the checks a snapshot's rows pass, and the doc line an editor shows.
 *
 * @example
 * const LOG_CONFIG = struct("structs.LogConfig", "Where a task's logs go, and how many are kept.", [
 *   field("MaxFiles", "int", "the most log files kept per stream"),
 *   field("MaxFileSizeMB", "int", "the size a log file is rotated at"),
 *   field("Disabled", "bool", "no logs are collected"),
 * ]);
 *
 * A field the agent's rows keep carries its `row` rule (`kept`, `nullable`, `optional`), which the
 * snapshot check and the model's types follow; a struct's `agentFields` are the fields the
 * agent's row keeps besides the struct's own (a stub's `JobType`, the simulation's `TaskRun`).
 *
 * @module
 */

/**
 * A Go scalar type, as the agent holds its values:
 *
 * - `string`, `bool`, `float`: as in Go;
 * - `int` (Go's `int`, `int64`), `uint` (`uint64`), `duration` (`time.Duration`, nanoseconds),
 *   `index` (a `uint64` Raft index): JS numbers (bigints only beyond 2^53);
 * - `time` (`time.Time`): RFC 3339 text, written `null` when zero (rows keep `""` for unset);
 * - `nanotime` (an `int64` of nanoseconds since the epoch): a bigint, since it is above 2^53.
 */
export type Scalar = "string" | "int" | "uint" | "float" | "bool" | "duration" | "time" | "nanotime" | "index";

/**
 * A value the agent does not model: any JSON, kept and written as given, and untyped (`any`) in
 * filters. `go` is the reference's type, for its kind (`*` a pointer, `[]` a slice, `map[` a map:
 * that is what `omitempty` tests) and for documentation.
 */
export interface UntypedType {
  /** Always `"untyped"`. */
  readonly kind: "untyped";
  /** The reference's Go type, as its source writes it (`[]*Constraint`, `*AllocMetric`). */
  readonly go: string;
}

/** A Go slice (`[]T`): a JSON list, `null` when nil. */
export interface SliceType<T extends GoType = GoType> {
  /** Always `"slice"`. */
  readonly kind: "slice";
  /** The type of the elements. */
  readonly of: T;
}

/** A Go map with string keys (`map[string]T`): a JSON object, `null` when nil. */
export interface MapType<T extends GoType = GoType> {
  /** Always `"map"`. */
  readonly kind: "map";
  /** The type of the values. */
  readonly of: T;
}

/** A Go pointer (`*T`): `null` when nil; `omitempty` leaves out only nil. */
export interface PointerType<T extends Scalar | StructDecl = Scalar | StructDecl> {
  /** Always `"pointer"`. */
  readonly kind: "pointer";
  /** What it points to. */
  readonly to: T;
}

/** A field's Go type: a scalar, an untyped value, a slice, a map, a pointer or a struct (held by value). */
export type GoType = Scalar | UntypedType | SliceType | MapType | PointerType | StructDecl;

/**
 * How the agent's rows keep a field (what a snapshot's rows must have, and the model's type):
 * `kept` (always there, never null), `nullable` (always there, maybe null), `optional` (maybe
 * absent). A field without a rule need not be in a row: it is written at its zero value.
 */
export type RowRule = "kept" | "nullable" | "optional";

/** One field of a struct. */
export interface FieldDecl<N extends string = string, T extends GoType = GoType, R extends RowRule | undefined = RowRule | undefined> {
  /** The field's name, as Go's JSON writes it. */
  readonly name: N;
  /** Its Go type. */
  readonly type: T;
  /** One line of documentation, as an editor shows it. */
  readonly doc: string;
  /** The field's `json:",omitempty"` (or the struct's `codec:",omitempty"`): left out when empty. */
  readonly omitempty: boolean;
  /** How the agent's rows keep it; undefined when they need not. */
  readonly row: R;
  /** The only values a string field takes in the agent's rows (a status), when there is such a list. */
  readonly oneOf: readonly string[] | undefined;
  /** Set by the server, not by the client: not part of a job's spec (its status, version, indexes). */
  readonly server: boolean;
}

/** A struct of the reference. */
export interface StructDecl<F extends readonly FieldDecl[] = readonly FieldDecl[], A extends readonly FieldDecl[] = readonly FieldDecl[]> {
  /** Always `"struct"`. */
  readonly kind: "struct";
  /** Its Go name with its package (`structs.Job`): the filter schema's `typeName`. */
  readonly name: string;
  /** One line of documentation. */
  readonly doc: string;
  /** Its fields, in declaration order. */
  readonly fields: F;
  /**
   * Kept and written as the client sent it (decoded into these fields, in the client's order,
   * absent fields absent): a block the agent does not canonicalise. Filters still see its types.
   */
  readonly asSent: boolean;
  /** Fields the agent's rows keep besides the struct's own: checked in snapshots, never written by the struct's presenter. */
  readonly agentFields: A;
}

/** Options of {@link field}. */
export interface FieldOptions {
  /** `json:",omitempty"` on this field alone. */
  readonly omitempty?: boolean;
  /** How the agent's rows keep it. */
  readonly row?: RowRule;
  /** The only values the agent's rows hold (a status). */
  readonly oneOf?: readonly string[];
  /** Set by the server, not part of the spec. */
  readonly server?: boolean;
}

/** The row rule `options` give a field. */
type RuleOf<O> = O extends { readonly row: infer R extends RowRule } ? R : undefined;

/** Declares a field: `field("Priority", "int", "scheduling importance, 1 to 100", { row: "kept" })`. */
export function field<const N extends string, const T extends GoType, const O extends FieldOptions = Record<never, never>>(name: N, type: T, doc: string, options?: O): FieldDecl<N, T, RuleOf<O>> {
  const given: FieldOptions = options ?? {};
  return { name, type, doc, omitempty: given.omitempty === true, row: given.row as RuleOf<O>, oneOf: given.oneOf, server: given.server === true };
}

/** Options of {@link struct}. */
export interface StructOptions<A extends readonly FieldDecl[] = readonly FieldDecl[]> {
  /** The struct's `_struct bool \`codec:",omitempty"\``: every field is `omitempty`. */
  readonly omitempty?: boolean;
  /** See {@link StructDecl.asSent}. */
  readonly asSent?: boolean;
  /** See {@link StructDecl.agentFields}. */
  readonly agentFields?: A;
}

/** Declares a struct: its Go name, a line of doc and its fields in declaration order. */
export function struct<const F extends readonly FieldDecl[], const A extends readonly FieldDecl[] = []>(name: string, doc: string, fields: F, options: StructOptions<A> = {}): StructDecl<F, A> {
  // The cast: Array.map does not keep a tuple's type, and each field keeps its own (only `omitempty`, a boolean, is set).
  const declared = options.omitempty === true ? (fields.map((each) => ({ ...each, omitempty: true })) as unknown as F) : fields;
  const names = new Set<string>();
  for (const each of [...declared, ...(options.agentFields ?? [])]) {
    if (names.has(each.name)) throw new TypeError(`${name} declares ${each.name} twice`);
    names.add(each.name);
  }
  return { kind: "struct", name, doc, fields: declared, asSent: options.asSent === true, agentFields: (options.agentFields ?? []) as A };
}

/** `[]T`. */
export function slice<const T extends GoType>(of: T): SliceType<T> {
  return { kind: "slice", of };
}

/** `map[string]T`. */
export function map<const T extends GoType>(of: T): MapType<T> {
  return { kind: "map", of };
}

/** `*T`. */
export function ptr<const T extends Scalar | StructDecl>(to: T): PointerType<T> {
  return { kind: "pointer", to };
}

/** A value of the reference's type `go` that the agent does not model (see {@link UntypedType}). */
export function untyped(go: string): UntypedType {
  return { kind: "untyped", go };
}

// ---------------------------------------------------------------------------------------------
// TypeScript types of declared values

/** The JS value of a scalar. */
type ScalarValue<T> = T extends "string" ? string : T extends "bool" ? boolean : T extends "time" ? string | null : T extends "nanotime" ? bigint : number;

/** The JS value of a field of Go type `T` (lists', maps' and pointers' nil as null; their elements never null). */
export type GoValue<T> =
  T extends Scalar ? ScalarValue<T>
  : T extends UntypedType ? unknown
  : T extends SliceType<infer E> ? readonly NonNullable<GoValue<E>>[] | null
  : T extends MapType<infer E> ? { readonly [key: string]: NonNullable<GoValue<E>> } | null
  : T extends PointerType<infer E> ? GoValue<E> | null
  : T extends StructDecl<infer F> ? GoStruct<F>
  : never;

/** A struct's value: every field, with its Go type. */
export type GoStruct<F extends readonly FieldDecl[]> = { readonly [D in F[number] as D["name"]]: GoValue<D["type"]> };

/** The value of a declared struct (`StructValue<typeof UPDATE_STRATEGY>`). */
export type StructValue<S> = S extends StructDecl<infer F> ? GoStruct<F> : never;

/** The names of the fields (and agent fields) a struct's rows keep: a model type's keys (`RowKeys<typeof JOB_SUMMARY>`). */
export type RowKeys<S> = S extends StructDecl<infer F, infer A> ? Extract<F[number] | A[number], { readonly row: RowRule }>["name"] : never;

/** The names of all a struct's fields and agent fields (what a model type of it may have). */
export type FieldNames<S> = S extends StructDecl<infer F, infer A> ? (F[number] | A[number])["name"] : never;

/** The names of a struct's fields and agent fields that the agent's rows keep (a model type's keys). */
export function rowFieldNames(decl: StructDecl): string[] {
  return [...decl.fields, ...decl.agentFields].filter((each) => each.row !== undefined).map((each) => each.name);
}
