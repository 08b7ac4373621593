/**
 * `hover`: what the word under the pointer is, for editors. A field: its path and what it holds;
 * an operator or keyword: what it does (operators from the operator table); a name bound by
 * `any`/`all`: what it ranges over; a literal: what it is compared as. The filter's one analysis
 * (`parser/analysis.ts`) says what is under the pointer, as the grammar reads it, so it answers on
 * a filter still being typed; this module says it in words, from the schema and the operator table.
 *
 * @module
 */
import type { Span } from "../ast.js";
import { createLiteral, type Literal } from "../evaluator/literal.js";
import { explainConversion } from "../evaluator/operators.js";
import { schemaType, type FieldSchema, type ValueKind as TypeKind } from "../evaluator/schema.js";
import type { Parsed } from "../go/strconv.js";
import type { Limits } from "../limits.js";
import { negationOf, operator, SPELLINGS, spellingOf, type MatchOperator, type Spelling, type Test, type ValueKind } from "../operators.js";
import { analysisOf, type Binding, type BindingSite, type HoverTarget, type LiteralClause, type LiteralForm, type Segment } from "../parser/analysis.js";
import { requireSource } from "../parser/parse.js";
import { describeSchema, placeOf, targetPlace, walk, type Place } from "./complete.js";

/** Options of {@link hover}. */
export interface HoverOptions {
  /** The schema of the objects ({@link schemas}`.job`, `.deployment`, or your own): what fields hold, and how literals compare. */
  readonly schema?: FieldSchema;
  /** The limits of `parse` (length and nesting): beyond them there is no hover. */
  readonly limits?: Partial<Limits>;
}

/** What {@link hover} says about the word under the pointer. */
export interface HoverInfo {
  /** The part of the source it is about (the word, the operator's words, the literal). */
  readonly range: Span;
  /** Markdown */
  readonly contents: string;
}

/**
 * The most characters of a path or literal a hover quotes: a literal of 100 KiB is shown by its
 * start, so that the hover stays a few lines whatever the filter.
 */
const MAX_QUOTED_LENGTH = 80;

/** What a keyword that is not part of an operator does; the operators' words are described by the operator table. */
interface KeywordHelp {
  /** What it does, in a phrase. */
  readonly summary: string;
  /** What else to know, in a sentence or two. */
  readonly detail: string;
  /** A filter using it. */
  readonly example: string;
}

/** The keywords that join, negate and quantify clauses, and `as`. */
const KEYWORDS = {
  and: {
    summary: "true when the expressions on both sides are true",
    detail: "It binds tighter than `or`, and stops at the first false operand.",
    example: 'Status == "running" and Stop == false',
  },
  or: {
    summary: "true when the expression on either side is true",
    detail: "It stops at the first true operand. An `any` or `all` may end a chain of `or`.",
    example: 'Status == "pending" or Status == "running"',
  },
  not: {
    summary: "negates the expression after it",
    detail: "`not not e` is `e`. To negate an `any` or `all`, put it in parentheses.",
    example: 'not (Type == "batch")',
  },
  any: {
    summary: "true when the body in braces holds for some element of a list or map",
    detail: "False for an empty list or map. It stands alone or ends a chain of `or`: to join it with `and`, put it in parentheses.",
    example: "any TaskGroups as g { g.Count == 0 }",
  },
  all: {
    summary: "true when the body in braces holds for every element of a list or map",
    detail: "True for an empty list or map. It stands alone or ends a chain of `or`: to join it with `and`, put it in parentheses.",
    example: 'all Datacenters as dc { dc matches "^us-" }',
  },
  as: {
    summary: "names what `any` or `all` binds in its body",
    detail: "`as x` binds the element of a list, or the key of a map; `as i, v` binds the index or key and the element or value; `_` leaves one unbound.",
    example: 'any Meta as k, v { k == "owner" and v != "" }',
  },
} as const satisfies Record<string, KeywordHelp>;

/** Operands for the example under an operator, by the test it applies (the words come from the operator table). */
const EXAMPLE_OPERANDS = {
  equal: { selector: "Status", value: '"running"' },
  in: { selector: "Datacenters", value: '"dc1"' },
  matches: { selector: "Name", value: '"^web-"' },
  empty: { selector: "Meta", value: "" },
  nil: { selector: "Multiregion", value: "" },
} as const satisfies Record<Test, { readonly selector: string; readonly value: string }>;

const EVERY_KIND_COUNT = 6;

/** The most keys a hover lists of a map whose schema lists its keys. */
const MAX_LISTED_KEYS = 5;

/**
 * What the word at `offset` in `source` is, as Markdown for an editor's hover, with the range it
 * is about: a field (its path and, given a schema, what it holds, or that the schema lacks it), an
 * operator or keyword (what it does, with an example), a name bound by `any`/`all` (what it ranges
 * over), or a literal (its text and, given a schema, what it is compared as). Undefined over
 * whitespace, brackets and mistakes (`validate` reports those). It never throws on any string
 * and offset, and its time is linear in the length of `source` (a source beyond the limits of
 * `parse` gets no hover).
 *
 * @param offset - an offset into `source`: the character under the pointer, or the end of the word before it.
 * @throws TypeError when `source` is not a string or `offset` not a number.
 * @example
 * ```ts
 * hover('Status == "running"', 2, { schema: schemas.job });
 * // { range: { start: 0, end: 6 }, contents: "**`Status`**: `string`\n\nA field of `structs.Job`." }
 * hover('"dc1" in Datacenters', 7)?.contents; // starts with "**`in`** (operator): value is an element, key or substring of the selector"
 * ```
 */
export function hover(source: string, offset: number, options: HoverOptions = {}): HoverInfo | undefined {
  requireSource(source);
  if (typeof offset !== "number") throw new TypeError(`the offset must be a number, got ${typeof offset}`);
  try {
    return hoverOrThrow(source, offset, options);
  } catch {
    // A hover is a convenience: on input that defeats the analysis, say nothing.
    return undefined;
  }
}

/** @internal {@link hover} without its safety net, so tests see any exception. */
export function hoverOrThrow(source: string, offset: number, options: HoverOptions = {}): HoverInfo | undefined {
  const target = analysisOf(source, options.limits).hoverTarget(offset);
  return target === undefined ? undefined : new Hoverer(options.schema).describe(target);
}

/** How each literal form is named. */
const LITERAL_FORMS: Readonly<Record<LiteralForm, string>> = {
  unquoted: "an unquoted name, read as text",
  number: "a number",
  pointer: "a string in JSON-pointer form, read as the path",
  string: "a string",
  raw: "a raw string",
  unterminated: "a string that is never closed",
};

/** Describes what the analysis found under the pointer, given a schema. */
class Hoverer {
  readonly #root: Place;

  constructor(private readonly schema: FieldSchema | undefined) {
    this.#root = { schema, values: [] };
  }

  describe(target: HoverTarget): HoverInfo | undefined {
    const { range } = target;
    switch (target.kind) {
      case "operator":
        return this.#operator(target.words, range);
      case "keyword": {
        const help = KEYWORDS[target.word];
        return { range, contents: `**${code(target.word)}** (keyword): ${help.summary}.\n\n${help.detail}\n\n${example(help.example)}` };
      }
      case "blank":
        return {
          range,
          contents:
            target.unbound === "key"
              ? `**${code("_")}**: the index or key is not bound; the name after the comma is bound to each element or value.`
              : `**${code("_")}**: the element or value is not bound; the name before the comma is bound to each index or key.`,
        };
      case "binding":
        return this.#binding(target.site, range);
      case "selector":
        return this.#selector(target.segments, target.scope, target.bound, range);
      case "literal":
        return this.#literal(target.written, target.form, target.raw, target.clause, range);
    }
  }

  /** The match operator written with `words`; words that only start one (`is`) list the operators they start. */
  #operator(words: string, range: Span): HoverInfo | undefined {
    const found = SPELLINGS.get(words);
    if (found !== undefined) return { range, contents: describeOperator(found.operator, found.spelling) };
    const started = [...SPELLINGS.values()].filter(({ spelling }) => spelling.text.startsWith(`${words} `));
    if (started.length === 0) return undefined;
    return { range, contents: `**${code(words)}** starts an operator:\n\n${started.map(({ spelling }) => `- ${code(spelling.text)}: ${spelling.description}`).join("\n")}` };
  }

  /** A selector, up to the segment hovered: what the schema says it holds, or where it leaves the schema. */
  #selector(segments: readonly Segment[], scope: readonly Binding[], bound: BindingSite | undefined, range: Span): HoverInfo {
    const written = segments.at(-1)!.text;
    const title = `**${code(written)}**`;
    const boundNote = bound === undefined ? "" : `\n\n${code(segments[0]!.key)} is ${this.#bindingPhrase(bound)}.`;
    if (this.schema === undefined) return { range, contents: `${title}: a field\n\nNo schema is set: any JSON value may be there.${boundNote}` };
    // A bound head is resolved through its binding; the rest is walked one segment at a time.
    let k = bound === undefined ? 0 : 1;
    let place = bound === undefined ? this.#root : placeOf(this.#root, scope, [segments[0]!.key]);
    let parent = place;
    for (; k < segments.length; k++) {
      parent = place;
      place = walk(parent, [{ key: segments[k]!.key }]);
      if (place.schema === undefined) break;
    }
    if (place.schema === undefined) {
      const missing = segments[k]!;
      const parentText = k === 0 ? undefined : segments[k - 1]!.text;
      const why = notAFieldOf(parent.schema, parentText);
      return { range, contents: k === segments.length - 1 ? `${title}: ${why}${boundNote}` : `${title}: unknown, as ${code(missing.text)} is ${why}${boundNote}` };
    }
    const parentText = segments.length === 1 ? undefined : segments.at(-2)!.text;
    const what = place.schema === "any" ? `${code("any")} (untyped JSON: the kind of the value found decides how it compares)` : code(describeSchema(place.schema));
    const member = memberOf(segments.at(-1)!.key, parent.schema, parentText);
    // A sentence, whose field description may end it already (`…`).
    return { range, contents: `${title}: ${what}\n\n${member}${/[.…]$/.test(member) ? "" : "."}${boundNote}` };
  }

  /** A literal: its text, and, given a schema, what it is compared as. */
  #literal(written: string, form: LiteralForm, raw: string, clause: LiteralClause | undefined, range: Span): HoverInfo {
    const lines = [`**${code(written)}**: ${LITERAL_FORMS[form]}${raw === written ? "" : `, the text ${code(raw)}`}`];
    if (clause !== undefined) lines.push(this.#comparison(clause, raw));
    return { range, contents: lines.join("\n\n") };
  }

  /** What the literal is compared as, from the kind the schema gives its selector. */
  #comparison(clause: LiteralClause, raw: string): string {
    const selector = code(clause.text);
    const test = operator(clause.operator).test;
    if (test === "matches") return `A regular expression (Go's RE2 syntax), looked for anywhere in ${selector}.`;
    const place = this.schema === undefined ? undefined : placeOf(this.#root, clause.scope, clause.path);
    if (place?.schema === undefined) return `Compared with the value at ${selector}, read as that value's kind when the filter runs.`;
    const holds = `${selector} holds ${code(describeSchema(place.schema))}`;
    const type = schemaType(place.schema);
    const literal = createLiteral(raw);
    if (test === "equal") {
      if (type.kind === "slice" || type.kind === "map" || type.kind === "struct") return `${holds}: ${code(spellingOf(clause.operator, "in").text)} does not compare it, and every object fails here.`;
      return `${holds}: ${readAs(type.kind, literal, clause.text, "compared")}.`;
    }
    // `in` and `contains`: a substring of a string, a key of a map, an element of a list.
    switch (type.kind) {
      case "string":
        return `${holds}: ${readAs("string", literal, clause.text, "looked for as a substring")}.`;
      case "map":
        return `${holds}: ${readAs("string", literal, clause.text, "looked for among its keys")}.`;
      case "slice":
        return type.elements === undefined
          ? `${holds}: compared with each element, read as that element's kind.`
          : `${holds}: ${readAs(type.elements.kind, literal, clause.text, "compared with each element")}.`;
      case "invalid":
        return `${holds}: looked for in the value found, read as its kind when the filter runs.`;
      default:
        return `${holds}: ${code("in")} and ${code("contains")} do not apply to it, and every object fails here.`;
    }
  }

  /** A bound name: what it holds, given a schema, and what it is bound to. */
  #binding(site: BindingSite, range: Span): HoverInfo {
    const { name } = site.binding;
    const bound = this.schema === undefined ? undefined : placeOf(this.#root, [...site.outer, site.binding], [name]).schema;
    const holds = bound === undefined ? "" : `: ${code(describeSchema(bound))}`;
    return { range, contents: `**${code(name)}**${holds}\n\nBound to ${this.#bindingPhrase(site)}.` };
  }

  /** What a binding ranges over, in words: `each element of TaskGroups (bound by any TaskGroups as g)`. */
  #bindingPhrase(site: BindingSite): string {
    const { binding } = site;
    const targetText = code(site.targetText);
    const declaration = code(site.declarationText);
    const over = this.schema === undefined ? undefined : targetPlace(this.#root, site.outer, binding).schema;
    const collection = over !== undefined && typeof over !== "string" ? over.kind : undefined;
    const role = binding.role === "auto" ? (collection === "map" ? "key" : collection === "array" ? "element" : "auto") : binding.role;
    let phrase: string;
    if (role === "key") phrase = collection === "array" ? `the index of each element of ${targetText}` : collection === "map" ? `the key of each entry of ${targetText}` : `the index (of a list) or key (of a map) of each element of ${targetText}`;
    else if (role === "element") phrase = collection === "map" ? `the value of each entry of ${targetText}` : collection === "array" ? `each element of ${targetText}` : `each element (of a list) or value (of a map) of ${targetText}`;
    else phrase = `each element of ${targetText} if it is a list, or each key if it is a map`;
    return `${phrase}, by ${declaration}`;
  }
}

/** An operator's hover: its spelling's meaning, the operator's rule, the kinds it applies to, its missing-key result, its opposite, an example. */
function describeOperator(name: MatchOperator, spelling: Spelling): string {
  const definition = operator(name);
  const opposite = spellingOf(negationOf(name), spelling.ast).text;
  const kinds = definition.kinds.length === EVERY_KIND_COUNT ? "any value" : listOf(definition.kinds);
  const operands = EXAMPLE_OPERANDS[definition.test];
  const sample =
    spelling.order === "value-first" ? `${operands.value} ${spelling.text} ${operands.selector}` : spelling.order === "unary" ? `${operands.selector} ${spelling.text}` : `${operands.selector} ${spelling.text} ${operands.value}`;
  return [
    `**${code(spelling.text)}** (operator): ${spelling.description}`,
    `${sentence(definition.description)} Applies to ${kinds}; on a missing key: ${code(String(definition.missing))}. The opposite: ${code(opposite)}.`,
    example(sample),
  ].join("\n\n");
}

/** `string, list or map`. */
function listOf(kinds: readonly ValueKind[]): string {
  return kinds.length === 1 ? kinds[0]! : `${kinds.slice(0, -1).join(", ")} or ${kinds.at(-1)!}`;
}

/** Why a segment is not in the schema: what its parent is. */
function notAFieldOf(parent: FieldSchema | undefined, parentText: string | undefined): string {
  if (parent === undefined || (typeof parent !== "string" && parent.kind === "object")) {
    const owner = parent?.typeName ?? parentText;
    return owner === undefined ? "not a field of the object" : `not a field of ${code(owner)}`;
  }
  const owner = parentText === undefined ? "the object" : code(parentText);
  if (typeof parent !== "string" && parent.kind === "array") return `not a field: ${owner} is a ${code(describeSchema(parent))}, whose elements are selected by index (${code(`${parentText ?? ""}.0`)}) or with ${code("any")}/${code("all")}`;
  return `not a field: ${owner} holds ${code(describeSchema(parent))}, which has no fields`;
}

/** Where a segment is: a field of a struct, a key of a map, an element of a list. */
function memberOf(key: string, parent: FieldSchema | undefined, parentText: string | undefined): string {
  const owner = parentText === undefined ? undefined : code(parentText);
  if (parent !== undefined && typeof parent !== "string") {
    if (parent.kind === "object") {
      const of = parent.typeName !== undefined ? `A field of ${code(parent.typeName)}` : owner === undefined ? "A field of the object" : `A field of ${owner}`;
      const doc = parent.docs?.[key];
      return doc === undefined ? of : `${of}: ${doc}`;
    }
    if (parent.kind === "map") {
      const map = `A key of the map ${owner ?? "at the root"}`;
      if (parent.keys === undefined) return map;
      if (parent.keys.includes(key)) return `${map}, one of the keys its schema lists`;
      const listed = parent.keys.slice(0, MAX_LISTED_KEYS).map(code).join(", ");
      return `${map}, but not one of the keys its schema lists (${listed}${parent.keys.length > MAX_LISTED_KEYS ? ", …" : ""})`;
    }
    return `Element ${key} of the list ${owner ?? "at the root"}`;
  }
  return owner === undefined ? "A field" : `Inside ${owner}, which is untyped`;
}

/**
 * How a literal is used on values of `kind` (`compared as the integer 50`), the conversion done
 * once when the filter is compiled, or why it fails (then every object fails the clause).
 */
function readAs(kind: TypeKind, literal: Literal, selector: string, use: string): string {
  const as = <T>(parsed: Parsed<T>, describe: (value: T) => string) =>
    parsed.ok ? `${use} as ${describe(parsed.value)}` : `the literal does not convert (${explainConversion(parsed.error, selector) ?? parsed.error}), and every object fails here`;
  switch (kind) {
    case "string":
      return `${use} as the text ${code(literal.raw)}`;
    case "int":
      return as(literal.int, (value) => `the integer ${code(value.big.toString())}`);
    case "uint":
      return as(literal.uint, (value) => `the unsigned integer ${code(value.big.toString())}`);
    case "float":
      return as(literal.float, (value) => `the number ${code(String(value))}`);
    case "bool":
      return as(literal.bool, (value) => code(String(value)));
    case "slice":
    case "map":
    case "struct":
    case "invalid":
      return `${use} as the kind of the value found`;
    default:
      return unreachable(kind);
  }
}

/** Inline Markdown code, shortened to {@link MAX_QUOTED_LENGTH}, with a fence longer than any run of backticks in it. */
function code(text: string): string {
  const short = (text.length > MAX_QUOTED_LENGTH ? `${text.slice(0, MAX_QUOTED_LENGTH)}…` : text).replace(/[\r\n\t]+/g, " ");
  const longest = (short.match(/`+/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0);
  const fence = "`".repeat(longest + 1);
  const pad = short.startsWith("`") || short.endsWith("`") ? " " : "";
  return `${fence}${pad}${short}${pad}${fence}`;
}

/** A filter as a Markdown code block. */
function example(filter: string): string {
  return `\`\`\`bexpr\n${filter}\n\`\`\``;
}

/** A table description as a sentence: capitalised, with a full stop. */
function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function unreachable(value: never): never {
  throw new TypeError(`unhandled kind: ${String(value)}`);
}
