/**
 * Match clauses in typed mode: the schema says what each field holds, so the SQL compares the
 * literal read as the field's kind (Go's `ParseInt`, `ParseUint`, `ParseFloat`, `ParseBool`, done
 * here, once), and decides every row whose document has the schema's shape.
 *
 * What a field that is missing or null gives (a zero value, a nil map, a nil pointer's error) does
 * not depend on the rest of the document: it is asked of the evaluator itself, on a document that
 * has the path up to that field and no more, and written into the SQL as a constant. A value whose
 * JSON type is not the one its schema describes is left to the re-check (`2`).
 *
 * @module
 */
import type { MatchExpression } from "../ast.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { FilterEvaluationError } from "../errors.js";
import { compileFilter } from "../filter.js";
import { parseGoBool, parseGoFloat, parseGoInt, parseGoUint } from "../go/strconv.js";
import { operator, unhandled } from "../operators.js";
import { bit, literalTest, negate, plainMatch, textContains, UNDECIDED, UNSTORABLE, type Clause, type Parameters } from "./clauses.js";

/** What the evaluator answers for the clause on `document`: 1, 0, or 2 for an error. */
function evaluated(node: MatchExpression, schema: FieldSchema, document: unknown): 0 | 1 | 2 {
  try {
    return compileFilter(node, { schema }).test(document) ? 1 : 0;
  } catch (error) {
    if (error instanceof FilterEvaluationError) return 2;
    throw error;
  }
}

/** What the evaluator answers at each depth of a clause's path when the field there is missing, and when it is null. */
export interface AbsentAnswers {
  readonly missing: 0 | 1 | 2;
  readonly isNull: 0 | 1 | 2;
}

/** The answers of the evaluator on fields absent at each depth, asked once per clause and schema (the translation and its index conditions both read them). */
const absentCache = new WeakMap<MatchExpression, { readonly root: FieldSchema; readonly answers: readonly AbsentAnswers[] }>();

/** {@link AbsentAnswers} for each depth of `node`'s path, in typed mode with `root`. */
export function absentAnswers(node: MatchExpression, root: FieldSchema): readonly AbsentAnswers[] {
  const cached = absentCache.get(node);
  if (cached?.root === root) return cached.answers;
  const { path } = node.selector;
  const answers = path.map((_, depth) => ({
    missing: evaluated(node, root, documentTo(path, depth, undefined)),
    isNull: evaluated(node, root, documentTo(path, depth, { value: null })),
  }));
  absentCache.set(node, { root, answers });
  return answers;
}

/** A document holding `path[0..depth)` as empty objects, then `leaf` (or nothing) at `path[depth]`. */
function documentTo(path: readonly string[], depth: number, leaf: { readonly value: unknown } | undefined): unknown {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 0; i < depth; i++) at = at[path[i]!] = {};
  if (leaf !== undefined) at[path[depth]!] = leaf.value;
  return root;
}

/** The JSON type a present, non-null value of `schema` has. */
function jsonTypeOf(schema: FieldSchema): string | undefined {
  if (typeof schema !== "string") return schema.kind === "array" ? "array" : "object";
  switch (schema) {
    case "string":
    case "time":
      return "string";
    case "int":
    case "uint":
    case "float":
      return "number";
    case "bool":
      return "boolean";
    case "any":
      return undefined;
    default:
      return unhandled(schema);
  }
}

/** The literal read as an integer of `kind`, as numeric text, or undefined when the reading fails (an error on every row). */
export function integerLiteral(kind: "int" | "uint", raw: string): string | undefined {
  const parsed = kind === "int" ? parseGoInt(raw) : parseGoUint(raw);
  return parsed.ok ? parsed.value.toString() : undefined;
}

/** The SQL of the positive test on a present value of the leaf's schema (its JSON type checked already). */
function leafTest(node: MatchExpression, leaf: FieldSchema, value: string, parameters: Parameters): Clause {
  const test = operator(node.operator).test;
  const raw = "value" in node ? node.value.raw : "";
  const text = `(${value} #>> '{}')`;
  const scalar = typeof leaf === "string" ? leaf : undefined;
  switch (test) {
    case "equal":
      if (scalar === "string") return { sql: literalTest(raw, parameters, (bound) => `${text} = ${bound}`), undecided: false };
      if (scalar === "int" || scalar === "uint") {
        const literal = integerLiteral(scalar, raw);
        return literal === undefined ? UNDECIDED : { sql: bit(`(${value})::numeric = ${parameters.text(literal)}::numeric`), undecided: false };
      }
      if (scalar === "float") {
        const parsed = parseGoFloat(raw);
        return parsed.ok && Number.isFinite(parsed.value) ? { sql: bit(`(${value})::float8 = ${parameters.text(String(parsed.value))}::float8`), undecided: false } : UNDECIDED;
      }
      if (scalar === "bool") {
        const parsed = parseGoBool(raw);
        return parsed.ok ? { sql: bit(`${value} = '${parsed.value}'::jsonb`), undecided: false } : UNDECIDED;
      }
      return UNDECIDED;
    case "in":
      if (scalar === "string") return textContains(text, raw, parameters);
      if (typeof leaf === "object" && leaf.kind === "map") return { sql: literalTest(raw, parameters, (bound) => `${value} ? ${bound}`), undecided: false };
      if (typeof leaf === "object" && leaf.kind === "array") return listContains(leaf.items, raw, value, parameters);
      return UNDECIDED;
    case "empty":
      if (scalar === "string") return { sql: bit(`${text} = ''`), undecided: false };
      if (typeof leaf === "object" && leaf.kind === "map") return { sql: bit(`${value} = '{}'::jsonb`), undecided: false };
      if (typeof leaf === "object" && leaf.kind === "array") return { sql: bit(`jsonb_array_length(${value}) = 0`), undecided: false };
      return UNDECIDED;
    case "nil":
      // A present map or list is not nil; the evaluator errors on the other kinds (asked below).
      return typeof leaf === "object" && leaf.kind !== "object" ? { sql: "0", undecided: false } : UNDECIDED;
    case "matches": {
      const plain = scalar === "string" ? plainMatch(text, raw, parameters) : undefined;
      return plain === undefined ? UNDECIDED : { sql: bit(plain), undecided: false };
    }
    default:
      return unhandled(test);
  }
}

/**
 * `in` over a typed list: the literal is read as the element kind (a failure is an error on every
 * row, the empty list included), then compared with each element.
 */
function listContains(items: FieldSchema, raw: string, value: string, parameters: Parameters): Clause {
  const elements = `jsonb_array_elements(${value}) AS elements(e)`;
  switch (items) {
    case "string":
      return { sql: literalTest(raw, parameters, (bound) => `EXISTS (SELECT 1 FROM ${elements} WHERE e #>> '{}' = ${bound})`), undecided: false };
    case "int":
    case "uint": {
      const literal = integerLiteral(items, raw);
      return literal === undefined ? UNDECIDED : { sql: bit(`EXISTS (SELECT 1 FROM ${elements} WHERE jsonb_typeof(e) = 'number' AND e::numeric = ${parameters.text(literal)}::numeric)`), undecided: false };
    }
    case "bool": {
      const parsed = parseGoBool(raw);
      return parsed.ok ? { sql: bit(`EXISTS (SELECT 1 FROM ${elements} WHERE e = '${parsed.value}'::jsonb)`), undecided: false } : UNDECIDED;
    }
    default:
      return UNDECIDED;
  }
}

/** The schema of each key of `path`, or undefined where the path leaves what the translation follows (lists, `any`, unknown fields). */
export function schemasAlong(root: FieldSchema, path: readonly string[]): FieldSchema[] | undefined {
  const schemas: FieldSchema[] = [];
  let at: FieldSchema = root;
  for (const key of path) {
    if (typeof at !== "object" || at.kind === "array") return undefined;
    const next: FieldSchema | undefined = at.kind === "object" ? (Object.hasOwn(at.fields, key) ? at.fields[key] : undefined) : at.values;
    if (next === undefined) return undefined;
    schemas.push(next);
    at = next;
  }
  return schemas;
}

/**
 * A match clause in typed mode: from the top, each key of the selector is either missing or null
 * (the evaluator's constant answer for that), of the JSON type its schema says (go on), or of
 * another (undecided); at the leaf, the operator's test for the field's kind.
 */
export function typedMatch(node: MatchExpression, root: FieldSchema, column: string, parameters: Parameters): Clause {
  const { path } = node.selector;
  const schemas = schemasAlong(root, path);
  if (schemas === undefined || path.some((key) => UNSTORABLE.test(key))) return UNDECIDED;
  const leafSchema = schemas[schemas.length - 1]!;
  if (jsonTypeOf(leafSchema) === undefined) return UNDECIDED;
  const definition = operator(node.operator);
  const keys = path.map((key) => parameters.text(key));
  const values = keys.map((_, depth) => keys.slice(0, depth + 1).reduce((sql, key) => `(${sql} -> ${key})`, column));
  let undecided = false;
  const arms: string[] = [];
  const absent = absentAnswers(node, root);
  for (let depth = 0; depth < path.length; depth++) {
    const value = values[depth]!;
    const { missing, isNull } = absent[depth]!;
    undecided ||= missing === 2 || isNull === 2;
    arms.push(`WHEN ${value} IS NULL THEN ${missing}`, `WHEN jsonb_typeof(${value}) = 'null' THEN ${isNull}`);
    // Another JSON type than the schema's: the document does not have the schema's shape.
    arms.push(`WHEN jsonb_typeof(${value}) <> '${jsonTypeOf(schemas[depth]!)}' THEN 2`);
  }
  const leafValue = values[values.length - 1]!;
  let found: Clause;
  if (typeof leafSchema === "object" && leafSchema.kind === "object") {
    // A present struct: the evaluator's answer does not depend on its fields.
    const answer = evaluated(node, root, documentTo(path, path.length - 1, { value: {} }));
    found = { sql: String(answer), undecided: answer === 2 };
  } else if (leafSchema === "time") {
    const answer = evaluated(node, root, documentTo(path, path.length - 1, { value: "2024-01-01T00:00:00Z" }));
    found = { sql: String(answer), undecided: answer === 2 };
  } else {
    const positive = leafTest(node, leafSchema, leafValue, parameters);
    found = definition.negated ? { sql: negate(positive.sql), undecided: positive.undecided } : positive;
  }
  return { sql: `(CASE ${arms.join(" ")} ELSE ${found.sql} END)`, undecided: undecided || found.undecided };
}
