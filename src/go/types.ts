/**
 * The types of a Go struct's fields, as the reference's structs declare them: what the evaluator's
 * typed mode follows (zero values, nil lists and maps, unsigned fields), and what request bodies
 * are decoded into (`json.ts`). The evaluator re-exports them as its schemas.
 *
 * @module
 */

/** A scalar field kind. `time` is a timestamp (a struct in the reference); `any` is untyped JSON. */
export type ScalarKind = "string" | "int" | "uint" | "float" | "bool" | "time" | "any";

/** A list whose elements all have the `items` schema. */
export interface ArraySchema {
  /** Always `"array"`: tags the schema within {@link FieldSchema}. */
  readonly kind: "array";
  /** The schema of every element. */
  readonly items: FieldSchema;
}

/** A map from string keys to values of the `values` schema. */
export interface MapSchema {
  /** Always `"map"`: tags the schema within {@link FieldSchema}. */
  readonly kind: "map";
  /** The schema of every value; keys are always strings. */
  readonly values: FieldSchema;
  /**
   * The keys the map is known to hold, when there is such a list (a fixed set of labels): editors
   * offer them, and `validate` warns of a selector naming another (`unknown_key`, with the nearest
   * key). A warning, not an error: the map may hold other keys, and a missing one is the
   * operator's missing-key result, as always.
   */
  readonly keys?: readonly string[];
}

/** A struct: a fixed set of named fields. An absent or null object is a nil pointer. */
export interface ObjectSchema {
  /** Always `"object"`: tags the schema within {@link FieldSchema}. */
  readonly kind: "object";
  /** The schema of each field, by field name; a selector naming any other field is an error in typed mode. */
  readonly fields: { readonly [name: string]: FieldSchema };
  /** The Go type name used in error messages (for example `structs.JobSummary`). */
  readonly typeName?: string;
  /**
   * What each field is, in a line, by field name (the reference's description of the field, for
   * the schemas of its structs): editors show it in completion and hover. Evaluation ignores it.
   */
  readonly docs?: { readonly [name: string]: string };
}

/** The schema of one field: a scalar kind's name, or a list, map or object schema. */
export type FieldSchema = ScalarKind | ArraySchema | MapSchema | ObjectSchema;
