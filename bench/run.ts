/**
 * `npm run bench`: evaluation speed against hand-written JavaScript and the peers, compile times,
 * start-up, what the limits promise, the editor calls and browser bundles (bench/editor.ts), the agent under load (bench/agent.ts), bexpr/sql
 * (bench/sql.ts), agents sharing their state through PostgreSQL (bench/cluster.ts, with BENCH_CLUSTER=1) and many agents in
 * one process (bench/many-agents.ts). Every
 * evaluation figure comes from a process of its own (bench/child.ts), run several times for its
 * spread; each filter is measured alone and after the other filters ran in the same process. The figures go to
 * bench/results.json and the README's figures (its speed table, editor figures and agent section). Figures are printed, never asserted: speed is
 * measured here, not in tests.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { agentBench } from "./agent.js";
import { clusterBench } from "./cluster.js";
import { manyAgentsBench } from "./many-agents.js";
import { editorBench } from "./editor.js";
import { sqlBench } from "./sql.js";
import { CASES } from "./cases.js";
import { benchLimits } from "./limits.js";
import { median } from "./stats.js";
import { withReadmeFigures, type BenchResults, type EvaluationFigures, type Spread } from "./report.js";

/** Where the figures are written, for the README's table and for comparing runs. */
const RESULTS_PATH = "bench/results.json";
const README_PATH = "README.md";
/** Processes per measurement. */
const RUNS = 5;
const STARTUP_RUNS = 10;
const OBJECTS = 100_000;

const CHILD = fileURLToPath(new URL("./child.js", import.meta.url));

function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** Runs the child with `args` and parses the JSON line it prints. */
function child(args: readonly string[]): Record<string, unknown> {
  const result = spawnSync(process.execPath, ["--expose-gc", CHILD, ...args], { encoding: "utf8", maxBuffer: 1 << 24 });
  if (result.status !== 0) throw new Error(`child ${args.join(" ")} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** The spread of every figure over the runs (null where a peer could not run the filter). */
function spreads<K extends string>(runs: readonly Record<string, unknown>[], keys: readonly K[]): Record<K, Spread | null> {
  const out = {} as Record<K, Spread | null>;
  for (const key of keys) {
    const values = runs.map((run) => run[key]).filter((value): value is number => typeof value === "number");
    out[key] = values.length === runs.length ? spread(values) : null;
  }
  return out;
}

/** Median milliseconds of running `args` with node, over `runs` processes. */
function startupMs(args: readonly string[]): Spread {
  const samples: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed:\n${result.stderr}`);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return spread(samples);
}

const FIGURES = ["coldTestNs", "coldFilterNs", "testNs", "filterNs", "predicateNs", "arrayFilterNs", "celNs", "filtrexNs"] as const;

/** The figures bench/results.json holds now (none when it is missing or unreadable). */
function previousResults(): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(RESULTS_PATH, "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  console.log(`bexpr benchmark: ${OBJECTS.toLocaleString("en")} job list items, Node ${process.version}, ${RUNS} runs of each measurement\n`);
  const evaluation: Record<string, { label: string; alone: EvaluationFigures; after: EvaluationFigures }> = {};
  console.log("ns per object (median of the runs); ratios to the hand-written loop or Array#filter");
  console.log("case            mode    hand   test() ratio  filter() ratio   cold test()  cel-js  filtrex");
  for (const c of CASES) {
    const figures = {} as Record<"alone" | "after", EvaluationFigures>;
    for (const mode of ["alone", "after"] as const) {
      const runs = Array.from({ length: RUNS }, () => child([c.name, mode]));
      const f = spreads(runs, FIGURES);
      figures[mode] = f;
      const r = (a: Spread | null, b: Spread | null) => (a === null || b === null ? "—" : `${(a.median / b.median).toFixed(2)}×`);
      console.log(
        [
          c.label.padEnd(15),
          mode.padEnd(5),
          f.predicateNs!.median.toFixed(1).padStart(7),
          r(f.testNs, f.predicateNs).padStart(13),
          r(f.filterNs, f.arrayFilterNs).padStart(15),
          r(f.coldTestNs, f.predicateNs).padStart(13),
          r(f.celNs, f.predicateNs).padStart(7),
          r(f.filtrexNs, f.predicateNs).padStart(8),
        ].join(" "),
      );
    }
    evaluation[c.name] = { label: c.label, ...figures };
  }

  console.log("\ncompile (µs per filter, median of the runs)");
  const compileRuns = Array.from({ length: RUNS }, () => child(["compile"]) as Record<string, Record<string, unknown>>);
  const compile: BenchResults["compile"] = {};
  for (const name of Object.keys(compileRuns[0]!)) {
    const s = spreads(
      compileRuns.map((run) => run[name]!),
      ["parseUs", "compileUs", "celParseUs", "filtrexCompileUs", "compileDistinctUs", "celParseDistinctUs"] as const,
    );
    compile[name] = s;
    const worst = (f: Spread | null | undefined) => (f === null || f === undefined ? "—" : `${f.median.toFixed(1)} (max ${f.max.toFixed(1)})`);
    console.log(
      `${name.padEnd(12)} parse ${s.parseUs!.median.toFixed(1).padStart(6)}   compileFilter ${s.compileUs!.median.toFixed(1).padStart(6)}   cel-js ${s.celParseUs?.median.toFixed(1) ?? "—"}   filtrex ${s.filtrexCompileUs?.median.toFixed(1) ?? "—"}` +
        `   distinct strings: compileFilter ${worst(s.compileDistinctUs)}, cel-js ${worst(s.celParseDistinctUs)}, ratio ${s.compileDistinctUs && s.celParseDistinctUs ? `${(s.compileDistinctUs.median / s.celParseDistinctUs.median).toFixed(2)}×` : "—"}`,
    );
  }

  const startup: BenchResults["startup"] = {
    nodeMs: startupMs(["-e", "0"]),
    importMs: startupMs(["--input-type=module", "-e", 'await import("bexpr")']),
    checkMs: startupMs(["dist/cli.js", "check", 'Status == "running"']),
    serverMs: startupMs(["--input-type=module", "-e", 'await import("bexpr/server")']),
  };
  console.log(
    `\nstart-up (ms, median of ${STARTUP_RUNS}): node -e 0 ${startup.nodeMs.median.toFixed(0)}, import("bexpr") ${startup.importMs.median.toFixed(0)}, ` +
      `bexpr check ${startup.checkMs.median.toFixed(0)}, import("bexpr/server") ${startup.serverMs.median.toFixed(0)}`,
  );

  const results: BenchResults = {
    machine: { node: process.version, cpu: cpus()[0]?.model.trim() ?? "unknown", cores: cpus().length, date: new Date().toISOString() },
    runs: RUNS,
    objects: OBJECTS,
    evaluation,
    compile,
    startup,
    limits: benchLimits(),
    editor: await editorBench(),
    agent: await agentBench(),
    sql: await sqlBench(),
    // The cluster's section takes ten minutes or more: it runs with BENCH_CLUSTER=1 (or alone, `npm run bench:cluster`); otherwise its last figures are kept.
    cluster: process.env["BENCH_CLUSTER"] === "1" ? await clusterBench() : previousResults()["cluster"],
    manyAgents: await manyAgentsBench(),
  };
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(README_PATH, withReadmeFigures(readFileSync(README_PATH, "utf8"), results));
  console.log(`\nwrote ${RESULTS_PATH} and the README's figures`);
}

await main();
