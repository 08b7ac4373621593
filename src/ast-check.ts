/**
 * Checks a tree handed to `compileFilter` or `print` by a program rather than produced by
 * `parse`: its shape (a TypeError names the first node that is not an {@link Expression}) and the
 * limits `parse` would have applied to the source (nesting and clauses), without recursion, so
 * that no tree, however deep, can exhaust the stack.
 *
 * @module
 */
import type { Expression, Span } from "./ast.js";
import { isUnary, MATCH_OPERATORS, type MatchOperator } from "./operators.js";
import { createDiagnostic, FilterSyntaxError } from "./errors.js";
import type { Limits } from "./limits.js";

const BINARY_OPERATORS: ReadonlySet<string> = new Set<MatchOperator>(MATCH_OPERATORS.filter((name) => !isUnary(name)));
const UNARY_OPERATORS: ReadonlySet<string> = new Set<MatchOperator>(MATCH_OPERATORS.filter(isUnary));

/**
 * How deep a parsed tree can be for a source within `maxNestingDepth`: each parenthesis or body
 * may hold an `or` of `and`s of a `not`, and the top level one more of each.
 */
export function maxTreeDepth(maxNestingDepth: number): number {
  return 3 * (maxNestingDepth + 1) + 1;
}

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isSpan(value: unknown): value is Span {
  return isRecord(value) && typeof value.start === "number" && typeof value.end === "number";
}

function isName(value: unknown): boolean {
  return typeof value === "string" && value !== "";
}

/**
 * Asserts that `value` is a well-formed expression within `limits`.
 *
 * @throws TypeError for a value that is not an expression tree (naming where, as a path such as
 * `operands[1].selector.path`), FilterSyntaxError (`nesting_too_deep`, `too_many_clauses`) for a
 * tree beyond the limits.
 */
export function checkExpression(value: unknown, limits: Pick<Limits, "maxNestingDepth" | "maxClauses">): asserts value is Expression {
  const maxDepth = maxTreeDepth(limits.maxNestingDepth);
  const stack: { node: unknown; where: string; depth: number }[] = [{ node: value, where: "the expression", depth: 1 }];
  let clauses = 0;
  const invalid = (where: string, what: string): never => {
    throw new TypeError(`not a filter expression: ${where} ${what}`);
  };
  const tooMuch = (code: "nesting_too_deep" | "too_many_clauses", message: string, span: Span): never => {
    throw new FilterSyntaxError(undefined, [createDiagnostic(undefined, code, message, span)]);
  };
  const checkSelector = (selector: unknown, where: string): void => {
    if (!isRecord(selector) || selector.kind !== "Selector") invalid(where, "is not a Selector");
    const { form, path, span } = selector as Record_;
    if (form !== "Bexpr" && form !== "Pointer") invalid(`${where}.form`, 'is neither "Bexpr" nor "Pointer"');
    if (!Array.isArray(path) || path.length === 0 || !path.every((segment) => typeof segment === "string")) invalid(`${where}.path`, "is not a non-empty list of strings");
    if (!isSpan(span)) invalid(`${where}.span`, "is not a span");
  };

  while (stack.length > 0) {
    const { node, where, depth } = stack.pop()!;
    if (!isRecord(node)) invalid(where, "is not an object");
    const record = node as Record_;
    if (!isSpan(record.span)) invalid(`${where}.span`, "is not a span { start, end }");
    const span = record.span as Span;
    if (depth > maxDepth) tooMuch("nesting_too_deep", `the expression nests more than ${maxDepth} nodes deep`, span);
    switch (record.kind) {
      case "Or":
      case "And": {
        const operands = record.operands;
        if (!Array.isArray(operands) || operands.length === 0) invalid(`${where}.operands`, "is not a non-empty list");
        (operands as unknown[]).forEach((operand, i) => stack.push({ node: operand, where: `${where}.operands[${i}]`, depth: depth + 1 }));
        break;
      }
      case "Not":
        stack.push({ node: record.operand, where: `${where}.operand`, depth: depth + 1 });
        break;
      case "Match": {
        clauses++;
        const operator = record.operator;
        checkSelector(record.selector, `${where}.selector`);
        if (typeof operator === "string" && BINARY_OPERATORS.has(operator)) {
          const literal = record.value;
          if (!isRecord(literal) || literal.kind !== "Value" || typeof literal.raw !== "string" || !isSpan(literal.span)) {
            invalid(`${where}.value`, "is not a Value { raw, span }");
          }
          if ((operator === "In" || operator === "NotIn") && record.spelling !== "in" && record.spelling !== "contains") {
            invalid(`${where}.spelling`, 'is neither "in" nor "contains"');
          }
        } else if (typeof operator !== "string" || !UNARY_OPERATORS.has(operator)) {
          invalid(`${where}.operator`, `is not a match operator: ${JSON.stringify(operator)}`);
        }
        break;
      }
      case "Collection": {
        clauses++;
        if (record.quantifier !== "Any" && record.quantifier !== "All") invalid(`${where}.quantifier`, 'is neither "Any" nor "All"');
        checkSelector(record.selector, `${where}.selector`);
        const binding = record.binding;
        const names: Record<string, readonly string[]> = { Default: ["name"], IndexAndValue: ["index", "value"], Index: ["index"], Value: ["value"] };
        const required = isRecord(binding) && typeof binding.mode === "string" ? names[binding.mode] : undefined;
        if (required === undefined || !required.every((key) => isName((binding as Record_)[key]))) invalid(`${where}.binding`, "is not a binding");
        stack.push({ node: record.body, where: `${where}.body`, depth: depth + 1 });
        break;
      }
      default:
        invalid(where, `has no expression kind: ${JSON.stringify(record.kind)}`);
    }
    if (clauses > limits.maxClauses) tooMuch("too_many_clauses", `the expression has more than ${limits.maxClauses} clauses`, span);
  }
}
