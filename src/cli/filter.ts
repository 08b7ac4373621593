/**
 * `bexpr check`, `bexpr eval`, `bexpr explain`, `bexpr fmt` and `bexpr sql`: the filter language
 * from the command line.
 *
 * @module
 */
import { toSql, type SqlFilter } from "../sql/index.js";
import { explain, formatExplanation } from "../editor/explain.js";
import { format } from "../editor/format.js";
import { fixAll, validate } from "../editor/validate.js";
import { FilterEvaluationError, FilterSyntaxError, type Diagnostic } from "../errors.js";
import type { FieldSchema } from "../evaluator/schema.js";
import type { Filter } from "../evaluator/compile.js";
import { compileFilter } from "../filter.js";
import { stringifyJson } from "../json.js";
import { readSchema } from "../schema-file.js";
import { MAX_JSON_VALUE_LENGTH, readJsonValues, type InputForm } from "./json-stream.js";
import { JsonArrayWriter, Output } from "./output.js";
import { Progress } from "./progress.js";
import { coloursOn, filterArgument, openInput, parseCommandLine, renderDiagnostic, stylesFor, UsageError, type Io, type Outcome } from "./terminal.js";

/** {@link MAX_JSON_VALUE_LENGTH} in MiB, for the help. */
const MAX_VALUE_MIB = MAX_JSON_VALUE_LENGTH / 2 ** 20;

export const CHECK_USAGE = `Usage: bexpr check [options] EXPR

Checks a filter and prints every problem with a caret under its spot and a hint where one helps.
Exits 0 when the filter is valid, 1 when it has errors. EXPR "-" reads the filter from stdin.

Options:
  --schema SCHEMA          also check selectors against the fields of a job list item (job), a
                           deployment (deployment), or a JSON file holding a field schema, as
                           the language server's bexpr.schema (a misspelt field gets the
                           nearest name)
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
matches are printed the same way (an array indented, or one value per line), as the input is
read: memory holds one value at a time, so it stays the same for any number of values, and a
single value (a line, an array element, or a whole document) is held whole, at most ${MAX_VALUE_MIB} MiB.
On a terminal, a progress line on stderr follows inputs that take more than a second.
Exits 0 on success (even with no match), 1 when the filter is invalid, the input is not JSON or
holds a value over ${MAX_VALUE_MIB} MiB, or the filter fails on a value (the message names its index; the
matches before it are printed), 2 on a usage mistake, 141 when the output is closed (| head), as
grep.

Options:
  --schema SCHEMA          check the filter against job, deployment or a JSON schema file (as
                           check does), then evaluate in typed mode, as the agent does
  --count                  print only the number of matches
  -h, --help               show this help
  -v, --version            print the version
`;

export const EXPLAIN_USAGE = `Usage: bexpr explain [options] EXPR [FILE|-]

Explains why each JSON value of the input (FILE, or stdin when it is "-" or absent: a JSON array,
one value, or JSON lines) matches EXPR or not, as a tree: every clause evaluated with its truth
(✓ true, ✗ false, · skipped, ! error), what each selector found or that its key was missing, the
elements any/all visited, and "← decided" on the clauses that decided the result.
Values are explained as they are read, one at a time (memory stays the same for any number of
values; a single value is held whole, at most ${MAX_VALUE_MIB} MiB); on a terminal, a progress line on stderr
follows inputs that take more than a second.
Several values are each headed by their ID (or their index, when they have none) and line.
On a terminal, matches are green, misses red (NO_COLOR turns colour off, FORCE_COLOR on).
Exits 0 when every value was explained (matching or not), 1 when the filter is invalid or the
input is not JSON or holds a value over ${MAX_VALUE_MIB} MiB, 2 on a usage mistake, 141 when the output is
closed (| head), as grep.

Options:
  --schema SCHEMA          check the filter against job, deployment or a JSON schema file (as
                           check does), then evaluate in typed mode, as the agent does
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
  --schema SCHEMA          typed mode: the documents are job list items (job), deployments
                           (deployment), or of the field schema of a JSON file
  --column NAME            the JSONB column (default doc)
  --param-offset N         number the placeholders from $N+1 (default 0)
  --json                   print {"sql", "params", "exact"} as JSON
  -h, --help               show this help
  -v, --version            print the version
`;

/** The options every command takes. */
const COMMON_OPTIONS = { help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } } as const;

/** A command's options and positional arguments; `help` and `version` are answered by the caller. */
function parseCommand<const O extends Record<string, { type: "string" | "boolean" }>>(args: readonly string[], options: O) {
  return parseCommandLine({ args: [...args], options: { ...options, ...COMMON_OPTIONS }, strict: true, allowPositionals: true });
}

/** `--help` and `--version` answer before anything else. */
function early(values: { help?: boolean | undefined; version?: boolean | undefined }): Outcome | undefined {
  return values.help ? "help" : values.version ? "version" : undefined;
}

/** `--schema`: `job`, `deployment`, or a JSON file holding a field schema (as the language server's `bexpr.schema`). */
function schemaOption(value: string | boolean | undefined): FieldSchema | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new UsageError("--schema must be job, deployment or the path of a JSON file holding a field schema");
  const read = readSchema(value, process.cwd());
  if ("problem" in read) throw new UsageError(`--schema: ${read.problem}`);
  return read.schema;
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

/** EXPR and FILE of `eval` and `explain`: the filter, and the input's file (`-` for stdin). */
function filterAndInput(positionals: readonly string[]): { source: string; file: string } {
  extraArguments(positionals, 2);
  if (positionals[0] === "-" && (positionals[1] ?? "-") === "-") throw new UsageError("the filter and the input cannot both come from stdin");
  return { source: filterArgument(positionals[0]), file: positionals[1] ?? "-" };
}

/**
 * The filter compiled, or undefined once its diagnostics are printed on stderr. With a schema, the
 * filter is checked against it first, as `check` checks it: a mistake is pointed at where it is
 * (`Priority == high`: at `high`), before any value is read.
 */
function compileOrReport(source: string, options: { readonly schema?: FieldSchema }, io: Io): Filter | undefined {
  if (options.schema !== undefined) {
    const errors = validate(source, options).filter((diagnostic) => diagnostic.severity === "error");
    if (errors.length > 0) {
      printDiagnostics(source, errors, io.stderr);
      return undefined;
    }
  }
  try {
    return compileFilter(source, options);
  } catch (error) {
    if (!(error instanceof FilterSyntaxError)) throw error;
    printDiagnostics(source, error.diagnostics, io.stderr);
    return undefined;
  }
}

/**
 * Runs `each` on every value of the input as it is read, printing as it goes: the output is
 * flushed after each piece of input, and the progress line (on a terminal) follows along.
 * `each` returns an exit status to stop early; `finish` prints what follows the last value;
 * `matches` counts them for the progress line.
 */
async function forEachValue(
  file: string,
  label: "eval" | "explain",
  io: Io,
  each: (value: unknown, index: number, line: number | undefined, form: InputForm, output: Output) => number | undefined,
  finish: (form: InputForm, output: Output) => void,
  matches?: () => number,
): Promise<Outcome> {
  const input = openInput(file);
  const progress = new Progress(io.stderr, label, input.size);
  const output = new Output(io.stdout, io.stdout.isTTY ? () => progress.clear() : undefined);
  let index = 0;
  let form: InputForm = "lines";
  try {
    for await (const batch of readJsonValues(countBytes(input.chunks, progress), input.name)) {
      form = batch.form;
      for (let i = 0; i < batch.values.length; i++, index++) {
        const stop = each(batch.values[i], index, batch.lines?.[i], form, output);
        if (stop !== undefined) {
          await output.flush();
          return stop;
        }
      }
      progress.counts.values = index;
      if (matches !== undefined) progress.counts.matches = matches();
      await output.flush();
    }
    finish(form, output);
    await output.flush();
    return 0;
  } finally {
    progress.stop();
  }
}

/** The input's pieces, counted into the progress line as they pass. */
async function* countBytes(chunks: AsyncIterable<Buffer>, progress: Progress): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    progress.counts.bytes += chunk.length;
    yield chunk;
  }
}

/** `bexpr eval`. */
export async function runEval(args: readonly string[], io: Io): Promise<Outcome> {
  const { values, positionals } = parseCommand(args, { schema: { type: "string" }, count: { type: "boolean" } });
  const answered = early(values);
  if (answered !== undefined) return answered;
  const { source, file } = filterAndInput(positionals);
  const schema = schemaOption(values.schema);
  const filter = compileOrReport(source, schema === undefined ? {} : { schema }, io);
  if (filter === undefined) return 1;
  let matches = 0;
  let array: JsonArrayWriter | undefined;
  return forEachValue(
    file,
    "eval",
    io,
    (value, index, line, form, output) => {
      let matched: boolean;
      try {
        matched = filter.test(value);
      } catch (error) {
        if (!(error instanceof FilterEvaluationError)) throw error;
        // The matches before it are printed already, as grep prints the lines before a read error;
        // an array of them is closed, so that stdout stays a JSON document.
        array?.end();
        const where = line === undefined ? `the value at index ${index}` : `the value at index ${index} (line ${line})`;
        const styles = stylesFor(io.stderr);
        io.stderr.write(`${styles.error("error")}${styles.code(`[${error.code}]`)} the filter failed on ${where}: ${error.reason}\n${error.message.split("\n").slice(1).join("\n")}\n`);
        return 1;
      }
      if (!matched) return undefined;
      matches++;
      if (values.count) return undefined;
      if (form === "array") (array ??= new JsonArrayWriter(output)).add(value);
      else output.write(`${stringifyJson(value)}\n`);
      return undefined;
    },
    (form, output) => {
      if (values.count) output.write(`${matches}\n`);
      else if (form === "array") (array ?? new JsonArrayWriter(output)).end();
    },
    () => matches,
  );
}

/** `bexpr explain`. */
export async function runExplain(args: readonly string[], io: Io): Promise<Outcome> {
  const { values, positionals } = parseCommand(args, { schema: { type: "string" }, json: { type: "boolean" } });
  const answered = early(values);
  if (answered !== undefined) return answered;
  const { source, file } = filterAndInput(positionals);
  const schema = schemaOption(values.schema);
  const options = schema === undefined ? {} : { schema };
  // The filter is checked before the input is read, so a mistake in it is told at once.
  if (compileOrReport(source, options, io) === undefined) return 1;
  let array: JsonArrayWriter | undefined;
  // Values are headed by their index only when there are several: the first waits for the second.
  let first: { readonly text: string; readonly label: string } | undefined;
  let count = 0;
  const styles = explainStylesFor(io.stdout);
  return forEachValue(
    file,
    "explain",
    io,
    (value, index, line, form, output) => {
      const explanation = explain(source, value, options);
      count++;
      if (values.json) {
        (array ??= new JsonArrayWriter(output)).add(explanation);
        return undefined;
      }
      const text = colourExplanation(formatExplanation(explanation), styles);
      const label = `${valueLabel(value, index, line === undefined || form === "array" ? undefined : line)}: `;
      if (index === 0) first = { text, label };
      else {
        if (index === 1) output.write(first!.label + first!.text);
        output.write(`\n${label}${text}`);
      }
      return undefined;
    },
    (_form, output) => {
      if (values.json) (array ?? new JsonArrayWriter(output)).end();
      else if (count === 1) output.write(first!.text);
    },
  );
}

/**
 * What heads a value's explanation: its `ID` when it has a short one (as the agent's objects do),
 * else its index; then its line in JSON lines.
 */
export function valueLabel(value: unknown, index: number, line: number | undefined): string {
  const id = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { ID?: unknown }).ID : undefined;
  const where = line === undefined ? "" : `line ${line}`;
  if (typeof id === "string" && id !== "" && id.length <= MAX_LABEL_ID) return `${JSON.stringify(id)} (value ${index}${where === "" ? "" : `, ${where}`})`;
  return `value ${index}${where === "" ? "" : ` (${where})`}`;
}

/** IDs longer than this head a value by its index instead. */
const MAX_LABEL_ID = 80;

/** The colours of an explanation: a match and its true clauses green, a miss and its false clauses red, errors bold red. */
interface ExplainStyles {
  readonly yes: (text: string) => string;
  readonly no: (text: string) => string;
  readonly error: (text: string) => string;
  readonly dim: (text: string) => string;
}

const ansi = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

/** The colours of an explanation on `stream`, or undefined where {@link coloursOn} says no. */
function explainStylesFor(stream: NodeJS.WriteStream): ExplainStyles | undefined {
  return coloursOn(stream) ? { yes: ansi(32, 39), no: ansi(31, 39), error: (text) => ansi(1, 22)(ansi(31, 39)(text)), dim: ansi(2, 22) } : undefined;
}

/** The text of {@link formatExplanation}, coloured line by line by its marks (unchanged without styles). */
export function colourExplanation(text: string, styles: ExplainStyles | undefined): string {
  if (styles === undefined) return text;
  return text
    .split("\n")
    .map((line) => {
      if (line.startsWith("match: ")) return styles.yes(line);
      if (line.startsWith("no match: ")) return styles.no(line);
      if (line.startsWith("error [")) return styles.error(line);
      const mark = /^(\s*)([✓✗·!])( .*)$/u.exec(line);
      if (mark === null) return line;
      const [, indent, sign, rest] = mark;
      const paint = sign === "✓" ? styles.yes : sign === "✗" ? styles.no : sign === "!" ? styles.error : styles.dim;
      return `${indent}${paint(sign!)}${sign === "·" ? styles.dim(rest!) : rest}`;
    })
    .join("\n");
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
