/**
 * `validate`: every problem of a filter in one pass, for editors. Never throws.
 *
 * @module
 */
import type { Span } from "../ast.js";
import { applyFix, capDiagnostics, createDiagnostic, FilterSyntaxError, replaceFix, type Diagnostic, type Fix } from "../errors.js";
import { compileExpression } from "../evaluator/compile.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { analysisOf, type FilterAnalysis } from "../parser/analysis.js";
import { isStackOverflow, requireSource, stackDiagnostic, type ParseOptions } from "../parser/parse.js";

/** Options of {@link validate}. */
export interface ValidateOptions extends ParseOptions {
  /**
   * The schema of the objects the filter is for ({@link schemas}`.job`, `.deployment`, or your
   * own): selectors naming fields it lacks are reported, with the nearest field name.
   */
  readonly schema?: FieldSchema;
}

/**
 * Checks a filter and returns every problem found, in source order; an empty list means the
 * filter is valid. It never throws, whatever the string (a value that is not a string is a
 * TypeError).
 *
 * After a syntax error the parser recovers and goes on, so several mistakes are reported at once.
 * Each diagnostic has a stable `code`, a `severity`, a plain `message`, the exact `span` (offsets
 * into `source`), the 1-based `line` and `column` of its start, and a `suggestion` where a fix is
 * known: an unquoted value with `-`, `AND` for `and`, `>=` (the language has no ordering), an
 * unclosed string, bracket or parenthesis, a field the schema lacks (with the nearest name), an
 * invalid regular expression (with Go's reason).
 *
 * @example
 * ```ts
 * validate('Status == running AND Version >= 3').map((d) => d.code);
 * // ["unexpected_token", "unsupported_operator"]
 * validate('Stauts == "running"', { schema: schemas.job })[0].suggestion; // 'did you mean "Status"?'
 * ```
 */
export function validate(source: string, options: ValidateOptions = {}): Diagnostic[] {
  requireSource(source);
  const filter = analysisOf(source, options.limits);
  const analysis = filter.recovered;
  const diagnostics = [...analysis.diagnostics];
  if (analysis.expression !== undefined && !diagnostics.some(isStructural)) {
    // Checks that need the tree: regular expressions, and selectors against the schema. The filter
    // is never run here, so no JavaScript is generated for it (codegen: false): that also keeps
    // validate from probing for `new Function`, which a page's Content-Security-Policy reports.
    try {
      compileExpression(analysis.expression, { source, schema: options.schema, strict: options.schema !== undefined, limits: options.limits, warnings: diagnostics, codegen: false });
    } catch (error) {
      if (isStackOverflow(error)) diagnostics.push(stackDiagnostic(source));
      else if (error instanceof FilterSyntaxError) diagnostics.push(...error.diagnostics);
      else throw error;
    }
  }
  diagnostics.push(...unclosedBrackets(filter, diagnostics));
  diagnostics.sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
  return capDiagnostics(source, diagnostics);
}

/** The most fixes {@link fixAll} applies to one filter (each one a `validate` of the whole filter). */
export const MAX_FIXES = 50;

/** What {@link fixAll} gives: the fixed filter, the fixes it applied, in order, and the problems left. */
export interface FixedFilter {
  /** The filter with the fixes applied. */
  readonly source: string;
  /** The fixes applied, in order (each to the filter the ones before it left). */
  readonly applied: readonly Fix[];
  /** The problems left: none when the filter is whole again. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Applies quick fixes until none is left (at most {@link MAX_FIXES}): each round takes the first
 * problem whose first fix makes progress (fewer problems left, or as many with the first one
 * further on), as `bexpr check --fix` does.
 *
 * @example
 * ```ts
 * fixAll('status = "running" AND !Stop', { schema: schemas.job }).source; // 'Status == "running" and Stop == false'
 * ```
 */
export function fixAll(source: string, options: ValidateOptions = {}): FixedFilter {
  let current = source;
  let diagnostics = validate(current, options);
  const applied: Fix[] = [];
  while (applied.length < MAX_FIXES) {
    let next: { source: string; diagnostics: Diagnostic[]; fix: Fix } | undefined;
    for (const fix of diagnostics.flatMap((diagnostic) => diagnostic.fixes?.slice(0, 1) ?? [])) {
      const fixed = applyFix(current, fix);
      const left = validate(fixed, options);
      if (isProgress(left, diagnostics)) {
        next = { source: fixed, diagnostics: left, fix };
        break;
      }
    }
    if (next === undefined) break;
    [current, diagnostics] = [next.source, next.diagnostics];
    applied.push(next.fix);
  }
  return { source: current, applied, diagnostics };
}

/**
 * A fix made progress: fewer problems are left, or as many with the first one later in the
 * source (the parser reports one problem per stretch it cannot read, so `OR NOT (…)` is one
 * problem before `OR` is fixed, and one after, at `NOT`).
 */
function isProgress(after: readonly Diagnostic[], before: readonly Diagnostic[]): boolean {
  if (after.length !== before.length) return after.length < before.length;
  return after.length > 0 && after[0]!.span.start > before[0]!.span.start;
}

/** A limit was hit: the analysis stopped early, and nothing more should be checked. */
function isStructural(diagnostic: Diagnostic): boolean {
  return diagnostic.code === "source_too_long" || diagnostic.code === "nesting_too_deep" || diagnostic.code === "too_many_clauses";
}

/**
 * `(` and `[` left open at the end. The parser stops at the end of the input with "expected …",
 * which says what is missing next but not which bracket is open; this names it, unless a
 * diagnostic already points at it.
 */
function unclosedBrackets(filter: FilterAnalysis, found: readonly Diagnostic[]): Diagnostic[] {
  if (found.some(isStructural)) return [];
  const { source } = filter;
  const open = filter.openBrackets(source.length, ["(", "["]);
  // The parser reports an unclosed index where the `]` should be, and an unclosed group at its `(`:
  // a bracket is reported when a diagnostic of its code starts at it or after it.
  const lastStart = new Map<Diagnostic["code"], number>();
  for (const d of found) lastStart.set(d.code, Math.max(lastStart.get(d.code) ?? -1, d.span.start));
  const reported = (code: Diagnostic["code"], span: Span) => (lastStart.get(code) ?? -1) >= span.start;
  return open.flatMap(({ bracket, span }) => {
    if (reported(bracket === "(" ? "unmatched_parenthesis" : "unclosed_index", span)) return [];
    return bracket === "("
      ? [createDiagnostic(source, "unmatched_parenthesis", "this ( is never closed", span, 'add the missing ")"', "error", [replaceFix('add the missing ")" at the end', { start: source.length, end: source.length }, ")")])]
      : [createDiagnostic(source, "unclosed_index", "this [ is never closed", span, 'close the index: Meta["key"]')];
  });
}
