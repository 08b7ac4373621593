/**
 * Builds the AST from the parser's CST, normalising as it goes (flat `and`/`or`, folded `not not`,
 * `contains` as `In`, decoded strings and pointers) and reporting what the grammar rules leave to
 * it: required whitespace, string escapes, quoted strings used as selectors.
 *
 * It tolerates the partial trees that error recovery produces, so it can report problems past
 * the first syntax error.
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
import { createDiagnostic, type Diagnostic } from "../errors.js";
import { isWhitespaceAt, tokenEnd } from "../lexer/lexer.js";
import { Contains, DoubleString, Matches, Nil, NotEqual, NumberLiteral, RawString, UnterminatedString } from "../lexer/tokens.js";
import type {
  AndExpressionCstChildren,
  BindingCstChildren,
  CollectionCstChildren,
  ComparisonCstChildren,
  EmptinessCstChildren,
  FilterCstChildren,
  GroupCstChildren,
  IndexCstChildren,
  MatchCstChildren,
  MembershipCstChildren,
  NotExpressionCstChildren,
  OperandCstChildren,
  OrExpressionCstChildren,
  PathCstChildren,
  PrimaryCstChildren,
  SegmentCstChildren,
} from "./cst.js";
import { FilterParser } from "./parser.js";
import { decodePointerLiteral, isPointerLiteral, unquoteDouble, unquoteRaw } from "../strings.js";

/** An operand before its place decides whether it is a selector or a value. */
type Operand =
  | { readonly form: "path"; readonly path: string[]; readonly span: Span }
  | { readonly form: "token"; readonly token: IToken; readonly span: Span };

/** The parser instances: one that stops at the first error, one that recovers to find more. */
export const strictParser = new FilterParser(false);
export const recoveringParser = new FilterParser(true);

const BaseVisitor = strictParser.getBaseCstVisitorConstructor();

/** What the builder produced: the tree (if the CST was complete enough) and its findings. */
export interface BuildResult {
  readonly expression: Expression | undefined;
  readonly diagnostics: Diagnostic[];
  /** Match and collection clauses seen. */
  readonly clauses: number;
}

/** What a comparison operator means, and how it was written. */
interface Comparison {
  readonly operator: BinaryMatchOperator;
  readonly spelling: "in" | "contains";
  readonly word: string;
}

/** Visits one CST; create one per source. */
export class AstBuilder extends BaseVisitor {
  readonly diagnostics: Diagnostic[] = [];
  clauses = 0;

  /**
   * @param partial - for editors: leave out the operands of `and`/`or` that recovery left
   * incomplete, and accept a group without its `)`, so the rest of the tree can still be checked.
   */
  constructor(
    private readonly source: string,
    private readonly partial = false,
  ) {
    super();
  }

  /** Builds the AST of a `filter` CST node. */
  build(cst: unknown): BuildResult {
    let expression: Expression | undefined;
    try {
      expression = cst === undefined ? undefined : (this.visit(cst as never) as Expression | undefined);
    } catch (error) {
      // A CST cut short by a syntax error can lack any child; its problem is already reported.
      if (!(error instanceof IncompleteTree)) throw error;
      expression = undefined;
    }
    return { expression, diagnostics: this.diagnostics, clauses: this.clauses };
  }

  filter(children: FilterCstChildren): Expression {
    return this.expression(children.orExpression?.[0]);
  }

  orExpression(children: OrExpressionCstChildren): Expression {
    const alone = children.alone?.[0];
    if (alone !== undefined) return this.visit(alone) as CollectionExpression;
    for (const operator of children.operators ?? []) this.requireSpaceAround(operator, "or");
    return this.chain("Or", this.operands([...(children.operands ?? []), ...(children.last ?? [])]));
  }

  andExpression(children: AndExpressionCstChildren): Expression {
    for (const operator of children.operators ?? []) this.requireSpaceAround(operator, "and");
    return this.chain("And", this.operands(children.operands ?? []));
  }

  notExpression(children: NotExpressionCstChildren): Expression {
    let expression = this.expression(children.primary?.[0]);
    // Each `not` applied to a `not` cancels it (`not not e` and `not (not e)` are `e`), as in the reference.
    for (const not of [...(children.nots ?? [])].reverse()) {
      expression = expression.kind === "Not" ? expression.operand : { kind: "Not", operand: expression, span: { start: not.startOffset, end: expression.span.end } };
    }
    return expression;
  }

  primary(children: PrimaryCstChildren): Expression {
    return this.expression(children.group?.[0] ?? children.match?.[0]);
  }

  group(children: GroupCstChildren): Expression {
    const inner = this.expression(children.orExpression?.[0]);
    // The parentheses belong to the grouped expression's span, so enclosing spans cover them.
    const open = last(children.LParen);
    const close = this.partial ? children.RParen?.find((token) => !Number.isNaN(token.startOffset)) : last(children.RParen);
    return { ...inner, span: { start: open.startOffset, end: close === undefined ? inner.span.end : tokenEnd(close) } };
  }

  match(children: MatchCstChildren): MatchExpression {
    this.clauses++;
    const left = this.operandOf(children.left?.[0]);
    const comparison = children.comparison?.[0];
    const emptiness = children.emptiness?.[0];
    const membership = children.membership?.[0];
    if (comparison !== undefined) {
      const { operator, spelling, word } = this.visit(comparison) as Comparison;
      const value = this.value(this.operandOf(children.right?.[0]));
      const selector = this.selector(left, word);
      return { kind: "Match", operator, selector, value, spelling, span: joinSpans(left.span, value.span) };
    }
    if (emptiness !== undefined) {
      const { operator, end } = this.visit(emptiness) as { operator: UnaryMatchOperator; end: number };
      const selector = this.selector(left, "is");
      return { kind: "Match", operator, selector, span: { start: left.span.start, end } };
    }
    if (membership === undefined) throw new IncompleteTree();
    const operator = this.visit(membership) as "In" | "NotIn";
    const right = this.operandOf(children.right?.[0]);
    const selector = this.selector(right, operator === "In" ? "in" : "not in");
    const value = this.value(left);
    return { kind: "Match", operator, selector, value, spelling: "in", span: joinSpans(left.span, right.span) };
  }

  comparison(children: ComparisonCstChildren): Comparison {
    const token = last(children.operator);
    const negation = children.negation?.[0];
    const word = negation === undefined ? token.image : `not ${token.image}`;
    if (token.tokenType === Contains || token.tokenType === Matches) {
      this.requireSpaceBefore(negation ?? token, word);
      this.requireSpaceAfter(token, word);
    }
    if (token.tokenType === Contains) return { operator: negation ? "NotIn" : "In", spelling: "contains", word };
    if (token.tokenType === Matches) return { operator: negation ? "NotMatches" : "Matches", spelling: "in", word };
    return { operator: token.tokenType === NotEqual ? "NotEqual" : "Equal", spelling: "in", word };
  }

  emptiness(children: EmptinessCstChildren): { operator: UnaryMatchOperator; end: number } {
    const is = last(children.Is);
    const token = last(children.operator);
    const negated = children.negation !== undefined;
    this.requireSpaceBefore(is, "is");
    const operator: UnaryMatchOperator =
      token.tokenType === Nil ? (negated ? "IsNotNil" : "IsNil") : negated ? "IsNotEmpty" : "IsEmpty";
    return { operator, end: tokenEnd(token) };
  }

  membership(children: MembershipCstChildren): "In" | "NotIn" {
    const token = last(children.operator);
    const negation = children.negation?.[0];
    this.requireSpaceBefore(negation ?? token, negation === undefined ? "in" : "not in");
    this.requireSpaceAfter(token, negation === undefined ? "in" : "not in");
    return negation === undefined ? "In" : "NotIn";
  }

  operand(children: OperandCstChildren): Operand {
    const path = children.path?.[0];
    if (path !== undefined) return this.visit(path) as Operand;
    const token = children.string?.[0] ?? children.number?.[0];
    if (token === undefined) throw new IncompleteTree();
    return { form: "token", token, span: spanOf(token) };
  }

  path(children: PathCstChildren): Operand {
    const head = last(children.head);
    const path = [head.image];
    let end = tokenEnd(head);
    for (const segment of children.segment ?? []) {
      const { name, end: segmentEnd } = this.visit(segment) as { name: string; end: number };
      path.push(name);
      end = segmentEnd;
    }
    return { form: "path", path, span: { start: head.startOffset, end } };
  }

  segment(children: SegmentCstChildren): { name: string; end: number } {
    const index = children.index?.[0];
    if (index !== undefined) return this.visit(index) as { name: string; end: number };
    const dot = last(children.Dot);
    const token = children.name?.[0] ?? children.digits?.[0];
    if (token === undefined) throw new IncompleteTree();
    // Only whitespace can separate them here (a bad character in between is reported by the lexer).
    if (isWhitespaceAt(this.source, tokenEnd(dot))) {
      this.report("unexpected_token", "a selector cannot contain whitespace", spanOf(token), `write ".${token.image}" without the space`);
    }
    return { name: token.image, end: tokenEnd(token) };
  }

  index(children: IndexCstChildren): { name: string; end: number } {
    const key = last(children.key);
    const close = last(children.RBracket);
    return { name: this.decodeString(key), end: tokenEnd(close) };
  }

  collection(children: CollectionCstChildren): CollectionExpression {
    this.clauses++;
    const quantifier = last(children.quantifier);
    this.requireSpaceAfter(quantifier, quantifier.image);
    const as = last(children.As);
    this.requireSpaceAround(as, "as");
    const selector = this.selector(this.operandOf(children.target?.[0]), quantifier.image);
    const binding = this.visit(children.binding?.[0] ?? missing()) as CollectionBinding;
    const body = this.expression(children.body?.[0]);
    const close = last(children.RBrace);
    return {
      kind: "Collection",
      quantifier: quantifier.image === "any" ? "Any" : "All",
      selector,
      binding,
      body,
      span: { start: quantifier.startOffset, end: tokenEnd(close) },
    };
  }

  binding(children: BindingCstChildren): CollectionBinding {
    const first = children.first?.[0];
    const second = children.second?.[0];
    if (first === undefined) {
      if (second === undefined) throw new IncompleteTree();
      return { mode: "Value", value: second.image };
    }
    if (second !== undefined) return { mode: "IndexAndValue", index: first.image, value: second.image };
    if (children.secondBlank !== undefined) return { mode: "Index", index: first.image };
    return { mode: "Default", name: first.image };
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
      return { kind: "Value", raw: decodePointerLiteral(token.image).join("/"), span: operand.span };
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

  private operandOf(node: unknown): Operand {
    if (node === undefined) throw new IncompleteTree();
    return this.visit(node as never) as Operand;
  }

  private expression(node: unknown): Expression {
    if (node === undefined) throw new IncompleteTree();
    return this.visit(node as never) as Expression;
  }

  /** The operands of an `and`/`or`; in partial mode, the incomplete ones (already reported) are left out. */
  private operands(nodes: readonly unknown[]): Expression[] {
    if (!this.partial) return nodes.map((node) => this.expression(node));
    return nodes.flatMap((node) => {
      try {
        return [this.expression(node)];
      } catch (error) {
        if (error instanceof IncompleteTree) return [];
        throw error;
      }
    });
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

/** Stand-in tokens (`&&`, `||`) were reported by the lexer; only real keywords need whitespace. */
function isWordToken(token: IToken): boolean {
  return /^[a-z]+$/.test(token.image);
}

/** Thrown inside the builder when recovery left a node without a required child. */
class IncompleteTree extends Error {}

function missing(): never {
  throw new IncompleteTree();
}

function last(tokens: IToken[] | undefined): IToken {
  const token = tokens?.[tokens.length - 1];
  if (token === undefined || Number.isNaN(token.startOffset)) throw new IncompleteTree();
  return token;
}

function spanOf(token: IToken): Span {
  return { start: token.startOffset, end: tokenEnd(token) };
}

function joinSpans(first: Span, second: Span): Span {
  return { start: first.start, end: second.end };
}
