/**
 * `hover`: what the word under the pointer is, for editors. A field: its path and what it holds;
 * an operator or keyword: what it does (operators from the operator table); a name bound by
 * `any`/`all`: what it ranges over; a literal: what it is compared as. Like `complete`, it reads
 * the tokens and asks the grammar what each one is, so it answers on a filter still being typed.
 *
 * @module
 */
import { tokenMatcher, type IToken, type TokenType } from "chevrotain";
import type { Span } from "../ast.js";
import { createLiteral, type Literal } from "../evaluator/literal.js";
import { explainConversion } from "../evaluator/operators.js";
import { schemaType, type FieldSchema, type ValueKind as TypeKind } from "../evaluator/schema.js";
import type { Parsed } from "../go/strconv.js";
import { decodePointerLiteral, isPointerLiteral, unquoteDouble, unquoteRaw } from "../go/strings.js";
import { tokenEnd, tokenize } from "../lexer/lexer.js";
import {
  All,
  And,
  Any,
  As,
  Comma,
  Contains,
  Digits,
  Dot,
  DoubleString,
  Empty,
  Equal,
  In,
  Is,
  keywordTokens,
  LBrace,
  LBracket,
  Matches,
  Name,
  Nil,
  Not,
  NotEqual,
  NumberLiteral,
  Or,
  RawString,
  RBracket,
  Underscore,
  UnterminatedString,
} from "../lexer/tokens.js";
import { resolveLimits, type Limits } from "../limits.js";
import { negationOf, operator, SPELLINGS, spellingOf, type MatchOperator, type Spelling, type Test, type ValueKind } from "../operators.js";
import { Lookahead } from "../parser/lookahead.js";
import { findExcessiveNesting, requireSource } from "../parser/parse.js";
import {
  bindingsOpenIn,
  collectionBindings,
  describeSchema,
  equivalentPrefix,
  isString,
  nextTokenTypes,
  openGroups,
  placeOf,
  targetPlace,
  trailingPath,
  walk,
  type Binding,
  type Place,
} from "./complete.js";

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
  const limits = resolveLimits(options.limits);
  if (source.length > limits.maxSourceLength || !Number.isInteger(offset) || offset < 0 || offset > source.length) return undefined;
  const { tokens } = tokenize(source);
  // As `complete`: the grammar is asked about the tokens before the word, which must nest within the limit.
  if (findExcessiveNesting(source, tokens, limits.maxNestingDepth) !== undefined) return undefined;
  const index = tokenAt(tokens, offset);
  return index === undefined ? undefined : new Hoverer(source, tokens, options.schema).describe(index);
}

/** The token under `offset`, or the one ending there (the pointer just after a word); by binary search. */
function tokenAt(tokens: readonly IToken[], offset: number): number | undefined {
  let low = 0;
  let high = tokens.length - 1;
  let last = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (tokens[middle]!.startOffset <= offset) {
      last = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (last < 0) return undefined;
  return offset <= tokenEnd(tokens[last]!) ? last : undefined;
}

/** Where a match clause's selector is, seen from its literal. */
interface Clause {
  readonly operator: MatchOperator;
  readonly path: readonly string[];
  /** The index of the selector's first token. */
  readonly head: number;
  /** The selector as written. */
  readonly text: string;
}

/** One segment of a selector: its key, and the selector written up to it (for messages). */
interface Segment {
  readonly key: string;
  readonly text: string;
}

/** Describes the tokens of one source. */
class Hoverer {
  readonly #lookahead: Lookahead;
  /** Whether the token at an index is a keyword (rather than a name), once asked. */
  readonly #keywords = new Map<number, boolean>();
  readonly #root: Place;

  constructor(
    private readonly source: string,
    private readonly tokens: readonly IToken[],
    private readonly schema: FieldSchema | undefined,
  ) {
    this.#lookahead = new Lookahead(source, tokens);
    this.#root = { schema, values: [] };
  }

  describe(i: number): HoverInfo | undefined {
    const token = this.tokens[i]!;
    const type = token.tokenType;
    if (type === Equal || type === NotEqual) return this.#operator(i, i);
    if (keywordTokens.includes(type) && this.#isKeyword(i)) return this.#keyword(i);
    if (type === Underscore) return this.#blank(i);
    const segmentEnd = this.#segmentEnd(i);
    if (segmentEnd !== undefined) return this.#path(segmentEnd, i);
    if (isString(token) || type === NumberLiteral) return this.#operand(i);
    return undefined;
  }

  /**
   * Whether the keyword token at `i` is used as a keyword: the grammar allows its keyword there,
   * and not a name, or the reference's two decisions between them say so (`not` as an operator,
   * `any`/`all` starting a collection). After a mistake the grammar cannot tell; then the word is
   * a keyword unless a selector's `.`, `[` or a comparison follows it.
   */
  #isKeyword(i: number): boolean {
    const known = this.#keywords.get(i);
    if (known !== undefined) return known;
    const token = this.tokens[i]!;
    const type = token.tokenType;
    let answer: boolean;
    if (!keywordTokens.includes(type)) answer = false;
    else if ((type === In || type === Contains || type === Matches) && this.tokens[i - 1]?.tokenType === Not && this.#isOperatorNot(i - 1)) {
      // Content assist follows one reading of a `not` after an operand (`not contains`), not the
      // other (`not in`): the word after such a `not` is an operator word whichever it is.
      answer = true;
    } else {
      const allowed = this.#allowed(i);
      if (allowed.size === 0) {
        const next = this.tokens[i + 1];
        answer = next === undefined || !(next.tokenType === Equal || next.tokenType === NotEqual || ((next.tokenType === Dot || next.tokenType === LBracket) && this.#adjacent(i + 1)));
      } else if (!allowed.has(type)) answer = false;
      else if (!allowed.has(Name)) answer = true;
      else if (type === Not) answer = this.#lookahead.isUnaryNot(i);
      else if (type === Any || type === All) answer = this.#lookahead.isCollectionStart(i);
      else answer = true;
    }
    this.#keywords.set(i, answer);
    return answer;
  }

  /** Whether the `not` at `i` follows an operand (the start of `not in`, `not contains`, `not matches`). */
  #isOperatorNot(i: number): boolean {
    const allowed = this.#allowed(i);
    return allowed.has(Not) && !allowed.has(Name);
  }

  /** The token types the grammar allows at token `i`, after the tokens before it (empty after a mistake). */
  #allowed(i: number): Set<TokenType> {
    return nextTokenTypes(equivalentPrefix(this.tokens.slice(0, i)));
  }

  /** A keyword: one of the joining keywords, or a word of an operator (`not in`, `is not empty`). */
  #keyword(i: number): HoverInfo | undefined {
    const { tokens } = this;
    const type = tokens[i]!.tokenType;
    const exactly = (k: number, ...types: readonly unknown[]) => tokens[k] !== undefined && types.includes(tokens[k]!.tokenType) && this.#isKeyword(k);
    switch (type) {
      case And:
        return this.#joining(i, KEYWORDS.and, "and");
      case Or:
        return this.#joining(i, KEYWORDS.or, "or");
      case Any:
        return this.#joining(i, KEYWORDS.any, "any");
      case All:
        return this.#joining(i, KEYWORDS.all, "all");
      case As:
        return this.#joining(i, KEYWORDS.as, "as");
      case Not:
        if (exactly(i + 1, In, Contains, Matches)) return this.#operator(i, i + 1);
        if (exactly(i - 1, Is)) return this.#emptiness(i - 1);
        return this.#joining(i, KEYWORDS.not, "not");
      case In:
      case Contains:
      case Matches:
        return exactly(i - 1, Not) ? this.#operator(i - 1, i) : this.#operator(i, i);
      case Is:
        return this.#emptiness(i);
      case Empty:
      case Nil:
        if (exactly(i - 1, Is)) return this.#emptiness(i - 1);
        if (exactly(i - 1, Not) && exactly(i - 2, Is)) return this.#emptiness(i - 2);
        return undefined;
      default:
        return undefined;
    }
  }

  #joining(i: number, help: KeywordHelp, word: string): HoverInfo {
    return { range: this.#span(i, i), contents: `**${code(word)}** (keyword): ${help.summary}.\n\n${help.detail}\n\n${example(help.example)}` };
  }

  /** `is`, `is not`, and the `empty` or `nil` that ends them. */
  #emptiness(is: number): HoverInfo | undefined {
    let last = is;
    if (this.tokens[last + 1]?.tokenType === Not) last++;
    const end = this.tokens[last + 1]?.tokenType;
    if (end === Empty || end === Nil) last++;
    return this.#operator(is, last);
  }

  /** The match operator written by tokens `first` to `last`; words that only start one (`is`) list the operators they start. */
  #operator(first: number, last: number): HoverInfo | undefined {
    const words = this.tokens
      .slice(first, last + 1)
      .map((token) => token.image)
      .join(" ");
    const range = this.#span(first, last);
    const found = SPELLINGS.get(words);
    if (found !== undefined) return { range, contents: describeOperator(found.operator, found.spelling) };
    const started = [...SPELLINGS.values()].filter(({ spelling }) => spelling.text.startsWith(`${words} `));
    if (started.length === 0) return undefined;
    return { range, contents: `**${code(words)}** starts an operator:\n\n${started.map(({ spelling }) => `- ${code(spelling.text)}: ${spelling.description}`).join("\n")}` };
  }

  /** `_` in a binding: what it leaves unbound. */
  #blank(i: number): HoverInfo | undefined {
    const { tokens } = this;
    if (tokens[i - 1]?.tokenType === As && tokens[i + 1]?.tokenType === Comma) {
      return { range: this.#span(i, i), contents: `**${code("_")}**: the index or key is not bound; the name after the comma is bound to each element or value.` };
    }
    if (tokens[i - 1]?.tokenType === Comma && tokens[i - 3]?.tokenType === As) {
      return { range: this.#span(i, i), contents: `**${code("_")}**: the element or value is not bound; the name before the comma is bound to each index or key.` };
    }
    return undefined;
  }

  /** The index of the last token of the path segment token `i` is part of (a head, `.name`, `.0` or `["key"]`), if it is one. */
  #segmentEnd(i: number): number | undefined {
    const token = this.tokens[i]!;
    if (tokenMatcher(token, Name) || token.tokenType === Digits) return i;
    if (token.tokenType === Dot) return this.#isWord(i + 1) && this.#adjacent(i + 1) ? i + 1 : undefined;
    if (token.tokenType === LBracket) return this.#isIndex(i) ? i + 2 : undefined;
    if (token.tokenType === RBracket) return this.#isIndex(i - 2) ? i : undefined;
    if (isString(token)) return this.#isIndex(i - 1) ? i + 1 : undefined;
    return undefined;
  }

  /** A segment of a path, ending at token `end` (token `at` is hovered): a selector's field, a bound name, or part of an unquoted value. */
  #path(end: number, at: number): HoverInfo | undefined {
    const found = trailingPath(this.tokens, end, true);
    if (found === undefined) return undefined;
    const { path, start: head } = found;
    if (path.length === 1 && this.#isBindingName(head)) return this.#declaredBinding(head);
    const last = this.#operandEnd(head);
    const role = this.#operandRole(head, last);
    if (role === "value") return this.#literal(head, last);
    // The segment's name or index, and the `.` before it when that is what is hovered.
    const range = this.tokens[end]!.tokenType === RBracket ? this.#span(end - 2, end) : this.#span(Math.min(at, end), end);
    const bound = this.#bindingNamed(head);
    if (bound !== undefined && end === head) return this.#describeBinding(path[0]!, bound.binding, bound.brace, range);
    return this.#selector(this.#segments(head, path), head, range, bound);
  }

  /** A string or number outside a path: a literal, or a selector in JSON-pointer form. */
  #operand(i: number): HoverInfo | undefined {
    const token = this.tokens[i]!;
    if (this.#operandRole(i, i) === "value") return this.#literal(i, i);
    if (token.tokenType !== DoubleString || !isPointerLiteral(token.image)) return undefined;
    const path = decodePointerLiteral(token.image);
    const segments = path.map((key, k) => ({ key, text: `"/${path.slice(0, k + 1).join("/")}"` }));
    return this.#selector(segments, i, this.#span(i, i), this.#bindingNamed(i, path[0]));
  }

  /**
   * What an operand running from token `start` to `end` is: the value of a match (after `==`,
   * `!=`, `contains`, `matches`; before `in`), the list or map of an `any`/`all`, or a selector.
   */
  #operandRole(start: number, end: number): "value" | "target" | "selector" {
    const before = this.tokens[start - 1];
    const after = this.tokens[end + 1];
    if (before !== undefined) {
      if (tokenMatcher(before, Equal) || before.tokenType === NotEqual) return "value";
      if ((before.tokenType === Contains || before.tokenType === Matches) && this.#isKeyword(start - 1)) return "value";
      if ((before.tokenType === Any || before.tokenType === All) && this.#isKeyword(start - 1)) return "target";
    }
    if (after?.tokenType === In && this.#isKeyword(end + 1)) return "value";
    if (after?.tokenType === Not && this.tokens[end + 2]?.tokenType === In && this.#isKeyword(end + 1)) return "value";
    return "selector";
  }

  /** A selector, up to the segment hovered: what the schema says it holds, or where it leaves the schema. */
  #selector(segments: readonly Segment[], head: number, range: Span, bound: { binding: Binding; brace: number } | undefined): HoverInfo {
    const written = segments.at(-1)!.text;
    const title = `**${code(written)}**`;
    const boundNote = bound === undefined ? "" : `\n\n${code(segments[0]!.key)} is ${this.#bindingPhrase(bound.binding, bound.brace)}.`;
    if (this.schema === undefined) return { range, contents: `${title}: a field\n\nNo schema is set: any JSON value may be there.${boundNote}` };
    const bindings = bindingsOpenIn(this.tokens.slice(0, head));
    // A bound head is resolved through its binding; the rest is walked one segment at a time.
    let k = bound === undefined ? 0 : 1;
    let place = bound === undefined ? this.#root : placeOf(this.#root, bindings, [segments[0]!.key]);
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

  /** The segments of the path starting at token `head`, each with the path written up to it. */
  #segments(head: number, path: readonly string[]): Segment[] {
    const start = this.tokens[head]!.startOffset;
    const segments: Segment[] = [];
    let j = head;
    for (const key of path) {
      segments.push({ key, text: this.source.slice(start, tokenEnd(this.tokens[j]!)) });
      // The next segment ends two tokens on (`.name`) or three (`["key"]`).
      j += this.tokens[j + 1]?.tokenType === Dot ? 2 : 3;
    }
    return segments;
  }

  /** A literal from token `first` to `last`: its text, and, given a schema, what it is compared as. */
  #literal(first: number, last: number): HoverInfo {
    const range = this.#span(first, last);
    const token = this.tokens[first]!;
    const written = this.source.slice(range.start, range.end);
    let raw: string;
    let form: string;
    if (first !== last || tokenMatcher(token, Name)) {
      raw = trailingPath(this.tokens, last)?.join(".") ?? written;
      form = "an unquoted name, read as text";
    } else if (token.tokenType === NumberLiteral) {
      raw = token.image;
      form = "a number";
    } else if (token.tokenType === DoubleString && isPointerLiteral(token.image)) {
      raw = decodePointerLiteral(token.image).join("/");
      form = "a string in JSON-pointer form, read as the path";
    } else if (token.tokenType === DoubleString) {
      const decoded = unquoteDouble(token.image.slice(1, -1));
      raw = decoded.ok ? decoded.value : token.image.slice(1, -1);
      form = "a string";
    } else if (token.tokenType === RawString) {
      raw = unquoteRaw(token.image.slice(1, -1));
      form = "a raw string";
    } else {
      raw = token.tokenType === UnterminatedString ? token.image.slice(1) : token.image;
      form = "a string that is never closed";
    }
    const lines = [`**${code(written)}**: ${form}${raw === written ? "" : `, the text ${code(raw)}`}`];
    const clause = this.#clauseOf(first, last);
    if (clause !== undefined) lines.push(this.#comparison(clause, raw));
    return { range, contents: lines.join("\n\n") };
  }

  /** What the literal is compared as, from the kind the schema gives its selector. */
  #comparison(clause: Clause, raw: string): string {
    const selector = code(clause.text);
    const test = operator(clause.operator).test;
    if (test === "matches") return `A regular expression (Go's RE2 syntax), looked for anywhere in ${selector}.`;
    const place = this.schema === undefined ? undefined : placeOf(this.#root, bindingsOpenIn(this.tokens.slice(0, clause.head)), clause.path);
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

  /** The operator and selector of the match whose literal runs from token `first` to `last`. */
  #clauseOf(first: number, last: number): Clause | undefined {
    const { tokens } = this;
    const before = tokens[first - 1];
    if (before !== undefined && (tokenMatcher(before, Equal) || before.tokenType === NotEqual || before.tokenType === Contains || before.tokenType === Matches)) {
      const negated = (before.tokenType === Contains || before.tokenType === Matches) && tokens[first - 2]?.tokenType === Not && this.#isKeyword(first - 2);
      const words = negated ? `not ${before.image}` : before.image;
      // `=` and `>=` are mistakes already reported; the clause is read as `==`, as the parser reads it.
      const name = SPELLINGS.get(words)?.operator ?? "Equal";
      const selectorEnd = first - (negated ? 3 : 2);
      const selector = this.#selectorEndingAt(selectorEnd);
      return selector === undefined ? undefined : { operator: name, ...selector };
    }
    const negated = tokens[last + 1]?.tokenType === Not;
    const selectorStart = last + (negated ? 3 : 2);
    const name = negated ? "NotIn" : "In";
    const start = tokens[selectorStart];
    if (start === undefined) return undefined;
    const selector = this.#selectorEndingAt(tokenMatcher(start, Name) ? this.#operandEnd(selectorStart) : selectorStart);
    return selector === undefined || selector.head !== selectorStart ? undefined : { operator: name, ...selector };
  }

  /** The selector (a path or a JSON pointer) whose last token is at `end`. */
  #selectorEndingAt(end: number): Omit<Clause, "operator"> | undefined {
    const token = this.tokens[end];
    if (token === undefined) return undefined;
    if (token.tokenType === DoubleString && isPointerLiteral(token.image)) return { path: decodePointerLiteral(token.image), head: end, text: token.image };
    const found = trailingPath(this.tokens, end, true);
    if (found === undefined) return undefined;
    return { path: found.path, head: found.start, text: this.source.slice(this.tokens[found.start]!.startOffset, tokenEnd(token)) };
  }

  /** Whether the name at `i` is declared by `as` (`as x`, `as i, v`, `as _, v`). */
  #isBindingName(i: number): boolean {
    const { tokens } = this;
    return tokens[i - 1]?.tokenType === As || (tokens[i - 1]?.tokenType === Comma && tokens[i - 3]?.tokenType === As);
  }

  /** A name where `as` declares it. */
  #declaredBinding(i: number): HoverInfo | undefined {
    const { tokens } = this;
    const as = tokens[i - 1]?.tokenType === As ? i - 1 : i - 3;
    // The body's `{` comes after one name, or after two and a comma; it need not be typed yet.
    const brace = tokens[as + 2]?.tokenType === Comma ? as + 4 : as + 2;
    const first = i === as + 1;
    const binding = collectionBindings(tokens, brace)?.find((candidate) => candidate.name === tokens[i]!.image && (candidate.role === "auto" || (candidate.role === "key") === first));
    return binding === undefined ? undefined : this.#describeBinding(binding.name, binding, brace, this.#span(i, i));
  }

  /** The innermost binding of `name` (by default, the name at `i`) open at token `i`, and the index of its body's `{`. */
  #bindingNamed(i: number, name = this.tokens[i]!.image): { binding: Binding; brace: number } | undefined {
    const open = openGroups(this.tokens.slice(0, i));
    for (let k = open.length - 1; k >= 0; k--) {
      const brace = open[k]!;
      if (this.tokens[brace]!.tokenType !== LBrace) continue;
      // With one name for both (`as x, x`), the value, bound last, wins, as in the evaluator.
      const binding = collectionBindings(this.tokens, brace)?.findLast((candidate) => candidate.name === name);
      if (binding !== undefined) return { binding, brace };
    }
    return undefined;
  }

  #describeBinding(name: string, binding: Binding, brace: number, range: Span): HoverInfo {
    const bound = this.schema === undefined ? undefined : placeOf(this.#root, [...this.#outerBindings(brace), binding], [name]).schema;
    const holds = bound === undefined ? "" : `: ${code(describeSchema(bound))}`;
    return { range, contents: `**${code(name)}**${holds}\n\nBound to ${this.#bindingPhrase(binding, brace)}.` };
  }

  /** What a binding ranges over, in words: `each element of TaskGroups (bound by any TaskGroups as g)`. */
  #bindingPhrase(binding: Binding, brace: number): string {
    const { tokens } = this;
    const as = tokens[brace - 2]?.tokenType === As ? brace - 2 : brace - 4;
    const target = trailingPath(tokens, as - 1, true)!;
    const quantifier = target.start - 1;
    const targetText = code(this.source.slice(tokens[target.start]!.startOffset, tokenEnd(tokens[as - 1]!)));
    const declaration = code(this.source.slice(tokens[quantifier]!.startOffset, tokenEnd(tokens[brace - 1]!)));
    const over = this.schema === undefined ? undefined : targetPlace(this.#root, this.#outerBindings(brace), binding).schema;
    const collection = over !== undefined && typeof over !== "string" ? over.kind : undefined;
    const role = binding.role === "auto" ? (collection === "map" ? "key" : collection === "array" ? "element" : "auto") : binding.role;
    let phrase: string;
    if (role === "key") phrase = collection === "array" ? `the index of each element of ${targetText}` : collection === "map" ? `the key of each entry of ${targetText}` : `the index (of a list) or key (of a map) of each element of ${targetText}`;
    else if (role === "element") phrase = collection === "map" ? `the value of each entry of ${targetText}` : collection === "array" ? `each element of ${targetText}` : `each element (of a list) or value (of a map) of ${targetText}`;
    else phrase = `each element of ${targetText} if it is a list, or each key if it is a map`;
    return `${phrase}, by ${declaration}`;
  }

  /** The bindings in scope where the collection whose body opens at `brace` is written. */
  #outerBindings(brace: number): Binding[] {
    return bindingsOpenIn(this.tokens.slice(0, brace));
  }

  /** The index of the last token of the operand starting at `head`: the path's last segment, or `head` itself. */
  #operandEnd(head: number): number {
    let j = head;
    if (!tokenMatcher(this.tokens[head]!, Name)) return head;
    for (;;) {
      if (this.tokens[j + 1]?.tokenType === Dot && this.#adjacent(j + 1) && this.#isWord(j + 2) && this.#adjacent(j + 2)) j += 2;
      else if (this.#isIndex(j + 1) && this.#adjacent(j + 1)) j += 3;
      else return j;
    }
  }

  /** `[`, a closed string and `]` from `open` on. */
  #isIndex(open: number): boolean {
    const key = this.tokens[open + 1];
    return this.tokens[open]?.tokenType === LBracket && key !== undefined && isString(key) && key.tokenType !== UnterminatedString && this.tokens[open + 2]?.tokenType === RBracket;
  }

  #isWord(i: number): boolean {
    const token = this.tokens[i];
    return token !== undefined && (tokenMatcher(token, Name) || token.tokenType === Digits);
  }

  /** Token `i` starts where token `i - 1` ends. */
  #adjacent(i: number): boolean {
    const token = this.tokens[i];
    const previous = this.tokens[i - 1];
    return token !== undefined && previous !== undefined && token.startOffset === tokenEnd(previous);
  }

  #span(first: number, last: number): Span {
    return { start: this.tokens[first]!.startOffset, end: tokenEnd(this.tokens[last]!) };
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
