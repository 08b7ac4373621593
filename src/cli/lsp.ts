/**
 * `bexpr lsp`: the filter language server, for editors, over standard input and output.
 *
 * @module
 */
import { format } from "node:util";
import { createConnection } from "vscode-languageserver/node";
import { startLanguageServer } from "../lsp/server.js";
import { parseCommandLine, UsageError, type Io, type Outcome } from "./terminal.js";

export { LSP_USAGE } from "./lsp-usage.js";

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
