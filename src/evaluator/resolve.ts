/**
 * Selector lookup, compiled once per clause into a closure.
 *
 * Each segment of a path is a step whose behaviour is fixed at compile time when a schema types
 * the container (struct field, map key, list index), and decided per value otherwise (decoded
 * JSON: arrays are lists, objects are maps). A missing key yields {@link NOT_PRESENT} only where
 * the reference applies its missing-key rule: the key is the last segment of a path of two or
 * more, and its parent is a map. Every other failure is an evaluation error worded as the
 * reference words it.
 *
 * @module
 */
import type { Selector, Span } from "../ast.js";
import { FilterEvaluationError, type EvaluationErrorCode } from "../errors.js";
import { keyTypeOf, pathKindName, schemaType, type FieldSchema, type ValueType } from "./schema.js";
import { goQuote } from "../go/strings.js";
import { parseGoInt } from "../go/strconv.js";

/** The lookup found no value, and the missing-key rule applies: the operator's fixed result is used. */
export const NOT_PRESENT: unique symbol = Symbol("bexpr.notPresent");

/** Where a clause is, for its error messages. */
export interface Site {
  readonly span: Span;
  readonly source: string | undefined;
  /** The clause's selector as the reference names it (`a.b` or `a/b`). */
  readonly selectorText: string;
}

/** Throws the evaluation error of a clause. */
export function fail(site: Site, code: EvaluationErrorCode, reason: string, suggestion?: string): never {
  throw new FilterEvaluationError(code, reason, site.span, site.source, undefined, suggestion);
}

/** One part of a full path: a fixed segment, or the key or index a collection loop is at. */
export type PathPart = string | { readonly slot: number };

/** A name bound by `any`/`all` for its body. */
export interface Binding {
  readonly name: string;
  /**
   * `alias`: the element (a path continues into it); `key`: the map key or list index;
   * `auto`: `as x` over untyped data, the element of a list or the key of a map, as found.
   */
  readonly mode: "alias" | "key" | "auto";
  /** Environment slot of the element. */
  readonly valueSlot: number;
  /** Environment slot of the key or index. */
  readonly keySlot: number;
  /** Environment slot that holds {@link MAP_LOOP} while the loop iterates a map (for `auto`). */
  readonly loopSlot: number;
  /** The element's schema; undefined when untyped. */
  readonly schema: FieldSchema | undefined;
  /** The key's schema: `int` for lists, `string` for maps; undefined when only known per value. */
  readonly keySchema: FieldSchema | undefined;
  /** The element's full path from the root, for messages. */
  readonly fullPath: readonly PathPart[];
}

/** Marks a loop over a map in a binding's {@link Binding.loopSlot}. */
export const MAP_LOOP = 1;

/** A selector compiled for one clause. */
export interface CompiledSelector {
  /** The value, or {@link NOT_PRESENT}; throws a {@link FilterEvaluationError} where the reference errors. */
  readonly resolve: (root: unknown, env: unknown[]) => unknown;
  /** The schema of the value when a schema types the whole path; undefined for untyped JSON. */
  readonly schema: FieldSchema | undefined;
  /** The selector's full path from the root (for messages and nested collections). */
  readonly fullPath: readonly PathPart[];
  /** How an untyped value looks to the operators when not as decoded JSON (a bound list index is Go's `int`). */
  readonly typeOf?: (value: unknown) => ValueType;
  /**
   * For a path of object keys: where it starts (the root, or what a collection binds), its keys,
   * and whether an absent key holds null (its zero value). For the generated code (`codegen.ts`).
   */
  readonly plainPath?: PlainPath;
}

/** A path of object keys, from the root or from a binding of an enclosing `any`/`all`. */
export interface PlainPath {
  readonly start: PathStart;
  readonly keys: readonly string[];
  readonly absentIsZero: readonly boolean[];
}

/**
 * Where a {@link PlainPath} starts: the root; the element (`element`) or the key or index (`key`)
 * in a binding's slots; or, for an `auto` binding, the key while the loop is over a map and the
 * element otherwise.
 */
export type PathStart =
  | { readonly from: "root" }
  | { readonly from: "element" | "key"; readonly slot: number }
  | { readonly from: "auto"; readonly valueSlot: number; readonly keySlot: number; readonly loopSlot: number };

const FROM_ROOT: PathStart = { from: "root" };

type Step =
  | { readonly type: "json"; readonly key: string }
  | { readonly type: "field"; readonly key: string; readonly schema: FieldSchema }
  | { readonly type: "mapKey"; readonly key: string; readonly schema: FieldSchema }
  | { readonly type: "index"; readonly key: string; readonly schema: FieldSchema }
  | { readonly type: "unknownField"; readonly key: string; readonly typeName: string }
  | { readonly type: "scalar"; readonly key: string; readonly kindName: string };

/** Reports a selector segment that names a field its object schema lacks (strict typed mode). */
export type UnknownFieldHandler = (selector: Selector, segmentIndex: number, known: readonly string[], what: "field" | "key") => void;

/**
 * Compiles the lookup of `selector` in `scope` (innermost binding last), against a root of
 * `rootSchema` (undefined for untyped JSON).
 */
export function compileSelector(
  selector: Selector,
  scope: readonly Binding[],
  rootSchema: FieldSchema | undefined,
  site: Site,
  onUnknownField?: UnknownFieldHandler,
): CompiledSelector {
  const head = selector.path[0]!;
  const binding = findBinding(scope, head);
  if (binding === undefined) {
    const { steps, schema } = planSteps(selector.path, rootSchema, onUnknownField === undefined ? undefined : (index, known, what) => onUnknownField(selector, index, known, what));
    const walk = createWalker(steps, site, [], selector.path.length >= 2);
    const plainPath = plainPathOf(steps, FROM_ROOT);
    return { resolve: specialise(plainPath, walk), schema, fullPath: selector.path, plainPath };
  }

  const rest = selector.path.slice(1);
  const unknown = (index: number, known: readonly string[], what: "field" | "key") => onUnknownField?.(selector, index + 1, known, what);
  const asKey = (): CompiledSelector => {
    if (rest.length > 0) {
      // The reference names the Go type of the key: `string` for map keys, `int` for list indexes.
      const keySlot = binding.keySlot;
      const reason = (env: unknown[]) =>
        `/${escapePointer(head)} references a ${typeof env[keySlot] === "number" ? "int" : "string"} so ${pointerText(selector.path)} is invalid`;
      return { resolve: (_root, env) => fail(site, "invalid_binding_path", reason(env)), schema: undefined, fullPath: selector.path };
    }
    const slot = binding.keySlot;
    const plainPath: PlainPath = { start: { from: "key", slot }, keys: [], absentIsZero: [] };
    return { resolve: (_root, env) => env[slot], schema: binding.keySchema, fullPath: selector.path, typeOf: keyTypeOf, plainPath };
  };
  const asElement = (): CompiledSelector => {
    const { steps, schema } = planSteps(rest, binding.schema, unknown);
    const slot = binding.valueSlot;
    const plainPath = plainPathOf(steps, { from: "element", slot });
    // A path through a binding has at least two segments, so the missing-key rule always applies.
    const walk = specialise(plainPath, createWalker(steps, site, binding.fullPath, true));
    return { resolve: (_root, env) => walk(env[slot], env), schema, fullPath: [...binding.fullPath, ...rest], plainPath };
  };

  switch (binding.mode) {
    case "key":
      return asKey();
    case "alias":
      return asElement();
    case "auto": {
      const key = asKey().resolve;
      const element = asElement();
      const { loopSlot, valueSlot, keySlot } = binding;
      const plainPath: PlainPath | undefined = element.plainPath && { ...element.plainPath, start: { from: "auto", valueSlot, keySlot, loopSlot } };
      return {
        resolve: (root, env) => (env[loopSlot] === MAP_LOOP ? key(root, env) : element.resolve(root, env)),
        schema: undefined,
        fullPath: element.fullPath,
        plainPath,
      };
    }
  }
}

function findBinding(scope: readonly Binding[], name: string): Binding | undefined {
  for (let i = scope.length - 1; i >= 0; i--) if (scope[i]!.name === name) return scope[i];
  return undefined;
}

/** Decides each step's behaviour from the schema, as far as the schema reaches. */
function planSteps(
  segments: readonly string[],
  rootSchema: FieldSchema | undefined,
  onUnknownField: ((index: number, known: readonly string[], what: "field" | "key") => void) | undefined,
): { steps: Step[]; schema: FieldSchema | undefined } {
  const steps: Step[] = [];
  let schema: FieldSchema | undefined = rootSchema;
  for (let index = 0; index < segments.length; index++) {
    const key = segments[index]!;
    if (schema === undefined || schema === "any") {
      steps.push({ type: "json", key });
      schema = undefined;
    } else if (typeof schema === "string") {
      steps.push({ type: "scalar", key, kindName: schemaType(schema).kindName });
      schema = undefined;
    } else if (schema.kind === "object") {
      const field: FieldSchema | undefined = Object.hasOwn(schema.fields, key) ? schema.fields[key] : undefined;
      if (field === undefined) {
        onUnknownField?.(index, Object.keys(schema.fields), "field");
        steps.push({ type: "unknownField", key, typeName: schemaType(schema).typeName });
      } else {
        steps.push({ type: "field", key, schema: field });
      }
      schema = field;
    } else if (schema.kind === "map") {
      if (schema.keys !== undefined && !schema.keys.includes(key)) onUnknownField?.(index, schema.keys, "key");
      steps.push({ type: "mapKey", key, schema: schema.values });
      schema = schema.values;
    } else {
      steps.push({ type: "index", key, schema: schema.items });
      schema = schema.items;
    }
  }
  return { steps, schema };
}

/**
 * The interpreter of a step list, starting at the root or a bound element. A class, so that a
 * clause holds one small object (its methods are shared) rather than a set of closures.
 */
class Walker {
  readonly #last: number;

  constructor(
    private readonly steps: readonly Step[],
    private readonly site: Site,
    private readonly basePath: readonly PathPart[],
    private readonly disposable: boolean,
  ) {
    this.#last = steps.length - 1;
  }

  /** The value at the end of the path from `start`, or {@link NOT_PRESENT}; throws where the reference errors. */
  walk(start: unknown, env: unknown[]): unknown {
    const { steps, disposable } = this;
    const last = this.#last;
    let current = start;
    for (let i = 0; i <= last; i++) {
      const step = steps[i]!;
      switch (step.type) {
        case "json":
          current = this.#lookupJson(current, env, i, step.key);
          break;
        case "field": {
          // A nil pointer to a struct has no fields: the reference reports the kind "invalid".
          if (current === null || current === undefined) return this.#badKind(env, i, "invalid");
          if (typeof current !== "object" || Array.isArray(current)) {
            current = this.#lookupJson(current, env, i, step.key);
            break;
          }
          // An absent field holds its zero value; the operators read null as that zero value.
          const value = ownValue(current, step.key);
          current = value === undefined ? null : value;
          break;
        }
        case "mapKey": {
          if (current === null || current === undefined) {
            // A nil map has no keys.
            if (i === last && disposable) return NOT_PRESENT;
            return this.#notFound(env, i, step.key);
          }
          current = this.#lookupJson(current, env, i, step.key);
          break;
        }
        case "index":
          if (current === null || current === undefined) return this.#lookupIndex(null, env, i, step.key);
          current = this.#lookupJson(current, env, i, step.key);
          break;
        case "unknownField":
          if (current === null || current === undefined) return this.#badKind(env, i, "invalid");
          return this.#fail(env, i, "missing_field", `couldn't find struct field with name ${goQuote(step.key)}`);
        case "scalar":
          return this.#badKind(env, i, step.kindName);
      }
      if (current === NOT_PRESENT) return NOT_PRESENT;
    }
    return current;
  }

  #lookupJson(current: unknown, env: unknown[], i: number, key: string): unknown {
    if (Array.isArray(current)) return this.#lookupIndex(current, env, i, key);
    if (typeof current !== "object" || current === null) return this.#badKind(env, i, pathKindName(current));
    const value = ownValue(current, key);
    if (value !== undefined) return value;
    return i === this.#last && this.disposable ? NOT_PRESENT : this.#notFound(env, i, key);
  }

  #lookupIndex(list: readonly unknown[] | null, env: unknown[], i: number, key: string): unknown {
    const length = list === null ? 0 : list.length;
    // The reference's pointer library converts the segment like Go's ParseInt(s, 0, 64), "" being 0.
    const parsed = key === "" ? ({ ok: true, value: 0n } as const) : parseGoInt(key);
    if (!parsed.ok) return this.#fail(env, i, "index_out_of_range", `couldn't convert value ${goQuote(key)} to type int`);
    const index = Number(parsed.value);
    if (index < 0 || index >= length) return this.#fail(env, i, "index_out_of_range", `index ${index} is out of range (length = ${length})`);
    return list![index];
  }

  #notFound(env: unknown[], i: number, key: string): never {
    return this.#fail(env, i, "missing_key", `couldn't find key ${goQuote(key)}`);
  }

  #badKind(env: unknown[], i: number, kindName: string): never {
    const { site } = this;
    return fail(site, "invalid_path", `error finding value in datum: ${pointerText(this.#pathAt(env))}: at part ${this.basePath.length + i}, invalid value kind: ${kindName}`);
  }

  /** The reference's `error finding value in datum: /a/b at part N: …`. */
  #fail(env: unknown[], i: number, code: EvaluationErrorCode, what: string): never {
    return fail(this.site, code, `error finding value in datum: ${pointerText(this.#pathAt(env))} at part ${this.basePath.length + i}: ${what}`);
  }

  /** The full path, with the keys the enclosing loops are at. */
  #pathAt(env: unknown[]): string[] {
    return [...this.basePath.map((part) => (typeof part === "string" ? part : String(env[part.slot]))), ...this.steps.map((step) => step.key)];
  }
}

/** The interpreter of a step list, starting at `start` (the root or a bound element). */
function createWalker(steps: readonly Step[], site: Site, basePath: readonly PathPart[], disposable: boolean): (start: unknown, env: unknown[]) => unknown {
  const walker = new Walker(steps, site, basePath, disposable);
  return (start, env) => walker.walk(start, env);
}

/**
 * Fast path for paths of object keys (`Status`, `Meta.owner`, `JobSummary.Summary["web-api"]`):
 * while every step finds a present value in a plain object, the loop only reads properties; on
 * anything else (a list, a missing key, a nil struct) it hands over to the general walker, which
 * starts again from the root and applies every rule.
 */
function specialise(plain: CompiledSelector["plainPath"], general: (root: unknown, env: unknown[]) => unknown): (root: unknown, env: unknown[]) => unknown {
  if (plain === undefined) return general;
  const { keys, absentIsZero } = plain;
  const count = keys.length;
  if (count === 1) {
    const key = keys[0]!;
    const zeroIfAbsent = absentIsZero[0]!;
    return (root, env) => {
      if (typeof root === "object" && root !== null && !Array.isArray(root)) {
        const value = (root as Record<string, unknown>)[key];
        if (value !== undefined && typeof value !== "function") return value;
        if (value === undefined && zeroIfAbsent) return null;
      }
      return general(root, env);
    };
  }
  return (root, env) => {
    let current = root;
    for (let i = 0; i < count; i++) {
      if (typeof current !== "object" || current === null || Array.isArray(current)) return general(root, env);
      const value = (current as Record<string, unknown>)[keys[i]!];
      if (value === undefined) {
        if (!absentIsZero[i]) return general(root, env);
        current = null;
      } else if (typeof value === "function") {
        return general(root, env);
      } else {
        current = value;
      }
    }
    return current;
  };
}

/** The keys of a path that only reads object keys (the fast path), and where an absent key holds null. */
function plainPathOf(steps: readonly Step[], start: PathStart): PlainPath | undefined {
  const keys: string[] = [];
  const absentIsZero: boolean[] = [];
  for (const step of steps) {
    if ((step.type !== "json" && step.type !== "field" && step.type !== "mapKey") || step.key === "__proto__") return undefined;
    keys.push(step.key);
    absentIsZero.push(step.type === "field");
  }
  return { start, keys, absentIsZero };
}

/**
 * The value of a key of an object, or undefined when the key is absent. Functions are never
 * values, and `__proto__` counts only as an own property; other inherited properties (getters of
 * class instances) are read like own ones.
 */
export function ownValue(container: object, key: string): unknown {
  const value = (container as Record<string, unknown>)[key];
  if (value === undefined || typeof value === "function") return undefined;
  if (key === "__proto__" && !Object.hasOwn(container, key)) return undefined;
  return value;
}

/** Escapes a JSON-pointer segment. */
function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A path as the reference's pointer library prints it: `/a/b~1c`. */
export function pointerText(path: readonly string[]): string {
  return path.length === 0 ? "/" : path.map((segment) => `/${escapePointer(segment)}`).join("");
}

/** A selector as the reference names it in messages: its path joined by `.`, or by `/` for a pointer. */
export function selectorText(selector: Selector): string {
  return selector.path.join(selector.form === "Pointer" ? "/" : ".");
}
