/**
 * The semantic actions of the parser: they build the AST as the rules are recognised,
 * normalising as they go (flat `and`/`or`, folded `not not`, `contains` as `In`, decoded strings
 * and pointers) and reporting what the grammar rules leave to them: required whitespace, string
 * escapes, quoted strings used as selectors, and the warnings of valid filters that compare with
 * another text than the one written (`== null`, a value in JSON-pointer form).
 *
 * They tolerate the partial results error recovery produces (a missing token, a sub-rule that
 * gave up): an incomplete node is `undefined`, and in partial mode the operands of `and`/`or` that
 * are incomplete are left out, so that the rest of the tree can still be checked.
 *
 * @module
 */
import type { IToken } from "chevrotain";
import type {
  BinaryMatchOperator,
  CollectionBinding,
  CollectionExpression,
  Expression,
  MatchExpression,
  Selector,
  Span,
  UnaryMatchOperator,
  Value,
} from "../ast.js";
import { createDiagnostic, replaceFix, type Diagnostic } from "../errors.js";
import { readSpelling, SPELLINGS } from "../operators.js";
import { isWhitespaceAt, tokenEnd } from "../lexer/lexer.js";
import { Contains, DoubleString, Matches, NumberLiteral, RawString, UnterminatedString } from "../lexer/tokens.js";
import { decodePointerLiteral, goQuote, isPointerLiteral, quoteDouble, unquoteDouble, unquoteRaw } from "../go/strings.js";

/** An operand before its place decides whether it is a selector or a value. */
export type Operand =
  | { readonly form: "path"; readonly path: string[]; readonly span: Span }
  | { readonly form: "token"; readonly token: IToken; readonly span: Span };

/** A path segment: its decoded name and where it ends. */
export interface Segment {
  readonly name: string;
  readonly end: number;
}

/** What a comparison operator means, and how it was written. */
export interface Comparison {
  readonly operator: BinaryMatchOperator;
  readonly spelling: "in" | "contains";
  readonly word: string;
}

/** What `is [not] empty|nil` means, and where it ends. */
export interface Emptiness {
  readonly operator: UnaryMatchOperator;
  readonly end: number;
}

/** Thrown inside an action when recovery left out a part the node needs; the action then gives undefined. */
class IncompleteTree extends Error {}

/** The actions of one parse; create one per source. */
export class AstBuilder {
  readonly diagnostics: Diagnostic[] = [];
  clauses = 0;

  /**
   * @param partial - for editors: leave out the operands of `and`/`or` that recovery left
   * incomplete, and accept a group without its `)`, so the rest of the tree can still be checked.
   */
  constructor(
    private readonly source: string,
    private readonly partial = false,
  ) {}

  /** Runs one action; an incomplete node is undefined. */
  build<T>(action: () => T): T | undefined {
    try {
      return action();
    } catch (error) {
      if (error instanceof IncompleteTree) return undefined;
      throw error;
    }
  }

  /** `a or b or …`, or the collection standing alone. */
  orExpression(operators: readonly IToken[], operands: readonly (Expression | undefined)[]): Expression {
    for (const operator of operators) this.requireSpaceAround(operator, "or");
    return this.chain("Or", this.complete(operands));
  }

  /** `a and b and …`. */
  andExpression(operators: readonly IToken[], operands: readonly (Expression | undefined)[]): Expression {
    for (const operator of operators) this.requireSpaceAround(operator, "and");
    return this.chain("And", this.complete(operands));
  }

  /** `not … not e`: each `not` applied to a `not` cancels it (`not not e` is `e`), as in the reference. */
  notExpression(nots: readonly IToken[], operand: Expression | undefined): Expression {
    let expression = present(operand);
    for (let i = nots.length - 1; i >= 0; i--) {
      const not = nots[i]!;
      expression = expression.kind === "Not" ? expression.operand : { kind: "Not", operand: expression, span: { start: not.startOffset, end: expression.span.end } };
    }
    return expression;
  }

  /** `( e )`: the parentheses belong to the grouped expression's span, so enclosing spans cover them. */
  group(open: IToken, inner: Expression | undefined, close: IToken): Expression {
    const expression = present(inner);
    const opened = real(open);
    const closed = this.partial && Number.isNaN(close.startOffset) ? undefined : real(close);
    return { ...expression, span: { start: opened.startOffset, end: closed === undefined ? expression.span.end : tokenEnd(closed) } };
  }

  /** `Selector op Value`. */
  comparisonMatch(left: Operand | undefined, comparison: Comparison | undefined, right: Operand | undefined): MatchExpression {
    this.clauses++;
    const { operator, spelling, word } = present(comparison);
    const leftOperand = present(left);
    const rightOperand = present(right);
    const value = this.value(rightOperand);
    const selector = this.selector(leftOperand, word);
    if ((operator === "Equal" || operator === "NotEqual") && rightOperand.form === "path" && NULL_WORDS.has(this.source.slice(rightOperand.span.start, rightOperand.span.end))) {
      const field = this.source.slice(leftOperand.span.start, leftOperand.span.end);
      this.diagnostics.push(
        createDiagnostic(
          this.source,
          "null_literal",
          `${value.raw} here is the text "${value.raw}": the filter language has no null value`,
          value.span,
          `to test for a missing or null field, write ${field} ${operator === "Equal" ? "is nil" : "is not nil"}; to compare with the text, quote it`,
          "warning",
          [
            replaceFix(`write ${field} ${operator === "Equal" ? "is nil" : "is not nil"}`, { start: leftOperand.span.start, end: value.span.end }, `${field} ${operator === "Equal" ? "is nil" : "is not nil"}`),
            replaceFix(`compare with the text: "${value.raw}"`, value.span, JSON.stringify(value.raw)),
          ],
        ),
      );
    }
    return { kind: "Match", operator, selector, value, spelling, span: joinSpans(leftOperand.span, value.span) };
  }

  /** `Selector is [not] empty|nil`. */
  emptinessMatch(left: Operand | undefined, emptiness: Emptiness | undefined): MatchExpression {
    this.clauses++;
    const leftOperand = present(left);
    const { operator, end } = present(emptiness);
    const selector = this.selector(leftOperand, "is");
    return { kind: "Match", operator, selector, span: { start: leftOperand.span.start, end } };
  }

  /** `Value [not] in Selector`. */
  membershipMatch(left: Operand | undefined, operator: "In" | "NotIn" | undefined, right: Operand | undefined): MatchExpression {
    this.clauses++;
    const membership = present(operator);
    const rightOperand = present(right);
    const selector = this.selector(rightOperand, membership === "In" ? "in" : "not in");
    const leftOperand = present(left);
    const value = this.value(leftOperand);
    return { kind: "Match", operator: membership, selector, value, spelling: "in", span: joinSpans(leftOperand.span, rightOperand.span) };
  }

  /** `==`, `!=`, `[not] contains`, `[not] matches`. */
  comparison(operatorToken: IToken, negation: IToken | undefined): Comparison {
    const token = real(operatorToken);
    const word = negation === undefined ? token.image : `not ${token.image}`;
    if (token.tokenType === Contains || token.tokenType === Matches) {
      this.requireSpaceBefore(negation ?? token, word);
      this.requireSpaceAfter(token, word);
    }
    // An operator the language lacks (`>=`, `=`), reported as an error already, stands as `==`
    // so that the rest of the filter is still checked.
    const { operator, spelling } = SPELLINGS.get(word) ?? readSpelling("==");
    return { operator: operator as BinaryMatchOperator, spelling: spelling.ast, word };
  }

  /** `is [not] empty|nil`. */
  emptiness(is: IToken, negation: IToken | undefined, operatorToken: IToken): Emptiness {
    const token = real(operatorToken);
    this.requireSpaceBefore(real(is), "is");
    const { operator } = readSpelling(`is ${negation === undefined ? "" : "not "}${token.image}`);
    return { operator: operator as UnaryMatchOperator, end: tokenEnd(token) };
  }

  /** `in`, `not in`. */
  membership(negation: IToken | undefined, operatorToken: IToken): "In" | "NotIn" {
    const token = real(operatorToken);
    const word = negation === undefined ? token.image : `not ${token.image}`;
    this.requireSpaceBefore(negation ?? token, word);
    this.requireSpaceAfter(token, word);
    return readSpelling(word).operator as "In" | "NotIn";
  }

  /** A string or a number, before its place decides its meaning. */
  tokenOperand(token: IToken): Operand {
    const operand = real(token);
    return { form: "token", token: operand, span: spanOf(operand) };
  }

  /** A path: its head and decoded segments. */
  path(headToken: IToken, segments: readonly (Segment | undefined)[]): Operand {
    const head = real(headToken);
    const path = [head.image];
    let end = tokenEnd(head);
    for (const segment of segments) {
      const { name, end: segmentEnd } = present(segment);
      path.push(name);
      end = segmentEnd;
    }
    return { form: "path", path, span: { start: head.startOffset, end } };
  }

  /** `.name` or `.0`. */
  dotSegment(dotToken: IToken, nameToken: IToken): Segment {
    const dot = real(dotToken);
    const token = real(nameToken);
    // Only whitespace can separate them here (a bad character in between is reported by the lexer).
    if (isWhitespaceAt(this.source, tokenEnd(dot))) {
      this.report("unexpected_token", "a selector cannot contain whitespace", spanOf(token), `write ".${token.image}" without the space`);
    }
    return { name: token.image, end: tokenEnd(token) };
  }

  /** `["key"]`. */
  index(key: IToken, close: IToken): Segment {
    return { name: this.decodeString(real(key)), end: tokenEnd(real(close)) };
  }

  /** `any|all Selector as binding { body }`. */
  collection(quantifierToken: IToken, target: Operand | undefined, asToken: IToken, binding: CollectionBinding | undefined, body: Expression | undefined, closeToken: IToken): CollectionExpression {
    this.clauses++;
    const quantifier = real(quantifierToken);
    this.requireSpaceAfter(quantifier, quantifier.image);
    this.requireSpaceAround(real(asToken), "as");
    const selector = this.selector(present(target), quantifier.image);
    const close = real(closeToken);
    return {
      kind: "Collection",
      quantifier: quantifier.image === "any" ? "Any" : "All",
      selector,
      binding: present(binding),
      body: present(body),
      span: { start: quantifier.startOffset, end: tokenEnd(close) },
    };
  }

  /** `as x`, `as i, v`, `as i, _`, `as _, v`. */
  binding(first: IToken | undefined, second: IToken | undefined, secondBlank: boolean): CollectionBinding {
    if (first === undefined) return { mode: "Value", value: real(present(second)).image };
    if (second !== undefined) return { mode: "IndexAndValue", index: real(first).image, value: real(second).image };
    if (secondBlank) return { mode: "Index", index: real(first).image };
    return { mode: "Default", name: real(first).image };
  }

  /** The operand as a selector: a path, or a double-quoted string in JSON-pointer form. */
  private selector(operand: Operand, operator: string): Selector {
    if (operand.form === "path") return { kind: "Selector", form: "Bexpr", path: operand.path, span: operand.span };
    const { token } = operand;
    if (token.tokenType === DoubleString && isPointerLiteral(token.image)) {
      return { kind: "Selector", form: "Pointer", path: decodePointerLiteral(token.image), span: operand.span };
    }
    const what = token.tokenType === NumberLiteral ? "a number" : "a quoted string";
    const suggestion =
      token.tokenType === NumberLiteral
        ? undefined
        : `name the field without quotes, index it as Meta["key"], or write a JSON pointer "/Field/key"`;
    this.report(
      "invalid_selector",
      `${what} cannot be the selector of "${operator}": a selector names a field (Status, Meta["owner"], "/Meta/owner")`,
      operand.span,
      suggestion,
    );
    return { kind: "Selector", form: "Bexpr", path: [token.image], span: operand.span };
  }

  /** The operand as a literal value, with its text decoded as the reference decodes it. */
  private value(operand: Operand): Value {
    if (operand.form === "path") return { kind: "Value", raw: operand.path.join("."), span: operand.span };
    const { token } = operand;
    if (token.tokenType === DoubleString && isPointerLiteral(token.image)) {
      const value: Value = { kind: "Value", raw: decodePointerLiteral(token.image).join("/"), span: operand.span };
      // `""` is pointer-shaped too, but reads back as the empty text: nothing to warn about.
      if (token.image !== '""') this.diagnostics.push(pointerLiteralWarning(this.source, token.image, value));
      return value;
    }
    const raw = token.tokenType === NumberLiteral ? token.image : this.decodeString(token);
    return { kind: "Value", raw, span: operand.span };
  }

  /** The text of a string token (the lexer has reported strings that do not decode). */
  private decodeString(token: IToken): string {
    if (token.tokenType === RawString) return unquoteRaw(token.image.slice(1, -1));
    if (token.tokenType === UnterminatedString) return token.image.slice(1);
    const decoded = unquoteDouble(token.image.slice(1, -1));
    return decoded.ok ? decoded.value : token.image.slice(1, -1);
  }

  /** The operands of an `and`/`or`; in partial mode, the incomplete ones (already reported) are left out. */
  private complete(operands: readonly (Expression | undefined)[]): Expression[] {
    if (this.partial) return operands.filter((operand): operand is Expression => operand !== undefined);
    return operands.map(present);
  }

  /** One operand, or an `And`/`Or` over the operands with nested ones of the same kind flattened. */
  private chain(kind: "And" | "Or", operands: Expression[]): Expression {
    const first = operands[0];
    if (first === undefined) throw new IncompleteTree();
    if (operands.length === 1) return first;
    const flat = operands.flatMap((operand) => (operand.kind === kind ? operand.operands : [operand]));
    return { kind, operands: flat, span: joinSpans(first.span, operands[operands.length - 1]!.span) };
  }

  private requireSpaceAround(token: IToken, word: string): void {
    if (!isWordToken(token)) return;
    const before = isWhitespaceAt(this.source, token.startOffset - 1);
    // At the end of the source the missing operand is the problem (reported by the parser), not the space.
    const after = tokenEnd(token) === this.source.length || isWhitespaceAt(this.source, tokenEnd(token));
    if (before && after) return;
    const where = before ? "followed" : after ? "preceded" : "surrounded";
    this.report("missing_whitespace", `"${word}" must be ${where} by whitespace`, spanOf(token), `write " ${word} " with spaces around it`);
  }

  private requireSpaceBefore(token: IToken, word: string): void {
    if (!isWordToken(token) || isWhitespaceAt(this.source, token.startOffset - 1)) return;
    this.report("missing_whitespace", `"${word}" must be preceded by whitespace`, spanOf(token), `put a space before "${word}"`);
  }

  private requireSpaceAfter(token: IToken, word: string): void {
    if (!isWordToken(token) || tokenEnd(token) === this.source.length || isWhitespaceAt(this.source, tokenEnd(token))) return;
    this.report("missing_whitespace", `"${word}" must be followed by whitespace`, spanOf(token), `put a space after "${word}"`);
  }

  private report(code: Diagnostic["code"], message: string, span: Span, suggestion?: string): void {
    this.diagnostics.push(createDiagnostic(this.source, code, message, span, suggestion));
  }
}

/** Unquoted words people write for null, which the language reads as text. */
const NULL_WORDS: ReadonlySet<string> = new Set(["null", "nil", "NULL", "None", "undefined"]);

/** Stand-in tokens (`&&`, `||`) were reported by the lexer; only real keywords need whitespace. */
function isWordToken(token: IToken): boolean {
  return !Number.isNaN(token.startOffset) && /^[a-z]+$/.test(token.image);
}

/** A part recovery may have left out. */
function present<T>(value: T | undefined): T {
  if (value === undefined) throw new IncompleteTree();
  return value;
}

/** A token that is in the source (recovery inserts tokens that are not: their offset is NaN). */
function real(token: IToken | undefined): IToken {
  if (token === undefined || Number.isNaN(token.startOffset)) throw new IncompleteTree();
  return token;
}

function spanOf(token: IToken): Span {
  return { start: token.startOffset, end: tokenEnd(token) };
}

function joinSpans(first: Span, second: Span): Span {
  return { start: first.start, end: second.end };
}

/**
 * The language's best-known trap: a double-quoted value in JSON-pointer form is read as a path
 * (the reference's `Value` tries `Selector` first), and the value compared is its segments,
 * unescaped and joined by `/` without the leading one: `Path == "/v1/jobs"` compares with
 * "v1/jobs", never with "/v1/jobs". A warning, since the filter is valid and some may mean it;
 * the first fix keeps the text as written (a backtick string is never a pointer), the second
 * spells what it means today.
 */
function pointerLiteralWarning(source: string, image: string, value: Value): Diagnostic {
  const written = image.slice(1, -1);
  // Pointer segments hold letters, digits and `-_.~:|` only: the text is the same in backticks.
  const raw = `\`${written}\``;
  return createDiagnostic(
    source,
    "pointer_literal",
    `${image} is read as a JSON pointer: this compares with the text ${goQuote(value.raw)}, not ${goQuote(written)}`,
    value.span,
    `to compare with ${goQuote(written)}, write it in backticks: ${raw}`,
    "warning",
    [replaceFix(`compare with the text as written: ${raw}`, value.span, raw), replaceFix(`compare with ${goQuote(value.raw)}, as now: ${quoteDouble(value.raw)}`, value.span, quoteDouble(value.raw))],
  );
}
