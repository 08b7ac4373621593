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
import { analysisOf, isBindableName, placeClauses, type ClassifiedToken, type FilterAnalysis, type PlacedClause, type ScopedBinding as Binding } from "../parser/analysis.js";
import type { ParseOptions } from "../parser/parse.js";
import { locate } from "../source.js";

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
  const at = selectors.find(({ selector }) => selector.form === "Bexpr" && inside(selector.span, offset));
  const target = variableAt(analysis, bindings, at, offset);
  if (target !== undefined) return { kind: "variable", declaration: target.declaration, uses: usesOf(analysis, selectors, target) };
  if (at === undefined || at.scope.has(at.selector.path[0]!)) return undefined;
  const key = JSON.stringify(at.selector.path);
  return { kind: "field", uses: selectors.filter(({ selector, scope }) => !scope.has(selector.path[0]!) && JSON.stringify(selector.path) === key).map(({ selector }) => selector.span) };
}

/** The variable declared at `offset`, or named by the head of the selector `at` there. */
function variableAt(analysis: FilterAnalysis, bindings: readonly Binding[], at: PlacedClause | undefined, offset: number): Binding | undefined {
  const declared = bindings.find((binding) => inside(binding.declaration, offset));
  if (declared !== undefined || at === undefined || !inside(analysis.headSpan(at.selector), offset)) return declared;
  return at.scope.get(at.selector.path[0]!);
}

/** The heads of the selectors written `name.…` that read `binding`. */
function usesOf(analysis: FilterAnalysis, clauses: readonly PlacedClause[], binding: Binding): Span[] {
  return clauses.filter(({ selector, scope }) => selector.form === "Bexpr" && scope.get(selector.path[0]!) === binding).map(({ selector }) => analysis.headSpan(selector));
}

/** Why a rename is refused; see {@link renameVariable}. */
export type RenameRefusalCode =
  /** Nothing an `any`/`all` binds is at the offset (fields belong to the data, and are not renamed). */
  | "not_a_variable"
  /** The new name is not a name a binding may take (a keyword, `_`, a number, two words…). */
  | "invalid_name"
  /** A selector in the variable's scope whose head is the new name reads a field, or an outer variable, and would read the renamed one. */
  | "captured_reference"
  /** A use of the variable would read another variable of the new name, bound inside its scope. */
  | "shadowed_use"
  /** The collection would bind one name twice (`as v, v`), or already does (renaming would change that). */
  | "bound_twice"
  /** A JSON pointer (`"/x/Name"`) reads the variable: a rename does not rewrite the inside of a string. */
  | "pointer_use";

/** A rename: the spans to write the new name in (the declaration and every use), or why it is refused. */
export type Rename =
  | { readonly kind: "renamed"; readonly spans: readonly Span[] }
  /** `span`: the declaration, use or reference that stops it (the whole filter when nothing is at the offset). */
  | { readonly kind: "refused"; readonly code: RenameRefusalCode; readonly message: string; readonly span: Span };

/**
 * Renames the variable an `any`/`all` binds at `offset` (where it is declared, or a use): the
 * spans of its declaration and of every use bound to it, all to be replaced by `newName`. A rename
 * never changes what the filter means (gopls' and TypeScript's rule): it is refused, with the
 * reference that would change and where, when a selector in the variable's scope whose head is
 * `newName` reads a field or an outer variable (it would read the renamed one: capture), when a
 * use would then read another variable of that name bound inside the scope (shadowing), when the
 * collection would bind the name twice, and when a JSON pointer reads the variable. A selector
 * reads a variable when its first segment names one, in either form (`x.Name`, `"/x/Name"`), and
 * nothing can qualify a field so that it skips a variable: a captured field cannot be rewritten.
 *
 * @example
 * ```ts
 * renameVariable('any TaskGroups as tg { tg.Name == "y" and Name == "x" }', 18, "Name");
 * // { kind: "refused", code: "captured_reference", span: { start: 42, end: 46 },
 * //   message: 'renaming "tg" to "Name" would capture the reference Name at 1:43: it reads the field "Name" of the object, and would read the renamed variable instead' }
 * ```
 */
export function renameVariable(source: string, offset: number, newName: string, options: ParseOptions = {}): Rename {
  const analysis = analysisOf(source, options.limits);
  const { expression } = analysis.recovered;
  const { clauses, bindings } = expression === undefined ? { clauses: [], bindings: [] } : placed(analysis, expression);
  const at = clauses.find(({ selector }) => selector.form === "Bexpr" && inside(selector.span, offset));
  const target = variableAt(analysis, bindings, at, offset);
  const refuse = (code: RenameRefusalCode, message: string, span: Span): Rename => ({ kind: "refused", code, message, span });
  if (target === undefined) return refuse("not_a_variable", "only a variable an any or all binds can be renamed", { start: 0, end: source.length });
  if (!isBindableName(newName)) {
    return refuse("invalid_name", `${JSON.stringify(newName)} cannot name a variable: a name starts with a letter, then letters, digits and _, and is not a keyword`, target.declaration);
  }
  const renamed = (): Rename => ({ kind: "renamed", spans: [target.declaration, ...usesOf(analysis, clauses, target)] });
  if (newName === target.name) return renamed();

  const where = (span: Span) => {
    const { line, column } = locate(source, span.start);
    return `${line}:${column}`;
  };
  const renaming = `renaming ${JSON.stringify(target.name)} to ${JSON.stringify(newName)}`;
  const written = (span: Span) => source.slice(span.start, span.end);
  // The evaluator binds a collection's names in order, and fails on the first element when two are one.
  for (const sibling of bindings) {
    if (sibling.collection !== target.collection || sibling === target) continue;
    if (sibling.name === newName) return refuse("bound_twice", `${renaming} would bind ${JSON.stringify(newName)} twice (it is bound at ${where(sibling.declaration)} too): the filter would fail on any element`, sibling.declaration);
    if (sibling.name === target.name) return refuse("bound_twice", `${JSON.stringify(target.name)} is bound twice (at ${where(sibling.declaration)} too), so the filter fails on any element; ${renaming} would change that`, sibling.declaration);
  }
  const body = target.collection.body.span;
  const withinBody = (span: Span) => body.start <= span.start && span.end <= body.end;
  // A variable bound inside the body is nearer to a selector there than the renamed one.
  const isInner = (binding: Binding) => withinBody(binding.collection.span);
  for (const { selector, scope } of clauses) {
    if (!withinBody(selector.span)) continue;
    const head = selector.path[0]!;
    const bound = scope.get(head);
    if (bound === target) {
      if (selector.form === "Pointer") return refuse("pointer_use", `${JSON.stringify(target.name)} is read by the JSON pointer ${written(selector.span)} at ${where(selector.span)}, which a rename does not rewrite`, selector.span);
      const nearer = scope.get(newName);
      if (nearer !== undefined && isInner(nearer)) {
        return refuse("shadowed_use", `${renaming} would make its use ${written(selector.span)} at ${where(selector.span)} read the other variable ${JSON.stringify(newName)}, bound at ${where(nearer.declaration)}, instead`, analysis.headSpan(selector));
      }
    } else if (head === newName && (bound === undefined || !isInner(bound))) {
      const reads = bound === undefined ? `the field ${JSON.stringify(newName)} of the object` : `the variable ${JSON.stringify(newName)} bound at ${where(bound.declaration)}`;
      const span = selector.form === "Bexpr" ? analysis.headSpan(selector) : selector.span;
      return refuse("captured_reference", `${renaming} would capture the reference ${written(selector.span)} at ${where(selector.span)}: it reads ${reads}, and would read the renamed variable instead`, span);
    }
  }
  return renamed();
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
