/**
 * `format`: the canonical spelling of a filter.
 *
 * @module
 */
import { parse, type ParseOptions } from "../parser/parse.js";
import { print } from "../parser/printer.js";

/**
 * The canonical spelling of a filter: one space around operators and keywords, lower-case
 * keywords, strings in double quotes, selectors in dotted form where they can be, and only the
 * parentheses precedence needs. The result parses to the same AST, and formatting it again
 * changes nothing.
 *
 * @throws {@link FilterSyntaxError} when the filter is not valid (see {@link validate} for all its problems).
 * @example
 * ```ts
 * format('(Status=="running")  and  ((Meta["owner"] == `team-a`))');
 * // 'Status == "running" and Meta.owner == "team-a"'
 * ```
 */
export function format(source: string, options: ParseOptions = {}): string {
  return print(parse(source, options));
}
