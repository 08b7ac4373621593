import { defineConfig } from "vitest/config";
import { ExpectedDurationSequencer } from "./test/support/sequencer.js";

/**
 * The tests of the engine alone: no sockets, processes, timers or global state, so they run
 * without a fresh module graph per file (vitest's isolation), and the engine's modules load once
 * per worker. Loading them again for every file was most of their time (test/parser,
 * test/editor, test/semantics and test/evaluator: 60 s isolated, 21 s without), and module loading
 * was 283 s of a 633 s run of the whole suite on a quiet 2-core machine.
 */
const ENGINE_TESTS = [
  "test/parser/**/*.test.ts",
  "test/editor/**/*.test.ts",
  "test/semantics/**/*.test.ts",
  "test/evaluator/**/*.test.ts",
  "test/properties/**/*.test.ts",
  // (test/sql/semantics.test.ts imports the semantics tables' files to declare their rows and tests
  // again: it needs a module graph of its own, and stays in "all".)
  "test/sql/{databases,size,to-sql,unicode}.test.ts",
  "test/safety/{complete,cost,engine-inputs,json-memory,patterns}.test.ts",
  "test/{golden,operators,json,limits,errors-doc,grammar-files,readme,readme-editor,bench-table}.test.ts",
];

/**
 * The tests of the agent over a real socket: run twice, on its own store and on PostgreSQL. They
 * run without isolation too: the agent keeps no module state but prom-client's one process
 * registry (made once, on purpose), each file starts and closes its own agents on free ports, and
 * none mocks a module or the clock. Loading fastify and the agent again for each of the 77 files,
 * twice, was most of the suite's remaining import time (205 s of a 514 s run on a quiet 2-core
 * machine; the PostgreSQL project alone went from 188 s to 98 s), and the files of a worker share
 * one PGlite instance where each had its own.
 */
const AGENT_TESTS = ["test/agent/**/*.test.ts", "test/safety/agent-*.test.ts", "test/nomad-api/**/*.test.ts"];

export default defineConfig({
  test: {
    // Agent tests open real sockets; keep runs predictable on a 2-core machine.
    pool: "forks",
    // A throw-away PostgreSQL server where the machine has its programs (unless BEXPR_TEST_POSTGRES_URL
    // is set: to a server's URL, or empty for none), and one line naming what the run skips.
    globalSetup: ["./test/support/global-setup.ts"],
    // Longest first, in a clean clone too (test/durations.json): see test/support/sequencer.ts.
    sequence: { sequencer: ExpectedDurationSequencer },
    // Two test files at a time: vitest's default on 2 cores is one (cores − 1), but most files
    // spend their time waiting on sockets, child processes and the database, so a second
    // keeps both cores busy. Every test holds on a loaded machine (a CPU-heavy process beside it).
    maxWorkers: 2,
    testTimeout: 20_000,
    // Set-up hooks start agents, browsers and databases, or write large inputs: seconds alone,
    // many times that on a loaded 2-core machine (vitest's default is 10 s).
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "engine", include: ENGINE_TESTS, isolate: false } },
      { extends: true, test: { name: "agent", include: AGENT_TESTS, isolate: false } },
      { extends: true, test: { name: "all", include: ["test/**/*.test.ts"], exclude: [...ENGINE_TESTS, ...AGENT_TESTS] } },
      {
        extends: true,
        // The same agent tests with the state in PostgreSQL: the server BEXPR_TEST_POSTGRES_URL
        // names (the set-up starts one), or PGlite when none is named (see test/agent/support.ts).
        // PGlite runs every statement on the test's own thread: a test does several times the work it does in memory.
        test: { name: "agent on postgres", include: AGENT_TESTS, isolate: false, env: { BEXPR_TEST_AGENT_STORE: "postgres" }, testTimeout: 60_000 },
      },
    ],
  },
});
