/**
 * The entry point of the front end: source → tokens → CST → AST, with the structural limits
 * enforced before any recursive phase runs.
 *
 * @module
 */
import { EOF, type IRecognitionException, type IToken, type TokenType } from "chevrotain";
import type { Expression, Span } from "../ast.js";
import { createDiagnostic, FilterSyntaxError, type Diagnostic } from "../errors.js";
import { openBrackets, tokenize, tokenEnd } from "../lexer/lexer.js";
import { All, Any, Identifier, keywordTokens, LBrace, LBracket, LParen, NumberLiteral, RBrace, RParen, QuotedString, RBracket } from "../lexer/tokens.js";
import { DEFAULT_LIMITS, type Limits } from "../limits.js";
import { AstBuilder, recoveringParser, strictParser } from "./build-ast.js";

/** Options of {@link parse}. */
export interface ParseOptions {
  /** Overrides of the structural limits; see {@link DEFAULT_LIMITS}. */
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
  const analysis = analyze(source, { ...options, recover: false });
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
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
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

  const { tokens, diagnostics: lexical } = tokenize(source);
  if (tokens.length === 0 && lexical.length === 0) {
    return fail(
      createDiagnostic(source, "empty_expression", "the filter is empty", { start: 0, end: source.length }, 'write an expression such as Status == "running"'),
    );
  }

  const tooDeep = findExcessiveNesting(source, tokens, limits.maxNestingDepth);
  if (tooDeep !== undefined) return fail(tooDeep, tokens);

  const parser = options.recover ? recoveringParser : strictParser;
  const { cst, lookahead } = parser.parseTokens(source, tokens);
  const syntactic = parser.errors.map((error) => fromRecognitionException(source, tokens, error));

  const builder = new AstBuilder(source, options.recover);
  const built = syntactic.length === 0 || options.recover ? builder.build(cst) : undefined;
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
    diagnostics,
    lookaheadSteps: lookahead.steps,
    tokens,
  };
}

/** The first `(` or `{` that opens more levels than allowed, found without recursion. */
function findExcessiveNesting(source: string, tokens: readonly IToken[], maxDepth: number): Diagnostic | undefined {
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
 * already reported, so they are left out.
 */
function dropConsequences(syntactic: Diagnostic[], lexical: Diagnostic[]): Diagnostic[] {
  const firstBadCharacter = lexical.find((d) => d.code === "unexpected_character" || d.code === "unterminated_string");
  return syntactic.filter(
    (d) =>
      (firstBadCharacter === undefined || d.span.end <= firstBadCharacter.span.start) &&
      !lexical.some((l) => d.span.start >= l.span.start && d.span.start < l.span.end),
  );
}

function unknownProblem(source: string): Diagnostic {
  return createDiagnostic(source, "unexpected_token", "the filter could not be parsed", { start: 0, end: source.length });
}

const KEYWORD_WORDS = new Set(keywordTokens.map((type) => (type.PATTERN as RegExp).source));

/** Turns a Chevrotain recognition exception into a diagnostic with a code and, where known, a fix. */
function fromRecognitionException(source: string, tokens: readonly IToken[], error: IRecognitionException): Diagnostic {
  const token = error.token;
  const atEnd = token.tokenType === EOF || Number.isNaN(token.startOffset);
  const span: Span = atEnd ? { start: source.length, end: source.length } : { start: token.startOffset, end: tokenEnd(token) };
  const message = error.message;

  if (message.startsWith('expected ")"')) {
    const open = innermostOpen(tokens, atEnd ? source.length : token.startOffset, LParen, RParen);
    const where = open === undefined ? span : { start: open.startOffset, end: tokenEnd(open) };
    return createDiagnostic(source, "unmatched_parenthesis", atEnd ? "this ( is never closed" : message, where, 'add the missing ")"');
  }
  if (error.name === "NotAllInputParsedException" && token.tokenType === RParen) {
    return createDiagnostic(source, "unmatched_parenthesis", "this ) has no matching (", span, 'remove it, or add the missing "("');
  }
  if (message.startsWith("an index must be")) return createDiagnostic(source, "invalid_index", message, span, 'write Meta["key"] or Meta.key, and Items.0 for a list index');

  if (message.startsWith('expected "]"')) {
    const open = atEnd ? innermostOpen(tokens, source.length, LBracket, RBracket) : undefined;
    if (open !== undefined) return createDiagnostic(source, "unclosed_index", "this [ is never closed", { start: open.startOffset, end: tokenEnd(open) }, 'add the missing "]"');
    return createDiagnostic(source, "unclosed_index", message, span, 'add the missing "]"');
  }

  const code = atEnd ? "unexpected_end" : "unexpected_token";
  return createDiagnostic(source, code, message, span, suggestFor(source, tokens, token, error));
}

function suggestFor(source: string, tokens: readonly IToken[], token: IToken, error: IRecognitionException): string | undefined {
  const lower = token.image.toLowerCase();
  if (token.tokenType === Identifier && lower !== token.image && KEYWORD_WORDS.has(lower)) {
    return `keywords are lower-case: write "${lower}", not "${token.image}"`;
  }
  if (token.tokenType === NumberLiteral && token.image.startsWith("-")) {
    const previous = tokens[tokens.indexOf(token) - 1];
    if (previous !== undefined && tokenEnd(previous) === token.startOffset) {
      return `an unquoted value cannot contain "-": quote it, as in "${source.slice(previous.startOffset, tokenEnd(token))}"`;
    }
  }
  if (error.name === "NotAllInputParsedException" && (token.tokenType === Identifier || token.tokenType.CATEGORIES?.includes(QuotedString))) {
    return 'join clauses with "and" or "or", and quote values that contain spaces';
  }
  if (token.tokenType === RBracket) return "an index is written Meta[\"key\"]";
  const previous = tokens[tokens.indexOf(token) - 1];
  if (previous !== undefined && (previous.tokenType === Any || previous.tokenType === All)) {
    return `a collection can be combined with "and" or negated only inside parentheses: (${previous.image} … { … })`;
  }
  return undefined;
}

/** The innermost `opener` still open before offset `before`. */
function innermostOpen(tokens: readonly IToken[], before: number, opener: TokenType, closer: TokenType): IToken | undefined {
  return openBrackets(tokens, before, [[opener, closer]]).at(-1);
}
