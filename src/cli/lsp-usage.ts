/**
 * The help of `bexpr lsp`, apart from the command (which loads vscode-languageserver): `bexpr lsp
 * --help` answers it where that optional package is not installed.
 *
 * @module
 */

/** What `bexpr lsp --help` prints. */
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
