/**
 * The filter language server: one document is one filter (it may span lines). It publishes the
 * diagnostics of `validate` once the document has stopped changing for a moment (see
 * {@link DIAGNOSTICS_DEBOUNCE_MS}), for its latest version only, offers each diagnostic's fixes as
 * quick fixes and `fixAll` as a source action, completes with `complete`, explains with `hover`,
 * and formats with `format`. The schema and sample objects come from the client's
 * `initializationOptions` and its `bexpr` settings (see {@link ServerSettings}).
 *
 * Every handler works on the text as the client sent it and is bounded by the parse limits: a
 * document longer than the limit gets the one `source_too_long` diagnostic, and nothing else.
 * A handler that fails anyway logs the error and answers nothing, so the server stays up.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import {
  CodeActionKind,
  CodeActionTriggerKind,
  DidChangeConfigurationNotification,
  MarkupKind,
  MessageType,
  ShowMessageNotification,
  TextDocuments,
  TextDocumentSyncKind,
  TextEdit,
  type CodeAction,
  type CodeActionParams,
  type CompletionItem,
  type Connection,
  type DidChangeConfigurationParams,
  type DocumentFormattingParams,
  type Hover,
  type HoverParams,
  type InitializeParams,
  type InitializeResult,
  DocumentHighlightKind,
  InlayHintKind,
  ResponseError,
  ErrorCodes,
  LSPErrorCodes,
  type DefinitionParams,
  type DocumentHighlight,
  type DocumentHighlightParams,
  type InlayHint,
  type InlayHintParams,
  type Location,
  type PrepareRenameParams,
  type Range,
  type RenameParams,
  type WorkspaceEdit,
  type SelectionRange,
  type SelectionRangeParams,
  type SemanticTokens,
  type SemanticTokensParams,
  type TextDocumentPositionParams,
} from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { complete } from "../editor/complete.js";
import { format } from "../editor/format.js";
import { hover } from "../editor/hover.js";
import { classifyTokens, occurrences, renameVariable, selectionSpans, typeHints, type RenameRefusalCode } from "../editor/structure.js";
import { fixAll, validate } from "../editor/validate.js";
import { FilterSyntaxError, type Diagnostic } from "../errors.js";
import { VERSION } from "../version.js";
import { encodeSemanticTokens, SEMANTIC_TOKENS_LEGEND } from "./semantic-tokens.js";
import { FIX_ALL_KIND, markdownToPlainText, type CompletionData, rangeOf, toCompletionItem, toLspDiagnostic, toQuickFix, wholeDocument } from "./convert.js";
import { DiagnosticsSchedule, DIAGNOSTICS_DEBOUNCE_MS } from "./schedule.js";
import { loadSettings, mergeSettings, type LoadedSettings, type ServerSettings } from "./settings.js";

export type { ServerSettings };
export { DIAGNOSTICS_DEBOUNCE_MS };

/**
 * The characters after which the client asks for completions without a word typed: the fields
 * of `Meta.`, the keys of `Meta[`, and the values of `Status == "`.
 */
export const COMPLETION_TRIGGERS: readonly string[] = [".", "[", '"'];

/** The settings section the server reads (`bexpr.schema`, `bexpr.samples`). */
export const SETTINGS_SECTION = "bexpr";

/**
 * Serves the filter language on `connection` (made by the caller, with its transport) until the
 * client sends `exit`.
 *
 * @example
 * ```ts
 * import { createConnection } from "vscode-languageserver/node";
 * startLanguageServer(createConnection(process.stdin, process.stdout));
 * ```
 */
export function startLanguageServer(connection: Connection): void {
  new FilterLanguageServer(connection).listen();
}

/**
 * The LSP error of each refused rename: nothing to rename is a request that does not apply, a
 * name that cannot be one is a bad parameter, and a rename that would change the filter's meaning
 * a request that was valid but failed (the code the protocol reserves for that, with the reason).
 */
const RENAME_ERROR_CODES: Readonly<Record<RenameRefusalCode, number>> = {
  not_a_variable: ErrorCodes.InvalidRequest,
  invalid_name: ErrorCodes.InvalidParams,
  captured_reference: LSPErrorCodes.RequestFailed,
  shadowed_use: LSPErrorCodes.RequestFailed,
  bound_twice: LSPErrorCodes.RequestFailed,
  pointer_use: LSPErrorCodes.RequestFailed,
};

/**
 * The diagnostics of a text under one set of settings. They are kept by text, not by version: a
 * client may reopen a document, or change it, without a new version number.
 */
interface Checked {
  readonly text: string;
  readonly settings: LoadedSettings;
  readonly diagnostics: readonly Diagnostic[];
}

/** The server's state: the open documents, their latest diagnostics, and the settings in force. */
class FilterLanguageServer {
  readonly #documents = new TextDocuments(TextDocument);
  /** Each open document's latest diagnostics, for the code actions asked about the same text. */
  readonly #checked = new Map<string, Checked>();
  /** Changes only book a check: validating every version of a burst of edits kept the server from answering anything else. */
  readonly #schedule = new DiagnosticsSchedule((uri) => this.#guard("validation", undefined, () => this.#publish(uri)));
  /** Relative settings paths are read from here: the workspace's folder, or the working directory. */
  #base = process.cwd();
  #initializationOptions: unknown;
  #settings: LoadedSettings = { problems: [] };
  /** The client answers `workspace/configuration` (otherwise settings come only with `didChangeConfiguration`). */
  #pullsConfiguration = false;
  /** Whether hover text goes out as Markdown (else plain text), as the client's `hover.contentFormat` prefers. */
  #hoverMarkdown = true;
  #registersConfiguration = false;

  constructor(private readonly connection: Connection) {}

  listen(): void {
    const { connection } = this;
    connection.onInitialize((params) => this.#initialize(params));
    connection.onInitialized(() => this.#settle("initialization", this.#initialized()));
    connection.onDidChangeConfiguration((params) => this.#settle("configuration", this.#configurationChanged(params)));
    connection.onCompletion((params) => this.#guard("completion", [], () => this.#complete(params)));
    connection.onCompletionResolve((item) => this.#guard("completion documentation", item, () => this.#resolveCompletion(item)));
    connection.onHover((params) => this.#guard("hover", null, () => this.#hover(params)));
    connection.onCodeAction((params) => this.#guard("code actions", [], () => this.#codeActions(params)));
    connection.onDocumentFormatting((params) => this.#guard("formatting", [], () => this.#format(params)));
    connection.languages.semanticTokens.on((params) => this.#guard("semantic tokens", { data: [] }, () => this.#semanticTokens(params)));
    connection.onSelectionRanges((params) => this.#guard("selection ranges", [], () => this.#selectionRanges(params)));
    connection.onDocumentHighlight((params) => this.#guard("document highlight", [], () => this.#highlights(params)));
    connection.onDefinition((params) => this.#guard("definition", null, () => this.#definition(params)));
    connection.onPrepareRename((params) => this.#guard("prepare rename", null, () => this.#prepareRename(params)));
    connection.onRenameRequest((params) => this.#guard("rename", null, () => this.#rename(params)));
    connection.languages.inlayHint.on((params) => this.#guard("inlay hints", [], () => this.#inlayHints(params)));
    this.#documents.onDidChangeContent(({ document }) => this.#schedule.schedule(document.uri));
    // A closed document's markers go with it, and so does a check still to come.
    this.#documents.onDidClose(({ document }) => {
      this.#schedule.cancel(document.uri);
      this.#checked.delete(document.uri);
      this.#settle("clearing diagnostics", connection.sendDiagnostics({ uri: document.uri, diagnostics: [] }));
    });
    this.#documents.listen(connection);
    connection.listen();
  }

  #initialize(params: InitializeParams): InitializeResult {
    const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri;
    if (folder?.startsWith("file:")) this.#base = fileURLToPath(folder);
    else if (typeof params.rootPath === "string") this.#base = params.rootPath;
    this.#initializationOptions = params.initializationOptions;
    this.#pullsConfiguration = params.capabilities.workspace?.configuration === true;
    // Markdown unless the client prefers plain text (or lists no Markdown): the formats are in its order of preference.
    const formats = params.capabilities.textDocument?.hover?.contentFormat;
    const markdown = formats?.indexOf(MarkupKind.Markdown) ?? -1;
    const plain = formats?.indexOf(MarkupKind.PlainText) ?? -1;
    this.#hoverMarkdown = formats === undefined || formats.length === 0 || (markdown >= 0 && (plain < 0 || markdown < plain));
    this.#registersConfiguration = params.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration === true;
    this.#settings = loadSettings(mergeSettings(this.#initializationOptions), this.#base);
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: [...COMPLETION_TRIGGERS], resolveProvider: true },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        documentFormattingProvider: true,
        semanticTokensProvider: { legend: SEMANTIC_TOKENS_LEGEND, full: true },
        selectionRangeProvider: true,
        documentHighlightProvider: true,
        definitionProvider: true,
        renameProvider: { prepareProvider: true },
        inlayHintProvider: true,
      },
      serverInfo: { name: "bexpr", version: VERSION },
    };
  }

  async #initialized(): Promise<void> {
    this.#report(this.#settings);
    // Without this registration VS Code sends no `didChangeConfiguration` to a server it does not configure itself.
    if (this.#registersConfiguration) await this.connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION });
    if (this.#pullsConfiguration) await this.#reload(await this.#pull());
  }

  /** New settings: pushed in the notification (`{ bexpr: { … } }`), or else asked for. */
  async #configurationChanged(params: DidChangeConfigurationParams): Promise<void> {
    const pushed: unknown = (params.settings as Record<string, unknown> | null | undefined)?.[SETTINGS_SECTION];
    const settings = pushed !== undefined && pushed !== null ? pushed : this.#pullsConfiguration ? await this.#pull() : undefined;
    await this.#reload(settings);
  }

  async #pull(): Promise<unknown> {
    try {
      return await this.connection.workspace.getConfiguration(SETTINGS_SECTION);
    } catch (error) {
      this.connection.console.error(`bexpr: cannot read the ${SETTINGS_SECTION} settings: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** Applies settings over the initialization options, reports what could not be used, and checks every open document again. */
  async #reload(settings: unknown): Promise<void> {
    this.#settings = loadSettings(mergeSettings(this.#initializationOptions, settings), this.#base);
    this.#report(this.#settings);
    for (const document of this.#documents.all()) this.#schedule.schedule(document.uri);
  }

  /** Shows each setting that could not be used (`window/showMessage`: `showErrorMessage` would send a request, which not every client answers). */
  #report(settings: LoadedSettings): void {
    for (const problem of settings.problems) {
      this.#settle("a message", this.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Error, message: `bexpr: ${problem}` }));
    }
  }

  /** Publishes the diagnostics of the document's latest version (the versions before it are never checked). */
  #publish(uri: string): void {
    const document = this.#documents.get(uri);
    if (document === undefined) return;
    const diagnostics = this.#diagnosticsOf(document);
    this.#settle("diagnostics", this.connection.sendDiagnostics({ uri, version: document.version, diagnostics: diagnostics.map((diagnostic) => toLspDiagnostic(document, diagnostic)) }));
  }

  /** The problems of the document as it is now: validated once per text and settings. */
  #diagnosticsOf(document: TextDocument): readonly Diagnostic[] {
    const text = document.getText();
    const checked = this.#checked.get(document.uri);
    // The same string as a rule, so the comparison is of references; at worst one pass over 128 KiB.
    if (checked !== undefined && checked.text === text && checked.settings === this.#settings) return checked.diagnostics;
    const diagnostics = validate(text, this.#schemaOption());
    this.#checked.set(document.uri, { text, settings: this.#settings, diagnostics });
    return diagnostics;
  }

  #complete(params: TextDocumentPositionParams): CompletionItem[] {
    const document = this.#documents.get(params.textDocument.uri);
    if (document === undefined) return [];
    const { schema, samples } = this.#settings;
    const completions = complete(document.getText(), document.offsetAt(params.position), { ...(schema === undefined ? {} : { schema }), ...(samples === undefined ? {} : { samples }) });
    return completions.map((completion, index) => toCompletionItem(document, completion, index));
  }

  /** Every token of the filter classified (fields, bound variables, keywords…), for editors without a grammar. */
  #semanticTokens(params: SemanticTokensParams): SemanticTokens {
    const document = this.#documents.get(params.textDocument.uri);
    if (document === undefined) return { data: [] };
    return { data: encodeSemanticTokens(document, classifyTokens(document.getText())) };
  }

  /** For each position, the spans a selection grows through: value or selector, clause, enclosing clauses, the filter. */
  #selectionRanges(params: SelectionRangeParams): SelectionRange[] {
    const document = this.#documents.get(params.textDocument.uri);
    if (document === undefined) return [];
    const text = document.getText();
    return params.positions.map((position) => {
      const spans = selectionSpans(text, document.offsetAt(position));
      let range: SelectionRange | undefined;
      for (let i = spans.length - 1; i >= 0; i--) range = { range: rangeOf(document, spans[i]!), ...(range === undefined ? {} : { parent: range }) };
      return range ?? { range: { start: position, end: position } };
    });
  }

  /** The occurrences of the variable or field under the cursor, with the document they are in. */
  #occurrencesAt(params: TextDocumentPositionParams) {
    const document = this.#documents.get(params.textDocument.uri);
    if (document === undefined) return undefined;
    const found = occurrences(document.getText(), document.offsetAt(params.position));
    return found === undefined ? undefined : { document, found };
  }

  /** Every use of the bound variable (its declaration written) or of the field under the cursor. */
  #highlights(params: DocumentHighlightParams): DocumentHighlight[] {
    const at = this.#occurrencesAt(params);
    if (at === undefined) return [];
    const { document, found } = at;
    const uses = found.uses.map((span) => ({ range: rangeOf(document, span), kind: DocumentHighlightKind.Read }));
    return found.kind === "variable" ? [{ range: rangeOf(document, found.declaration), kind: DocumentHighlightKind.Write }, ...uses] : uses;
  }

  /** Where the variable under the cursor is bound (after `as`). */
  #definition(params: DefinitionParams): Location | null {
    const at = this.#occurrencesAt(params);
    if (at === undefined || at.found.kind !== "variable") return null;
    return { uri: params.textDocument.uri, range: rangeOf(at.document, at.found.declaration) };
  }

  /** The name that can be renamed under the cursor: a bound variable's, nothing else (fields belong to the data). */
  #prepareRename(params: PrepareRenameParams): { range: Range; placeholder: string } | null {
    const at = this.#occurrencesAt(params);
    if (at === undefined || at.found.kind !== "variable") return null;
    const offset = at.document.offsetAt(params.position);
    const span = [at.found.declaration, ...at.found.uses].find((candidate) => candidate.start <= offset && offset <= candidate.end)!;
    return { range: rangeOf(at.document, span), placeholder: at.document.getText().slice(span.start, span.end) };
  }

  /**
   * Renames a bound variable: its declaration and every use bound to it (see `renameVariable`). A
   * refusal is answered with its reason, which the client shows: a rename that would change what
   * the filter reads (a captured or shadowed reference) fails as gopls' does, with `RequestFailed`.
   */
  #rename(params: RenameParams): WorkspaceEdit | ResponseError {
    // A document the client has not opened has nothing to rename, as an empty one.
    const document = this.#documents.get(params.textDocument.uri) ?? TextDocument.create(params.textDocument.uri, "bexpr", 0, "");
    const rename = renameVariable(document.getText(), document.offsetAt(params.position), params.newName);
    if (rename.kind === "refused") return new ResponseError(RENAME_ERROR_CODES[rename.code], rename.message);
    return { changes: { [params.textDocument.uri]: rename.spans.map((span) => TextEdit.replace(rangeOf(document, span), params.newName)) } };
  }

  /** In typed mode, what each selector holds (`: int`), after it. */
  #inlayHints(params: InlayHintParams): InlayHint[] {
    const document = this.#documents.get(params.textDocument.uri);
    const { schema } = this.#settings;
    if (document === undefined || schema === undefined) return [];
    const from = document.offsetAt(params.range.start);
    const to = document.offsetAt(params.range.end);
    return typeHints(document.getText(), schema)
      .filter((hint) => hint.offset >= from && hint.offset <= to)
      .map((hint) => ({ position: document.positionAt(hint.offset), label: `: ${hint.label}`, kind: InlayHintKind.Type }));
  }

  /**
   * A completion's documentation, asked for when the client shows the item: the hover of what it
   * inserts, in the filter as it would then read (a field's type and struct, an operator's rule
   * and example), in the format the client prefers. The item is left as it is when the document
   * changed since.
   */
  #resolveCompletion(item: CompletionItem): CompletionItem {
    const data = item.data as CompletionData | undefined;
    const document = data === undefined ? undefined : this.#documents.get(data.uri);
    if (data === undefined || document === undefined || document.version !== data.version) return item;
    const text = document.getText();
    const applied = text.slice(0, data.start) + data.text + text.slice(data.end);
    // Hover the word it inserts, past a leading quote, dot or bracket.
    const word = data.text.search(/[A-Za-z0-9_]/);
    const info = hover(applied, data.start + Math.max(word, 0), this.#schemaOption());
    if (info === undefined) return item;
    const documentation = this.#hoverMarkdown ? { kind: MarkupKind.Markdown, value: info.contents } : { kind: MarkupKind.PlainText, value: markdownToPlainText(info.contents) };
    return { ...item, documentation };
  }

  #hover(params: HoverParams): Hover | null {
    const document = this.#documents.get(params.textDocument.uri);
    if (document === undefined) return null;
    const info = hover(document.getText(), document.offsetAt(params.position), this.#schemaOption());
    if (info === undefined) return null;
    const contents = this.#hoverMarkdown ? { kind: MarkupKind.Markdown, value: info.contents } : { kind: MarkupKind.PlainText, value: markdownToPlainText(info.contents) };
    return { contents, range: rangeOf(document, info.range) };
  }

  /**
   * The fixes of the diagnostics in the range asked about, as quick fixes, and every fix at once
   * as a source action. That one (up to `MAX_FIXES` checks of the whole filter) is worked
   * out only when it is asked for by kind or by the user, not for the requests an editor makes
   * on its own each time the cursor moves.
   */
  #codeActions(params: CodeActionParams): CodeAction[] {
    const document = this.#documents.get(params.textDocument.uri);
    if (document === undefined) return [];
    const text = document.getText();
    const { only, triggerKind } = params.context;
    const asked = (kind: string) => only?.some((prefix) => kind === prefix || kind.startsWith(`${prefix}.`)) === true;
    const diagnostics = this.#diagnosticsOf(document);
    const actions: CodeAction[] = [];
    if (only === undefined || asked(CodeActionKind.QuickFix)) {
      const start = document.offsetAt(params.range.start);
      const end = document.offsetAt(params.range.end);
      for (const diagnostic of diagnostics) {
        if (diagnostic.span.start > end || diagnostic.span.end < start) continue;
        diagnostic.fixes?.forEach((fix, i) => actions.push(toQuickFix(document, diagnostic, fix, i === 0)));
      }
    }
    const fixable = diagnostics.some((diagnostic) => diagnostic.fixes !== undefined);
    if (fixable && (asked(FIX_ALL_KIND) || (only === undefined && triggerKind !== CodeActionTriggerKind.Automatic))) {
      const fixed = fixAll(text, this.#schemaOption());
      if (fixed.applied.length > 0) {
        const count = fixed.applied.length === 1 ? "1 fix" : `${fixed.applied.length} fixes`;
        actions.push({
          title: `Fix all bexpr problems (${count})`,
          kind: FIX_ALL_KIND,
          edit: { changes: { [document.uri]: [TextEdit.replace(wholeDocument(document), fixed.source)] } },
        });
      }
    }
    return actions;
  }

  /** The canonical form of a valid filter, keeping the document's final line break; nothing for an invalid one. */
  #format(params: DocumentFormattingParams): TextEdit[] {
    const document = this.#documents.get(params.textDocument.uri);
    if (document === undefined) return [];
    const text = document.getText();
    let formatted: string;
    try {
      formatted = format(text) + (/\r?\n$/.exec(text)?.[0] ?? "");
    } catch (error) {
      if (error instanceof FilterSyntaxError) return [];
      throw error;
    }
    return formatted === text ? [] : [TextEdit.replace(wholeDocument(document), formatted)];
  }

  #schemaOption(): { readonly schema?: LoadedSettings["schema"] } {
    const { schema } = this.#settings;
    return schema === undefined ? {} : { schema };
  }

  /** Runs a handler; an error it throws is logged, and the client gets `fallback`, so the server stays up. */
  #guard<T>(what: string, fallback: T, run: () => T): T {
    try {
      return run();
    } catch (error) {
      this.#log(what, error);
      return fallback;
    }
  }

  /** Lets work run on: a failure is logged, never an unhandled rejection (which would end the process). */
  #settle(what: string, work: Promise<unknown>): void {
    work.catch((error: unknown) => this.#log(what, error));
  }

  #log(what: string, error: unknown): void {
    try {
      this.connection.console.error(`bexpr: ${what} failed: ${(error as Error).stack ?? String(error)}`);
    } catch {
      // The connection itself is gone: nobody is left to tell.
    }
  }
}
