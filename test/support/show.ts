import type { Expression, Selector } from "../../src/ast.js";

/**
 * A compact, readable rendering of an AST for table tests, without spans:
 * `(and (== Status "running") (in Datacenters "dc1"))`. Pointer selectors print as `/a/b`.
 */
export function show(node: Expression): string {
  switch (node.kind) {
    case "Or":
    case "And":
      return `(${node.kind.toLowerCase()} ${node.operands.map(show).join(" ")})`;
    case "Not":
      return `(not ${show(node.operand)})`;
    case "Collection": {
      const b = node.binding;
      const names = b.mode === "Default" ? b.name : b.mode === "IndexAndValue" ? `${b.index},${b.value}` : b.mode === "Index" ? `${b.index},_` : `_,${b.value}`;
      return `(${node.quantifier.toLowerCase()} ${selector(node.selector)} ${names} ${show(node.body)})`;
    }
    case "Match": {
      const op = {
        Equal: "==",
        NotEqual: "!=",
        In: "in",
        NotIn: "not-in",
        IsEmpty: "empty",
        IsNotEmpty: "not-empty",
        IsNil: "nil",
        IsNotNil: "not-nil",
        Matches: "matches",
        NotMatches: "not-matches",
      }[node.operator];
      return "value" in node ? `(${op} ${selector(node.selector)} ${JSON.stringify(node.value.raw)})` : `(${op} ${selector(node.selector)})`;
    }
  }
}

function selector(s: Selector): string {
  return s.form === "Pointer" ? `/${s.path.join("/")}` : s.path.map((p) => (/^[A-Za-z0-9_/]+$/.test(p) ? p : JSON.stringify(p))).join(".");
}

/** Removes spans (recursively) so trees from different sources can be compared. */
export function withoutSpans(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSpans);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== "span").map(([k, v]) => [k, withoutSpans(v)]));
  }
  return value;
}
