/**
 * Prints an AST as canonical filter source: one space around operators, parentheses only where
 * precedence (or a collection's position) needs them, values quoted unless they are numbers.
 * Parsing the output gives back the same AST (spans aside) for every tree the parser produces.
 *
 * @module
 */
import { spellingOf } from "../operators.js";
import type { CollectionBinding, Expression, MatchExpression, Selector, Value } from "../ast.js";
import { checkExpression } from "../ast-check.js";
import { NESTING_DEPTH_CEILING } from "../limits.js";
import { encodePointerLiteral, quoteDouble } from "../go/strings.js";

const IDENTIFIER = /^[a-zA-Z][a-zA-Z0-9_/]*$/;
const DIGITS = /^[0-9]+$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/**
 * Prints an expression as filter source.
 *
 * @throws TypeError when `expression` is not an expression tree, or when a hand-built tree holds
 * something the language cannot express (a selector whose first segment is not a name and that
 * no JSON pointer can spell, or a binding name that is not an identifier); FilterSyntaxError
 * (`nesting_too_deep`) for a tree deeper than any filter within the nesting ceiling.
 * @example
 * ```ts
 * print(parse('Status=="running"  and("dc1" in Datacenters or x==5)'.replace("and(", "and ("))));
 * // 'Status == "running" and ("dc1" in Datacenters or x == 5)'
 * ```
 */
export function print(expression: Expression): string {
  checkExpression(expression, { maxNestingDepth: NESTING_DEPTH_CEILING, maxClauses: Infinity });
  return printNode(expression);
}

function printNode(node: Expression): string {
  switch (node.kind) {
    case "Or":
      return node.operands
        .map((operand, i) => {
          // A collection may end an or-chain; anywhere else it needs parentheses.
          const bare = operand.kind === "And" || operand.kind === "Not" || operand.kind === "Match" || (operand.kind === "Collection" && i === node.operands.length - 1);
          return bare ? printNode(operand) : `(${printNode(operand)})`;
        })
        .join(" or ");
    case "And":
      return node.operands.map((operand) => (operand.kind === "Not" || operand.kind === "Match" ? printNode(operand) : `(${printNode(operand)})`)).join(" and ");
    case "Not":
      return node.operand.kind === "Match" ? `not ${printNode(node.operand)}` : `not (${printNode(node.operand)})`;
    case "Match":
      return printMatch(node);
    case "Collection":
      return `${node.quantifier === "Any" ? "any" : "all"} ${printSelector(node.selector)} as ${printBinding(node.binding)} { ${printNode(node.body)} }`;
    default:
      return unreachable(node);
  }
}

function printMatch(node: MatchExpression): string {
  const selector = printSelector(node.selector);
  // The operator's words and their order come from the operator table.
  if (!("value" in node)) return `${selector} ${spellingOf(node.operator, "in").text}`;
  const spelling = spellingOf(node.operator, node.spelling);
  const value = printValue(node.value);
  return spelling.order === "value-first" ? `${value} ${spelling.text} ${selector}` : `${selector} ${spelling.text} ${value}`;
}

/**
 * Text a backtick string shows as it is: printable (no control characters; raw strings drop CR),
 * without a backtick, and without surrogates (a lone one is kept by double-quoted strings only).
 */
const RAW_SAFE = /^[^`\u0000-\u001f\u007f-\u009f\ud800-\udfff]*$/;

/**
 * Numbers and the booleans `true` and `false` print bare (a bare word is its own text); text with
 * a backslash (regular expressions, Windows paths) in backticks, where it needs no escaping;
 * everything else as a double-quoted string that reads back to the same text.
 */
function printValue(value: Value): string {
  if (NUMBER.test(value.raw) || value.raw === "true" || value.raw === "false") return value.raw;
  if (value.raw.includes("\\") && RAW_SAFE.test(value.raw)) return `\`${value.raw}\``;
  return quoteDouble(value.raw);
}

function printSelector(selector: Selector): string {
  const [head, ...rest] = selector.path;
  const pointer = encodePointerLiteral(selector.path);
  if (selector.form === "Pointer" && pointer !== undefined) return pointer;
  if (head !== undefined && IDENTIFIER.test(head)) {
    return head + rest.map((segment) => (IDENTIFIER.test(segment) || DIGITS.test(segment) ? `.${segment}` : `[${quoteDouble(segment)}]`)).join("");
  }
  if (pointer !== undefined) return pointer;
  throw new TypeError(`the selector ${JSON.stringify(selector.path)} cannot be written in the filter language`);
}

function printBinding(binding: CollectionBinding): string {
  const names = (() => {
    switch (binding.mode) {
      case "Default":
        return [binding.name];
      case "IndexAndValue":
        return [binding.index, binding.value];
      case "Index":
        return [binding.index, "_"];
      case "Value":
        return ["_", binding.value];
      default:
        return unreachable(binding);
    }
  })();
  for (const name of names) {
    if (name !== "_" && !IDENTIFIER.test(name)) throw new TypeError(`${JSON.stringify(name)} is not a valid binding name`);
  }
  return names.join(", ");
}

function unreachable(value: never): never {
  throw new TypeError(`not a filter expression: ${JSON.stringify(value)}`);
}
