/**
 * bexpr: the filter-expression language of the scheduler's HTTP API.
 *
 * ```ts
 * import { compileFilter, validate, schemas } from "bexpr";
 * const filter = compileFilter('Status == "running" and "dc1" in Datacenters');
 * filter.filter(jobs);
 * validate('Stauts == "running"', { schema: schemas.job }); // one diagnostic: did you mean "Status"?
 * ```
 *
 * @packageDocumentation
 * @module bexpr
 */
export type * from "./ast.js";
export { parseJson, stringifyJson, MAX_JSON_DEPTH } from "./json.js";
export { OPERATORS, MATCH_OPERATORS, negationOf, type OperatorDefinition, type Spelling, type Test, type ValueKind } from "./operators.js";
export {
  FilterError,
  FilterSyntaxError,
  FilterEvaluationError,
  applyFix,
  type Fix,
  type TextEdit,
  type Diagnostic,
  type DiagnosticSeverity,
  type SyntaxErrorCode,
  type EvaluationErrorCode,
} from "./errors.js";
export {
  DEFAULT_LIMITS,
  MAX_CLAUSES,
  MAX_DIAGNOSTICS,
  MAX_EVALUATION_COST,
  MAX_NESTING_DEPTH,
  MAX_PATTERN_SIZE,
  MAX_SOURCE_LENGTH,
  NESTING_DEPTH_CEILING,
  type Limits,
} from "./limits.js";
export { parse, type ParseOptions } from "./parser/parse.js";
export { print } from "./parser/printer.js";
export { compileFilter, type CompileOptions } from "./filter.js";
export { Filter } from "./evaluator/compile.js";
export { CostBudget, TEXT_CHARS_PER_UNIT, type ValueSizes } from "./evaluator/cost.js";
export type { ArraySchema, FieldSchema, MapSchema, ObjectSchema, ScalarKind } from "./evaluator/schema.js";
export { schemas } from "./schemas.js";
export { fixAll, MAX_FIXES, validate, type FixedFilter, type ValidateOptions } from "./editor/validate.js";
export { complete, MAX_VALUE_COMPLETIONS, type CompleteOptions, type Completion, type CompletionKind } from "./editor/complete.js";
export { format } from "./editor/format.js";
export { hover, type HoverInfo, type HoverOptions } from "./editor/hover.js";
export {
  explain,
  formatExplanation,
  MAX_EXPLAINED_CLAUSES,
  MAX_PREVIEW_LENGTH,
  type ClauseOutcome,
  type ExplainOptions,
  type ExplainedClause,
  type ExplainedCollection,
  type ExplainedElement,
  type ExplainedGroup,
  type ExplainedMatch,
  type ExplainedNot,
  type Explanation,
  type Found,
} from "./editor/explain.js";
