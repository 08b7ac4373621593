/**
 * `toSql` held against the evaluator on a real database, row by row: the helpers the SQL tests
 * share (to-sql.test.ts, the semantics tables, the Unicode and size properties).
 */
import { expect } from "vitest";
import type { Expression } from "../../src/ast.js";
import type { FieldSchema } from "../../src/evaluator/schema.js";
import { compileFilter, FilterEvaluationError } from "../../src/index.js";
import { parseJson, stringifyJson } from "../../src/json.js";
import { parse } from "../../src/parser/parse.js";
import { print } from "../../src/parser/printer.js";
import { toSql } from "../../src/sql/index.js";
import { Parameters } from "../../src/sql/clauses.js";
import { translate } from "../../src/sql/translate.js";
import type { TestDatabase } from "./databases.js";

/** What the compiled filter does on a row: accepts it, rejects it, or raises an evaluation error. */
export type Outcome = "true" | "false" | "error";

/** What the compiled filter does on a document (in typed mode with `schema`): its answer, or `error` for an evaluation error. */
export function outcome(source: string | Expression, document: unknown, schema?: FieldSchema): Outcome {
  try {
    return compileFilter(source, schema === undefined ? {} : { schema }).test(document) ? "true" : "false";
  } catch (error) {
    if (error instanceof FilterEvaluationError) return "error";
    throw error;
  }
}

/** The three-valued answer of the SQL for each row (`sql` is `(value) <> 0`), and the documents as the database gives them back. */
async function answers(db: TestDatabase, table: string, source: string | Expression, schema?: FieldSchema): Promise<{ id: number; value: number; document: unknown }[]> {
  const parameters = new Parameters(0);
  const value = translate(typeof source === "string" ? parse(source) : source, '"doc"', parameters, schema).sql;
  const rows = await db.query(`select id::text as id, (${value})::text as value, doc::text as doc from ${table} order by id`, parameters.values);
  return rows.map((row) => ({ id: Number(row.id), value: Number(row.value), document: parseJson(String(row.doc)) }));
}

/** Every row agrees: 1 only on acceptance, 0 only on rejection, 2 on every error. */
export async function expectAgreement(db: TestDatabase, table: string, source: string | Expression, schema?: FieldSchema): Promise<void> {
  const { sql, params, exact } = toSql(source, schema === undefined ? {} : { schema });
  const selected = new Set((await db.query(`select id::text as id from ${table} where ${sql}`, params)).map((row) => Number(row.id)));
  for (const row of await answers(db, table, source, schema)) {
    const result = outcome(source, row.document, schema);
    const where = `${typeof source === "string" ? source : print(source)} on ${stringifyJson(row.document)}`;
    expect([0, 1, 2], where).toContain(row.value);
    if (row.value === 1) expect(result, where).toBe("true");
    if (row.value === 0) expect(result, where).toBe("false");
    if (result === "error") expect(row.value, where).toBe(2);
    // An exact typed filter's index conditions hold on every accepted row of the schema's shape;
    // a row of another shape (undecided) may fail them. Otherwise every row that is not 0 is selected.
    if (exact && schema !== undefined && row.value === 2) continue;
    expect(selected.has(row.id), where).toBe(row.value !== 0);
  }
}

/** Stores `documents` (values, or JSON texts as written) in a new table. */
export async function load(db: TestDatabase, table: string, documents: readonly unknown[]): Promise<void> {
  await db.exec(`create table ${table} (id int primary key, doc jsonb not null)`);
  for (const [i, document] of documents.entries()) {
    await db.query(`insert into ${table} (id, doc) values ($1::text::int, $2::text::jsonb)`, [String(i), typeof document === "string" ? document : stringifyJson(document)]);
  }
}

