/**
 * The VS Code extension of bexpr: the language (files ending in `.bexpr`), its TextMate grammar and
 * bracket rules, and a client of `bexpr lsp --stdio` that starts with the first bexpr document and
 * sends the `bexpr` settings as the server's initialization options and settings. It is off in
 * Restricted Mode (`capabilities.untrustedWorkspaces` in package.json): the server it starts may
 * be a program from the workspace.
 */
import { workspace, type ExtensionContext } from "vscode";
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

/** The `bexpr` settings the server reads, without the empty ones. */
function settings(): Record<string, string> {
  const configuration = workspace.getConfiguration("bexpr");
  const out: Record<string, string> = {};
  for (const key of ["schema", "samples"]) {
    const value = configuration.get<string>(key, "");
    if (value !== "") out[key] = value;
  }
  return out;
}

export async function activate(context: ExtensionContext): Promise<void> {
  // `bexpr.command` is a machine setting (package.json): `get` gives the user's (or the remote's)
  // value and never a workspace's, so a folder's .vscode/settings.json cannot choose the program.
  const [command, ...args] = workspace.getConfiguration("bexpr").get<string[]>("command", ["bexpr", "lsp", "--stdio"]);
  const server: ServerOptions = { command: command ?? "bexpr", args, transport: TransportKind.stdio };
  const options: LanguageClientOptions = {
    documentSelector: [{ language: "bexpr" }],
    initializationOptions: settings(),
    synchronize: { configurationSection: "bexpr" },
  };
  client = new LanguageClient("bexpr", "bexpr", server, options);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
