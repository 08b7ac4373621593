/**
 * The order in which vitest starts the test files: longest first, so that the last files to run
 * are short ones and neither worker waits long for the other at the end (the longest-first rule
 * of scheduling on two machines).
 *
 * vitest does this itself from the durations of the last run, which it keeps in
 * `node_modules/.vite/vitest`; a clean clone (CI, a new contributor) has none, and vitest then
 * starts the files in the order it found them. There `test/durations.json`, the durations of a
 * full run on a quiet 2-core machine (`node scripts/test-durations.mjs` writes it from vitest's
 * record), stands in. Measured on a quiet 2-core machine, the same code: `vitest run` took 402 s
 * in the found order and 340 s in the order of the last run. A file the record does not name
 * counts as short; a stale record only makes the order worse, never a result different.
 */
import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Where the record of expected durations is, from the project's root. */
export const DURATIONS_FILE = "test/durations.json";

/** The record's shape: seconds by `project:path` (vitest's own key for a file's results). */
export type Durations = Readonly<Record<string, number>>;

/** Reads the record, or nothing when it is missing or unreadable (the order is then only worse). */
function readDurations(root: string): Durations {
  try {
    return JSON.parse(readFileSync(`${root}/${DURATIONS_FILE}`, "utf8")) as Durations;
  } catch {
    return {};
  }
}

/** vitest's key for a file's results: `project:path from the root`. */
export function durationKey(projectName: string, root: string, moduleId: string): string {
  return `${projectName}:${moduleId.startsWith(`${root}/`) ? moduleId.slice(root.length + 1) : moduleId}`;
}

/**
 * vitest's sequencer with a record to fall back on: projects in name order (each project's files
 * together, so that a worker without isolation serves them all), files that failed last time
 * first, then the longest first, from the last run when vitest kept one, else from the record.
 */
export class ExpectedDurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const recorded = readDurations(root);
    const facts = new Map(
      files.map((file) => {
        const key = durationKey(file.project.name, root, file.moduleId);
        const last = this.ctx.cache.getFileTestResults(key);
        return [file, { failed: last?.failed === true, seconds: last ? last.duration / 1000 : (recorded[key] ?? 0) }] as const;
      }),
    );
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const factsA = facts.get(a)!;
      const factsB = facts.get(b)!;
      if (factsA.failed !== factsB.failed) return factsA.failed ? -1 : 1;
      return factsB.seconds - factsA.seconds;
    });
  }
}
