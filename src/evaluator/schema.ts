/**
 * Schemas describe the fields of the evaluated objects. Given one, evaluation follows the
 * reference's behaviour on its typed Go structs ("typed mode") instead of on decoded JSON:
 * absent fields are zero values, a nil list or map is empty, unsigned fields reject negative
 * literals, and a field the struct lacks is an error.
 *
 * @module
 */

export type { ArraySchema, FieldSchema, MapSchema, ObjectSchema, ScalarKind } from "../go/types.js";
import type { FieldSchema } from "../go/types.js";

/** The kinds of value the operators distinguish, as Go's `reflect.Kind` does. */
export type ValueKind = "string" | "int" | "uint" | "float" | "bool" | "slice" | "map" | "struct" | "invalid";

/**
 * How a value looks to the operators: its kind, the names the reference's error messages use
 * for it, and, for lists, how their elements are typed.
 */
export interface ValueType {
  readonly kind: ValueKind;
  /** The `reflect.Kind` name (`int64`, `slice`, `invalid`…). */
  readonly kindName: string;
  /** The Go type name (`int64`, `[]interface {}`, `time.Time`…). */
  readonly typeName: string;
  /** For typed lists (other than of `any`): how their elements compare. JSON lists have none. */
  readonly elements?: ElementType;
}

/** The elements of a typed list: their kind, and the value a null element holds. */
export interface ElementType {
  readonly kind: ValueKind;
  readonly zero: unknown;
}

/** The types of decoded JSON values, as the reference sees them with `UseNumber` decoding. */
export const JSON_TYPES = {
  string: { kind: "string", kindName: "string", typeName: "string" },
  int: { kind: "int", kindName: "int64", typeName: "int64" },
  float: { kind: "float", kindName: "float64", typeName: "float64" },
  bool: { kind: "bool", kindName: "bool", typeName: "bool" },
  slice: { kind: "slice", kindName: "slice", typeName: "[]interface {}" },
  map: { kind: "map", kindName: "map", typeName: "map[string]interface {}" },
  invalid: { kind: "invalid", kindName: "invalid", typeName: "invalid" },
} as const satisfies Record<string, ValueType>;

/** Go's `int`: the type of a list index bound by `any`/`all` (`as i, v`), and of `int` fields. */
export const INT_TYPE: ValueType = { kind: "int", kindName: "int", typeName: "int" };

/** The type of a key bound by `any`/`all` over untyped data: an index is Go's `int`, a map key a string. */
export function keyTypeOf(key: unknown): ValueType {
  return typeof key === "number" ? INT_TYPE : JSON_TYPES.string;
}

/**
 * The `reflect.Kind` the reference's pointer library reports for a decoded JSON value a path
 * cannot go through: a number is a `json.Number`, whose kind is `string`.
 */
export function pathKindName(value: unknown): string {
  return typeof value === "number" || typeof value === "bigint" ? "string" : jsonTypeOf(value).kindName;
}

const INT64_LOW = -(2 ** 63);
const INT64_HIGH = 2 ** 63;

/** The type of a decoded JSON value: integers within int64 are int64, other numbers float64. */
export function jsonTypeOf(value: unknown): ValueType {
  switch (typeof value) {
    case "string":
      return JSON_TYPES.string;
    case "number":
      return Number.isInteger(value) && value >= INT64_LOW && value < INT64_HIGH ? JSON_TYPES.int : JSON_TYPES.float;
    case "bigint":
      return value >= -(2n ** 63n) && value < 2n ** 63n ? JSON_TYPES.int : JSON_TYPES.float;
    case "boolean":
      return JSON_TYPES.bool;
    case "object":
      if (value === null) return JSON_TYPES.invalid;
      return Array.isArray(value) ? JSON_TYPES.slice : JSON_TYPES.map;
    default:
      return JSON_TYPES.invalid;
  }
}

/** The type of a field of the given schema, as the operators see it. */
export function schemaType(schema: FieldSchema): ValueType {
  if (typeof schema === "string") {
    switch (schema) {
      case "string":
        return JSON_TYPES.string;
      case "int":
        return INT_TYPE;
      case "uint":
        return { kind: "uint", kindName: "uint64", typeName: "uint64" };
      case "float":
        return JSON_TYPES.float;
      case "bool":
        return JSON_TYPES.bool;
      case "time":
        return { kind: "struct", kindName: "struct", typeName: "time.Time" };
      case "any":
        return JSON_TYPES.invalid;
    }
  }
  switch (schema.kind) {
    case "array": {
      const typeName = `[]${goTypeName(schema.items)}`;
      if (schema.items === "any") return { kind: "slice", kindName: "slice", typeName };
      return { kind: "slice", kindName: "slice", typeName, elements: { kind: schemaType(schema.items).kind, zero: zeroValue(schema.items) } };
    }
    case "map":
      return { kind: "map", kindName: "map", typeName: `map[string]${goTypeName(schema.values)}` };
    case "object":
      return { kind: "struct", kindName: "struct", typeName: schema.typeName ?? "struct" };
  }
}

function goTypeName(schema: FieldSchema): string {
  if (schema === "any") return "interface {}";
  if (typeof schema !== "string" && schema.kind === "object") return `*${schema.typeName ?? "struct"}`;
  return schemaType(schema).typeName;
}

/** True when a present (non-null) JS value has the shape the schema describes. */
function fitsSchema(schema: FieldSchema, value: unknown): boolean {
  if (typeof schema === "string") {
    switch (schema) {
      case "string":
        return typeof value === "string";
      case "int":
      case "uint":
      case "float":
        return typeof value === "number" || typeof value === "bigint";
      case "bool":
        return typeof value === "boolean";
      case "time":
        return typeof value === "string" || typeof value === "object";
      case "any":
        return false;
    }
  }
  if (schema.kind === "array") return Array.isArray(value);
  return typeof value === "object" && !Array.isArray(value);
}

/**
 * The value an absent or null field holds in the reference's struct: `""`, `0` or `false` for
 * scalars; lists, maps, objects and times stay `null` (nil, or the zero time).
 */
function zeroValue(schema: FieldSchema): unknown {
  switch (schema) {
    case "string":
      return "";
    case "int":
    case "uint":
    case "float":
      return 0;
    case "bool":
      return false;
    default:
      return null;
  }
}

/** How the operators see the values of one field: their zero value and their type. */
export interface FieldView {
  /** The value an absent or null field holds (see {@link zeroValue}). */
  readonly zero: unknown;
  /** The type of a value of this field (after its zero value is applied). */
  readonly typeOf: (value: unknown) => ValueType;
}

/**
 * The view of a typed field. A value that contradicts the schema (a number where a string is
 * declared) is seen as the JSON value it is rather than forced into the declared kind.
 */
export function viewOf(schema: FieldSchema): FieldView {
  if (schema === "any") return { zero: null, typeOf: jsonTypeOf };
  const declared = schemaType(schema);
  const zero = zeroValue(schema);
  // A nil pointer to a struct is the invalid kind; nil lists and maps keep their kind; the zero time is a struct.
  const nullType = typeof schema !== "string" && schema.kind === "object" ? JSON_TYPES.invalid : declared;
  return {
    zero,
    typeOf: (value) => (value === null || value === undefined ? nullType : fitsSchema(schema, value) ? declared : jsonTypeOf(value)),
  };
}
