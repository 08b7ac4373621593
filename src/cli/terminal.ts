/**
 * What the commands share: the command line's options, usage errors, colours (only on a
 * terminal), diagnostics with carets, reading an argument, standard input or a file, and the end
 * of a run whose output was closed.
 *
 * @module
 */
import { createReadStream, fstatSync, readFileSync, statSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Diagnostic } from "../errors.js";
import { renderExcerpt } from "../source.js";

/** What a command needs from its process: its output streams. */
export interface Io {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

/** How a command ended: its exit status, or a request for its help or the version. */
export type Outcome = number | "help" | "version";

/**
 * A mistake on the command line: printed as one line saying what is wrong and one saying which
 * help to read, exit status 2.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** The exit status of a run whose output was closed early: 128 + SIGPIPE, as a shell reports `grep` there. */
export const CLOSED_PIPE_STATUS = 141;

/**
 * `parseArgs` (give it `strict: true`) with its mistakes as a {@link UsageError} that names the
 * option and what is wrong with it, in place of Node's message (worded for programmers).
 */
export function parseCommandLine<const T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(argumentMistake(config) ?? (error as Error).message);
  }
}

/** What is wrong with the arguments, read from the tokens of a lenient parse. */
function argumentMistake(config: ParseArgsConfig): string | undefined {
  const options = config.options ?? {};
  const { tokens } = parseArgs({ ...config, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === "positional" && config.allowPositionals !== true) return `unexpected argument ${JSON.stringify(token.value)}`;
    if (token.kind !== "option") continue;
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (option === undefined) {
      const dash = token.rawName.startsWith("--") ? "" : " (a filter that starts with \"-\" goes after --)";
      return `unknown option ${token.rawName}${dash}`;
    }
    if (option.type === "boolean" && token.inlineValue === true) return `${token.rawName} takes no value`;
    if (option.type === "string" && token.value === undefined) return `${token.rawName} needs a value`;
    if (option.type === "string" && token.inlineValue === false && token.value.startsWith("-")) {
      return `${token.rawName} needs a value (write ${token.rawName}=${token.value} for one that starts with "-")`;
    }
  }
  return undefined;
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
  return coloursOn(stream, env) ? COLOURED : PLAIN;
}

/** Whether to colour what is written to `stream`: on a terminal, unless `NO_COLOR` is set; anywhere with `FORCE_COLOR` (other than `0`). */
export function coloursOn(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0";
  return stream.isTTY === true;
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

/** An input read as it arrives: its pieces, its size when known (a file), and its name for messages. */
export interface Input {
  readonly chunks: AsyncIterable<Buffer>;
  readonly size: number | undefined;
  readonly name: string;
}

/** Pieces of this size make few reads and little memory. */
const READ_CHUNK_BYTES = 256 * 1024;

/** A file (`-`: standard input), read in pieces. */
export function openInput(path: string): Input {
  const stdin = path === "-";
  const name = stdin ? "stdin" : path;
  let size: number | undefined;
  try {
    const stat = stdin ? fstatSync(0) : statSync(path);
    if (stat.isFile()) size = stat.size;
  } catch {
    // Told when the file is read.
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      yield* stdin ? (process.stdin as AsyncIterable<Buffer>) : createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new CommandError(stdin ? `cannot read standard input: ${(error as Error).message}` : `cannot read ${path}: ${code === "ENOENT" ? "no such file" : (error as Error).message}`);
    }
  }
  return { chunks: chunks(), size, name };
}

/**
 * Makes a closed output end the run quietly, as it ends `grep`: when the reader of standard
 * output goes away (`| head -1`), the process exits at once with {@link CLOSED_PIPE_STATUS}; any
 * other failure to write is told in one line, exit status 1.
 */
export function endOnClosedOutput(stream: NodeJS.WriteStream, stderr: NodeJS.WriteStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(CLOSED_PIPE_STATUS);
    stderr.write(`bexpr: cannot write the output: ${error.message}\n`);
    process.exit(1);
  });
}

/**
 * An error no command expected (a bug), for people: the name its class declares (bundling renames
 * classes, so the constructor's name is not it), the code of a filter error, and the stack's frames.
 */
export function describeUnexpectedError(error: unknown): string {
  if (!(error instanceof Error)) return `bexpr: unexpected error: ${String(error)}\n`;
  // A filter error's code, or a system error's (ENOENT…); read as a property, as an error from
  // another copy of bexpr is no instance of this one's classes.
  const { code } = error as { code?: unknown };
  const tag = typeof code === "string" ? `[${code}]` : "";
  const frames = (error.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  return [`bexpr: unexpected error (please report it with this output): ${error.name}${tag}: ${error.message}`, ...frames].join("\n") + "\n";
}

/** The filter argument: the text itself, or standard input for `-` (a final newline dropped). */
export function filterArgument(argument: string | undefined): string {
  if (argument === undefined) throw new UsageError("a filter expression is required");
  return argument === "-" ? readStdin().replace(/\r?\n$/, "") : argument;
}
