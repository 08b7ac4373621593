/**
 * The translation of a filter into a PostgreSQL expression over one JSONB column.
 *
 * Every clause becomes an SQL integer with three values, the evaluator's three outcomes:
 *
 * - `1`: the evaluator answers true on this row;
 * - `0`: it answers false;
 * - `2`: it raises an evaluation error, or the translation cannot tell (a regular expression, an
 *   `any`/`all`, a path through a list, a number a list holds): the row must be checked by the
 *   compiled filter, which then gives the answer or raises the reference's error.
 *
 * `and`, `or` and `not` combine them as the evaluator does, left to right and short-circuiting:
 * `0 and x` is `0` whatever `x` would raise, `2 and x` is `2`. A `2` is never turned into `0`, so a
 * row on which the reference errors is never silently dropped. The filter selects the rows whose
 * value is not `0`.
 *
 * No text of the filter is written into the SQL: path keys and literals are parameters.
 *
 * The SQL grows in proportion to the filter and nests about as deep as its parentheses, whatever
 * the filter holds: a selector's path is one parameter however long it is, a chain of `and`s is
 * one flat `COALESCE`, and `not` is pushed down to the clauses. A filter typed by anyone thus
 * cannot make the SQL quadratic in its length, nor overflow the stack of the server that parses
 * it (PGlite's WebAssembly stack overflows on expressions a few hundred levels deep).
 *
 * @module
 */
import type { Expression, MatchExpression } from "../ast.js";
import { parseGoBool, parseGoFloat, parseGoInt } from "../go/strconv.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { operator, unhandled } from "../operators.js";
import { bit, literalTest, negate, Parameters, plainMatch, textContains, UNDECIDED, UNSTORABLE, type Clause } from "./clauses.js";
import { typedMatch } from "./typed.js";

/**
 * The most keys of one selector that PostgreSQL could read as a list index (`0`, `-1`, ` 2`),
 * before the clause is left to the re-check. A path is walked with `#>`, which indexes a list with
 * such a key, so each one is a step of its own with `->`, which never enters a list; the steps
 * nest, and PGlite's WebAssembly stack overflows on expressions a few hundred levels deep. Real
 * selectors hold a few (`TaskGroups.0.Tasks.0.Name`).
 */
export const MAX_INDEX_KEYS = 8;

/**
 * The deepest the SQL of a filter may nest, in levels of parentheses; deeper parts of a filter
 * are left to the re-check (`2`, which is always a sound answer for a part). PostgreSQL parses,
 * plans and runs an expression by recursion: a server stops at its `max_stack_depth` with an
 * error, but PGlite's WebAssembly stack overflows first, at about 220 levels, and the instance
 * dies. The parser's limit of 128 parentheses does not bound it alone: in `((a or b) and c) or d`
 * each parenthesis costs two levels, and a clause costs about ten.
 */
export const MAX_SQL_DEPTH = 128;

/**
 * The most keys a walk to a map takes one `->` at a time. Each `->` is a lookup and costs nothing
 * to prepare, while `#>` parses its array of keys every time the SQL states it (a clause states its
 * value a dozen times): paths of three keys ran three times slower with `#>`. A short path costs a
 * few hundred characters of SQL more; a longer one is walked with `#>`, in SQL of a constant size.
 */
const SHORT_WALK = 4;

/**
 * A key that PostgreSQL's `#>` reads as a list index when the value it meets is a list: what C's
 * `strtol` reads whole (spaces, a sign, digits). JavaScript's `\s` holds every space C's does.
 */
const INDEX_KEY = /^\s*[+-]?[0-9]+$/;

/**
 * Text that some number in a list could print as (JavaScript's `String(number)`, which is what the
 * engine compares list elements with): a sign, digits, a fraction, an exponent, or `Infinity`.
 */
const NUMBER_TEXT = /^-?(?:[0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]+)?|Infinity)$|^NaN$/;

/** The SQL of a clause whose JSONB value is `value`, by the value's JSON type. */
function byType(value: string, cases: { readonly [type in "string" | "number" | "boolean" | "null" | "array" | "object"]?: string }): string {
  // Types a case leaves out are the evaluator's errors: undecided, as are the cases that are 2 anyway.
  const arms = Object.entries(cases)
    .filter(([, sql]) => sql !== "2")
    .map(([type, sql]) => `WHEN '${type}' THEN ${sql}`);
  if (arms.length === 0) return "2";
  return `(CASE jsonb_typeof(${value}) ${arms.join(" ")} ELSE 2 END)`;
}

/**
 * The positive test of `==` on a number, as the engine reads the number it meets: an integer (a
 * JSON integer, or a fraction whose double is a whole number, within int64) takes the literal as
 * Go's `ParseInt` reads it; any other number takes it as `ParseFloat` does.
 */
function numberEquals(value: string, raw: string, parameters: Parameters): string {
  const number = `(${value})::numeric`;
  const double = `(${value})::float8`;
  const parsedInt = parseGoInt(raw);
  const parsedFloat = parseGoFloat(raw);
  // The engine's integers: integer text within int64 (exact), or a double that is a whole number.
  const integral = `(CASE WHEN scale(${number}) = 0 THEN ${number} >= -9223372036854775808 AND ${number} < 9223372036854775808 ELSE ${double} = trunc(${double}) AND ${double} >= -9223372036854775808 AND ${double} < 9223372036854775808 END)`;
  // A whole double beyond 2^53 reached from a fraction: its exact value is not worth the SQL.
  const roughDouble = `(scale(${number}) > 0 AND abs(${double}) >= 9007199254740992)`;
  const asInt = parsedInt.ok
    ? `(CASE WHEN ${roughDouble} THEN 2 ELSE ${bit(`${number} = ${parameters.text(parsedInt.value.toString())}::numeric`)} END)`
    : "2";
  const asFloat = parsedFloat.ok && Number.isFinite(parsedFloat.value) ? bit(`${double} = ${parameters.text(String(parsedFloat.value))}::float8`) : "2";
  // A literal that reads as no number (most text) leaves every number undecided, without the tests.
  if (asInt === "2" && asFloat === "2") return "2";
  return `(CASE WHEN ${integral} THEN ${asInt} ELSE ${asFloat} END)`;
}

/** The positive test of `in` on a JSON list: the first element that decides (a match, or an element the engine errors on or that SQL cannot compare). */
function listContains(value: string, raw: string, parameters: Parameters): string {
  const bool = parseGoBool(raw);
  const decides: string[] = [];
  if (!UNSTORABLE.test(raw)) decides.push(`WHEN jsonb_typeof(e) = 'string' AND e #>> '{}' = ${parameters.text(raw)} THEN 1`);
  if (bool.ok) decides.push(`WHEN e = '${bool.value}'::jsonb THEN 1`);
  // A number matches when it prints as the literal: undecided unless the literal cannot be a number's text.
  if (NUMBER_TEXT.test(raw)) decides.push(`WHEN jsonb_typeof(e) = 'number' THEN 2`);
  // null, a list or a map in the list: the engine's error (the reference panics or refuses).
  decides.push(`WHEN jsonb_typeof(e) IN ('null', 'array', 'object') THEN 2`);
  const outcome = `CASE ${decides.join(" ")} END`;
  return `COALESCE((SELECT ${outcome} FROM jsonb_array_elements(${value}) WITH ORDINALITY AS elements(e, position) WHERE (${outcome}) IS NOT NULL ORDER BY position LIMIT 1), 0)`;
}

/** The positive test of a match clause on the JSONB value it found. */
function positive(node: MatchExpression, value: string, parameters: Parameters): string {
  const test = operator(node.operator).test;
  const raw = "value" in node ? node.value.raw : "";
  const text = `(${value} #>> '{}')`;
  switch (test) {
    case "equal": {
      const bool = parseGoBool(raw);
      return byType(value, {
        string: literalTest(raw, parameters, (bound) => `${text} = ${bound}`),
        number: numberEquals(value, raw, parameters),
        boolean: bool.ok ? bit(`${value} = '${bool.value}'::jsonb`) : "2",
      });
    }
    case "in":
      return byType(value, {
        string: textContains(text, raw, parameters).sql,
        object: literalTest(raw, parameters, (bound) => `${value} ? ${bound}`),
        array: listContains(value, raw, parameters),
      });
    case "empty":
      return byType(value, {
        string: bit(`${text} = ''`),
        array: bit(`jsonb_array_length(${value}) = 0`),
        object: bit(`${value} = '{}'::jsonb`),
      });
    case "nil":
      return byType(value, { null: "1", array: "0", object: "0" });
    case "matches": {
      // Plain text search is answered here; every other pattern is left to the compiled filter.
      const plain = plainMatch(text, raw, parameters);
      return plain === undefined ? "2" : byType(value, { string: bit(plain) });
    }
    default:
      return unhandled(test);
  }
}

/**
 * A match clause: resolve the selector key by key as the reference does (every key but the last
 * must name a map; a last key missing under a map gives the operator's fixed result; anything
 * else missing is an error), then apply the operator.
 */
function match(node: MatchExpression, column: string, parameters: Parameters): Clause {
  const { path } = node.selector;
  if (path.some((key) => UNSTORABLE.test(key))) return UNDECIDED;
  const parent = walkMaps(column, path.slice(0, -1), parameters);
  if (parent === undefined) return UNDECIDED;
  const definition = operator(node.operator);
  const last = parameters.text(path[path.length - 1]!);
  const value = `(${parent.value} -> ${last})`;
  // A missing last key: the operator's fixed result under a map when the path has two keys or more; an error at the top.
  const missing = path.length >= 2 ? (definition.missing ? "1" : "0") : "2";
  const found = positive(node, value, parameters);
  const result = definition.negated ? negate(found) : found;
  // A key but the last that is missing or not a map (a list, indexed by the engine, or anything else): undecided.
  return { sql: `(CASE WHEN jsonb_typeof(${parent.walk}) IS DISTINCT FROM 'object' THEN 2 WHEN NOT (${parent.value} ? ${last}) THEN ${missing} ELSE ${result} END)`, undecided: true };
}

/** The SQL of the value at a path through maps: `walk` finds it through maps only, once; `value` repeats it, after `walk` is known to be a map. */
interface MapWalk {
  readonly walk: string;
  readonly value: string;
}

/**
 * The value of `column` at `keys`, reached through maps only, as the reference's map lookups
 * (null where a key is missing or a value on the way is not a map), or undefined when the path
 * holds more than {@link MAX_INDEX_KEYS} keys that PostgreSQL could read as list indexes.
 *
 * A short path is a chain of `->` (see {@link SHORT_WALK}). A longer one would make the SQL as
 * long as the path times the dozen times a clause states its value: one `#>`, with the keys as one
 * parameter, walks any number of keys in SQL of a constant size. `#>` indexes lists, though, and
 * `->` with a text key does not: each key it could read as an index (see {@link INDEX_KEY}) is a
 * step of its own with `->`. Once the walk is known to end at a map, every value on the way was a
 * map, and a single `#>` over all the keys is the same value: that is the SQL that the clause
 * repeats.
 */
function walkMaps(column: string, keys: readonly string[], parameters: Parameters): MapWalk | undefined {
  if (keys.filter((key) => INDEX_KEY.test(key)).length > MAX_INDEX_KEYS) return undefined;
  let walk = column;
  let steps = 0;
  let run: string[] = [];
  // Each step in parentheses of its own, so that the SQL's parentheses show how deep it nests.
  const step = (operator: string, operand: string): void => {
    walk = `(${walk} ${operator} ${operand})`;
    steps++;
  };
  const endRun = (): void => {
    if (run.length === 1) step("->", parameters.text(run[0]!));
    else if (run.length > 1) step("#>", parameters.textArray(run));
    run = [];
  };
  for (const key of keys) {
    if (keys.length > SHORT_WALK && !INDEX_KEY.test(key)) {
      run.push(key);
      continue;
    }
    endRun();
    step("->", parameters.text(key));
  }
  endRun();
  return { walk, value: steps <= SHORT_WALK ? walk : `(${column} #> ${parameters.textArray(keys)})` };
}

/**
 * The three-valued SQL of an expression: in map mode without `schema`, in typed mode with it
 * (`typed.ts`).
 */
export function translate(node: Expression, column: string, parameters: Parameters, schema?: FieldSchema): Clause {
  return translateWithin(node, false, MAX_SQL_DEPTH, { column, parameters, schema });
}

/** What every part of one translation shares. */
interface Translation {
  readonly column: string;
  readonly parameters: Parameters;
  readonly schema: FieldSchema | undefined;
}

/**
 * The SQL of `node`, or of `not node` when `negated`, nested at most `depth` levels deep (see
 * {@link MAX_SQL_DEPTH}; a part that does not fit is `2`).
 *
 * Negation is pushed down to the clauses, because it is exact in the three values: `not` swaps 1
 * and 0 and keeps 2, so `not (a and b)` is `not a or not b`, evaluated left to right as `and` and
 * `or` are. The SQL then nests no deeper for `not` than for the parentheses around it.
 */
function translateWithin(node: Expression, negated: boolean, depth: number, translation: Translation): Clause {
  const { column, parameters, schema } = translation;
  switch (node.kind) {
    case "Match": {
      const mark = parameters.mark;
      const clause = schema === undefined ? match(node, column, parameters) : typedMatch(node, schema, column, parameters);
      const signed = negated ? { sql: negate(clause.sql), undecided: clause.undecided } : clause;
      if (nesting(signed.sql) <= depth) return signed;
      parameters.rollBack(mark);
      return UNDECIDED;
    }
    case "Collection":
      // `any` and `all` are left to the compiled filter.
      return UNDECIDED;
    case "Not":
      return translateWithin(node.operand, !negated, depth, translation);
    case "And":
    case "Or": {
      if (depth < 1) return UNDECIDED;
      // Left to right, each operand written once: `and` goes on past a 1 and stops at anything
      // else, which is its value; `or` goes on past a 0. COALESCE takes the first operand that is
      // not NULLed, and evaluates no further: the chain is one flat expression, however long.
      const goOn = (node.kind === "And") !== negated ? 1 : 0;
      const last = node.operands.length - 1;
      const operands = node.operands.map((operand, i) => {
        const clause = translateWithin(operand, negated, depth - (i === last ? 1 : 2), translation);
        return { sql: i === last ? clause.sql : `NULLIF(${clause.sql}, ${goOn})`, undecided: clause.undecided };
      });
      return { sql: `COALESCE(${operands.map((operand) => operand.sql).join(", ")})`, undecided: operands.some((operand) => operand.undecided) };
    }
    default:
      return unhandled(node);
  }
}

/** How deep `sql` nests, in parentheses (every construct of the translation is written in parentheses of its own). */
function nesting(sql: string): number {
  let level = 0;
  let deepest = 0;
  for (let i = 0; i < sql.length; i++) {
    const code = sql.charCodeAt(i);
    if (code === 40) deepest = Math.max(deepest, ++level);
    else if (code === 41) level--;
  }
  return deepest;
}

