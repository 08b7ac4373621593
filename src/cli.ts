#!/usr/bin/env node
/**
 * The `bexpr` command: `check`, `eval`, `explain`, `fmt` and `sql` for filters, `agent` for the
 * mini-agent, `lsp` for editors.
 *
 * @module
 */
import { CHECK_USAGE, EVAL_USAGE, EXPLAIN_USAGE, FMT_USAGE, runCheck, runEval, runExplain, runFmt, runSql, SQL_USAGE } from "./cli/filter.js";
import { CommandError, describeUnexpectedError, endOnClosedOutput, UsageError, type Io, type Outcome } from "./cli/terminal.js";
import { importedBy, loadOptional, MissingPackageError, type OptionalPart } from "./optional-packages.js";
import { VERSION } from "./version.js";

const USAGE = `Usage: bexpr <command> [options]

The filter-expression language of the scheduler's HTTP API.

Commands:
  check EXPR          check a filter: every problem, with a caret under it and a hint
  eval EXPR [FILE]    print the JSON values (a file or stdin) that a filter matches
  explain EXPR [FILE] why each JSON value matches a filter or not, clause by clause
  fmt EXPR            print a filter in its canonical form
  sql EXPR            print the PostgreSQL that selects the JSONB rows a filter accepts
  agent               run the mini-agent (the scheduler's HTTP API) with a demo data set
  lsp --stdio         run the language server for editors (diagnostics, fixes, completion, hover)
  help [COMMAND]      show this help, or a command's (as COMMAND --help)

Options:
  -h, --help          show this help
  -v, --version       print the version

Run "bexpr <command> --help" for a command's options. Examples:
  bexpr check 'Status == running AND Priority >= 50'
  curl -s 127.0.0.1:4646/v1/jobs | bexpr eval --schema job 'Status == "running"'
  bexpr fmt '(Status=="running") and ((Stop==false))'
`;

/** A command: how it runs, and its help. */
interface Command {
  readonly run: (args: readonly string[], io: Io) => Outcome | Promise<Outcome>;
  readonly usage: string;
}

/**
 * A command whose packages are optional peers of bexpr (installed by the project beside it),
 * loaded when it is asked for; without them it still answers `--help` and `--version` (its usage
 * comes from a module that needs none of them), and otherwise fails naming what is missing and the
 * command that installs it.
 */
async function optionalCommand(part: OptionalPart, usage: () => Promise<string>, load: () => Promise<Command>): Promise<Command> {
  try {
    return await loadOptional(part, load);
  } catch (error) {
    if (!(error instanceof MissingPackageError)) throw error;
    const run = (args: readonly string[]): Outcome => {
      if (args.includes("--help") || args.includes("-h")) return "help";
      if (args.includes("--version") || args.includes("-v")) return "version";
      throw new CommandError(error.message);
    };
    return { run, usage: await usage() };
  }
}

/**
 * The commands; the agent (fastify, prom-client) and the language server (vscode-languageserver)
 * are loaded only when they are asked for, so the others start fast.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  check: async () => ({ run: runCheck, usage: CHECK_USAGE }),
  eval: async () => ({ run: runEval, usage: EVAL_USAGE }),
  explain: async () => ({ run: runExplain, usage: EXPLAIN_USAGE }),
  fmt: async () => ({ run: runFmt, usage: FMT_USAGE }),
  sql: async () => ({ run: runSql, usage: SQL_USAGE }),
  agent: () =>
    optionalCommand("the agent", async () => (await import("./cli/agent.js")).AGENT_USAGE, async () => {
      const { AGENT_USAGE, runAgent } = await import("./cli/agent.js");
      // bexpr/server loads its HTTP layer and Prometheus's client when an agent starts: found
      // (not loaded) here, a missing optional dependency is named before anything starts.
      for (const name of importedBy("the agent")) import.meta.resolve(name);
      return { run: runAgent, usage: AGENT_USAGE };
    }),
  lsp: () =>
    optionalCommand("the language server", async () => (await import("./cli/lsp-usage.js")).LSP_USAGE, async () => {
      const { LSP_USAGE, runLsp } = await import("./cli/lsp.js");
      return { run: runLsp, usage: LSP_USAGE };
    }),
};

/**
 * Runs the command line; resolves to the exit status: 0 done, 1 failed (the reason on stderr),
 * 2 a usage mistake (what is wrong, and which help to read).
 */
export async function main(argv: readonly string[], io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  // No command is a usage mistake: the help goes to stderr, exit status 2 (a script's empty argument list fails).
  if (command === undefined) {
    io.stderr.write(USAGE);
    return 2;
  }
  // `bexpr help eval` is `bexpr eval --help`.
  if (command === "help" && rest.length > 0) return main([rest[0]!, "--help"], io);
  try {
    const entry = Object.hasOwn(COMMANDS, command) ? await COMMANDS[command]!() : undefined;
    let outcome: Outcome;
    try {
      if (command === "help" || command === "-h" || command === "--help") outcome = "help";
      else if (command === "-v" || command === "--version") outcome = "version";
      else if (entry === undefined) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
      else outcome = await entry.run(rest, io);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      // One line for the mistake, one for where to read more: the whole help would bury the mistake.
      const help = entry === undefined ? "run 'bexpr help' for the commands" : `run 'bexpr ${command} --help' for usage`;
      io.stderr.write(`bexpr${entry === undefined ? "" : ` ${command}`}: ${error.message}\n${help}\n`);
      return 2;
    }
    if (outcome === "help") io.stdout.write(entry?.usage ?? USAGE);
    else if (outcome === "version") io.stdout.write(`${VERSION}\n`);
    return outcome === "help" || outcome === "version" ? 0 : outcome;
  } catch (error) {
    if (error instanceof CommandError) io.stderr.write(`bexpr: ${error.message}\n`);
    else io.stderr.write(describeUnexpectedError(error));
    return 1;
  }
}

endOnClosedOutput(process.stdout, process.stderr);
process.exitCode = await main(process.argv.slice(2));
