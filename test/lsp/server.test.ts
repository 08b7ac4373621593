/**
 * The language server over stdio, with a real LSP client: `bexpr lsp --stdio` from dist/ (built
 * by `npm run build`), as an editor starts it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  CodeActionKind,
  CodeActionRequest,
  CodeActionTriggerKind,
  CompletionItemKind,
  CompletionRequest,
  DiagnosticSeverity,
  DidChangeTextDocumentNotification,
  DocumentFormattingRequest,
  HoverRequest,
  MessageType,
  type CodeAction,
  type CompletionItem,
  type Diagnostic,
  type MarkupContent,
  type TextEdit,
} from "vscode-languageserver-protocol/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { MAX_SOURCE_LENGTH, schemas, validate } from "../../src/index.js";
import { runCli } from "../support/cli.js";
import { Session, type SessionOptions } from "./client.js";

const project = JSON.parse(readFileSync("package.json", "utf8")) as { files: string[] };

/** Each test starts a Node process; on a loaded two-core machine one can take seconds. */
const SLOW = { timeout: 60_000 };
const URI = "file:///workspace/filter.bexpr";

const directory = mkdtempSync(join(tmpdir(), "bexpr-lsp-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
function file(name: string, value: unknown): string {
  const path = join(directory, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

const podSchema = { kind: "object", typeName: "v1.Pod", fields: { Phase: "string", Labels: { kind: "map", values: "string" }, Restarts: "int" } };
const samples = [
  { Status: "running", Meta: { owner: "team-a", "web-api": "yes" } },
  { Status: "pending", Meta: { owner: "team-b" } },
];

const sessions: Session[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});
async function start(options: SessionOptions = {}): Promise<Session> {
  const session = await Session.start(options);
  sessions.push(session);
  return session;
}

/** The code, range and severity of each diagnostic. */
const summary = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, d.severity]);

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create(URI, "bexpr", 1, text), [...edits]);
}

/** The text a completion leaves when applied to `text`. */
function applyCompletion(text: string, item: CompletionItem): string {
  return applyEdits(text, [item.textEdit as TextEdit]);
}

describe("bexpr lsp --stdio", SLOW, () => {
  it("answers initialize with its features", async () => {
    const session = await start();
    expect(session.capabilities).toEqual({
      capabilities: {
        textDocumentSync: 2,
        completionProvider: { triggerCharacters: [".", "[", '"'], resolveProvider: true },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: ["quickfix", "source.fixAll.bexpr"] },
        documentFormattingProvider: true,
        semanticTokensProvider: {
          legend: { tokenTypes: ["property", "variable", "keyword", "operator", "string", "number", "enumMember", "regexp"], tokenModifiers: ["declaration"] },
          full: true,
        },
        selectionRangeProvider: true,
        documentHighlightProvider: true,
        definitionProvider: true,
        renameProvider: { prepareProvider: true },
        inlayHintProvider: true,
      },
      serverInfo: { name: "bexpr", version: expect.any(String) },
    });
  });

  it("publishes every mistake of an opened filter with its code, range, severity and hint", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    await session.open(URI, 'Stauts == "running" AND\n  Priority >= 50 and Name == my-job');
    const { diagnostics } = await session.diagnostics(URI, 1);
    expect(summary(diagnostics)).toEqual([
      ["unknown_field", 0, 0, 0, 6, DiagnosticSeverity.Error],
      ["unexpected_token", 0, 20, 0, 23, DiagnosticSeverity.Error],
      ["unsupported_operator", 1, 11, 1, 13, DiagnosticSeverity.Error],
      ["unexpected_character", 1, 31, 1, 32, DiagnosticSeverity.Error],
    ]);
    expect(diagnostics.every((d) => d.source === "bexpr")).toBe(true);
    expect(diagnostics[0]!.message).toBe('the object has no field "Stauts"\nhint: did you mean "Status"?');
    // Each links to its code's section of docs/errors.md.
    // The error reference beside the running server, which a user can open offline (the package ships it).
    const reference = pathToFileURL(resolve("docs/errors.md")).href;
    expect(diagnostics.map((d) => d.codeDescription?.href)).toEqual(diagnostics.map((d) => `${reference}#${String(d.code)}`));
    expect(project.files).toContain("docs/errors.md");
    for (const d of diagnostics) expect(readFileSync("docs/errors.md", "utf8")).toContain(`### ${String(d.code)}\n`);
  });

  it("publishes a warning as a warning", async () => {
    const session = await start();
    await session.open("file:///workspace/warning.bexpr", "Status != null");
    expect(summary((await session.diagnostics("file:///workspace/warning.bexpr", 1)).diagnostics)).toEqual([["null_literal", 0, 10, 0, 14, DiagnosticSeverity.Warning]]);
  });

  it("warns at a double-quoted value in JSON-pointer form, with the backticks as the preferred quick fix", async () => {
    const session = await start();
    const text = 'Status == "running" and\n  Path == "/v1/jobs"';
    await session.open(URI, text);
    const { diagnostics } = await session.diagnostics(URI, 1);
    expect(summary(diagnostics)).toEqual([["pointer_literal", 1, 10, 1, 20, DiagnosticSeverity.Warning]]);
    expect(diagnostics[0]!.message).toBe('"/v1/jobs" is read as a JSON pointer: this compares with the text "v1/jobs", not "/v1/jobs"\nhint: to compare with "/v1/jobs", write it in backticks: `/v1/jobs`');
    const actions = (await session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: URI },
      range: diagnostics[0]!.range,
      context: { diagnostics: [diagnostics[0]!], only: [CodeActionKind.QuickFix] },
    })) as CodeAction[];
    expect(actions.map((action) => [action.title, action.isPreferred])).toEqual([
      ["compare with the text as written: `/v1/jobs`", true],
      ['compare with "v1/jobs", as now: "v1/jobs"', false],
    ]);
    const fixed = applyEdits(text, actions[0]!.edit!.changes![URI]!);
    expect(fixed).toBe('Status == "running" and\n  Path == `/v1/jobs`');
    const version = await session.change(URI, [{ text: fixed }]);
    expect((await session.diagnostics(URI, version)).diagnostics).toEqual([]);
  });

  it("counts positions in UTF-16 code units, as the protocol does", async () => {
    const session = await start();
    await session.open(URI, 'Name == "🚀" AND Stop == false');
    expect(summary((await session.diagnostics(URI, 1)).diagnostics)).toEqual([["unexpected_token", 0, 13, 0, 16, DiagnosticSeverity.Error]]);
  });

  it("refreshes the diagnostics when the document changes", async () => {
    const session = await start();
    await session.open(URI, 'Status == "running" AND Stop == false');
    expect(summary((await session.diagnostics(URI, 1)).diagnostics)).toEqual([["unexpected_token", 0, 20, 0, 23, DiagnosticSeverity.Error]]);
    const version = await session.change(URI, [{ range: { start: { line: 0, character: 20 }, end: { line: 0, character: 23 } }, text: "and" }]);
    expect((await session.diagnostics(URI, version)).diagnostics).toEqual([]);
    const broken = await session.change(URI, [{ text: "Status ==" }]);
    expect(summary((await session.diagnostics(URI, broken)).diagnostics)).toEqual([["unexpected_end", 0, 9, 0, 9, DiagnosticSeverity.Error]]);
  });

  it("offers each diagnostic's fixes as quick fixes, as edits that fix the filter", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    const text = 'Stauts == "running" AND Name == my-job';
    await session.open(URI, text);
    const { diagnostics } = await session.diagnostics(URI, 1);
    const actions = (await session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: URI },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [diagnostics[0]!], only: [CodeActionKind.QuickFix] },
    })) as CodeAction[];
    expect(actions.map((action) => [action.title, action.kind, action.isPreferred, action.diagnostics?.map((d) => d.code)])).toEqual([['replace "Stauts" with "Status"', "quickfix", true, ["unknown_field"]]]);
    expect(applyEdits(text, actions[0]!.edit!.changes![URI]!)).toBe('Status == "running" AND Name == my-job');

    const all = (await session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: URI },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: text.length } },
      context: { diagnostics, only: [CodeActionKind.QuickFix] },
    })) as CodeAction[];
    expect(all.map((action) => action.title)).toEqual(['replace "Stauts" with "Status"', 'replace "AND" with "and"', 'quote the value: "my-job"']);
    // Each quick fix applied in turn, from the last (their edits do not overlap), fixes the filter.
    const fixed = all.reverse().reduce((source, action) => applyEdits(source, action.edit!.changes![URI]!), text);
    expect(fixed).toBe('Status == "running" and Name == "my-job"');
    expect(validate(fixed, { schema: schemas.job })).toEqual([]);
  });

  it("offers fixAll as a source action whose edit leaves no problem", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    const text = 'status = "running" AND\n  !Stop';
    await session.open(URI, text);
    await session.diagnostics(URI, 1);
    const actions = (await session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: URI },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: [CodeActionKind.SourceFixAll] },
    })) as CodeAction[];
    expect(actions.map((action) => [action.title, action.kind])).toEqual([["Fix all bexpr problems (4 fixes)", "source.fixAll.bexpr"]]);
    const fixed = applyEdits(text, actions[0]!.edit!.changes![URI]!);
    expect(fixed).toBe('Status == "running" and\n  Stop == false');
    expect(validate(fixed, { schema: schemas.job })).toEqual([]);

    // Asked by the user (a menu), it comes after the quick fixes; asked by the editor on its own as the cursor moves, it is not worked out.
    const kinds = async (triggerKind: CodeActionTriggerKind) =>
      ((await session.connection.sendRequest(CodeActionRequest.type, {
        textDocument: { uri: URI },
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        context: { diagnostics: [], triggerKind },
      })) as CodeAction[]).map((action) => action.kind);
    expect(await kinds(CodeActionTriggerKind.Invoked)).toEqual(["quickfix", "source.fixAll.bexpr"]);
    expect(await kinds(CodeActionTriggerKind.Automatic)).toEqual(["quickfix"]);
  });

  it("completes the schema's fields at a point, replacing the word typed", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    await session.open(URI, 'Status == "running" and\n  Sta');
    const items = (await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: URI }, position: { line: 1, character: 5 } })) as CompletionItem[];
    expect(items.map((item) => [item.label, item.kind, item.detail])).toEqual([
      ["Status", CompletionItemKind.Field, "string"],
      ["StatusDescription", CompletionItemKind.Field, "string"],
      ["Stable", CompletionItemKind.Field, "bool"],
    ]);
    expect(items[0]!.textEdit).toEqual({ range: { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }, newText: "Status" });
    expect(items.map((item) => item.sortText)).toEqual(["00000", "00001", "00002"]);
  });

  it("completes values and map keys from the samples, with quoted text that makes a valid filter", async () => {
    const session = await start({ initializationOptions: { schema: "job", samples: file("samples.json", samples) } });
    const text = "Status == ";
    await session.open(URI, text);
    const values = (await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 10 } })) as CompletionItem[];
    expect(values.map((item) => [item.label, item.kind, (item.textEdit as TextEdit).newText])).toEqual([
      ["running", CompletionItemKind.Value, '"running"'],
      ["pending", CompletionItemKind.Value, '"pending"'],
    ]);
    for (const item of values) expect(validate(applyCompletion(text, item), { schema: schemas.job })).toEqual([]);

    const keysText = "Meta.w";
    await session.change(URI, [{ text: keysText }]);
    const keys = (await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 6 } })) as CompletionItem[];
    expect(keys.map((item) => [item.label, item.kind, item.filterText])).toEqual([["web-api", CompletionItemKind.Property, ".web-api"]]);
    expect(applyCompletion(keysText, keys[0]!)).toBe('Meta["web-api"]');
  });

  it("answers hover with Markdown about the word under the pointer", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    await session.open(URI, '"dc1" in Datacenters  and\nPriority == 50');
    const field = await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: { line: 1, character: 3 } });
    expect(field?.range).toEqual({ start: { line: 1, character: 0 }, end: { line: 1, character: 8 } });
    expect((field?.contents as MarkupContent).kind).toBe("markdown");
    expect((field?.contents as MarkupContent).value).toContain("**`Priority`**: `int`");
    const operator = await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 7 } });
    expect((operator?.contents as MarkupContent).value).toContain("**`in`** (operator)");
    // Over whitespace (not just after a word): nothing.
    expect(await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 21 } })).toBeNull();
  });

  it.each([
    [["plaintext"] as const, "plaintext"],
    [["plaintext", "markdown"] as const, "plaintext"],
    [["markdown", "plaintext"] as const, "markdown"],
  ])("answers hover to a client whose formats are %j in %s", async (formats, kind) => {
    const session = await start({ initializationOptions: { schema: "job" }, hoverFormats: formats });
    await session.open(URI, '"dc1" in Datacenters and\nPriority == 50');
    const field = await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: { line: 1, character: 3 } });
    const operator = await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 7 } });
    expect((field?.contents as MarkupContent).kind).toBe(kind);
    if (kind === "markdown") return;
    // Emacs 28's Eglot without markdown-mode shows the text as it is: no ** nor backticks, the example indented.
    expect((field?.contents as MarkupContent).value).toBe("Priority: int\n\nA field of structs.Job: its scheduling priority, 1 to 100 (50 by default).");
    const text = (operator?.contents as MarkupContent).value;
    expect(text).toMatch(/^in \(operator\): value is an element, key or substring of the selector\n/);
    expect(text).toContain('\n    "dc1" in Datacenters');
    expect(text).not.toMatch(/\*\*|`/);
  });

  it("formats a valid filter to its canonical form, keeping the final line break, and leaves an invalid one", async () => {
    const session = await start();
    await session.open(URI, '(Status=="running")  and\n  ((Stop==false))\n');
    const edits = await session.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: URI }, options: { tabSize: 2, insertSpaces: true } });
    expect(applyEdits(session.document(URI).getText(), edits ?? [])).toBe('Status == "running" and Stop == false\n');
    await session.change(URI, [{ text: '(Status=="running"  and' }]);
    expect(await session.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: URI }, options: { tabSize: 2, insertSpaces: true } })).toEqual([]);
  });

  it("reads a schema file named in the initialization options, relative to the workspace", async () => {
    file("pod.schema.json", podSchema);
    const session = await start({ root: directory, initializationOptions: { schema: "pod.schema.json" } });
    await session.open(URI, 'Phse == "Running" and Labels.app == "web"');
    const { diagnostics } = await session.diagnostics(URI, 1);
    expect(summary(diagnostics)).toEqual([["unknown_field", 0, 0, 0, 4, DiagnosticSeverity.Error]]);
    expect(diagnostics[0]!.message).toContain('did you mean "Phase"?');
    const hover = await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 23 } });
    expect((hover?.contents as MarkupContent).value).toContain("**`Labels`**: `map of string`\n\nA field of `v1.Pod`.");
  });

  it("applies settings pushed with didChangeConfiguration, and checks open documents again", async () => {
    const session = await start();
    await session.open(URI, 'Stauts == "running"');
    expect((await session.diagnostics(URI, 1)).diagnostics).toEqual([]);
    await session.configure({ bexpr: { schema: "job" } });
    const job = await session.diagnostics(URI, 1, (diagnostics) => diagnostics.length > 0);
    expect(summary(job.diagnostics)).toEqual([["unknown_field", 0, 0, 0, 6, DiagnosticSeverity.Error]]);
    expect(job.diagnostics[0]!.message).toContain('did you mean "Status"?');
    // The pod schema has no field near "Stauts": its diagnostic has no hint.
    await session.configure({ bexpr: { schema: file("pod-pushed.json", podSchema) } });
    const pod = await session.diagnostics(URI, 1, (diagnostics) => diagnostics[0]?.message === 'the object has no field "Stauts"');
    expect(summary(pod.diagnostics)).toEqual([["unknown_field", 0, 0, 0, 6, DiagnosticSeverity.Error]]);
  });

  it("asks for the bexpr settings with workspace/configuration when the client answers it", async () => {
    let settings: unknown = null;
    const session = await start({ configuration: () => settings });
    await session.open(URI, 'Phse == "Running"');
    expect((await session.diagnostics(URI, 1)).diagnostics).toEqual([]);
    settings = { schema: file("pod-pulled.json", podSchema) };
    await session.configure(null);
    const pulled = await session.diagnostics(URI, 1, (diagnostics) => diagnostics.length > 0);
    expect(summary(pulled.diagnostics)).toEqual([["unknown_field", 0, 0, 0, 4, DiagnosticSeverity.Error]]);
    expect(session.configurationRequests).toContain("bexpr");
  });

  it("asks for the bexpr settings when initialized, before any change", async () => {
    const session = await start({ configuration: () => ({ schema: "job" }) });
    await session.open(URI, 'Stauts == "running"');
    const pulled = await session.diagnostics(URI, 1, (diagnostics) => diagnostics.length > 0);
    expect(summary(pulled.diagnostics)).toEqual([["unknown_field", 0, 0, 0, 6, DiagnosticSeverity.Error]]);
  });

  it.each([
    ["a file that does not exist", () => join(directory, "missing.json"), /bexpr\.schema: cannot read .*missing\.json: no such file/],
    ["a file that is not JSON", () => file("broken.json", "{ kind: "), /bexpr\.schema: cannot read .*broken\.json/],
    ["a file that is not a schema", () => file("not-a-schema.json", { kind: "object", fields: { Phase: "text" } }), /does not hold a field schema: the schema\.fields\.Phase is "text", not a kind/],
  ])("shows an error message for %s, and goes on without a schema", async (_what, path, message) => {
    const session = await start({ initializationOptions: { schema: path() } });
    const shown = await session.message((m) => m.type === MessageType.Error);
    expect(shown.message).toMatch(message);
    await session.open(URI, 'Stauts == "x" AND y == 1');
    expect(summary((await session.diagnostics(URI, 1)).diagnostics)).toEqual([["unexpected_token", 0, 14, 0, 17, DiagnosticSeverity.Error]]);
  });

  it("shows an error message for a samples file that is not a list", async () => {
    const session = await start({ initializationOptions: { samples: file("object.json", { Status: "running" }) } });
    expect((await session.message((m) => m.type === MessageType.Error)).message).toMatch(/bexpr\.samples: .*object\.json must hold a JSON array/);
  });

  it("reports a document longer than the parse limit as source_too_long, and offers nothing in it", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    const text = `Status == "${"x".repeat(MAX_SOURCE_LENGTH)}"`;
    await session.open(URI, text);
    expect(summary((await session.diagnostics(URI, 1)).diagnostics)).toEqual([["source_too_long", 0, MAX_SOURCE_LENGTH, 0, text.length, DiagnosticSeverity.Error]]);
    const position = { line: 0, character: 3 };
    expect(await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: URI }, position })).toEqual([]);
    expect(await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position })).toBeNull();
    expect(await session.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: URI }, options: { tabSize: 2, insertSpaces: true } })).toEqual([]);
  });

  it("stays up on hostile input: every request at every position of odd filters is answered", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    const texts = ['((((Meta["', "any any as as { as", '"\\x"  not not not in `\n`', "\u0000\uFFFF\uD800 == ", "a.b.c.d[\"e\"].0.f == -0.5e", `${"not ".repeat(2_000)}x == 1`];
    for (const [i, text] of texts.entries()) {
      const uri = `file:///workspace/hostile-${i}.bexpr`;
      await session.open(uri, text);
      await session.diagnostics(uri, 1);
      const document = TextDocument.create(uri, "bexpr", 1, text);
      for (let offset = 0; offset <= text.length; offset += Math.max(1, Math.floor(text.length / 40))) {
        const position = document.positionAt(offset);
        await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position });
        await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
      }
      await session.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range: { start: document.positionAt(0), end: document.positionAt(text.length) }, context: { diagnostics: [] } });
    }
    expect(session.child.exitCode).toBeNull();
    // No handler failed (the server would log it and answer nothing).
    expect(session.logs).toEqual([]);
    expect(session.stderr).toBe("");
    expect(await session.stop()).toBe(0);
  });

  it("checks a burst of 300 edits to a 113 KB filter once, for its last version, and answers hover meanwhile", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    let text = 'Meta.k0 == "v0"';
    for (let i = 1; text.length < 113_000; i++) text += ` or Meta.k${i} == "v${i}"`;
    await session.open(URI, text);
    expect((await session.diagnostics(URI, 1)).diagnostics).toEqual([]);
    const before = session.publications(URI);
    // "x" typed 300 times after the first "Meta": an unknown field, whose span grows with each edit.
    let version = 1;
    for (let i = 0; i < 300; i++) {
      const end = { line: 0, character: 4 + i };
      version = await session.change(URI, [{ range: { start: end, end }, text: "x" }]);
    }
    const hover = await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 1 } });
    expect(hover?.range).toEqual({ start: { line: 0, character: 0 }, end: { line: 0, character: 304 } });
    const last = await session.diagnostics(URI, version);
    // The selector of the last version, `Metaxx…x.k0`.
    expect(summary(last.diagnostics)).toEqual([["unknown_field", 0, 0, 0, 307, DiagnosticSeverity.Error]]);
    // One check a pause, and the client made none: not one check a version (300). A loaded machine
    // may stall the server long enough mid-burst to make a pause or two.
    expect(session.publications(URI) - before).toBeLessThan(5);
  });

  it("publishes nothing for a document closed before its check", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    await session.open(URI, 'Stauts == "running"');
    await session.change(URI, [{ text: 'Stautus == "running"' }]);
    await session.close(URI);
    // Opened after the close, the other document falls due after the closed one would have.
    const other = "file:///workspace/other.bexpr";
    await session.open(other, 'Status == "running"');
    await session.diagnostics(other, 1);
    // The last word on the closed document is the clearing of its markers.
    expect(session.published(URI).at(-1)).toEqual({ uri: URI, diagnostics: [] });
  });

  it("offers the quick fixes of the text as it is, even when a change comes without a new version", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    await session.open(URI, 'Stauts == "running"');
    await session.diagnostics(URI, 1);
    const text = 'Status == "running" AND Stop == false';
    await session.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: URI, version: 1 }, contentChanges: [{ text }] });
    const actions = (await session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: URI },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: text.length } },
      context: { diagnostics: [], only: [CodeActionKind.QuickFix] },
    })) as CodeAction[];
    expect(actions.map((action) => action.title)).toEqual(['replace "AND" with "and"']);
  });

  it("ends with status 0 after shutdown and exit", async () => {
    const session = await start();
    expect(await session.stop()).toBe(0);
  });

  it("ends with status 1 on exit without shutdown, as the protocol says", async () => {
    const session = await start();
    await session.connection.sendNotification("exit");
    expect(await session.exited).toBe(1);
  });
});

describe("bexpr lsp on the command line", SLOW, () => {
  it("needs --stdio", async () => {
    const { code, stderr } = await runCli(["lsp"]);
    expect(code).toBe(2);
    expect(stderr).toContain("bexpr lsp needs --stdio");
    expect(stderr).toContain("run 'bexpr lsp --help' for usage");
  });

  it("prints its usage with --help, and is listed in bexpr's", async () => {
    expect(await runCli(["lsp", "--help"])).toMatchObject({ code: 0, stdout: expect.stringContaining("Usage: bexpr lsp --stdio") });
    expect((await runCli(["--help"])).stdout).toContain("lsp --stdio");
  });
});
