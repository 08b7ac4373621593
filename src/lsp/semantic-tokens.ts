/**
 * Semantic tokens in the protocol's encoding: the classes of `classifyTokens` as the standard
 * token types editors colour (a JSON-pointer selector is a `property`, `empty` and `nil` are
 * `enumMember`s), each token as five numbers relative to the one before, a token over several
 * lines (a raw string) cut at each line break.
 *
 * @module
 */
import type { SemanticTokensLegend } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { ClassifiedToken, TokenClass } from "../editor/structure.js";

/** The token types and modifiers the server uses, by index. */
export const SEMANTIC_TOKENS_LEGEND: SemanticTokensLegend = {
  tokenTypes: ["property", "variable", "keyword", "operator", "string", "number", "enumMember", "regexp"],
  tokenModifiers: ["declaration"],
};

const TYPE_OF: Readonly<Record<TokenClass, number>> = {
  property: 0,
  pointer: 0,
  variable: 1,
  keyword: 2,
  operator: 3,
  string: 4,
  number: 5,
  constant: 6,
  regexp: 7,
};

/** The tokens of `document` as the protocol's integers. */
export function encodeSemanticTokens(document: TextDocument, tokens: readonly ClassifiedToken[]): number[] {
  const data: number[] = [];
  const source = document.getText();
  let line = 0;
  let character = 0;
  const push = (start: number, end: number, type: number, modifiers: number) => {
    const from = document.positionAt(start);
    data.push(from.line - line, from.line === line ? from.character - character : from.character, end - start, type, modifiers);
    line = from.line;
    character = from.character;
  };
  for (const token of tokens) {
    const type = TYPE_OF[token.kind];
    const modifiers = token.declaration ? 1 : 0;
    const text = source.slice(token.start, token.end);
    let start = token.start;
    for (const piece of text.split(/(?<=\n)/)) {
      const length = piece.replace(/\r?\n$/, "").length;
      if (length > 0) push(start, start + length, type, modifiers);
      start += piece.length;
    }
  }
  return data;
}
