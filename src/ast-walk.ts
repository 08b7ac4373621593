/**
 * A walk over the clauses of an expression tree, without recursion (trees from programs may be
 * deep; see `ast-check.ts`).
 *
 * @module
 */
import type { CollectionExpression, Expression, MatchExpression } from "./ast.js";

/**
 * Calls `visit` for every match and collection clause of `expression`. With `intoBodies` false,
 * the clauses inside collection bodies are left out (the collections themselves are visited).
 */
export function forEachClause(expression: Expression, visit: (clause: MatchExpression | CollectionExpression) => void, intoBodies = true): void {
  const stack: Expression[] = [expression];
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.kind) {
      case "Or":
      case "And":
        stack.push(...node.operands);
        break;
      case "Not":
        stack.push(node.operand);
        break;
      case "Collection":
        visit(node);
        if (intoBodies) stack.push(node.body);
        break;
      case "Match":
        visit(node);
        break;
    }
  }
}

/**
 * The first segment of every selector of `expression`: the root fields the filter may read.
 * Selectors inside collection bodies count too, though theirs may name a binding instead.
 */
export function selectorRoots(expression: Expression): Set<string> {
  const roots = new Set<string>();
  forEachClause(expression, (clause) => roots.add(clause.selector.path[0]!));
  return roots;
}
