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
 * @module
 */
import type { Expression, MatchExpression } from "../ast.js";
import { parseGoBool, parseGoFloat, parseGoInt } from "../go/strconv.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { operator, unhandled } from "../operators.js";
import { typedMatch } from "./typed.js";

/** The three-valued result of a clause: its SQL, and whether it can be `2` (undecided or an error). */
export interface Clause {
  readonly sql: string;
  /** False when the clause is `0` or `1` on every row. */
  readonly undecided: boolean;
}

/** Collects the parameters of one translation. */
class Parameters {
  readonly values: string[] = [];

  constructor(private readonly offset: number) {}

  /** A placeholder for `value`, bound as text. */
  text(value: string): string {
    this.values.push(value);
    return `$${this.offset + this.values.length}::text`;
  }
}

/** The undecided value: the row goes to the compiled filter. */
export const UNDECIDED: Clause = { sql: "2", undecided: true };

/**
 * Text that no PostgreSQL text value or JSONB string can hold: NUL, and lone surrogates (which
 * stand for bytes that are not UTF-8). A literal holding one equals no stored string and is in
 * none, and cannot be bound as a parameter.
 */
export const UNSTORABLE = /[\u0000\ud800-\udfff]/;

/**
 * Text that some number in a list could print as (JavaScript's `String(number)`, which is what the
 * engine compares list elements with): a sign, digits, a fraction, an exponent, or `Infinity`.
 */
const NUMBER_TEXT = /^-?(?:[0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]+)?|Infinity)$|^NaN$/;

/**
 * The regular expressions whose meaning is plain text search, in Go's syntax: an optional `^`,
 * literal characters (letters, digits, spaces and punctuation that is not an operator, or an
 * operator escaped with `\`), and an optional `$`. Without flags, `^` and `$` are the start and the
 * end of the text (Go's `$` does not match before a final newline), so these are "contains",
 * "starts with", "ends with" and "equals", which SQL answers exactly. Every other pattern is left to
 * the re-check.
 */
const PLAIN_PATTERN = /^(\^?)((?:[^\\.+*?()|[\]{}^$\u0000\ud800-\udfff]|\\[\\.+*?()|[\]{}^$/-])*)(\$?)$/;

/** The SQL test of `text` (an SQL text) against a plain pattern, or undefined when the pattern is not plain. */
export function plainMatch(text: string, pattern: string, parameters: Parameters): string | undefined {
  const plain = PLAIN_PATTERN.exec(pattern);
  if (plain === null) return undefined;
  const [, start, escaped, end] = plain;
  const literal = escaped!.replace(/\\(.)/g, "$1");
  const bound = parameters.text(literal);
  if (start && end) return `${text} = ${bound}`;
  if (start) return `starts_with(${text}, ${bound})`;
  if (end) return `right(${text}, char_length(${bound})) = ${bound}`;
  return `strpos(${text}, ${bound}) > 0`;
}

/** The SQL of a clause whose JSONB value is `value`, by the value's JSON type. */
function byType(value: string, cases: { readonly [type in "string" | "number" | "boolean" | "null" | "array" | "object"]?: string }): string {
  const arms = Object.entries(cases).map(([type, sql]) => `WHEN '${type}' THEN ${sql}`);
  // Types a case leaves out are the evaluator's errors: undecided.
  return `(CASE jsonb_typeof(${value}) ${arms.join(" ")} ELSE 2 END)`;
}

/** `1` when `condition` holds, else `0`. */
export const bit = (condition: string): string => `(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;

/** The negation of a three-valued SQL value: 1 and 0 swap, 2 stays. */
export const negate = (sql: string): string => `(CASE ${sql} WHEN 1 THEN 0 WHEN 0 THEN 1 ELSE 2 END)`;

/**
 * `1` when `condition` holds of the literal `raw` (bound as a parameter), else `0`; always `0` for
 * a literal no stored text can hold (see {@link UNSTORABLE}), which is not bound.
 */
export function literalTest(raw: string, parameters: Parameters, condition: (bound: string) => string): string {
  return UNSTORABLE.test(raw) ? "0" : bit(condition(parameters.text(raw)));
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
        // strpos finds the empty string in every text, as Go's strings.Contains does.
        string: literalTest(raw, parameters, (bound) => `strpos(${text}, ${bound}) > 0`),
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
  const definition = operator(node.operator);
  // Each key but the last must lead to a map; a list (indexed by the engine) or anything else is undecided.
  const keys = path.map((key) => parameters.text(key));
  const parents = keys.map((_, i) => keys.slice(0, i).reduce((sql, key) => `(${sql} -> ${key})`, column));
  const throughMaps = parents.map((parent) => `jsonb_typeof(${parent}) = 'object'`).join(" AND ");
  const last = keys[keys.length - 1]!;
  const parent = parents[parents.length - 1]!;
  const value = `(${parent} -> ${last})`;
  // A missing last key: the operator's fixed result under a map when the path has two keys or more; an error at the top.
  const missing = path.length >= 2 ? (definition.missing ? "1" : "0") : "2";
  const found = positive(node, value, parameters);
  const result = definition.negated ? negate(found) : found;
  return { sql: `(CASE WHEN NOT (${throughMaps}) THEN 2 WHEN NOT (${parent} ? ${last}) THEN ${missing} ELSE ${result} END)`, undecided: true };
}

/**
 * The three-valued SQL of an expression: in map mode without `schema`, in typed mode with it
 * (`typed.ts`).
 */
export function translate(node: Expression, column: string, parameters: Parameters, schema?: FieldSchema): Clause {
  switch (node.kind) {
    case "Match":
      return schema === undefined ? match(node, column, parameters) : typedMatch(node, schema, column, parameters);
    case "Collection":
      // `any` and `all` are left to the compiled filter.
      return UNDECIDED;
    case "Not": {
      const operand = translate(node.operand, column, parameters, schema);
      return { sql: negate(operand.sql), undecided: operand.undecided };
    }
    case "And":
    case "Or": {
      // Left to right, each operand written once: `and` goes on past a 1 and stops at a 0, `or`
      // goes on past a 0 and stops at a 1; an undecided operand stops both.
      const [goOn, stop] = node.kind === "And" ? [1, 0] : [0, 1];
      const operands = node.operands.map((operand) => translate(operand, column, parameters, schema));
      const sql = operands
        .slice(0, -1)
        .reduceRight((rest, operand) => `(CASE ${operand.sql} WHEN ${goOn} THEN ${rest} WHEN ${stop} THEN ${stop} ELSE 2 END)`, operands[operands.length - 1]!.sql);
      return { sql, undecided: operands.some((operand) => operand.undecided) };
    }
    default:
      return unhandled(node);
  }
}

export { Parameters };
