/**
 * The grammar of the filter language as a Chevrotain parser whose rules build the AST as they
 * recognise it (embedded actions: no concrete syntax tree is built, then walked). The actions are
 * in `build-ast.ts`, run through `ACTION` so that Chevrotain's grammar recording skips them; the
 * EBNF in `grammar/filter.ebnf` and the railroad diagrams in `grammar/` describe the same rules.
 *
 * Two decisions cannot be made by LL(k) lookahead because the reference grammar is a backtracking
 * PEG without reserved words; gates ask {@link Lookahead} for those (unary `not`, collections).
 *
 * @module
 */
import { MATCH_OPERATORS, operator } from "../operators.js";
import type { CollectionBinding, CollectionExpression, Expression, MatchExpression } from "../ast.js";
import type { Diagnostic } from "../errors.js";
import { EmbeddedActionsParser, type IParserErrorMessageProvider, type IRecognitionException, type IToken, type TokenType, EOF } from "chevrotain";
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
import { MAX_DIAGNOSTICS } from "../limits.js";
import { AstBuilder, type Comparison, type Emptiness, type Operand, type Segment } from "./build-ast.js";
import { Lookahead } from "./lookahead.js";

/** Human wording for what the parser expected and what it found. */
/** The operators named in "expected an operator": every spelling in the table without a `not`. */
const OPERATOR_EXAMPLES = MATCH_OPERATORS.flatMap((name) => operator(name).spellings.map((spelling) => spelling.text))
  .filter((text) => !text.split(" ").includes("not"))
  .map((text) => JSON.stringify(text))
  .join(", ");

/**
 * Why the parser stopped at a token, as the grammar knows it: the rule and the token it wanted.
 * The diagnostics choose their code, fix and hint from it, never from the message's words.
 */
export type SyntaxReason =
  /** A group's `)` was expected. */
  | "close-group"
  /** A collection body's `}` was expected. */
  | "close-body"
  /** An index's `]` was expected. */
  | "close-index"
  /** An index that is not a quoted string (`Meta[owner]`, `Items[0]`). */
  | "index-not-string"
  /** An operator was expected after a selector. */
  | "expected-operator"
  /** A selector, a value or `(` was expected. */
  | "expected-operand"
  /** `empty`, `not empty`, `nil` or `not nil` was expected after `is`. */
  | "after-is"
  /** A token after a complete expression. */
  | "trailing"
  /** Any other token the grammar wanted. */
  | "expected";

/**
 * The reasons of the parse in progress, by message: Chevrotain asks the provider below for a
 * message before it makes the exception, so the reason travels with the message's text (the same
 * text always has the same reason) to {@link FilterParser.parseTokens}, which pairs it with the
 * exception. Set for one parse only, so it holds that parse's messages and no more.
 */
let reasonsOfParse: Map<string, SyntaxReason> | undefined;

/** Returns `message`, noting its reason for the parse in progress. */
function because(reason: SyntaxReason, message: string): string {
  reasonsOfParse?.set(message, reason);
  return message;
}

const errorMessages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual, ruleName }) {
    if (expected === RParen) return because("close-group", `expected ")" to close the group, but found ${describeToken(actual)}`);
    if (expected === RBrace) return because("close-body", `expected "}" to close the collection body, but found ${describeToken(actual)}`);
    if (expected === RBracket) return because("close-index", `expected "]" to close the index, but found ${describeToken(actual)}`);
    if (expected === QuotedString && ruleName === "index") return because("index-not-string", `an index must be a quoted string, as in Meta["owner"], but found ${describeToken(actual)}`);
    return because("expected", `expected ${describeType(expected)}, but found ${describeToken(actual)}`);
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return because("trailing", `unexpected ${describeToken(firstRedundant)} after a complete expression`);
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, ruleName }) {
    const expected = new Set<string>();
    for (const paths of expectedPathsPerAlt) for (const path of paths) if (path[0]) expected.add(describeType(path[0]));
    const found = describeToken(actual[0]);
    if (ruleName === "match") return because("expected-operator", `expected an operator (${OPERATOR_EXAMPLES}…), but found ${found}`);
    if (ruleName === "operand" || ruleName === "primary") return because("expected-operand", `expected a selector, a value or "(", but found ${found}`);
    if (ruleName === "emptiness") return because("after-is", `expected "empty", "not empty", "nil" or "not nil" after "is", but found ${found}`);
    return because("expected", `expected ${[...expected].join(", ")}, but found ${found}`);
  },
  buildEarlyExitMessage({ actual }) {
    return because("expected", `unexpected ${describeToken(actual[0])}`);
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

/** Stops a recovering parse that has found more than {@link MAX_DIAGNOSTICS} problems. */
class TooManyErrors extends Error {}

/** Members of Chevrotain's parser that its typings do not show. */
interface ChevrotainInternals {
  /** Records a recognition error (in `errors`) and returns it. */
  SAVE_ERROR(error: unknown): unknown;
  /** The index in the token vector of the next token. */
  exportLexerState(): number;
}

/** What one parse produced. */
export interface ParseOutcome {
  /** The AST, when the tokens (or, recovering, enough of them) form a filter. */
  readonly expression: Expression | undefined;
  /** What the actions found: required whitespace, escapes, quoted selectors. */
  readonly diagnostics: Diagnostic[];
  /** Match and collection clauses seen. */
  readonly clauses: number;
  readonly lookahead: Lookahead;
  /** Recovery stopped after more than {@link MAX_DIAGNOSTICS} syntax errors; the rest of the input was not read. */
  readonly stopped: boolean;
  /** Why the parser stopped at each of its errors ({@link FilterParser.errors}), as the grammar knows it. */
  readonly reasons: ReadonlyMap<IRecognitionException, SyntaxReason>;
}

/**
 * The parser. One instance is reused (Chevrotain parsers are built once and fed new input);
 * {@link FilterParser.parseTokens} sets up the lookahead and the actions for each input.
 */
export class FilterParser extends EmbeddedActionsParser {
  private lookahead: Lookahead = new Lookahead("", []);
  private builder: AstBuilder = new AstBuilder("");

  /**
   * @param recovering - whether the parser recovers from errors to report more of them.
   * @param validate - whether Chevrotain checks the grammar while building the parser (milliseconds
   * at every start; test/parser/grammar-checks.test.ts does it, so the library skips it).
   */
  constructor(
    private readonly recovering: boolean,
    validate = false,
  ) {
    // One token of lookahead decides almost everything, so errors are reported where they are,
    // not at the start of the alternative; the one LL(2) decision says so itself.
    super([...allTokens], { recoveryEnabled: recovering, maxLookahead: 1, errorMessageProvider: errorMessages, skipValidations: !validate });
    this.performSelfAnalysis();
    // Recovery stops once it has found enough problems (Chevrotain records each through SAVE_ERROR).
    const self = this.internals;
    const save = self.SAVE_ERROR.bind(this);
    self.SAVE_ERROR = (error) => {
      const saved = save(error);
      if (this.errors.length > MAX_DIAGNOSTICS) throw new TooManyErrors();
      return saved;
    };
  }

  /** Parses a token vector into an AST; errors are left in {@link FilterParser.errors}. */
  parseTokens(source: string, tokens: IToken[]): ParseOutcome {
    this.lookahead = new Lookahead(source, tokens);
    const builder = new AstBuilder(source, this.recovering);
    this.builder = builder;
    this.input = tokens;
    let expression: Expression | undefined;
    let stopped = false;
    const byMessage = new Map<string, SyntaxReason>();
    reasonsOfParse = byMessage;
    try {
      expression = this.filter();
    } catch (error) {
      if (!(error instanceof TooManyErrors)) throw error;
      stopped = true;
    } finally {
      reasonsOfParse = undefined;
    }
    const reasons = new Map(this.errors.map((error) => [error, byMessage.get(error.message) ?? "expected"] as const));
    const lookahead = this.lookahead;
    this.lookahead = new Lookahead("", []);
    this.builder = new AstBuilder("");
    return { expression, diagnostics: builder.diagnostics, clauses: builder.clauses, lookahead, stopped, reasons };
  }

  /**
   * The index in the token vector of the `k`-th next token (`LA(k)`): Chevrotain's current index
   * (its lexer-state export, not in its typings) plus `k`.
   */
  private indexAhead(k: number): number {
    return this.internals.exportLexerState() + k;
  }

  /** The parser with the members of Chevrotain's it uses that its typings do not show (a Chevrotain without them fails every parse). */
  private get internals(): this & ChevrotainInternals {
    return this as this & ChevrotainInternals;
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

  /** Runs an action of `build-ast.ts` (not while Chevrotain records the grammar); an incomplete node is undefined. */
  private act<T>(action: (builder: AstBuilder) => T): T | undefined {
    return this.ACTION(() => this.builder.build(() => action(this.builder)));
  }

  // filter := orExpression EOF
  public filter = this.RULE("filter", (): Expression | undefined => this.SUBRULE(this.orExpression));

  // orExpression := collection | andExpression ("or" andExpression)* ("or" collection)?
  // A collection may only stand alone or end an or-chain, as in the reference.
  private orExpression = this.RULE("orExpression", (): Expression | undefined => {
    let alone: CollectionExpression | undefined;
    const operands: (Expression | undefined)[] = [];
    const operators: IToken[] = [];
    this.OR([
      {
        GATE: () => this.collectionAhead(1),
        IGNORE_AMBIGUITIES: true,
        ALT: () => {
          alone = this.SUBRULE(this.collection);
        },
      },
      {
        ALT: () => {
          operands.push(this.SUBRULE(this.andExpression));
          this.MANY({
            GATE: () => !this.collectionAhead(2),
            DEF: () => {
              operators.push(this.CONSUME(Or));
              operands.push(this.SUBRULE2(this.andExpression));
            },
          });
          this.OPTION(() => {
            operators.push(this.CONSUME2(Or));
            operands.push(this.SUBRULE2(this.collection));
          });
        },
      },
    ]);
    return alone ?? this.act((builder) => builder.orExpression(operators, operands));
  });

  // andExpression := notExpression ("and" notExpression)*
  private andExpression = this.RULE("andExpression", (): Expression | undefined => {
    const operands: (Expression | undefined)[] = [this.SUBRULE(this.notExpression)];
    const operators: IToken[] = [];
    this.MANY(() => {
      operators.push(this.CONSUME(And));
      operands.push(this.SUBRULE2(this.notExpression));
    });
    return this.act((builder) => builder.andExpression(operators, operands));
  });

  // notExpression := "not"* (group | match)      (a "not" only where it is the unary operator)
  private notExpression = this.RULE("notExpression", (): Expression | undefined => {
    const nots: IToken[] = [];
    this.MANY({
      GATE: () => this.unaryNotAhead(),
      DEF: () => {
        nots.push(this.CONSUME(Not));
      },
    });
    const operand = this.OR([{ ALT: () => this.SUBRULE(this.group) }, { ALT: () => this.SUBRULE(this.match) }]);
    return this.act((builder) => builder.notExpression(nots, operand));
  });

  // group := "(" orExpression ")"
  private group = this.RULE("group", (): Expression | undefined => {
    const open = this.CONSUME(LParen);
    const inner = this.SUBRULE(this.orExpression);
    const close = this.CONSUME(RParen);
    return this.act((builder) => builder.group(open, inner, close));
  });

  // match := operand ( comparison operand | emptiness | membership operand )
  private match = this.RULE("match", (): MatchExpression | undefined => {
    const left = this.SUBRULE(this.operand);
    // `not contains` / `not matches` versus `not in` needs the second token.
    return this.OR({
      MAX_LOOKAHEAD: 2,
      DEF: [
        {
          ALT: () => {
            const comparison = this.SUBRULE(this.comparison);
            const right = this.SUBRULE2(this.operand);
            return this.act((builder) => builder.comparisonMatch(left, comparison, right));
          },
        },
        {
          ALT: () => {
            const emptiness = this.SUBRULE(this.emptiness);
            return this.act((builder) => builder.emptinessMatch(left, emptiness));
          },
        },
        {
          ALT: () => {
            const membership = this.SUBRULE(this.membership);
            const right = this.SUBRULE3(this.operand);
            return this.act((builder) => builder.membershipMatch(left, membership, right));
          },
        },
      ],
    });
  });

  // comparison := "==" | "!=" | "contains" | "not" "contains" | "matches" | "not" "matches"
  private comparison = this.RULE("comparison", (): Comparison | undefined => {
    let negation: IToken | undefined;
    const operator = this.OR([
      { ALT: () => this.CONSUME(Equal) },
      { ALT: () => this.CONSUME(NotEqual) },
      { ALT: () => this.CONSUME(Contains) },
      { ALT: () => this.CONSUME(Matches) },
      {
        ALT: () => {
          negation = this.CONSUME(Not);
          return this.OR2([{ ALT: () => this.CONSUME2(Contains) }, { ALT: () => this.CONSUME2(Matches) }]);
        },
      },
    ]);
    return this.act((builder) => builder.comparison(operator, negation));
  });

  // emptiness := "is" "not"? ("empty" | "nil")
  private emptiness = this.RULE("emptiness", (): Emptiness | undefined => {
    const is = this.CONSUME(Is);
    const negation = this.OPTION(() => this.CONSUME(Not));
    const operator = this.OR([{ ALT: () => this.CONSUME(Empty) }, { ALT: () => this.CONSUME(Nil) }]);
    return this.act((builder) => builder.emptiness(is, negation, operator));
  });

  // membership := "in" | "not" "in"
  private membership = this.RULE("membership", (): "In" | "NotIn" | undefined => {
    const negation = this.OPTION(() => this.CONSUME(Not));
    const operator = this.CONSUME(In);
    return this.act((builder) => builder.membership(negation, operator));
  });

  // operand := path | string | number       (which of them is allowed depends on its place)
  private operand = this.RULE("operand", (): Operand | undefined =>
    this.OR([
      { ALT: () => this.SUBRULE(this.path) },
      {
        ALT: () => {
          const token = this.CONSUME(QuotedString);
          return this.act((builder) => builder.tokenOperand(token));
        },
      },
      {
        ALT: () => {
          const token = this.CONSUME(NumberLiteral);
          return this.act((builder) => builder.tokenOperand(token));
        },
      },
    ]),
  );

  // path := name segment*        (segments touch each other: no whitespace inside a path)
  private path = this.RULE("path", (): Operand | undefined => {
    const head = this.CONSUME(Name);
    const segments: (Segment | undefined)[] = [];
    this.MANY({
      GATE: () => this.touchesPrevious(),
      DEF: () => {
        segments.push(this.SUBRULE(this.segment));
      },
    });
    return this.act((builder) => builder.path(head, segments));
  });

  // segment := "." name | "." digits | index
  private segment = this.RULE("segment", (): Segment | undefined =>
    this.OR([
      {
        ALT: () => {
          const dot = this.CONSUME(Dot);
          const name = this.OR2([{ ALT: () => this.CONSUME2(Name) }, { ALT: () => this.CONSUME(Digits) }]);
          return this.act((builder) => builder.dotSegment(dot, name));
        },
      },
      { ALT: () => this.SUBRULE(this.index) },
    ]),
  );

  // index := "[" string "]"
  private index = this.RULE("index", (): Segment | undefined => {
    this.CONSUME(LBracket);
    const key = this.CONSUME(QuotedString);
    const close = this.CONSUME(RBracket);
    return this.act((builder) => builder.index(key, close));
  });

  // collection := ("any" | "all") operand "as" binding "{" orExpression "}"
  private collection = this.RULE("collection", (): CollectionExpression | undefined => {
    const quantifier = this.OR([{ ALT: () => this.CONSUME(Any) }, { ALT: () => this.CONSUME(All) }]);
    const target = this.SUBRULE(this.operand);
    const as = this.CONSUME(As);
    const binding = this.SUBRULE(this.binding);
    this.CONSUME(LBrace);
    const body = this.SUBRULE(this.orExpression);
    const close = this.CONSUME(RBrace);
    return this.act((builder) => builder.collection(quantifier, target, as, binding, body, close));
  });

  // binding := name ("," (name | "_"))? | "_" "," name
  private binding = this.RULE("binding", (): CollectionBinding | undefined => {
    let first: IToken | undefined;
    let second: IToken | undefined;
    let secondBlank = false;
    this.OR([
      {
        ALT: () => {
          first = this.CONSUME(Name);
          this.OPTION(() => {
            this.CONSUME(Comma);
            this.OR2([
              {
                ALT: () => {
                  second = this.CONSUME2(Name);
                },
              },
              {
                ALT: () => {
                  this.CONSUME(Underscore);
                  secondBlank = true;
                },
              },
            ]);
          });
        },
      },
      {
        ALT: () => {
          this.CONSUME2(Underscore);
          this.CONSUME2(Comma);
          second = this.CONSUME3(Name);
        },
      },
    ]);
    return this.act((builder) => builder.binding(first, second, secondBlank));
  });
}

let strict: FilterParser | undefined;
let recovering: FilterParser | undefined;

/** The parser that stops at the first error (compiling, completion), built on first use. */
export function strictParser(): FilterParser {
  return (strict ??= new FilterParser(false));
}

/** The parser that recovers to find more errors (editor validation), built on first use. */
export function recoveringParser(): FilterParser {
  return (recovering ??= new FilterParser(true));
}
