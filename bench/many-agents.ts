/**
 * The many-agents section of `npm run bench` (also alone: `npm run bench:agents`): what it costs
 * to give every test its own agent. Each run is a process of its own (this module with `--child`,
 * started with `--expose-gc`) that imports `bexpr/server`, then starts {@link AGENTS} agents one
 * after the other, as a test suite's `beforeEach` would (`startAgent({ port: 0, demo: false,
 * logLevel: "silent" })`), keeps them all running, checks that each answers `/v1/agent/members`,
 * and closes them. It measures:
 *
 * - the import of `bexpr/server`, and the first agent's start (the code's first run: fastify's and
 *   the routes' first compilation);
 * - each later agent's start: median, p90 and max, pooled over the runs;
 * - the memory each running agent holds: heap and RSS after a full garbage collection, before the
 *   first agent and with all of them running, divided by their number;
 * - closing them all.
 *
 * Figures are printed and returned (bench/run.ts writes them to bench/results.json under
 * `manyAgents`; run alone, this module writes that key itself), never asserted.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { median, quantile } from "./stats.js";

/** Agents started in each process. */
const AGENTS = 100;
/** Processes, each starting {@link AGENTS} agents. */
const RUNS = 5;
const RESULTS_PATH = "bench/results.json";
const MIB = 1024 * 1024;

/** What one process measures. */
interface RunFigures {
  readonly importMs: number;
  /** Each agent's start, in the order started (the first is the code's first run). */
  readonly startMs: readonly number[];
  readonly heapBytesPerAgent: number;
  readonly rssBytesPerAgent: number;
  /** How many agents answered `/v1/agent/members` with 200. */
  readonly answered: number;
  readonly closeAllMs: number;
}

/** The section's figures, as bench/results.json holds them under `manyAgents`. */
export interface ManyAgentsFigures {
  readonly node: string;
  readonly date: string;
  readonly agents: number;
  readonly runs: number;
  /** `import("bexpr/server")`, median of the runs. */
  readonly importMs: number;
  /** The first agent of each process, median of the runs. */
  readonly firstStartMs: number;
  /** Every later agent's start, pooled over the runs. */
  readonly startMs: { readonly median: number; readonly p90: number; readonly max: number };
  /** Median of the runs. */
  readonly heapBytesPerAgent: number;
  /** Median of the runs. */
  readonly rssBytesPerAgent: number;
  /** Closing all the agents of a process, median of the runs. */
  readonly closeAllMs: number;
  /** Whether every agent of every run answered `/v1/agent/members`. */
  readonly allAnswered: boolean;
  /** Each process's figures, its agents' starts summed up. */
  readonly perRun: readonly (Omit<RunFigures, "startMs"> & { readonly firstStartMs: number; readonly startMedianMs: number; readonly startP90Ms: number })[];
}

const collect = () => (globalThis as { gc?: () => void }).gc?.();

/** One process's measurement (`--child`): prints its figures as one JSON line. */
async function child(): Promise<void> {
  const importStarted = performance.now();
  const { startAgent } = await import("bexpr/server");
  const importMs = performance.now() - importStarted;
  collect();
  const before = process.memoryUsage();
  const agents = [];
  const startMs: number[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const started = performance.now();
    agents.push(await startAgent({ port: 0, demo: false, logLevel: "silent" }));
    startMs.push(performance.now() - started);
  }
  collect();
  const after = process.memoryUsage();
  const statuses = await Promise.all(agents.map(async (agent) => (await fetch(`${agent.url}/v1/agent/members`)).status));
  const closing = performance.now();
  await Promise.all(agents.map((agent) => agent.close()));
  const figures: RunFigures = {
    importMs,
    startMs,
    heapBytesPerAgent: (after.heapUsed - before.heapUsed) / AGENTS,
    rssBytesPerAgent: (after.rss - before.rss) / AGENTS,
    answered: statuses.filter((status) => status === 200).length,
    closeAllMs: performance.now() - closing,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** Runs the section: {@link RUNS} processes; prints a readable section and returns the figures. */
export async function manyAgentsBench(): Promise<ManyAgentsFigures> {
  const script = fileURLToPath(import.meta.url);
  const runs: RunFigures[] = [];
  for (let i = 0; i < RUNS; i++) {
    const result = spawnSync(process.execPath, ["--expose-gc", script, "--child"], { encoding: "utf8", maxBuffer: 1 << 24 });
    if (result.status !== 0) throw new Error(`the many-agents child failed:\n${result.stderr}`);
    runs.push(JSON.parse(result.stdout) as RunFigures);
  }
  const later = runs.flatMap((run) => run.startMs.slice(1)).sort((a, b) => a - b);
  const figures: ManyAgentsFigures = {
    node: process.version,
    date: new Date().toISOString(),
    agents: AGENTS,
    runs: RUNS,
    importMs: median(runs.map((run) => run.importMs)),
    firstStartMs: median(runs.map((run) => run.startMs[0]!)),
    startMs: { median: median(later), p90: quantile(later, 0.9), max: later.at(-1)! },
    heapBytesPerAgent: median(runs.map((run) => run.heapBytesPerAgent)),
    rssBytesPerAgent: median(runs.map((run) => run.rssBytesPerAgent)),
    closeAllMs: median(runs.map((run) => run.closeAllMs)),
    allAnswered: runs.every((run) => run.answered === AGENTS),
    perRun: runs.map(({ startMs, ...run }) => {
      const sorted = startMs.slice(1).sort((a, b) => a - b);
      return { ...run, firstStartMs: startMs[0]!, startMedianMs: median(sorted), startP90Ms: quantile(sorted, 0.9) };
    }),
  };
  const ms = (value: number) => value.toFixed(1);
  console.log(`\nmany agents in one process: ${AGENTS} agents started one after the other (startAgent({ port: 0, demo: false, logLevel: "silent" })), kept running; ${RUNS} processes`);
  console.log(
    `import("bexpr/server") ${ms(figures.importMs)} ms; the first agent ${ms(figures.firstStartMs)} ms; each later one: median ${ms(figures.startMs.median)} ms, ` +
      `p90 ${ms(figures.startMs.p90)} ms, max ${ms(figures.startMs.max)} ms`,
  );
  console.log(
    `memory per running agent (after a full GC): heap ${(figures.heapBytesPerAgent / MIB).toFixed(2)} MiB, RSS ${(figures.rssBytesPerAgent / MIB).toFixed(2)} MiB; ` +
      `closing all ${AGENTS} ${ms(figures.closeAllMs)} ms; ${figures.allAnswered ? "every agent answered /v1/agent/members" : "SOME AGENTS DID NOT ANSWER /v1/agent/members"}`,
  );
  return figures;
}

/** Run alone (`npm run bench:agents`): the section, and its figures as `manyAgents` in bench/results.json. */
async function main(): Promise<void> {
  const figures = await manyAgentsBench();
  const previous = JSON.parse(readFileSync(RESULTS_PATH, "utf8")) as Record<string, unknown>;
  writeFileSync(RESULTS_PATH, `${JSON.stringify({ ...previous, manyAgents: figures }, null, 2)}\n`);
  console.log(`wrote the many-agents figures to ${RESULTS_PATH}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === "--child") await child();
  else await main();
}
