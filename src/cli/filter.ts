/**
 * `bexpr check`, `bexpr eval`, `bexpr explain`, `bexpr fmt` and `bexpr sql`: the filter language
 * from the command line.
 *
 * @module
 */
import { toSql, type SqlFilter } from "../sql/index.js";
import { parseArgs } from "node:util";
import { explain, formatExplanation } from "../editor/explain.js";
import { format } from "../editor/format.js";
import { fixAll, validate } from "../editor/validate.js";
import { FilterEvaluationError, FilterSyntaxError, type Diagnostic } from "../errors.js";
import type { FieldSchema } from "../evaluator/schema.js";
import type { Filter } from "../evaluator/compile.js";
import { compileFilter } from "../filter.js";
import { parseJson, stringifyJson } from "../json.js";
import { schemas } from "../schemas.js";
import { locate } from "../source.js";
import { CommandError, filterArgument, readInput, renderDiagnostic, stylesFor, UsageError, type Io, type Outcome } from "./terminal.js";

export const CHECK_USAGE = `Usage: bexpr check [options] EXPR

Checks a filter and prints every problem with a caret under its spot and a hint where one helps.
Exits 0 when the filter is valid, 1 when it has errors. EXPR "-" reads the filter from stdin.

Options:
  --schema job|deployment  also check selectors against the fields of a job list item or a
                           deployment (a misspelt field gets the nearest name)
  --json                   print the diagnostics as a JSON array (code, severity, message,
                           span, line, column, suggestion, fixes)
  --fix                    apply the quick fixes (AND → and, = → ==, !Stop → Stop == false, a
                           misspelt field…), print the fixed filter, and the problems left if any
  -h, --help               show this help
  -v, --version            print the version
`;

export const EVAL_USAGE = `Usage: bexpr eval [options] EXPR [FILE|-]

Filters JSON values with EXPR and prints the ones that match. The input (FILE, or stdin when it
is "-" or absent) is a JSON array, a single JSON value, or JSON lines (one value per line); the
matches are printed the same way (an array indented, or one value per line).
Exits 0 on success (even with no match), 1 when the filter is invalid, the input is not JSON, or
the filter fails on a value (the message names its index).

Options:
  --schema job|deployment  evaluate in typed mode against a job list item or a deployment, as
                           the agent does
  --count                  print only the number of matches
  -h, --help               show this help
  -v, --version            print the version
`;

export const EXPLAIN_USAGE = `Usage: bexpr explain [options] EXPR [FILE|-]

Explains why each JSON value of the input (FILE, or stdin when it is "-" or absent: a JSON array,
one value, or JSON lines) matches EXPR or not, as a tree: every clause evaluated with its truth
(✓ true, ✗ false, · skipped, ! error), what each selector found or that its key was missing, the
elements any/all visited, and "← decided" on the clauses that decided the result.
Exits 0 when every value was explained (matching or not), 1 when the filter is invalid or the
input is not JSON.

Options:
  --schema job|deployment  evaluate in typed mode against a job list item or a deployment, as
                           the agent does
  --json                   print the explanations as JSON (one per value, as an array)
  -h, --help               show this help
  -v, --version            print the version
`;

export const FMT_USAGE = `Usage: bexpr fmt [options] EXPR

Prints the canonical form of a filter: one space around operators, lower-case keywords,
double-quoted strings (backticks for text with a backslash), only the parentheses precedence
needs. Exits 1 when the filter is invalid. EXPR "-" reads the filter from stdin.

Options:
  -h, --help               show this help
  -v, --version            print the version
`;

export const SQL_USAGE = `Usage: bexpr sql [options] EXPR

Prints the PostgreSQL expression that selects, from a table of JSONB documents, the rows the
filter accepts (put it after WHERE), then its parameters, and whether the selection is exact:
when it is not, re-check the rows with the compiled filter. EXPR "-" reads the filter from stdin.

Options:
  --schema job|deployment  typed mode: the documents are job list items or deployments
  --column NAME            the JSONB column (default doc)
  --param-offset N         number the placeholders from $N+1 (default 0)
  --json                   print {"sql", "params", "exact"} as JSON
  -h, --help               show this help
  -v, --version            print the version
`;

type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** `--help` and `--version` answer before anything else. */
function early(values: Parsed["values"]): Outcome | undefined {
  return values.help ? "help" : values.version ? "version" : undefined;
}

/** Parses a command's arguments; `help` and `version` are answered by the caller. */
function parseCommand(args: readonly string[], options: Record<string, { type: "string" | "boolean" }>): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      options: { ...options, help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
    });
    return { values, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function schemaOption(value: string | boolean | undefined): FieldSchema | undefined {
  if (value === undefined) return undefined;
  if (value === "job" || value === "deployment") return schemas[value];
  throw new UsageError(`--schema must be job or deployment, got ${JSON.stringify(value)}`);
}

function extraArguments(positionals: readonly string[], allowed: number): void {
  if (positionals.length > allowed) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[allowed])} (quote the filter as one argument)`);
}

function printDiagnostics(source: string, diagnostics: readonly Diagnostic[], stream: NodeJS.WriteStream): void {
  const styles = stylesFor(stream);
  stream.write(diagnostics.map((diagnostic) => renderDiagnostic(source, diagnostic, styles)).join("\n"));
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  const counts = [errors > 0 || warnings === 0 ? `${errors} ${errors === 1 ? "error" : "errors"}` : "", warnings > 0 ? `${warnings} ${warnings === 1 ? "warning" : "warnings"}` : ""];
  stream.write(`\n${counts.filter((count) => count !== "").join(", ")}\n`);
}

/** `bexpr check`. */
export function runCheck(args: readonly string[], io: Io): Outcome {
  const { values, positionals } = parseCommand(args, { schema: { type: "string" }, json: { type: "boolean" }, fix: { type: "boolean" } });
  const answered = early(values);
  if (answered !== undefined) return answered;
  extraArguments(positionals, 1);
  const source = filterArgument(positionals[0]);
  const schema = schemaOption(values.schema);
  const options = schema === undefined ? {} : { schema };
  if (values.fix) {
    const fixed = fixAll(source, options);
    if (values.json) io.stdout.write(`${JSON.stringify({ source: fixed.source, applied: fixed.applied.map((fix) => fix.title), diagnostics: fixed.diagnostics }, null, 2)}\n`);
    else {
      io.stdout.write(`${fixed.source}\n`);
      for (const fix of fixed.applied) io.stderr.write(`fixed: ${fix.title}\n`);
      if (fixed.diagnostics.length > 0) printDiagnostics(fixed.source, fixed.diagnostics, io.stderr);
    }
    return fixed.diagnostics.some((d) => d.severity === "error") ? 1 : 0;
  }
  const diagnostics = validate(source, options);
  if (values.json) io.stdout.write(`${JSON.stringify(diagnostics, null, 2)}\n`);
  else if (diagnostics.length === 0) io.stdout.write("ok\n");
  else printDiagnostics(source, diagnostics, io.stdout);
  return diagnostics.some((d) => d.severity === "error") ? 1 : 0;
}

/** `bexpr fmt`. */
export function runFmt(args: readonly string[], io: Io): Outcome {
  const { values, positionals } = parseCommand(args, {});
  const answered = early(values);
  if (answered !== undefined) return answered;
  extraArguments(positionals, 1);
  const source = filterArgument(positionals[0]);
  try {
    io.stdout.write(`${format(source)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof FilterSyntaxError)) throw error;
    printDiagnostics(source, error.diagnostics, io.stderr);
    return 1;
  }
}

/** The values of the input, how it was written, and the line each value starts on (JSON lines). */
interface Input {
  readonly values: unknown[];
  readonly form: "array" | "lines";
  readonly lines?: number[];
}

/** Where an offset is, as `line L, column C` (1-based). */
function position(text: string, offset: number): string {
  const { line, column } = locate(text, offset);
  return `line ${line}, column ${column}`;
}

/** A JSON parse error with its place in `text` (the parser reports an offset). */
function jsonError(text: string, error: unknown, base = 0): string {
  const message = (error as Error).message;
  const at = /^(.*) at position (\d+)$/.exec(message);
  return at === null ? message : `${at[1]} at ${position(text, base + Number(at[2]))}`;
}

/**
 * Reads a JSON array, one JSON value (of any layout), or JSON lines (one value per line). A
 * leading byte-order mark is skipped. Input that is neither one document nor lines whose first
 * is a value on its own is reported as the one document it does not make, with its line and column.
 */
export function parseInput(text: string, name: string): Input {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (source.trim() === "") return { values: [], form: "lines", lines: [] };
  let documentError: unknown;
  try {
    const whole = parseJson(source);
    return Array.isArray(whole) ? { values: whole, form: "array" } : { values: [whole], form: "lines", lines: [locate(source, source.search(/\S/)).line] };
  } catch (error) {
    documentError = error;
  }
  const values: unknown[] = [];
  const numbers: number[] = [];
  let offset = 0;
  source.split("\n").forEach((line, i) => {
    const start = offset;
    offset += line.length + 1;
    if (line.trim() === "") return;
    try {
      values.push(parseJson(line));
      numbers.push(i + 1);
    } catch (error) {
      if (values.length > 0) throw new CommandError(`${name} is not valid JSON lines: ${jsonError(source, error, start)}`);
      // The first line is not a value on its own: a document with a mistake in it, or several documents.
      const several = (documentError as Error).message.startsWith("Expected end of input") ? "; write several values one per line (JSON lines, as jq -c does)" : "";
      throw new CommandError(`${name} is not valid JSON: ${jsonError(source, documentError)}${several}`);
    }
  });
  return { values, form: "lines", lines: numbers };
}

/** EXPR and FILE of `eval` and `explain`: the filter, and the input's file (`-` for stdin). */
function filterAndInput(positionals: readonly string[]): { source: string; file: string } {
  extraArguments(positionals, 2);
  if (positionals[0] === "-" && (positionals[1] ?? "-") === "-") throw new UsageError("the filter and the input cannot both come from stdin");
  return { source: filterArgument(positionals[0]), file: positionals[1] ?? "-" };
}

/** The filter compiled, or undefined once its diagnostics are printed on stderr. */
function compileOrReport(source: string, options: { readonly schema?: FieldSchema }, io: Io): Filter | undefined {
  try {
    return compileFilter(source, options);
  } catch (error) {
    if (!(error instanceof FilterSyntaxError)) throw error;
    printDiagnostics(source, error.diagnostics, io.stderr);
    return undefined;
  }
}

/** The JSON values of the input file, or of stdin for `-`. */
function readValues(file: string): Input {
  return parseInput(readInput(file), file === "-" ? "stdin" : file);
}

/** `bexpr eval`. */
export function runEval(args: readonly string[], io: Io): Outcome {
  const { values, positionals } = parseCommand(args, { schema: { type: "string" }, count: { type: "boolean" } });
  const answered = early(values);
  if (answered !== undefined) return answered;
  const { source, file } = filterAndInput(positionals);
  const schema = schemaOption(values.schema);
  const filter = compileOrReport(source, schema === undefined ? {} : { schema }, io);
  if (filter === undefined) return 1;
  const input = readValues(file);
  let matches: unknown[];
  try {
    matches = filter.filter(input.values);
  } catch (error) {
    if (!(error instanceof FilterEvaluationError)) throw error;
    const index = error.index ?? 0;
    const where = input.lines === undefined ? `the value at index ${index}` : `the value at index ${index} (line ${input.lines[index]})`;
    const styles = stylesFor(io.stderr);
    io.stderr.write(`${styles.error("error")}${styles.code(`[${error.code}]`)} the filter failed on ${where}: ${error.reason}\n${error.message.split("\n").slice(1).join("\n")}\n`);
    return 1;
  }
  if (values.count) io.stdout.write(`${matches.length}\n`);
  else if (input.form === "array") io.stdout.write(stringifyJson(matches, true));
  else io.stdout.write(matches.map((match) => `${stringifyJson(match)}\n`).join(""));
  return 0;
}

/** `bexpr explain`. */
export function runExplain(args: readonly string[], io: Io): Outcome {
  const { values, positionals } = parseCommand(args, { schema: { type: "string" }, json: { type: "boolean" } });
  const answered = early(values);
  if (answered !== undefined) return answered;
  const { source, file } = filterAndInput(positionals);
  const schema = schemaOption(values.schema);
  const options = schema === undefined ? {} : { schema };
  // The filter is checked before the input is read, so a mistake in it is told at once.
  if (compileOrReport(source, options, io) === undefined) return 1;
  const input = readValues(file);
  const explanations = input.values.map((value) => explain(source, value, options));
  if (values.json) io.stdout.write(stringifyJson(explanations, true));
  else {
    const several = input.values.length > 1;
    io.stdout.write(explanations.map((explanation, i) => (several ? `value ${i}${input.lines === undefined ? "" : ` (line ${input.lines[i]})`}: ` : "") + formatExplanation(explanation)).join("\n"));
  }
  return 0;
}

/** `bexpr sql`. */
export function runSql(args: readonly string[], io: Io): Outcome {
  const { values, positionals } = parseCommand(args, { schema: { type: "string" }, column: { type: "string" }, "param-offset": { type: "string" }, json: { type: "boolean" } });
  const answered = early(values);
  if (answered !== undefined) return answered;
  extraArguments(positionals, 1);
  const source = filterArgument(positionals[0]);
  const schema = schemaOption(values.schema);
  const offsetText = values["param-offset"];
  const paramOffset = typeof offsetText === "string" ? Number(offsetText) : 0;
  if (typeof offsetText === "string" && !/^[0-9]+$/.test(offsetText)) throw new UsageError(`--param-offset must be a whole number, got ${JSON.stringify(offsetText)}`);
  let pushed: SqlFilter;
  try {
    pushed = toSql(source, { ...(schema === undefined ? {} : { schema }), ...(typeof values.column === "string" ? { column: values.column } : {}), paramOffset });
  } catch (error) {
    if (!(error instanceof FilterSyntaxError)) throw error;
    printDiagnostics(source, error.diagnostics, io.stderr);
    return 1;
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify(pushed, null, 2)}\n`);
    return 0;
  }
  const params = pushed.params.map((param, i) => `-- $${paramOffset + i + 1} = ${JSON.stringify(param)}`);
  const exact = pushed.exact ? "-- exact: the rows selected are the rows the filter accepts" : "-- not exact: re-check the rows with the compiled filter (it also raises the filter's errors)";
  io.stdout.write(`${[pushed.sql, ...params, exact].join("\n")}\n`);
  return 0;
}
