/**
 * The language server's structure features, over stdio with a real client's messages: semantic
 * tokens (every token classified: fields, bound variables and their declarations, keywords,
 * operators, literals, patterns, JSON-pointer paths), and selection ranges that grow clause by
 * clause.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SelectionRangeRequest, SemanticTokensRequest, type SelectionRange } from "vscode-languageserver-protocol/node";
import { Session } from "./client.js";

const URI = "file:///workspace/filter.bexpr";
const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.stop()));
});

async function start(): Promise<Session> {
  const session = await Session.start();
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
