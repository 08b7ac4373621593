/**
 * The entry point of the front end: source → tokens → CST → AST, with the structural limits
 * enforced before any recursive phase runs.
 *
 * @module
 */
import { EOF, tokenMatcher, type IRecognitionException, type IToken, type TokenType } from "chevrotain";
import type { Expression, Span } from "../ast.js";
import { capDiagnostics, createDiagnostic, FilterSyntaxError, replaceFix, type Diagnostic, type Fix } from "../errors.js";
import { tokenize, tokenEnd, type LexResult } from "../lexer/lexer.js";
import { All, And, Any, Bang, Comma, Digits, Dot, Equal, Identifier, In, LBrace, LBracket, LParen, Name, Not, NotEqual, NumberLiteral, Or, RBrace, RParen, QuotedString, RBracket } from "../lexer/tokens.js";
import { resolveLimits, type Limits } from "../limits.js";
import { KEYWORDS } from "../operators.js";
import { fastRead } from "./fast-read.js";
import { recoveringParser, strictParser, type ParseOutcome, type SyntaxReason } from "./parser.js";

/** Options of {@link parse}. */
export interface ParseOptions {
  /** Overrides of the limits; see {@link DEFAULT_LIMITS}. `parse` applies the structural ones. */
  readonly limits?: Partial<Limits>;
}

/** Everything the front end learned about a source. */
export interface Analysis {
  /** The AST, when the source is valid or recovery could rebuild it. */
  readonly expression: Expression | undefined;
  /** All problems found, in source order. */
  readonly diagnostics: readonly Diagnostic[];
  /** Work done by the PEG-equivalence lookahead, in tokens visited (for linearity tests). */
  readonly lookaheadSteps: number;
  /** The tokens (none when the source was refused before lexing completed). */
  readonly tokens: readonly IToken[];
}

/**
 * Parses a filter into its AST.
 *
 * @throws {@link FilterSyntaxError} listing every problem found when the source is not valid.
 * @example
 * ```ts
 * const ast = parse('Status == "running" and "dc1" in Datacenters');
 * ast.kind; // "And"
 * ```
 */
export function parse(source: string, options: ParseOptions = {}): Expression {
  requireSource(source);
  // The common filters are read by hand; anything else, valid or not, by the full parser.
  const limits = resolveLimits(options.limits);
  const fast = fastRead(source, limits);
  if (fast !== undefined) return fast;
  const analysis = analyze(source, { limits, recover: false });
  if (analysis.expression === undefined || analysis.diagnostics.some((d) => d.severity === "error")) {
    throw new FilterSyntaxError(source, analysis.diagnostics.length > 0 ? analysis.diagnostics : [unknownProblem(source)]);
  }
  return analysis.expression;
}

/**
 * Runs the front end without throwing. With `recover`, the parser continues after errors to
 * report as many problems as it can (for editors); without, it stops at the first syntax error.
 */
export function analyze(source: string, options: ParseOptions & { readonly recover: boolean }): Analysis {
  return analyzeLexed(source, undefined, options);
}

/**
 * @internal {@link analyze}, with what the caller found already (the shared analysis of the editor
 * features lexes once): `lexed` must be `tokenize(source)`, and `tooDeep` what
 * {@link findExcessiveNesting} gives for it under the same limit.
 */
export function analyzeLexed(source: string, lexed: { readonly result: LexResult; readonly tooDeep: Diagnostic | undefined } | undefined, options: ParseOptions & { readonly recover: boolean }): Analysis {
  const limits = resolveLimits(options.limits);
  const fail = (diagnostic: Diagnostic, tokens: readonly IToken[] = []): Analysis => ({
    expression: undefined,
    diagnostics: [diagnostic],
    lookaheadSteps: 0,
    tokens,
  });

  if (source.length > limits.maxSourceLength) {
    return fail(
      createDiagnostic(
        source,
        "source_too_long",
        `the filter is ${source.length} characters long; the limit is ${limits.maxSourceLength}`,
        { start: limits.maxSourceLength, end: source.length },
        "split the filter, or filter part of the results on the client",
      ),
    );
  }

  const { tokens, diagnostics: lexical } = lexed?.result ?? tokenize(source);
  if (tokens.length === 0 && lexical.length === 0) {
    return fail(
      createDiagnostic(source, "empty_expression", "the filter is empty", { start: 0, end: source.length }, 'write an expression such as Status == "running"'),
    );
  }

  const tooDeep = lexed === undefined ? findExcessiveNesting(source, tokens, limits.maxNestingDepth) : lexed.tooDeep;
  if (tooDeep !== undefined) return fail(tooDeep, tokens);

  const parser = options.recover ? recoveringParser() : strictParser();
  let parsed: ParseOutcome;
  let syntactic: Diagnostic[];
  // Chevrotain signals each syntax error with an exception, and recovery may meet tens of
  // thousands in a hostile filter: their stack traces, never read, would cost most of the time.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    parsed = parser.parseTokens(source, tokens);
    const table = new TokenTable(tokens);
    syntactic = parser.errors.map((error) => fromRecognitionException(source, table, { error, reason: parsed.reasons.get(error) ?? "expected" }));
  } catch (error) {
    // The nesting limit keeps the recursive phases well inside a normal stack; a caller already
    // deep in its own stack still gets a diagnostic rather than a RangeError.
    if (!isStackOverflow(error)) throw error;
    return fail(stackDiagnostic(source), tokens);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  const { lookahead } = parsed;
  // Without recovery, what the actions found before a syntax error is not reported: the first
  // syntax error is the problem to fix.
  const built = syntactic.length === 0 || options.recover ? parsed : undefined;
  const diagnostics = [...lexical, ...dropConsequences(syntactic, lexical), ...(built?.diagnostics ?? [])];

  if (built !== undefined && built.clauses > limits.maxClauses) {
    diagnostics.push(
      createDiagnostic(
        source,
        "too_many_clauses",
        `the filter has ${built.clauses} clauses; the limit is ${limits.maxClauses}`,
        { start: 0, end: source.length },
        "split the filter, or use a regular expression (Name matches \"^(a|b|c)$\") instead of many comparisons",
      ),
    );
  }
  diagnostics.sort((a, b) => a.span.start - b.span.start);
  return {
    expression: built?.expression,
    diagnostics: capDiagnostics(source, diagnostics, parsed.stopped),
    lookaheadSteps: lookahead.steps,
    tokens,
  };
}

/** The first `(` or `{` that opens more levels than allowed, found without recursion. */
export function findExcessiveNesting(source: string, tokens: readonly IToken[], maxDepth: number): Diagnostic | undefined {
  let depth = 0;
  for (const token of tokens) {
    if (token.tokenType === LParen || token.tokenType === LBrace) {
      depth++;
      if (depth > maxDepth) {
        return createDiagnostic(
          source,
          "nesting_too_deep",
          `parentheses and collection bodies nest more than ${maxDepth} levels deep here`,
          { start: token.startOffset, end: tokenEnd(token) },
          "remove redundant parentheses",
        );
      }
    } else if ((token.tokenType === RParen || token.tokenType === RBrace) && depth > 0) {
      depth--;
    }
  }
  return undefined;
}

/**
 * A character the lexer could not read derails the parser after it, and a malformed number
 * (`1}`) makes it stumble inside the reported span; those complaints only repeat a problem
 * already reported, so they are left out. (Lexical diagnostics come sorted by start; each
 * syntactic one is looked up by binary search, so thousands of both stay cheap.)
 */
function dropConsequences(syntactic: Diagnostic[], lexical: Diagnostic[]): Diagnostic[] {
  const firstBadCharacter = lexical.find((d) => d.code === "unexpected_character" || d.code === "unterminated_string");
  // furthestEnd[k]: the furthest end among the first k + 1 lexical spans.
  const furthestEnd: number[] = [];
  for (const d of lexical) furthestEnd.push(Math.max(furthestEnd.at(-1) ?? -1, d.span.end));
  const covered = (offset: number): boolean => {
    let low = 0;
    let high = lexical.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (lexical[middle]!.span.start <= offset) low = middle + 1;
      else high = middle;
    }
    return low > 0 && furthestEnd[low - 1]! > offset;
  };
  return syntactic.filter((d) => (firstBadCharacter === undefined || d.span.end <= firstBadCharacter.span.start) && !covered(d.span.start));
}

/** The tokens of one source, with the lookups error reporting needs, each in logarithmic time. */
class TokenTable {
  readonly #innermost = new Map<TokenType, Int32Array>();

  constructor(readonly tokens: readonly IToken[]) {}

  /** How many tokens start before `offset` (tokens are in source order). */
  countBefore(offset: number): number {
    let low = 0;
    let high = this.tokens.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.tokens[middle]!.startOffset < offset) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The token after `token` in the source (undefined for the last, or a token recovery inserted). */
  next(token: IToken): IToken | undefined {
    if (Number.isNaN(token.startOffset)) return undefined;
    return this.tokens[this.countBefore(token.startOffset) + 1];
  }

  /** The token before `token` in the source (undefined for the first, or a token recovery inserted). */
  previous(token: IToken): IToken | undefined {
    if (Number.isNaN(token.startOffset)) return undefined;
    return this.tokens[this.countBefore(token.startOffset) - 1];
  }

  /** The innermost `opener` still open before offset `before` (a `closer` closes the innermost one). */
  innermostOpen(before: number, opener: TokenType, closer: TokenType): IToken | undefined {
    let innermost = this.#innermost.get(opener);
    if (innermost === undefined) {
      // innermost[i]: the index of the innermost open `opener` among the first i tokens, or -1.
      innermost = new Int32Array(this.tokens.length + 1);
      const open: number[] = [];
      innermost[0] = -1;
      this.tokens.forEach((token, i) => {
        if (token.tokenType === opener) open.push(i);
        else if (token.tokenType === closer) open.pop();
        innermost![i + 1] = open.at(-1) ?? -1;
      });
      this.#innermost.set(opener, innermost);
    }
    const index = innermost[this.countBefore(before)]!;
    return index === -1 ? undefined : this.tokens[index];
  }
}

/** Throws the TypeError of a public entry point given something other than a filter string. */
export function requireSource(source: unknown): asserts source is string {
  if (typeof source !== "string") throw new TypeError(`the filter must be a string, got ${describeValue(source)}`);
}

/** How a wrong argument is named in a TypeError. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "function") return "a function";
  return `${typeof value} ${String(value).slice(0, 40)}`;
}

/** True for the RangeError V8 throws when the call stack is exhausted. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/** The diagnostic of a filter that exhausted the stack (only possible when called from deep in a program's own stack). */
export function stackDiagnostic(source: string | undefined): Diagnostic {
  return createDiagnostic(
    source,
    "nesting_too_deep",
    "the filter nests too deeply for the stack space left to this call",
    { start: 0, end: source?.length ?? 0 },
    "remove redundant parentheses",
  );
}

function unknownProblem(source: string): Diagnostic {
  return createDiagnostic(source, "unexpected_token", "the filter could not be parsed", { start: 0, end: source.length });
}

const KEYWORD_WORDS: ReadonlySet<string> = new Set(KEYWORDS);

/** Where and why the parser stopped: Chevrotain's exception, and the grammar's reason (see {@link SyntaxReason}). */
interface Stop {
  readonly error: IRecognitionException;
  readonly reason: SyntaxReason;
}

/** Turns a Chevrotain recognition exception into a diagnostic with a code and, where known, a fix, chosen by the grammar's reason. */
function fromRecognitionException(source: string, tokens: TokenTable, stop: Stop): Diagnostic {
  const { error, reason } = stop;
  const token = error.token;
  const atEnd = token.tokenType === EOF || Number.isNaN(token.startOffset);
  const span: Span = atEnd ? { start: source.length, end: source.length } : { start: token.startOffset, end: tokenEnd(token) };
  const message = error.message;

  if (reason === "close-group") {
    const open = tokens.innermostOpen(atEnd ? source.length : token.startOffset, LParen, RParen);
    const where = open === undefined ? span : { start: open.startOffset, end: tokenEnd(open) };
    // At the end, the ")" is missing; before a mistyped keyword (`AND`), the keyword is the mistake.
    const fixes = atEnd ? [replaceFix('add the missing ")" at the end', { start: source.length, end: source.length }, ")")] : fixesFor(source, tokens, token, stop, span);
    return createDiagnostic(source, "unmatched_parenthesis", atEnd ? "this ( is never closed" : message, where, 'add the missing ")"', "error", fixes);
  }
  if (error.name === "NotAllInputParsedException" && token.tokenType === RParen) {
    return createDiagnostic(source, "unmatched_parenthesis", "this ) has no matching (", span, 'remove it, or add the missing "("');
  }
  if (reason === "index-not-string") {
    return createDiagnostic(source, "invalid_index", message, span, 'write Meta["key"] or Meta.key, and Items.0 for a list index', "error", listIndexFix(source, tokens, token));
  }

  if (reason === "close-index") {
    const open = atEnd ? tokens.innermostOpen(source.length, LBracket, RBracket) : undefined;
    const key = open === undefined ? undefined : tokens.next(open);
    if (open !== undefined) {
      const fixes = key !== undefined && tokenMatcher(key, QuotedString) ? [replaceFix('add the missing "]"', { start: tokenEnd(key), end: tokenEnd(key) }, "]")] : undefined;
      return createDiagnostic(source, "unclosed_index", "this [ is never closed", { start: open.startOffset, end: tokenEnd(open) }, 'add the missing "]"', "error", fixes);
    }
    return createDiagnostic(source, "unclosed_index", message, span, 'add the missing "]"');
  }

  const code = atEnd ? "unexpected_end" : "unexpected_token";
  return createDiagnostic(source, code, message, span, suggestFor(source, tokens, token, stop), "error", fixesFor(source, tokens, token, stop, span));
}

/** `Items[0]`: a list index is written `Items.0`. */
function listIndexFix(source: string, tokens: TokenTable, token: IToken): Fix[] | undefined {
  const open = token.tokenType === LBracket ? token : tokens.previous(token);
  if (open?.tokenType !== LBracket) return undefined;
  const digits = tokens.next(open);
  const close = digits === undefined ? undefined : tokens.next(digits);
  if (digits?.tokenType !== NumberLiteral || !/^[0-9]+$/.test(digits.image) || close?.tokenType !== RBracket) return undefined;
  return [replaceFix(`write .${digits.image}`, { start: open.startOffset, end: tokenEnd(close) }, `.${digits.image}`)];
}

/** The repairs that are obvious from the token where parsing stopped: `AND` → `and`, `is null` → `is nil`. */
function fixesFor(source: string, tokens: TokenTable, token: IToken, stop: Stop, span: Span): Fix[] | undefined {
  const keyword = capitalKeyword(tokens, token, stop);
  if (keyword !== undefined) {
    return [replaceFix(`replace "${keyword.image}" with "${keyword.image.toLowerCase()}"`, { start: keyword.startOffset, end: tokenEnd(keyword) }, keyword.image.toLowerCase())];
  }
  if (stop.reason === "expected-operator") {
    const alone = fieldAlone(source, tokens, token);
    if (alone !== undefined) return [alone.fix];
  }
  const lower = token.image.toLowerCase();
  if (stop.reason === "after-is" && NULL_SPELLINGS.has(lower)) return [replaceFix(`replace "${token.image}" with "nil"`, span, "nil")];
  return undefined;
}

/**
 * A keyword written in capitals (`AND`, `NOT`), read as a name: the token where parsing stopped,
 * or, when the parser wanted an operator after a name, that name (`NOT Stop == true` stops at
 * `Stop`, after the "field" `NOT`).
 */
function capitalKeyword(tokens: TokenTable, token: IToken, stop: Stop): IToken | undefined {
  const isCapitalKeyword = (candidate: IToken | undefined) =>
    candidate !== undefined && candidate.tokenType === Identifier && candidate.image !== candidate.image.toLowerCase() && KEYWORD_WORDS.has(candidate.image.toLowerCase());
  if (isCapitalKeyword(token)) return token;
  const previous = stop.reason === "expected-operator" ? tokens.previous(token) : undefined;
  return isCapitalKeyword(previous) ? previous : undefined;
}

/** Words for null in other languages, after `is`. */
const NULL_SPELLINGS: ReadonlySet<string> = new Set(["null", "none", "undefined", "nul"]);

const SELECTOR_PUNCTUATION: readonly TokenType[] = [Dot, Digits, LBracket, RBracket];

/**
 * A field written alone where a comparison belongs (`Stop`, `not Stop`, `!Stop`): what to write,
 * `Stop == true` or, negated, `Stop == false` (a field is never a condition by itself).
 */
function fieldAlone(source: string, tokens: TokenTable, token: IToken): { readonly text: string; readonly fix: Fix } | undefined {
  const all = tokens.tokens;
  // Tokens `i - 1` and `i` touch and are both parts of one selector (`Meta["x"].y`).
  const part = (t: IToken) => t.tokenType !== Bang && (tokenMatcher(t, Name) || SELECTOR_PUNCTUATION.includes(t.tokenType) || tokenMatcher(t, QuotedString));
  const touching = (i: number) => i > 0 && i < all.length && tokenEnd(all[i - 1]!) === all[i]!.startOffset && part(all[i - 1]!) && part(all[i]!);
  const at = Number.isNaN(token.startOffset) || token.tokenType === EOF ? all.length : tokens.countBefore(token.startOffset);
  // `not Stop`: `not` was read as a field name, and the field is the one reported.
  const previous = all[at - 1];
  if (previous !== undefined && tokenMatcher(previous, Not) && at < all.length && tokenMatcher(token, Name)) {
    let end = at;
    while (end + 1 < all.length && touching(end + 1)) end++;
    // Alone only when nothing but the end, `)`, `}`, `and` or `or` follows (`not Priority == 5…` is a comparison).
    const after = all[end + 1];
    if (after !== undefined && ![RParen, RBrace, And, Or].some((type) => tokenMatcher(after, type))) return undefined;
    const field = source.slice(token.startOffset, tokenEnd(all[end]!));
    const fix = replaceFix(`write ${field} == false`, { start: previous.startOffset, end: tokenEnd(all[end]!) }, `${field} == false`);
    return { text: `a field alone is not a condition: write ${field} == false`, fix };
  }
  // `Stop` or `!Stop` before the end, `)`, `and` or `or` (not `any`/`all`, which start a collection).
  if (previous === undefined || !tokenMatcher(previous, Name) || previous.tokenType === Any || previous.tokenType === All) return undefined;
  let start = at - 1;
  while (touching(start)) start--;
  const field = source.slice(all[start]!.startOffset, tokenEnd(previous));
  const before = all[start - 1];
  if (before !== undefined && tokenMatcher(before, Not)) {
    const fix = replaceFix(`write ${field} == false`, { start: before.startOffset, end: tokenEnd(previous) }, `${field} == false`);
    return { text: `a field alone is not a condition: write ${field} == false`, fix };
  }
  const fix = replaceFix(`write ${field} == true`, { start: all[start]!.startOffset, end: tokenEnd(previous) }, `${field} == true`);
  return { text: `a field alone is not a condition: compare it, as in ${field} == true`, fix };
}

/**
 * A list of values where one value belongs (`Status in ["running", "pending"]`): the language has
 * no lists, so the advice spells out one clause per value, joined by `or` (`and` when negated).
 */
function valueList(source: string, tokens: TokenTable, bracket: IToken): string | undefined {
  const all = tokens.tokens;
  const at = tokens.countBefore(bracket.startOffset);
  const operator = all[at - 1];
  if (operator === undefined) return undefined;
  const negated = operator.tokenType === NotEqual || (operator.tokenType === In && all[at - 2] !== undefined && tokenMatcher(all[at - 2]!, Not));
  if (operator.tokenType !== In && operator.tokenType !== Equal && operator.tokenType !== NotEqual) return undefined;
  // The field: the tokens before the operator (and its `not`), back to the start of the clause.
  const fieldEnd = negated && operator.tokenType === In ? at - 2 : at - 1;
  const field = all[fieldEnd - 1];
  if (field === undefined) return undefined;
  let fieldStart = fieldEnd - 1;
  while (fieldStart > 0 && tokenEnd(all[fieldStart - 1]!) === all[fieldStart]!.startOffset) fieldStart--;
  const selector = source.slice(all[fieldStart]!.startOffset, tokenEnd(field));
  // The values: literals separated by commas, up to the closing bracket.
  const values: string[] = [];
  let i = at + 1;
  for (; i < all.length && values.length < 4; i += 2) {
    const value = all[i]!;
    if (!tokenMatcher(value, QuotedString) && value.tokenType !== NumberLiteral && !tokenMatcher(value, Name)) return undefined;
    values.push(value.image);
    const separator = all[i + 1];
    if (separator?.tokenType === RBracket) break;
    if (separator?.tokenType !== Comma) return undefined;
  }
  if (values.length === 0 || all[i + 1]?.tokenType !== RBracket) return "the filter language has no lists: write one clause per value, joined by \"or\"";
  const clauses = values.map((value) => `${selector} ${negated ? "!=" : "=="} ${value}`).join(negated ? " and " : " or ");
  return `the filter language has no lists: write ${values.length > 1 && !negated ? `(${clauses})` : clauses}`;
}

function suggestFor(source: string, tokens: TokenTable, token: IToken, stop: Stop): string | undefined {
  const { error, reason } = stop;
  const keyword = capitalKeyword(tokens, token, stop);
  if (keyword !== undefined) return `keywords are lower-case: write "${keyword.image.toLowerCase()}", not "${keyword.image}"`;
  if (reason === "expected-operator") {
    const alone = fieldAlone(source, tokens, token);
    if (alone !== undefined) return alone.text;
  }
  const lower = token.image.toLowerCase();
  if (reason === "after-is" && NULL_SPELLINGS.has(lower)) {
    return `nil is the filter language's null: write "${tokens.previous(token)?.tokenType === Not ? "is not nil" : "is nil"}"`;
  }
  if (token.tokenType === NumberLiteral && token.image.startsWith("-")) {
    const previous = tokens.previous(token);
    if (previous !== undefined && tokenEnd(previous) === token.startOffset) {
      return `an unquoted value cannot contain "-": quote it, as in "${source.slice(previous.startOffset, tokenEnd(token))}"`;
    }
  }
  if (error.name === "NotAllInputParsedException" && (token.tokenType === Identifier || token.tokenType.CATEGORIES?.includes(QuotedString))) {
    return 'join clauses with "and" or "or", and quote values that contain spaces';
  }
  if (token.tokenType === LBracket) {
    const list = valueList(source, tokens, token);
    if (list !== undefined) return list;
  }
  if (token.tokenType === RBracket) return "an index is written Meta[\"key\"]";
  const previous = tokens.previous(token);
  if (previous !== undefined && (previous.tokenType === Any || previous.tokenType === All)) {
    return `a collection can be combined with "and" or negated only inside parentheses: (${previous.image} … { … })`;
  }
  return undefined;
}

