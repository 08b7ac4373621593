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
import type { CollectionExpression, Expression, MatchExpression, Selector, Span } from "../ast.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { describeSchema } from "./complete.js";
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

/** The names a collection binds for its body (`_` binds nothing), each with which of its names it is. */
function boundNames(collection: CollectionExpression): { readonly name: string; readonly role: Binding["role"] }[] {
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

/** Every node of the expression, clauses and the `and`/`or`/`not` around them. */
function walk(expression: Expression, visit: (node: Expression) => void): void {
  const stack: Expression[] = [expression];
  while (stack.length > 0) {
    const node = stack.pop()!;
    visit(node);
    if (node.kind === "And" || node.kind === "Or") stack.push(...node.operands);
    else if (node.kind === "Not") stack.push(node.operand);
    else if (node.kind === "Collection") stack.push(node.body);
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
 * variable an `any`/`all` binds where they stand (`variable`, and a `declaration` after `as`;
 * `_` is a `variable` too), or stand unquoted where a value goes (`string`: it is text); a list
 * index in a path is part of it (`property`);
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
    const { clauses, bindings } = placeClauses(expression, tokens);
    for (const { declaration } of bindings) {
      const i = firstTokenFrom(tokens, declaration.start);
      kinds[i] = "variable";
      declarations.add(i);
    }
    for (const { clause, scope } of clauses) {
      const { selector } = clause;
      const first = firstTokenFrom(tokens, selector.span.start);
      // A list index in a path (`Datacenters.1`) is a segment of it, not a number.
      for (let i = first; i < tokens.length && tokens[i]!.startOffset < selector.span.end; i++) if (kinds[i] === "number") kinds[i] = "property";
      // An unquoted value (`Status == running`) is text, whatever it looks like.
      if (clause.kind === "Match" && "value" in clause) {
        for (let i = firstTokenFrom(tokens, clause.value.span.start); i < tokens.length && tokens[i]!.startOffset < clause.value.span.end; i++) if (kinds[i] === "property") kinds[i] = "string";
      }
      if (selector.form === "Pointer") kinds[first] = "pointer";
      else if (scope.has(selector.path[0]!) && tokens[first]?.tokenType === Identifier) kinds[first] = "variable";
      if (clause.kind === "Match" && clause.operator.startsWith("Matches") && "value" in clause) {
        const value = firstTokenFrom(tokens, clause.value.span.start);
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

/** A name an `any`/`all` binds, and where it is declared (after `as`). */
interface Binding {
  readonly name: string;
  readonly declaration: Span;
  /** Which of the collection's names it is: the element or key (`Default`), the index or key, or the value. */
  readonly role: "default" | "index" | "value";
  readonly collection: CollectionExpression;
  /** The bindings in force where the collection stands (its selector may use them). */
  readonly scope: ReadonlyMap<string, Binding>;
}

/** A clause of the filter (a match, or an `any`/`all`), its selector, and the bindings in force where it stands. */
interface PlacedClause {
  readonly clause: MatchExpression | CollectionExpression;
  readonly selector: Selector;
  readonly scope: ReadonlyMap<string, Binding>;
}

/** The clauses and bindings of an expression, each clause with the bindings in force where it stands. */
function placeClauses(expression: Expression, tokens: readonly IToken[]): { clauses: PlacedClause[]; bindings: Binding[] } {
  const clauses: PlacedClause[] = [];
  const bindings: Binding[] = [];
  const stack: { node: Expression; scope: ReadonlyMap<string, Binding> }[] = [{ node: expression, scope: new Map() }];
  while (stack.length > 0) {
    const { node, scope } = stack.pop()!;
    if (node.kind === "And" || node.kind === "Or") for (const operand of node.operands) stack.push({ node: operand, scope });
    else if (node.kind === "Not") stack.push({ node: node.operand, scope });
    else if (node.kind === "Match") clauses.push({ clause: node, selector: node.selector, scope });
    else {
      clauses.push({ clause: node, selector: node.selector, scope });
      const declared: IToken[] = [];
      for (let i = firstTokenFrom(tokens, node.selector.span.end); i < tokens.length && tokens[i]!.startOffset < node.body.span.start; i++) {
        if (tokens[i]!.tokenType === Identifier) declared.push(tokens[i]!);
      }
      const inner = new Map(scope);
      boundNames(node).forEach(({ name, role }, k) => {
        const token = declared[k];
        if (token === undefined) return;
        const binding: Binding = { name, declaration: { start: token.startOffset, end: tokenEnd(token) }, role, collection: node, scope };
        bindings.push(binding);
        inner.set(name, binding);
      });
      stack.push({ node: node.body, scope: inner });
    }
  }
  return { clauses, bindings };
}

/** The span of the first segment of a selector written with dots or brackets (its head token). */
function headSpan(selector: Selector, tokens: readonly IToken[]): Span {
  const token = tokens[firstTokenFrom(tokens, selector.span.start)]!;
  return { start: token.startOffset, end: tokenEnd(token) };
}

const inside = (span: Span, offset: number) => span.start <= offset && offset <= span.end;

/**
 * The occurrences of what is at `offset`: for a variable an `any`/`all` binds (its declaration
 * after `as`, or a use in its body), the declaration and every use bound to it (a name bound
 * again inside is another variable); for a field, every selector of the filter with the same path
 * outside any binding. Undefined elsewhere, and when the filter cannot be read.
 */
export function occurrences(source: string, offset: number, options: ParseOptions = {}): { readonly kind: "variable"; readonly declaration: Span; readonly uses: readonly Span[] } | { readonly kind: "field"; readonly uses: readonly Span[] } | undefined {
  const { tokens, expression } = analyze(source, { ...options, recover: true });
  if (expression === undefined) return undefined;
  const { clauses: selectors, bindings } = placeClauses(expression, tokens);
  let target = bindings.find((binding) => inside(binding.declaration, offset));
  const at = selectors.find(({ selector }) => selector.form === "Bexpr" && inside(selector.span, offset));
  if (target === undefined && at !== undefined && inside(headSpan(at.selector, tokens), offset)) target = at.scope.get(at.selector.path[0]!);
  if (target !== undefined) {
    const uses = selectors.filter(({ selector, scope }) => selector.form === "Bexpr" && scope.get(selector.path[0]!) === target).map(({ selector }) => headSpan(selector, tokens));
    return { kind: "variable", declaration: target.declaration, uses };
  }
  if (at === undefined || at.scope.has(at.selector.path[0]!)) return undefined;
  const key = JSON.stringify(at.selector.path);
  return { kind: "field", uses: selectors.filter(({ selector, scope }) => !scope.has(selector.path[0]!) && JSON.stringify(selector.path) === key).map(({ selector }) => selector.span) };
}

/** The schema at `path` below `schema` (list indexes are digits), or undefined where the schema has nothing. */
function schemaAt(schema: FieldSchema | undefined, path: readonly string[]): FieldSchema | undefined {
  let at = schema;
  for (const key of path) {
    if (at === undefined || typeof at === "string") return undefined;
    if (at.kind === "object") at = at.fields[key];
    else if (at.kind === "map") at = at.values;
    else at = /^\d+$/.test(key) ? at.items : undefined;
  }
  return at;
}

/** What a binding holds: the element or value of its collection, or its index (`int`) or key (`string`). */
function bindingSchema(binding: Binding, root: FieldSchema, depth: number): FieldSchema | undefined {
  const collection = selectorSchema(binding.collection.selector, root, binding.scope, depth + 1);
  if (collection === undefined || typeof collection === "string" || collection.kind === "object") return undefined;
  const isMap = collection.kind === "map";
  if (binding.role === "index" || (binding.role === "default" && isMap)) return isMap ? "string" : "int";
  return isMap ? collection.values : collection.items;
}

/** The schema a selector resolves to, through the binding of its head when it has one. */
function selectorSchema(selector: Selector, root: FieldSchema, scope: ReadonlyMap<string, Binding>, depth = 0): FieldSchema | undefined {
  // A binding's collection is resolved in the scope around it; nesting bounds the depth.
  if (depth > 64) return undefined;
  const binding = selector.form === "Bexpr" ? scope.get(selector.path[0]!) : undefined;
  if (binding === undefined) return schemaAt(root, selector.path);
  return schemaAt(bindingSchema(binding, root, depth), selector.path.slice(1));
}

/** A type hint: after the selector ending at `offset`, what the schema says it holds. */
export interface TypeHint {
  readonly offset: number;
  readonly label: string;
}

/**
 * The type hints of a filter in typed mode: after each selector, the kind its path resolves to in
 * `schema` (`Priority: int`, `Meta.owner: string`, a bound variable's element type through its
 * collection), none where the schema says nothing. For editors' inlay hints.
 */
export function typeHints(source: string, schema: FieldSchema, options: ParseOptions = {}): TypeHint[] {
  const { tokens, expression } = analyze(source, { ...options, recover: true });
  if (expression === undefined) return [];
  const hints: TypeHint[] = [];
  for (const { selector, scope } of placeClauses(expression, tokens).clauses) {
    const found = selectorSchema(selector, schema, scope);
    if (found !== undefined) hints.push({ offset: selector.span.end, label: describeSchema(found) });
  }
  return hints.sort((a, b) => a.offset - b.offset);
}
