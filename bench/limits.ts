/**
 * What the limits and the cost budget promise, measured: the compile time of the largest filters
 * the default limits allow, the time one cost unit takes on the slowest shapes of work (which
 * sets the default budget), and the time hostile filters take on one realistic job before they
 * finish or spend their budget.
 */
import { compileFilter, FilterEvaluationError, MAX_CLAUSES, MAX_EVALUATION_COST, MAX_SOURCE_LENGTH } from "../src/index.js";
import { median } from "./stats.js";

/** Median of `runs` timings (ms) of `run`, after warming up for `warmupMs` (one run at least). */
function medianMs(run: () => unknown, runs: number, warmupMs = 0): { median: number; max: number } {
  const attempt = () => {
    try {
      run();
    } catch (error) {
      if (!(error instanceof FilterEvaluationError)) throw error;
    }
  };
  const warmUntil = Date.now() + warmupMs;
  do attempt();
  while (Date.now() < warmUntil);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    attempt();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { median: median(samples), max: Math.max(...samples) };
}

/** Clauses joined by ` or `, as many as fit the default limits (a collection counts as two clauses: itself and its body). */
function fill(clause: (i: number) => string, clausesEach = 1): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; parts.length < Math.floor(MAX_CLAUSES / clausesEach); i++) {
    const next = clause(i);
    if (length + next.length + 4 > MAX_SOURCE_LENGTH) break;
    parts.push(next);
    length += next.length + 4;
  }
  return parts.join(" or ");
}

/** The largest filters of several shapes that the default limits accept. */
const LARGEST: readonly (readonly [string, string])[] = [
  ["6,000 short comparisons", fill((i) => `a==${i % 10}`)],
  ["6,000 grouped comparisons", fill((i) => `(a==${i % 10})`)],
  ["128 KiB of nine-segment selectors", fill(() => "a.b.c.d.e.f.g.h.i==1")],
  ["128 KiB of index selectors", fill(() => 'a["x"]["y"]==1')],
  ["3,000 collections", fill(() => "(any a as x {x==1 })", 2)],
  ["6,000 `in` clauses", fill((i) => `"x${i}" in a`)],
  ["one selector of 65,000 segments", `a${".b".repeat(64_998)}==1`],
  ["10,000 instructions of patterns", Array.from({ length: 10 }, (_, i) => `Name matches "${"abcdefghij"[i]}{998}"`).join(" or ")],
];

/** Shapes of work that stress one kind of unit each: the slowest sets the default budget. */
function unitCases(): (readonly [string, string, unknown])[] {
  const list = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
  let deep: unknown = 1;
  for (let i = 0; i < 2_000; i++) deep = { b: deep };
  return [
    ["nested collections", 'any L as a { any L as b { any L as c { "x" in L } } }', { L: list(40, (i) => `v${i}`) }],
    ["a collection over 10,000 strings", 'any L as x { x == "a" }', { L: list(10_000, (i) => `b${i}`) }],
    ["a collection over a 10,000-key map", 'all M as k, v { v != "q" }', { M: Object.fromEntries(list(10_000, (i) => [`k${i}`, `v${i}`] as const)) }],
    ["`in` over 100,000 mixed elements", '"zz" in L', { L: list<unknown>(100_000, (i) => (i % 2 ? i : `b${i}`)) }],
    ["`in` on 1 MiB of text", 'T contains "zzzzzzzzzzzq"', { T: "z".repeat(1 << 20) }],
    ["`.{1000}.{1000}` on 2,000 characters", 'T matches ".{1000}.{1000}"', { T: "a".repeat(2_000) }],
    ["`(?s).{1000}` on 2,000 characters", 'T matches "(?s).{1000}"', { T: "ab\nc".repeat(500) }],
    ["a pattern in a collection of 1,000", 'any L as x { x matches "^[a-z]+[0-9]{3}$" }', { L: list(1_000, (i) => `name${i}`) }],
    ["`is empty` on a 100,000-key map", "M is empty", { M: Object.fromEntries(list(100_000, (i) => [`k${i}`, "v"] as const)) }],
    ["a 2,000-segment path", `a${".b".repeat(2_000)} == 1`, { a: deep }],
  ];
}

/** Hostile filters on one realistic job: each finishes, or stops at its budget. */
const HOSTILE: readonly (readonly [string, string])[] = [
  ["20 nested collections over 3 datacenters", Array.from({ length: 20 }, (_, i) => `any Datacenters as d${i} { `).join("") + 'Datacenters contains "dc9"' + " }".repeat(20)],
  ["`.{1000}.{1000}` on every string field", Array.from({ length: 12 }, (_, i) => `Meta.k${i} matches ".{1000}.{1000}"`).join(" or ")],
  ["6,000 regular-expression clauses", fill(() => 'Name matches "(x+x+)+y"')],
  ["6,000 `in` clauses", fill(() => '"zz" in Datacenters')],
];

/** The job the hostile filters run on: a realistic one, with a few long values. */
const JOB = {
  ID: "web-api",
  Name: "web-api",
  Namespace: "default",
  Status: "running",
  Datacenters: ["dc1", "dc2", "dc3"],
  Meta: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, "a".repeat(200)])),
};

export interface LimitsResults {
  readonly compileMs: Record<string, { median: number; max: number }>;
  readonly nsPerUnit: Record<string, number>;
  readonly hostileMs: Record<string, { median: number; max: number; outcome: string }>;
}

/** Measures and prints. */
export function benchLimits(): LimitsResults {
  console.log("\nthe largest filters the default limits accept: compileFilter (ms, median and max of 7)");
  const compileMs: LimitsResults["compileMs"] = {};
  for (const [name, source] of LARGEST) {
    compileMs[name] = medianMs(() => compileFilter(source), 7);
    console.log(`  ${name.padEnd(36)} ${compileMs[name]!.median.toFixed(1).padStart(7)} ${compileMs[name]!.max.toFixed(1).padStart(7)}`);
  }

  console.log("\nthe cost unit: time per unit charged, on the slowest shapes of work (ns)");
  const nsPerUnit: LimitsResults["nsPerUnit"] = {};
  for (const [name, source, value] of unitCases()) {
    const filter = compileFilter(source, { limits: { maxCost: Number.MAX_SAFE_INTEGER } });
    const units = filter.cost(value);
    // Warmed up: the first calls of re2js's code run before the JIT has compiled it.
    const { median } = medianMs(() => filter.test(value), 15, 200);
    nsPerUnit[name] = (median * 1e6) / units;
    console.log(`  ${name.padEnd(36)} ${String(units).padStart(9)} units ${nsPerUnit[name]!.toFixed(1).padStart(7)} ns/unit`);
  }
  const slowest = Math.max(...Object.values(nsPerUnit));
  console.log(`  slowest ${slowest.toFixed(1)} ns/unit: the default budget of ${MAX_EVALUATION_COST.toLocaleString("en")} units is at most ${((slowest * MAX_EVALUATION_COST) / 1e6).toFixed(1)} ms`);

  console.log("\nhostile filters on one job (ms, median and max of 9)");
  const hostileMs: LimitsResults["hostileMs"] = {};
  for (const [name, source] of HOSTILE) {
    const filter = compileFilter(source);
    let outcome = "finished";
    try {
      filter.test(JOB);
    } catch (error) {
      if (!(error instanceof FilterEvaluationError)) throw error;
      outcome = error.code;
    }
    hostileMs[name] = { ...medianMs(() => filter.test(JOB), 9), outcome };
    console.log(`  ${name.padEnd(36)} ${hostileMs[name]!.median.toFixed(2).padStart(7)} ${hostileMs[name]!.max.toFixed(2).padStart(7)}  ${outcome}`);
  }
  return { compileMs, nsPerUnit, hostileMs };
}
