/**
 * The reference's own Go client (`github.com/hashicorp/nomad/api` at the pinned commit, vendored in
 * test/go-client/api/) against the agent in the nomad header style: scripts/go-client.sh builds
 * main.go with Debian's Go, and the program makes every call of the client on the routes the agent
 * serves, each answer decoded by the client itself, one line a call (`ok <name>` or `fail <name>:
 * <error>`). Without Go (or the Debian packages of Go source it builds with) the test is skipped
 * with one line, unless `BEXPR_TEST_REQUIRE_GO=1` (set by .ci/run, which installs them) makes
 * that a failure.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Agent } from "../../src/server/index.js";
import { startTestAgent } from "../agent/support.js";

/** Set by .ci/run: a machine without Go fails this test instead of skipping it. */
const REQUIRE_VARIABLE = "BEXPR_TEST_REQUIRE_GO";
const required = process.env[REQUIRE_VARIABLE] === "1";
const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = join(ROOT, "scripts/go-client.sh");

/** The Debian packages the build needs that are not installed (`golang-go` first when Go is not), as the build script names them. */
const missing = (spawnSync("bash", [SCRIPT, "--missing"], { encoding: "utf8" }).stdout ?? "golang-go").split("\n").filter((line) => line !== "");
const available = missing.length === 0;
const MISSING_TEXT = `${missing.includes("golang-go") ? "go is not installed" : "Go's packages are missing"} (apt-get install ${missing.join(" ")}; see test/go-client/README.md)`;
if (!available && !required) console.warn(`test/go-client skipped: ${MISSING_TEXT}; set ${REQUIRE_VARIABLE}=1 to make that a failure`);

/**
 * The calls whose routes the agent does not serve yet (issue 38, section 1): the program makes
 * them last, with arguments that make sense once they are served, and each must fail today. When
 * a route is served, its calls pass, and this test fails until their names are removed here.
 */
const EXPECTED_UNSERVED: readonly string[] = [];

/**
 * How many calls the program passes today, at least: a run with fewer stopped early (a call it
 * depends on failed, and it skipped what followed).
 */
const MIN_PASSED = 212;

/** Building takes seconds on a quiet machine (a minute at most on a loaded one without Go's build cache). */
const BUILD_TIMEOUT_MS = 300_000;
/** The program moves the agent's clock rather than waiting; its blocking queries wait 15 s at most. */
const RUN_TIMEOUT_MS = 120_000;

/** The program's lines: each call's name and its error, `undefined` when it passed. */
function parseLines(stdout: string): Map<string, string | undefined> {
  const calls = new Map<string, string | undefined>();
  for (const line of stdout.split("\n")) {
    if (line.startsWith("ok ")) calls.set(line.slice(3), undefined);
    else if (line.startsWith("fail ")) {
      const at = line.indexOf(": ");
      calls.set(line.slice(5, at < 0 ? undefined : at), at < 0 ? "" : line.slice(at + 2));
    }
  }
  return calls;
}

describe.skipIf(!available && !required)("the reference's Go client", () => {
  // Made when the test runs: a skipped suite's body is still collected, but its hooks do not run.
  let directory: string | undefined;
  let agent: Agent | undefined;
  afterAll(async () => {
    await agent?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  it(
    "passes every call on the routes the agent serves, and fails only those it does not serve yet",
    async () => {
      if (!available) throw new Error(`${REQUIRE_VARIABLE}=1 but ${MISSING_TEXT}`);
      directory = mkdtempSync(join(tmpdir(), "bexpr-go-client-"));
      const binary = join(directory, "go-client");
      const build = spawnSync("bash", [SCRIPT, binary], { encoding: "utf8", timeout: BUILD_TIMEOUT_MS });
      expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);

      // ACLs on (the program bootstraps them), the manual clock (the program moves it), three nodes, a second namespace.
      agent = await startTestAgent({
        port: 0,
        demo: false,
        logLevel: "silent",
        headers: "nomad",
        clock: "manual",
        placementDelayMs: 1000,
        nodes: 3,
        acl: { enabled: true },
        namespaces: [{ Name: "prod" }],
      });
      // Asynchronous: the agent answers the program on this process's event loop.
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done, fail) => {
        const child = spawn(binary, ["-addr", agent!.url], { stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
        const timer = setTimeout(() => child.kill(), RUN_TIMEOUT_MS);
        child.on("error", fail);
        child.on("close", (status) => {
          clearTimeout(timer);
          done({ status, stdout, stderr });
        });
      });
      const calls = parseLines(run.stdout);
      expect(run.stderr).toBe("");
      // The program exits 1 when any call or step failed (a panic exits 2): with none expected to fail, it exits 0.
      expect(run.status, run.stdout).toBe(EXPECTED_UNSERVED.length === 0 ? 0 : 1);

      const failed = [...calls].filter(([name, error]) => error !== undefined && !EXPECTED_UNSERVED.includes(name)).map(([name, error]) => `${name}: ${error}`);
      expect(failed, "calls on served routes that failed").toEqual([]);
      const nowServed = EXPECTED_UNSERVED.filter((name) => calls.has(name) && calls.get(name) === undefined);
      expect(nowServed, "calls now served: remove them from EXPECTED_UNSERVED").toEqual([]);
      expect(EXPECTED_UNSERVED.filter((name) => !calls.has(name)), "expected calls the program did not make").toEqual([]);
      const passed = [...calls.values()].filter((error) => error === undefined).length;
      // The program covers the client's surface on the served routes (see main.go); fewer lines mean it stopped early.
      expect(passed, run.stdout).toBeGreaterThanOrEqual(MIN_PASSED);
    },
    BUILD_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );
});
