/**
 * Go's `encoding/json` for the reference client's structs (declared in `go-types.ts`): the bytes
 * `json.Encoder.Encode` writes for a request body, and a decoder that reads an answer into the
 * client's field types, failing where Go fails with Go's message
 * (`json: cannot unmarshal string into Go struct field Job.Priority of type int`) and ignoring
 * unknown fields as Go does. A second decoding mode follows `mapstructure`, which the client uses
 * for event payloads (`Event.Node()`…).
 *
 * Numbers come from the project's `parseJson`: integers beyond 2^53 are bigints, read exactly.
 * Its one loss: a number's spelling (`1.0` reads as `1`), so an integral float written where Go
 * wants an int passes here while Go would refuse it; JSON.stringify never writes one.
 *
 * @module
 */
import { API_NAMED, API_STRUCTS, type GoStruct, type GoStructInput, type StructName } from "./go-types.js";

/** A Go type, resolved from its spelling in the table. */
export type GoType =
  | { readonly kind: "string"; readonly name: string }
  | { readonly kind: "bool"; readonly name: string }
  | { readonly kind: "int"; readonly name: string; readonly bits: 8 | 16 | 32 | 64; readonly unsigned: boolean }
  | { readonly kind: "float"; readonly name: string; readonly bits: 32 | 64 }
  /** A time.Duration a custom (Un)MarshalJSON writes as Go duration text and reads from text or a number. */
  | { readonly kind: "durationText" }
  | { readonly kind: "time" }
  | { readonly kind: "bytes" }
  | { readonly kind: "any" }
  | { readonly kind: "error" }
  | { readonly kind: "pointer"; readonly elem: GoType }
  | { readonly kind: "slice"; readonly elem: GoType }
  | { readonly kind: "map"; readonly value: GoType }
  | { readonly kind: "struct"; readonly name: StructName };

/** One field of a struct as `encoding/json` sees it, promoted fields included. */
interface GoField {
  /** The Go field name (the key of decoded objects). */
  readonly goName: string;
  /** The JSON key: the tag's name, else the Go name. */
  readonly key: string;
  readonly omitempty: boolean;
  readonly type: GoType;
  /** The embedded structs it is promoted through, by Go name (for Go's error path). */
  readonly via: readonly string[];
}

/** A failure to decode, with Go's message. */
export class GoDecodeError extends Error {
  override readonly name = "GoDecodeError";
}

const INT_KINDS: Readonly<Record<string, { bits: 8 | 16 | 32 | 64; unsigned: boolean }>> = {
  int: { bits: 64, unsigned: false },
  int8: { bits: 8, unsigned: false },
  int16: { bits: 16, unsigned: false },
  int32: { bits: 32, unsigned: false },
  int64: { bits: 64, unsigned: false },
  uint: { bits: 64, unsigned: true },
  uint8: { bits: 8, unsigned: true },
  byte: { bits: 8, unsigned: true },
  uint16: { bits: 16, unsigned: true },
  uint32: { bits: 32, unsigned: true },
  uint64: { bits: 64, unsigned: true },
  "time.Duration": { bits: 64, unsigned: false },
};

/** Resolves a Go type spelt as the table spells it (`[]*TaskGroup`, `map[string]string`, `Topic`). */
export function goType(text: string, name = text): GoType {
  if (text.startsWith("*")) return { kind: "pointer", elem: goType(text.slice(1)) };
  if (text === "[]byte" || text === "[]uint8") return { kind: "bytes" };
  if (text.startsWith("[]")) return { kind: "slice", elem: goType(text.slice(2)) };
  if (text.startsWith("map[string]")) return { kind: "map", value: goType(text.slice("map[string]".length)) };
  if (text === "string") return { kind: "string", name };
  if (text === "bool") return { kind: "bool", name };
  if (text === "float32" || text === "float64") return { kind: "float", name, bits: text === "float32" ? 32 : 64 };
  const int = INT_KINDS[text];
  if (int !== undefined) return { kind: "int", name, ...int };
  if (text === "time.Time") return { kind: "time" };
  if (text === "durationText") return { kind: "durationText" };
  if (text === "any" || text === "interface{}") return { kind: "any" };
  if (text === "error") return { kind: "error" };
  if (Object.hasOwn(API_NAMED, text)) return goType(API_NAMED[text as keyof typeof API_NAMED], `api.${text}`);
  if (Object.hasOwn(API_STRUCTS, text)) return { kind: "struct", name: text as StructName };
  throw new Error(`no Go type ${text} in go-types.ts`);
}

/** The type's name as Go's reflect prints it in errors (`[]*api.TaskGroup`, `interface {}`). */
function typeName(type: GoType): string {
  switch (type.kind) {
    case "string":
    case "bool":
    case "int":
    case "float":
      return type.name;
    case "durationText":
      return "time.Duration";
    case "time":
      return "time.Time";
    case "bytes":
      return "[]uint8";
    case "any":
      return "interface {}";
    case "error":
      return "error";
    case "pointer":
      return `*${typeName(type.elem)}`;
    case "slice":
      return `[]${typeName(type.elem)}`;
    case "map":
      return `map[string]${typeName(type.value)}`;
    case "struct":
      return `api.${type.name}`;
  }
}

/** Each struct's fields, resolved once (the table is constant). */
const FIELDS = new Map<string, readonly GoField[]>();

/**
 * A struct's fields as `encoding/json` sees them, in its order: embedded structs' fields promoted
 * at the embedding's place; of fields sharing a key, the shallowest wins, a tagged one among
 * equals, and none when that leaves a tie (Go's `dominantField`).
 */
function jsonFields(name: StructName): readonly GoField[] {
  const cached = FIELDS.get(name);
  if (cached !== undefined) return cached;
  const all: (GoField & { depth: number; tagged: boolean })[] = [];
  const walk = (struct: StructName, via: readonly string[]) => {
    for (const [goName, declaration] of Object.entries(API_STRUCTS[struct] as Record<string, string>)) {
      const space = declaration.indexOf(" ");
      const text = space === -1 ? declaration : declaration.slice(0, space);
      const tag = space === -1 ? undefined : declaration.slice(space + 1);
      const [tagName = "", ...options] = tag === undefined ? [] : tag.split(",");
      if (goName.startsWith("...")) {
        const embedded = text.replace(/^\*/, "") as StructName;
        walk(embedded, [...via, embedded]);
        continue;
      }
      all.push({ goName, key: tagName || goName, omitempty: options.includes("omitempty"), type: goType(text), via, depth: via.length, tagged: tagName !== "" });
    }
  };
  walk(name, []);
  const fields = all.filter((field) => {
    const rivals = all.filter((other) => other.key === field.key);
    const depth = Math.min(...rivals.map((other) => other.depth));
    const shallowest = rivals.filter((other) => other.depth === depth);
    if (shallowest.length === 1) return shallowest[0] === field;
    const tagged = shallowest.filter((other) => other.tagged);
    return tagged.length === 1 && tagged[0] === field;
  });
  FIELDS.set(name, fields);
  return fields;
}

/** The zero value of a type, as a fresh Go variable holds it. */
function zeroValue(type: GoType): unknown {
  switch (type.kind) {
    case "string":
      return "";
    case "bool":
      return false;
    case "int":
    case "float":
    case "durationText":
      return 0;
    case "time":
      return ZERO_TIME;
    case "struct":
      return zeroStruct(type.name);
    default:
      return null;
  }
}

function zeroStruct(name: StructName): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const field of jsonFields(name)) value[field.goName] = zeroValue(field.type);
  return value;
}

/** Go's zero time.Time, as it writes it. */
export const ZERO_TIME = "0001-01-01T00:00:00Z";

// ---------------------------------------------------------------------------------------------
// Decoding

/** Which decoder to follow: Go's `encoding/json`, or `mapstructure` (event payloads). */
export type DecodeMode = "json" | "mapstructure";

/** Where the decoder is, for Go's error text: the innermost struct and the fields that led there. */
interface Context {
  readonly mode: DecodeMode;
  readonly struct: string | undefined;
  readonly stack: readonly string[];
}

/** What a JSON value is called in Go's errors. */
function jsonKind(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number" || typeof value === "bigint") return "number";
  if (Array.isArray(value)) return "array";
  return "object";
}

function mismatch(context: Context, what: string, type: GoType, value: unknown): GoDecodeError {
  if (context.mode === "mapstructure") {
    const path = context.stack.join(".") || "<root>";
    return new GoDecodeError(`decoding failed due to the following error(s):\n\n'${path}' expected type '${typeName(type)}', got unconvertible type '${goKindOf(value)}', value: '${String(value)}'`);
  }
  if (context.struct === undefined) return new GoDecodeError(`json: cannot unmarshal ${what} into Go value of type ${typeName(type)}`);
  return new GoDecodeError(`json: cannot unmarshal ${what} into Go struct field ${context.struct}.${context.stack.join(".")} of type ${typeName(type)}`);
}

/** The Go type a JSON value has once decoded into `any` (what mapstructure reports). */
function goKindOf(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number" || typeof value === "bigint") return "float64";
  if (Array.isArray(value)) return "[]interface {}";
  return "map[string]interface {}";
}

const INT_RANGES = new Map<string, readonly [bigint, bigint]>();
function intRange(bits: 8 | 16 | 32 | 64, unsigned: boolean): readonly [bigint, bigint] {
  const key = `${bits}${unsigned}`;
  let range = INT_RANGES.get(key);
  if (range === undefined) {
    range = unsigned ? [0n, (1n << BigInt(bits)) - 1n] : [-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n];
    INT_RANGES.set(key, range);
  }
  return range;
}

/** A decoded integer: a number when it is safe, else the bigint. */
function integer(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

const MAX_FLOAT32 = 3.4028234663852886e38;

/** RFC 3339 as Go's time.Time.UnmarshalJSON reads it (fractional seconds allowed). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Decodes a JSON value (as `parseJson` read it) into a Go type, as `json.Unmarshal` into a fresh
 * variable of that type would, and returns the variable: structs hold every field, Go's zero value
 * for those the JSON did not have, promoted fields flat, keyed by Go name.
 *
 * @throws GoDecodeError where Go fails, with its message.
 */
export function decodeGo(value: unknown, type: GoType | string, mode: DecodeMode = "json"): unknown {
  return decodeValue(value, typeof type === "string" ? goType(type) : type, { mode, struct: undefined, stack: [] });
}

/** {@link decodeGo} into a struct, typed by the table. */
export function decodeStruct<N extends StructName>(value: unknown, name: N, mode: DecodeMode = "json"): GoStruct<N> {
  return decodeGo(value, name, mode) as GoStruct<N>;
}

function decodeValue(value: unknown, type: GoType, context: Context): unknown {
  if (value === null) {
    // Go: null sets a pointer, slice, map or interface to nil and leaves any other value as it was.
    return zeroValue(type);
  }
  switch (type.kind) {
    case "pointer":
      return decodeValue(value, type.elem, context);
    case "string":
      if (typeof value !== "string") throw mismatch(context, jsonKind(value), type, value);
      return value;
    case "bool":
      if (typeof value !== "boolean") throw mismatch(context, jsonKind(value), type, value);
      return value;
    case "int":
      return decodeInt(value, type, context);
    case "float": {
      if (typeof value !== "number" && typeof value !== "bigint") throw mismatch(context, jsonKind(value), type, value);
      const number = Number(value);
      if (type.bits === 32 && Math.abs(number) > MAX_FLOAT32) throw mismatch(context, `number ${String(value)}`, type, value);
      return number;
    }
    case "durationText":
      return decodeDurationText(value, context);
    case "time":
      if (context.mode === "mapstructure" && typeof value !== "string") throw mismatch(context, jsonKind(value), type, value);
      if (typeof value !== "string") throw new GoDecodeError("Time.UnmarshalJSON: input is not a JSON string");
      if (!RFC3339.test(value)) throw new GoDecodeError(`parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse`);
      return value;
    case "bytes":
      return decodeBytes(value, type, context);
    case "any":
      return anyValue(value);
    case "error":
      throw mismatch(context, jsonKind(value), type, value);
    case "slice":
      if (!Array.isArray(value)) throw mismatch(context, jsonKind(value), type, value);
      return value.map((element: unknown) => decodeValue(element, type.elem, context));
    case "map": {
      if (typeof value !== "object" || Array.isArray(value)) throw mismatch(context, jsonKind(value), type, value);
      const out: Record<string, unknown> = {};
      for (const [key, element] of Object.entries(value as Record<string, unknown>)) {
        out[key] = decodeValue(element, type.value, context.mode === "mapstructure" ? { ...context, stack: [...context.stack, `[${key}]`] } : context);
      }
      return out;
    }
    case "struct":
      return context.mode === "json" ? decodeStructJson(value, type, context) : decodeStructMapstructure(value, type, context);
  }
}

function decodeInt(value: unknown, type: GoType & { kind: "int" }, context: Context): number | bigint {
  if (typeof value !== "number" && typeof value !== "bigint") throw mismatch(context, jsonKind(value), type, value);
  const [min, max] = intRange(type.bits, type.unsigned);
  if (context.mode === "mapstructure") {
    // mapstructure converts the float64 that encoding/json put in the payload's map, truncating.
    const number = Math.trunc(Number(value));
    if (type.unsigned && number < 0) throw new GoDecodeError(`decoding failed due to the following error(s):\n\ncannot parse '${context.stack.join(".")}', ${number} overflows uint`);
    return number;
  }
  if (typeof value === "number" && !Number.isInteger(value)) throw mismatch(context, `number ${String(value)}`, type, value);
  const exact = BigInt(value);
  if (exact < min || exact > max) throw mismatch(context, `number ${String(value)}`, type, value);
  return integer(exact);
}

/** A duration field whose custom UnmarshalJSON reads it through `any`: text or a number; anything else is ignored. */
function decodeDurationText(value: unknown, context: Context): number | bigint {
  if (context.mode === "mapstructure") return decodeInt(value, { kind: "int", name: "time.Duration", bits: 64, unsigned: false }, context);
  if (typeof value === "number" || typeof value === "bigint") return Math.trunc(Number(value));
  if (typeof value !== "string" || value === "") return 0;
  const nanoseconds = parseDuration(value);
  if (nanoseconds === undefined) throw new GoDecodeError(`time: invalid duration ${JSON.stringify(value)}`);
  return nanoseconds;
}

function decodeBytes(value: unknown, type: GoType, context: Context): Uint8Array {
  if (Array.isArray(value)) return Uint8Array.from(value.map((element: unknown) => Number(decodeInt(element, { kind: "int", name: "uint8", bits: 8, unsigned: true }, context))));
  if (typeof value !== "string" || context.mode === "mapstructure") throw mismatch(context, jsonKind(value), type, value);
  const text = value.replace(/[\r\n]/g, "");
  const bad = /[^A-Za-z0-9+/=]/.exec(text);
  if (bad !== null || text.length % 4 !== 0) throw new GoDecodeError(`illegal base64 data at input byte ${bad?.index ?? text.length}`);
  return Uint8Array.from(Buffer.from(text, "base64"));
}

/** A JSON value decoded into Go's `any`: numbers become float64. */
function anyValue(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(anyValue);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, anyValue(element)]));
  return value;
}

/** Go's encoding/json into a struct: keys matched exactly, else without case; unknown keys ignored. */
function decodeStructJson(value: unknown, type: GoType & { kind: "struct" }, context: Context): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw mismatch(context, jsonKind(value), type, value);
  const fields = jsonFields(type.name);
  const out = zeroStruct(type.name);
  for (const [key, element] of Object.entries(value as Record<string, unknown>)) {
    const field = fields.find((candidate) => candidate.key === key) ?? fields.find((candidate) => candidate.key.toLowerCase() === key.toLowerCase());
    if (field === undefined) continue;
    out[field.goName] = decodeValue(element, field.type, { ...context, struct: type.name, stack: [...context.stack, ...field.via, field.key] });
  }
  return out;
}

/**
 * mapstructure into a struct: fields by Go name without case (tags are json's, not its own), an
 * embedded struct under its type's name (it is not squashed), unknown keys ignored.
 */
function decodeStructMapstructure(value: unknown, type: GoType & { kind: "struct" }, context: Context): Record<string, unknown> {
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new GoDecodeError(`decoding failed due to the following error(s):\n\n'${context.stack.join(".")}' expected a map or struct, got "${goKindOf(value)}"`);
  }
  const out: Record<string, unknown> = {};
  const declarations = API_STRUCTS[type.name] as Record<string, string>;
  const fields = Object.entries(declarations).map(([goName, declaration]) => {
    const text = declaration.split(" ")[0] ?? declaration;
    const name = goName.startsWith("...") ? goName.slice(3) : goName;
    return { name, type: goType(text) };
  });
  for (const field of fields) out[field.name] = zeroValue(field.type);
  for (const [key, element] of Object.entries(value as Record<string, unknown>)) {
    const field = fields.find((candidate) => candidate.name.toLowerCase() === key.toLowerCase());
    if (field === undefined || element === null) continue;
    out[field.name] = decodeValue(element, field.type, { ...context, stack: [...context.stack, field.name] });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Encoding

/**
 * The bytes `json.NewEncoder(w).Encode(value)` writes for a value of a Go type: struct fields in
 * declaration order, nil pointers, slices and maps as `null` unless `omitempty` drops them, map
 * keys sorted, HTML characters escaped, and a final newline.
 */
export function encodeGo(value: unknown, type: GoType | string): string {
  return `${encodeValue(value, typeof type === "string" ? goType(type) : type)}\n`;
}

/** {@link encodeGo} for a struct of the table. */
export function encodeStruct<N extends StructName>(value: GoStructInput<N>, name: N): string {
  return encodeGo(value, name);
}

function encodeValue(value: unknown, type: GoType): string {
  switch (type.kind) {
    case "pointer":
      return value === null || value === undefined ? "null" : encodeValue(value, type.elem);
    case "string":
      return quote(expect(value ?? "", "string", type));
    case "bool":
      return String(expect(value ?? false, "boolean", type));
    case "int": {
      const number = value ?? 0;
      if (typeof number === "bigint") return number.toString();
      if (typeof number !== "number" || !Number.isInteger(number)) throw new TypeError(`not a Go ${typeName(type)}: ${String(value)}`);
      return Object.is(number, -0) ? "0" : number.toString();
    }
    case "float":
      return formatFloat(Number(value ?? 0), type.bits);
    case "durationText": {
      const nanoseconds = Number(value ?? 0);
      return quote(nanoseconds === 0 ? "" : formatDuration(nanoseconds));
    }
    case "time":
      return quote(expect(value ?? ZERO_TIME, "string", type));
    case "bytes":
      return value === null || value === undefined ? "null" : quote(Buffer.from(value as Uint8Array).toString("base64"));
    case "any":
      return encodeAny(value);
    case "error":
      return "null";
    case "slice":
      return value === null || value === undefined ? "null" : `[${(value as unknown[]).map((element) => encodeValue(element, type.elem)).join(",")}]`;
    case "map": {
      if (value === null || value === undefined) return "null";
      const entries = sortedEntries(value as Record<string, unknown>);
      return `{${entries.map(([key, element]) => `${quote(key)}:${encodeValue(element, type.value)}`).join(",")}}`;
    }
    case "struct": {
      const object = (value ?? {}) as Record<string, unknown>;
      const parts: string[] = [];
      for (const field of jsonFields(type.name)) {
        const element = object[field.goName];
        if (field.omitempty && isEmpty(element, field.type)) continue;
        parts.push(`${quote(field.key)}:${encodeValue(element, field.type)}`);
      }
      return `{${parts.join(",")}}`;
    }
  }
}

function expect<T extends "string" | "boolean">(value: unknown, kind: T, type: GoType): T extends "string" ? string : boolean {
  if (typeof value !== kind) throw new TypeError(`not a Go ${typeName(type)}: ${String(value)}`);
  return value as T extends "string" ? string : boolean;
}

/** Go's isEmptyValue: false, 0, "", nil, and empty slices and maps; never a struct. */
function isEmpty(value: unknown, type: GoType): boolean {
  if (value === undefined || value === null) return type.kind !== "struct" && type.kind !== "time" && type.kind !== "durationText";
  switch (type.kind) {
    case "string":
      return value === "";
    case "bool":
      return value === false;
    case "int":
    case "float":
      return Number(value) === 0;
    case "bytes":
      return (value as Uint8Array).length === 0;
    case "slice":
      return (value as unknown[]).length === 0;
    case "map":
      return Object.keys(value as object).length === 0;
    default:
      return false;
  }
}

/** A value of Go's `any` as the test wrote it in TypeScript: a map's keys sorted, numbers as float64. */
function encodeAny(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return quote(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return formatFloat(value, 64);
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map(encodeAny).join(",")}]`;
  return `{${sortedEntries(value as Record<string, unknown>)
    .map(([key, element]) => `${quote(key)}:${encodeAny(element)}`)
    .join(",")}}`;
}

/** Map entries in Go's order: keys sorted by their UTF-8 bytes. */
function sortedEntries(map: Record<string, unknown>): [string, unknown][] {
  return Object.entries(map).sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** A string as Go's encoder writes it, HTML escaping on (the Encoder's default). */
function quote(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const char = text[i] as string;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out += char + (text[i + 1] as string);
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) out += "\\ufffd"; // a lone surrogate: not UTF-8, Go writes U+FFFD
    else if (char === '"' || char === "\\") out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (char === "\b") out += "\\b";
    else if (char === "\f") out += "\\f";
    else if (code < 0x20 || char === "<" || char === ">" || char === "&" || code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return `${out}"`;
}

/**
 * A float as Go's encoder writes it: the shortest text that reads back to the same float of its
 * size, plain between 1e-6 and 1e21, else with an exponent (`1e-7`, `1e+21`), as JavaScript's
 * own number text is for float64.
 */
function formatFloat(value: number, bits: 32 | 64): string {
  if (!Number.isFinite(value)) throw new TypeError(`json: unsupported value: ${value}`);
  if (Object.is(value, -0)) return "-0";
  if (bits === 64) return String(value);
  const single = Math.fround(value);
  for (let digits = 1; digits <= 9; digits++) {
    const shortest = Number(single.toPrecision(digits));
    if (Math.fround(shortest) === single) return String(shortest);
  }
  return String(single);
}

/** Go's time.Duration.String(): `1h0m0s`, `10m0s`, `1.5s`, `300ms`. */
export function formatDuration(nanoseconds: number): string {
  if (nanoseconds === 0) return "0s";
  const sign = nanoseconds < 0 ? "-" : "";
  let rest = Math.abs(nanoseconds);
  if (rest < 1e9) {
    const [unit, size] = rest < 1e3 ? ["ns", 1] : rest < 1e6 ? ["µs", 1e3] : ["ms", 1e6];
    return `${sign}${trimFraction(rest / size)}${unit}`;
  }
  const hours = Math.floor(rest / 3.6e12);
  rest -= hours * 3.6e12;
  const minutes = Math.floor(rest / 6e10);
  rest -= minutes * 6e10;
  const seconds = `${trimFraction(rest / 1e9)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function trimFraction(value: number): string {
  return value.toFixed(9).replace(/\.?0+$/, "");
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, "µs": 1e3, "μs": 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };

/** Go's time.ParseDuration: `1h30m`, `1.5s`, `-2ms`; undefined when it does not parse. */
export function parseDuration(text: string): number | undefined {
  const match = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (match === null) return text === "0" || text === "+0" || text === "-0" ? 0 : undefined;
  let total = 0;
  for (const [, amount, unit] of text.slice((match[1] ?? "").length).matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(amount) * (DURATION_UNITS[unit as string] as number);
  }
  return Math.round(match[1] === "-" ? -total : total);
}
