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
 * This is the first part of the translation: map mode (documents as JSON, no schema), with
 * equality, `in`/`contains`, emptiness, nil tests and boolean logic translated exactly, and
 * `matches`, `any`/`all` and paths through lists left to the re-check. Typed mode (`schema`),
 * regular expressions and index-friendly forms come next.
 *
 * @packageDocumentation
 * @module bexpr/sql
 */
import type { Expression } from "../ast.js";
import { parse } from "../parser/parse.js";
import { Parameters, translate } from "./translate.js";

/** Options of {@link toSql}. */
export interface SqlOptions {
  /** The JSONB column holding each document (default `doc`); quoted as an identifier, whatever it holds. */
  readonly column?: string;
  /** Placeholders start after this many (default 0: `$1`), to put the SQL beside parameters of your own. */
  readonly paramOffset?: number;
}

/** What {@link toSql} gives. */
export interface SqlFilter {
  /** A boolean SQL expression over the column, with placeholders `$1 … $n`, to put after `WHERE`. */
  readonly sql: string;
  /** The values of the placeholders, all text: every key and literal of the filter is one, none is in `sql`. */
  readonly params: readonly string[];
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
 * Translates a filter (its source, or its parsed expression) into a PostgreSQL expression over a
 * JSONB column.
 *
 * @throws FilterSyntaxError for a source that does not parse; TypeError for bad options.
 */
export function toSql(filter: string | Expression, options: SqlOptions = {}): SqlFilter {
  const expression = typeof filter === "string" ? parse(filter) : filter;
  const offset = options.paramOffset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new TypeError("paramOffset must be a whole number from 0");
  const parameters = new Parameters(offset);
  const clause = translate(expression, quoteIdentifier(options.column ?? "doc"), parameters);
  return { sql: `(${clause.sql}) <> 0`, params: parameters.values, exact: !clause.undecided };
}
