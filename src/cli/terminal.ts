/**
 * What the commands share: usage errors, colours (only on a terminal), diagnostics with carets,
 * and reading an argument or standard input.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import type { Diagnostic } from "../errors.js";
import { renderExcerpt } from "../source.js";

/** What a command needs from its process: its output streams. */
export interface Io {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

/** How a command ended: its exit status, or a request for its help or the version. */
export type Outcome = number | "help" | "version";

/** A mistake on the command line: printed with the command's usage, exit status 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A failure the command reports in one line on standard error, exit status 1. */
export class CommandError extends Error {
  override readonly name = "CommandError";
}

/** The few styles the commands use. */
export interface Styles {
  readonly error: (text: string) => string;
  readonly caret: (text: string) => string;
  readonly hint: (text: string) => string;
  readonly code: (text: string) => string;
}

const plain = (text: string) => text;
const PLAIN: Styles = { error: plain, caret: plain, hint: plain, code: plain };
const ansi = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const COLOURED: Styles = { error: (text) => ansi(1, 22)(ansi(31, 39)(text)), caret: ansi(31, 39), hint: ansi(36, 39), code: ansi(2, 22) };

/**
 * Styles for a stream: colours only on a terminal, unless `NO_COLOR` is set; `FORCE_COLOR`
 * (other than `0`) turns them on anywhere.
 */
export function stylesFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Styles {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return PLAIN;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR === "0" ? PLAIN : COLOURED;
  return stream.isTTY ? COLOURED : PLAIN;
}

/**
 * A diagnostic for people:
 *
 * ```text
 * error[unexpected_token] 1:19: unexpected "AND" after a complete expression
 *     Status == running AND Stop == false
 *                       ^^^
 *     hint: keywords are lower-case: write "and", not "AND"
 * ```
 */
export function renderDiagnostic(source: string, diagnostic: Diagnostic, styles: Styles): string {
  const [line, carets] = renderExcerpt(source, diagnostic.span).split("\n");
  const head = `${styles.error(diagnostic.severity)}${styles.code(`[${diagnostic.code}]`)} ${diagnostic.line}:${diagnostic.column}: ${diagnostic.message}`;
  const hint = diagnostic.suggestion === undefined ? "" : `\n    ${styles.hint(`hint: ${diagnostic.suggestion}`)}`;
  return `${head}\n${line}\n${styles.caret(carets!)}${hint}\n`;
}

/** Standard input, read to its end. */
export function readStdin(): string {
  try {
    return readFileSync(0, "utf8");
  } catch (error) {
    throw new CommandError(`cannot read standard input: ${(error as Error).message}`);
  }
}

/** A file's text (`-`: standard input). */
export function readInput(path: string): string {
  if (path === "-") return readStdin();
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new CommandError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
}

/** The filter argument: the text itself, or standard input for `-` (a final newline dropped). */
export function filterArgument(argument: string | undefined): string {
  if (argument === undefined) throw new UsageError("a filter expression is required");
  return argument === "-" ? readStdin().replace(/\r?\n$/, "") : argument;
}
