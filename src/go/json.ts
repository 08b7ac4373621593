/**
 * Request bodies read as the reference reads them with Go's `encoding/json`, in one place:
 *
 * - the syntax check of `json.Decoder.Decode`, which reads the first JSON value and reports the
 *   first invalid byte in Go's words (`invalid character 'x' looking for beginning of value`,
 *   `unexpected EOF`), ignoring anything after that value; it runs without recursion, and refuses
 *   nesting deeper than {@link MAX_JSON_DEPTH} as Go refuses nesting deeper than 10,000;
 * - decoding into a Go struct described by a schema: keys match fields exactly or
 *   case-insensitively (the last one wins, as do duplicate keys), unknown keys are dropped,
 *   `null` leaves the zero value, and a value of the wrong kind, or a number out of its field's
 *   range, is Go's `cannot unmarshal` error.
 *
 * Numbers are read losslessly (their text is kept) so that each is converted by the rules of the
 * field it lands in: Go's `ParseInt` for int fields, `ParseUint` for uint64, `ParseFloat` for
 * floats; numbers in untyped (`interface{}`) places become JS numbers, or bigints for integers
 * beyond 2^53.
 *
 * @module
 */
import { isInteger, isSafeNumber, LosslessNumber } from "lossless-json";
import type { FieldSchema } from "./types.js";
import { parseGoFloat, parseGoInt, parseGoUint } from "./strconv.js";
import { jsonStringAt, MAX_JSON_DEPTH } from "../json.js";


/**
 * A body Go's `encoding/json` refuses, with its text (`invalid character 'x' looking for beginning
 * of value`, `json: cannot unmarshal string into Go struct field Job.Priority of type int`): the
 * reference answers it `400` with that text.
 */
export class GoJsonError extends Error {
  /** `"GoJsonError"`, set here so that bundling cannot rename it. */
  override readonly name = "GoJsonError";
}

/**
 * The deepest nesting of objects and arrays accepted in a body (`src/json.ts`). Go's decoder
 * allows 10,000; the JSON and evaluation code here recurses once or twice per level, and a
 * thousand levels keep it far from the stack's end (no job spec comes near: they nest about ten).
 */
export { MAX_JSON_DEPTH };

/** Where the first value ends, or Go's error text for the body. */
export interface ScanResult {
  readonly error: string | undefined;
  /** Offset just past the first value (when there is no error). */
  readonly end: number;
}

class SyntaxFailure extends Error {}

/** Go's `quoteChar`: the offending character in single quotes, escaped as Go would. */
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  const quoted = JSON.stringify(ch);
  return `'${quoted.slice(1, -1)}'`;
}

const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isHex = (code: number) => isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
/** The escapes Go accepts after a backslash, besides `\u`: `"`, `\`, `/`, `b`, `f`, `n`, `r`, `t`. */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/** A container being read: its value, and for an object the key awaiting its value. */
interface OpenContainer {
  readonly value: Record<string, unknown> | unknown[];
  readonly isObject: boolean;
  key: string;
}

/**
 * Reads the first JSON value of `text` in one pass without recursion: Go's error for the first
 * invalid byte, or (when `build`) the value, with numbers as {@link LosslessNumber}s and the last
 * of duplicate keys winning. Each string is decoded by `jsonStringAt` as a flat string of its own:
 * a decoder that builds them character by character leaves chains of one-character pieces, about
 * 32 bytes a character (a 4 MiB string kept 128 MiB).
 */
function readJson(text: string, maxDepth: number, build: boolean): ScanResult & { readonly value?: unknown } {
  let i = 0;
  const length = text.length;
  const fail = (context: string): never => {
    throw new SyntaxFailure(i >= length ? "unexpected EOF" : `invalid character ${quoteChar(text.charAt(i))} ${context}`);
  };
  const skipSpace = () => {
    while (i < length && isSpace(text.charCodeAt(i))) i++;
  };
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (text.charAt(i) !== word.charAt(k)) fail(`in literal ${word} (expecting '${word.charAt(k)}')`);
    }
    i++;
  };
  /** Reads a string from its opening quote; its decoded text when building. */
  const string = (): string => {
    const start = i;
    let escaped = false;
    i++; // the opening quote
    for (;;) {
      if (i >= length) fail("");
      const code = text.charCodeAt(i);
      if (code === 0x22) {
        i++;
        return build ? jsonStringAt(text, start, i, escaped) : "";
      }
      if (code === 0x5c) {
        escaped = true;
        i++;
        const escape = text.charCodeAt(i);
        if (escape === 0x75) {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!isHex(text.charCodeAt(i))) fail("in \\u hexadecimal character escape");
          }
        } else if (!SIMPLE_ESCAPES.has(escape)) {
          fail("in string escape code");
        }
      } else if (code < 0x20) {
        fail("in string literal");
      }
      i++;
    }
  };
  const number = (): LosslessNumber | undefined => {
    const start = i;
    if (text.charCodeAt(i) === 0x2d) {
      i++;
      if (!isDigit(text.charCodeAt(i))) fail("in numeric literal");
    }
    if (text.charCodeAt(i) === 0x30) i++;
    else while (isDigit(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit(text.charCodeAt(i))) fail("after decimal point in numeric literal");
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(text.charCodeAt(i))) fail("in exponent of numeric literal");
      while (isDigit(text.charCodeAt(i))) i++;
    }
    return build ? new LosslessNumber(text.slice(start, i)) : undefined;
  };

  /** The containers open around the current position, innermost last. */
  const open: OpenContainer[] = [];
  /** The value read last (when building). */
  let value: unknown;
  /** Puts `element` into the innermost container. */
  const place = (element: unknown) => {
    const container = open.at(-1);
    if (container === undefined) value = element;
    else if (!container.isObject) (container.value as unknown[]).push(element);
    else if (container.key === "__proto__") Object.defineProperty(container.value, "__proto__", { value: element, enumerable: true, writable: true, configurable: true });
    else (container.value as Record<string, unknown>)[container.key] = element;
  };
  /** Reads one scalar, or opens a container (pushed on `open`); false when a container was opened. */
  const startValue = (): boolean => {
    skipSpace();
    const code = text.charCodeAt(i);
    if (code === 0x7b || code === 0x5b) {
      if (open.length >= maxDepth) fail("exceeded max depth");
      const isObject = code === 0x7b;
      const container: OpenContainer = { value: isObject ? {} : [], isObject, key: "" };
      if (build) place(container.value);
      open.push(container);
      i++;
      skipSpace();
      return false;
    }
    let scalar: unknown;
    if (code === 0x22) scalar = string();
    else if (code === 0x74) (literal("true"), (scalar = true));
    else if (code === 0x66) (literal("false"), (scalar = false));
    else if (code === 0x6e) (literal("null"), (scalar = null));
    else if (code === 0x2d || isDigit(code)) scalar = number();
    else fail("looking for beginning of value");
    if (build) place(scalar);
    return true;
  };
  /** In an object, after `{` or `,`: a key and its colon. */
  const key = (container: OpenContainer) => {
    skipSpace();
    if (text.charCodeAt(i) !== 0x22) fail("looking for beginning of object key string");
    container.key = string();
    skipSpace();
    if (text.charCodeAt(i) !== 0x3a) fail("after object key");
    i++;
  };

  skipSpace();
  // Only whitespace: the decoder reports io.EOF.
  if (i >= length) return { error: "EOF", end: 0 };
  try {
    let complete = startValue();
    for (;;) {
      if (!complete) {
        // A container was just opened: it may close at once, or holds its first element.
        const container = open.at(-1)!;
        if (text.charCodeAt(i) === (container.isObject ? 0x7d : 0x5d)) {
          i++;
          open.pop();
          complete = true;
        } else {
          if (container.isObject) key(container);
          complete = startValue();
          continue;
        }
      }
      // A value is complete: close containers, or go on with the next element.
      if (open.length === 0) return { error: undefined, end: i, value };
      skipSpace();
      const container = open.at(-1)!;
      const code = text.charCodeAt(i);
      if (code === 0x2c) {
        i++;
        if (container.isObject) key(container);
        complete = startValue();
      } else if (code === (container.isObject ? 0x7d : 0x5d)) {
        i++;
        open.pop();
        complete = true;
      } else {
        fail(container.isObject ? "after object key:value pair" : "after array element");
      }
    }
  } catch (error) {
    if (error instanceof SyntaxFailure) return { error: error.message, end: 0 };
    throw error;
  }
}

/**
 * Decodes the JSON body of a request: Go's syntax errors, then the first value with every number
 * kept as its text (a `LosslessNumber`) and duplicate keys resolved as Go does, the last one winning.
 *
 * @throws a 400 HttpError with the reference's text.
 */
export function decodeJsonBody(body: string): unknown {
  if (body.length === 0) throw new GoJsonError("Request body is empty");
  const { error, value } = readJson(body, MAX_JSON_DEPTH, true);
  if (error !== undefined) throw new GoJsonError(error);
  return value;
}

const GO_TYPES: Readonly<Record<string, string>> = { string: "string", int: "int", uint: "uint64", bool: "bool", float: "float64", time: "time.Time", any: "interface {}" };

/** How Go names a JSON value in `cannot unmarshal` errors: `number 1.5` for numbers a field cannot hold. */
function jsonKind(value: unknown, withText = false): string {
  if (Array.isArray(value)) return "array";
  if (value instanceof LosslessNumber) return withText ? `number ${value.value}` : "number";
  return typeof value === "object" ? "object" : typeof value;
}

/** The Go type a schema stands for, as error messages write it. */
export function goType(schema: FieldSchema): string {
  if (typeof schema === "string") return GO_TYPES[schema] ?? "interface {}";
  if (schema.kind === "array") return `[]${goType(schema.items)}`;
  if (schema.kind === "map") return `map[string]${goType(schema.values)}`;
  // The schemas name the server's structs (`structs.TaskGroup`); a body is decoded into the API's (`api.TaskGroup`).
  return `api.${(schema.typeName ?? "struct").replace(/^structs\./, "")}`;
}

/** A JSON number's text as a JS number, or a bigint for an integer beyond 2^53. */
function jsNumber(text: string): number | bigint {
  return isInteger(text) && !isSafeNumber(text) ? BigInt(text) : Number(text);
}

/** An RFC 3339 time, as Go's `time.Time` reads it from JSON. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const foldedCache = new WeakMap<object, ReadonlyMap<string, string>>();

/**
 * A struct's fields by their lower-case names (the first of those that fold alike, as Go's
 * case-insensitive match finds it), built once per schema: a body of many unknown keys costs one
 * lookup a key, not one comparison a key and field.
 */
function foldedFields(schema: { readonly fields: Readonly<Record<string, FieldSchema>> }): ReadonlyMap<string, string> {
  let folded = foldedCache.get(schema);
  if (folded === undefined) {
    const map = new Map<string, string>();
    for (const name of Object.keys(schema.fields)) if (!map.has(name.toLowerCase())) map.set(name.toLowerCase(), name);
    foldedCache.set(schema, (folded = map));
  }
  return folded;
}

/**
 * Decodes `value` (a tree from {@link decodeJsonBody}) into the shape of `schema` as Go's
 * `json.Unmarshal` does. `path` names the place for errors (`JobRegisterRequest.Job.Priority`);
 * numbers come out as JS numbers (bigints beyond 2^53) once their field accepts them.
 */
export function decodeAs(value: unknown, schema: FieldSchema, path: string): unknown {
  if (value === null) return null;
  const mismatch = (withText = false) => new GoJsonError(`json: cannot unmarshal ${jsonKind(value, withText)} into Go struct field ${path} of type ${goType(schema)}`);
  if (schema === "any") return plainJson(value, path);
  if (typeof schema === "string") {
    switch (schema) {
      case "string":
        if (typeof value !== "string") throw mismatch();
        return value;
      case "time":
        if (typeof value !== "string") throw mismatch();
        if (!RFC3339.test(value)) throw new GoJsonError(`parsing time ${JSON.stringify(JSON.stringify(value))} as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse ${JSON.stringify(`${value}"`)} as "2006"`);
        return value;
      case "bool":
        if (typeof value !== "boolean") throw mismatch();
        return value;
      case "int":
      case "uint":
      case "float": {
        if (!(value instanceof LosslessNumber)) throw mismatch();
        // Go parses the literal for the field's type: a fraction, an exponent or an overflow is an error there.
        const parsed = schema === "float" ? parseGoFloat(value.value) : (schema === "int" ? parseGoInt : parseGoUint)(value.value);
        if (!parsed.ok || (schema !== "float" && !/^-?[0-9]+$/.test(value.value))) throw mismatch(true);
        return typeof parsed.value === "bigint" ? (Number.isSafeInteger(Number(parsed.value)) ? Number(parsed.value) : parsed.value) : parsed.value;
      }
    }
  }
  if (schema.kind === "array") {
    if (!Array.isArray(value)) throw mismatch();
    return value.map((element) => decodeAs(element, schema.items, path));
  }
  if (typeof value !== "object" || Array.isArray(value) || value instanceof LosslessNumber) throw mismatch();
  const entries = Object.entries(value as Record<string, unknown>);
  if (schema.kind === "map") return Object.fromEntries(entries.map(([key, element]) => [key, decodeAs(element, schema.values, `${path}.${key}`)]));
  const folded = foldedFields(schema);
  const decoded: Record<string, unknown> = {};
  for (const [key, element] of entries) {
    const field = Object.hasOwn(schema.fields, key) ? key : folded.get(key.toLowerCase());
    if (field === undefined) continue;
    decoded[field] = decodeAs(element, schema.fields[field]!, `${path}.${field}`);
  }
  return decoded;
}

/**
 * A tree from {@link decodeJsonBody} as plain JSON values, for places Go decodes into
 * `interface{}`: numbers become JS numbers (bigints for integers beyond 2^53, kept exact where Go
 * would round them to a float64); a number beyond float64's range is Go's error.
 */
export function plainJson(value: unknown, path: string): unknown {
  if (value instanceof LosslessNumber) {
    const converted = jsNumber(value.value);
    if (typeof converted === "number" && !Number.isFinite(converted)) {
      throw new GoJsonError(`json: cannot unmarshal number ${value.value} into Go struct field ${path} of type float64`);
    }
    return converted;
  }
  if (Array.isArray(value)) return value.map((element) => plainJson(element, path));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, plainJson(element, path)]));
  }
  return value;
}

/** Decodes a request body (text) into the Go struct `schema` describes, named `typeName` in errors. */
export function decodeBody(body: string, schema: FieldSchema & { readonly kind: "object" }, typeName: string): Record<string, unknown> {
  const value = decodeJsonBody(body);
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value) || value instanceof LosslessNumber) {
    throw new GoJsonError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type ${typeName}`);
  }
  return decodeAs(value, schema, typeName.replace(/^api\.|^structs\./, "")) as Record<string, unknown>;
}

/** A float64 as the reference's JSON codec writes it: integral values keep a `.0` (`56.0`). */
export function goFloat(value: number): LosslessNumber {
  const text = String(value);
  return new LosslessNumber(Number.isInteger(value) && !text.includes("e") ? `${text}.0` : text);
}
