/**
 * The errors bexpr throws. Both kinds extend {@link FilterError}, carry a stable `code`, the
 * {@link Span} of the spot and a message that shows the source line with a caret under it.
 * Match on `code` (or `instanceof`), never on the message text.
 *
 * @module
 */
import type { Span } from "./ast.js";
import { MAX_DIAGNOSTICS } from "./limits.js";
import { locate, renderExcerpt } from "./source.js";

/** Codes of {@link FilterSyntaxError} diagnostics. */
export type SyntaxErrorCode =
  /** The source is empty or only whitespace. */
  | "empty_expression"
  /** A character that starts no token (`-`, `'`, a non-ASCII letter, a no-break space…). */
  | "unexpected_character"
  /** A token where the grammar does not allow it. */
  | "unexpected_token"
  /** The source ends where more is needed. */
  | "unexpected_end"
  /** A `"` or `` ` `` string that is never closed. */
  | "unterminated_string"
  /** A double-quoted string with an escape Go's `strconv.Unquote` rejects, or a raw newline. */
  | "invalid_string"
  /** A number followed by something other than whitespace, `)` or the end (`1e3`, `050`, `1}`). */
  | "invalid_number"
  /** A keyword that must be separated by whitespace is not (`)and(`, `not(`). */
  | "missing_whitespace"
  /** An operator the language does not have (`>=`, `<`, `&&`, `||`, `!`, `=`). */
  | "unsupported_operator"
  /** A quoted string where a selector is required, and it is not in JSON-pointer form. */
  | "invalid_selector"
  /** `[` not followed by a string literal. */
  | "invalid_index"
  /** `["key"` without its `]`. */
  | "unclosed_index"
  /** A `(` without its `)`, or the reverse. */
  | "unmatched_parenthesis"
  /** A `matches` pattern that RE2 cannot compile. */
  | "invalid_regex"
  /** With a schema in strict mode: a selector naming a field the schema does not have. */
  | "unknown_field"
  /** With a schema whose map lists its keys (`MapSchema.keys`): a selector naming another key (a warning). */
  | "unknown_key"
  /** The source exceeds {@link Limits.maxSourceLength}. */
  | "source_too_long"
  /** Parentheses or collection bodies nest deeper than {@link Limits.maxNestingDepth}. */
  | "nesting_too_deep"
  /** More clauses than {@link Limits.maxClauses}. */
  | "too_many_clauses"
  /** The regular expressions are larger than {@link Limits.maxPatternSize} (in program instructions). */
  | "pattern_too_large"
  /** More problems than {@link MAX_DIAGNOSTICS}: the rest were not looked for. */
  | "too_many_errors"
  /** Strict typed mode: a value that never converts to its field's kind (`Priority == "high"`). */
  | "invalid_literal"
  /** `Status == null`: compares with the text "null"; `is nil` tests for a missing value (a warning). */
  | "null_literal"
  /** `Path == "/v1/jobs"`: a double-quoted value in JSON-pointer form compares with "v1/jobs" (a warning; backticks keep the text). */
  | "pointer_literal"
  /** Strict typed mode: an operator that never applies to the field's kind (`matches` on an integer, `contains` on a bool). */
  | "unsupported_operand";

/** Codes of {@link FilterEvaluationError}. */
export type EvaluationErrorCode =
  /** A key is missing where the missing-key rule does not apply (top level, or mid-path). */
  | "missing_key"
  /** Typed mode: the object has no field of that name. */
  | "missing_field"
  /** The path continues into a value that is not a list or map (a string, a number, null). */
  | "invalid_path"
  /** A list index past the end, or one that is not a non-negative integer. */
  | "index_out_of_range"
  /** The literal cannot be converted to the kind of the field (`Priority == "high"`). */
  | "invalid_literal"
  /** The operator is not defined for the kind of value found (`"x" in Priority`, `Meta == "x"`). */
  | "unsupported_operand"
  /** The reference panics here (`matches` on null, `in` over a list holding null); we raise this. */
  | "nil_value"
  /** `any`/`all` over something that is neither a list nor a map. */
  | "not_a_collection"
  /** `as x, x`: one name used for both the index and the value. */
  | "duplicate_binding"
  /** A path that continues past a key or index binding (`k.owner` where `k` is a map key). */
  | "invalid_binding_path"
  /** The evaluation spent its cost budget ({@link Limits.maxCost}, or a shared {@link CostBudget}). */
  | "cost_exceeded";

/** Severity of a {@link Diagnostic}. */
export type DiagnosticSeverity = "error" | "warning";

/** One problem found in a filter's source. */
export interface Diagnostic {
  /** A stable, snake_case identifier of the problem; match on it, never on the message. */
  readonly code: SyntaxErrorCode;
  /** `"error"` makes the filter invalid ({@link parse} throws); a `"warning"` does not. */
  readonly severity: DiagnosticSeverity;
  /** One plain sentence, without position or excerpt. */
  readonly message: string;
  /** The offending text in the source; an empty span at the end when the source stops too early. */
  readonly span: Span;
  /** 1-based line of `span.start`. */
  readonly line: number;
  /** 1-based column of `span.start`, in code points. */
  readonly column: number;
  /** A concrete fix, when one is known (`write "and", not "AND"`). */
  readonly suggestion?: string;
  /**
   * The repairs of this problem as edits to the source, when one is obvious (`AND` → `and`, an
   * unclosed string closed): editors offer them as quick fixes, and {@link applyFix} applies one.
   */
  readonly fixes?: readonly Fix[];
}

/** One change to a filter's source: the text of `span` replaced by `text` (an empty span inserts). */
export interface TextEdit {
  /** The text replaced (offsets into the source). */
  readonly span: Span;
  /** The text put in its place. */
  readonly text: string;
}

/** A repair of a {@link Diagnostic}: its title, and the edits that make it. */
export interface Fix {
  /** What the fix does, for a menu (`replace "AND" with "and"`). */
  readonly title: string;
  /** Edits of the source; they do not overlap. */
  readonly edits: readonly TextEdit[];
}

/** A fix made of one edit. */
export function replaceFix(title: string, span: Span, text: string): Fix {
  return { title, edits: [{ span, text }] };
}

/**
 * Applies a fix to the source it was made for: its edits, from the last to the first.
 *
 * @example
 * ```ts
 * const [problem] = validate("Status == running AND Stop == false");
 * applyFix("Status == running AND Stop == false", problem.fixes![0]); // …
 * ```
 */
export function applyFix(source: string, fix: Fix): string {
  let text = source;
  for (const { span, text: replacement } of [...fix.edits].sort((a, b) => b.span.start - a.span.start)) {
    text = text.slice(0, span.start) + replacement + text.slice(span.end);
  }
  return text;
}

/**
 * Builds a {@link Diagnostic}, computing its line and column from the source (without a source,
 * an AST compiled on its own, the offset is reported on line 1).
 */
export function createDiagnostic(
  source: string | undefined,
  code: SyntaxErrorCode,
  message: string,
  span: Span,
  suggestion?: string,
  severity: DiagnosticSeverity = "error",
  fixes?: readonly Fix[],
): Diagnostic {
  const { line, column } = source === undefined ? { line: 1, column: span.start + 1 } : locate(source, span.start);
  return {
    code,
    severity,
    message,
    span,
    line,
    column,
    ...(suggestion === undefined ? {} : { suggestion }),
    ...(fixes === undefined || fixes.length === 0 ? {} : { fixes }),
  };
}

/**
 * Keeps the first {@link MAX_DIAGNOSTICS} of a list sorted by position and, when more were found
 * or the search stopped early (`stopped`, or a `too_many_errors` already in the list), ends it with
 * one `too_many_errors` diagnostic spanning the rest of the source.
 */
export function capDiagnostics(source: string, sorted: readonly Diagnostic[], stopped = false): Diagnostic[] {
  const found = sorted.filter((d) => d.code !== "too_many_errors");
  if (!stopped && found.length === sorted.length && found.length <= MAX_DIAGNOSTICS) return found;
  const kept = found.slice(0, MAX_DIAGNOSTICS);
  const start = found[MAX_DIAGNOSTICS]?.span.start ?? kept.at(-1)?.span.end ?? 0;
  kept.push(
    createDiagnostic(
      source,
      "too_many_errors",
      `more than ${MAX_DIAGNOSTICS} problems; the rest of the filter was not checked`,
      { start, end: source.length },
      "fix the problems above, then check again",
    ),
  );
  return kept;
}

/** Formats a problem for a message: position, text, excerpt with carets, and an optional hint. */
export function formatProblem(
  source: string | undefined,
  span: Span,
  message: string,
  suggestion?: string,
): string {
  const hint = suggestion === undefined ? "" : `\n    hint: ${suggestion}`;
  if (source === undefined) return `${message}${hint}`;
  const { line, column } = locate(source, span.start);
  return `${line}:${column}: ${message}\n${renderExcerpt(source, span)}${hint}`;
}

/** The base class of every error bexpr throws about a filter. */
export abstract class FilterError extends Error {
  /** A stable, snake_case identifier of the problem. */
  abstract readonly code: SyntaxErrorCode | EvaluationErrorCode;
  /** The spot in the source. */
  readonly span: Span;
  /** 1-based line of `span.start` (1 when the source is unknown). */
  readonly line: number;
  /** 1-based column of `span.start`, in code points (1 when the source is unknown). */
  readonly column: number;
  /** The filter source the span points into, when known (not enumerable, so logs stay short). */
  declare readonly source: string | undefined;

  protected constructor(message: string, span: Span, source: string | undefined) {
    super(message);
    this.span = span;
    // Not enumerable: logging an error should not print a filter of 128 KiB.
    Object.defineProperty(this, "source", { value: source, enumerable: false, writable: false });
    const position = source === undefined ? { line: 1, column: 1 } : locate(source, span.start);
    this.line = position.line;
    this.column = position.column;
  }
}

/**
 * The source is not a valid filter. `diagnostics` lists every problem found (at least one), in
 * source order, warnings included; the error's own `code`, `span`, `line` and `column` are those
 * of the first error among them.
 *
 * @example
 * ```ts
 * try { parse('Status == "running" AND Stop == false') }
 * catch (e) { if (e instanceof FilterSyntaxError) console.log(e.diagnostics[0].code) } // "unexpected_token"
 * ```
 */
export class FilterSyntaxError extends FilterError {
  /** Always `"FilterSyntaxError"`. */
  override readonly name = "FilterSyntaxError";
  readonly code: SyntaxErrorCode;
  /** Every problem found, at least one; frozen. The first error among them is the one the error itself reports. */
  readonly diagnostics: readonly Diagnostic[];

  constructor(source: string | undefined, diagnostics: readonly Diagnostic[]) {
    // A warning before the error (`Name == "/a" and Name == "\q"`) does not make the filter invalid: it is not the error's code.
    const first = diagnostics.find((d) => d.severity === "error") ?? diagnostics[0];
    if (first === undefined) throw new TypeError("a FilterSyntaxError needs at least one diagnostic");
    const more = diagnostics.length > 1 ? `\n(and ${diagnostics.length - 1} more)` : "";
    super(formatProblem(source, first.span, first.message, first.suggestion) + more, first.span, source);
    this.code = first.code;
    this.diagnostics = Object.freeze([...diagnostics]);
  }
}

/**
 * A compiled filter failed on one value: the reference reports an error for that object (and the
 * reference agent fails the whole request). `span` is that of the failing clause; `reason` is the
 * message without position and excerpt, worded as the reference words it.
 */
export class FilterEvaluationError extends FilterError {
  // Its own name once bundled (scripts/bundle.mjs renames a class that names itself inside).
  static {
    Object.defineProperty(this, "name", { value: "FilterEvaluationError" });
  }

  /** Always `"FilterEvaluationError"`. */
  override readonly name = "FilterEvaluationError";
  readonly code: EvaluationErrorCode;
  /** The message without position or excerpt. */
  readonly reason: string;
  /** With {@link Filter.filter}: the index of the value that failed. */
  readonly index: number | undefined;
  /** What the reason means and how to fix the filter, when known (shown as the message's hint). */
  readonly suggestion: string | undefined;

  constructor(code: EvaluationErrorCode, reason: string, span: Span, source: string | undefined, index?: number, suggestion?: string) {
    const where = index === undefined ? "" : ` (value at index ${index})`;
    super(formatProblem(source, span, reason + where, suggestion), span, source);
    this.code = code;
    this.reason = reason;
    this.index = index;
    this.suggestion = suggestion;
  }

  /** The same error, recorded against the value at `index` of a list. */
  atIndex(index: number): FilterEvaluationError {
    return new FilterEvaluationError(this.code, this.reason, this.span, this.source, index, this.suggestion);
  }
}
