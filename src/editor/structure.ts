/**
 * The structure of a filter for editors: its tokens classified as an editor colours them (fields,
 * bound variables, keywords, operators, literals, patterns, JSON-pointer paths), and the nested
 * spans a selection grows through (value or selector, clause, enclosing clauses, the filter).
 * All read the filter's one analysis (`parser/analysis.ts`: its words and recovered AST), so a
 * filter being typed, with mistakes, is still classified where it can be.
 *
 * @module
 */
import type { Expression, Selector, Span } from "../ast.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { describeSchema } from "./complete.js";
import { analysisOf, placeClauses, type ClassifiedToken, type FilterAnalysis, type ScopedBinding as Binding } from "../parser/analysis.js";
import type { ParseOptions } from "../parser/parse.js";

export type { ClassifiedToken, TokenClass } from "../parser/analysis.js";

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

/** The clauses and bindings of the analysed filter's recovered AST. */
function placed(analysis: FilterAnalysis, expression: Expression): ReturnType<typeof placeClauses> {
  return placeClauses(expression, (collection) => analysis.declarations(collection));
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
  return analysisOf(source, options.limits).classify();
}

/**
 * The spans a selection grows through from `offset`, innermost first: the value or selector at
 * the offset, its clause, each clause that encloses it, and the whole filter (trimmed). Only the
 * whole filter when the filter cannot be read.
 */
export function selectionSpans(source: string, offset: number, options: ParseOptions = {}): Span[] {
  const whole: Span = { start: source.length - source.trimStart().length, end: source.trimEnd().length };
  const { expression } = analysisOf(source, options.limits).recovered;
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

const inside = (span: Span, offset: number) => span.start <= offset && offset <= span.end;

/**
 * The occurrences of what is at `offset`: for a variable an `any`/`all` binds (its declaration
 * after `as`, or a use in its body), the declaration and every use bound to it (a name bound
 * again inside is another variable); for a field, every selector of the filter with the same path
 * outside any binding. Undefined elsewhere, and when the filter cannot be read.
 */
export function occurrences(source: string, offset: number, options: ParseOptions = {}): { readonly kind: "variable"; readonly declaration: Span; readonly uses: readonly Span[] } | { readonly kind: "field"; readonly uses: readonly Span[] } | undefined {
  const analysis = analysisOf(source, options.limits);
  const { expression } = analysis.recovered;
  if (expression === undefined) return undefined;
  const { clauses: selectors, bindings } = placed(analysis, expression);
  let target = bindings.find((binding) => inside(binding.declaration, offset));
  const at = selectors.find(({ selector }) => selector.form === "Bexpr" && inside(selector.span, offset));
  if (target === undefined && at !== undefined && inside(analysis.headSpan(at.selector), offset)) target = at.scope.get(at.selector.path[0]!);
  if (target !== undefined) {
    const uses = selectors.filter(({ selector, scope }) => selector.form === "Bexpr" && scope.get(selector.path[0]!) === target).map(({ selector }) => analysis.headSpan(selector));
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
  const analysis = analysisOf(source, options.limits);
  const { expression } = analysis.recovered;
  if (expression === undefined) return [];
  const hints: TypeHint[] = [];
  for (const { selector, scope } of placed(analysis, expression).clauses) {
    const found = selectorSchema(selector, schema, scope);
    if (found !== undefined) hints.push({ offset: selector.span.end, label: describeSchema(found) });
  }
  return hints.sort((a, b) => a.offset - b.offset);
}
