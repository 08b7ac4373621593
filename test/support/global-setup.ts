/**
 * The suite's set-up (vitest's `globalSetup`), so that `npm test` alone runs every test the
 * machine allows:
 *
 * - unless `BEXPR_TEST_POSTGRES_URL` is already set (to a server's URL, or empty for none), it
 *   starts a throw-away PostgreSQL server of Debian's programs when they are installed
 *   (scripts/postgres-server.ts: a temporary directory for the data, log and unix socket, a free
 *   port, as the `postgres` user when run as root), names it in `BEXPR_TEST_POSTGRES_URL` for
 *   the test processes, and stops and deletes it at the end;
 * - it prints one line saying what the run skips, and why, when a program some tests need is
 *   missing (test/support/machine.ts lists them).
 *
 * Each project of vitest.config.ts inherits the set-up (`extends: true`), and vitest runs each
 * project's in turn in its own process: the first does the work, the others find it done.
 *
 * @module
 */
import { ThrowawayPostgres } from "../../scripts/postgres-server.js";
import { POSTGRES_URL_VARIABLE } from "../sql/databases.js";
import { missingParts, OPTIONAL_PARTS, POSTGRES_PROGRAMS, skipLine } from "./machine.js";

/** The variable that makes a server that cannot be started a failure of the run (.ci/run sets it). */
const REQUIRE_POSTGRES_VARIABLE = "BEXPR_TEST_REQUIRE_POSTGRES";

/** The database the tests use on the throw-away server (each test in schemas of its own). */
const DATABASE = "bexpr_test";

/** Marks the set-up done for the projects that follow the first (one process, one global object). */
const DONE = Symbol.for("bexpr.test.global-setup");

export default async function setup(): Promise<(() => void) | undefined> {
  const global = globalThis as { [DONE]?: true };
  if (global[DONE]) return undefined;
  global[DONE] = true;

  const missing = missingParts(OPTIONAL_PARTS);
  const line = skipLine(missing);
  if (line !== undefined) console.warn(line);
  if (process.env[POSTGRES_URL_VARIABLE] !== undefined || missing.includes(POSTGRES_PROGRAMS)) return undefined;

  let server: ThrowawayPostgres;
  try {
    server = await ThrowawayPostgres.start();
    const created = await server.run("createdb", ["-h", "127.0.0.1", "-p", String(server.port), "-U", "postgres", DATABASE]);
    if (created.status !== 0) {
      server.remove();
      throw new Error(`createdb failed:\n${created.output}`);
    }
  } catch (error) {
    if (process.env[REQUIRE_POSTGRES_VARIABLE] === "1") throw error;
    console.warn(`bexpr's tests: no PostgreSQL server could be started (${(error as Error).message.split("\n")[0]}); the SQL and agent-on-postgres tests run on PGlite alone, the cluster tests are skipped`);
    return undefined;
  }
  // Removed on any exit too (an interrupted run does not reach the teardown); remove() is synchronous.
  const remove = () => server.remove();
  process.once("exit", remove);
  process.env[POSTGRES_URL_VARIABLE] = server.url(DATABASE);
  return () => {
    process.off("exit", remove);
    remove();
  };
}
