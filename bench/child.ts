/**
 * One measurement of `npm run bench`, in a process of its own (so that no other measurement has
 * warmed up or polluted what it measures). `node child.js <case> alone|after` times one filter on
 * 100,000 job list items, alone or after the other filters have run in the same process;
 * `node child.js compile` times compiling every filter, the same string again and again and distinct
 * strings of its shape (no cache can answer). The rows are bench/data.ts's job list items. It prints one JSON line.
 *
 * bexpr is imported as a user gets it (the bundled dist/, by the package's own name).
 */
import { parse as celParse } from "@marcbachmann/cel-js";
import { compileFilter, parse, type Filter } from "bexpr";
import { compileExpression as filtrexCompile } from "filtrex";
import { CASES, distinctVariant, kilobyteFilter, type Case, type Job } from "./cases.js";
import { jobListItems } from "./data.js";
import { median } from "./stats.js";

const OBJECTS = 100_000;
const WARMUP_PASSES = 5;
const TIMED_PASSES = 9;

type Predicate = (job: Job) => unknown;

/**
 * Median nanoseconds per object of each pass (one pass over `count` objects), after warm-up
 * passes. The contenders take turns, round after round, each round starting with the next one,
 * so that none is favoured or penalised by its place (the heap, the caches and the JIT move under
 * them; a pass right after a full collection shares the cores with the collector's threads, and
 * with a fixed order it was always `test()`'s).
 */
function hot<K extends string>(passes: Record<K, (() => number) | null>, count: number): Record<K, number | null> {
  const names = (Object.keys(passes) as K[]).filter((name) => passes[name] !== null);
  for (let i = 0; i < WARMUP_PASSES; i++) for (const name of names) passes[name]!();
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < TIMED_PASSES; round++) {
    for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      (globalThis as { gc?: () => void }).gc?.();
      const start = process.hrtime.bigint();
      passes[name]!();
      samples[name].push(Number(process.hrtime.bigint() - start) / count);
    }
  }
  const out = {} as Record<K, number | null>;
  for (const name of Object.keys(passes) as K[]) out[name] = passes[name] === null ? null : median(samples[name]);
  return out;
}

// One loop per contender, so that no call site is shared between them.
function testLoop(jobs: readonly Job[], filter: Filter<Job>): number {
  let count = 0;
  for (let i = 0; i < jobs.length; i++) if (filter.test(jobs[i]!)) count++;
  return count;
}

function handLoop(jobs: readonly Job[], predicate: (job: Job) => boolean): number {
  let count = 0;
  for (let i = 0; i < jobs.length; i++) if (predicate(jobs[i]!)) count++;
  return count;
}

function celLoop(jobs: readonly Job[], predicate: Predicate): number {
  let count = 0;
  for (let i = 0; i < jobs.length; i++) if (predicate(jobs[i]!) === true) count++;
  return count;
}

function filtrexLoop(jobs: readonly Job[], predicate: Predicate): number {
  let count = 0;
  for (let i = 0; i < jobs.length; i++) if (predicate(jobs[i]!) === true) count++;
  return count;
}

/** A peer's predicate, or null when it cannot express the filter or counts differently. */
function peer(jobs: readonly Job[], expected: number, loop: (jobs: readonly Job[], predicate: Predicate) => number, make: () => Predicate): Predicate | null {
  try {
    const predicate = make();
    return loop(jobs, predicate) === expected ? predicate : null;
  } catch {
    return null;
  }
}

function evaluation(c: Case, after: boolean): Record<string, number | null> {
  const jobs = jobListItems(OBJECTS);
  if (after) {
    // The other filters run first, as in a process that serves many of them (and the hand-written
    // loop runs their predicates, so that both loops have seen several).
    for (const other of CASES) {
      if (other === c) continue;
      const filter = compileFilter<Job>(other.filter);
      for (let i = 0; i < 3; i++) {
        filter.filter(jobs);
        testLoop(jobs, filter);
        handLoop(jobs, other.handWritten);
      }
    }
  }
  const expected = handLoop(jobs, c.handWritten);
  const filter = compileFilter<Job>(c.filter);
  let start = process.hrtime.bigint();
  const cold = testLoop(jobs, filter);
  const coldTestNs = Number(process.hrtime.bigint() - start) / jobs.length;
  if (cold !== expected) throw new Error(`${c.name}: bexpr matched ${cold}, the hand-written predicate ${expected}`);
  const other = compileFilter<Job>(c.filter);
  start = process.hrtime.bigint();
  other.filter(jobs);
  const coldFilterNs = Number(process.hrtime.bigint() - start) / jobs.length;
  const cel = c.cel === undefined ? null : peer(jobs, expected, celLoop, () => celParse(c.cel!) as Predicate);
  const filtrex = c.filtrex === undefined ? null : peer(jobs, expected, filtrexLoop, () => filtrexCompile(c.filtrex!) as Predicate);
  const figures = hot(
    {
      testNs: () => testLoop(jobs, filter),
      predicateNs: () => handLoop(jobs, c.handWritten),
      filterNs: () => other.filter(jobs).length,
      arrayFilterNs: () => jobs.filter(c.handWritten).length,
      celNs: cel === null ? null : () => celLoop(jobs, cel),
      filtrexNs: filtrex === null ? null : () => filtrexLoop(jobs, filtrex),
    },
    jobs.length,
  );
  return { matches: expected, coldTestNs, coldFilterNs, ...figures };
}

/** Median microseconds of `run`, over batches after a warm-up. */
function microseconds(run: () => unknown): number {
  // Warm: compiling is measured in a steady state, as in a service that compiles filters all day.
  const batch = 1_000;
  for (let i = 0; i < 3 * batch; i++) run();
  const samples: number[] = [];
  for (let pass = 0; pass < 9; pass++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) run();
    samples.push(Number(process.hrtime.bigint() - start) / batch / 1000);
  }
  return median(samples);
}

/**
 * Median microseconds of `run` over distinct inputs (`make(i)`, made before timing): each call
 * sees a string it has never seen, so that no cache by source text answers.
 */
function distinctMicroseconds(make: (i: number) => string, run: (source: string) => unknown): number {
  const batch = 1_000;
  const passes = 9;
  const warm = 3 * batch;
  const sources = Array.from({ length: warm + passes * batch }, (_, i) => make(i));
  for (let i = 0; i < warm; i++) run(sources[i]!);
  const samples: number[] = [];
  for (let pass = 0; pass < passes; pass++) {
    const start = process.hrtime.bigint();
    for (let i = warm + pass * batch; i < warm + (pass + 1) * batch; i++) run(sources[i]!);
    samples.push(Number(process.hrtime.bigint() - start) / batch / 1000);
  }
  return median(samples);
}

function compiling(): Record<string, Record<string, number | null>> {
  const out: Record<string, Record<string, number | null>> = {};
  for (const c of [...CASES, { name: "kilobyte", filter: kilobyteFilter(), cel: undefined, filtrex: undefined }]) {
    out[c.name] = {
      parseUs: microseconds(() => parse(c.filter)),
      compileUs: microseconds(() => compileFilter(c.filter)),
      celParseUs: c.cel === undefined ? null : microseconds(() => celParse(c.cel!)),
      filtrexCompileUs: c.filtrex === undefined ? null : microseconds(() => filtrexCompile(c.filtrex!)),
      compileDistinctUs: distinctMicroseconds((i) => distinctVariant(c.filter, i), (source) => compileFilter(source)),
      celParseDistinctUs: c.cel === undefined ? null : distinctMicroseconds((i) => distinctVariant(c.cel!, i), (source) => celParse(source)),
    };
  }
  return out;
}

const [what, mode] = process.argv.slice(2);
if (what === "compile") {
  console.log(JSON.stringify(compiling()));
} else {
  const c = CASES.find((candidate) => candidate.name === what);
  if (c === undefined || (mode !== "alone" && mode !== "after")) throw new Error(`usage: child.js <case> alone|after, or child.js compile`);
  console.log(JSON.stringify(evaluation(c, mode === "after")));
}
