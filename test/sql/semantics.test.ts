/**
 * The semantics tables (test/semantics) held against `toSql` on real PostgreSQL: each table's value
 * is stored as a row, and every row of the table must agree with the evaluator as in
 * to-sql.test.ts (1 only on acceptance, 0 only on rejection, 2 on every error). The table files are
 * imported so that their rows are declared (their own tests run here too); syntax errors are left
 * to the parser's tests.
 */
import { expect, it } from "vitest";
import "../semantics/coercion.test.js";
import "../semantics/collections.test.js";
import "../semantics/json-arrays.test.js";
import "../semantics/missing-keys.test.js";
import "../semantics/null.test.js";
import "../semantics/operators.test.js";
import "../semantics/regex.test.js";
import "../semantics/typed-mode.test.js";
import { OUTCOME_TABLES } from "../semantics/support.js";
import { describeEachDatabase } from "./databases.js";
import { expectAgreement, load } from "./agreement.js";

describeEachDatabase("the semantics tables through toSql", (db) => {
  it("has the tables", () => {
    expect(OUTCOME_TABLES.length).toBeGreaterThanOrEqual(20);
  });

  it("agrees with the evaluator on every row of every table", async () => {
    let rows = 0;
    for (const [i, table] of OUTCOME_TABLES.entries()) {
      await load(db, `semantics_${i}`, [table.value]);
      for (const [source, expected] of table.rows) {
        if (typeof expected === "string" && expected.startsWith("syntax:")) continue;
        await expectAgreement(db, `semantics_${i}`, source, table.schema);
        rows++;
      }
    }
    expect(rows).toBeGreaterThan(300);
  });
});
