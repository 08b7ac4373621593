/**
 * The abstract syntax tree of a filter expression.
 *
 * This file holds types only. Every node is immutable, tagged by `kind` and carries the source
 * {@link Span} it was parsed from. The parser normalises while it builds the tree, so consumers
 * see one shape per meaning:
 *
 * - `and` / `or` chains are flat (`a and b and c` is one {@link AndExpression} with three operands);
 * - `not not e` is folded to `e`, as the reference does;
 * - `X contains v` becomes an `In` match with `spelling: "contains"`;
 * - string escapes are decoded and JSON-pointer values are rewritten, so {@link Value.raw} is the
 *   exact text that is coerced at evaluation time.
 *
 * @module
 */

/** A half-open range `[start, end)` of UTF-16 code-unit offsets into the filter source. */
export interface Span {
  /** Offset of the first character. */
  readonly start: number;
  /** Offset just past the last character. */
  readonly end: number;
}

/** Any boolean expression. */
export type Expression =
  | OrExpression
  | AndExpression
  | NotExpression
  | MatchExpression
  | CollectionExpression;

/** `a or b or …`: true when any operand is true; operands are evaluated left to right and short-circuit. */
export interface OrExpression {
  readonly kind: "Or";
  /** Two or more operands, none of which is itself an `Or`. */
  readonly operands: readonly Expression[];
  readonly span: Span;
}

/** `a and b and …`: true when every operand is true; operands are evaluated left to right and short-circuit. */
export interface AndExpression {
  readonly kind: "And";
  /** Two or more operands, none of which is itself an `And`. */
  readonly operands: readonly Expression[];
  readonly span: Span;
}

/** `not e`. The parser never produces a `Not` directly inside a `Not`. */
export interface NotExpression {
  readonly kind: "Not";
  readonly operand: Expression;
  readonly span: Span;
}

/** The match operators of the language, after `contains` has been folded into `In`. */
export type MatchOperator =
  | "Equal"
  | "NotEqual"
  | "In"
  | "NotIn"
  | "IsEmpty"
  | "IsNotEmpty"
  | "Matches"
  | "NotMatches"
  | "IsNil"
  | "IsNotNil";

/** Operators that take no value (`is empty`, `is nil` and their negations). */
export type UnaryMatchOperator = "IsEmpty" | "IsNotEmpty" | "IsNil" | "IsNotNil";

/** Operators that compare the selected field with a literal value. */
export type BinaryMatchOperator = Exclude<MatchOperator, UnaryMatchOperator>;

/** A comparison of one selected field with an optional literal. */
export type MatchExpression = ValueMatchExpression | EmptinessMatchExpression;

/** `Selector == v`, `Selector != v`, `v in Selector`, `Selector contains v`, `Selector matches v` and negations. */
export interface ValueMatchExpression {
  readonly kind: "Match";
  readonly operator: BinaryMatchOperator;
  readonly selector: Selector;
  readonly value: Value;
  /**
   * How an `In`/`NotIn` match was written: `"v" in X` or `X contains "v"`. Only the printer looks
   * at it; both spellings evaluate identically. Always `"in"` for other operators.
   */
  readonly spelling: "in" | "contains";
  readonly span: Span;
}

/** `Selector is empty`, `Selector is not empty`, `Selector is nil`, `Selector is not nil`. */
export interface EmptinessMatchExpression {
  readonly kind: "Match";
  readonly operator: UnaryMatchOperator;
  readonly selector: Selector;
  readonly span: Span;
}

/**
 * A path into the evaluated value.
 *
 * `Meta["web-api"].owner` and the JSON-pointer form `"/Meta/web-api/owner"` both select
 * the path `["Meta", "web-api", "owner"]`; `form` remembers which one was written, because
 * the reference names selectors in error messages by joining the path with `.` or `/`.
 */
export interface Selector {
  readonly kind: "Selector";
  readonly form: "Bexpr" | "Pointer";
  /** Decoded path segments; never empty. */
  readonly path: readonly string[];
  readonly span: Span;
}

/**
 * A literal as the reference keeps it: text. It is coerced to the kind of the value it meets at
 * evaluation time, so `Priority == 50`, `Priority == "50"` and ``Priority == `50` `` are one value.
 */
export interface Value {
  readonly kind: "Value";
  /** The literal's text after unquoting (and pointer rewriting for `"/a/b"` values). */
  readonly raw: string;
  readonly span: Span;
}

/** `any Selector as … { body }` and `all Selector as … { body }`. */
export interface CollectionExpression {
  readonly kind: "Collection";
  readonly quantifier: "Any" | "All";
  /** The list or map iterated over. */
  readonly selector: Selector;
  readonly binding: CollectionBinding;
  /** Evaluated once per element with the binding's names in scope. */
  readonly body: Expression;
  readonly span: Span;
}

/**
 * The names a collection expression binds for its body:
 *
 * - `Default` (`as x`): the element for a list, the key for a map;
 * - `IndexAndValue` (`as i, v`): the index or key, and the element;
 * - `Index` (`as i, _`): only the index or key;
 * - `Value` (`as _, v`): only the element.
 */
export type CollectionBinding =
  | { readonly mode: "Default"; readonly name: string }
  | { readonly mode: "IndexAndValue"; readonly index: string; readonly value: string }
  | { readonly mode: "Index"; readonly index: string }
  | { readonly mode: "Value"; readonly value: string };
