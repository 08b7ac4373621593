/**
 * A real LSP client for the tests: it starts `bexpr lsp --stdio` (the built command, dist/cli.js)
 * and talks to it over the child's standard input and output with vscode-languageserver-protocol,
 * as an editor does.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShowMessageNotification,
  LogMessageNotification,
  type LogMessageParams,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  ConfigurationRequest,
  type ClientCapabilities,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type ShowMessageParams,
  type TextDocumentContentChangeEvent,
} from "vscode-languageserver-protocol/node";
import { TextDocument } from "vscode-languageserver-textdocument";

/** How long a test waits for a notification the server should send. */
const NOTIFICATION_TIMEOUT_MS = 15_000;

/** What a session is started with. */
export interface SessionOptions {
  readonly initializationOptions?: unknown;
  /** The workspace folder (relative settings paths are read from it). */
  readonly root?: string;
  /** `workspace/configuration`: the client answers with these settings for the `bexpr` section. */
  readonly configuration?: () => unknown;
  /** The hover formats the client lists (`textDocument.hover.contentFormat`); `["markdown"]` by default. */
  readonly hoverFormats?: readonly ("markdown" | "plaintext")[];
}

/** A server process and the client connected to it. */
export class Session {
  /** Every `window/showMessage` received. */
  readonly messages: ShowMessageParams[] = [];
  /** Every `window/logMessage` received (the server logs a handler that failed). */
  readonly logs: LogMessageParams[] = [];
  /** What the server wrote on standard error. */
  stderr = "";
  /** The sections asked for with `workspace/configuration`, in order. */
  readonly configurationRequests: string[] = [];
  /** Resolves to the process's exit status when it ends. */
  readonly exited: Promise<number | null>;
  readonly #diagnostics: PublishDiagnosticsParams[] = [];
  readonly #waiters: (() => void)[] = [];
  readonly #documents = new Map<string, TextDocument>();
  #initializeResult: InitializeResult | undefined;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
  ) {
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => this.#received(() => this.#diagnostics.push(params)));
    connection.onNotification(ShowMessageNotification.type, (params) => this.#received(() => this.messages.push(params)));
    connection.onNotification(LogMessageNotification.type, (params) => this.#received(() => this.logs.push(params)));
  }

  /** Starts `bexpr lsp --stdio`, and initializes it (`initialize`, then `initialized`). */
  static async start(options: SessionOptions = {}): Promise<Session> {
    const child = spawn(process.execPath, ["dist/cli.js", "lsp", "--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const session = new Session(child, connection);
    const capabilities: ClientCapabilities = {
      textDocument: { publishDiagnostics: { versionSupport: true }, completion: { completionItem: { snippetSupport: false } }, hover: { contentFormat: [...(options.hoverFormats ?? ["markdown"])] } },
      workspace: { configuration: options.configuration !== undefined },
    };
    if (options.configuration !== undefined) {
      const answer = options.configuration;
      connection.onRequest(ConfigurationRequest.type, (params) => params.items.map((item) => (session.configurationRequests.push(item.section ?? ""), answer())));
    }
    connection.listen();
    const root = options.root === undefined ? null : pathToFileURL(options.root).href;
    const initialized = connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: root,
      capabilities,
      initializationOptions: options.initializationOptions,
      workspaceFolders: root === null ? null : [{ uri: root, name: "workspace" }],
    });
    // A server that dies on its way up fails the test at once, with what it printed.
    const died = session.exited.then((code) => Promise.reject(new Error(`bexpr lsp exited with status ${code} before answering initialize: ${session.stderr}`)));
    // (Once initialized, the process ending is the test's business.)
    died.catch(() => undefined);
    session.#initializeResult = await Promise.race([initialized, died]);
    await connection.sendNotification(InitializedNotification.type, {});
    return session;
  }

  /** What the server answered to `initialize`. */
  get capabilities(): InitializeResult {
    return this.#initializeResult!;
  }

  /** Opens a document holding `text` (version 1). */
  async open(uri: string, text: string): Promise<void> {
    this.#documents.set(uri, TextDocument.create(uri, "bexpr", 1, text));
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "bexpr", version: 1, text } });
  }

  /** Changes a document (incrementally, or all of it) to its next version. */
  async change(uri: string, changes: TextDocumentContentChangeEvent[]): Promise<number> {
    const document = this.document(uri);
    const version = document.version + 1;
    TextDocument.update(document, changes, version);
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  /** Closes a document. */
  async close(uri: string): Promise<void> {
    this.#documents.delete(uri);
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  /** Sends `workspace/didChangeConfiguration`. */
  async configure(settings: unknown): Promise<void> {
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, { settings });
  }

  /** The client's copy of a document. */
  document(uri: string): TextDocument {
    const document = this.#documents.get(uri);
    if (document === undefined) throw new Error(`${uri} is not open`);
    return document;
  }

  /** The first diagnostics published for `uri` at `version` that `accept` accepts (by default, the first), waiting for them. */
  diagnostics(uri: string, version: number, accept: (diagnostics: PublishDiagnosticsParams["diagnostics"]) => boolean = () => true): Promise<PublishDiagnosticsParams> {
    return this.#until(`diagnostics of ${uri} v${version} ${accept.toString()}`, () => this.#diagnostics.find((params) => params.uri === uri && params.version === version && accept(params.diagnostics)));
  }

  /** The first `window/showMessage` that `accept` accepts, waiting for it. */
  message(accept: (message: ShowMessageParams) => boolean): Promise<ShowMessageParams> {
    return this.#until("a window/showMessage", () => this.messages.find(accept));
  }

  /** How many diagnostics notifications were received for `uri`. */
  publications(uri: string): number {
    return this.published(uri).length;
  }

  /** The diagnostics notifications received for `uri`, in order. */
  published(uri: string): PublishDiagnosticsParams[] {
    return this.#diagnostics.filter((params) => params.uri === uri);
  }

  /** `shutdown`, then `exit`; resolves to the exit status. */
  async stop(): Promise<number | null> {
    await this.connection.sendRequest(ShutdownRequest.type);
    await this.connection.sendNotification(ExitNotification.type);
    return this.exited;
  }

  /** Ends the process if a test left it running. */
  kill(): void {
    this.connection.dispose();
    if (this.child.exitCode === null) this.child.kill();
  }

  #received(record: () => void): void {
    record();
    for (const wake of this.#waiters.splice(0)) wake();
  }

  #until<T>(what: string, find: () => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${NOTIFICATION_TIMEOUT_MS} ms; stderr: ${this.stderr}`)), NOTIFICATION_TIMEOUT_MS);
      const check = () => {
        const found = find();
        if (found === undefined) return void this.#waiters.push(check);
        clearTimeout(timer);
        resolve(found);
      };
      check();
    });
  }
}
