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
  /** Always `"Or"`: tags the node within {@link Expression}. */
  readonly kind: "Or";
  /** Two or more operands, none of which is itself an `Or`. */
  readonly operands: readonly Expression[];
  /** Where the node is in the source: first operand to last, with enclosing parentheses if grouped. */
  readonly span: Span;
}

/** `a and b and …`: true when every operand is true; operands are evaluated left to right and short-circuit. */
export interface AndExpression {
  /** Always `"And"`: tags the node within {@link Expression}. */
  readonly kind: "And";
  /** Two or more operands, none of which is itself an `And`. */
  readonly operands: readonly Expression[];
  /** Where the node is in the source: first operand to last, with enclosing parentheses if grouped. */
  readonly span: Span;
}

/** `not e`. The parser never produces a `Not` directly inside a `Not`. */
export interface NotExpression {
  /** Always `"Not"`: tags the node within {@link Expression}. */
  readonly kind: "Not";
  /** The negated expression; never itself a `Not`. */
  readonly operand: Expression;
  /** Where the node is in the source: from the `not` keyword to the end of its operand, with enclosing parentheses if grouped. */
  readonly span: Span;
}

import type { BinaryMatchOperator, MatchOperator, UnaryMatchOperator } from "./operators.js";

/** The match operators, their arities and spellings: one table in `operators.ts`. */
export type { BinaryMatchOperator, MatchOperator, UnaryMatchOperator };

/** A comparison of one selected field with an optional literal. */
export type MatchExpression = ValueMatchExpression | EmptinessMatchExpression;

/** `Selector == v`, `Selector != v`, `v in Selector`, `Selector contains v`, `Selector matches v` and negations. */
export interface ValueMatchExpression {
  /** Always `"Match"`, as for {@link EmptinessMatchExpression}; the presence of `value` tells them apart. */
  readonly kind: "Match";
  /** The comparison applied; `contains` and `not contains` arrive here as `In` and `NotIn`. */
  readonly operator: BinaryMatchOperator;
  /** The field compared: the left operand, except for `in`/`not in`, where it is the right one. */
  readonly selector: Selector;
  /** The literal compared with the field: the right operand, except for `in`/`not in`, where it is the left one. */
  readonly value: Value;
  /**
   * How an `In`/`NotIn` match was written: `"v" in X` or `X contains "v"`. Only the printer looks
   * at it; both spellings evaluate identically. Always `"in"` for other operators.
   */
  readonly spelling: "in" | "contains";
  /** Where the node is in the source: left operand to right operand, with enclosing parentheses if grouped. */
  readonly span: Span;
}

/** `Selector is empty`, `Selector is not empty`, `Selector is nil`, `Selector is not nil`. */
export interface EmptinessMatchExpression {
  /** Always `"Match"`, as for {@link ValueMatchExpression}; the absence of `value` tells them apart. */
  readonly kind: "Match";
  /** Which test: `is empty`, `is not empty`, `is nil` or `is not nil`. */
  readonly operator: UnaryMatchOperator;
  /** The field tested. */
  readonly selector: Selector;
  /** Where the node is in the source: from the selector to the final `empty` or `nil`, with enclosing parentheses if grouped. */
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
  /** Always `"Selector"`. */
  readonly kind: "Selector";
  /** How the path was written: `"Bexpr"` for `Meta["web-api"].owner`, `"Pointer"` for `"/Meta/web-api/owner"`. */
  readonly form: "Bexpr" | "Pointer";
  /** Decoded path segments; never empty. */
  readonly path: readonly string[];
  /** Where the selector is in the source, quotes included for the pointer form. */
  readonly span: Span;
}

/**
 * A literal as the reference keeps it: text. It is coerced to the kind of the value it meets at
 * evaluation time, so `Priority == 50`, `Priority == "50"` and ``Priority == `50` `` are one value.
 */
export interface Value {
  /** Always `"Value"`. */
  readonly kind: "Value";
  /** The literal's text after unquoting (and pointer rewriting for `"/a/b"` values). */
  readonly raw: string;
  /** Where the literal is in the source, quotes included for a string. */
  readonly span: Span;
}

/** `any Selector as … { body }` and `all Selector as … { body }`. */
export interface CollectionExpression {
  /** Always `"Collection"`: tags the node within {@link Expression}. */
  readonly kind: "Collection";
  /** `"Any"`: true when the body holds for some element; `"All"`: true when it holds for every one. */
  readonly quantifier: "Any" | "All";
  /** The list or map iterated over. */
  readonly selector: Selector;
  /** The names after `as`, and what each is bound to. */
  readonly binding: CollectionBinding;
  /** Evaluated once per element with the binding's names in scope. */
  readonly body: Expression;
  /** Where the node is in the source: from the `any`/`all` keyword to the closing `}`, with enclosing parentheses if grouped. */
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
  | {
      /** `as x`. */
      readonly mode: "Default";
      /** Bound to the element of a list, or the key of a map. */
      readonly name: string;
    }
  | {
      /** `as i, v`. */
      readonly mode: "IndexAndValue";
      /** Bound to the index of a list element, or the key of a map entry. */
      readonly index: string;
      /** Bound to the element of a list, or the value of a map entry. */
      readonly value: string;
    }
  | {
      /** `as i, _`. */
      readonly mode: "Index";
      /** Bound to the index of a list element, or the key of a map entry. */
      readonly index: string;
    }
  | {
      /** `as _, v`. */
      readonly mode: "Value";
      /** Bound to the element of a list, or the value of a map entry. */
      readonly value: string;
    };
