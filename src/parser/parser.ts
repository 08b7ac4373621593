/**
 * The grammar of the filter language as a Chevrotain CST parser: rules only, no semantics.
 * The AST is built from the CST by `build-ast.ts`; the EBNF in `grammar/filter.ebnf` and the
 * railroad diagrams in `grammar/` describe the same rules.
 *
 * Two decisions cannot be made by LL(k) lookahead because the reference grammar is a backtracking
 * PEG without reserved words; gates ask {@link Lookahead} for those (unary `not`, collections).
 *
 * @module
 */
import { CstParser, type IParserErrorMessageProvider, type IToken, type TokenType, EOF } from "chevrotain";
import {
  All,
  allTokens,
  Any,
  As,
  Bang,
  Comma,
  Contains,
  Digits,
  Dot,
  Empty,
  Equal,
  In,
  Is,
  LBrace,
  LBracket,
  LParen,
  Matches,
  Name,
  Nil,
  Not,
  NotEqual,
  NumberLiteral,
  Or,
  And,
  QuotedString,
  RBrace,
  RBracket,
  RParen,
  Underscore,
} from "../lexer/tokens.js";
import { Lookahead } from "./lookahead.js";

/** Human wording for what the parser expected and what it found. */
const errorMessages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual, ruleName }) {
    if (expected === RParen) return `expected ")" to close the group, but found ${describeToken(actual)}`;
    if (expected === RBrace) return `expected "}" to close the collection body, but found ${describeToken(actual)}`;
    if (expected === RBracket) return `expected "]" to close the index, but found ${describeToken(actual)}`;
    if (expected === QuotedString && ruleName === "index") return `an index must be a quoted string, as in Meta["owner"], but found ${describeToken(actual)}`;
    return `expected ${describeType(expected)}, but found ${describeToken(actual)}`;
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return `unexpected ${describeToken(firstRedundant)} after a complete expression`;
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, ruleName }) {
    const expected = new Set<string>();
    for (const paths of expectedPathsPerAlt) for (const path of paths) if (path[0]) expected.add(describeType(path[0]));
    const found = describeToken(actual[0]);
    if (ruleName === "match") return `expected an operator ("==", "!=", "in", "contains", "matches", "is empty", "is nil"…), but found ${found}`;
    if (ruleName === "operand" || ruleName === "primary") return `expected a selector, a value or "(", but found ${found}`;
    if (ruleName === "emptiness") return `expected "empty", "not empty", "nil" or "not nil" after "is", but found ${found}`;
    return `expected ${[...expected].join(", ")}, but found ${found}`;
  },
  buildEarlyExitMessage({ actual }) {
    return `unexpected ${describeToken(actual[0])}`;
  },
};

/** How a token is named in messages. */
export function describeToken(token: IToken | undefined): string {
  if (token === undefined || token.tokenType === EOF) return "the end of the filter";
  const image = token.image.length > 40 ? `${token.image.slice(0, 40)}…` : token.image;
  return JSON.stringify(image);
}

function describeType(type: TokenType): string {
  if (type === EOF) return "the end of the filter";
  return type.LABEL ?? type.name;
}

/**
 * The parser. One instance is reused (Chevrotain parsers are built once and fed new input);
 * {@link FilterParser.parseTokens} sets up the lookahead for each input.
 */
export class FilterParser extends CstParser {
  private lookahead: Lookahead = new Lookahead("", []);

  constructor(recoveryEnabled: boolean) {
    // One token of lookahead decides almost everything, so errors are reported where they are,
    // not at the start of the alternative; the one LL(2) decision says so itself.
    super([...allTokens], { recoveryEnabled, maxLookahead: 1, errorMessageProvider: errorMessages });
    this.performSelfAnalysis();
  }

  /** Parses a token vector into a CST; errors are left in {@link CstParser.errors}. */
  parseTokens(source: string, tokens: IToken[]): { cst: unknown; lookahead: Lookahead } {
    this.lookahead = new Lookahead(source, tokens);
    this.input = tokens;
    const cst = this.filter();
    const lookahead = this.lookahead;
    this.lookahead = new Lookahead("", []);
    return { cst, lookahead };
  }

  /**
   * The index in the token vector of the `k`-th next token (`LA(k)`): Chevrotain's current index
   * (its lexer-state export, not in its typings) plus `k`.
   */
  private indexAhead(k: number): number {
    return (this as unknown as { exportLexerState(): number }).exportLexerState() + k;
  }

  /** Gate: the `k`-th next token is `any`/`all` and starts a collection, not a match. */
  private collectionAhead(k: number): boolean {
    const token = this.LA(k);
    return (token.tokenType === Any || token.tokenType === All) && this.lookahead.isCollectionStart(this.indexAhead(k));
  }

  /** Gate: the next token is a unary `not` (a `!` is reported elsewhere and read as one). */
  private unaryNotAhead(): boolean {
    const token = this.LA(1);
    if (token.tokenType === Bang) return true;
    return token.tokenType === Not && this.lookahead.isUnaryNot(this.indexAhead(1));
  }

  /** Gate: the next token touches the previous one (selector segments allow no whitespace). */
  private touchesPrevious(): boolean {
    const token = this.LA(1);
    const previous = this.LA(0);
    return token.startOffset === previous.startOffset + previous.image.length;
  }

  // filter := orExpression EOF
  public filter = this.RULE("filter", () => {
    this.SUBRULE(this.orExpression);
  });

  // orExpression := collection | andExpression ("or" andExpression)* ("or" collection)?
  // A collection may only stand alone or end an or-chain, as in the reference.
  private orExpression = this.RULE("orExpression", () => {
    this.OR([
      {
        GATE: () => this.collectionAhead(1),
        IGNORE_AMBIGUITIES: true,
        ALT: () => this.SUBRULE(this.collection, { LABEL: "alone" }),
      },
      {
        ALT: () => {
          this.SUBRULE(this.andExpression, { LABEL: "operands" });
          this.MANY({
            GATE: () => !this.collectionAhead(2),
            DEF: () => {
              this.CONSUME(Or, { LABEL: "operators" });
              this.SUBRULE2(this.andExpression, { LABEL: "operands" });
            },
          });
          this.OPTION(() => {
            this.CONSUME2(Or, { LABEL: "operators" });
            this.SUBRULE2(this.collection, { LABEL: "last" });
          });
        },
      },
    ]);
  });

  // andExpression := notExpression ("and" notExpression)*
  private andExpression = this.RULE("andExpression", () => {
    this.SUBRULE(this.notExpression, { LABEL: "operands" });
    this.MANY(() => {
      this.CONSUME(And, { LABEL: "operators" });
      this.SUBRULE2(this.notExpression, { LABEL: "operands" });
    });
  });

  // notExpression := "not"* primary      (a "not" only where it is the unary operator)
  private notExpression = this.RULE("notExpression", () => {
    this.MANY({
      GATE: () => this.unaryNotAhead(),
      DEF: () => this.CONSUME(Not, { LABEL: "nots" }),
    });
    this.SUBRULE(this.primary);
  });

  // primary := "(" orExpression ")" | match
  private primary = this.RULE("primary", () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.group) },
      { ALT: () => this.SUBRULE(this.match) },
    ]);
  });

  // group := "(" orExpression ")"
  private group = this.RULE("group", () => {
    this.CONSUME(LParen);
    this.SUBRULE(this.orExpression);
    this.CONSUME(RParen);
  });

  // match := operand ( comparison operand | emptiness | membership operand )
  private match = this.RULE("match", () => {
    this.SUBRULE(this.operand, { LABEL: "left" });
    // `not contains` / `not matches` versus `not in` needs the second token.
    this.OR({ MAX_LOOKAHEAD: 2, DEF: [
      {
        ALT: () => {
          this.SUBRULE(this.comparison);
          this.SUBRULE2(this.operand, { LABEL: "right" });
        },
      },
      { ALT: () => this.SUBRULE(this.emptiness) },
      {
        ALT: () => {
          this.SUBRULE(this.membership);
          this.SUBRULE3(this.operand, { LABEL: "right" });
        },
      },
    ]});
  });

  // comparison := "==" | "!=" | "contains" | "not" "contains" | "matches" | "not" "matches"
  private comparison = this.RULE("comparison", () => {
    this.OR([
      { ALT: () => this.CONSUME(Equal, { LABEL: "operator" }) },
      { ALT: () => this.CONSUME(NotEqual, { LABEL: "operator" }) },
      { ALT: () => this.CONSUME(Contains, { LABEL: "operator" }) },
      { ALT: () => this.CONSUME(Matches, { LABEL: "operator" }) },
      {
        ALT: () => {
          this.CONSUME(Not, { LABEL: "negation" });
          this.OR2([
            { ALT: () => this.CONSUME2(Contains, { LABEL: "operator" }) },
            { ALT: () => this.CONSUME2(Matches, { LABEL: "operator" }) },
          ]);
        },
      },
    ]);
  });

  // emptiness := "is" "not"? ("empty" | "nil")
  private emptiness = this.RULE("emptiness", () => {
    this.CONSUME(Is);
    this.OPTION(() => this.CONSUME(Not, { LABEL: "negation" }));
    this.OR([
      { ALT: () => this.CONSUME(Empty, { LABEL: "operator" }) },
      { ALT: () => this.CONSUME(Nil, { LABEL: "operator" }) },
    ]);
  });

  // membership := "in" | "not" "in"
  private membership = this.RULE("membership", () => {
    this.OPTION(() => this.CONSUME(Not, { LABEL: "negation" }));
    this.CONSUME(In, { LABEL: "operator" });
  });

  // operand := path | string | number       (which of them is allowed depends on its place)
  private operand = this.RULE("operand", () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.path) },
      { ALT: () => this.CONSUME(QuotedString, { LABEL: "string" }) },
      { ALT: () => this.CONSUME(NumberLiteral, { LABEL: "number" }) },
    ]);
  });

  // path := name segment*        (segments touch each other: no whitespace inside a path)
  private path = this.RULE("path", () => {
    this.CONSUME(Name, { LABEL: "head" });
    this.MANY({
      GATE: () => this.touchesPrevious(),
      DEF: () => this.SUBRULE(this.segment),
    });
  });

  // segment := "." name | "." digits | index
  private segment = this.RULE("segment", () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(Dot);
          this.OR2([
            { ALT: () => this.CONSUME2(Name, { LABEL: "name" }) },
            { ALT: () => this.CONSUME(Digits, { LABEL: "digits" }) },
          ]);
        },
      },
      { ALT: () => this.SUBRULE(this.index) },
    ]);
  });

  // index := "[" string "]"
  private index = this.RULE("index", () => {
    this.CONSUME(LBracket);
    this.CONSUME(QuotedString, { LABEL: "key" });
    this.CONSUME(RBracket);
  });

  // collection := ("any" | "all") operand "as" binding "{" orExpression "}"
  private collection = this.RULE("collection", () => {
    this.OR([
      { ALT: () => this.CONSUME(Any, { LABEL: "quantifier" }) },
      { ALT: () => this.CONSUME(All, { LABEL: "quantifier" }) },
    ]);
    this.SUBRULE(this.operand, { LABEL: "target" });
    this.CONSUME(As);
    this.SUBRULE(this.binding);
    this.CONSUME(LBrace);
    this.SUBRULE(this.orExpression, { LABEL: "body" });
    this.CONSUME(RBrace);
  });

  // binding := name ("," (name | "_"))? | "_" "," name
  private binding = this.RULE("binding", () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(Name, { LABEL: "first" });
          this.OPTION(() => {
            this.CONSUME(Comma);
            this.OR2([
              { ALT: () => this.CONSUME2(Name, { LABEL: "second" }) },
              { ALT: () => this.CONSUME(Underscore, { LABEL: "secondBlank" }) },
            ]);
          });
        },
      },
      {
        ALT: () => {
          this.CONSUME2(Underscore, { LABEL: "firstBlank" });
          this.CONSUME2(Comma);
          this.CONSUME3(Name, { LABEL: "second" });
        },
      },
    ]);
  });
}
