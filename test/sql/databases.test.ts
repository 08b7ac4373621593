/** The SQL test databases work, on PGlite and on the server named by BEXPR_TEST_POSTGRES_URL. */
import { beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "./databases.js";

describeEachDatabase("test databases", (db) => {
  beforeAll(() => db.exec("create table docs (id int primary key, doc jsonb not null)"));

  it("runs select version()", async () => {
    expect(await db.query("select version()")).toEqual([{ version: expect.stringMatching(/^PostgreSQL \d+/) }]);
  });

  it("keeps an int64 beyond 2^53 in a jsonb document exact", async () => {
    await db.query("insert into docs (id, doc) values (1, $1::text::jsonb)", ['{"n": 9007199254740993, "s": "x"}']);
    expect(await db.query("select doc::text as doc, doc->>'n' as n from docs where id = 1")).toEqual([
      { doc: '{"n": 9007199254740993, "s": "x"}', n: "9007199254740993" },
    ]);
  });

  it("returns every type as the text PostgreSQL sent, without parsing it", async () => {
    const rows = await db.query(
      `select 9007199254740993::int8 as int8, 0.10::numeric as numeric, '{"n": 9007199254740993}'::json as json,
        '{"n": 9007199254740993}'::jsonb as jsonb, 1::int4 as int4, true as bool, array[9007199254740993::int8] as int8s,
        null::int8 as missing`,
    );
    expect(rows).toEqual([
      {
        int8: "9007199254740993",
        numeric: "0.10",
        json: '{"n": 9007199254740993}',
        jsonb: '{"n": 9007199254740993}',
        int4: "1",
        bool: "t",
        int8s: "{9007199254740993}",
        missing: null,
      },
    ]);
  });

  it("works in a schema of its own on the server, so that test files running at once do not meet", async () => {
    const [row] = await db.query("select current_schema() as schema");
    expect(row?.schema).toMatch(db.name === "postgres" ? /^bexpr_test_[0-9a-f]{16}$/ : /^public$/);
  });
});
