/**
 * `toSql` against the evaluator, on real PostgreSQL (PGlite, and the server CI names): for every
 * row, the SQL's three-valued answer must agree with what the compiled filter does on the row as
 * the database gives it back: `1` only where the filter accepts, `0` only where it rejects, and `2`
 * wherever it raises. The rows selected, re-checked with the compiled filter, are then exactly the
 * rows it accepts, and the re-check raises wherever the filter raises. Random filters × random
 * documents, every map-mode golden scenario, and the traps named by the issue.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { compileFilter, FilterSyntaxError } from "../../src/index.js";
import { parseJson, stringifyJson } from "../../src/json.js";
import { parse } from "../../src/parser/parse.js";
import { toSql } from "../../src/sql/index.js";
import { deploymentSchema, jobSchema } from "../golden/schemas.js";
import { datumArb, expressionArb, schemaArb } from "../support/arbitraries.js";
import { expectAgreement, load } from "./agreement.js";
import { describeEachDatabase } from "./databases.js";

/**
 * Documents as JSON text the database keeps as written: numbers in lists (compared as the text the
 * engine prints them as, `5.0` as `5`), null and maps in lists, fractions whose double is whole.
 */
const NUMBER_TRAPS = [
  '{"Tags": [50, "x"], "Priority": 5.0, "Score": 0.10000000000000000555}',
  '{"Tags": [5.0], "Priority": 1152921504606846976.5, "Score": 0.5}',
  '{"Tags": [null, "50"], "Priority": 9007199254740993, "Score": 1e2}',
  '{"Tags": ["50", null], "Priority": -0.0, "Score": 100.0}',
  '{"Tags": [{"a": 1}, "dc1"], "Priority": 9223372036854775807, "Score": 1.5}',
  '{"Tags": [true, 0.5], "Priority": 9223372036854775808, "Score": -0.25}',
];

const DOCUMENTS = fc.sample(datumArb, { numRuns: 60, seed: 20261124 });

const GOLDEN = join(import.meta.dirname, "../golden");
const goldenData = {
  jobs: parseJson(readFileSync(join(GOLDEN, "jobs.json"), "utf8")) as unknown[],
  deployments: parseJson(readFileSync(join(GOLDEN, "deployments.json"), "utf8")) as unknown[],
};
const goldenSchemas = { jobs: jobSchema, deployments: deploymentSchema };
const goldenCases = readdirSync(join(GOLDEN, "scenarios"))
  .filter((file) => file.endsWith(".json"))
  .flatMap((file) => {
    const scenario = parseJson(readFileSync(join(GOLDEN, "scenarios", file), "utf8")) as { mode: string; data: "jobs" | "deployments"; cases: { filter: string; error?: { phase: string } }[] };
    return scenario.cases.filter((c) => c.error?.phase !== "syntax").map((c) => [file, scenario.mode, scenario.data, c.filter] as const);
  });

const NUMBER_FILTERS = [
  '"50" in Tags',
  '"5" in Tags',
  '"0.5" in Tags',
  '"true" in Tags',
  '"dc1" in Tags',
  "Priority == 5",
  "Priority == 1152921504606846976",
  "Priority == 9007199254740993",
  "Priority == 0",
  "Priority == 9223372036854775807",
  'Priority == "9223372036854775808"',
  "Score == 0.1",
  "Score == 100",
  'Score == "1e2"',
];

const TRAPS = [
  // A missing key under a map gives each operator its fixed result; a missing top-level key is an error.
  'Meta.owner != "x"',
  '"x" not in Meta.owner',
  "Meta.owner is not empty",
  'Meta.owner not matches "x"',
  "Meta.nope is nil",
  'Nope == "x"',
  // in: substring, key, element; the empty string is in every string.
  '"" in Name',
  '"owner" in Meta',
  '"dc1" in Tags',
  '"50" in Tags',
  '"true" in Tags',
  // The literal read as the value's kind: ParseInt base 0, ParseBool, ParseFloat.
  'Priority == "0x32"',
  'Priority == "062"',
  'Priority == "50"',
  "Priority == 50.0",
  "Score == 0.5",
  'Score == "5e-1"',
  "Stop == T",
  "Stop == yes",
  "Priority == 1152921504606846976",
  // Patterns that are plain text search are answered in SQL; others are left to the re-check.
  'Name matches "^web"',
  'Name matches "api$"',
  "Name matches `^web-api$`",
  "Name matches `a\\.b`",
  'Name matches ""',
  'Name matches "^$"',
  'Status matches "unn" and not (Name matches "^/")',
  "Name matches `^w.b`",
  // Short-circuit: the error on the right is reached only where the left does not decide.
  'Status == "dead" and Nope == 1',
  'Status == "dead" or Nope == 1',
  'not (Status == "running")',
];

describeEachDatabase("toSql", (db) => {
  beforeAll(async () => {
    await load(db, "docs", DOCUMENTS);
    await load(db, "golden_jobs", goldenData.jobs);
    await load(db, "golden_deployments", goldenData.deployments);
    await load(db, "numbers", NUMBER_TRAPS);
  });

  it.each(NUMBER_FILTERS)("agrees on %s over numbers as the database keeps them", async (source) => {
    await expectAgreement(db, "numbers", source);
  });

  it("agrees with the compiled filter on random filters and documents, row by row", async () => {
    await fc.assert(
      fc.asyncProperty(expressionArb, async (expression) => {
        await expectAgreement(db, "docs", expression);
      }),
      { numRuns: 150, seed: 11 },
    );
  });

  it.each(TRAPS)("agrees on %s", async (source) => {
    await expectAgreement(db, "docs", source);
  });

  it.each(goldenCases)("agrees on the golden scenario %s (%s mode, %s): %s", async (_file, mode, data, source) => {
    await expectAgreement(db, `golden_${data}`, source, mode === "typed" ? goldenSchemas[data] : undefined);
  });

  it("agrees in typed mode on random schemas, filters and documents, row by row", async () => {
    await fc.assert(
      fc.asyncProperty(schemaArb, expressionArb, async (schema, expression) => {
        await expectAgreement(db, "docs", expression, schema);
      }),
      { numRuns: 100, seed: 12 },
    );
  });

  it.each([
    'Status == "running"',
    '"dc1" in Datacenters',
    "Priority == 50",
    "Stop == false",
    'Type == "service" and not (Status == "dead")',
    "Meta is empty or Datacenters is not empty",
    'Meta.owner == "team-a"',
    '"owner" in Meta',
    "SubmitTime == 1717000000123456789",
    "Name matches `^web-`",
  ])("is exact for %s in typed mode: the rows selected are the rows accepted", async (source) => {
    const { sql, params, exact } = toSql(source, { schema: jobSchema });
    expect(exact).toBe(true);
    const selected = (await db.query(`select doc::text as doc from golden_jobs where ${sql} order by id`, params)).map((row) => parseJson(String(row.doc)));
    expect(selected).toEqual(compileFilter(source, { schema: jobSchema }).filter(goldenData.jobs));
  });

  it("keeps every key and literal out of the SQL", () => {
    const { sql, params } = toSql(`"a'b; drop table docs; --" in Meta["x\\x22y"] and Status == "; select 1"`, { column: 'my"col', paramOffset: 3 });
    expect(sql).not.toMatch(/drop|select 1|a'b|x"y/);
    expect(sql).toContain('"my""col"');
    expect(sql).toMatch(/\$4::text/);
    expect(sql).not.toMatch(/\$[1-3]::/);
    expect(params).toContain("a'b; drop table docs; --");
    expect(params).toContain('x"y');
  });

  it("takes a source, a parsed expression or a compiled filter alike", () => {
    const source = 'Status == "running" and "dc1" in Datacenters';
    const expected = toSql(source, { schema: jobSchema });
    expect(toSql(parse(source), { schema: jobSchema })).toEqual(expected);
    expect(toSql(compileFilter(source, { schema: jobSchema }), { schema: jobSchema })).toEqual(expected);
  });

  it.each(["valueOf", "constructor", "toString", "hasOwnProperty"])("translates a field named %s as any field the schema lacks, not as a property of every object", (name) => {
    const unknown = toSql('Stauts == "x"', { schema: jobSchema });
    expect(toSql(`${name} == "x"`, { schema: jobSchema })).toEqual({ ...unknown, params: unknown.params.map((param) => (param === "Stauts" ? name : param)) });
  });

  it("is exact for filters that decide every row, and says so", () => {
    expect(toSql('Status == "running"').exact).toBe(false); // map mode: a row may hold a list there, an error
    expect(() => toSql("Status ==")).toThrow(FilterSyntaxError);
  });

  it("lets a GIN jsonb_path_ops index find the rows of an exact typed filter", async () => {
    await db.exec("create table indexed (id int primary key, doc jsonb not null); create index indexed_doc on indexed using gin (doc jsonb_path_ops)");
    for (const [i, job] of goldenData.jobs.entries()) await db.query("insert into indexed (id, doc) values ($1::text::int, $2::text::jsonb)", [String(i), stringifyJson(job)]);
    const { sql, params, exact } = toSql('Status == "running" and "dc1" in Datacenters', { schema: jobSchema });
    expect(exact).toBe(true);
    await db.exec("set enable_seqscan = off");
    try {
      const plan = (await db.query(`explain select id from indexed where ${sql}`, params)).map((row) => String(row["QUERY PLAN"])).join("\n");
      expect(plan).toContain("indexed_doc");
    } finally {
      await db.exec("set enable_seqscan = on");
    }
    const selected = await db.query(`select doc::text as doc from indexed where ${sql} order by id`, params);
    expect(selected.map((row) => parseJson(String(row.doc)))).toEqual(compileFilter('Status == "running" and "dc1" in Datacenters', { schema: jobSchema }).filter(goldenData.jobs));
  });
});
