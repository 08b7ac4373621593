/**
 * `compileFilter`: the one call most users need, from source (or an AST) to a reusable filter.
 *
 * @module
 */
import type { Expression } from "./ast.js";
import { compileExpression, type EvaluatorOptions, type Filter } from "./evaluator/compile.js";
import { parse, type ParseOptions } from "./parser/parse.js";

/** Options of {@link compileFilter}. */
export interface CompileOptions extends ParseOptions, Omit<EvaluatorOptions, "generalOnly"> {}

/**
 * Compiles a filter once, to evaluate it on many values.
 *
 * Compiling validates everything that can be checked without data: the syntax and limits,
 * every `matches` pattern (an invalid regex is a syntax error here, where the reference reports
 * it only for objects that reach the clause), and, in strict typed mode, every selector.
 *
 * @param input - filter source, or an AST from {@link parse}.
 * @throws {@link FilterSyntaxError} when the filter is not valid.
 * @example
 * ```ts
 * const running = compileFilter('Status == "running" and "dc1" in Datacenters');
 * running.test({ Status: "running", Datacenters: ["dc1"] }); // true
 * running.filter(jobs); // the matching jobs
 * ```
 */
export function compileFilter<T = unknown>(input: string | Expression, options: CompileOptions = {}): Filter<T> {
  if (typeof input === "string") {
    const { limits, ...evaluatorOptions } = options;
    const expression = parse(input, limits === undefined ? {} : { limits });
    return compileExpression<T>(expression, { ...evaluatorOptions, source: input });
  }
  return compileExpression<T>(input, options);
}
