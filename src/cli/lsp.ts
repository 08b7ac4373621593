/**
 * `bexpr lsp`: the filter language server, for editors, over standard input and output.
 *
 * @module
 */
import { format } from "node:util";
import { createConnection } from "vscode-languageserver/node";
import { startLanguageServer } from "../lsp/server.js";
import { parseCommandLine, UsageError, type Io, type Outcome } from "./terminal.js";

export const LSP_USAGE = `Usage: bexpr lsp --stdio

Runs the language server of the filter language (the Language Server Protocol) on standard input
and output, for editors: each document holds one filter (it may span lines). It publishes
diagnostics as you type, offers their quick fixes and a "fix all" source action, completes fields,
map keys, values, operators and keywords, explains what is under the pointer, and formats.
Setup for VS Code, Neovim and Emacs: docs/editors.md.

Initialization options (and the settings bexpr.schema, bexpr.samples):
  schema                   "job", "deployment", or the path of a JSON file holding a field schema
  samples                  the path of a JSON file holding an array of sample objects

Options:
  --stdio                  talk LSP over standard input and output (the only transport)
  --clientProcessId PID    also exit when the process PID ends (editors pass it)
  -h, --help               show this help
  -v, --version            print the version
`;

/** `bexpr lsp`: starts the server; the process ends when the client sends `exit` or closes its input. */
export function runLsp(args: readonly string[], io: Io): Outcome {
  const { values } = parseCommandLine({
    args: [...args],
    strict: true,
    options: { stdio: { type: "boolean" }, clientProcessId: { type: "string" }, help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
  });
  if (values.help) return "help";
  if (values.version) return "version";
  if (!values.stdio) throw new UsageError("bexpr lsp needs --stdio: it talks the Language Server Protocol over standard input and output");
  // Standard output carries the protocol: whatever a library logs goes to standard error, which
  // editors keep in their log of the server. (`--clientProcessId` is read by vscode-languageserver itself.)
  const toStderr = (...parts: unknown[]) => void io.stderr.write(`${format(...parts)}\n`);
  console.log = console.info = console.debug = toStderr;
  // The connection ends the process on `exit` (status 0 after `shutdown`, 1 without) and when its input closes.
  startLanguageServer(createConnection(process.stdin, process.stdout));
  return 0;
}
