/**
 * The PostgreSQL store beside the memory store, in the agent's section of `npm run bench` (and
 * `npm run bench:agent`). The store is the PostgreSQL server that `BEXPR_BENCH_POSTGRES_URL` (or
 * else `BEXPR_TEST_POSTGRES_URL`) names, in a schema of its own dropped at the end; without one,
 * PGlite in the agent's process. The same jobs as the memory agent's (the same seed) are
 * registered, and it measures:
 *
 * - the registration rate per 1,000 jobs (8 in flight), as the memory agent's;
 * - repeated paged lists (with and without a filter) in turns with the memory agent, and the CPU
 *   each agent spends per request;
 * - a filter never seen before in each request, as on the memory agent;
 * - two agents writing at once (each its own registrations, 8 in flight each) against one, in
 *   {@link WRITER_ROUNDS} rounds that alternate which comes first (the store grows under them), with
 *   each agent's CPU per job.
 *
 * Figures are printed and returned (under `agent.postgres` in bench/results.json), never asserted.
 */
import pg from "pg";
import { ask, cpuPerRequest, measureNewFilters, printNewFilters, registerJobs, startServer, stopServer, waitUntilSettled, jobSpec, type NewFilterFigures, type RegistrationFigures, type Server, type ServerFigures } from "./agent.js";
import type { AgentChildConfig } from "./agent-child.js";
import { processCpuMs, type LoadFigures } from "./load.js";
import { createLoadClient } from "./wrk.js";
import { median } from "./stats.js";
import { fileURLToPath } from "node:url";

const AGENT_CHILD = fileURLToPath(new URL("./agent-child.js", import.meta.url));
/** Registrations in flight, for each writer. */
const CONCURRENCY = 8;
/** Jobs each writer test registers (one agent; then two at once, half each). */
const WRITER_JOBS = Number(process.env["BENCH_PG_WRITER_JOBS"] ?? "2000");
/**
 * Rounds of the writer test: each registers {@link WRITER_JOBS} on one agent and as many on two at
 * once, in turns; a single round's ratio was seen anywhere from 0.35 to 1.7 on one machine.
 */
const WRITER_ROUNDS = Number(process.env["BENCH_PG_WRITER_ROUNDS"] ?? "3");
/** Load windows of the list comparison: shorter than the memory section's, as there are more of them. */
const DURATION_MS = 3_000;
const WARMUP_MS = 1_000;
const ROUNDS = 5;
const CONNECTIONS = 50;
/** An agent joining a shared store loads the whole state first. */
const START_TIMEOUT_MS = 180_000;

/** One repeated request on both stores. */
export interface StoreRequestFigures {
  readonly label: string;
  readonly path: string;
  readonly postgres: ServerFigures & { readonly cpuMsPerRequest: number };
  readonly memory: ServerFigures & { readonly cpuMsPerRequest: number };
  /** PostgreSQL's requests per second over memory's (medians), and its worst round over memory's median. */
  readonly postgresToMemory: number;
  readonly postgresToMemoryWorst: number;
}

/** The section's figures. */
export interface PostgresSectionFigures {
  /** The server (by the variable that names it, without credentials) or PGlite. */
  readonly source: string;
  readonly jobs: number;
  readonly registration: RegistrationFigures;
  readonly requests: Record<string, StoreRequestFigures>;
  readonly newFilters: Record<string, NewFilterFigures>;
  readonly writers: WriterFigures;
  readonly seconds: number;
}

/** One round of the writer test: one agent alone, then two at once (or the other way round). */
export interface WriterRound {
  /** Which ran first in this round. */
  readonly first: "one" | "two";
  readonly oneJobsPerSecond: number;
  readonly twoJobsPerSecond: number;
  readonly twoToOne: number;
  /** CPU per job registered in all, ms, of the first agent (the leader, which schedules every job) and the second. */
  readonly oneCpuMsPerJob: { readonly first: number; readonly second: number };
  readonly twoCpuMsPerJob: { readonly first: number; readonly second: number };
  /** Each writer's registration when two write at once. */
  readonly two: readonly RegistrationFigures[];
}

/** Two agents writing at once against one, over rounds. */
export interface WriterFigures {
  readonly jobs: number;
  readonly concurrencyEach: number;
  /** Medians over the rounds. */
  readonly oneJobsPerSecond: number;
  readonly twoJobsPerSecond: number;
  /** The median of the rounds' ratios of two writers' rate in all over one's (above 1 when a second agent adds throughput), and the worst. */
  readonly twoToOne: number;
  readonly twoToOneWorst: number;
  readonly rounds: readonly WriterRound[];
}

const SCENARIOS = [
  { name: "page", label: "GET /v1/jobs?per_page=100", path: "/v1/jobs?per_page=100" },
  {
    name: "filteredPage",
    label: "GET /v1/jobs?per_page=100&filter=M",
    path: `/v1/jobs?per_page=100&filter=${encodeURIComponent('"dc1" in Datacenters and Priority == 50 and not Stop == true')}`,
  },
] as const;

const decimal = (value: number, digits = 1) => value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const integer = (value: number) => Math.round(value).toLocaleString("en");

function figuresOf(rounds: readonly LoadFigures[], cpu: readonly number[]): ServerFigures & { cpuMsPerRequest: number } {
  const of = (key: "requestsPerSecond" | "p50Ms" | "p99Ms" | "non2xx" | "errors") => median(rounds.map((round) => round[key]));
  return { requestsPerSecond: of("requestsPerSecond"), p50Ms: of("p50Ms"), p99Ms: of("p99Ms"), non2xx: of("non2xx"), errors: of("errors"), cpuMsPerRequest: median(cpu) };
}

/** Repeated requests on both agents, in turns; CPU per request from each agent's process. */
async function compareStores(postgres: Server, memory: Server): Promise<Record<string, StoreRequestFigures>> {
  const out: Record<string, StoreRequestFigures> = {};
  for (const scenario of SCENARIOS) {
    const servers = { postgres, memory };
    const clients = { postgres: createLoadClient(postgres.url, CONNECTIONS), memory: createLoadClient(memory.url, CONNECTIONS) };
    const rounds = { postgres: [] as LoadFigures[], memory: [] as LoadFigures[] };
    const cpu = { postgres: [] as number[], memory: [] as number[] };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const store of ["postgres", "memory"] as const) {
          const warmupMs = round === 0 ? WARMUP_MS : 0;
          const figures = await clients[store].run({ path: scenario.path }, { durationMs: DURATION_MS, warmupMs, serverPid: servers[store].child.pid });
          rounds[store].push(figures);
          cpu[store].push(cpuPerRequest(figures).server);
        }
      }
    } finally {
      await Promise.all([clients.postgres.close(), clients.memory.close()]);
    }
    const pgFigures = figuresOf(rounds.postgres, cpu.postgres);
    const memoryFigures = figuresOf(rounds.memory, cpu.memory);
    out[scenario.name] = {
      label: scenario.label,
      path: scenario.path,
      postgres: pgFigures,
      memory: memoryFigures,
      postgresToMemory: pgFigures.requestsPerSecond / memoryFigures.requestsPerSecond,
      postgresToMemoryWorst: Math.min(...rounds.postgres.map((r) => r.requestsPerSecond)) / memoryFigures.requestsPerSecond,
    };
    const f = out[scenario.name]!;
    console.log(
      `${f.label.padEnd(40)} PostgreSQL ${decimal(f.postgres.requestsPerSecond).padStart(8)} req/s (p99 ${decimal(f.postgres.p99Ms)} ms, CPU ${decimal(f.postgres.cpuMsPerRequest * 1000, 0)} µs/req)` +
        `  memory ${decimal(f.memory.requestsPerSecond).padStart(8)} req/s (p99 ${decimal(f.memory.p99Ms)} ms, CPU ${decimal(f.memory.cpuMsPerRequest * 1000, 0)} µs/req)  ${decimal(f.postgresToMemory, 2)}× (worst round ${decimal(f.postgresToMemoryWorst, 2)}×)`,
    );
  }
  return out;
}

/**
 * The writer test: {@link WRITER_ROUNDS} rounds, each registering {@link WRITER_JOBS} new jobs
 * through `first` alone and as many through both at once (half each), in turns. The second agent
 * (in a process of its own on a server; `first`'s own process on PGlite) has just loaded the whole
 * state: it is first brought to rest (its copy current, its heap compacted, as `bexpr agent` does
 * once idle) so that its start is not counted in a round.
 */
async function measureWriters(first: Server, secondProcess: Server, secondUrl: string): Promise<WriterFigures> {
  await waitUntilSettled(secondUrl);
  if (secondProcess !== first) await ask(secondProcess, { kind: "probe", collect: true }, "probed");
  const spec = (offset: number) => (i: number) => jobSpec(i + offset);
  let offset = 1_000_000;
  const cpu = () => ({ first: processCpuMs(first.child.pid), second: secondProcess === first ? Number.NaN : processCpuMs(secondProcess.child.pid) });
  const perJob = (before: { first: number; second: number }, after: { first: number; second: number }) => ({
    first: (after.first - before.first) / WRITER_JOBS,
    second: (after.second - before.second) / WRITER_JOBS,
  });
  const rounds: WriterRound[] = [];
  for (let round = 0; round < WRITER_ROUNDS; round++) {
    const order: readonly ("one" | "two")[] = round % 2 === 0 ? ["one", "two"] : ["two", "one"];
    let one: { rate: number; cpu: { first: number; second: number } } | undefined;
    let two: { rate: number; cpu: { first: number; second: number }; each: readonly RegistrationFigures[] } | undefined;
    for (const turn of order) {
      const before = cpu();
      const started = performance.now();
      if (turn === "one") {
        const figures = await registerJobs(first.url, WRITER_JOBS, WRITER_JOBS, CONCURRENCY, 0, spec((offset += 1_000_000)));
        one = { rate: WRITER_JOBS / figures.totalSeconds, cpu: perJob(before, cpu()) };
      } else {
        const each = await Promise.all([
          registerJobs(first.url, WRITER_JOBS / 2, WRITER_JOBS / 2, CONCURRENCY, 0, spec((offset += 1_000_000))),
          registerJobs(secondUrl, WRITER_JOBS / 2, WRITER_JOBS / 2, CONCURRENCY, 0, spec((offset += 1_000_000))),
        ]);
        two = { rate: WRITER_JOBS / ((performance.now() - started) / 1000), cpu: perJob(before, cpu()), each };
      }
      // The scheduler's placements of the turn's jobs are done before the next turn starts.
      await waitUntilSettled(first.url);
    }
    rounds.push({
      first: order[0]!,
      oneJobsPerSecond: one!.rate,
      twoJobsPerSecond: two!.rate,
      twoToOne: two!.rate / one!.rate,
      oneCpuMsPerJob: one!.cpu,
      twoCpuMsPerJob: two!.cpu,
      two: two!.each,
    });
  }
  return {
    jobs: WRITER_JOBS,
    concurrencyEach: CONCURRENCY,
    oneJobsPerSecond: median(rounds.map((round) => round.oneJobsPerSecond)),
    twoJobsPerSecond: median(rounds.map((round) => round.twoJobsPerSecond)),
    twoToOne: median(rounds.map((round) => round.twoToOne)),
    twoToOneWorst: Math.min(...rounds.map((round) => round.twoToOne)),
    rounds,
  };
}

/**
 * Runs the section beside `memory` (the memory agent of the agent's section, holding `jobs` of the
 * benchmark's jobs); null when the store could not be started (the reason is printed).
 */
export async function postgresSection(memory: Server, options: { readonly jobs: number; readonly placementDelayMs: number }): Promise<PostgresSectionFigures | null> {
  const started = performance.now();
  const variable = ["BEXPR_BENCH_POSTGRES_URL", "BEXPR_TEST_POSTGRES_URL"].find((name) => (process.env[name] ?? "") !== "");
  const url = variable === undefined ? undefined : process.env[variable]!;
  const schema = `bench_agent_${Date.now().toString(36)}_${process.pid}`;
  const source = variable === undefined ? "PGlite (in the agent's process)" : `the server ${variable} names`;
  const store: AgentChildConfig["store"] = url === undefined ? { pglite: true, schema } : { url, schema };
  const config = (nodeName: string, agents: 1 | 2 = 1): string => JSON.stringify({ placementDelayMs: options.placementDelayMs, store, nodeName, agents } satisfies AgentChildConfig);
  console.log(`\nthe PostgreSQL store (${source}), beside the memory agent: ${options.jobs.toLocaleString("en")} of the same jobs`);
  let first: (Server & { readonly listening: { readonly kind: string; readonly url?: string; readonly urls?: readonly string[] } }) | undefined;
  let second: Server | undefined;
  try {
    // PGlite lives in one process: both of its agents start there; a server's agents each get a process.
    const pgAgent = await startServer<{ readonly kind: string; readonly url?: string; readonly urls?: readonly string[] }>(AGENT_CHILD, [config("bench-pg-1", url === undefined ? 2 : 1)], START_TIMEOUT_MS);
    first = pgAgent;
    const registration = await registerJobs(pgAgent.url, options.jobs, 1_000, CONCURRENCY);
    console.log(
      `random-ID registration, ${CONCURRENCY} in flight, jobs/s per 1,000: ${registration.jobsPerSecond.map(integer).join(" ")} (median ${integer(registration.medianJobsPerSecond)}, worst ${integer(registration.worstJobsPerSecond)}, last/first ${decimal(registration.lastToFirst, 2)}); ` +
        `${options.jobs.toLocaleString("en")} in ${decimal(registration.totalSeconds)} s (${integer(options.jobs / registration.totalSeconds)} jobs/s)`,
    );
    await waitUntilSettled(pgAgent.url);

    console.log(`repeated requests, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s windows, medians of ${ROUNDS} rounds in turns:`);
    const requests = await compareStores(pgAgent, memory);

    console.log("a filter never seen before in each request, on PostgreSQL:");
    const newFilters = await measureNewFilters(pgAgent, 5_000_000);
    printNewFilters(newFilters);

    // Writers: one agent, then two at once (the second in its own process on a server).
    const secondUrl = url === undefined ? pgAgent.listening.urls?.[1] : (second = await startServer(AGENT_CHILD, [config("bench-pg-2")], START_TIMEOUT_MS)).url;
    if (secondUrl === undefined) throw new Error("the second PostgreSQL agent did not start");
    const writers = await measureWriters(pgAgent, second ?? pgAgent, secondUrl);
    const each = writers.rounds.map((round) => `${decimal(round.twoToOne, 2)}×`).join(", ");
    console.log(
      `writers, ${WRITER_JOBS.toLocaleString("en")} jobs a turn, ${CONCURRENCY} in flight each, medians of ${writers.rounds.length} rounds: one agent ${integer(writers.oneJobsPerSecond)} jobs/s; ` +
        `two at once ${integer(writers.twoJobsPerSecond)} jobs/s in all: ${decimal(writers.twoToOne, 2)}× one (worst round ${decimal(writers.twoToOneWorst, 2)}×; rounds ${each})`,
    );
    for (const round of writers.rounds) {
      const cpu = (figures: { first: number; second: number }) => `${decimal(figures.first, 2)} + ${decimal(figures.second, 2)}`;
      console.log(`  ${round.first} first: CPU ms per job, first agent + second: one writing ${cpu(round.oneCpuMsPerJob)}; two writing ${cpu(round.twoCpuMsPerJob)}`);
    }
    return { source, jobs: options.jobs, registration, requests, newFilters, writers, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    console.log(`the PostgreSQL section failed: ${(error as Error).stack ?? String(error)}`);
    return null;
  } finally {
    await Promise.all([stopServer(first), stopServer(second)]);
    if (url !== undefined) {
      const admin = new pg.Client({ connectionString: url });
      try {
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } catch (error) {
        console.log(`could not drop the schema ${schema}: ${(error as Error).message}`);
      } finally {
        await admin.end().catch(() => {});
      }
    }
  }
}
