/**
 * Token definitions of the filter language, in the order the lexer tries them.
 *
 * The language has no reserved words: `and`, `not`, `in`, `any`… are keywords where the grammar
 * expects an operator and plain names elsewhere (`Meta.in`, `not == 1` compares a field called
 * `not`). Every keyword therefore belongs to the {@link Name} category, and keywords are defined
 * before {@link Identifier} with `longer_alt` so that `android` stays one identifier.
 *
 * @module
 */
import { createToken, Lexer, type CustomPatternMatcherFunc, type TokenType } from "chevrotain";
import { KEYWORDS, type CONNECTIVE_WORDS } from "../operators.js";

/** Space, tab, CR and LF separate tokens; nothing else does (a no-break space is an error). */
export const WhiteSpace = createToken({
  name: "WhiteSpace",
  pattern: /[ \t\r\n]+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});

/** Category: anything usable as a field name or bare word (identifiers and every keyword). */
export const Name = createToken({ name: "Name", pattern: Lexer.NA, label: "a name" });

/** Category: any string literal, closed or not. */
export const QuotedString = createToken({ name: "QuotedString", pattern: Lexer.NA, label: "a string" });

/** `[a-zA-Z][a-zA-Z0-9_/]*`: ASCII only, and `/` is an identifier character (`Meta/owner` is one name). */
export const Identifier = createToken({
  name: "Identifier",
  pattern: /[a-zA-Z][a-zA-Z0-9_/]*/,
  categories: [Name],
  label: "a name",
});

/** A keyword's token; `word` must be one of the operator table's {@link KEYWORDS} (a test checks the lexer has a token for each). */
function keyword(word: (typeof CONNECTIVE_WORDS)[number] | "in" | "contains" | "matches" | "is" | "empty" | "nil"): TokenType {
  if (!KEYWORDS.includes(word)) throw new Error(`"${word}" is not a keyword of the operator table`);
  const name = word.charAt(0).toUpperCase() + word.slice(1);
  return createToken({
    name,
    pattern: new RegExp(word),
    longer_alt: Identifier,
    categories: [Name],
    label: `"${word}"`,
  });
}

export const And = keyword("and");
export const Or = keyword("or");
export const Not = keyword("not");
export const In = keyword("in");
export const Contains = keyword("contains");
export const Matches = keyword("matches");
export const Is = keyword("is");
export const Empty = keyword("empty");
export const Nil = keyword("nil");
export const Any = keyword("any");
export const All = keyword("all");
export const As = keyword("as");

/** `"…"`: taken raw up to the next `"` (so `\"` cannot be written), then unquoted as Go does. */
export const DoubleString = createToken({
  name: "DoubleString",
  pattern: /"[^"]*"/,
  line_breaks: true,
  categories: [QuotedString],
  label: "a string",
});

/** `` `…` ``: raw, no escapes, may span lines. */
export const RawString = createToken({
  name: "RawString",
  pattern: /`[^`]*`/,
  line_breaks: true,
  categories: [QuotedString],
  label: "a string",
});

/** A string whose closing quote never comes; reported, then parsed as a string to keep going. */
export const UnterminatedString = createToken({
  name: "UnterminatedString",
  pattern: /"[^"]*|`[^`]*/,
  line_breaks: true,
  categories: [QuotedString],
  label: "a string",
});

export const Equal = createToken({ name: "Equal", pattern: /==/, label: '"=="' });
export const NotEqual = createToken({ name: "NotEqual", pattern: /!=/, label: '"!="' });

/**
 * Operators people reach for that the language lacks. Each is reported with its fix and then
 * parsed as the nearest real operator (its category), so one mistake yields one diagnostic.
 */
export const AndAnd = createToken({ name: "AndAnd", pattern: /&&/, categories: [And], label: '"&&"' });
export const OrOr = createToken({ name: "OrOr", pattern: /\|\|/, categories: [Or], label: '"||"' });
export const Ordering = createToken({ name: "Ordering", pattern: /[<>]=?/, categories: [Equal], label: "an ordering operator" });
export const SingleEqual = createToken({ name: "SingleEqual", pattern: /=/, categories: [Equal], label: '"="' });
export const Bang = createToken({ name: "Bang", pattern: /!/, categories: [Not], label: '"!"' });

export const LParen = createToken({ name: "LParen", pattern: /\(/, label: '"("' });
export const RParen = createToken({ name: "RParen", pattern: /\)/, label: '")"' });
export const LBracket = createToken({ name: "LBracket", pattern: /\[/, label: '"["' });
export const RBracket = createToken({ name: "RBracket", pattern: /]/, label: '"]"' });
export const LBrace = createToken({ name: "LBrace", pattern: /{/, label: '"{"' });
export const RBrace = createToken({ name: "RBrace", pattern: /}/, label: '"}"' });
export const Comma = createToken({ name: "Comma", pattern: /,/, label: '","' });
export const Dot = createToken({ name: "Dot", pattern: /\./, label: '"."' });
export const Underscore = createToken({ name: "Underscore", pattern: /_/, label: '"_"' });

const DOT = 0x2e;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?/y;
const DIGITS = /[0-9]+/y;

/** A number literal, unless it directly follows a `.` (then it is a selector segment: `a.0.1`). */
const matchNumber: CustomPatternMatcherFunc = (text, offset) => {
  if (text.charCodeAt(offset - 1) === DOT) return null;
  NUMBER.lastIndex = offset;
  return NUMBER.exec(text);
};

/** The digits of a numeric selector segment (`Items.0`); only right after a `.`. */
const matchDigits: CustomPatternMatcherFunc = (text, offset) => {
  if (text.charCodeAt(offset - 1) !== DOT) return null;
  DIGITS.lastIndex = offset;
  return DIGITS.exec(text);
};

/**
 * `-?(0|[1-9][0-9]*)(\.[0-9]+)?`. The reference also requires whitespace, `)` or the end after
 * a number (`1e3`, `050` and `{x == 1}` are errors); the lexer checks that after tokenizing.
 */
export const NumberLiteral = createToken({
  name: "NumberLiteral",
  pattern: { exec: matchNumber },
  line_breaks: false,
  start_chars_hint: ["-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
  label: "a number",
});

export const Digits = createToken({
  name: "Digits",
  pattern: { exec: matchDigits },
  line_breaks: false,
  start_chars_hint: ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
  label: "an index",
});

/** Every keyword token type. */
export const keywordTokens: readonly TokenType[] = [And, Or, Not, In, Contains, Matches, Is, Empty, Nil, Any, All, As];

/** All token types, in lexing order. */
export const allTokens: readonly TokenType[] = [
  WhiteSpace,
  DoubleString,
  RawString,
  UnterminatedString,
  Equal,
  NotEqual,
  AndAnd,
  OrOr,
  Ordering,
  SingleEqual,
  Bang,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Dot,
  NumberLiteral,
  Digits,
  ...keywordTokens,
  Identifier,
  Underscore,
  Name,
  QuotedString,
];
