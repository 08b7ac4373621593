/**
 * The `bexpr/sql` section of `npm run bench` (also alone: `npm run bench:sql`): 100,000 job
 * documents in PostgreSQL (the embedded PGlite, PostgreSQL 17), the S, M and C filters pushed down
 * with `toSql` (typed mode, the job list item's schema, and map mode), without and with a GIN
 * `jsonb_path_ops` index, against loading every row and filtering it in JavaScript with the
 * compiled filter. Each figure is the median of a few runs, in milliseconds per query; rows/s is
 * the documents a query covers per second. Figures are printed and returned, never asserted.
 */
import { PGlite } from "@electric-sql/pglite";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { compileFilter } from "../src/index.js";
import { jobListItem } from "../src/schemas.js";
import { parseJson, stringifyJson } from "../src/json.js";
import { toSql } from "../src/sql/index.js";
import { CASES } from "./cases.js";
import { jobListItems } from "./data.js";
import { median } from "./stats.js";

/** Documents stored. */
const DOCUMENTS = 100_000;
/** Documents per insert statement. */
const INSERT_CHUNK = 5_000;
/** Measured runs of each query (after one warm-up run). */
const RUNS = 5;

/** One filter's figures. */
export interface SqlCaseFigures {
  readonly filter: string;
  readonly mode: "typed" | "map";
  readonly exact: boolean;
  readonly rows: number;
  /** Loading every row and filtering in JavaScript, ms. */
  readonly loadAndFilterMs: number;
  /** `toSql` (plus the re-check when not exact), without an index, ms. */
  readonly pushedMs: number;
  /** The same with the GIN `jsonb_path_ops` index, ms. */
  readonly indexedMs: number;
  /** loadAndFilterMs / indexedMs. */
  readonly indexedSpeedup: number;
}

/** The section's figures. */
export interface SqlFigures {
  readonly documents: number;
  readonly database: string;
  readonly cases: readonly SqlCaseFigures[];
}


async function timed(run: () => Promise<number>): Promise<{ ms: number; rows: number }> {
  await run();
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    rows = await run();
    times.push(performance.now() - start);
  }
  return { ms: median(times), rows };
}

/** Runs the section and prints its figures. */
export async function sqlBench(): Promise<SqlFigures> {
  const db = await PGlite.create();
  try {
    // Every value as the text PostgreSQL sent (PGlite would parse jsonb with JSON.parse and lose
    // int64 values): the documents are parsed by the engine's lossless JSON.
    const oids = (await db.query<{ oid: number }>("select oid::int4 as oid from pg_catalog.pg_type")).rows;
    const parsers = Object.fromEntries(oids.map(({ oid }) => [oid, (value: string) => value]));
    const query = async (sql: string, params: readonly unknown[] = []) => (await db.query<Record<string, string>>(sql, [...params], { parsers })).rows;
    const [{ version }] = (await query("select version() as version")) as [{ version: string }];
    await db.exec("create table jobs (id int primary key, doc jsonb not null)");
    const items = jobListItems(DOCUMENTS);
    for (let start = 0; start < items.length; start += INSERT_CHUNK) {
      const chunk = items.slice(start, start + INSERT_CHUNK).map((item) => stringifyJson(item));
      await query(`insert into jobs (id, doc) select $1::int + ordinality::int, value from jsonb_array_elements($2::text::jsonb) with ordinality`, [start, `[${chunk.join(",")}]`]);
    }
    await db.exec("analyze jobs");
    console.log(`\nbexpr/sql: ${DOCUMENTS.toLocaleString("en")} job documents in ${version.split(" on ")[0]} (PGlite), ms per query (median of ${RUNS}), rows/s in parentheses`);

    // The S, M and C filters match many rows (S half of them); a selective filter and a lookup of one
    // job show what an index is for.
    const filters = [
      ...CASES.filter((c) => ["S", "M", "C"].includes(c.label)).map((c) => ({ label: c.label, filter: c.filter })),
      { label: "selective", filter: 'Namespace == "prod" and Status == "dead" and Priority == 70 and Meta.owner == "team-a"' },
      { label: "lookup", filter: `ID == "${items[4242]!.ID}"` },
    ];
    const measure = async () => {
      const figures: { filter: string; source: string; mode: "typed" | "map"; exact: boolean; rows: number; ms: number }[] = [];
      for (const testCase of filters) {
        for (const mode of ["typed", "map"] as const) {
          const options = mode === "typed" ? { schema: jobListItem } : {};
          const { sql, params, exact } = toSql(testCase.filter, options);
          const filter = compileFilter(testCase.filter, options);
          const { ms, rows } = await timed(async () => {
            const found = (await query(`select doc::text as doc from jobs where ${sql}`, params)).map((row) => parseJson(row.doc!));
            return (exact ? found : filter.filter(found)).length;
          });
          figures.push({ filter: testCase.label, source: testCase.filter, mode, exact, rows, ms });
        }
      }
      return figures;
    };
    const pushed = await measure();
    await db.exec("create index jobs_doc on jobs using gin (doc jsonb_path_ops); analyze jobs");
    const indexed = await measure();

    const cases: SqlCaseFigures[] = [];
    for (const [i, plain] of pushed.entries()) {
      const filter = compileFilter(plain.source, plain.mode === "typed" ? { schema: jobListItem } : {});
      const load = await timed(async () => filter.filter((await query("select doc::text as doc from jobs")).map((row) => parseJson(row.doc!))).length);
      if (load.rows !== plain.rows || indexed[i]!.rows !== plain.rows) throw new Error(`${plain.filter} (${plain.mode}): the pushed-down query found ${plain.rows} rows, load-and-filter ${load.rows}`);
      const figures: SqlCaseFigures = {
        filter: plain.filter,
        mode: plain.mode,
        exact: plain.exact,
        rows: plain.rows,
        loadAndFilterMs: load.ms,
        pushedMs: plain.ms,
        indexedMs: indexed[i]!.ms,
        indexedSpeedup: load.ms / indexed[i]!.ms,
      };
      cases.push(figures);
      const rate = (ms: number) => `${Math.round((DOCUMENTS / ms) * 1000).toLocaleString("en")}/s`;
      console.log(
        `${plain.filter} ${plain.mode.padEnd(5)} ${plain.exact ? "exact" : "re-checked"} ${String(plain.rows).padStart(6)} rows: load and filter ${load.ms.toFixed(0).padStart(5)} ms (${rate(load.ms)}), ` +
          `toSql ${plain.ms.toFixed(0).padStart(5)} ms (${rate(plain.ms)}), with the GIN index ${indexed[i]!.ms.toFixed(0).padStart(5)} ms (${rate(indexed[i]!.ms)}): ${figures.indexedSpeedup.toFixed(1)}× faster than load and filter`,
      );
    }
    return { documents: DOCUMENTS, database: version.split(" on ")[0]!, cases };
  } finally {
    await db.close();
  }
}

// Run alone (`npm run bench:sql`): write the figures under `sql` in bench/results.json.
if (process.argv[1] !== undefined && resolve(process.argv[1]).endsWith("bench/sql.js")) {
  const figures = await sqlBench();
  const path = resolve(import.meta.dirname, "../../bench/results.json");
  const results = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  writeFileSync(path, `${JSON.stringify({ ...results, sql: figures }, null, 2)}\n`);
  console.log(`wrote the sql figures to ${path}`);
}
