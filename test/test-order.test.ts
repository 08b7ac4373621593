/**
 * The order the suite's files start in (test/support/sequencer.ts): longest first, from vitest's
 * record of the last run when there is one, else from test/durations.json, which must name the
 * suite's own files and projects.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { TestSpecification, Vitest } from "vitest/node";
import { describe, expect, it } from "vitest";
import { DURATIONS_FILE, durationKey, ExpectedDurationSequencer, type Durations } from "./support/sequencer.js";

const ROOT = resolve(import.meta.dirname, "..");
const PROJECTS = ["engine", "agent", "all", "agent on postgres"];

/** A sequencer over a root and what vitest's record says of the last run. */
function sequencer(root: string, last: Readonly<Record<string, { duration: number; failed: boolean }>>): ExpectedDurationSequencer {
  const ctx = { config: { root }, cache: { getFileTestResults: (key: string) => last[key] } };
  return new ExpectedDurationSequencer(ctx as unknown as Vitest);
}

const spec = (project: string, path: string) => ({ project: { name: project }, moduleId: join(ROOT, path) }) as unknown as TestSpecification;
const named = (files: readonly TestSpecification[]) => files.map((file) => `${file.project.name}:${file.moduleId.slice(ROOT.length + 1)}`);

describe("the order of the test files", () => {
  const recorded = JSON.parse(readFileSync(join(ROOT, DURATIONS_FILE), "utf8")) as Durations;

  it("is recorded for the suite's own files and projects, in seconds", () => {
    expect(Object.keys(recorded).length).toBeGreaterThan(20);
    for (const [key, seconds] of Object.entries(recorded)) {
      const [project, path] = [key.slice(0, key.lastIndexOf(":")), key.slice(key.lastIndexOf(":") + 1)];
      expect(PROJECTS, key).toContain(project);
      expect(existsSync(join(ROOT, path)), key).toBe(true);
      expect(seconds, key).toBeGreaterThan(0);
    }
  });

  it("names a file as vitest's record does: project, a colon, the path from the root", () => {
    expect(durationKey("agent on postgres", "/r", "/r/test/agent/lists.test.ts")).toBe("agent on postgres:test/agent/lists.test.ts");
  });

  it("in a clean clone, is the record's, longest first, each project's files together", async () => {
    const [longest, shorter] = Object.entries(recorded)
      .filter(([key]) => key.startsWith("all:"))
      .sort(([, a], [, b]) => b - a)
      .map(([key]) => key.slice("all:".length));
    const files = [spec("engine", "test/golden.test.ts"), spec("all", "test/test-order.test.ts"), spec("all", shorter!), spec("all", longest!), spec("agent", "test/agent/lists.test.ts")];
    expect(named(await sequencer(ROOT, {}).sort(files))).toEqual([
      "agent:test/agent/lists.test.ts",
      `all:${longest}`,
      `all:${shorter}`,
      "all:test/test-order.test.ts",
      "engine:test/golden.test.ts",
    ]);
  });

  it("takes the last run's durations over the record, and starts what failed first", async () => {
    const files = [spec("all", "a.test.ts"), spec("all", "b.test.ts"), spec("all", "c.test.ts")];
    const last = { "all:a.test.ts": { duration: 1_000, failed: false }, "all:b.test.ts": { duration: 9_000, failed: false }, "all:c.test.ts": { duration: 10, failed: true } };
    expect(named(await sequencer(ROOT, last).sort(files))).toEqual(["all:c.test.ts", "all:b.test.ts", "all:a.test.ts"]);
  });
});
