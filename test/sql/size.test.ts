/**
 * Issue 25, finding 5: the SQL of `toSql` must grow in proportion to the filter, and nest no
 * deeper than a database can parse. A 2,000-segment selector (a 4 KB filter) was written as 31 MB
 * of SQL in 4.9 s, 5,000 segments as 208 MB (every key restated the path before it), and a chain
 * of 300 clauses nested 300 CASEs deep, which overflowed PGlite's stack and killed the instance.
 * Sizes are asserted, not times.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Expression } from "../../src/ast.js";
import { MAX_CLAUSES } from "../../src/limits.js";
import { print } from "../../src/parser/printer.js";
import { toSql } from "../../src/sql/index.js";
import { MAX_INDEX_KEYS, MAX_SQL_DEPTH } from "../../src/sql/translate.js";
import { jobSchema } from "../golden/schemas.js";
import { expectAgreement, load } from "./agreement.js";
import { hostileExpressionArb } from "./arbitraries.js";
import { describeEachDatabase } from "./databases.js";

/** The time of a test that PGlite plans several megabytes of SQL for (seconds each on a loaded machine). */
const LARGE_SQL_TIMEOUT_MS = 60_000;

/** How many characters of SQL one character of filter may cost at most: the smallest clauses cost the most (`a == 5` is 6 characters and about 950 of SQL). */
const SQL_PER_FILTER_CHARACTER = 200;

/** How deep `sql` nests, in parentheses. */
function nesting(sql: string): number {
  let level = 0;
  let deepest = 0;
  for (const character of sql) {
    if (character === "(") deepest = Math.max(deepest, ++level);
    else if (character === ")") level--;
  }
  return deepest;
}

/** A selector of `count` keys, each `key`, after `head`. */
const path = (head: string, key: string, count: number): string => [head, ...Array<string>(count - 1).fill(key)].join(".");

/** `levels` parentheses deep, the nested part first in each chain and negated, as `((… or x) and x) …`: two levels of SQL a parenthesis before the depth limit. */
function nestedFirst(levels: number): string {
  let source = 'a.b == "x"';
  for (let i = 0; i < levels; i++) source = `${i % 2 ? "not " : ""}(${source}) ${i % 2 ? "and" : "or"} a.b != ${i}`;
  return source;
}

/** `levels` parentheses deep, the nested part last in each chain. */
function nestedLast(levels: number): string {
  let source = 'a.b == "x"';
  for (let i = 0; i < levels; i++) source = `a.b == ${i} ${i % 2 ? "and" : "or"} not (a.b != "x" ${i % 2 ? "or" : "and"} ${source})`;
  return source;
}

const LONG_SELECTORS = [
  ["a.a.a…", `${path("a", "a", 5_000)} == "x"`],
  ["the JSON-pointer form", `"/${Array<string>(5_000).fill("a").join("/")}" == "x"`],
  ["keys of every kind", `a${Array.from({ length: 4_999 }, (_, i) => `["${["x", "é", "中", "x y", "1x"][i % 5]}"]`).join("")} contains "x"`],
  ["keys PostgreSQL reads as list indexes", `${path("a", "0", 5_000)} == "x"`],
  ["as many index keys as walked one by one, among many", `${path("a", "0", MAX_INDEX_KEYS + 1)}.${path("b", "c", 5_000 - MAX_INDEX_KEYS - 1)} == 5`],
] as const;

describe("the size of toSql's SQL", () => {
  it.each(LONG_SELECTORS)("is less than 20 times the filter's for a 5,000-segment selector: %s", (_name, source) => {
    for (const options of [{}, { schema: jobSchema }]) {
      const { sql } = toSql(source, options);
      expect(sql.length).toBeLessThan(20 * source.length);
    }
  });

  it(`is at most ${SQL_PER_FILTER_CHARACTER} times the filter's, and nests at most ${MAX_SQL_DEPTH} levels, for filters of every shape and size`, () => {
    fc.assert(
      fc.property(hostileExpressionArb, fc.boolean(), (expression, typed) => {
        const source = print(expression);
        const { sql, params } = toSql(expression, typed ? { schema: jobSchema } : {});
        expect(sql.length).toBeLessThanOrEqual(SQL_PER_FILTER_CHARACTER * source.length);
        // Two levels more: toSql's own `(…) <> 0` around the clause.
        expect(nesting(sql)).toBeLessThanOrEqual(MAX_SQL_DEPTH + 2);
        // PostgreSQL takes at most 65,535 parameters, half of the longest filter's 131,072 characters.
        expect(params.length).toBeLessThanOrEqual(source.length / 2);
      }),
      { numRuns: 150, seed: 25 },
    );
  });

  it("binds each key and literal once, however often the filter repeats it", () => {
    const { params } = toSql(`${path("a", "a", 100)} == "a" or "a" in a.a`);
    expect(params).toHaveLength(2); // the path's keys as one array, and "a"
  });
});

const DOCUMENTS = [
  { a: { a: { a: "x" }, b: "x" } },
  { a: "x" },
  { a: [{ a: "x" }] },
  { a: { "0": { "0": "x" } } },
  { a: { b: "y" } },
  { a: { b: 5, x: { x: "x" } } },
  { Meta: { "😀": "x" } },
  {},
];

describeEachDatabase("toSql's SQL for hostile filters", (db) => {
  beforeAll(async () => {
    await load(db, "hostile", DOCUMENTS);
  });

  it.each(LONG_SELECTORS)("runs and agrees for a 5,000-segment selector: %s", async (_name, source) => {
    await expectAgreement(db, "hostile", source);
  });

  it.each(["and", "or"])(`runs and agrees for ${MAX_CLAUSES} clauses joined by %s`, async (joiner) => {
    const clauses = Array.from({ length: MAX_CLAUSES }, (_, i) => (i % 3 === 0 ? `a.b != "${i}"` : i % 3 === 1 ? `not ("${i}" in a.b)` : "a.b is not empty"));
    await expectAgreement(db, "hostile", clauses.join(` ${joiner} `));
  }, LARGE_SQL_TIMEOUT_MS);

  it.each([
    ["first", nestedFirst],
    ["last", nestedLast],
  ] as const)("runs and agrees for parentheses nested 127 deep, the nested part %s", async (_position, nest) => {
    await expectAgreement(db, "hostile", nest(127));
  });

  it("agrees on random hostile filters", async () => {
    await fc.assert(
      fc.asyncProperty(hostileExpressionArb, async (expression: Expression) => {
        await expectAgreement(db, "hostile", expression);
      }),
      { numRuns: 20, seed: 26 },
    );
  }, LARGE_SQL_TIMEOUT_MS);
});
