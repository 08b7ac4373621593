/**
 * The long fuzz of the engine (issue 10, findings 1 to 3 and 11): more than 100,000 generated
 * inputs through every entry point that takes text typed by anyone — parse, validate, complete
 * (at several offsets), format, and compileFilter with test/filter/cost on generated data.
 *
 * The documented contract is that a string never makes them throw anything but a
 * FilterSyntaxError or a FilterEvaluationError, and that every evaluation is metered. The quick
 * versions (test/safety, test/properties) run a few thousand inputs; this one runs many more, with
 * hostile generators the quick ones leave out (deep nesting, clause chains at the limits, heavy
 * patterns, sources at the length limit, lone surrogates), and prints where the time goes: the
 * slowest input of each function, and the worst time per charged cost unit.
 *
 * Failures are collected, not thrown from inside the property: fast-check would shrink inputs of a
 * hundred thousand characters for a long time, and one report of every kind of failure says more.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  compileFilter,
  complete,
  CostBudget,
  FilterEvaluationError,
  FilterSyntaxError,
  format,
  MAX_CLAUSES,
  MAX_EVALUATION_COST,
  MAX_NESTING_DEPTH,
  MAX_SOURCE_LENGTH,
  parse,
  print,
  validate,
  type FieldSchema,
  type Filter,
} from "../../src/index.js";
import { datumArb, expressionArb, schemaArb, sourceArb } from "../support/arbitraries.js";
import { printTable } from "./support.js";

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/** Valid filters: generated trees, printed. */
const validArb = expressionArb.map((expression) => print(expression));

/** Pieces inserted by mutations: tokens of the language, and characters that break lexers. */
const TOKENS = [
  "(", ")", "{", "}", "[", "]", "not", "and", "or", "in", "contains", "matches", "is", "empty", "nil", "any", "all", "as", ",",
  "==", "!=", '"', "`", "\\", ".", "x", "Name", "Meta", '"dc1"', "`^w`", "1", "-", " ", "\n", "\t", "\u0000", "\uD800", "\uDFFF", "é", "🚀", "\u00a0",
];

/** A crude lexer for mutations: strings, words, operators, spaces, and any other single character. */
const TOKEN_PATTERN = /"(?:[^"\\]|\\.)*"?|`[^`]*`?|\s+|[A-Za-z_][\w.-]*|==|!=|[\s\S]/gu;

type Mutation = { readonly kind: "deleteChar" | "insertChar" | "duplicateChars" | "deleteToken" | "insertToken" | "duplicateToken" | "swapTokens"; readonly at: number; readonly span: number; readonly piece: string };

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom("deleteChar", "insertChar", "duplicateChars", "deleteToken", "insertToken", "duplicateToken", "swapTokens"),
  at: fc.nat(),
  span: fc.integer({ min: 1, max: 12 }),
  piece: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ unit: "binary", maxLength: 2 })),
});

function mutate(source: string, mutation: Mutation): string {
  const { at, span, piece } = mutation;
  const i = source.length === 0 ? 0 : at % (source.length + 1);
  switch (mutation.kind) {
    case "deleteChar":
      return source.slice(0, i) + source.slice(i + 1);
    case "insertChar":
      return source.slice(0, i) + piece + source.slice(i);
    case "duplicateChars":
      return source.slice(0, i + span) + source.slice(i, i + span) + source.slice(i + span);
  }
  const tokens = source.match(TOKEN_PATTERN) ?? [];
  const t = tokens.length === 0 ? 0 : at % tokens.length;
  switch (mutation.kind) {
    case "deleteToken":
      tokens.splice(t, 1);
      break;
    case "insertToken":
      tokens.splice(t, 0, ` ${piece} `);
      break;
    case "duplicateToken":
      tokens.splice(t, 0, ...tokens.slice(t, t + span));
      break;
    case "swapTokens": {
      const u = (t + span) % Math.max(1, tokens.length);
      [tokens[t], tokens[u]] = [tokens[u] ?? "", tokens[t] ?? ""];
      break;
    }
  }
  return tokens.join("");
}

/** Valid filters and random sources, each changed by one to six mutations. */
const mutatedArb = fc
  .tuple(fc.oneof({ arbitrary: validArb, weight: 3 }, { arbitrary: sourceArb, weight: 1 }), fc.array(mutationArb, { minLength: 1, maxLength: 6 }))
  .map(([source, mutations]) => mutations.reduce(mutate, source));

/** Depths around the limit, and far past it (mostly small ones: the large ones are slow to run). */
const depthArb = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: MAX_NESTING_DEPTH + 2 }), weight: 30 },
  { arbitrary: fc.constantFrom(MAX_NESTING_DEPTH - 1, MAX_NESTING_DEPTH, MAX_NESTING_DEPTH + 1, 300, 1_000, 5_000, 20_000, 100_000), weight: 1 },
);

const OPENERS: readonly (readonly [string, string])[] = [
  ["(", ")"],
  ["not (", ")"],
  ["any Tags as x {", "}"],
  ["all Meta as k, v {", "}"],
  ["any Nested as k, v { any v as x { ", "} }"],
  ["not ", ""],
  ["Status == 1 and (", ")"],
];

/** Deep nesting of `(`, `not (`, `any X as x {`… in cycles, closed or not, around one clause. */
const nestingArb = fc
  .tuple(
    depthArb,
    fc.array(fc.constantFrom(...OPENERS), { minLength: 1, maxLength: 3 }),
    fc.constantFrom('x == "dc1"', 'Name == "web"', "Meta is empty", 'Tags contains "dc1"', "", "x."),
    fc.constantFrom("balanced", "unclosed", "half", "extra"),
  )
  .map(([generatedDepth, cycle, clause, closing]) => {
    // (The first full run met 20,000 closed levels, where complete() was quadratic and the worker
    // died out of memory; complete() now refuses them as parse does.)
    const depth = generatedDepth;
    const openers = Array.from({ length: depth }, (_, i) => cycle[i % cycle.length]!);
    const closers = openers.map(([, close]) => close).reverse();
    const closed = closing === "balanced" ? closers : closing === "unclosed" ? [] : closing === "half" ? closers.slice(0, depth >> 1) : [...closers, ")", "}"];
    return `${openers.map(([open]) => open).join(" ")} ${clause} ${closed.join(" ")}`;
  });

/** Long `and`/`or` chains, up to and past the clause limit. */
const chainArb = fc
  .tuple(
    fc.oneof({ arbitrary: fc.integer({ min: 2, max: 200 }), weight: 50 }, { arbitrary: fc.constantFrom(1_000, 5_000, MAX_CLAUSES, MAX_CLAUSES + 1), weight: 1 }),
    fc.constantFrom(" and ", " or ", " && ", " and not ", "\nor "),
    fc.constantFrom("a == 1", 'Status == "running"', "(x)", 'Name matches "^w"', '"dc1" in Tags', "Meta.owner is not empty", "any Tags as t { t == 1 }"),
    fc.boolean(),
  )
  .map(([count, joiner, clause, parenthesised]) => Array.from({ length: count }, () => (parenthesised ? `(${clause})` : clause)).join(joiner));

/** Many `matches` clauses, with heavy, broken, literal and duplicated patterns. */
const regexArb = fc
  .array(
    fc.tuple(
      fc.constantFrom(".{1000}", "(a|b)*c", "\\pL{50}", "[a-z]+$", "x{998}", "(?i)web", "^w", "(.*)*", "(?:a{100}){100}", "[", "\\", "(?P<n>x)", ".{1000}|i_", "(?s).{500}", "\\b\\w+\\b", "a**", "[^\\x00-\\x{10FFFF}]", "é+🚀"),
      fc.nat({ max: 999 }),
      fc.constantFrom("Name", "Meta.owner", "x", "Tags"),
      fc.boolean(),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((clauses) =>
    clauses
      .map(([pattern, k, selector, raw]) => {
        const text = pattern.endsWith("i_") ? `${pattern}${k}` : pattern;
        return raw && !text.includes("`") ? `${selector} matches \`${text}\`` : `${selector} matches ${JSON.stringify(text)}`;
      })
      .join(" or "),
  );

/** Long strings in every position a string can take, at and past the source length limit. */
const longStringArb = fc
  .tuple(
    // Sources near the length limit take about a second through all the entry points: a few dozen of them.
    fc.oneof({ arbitrary: fc.constantFrom(100, 1_000, 5_000), weight: 50 }, { arbitrary: fc.constantFrom(65_536, MAX_SOURCE_LENGTH - 20, MAX_SOURCE_LENGTH - 12, MAX_SOURCE_LENGTH + 1, 200_000), weight: 1 }),
    fc.constantFrom("a", "é", "🚀", "\\", '\\"', " ", "\uD800"),
    fc.constantFrom((s: string) => `Name == "${s}"`, (s: string) => `Name contains "${s}"`, (s: string) => `"${s}" in Tags`, (s: string) => `Name matches "${s}"`, (s: string) => `Name == "${s}`, (s: string) => `${s} == 1`, (s: string) => `Meta["${s}"] == 1`),
  )
  .map(([length, unit, wrap]) => wrap(unit.repeat(Math.ceil(length / unit.length)).slice(0, length)));

/** Lone surrogates and other non-ASCII text, alone and inside valid filters. */
const unicodeArb = fc
  .tuple(
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 20 }),
      fc.array(fc.constantFrom("\uD800", "\uDFFF", "\uDBFF\uDC00", "\uDC00\uD800", "é", "🚀", "\u00a0", "\u2028", "\uFEFF", "\u200b", "Ｓｔａｔｕｓ", "\u0000", "\u001b[31m"), { maxLength: 8 }).map((parts) => parts.join("")),
    ),
    fc.constantFrom((s: string) => `Name == "${s}"`, (s: string) => `${s} == 1`, (s: string) => `Meta["${s}"] == "x"`, (s: string) => `any ${s} as x { x == 1 }`, (s: string) => s, (s: string) => `Name matches \`${s}\``, (s: string) => `"${s}" in Tags and ${s}`),
  )
  .map(([text, wrap]) => wrap(text));

const hostileArb = fc.oneof(nestingArb, chainArb, regexArb, longStringArb, unicodeArb);

// ---------------------------------------------------------------------------------------------
// Data: the generated data, and a few large values that make evaluations expensive
// ---------------------------------------------------------------------------------------------

function bigDatum(elements: number, textLength: number): Record<string, unknown> {
  const keys = Array.from({ length: elements }, (_, i) => `k${i}`);
  return {
    Status: "running",
    Name: "w".repeat(textLength),
    Priority: 50,
    Tags: Array.from({ length: elements }, (_, i) => `dc${i}`),
    Meta: Object.fromEntries(keys.map((key) => [key, "v".repeat(Math.min(textLength, 64))])),
    Nested: Object.fromEntries(keys.slice(0, 100).map((key) => [key, { owner: "team-a", "web-api": key }])),
    Stop: false,
    Score: 0.5,
    Nil: null,
  };
}
const BIG_DATA = [bigDatum(100, 100), bigDatum(1_000, 2_000), bigDatum(10_000, 20_000), bigDatum(3, 200_000)];
const dataArb = fc.array(fc.oneof({ arbitrary: datumArb, weight: 6 }, { arbitrary: fc.constantFrom(...BIG_DATA), weight: 1 }), { minLength: 1, maxLength: 3 });

/** Sometimes typed mode: a generated schema for validate and compileFilter. */
const schemaOptionArb = fc.option(schemaArb, { freq: 4 });

// ---------------------------------------------------------------------------------------------
// Running one input through every entry point, timing each call
// ---------------------------------------------------------------------------------------------

type Step = "parse" | "validate" | "complete" | "format" | "compileFilter" | "evaluate";
const STEPS: readonly Step[] = ["parse", "validate", "complete", "format", "compileFilter", "evaluate"];

interface Slowest {
  ms: number;
  input: string;
  /** Runs the same call again (to tell a slow input from a garbage collection that hit it). */
  again: () => void;
}
const totals = Object.fromEntries(STEPS.map((step) => [step, { calls: 0, ms: 0 }])) as Record<Step, { calls: number; ms: number }>;
const slowest = Object.fromEntries(STEPS.map((step) => [step, { ms: -1, input: "", again: () => {} }])) as Record<Step, Slowest>;

/** Throws outside the documented classes, by step: the first few, and how many in all. */
const unexpected: { step: Step; input: string; error: string }[] = [];
let unexpectedCount = 0;
/** Evaluations whose cost was above the filter's own worst case for the value's sizes. */
const boundViolations: { input: string; cost: number; worst: number }[] = [];
let inputsRun = 0;
/** The heap after a collection, every 10,000 inputs: a leak in any entry point shows as growth. */
const heapTrail: string[] = [];
const gc = (globalThis as { gc?: () => void }).gc;

/** The worst evaluation time per charged unit (among evaluations charged at least `floor` units). */
interface PerUnit {
  nsPerUnit: number;
  units: number;
  ms: number;
  input: string;
  datum: string;
  /** The same evaluation again: its time and units (to tell a slow evaluation from a GC pause or a first, unoptimised run). */
  again: () => { ms: number; units: number };
}
const perUnit = new Map<number, PerUnit>([100, 1_000, 100_000].map((floor) => [floor, { nsPerUnit: 0, units: 0, ms: 0, input: "", datum: "", again: () => ({ ms: 0, units: 0 }) }]));
const costExceeded = { count: 0, maxMs: 0 };

const show = (text: string) => `${JSON.stringify(text.slice(0, 120))}${text.length > 120 ? ` … (${text.length} chars)` : ""}`;
const describeDatum = (datum: unknown) => {
  const big = BIG_DATA.indexOf(datum as Record<string, unknown>);
  return big >= 0 ? `big datum #${big}` : JSON.stringify(datum)?.slice(0, 60) ?? String(datum);
};

function recordUnexpected(step: Step, input: string, error: unknown): void {
  unexpectedCount++;
  if (unexpected.length < 20) unexpected.push({ step, input: show(input), error: String((error as Error)?.stack ?? error).slice(0, 400) });
}

/** Runs `run`, records its time under `step`, and keeps any throw outside the documented classes. */
function timed<T>(step: Step, input: string, run: () => T): T | undefined {
  const started = performance.now();
  try {
    return run();
  } catch (error) {
    if (!(error instanceof FilterSyntaxError || error instanceof FilterEvaluationError)) recordUnexpected(step, input, error);
    return undefined;
  } finally {
    const ms = performance.now() - started;
    totals[step].calls++;
    totals[step].ms += ms;
    if (ms > slowest[step].ms) slowest[step] = { ms, input, again: () => void timedAgain(run) };
  }
}

function timedAgain(run: () => unknown): void {
  try {
    run();
  } catch {
    // Measured only.
  }
}

/** The largest list or map and the longest string (or key) anywhere in a value. */
function sizesOf(value: unknown): { length: number; textLength: number } {
  if (typeof value === "string") return { length: 0, textLength: value.length };
  if (typeof value !== "object" || value === null) return { length: 0, textLength: 0 };
  const children = Array.isArray(value) ? value : Object.values(value);
  const keys = Array.isArray(value) ? [] : Object.keys(value);
  let length = children.length;
  let textLength = keys.reduce((longest, key) => Math.max(longest, key.length), 0);
  for (const child of children) {
    const sizes = sizesOf(child);
    length = Math.max(length, sizes.length);
    textLength = Math.max(textLength, sizes.textLength);
  }
  return { length, textLength };
}

/** One input through parse, validate, complete at four offsets, format, compile, and evaluation on `data`. */
function exercise(source: string, data: readonly unknown[], schema: FieldSchema | null, offsetSeed: number): void {
  inputsRun++;
  if (inputsRun % 10_000 === 0) {
    gc?.();
    heapTrail.push(`${inputsRun / 1000}k: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
  }
  const options = schema === null ? {} : { schema };
  timed("parse", source, () => parse(source));
  timed("validate", source, () => validate(source, options));
  for (const offset of new Set([0, source.length, source.length >> 1, offsetSeed % (source.length + 1)])) {
    timed("complete", source, () => complete(source, offset, options));
  }
  timed("format", source, () => format(source));
  const filter = timed("compileFilter", source, () => compileFilter(source, options));
  if (filter === undefined) return;
  for (const datum of data) evaluate(filter, source, datum);
  timed("evaluate", source, () => filter.filter(data));
}

/** Evaluates with a metered budget (to know the units charged), then checks cost() against the worst case. */
function evaluate(filter: Filter, source: string, datum: unknown): void {
  const budget = new CostBudget(Number.MAX_SAFE_INTEGER);
  let exceeded = false;
  const started = performance.now();
  timed("evaluate", source, () => {
    try {
      return filter.test(datum, budget);
    } catch (error) {
      exceeded = error instanceof FilterEvaluationError && error.code === "cost_exceeded";
      throw error;
    }
  });
  const ms = performance.now() - started;
  const units = budget.spent;
  if (exceeded) {
    costExceeded.count++;
    costExceeded.maxMs = Math.max(costExceeded.maxMs, ms);
  }
  for (const [floor, worst] of perUnit) {
    const nsPerUnit = (ms * 1e6) / units;
    if (units >= floor && nsPerUnit > worst.nsPerUnit) {
      const again = () => {
        const budget = new CostBudget(Number.MAX_SAFE_INTEGER);
        const t = performance.now();
        timedAgain(() => filter.test(datum, budget));
        return { ms: performance.now() - t, units: budget.spent };
      };
      perUnit.set(floor, { nsPerUnit, units, ms, input: show(source), datum: describeDatum(datum), again });
    }
  }
  // cost() runs without a budget: only on evaluations known to fit in one.
  if (exceeded) return;
  let cost: number;
  try {
    cost = filter.cost(datum);
  } catch (error) {
    if (!(error instanceof FilterEvaluationError)) recordUnexpected("evaluate", source, error);
    return;
  }
  const worst = filter.worstCaseCost(sizesOf(datum));
  if (cost > worst && boundViolations.length < 20) boundViolations.push({ input: show(source), cost, worst });
}

// ---------------------------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------------------------

/**
 * Runs per family: 100,500 inputs in all. `STRESS_FUZZ_SCALE=0.05` runs a twentieth of them (to try
 * a change quickly; the suite's figures are for the full count).
 */
const SCALE = Number(process.env.STRESS_FUZZ_SCALE ?? 1);
const RUNS = Object.fromEntries(Object.entries({ generated: 32_000, valid: 29_000, mutated: 31_500, hostile: 8_000 }).map(([family, runs]) => [family, Math.ceil(runs * SCALE)])) as Record<
  "generated" | "valid" | "mutated" | "hostile",
  number
>;
/** A generous bound on each family's time: a loop bound, never a timing assertion. */
const FAMILY_TIME_LIMIT_MS = 240_000;
const seeds: Record<string, number> = {};
const familyTimes: Record<string, { runs: number; ms: number }> = {};

function fuzz(family: keyof typeof RUNS, sources: fc.Arbitrary<string>): void {
  const seed = (Date.now() ^ (Math.random() * 2 ** 31)) | 0;
  seeds[family] = seed;
  const before = inputsRun;
  const started = performance.now();
  fc.assert(
    fc.property(sources, dataArb, schemaOptionArb, fc.nat(), (source, data, schema, offsetSeed) => {
      exercise(source, data, schema, offsetSeed);
    }),
    { numRuns: RUNS[family], seed, interruptAfterTimeLimit: FAMILY_TIME_LIMIT_MS, markInterruptAsFailure: true },
  );
  familyTimes[family] = { runs: inputsRun - before, ms: Math.round(performance.now() - started) };
  expect(inputsRun - before).toBe(RUNS[family]);
  expect(unexpected, `throws outside FilterSyntaxError/FilterEvaluationError (${unexpectedCount} in all)`).toEqual([]);
}

describe("fuzz: no string makes the engine throw anything but its two documented errors", () => {
  const started = performance.now();

  it(`runs ${RUNS.generated} generated sources (fragments of real filters, arbitrary strings) through every entry point`, () => {
    fuzz("generated", sourceArb);
  });

  it(`runs ${RUNS.valid} valid filters, printed from generated trees, through every entry point`, () => {
    fuzz("valid", validArb);
  });

  it(`runs ${RUNS.mutated} mutated filters (characters and tokens deleted, inserted, duplicated, swapped)`, () => {
    fuzz("mutated", mutatedArb);
  });

  it(`runs ${RUNS.hostile} hostile inputs: deep nesting, long chains, many patterns, long strings, lone surrogates`, () => {
    fuzz("hostile", hostileArb);
  });

  it("charges no evaluation more than the filter's own worst case for the value's sizes", () => {
    expect(boundViolations).toEqual([]);
  });

  afterAll(() => {
    const total = Object.values(RUNS).reduce((a, b) => a + b, 0);
    printTable(`fuzz: inputs per family (seeds to replay with fc.assert's seed option)`, [
      ...Object.entries(familyTimes).map(([family, { runs, ms }]) => ({ family, runs, "time (s)": (ms / 1000).toFixed(1), seed: seeds[family] })),
      { family: "total", runs: inputsRun, "time (s)": ((performance.now() - started) / 1000).toFixed(1), seed: `planned ${total}` },
    ]);
    printTable(
      "fuzz: time per function (slowest input re-measured as the best of 3 runs, to tell a slow input from a GC pause)",
      STEPS.map((step) => {
        const { ms, input, again } = slowest[step];
        const remeasured = Math.min(
          ...[0, 1, 2].map(() => {
            const t = performance.now();
            again();
            return performance.now() - t;
          }),
        );
        return {
          function: step,
          calls: totals[step].calls,
          "total (ms)": Math.round(totals[step].ms),
          "mean (µs)": ((totals[step].ms / Math.max(1, totals[step].calls)) * 1000).toFixed(1),
          "slowest (ms)": ms.toFixed(2),
          "re-measured (ms)": remeasured.toFixed(2),
          "slowest input": show(input),
        };
      }),
    );
    printTable(
      "fuzz: compile + evaluate, worst time per charged cost unit (filter.test with a metered budget)",
      [...perUnit].map(([floor, worst]) => ({
        "evaluations charged at least": `${floor} units`,
        "worst ns/unit": worst.nsPerUnit.toFixed(1),
        units: worst.units,
        "time (ms)": worst.ms.toFixed(3),
        "re-measured ns/unit (best of 3)": worst.units === 0 ? "" : Math.min(...[0, 1, 2].map(() => worst.again()).map(({ ms, units }) => (ms * 1e6) / Math.max(1, units))).toFixed(1),
        filter: worst.input,
        datum: worst.datum,
      })),
    );
    console.log(`heap after a collection, by inputs run: ${heapTrail.join(", ")}`);
    console.log(
      `evaluations stopped by cost_exceeded (budget ${MAX_EVALUATION_COST} units): ${costExceeded.count}, the slowest took ${costExceeded.maxMs.toFixed(2)} ms; ` +
        `throws outside the documented classes: ${unexpectedCount}; worst-case bound violations: ${boundViolations.length}`,
    );
  });
});
