/**
 * The filter language for CodeMirror: a syntax tree built from the lexer's own tokens, so that
 * what the editor colours is exactly what `tokenize` reads (a keyword is coloured where the lexer
 * makes a keyword, a string ends where the lexer ends it). The tree is flat, one node per token
 * under a `Filter` node: CodeMirror needs it for highlighting, bracket matching and language
 * data, not for structure, and the parser proper reports structure through `validate`.
 *
 * @module
 */
import { defineLanguageFacet, Language, languageDataProp } from "@codemirror/language";
import { NodeProp, NodeSet, NodeType, Parser, Tree, type Input, type PartialParse, type TreeFragment } from "@lezer/common";
import { styleTags, tags, type Tag } from "@lezer/highlight";
import { lexicalWords } from "../parser/analysis.js";

/**
 * The highlighting tag of every token type the lexer emits, by its name (`WORD_TYPES` of
 * `parser/analysis.ts`: the categories `Name` and `QuotedString` and skipped whitespace never
 * reach the token list). Standard tags, so any
 * CodeMirror theme colours them. Keywords are words that act as operators, hence the operator
 * keyword tag; the operators the language lacks (`&&`, `>=`, `!`…) are tagged invalid.
 */
export const TOKEN_TAGS: ReadonlyMap<string, Tag> = new Map<string, Tag>([
  ["Identifier", tags.propertyName],
  ["Underscore", tags.variableName],
  ["And", tags.operatorKeyword],
  ["Or", tags.operatorKeyword],
  ["Not", tags.operatorKeyword],
  ["In", tags.operatorKeyword],
  ["Contains", tags.operatorKeyword],
  ["Matches", tags.operatorKeyword],
  ["Is", tags.operatorKeyword],
  ["Empty", tags.atom],
  ["Nil", tags.null],
  ["Any", tags.controlKeyword],
  ["All", tags.controlKeyword],
  ["As", tags.definitionKeyword],
  ["DoubleString", tags.string],
  ["RawString", tags.string],
  ["UnterminatedString", tags.string],
  ["NumberLiteral", tags.number],
  ["Digits", tags.number],
  ["Equal", tags.compareOperator],
  ["NotEqual", tags.compareOperator],
  ["AndAnd", tags.invalid],
  ["OrOr", tags.invalid],
  ["Ordering", tags.invalid],
  ["SingleEqual", tags.invalid],
  ["Bang", tags.invalid],
  ["LParen", tags.paren],
  ["RParen", tags.paren],
  ["LBracket", tags.squareBracket],
  ["RBracket", tags.squareBracket],
  ["LBrace", tags.brace],
  ["RBrace", tags.brace],
  ["Comma", tags.separator],
  ["Dot", tags.derefOperator],
]);

/** The node of the whole filter. */
const TOP_NODE = "Filter";
/** The node of text the lexer could not read (an unexpected character such as `'` or `-`). */
export const INVALID_NODE = "Invalid";

/** The pairs bracket matching follows, by node name (opener, closer). */
const BRACKET_PAIRS: readonly (readonly [opener: string, closer: string])[] = [
  ["LParen", "RParen"],
  ["LBracket", "RBracket"],
  ["LBrace", "RBrace"],
];

const data = defineLanguageFacet({
  // `'` does not delimit strings in a filter, so it is not auto-closed.
  closeBrackets: { brackets: ["(", "[", "{", '"', "`"] },
});

const tokenTypes = [...TOKEN_TAGS.keys()];
const nodeTypes = [
  NodeType.define({ id: 0, name: TOP_NODE, top: true, props: [[languageDataProp, data]] }),
  NodeType.define({ id: 1, name: INVALID_NODE }),
  ...tokenTypes.map((type, i) => NodeType.define({ id: i + 2, name: type })),
];
const nodeIds = new Map<string, number>(tokenTypes.map((type, i) => [type, i + 2]));
const INVALID_ID = 1;

const nodeSet = new NodeSet(nodeTypes).extend(
  styleTags({ [INVALID_NODE]: tags.invalid, ...Object.fromEntries(tokenTypes.map((type) => [type, TOKEN_TAGS.get(type)!])) }),
  NodeProp.closedBy.add(Object.fromEntries(BRACKET_PAIRS.map(([open, close]) => [open, [close]]))),
  NodeProp.openedBy.add(Object.fromEntries(BRACKET_PAIRS.map(([open, close]) => [close, [open]]))),
);

/** Runs of characters the lexer neither skips (space, tab, CR, LF: nothing else) nor reads. */
const UNREAD = /[^ \t\r\n]+/g;

/**
 * The syntax tree of `text` (placed at `start` in the document): a `Filter` node holding one
 * node per token of the lexer, named after its token type, and an `Invalid` node over each run
 * of other characters between tokens that are not whitespace.
 */
export function buildFilterTree(text: string, start = 0): Tree {
  const buffer: number[] = [];
  let end = 0;
  const gap = (to: number) => {
    for (const run of text.slice(end, to).matchAll(UNREAD)) buffer.push(INVALID_ID, start + end + run.index, start + end + run.index + run[0].length, 4);
  };
  for (const word of lexicalWords(text)) {
    gap(word.start);
    // Every emitted token type is in TOKEN_TAGS (test/codemirror/language.test.ts checks it); an
    // unknown one would be shown as unreadable rather than break the editor.
    buffer.push(nodeIds.get(word.type) ?? INVALID_ID, start + word.start, start + word.end, 4);
    end = word.end;
  }
  gap(text.length);
  return Tree.build({ buffer, nodeSet, topID: 0, start, length: text.length });
}

/** A parse that reads the whole filter in one step. */
class WholeFilterParse implements PartialParse {
  parsedPos: number;
  stoppedAt: number | null = null;

  constructor(
    private readonly input: Input,
    private readonly from: number,
    private readonly to: number,
  ) {
    this.parsedPos = from;
  }

  advance(): Tree {
    const tree = buildFilterTree(this.input.read(this.from, this.to), this.from);
    this.parsedPos = this.to;
    return tree;
  }

  stopAt(pos: number): void {
    // Recorded as the interface asks; the one step always reads to the end, as filters are short.
    this.stoppedAt = pos;
  }
}

/**
 * A lezer parser over the lexer: it reads the whole filter at once (filters are short, and the
 * lexer is linear), so it takes no fragments from earlier parses.
 */
class FilterTreeParser extends Parser {
  override createParse(input: Input, _fragments: readonly TreeFragment[], ranges: readonly { from: number; to: number }[]): PartialParse {
    return new WholeFilterParse(input, ranges[0]?.from ?? 0, ranges.at(-1)?.to ?? input.length);
  }
}

/**
 * The filter language as a CodeMirror
 * [`Language`](https://codemirror.net/docs/ref/#language.Language): highlighting that agrees
 * with the lexer, bracket matching, and the language data the other extensions of `bexpr()` read
 * (completion, auto-closed brackets). `bexpr()` includes it; alone, with a highlight style, it
 * colours filters in a view that needs no checking (a read-only one).
 */
export const bexprLanguage: Language = new Language(data, new FilterTreeParser(), [], "bexpr");
