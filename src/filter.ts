/**
 * `compileFilter`: the one call most users need, from source (or an AST) to a reusable filter.
 *
 * @module
 */
import type { Expression } from "./ast.js";
import { checkExpression } from "./ast-check.js";
import { compileExpression, type EvaluatorOptions, type Filter } from "./evaluator/compile.js";
import { resolveLimits } from "./limits.js";
import { describeValue, parse, type ParseOptions } from "./parser/parse.js";

/** The options of a call without any. */
const NO_OPTIONS: CompileOptions = {};

/** Options of {@link compileFilter}. */
export interface CompileOptions extends ParseOptions, Omit<EvaluatorOptions, "generalOnly" | "tierUpAfter"> {}

/**
 * Compiles a filter once, to evaluate it on many values.
 *
 * Compiling validates everything that can be checked without data: the syntax and limits,
 * every `matches` pattern (an invalid regex is a syntax error here, where the reference reports
 * it only for objects that reach the clause; so is a filter whose patterns are larger than
 * `limits.maxPatternSize`), and, in strict typed mode, every selector. Each evaluation of the
 * filter is then held to `limits.maxCost` cost units.
 *
 * @param input - filter source, or an AST from {@link parse}.
 * @throws {@link FilterSyntaxError} when the filter is not valid; TypeError when `input` is
 * neither a string nor an expression tree.
 * @example
 * ```ts
 * const running = compileFilter('Status == "running" and "dc1" in Datacenters');
 * running.test({ Status: "running", Datacenters: ["dc1"] }); // true
 * running.filter(jobs); // the matching jobs
 * ```
 */
export function compileFilter<T = unknown>(input: string | Expression, options: CompileOptions = NO_OPTIONS): Filter<T> {
  if (typeof input === "string") {
    const expression = parse(input, options);
    // (No options, the common case: no object spread for them.)
    return compileExpression<T>(expression, options === NO_OPTIONS ? { source: input } : { ...options, source: input });
  }
  if (typeof input !== "object" || input === null) throw new TypeError(`the filter must be a string or an expression, got ${describeValue(input)}`);
  checkExpression(input, resolveLimits(options.limits));
  return compileExpression<T>(input, options);
}
