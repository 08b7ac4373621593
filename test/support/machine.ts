/**
 * The parts of the suite that need programs of the machine's own (Debian's packages, which
 * `.ci/run` installs): each names the test files that skip without it, the package to install and
 * how its absence is found, the same probe the test files use. The suite's set-up
 * (test/support/global-setup.ts) prints in one line what a run will skip, from this list; the test
 * test/support-machine.test.ts holds that every file of test/ that can skip for a missing program
 * is named here.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { hasChromium } from "../../scripts/chromium.js";
import { postgresBinDir } from "../../scripts/postgres-server.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** One program (or set of packages) some tests need, and what skips without it. */
export interface OptionalPart {
  /** What is missing, in the skip line: `PostgreSQL's programs`. */
  readonly name: string;
  /** The Debian packages that provide it (`apt-get install …`). */
  readonly packages: string;
  /** What skips without it, in the skip line. */
  readonly skips: string;
  /** The test files (from the checkout's root) that skip some or all of their tests without it. */
  readonly files: readonly string[];
  /** The variable that makes its absence a failure instead (set by .ci/run), if there is one. */
  readonly requireVariable?: string;
  /** Whether the machine has it (the probe its tests use). */
  present(): boolean;
}

/** Whether `command --version` runs (spawns it: a missing program gives an error). */
const runs = (command: string): boolean => spawnSync(command, ["--version"], { stdio: "ignore" }).error === undefined;

/** Debian's PostgreSQL programs: the suite's set-up starts a server of them (test/support/global-setup.ts). */
export const POSTGRES_PROGRAMS: OptionalPart = {
  name: "PostgreSQL's programs",
  packages: "postgresql",
  skips: "the real-server half of the SQL and agent-on-postgres tests (PGlite runs them alone), the cluster of agent processes and the fault suite",
  files: ["test/faults/postgres.test.ts", "test/cluster/several-agents.test.ts", "test/agent/pushdown-bounds.test.ts", "test/sql/databases.test.ts", "test/agent/postgres-writers.test.ts"],
  requireVariable: "BEXPR_TEST_REQUIRE_POSTGRES",
  present: () => postgresBinDir() !== undefined,
};

/** Every optional part of the suite, in the order the skip line names them. */
export const OPTIONAL_PARTS: readonly OptionalPart[] = [
  POSTGRES_PROGRAMS,
  {
    name: "Chromium",
    packages: "chromium",
    skips: "the web UI in a browser",
    files: ["test/ui/ui.test.ts", "test/ui/ui-tools.test.ts"],
    requireVariable: "BEXPR_TEST_REQUIRE_CHROMIUM",
    present: hasChromium,
  },
  {
    name: "Neovim",
    packages: "neovim",
    skips: "docs/editors.md's Neovim snippet",
    files: ["test/editors/neovim.test.ts"],
    requireVariable: "BEXPR_TEST_REQUIRE_EDITORS",
    present: () => runs("nvim"),
  },
  {
    name: "Emacs",
    packages: "emacs-nox elpa-eglot",
    skips: "docs/editors.md's Emacs snippets",
    files: ["test/editors/emacs.test.ts"],
    requireVariable: "BEXPR_TEST_REQUIRE_EDITORS",
    present: () => runs("emacs"),
  },
  {
    name: "Go",
    packages: "golang-go and the Go source packages scripts/go-client.sh --missing names",
    skips: "the reference's Go client against the agent",
    files: ["test/go-client/go-client.test.ts"],
    requireVariable: "BEXPR_TEST_REQUIRE_GO",
    present: () => {
      const run = spawnSync("bash", [resolve(ROOT, "scripts/go-client.sh"), "--missing"], { encoding: "utf8" });
      return run.status === 0 && run.stdout.trim() === "";
    },
  },
  {
    name: "Prometheus",
    packages: "prometheus",
    skips: "a Prometheus server scraping the agent and promtool's check of its metrics",
    files: ["test/agent/prometheus-scrape.test.ts", "test/agent/metrics.test.ts"],
    present: () => runs("prometheus") && runs("promtool"),
  },
  {
    name: "wrk",
    packages: "wrk",
    skips: "the benchmark's wrk client against a server",
    files: ["test/bench-wrk.test.ts"],
    present: () => runs("wrk"),
  },
  {
    name: "script",
    packages: "util-linux",
    skips: "the command's colours and progress on a terminal",
    files: ["test/cli/filter.test.ts", "test/cli/streaming.test.ts"],
    present: () => runs("script"),
  },
];

/** The parts of {@link OPTIONAL_PARTS} this machine lacks. */
export function missingParts(parts: readonly OptionalPart[] = OPTIONAL_PARTS): OptionalPart[] {
  return parts.filter((part) => !part.present());
}

/**
 * The one line a run prints about what it skips: undefined when nothing is missing. A part whose
 * `requireVariable` is `1` in `env` is not skipped: its tests fail, and the line says so.
 */
export function skipLine(missing: readonly OptionalPart[], env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (missing.length === 0) return undefined;
  const said = missing.map((part) => {
    const required = part.requireVariable !== undefined && env[part.requireVariable] === "1";
    return `no ${part.name} (apt-get install ${part.packages}) ${required ? `fails ${part.skips} (${part.requireVariable}=1)` : `skips ${part.skips}`}`;
  });
  return `bexpr's tests: ${said.join("; ")}.`;
}

