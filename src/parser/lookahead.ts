/**
 * Lookahead that makes the LL parser accept exactly the reference's language.
 *
 * The reference grammar is a backtracking PEG without reserved words, so two decisions depend
 * on whether a whole match expression can be read from a position:
 *
 * 1. `not` is the unary operator only when whitespace follows it and the rest parses as a
 *    not-expression; otherwise it is a plain name (`not == 1`, `not is empty`, `not in X`).
 * 2. `any`/`all` start a collection only where a match expression cannot be read (`any == 1` is
 *    a match on a field called `any`).
 *
 * Match expressions contain no sub-expressions, so {@link Lookahead.matchAt} scans a bounded
 * number of tokens; chains of `not` are resolved from their end and memoised, so the whole
 * decision work stays linear in the number of tokens.
 *
 * @module
 */
import { tokenMatcher, type IToken, type TokenType } from "chevrotain";
import { isNumberBoundaryAt, isWhitespaceAt, tokenEnd } from "../lexer/lexer.js";
import {
  Contains,
  Digits,
  Dot,
  DoubleString,
  Empty,
  Equal,
  In,
  Is,
  LBracket,
  LParen,
  Matches,
  Name,
  Nil,
  Not,
  NotEqual,
  NumberLiteral,
  RawString,
  RBracket,
} from "../lexer/tokens.js";
import { isPointerLiteral } from "../go/strings.js";

const NOT_FOUND = -1;

/** Answers grammar questions about positions in one token vector. */
export class Lookahead {
  private readonly unaryMemo: (boolean | undefined)[] = [];
  /** Tokens visited by the scans, so tests can check that the work stays linear. */
  steps = 0;

  constructor(
    private readonly source: string,
    private readonly tokens: readonly IToken[],
  ) {}

  /** Whitespace directly before token `i`. */
  gapBefore(i: number): boolean {
    const token = this.tokens[i];
    return token !== undefined && isWhitespaceAt(this.source, token.startOffset - 1);
  }

  /** Whitespace directly after token `i`. */
  gapAfter(i: number): boolean {
    const token = this.tokens[i];
    return token !== undefined && isWhitespaceAt(this.source, tokenEnd(token));
  }

  /** Token `i` starts right where token `i - 1` ends. */
  adjacent(i: number): boolean {
    const token = this.tokens[i];
    const previous = this.tokens[i - 1];
    return token !== undefined && previous !== undefined && token.startOffset === tokenEnd(previous);
  }

  /** Decision 1: is the `not` at `i` the unary operator? */
  isUnaryNot(i: number): boolean {
    const memo = this.unaryMemo[i];
    if (memo !== undefined) return memo;
    // Resolve the whole chain `not not … not <rest>` from its end, without recursion.
    let end = i;
    while (this.exactly(end, Not)) end++;
    for (let j = end - 1; j >= i; j--) {
      this.unaryMemo[j] = this.gapAfter(j) && this.notExpressionAt(j + 1);
    }
    return this.unaryMemo[i] === true;
  }

  /** Decision 2: does the `any`/`all` at `i` start a collection rather than a match? */
  isCollectionStart(i: number): boolean {
    return !this.matchAt(i);
  }

  /**
   * Can a not-expression be read at `i`? A `(` is taken as yes: when its group fails to parse,
   * every reading of the input fails, so the choice only decides which error is reported.
   */
  private notExpressionAt(i: number): boolean {
    if (this.exactly(i, Not) && this.unaryMemo[i] === true) return true;
    return this.is(i, LParen) || this.matchAt(i);
  }

  /** Can a match expression be read at `i`? (`Selector Op Value`, `Selector is …`, `Value in Selector`.) */
  matchAt(i: number): boolean {
    const selectorEnd = this.selectorEnd(i);
    if (selectorEnd !== NOT_FOUND) {
      const valueStart = this.comparisonEnd(selectorEnd);
      if (valueStart !== NOT_FOUND && this.valueEnd(valueStart) !== NOT_FOUND) return true;
      if (this.emptinessEnd(selectorEnd) !== NOT_FOUND) return true;
    }
    const valueEnd = this.valueEnd(i);
    if (valueEnd === NOT_FOUND) return false;
    const containerStart = this.membershipEnd(valueEnd);
    return containerStart !== NOT_FOUND && this.selectorEnd(containerStart) !== NOT_FOUND;
  }

  /** End of a selector starting at `i`: a name with adjacent segments, or a JSON-pointer string. */
  private selectorEnd(i: number): number {
    this.steps++;
    const token = this.tokens[i];
    if (token === undefined) return NOT_FOUND;
    if (token.tokenType === DoubleString) return isPointerLiteral(token.image) ? i + 1 : NOT_FOUND;
    if (!this.is(i, Name)) return NOT_FOUND;
    let j = i + 1;
    for (;;) {
      this.steps++;
      if (this.is(j, Dot) && this.adjacent(j) && (this.is(j + 1, Name) || this.is(j + 1, Digits)) && this.adjacent(j + 1)) {
        j += 2;
      } else if (
        this.is(j, LBracket) &&
        this.adjacent(j) &&
        (this.exactly(j + 1, DoubleString) || this.exactly(j + 1, RawString)) &&
        this.is(j + 2, RBracket)
      ) {
        j += 3;
      } else {
        return j;
      }
    }
  }

  /** End of a value: a selector, a number followed by whitespace, `)` or the end, or a closed string. */
  private valueEnd(i: number): number {
    const selectorEnd = this.selectorEnd(i);
    if (selectorEnd !== NOT_FOUND) return selectorEnd;
    const token = this.tokens[i];
    if (token === undefined) return NOT_FOUND;
    if (token.tokenType === NumberLiteral) return isNumberBoundaryAt(this.source, tokenEnd(token)) ? i + 1 : NOT_FOUND;
    return token.tokenType === DoubleString || token.tokenType === RawString ? i + 1 : NOT_FOUND;
  }

  /** `==`, `!=`, `contains`, `not contains`, `matches`, `not matches` at `i`; returns where the value starts. */
  private comparisonEnd(i: number): number {
    if (this.exactly(i, Equal) || this.exactly(i, NotEqual)) return i + 1;
    if ((this.exactly(i, Contains) || this.exactly(i, Matches)) && this.gapBefore(i) && this.gapAfter(i)) return i + 1;
    if (
      this.exactly(i, Not) &&
      this.gapBefore(i) &&
      this.gapAfter(i) &&
      (this.exactly(i + 1, Contains) || this.exactly(i + 1, Matches)) &&
      this.gapAfter(i + 1)
    ) {
      return i + 2;
    }
    return NOT_FOUND;
  }

  /** `is empty`, `is not empty`, `is nil`, `is not nil` at `i`. */
  private emptinessEnd(i: number): number {
    if (!this.exactly(i, Is) || !this.gapBefore(i) || !this.gapAfter(i)) return NOT_FOUND;
    if (this.exactly(i + 1, Empty) || this.exactly(i + 1, Nil)) return i + 2;
    if (this.exactly(i + 1, Not) && this.gapAfter(i + 1) && (this.exactly(i + 2, Empty) || this.exactly(i + 2, Nil))) {
      return i + 3;
    }
    return NOT_FOUND;
  }

  /** `in` or `not in` at `i`; returns where the selector starts. */
  private membershipEnd(i: number): number {
    if (this.exactly(i, In) && this.gapBefore(i) && this.gapAfter(i)) return i + 1;
    if (this.exactly(i, Not) && this.gapBefore(i) && this.gapAfter(i) && this.exactly(i + 1, In) && this.gapAfter(i + 1)) {
      return i + 2;
    }
    return NOT_FOUND;
  }

  /** Token `i` is of `type` or of a type in that category. */
  private is(i: number, type: TokenType): boolean {
    const token = this.tokens[i];
    return token !== undefined && tokenMatcher(token, type);
  }

  /** Token `i` is exactly of `type` (stand-ins for unsupported operators do not count). */
  private exactly(i: number, type: TokenType): boolean {
    return this.tokens[i]?.tokenType === type;
  }
}
