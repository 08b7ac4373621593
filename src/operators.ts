/**
 * The match operators of the language, in one table: how each is written, what it negates, what
 * it answers on a missing key, the kinds of value it applies to, and what it does. The parsers,
 * the printer, completion, the evaluator, the cost model and the SQL backend all read it, so an
 * operator is one row here, and every `switch` over operators or tests ends in a `never` check: a
 * new row is a compile error wherever a case is missing.
 *
 * @module
 */

/** The positive tests the operators are built from; a negated operator negates its test's result. */
export type Test = "equal" | "in" | "empty" | "nil" | "matches";

/** The kinds of value an operator meets at a selector. */
export type ValueKind = "string" | "number" | "bool" | "null" | "list" | "map";

/**
 * One way to write an operator: its words, and where the selector and the value stand. `ast` is
 * what the syntax tree records of it (`MatchExpression.spelling`): `contains` for the spellings
 * that put the selector first and mean `in`, `in` for every other.
 */
export interface Spelling {
  /** The operator's words as written, separated by one space (`not contains`). */
  readonly text: string;
  /** `selector-first` (`X == v`), `value-first` (`v in X`), or `unary` (`X is empty`). */
  readonly order: "selector-first" | "value-first" | "unary";
  /** What the syntax tree records of this spelling (`MatchExpression.spelling`). */
  readonly ast: "in" | "contains";
  /** What it means, in a line (completion shows it). */
  readonly description: string;
}

/** One match operator. */
export interface OperatorDefinition {
  /** The positive test it applies. */
  readonly test: Test;
  /** Whether it negates the test's result (errors pass through unchanged). */
  readonly negated: boolean;
  /**
   * The operator that answers the opposite (`not` of this one, on a present value): a name in the
   * table, which the compiler checks (see {@link negationOf}).
   */
  readonly negation: string;
  /** Its result when the key is missing from an existing map (the reference's `NotPresentDisposition`). */
  readonly missing: boolean;
  /** Whether it compares the selector with a value (`binary`) or tests it alone (`unary`). */
  readonly arity: "binary" | "unary";
  /** The kinds of value it applies to; on any other kind the reference raises an error (`is nil` applies to all). */
  readonly kinds: readonly ValueKind[];
  /** How it is written, the usual spelling first. */
  readonly spellings: readonly Spelling[];
  /** What it does, in a line. */
  readonly description: string;
}

const EVERY_KIND: readonly ValueKind[] = ["string", "number", "bool", "null", "list", "map"];

/** The match operators of the language (after `contains` has been folded into `In`): the rows of {@link OPERATORS}. */
export type MatchOperator = "Equal" | "NotEqual" | "In" | "NotIn" | "Matches" | "NotMatches" | "IsEmpty" | "IsNotEmpty" | "IsNil" | "IsNotNil";

/** Operators that take no value (`is empty`, `is nil` and their negations). */
export type UnaryMatchOperator = "IsEmpty" | "IsNotEmpty" | "IsNil" | "IsNotNil";

/** Operators that compare the selected field with a literal value. */
export type BinaryMatchOperator = Exclude<MatchOperator, UnaryMatchOperator>;

/** The table itself, typed as written so the compiler can check the names above against it. */
const TABLE = {
  Equal: {
    test: "equal",
    negated: false,
    negation: "NotEqual",
    missing: false, // nothing is equal to a missing key
    arity: "binary",
    kinds: ["string", "number", "bool"],
    spellings: [{ text: "==", order: "selector-first", ast: "in", description: "equal" }],
    description: "the value at the selector equals the literal, read as the value's kind",
  },
  NotEqual: {
    test: "equal",
    negated: true,
    negation: "Equal",
    missing: true,
    arity: "binary",
    kinds: ["string", "number", "bool"],
    spellings: [{ text: "!=", order: "selector-first", ast: "in", description: "not equal" }],
    description: "the value at the selector does not equal the literal (true on a missing key)",
  },
  In: {
    test: "in",
    negated: false,
    negation: "NotIn",
    missing: false, // a missing key contains no values
    arity: "binary",
    kinds: ["string", "list", "map"],
    spellings: [
      { text: "in", order: "value-first", ast: "in", description: "value is an element, key or substring of the selector" },
      { text: "contains", order: "selector-first", ast: "contains", description: "the list, map or string contains the value" },
    ],
    description: "the literal is an element of a list, a key of a map, or a substring of a string",
  },
  NotIn: {
    test: "in",
    negated: true,
    negation: "In",
    missing: true,
    arity: "binary",
    kinds: ["string", "list", "map"],
    spellings: [
      { text: "not in", order: "value-first", ast: "in", description: "value is not an element, key or substring of the selector" },
      { text: "not contains", order: "selector-first", ast: "contains", description: "the list, map or string does not contain the value" },
    ],
    description: "the literal is not an element, key or substring (true on a missing key)",
  },
  Matches: {
    test: "matches",
    negated: false,
    negation: "NotMatches",
    missing: false, // nothing matches a missing key
    arity: "binary",
    kinds: ["string"],
    spellings: [{ text: "matches", order: "selector-first", ast: "in", description: "matches a regular expression (Go's regexp, RE2 syntax)" }],
    description: "the string matches the regular expression (Go's RE2 syntax), anywhere in it",
  },
  NotMatches: {
    test: "matches",
    negated: true,
    negation: "Matches",
    missing: true,
    arity: "binary",
    kinds: ["string"],
    spellings: [{ text: "not matches", order: "selector-first", ast: "in", description: "does not match a regular expression" }],
    description: "the string does not match the regular expression (true on a missing key)",
  },
  IsEmpty: {
    test: "empty",
    negated: false,
    negation: "IsNotEmpty",
    missing: true, // a missing key holds nothing
    arity: "unary",
    kinds: ["string", "list", "map", "null"],
    spellings: [{ text: "is empty", order: "unary", ast: "in", description: "empty string, list or map, or missing" }],
    description: "the string, list or map is empty, or the key is missing",
  },
  IsNotEmpty: {
    test: "empty",
    negated: true,
    negation: "IsEmpty",
    missing: false,
    arity: "unary",
    kinds: ["string", "list", "map", "null"],
    spellings: [{ text: "is not empty", order: "unary", ast: "in", description: "not empty" }],
    description: "the string, list or map is not empty",
  },
  IsNil: {
    test: "nil",
    negated: false,
    negation: "IsNotNil",
    missing: true, // a missing key has no value
    arity: "unary",
    kinds: EVERY_KIND,
    spellings: [{ text: "is nil", order: "unary", ast: "in", description: "null or missing" }],
    description: "the value is null, or the key is missing",
  },
  IsNotNil: {
    test: "nil",
    negated: true,
    negation: "IsNil",
    missing: false,
    arity: "unary",
    kinds: EVERY_KIND,
    spellings: [{ text: "is not nil", order: "unary", ast: "in", description: "present and not null" }],
    description: "the value is present and not null",
  },
} as const satisfies Record<MatchOperator, OperatorDefinition>;

/** Every match operator of the language, in the order of its rows. */
export const OPERATORS: { readonly [O in MatchOperator]: OperatorDefinition } = TABLE;

/**
 * Compile-time checks that the names above are the table's: its rows, its unary rows, and the
 * operators its negations name. A row added, removed or mistyped fails to compile here.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
type TableUnary = { [O in keyof typeof TABLE]: (typeof TABLE)[O]["arity"] extends "unary" ? O : never }[keyof typeof TABLE];
type TableNegations = (typeof TABLE)[keyof typeof TABLE]["negation"];
const tableAgrees: [Same<MatchOperator, keyof typeof TABLE>, Same<UnaryMatchOperator, TableUnary>, Same<TableNegations, MatchOperator>] = [true, true, true];
void tableAgrees;

/** The operator that answers the opposite of `name`. */
export function negationOf(name: MatchOperator): MatchOperator {
  return TABLE[name].negation;
}

/** Every operator, in the table's order. */
export const MATCH_OPERATORS = Object.keys(OPERATORS) as readonly MatchOperator[];

/** The definition of the operator `name`. */
export function operator(name: MatchOperator): OperatorDefinition {
  return OPERATORS[name];
}

/** Whether `name` takes no value. */
export function isUnary(name: MatchOperator): name is UnaryMatchOperator {
  return OPERATORS[name].arity === "unary";
}

/** The spelling `ast` selects for `name` (the usual one when the operator has no such spelling). */
export function spellingOf(name: MatchOperator, ast: "in" | "contains"): Spelling {
  const { spellings } = operator(name);
  return spellings.find((spelling) => spelling.ast === ast) ?? spellings[0]!;
}

/** Every spelling by its text, with its operator: how a parser reads the operator words it met. */
export const SPELLINGS: ReadonlyMap<string, { readonly operator: MatchOperator; readonly spelling: Spelling }> = new Map(
  MATCH_OPERATORS.flatMap((name) => operator(name).spellings.map((spelling) => [spelling.text, { operator: name, spelling }] as const)),
);

/** The operator and spelling of operator words a parser read (`not contains`, `is nil`); throws on words that spell none. */
export function readSpelling(text: string): { readonly operator: MatchOperator; readonly spelling: Spelling } {
  const found = SPELLINGS.get(text);
  if (found === undefined) throw new Error(`"${text}" spells no operator`);
  return found;
}

/** The words of the language besides the operators': the connectives, and the collection expressions' (`any X as v { … }`). */
export const CONNECTIVE_WORDS = ["and", "or", "not", "any", "all", "as"] as const;

/** The words the operator spellings are written with (`not` as well: it is also a connective). */
export const OPERATOR_WORDS: readonly string[] = [...new Set([...SPELLINGS.keys()].flatMap((text) => text.split(" ")).filter((word) => /^[a-z]+$/.test(word)))];

/**
 * Every keyword of the language: a keyword where the grammar expects one, a plain name elsewhere
 * (`Meta.in`). The lexer makes a token of each, and the fast reader leaves a name that is one to
 * the full parser.
 */
export const KEYWORDS: readonly string[] = [...new Set<string>([...CONNECTIVE_WORDS, ...OPERATOR_WORDS])];

/** Reports a case a `switch` over operators or tests did not handle (a compile error first). */
export function unhandled(value: never): never {
  throw new Error(`unhandled operator or test: ${String(value)}`);
}
