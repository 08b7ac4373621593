/**
 * The suite's set-up (test/support/global-setup.ts): `npm test` alone runs on a PostgreSQL server
 * of its own where the machine has PostgreSQL's programs, and the one line it prints about what a
 * run skips names every optional part of the suite (test/support/machine.ts).
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { OPTIONAL_PARTS, POSTGRES_PROGRAMS, skipLine, type OptionalPart } from "./support/machine.js";
import { POSTGRES_URL_VARIABLE } from "./sql/databases.js";

const ROOT = resolve(import.meta.dirname, "..");

/** The files of test/ that skip tests for a reason other than a missing program, with the reason. */
const NOT_FOR_THE_MACHINE: Readonly<Record<string, string>> = {
  "test/nomad-api/support.ts": "a header style the agent does not take",
  "test/nomad-api/ported.ts": "the reference's tests not ported, each named with its reason",
  "test/scheduler/reconcile-cluster-ported.ts": "the reference's tests not ported",
  "test/scheduler/reconcile-cluster-properties.test.ts": "the reference's tests not ported",
  "test/scheduler/reconcile-node.test.ts": "the reference's tests not ported",
  "test/codemirror/bundle.test.ts": "dist/ not built (npm test builds it first)",
  "test/stress/pushdown.stress.ts": "npm run test:stress, not npm test",
  "test/agent/list-lane.test.ts": "the project: memory or PostgreSQL store",
  "test/agent/sql-pages.property.test.ts": "the project: memory or PostgreSQL store",
  "test/agent/event-stream.test.ts": "the project: memory or PostgreSQL store",
  "test/agent/postgres-store.test.ts": "the project: memory or PostgreSQL store",
  "test/agent/shared-state.test.ts": "the project: memory or PostgreSQL store",
  "test/agent/read-lists.test.ts": "the project: memory or PostgreSQL store",
  "test/agent/periodic.test.ts": "the project: memory or PostgreSQL store",
  "test/safety/agent-hostile.test.ts": "the project: memory or PostgreSQL store",
  "test/agent/operator-raft.test.ts": "the project: memory or PostgreSQL store",
};

/** Every .ts file under `directory`, from the checkout's root. */
function typescriptFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => relative(ROOT, join(ROOT, directory, name)));
}

const part = (name: string, requireVariable?: string): OptionalPart => ({ name, packages: name.toLowerCase(), skips: `the ${name} tests`, files: [], requireVariable, present: () => false });

describe("the suite's set-up", () => {
  it("names, among the optional parts, every file of test/ that skips tests for a missing program", () => {
    const named = new Set(OPTIONAL_PARTS.flatMap((optional) => optional.files));
    const skipping = typescriptFiles("test").filter((file) => !file.startsWith("test/support/") && file !== "test/test-setup.test.ts" && /\.(skipIf|runIf)\(|\bit\.skip\(|context\.skip\(/.test(readFileSync(join(ROOT, file), "utf8")));
    expect(skipping.length).toBeGreaterThan(10);
    expect(skipping.filter((file) => !named.has(file) && NOT_FOR_THE_MACHINE[file] === undefined)).toEqual([]);
    for (const file of [...named, ...Object.keys(NOT_FOR_THE_MACHINE)]) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it("says nothing when nothing is missing, and one line naming each missing part, its package and what skips otherwise", () => {
    expect(skipLine([])).toBeUndefined();
    const line = skipLine([part("Chromium", "BEXPR_TEST_REQUIRE_CHROMIUM"), part("Go")], {});
    expect(line).not.toContain("\n");
    expect(line).toBe("bexpr's tests: no Chromium (apt-get install chromium) skips the Chromium tests; no Go (apt-get install go) skips the Go tests.");
  });

  it("says that a missing part fails the run when its variable requires it", () => {
    expect(skipLine([part("Chromium", "BEXPR_TEST_REQUIRE_CHROMIUM")], { BEXPR_TEST_REQUIRE_CHROMIUM: "1" })).toBe("bexpr's tests: no Chromium (apt-get install chromium) fails the Chromium tests (BEXPR_TEST_REQUIRE_CHROMIUM=1).");
  });

  // Without BEXPR_TEST_POSTGRES_URL set by hand, the set-up starts the server; set empty, it starts none.
  it.runIf(POSTGRES_PROGRAMS.present() && process.env[POSTGRES_URL_VARIABLE] !== "")("runs the tests on a PostgreSQL server of its own where the machine has PostgreSQL's programs", async () => {
    const url = process.env[POSTGRES_URL_VARIABLE];
    expect(url).toMatch(/^postgres:\/\//);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ server_version: string }>("SHOW server_version");
      expect(rows[0]!.server_version).toMatch(/^\d+/);
    } finally {
      await client.end();
    }
  });
});
