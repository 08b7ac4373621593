import { compileFilter, FilterEvaluationError, FilterSyntaxError, parse, type CompileOptions } from "../../src/index.js";
import { show } from "./show.js";

/** Parses `source` and returns the FilterSyntaxError it throws (fails the test if it parses). */
export function syntaxErrorOf(source: string): FilterSyntaxError {
  try {
    const ast = parse(source);
    throw new Error(`expected a syntax error, parsed ${show(ast)}`);
  } catch (error) {
    if (error instanceof FilterSyntaxError) return error;
    throw error;
  }
}

/** Compiles `source`, evaluates it on `value`, and returns the FilterEvaluationError it throws. */
export function evaluationErrorOf(source: string, value: unknown, options: CompileOptions = {}): FilterEvaluationError {
  let result: boolean;
  try {
    result = compileFilter(source, options).test(value);
  } catch (error) {
    if (error instanceof FilterEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail, it gave ${result}`);
}

/** Runs `run` and returns what it throws (fails the test if it returns). */
export function catchError(run: () => unknown): unknown {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    return error;
  }
  throw new Error(`expected an error, got ${String(result)}`);
}
