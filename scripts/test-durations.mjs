/**
 * Writes test/durations.json, the record test/support/sequencer.ts orders a clean clone's test
 * files by: the seconds each file took in the last `vitest run` (vitest keeps them in
 * node_modules/.vite/vitest), for the files that took at least a second. Run it after a full
 * `npm test` on a quiet 2-core machine: `node scripts/test-durations.mjs`.
 *
 * Plain JavaScript, so that it runs without a build.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
/** Shorter files are left out: unnamed files count as short, and run last. */
const SHORTEST_SECONDS = 1;

const cacheRoot = join(ROOT, "node_modules/.vite/vitest");
const durations = {};
for (const directory of readdirSync(cacheRoot)) {
  let record;
  try {
    record = JSON.parse(readFileSync(join(cacheRoot, directory, "results.json"), "utf8"));
  } catch {
    continue;
  }
  for (const [key, { duration }] of record.results) {
    const seconds = Math.round(duration / 100) / 10;
    if (seconds >= SHORTEST_SECONDS) durations[key] = seconds;
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(join(ROOT, "test/durations.json"), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files of at least ${SHORTEST_SECONDS} s`);
