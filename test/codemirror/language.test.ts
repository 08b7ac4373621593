import { closeBrackets } from "@codemirror/autocomplete";
import { ensureSyntaxTree, matchBrackets, syntaxTree } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { classHighlighter, highlightTree } from "@lezer/highlight";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bexprLanguage } from "../../src/codemirror/index.js";
import { INVALID_NODE, TOKEN_TAGS } from "../../src/codemirror/language.js";
import { tokenEnd, tokenize } from "../../src/lexer/lexer.js";
import { WORD_TYPES } from "../../src/parser/analysis.js";
import { allTokens, Name, QuotedString, WhiteSpace } from "../../src/lexer/tokens.js";
import { sourceArb } from "../support/arbitraries.js";
import { stateOf } from "./support.js";

/**
 * The class of each character of `doc` in an editor with the extension, from the standard class
 * highlighter ("" where nothing is highlighted). Characters, not ranges: CodeMirror joins
 * neighbouring ranges of one class (`((`), and the lexer's tokens are what must agree.
 */
function classesOf(doc: string): string[] {
  const state = stateOf(doc);
  const tree = ensureSyntaxTree(state, state.doc.length, 1000)!;
  const classes = Array.from({ length: doc.length }, () => "");
  highlightTree(tree, classHighlighter, (from, to, style) => classes.fill(style, from, to));
  return classes;
}

/** The lexer's tokens of `doc`: node name and range. */
function lexed(doc: string): { name: string; from: number; to: number }[] {
  return tokenize(doc).tokens.map((token) => ({ name: token.tokenType.name, from: token.startOffset, to: tokenEnd(token) }));
}

/** The syntax tree's nodes under the top node: name and range. */
function nodesOf(doc: string): { name: string; from: number; to: number }[] {
  const nodes: { name: string; from: number; to: number }[] = [];
  for (let node = syntaxTree(stateOf(doc)).topNode.firstChild; node !== null; node = node.nextSibling) nodes.push({ name: node.name, from: node.from, to: node.to });
  return nodes;
}

/** The class of the first character of each of the lexer's tokens. */
function tokenClasses(doc: string): string[] {
  const classes = classesOf(doc);
  return lexed(doc).map((token) => classes[token.from]!);
}

describe("highlighting", () => {
  it("has a tag for every token type the lexer emits (all but whitespace and the two categories)", () => {
    const emitted = allTokens.filter((type) => type !== WhiteSpace && type !== Name && type !== QuotedString).map((type) => type.name);
    expect(WORD_TYPES).toEqual(emitted);
    expect(emitted.filter((type) => !TOKEN_TAGS.has(type))).toEqual([]);
  });

  it.each([
    ['Status == "running" and "dc1" in Datacenters', ["tok-propertyName", "tok-operator", "tok-string", "tok-keyword", "tok-string", "tok-keyword", "tok-propertyName"]],
    ['Meta["web-api"].owner != `raw\nline`', ["tok-propertyName", "tok-punctuation", "tok-string", "tok-punctuation", "tok-operator", "tok-propertyName", "tok-operator", "tok-string"]],
    ["any TaskGroups as _, tg { tg.Count == -5 }", ["tok-keyword", "tok-propertyName", "tok-keyword", "tok-variableName", "tok-punctuation", "tok-propertyName", "tok-punctuation", "tok-propertyName", "tok-operator", "tok-propertyName", "tok-operator", "tok-number", "tok-punctuation"]],
    ["Items.0 is not empty or X is nil", ["tok-propertyName", "tok-operator", "tok-number", "tok-keyword", "tok-keyword", "tok-atom", "tok-keyword", "tok-propertyName", "tok-keyword", "tok-keyword"]],
    ["Priority >= 50 && !Stop", ["tok-propertyName", "tok-invalid", "tok-number", "tok-invalid", "tok-invalid", "tok-propertyName"]],
  ])("colours %j token by token, as the lexer reads it", (doc, classes) => {
    expect(nodesOf(doc)).toEqual(lexed(doc));
    expect(tokenClasses(doc)).toEqual(classes);
  });

  it("colours a keyword used as a name as the lexer reads it: a keyword (Meta.in)", () => {
    expect(tokenClasses("Meta.in == 1")).toEqual(["tok-propertyName", "tok-operator", "tok-keyword", "tok-operator", "tok-number"]);
  });

  it("runs an unclosed string to the end, across lines, as the lexer does", () => {
    const doc = 'Status == "running and\nStop == false';
    expect(nodesOf(doc).at(-1)).toEqual({ name: "UnterminatedString", from: 10, to: doc.length });
    expect(new Set(classesOf(doc).slice(10))).toEqual(new Set(["tok-string"]));
  });

  it("marks the characters the lexer cannot read as invalid, between the tokens", () => {
    const doc = "Name == my-job and 'x' == ünï";
    const invalid = nodesOf(doc).filter((node) => node.name === INVALID_NODE);
    expect(invalid.map(({ from, to }) => doc.slice(from, to))).toEqual(["-", "'", "'", "ü", "ï"]);
    expect(invalid.every(({ from, to }) => classesOf(doc).slice(from, to).every((style) => style === "tok-invalid"))).toBe(true);
    expect(nodesOf(doc).filter((node) => node.name !== INVALID_NODE)).toEqual(lexed(doc));
  });

  it("covers exactly the lexer's tokens for any filter, each in its tag's class, and marks every other non-blank character invalid", () => {
    fc.assert(
      fc.property(sourceArb, (doc) => {
        const classes = classesOf(doc);
        const tokens = lexed(doc);
        expect(nodesOf(doc).filter((node) => node.name !== INVALID_NODE)).toEqual(tokens);
        const expected: string[] = Array.from(doc, (ch) => (/[ \t\r\n]/.test(ch) ? "" : "tok-invalid"));
        for (const token of tokenize(doc).tokens) expected.fill(classHighlighter.style([TOKEN_TAGS.get(token.tokenType.name)!])!, token.startOffset, tokenEnd(token));
        // Array.from splits by code point; the classes are by UTF-16 unit, as offsets are.
        expect(classes).toEqual(Array.from({ length: doc.length }, (_, i) => expected[codePointIndex(doc, i)]));
      }),
      { numRuns: 300 },
    );
  });
});

/** The index, among the code points of `text`, of the one holding UTF-16 unit `unit`. */
function codePointIndex(text: string, unit: number): number {
  return Array.from(text.slice(0, unit + 1)).length - 1;
}

describe("brackets", () => {
  it("matches a bracket with its partner, skipping brackets inside strings", () => {
    const doc = 'any X as x { (x == "(}") and Meta["k"] == 1 }';
    const state = stateOf(doc);
    expect(matchBrackets(state, doc.indexOf("{"), 1)).toMatchObject({ matched: true, end: { from: doc.lastIndexOf("}") } });
    expect(matchBrackets(state, doc.indexOf("("), 1)).toMatchObject({ matched: true, end: { from: doc.indexOf(")") } });
    expect(matchBrackets(state, doc.indexOf("["), 1)).toMatchObject({ matched: true, end: { from: doc.indexOf("]") } });
  });

  it("reports a bracket without a partner as unmatched", () => {
    expect(matchBrackets(stateOf("(Status == 1"), 0, 1)).toMatchObject({ matched: false });
  });

  it("has closeBrackets close brackets and both kinds of quote, but not the single quote, which delimits nothing", () => {
    const state = EditorState.create({ extensions: [bexprLanguage, closeBrackets()] });
    expect(state.languageDataAt<{ brackets: string[] }>("closeBrackets", 0)[0]?.brackets).toEqual(["(", "[", "{", '"', "`"]);
  });
});
