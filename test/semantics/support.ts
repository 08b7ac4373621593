/**
 * Helpers shared by the semantics tables. Every table row states a filter, the value it is
 * evaluated on and the outcome filter-semantics.md prescribes: `true`, `false`, or the stable
 * `code` of the error (`"missing_key"`; a syntax error at compile time reads `"syntax:invalid_regex"`).
 */
import { expect, it } from "vitest";
import {
  compileFilter,
  FilterEvaluationError,
  FilterSyntaxError,
  parse,
  type CompileOptions,
  type FieldSchema,
  type Span,
} from "../../src/index.js";
import { syntaxErrorOf } from "../support/errors.js";
import { show } from "../support/show.js";

export { syntaxErrorOf };

/** What evaluating a filter on one value gives: the boolean, or the code of the error thrown. */
export type Outcome = boolean | string;

/** The general evaluation path (fast paths off), which must agree with the default one. */
type InternalOptions = CompileOptions & { generalOnly?: boolean; tierUpAfter?: number };

function run(source: string, value: unknown, options: InternalOptions): Outcome {
  let filter;
  try {
    filter = compileFilter(source, options);
  } catch (error) {
    if (error instanceof FilterSyntaxError) return `syntax:${error.code}`;
    throw error;
  }
  try {
    const result = filter.test(value);
    if (typeof result !== "boolean") throw new TypeError(`test() returned ${String(result)}`);
    return result;
  } catch (error) {
    if (error instanceof FilterEvaluationError) return error.code;
    throw error;
  }
}

/** Evaluates `source` on `value` (map mode, or typed mode with `schema`) and returns the outcome. */
export function outcome(source: string, value: unknown, schema?: FieldSchema, strict?: boolean): Outcome {
  const options: InternalOptions = {};
  if (schema !== undefined) Object.assign(options, { schema });
  if (strict !== undefined) Object.assign(options, { strict });
  return run(source, value, options);
}

/**
 * Asserts the outcome of a row on every evaluation path: the default (the filter compiled to
 * JavaScript), the closures (`codegen: false`, as under a Content-Security-Policy) and the general
 * one (fast paths off). A disagreement between them is a bug as well.
 */
export function expectOutcome(source: string, value: unknown, expected: Outcome, schema?: FieldSchema, strict?: boolean): void {
  const options: InternalOptions = {};
  if (schema !== undefined) Object.assign(options, { schema });
  if (strict !== undefined) Object.assign(options, { strict });
  // The generated code from the first evaluation, rather than after TIER_UP_EVALUATIONS of them.
  expect(run(source, value, { ...options, tierUpAfter: 0 }), "generated code").toBe(expected);
  expect(run(source, value, { ...options, codegen: false }), "closures").toBe(expected);
  expect(run(source, value, { ...options, generalOnly: true }), "general evaluator").toBe(expected);
}

/** One table of the semantics: the value its rows are evaluated on, the rows, and the schema in typed mode. */
export interface OutcomeTable {
  readonly value: unknown;
  readonly rows: ReadonlyArray<readonly [string, Outcome]>;
  readonly schema?: FieldSchema;
}

/**
 * Every table declared so far in this module graph, so that another backend can be held to the
 * same rows (test/sql/semantics.test.ts imports the table files, then reads this).
 */
export const OUTCOME_TABLES: OutcomeTable[] = [];

/** Declares a table: a test per row that `source` on `value` gives the outcome, and the table recorded in {@link OUTCOME_TABLES}. */
export function outcomeTable(value: unknown, rows: ReadonlyArray<readonly [string, Outcome]>, schema?: FieldSchema) {
  OUTCOME_TABLES.push(schema === undefined ? { value, rows } : { value, rows, schema });
  return it.each(rows)("%s gives %s", (source, expected) => {
    expectOutcome(source, value, expected, schema);
  });
}

/** The parse error a source gives (the first diagnostic, which is also the error's own position). */
export interface ExpectedSyntaxError {
  readonly code: string;
  /** Full span, or only its start when the end is a matter of convention. */
  readonly span?: Span;
  readonly start?: number;
  readonly line?: number;
  readonly column?: number;
}

/** Asserts that `source` is rejected by `parse` with the given code and position. */
export function expectSyntaxError(source: string, expected: ExpectedSyntaxError): void {
  const error = syntaxErrorOf(source);
  const first = error.diagnostics[0]!;
  expect(error.code).toBe(expected.code);
  expect(first.code).toBe(expected.code);
  expect(first.span).toEqual(error.span);
  if (expected.span !== undefined) expect(first.span).toEqual(expected.span);
  if (expected.start !== undefined) expect(first.span.start).toBe(expected.start);
  if (expected.line !== undefined) {
    expect(first.line).toBe(expected.line);
    expect(error.line).toBe(expected.line);
  }
  if (expected.column !== undefined) {
    expect(first.column).toBe(expected.column);
    expect(error.column).toBe(expected.column);
  }
}

/** The S-expression of a source's AST. */
export function shape(source: string): string {
  return show(parse(source));
}

/** The span of the first occurrence of `part` in `source` (a readable way to write spans). */
export function spanOf(source: string, part: string, from = 0): Span {
  const start = source.indexOf(part, from);
  if (start < 0) throw new Error(`${JSON.stringify(part)} is not in ${JSON.stringify(source)}`);
  return { start, end: start + part.length };
}
