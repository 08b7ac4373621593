/**
 * fast-check arbitraries for the SQL tests of issue 25: filters of every shape at hostile sizes
 * (long selectors, long chains, deep nesting), and filters and documents that hold text beyond
 * ASCII (characters beyond U+FFFF, decomposed letters, lone surrogates, bytes that are not UTF-8).
 */
import fc from "fast-check";
import type { Expression, MatchExpression, Selector, Span } from "../../src/ast.js";
import type { FieldSchema } from "../../src/evaluator/schema.js";
import { unquoteDouble } from "../../src/go/strings.js";
import { compileFilter } from "../../src/index.js";
import type { BinaryMatchOperator, UnaryMatchOperator } from "../../src/operators.js";

const SPAN: Span = { start: 0, end: 0 };

const BINARY: readonly BinaryMatchOperator[] = ["Equal", "NotEqual", "In", "NotIn", "Matches", "NotMatches"];
const UNARY: readonly UnaryMatchOperator[] = ["IsEmpty", "IsNotEmpty", "IsNil", "IsNotNil"];

/** A match clause over `selector`, with `raw` as its literal when the operator takes one. */
function clause(operator: BinaryMatchOperator | UnaryMatchOperator, selector: Selector, raw: string): MatchExpression {
  return (UNARY as readonly string[]).includes(operator)
    ? { kind: "Match", operator: operator as UnaryMatchOperator, selector, span: SPAN }
    : { kind: "Match", operator: operator as BinaryMatchOperator, selector, value: { kind: "Value", raw, span: SPAN }, spelling: "in", span: SPAN };
}

// ---------------------------------------------------------------------------------------------
// Hostile sizes

/**
 * Keys that a path walks each its own way: plain, read by PostgreSQL as a list index (`0`, `-1`,
 * ` 2`), spaced, non-ASCII, beyond U+FFFF. Paths start with an identifier, so that any of them prints.
 */
const WALKED_KEYS = ["a", "Meta", "0", "12", "-1", " 2", "x y", "é", "😀"];

/** Selectors of 1 to 400 keys, in both forms. */
const longSelectorArb: fc.Arbitrary<Selector> = fc
  .tuple(fc.constantFrom("a", "Meta"), fc.array(fc.constantFrom(...WALKED_KEYS), { maxLength: 400 }), fc.constantFrom<Selector["form"]>("Bexpr", "Pointer"))
  .map(([head, rest, form]) => ({ kind: "Selector", form, path: [head, ...rest], span: SPAN }));

const sizedMatchArb: fc.Arbitrary<MatchExpression> = fc
  .tuple(fc.constantFrom(...BINARY, ...UNARY), longSelectorArb, fc.constantFrom("x", "5", "-1", "true", "", "0.5", "é🚀", "^a$", "a".repeat(200)))
  .map(([operator, selector, raw]) => clause(operator, selector, raw));

/** `and`/`or` flattened as the parser does, so that the printed filter reads back as the same tree. */
function chain(kind: "And" | "Or", operands: readonly Expression[]): Expression {
  return { kind, operands: operands.flatMap((operand) => (operand.kind === kind ? operand.operands : [operand])), span: SPAN };
}

const not = (operand: Expression): Expression => (operand.kind === "Not" ? operand.operand : { kind: "Not", operand, span: SPAN });

/**
 * `levels` parentheses deep, and/or alternating so that no level flattens into the next, with the
 * nested part first, in the middle or last of its chain and under `not` or not: the shapes that
 * cost the SQL most depth.
 */
function nested(levels: number, position: "first" | "middle" | "last", negated: boolean, leaf: Expression): Expression {
  let expression = leaf;
  for (let i = 0; i < levels; i++) {
    const inner = negated && i % 2 === 0 ? not(expression) : expression;
    const operands = position === "first" ? [inner, leaf] : position === "middle" ? [leaf, inner, leaf] : [leaf, inner];
    expression = { kind: i % 2 === 0 ? "And" : "Or", operands, span: SPAN };
  }
  return expression;
}

/**
 * Filters of every shape, at sizes up to the parser's limits: long selectors, chains of up to
 * 2,000 clauses, nesting 120 parentheses deep, and random trees of all of these.
 */
export const hostileExpressionArb: fc.Arbitrary<Expression> = fc.letrec<{ expression: Expression }>((tie) => ({
  expression: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { arbitrary: sizedMatchArb, weight: 3 },
    fc.tuple(fc.constantFrom<"And" | "Or">("And", "Or"), fc.array(tie("expression"), { minLength: 2, maxLength: 5 })).map(([kind, operands]) => chain(kind, operands)),
    tie("expression").map(not),
    fc.tuple(fc.constantFrom<"And" | "Or">("And", "Or"), fc.array(sizedMatchArb, { minLength: 2, maxLength: 2_000, size: "max" })).map(([kind, operands]) => chain(kind, operands)),
    fc.tuple(fc.integer({ min: 1, max: 120 }), fc.constantFrom<"first" | "middle" | "last">("first", "middle", "last"), fc.boolean(), sizedMatchArb).map(([levels, position, negated, leaf]) => nested(levels, position, negated, leaf)),
  ),
})).expression;

// ---------------------------------------------------------------------------------------------
// Text beyond ASCII

/**
 * Characters PostgreSQL stores: ASCII, a composed and a decomposed `é`, CJK, characters beyond
 * U+FFFF (two UTF-16 units each, four UTF-8 bytes), a no-break space.
 */
const STORABLE_CHARACTERS = ["a", "b", " ", "-", "0", "é", "E\u0301", "ß", "中", "😀", "🚀", "𝒳", "\u00a0"];

/**
 * What no stored text holds: the halves of `😀` (U+D83D U+DE00) and `🚀` (U+D83D U+DE80) alone, bytes
 * that are not UTF-8 as the engine keeps them (`"\xa9"` decodes to U+DCA9, see `go/strings.ts`), NUL.
 */
const UNSTORABLE_CHARACTERS = ["\ud83d", "\ude00", "\ude80", "\udca9", "\udcc3", "\udcf0", "\udc9f", "\u0000"];

/** Text PostgreSQL can store, up to four characters. */
export const storableTextArb: fc.Arbitrary<string> = fc.array(fc.constantFrom(...STORABLE_CHARACTERS), { maxLength: 4 }).map((characters) => characters.join(""));

/** Top-level fields with non-ASCII names; `Meta` keys of every kind of character. */
const UNICODE_FIELDS = ["Name", "Émoji", "名前"] as const;
const META_KEYS = ["owner", "é", "E\u0301", "😀", "中文", "🚀x", "0"];

/** Documents over {@link UNICODE_FIELDS}, `Meta` and `Tags`, any of them missing, holding {@link storableTextArb}. */
export const unicodeDocumentArb: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    Name: storableTextArb,
    Émoji: storableTextArb,
    名前: storableTextArb,
    Meta: fc.dictionary(fc.constantFrom(...META_KEYS), storableTextArb, { maxKeys: 3 }),
    Tags: fc.array(storableTextArb, { maxLength: 3 }),
  },
  { requiredKeys: ["Name", "Meta"] },
);

/** The schema of {@link unicodeDocumentArb}'s documents, for typed mode. */
export const unicodeSchema: FieldSchema = {
  kind: "object",
  fields: { Name: "string", Émoji: "string", 名前: "string", Meta: { kind: "map", values: "string" }, Tags: { kind: "array", items: "string" } },
};

const utf8 = new TextEncoder();

/** Bytes as the engine keeps a literal that writes them with `\xHH` escapes: UTF-8 assembled, other bytes as lone surrogates. */
function bytesLiteral(bytes: Uint8Array): string {
  const decoded = unquoteDouble(Array.from(bytes, (byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join(""));
  if (!decoded.ok) throw new Error(decoded.message);
  return decoded.value;
}

/** A slice `[from, to)` of `length` items, from a start and a length (short slices are found in more texts). */
const slice = (length: number, start: number, size: number): [number, number] => {
  const from = start % (length + 1);
  return [from, Math.min(length, from + size)];
};

/**
 * Literals that meet `texts` (the documents' strings and keys) in every way: whole, cut anywhere in
 * UTF-16 (halves of characters beyond U+FFFF), cut anywhere in UTF-8 and written as bytes, or
 * made of any characters, lone surrogates and NUL included.
 */
export function unicodeLiteralArb(texts: readonly string[]): fc.Arbitrary<string> {
  const text = fc.constantFrom(...texts);
  const cut = fc.tuple(text, fc.nat(), fc.nat({ max: 4 }));
  return fc.oneof(
    text,
    { arbitrary: cut.map(([whole, start, size]) => whole.slice(...slice(whole.length, start, size))), weight: 2 },
    {
      arbitrary: cut.map(([whole, start, size]) => {
        const bytes = utf8.encode(whole);
        return bytesLiteral(bytes.slice(...slice(bytes.length, start, size)));
      }),
      weight: 2,
    },
    fc.array(fc.constantFrom(...STORABLE_CHARACTERS, ...UNSTORABLE_CHARACTERS), { maxLength: 3 }).map((characters) => characters.join("")),
  );
}

/** `raw` as a Go regular expression that matches it as text, anchored or not. */
function plainPattern(raw: string, start: boolean, end: boolean): string {
  return `${start ? "^" : ""}${raw.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&")}${end ? "$" : ""}`;
}

/** Whether the filter compiles (a pattern holding a lone surrogate may not). */
function compiles(expression: Expression): boolean {
  try {
    compileFilter(expression);
    return true;
  } catch {
    return false;
  }
}

/**
 * Filters over {@link unicodeDocumentArb}'s documents whose keys and literals come from `texts`
 * (see {@link unicodeLiteralArb}): every operator, selectors in both forms (a `Meta` key may be
 * any literal, lone surrogates included), and up to two clauses joined by `and`/`or`.
 */
export function unicodeExpressionArb(texts: readonly string[]): fc.Arbitrary<Expression> {
  const literal = unicodeLiteralArb(texts);
  const selector: fc.Arbitrary<Selector> = fc
    .tuple(
      fc.oneof(
        { arbitrary: fc.constantFrom(...UNICODE_FIELDS, "Tags", "Meta").map((field) => [field]), weight: 2 },
        fc.oneof(fc.constantFrom(...META_KEYS), literal).map((key) => ["Meta", key]),
      ),
      fc.constantFrom<Selector["form"]>("Bexpr", "Pointer"),
    )
    .map(([path, form]) => ({ kind: "Selector", form, path, span: SPAN }));
  // `in` on strings meets the most kinds of text: it is drawn most often.
  const operator = fc.oneof({ arbitrary: fc.constantFrom<BinaryMatchOperator>("In", "NotIn"), weight: 2 }, fc.constantFrom(...BINARY, ...UNARY));
  const match: fc.Arbitrary<Expression> = fc
    .tuple(operator, selector, literal, fc.boolean(), fc.boolean())
    .map(([operator, at, raw, start, end]) => clause(operator, at, operator === "Matches" || operator === "NotMatches" ? plainPattern(raw, start, end) : raw));
  return fc
    .oneof(
      { arbitrary: match, weight: 3 },
      match.map(not),
      fc.tuple(fc.constantFrom<"And" | "Or">("And", "Or"), match, match).map(([kind, a, b]) => chain(kind, [a, b])),
    )
    .filter(compiles);
}
