/**
 * One analysis of a filter, shared by every editor feature: the tokens, the grammar's answers
 * about them (which word is a keyword, what may follow), and the recovered AST, made once per
 * source and kept until another source is analysed, then read at a position as contexts that name no token:
 * what is under the pointer ({@link FilterAnalysis.hoverTarget}), what may be typed at the
 * cursor ({@link FilterAnalysis.completionContext}), how each word is coloured
 * ({@link FilterAnalysis.classify}), which brackets are left open. Hover, completion, semantic
 * tokens, selection, highlight and the CodeMirror extension build their answers from these; no
 * module outside the parser reads a token. (The model: codemirror-promql's `complete/hybrid.ts`,
 * which analyses a position into contexts, then builds completions from them.)
 *
 * @module
 */
import { createTokenInstance, tokenMatcher, type IToken, type TokenType } from "chevrotain";
import type { CollectionExpression, Expression, Selector, Span } from "../ast.js";
import type { Diagnostic } from "../errors.js";
import { decodePointerLiteral, isPointerLiteral, unquoteDouble, unquoteRaw } from "../go/strings.js";
import { openBracketIndexes, openBrackets, tokenEnd, tokenize, type LexResult } from "../lexer/lexer.js";
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
  keywordTokens,
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
  WhiteSpace,
  allTokens,
} from "../lexer/tokens.js";
import { resolveLimits, type Limits } from "../limits.js";
import { SPELLINGS, type MatchOperator } from "../operators.js";
import { Lookahead } from "./lookahead.js";
import { analyzeLexed, findExcessiveNesting, type Analysis } from "./parse.js";
import { strictParser } from "./parser.js";

/** A step from a value to a part of it: a field or key, or every element of a list or map. */
export type Step = { readonly key: string } | { readonly each: true };

/** A name bound by an open `any`/`all` body. */
export interface Binding {
  readonly name: string;
  /** `element`: the list element or map value; `key`: the index or map key; `auto`: `as x` (element of a list, key of a map). */
  readonly role: "element" | "key" | "auto";
  readonly target: readonly Step[];
}

/** Where a binding is declared: the binding, the bindings in scope around its collection, and the collection's text. */
export interface BindingSite {
  readonly binding: Binding;
  /** The bindings in scope where the collection is written (its target may use them), outermost first. */
  readonly outer: readonly Binding[];
  /** The collection's target as written (`TaskGroups`, `g.Tasks`). */
  readonly targetText: string;
  /** The collection's head as written, up to its `{` (`any TaskGroups as g`). */
  readonly declarationText: string;
}

/** One segment of a selector: its key, and the selector written up to it (for messages). */
export interface Segment {
  readonly key: string;
  readonly text: string;
}

/** How a literal is written. */
export type LiteralForm = "unquoted" | "number" | "pointer" | "string" | "raw" | "unterminated";

/** The match a literal is the value of: its operator and selector, and the bindings in scope there. */
export interface LiteralClause {
  readonly operator: MatchOperator;
  readonly path: readonly string[];
  /** The selector as written. */
  readonly text: string;
  /** The bindings in scope at the selector, outermost first. */
  readonly scope: readonly Binding[];
}

/** What is under the pointer, for a hover. */
export type HoverTarget =
  /** The words of a match operator (`not in`, `is not empty`), or words that only start one (`is`). */
  | { readonly kind: "operator"; readonly words: string; readonly range: Span }
  /** A keyword that joins, negates or quantifies clauses, or `as`. */
  | { readonly kind: "keyword"; readonly word: "and" | "or" | "not" | "any" | "all" | "as"; readonly range: Span }
  /** `_` in a binding: which of the two names it leaves unbound. */
  | { readonly kind: "blank"; readonly unbound: "key" | "element"; readonly range: Span }
  /** A segment of a selector (by the segments up to it), with the bindings in scope at its head, and the binding its head names if any. */
  | { readonly kind: "selector"; readonly segments: readonly Segment[]; readonly scope: readonly Binding[]; readonly bound: BindingSite | undefined; readonly range: Span }
  /** A name an `any`/`all` binds, where it is declared or used alone. */
  | { readonly kind: "binding"; readonly site: BindingSite; readonly range: Span }
  /** A literal: its text as written and as read, and the match it is the value of. */
  | { readonly kind: "literal"; readonly written: string; readonly form: LiteralForm; readonly raw: string; readonly clause: LiteralClause | undefined; readonly range: Span };

/** One thing a completion may offer at the cursor, in the order they are offered. */
export type CompletionSlot =
  /** The keys after `path[` (closed with `]` when `close`). */
  | { readonly kind: "keys"; readonly path: readonly string[]; readonly close: boolean }
  /** The fields or keys after `path.`; a key that is not a name replaces the dot from `dot` on. */
  | { readonly kind: "segments"; readonly path: readonly string[]; readonly dot: number }
  /** Values for the right of a match on `path` (`contains`: the elements or keys of what it holds). */
  | { readonly kind: "values"; readonly path: readonly string[]; readonly contains: boolean }
  /** Match operators; `after` the words already typed (`is`, `is not`, `not`). */
  | { readonly kind: "operators"; readonly after: "" | "is" | "is not" | "not" }
  /** Fields of the object (`collections`: only lists and maps, after `any`/`all`). */
  | { readonly kind: "fields"; readonly collections: boolean }
  /** The names the open `any`/`all` bodies bind. */
  | { readonly kind: "variables" }
  /** A keyword. */
  | { readonly kind: "keyword"; readonly word: string };

/** What may be typed at the cursor. */
export interface CompletionContext {
  /** The range a completion replaces: the word or string at the cursor, or the cursor itself. */
  readonly range: Span;
  /** What has been typed of the word or string at the cursor (without the opening quote). */
  readonly typed: string;
  /** Whether the cursor is in a string. */
  readonly inString: boolean;
  /** The bindings of the `any`/`all` bodies open at the cursor, outermost first. */
  readonly scope: readonly Binding[];
  readonly slots: readonly CompletionSlot[];
}

/** What a word is, as an editor colours it. */
export type TokenClass = "property" | "variable" | "keyword" | "operator" | "string" | "number" | "constant" | "regexp" | "pointer";

/** A classified word: its span, its class, and whether it declares the variable it names (`as x`). */
export interface ClassifiedToken {
  readonly start: number;
  readonly end: number;
  readonly kind: TokenClass;
  readonly declaration: boolean;
}

/** A bracket left open at the end of the filter. */
export interface OpenBracket {
  readonly bracket: "(" | "[" | "{";
  readonly span: Span;
}

/**
 * The most an analysis may cost to be kept, in characters of source with its tokens counted as
 * {@link TOKEN_COST_CHARS} each: a 2 KB filter costs about 50,000, the longest filter `parse`
 * takes (128 KiB) several million, and is not kept.
 */
export const ANALYSIS_CACHE_CHARS = 1 << 20;
/** What a token costs, in characters of source (an IToken and its place in the arrays, about 200 bytes). */
const TOKEN_COST_CHARS = 100;

/**
 * The last analysis made, kept for the next call on the same text. One only: kept analyses are
 * large (tokens, AST, diagnostics), and keeping the four most recent 2 KB filters made `validate`
 * of a new text 1.6 to 1.9 times slower in the editor bench (the collector moving what is kept),
 * where keeping the last one costs 3 to 6%.
 */
let last: { readonly source: string; readonly limits: string; readonly analysis: FilterAnalysis } | undefined;

/**
 * The analysis of `source` under `limits`; the same object again while no other text was
 * analysed in between (an editor asks for the diagnostics, semantic tokens, hover and completion
 * of one text in a row). A source beyond the limits is analysed only as far as saying so.
 */
export function analysisOf(source: string, limits?: Partial<Limits>): FilterAnalysis {
  const resolved = resolveLimits(limits);
  const key = JSON.stringify(resolved);
  if (last !== undefined && last.source === source && last.limits === key) return last.analysis;
  const analysis = new FilterAnalysis(source, resolved);
  last = source.length + analysis.tokenCount * TOKEN_COST_CHARS <= ANALYSIS_CACHE_CHARS ? { source, limits: key, analysis } : undefined;
  return analysis;
}

/** A source analysed once; see {@link analysisOf}. */
export class FilterAnalysis {
  readonly #tokens: readonly IToken[];
  /** The lexer's result and the nesting check, for the parse (undefined beyond the length limit). */
  readonly #lexed: { readonly result: LexResult; readonly tooDeep: Diagnostic | undefined } | undefined;
  readonly #limits: Limits;
  #lookahead: Lookahead | undefined;
  /** Whether the token at an index is a keyword (rather than a name), once asked. */
  readonly #keywords = new Map<number, boolean>();
  #recovered: Analysis | undefined;
  readonly #beyondLimits: boolean;

  /** Use {@link analysisOf}, which keeps the last analysis for the next call on the same text. */
  constructor(
    readonly source: string,
    limits: Limits,
  ) {
    this.#limits = limits;
    if (source.length > limits.maxSourceLength) {
      this.#tokens = [];
      this.#lexed = undefined;
      this.#beyondLimits = true;
      return;
    }
    const result = tokenize(source);
    // As `parse`, nothing when any part of the filter nests too deep, not only where the cursor is;
    // the grammar is asked about the tokens before a position, which must nest within the limit.
    const tooDeep = findExcessiveNesting(source, result.tokens, limits.maxNestingDepth);
    this.#lexed = { result, tooDeep };
    this.#tokens = result.tokens;
    this.#beyondLimits = tooDeep !== undefined;
  }

  /** How many tokens the lexer read. */
  get tokenCount(): number {
    return this.#tokens.length;
  }

  /** Whether the source is beyond the limits of `parse` (too long, or nesting too deep): editors offer nothing then. */
  get beyondLimits(): boolean {
    return this.#beyondLimits;
  }

  /** The front end's result with recovery: the AST where it could be rebuilt, and every problem. */
  get recovered(): Analysis {
    this.#recovered ??= analyzeLexed(this.source, this.#lexed, { limits: this.#limits, recover: true });
    return this.#recovered;
  }

  get #grammar(): Lookahead {
    this.#lookahead ??= new Lookahead(this.source, this.#tokens);
    return this.#lookahead;
  }

  // ---- Hover ---------------------------------------------------------------------------------

  /**
   * What is at `offset` (the character under the pointer, or the end of the word before it): an
   * operator's words, a keyword, `_`, a selector's segment, a bound name, or a literal. Undefined
   * over whitespace, brackets, mistakes, and a source beyond the limits.
   */
  hoverTarget(offset: number): HoverTarget | undefined {
    if (this.#beyondLimits || !Number.isInteger(offset) || offset < 0 || offset > this.source.length) return undefined;
    const i = this.#tokenAt(offset);
    if (i === undefined) return undefined;
    const type = this.#tokens[i]!.tokenType;
    if (type === Equal || type === NotEqual) return this.#operator(i, i);
    if (keywordTokens.includes(type) && this.#isKeyword(i)) return this.#keyword(i);
    if (type === Underscore) return this.#blank(i);
    const segmentEnd = this.#segmentEnd(i);
    if (segmentEnd !== undefined) return this.#path(segmentEnd, i);
    if (isString(this.#tokens[i]!) || type === NumberLiteral) return this.#operand(i);
    return undefined;
  }

  /** The token under `offset`, or the one ending there (the pointer just after a word): the last one starting at or before it. */
  #tokenAt(offset: number): number | undefined {
    const last = this.#firstTokenFrom(offset + 1) - 1;
    return last >= 0 && offset <= tokenEnd(this.#tokens[last]!) ? last : undefined;
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
    const tokens = this.#tokens;
    const type = tokens[i]!.tokenType;
    let answer: boolean;
    if (!keywordTokens.includes(type)) answer = false;
    else if ((type === In || type === Contains || type === Matches) && tokens[i - 1]?.tokenType === Not && this.#isOperatorNot(i - 1)) {
      // Content assist follows one reading of a `not` after an operand (`not contains`), not the
      // other (`not in`): the word after such a `not` is an operator word whichever it is.
      answer = true;
    } else {
      const allowed = this.#allowed(i);
      if (allowed.size === 0) {
        const next = tokens[i + 1];
        answer = next === undefined || !(next.tokenType === Equal || next.tokenType === NotEqual || ((next.tokenType === Dot || next.tokenType === LBracket) && this.#adjacent(i + 1)));
      } else if (!allowed.has(type)) answer = false;
      else if (!allowed.has(Name)) answer = true;
      else if (type === Not) answer = this.#grammar.isUnaryNot(i);
      else if (type === Any || type === All) answer = this.#grammar.isCollectionStart(i);
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
    return nextTokenTypes(equivalentPrefix(this.#tokens.slice(0, i)));
  }

  /** A keyword: one of the joining keywords, or a word of an operator (`not in`, `is not empty`). */
  #keyword(i: number): HoverTarget | undefined {
    const tokens = this.#tokens;
    const exactly = (k: number, ...types: readonly unknown[]) => tokens[k] !== undefined && types.includes(tokens[k]!.tokenType) && this.#isKeyword(k);
    const joining = (word: "and" | "or" | "not" | "any" | "all" | "as"): HoverTarget => ({ kind: "keyword", word, range: this.#span(i, i) });
    switch (tokens[i]!.tokenType) {
      case And:
        return joining("and");
      case Or:
        return joining("or");
      case Any:
        return joining("any");
      case All:
        return joining("all");
      case As:
        return joining("as");
      case Not:
        if (exactly(i + 1, In, Contains, Matches)) return this.#operator(i, i + 1);
        if (exactly(i - 1, Is)) return this.#emptiness(i - 1);
        return joining("not");
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

  /** `is`, `is not`, and the `empty` or `nil` that ends them. */
  #emptiness(is: number): HoverTarget {
    let last = is;
    if (this.#tokens[last + 1]?.tokenType === Not) last++;
    const end = this.#tokens[last + 1]?.tokenType;
    if (end === Empty || end === Nil) last++;
    return this.#operator(is, last);
  }

  /** The words of tokens `first` to `last`, as an operator (or the start of one). */
  #operator(first: number, last: number): HoverTarget {
    const words = this.#tokens
      .slice(first, last + 1)
      .map((token) => token.image)
      .join(" ");
    return { kind: "operator", words, range: this.#span(first, last) };
  }

  /** `_` in a binding: what it leaves unbound. */
  #blank(i: number): HoverTarget | undefined {
    const tokens = this.#tokens;
    if (tokens[i - 1]?.tokenType === As && tokens[i + 1]?.tokenType === Comma) return { kind: "blank", unbound: "key", range: this.#span(i, i) };
    if (tokens[i - 1]?.tokenType === Comma && tokens[i - 3]?.tokenType === As) return { kind: "blank", unbound: "element", range: this.#span(i, i) };
    return undefined;
  }

  /** The index of the last token of the path segment token `i` is part of (a head, `.name`, `.0` or `["key"]`), if it is one. */
  #segmentEnd(i: number): number | undefined {
    const token = this.#tokens[i]!;
    if (tokenMatcher(token, Name) || token.tokenType === Digits) return i;
    if (token.tokenType === Dot) return this.#isWord(i + 1) && this.#adjacent(i + 1) ? i + 1 : undefined;
    if (token.tokenType === LBracket) return this.#isIndex(i) ? i + 2 : undefined;
    if (token.tokenType === RBracket) return this.#isIndex(i - 2) ? i : undefined;
    if (isString(token)) return this.#isIndex(i - 1) ? i + 1 : undefined;
    return undefined;
  }

  /** A segment of a path, ending at token `end` (token `at` is hovered): a selector's field, a bound name, or part of an unquoted value. */
  #path(end: number, at: number): HoverTarget | undefined {
    const found = trailingPath(this.#tokens, end, true);
    if (found === undefined) return undefined;
    const { path, start: head } = found;
    if (path.length === 1 && this.#isBindingName(head)) return this.#declaredBinding(head);
    const last = this.#operandEnd(head);
    if (this.#operandRole(head, last) === "value") return this.#literal(head, last);
    // The segment's name or index, and the `.` before it when that is what is hovered.
    const range = this.#tokens[end]!.tokenType === RBracket ? this.#span(end - 2, end) : this.#span(Math.min(at, end), end);
    const bound = this.#bindingNamed(head);
    if (bound !== undefined && end === head) return { kind: "binding", site: bound, range };
    return { kind: "selector", segments: this.#segments(head, path), scope: this.#scopeAt(head), bound, range };
  }

  /** A string or number outside a path: a literal, or a selector in JSON-pointer form. */
  #operand(i: number): HoverTarget | undefined {
    const token = this.#tokens[i]!;
    if (this.#operandRole(i, i) === "value") return this.#literal(i, i);
    if (token.tokenType !== DoubleString || !isPointerLiteral(token.image)) return undefined;
    const path = decodePointerLiteral(token.image);
    const segments = path.map((key, k) => ({ key, text: `"/${path.slice(0, k + 1).join("/")}"` }));
    return { kind: "selector", segments, scope: this.#scopeAt(i), bound: this.#bindingNamed(i, path[0]), range: this.#span(i, i) };
  }

  /**
   * What an operand running from token `start` to `end` is: the value of a match (after `==`,
   * `!=`, `contains`, `matches`; before `in`), the list or map of an `any`/`all`, or a selector.
   */
  #operandRole(start: number, end: number): "value" | "target" | "selector" {
    const before = this.#tokens[start - 1];
    const after = this.#tokens[end + 1];
    if (before !== undefined) {
      if (tokenMatcher(before, Equal) || before.tokenType === NotEqual) return "value";
      if ((before.tokenType === Contains || before.tokenType === Matches) && this.#isKeyword(start - 1)) return "value";
      if ((before.tokenType === Any || before.tokenType === All) && this.#isKeyword(start - 1)) return "target";
    }
    if (after?.tokenType === In && this.#isKeyword(end + 1)) return "value";
    if (after?.tokenType === Not && this.#tokens[end + 2]?.tokenType === In && this.#isKeyword(end + 1)) return "value";
    return "selector";
  }

  /** The segments of the path starting at token `head`, each with the path written up to it. */
  #segments(head: number, path: readonly string[]): Segment[] {
    const tokens = this.#tokens;
    const start = tokens[head]!.startOffset;
    const segments: Segment[] = [];
    let j = head;
    for (const key of path) {
      segments.push({ key, text: this.source.slice(start, tokenEnd(tokens[j]!)) });
      // The next segment ends two tokens on (`.name`) or three (`["key"]`).
      j += tokens[j + 1]?.tokenType === Dot ? 2 : 3;
    }
    return segments;
  }

  /** A literal from token `first` to `last`: its text, how it is written and read, and its match. */
  #literal(first: number, last: number): HoverTarget {
    const range = this.#span(first, last);
    const token = this.#tokens[first]!;
    const written = this.source.slice(range.start, range.end);
    let raw: string;
    let form: LiteralForm;
    if (first !== last || tokenMatcher(token, Name)) {
      raw = trailingPath(this.#tokens, last)?.join(".") ?? written;
      form = "unquoted";
    } else if (token.tokenType === NumberLiteral) {
      raw = token.image;
      form = "number";
    } else if (token.tokenType === DoubleString && isPointerLiteral(token.image)) {
      raw = decodePointerLiteral(token.image).join("/");
      form = "pointer";
    } else if (token.tokenType === DoubleString) {
      const decoded = unquoteDouble(token.image.slice(1, -1));
      raw = decoded.ok ? decoded.value : token.image.slice(1, -1);
      form = "string";
    } else if (token.tokenType === RawString) {
      raw = unquoteRaw(token.image.slice(1, -1));
      form = "raw";
    } else {
      raw = token.tokenType === UnterminatedString ? token.image.slice(1) : token.image;
      form = "unterminated";
    }
    return { kind: "literal", written, form, raw, clause: this.#clauseOf(first, last), range };
  }

  /** The operator and selector of the match whose literal runs from token `first` to `last`. */
  #clauseOf(first: number, last: number): LiteralClause | undefined {
    const tokens = this.#tokens;
    const before = tokens[first - 1];
    if (before !== undefined && (tokenMatcher(before, Equal) || before.tokenType === NotEqual || before.tokenType === Contains || before.tokenType === Matches)) {
      const negated = (before.tokenType === Contains || before.tokenType === Matches) && tokens[first - 2]?.tokenType === Not && this.#isKeyword(first - 2);
      const words = negated ? `not ${before.image}` : before.image;
      // `=` and `>=` are mistakes already reported; the clause is read as `==`, as the parser reads it.
      const name = SPELLINGS.get(words)?.operator ?? "Equal";
      const selector = this.#selectorEndingAt(first - (negated ? 3 : 2));
      return selector === undefined ? undefined : { operator: name, ...selector };
    }
    const negated = tokens[last + 1]?.tokenType === Not;
    const selectorStart = last + (negated ? 3 : 2);
    const start = tokens[selectorStart];
    if (start === undefined) return undefined;
    const selector = this.#selectorEndingAt(tokenMatcher(start, Name) ? this.#operandEnd(selectorStart) : selectorStart);
    return selector === undefined || selector.head !== selectorStart ? undefined : { operator: negated ? "NotIn" : "In", path: selector.path, text: selector.text, scope: selector.scope };
  }

  /** The selector (a path or a JSON pointer) whose last token is at `end`, with the index of its first token. */
  #selectorEndingAt(end: number): (Omit<LiteralClause, "operator"> & { readonly head: number }) | undefined {
    const token = this.#tokens[end];
    if (token === undefined) return undefined;
    if (token.tokenType === DoubleString && isPointerLiteral(token.image)) return { path: decodePointerLiteral(token.image), head: end, text: token.image, scope: this.#scopeAt(end) };
    const found = trailingPath(this.#tokens, end, true);
    if (found === undefined) return undefined;
    return { path: found.path, head: found.start, text: this.source.slice(this.#tokens[found.start]!.startOffset, tokenEnd(token)), scope: this.#scopeAt(found.start) };
  }

  /** Whether the name at `i` is declared by `as` (`as x`, `as i, v`, `as _, v`). */
  #isBindingName(i: number): boolean {
    const tokens = this.#tokens;
    return tokens[i - 1]?.tokenType === As || (tokens[i - 1]?.tokenType === Comma && tokens[i - 3]?.tokenType === As);
  }

  /** A name where `as` declares it. */
  #declaredBinding(i: number): HoverTarget | undefined {
    const tokens = this.#tokens;
    const as = tokens[i - 1]?.tokenType === As ? i - 1 : i - 3;
    // The body's `{` comes after one name, or after two and a comma; it need not be typed yet.
    const brace = tokens[as + 2]?.tokenType === Comma ? as + 4 : as + 2;
    const first = i === as + 1;
    const binding = collectionBindings(tokens, brace)?.find((candidate) => candidate.name === tokens[i]!.image && (candidate.role === "auto" || (candidate.role === "key") === first));
    return binding === undefined ? undefined : { kind: "binding", site: this.#site(binding, brace), range: this.#span(i, i) };
  }

  /** The innermost binding of `name` (by default, the name at `i`) open at token `i`. */
  #bindingNamed(i: number, name = this.#tokens[i]!.image): BindingSite | undefined {
    const tokens = this.#tokens;
    const open = openGroups(tokens.slice(0, i));
    for (let k = open.length - 1; k >= 0; k--) {
      const brace = open[k]!;
      if (tokens[brace]!.tokenType !== LBrace) continue;
      // With one name for both (`as x, x`), the value, bound last, wins, as in the evaluator.
      const binding = collectionBindings(tokens, brace)?.findLast((candidate) => candidate.name === name);
      if (binding !== undefined) return this.#site(binding, brace);
    }
    return undefined;
  }

  /** A binding with what surrounds its collection, whose body opens (or would) at `brace`. */
  #site(binding: Binding, brace: number): BindingSite {
    const tokens = this.#tokens;
    const as = tokens[brace - 2]?.tokenType === As ? brace - 2 : brace - 4;
    const target = trailingPath(tokens, as - 1, true)!;
    const quantifier = target.start - 1;
    return {
      binding,
      outer: this.#scopeAt(brace),
      targetText: this.source.slice(tokens[target.start]!.startOffset, tokenEnd(tokens[as - 1]!)),
      declarationText: this.source.slice(tokens[quantifier]!.startOffset, tokenEnd(tokens[brace - 1]!)),
    };
  }

  /** The bindings in scope before token `i`, outermost first. */
  #scopeAt(i: number): Binding[] {
    return bindingsOpenIn(this.#tokens.slice(0, i));
  }

  /** The index of the last token of the operand starting at `head`: the path's last segment, or `head` itself. */
  #operandEnd(head: number): number {
    let j = head;
    if (!tokenMatcher(this.#tokens[head]!, Name)) return head;
    for (;;) {
      if (this.#tokens[j + 1]?.tokenType === Dot && this.#adjacent(j + 1) && this.#isWord(j + 2) && this.#adjacent(j + 2)) j += 2;
      else if (this.#isIndex(j + 1) && this.#adjacent(j + 1)) j += 3;
      else return j;
    }
  }

  /** `[`, a closed string and `]` from `open` on. */
  #isIndex(open: number): boolean {
    const tokens = this.#tokens;
    const key = tokens[open + 1];
    return tokens[open]?.tokenType === LBracket && key !== undefined && isString(key) && key.tokenType !== UnterminatedString && tokens[open + 2]?.tokenType === RBracket;
  }

  #isWord(i: number): boolean {
    const token = this.#tokens[i];
    return token !== undefined && isWord(token);
  }

  /** Token `i` starts where token `i - 1` ends. */
  #adjacent(i: number): boolean {
    const token = this.#tokens[i];
    const previous = this.#tokens[i - 1];
    return token !== undefined && previous !== undefined && token.startOffset === tokenEnd(previous);
  }

  #span(first: number, last: number): Span {
    return { start: this.#tokens[first]!.startOffset, end: tokenEnd(this.#tokens[last]!) };
  }

  // ---- Completion ----------------------------------------------------------------------------

  /**
   * What may be typed at `cursor` (clamped to the source): the range a completion replaces, what
   * has been typed of it, the bindings open there, and the kinds of thing the grammar allows,
   * in the order they are offered. No slots inside an operator or bracket (`=|=`), nor beyond
   * the limits.
   */
  completionContext(cursor: number): CompletionContext {
    const tokens = this.#tokens;
    const at = Math.max(0, Math.min(Number.isInteger(cursor) ? cursor : this.source.length, this.source.length));
    const edited = this.#editedAt(at, false);
    const string = edited !== undefined && isString(edited) ? edited : undefined;
    const word = edited !== undefined && string === undefined ? edited : undefined;
    const { range, typed } = this.#replaced(edited, at);
    const before = tokens.filter((token) => tokenEnd(token) <= range.start);
    const open = openGroups(before);
    const context = (slots: CompletionSlot[]): CompletionContext => ({ range, typed, inString: string !== undefined, scope: bindingsOpenIn(before, open), slots });
    if (this.#beyondLimits) return context([]);
    // An operator or bracket the cursor is inside of (`=|=`): nothing can be inserted there.
    if (tokens.some((token) => !isString(token) && !isWord(token) && token.startOffset < at && at < tokenEnd(token))) return context([]);

    const last = before[before.length - 1];
    const previous = before[before.length - 2];
    // Right after `.` or `[` (or in the name or string typed there): a segment of a path.
    const touchesLast = last !== undefined && tokenEnd(last) === range.start;
    if (touchesLast && last.tokenType === LBracket && word === undefined) {
      const path = trailingPath(before, before.length - 2);
      const after = tokens.find((token) => token.startOffset >= range.end);
      return context(path === undefined ? [] : [{ kind: "keys", path, close: after?.tokenType !== RBracket }]);
    }
    if (touchesLast && last.tokenType === Dot && string === undefined) {
      const path = trailingPath(before, before.length - 2);
      return context(path === undefined ? [] : [{ kind: "segments", path, dot: last.startOffset }]);
    }
    const values = (): CompletionSlot[] => {
      // After `==`, `!=`, `contains` or `matches` (possibly negated), with a path on the left; none for a pattern.
      if (tokenMatcher(last!, Matches)) return [];
      const path = trailingPath(before, before.length - (previous?.tokenType === Not ? 3 : 2));
      return path === undefined ? [] : [{ kind: "values", path, contains: tokenMatcher(last!, Contains) }];
    };
    const isValuePosition = last !== undefined && [Equal, NotEqual, Contains, Matches].some((type) => tokenMatcher(last, type));
    if (string !== undefined) return context(isValuePosition ? values() : []);

    const next = nextTokenTypes(equivalentPrefix(before, open));
    const slots: CompletionSlot[] = [];
    // After an operand, after `is` or `is not`, and after the `not` of `not contains`.
    if (next.has(Equal) || next.has(Is) || next.has(Empty) || (last?.tokenType === Not && next.has(Contains))) {
      const after = last?.tokenType === Is ? "is" : last?.tokenType === Not && previous?.tokenType === Is ? "is not" : last?.tokenType === Not ? "not" : "";
      slots.push({ kind: "operators", after });
    }
    if (next.has(Name) && next.has(QuotedString)) {
      if (isValuePosition) slots.push(...values());
      else {
        const target = last !== undefined && (last.tokenType === Any || last.tokenType === All);
        slots.push({ kind: "fields", collections: target });
        if (last?.tokenType !== In) slots.push({ kind: "variables" });
        if (next.has(Not) && last?.tokenType !== In && !target) slots.push({ kind: "keyword", word: "not" });
        if (next.has(Any)) slots.push({ kind: "keyword", word: "any" }, { kind: "keyword", word: "all" });
      }
    }
    if (next.has(And)) slots.push({ kind: "keyword", word: "and" });
    if (next.has(Or)) slots.push({ kind: "keyword", word: "or" });
    if (next.has(As)) slots.push({ kind: "keyword", word: "as" });
    return context(slots);
  }

  /**
   * The word or string a value completion replaces at `cursor`, as {@link completionContext}
   * takes it (a string the cursor is inside of, or at the end of when it is never closed; a word
   * or number the cursor is in or just after), and what has been typed of it.
   */
  valueTokenAt(cursor: number): { readonly range: Span; readonly typed: string } {
    return this.#replaced(this.#editedAt(cursor, true), cursor);
  }

  /**
   * The token being typed at `at`: a string the cursor is inside of (or at the end of, when it is
   * never closed), else a name or list index (with `numbers`, a number too) the cursor is in or
   * just after. (Tokens do not overlap, so at most one is either.)
   */
  #editedAt(at: number, numbers: boolean): IToken | undefined {
    return this.#tokens.find((token) => {
      if (token.startOffset >= at) return false;
      if (isString(token)) return at < tokenEnd(token) || (token.tokenType === UnterminatedString && at === tokenEnd(token));
      return (isWord(token) || (numbers && token.tokenType === NumberLiteral)) && at <= tokenEnd(token);
    });
  }

  /** The range a completion at `at` replaces (the token being typed, or `at` itself), and what has been typed of it (without a string's quote). */
  #replaced(token: IToken | undefined, at: number): { readonly range: Span; readonly typed: string } {
    if (token === undefined) return { range: { start: at, end: at }, typed: "" };
    return { range: { start: token.startOffset, end: tokenEnd(token) }, typed: this.source.slice(token.startOffset + (isString(token) ? 1 : 0), at) };
  }

  // ---- Brackets ------------------------------------------------------------------------------

  /**
   * The brackets of the given kinds still open before `offset`, outermost first. A closer closes
   * the innermost opener of its kind and any opened after it; brackets of other kinds are not read.
   */
  openBrackets(offset: number, kinds: readonly OpenBracket["bracket"][]): OpenBracket[] {
    const pairs = BRACKET_PAIRS.filter(([, , text]) => kinds.includes(text)).map(([opener, closer]) => [opener, closer] as const);
    return openBrackets(this.#tokens, offset, pairs).map((token) => ({ bracket: token.image as OpenBracket["bracket"], span: { start: token.startOffset, end: tokenEnd(token) } }));
  }

  // ---- Structure -----------------------------------------------------------------------------

  /**
   * The words of the source, classified as an editor colours them (see `classifyTokens`): by
   * their token, then by the recovered AST (bound variables and their declarations, unquoted
   * values as text, list indexes in paths, JSON pointers, patterns).
   */
  classify(): ClassifiedToken[] {
    const tokens = this.#tokens;
    const { expression } = this.recovered;
    const kinds: (TokenClass | undefined)[] = tokens.map((token) => {
      const type = token.tokenType;
      if (keywordTokens.includes(type) && type !== Empty && type !== Nil) return "keyword";
      if (type === Equal || type === NotEqual) return "operator";
      if (type === Identifier) return "property";
      // `_` binds nothing: it stands where a variable would.
      if (type === Underscore) return "variable";
      if (type === DoubleString || type === RawString || type === UnterminatedString) return "string";
      if (type === NumberLiteral || type === Digits) return "number";
      if (type === Empty || type === Nil) return "constant";
      return undefined;
    });
    const declarations = new Set<number>();
    if (expression !== undefined) {
      const { clauses, bindings } = placeClauses(expression, (collection) => this.declarations(collection));
      for (const { declaration } of bindings) {
        const i = this.#firstTokenFrom(declaration.start);
        kinds[i] = "variable";
        declarations.add(i);
      }
      for (const { clause, scope } of clauses) {
        const { selector } = clause;
        const first = this.#firstTokenFrom(selector.span.start);
        // A list index in a path (`Datacenters.1`) is a segment of it, not a number.
        for (let i = first; i < tokens.length && tokens[i]!.startOffset < selector.span.end; i++) if (kinds[i] === "number") kinds[i] = "property";
        // An unquoted value (`Status == running`) is text, whatever it looks like.
        if (clause.kind === "Match" && "value" in clause) {
          for (let i = this.#firstTokenFrom(clause.value.span.start); i < tokens.length && tokens[i]!.startOffset < clause.value.span.end; i++) if (kinds[i] === "property") kinds[i] = "string";
        }
        if (selector.form === "Pointer") kinds[first] = "pointer";
        else if (scope.has(selector.path[0]!) && tokens[first]?.tokenType === Identifier) kinds[first] = "variable";
        if (clause.kind === "Match" && clause.operator.startsWith("Matches") && "value" in clause) {
          const value = this.#firstTokenFrom(clause.value.span.start);
          if (kinds[value] === "string") kinds[value] = "regexp";
        }
      }
    }
    const classified: ClassifiedToken[] = [];
    tokens.forEach((token, i) => {
      const kind = kinds[i];
      // Stand-in tokens of recovery have no text.
      if (kind !== undefined && tokenEnd(token) > token.startOffset) classified.push({ start: token.startOffset, end: tokenEnd(token), kind, declaration: declarations.has(i) });
    });
    return classified;
  }

  /** The spans of the names a collection declares after `as`, in order (`_` is not one). */
  declarations(collection: CollectionExpression): Span[] {
    const tokens = this.#tokens;
    const spans: Span[] = [];
    for (let i = this.#firstTokenFrom(collection.selector.span.end); i < tokens.length && tokens[i]!.startOffset < collection.body.span.start; i++) {
      if (tokens[i]!.tokenType === Identifier) spans.push({ start: tokens[i]!.startOffset, end: tokenEnd(tokens[i]!) });
    }
    return spans;
  }

  /** The span of the first segment of a selector (its head). */
  headSpan(selector: Selector): Span {
    const token = this.#tokens[this.#firstTokenFrom(selector.span.start)]!;
    return { start: token.startOffset, end: tokenEnd(token) };
  }

  /** The first token at or after `offset`, by binary search over tokens in source order. */
  #firstTokenFrom(offset: number): number {
    const tokens = this.#tokens;
    let low = 0;
    let high = tokens.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (tokens[middle]!.startOffset < offset) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** Each bracket kind: its opener, closer and text. */
const BRACKET_PAIRS: readonly (readonly [opener: TokenType, closer: TokenType, text: OpenBracket["bracket"]])[] = [
  [LParen, RParen, "("],
  [LBracket, RBracket, "["],
  [LBrace, RBrace, "{"],
];

/** A name an `any`/`all` binds in the AST, and where it is declared (after `as`). */
export interface ScopedBinding {
  readonly name: string;
  readonly declaration: Span;
  /** Which of the collection's names it is: the element or key (`Default`), the index or key, or the value. */
  readonly role: "default" | "index" | "value";
  readonly collection: CollectionExpression;
  /** The bindings in force where the collection stands (its selector may use them). */
  readonly scope: ReadonlyMap<string, ScopedBinding>;
}

/** A clause of the filter (a match, or an `any`/`all`), its selector, and the bindings in force where it stands. */
export interface PlacedClause {
  readonly clause: Extract<Expression, { kind: "Match" | "Collection" }>;
  readonly selector: Selector;
  readonly scope: ReadonlyMap<string, ScopedBinding>;
}

/** The names a collection binds for its body (`_` binds nothing), each with which of its names it is. */
function boundNames(collection: CollectionExpression): { readonly name: string; readonly role: ScopedBinding["role"] }[] {
  const { binding } = collection;
  switch (binding.mode) {
    case "Default":
      return [{ name: binding.name, role: "default" }];
    case "IndexAndValue":
      return [
        { name: binding.index, role: "index" },
        { name: binding.value, role: "value" },
      ];
    case "Index":
      return [{ name: binding.index, role: "index" }];
    case "Value":
      return [{ name: binding.value, role: "value" }];
  }
}

/**
 * The clauses and bindings of an expression, each clause with the bindings in force where it
 * stands (one scoped walk: a name bound again inside is another binding). `declarations` gives
 * the spans of the names a collection declares ({@link FilterAnalysis.declarations}).
 */
export function placeClauses(expression: Expression, declarations: (collection: CollectionExpression) => readonly Span[]): { clauses: PlacedClause[]; bindings: ScopedBinding[] } {
  const clauses: PlacedClause[] = [];
  const bindings: ScopedBinding[] = [];
  const stack: { node: Expression; scope: ReadonlyMap<string, ScopedBinding> }[] = [{ node: expression, scope: new Map() }];
  while (stack.length > 0) {
    const { node, scope } = stack.pop()!;
    if (node.kind === "And" || node.kind === "Or") for (const operand of node.operands) stack.push({ node: operand, scope });
    else if (node.kind === "Not") stack.push({ node: node.operand, scope });
    else if (node.kind === "Match") clauses.push({ clause: node, selector: node.selector, scope });
    else {
      clauses.push({ clause: node, selector: node.selector, scope });
      const declared = declarations(node);
      const inner = new Map(scope);
      boundNames(node).forEach(({ name, role }, k) => {
        const declaration = declared[k];
        if (declaration === undefined) return;
        const binding: ScopedBinding = { name, declaration, role, collection: node, scope };
        bindings.push(binding);
        inner.set(name, binding);
      });
      stack.push({ node: node.body, scope: inner });
    }
  }
  return { clauses, bindings };
}

/**
 * The names of the token types the lexer emits (`Identifier`, `And`, `DoubleString`, `LParen`,
 * `AndAnd`…): every type but whitespace and the two categories, which never reach the token list.
 */
export const WORD_TYPES: readonly string[] = allTokens.filter((type) => type !== WhiteSpace && type !== Name && type !== QuotedString).map((type) => type.name);

/** A word as the lexer reads it: its token type's name (one of {@link WORD_TYPES}) and its span. */
export interface LexicalWord {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

/**
 * The words of `text` exactly as the lexer reads them, in order, without any reading by the
 * grammar (a keyword used as a name is still its keyword): what a highlighter that agrees with
 * the lexer colours, whatever the text (the lexer is linear and never throws).
 */
export function lexicalWords(text: string): LexicalWord[] {
  return tokenize(text).tokens.map((token) => ({ type: token.tokenType.name, start: token.startOffset, end: tokenEnd(token) }));
}

/** Whether `text` is a name a binding may take (one identifier: not a keyword, `_`, a number or a string). */
export function isBindableName(text: string): boolean {
  const { tokens } = tokenize(text);
  return tokens.length === 1 && tokens[0]!.tokenType === Identifier && tokens[0]!.image === text;
}

/** The bindings of the `any`/`all` bodies open after `tokens`, outermost first (`open`: the groups open, from {@link openGroups}). */
function bindingsOpenIn(tokens: readonly IToken[], open: readonly number[] = openGroups(tokens)): Binding[] {
  return open.flatMap((i) => (tokens[i]!.tokenType === LBrace ? (collectionBindings(tokens, i) ?? []) : []));
}

/** The groups content assist reads: `(` and `{`. */
const GROUP_PAIRS = [
  [LParen, RParen],
  [LBrace, RBrace],
] as const;

/** The `(` and `{` still open after `tokens`, outermost first, as indexes. */
function openGroups(tokens: readonly IToken[]): number[] {
  return openBracketIndexes(tokens, Infinity, GROUP_PAIRS);
}

/** The token types the grammar allows after `tokens` (Chevrotain's content assist). */
/** @internal */
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
 *
 * @internal
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
 * The bindings of a collection whose `{` is at `brace` (or would be: only the tokens
 * before it are read), or undefined when the tokens before it are not a collection head.
 */
function collectionBindings(tokens: readonly IToken[], brace: number): Binding[] | undefined {
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
 * The path written by the tokens ending at `end` (`Meta.owner`, `Summary["web"].Running`), or
 * undefined when they do not end a path. Segments touch each other, as the grammar requires.
 */
function trailingPath(tokens: readonly IToken[], end: number): string[] | undefined;
function trailingPath(tokens: readonly IToken[], end: number, withStart: true): { path: string[]; start: number } | undefined;
function trailingPath(tokens: readonly IToken[], end: number, withStart = false): string[] | { path: string[]; start: number } | undefined {
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

/** The text of a closed string token, or undefined when it does not decode. */
function decodeString(token: IToken): string | undefined {
  if (token.tokenType === RawString) return unquoteRaw(token.image.slice(1, -1));
  if (token.tokenType !== DoubleString) return undefined;
  const result = unquoteDouble(token.image.slice(1, -1));
  return result.ok ? result.value : undefined;
}

/** Whether a token is a string literal (closed or not). */
function isString(token: IToken): boolean {
  return tokenMatcher(token, QuotedString);
}

function isWord(token: IToken): boolean {
  return tokenMatcher(token, Name) || token.tokenType === Digits;
}

