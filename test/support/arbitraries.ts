/**
 * fast-check arbitraries: ASTs in the normal form the parser produces, and JSON-like data over
 * the same field names, so generated filters meet values of every kind (and missing keys).
 */
import fc from "fast-check";
import type { CollectionBinding, Expression, MatchExpression, Selector, Span, Value } from "../../src/ast.js";
import type { FieldSchema } from "../../src/evaluator/schema.js";

const SPAN: Span = { start: 0, end: 0 };

/** Field names shared by generated selectors and generated data. */
export const FIELDS = ["Status", "Name", "Priority", "Meta", "Tags", "Stop", "Score", "Nested", "Nil"] as const;
const INNER_KEYS = ["owner", "web-api", "0", "1", "x y", "in", "a/b", "~t"];
const BINDINGS = ["x", "v", "k", "item"];

const rawValue = fc.oneof(
  fc.constantFrom("running", "dead", "50", "-5", "0", "0.5", "1e2", "0x32", "062", "true", "T", "yes", "", "/web", "web-api", "owner", "a b", "dc1"),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.integer({ min: -1000, max: 1000 }).map(String),
);

const POINTER_KEYS = ["owner", "web-api", "0", "1", "in", "a/b", "~t"];

/** Paths that fit the usual shape of each field, so most lookups find a value. */
const plausiblePath = fc.oneof(
  fc.constantFrom("Status", "Name", "Priority", "Stop", "Score", "Nil", "Meta", "Tags", "Nested").map((head) => [head]),
  fc.constantFrom(...INNER_KEYS).map((key) => ["Meta", key]),
  fc.constantFrom("0", "1").map((index) => ["Tags", index]),
  fc.tuple(fc.constantFrom(...INNER_KEYS), fc.constantFrom(...INNER_KEYS)).map(([a, b]) => ["Nested", a, b]),
);
const anyPath = fc.tuple(fc.constantFrom(...FIELDS), fc.array(fc.constantFrom(...INNER_KEYS), { maxLength: 2 })).map(([head, rest]) => [head, ...rest]);

export const selectorArb: fc.Arbitrary<Selector> = fc.oneof(
  {
    arbitrary: fc.oneof({ arbitrary: plausiblePath, weight: 4 }, { arbitrary: anyPath, weight: 1 }).map((path): Selector => ({ kind: "Selector", form: "Bexpr", path, span: SPAN })),
    weight: 5,
  },
  {
    arbitrary: fc
      .tuple(fc.constantFrom(...FIELDS), fc.array(fc.constantFrom(...POINTER_KEYS), { maxLength: 2 }))
      .map(([head, rest]): Selector => ({ kind: "Selector", form: "Pointer", path: [head, ...rest], span: SPAN })),
    weight: 1,
  },
);

const valueArb: fc.Arbitrary<Value> = rawValue.map((raw) => ({ kind: "Value", raw, span: SPAN }));

export const matchArb: fc.Arbitrary<MatchExpression> = fc.oneof(
  fc
    .tuple(fc.constantFrom("Equal", "NotEqual", "Matches", "NotMatches"), selectorArb, valueArb)
    .map(([operator, selector, value]): MatchExpression => ({ kind: "Match", operator, selector, value, spelling: "in", span: SPAN })),
  fc
    .tuple(fc.constantFrom("In", "NotIn"), selectorArb, valueArb, fc.constantFrom("in", "contains"))
    .map(([operator, selector, value, spelling]): MatchExpression => ({ kind: "Match", operator, selector, value, spelling, span: SPAN })),
  fc
    .tuple(fc.constantFrom("IsEmpty", "IsNotEmpty", "IsNil", "IsNotNil"), selectorArb)
    .map(([operator, selector]): MatchExpression => ({ kind: "Match", operator, selector, span: SPAN })),
);

const bexpr = (...path: string[]): Selector => ({ kind: "Selector", form: "Bexpr", path, span: SPAN });
const literal = (raw: string): Value => ({ kind: "Value", raw, span: SPAN });

/** Clauses that usually evaluate without error on {@link datumArb} (operators that suit the field). */
const plausibleMatchArb: fc.Arbitrary<MatchExpression> = fc.oneof(
  fc
    .tuple(fc.constantFrom("Equal", "NotEqual", "Matches", "NotMatches"), fc.constantFrom(bexpr("Status"), bexpr("Name"), bexpr("Meta", "owner"), bexpr("Meta", "web-api")), fc.constantFrom("running", "web", "^w", "a|b", "", "team-a"))
    .map(([operator, selector, raw]): MatchExpression => ({ kind: "Match", operator, selector, value: literal(raw), spelling: "in", span: SPAN })),
  fc
    .tuple(fc.constantFrom("In", "NotIn"), fc.constantFrom(bexpr("Tags"), bexpr("Name"), bexpr("Meta")), fc.constantFrom("dc1", "web", "owner", "", "50"), fc.constantFrom("in", "contains"))
    .map(([operator, selector, raw, spelling]): MatchExpression => ({ kind: "Match", operator, selector, value: literal(raw), spelling, span: SPAN })),
  fc
    .tuple(fc.constantFrom("Equal", "NotEqual"), fc.constantFrom(bexpr("Priority"), bexpr("Stop"), bexpr("Score")), fc.constantFrom("50", "0", "true", "0.5", "1.5"))
    .map(([operator, selector, raw]): MatchExpression => ({ kind: "Match", operator, selector, value: literal(raw), spelling: "in", span: SPAN })),
  fc
    .tuple(fc.constantFrom("IsEmpty", "IsNotEmpty", "IsNil", "IsNotNil"), fc.constantFrom(bexpr("Tags"), bexpr("Meta"), bexpr("Nil"), bexpr("Name"), bexpr("Meta", "none")))
    .map(([operator, selector]): MatchExpression => ({ kind: "Match", operator, selector, span: SPAN })),
);

const bindingArb: fc.Arbitrary<CollectionBinding> = fc.oneof(
  fc.constantFrom(...BINDINGS).map((name): CollectionBinding => ({ mode: "Default", name })),
  fc.tuple(fc.constantFrom(...BINDINGS), fc.constantFrom(...BINDINGS)).map(([index, value]): CollectionBinding => ({ mode: "IndexAndValue", index, value })),
  fc.constantFrom(...BINDINGS).map((index): CollectionBinding => ({ mode: "Index", index })),
  fc.constantFrom(...BINDINGS).map((value): CollectionBinding => ({ mode: "Value", value })),
);

/** Matches whose selectors may also start with a bound name (used inside collection bodies). */
const bodyMatchArb = fc.oneof(
  matchArb,
  fc
    .tuple(matchArb, fc.constantFrom(...BINDINGS), fc.array(fc.constantFrom(...INNER_KEYS), { maxLength: 1 }))
    .map(([match, head, rest]): MatchExpression => ({ ...match, selector: { kind: "Selector", form: "Bexpr", path: [head, ...rest], span: SPAN } })),
);

/** Flattens nested operands of the same kind, as the parser does. */
function chain(kind: "And" | "Or", operands: Expression[]): Expression {
  const flat = operands.flatMap((operand) => (operand.kind === kind ? operand.operands : [operand]));
  return { kind, operands: flat, span: SPAN };
}

function negate(operand: Expression): Expression {
  return operand.kind === "Not" ? operand.operand : { kind: "Not", operand, span: SPAN };
}

/** Expressions in the parser's normal form: flat and/or, no `not` directly under `not`. */
export const expressionArb: fc.Arbitrary<Expression> = fc.letrec<{ expression: Expression; body: Expression }>((tie) => ({
  expression: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { arbitrary: fc.oneof({ arbitrary: plausibleMatchArb, weight: 3 }, { arbitrary: matchArb, weight: 1 }), weight: 4 },
    fc.array(tie("expression"), { minLength: 2, maxLength: 3 }).map((operands) => chain("And", operands)),
    fc.array(tie("expression"), { minLength: 2, maxLength: 3 }).map((operands) => chain("Or", operands)),
    tie("expression").map(negate),
    // Collections, mostly over the list and map fields, with bodies that use the binding.
    fc
      .tuple(
        fc.constantFrom("Any", "All"),
        fc.oneof({ arbitrary: fc.constantFrom(bexpr("Tags"), bexpr("Meta"), bexpr("Nested")), weight: 3 }, { arbitrary: selectorArb, weight: 1 }),
        bindingArb,
        tie("body"),
      )
      .map(([quantifier, selector, binding, body]): Expression => ({ kind: "Collection", quantifier, selector, binding, body, span: SPAN })),
  ),
  body: fc.oneof({ depthSize: "small" }, bodyMatchArb, tie("expression")),
})).expression;

/**
 * Names that are variables and fields at once (`x`, `v` are only variables; `Name`, `Tags`,
 * `Meta` are fields of {@link datumArb} too), so that generated scopes nest, shadow each other
 * and capture fields: the shapes a rename has to get right.
 */
const SCOPE_NAMES = ["x", "v", "Name", "Tags", "Meta"] as const;

/** The words {@link scopedExpressionArb} compares with, and that {@link scopedDatumArb} holds. */
const SCOPED_WORDS = ["dc1", "owner", "team-a", "web", "0"] as const;

/** A selector whose head is one of {@link SCOPE_NAMES}, in either form, sometimes with a key after it. */
const scopedSelectorArb: fc.Arbitrary<Selector> = fc
  .tuple(fc.constantFrom(...SCOPE_NAMES), fc.array(fc.constantFrom("owner", "0", "web-api"), { maxLength: 1 }), fc.constantFrom<Selector["form"]>("Bexpr", "Bexpr", "Bexpr", "Bexpr", "Bexpr", "Pointer"))
  .map(([head, rest, form]): Selector => ({ kind: "Selector", form, path: [head, ...rest], span: SPAN }));

/** Matches that suit the values the names hold (strings, lists and maps of strings), over scoped selectors. */
const scopedMatchArb: fc.Arbitrary<MatchExpression> = fc.oneof(
  fc.tuple(fc.constantFrom("Equal", "NotEqual"), scopedSelectorArb, fc.constantFrom(...SCOPED_WORDS)).map(([operator, selector, raw]): MatchExpression => ({ kind: "Match", operator, selector, value: literal(raw), spelling: "in", span: SPAN })),
  fc.tuple(fc.constantFrom("In", "NotIn"), scopedSelectorArb, fc.constantFrom("dc1", "owner", "web")).map(([operator, selector, raw]): MatchExpression => ({ kind: "Match", operator, selector, value: literal(raw), spelling: "in", span: SPAN })),
  fc.tuple(fc.constantFrom("IsEmpty", "IsNil"), scopedSelectorArb).map(([operator, selector]): MatchExpression => ({ kind: "Match", operator, selector, span: SPAN })),
);

const scopedBindingArb: fc.Arbitrary<CollectionBinding> = fc.oneof(
  { arbitrary: fc.constantFrom(...SCOPE_NAMES).map((name): CollectionBinding => ({ mode: "Default", name })), weight: 3 },
  fc.tuple(fc.constantFrom(...SCOPE_NAMES), fc.constantFrom(...SCOPE_NAMES)).map(([index, value]): CollectionBinding => ({ mode: "IndexAndValue", index, value })),
  fc.constantFrom(...SCOPE_NAMES).map((value): CollectionBinding => ({ mode: "Value", value })),
);

/**
 * An `any`/`all` over a list or map field, holding nested ones over those fields and over what
 * outer variables hold, whose selectors start with names that are bound in some scopes and fields
 * in others (see {@link SCOPE_NAMES}), in the parser's normal form.
 */
export const scopedExpressionArb: fc.Arbitrary<Expression> = fc.letrec<{ expression: Expression; collection: Expression }>((tie) => ({
  expression: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { arbitrary: scopedMatchArb, weight: 3 },
    fc.array(tie("expression"), { minLength: 2, maxLength: 3 }).map((operands) => chain("And", operands)),
    fc.array(tie("expression"), { minLength: 2, maxLength: 3 }).map((operands) => chain("Or", operands)),
    tie("expression").map(negate),
    { arbitrary: tie("collection"), weight: 2 },
  ),
  collection: fc
    .tuple(fc.constantFrom("Any", "All"), fc.constantFrom("Tags", "Meta", "x", "v"), scopedBindingArb, tie("expression"))
    .map(([quantifier, head, binding, body]): Expression => ({ kind: "Collection", quantifier, selector: bexpr(head), binding, body, span: SPAN })),
})).collection;

/**
 * Objects for {@link scopedExpressionArb}: its list and map fields hold its words (keys too), so
 * that a selector reading another variable than before usually changes the result.
 */
export const scopedDatumArb: fc.Arbitrary<Record<string, unknown>> = fc.record({
  Name: fc.constantFrom(...SCOPED_WORDS),
  Tags: fc.oneof(fc.subarray([...SCOPED_WORDS]), fc.array(fc.dictionary(fc.constantFrom(...SCOPED_WORDS), fc.constantFrom(...SCOPED_WORDS)), { maxLength: 3 })),
  Meta: fc.dictionary(fc.constantFrom(...SCOPED_WORDS), fc.oneof(fc.constantFrom(...SCOPED_WORDS), fc.subarray([...SCOPED_WORDS])), { maxKeys: 4 }),
});

/** JSON-like values of every kind the evaluator distinguishes. */
export const jsonValueArb: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom("running", "dead", "web-api", "", "50", "dc1", "owner", "a b", "é🚀"),
    fc.integer({ min: -100, max: 100 }),
    fc.constantFrom(50, 0, -5, 0.5, 100, 2 ** 60),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...INNER_KEYS), tie("value"), { maxKeys: 3 }),
  ),
})).value;

const mapArb = fc.dictionary(fc.constantFrom(...INNER_KEYS), jsonValueArb, { minKeys: 1, maxKeys: 4 });

/**
 * Objects over {@link FIELDS}: each field usually holds a value of its usual kind, sometimes any
 * JSON value, and a few fields are dropped, so filters meet matches, misses and errors alike.
 */
export const datumArb: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.record({
      Status: fc.oneof(fc.constantFrom("running", "dead", "pending", "50"), jsonValueArb),
      Name: fc.oneof(fc.constantFrom("web", "web-api", "/web", "a b", "é🚀", ""), jsonValueArb),
      Priority: fc.oneof(fc.constantFrom(50, 0, -5, 100, 2 ** 60), jsonValueArb),
      Meta: fc.oneof(fc.dictionary(fc.constantFrom(...INNER_KEYS), fc.constantFrom("team-a", "", "50", "dc1"), { maxKeys: 4 }), jsonValueArb),
      Tags: fc.oneof(fc.array(fc.constantFrom("dc1", "web", "", "50", "true"), { maxLength: 4 }), jsonValueArb),
      Stop: fc.oneof(fc.boolean(), jsonValueArb),
      Score: fc.oneof(fc.constantFrom(0.5, 1.5, 50, -0.25), jsonValueArb),
      Nested: fc.oneof(fc.dictionary(fc.constantFrom(...INNER_KEYS), mapArb, { maxKeys: 3 }), jsonValueArb),
      Nil: fc.constant(null),
    }),
    fc.subarray([...FIELDS], { maxLength: 2 }),
  )
  .map(([datum, dropped]) => {
    const copy: Record<string, unknown> = { ...datum };
    for (const field of dropped) delete copy[field];
    return copy;
  });

/** Schemas over {@link FIELDS}, typing the fields as the data usually holds them (and otherwise). */
export const schemaArb: fc.Arbitrary<FieldSchema> = fc
  .record({
    Status: fc.constantFrom<FieldSchema>("string", "time", "any"),
    Name: fc.constantFrom<FieldSchema>("string", "int"),
    Priority: fc.constantFrom<FieldSchema>("int", "uint", "float", "string"),
    Meta: fc.constantFrom<FieldSchema>({ kind: "map", values: "string" }, { kind: "object", fields: { owner: "string" } }, "any"),
    Tags: fc.constantFrom<FieldSchema>({ kind: "array", items: "string" }, { kind: "array", items: "int" }, { kind: "array", items: "any" }),
    Stop: fc.constantFrom<FieldSchema>("bool", "string"),
    Score: fc.constantFrom<FieldSchema>("float", "int"),
    Nested: fc.constantFrom<FieldSchema>({ kind: "map", values: { kind: "map", values: "any" } }, "any"),
    Nil: fc.constantFrom<FieldSchema>({ kind: "object", fields: {} }, { kind: "array", items: "string" }, "string"),
  })
  .map((fields): FieldSchema => ({ kind: "object", fields }));

/** Pieces of real filters, so random sources reach deep into the grammar rather than failing at once. */
const fragment = fc.constantFrom(
  "Status", "Meta", "not", "and", "or", "in", "is", "empty", "nil", "contains", "matches", "any", "all", "as",
  "==", "!=", "(", ")", "{", "}", "[", "]", ",", ".", "_", '"x"', '"/a/b"', "`r`", "5", "-1", "0.5", "1e3",
  " ", " ", " ", "\n", "x", "v", "'", "-", "&&", ">=", '"\\q"', '"', "`", "é", "\u00a0", "0",
);

/** Filter-like sources, valid or not: joined fragments of real filters, and arbitrary strings. */
export const sourceArb: fc.Arbitrary<string> = fc.oneof(
  fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join("")),
  fc.string({ maxLength: 60 }),
);

/**
 * Regular expressions built from `atoms`: sequences, alternations, the groups `opens` start
 * (each closed by `)`) and `quantifiers` applied to a non-capturing group.
 */
export function patternArb(atoms: readonly string[], opens: readonly string[], quantifiers: readonly string[]): fc.Arbitrary<string> {
  return fc.letrec<{ re: string }>((tie) => ({
    re: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom(...atoms),
      fc.tuple(tie("re"), tie("re")).map(([a, b]) => a + b),
      fc.tuple(tie("re"), tie("re")).map(([a, b]) => `${a}|${b}`),
      fc.tuple(fc.constantFrom(...opens), tie("re")).map(([open, a]) => `${open}${a})`),
      fc.tuple(tie("re"), fc.constantFrom(...quantifiers)).map(([a, q]) => `(?:${a})${q}`),
    ),
  })).re;
}
