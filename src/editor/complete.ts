/**
 * `complete`: what may be typed at a point of a filter, for editors. The filter's one analysis
 * (`parser/analysis.ts`) says which kinds of thing the grammar allows at the cursor (Chevrotain's
 * content assist); a schema and sample objects say which fields, map keys and values there are.
 *
 * @module
 */
import type { Span } from "../ast.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { quoteDouble } from "../go/strings.js";
import type { Limits } from "../limits.js";
import { MATCH_OPERATORS, negationOf, operator } from "../operators.js";
import { analysisOf, type Binding, type CompletionContext, type CompletionSlot, type Step } from "../parser/analysis.js";
import { requireSource } from "../parser/parse.js";

/** The most values offered for one field (distinct values seen in the samples). */
export const MAX_VALUE_COMPLETIONS = 100;

/** What a completion inserts. */
export type CompletionKind =
  /** A field of the object (a schema field, or a key of sample objects without a schema). */
  | "field"
  /** A key of a map, seen in the samples (`Meta.owner`, `Meta["web-api"]`). */
  | "key"
  /** A value seen in the samples for the field on the left (`"running"`), or `true`/`false`. */
  | "value"
  /** A name bound by an enclosing `any`/`all` (`g` in `any TaskGroups as g { … }`). */
  | "variable"
  /** A matching operator (`==`, `is not empty`, `not in`…). */
  | "operator"
  /** A keyword (`and`, `or`, `not`, `any`, `all`, `as`). */
  | "keyword";

/** One completion. */
export interface Completion {
  /** What to show. */
  readonly label: string;
  /** What is inserted: a field, a map key, a value, a bound variable, an operator or a keyword. */
  readonly kind: CompletionKind;
  /** The text that replaces {@link Completion.range} (for a key that is not a name, `["web-api"]`). */
  readonly text: string;
  /** The range of the source to replace: the word or string at the cursor, or an empty range at it. */
  readonly range: Span;
  /** What a field holds (`string`, `list of string`, `map of string`), or what an operator does. */
  readonly detail?: string;
  /** What a field is, in a line, where its schema says (the reference's description of the field for the built-in schemas). */
  readonly documentation?: string;
}

/** Options of {@link complete}. */
export interface CompleteOptions {
  /** The schema of the objects ({@link schemas}`.job`, `.deployment`, or your own): field names and types. */
  readonly schema?: FieldSchema;
  /** Sample objects: field names without a schema, map keys, and values for the right of `==`. */
  readonly samples?: readonly unknown[];
  /** The limits of `parse` (length and nesting): beyond them nothing is offered. */
  readonly limits?: Partial<Limits>;
}

/**
 * The operators offered after an operand: every spelling in the operator table, with what it
 * means, each positive spelling followed by its negation's (`in`, `not in`, `contains`, …).
 */
const OPERATORS: readonly (readonly [string, string])[] = MATCH_OPERATORS.filter((name) => !operator(name).negated).flatMap((name) => {
  const negation = operator(negationOf(name));
  return operator(name).spellings.flatMap((spelling, i) => [spelling, negation.spellings[i]!].map((each) => [each.text, each.description] as const));
});

const IDENTIFIER = /^[a-zA-Z][a-zA-Z0-9_/]*$/;

/** @internal What is known of the values at a path. */
export interface Place {
  readonly schema: FieldSchema | undefined;
  readonly values: readonly unknown[];
}

/**
 * What may come at `offset` in `source`: operators, keywords, and, given a schema or samples,
 * field names, map keys and values. Each completion names the range it replaces, so an editor
 * can apply it as it is. Candidates are filtered by the word already typed (case-insensitively,
 * by prefix). It never throws on any string, and its time is linear in the length of `source`
 * (a source beyond the limits of `parse` gets no completions).
 *
 * @param offset - the cursor, as an offset into `source` (0 to `source.length`).
 * @throws TypeError when `source` is not a string or `offset` not a number.
 * @example
 * ```ts
 * complete("Status ", 7).map((c) => c.label).slice(0, 3); // ["==", "!=", "in"]
 * complete("Sta", 3, { schema: schemas.job }); // [{ label: "Status", kind: "field", text: "Status", range: { start: 0, end: 3 }, detail: "string" }]
 * complete("Meta.", 5, { samples: jobs }); // the keys of Meta seen in `jobs`
 * ```
 */
export function complete(source: string, offset: number, options: CompleteOptions = {}): Completion[] {
  requireSource(source);
  if (typeof offset !== "number") throw new TypeError(`the offset must be a number, got ${typeof offset}`);
  try {
    return completeOrThrow(source, offset, options);
  } catch {
    // A completion is a convenience: on input that defeats the analysis, offer nothing.
    return [];
  }
}

/** @internal {@link complete} without its safety net, so tests see any exception. */
export function completeOrThrow(source: string, offset: number, options: CompleteOptions = {}): Completion[] {
  return new Completer(analysisOf(source, options.limits).completionContext(offset), options).run();
}

/** Builds the completions of one context, from the schema and the samples. */
class Completer {
  constructor(
    private readonly context: CompletionContext,
    private readonly options: CompleteOptions,
  ) {}

  run(): Completion[] {
    const typed = this.context.typed.toLowerCase();
    const seen = new Set<string>();
    return this.context.slots.flatMap((slot) => this.#slot(slot)).filter((completion) => {
      const key = `${completion.kind}\u0000${completion.text}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return typed === "" || completion.label.toLowerCase().startsWith(typed);
    });
  }

  #slot(slot: CompletionSlot): Completion[] {
    switch (slot.kind) {
      case "keys":
        return this.#keys(slot.path, slot.close);
      case "segments":
        return this.#segments(slot.path, slot.dot);
      case "values":
        return this.#values(slot.path, slot.contains);
      case "operators":
        return this.#operators(slot.after);
      case "fields":
        return this.#fields(this.#rootPlace(), slot.collections);
      case "variables":
        return this.#variables();
      case "keyword":
        return [{ label: slot.word, kind: "keyword", text: slot.word, range: this.context.range }];
    }
  }

  /** The operators that may come here: all of them after an operand, the rest of one after `is`, `is not` or `not`. */
  #operators(after: "" | "is" | "is not" | "not"): Completion[] {
    const drop = after === "" ? "" : `${after} `;
    return OPERATORS.filter(([label]) => label.startsWith(drop)).map(([label, detail]) => {
      const text = label.slice(drop.length);
      return { label: text, kind: "operator", text, range: this.context.range, detail };
    });
  }

  /** Values seen in the samples for the path on the left of the operator (`contains`: the elements or keys of what it holds). */
  #values(path: readonly string[], contains: boolean): Completion[] {
    const place = this.#place(path);
    const values = contains ? place.values.flatMap((value) => (Array.isArray(value) ? value : isPlainObject(value) ? Object.keys(value) : [])) : place.values;
    const texts = new Map<string, string>();
    for (const value of values) {
      if (texts.size >= MAX_VALUE_COMPLETIONS) break;
      if (typeof value === "string") texts.set(quoteDouble(value), value);
      else if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") texts.set(String(value), String(value));
    }
    if (texts.size === 0 && place.schema === "bool") for (const word of ["true", "false"]) texts.set(word, word);
    const { range, inString } = this.context;
    return [...texts].map(([text, label]) => ({ label, kind: "value" as const, text, range })).filter((completion) => !inString || completion.text.startsWith('"'));
  }

  /** The fields (or keys) after `path.`; keys that are not names are written `["key"]`, replacing the dot. */
  #segments(path: readonly string[], dot: number): Completion[] {
    const { range } = this.context;
    return this.#fields(this.#place(path), false).map((completion) =>
      IDENTIFIER.test(completion.label) ? completion : { ...completion, text: `[${quoteDouble(completion.label)}]`, range: { start: dot, end: range.end } },
    );
  }

  /** The keys after `path[`, quoted, and closed unless a `]` follows. */
  #keys(path: readonly string[], close: boolean): Completion[] {
    return this.#fields(this.#place(path), false).map((completion) => ({ ...completion, text: `${quoteDouble(completion.label)}${close ? "]" : ""}` }));
  }

  /** The fields of a place: schema fields, or keys seen in the samples; `collections` keeps lists and maps only. */
  #fields(place: Place, collections: boolean): Completion[] {
    const { range } = this.context;
    const { schema } = place;
    if (schema !== undefined && typeof schema !== "string" && schema.kind === "object") {
      return Object.entries(schema.fields)
        .filter(([, field]) => !collections || isCollectionSchema(field))
        .map(([name, field]) => {
          const documentation = schema.docs?.[name];
          return { label: name, kind: "field", text: name, range, detail: describeSchema(field), ...(documentation === undefined ? {} : { documentation }) };
        });
    }
    if (schema !== undefined && schema !== "any" && (typeof schema === "string" || schema.kind === "array")) return [];
    const kind = schema !== undefined && typeof schema !== "string" && schema.kind === "map" ? "key" : "field";
    const completions = new Map<string, Completion>();
    // The keys a map's schema lists come first, then those seen in the samples.
    if (schema !== undefined && typeof schema !== "string" && schema.kind === "map") {
      for (const key of schema.keys ?? []) completions.set(key, { label: key, kind, text: key, range, detail: describeSchema(schema.values) });
    }
    for (const value of place.values) {
      if (!isPlainObject(value)) continue;
      for (const [key, item] of Object.entries(value)) {
        if (completions.has(key) || (collections && !(Array.isArray(item) || isPlainObject(item)))) continue;
        const detail = kind === "key" && typeof schema !== "string" && schema?.kind === "map" ? describeSchema(schema.values) : describeJson(item);
        completions.set(key, { label: key, kind, text: key, range, detail });
      }
    }
    return [...completions.values()];
  }

  /** The names bound by the `any`/`all` bodies open at the cursor, innermost first. */
  #variables(): Completion[] {
    const { range } = this.context;
    return [...this.context.scope]
      .reverse()
      .map((binding) => ({ label: binding.name, kind: "variable", text: binding.name, range, detail: binding.role === "key" ? "index or key" : "element" }));
  }

  #rootPlace(): Place {
    return { schema: this.options.schema, values: this.options.samples ?? [] };
  }

  /** What is known of the values at a path written in the filter (its head may be a bound name). */
  #place(path: readonly string[]): Place {
    return placeOf(this.#rootPlace(), this.context.scope, path);
  }
}

/**
 * @internal What is known of the values at a path written in the filter, with `bindings` (outermost
 * first) in scope: its head may be a bound name, and the target of that name may start with a name
 * bound further out (`any TaskGroups as g { any g.Tasks as t { t.| } }`).
 */
export function placeOf(root: Place, bindings: readonly Binding[], path: readonly string[]): Place {
  const [head, ...rest] = path;
  const at = bindings.findLastIndex((candidate) => candidate.name === head);
  if (at < 0) return walk(root, path.map((key) => ({ key })));
  const binding = bindings[at]!;
  const target = targetPlace(root, bindings.slice(0, at), binding);
  const isMap = isMapPlace(target);
  if (binding.role === "key" || (binding.role === "auto" && isMap)) return { schema: isMap ? "string" : "int", values: [] };
  return walk(target, [{ each: true }, ...rest.map((key) => ({ key }))]);
}

/** @internal The values a binding ranges over, with the bindings declared before it (`outer`) in scope. */
export function targetPlace(root: Place, outer: readonly Binding[], binding: Binding): Place {
  return placeOf(root, outer, binding.target.flatMap((step) => ("key" in step ? [step.key] : [])));
}

/** @internal Whether a place holds maps: by its schema, or by the sample values without one. */
export function isMapPlace(place: Place): boolean {
  return place.schema !== undefined && typeof place.schema !== "string" ? place.schema.kind === "map" : place.values.some(isPlainObject);
}

/** @internal Follows steps through a schema and the sample values together. */
export function walk(place: Place, steps: readonly Step[]): Place {
  let { schema, values } = place;
  for (const step of steps) {
    if ("each" in step) {
      schema = schema !== undefined && typeof schema !== "string" ? (schema.kind === "array" ? schema.items : schema.kind === "map" ? schema.values : undefined) : schema === "any" ? "any" : undefined;
      values = values.flatMap((value) => (Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : []));
      continue;
    }
    const { key } = step;
    if (schema !== undefined && typeof schema !== "string") {
      // (`Object.hasOwn`: a field named `valueOf` is not the prototype's.)
      schema = schema.kind === "object" ? (Object.hasOwn(schema.fields, key) ? schema.fields[key] : undefined) : schema.kind === "map" ? schema.values : /^[0-9]+$/.test(key) ? schema.items : undefined;
    } else if (schema !== "any") schema = undefined;
    values = values.flatMap((value) => {
      if (Array.isArray(value)) return /^[0-9]+$/.test(key) && Number(key) < value.length ? [value[Number(key)]] : [];
      return isPlainObject(value) && Object.hasOwn(value, key) ? [value[key]] : [];
    });
  }
  return { schema, values };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCollectionSchema(schema: FieldSchema): boolean {
  return schema === "any" || (typeof schema !== "string" && (schema.kind === "array" || schema.kind === "map"));
}

/** @internal How a field's schema is shown: `string`, `list of string`, `map of string`, `structs.JobSummary`. */
export function describeSchema(schema: FieldSchema): string {
  if (typeof schema === "string") return schema;
  switch (schema.kind) {
    case "array":
      return `list of ${describeSchema(schema.items)}`;
    case "map":
      return `map of ${describeSchema(schema.values)}`;
    case "object":
      return schema.typeName ?? "object";
  }
}

/** How a sample value's kind is shown. */
function describeJson(value: unknown): string {
  if (Array.isArray(value)) return "list";
  if (value === null) return "null";
  if (typeof value === "object") return "map";
  if (typeof value === "bigint") return "number";
  return typeof value;
}
