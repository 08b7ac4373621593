/**
 * `complete`: what may be typed at a point of a filter, for editors. The grammar says which kind
 * of thing comes next (Chevrotain's content assist); a schema and sample objects say which fields,
 * map keys and values there are.
 *
 * @module
 */
import { MATCH_OPERATORS, negationOf, operator } from "../operators.js";
import { createTokenInstance, tokenMatcher, type IToken, type TokenType } from "chevrotain";
import type { Span } from "../ast.js";
import type { FieldSchema } from "../evaluator/schema.js";
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
  Identifier,
  In,
  Is,
  LBrace,
  LBracket,
  LParen,
  Matches,
  Name,
  Nil,
  Not,
  NotEqual,
  NumberLiteral,
  Or,
  QuotedString,
  RawString,
  RBrace,
  RBracket,
  RParen,
  Underscore,
  UnterminatedString,
} from "../lexer/tokens.js";
import { resolveLimits, type Limits } from "../limits.js";
import { strictParser } from "../parser/parser.js";
import { findExcessiveNesting, requireSource } from "../parser/parse.js";
import { quoteDouble, unquoteDouble, unquoteRaw } from "../go/strings.js";

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

/** @internal A step from a value to a part of it: a field or key, or every element of a list or map. */
export type Step = { readonly key: string } | { readonly each: true };

/** @internal A name bound by an open `any`/`all` body. */
export interface Binding {
  readonly name: string;
  /** `element`: the list element or map value; `key`: the index or map key; `auto`: `as x` (element of a list, key of a map). */
  readonly role: "element" | "key" | "auto";
  readonly target: readonly Step[];
}

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
  const limits = resolveLimits(options.limits);
  if (source.length > limits.maxSourceLength) return [];
  const cursor = Math.max(0, Math.min(Number.isInteger(offset) ? offset : source.length, source.length));
  const { tokens } = tokenize(source);
  // As `parse`, nothing when any part of the filter nests too deep, not only where the cursor is;
  // checked in one pass before anything that looks at the open groups.
  if (findExcessiveNesting(source, tokens, limits.maxNestingDepth) !== undefined) return [];
  return new Completer(source, tokens, cursor, options).run();
}

class Completer {
  readonly #tokens: IToken[];
  /** The string token the cursor is in, if any. */
  readonly #string: IToken | undefined;
  /** The word (name or number) the cursor is in or just after, if any. */
  readonly #word: IToken | undefined;
  /** The tokens before the word or string being completed. */
  readonly #before: IToken[];
  /** An operator or bracket the cursor is inside of (`=|=`): nothing can be inserted there. */
  readonly #splits: IToken | undefined;
  /** The `(` and `{` open before the word being completed, outermost first (indexes into `#before`). */
  readonly #open: number[];

  constructor(
    private readonly source: string,
    tokens: IToken[],
    private readonly cursor: number,
    private readonly options: CompleteOptions,
  ) {
    this.#tokens = tokens;
    this.#string = this.#tokens.find((token) => isString(token) && token.startOffset < cursor && (cursor < tokenEnd(token) || (token.tokenType === UnterminatedString && cursor === tokenEnd(token))));
    this.#word = this.#string === undefined ? this.#tokens.find((token) => isWord(token) && token.startOffset < cursor && cursor <= tokenEnd(token)) : undefined;
    this.#splits = this.#tokens.find((token) => !isString(token) && !isWord(token) && token.startOffset < cursor && cursor < tokenEnd(token));
    const start = (this.#string ?? this.#word)?.startOffset ?? cursor;
    this.#before = this.#tokens.filter((token) => tokenEnd(token) <= start);
    this.#open = openGroups(this.#before);
  }

  run(): Completion[] {
    if (this.#splits !== undefined) return [];
    const before = this.#before;
    const last = before[before.length - 1];
    const next = this.#nextTokenTypes();

    // Right after `.` or `[` (or in the name or string typed there): a segment of a path.
    const touchesLast = last !== undefined && tokenEnd(last) === this.#range.start;
    if (touchesLast && last.tokenType === LBracket && this.#word === undefined) return this.#keys(before.slice(0, -1));
    if (touchesLast && last.tokenType === Dot && this.#string === undefined) return this.#segments(before.slice(0, -1), last);
    if (this.#string !== undefined) return this.#isValuePosition(before) ? this.#values(before) : [];

    const completions: Completion[] = [];
    // After an operand, after `is` or `is not`, and after the `not` of `not contains`.
    if (next.has(Equal) || next.has(Is) || next.has(Empty) || (last?.tokenType === Not && next.has(Contains))) completions.push(...this.#operators(before));
    if (next.has(Name) && next.has(QuotedString)) {
      if (this.#isValuePosition(before)) completions.push(...this.#values(before));
      else {
        const target = last !== undefined && (last.tokenType === Any || last.tokenType === All);
        completions.push(...this.#fields(this.#rootPlace(), target));
        if (last?.tokenType !== In) completions.push(...this.#variables());
        if (next.has(Not) && last?.tokenType !== In && !target) completions.push(this.#keyword("not"));
        if (next.has(Any)) completions.push(this.#keyword("any"), this.#keyword("all"));
      }
    }
    if (next.has(And)) completions.push(this.#keyword("and"));
    if (next.has(Or)) completions.push(this.#keyword("or"));
    if (next.has(As)) completions.push(this.#keyword("as"));
    return this.#filter(completions);
  }

  /** The token types the grammar allows after the tokens before the cursor. */
  #nextTokenTypes(): Set<TokenType> {
    return nextTokenTypes(equivalentPrefix(this.#before, this.#open));
  }

  /** The range a completion replaces: the word or string at the cursor, or the cursor itself. */
  get #range(): Span {
    const token = this.#string ?? this.#word;
    return token === undefined ? { start: this.cursor, end: this.cursor } : { start: token.startOffset, end: tokenEnd(token) };
  }

  /** What has been typed of the word or string at the cursor (without the opening quote). */
  get #typed(): string {
    if (this.#word !== undefined) return this.source.slice(this.#word.startOffset, this.cursor);
    if (this.#string !== undefined) return this.source.slice(this.#string.startOffset + 1, this.cursor);
    return "";
  }

  #filter(completions: Completion[]): Completion[] {
    const typed = this.#typed.toLowerCase();
    const seen = new Set<string>();
    return completions.filter((completion) => {
      const key = `${completion.kind}\u0000${completion.text}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return typed === "" || completion.label.toLowerCase().startsWith(typed);
    });
  }

  #keyword(word: string): Completion {
    return { label: word, kind: "keyword", text: word, range: this.#range };
  }

  /** The operators that may come here: all of them after an operand, the rest of one after `is` or `not`. */
  #operators(before: readonly IToken[]): Completion[] {
    const last = before[before.length - 1];
    const previous = before[before.length - 2];
    let offered = OPERATORS;
    let drop = "";
    if (last?.tokenType === Is) {
      offered = OPERATORS.filter(([label]) => label.startsWith("is "));
      drop = "is ";
    } else if (last?.tokenType === Not && previous?.tokenType === Is) {
      offered = OPERATORS.filter(([label]) => label.startsWith("is not "));
      drop = "is not ";
    } else if (last?.tokenType === Not) {
      offered = OPERATORS.filter(([label]) => label.startsWith("not "));
      drop = "not ";
    }
    return offered.map(([label, detail]) => {
      const text = label.slice(drop.length);
      return { label: text, kind: "operator", text, range: this.#range, detail };
    });
  }

  /** After `==`, `!=`, `contains` or `matches` (possibly negated), with a path on the left. */
  #isValuePosition(before: readonly IToken[]): boolean {
    const last = before[before.length - 1];
    return last !== undefined && [Equal, NotEqual, Contains, Matches].some((type) => tokenMatcher(last, type));
  }

  /** Values seen in the samples for the path on the left of the operator. */
  #values(before: readonly IToken[]): Completion[] {
    const operator = before[before.length - 1]!;
    if (tokenMatcher(operator, Matches)) return [];
    const end = before.length - (before[before.length - 2]?.tokenType === Not ? 3 : 2);
    const path = trailingPath(before, end);
    if (path === undefined) return [];
    const place = this.#place(path);
    // `contains` looks into a list or map: offer its elements (or keys).
    const values = tokenMatcher(operator, Contains) ? place.values.flatMap((value) => (Array.isArray(value) ? value : isPlainObject(value) ? Object.keys(value) : [])) : place.values;
    const texts = new Map<string, string>();
    for (const value of values) {
      if (texts.size >= MAX_VALUE_COMPLETIONS) break;
      if (typeof value === "string") texts.set(quoteDouble(value), value);
      else if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") texts.set(String(value), String(value));
    }
    if (texts.size === 0 && place.schema === "bool") for (const word of ["true", "false"]) texts.set(word, word);
    const inString = this.#string !== undefined;
    return this.#filter(
      [...texts].map(([text, label]) => ({ label, kind: "value" as const, text, range: this.#range })).filter((completion) => !inString || completion.text.startsWith('"')),
    );
  }

  /** The fields (or keys) after `path.`; keys that are not names are written `["key"]`, replacing the dot. */
  #segments(before: readonly IToken[], dot: IToken): Completion[] {
    const path = trailingPath(before, before.length - 1);
    if (path === undefined) return [];
    const range = this.#range;
    return this.#filter(
      this.#fields(this.#place(path), false).map((completion) =>
        IDENTIFIER.test(completion.label) ? completion : { ...completion, text: `[${quoteDouble(completion.label)}]`, range: { start: dot.startOffset, end: range.end } },
      ),
    );
  }

  /** The keys after `path[`, quoted and closed. */
  #keys(before: readonly IToken[]): Completion[] {
    const path = trailingPath(before, before.length - 1);
    if (path === undefined) return [];
    const after = this.#tokens.find((token) => token.startOffset >= this.#range.end);
    const close = after?.tokenType === RBracket ? "" : "]";
    return this.#filter(
      this.#fields(this.#place(path), false).map((completion) => ({ ...completion, text: `${quoteDouble(completion.label)}${close}` })),
    );
  }

  /** The fields of a place: schema fields, or keys seen in the samples; `collections` keeps lists and maps only. */
  #fields(place: Place, collections: boolean): Completion[] {
    const range = this.#range;
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
    const range = this.#range;
    return this.#bindings()
      .reverse()
      .map((binding) => ({ label: binding.name, kind: "variable", text: binding.name, range, detail: binding.role === "key" ? "index or key" : "element" }));
  }

  #rootPlace(): Place {
    return { schema: this.options.schema, values: this.options.samples ?? [] };
  }

  /** What is known of the values at a path written in the filter (its head may be a bound name). */
  #place(path: readonly string[]): Place {
    return placeOf(this.#rootPlace(), this.#bindings(), path);
  }

  /** The bindings of the `any`/`all` bodies open at the cursor, outermost first. */
  #bindings(): Binding[] {
    return bindingsOpenIn(this.#before, this.#open);
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

/** @internal The bindings of the `any`/`all` bodies open after `tokens`, outermost first (`open`: the groups open, from {@link openGroups}). */
export function bindingsOpenIn(tokens: readonly IToken[], open: readonly number[] = openGroups(tokens)): Binding[] {
  return open.flatMap((i) => (tokens[i]!.tokenType === LBrace ? (collectionBindings(tokens, i) ?? []) : []));
}

/**
 * @internal The `(` and `{` still open after `tokens`, outermost first, as indexes. A closer closes the
 * innermost opener of its kind and any opened after it.
 */
export function openGroups(tokens: readonly IToken[]): number[] {
  const open: number[] = [];
  tokens.forEach((token, i) => {
    if (token.tokenType === LParen || token.tokenType === LBrace) open.push(i);
    else if (token.tokenType === RParen || token.tokenType === RBrace) {
      const opener = token.tokenType === RParen ? LParen : LBrace;
      const at = open.findLastIndex((index) => tokens[index]!.tokenType === opener);
      if (at >= 0) open.length = at;
    }
  });
  return open;
}

/** The token types the grammar allows after `tokens` (Chevrotain's content assist). */
export function nextTokenTypes(tokens: IToken[]): Set<TokenType> {
  const types = new Set<TokenType>();
  for (const path of strictParser().computeContentAssist("filter", tokens)) types.add(path.nextTokenType);
  return types;
}

/** Tokens that stand for a clause's opening, to rebuild the innermost group or collection body. */
const SYNTHETIC_GROUP = [createTokenInstance(LParen, "(", NaN, NaN, NaN, NaN, NaN, NaN)];
/** A complete clause (`x == x`), to stand before the `and`/`or` the kept tokens follow. */
const SYNTHETIC_CLAUSE = [
  createTokenInstance(Identifier, "x", NaN, NaN, NaN, NaN, NaN, NaN),
  createTokenInstance(Equal, "==", NaN, NaN, NaN, NaN, NaN, NaN),
  createTokenInstance(Identifier, "x", NaN, NaN, NaN, NaN, NaN, NaN),
];
const SYNTHETIC_BODY = [
  createTokenInstance(Any, "any", NaN, NaN, NaN, NaN, NaN, NaN),
  createTokenInstance(Identifier, "x", NaN, NaN, NaN, NaN, NaN, NaN),
  createTokenInstance(As, "as", NaN, NaN, NaN, NaN, NaN, NaN),
  createTokenInstance(Identifier, "x", NaN, NaN, NaN, NaN, NaN, NaN),
  createTokenInstance(LBrace, "{", NaN, NaN, NaN, NaN, NaN, NaN),
];

/**
 * A short token list after which the grammar allows the same tokens as after `tokens`, so that
 * content assist, whose work grows faster than the input, runs on a few tokens whatever the
 * filter's length. What may follow depends only on the innermost open `(` or `{` (its closer may
 * follow, nothing outside it), on the last `and`/`or` joining clauses in it (a collection may
 * follow `or`, not `and`), and on the tokens after that: those are kept, after a `(` or a
 * collection head standing for the group and a clause standing for what the `and`/`or` joins.
 */
export function equivalentPrefix(tokens: readonly IToken[], open: readonly number[] = openGroups(tokens)): IToken[] {
  const innermost = open.at(-1);
  const start = innermost === undefined ? 0 : innermost + 1;
  let joint = -1;
  let depth = 0;
  for (let i = start; i < tokens.length; i++) {
    const type = tokens[i]!.tokenType;
    if (type === LParen || type === LBrace) depth++;
    else if ((type === RParen || type === RBrace) && depth > 0) depth--;
    // (`&&` and `||` are reported mistakes the grammar reads as `and` and `or`.)
    else if (depth === 0 && (tokenMatcher(tokens[i]!, And) || tokenMatcher(tokens[i]!, Or)) && joinsClauses(tokens, i)) joint = i;
  }
  const group = innermost === undefined ? [] : tokens[innermost]!.tokenType === LParen ? SYNTHETIC_GROUP : SYNTHETIC_BODY;
  return joint === -1 ? [...group, ...collapseRuns(collapseGroups(tokens, start))] : [...group, ...SYNTHETIC_CLAUSE, ...collapseRuns(collapseGroups(tokens, joint))];
}

/**
 * Shortens what repeats without changing what may follow: a run of `not` to two, and a path's
 * segments (`.name`, `.0`, `["key"]`) to the last one. A clause of 30,000 `not` or of a
 * 60,000-segment path would otherwise cost content assist more than half a second.
 */
function collapseRuns(tokens: readonly IToken[]): IToken[] {
  const kept: IToken[] = [];
  /** The length of the path segment `kept` ends with, or 0. */
  let lastSegment = 0;
  for (let i = 0; i < tokens.length; ) {
    const token = tokens[i]!;
    const segment = segmentLength(tokens, i);
    if (segment > 0) {
      // The first segment after the path's head is kept; each later one replaces the one before.
      if (lastSegment > 0) kept.length -= lastSegment;
      kept.push(...tokens.slice(i, i + segment));
      lastSegment = segment;
      i += segment;
      continue;
    }
    lastSegment = 0;
    i++;
    if (token.tokenType === Not && kept.at(-1)?.tokenType === Not && kept.at(-2)?.tokenType === Not) continue;
    kept.push(token);
  }
  return kept;
}

/** The number of tokens of the path segment starting at `i` (`.name`, `.0`, `["key"]`), or 0. */
function segmentLength(tokens: readonly IToken[], i: number): number {
  const first = tokens[i];
  const second = tokens[i + 1];
  if (first === undefined || second === undefined || i === 0) return 0;
  if (first.tokenType === Dot && (tokenMatcher(second, Name) || second.tokenType === Digits)) return 2;
  if (first.tokenType === LBracket && isString(second) && second.tokenType !== UnterminatedString && tokens[i + 2]?.tokenType === RBracket) return 3;
  return 0;
}

/**
 * `tokens` from `from` on, with the inside of every group or collection body closed again before
 * the end replaced by one clause: what may follow a closed `( … )` or `{ … }` does not depend on
 * what it holds, and a deep nesting closed just before the cursor would otherwise cost content
 * assist time that grows with the square of its depth.
 */
function collapseGroups(tokens: readonly IToken[], from: number): IToken[] {
  const kept: IToken[] = [];
  for (let i = from; i < tokens.length; i++) {
    const token = tokens[i]!;
    kept.push(token);
    if (token.tokenType !== LParen && token.tokenType !== LBrace) continue;
    const close = matchingCloser(tokens, i);
    if (close === undefined) continue;
    kept.push(...SYNTHETIC_CLAUSE, tokens[close]!);
    i = close;
  }
  return kept;
}

/** The index of the `)` or `}` that closes the opener at `open` (counted as the prefix scan counts), if any. */
function matchingCloser(tokens: readonly IToken[], open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const type = tokens[i]!.tokenType;
    if (type === LParen || type === LBrace) depth++;
    else if (type === RParen || type === RBrace) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return undefined;
}

/** Tokens after which a match clause can be complete: a value, a closed group or body, `empty`, `nil`. */
const CLAUSE_ENDS: readonly TokenType[] = [Identifier, Digits, NumberLiteral, DoubleString, RawString, RParen, RBrace, RBracket, Empty, Nil];
const OPERATORS_BEFORE_VALUE: readonly TokenType[] = [Equal, NotEqual, Contains, Matches, In];

/**
 * Whether the `and`/`or` at `i` joins two clauses rather than being a name (`and == 1`, `x == or`,
 * `any and as …`): it does when the token before it can end a clause. (For a filter that is
 * already wrong this may misjudge; completions after a mistake are a best effort.)
 */
function joinsClauses(tokens: readonly IToken[], i: number): boolean {
  const previous = tokens[i - 1];
  if (previous === undefined) return false;
  if (CLAUSE_ENDS.some((type) => previous.tokenType === type)) return true;
  // `any`, `all` and the other keywords end a clause only as a value (`x == any and …`).
  const beforePrevious = tokens[i - 2];
  return tokenMatcher(previous, Name) && beforePrevious !== undefined && OPERATORS_BEFORE_VALUE.some((type) => tokenMatcher(beforePrevious, type));
}

/**
 * @internal The bindings of a collection whose `{` is at `brace` (or would be: only the tokens
 * before it are read), or undefined when the tokens before it are not a collection head.
 */
export function collectionBindings(tokens: readonly IToken[], brace: number): Binding[] | undefined {
  // The names are one token (`as x`) or three (`as i, v`) before the brace.
  const as = tokens[brace - 2]?.tokenType === As ? brace - 2 : tokens[brace - 4]?.tokenType === As ? brace - 4 : -1;
  if (as < 1) return undefined;
  const names = tokens.slice(as + 1, brace);
  const target = trailingPath(tokens, as - 1, true);
  if (target === undefined) return undefined;
  const steps = target.path.map((key) => ({ key }));
  const quantifier = tokens[target.start - 1];
  if (quantifier === undefined || (quantifier.tokenType !== Any && quantifier.tokenType !== All)) return undefined;
  const name = (token: IToken | undefined) => (token !== undefined && tokenMatcher(token, Name) ? token.image : undefined);
  const [first, comma, second] = names;
  if (names.length === 1 && name(first)) return [{ name: first!.image, role: "auto", target: steps }];
  if (names.length !== 3 || comma?.tokenType !== Comma) return undefined;
  const bindings: Binding[] = [];
  if (name(first)) bindings.push({ name: first!.image, role: "key", target: steps });
  if (name(second)) bindings.push({ name: second!.image, role: "element", target: steps });
  if (first?.tokenType !== Underscore && name(first) === undefined) return undefined;
  return bindings;
}

/**
 * @internal The path written by the tokens ending at `end` (`Meta.owner`, `Summary["web"].Running`), or
 * undefined when they do not end a path. Segments touch each other, as the grammar requires.
 */
export function trailingPath(tokens: readonly IToken[], end: number): string[] | undefined;
export function trailingPath(tokens: readonly IToken[], end: number, withStart: true): { path: string[]; start: number } | undefined;
export function trailingPath(tokens: readonly IToken[], end: number, withStart = false): string[] | { path: string[]; start: number } | undefined {
  const path: string[] = [];
  const touching = (left: IToken | undefined, right: IToken) => left !== undefined && tokenEnd(left) === right.startOffset;
  let i = end;
  while (i >= 0) {
    const token = tokens[i]!;
    if (token.tokenType === RBracket) {
      const key = tokens[i - 1];
      const open = tokens[i - 2];
      if (key === undefined || open?.tokenType !== LBracket || !isString(key) || !touching(tokens[i - 3], open)) return undefined;
      const decoded = decodeString(key);
      if (decoded === undefined) return undefined;
      path.unshift(decoded);
      i -= 3;
      continue;
    }
    if (tokenMatcher(token, Name) || token.tokenType === Digits) {
      const dot = tokens[i - 1];
      if (dot?.tokenType === Dot && touching(dot, token) && touching(tokens[i - 2], dot)) {
        path.unshift(token.image);
        i -= 2;
        continue;
      }
      if (token.tokenType === Digits) return undefined;
      path.unshift(token.image);
      return withStart ? { path, start: i } : path;
    }
    return undefined;
  }
  return undefined;
}

/** @internal The text of a closed string token, or undefined when it does not decode. */
export function decodeString(token: IToken): string | undefined {
  if (token.tokenType === RawString) return unquoteRaw(token.image.slice(1, -1));
  if (token.tokenType !== DoubleString) return undefined;
  const result = unquoteDouble(token.image.slice(1, -1));
  return result.ok ? result.value : undefined;
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

/** @internal Whether a token is a string literal (closed or not). */
export function isString(token: IToken): boolean {
  return tokenMatcher(token, QuotedString);
}

function isWord(token: IToken): boolean {
  return tokenMatcher(token, Name) || token.tokenType === Digits;
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
