/**
 * `bexpr/sql`: filters pushed down to PostgreSQL, for a service that keeps its objects as JSONB.
 *
 * ```ts
 * import { toSql } from "bexpr/sql";
 * import { compileFilter } from "bexpr";
 * const { sql, params, exact } = toSql('Status == "running" and "dc1" in Datacenters');
 * const rows = await client.query(`SELECT doc::text FROM jobs WHERE ${sql}`, params);
 * // Not exact: re-check the rows with the compiled filter, which also raises the reference's errors.
 * const filter = compileFilter(source);
 * const jobs = rows.map((row) => parseJson(row.doc)).filter((job) => exact || filter.test(job));
 * ```
 *
 * The SQL selects every row the filter accepts, and every row on which the filter would raise an
 * evaluation error or that the SQL cannot decide; `exact` says whether it selects nothing else.
 *
 * Equality, `in`/`contains`, emptiness, nil tests and boolean logic are translated, in map mode
 * (documents as JSON) and in typed mode (`schema`); `matches`, `any`/`all` and paths through lists
 * are left to the re-check. Regular expressions and index-friendly forms come next.
 *
 * The SQL grows in proportion to the filter and nests at most {@link MAX_SQL_DEPTH} levels, so a
 * filter typed by anyone may be pushed down (see docs/sql.md, "Hostile filters").
 *
 * @packageDocumentation
 * @module bexpr/sql
 */
import type { Expression } from "../ast.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { parseGoBool } from "../go/strconv.js";
import { parse } from "../parser/parse.js";
import { Parameters, UNSTORABLE } from "./clauses.js";
import { MAX_INDEX_KEYS, MAX_SQL_DEPTH, translate } from "./translate.js";
import { absentAnswers, integerLiteral, schemasAlong } from "./typed.js";

export { MAX_INDEX_KEYS, MAX_SQL_DEPTH };

/** Options of {@link toSql}. */
export interface SqlOptions {
  /** The JSONB column holding each document (default `doc`); quoted as an identifier, whatever it holds. */
  readonly column?: string;
  /** Placeholders start after this many (default 0: `$1`), to put the SQL beside parameters of your own. */
  readonly paramOffset?: number;
  /**
   * Typed mode: the documents' schema, as given to `compileFilter` (for example `schemas.job`).
   * The SQL then reads each literal as its field's kind and decides every row whose document has
   * the schema's shape; `exact` is about such documents (a row of another shape is selected for the
   * re-check).
   */
  readonly schema?: FieldSchema;
}

/** What {@link toSql} gives. */
export interface SqlFilter {
  /** A boolean SQL expression over the column, with placeholders `$1 … $n`, to put after `WHERE`. */
  readonly sql: string;
  /**
   * The values of the placeholders, all text: every key and literal of the filter is in them, none
   * is in `sql`. A value the filter repeats is bound once; the keys of a path of six or more are
   * bound together, as the text of a PostgreSQL array (`{"a","b"}`); a literal that writes bytes
   * that are not UTF-8 (`"\xa9"`) is bound as their hex. A mutable array of its own (each call
   * makes a new one), as `pg`'s `client.query(text, values)` takes it.
   */
  readonly params: string[];
  /**
   * True when the rows selected are exactly the rows the compiled filter accepts and no row would
   * raise an evaluation error; false when they are a superset that the caller re-checks with the
   * compiled filter (which also raises the reference's errors on the rows that have them).
   */
  readonly exact: boolean;
}

/** Quotes `name` as a PostgreSQL identifier. */
export function quoteIdentifier(name: string): string {
  if (name === "" || name.includes("\u0000")) throw new TypeError("a column name must be a non-empty text without NUL");
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Translates a filter (its source, its parsed expression, or a compiled `Filter`) into a
 * PostgreSQL expression over a JSONB column. A compiled filter's schema is not read: give the
 * same `schema` in the options for typed mode.
 *
 * @throws FilterSyntaxError for a source that does not parse; TypeError for bad options.
 */
export function toSql(filter: string | Expression | { readonly expression: Expression }, options: SqlOptions = {}): SqlFilter {
  const expression = typeof filter === "string" ? parse(filter) : "kind" in filter ? filter : filter.expression;
  const offset = options.paramOffset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new TypeError("paramOffset must be a whole number from 0");
  const parameters = new Parameters(offset);
  const column = quoteIdentifier(options.column ?? "doc");
  const clause = translate(expression, column, parameters, options.schema);
  const exact = !clause.undecided;
  // An exact typed filter also says, as containments a GIN index answers, what its rows must hold.
  const containments = exact && options.schema !== undefined ? necessaryContainments(expression, options.schema) : [];
  const conditions = [...containments.map((json) => `${column} @> ${parameters.text(json)}::jsonb`), `(${clause.sql}) <> 0`];
  return { sql: conditions.join(" AND "), params: parameters.values, exact };
}

/**
 * The containments (`doc @> {...}`) that every accepted row of an exact typed filter satisfies:
 * one per clause of its top-level `and` that is `field == literal` on a string, integer or bool
 * field, or `literal in list` on a list of those, reached through objects and maps. A GIN index
 * (`jsonb_path_ops`) finds the rows that hold them. Floats are left out: the engine compares them
 * as doubles, which jsonb equality is not.
 */
function necessaryContainments(expression: Expression, schema: FieldSchema): string[] {
  const clauses = expression.kind === "And" ? expression.operands : [expression];
  const containments: string[] = [];
  for (const clause of clauses) {
    if (clause.kind !== "Match" || !("value" in clause) || (clause.operator !== "Equal" && clause.operator !== "In")) continue;
    const leaf = schemasAlong(schema, clause.selector.path)?.at(-1);
    const scalar = clause.operator === "Equal" ? leaf : typeof leaf === "object" && leaf.kind === "array" ? leaf.items : undefined;
    const value = typeof scalar === "string" ? jsonScalar(scalar, clause.value.raw) : undefined;
    if (value === undefined) continue;
    // A field that is missing or null at any depth holds a zero value the clause may accept
    // (`Status == ""`): then the containment is not necessary, and is left out.
    if (absentAnswers(clause, schema).some(({ missing, isNull }) => missing !== 0 || isNull !== 0)) continue;
    const wrapped = clause.operator === "Equal" ? value : `[${value}]`;
    containments.push(clause.selector.path.reduceRight((inner, key) => `{${JSON.stringify(key)}:${inner}}`, wrapped));
  }
  return containments;
}

/** The literal as the JSON a field of `kind` holds when it equals it, or undefined (no containment for that kind, or a literal that does not read). */
function jsonScalar(kind: string, raw: string): string | undefined {
  if (UNSTORABLE.test(raw)) return undefined;
  switch (kind) {
    case "string":
      return JSON.stringify(raw);
    case "int":
    case "uint":
      return integerLiteral(kind, raw);
    case "bool": {
      const parsed = parseGoBool(raw);
      return parsed.ok ? String(parsed.value) : undefined;
    }
    default:
      return undefined;
  }
}
