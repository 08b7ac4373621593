/**
 * The structure of a filter for editors: its tokens classified as an editor colours them (fields,
 * bound variables, keywords, operators, literals, patterns, JSON-pointer paths), and the nested
 * spans a selection grows through (value or selector, clause, enclosing clauses, the filter).
 * Both read the lexer's tokens and the recovered AST of `analyze`, so a filter being typed, with
 * mistakes, is still classified where it can be.
 *
 * @module
 */
import type { IToken } from "chevrotain";
import type { CollectionExpression, Expression, Span } from "../ast.js";
import { tokenEnd } from "../lexer/lexer.js";
import { All, And, Any, As, Contains, Digits, DoubleString, Empty, Equal, Identifier, In, Is, Matches, Nil, Not, NotEqual, NumberLiteral, Or, RawString, Underscore, UnterminatedString } from "../lexer/tokens.js";
import { analyze, type ParseOptions } from "../parser/parse.js";

/** What a token is, as an editor colours it. */
export type TokenClass = "property" | "variable" | "keyword" | "operator" | "string" | "number" | "constant" | "regexp" | "pointer";

/** A classified token: its span, its class, and whether it declares the variable it names (`as x`). */
export interface ClassifiedToken {
  readonly start: number;
  readonly end: number;
  readonly kind: TokenClass;
  readonly declaration: boolean;
}

const KEYWORDS = new Set([And, Or, Not, In, Contains, Matches, Is, Any, All, As]);

/** The names a collection binds for its body (`_` binds nothing). */
function boundNames(collection: CollectionExpression): string[] {
  const { binding } = collection;
  switch (binding.mode) {
    case "Default":
      return [binding.name];
    case "IndexAndValue":
      return [binding.index, binding.value];
    case "Index":
      return [binding.index];
    case "Value":
      return [binding.value];
  }
}

/** Every node of the expression (clauses, selectors, values), with the names bound where it stands. */
function walk(expression: Expression, visit: (node: Expression, bound: ReadonlySet<string>) => void): void {
  const stack: { node: Expression; bound: ReadonlySet<string> }[] = [{ node: expression, bound: new Set() }];
  while (stack.length > 0) {
    const { node, bound } = stack.pop()!;
    visit(node, bound);
    if (node.kind === "And" || node.kind === "Or") for (const operand of node.operands) stack.push({ node: operand, bound });
    else if (node.kind === "Not") stack.push({ node: node.operand, bound });
    else if (node.kind === "Collection") stack.push({ node: node.body, bound: new Set([...bound, ...boundNames(node)]) });
  }
}

/** The first token at or after `offset`, by binary search over tokens in source order. */
function firstTokenFrom(tokens: readonly IToken[], offset: number): number {
  let low = 0;
  let high = tokens.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (tokens[middle]!.startOffset < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The tokens of `source`, classified: identifiers are fields (`property`) unless they name a
 * variable an `any`/`all` binds where they stand (`variable`, and a `declaration` after `as`);
 * the words that act as operators and quantifiers are `keyword`s; `==` and `!=` are `operator`s;
 * a double-quoted selector in JSON-pointer form is a `pointer`, the pattern of `matches` a
 * `regexp`, `empty` and `nil` are `constant`s. Text the lexer cannot read is left out.
 *
 * @example
 * ```ts
 * classifyTokens('any Items as i { i.Name == "x" }').map((t) => t.kind);
 * // ["keyword", "property", "keyword", "variable", "variable", "property", "operator", "string"]
 * ```
 */
export function classifyTokens(source: string, options: ParseOptions = {}): ClassifiedToken[] {
  const { tokens, expression } = analyze(source, { ...options, recover: true });
  const kinds: (TokenClass | undefined)[] = tokens.map((token) => {
    const type = token.tokenType;
    if (KEYWORDS.has(type)) return "keyword";
    if (type === Equal || type === NotEqual) return "operator";
    if (type === Identifier || type === Underscore) return "property";
    if (type === DoubleString || type === RawString || type === UnterminatedString) return "string";
    if (type === NumberLiteral || type === Digits) return "number";
    if (type === Empty || type === Nil) return "constant";
    return undefined;
  });
  const declarations = new Set<number>();
  if (expression !== undefined) {
    walk(expression, (node, bound) => {
      if (node.kind === "Collection") {
        // The names after `as`, up to the body's brace: declarations.
        for (let i = firstTokenFrom(tokens, node.selector.span.end); i < tokens.length && tokens[i]!.startOffset < node.body.span.start; i++) {
          if (tokens[i]!.tokenType === Identifier) {
            kinds[i] = "variable";
            declarations.add(i);
          }
        }
      }
      if (node.kind !== "Match" && node.kind !== "Collection") return;
      const { selector } = node;
      const first = firstTokenFrom(tokens, selector.span.start);
      if (selector.form === "Pointer") kinds[first] = "pointer";
      else if (bound.has(selector.path[0]!) && tokens[first]?.tokenType === Identifier) kinds[first] = "variable";
      if (node.kind === "Match" && node.operator.startsWith("Matches") && "value" in node) {
        const value = firstTokenFrom(tokens, node.value.span.start);
        if (kinds[value] === "string") kinds[value] = "regexp";
      }
    });
  }
  const classified: ClassifiedToken[] = [];
  tokens.forEach((token, i) => {
    const kind = kinds[i];
    // Stand-in tokens of recovery have no text.
    if (kind !== undefined && tokenEnd(token) > token.startOffset) classified.push({ start: token.startOffset, end: tokenEnd(token), kind, declaration: declarations.has(i) });
  });
  return classified;
}

/**
 * The spans a selection grows through from `offset`, innermost first: the value or selector at
 * the offset, its clause, each clause that encloses it, and the whole filter (trimmed). Only the
 * whole filter when the filter cannot be read.
 */
export function selectionSpans(source: string, offset: number, options: ParseOptions = {}): Span[] {
  const whole: Span = { start: source.length - source.trimStart().length, end: source.trimEnd().length };
  const { expression } = analyze(source, { ...options, recover: true });
  const spans: Span[] = [];
  const contains = (span: Span) => span.start <= offset && offset <= span.end;
  if (expression !== undefined) {
    walk(expression, (node) => {
      if (!contains(node.span)) return;
      spans.push(node.span);
      if (node.kind === "Match" || node.kind === "Collection") {
        if (contains(node.selector.span)) spans.push(node.selector.span);
        if (node.kind === "Match" && "value" in node && contains(node.value.span)) spans.push(node.value.span);
      }
    });
  }
  spans.push(whole);
  // Innermost first: by size, then the distinct ones (a clause whose span is the filter's once).
  spans.sort((a, b) => a.end - a.start - (b.end - b.start));
  return spans.filter((span, i) => i === 0 || span.start !== spans[i - 1]!.start || span.end !== spans[i - 1]!.end);
}
