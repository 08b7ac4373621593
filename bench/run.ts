/**
 * `npm run bench`: evaluation speed of compiled filters against hand-written JavaScript
 * predicates on the same 100,000 job list items, plus parse and compile times.
 *
 * Each measurement is the median of several timed passes after warm-up passes. Figures are
 * printed, never asserted: speed is measured here, not in tests.
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { compileFilter, parse } from "../src/index.js";
import { jobListItems } from "./data.js";
import { benchLimits } from "./limits.js";

/** Where the figures are written, for the README's tables and for comparing runs. */
const RESULTS_PATH = "bench/results.json";

const OBJECTS = 100_000;
const WARMUP_PASSES = 5;
const TIMED_PASSES = 15;

interface Case {
  readonly name: string;
  readonly filter: string;
  readonly handWritten: (job: Job) => boolean;
}

type Job = ReturnType<typeof jobListItems>[number];

const cases: Case[] = [
  {
    name: "simple",
    filter: 'Status == "running"',
    handWritten: (job) => job.Status === "running",
  },
  {
    name: "medium",
    filter: '"dc1" in Datacenters and Priority == 50 and not Stop == true',
    handWritten: (job) => job.Datacenters.includes("dc1") && job.Priority === 50 && !(job.Stop === true),
  },
  {
    name: "complex",
    filter:
      '(Status == "running" or Status == "pending") and Namespace == "default" and Name matches "^web" and ' +
      'JobSummary.Summary["web-api"].Running == 3 and "dc1" in Datacenters and not Stop == true and ' +
      'Type != "batch" and Meta.owner == "team-a"',
    handWritten: (job) =>
      (job.Status === "running" || job.Status === "pending") &&
      job.Namespace === "default" &&
      /^web/.test(job.Name) &&
      job.JobSummary.Summary["web-api"]?.Running === 3 &&
      job.Datacenters.includes("dc1") &&
      !(job.Stop === true) &&
      job.Type !== "batch" &&
      job.Meta.owner === "team-a",
  },
  {
    name: "collection",
    filter: '(any Datacenters as dc { dc matches "^dc[12]$" }) and (all Meta as k, v { v != "" })',
    handWritten: (job) => job.Datacenters.some((dc) => /^dc[12]$/.test(dc)) && Object.values(job.Meta).every((v) => v !== ""),
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median nanoseconds per call of `run` (which does `perPass` units of work). */
function measure(run: () => unknown, perPass: number, passes = TIMED_PASSES): number {
  for (let i = 0; i < WARMUP_PASSES; i++) run();
  const samples: number[] = [];
  for (let i = 0; i < passes; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    const start = process.hrtime.bigint();
    run();
    samples.push(Number(process.hrtime.bigint() - start) / perPass);
  }
  return median(samples);
}

function loop(jobs: readonly Job[], predicate: (job: Job) => boolean): number {
  let count = 0;
  for (let i = 0; i < jobs.length; i++) if (predicate(jobs[i]!)) count++;
  return count;
}

function main(): void {
  const results: Record<string, unknown> = {
    machine: { node: process.version, cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, date: new Date().toISOString() },
  };
  const evaluation: Record<string, unknown> = {};
  const compile: Record<string, unknown> = {};
  const jobs = jobListItems(OBJECTS);
  console.log(`bexpr benchmark: ${OBJECTS.toLocaleString("en")} job list items, Node ${process.version}, median of ${TIMED_PASSES} passes\n`);
  console.log("evaluation (ns per object): bexpr filter.filter(jobs) against jobs.filter(predicate),");
  console.log("and filter.test(job) against predicate(job) in the same counting loop\n");
  console.log("case        matches   filter()   Array#filter   ratio    test()   predicate   ratio");
  for (const c of cases) {
    const filter = compileFilter<Job>(c.filter);
    const expected = jobs.filter(c.handWritten).length;
    const got = filter.filter(jobs).length;
    if (got !== expected) throw new Error(`${c.name}: bexpr matched ${got}, the hand-written predicate ${expected}`);
    const viaFilter = measure(() => filter.filter(jobs), jobs.length);
    const viaArray = measure(() => jobs.filter(c.handWritten), jobs.length);
    const test = (job: Job) => filter.test(job);
    const viaTest = measure(() => loop(jobs, test), jobs.length);
    const viaPredicate = measure(() => loop(jobs, c.handWritten), jobs.length);
    const cells = [
      c.name.padEnd(11),
      String(expected).padStart(7),
      viaFilter.toFixed(1).padStart(10),
      viaArray.toFixed(1).padStart(14),
      `${(viaFilter / viaArray).toFixed(2)}×`.padStart(7),
      viaTest.toFixed(1).padStart(9),
      viaPredicate.toFixed(1).padStart(11),
      `${(viaTest / viaPredicate).toFixed(2)}×`.padStart(7),
    ];
    console.log(cells.join(" "));
    evaluation[c.name] = { filterNs: viaFilter, arrayFilterNs: viaArray, testNs: viaTest, predicateNs: viaPredicate };
  }

  console.log("\nparse and compile (µs per filter)");
  console.log("case        parse    compileFilter");
  for (const c of cases) {
    const parseTime = measure(() => {
      for (let i = 0; i < 200; i++) parse(c.filter);
    }, 200 * 1000);
    const compileTime = measure(() => {
      for (let i = 0; i < 200; i++) compileFilter(c.filter);
    }, 200 * 1000);
    console.log(`${c.name.padEnd(11)} ${parseTime.toFixed(1).padStart(6)}   ${compileTime.toFixed(1).padStart(12)}`);
    compile[c.name] = { parseUs: parseTime, compileUs: compileTime };
  }

  Object.assign(results, { evaluation, compile, limits: benchLimits() });
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${RESULTS_PATH}`);
}

main();
