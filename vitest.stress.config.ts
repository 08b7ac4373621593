import { defineConfig } from "vitest/config";

/**
 * The stress suite (`npm run test:stress`): long versions of the safety tests, which print figures.
 * It is not part of `npm test` and CI never runs it. Files run one after another, each in its own
 * process, so that their timings do not disturb each other on a 2-core machine; `--expose-gc` lets
 * them measure heap growth after a collection.
 */
export default defineConfig({
  test: {
    include: ["test/stress/**/*.stress.ts"],
    pool: "forks",
    fileParallelism: false,
    execArgv: ["--expose-gc"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
