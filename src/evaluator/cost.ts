/**
 * The cost model of evaluation, after cel-go's: every step an evaluation takes has a price in
 * cost units, a compiled filter knows its worst case as a function of the sizes of the value it
 * meets, and each evaluation is metered against a budget, so that no filter, however written,
 * can make one evaluation run away.
 *
 * | Step | Units |
 * |---|---|
 * | a match clause: its comparison and each selector segment looked up | 1 + segments |
 * | each list element compared by `in` / `contains` | 1 |
 * | each list element visited by `any` / `all`, before its body | 1 |
 * | each key of a map listed (by `any` / `all`, or `is empty`) | 16 |
 * | each map entry visited by `any` / `all`, before its body | 2 |
 * | text searched by `in` / `contains` on a string, or by a literal `matches` | 1 + length / 4 |
 * | a regular expression run over a text | 40 + size × (length + 1) |
 *
 * The clauses outside collections are the *fixed* cost, charged once when an evaluation starts
 * (every clause, even one that short-circuiting skips). A collection charges, for every element it
 * visits, one unit plus the fixed cost of its body; lists scanned by `in`, texts and patterns are
 * charged when met. The weights were measured (`npm run bench`) so that no unit takes more than
 * about 17 ns on a 2-core machine once the code is warm, and most take 4 to 15 ns.
 *
 * @module
 */
import { operator, unhandled } from "../operators.js";
import type { Expression, MatchExpression } from "../ast.js";
import { forEachClause } from "../ast-walk.js";
import { FilterEvaluationError } from "../errors.js";

/** How many characters of searched text cost one unit. */
export const TEXT_CHARS_PER_UNIT = 4;

/**
 * The units of listing one key of a map. Listing keys is the one step whose time per element
 * grows with the size (about 2 ns a key for small maps, 200 ns for 100,000 keys, 350 ns for a
 * million), so it is priced for large maps.
 */
export const KEY_LIST_COST = 16;

/** The units of visiting one map entry with `any`/`all` (a list element costs 1): it is looked up and bound. */
export const MAP_ENTRY_COST = 2;

/** The units of calling a compiled regular expression at all, whatever the text (re2js sets up a match: about 400 ns). */
export const PATTERN_CALL_COST = 40;

/** The units of searching a text of `length` characters for a substring. */
export function textCost(length: number): number {
  return 1 + Math.floor(length / TEXT_CHARS_PER_UNIT);
}

/** The units of running a pattern of `size` over a text of `length` (a literal pattern, size 0, is a text search). */
export function patternCost(size: number, length: number): number {
  return size === 0 ? textCost(length) : PATTERN_CALL_COST + size * (length + 1);
}

/** The units of one match clause's lookup and comparison, or of a collection's lookup. */
export function clauseCost(node: { readonly selector: { readonly path: readonly string[] } }): number {
  return 1 + node.selector.path.length;
}

/**
 * The fixed cost of an expression: its clauses outside collections (a collection counts its own
 * lookup; its body is charged per element).
 */
export function fixedCost(expression: Expression): number {
  let total = 0;
  forEachClause(expression, (clause) => (total += clauseCost(clause)), false);
  return total;
}

/** The sizes of a value a worst case is computed for. */
export interface ValueSizes {
  /** The most elements of any list or entries of any map (collections, and lists searched by `in`). */
  readonly length: number;
  /** The most characters of any string. */
  readonly textLength: number;
}

/**
 * The most units one evaluation of `expression` can cost on a value of the given sizes.
 * `patternSize` gives the size of each `matches` clause's pattern.
 */
export function worstCaseCost(expression: Expression, sizes: ValueSizes, patternSize: (node: MatchExpression) => number): number {
  const cost = (node: Expression): number => {
    switch (node.kind) {
      case "Or":
      case "And":
        return node.operands.reduce((sum, operand) => sum + cost(operand), 0);
      case "Not":
        return cost(node.operand);
      case "Match":
      {
        // By the operator's test (the operator table): a new test is a compile error here.
        const test = operator(node.operator).test;
        switch (test) {
          case "in":
            return clauseCost(node) + Math.max(sizes.length, textCost(sizes.textLength));
          case "matches":
            return clauseCost(node) + patternCost(patternSize(node), sizes.textLength);
          case "empty":
            return clauseCost(node) + sizes.length * KEY_LIST_COST;
          case "equal":
          case "nil":
            return clauseCost(node);
          default:
            return unhandled(test);
        }
      }
      case "Collection":
        // A map's keys are listed, then each entry visited.
        return clauseCost(node) + sizes.length * (KEY_LIST_COST + MAP_ENTRY_COST + cost(node.body));
    }
  };
  return cost(expression);
}

/**
 * A budget shared by many evaluations: give one to `Filter.test` or `Filter.filter` to bound the
 * total work of a request (every value's evaluation is charged to it, besides the per-value limit).
 *
 * @example
 * ```ts
 * const budget = new CostBudget(10_000_000);
 * filter.filter(rows, budget); // throws FilterEvaluationError "cost_exceeded" once the rows cost more
 * budget.spent; // units charged so far
 * ```
 */
export class CostBudget {
  /** The units this budget started with. */
  readonly limit: number;
  #remaining: number;

  /** @param limit - the units the evaluations may spend together (a non-negative number). */
  constructor(limit: number) {
    if (typeof limit !== "number" || Number.isNaN(limit) || limit < 0) throw new TypeError(`a cost budget must be a non-negative number, got ${String(limit)}`);
    this.limit = limit;
    this.#remaining = limit;
  }

  /** The units left. */
  get remaining(): number {
    return this.#remaining;
  }

  /** The units spent so far. */
  get spent(): number {
    return this.limit - this.#remaining;
  }

  /** @internal Charges `units` (an evaluation's total, once it is known). */
  charge(units: number): void {
    this.#remaining -= units;
  }

  /**
   * @internal Sets the units left, as a loop over many evaluations kept them: charged one
   * evaluation after the other as {@link CostBudget.charge} does, in a local of its own.
   */
  settle(remaining: number): void {
    this.#remaining = remaining;
  }
}

/** The reason of a `cost_exceeded` error. */
export function costExceededReason(limit: number, shared: boolean): string {
  return shared
    ? `the evaluations exceeded their shared cost budget of ${limit} units`
    : `the evaluation exceeded its cost budget of ${limit} units`;
}

/** The `cost_exceeded` error of a clause. */
export function costExceeded(reason: string, span: { start: number; end: number }, source: string | undefined): FilterEvaluationError {
  return new FilterEvaluationError("cost_exceeded", reason, span, source);
}
