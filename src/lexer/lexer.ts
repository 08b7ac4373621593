/**
 * Turns filter source into tokens, reporting every lexical problem as a {@link Diagnostic}
 * (with the fix where one is known) instead of stopping at the first.
 *
 * @module
 */
import { Lexer, tokenMatcher, type IToken, type TokenType } from "chevrotain";
import { createDiagnostic, replaceFix, type Diagnostic, type Fix } from "../errors.js";
import { parseGoInt } from "../go/strconv.js";
import { unquoteDouble } from "../go/strings.js";
import {
  allTokens,
  And,
  AndAnd,
  Bang,
  DoubleString,
  LParen,
  Name,
  Not,
  NumberLiteral,
  Or,
  Ordering,
  OrOr,
  RParen,
  SingleEqual,
  UnterminatedString,
} from "./tokens.js";

/**
 * The lexer's settings. Chevrotain's checks of the token definitions are skipped: they cost
 * milliseconds at every start, and test/parser/grammar-checks.test.ts runs them instead.
 */
export const LEXER_CONFIG = { positionTracking: "onlyOffset", ensureOptimizations: true, skipValidations: true } as const;

let lexer: Lexer | undefined;

/** The tokens of a source and the lexical problems found in it. */
export interface LexResult {
  /** Tokens without whitespace; stand-in tokens for reported mistakes are kept so parsing can go on. */
  readonly tokens: IToken[];
  readonly diagnostics: Diagnostic[];
}

/** Tokenizes `source`. Never throws on bad input. */
export function tokenize(source: string): LexResult {
  // Built on first use, so that importing the library costs no analysis of the tokens.
  const result = (lexer ??= new Lexer([...allTokens], LEXER_CONFIG)).tokenize(source);
  const diagnostics: Diagnostic[] = result.errors.map((error) =>
    describeUnexpectedCharacters(source, error.offset, error.length),
  );
  result.tokens.forEach((token, i) => {
    const problem = token.tokenType === Bang ? describeBang(source, result.tokens, i) : describeTokenProblem(source, result.tokens, token);
    if (problem !== undefined) diagnostics.push(problem);
    // `not(` is never valid: as an operator `not` needs a space, and a name is never followed by `(`.
    const next = result.tokens[i + 1];
    if (token.tokenType === Not && next?.tokenType === LParen && next.startOffset === tokenEnd(token)) {
      diagnostics.push(
        createDiagnostic(source, "missing_whitespace", '"not" must be followed by whitespace', { start: token.startOffset, end: tokenEnd(next) }, 'write "not (" with a space'),
      );
    }
  });
  diagnostics.sort((a, b) => a.span.start - b.span.start);
  return { tokens: result.tokens, diagnostics };
}

/**
 * The brackets still open before offset `before`, outermost first, for the given opener/closer
 * pairs. A closer closes the innermost opener of its kind, and any opened after it.
 */
export function openBrackets(tokens: readonly IToken[], before: number, pairs: readonly (readonly [opener: TokenType, closer: TokenType])[]): IToken[] {
  return openBracketIndexes(tokens, before, pairs).map((index) => tokens[index]!);
}

/** {@link openBrackets}, as the indexes of the open brackets in `tokens`. */
export function openBracketIndexes(tokens: readonly IToken[], before: number, pairs: readonly (readonly [opener: TokenType, closer: TokenType])[]): number[] {
  const open: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.startOffset >= before) break;
    const pair = pairs.find(([opener, closer]) => token.tokenType === opener || token.tokenType === closer);
    if (pair === undefined) continue;
    if (token.tokenType === pair[0]) open.push(i);
    else {
      const at = open.findLastIndex((index) => tokens[index]!.tokenType === pair[0]);
      if (at >= 0) open.length = at;
    }
  }
  return open;
}

/** Offset just past a token. */
export function tokenEnd(token: IToken): number {
  return token.startOffset + token.image.length;
}

/** True when the character at `offset` separates tokens (space, tab, CR or LF). */
export function isWhitespaceAt(source: string, offset: number): boolean {
  const ch = source.charCodeAt(offset);
  return ch === 0x20 || ch === 0x09 || ch === 0x0d || ch === 0x0a;
}

function describeTokenProblem(source: string, tokens: readonly IToken[], token: IToken): Diagnostic | undefined {
  const span = { start: token.startOffset, end: tokenEnd(token) };
  switch (token.tokenType) {
    case UnterminatedString: {
      const quote = token.image.charAt(0);
      // `("running)`: the ")" that closes a group opened before the string goes after the quote.
      const closers = Math.min(/\)*$/.exec(token.image)![0].length, openBrackets(tokens, token.startOffset, [[LParen, RParen]]).length);
      const at = span.end - closers;
      return createDiagnostic(source, "unterminated_string", `this string is never closed: add the closing ${quote}`, span, `end the string with ${quote}`, "error", [
        replaceFix(`close the string with ${quote}`, { start: at, end: at }, quote),
      ]);
    }
    case NumberLiteral:
      return checkNumberBoundary(source, token);
    case DoubleString: {
      const decoded = unquoteDouble(token.image.slice(1, -1));
      if (decoded.ok) return undefined;
      const start = token.startOffset + 1 + decoded.offset;
      return createDiagnostic(source, "invalid_string", decoded.message, { start, end: start + decoded.length });
    }
    case AndAnd:
      return unsupported(source, span, '"&&" is not an operator of the filter language', 'write "and"', [replaceFix('replace "&&" with "and"', span, spaced(source, span, "and"))]);
    case OrOr:
      return unsupported(source, span, '"||" is not an operator of the filter language', 'write "or"', [replaceFix('replace "||" with "or"', span, spaced(source, span, "or"))]);
    case SingleEqual: {
      // `!==` and `===` (JavaScript's): the "=" after "!=" or "==" goes.
      const extra = span.start > 0 && source.charAt(span.start - 1) === "=";
      const fix = extra ? replaceFix(`write "${source.slice(span.start - 2, span.start)}"`, span, "") : replaceFix('replace "=" with "=="', span, "==");
      return unsupported(source, span, '"=" is not an operator of the filter language', extra ? `write "${source.slice(span.start - 2, span.start)}"` : 'compare with "=="', [fix]);
    }
    case Ordering:
      return unsupported(
        source,
        span,
        `"${token.image}" is not an operator: the filter language has no ordering comparisons`,
        'use "==", "!=", "in" or "matches", or compare on the client',
      );
    default:
      return undefined;
  }
}

/**
 * `!`: not an operator. Before a field alone (`!Stop`), the fix is a comparison, since `not Stop`
 * is no more valid; otherwise `not ` with a space.
 */
function describeBang(source: string, tokens: readonly IToken[], i: number): Diagnostic {
  const token = tokens[i]!;
  const span = { start: token.startOffset, end: tokenEnd(token) };
  const message = '"!" is not an operator of the filter language';
  let end = i + 1;
  // The field's own tokens touch each other (`Meta["x"].y`); a ")" that touches it is not one of them.
  const touching = (k: number) => tokens[k] !== undefined && tokens[k]!.tokenType !== RParen && tokenEnd(tokens[k - 1]!) === tokens[k]!.startOffset;
  if (tokens[end] !== undefined && tokenMatcher(tokens[end]!, Name)) {
    while (touching(end + 1)) end++;
    const after = tokens[end + 1];
    if (after === undefined || after.tokenType === RParen || tokenMatcher(after, And) || tokenMatcher(after, Or)) {
      const field = source.slice(tokens[i + 1]!.startOffset, tokenEnd(tokens[end]!));
      const fieldEnd = tokenEnd(tokens[end]!);
      return unsupported(source, span, message, `write ${field} == false`, [
        { title: `write ${field} == false`, edits: [{ span, text: "" }, { span: { start: fieldEnd, end: fieldEnd }, text: " == false" }] },
      ]);
    }
  }
  return unsupported(source, span, message, 'write "not " (with a space)', [replaceFix('replace "!" with "not"', span, spaced(source, span, "not"))]);
}

function unsupported(source: string, span: { start: number; end: number }, message: string, suggestion: string, fixes?: readonly Fix[]) {
  return createDiagnostic(source, "unsupported_operator", message, span, suggestion, "error", fixes);
}

/** `word` with a space on each side where the source has none next to `span`. */
function spaced(source: string, span: { start: number; end: number }, word: string): string {
  const before = span.start > 0 && !isWhitespaceAt(source, span.start - 1) ? " " : "";
  const after = span.end < source.length && !isWhitespaceAt(source, span.end) ? " " : "";
  return `${before}${word}${after}`;
}

/** The reference accepts a number only when whitespace, `)` or the end of the source follows it. */
export function isNumberBoundaryAt(source: string, offset: number): boolean {
  return offset >= source.length || isWhitespaceAt(source, offset) || source.charCodeAt(offset) === 0x29;
}

function checkNumberBoundary(source: string, token: IToken): Diagnostic | undefined {
  const after = tokenEnd(token);
  if (isNumberBoundaryAt(source, after)) return undefined;
  // `Items[0]`: the parser reports the index itself, with the right advice.
  let before = token.startOffset - 1;
  while (before >= 0 && isWhitespaceAt(source, before)) before--;
  if (source.charAt(before) === "[") return undefined;
  let end = after;
  while (!isNumberBoundaryAt(source, end) && source.charAt(end) !== "(") end++;
  const text = source.slice(token.startOffset, end);
  const goInteger = describeGoInteger(text);
  if (goInteger !== undefined) return createDiagnostic(source, "invalid_number", goInteger.message, { start: token.startOffset, end }, goInteger.suggestion);
  const next = source.charAt(after);
  const suggestion =
    next === "}" || next === "]" || next === ","
      ? `put a space between ${token.image} and "${next}"`
      : /^[0-9a-zA-Z_.]/.test(next)
        ? `quote the value: "${text}"`
        : `put a space after ${token.image}`;
  return createDiagnostic(
    source,
    "invalid_number",
    `invalid number literal "${text}": a number must be followed by whitespace, ")" or the end of the filter`,
    { start: token.startOffset, end },
    suggestion,
  );
}

/**
 * `0x32`, `0o62`, `0b110010`, `062`, `5_0`: Go integer syntax, which the language does not read
 * unquoted (a number is decimal, without prefix, leading zero or `_`). Quoted, an integer field
 * reads it as Go's `ParseInt(s, 0, 64)` does, so the advice gives both ways.
 */
function describeGoInteger(text: string): { message: string; suggestion: string } | undefined {
  if (!/^-?(0[xXoObB_]|0[0-9]|[1-9][0-9]*_)/.test(text)) return undefined;
  const parsed = parseGoInt(text);
  if (!parsed.ok) return undefined;
  const decimal = parsed.value.toString();
  const leadingZero = /^-?0[0-9_]/.test(text);
  const message = `"${text}" is not a number the filter language reads: numbers are written in decimal, without a base prefix, a leading zero or "_"`;
  if (leadingZero) {
    const plain = text.replace(/_/g, "").replace(/^(-?)0+(?=[0-9])/, "$1");
    return { message, suggestion: `write ${plain}; quoted ("${text}"), an integer field reads it as Go does, as octal: ${decimal}` };
  }
  return { message, suggestion: `write ${decimal}, or quote it ("${text}"): an integer field reads it as Go does` };
}

const WORD_CHARS = /[A-Za-z0-9_/.\-]/;

function describeUnexpectedCharacters(source: string, offset: number, length: number): Diagnostic {
  const text = source.slice(offset, offset + length);
  const first = String.fromCodePoint(source.codePointAt(offset) ?? 0);
  const span = { start: offset, end: offset + Math.max(1, length) };
  if (first === "-") {
    let start = offset;
    while (start > 0 && WORD_CHARS.test(source.charAt(start - 1))) start--;
    let end = offset + 1;
    while (end < source.length && WORD_CHARS.test(source.charAt(end))) end++;
    const word = source.slice(start, end);
    if (start < offset && end > offset + 1) {
      // A selector (`Meta.k8s-ns ==`) selects the key with an index; a value is quoted.
      const selector = /^\s*(==|!=|is\b|contains\b|matches\b|not\b)/.test(source.slice(end)) ? /^(.*)\.([^.]*-[^.]*)$/.exec(word) : null;
      const wordSpan = { start, end };
      const fix =
        selector !== null
          ? replaceFix(`select the key with an index: ${selector[1]}[${JSON.stringify(selector[2])}]`, wordSpan, `${selector[1]}[${JSON.stringify(selector[2])}]`)
          : replaceFix(`quote the value: ${JSON.stringify(word)}`, wordSpan, JSON.stringify(word));
      return createDiagnostic(
        source,
        "unexpected_character",
        `an unquoted value cannot contain "-": "${word}" is read as "${source.slice(start, offset)}" followed by "-"`,
        span,
        selector !== null ? `select the key with an index: ${selector[1]}[${JSON.stringify(selector[2])}]` : `quote the value: "${word}"`,
        "error",
        [fix],
      );
    }
    return createDiagnostic(source, "unexpected_character", 'unexpected "-"', span, "a negative number is written -5, with no space");
  }
  if (first === "+" && /[0-9]/.test(source.charAt(offset + 1))) {
    let end = offset + 1;
    while (/[0-9.]/.test(source.charAt(end))) end++;
    return createDiagnostic(source, "unexpected_character", 'a number has no "+" sign', span, `write ${source.slice(offset + 1, end)}`);
  }
  if (first === "'") {
    return createDiagnostic(
      source,
      "unexpected_character",
      "single quotes do not delimit strings",
      span,
      "use double quotes or backticks",
    );
  }
  if (/^\s$/u.test(first)) {
    const code = first.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    return createDiagnostic(
      source,
      "unexpected_character",
      `U+${code} is not whitespace in a filter: only space, tab, CR and LF separate tokens`,
      span,
      "replace it with a plain space",
    );
  }
  if (/^\p{L}$/u.test(first)) {
    return createDiagnostic(
      source,
      "unexpected_character",
      `names are ASCII only: "${first}" cannot appear in an unquoted name`,
      span,
      'select the key with an index: Meta["ünïcode"], or quote the value',
    );
  }
  return createDiagnostic(source, "unexpected_character", `unexpected character ${JSON.stringify(text)}`, span);
}
