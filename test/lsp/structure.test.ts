/**
 * The language server's structure features, over stdio with a real client's messages: semantic
 * tokens (every token classified: fields, bound variables and their declarations, keywords,
 * operators, literals, patterns, JSON-pointer paths), and selection ranges that grow clause by
 * clause.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  CompletionRequest,
  CompletionResolveRequest,
  DefinitionRequest,
  DocumentHighlightKind,
  DocumentHighlightRequest,
  InlayHintRequest,
  LSPErrorCodes,
  PrepareRenameRequest,
  RenameRequest,
  SelectionRangeRequest,
  SemanticTokensRequest,
  type CompletionItem,
  type DocumentHighlight,
  type MarkupContent,
  type Location,
  type SelectionRange,
  type TextEdit,
} from "vscode-languageserver-protocol/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { Session, type SessionOptions } from "./client.js";

const URI = "file:///workspace/filter.bexpr";
const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.stop()));
});

async function start(options: SessionOptions = {}): Promise<Session> {
  const session = await Session.start(options);
  sessions.push(session);
  return session;
}

/** The semantic tokens of `text` decoded: [text, type, modifiers] per token. */
async function tokensOf(session: Session, text: string): Promise<[string, string, string[]][]> {
  await session.open(URI, text);
  const legend = session.capabilities.capabilities.semanticTokensProvider!.legend;
  const { data } = (await session.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: URI } }))!;
  const lines = text.split("\n");
  const out: [string, string, string[]][] = [];
  let line = 0;
  let character = 0;
  for (let i = 0; i < data.length; i += 5) {
    const [deltaLine, deltaStart, length, type, modifiers] = data.slice(i, i + 5) as [number, number, number, number, number];
    line += deltaLine;
    character = deltaLine === 0 ? character + deltaStart : deltaStart;
    out.push([lines[line]!.slice(character, character + length), legend.tokenTypes[type]!, legend.tokenModifiers.filter((_name, bit) => (modifiers & (1 << bit)) !== 0)]);
  }
  return out;
}

describe("semantic tokens", () => {
  it.each([
    [
      'Status == "running" and "dc1" in Datacenters',
      [["Status", "property", []], ["==", "operator", []], ['"running"', "string", []], ["and", "keyword", []], ['"dc1"', "string", []], ["in", "keyword", []], ["Datacenters", "property", []]],
    ],
    [
      'any TaskGroups as g { g.Count == 1 and Name matches "^web" }',
      [["any", "keyword", []], ["TaskGroups", "property", []], ["as", "keyword", []], ["g", "variable", ["declaration"]], ["g", "variable", []], ["Count", "property", []], ["==", "operator", []], ["1", "number", []], ["and", "keyword", []], ["Name", "property", []], ["matches", "keyword", []], ['"^web"', "regexp", []]],
    ],
    ['"/Meta/owner" == "a" or Meta.x is empty', [['"/Meta/owner"', "property", []], ["==", "operator", []], ['"a"', "string", []], ["or", "keyword", []], ["Meta", "property", []], ["x", "property", []], ["is", "keyword", []], ["empty", "enumMember", []]]],
    // Over lines, and while a filter is being typed (with a mistake).
    ['Status == "running" and\n  Priority ==', [["Status", "property", []], ["==", "operator", []], ['"running"', "string", []], ["and", "keyword", []], ["Priority", "property", []], ["==", "operator", []]]],
  ] as const)("classifies %j", async (text, expected) => {
    const session = await start();
    expect(await tokensOf(session, text)).toEqual(expected);
  });

  it("cuts a raw string over several lines at each line break", async () => {
    const session = await start();
    expect(await tokensOf(session, "Name == `a\nb`")).toEqual([["Name", "property", []], ["==", "operator", []], ["`a", "string", []], ["b`", "string", []]]);
  });
});

describe("selection ranges", () => {
  /** The texts a selection grows through from the `|` of `marked`. */
  async function growths(marked: string): Promise<string[]> {
    const session = await start();
    const text = marked.replace("|", "");
    await session.open(URI, text);
    const document = session.document(URI);
    const [range] = (await session.connection.sendRequest(SelectionRangeRequest.type, { textDocument: { uri: URI }, positions: [document.positionAt(marked.indexOf("|"))] }))!;
    const texts: string[] = [];
    for (let at: SelectionRange | undefined = range; at !== undefined; at = at.parent) texts.push(document.getText(at.range));
    return texts;
  }

  it("grows from a value to its clause, the clauses around it, and the filter", async () => {
    expect(await growths('Status == "running" and (Type == "ba|tch" or Priority == 50)')).toEqual([
      '"batch"',
      'Type == "batch"',
      '(Type == "batch" or Priority == 50)',
      'Status == "running" and (Type == "batch" or Priority == 50)',
    ]);
  });

  it("grows from a selector inside an any's body to the any", async () => {
    expect(await growths("any TaskGroups as g { g.Cou|nt == 1 }")).toEqual(["g.Count", "g.Count == 1", "any TaskGroups as g { g.Count == 1 }"]);
  });

  it("has only the filter to offer when it cannot be read", async () => {
    expect(await growths("Status ==| ==")).toEqual(["Status == =="]);
  });
});

/** A document opened with the `|` of `marked` as the position asked about. */
async function openAt(session: Session, marked: string) {
  const text = marked.replace("|", "");
  await session.open(URI, text);
  const document = session.document(URI);
  return { text, document, position: document.positionAt(marked.indexOf("|")) };
}

const TEXT = '(any TaskGroups as g { g.Count == 1 and (any g.Tasks as g { g.Name == "x" }) }) and Priority == 50 and Priority != 1';

describe("document highlight, definition and rename", () => {
  /** The texts and offsets of the highlights at the `|` of `marked`. */
  async function highlights(marked: string): Promise<[string, number, string][]> {
    const session = await start();
    const { document, position } = await openAt(session, marked);
    const found = (await session.connection.sendRequest(DocumentHighlightRequest.type, { textDocument: { uri: URI }, position })) as DocumentHighlight[];
    return found
      .map((highlight): [string, number, string] => [document.getText(highlight.range), document.offsetAt(highlight.range.start), highlight.kind === DocumentHighlightKind.Write ? "write" : "read"])
      .sort((a, b) => a[1] - b[1]);
  }

  it("highlights a bound variable's declaration and its uses, not those of a name bound again inside", async () => {
    const marked = TEXT.replace("g.Count", "g|.Count");
    expect(await highlights(marked)).toEqual([
      ["g", TEXT.indexOf("g {"), "write"],
      ["g", TEXT.indexOf("g.Count"), "read"],
      ["g", TEXT.indexOf("g.Tasks"), "read"],
    ]);
    const inner = TEXT.replace("g.Name", "|g.Name");
    expect(await highlights(inner)).toEqual([
      ["g", TEXT.lastIndexOf("g {"), "write"],
      ["g", TEXT.indexOf("g.Name"), "read"],
    ]);
  });

  it("highlights every use of a field", async () => {
    expect(await highlights(TEXT.replace("Priority == 50", "Prio|rity == 50"))).toEqual([
      ["Priority", TEXT.indexOf("Priority"), "read"],
      ["Priority", TEXT.lastIndexOf("Priority"), "read"],
    ]);
  });

  it("goes to a variable's definition, and has none for a field", async () => {
    const session = await start();
    const { document, position } = await openAt(session, TEXT.replace("g.Name", "|g.Name"));
    const location = (await session.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri: URI }, position })) as Location;
    expect(document.offsetAt(location.range.start)).toBe(TEXT.lastIndexOf("g {"));
    const field = await openAt(session, TEXT.replace("Priority == 50", "Prio|rity == 50"));
    expect(await session.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri: URI }, position: field.position })).toBeNull();
  });

  it("renames a variable where it is bound and used, and refuses a field or a keyword", async () => {
    const session = await start();
    const { text, document, position } = await openAt(session, TEXT.replace("g.Count", "|g.Count"));
    const prepared = (await session.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: URI }, position })) as { placeholder: string };
    expect(prepared.placeholder).toBe("g");
    const edit = await session.connection.sendRequest(RenameRequest.type, { textDocument: { uri: URI }, position, newName: "group" });
    const renamed = TextDocument.applyEdits(TextDocument.create(URI, "bexpr", 1, text), edit!.changes![URI] as TextEdit[]);
    expect(renamed).toBe('(any TaskGroups as group { group.Count == 1 and (any group.Tasks as g { g.Name == "x" }) }) and Priority == 50 and Priority != 1');
    expect(document.getText()).toBe(text);
    await expect(session.connection.sendRequest(RenameRequest.type, { textDocument: { uri: URI }, position, newName: "and" })).rejects.toThrow(/"and" cannot name a variable/);
    const field = await openAt(session, TEXT.replace("Priority == 50", "Prio|rity == 50"));
    expect(await session.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: URI }, position: field.position })).toBeNull();
  });

  it("refuses a rename that would capture a field, with the reference and where it is", async () => {
    const session = await start();
    // The example: renaming tg to Name would make the body's own Name read the element.
    const { position } = await openAt(session, 'any TaskGroups as |tg { tg.Name == "y" and Name == "x" }');
    const rename = session.connection.sendRequest(RenameRequest.type, { textDocument: { uri: URI }, position, newName: "Name" });
    await expect(rename).rejects.toMatchObject({
      code: LSPErrorCodes.RequestFailed,
      message: 'renaming "tg" to "Name" would capture the reference Name at 1:43: it reads the field "Name" of the object, and would read the renamed variable instead',
    });
  });
});

describe("inlay hints", () => {
  it("show what each selector holds in typed mode, bound variables through their collections", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    const text = '(any Meta as k, v { v == "x" }) and Priority == 50 and Datacenters contains "dc1"';
    await session.open(URI, text);
    const document = session.document(URI);
    const hints = (await session.connection.sendRequest(InlayHintRequest.type, { textDocument: { uri: URI }, range: { start: { line: 0, character: 0 }, end: document.positionAt(text.length) } }))!;
    expect(hints.map((hint) => [text.slice(0, document.offsetAt(hint.position)).split(/[ (]/).pop(), hint.label])).toEqual([
      ["Meta", ": map of string"],
      ["v", ": string"],
      ["Priority", ": int"],
      ["Datacenters", ": list of string"],
    ]);
  });

  it("show nothing without a schema", async () => {
    const session = await start();
    await session.open(URI, "Priority == 50");
    expect(await session.connection.sendRequest(InlayHintRequest.type, { textDocument: { uri: URI }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 14 } } })).toEqual([]);
  });
});

describe("completion documentation", () => {
  it("documents the item the client shows: a field's type and struct, an operator's rule", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    await session.open(URI, "Prio");
    const items = (await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 4 } })) as CompletionItem[];
    const priority = items.find((item) => item.label === "Priority")!;
    expect(priority.documentation).toBeUndefined();
    const resolved = await session.connection.sendRequest(CompletionResolveRequest.type, priority);
    expect((resolved.documentation as MarkupContent).value).toBe("**`Priority`**: `int`\n\nA field of `structs.Job`: its scheduling priority, 1 to 100 (50 by default).");

    await session.change(URI, [{ text: 'Status == "running" ' }]);
    const next = (await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 20 } })) as CompletionItem[];
    const and = await session.connection.sendRequest(CompletionResolveRequest.type, next.find((item) => item.label === "and")!);
    expect((and.documentation as MarkupContent).value).toMatch(/^\*\*`and`\*\* \(keyword\)/);
  });

  it("leaves an item of an older version of the document undocumented", async () => {
    const session = await start({ initializationOptions: { schema: "job" } });
    await session.open(URI, "Prio");
    const items = (await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: URI }, position: { line: 0, character: 4 } })) as CompletionItem[];
    await session.change(URI, [{ text: "Stat" }]);
    const stale = await session.connection.sendRequest(CompletionResolveRequest.type, items.find((item) => item.label === "Priority")!);
    expect(stale.documentation).toBeUndefined();
  });
});
