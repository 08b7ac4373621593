/**
 * The cluster's section of `npm run bench` (also alone: `npm run bench:cluster`): agents that share
 * their state through PostgreSQL (`startAgent({ store: { url, schema } })`), each in a process of
 * its own (bench/cluster-child.ts), driven over HTTP from this one. It measures:
 *
 * - a fan-out across agents: three agents on one schema, thousands of blocking queries parked on
 *   two of them (half each), one job registered through the third; how long the registration
 *   takes, and how long until the blocking queries are answered (first, median, last), once with
 *   consistent blocking queries and once with `?stale` ones (answered from each agent's copy);
 * - lists on PostgreSQL against the in-memory store, with 10,000 and with 100,000 jobs: the jobs
 *   registered into an agent of each store (`PUT /v1/jobs`, {@link LOAD_CONCURRENCY} in flight, so
 *   that the PostgreSQL store commits them in groups), then three list requests under closed-loop
 *   load (bench/load.ts) on each store, with the agent's answer cache (its default) and without it
 *   (`limits.responseCacheBytes: 0`, so that every request is cut anew: by PostgreSQL on the
 *   shared store, from memory on the other), and `?stale` on PostgreSQL (answered from the copy).
 *   The answers of both stores are compared (the same jobs, page by page).
 *
 * The PostgreSQL server is the one `BEXPR_BENCH_POSTGRES_URL` or `BEXPR_TEST_POSTGRES_URL` names;
 * otherwise a throw-away cluster of Debian's PostgreSQL binaries (as .ci/run starts one, fsync
 * off), stopped and removed at the end; without them the section is skipped (null). Every schema
 * the section makes is dropped at the end. `BEXPR_BENCH_CLUSTER_SCALE` (default 1) scales the job
 * and query counts, and below 1 shortens the load windows, for trying the section quickly.
 *
 * Figures are printed and returned (bench/run.ts writes them to bench/results.json under
 * `cluster`; run alone, this module writes that key itself), never asserted.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { Pool, request as undiciRequest } from "undici";
import type { AgentOptions } from "bexpr/server";
import { compileFilter } from "../src/index.js";
import { jobFilterTarget } from "../src/schemas.js";
import { toSql } from "../src/sql/index.js";
import { ask, FanOut, jobsIndex, jobSpec, MIXED_FILTER, openFilesLimit, registerJobs, sleep, startServer, stopServer, waitUntilSettled, type Server, type Watch } from "./agent.js";
import type { ClusterChildMessage, ClusterParentMessage } from "./cluster-child.js";
import { DEFAULT_CONNECTIONS, DEFAULT_DURATION_MS, DEFAULT_WARMUP_MS, type LoadClient, type LoadFigures, type LoadRequest } from "./load.js";
import { createLoadClient } from "./wrk.js";
import { median } from "./stats.js";
import { postgresBinDir, ThrowawayPostgres } from "../scripts/postgres-server.js";

/** Scales the counts (and, below 1, the load windows): `BEXPR_BENCH_CLUSTER_SCALE=0.05` tries the section in a minute. */
const SCALE = Number(process.env["BEXPR_BENCH_CLUSTER_SCALE"] ?? "1");
const scaled = (count: number, least: number) => Math.max(least, Math.round(count * SCALE));
/** The job counts the lists are measured with. */
const LIST_JOBS = [10_000, 100_000].map((count) => scaled(count, 100));
/** Registrations in flight while jobs are loaded: enough for the PostgreSQL store's group commit to gather many writes. */
const LOAD_CONCURRENCY = 64;
/** Chunks of each load whose rate is given, so that a cost growing with the stored jobs shows. */
const LOAD_CHUNKS = 10;
/** A load slower than this is reported as too slow for the section's time. */
const SLOW_LOAD_SECONDS = 240;
/**
 * The agents' simulated placement (`placementDelayMs`), as in the agent's section: the scheduler's
 * work for a job (its evaluation, the allocation running, the deployment done: three or four
 * writes a job, registration included) is done within a tenth of a second of its registration, so
 * that the state stands still soon after the last one, while the lists are measured.
 */
const PLACEMENT_DELAY_MS = 100;
/** The load windows. */
const DURATION_MS = SCALE < 1 ? 2_000 : DEFAULT_DURATION_MS;
const WARMUP_MS = SCALE < 1 ? 500 : DEFAULT_WARMUP_MS;
/** A filter of the paged list that PostgreSQL decides itself (see {@link exactness}); it matches about one job in six. */
const PAGE_FILTER = MIXED_FILTER;
/** Jobs registered before the fan-out, so that its blocking queries list something. */
const FAN_OUT_JOBS = scaled(1_000, 10);
/** Blocking queries parked for the fan-out, half on each of two agents; fewer when the open-files limit does not allow as many. */
const FAN_OUT_COUNTS = [10_000, 5_000, 2_000, 1_000].map((count) => scaled(count, 2));
/** File descriptors each process keeps besides the fan-out's sockets. */
const FD_HEADROOM = 256;
/** Blocking queries opened at once on each agent (the listen backlog is 511). */
const FAN_OUT_BATCH = 500;
/** The blocking queries' `?wait`: longer than parking them all and waking them. */
const FAN_OUT_WAIT = "180s";
/** One job a query, as in the agent's section: the wake-up is measured, not the answers' size. */
const FAN_OUT_PER_PAGE = 1;
/** How long a batch of blocking queries may take to be parked. */
const PARK_TIMEOUT_MS = 30_000;
/** How long the parked queries may take to be answered after the registration that wakes them. */
const WAKE_TIMEOUT_MS = 90_000;
/** How often the agents are asked how many queries they parked. */
const POLL_MS = 50;
/** How long a child may take to start listening (an agent joining a shared store loads the whole state first). */
const START_TIMEOUT_MS = 180_000;
/** The file bench/run.ts writes; run alone, this module sets its `cluster` key. */
const RESULTS_PATH = "bench/results.json";

const CHILD = fileURLToPath(new URL("./cluster-child.js", import.meta.url));

/** A PostgreSQL server for the section, and how to let go of it. */
interface PostgresServer {
  readonly url: string;
  /** Where it came from: the environment variable that names it, or a throw-away cluster. */
  readonly source: string;
  /** Stops and removes a throw-away cluster (nothing for a server named by the environment). */
  readonly stop: () => void;
}

/** A request measured on the stores. */
interface Scenario {
  readonly name: string;
  readonly label: string;
  readonly request: LoadRequest;
}

/** One load run's figures, as printed. */
export type RunFigures = Pick<LoadFigures, "requestsPerSecond" | "p50Ms" | "p99Ms" | "completed" | "non2xx" | "errors" | "bodyBytes">;

/** A load of jobs through `PUT /v1/jobs`. */
export interface JobLoadFigures {
  readonly jobs: number;
  readonly concurrency: number;
  readonly seconds: number;
  readonly jobsPerSecond: number;
  /** Jobs per second of each tenth of the load, in order. */
  readonly chunkJobsPerSecond: readonly number[];
  /** Whether it took longer than {@link SLOW_LOAD_SECONDS}. */
  readonly slow: boolean;
}

/** One request on both stores, with and without the answer cache. */
export interface ListRequestFigures {
  readonly label: string;
  readonly path: string;
  /** Whether PostgreSQL decides the filter itself (no re-check by the agent); null without a filter. */
  readonly exact: boolean | null;
  /** Jobs the answer holds. */
  readonly items: number;
  readonly cached: { readonly postgres: RunFigures; readonly memory: RunFigures; readonly postgresToMemory: number };
  readonly uncached: { readonly postgres: RunFigures; readonly memory: RunFigures; readonly postgresToMemory: number };
}

/** How the answers of the stores compare (each entry: "same", or what differs). */
export interface AnswerComparison {
  readonly label: string;
  readonly path: string;
  /** The consistent answer (cut by PostgreSQL) against the `?stale` one (cut from the agent's copy), bytes and headers. */
  readonly postgresToStale: string;
  /** The PostgreSQL agent's answer against the memory agent's: the same jobs in the same order, items alike but for indexes and times, the same next token. */
  readonly postgresToMemory: string;
}

/** The lists with one count of jobs. */
export interface ListSizeFigures {
  readonly jobs: number;
  readonly load: { readonly postgres: JobLoadFigures; readonly memory: JobLoadFigures; readonly memoryUncached: JobLoadFigures };
  /** How long an agent joining the shared store took to start (loading the whole state into its copy), ms. */
  readonly joinMs: number;
  /** Jobs {@link PAGE_FILTER} matches. */
  readonly filterMatches: number;
  readonly requests: Record<string, ListRequestFigures>;
  /** `?stale` paged list on the PostgreSQL agents: answered from the copy. */
  readonly stalePage: { readonly label: string; readonly path: string; readonly cached: RunFigures; readonly uncached: RunFigures; readonly staleToConsistent: { readonly cached: number; readonly uncached: number } };
  readonly answers: readonly AnswerComparison[];
  /** Every page of the filtered list, following the next tokens, on each store: the same jobs? */
  readonly walk: { readonly perPage: number; readonly pages: number; readonly postgres: number; readonly stale: number; readonly memory: number; readonly same: boolean; readonly ms: { readonly postgres: number; readonly memory: number } };
}

/** A fan-out's figures for one kind of blocking query. */
export interface FanOutRun {
  readonly queries: number;
  readonly path: string;
  /** From sending the registration (through the third agent) to its answer. */
  readonly putMs: number;
  /**
   * From the registration's answer to the first, median and last answer of a blocking query (body
   * read); negative when a query was answered before the registration was.
   */
  readonly afterPut: AnswerTimes;
  /** The same from sending the registration. */
  readonly afterSend: AnswerTimes;
  /** {@link afterPut} of the queries each agent held. */
  readonly perAgent: readonly ({ readonly agent: string; readonly queries: number } & AnswerTimes)[];
}

/** When the blocking queries were answered, in milliseconds. */
export interface AnswerTimes {
  readonly firstMs: number;
  readonly medianMs: number;
  readonly lastMs: number;
}

/** The first, median and last of `times` (sorted here), each minus `from`. */
function answerTimes(times: number[], from: number): AnswerTimes {
  times.sort((a, b) => a - b);
  return { firstMs: times[0]! - from, medianMs: median(times) - from, lastMs: times[times.length - 1]! - from };
}

/** The fan-out across agents. */
export interface ClusterFanOutFigures {
  readonly agents: readonly string[];
  readonly leader: string | null;
  readonly watchers: readonly string[];
  readonly writer: string;
  readonly jobs: number;
  readonly consistent: FanOutRun;
  readonly stale: FanOutRun | null;
  /** Larger counts tried first, and why they failed. */
  readonly failedAttempts: readonly { readonly queries: number; readonly error: string }[];
}

/** The figures of the cluster's section (bench/results.json's `cluster`). */
export interface ClusterBenchResults {
  readonly node: string;
  readonly date: string;
  readonly scale: number;
  readonly postgres: { readonly source: string; readonly version: string; readonly settings: Readonly<Record<string, string>> };
  readonly placementDelayMs: number;
  readonly load: { readonly connections: number; readonly durationMs: number; readonly warmupMs: number; readonly registrationConcurrency: number };
  readonly pageFilter: string;
  readonly fanOut: ClusterFanOutFigures | null;
  readonly lists: readonly ListSizeFigures[];
  readonly notes: readonly string[];
  readonly seconds: { readonly total: number; readonly fanOut: number; readonly lists: readonly number[] };
}

// ---------------------------------------------------------------------------------------------
// The PostgreSQL server.

/** The server of the environment, or a throw-away one; a string saying why not when there is none. */
async function postgresServer(): Promise<PostgresServer | string> {
  for (const name of ["BEXPR_BENCH_POSTGRES_URL", "BEXPR_TEST_POSTGRES_URL"]) {
    const url = process.env[name];
    if (url !== undefined && url !== "") return { url, source: name, stop: () => {} };
  }
  const bin = postgresBinDir();
  if (bin === undefined) return "neither BEXPR_BENCH_POSTGRES_URL nor BEXPR_TEST_POSTGRES_URL is set, and there is no /usr/lib/postgresql/*/bin/initdb and pg_ctl";
  try {
    const server = await ThrowawayPostgres.start({}, bin);
    return { url: server.url(), source: `a throw-away cluster of ${bin} (fsync off)`, stop: () => server.remove() };
  } catch (error) {
    return `a throw-away PostgreSQL cluster could not be started: ${(error as Error).message}`;
  }
}

/** A connection of the section's own to the server: its version and settings, and the schemas dropped at the end. */
async function adminClient(url: string): Promise<pg.Client> {
  const { default: pgModule } = await import("pg");
  const client = new pgModule.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {});
  await client.connect();
  return client;
}

// ---------------------------------------------------------------------------------------------
// The agents.

/** An agent in a process of its own. */
interface AgentProcess extends Server {
  readonly name: string;
  /** From `startAgent` to listening, in the child. */
  readonly startMs: number;
}

/** Forks an agent with `options` and waits for it to listen. */
async function startAgentProcess(name: string, options: AgentOptions): Promise<AgentProcess> {
  const { child, url, listening } = await startServer<ClusterChildMessage>(CHILD, [JSON.stringify(options)], START_TIMEOUT_MS);
  return { child, url, name, startMs: listening.kind === "listening" ? listening.startMs : Number.NaN };
}

/** Asks an agent's process how many blocking queries it holds and whether it leads. */
function probe(agent: AgentProcess): Promise<{ blockingQueries: number; leading: boolean }> {
  return ask<Extract<ClusterChildMessage, { kind: "probed" }>>(agent, { kind: "probe", collect: false } satisfies ClusterParentMessage, "probed");
}

/** Registers jobs `first` … `first + jobs - 1` ({@link jobSpec}), {@link LOAD_CONCURRENCY} in flight. */
async function loadJobs(origin: string, jobs: number, first = 0): Promise<JobLoadFigures> {
  const chunk = Math.max(1, Math.round(jobs / LOAD_CHUNKS));
  const { jobsPerSecond: rates, totalSeconds: seconds } = await registerJobs(origin, jobs, chunk, LOAD_CONCURRENCY, first);
  return { jobs, concurrency: LOAD_CONCURRENCY, seconds, jobsPerSecond: jobs / seconds, chunkJobsPerSecond: rates, slow: seconds > SLOW_LOAD_SECONDS };
}

const integer = (value: number) => Math.round(value).toLocaleString("en");
const decimal = (value: number, digits = 1) => value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const count = (value: number) => value.toLocaleString("en");
const pad = (text: string, width: number) => text.padStart(width);

// ---------------------------------------------------------------------------------------------
// The fan-out across agents.

/**
 * Parks `queries` blocking queries, half on each watcher, then registers one job through `writer`
 * and times how the watchers answer them all.
 */
async function fanOutOnce(watchers: readonly AgentProcess[], writer: AgentProcess, queries: number, stale: boolean, jobNumber: number): Promise<FanOutRun> {
  const index = await jobsIndex(writer.url);
  const fan = new FanOut(`/v1/jobs?per_page=${FAN_OUT_PER_PAGE}&index=${index}&wait=${FAN_OUT_WAIT}${stale ? "&stale" : ""}`, index);
  const shares = watchers.map((_, i) => Math.floor(queries / watchers.length) + (i < queries % watchers.length ? 1 : 0));
  const pools = watchers.map((watcher, i) => new Pool(watcher.url, { connections: shares[i]!, pipelining: 1 }));
  const watches: Promise<Watch>[][] = watchers.map(() => []);
  try {
    const opened = watchers.map(() => 0);
    while (opened.some((n, i) => n < shares[i]!)) {
      for (const [i, pool] of pools.entries()) {
        const batch = Math.min(FAN_OUT_BATCH, shares[i]! - opened[i]!);
        for (let j = 0; j < batch; j++) watches[i]!.push(fan.watch(pool));
        opened[i]! += batch;
      }
      const deadline = performance.now() + PARK_TIMEOUT_MS;
      for (;;) {
        const waiting = await Promise.all(watchers.map((watcher) => probe(watcher)));
        if (waiting.every((w, i) => w.blockingQueries >= opened[i]!)) break;
        if (fan.failure !== undefined) throw new Error(fan.failure);
        if (performance.now() > deadline) throw new Error(`timed out parking: ${waiting.map((w) => w.blockingQueries).join(" and ")} blocking queries waiting of ${opened.join(" and ")}`);
        await sleep(POLL_MS);
      }
    }
    const { putMs, times } = await fan.wake(writer.url, jobSpec(jobNumber, `fan-out-${stale ? "stale" : "consistent"}-${queries}`), watches, WAKE_TIMEOUT_MS);
    const perAgent = times.map((agentTimes, i) => ({ agent: watchers[i]!.name, queries: agentTimes.length, ...answerTimes(agentTimes, putMs) }));
    const all = times.flat();
    return { queries, path: fan.path, putMs, afterPut: answerTimes(all, putMs), afterSend: answerTimes(all, 0), perAgent };
  } finally {
    await Promise.all(pools.map((pool) => pool.destroy()));
  }
}

/** Waits until the watchers hold no blocking query (their clients went away). */
async function drain(watchers: readonly AgentProcess[]): Promise<void> {
  const deadline = performance.now() + PARK_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const waiting = await Promise.all(watchers.map((watcher) => probe(watcher)));
    if (waiting.every((w) => w.blockingQueries === 0)) return;
    await sleep(POLL_MS);
  }
}

function printFanOut(kind: string, run: FanOutRun): void {
  const { afterPut: t } = run;
  console.log(
    `${kind.padEnd(10)} ${pad(count(run.queries), 7)} ${pad(decimal(run.putMs), 8)} ${pad(decimal(t.firstMs), 8)} ${pad(decimal(t.medianMs), 8)} ${pad(decimal(t.lastMs), 8)}   ` +
      run.perAgent.map((a) => `${a.agent} ${count(a.queries)}: ${decimal(a.medianMs)}/${decimal(a.lastMs)}`).join(", "),
  );
}

/** Three agents on `schema`: blocking queries on two, the registration that wakes them through the third. */
async function clusterFanOut(url: string, schema: string): Promise<ClusterFanOutFigures | null> {
  const names = ["alpha", "beta", "gamma"];
  const agents: AgentProcess[] = [];
  try {
    // One at a time: the first takes the lease and leads.
    for (const name of names) agents.push(await startAgentProcess(name, { store: { url, schema }, nodeName: name, placementDelayMs: PLACEMENT_DELAY_MS }));
    const [alpha, beta, gamma] = agents as [AgentProcess, AgentProcess, AgentProcess];
    await loadJobs(gamma.url, FAN_OUT_JOBS);
    await waitUntilSettled(gamma.url);
    const leading = await Promise.all(agents.map((agent) => probe(agent)));
    const leader = agents.find((_, i) => leading[i]!.leading)?.name ?? null;
    const watchers = [alpha, beta];
    console.log(
      `\nfan-out across agents: ${names.join(", ")} on one schema (${leader ?? "none"} leads), ${count(FAN_OUT_JOBS)} jobs; blocking queries ` +
        `GET /v1/jobs?per_page=${FAN_OUT_PER_PAGE}&index=<X-Svc-Index>&wait=${FAN_OUT_WAIT} on ${watchers.map((w) => w.name).join(" and ")} (half each), one PUT /v1/jobs through ${gamma.name}`,
    );
    const limit = Math.min(openFilesLimit("self") - FD_HEADROOM, ...watchers.map((w) => watchers.length * (openFilesLimit(w.child.pid) - FD_HEADROOM)));
    const failedAttempts: { queries: number; error: string }[] = [];
    let jobNumber = FAN_OUT_JOBS;
    for (const queries of FAN_OUT_COUNTS) {
      if (queries > limit) {
        failedAttempts.push({ queries, error: `not tried: the open-files limit allows about ${limit} connections` });
        continue;
      }
      let consistent: FanOutRun;
      // The scheduler's writes for the last registration are done before queries are parked.
      await waitUntilSettled(gamma.url);
      try {
        consistent = await fanOutOnce(watchers, gamma, queries, false, jobNumber++);
      } catch (error) {
        failedAttempts.push({ queries, error: (error as Error).message });
        await drain(watchers);
        continue;
      }
      await drain(watchers);
      let stale: FanOutRun | null = null;
      await waitUntilSettled(gamma.url);
      try {
        stale = await fanOutOnce(watchers, gamma, queries, true, jobNumber++);
      } catch (error) {
        failedAttempts.push({ queries, error: `?stale: ${(error as Error).message}` });
      }
      console.log("first, median, last: ms from the registration's answer to the blocking queries' answers (body read)");
      console.log(`${"".padEnd(10)} ${pad("queries", 7)} ${pad("PUT ms", 8)} ${pad("first", 8)} ${pad("median", 8)} ${pad("last", 8)}   per agent: median/last`);
      printFanOut("consistent", consistent);
      if (stale !== null) printFanOut("?stale", stale);
      for (const attempt of failedAttempts) console.log(`  (${count(attempt.queries)} queries: ${attempt.error})`);
      return { agents: names, leader, watchers: watchers.map((w) => w.name), writer: gamma.name, jobs: FAN_OUT_JOBS, consistent, stale, failedAttempts };
    }
    console.log("fan-out across agents: not even the smallest count could be parked");
    for (const attempt of failedAttempts) console.log(`  (${count(attempt.queries)} queries: ${attempt.error})`);
    return null;
  } finally {
    await Promise.all(agents.map((agent) => stopServer(agent)));
  }
}

// ---------------------------------------------------------------------------------------------
// Lists on PostgreSQL against memory.

/** Whether PostgreSQL decides `filter` itself, as the agent pushes it down (typed mode, the job list's filter target). */
function exactness(filter: string): boolean {
  return toSql(compileFilter(filter, { schema: jobFilterTarget }), { column: "document", schema: jobFilterTarget }).exact;
}

/** An answer: status, body text, and the headers compared. */
interface Answer {
  readonly status: number;
  readonly body: string;
  readonly index: string;
  readonly nextToken: string;
}

async function fetchAnswer(origin: string, path: string): Promise<Answer> {
  const response = await undiciRequest(`${origin}${path}`);
  const body = await response.body.text();
  const header = (name: string) => String(response.headers[name] ?? "");
  return { status: response.statusCode, body, index: header("x-svc-index"), nextToken: header("x-svc-nexttoken") };
}

/** A list item without what depends on the order of the writes (indexes) and the clock (times). */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (!/Index$|Time$/.test(key)) out[key] = normalized(field);
  return out;
}

/** "same", or what differs between two answers; `loose` compares items without indexes and times. */
function compareAnswers(a: Answer, b: Answer, loose: boolean): string {
  if (a.status !== b.status) return `status ${a.status} vs ${b.status}`;
  if (a.nextToken !== b.nextToken) return `next token ${JSON.stringify(a.nextToken)} vs ${JSON.stringify(b.nextToken)}`;
  if (!loose) {
    if (a.index !== b.index) return `X-Svc-Index ${a.index} vs ${b.index}`;
    return a.body === b.body ? "same" : `bodies differ (${a.body.length} vs ${b.body.length} bytes)`;
  }
  if (a.status !== 200) return a.body === b.body ? "same" : `bodies differ: ${a.body.slice(0, 200)} vs ${b.body.slice(0, 200)}`;
  const left = JSON.parse(a.body) as { ID: string }[];
  const right = JSON.parse(b.body) as { ID: string }[];
  if (left.length !== right.length) return `${left.length} vs ${right.length} items`;
  for (const [i, item] of left.entries()) {
    if (item.ID !== right[i]!.ID) return `item ${i}: ${item.ID} vs ${right[i]!.ID}`;
    const x = JSON.stringify(normalized(item));
    const y = JSON.stringify(normalized(right[i]));
    if (x !== y) return `item ${i} (${item.ID}) differs: ${x.slice(0, 300)} vs ${y.slice(0, 300)}`;
  }
  return "same";
}

/** Every page of `path` (with `per_page`), following the next tokens: the IDs, the pages, the time. */
async function walkPages(origin: string, path: string): Promise<{ ids: string[]; pages: number; ms: number }> {
  const ids: string[] = [];
  let token = "";
  let pages = 0;
  const start = performance.now();
  do {
    const answer = await fetchAnswer(origin, `${path}${token === "" ? "" : `&next_token=${encodeURIComponent(token)}`}`);
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.body}`);
    ids.push(...(JSON.parse(answer.body) as { ID: string }[]).map((item) => item.ID));
    token = answer.nextToken;
    pages++;
  } while (token !== "");
  return { ids, pages, ms: performance.now() - start };
}

function runFigures(figures: LoadFigures): RunFigures {
  const { requestsPerSecond, p50Ms, p99Ms, completed, non2xx, errors, bodyBytes } = figures;
  return { requestsPerSecond, p50Ms, p99Ms, completed, non2xx, errors, bodyBytes };
}

const cells = (f: RunFigures) => `${pad(decimal(f.requestsPerSecond), 9)} ${pad(decimal(f.p50Ms), 7)} ${pad(decimal(f.p99Ms), 7)}`;
const problems = (...runs: RunFigures[]) => (runs.some((f) => f.non2xx > 0 || f.errors > 0) ? `   (non-2xx ${runs.map((f) => f.non2xx).join("/")}, errors ${runs.map((f) => f.errors).join("/")})` : "");

/** The lists with `jobs` jobs: a PostgreSQL agent on `schema` (and a second one without the answer cache) against memory agents. */
async function listSize(url: string, schema: string, jobs: number): Promise<ListSizeFigures> {
  const agents: AgentProcess[] = [];
  const clients: LoadClient[] = [];
  const start = async (name: string, options: AgentOptions) => {
    const agent = await startAgentProcess(name, { placementDelayMs: PLACEMENT_DELAY_MS, ...options });
    agents.push(agent);
    return agent;
  };
  try {
    console.log(`\nlists with ${count(jobs)} jobs: an agent on PostgreSQL against an agent on memory`);
    const uncachedLimits = { limits: { responseCacheBytes: 0 } };
    const postgres = await start(`pg-${jobs}`, { store: { url, schema }, nodeName: `pg-${jobs}` });
    const memory = await start(`memory-${jobs}`, {});
    const rates = (load: JobLoadFigures) => `${integer(load.jobsPerSecond)} jobs/s (${decimal(load.seconds)} s; per tenth: ${load.chunkJobsPerSecond.map(integer).join(" ")})`;
    const postgresLoad = await loadJobs(postgres.url, jobs);
    await waitUntilSettled(postgres.url);
    console.log(`registered, ${LOAD_CONCURRENCY} in flight: PostgreSQL ${rates(postgresLoad)}${postgresLoad.slow ? `   — slower than ${SLOW_LOAD_SECONDS} s` : ""}`);
    const memoryLoad = await loadJobs(memory.url, jobs);
    await waitUntilSettled(memory.url);
    console.log(`${" ".repeat(`registered, ${LOAD_CONCURRENCY} in flight: `.length)}memory ${rates(memoryLoad)}`);
    // The same stores without the answer cache: a second agent joins the shared schema (it loads the whole state), a second memory agent is loaded anew.
    const postgresUncached = await start(`pg-${jobs}-uncached`, { store: { url, schema }, nodeName: `pg-${jobs}-uncached`, ...uncachedLimits });
    const memoryUncached = await start(`memory-${jobs}-uncached`, uncachedLimits);
    const memoryUncachedLoad = await loadJobs(memoryUncached.url, jobs);
    await waitUntilSettled(memoryUncached.url);
    console.log(
      `a second PostgreSQL agent (no answer cache) joins the schema in ${decimal(postgresUncached.startMs / 1000)} s (loading the state); a second memory agent (no answer cache) loads ${rates(memoryUncachedLoad)}`,
    );

    const selectiveId = jobSpec(Math.floor(jobs / 2)).ID as string;
    const selectiveFilter = `ID == "${selectiveId}"`;
    const scenarios: (Scenario & { filter?: string })[] = [
      { name: "page", label: "GET /v1/jobs?per_page=100", request: { path: "/v1/jobs?per_page=100" } },
      { name: "filteredPage", label: "…?per_page=100&filter=F", request: { path: `/v1/jobs?per_page=100&filter=${encodeURIComponent(PAGE_FILTER)}` }, filter: PAGE_FILTER },
      { name: "selective", label: `…?filter=ID == "${selectiveId}"`, request: { path: `/v1/jobs?filter=${encodeURIComponent(selectiveFilter)}` }, filter: selectiveFilter },
    ];
    const stalePath = "/v1/jobs?per_page=100&stale";

    // The answers of the stores, before the load.
    const answers: AnswerComparison[] = [];
    const filterMatches = (JSON.parse((await fetchAnswer(memory.url, `/v1/jobs?filter=${encodeURIComponent(PAGE_FILTER)}`)).body) as unknown[]).length;
    const compared = [
      ...scenarios.map((s) => ({ label: s.label, path: s.request.path })),
      { label: "…?per_page=100&next_token=<the 11th job>", path: `/v1/jobs?per_page=100&next_token=${encodeURIComponent(`default.${jobSpec(10).ID as string}`)}` },
      { label: "…?filter=F (every match)", path: `/v1/jobs?filter=${encodeURIComponent(PAGE_FILTER)}` },
    ];
    for (const { label, path } of compared) {
      const separator = path.includes("?") ? "&" : "?";
      const [consistent, stale, uncached, onMemory] = await Promise.all([
        fetchAnswer(postgres.url, path),
        fetchAnswer(postgres.url, `${path}${separator}stale`),
        fetchAnswer(postgresUncached.url, path),
        fetchAnswer(memory.url, path),
      ]);
      const postgresToStale = compareAnswers(consistent, stale, false);
      const toUncached = compareAnswers(consistent, uncached, false);
      answers.push({ label, path, postgresToStale: toUncached === "same" ? postgresToStale : `${postgresToStale}; against the other PostgreSQL agent: ${toUncached}`, postgresToMemory: compareAnswers(consistent, onMemory, true) });
    }
    const walkPath = `/v1/jobs?per_page=100&filter=${encodeURIComponent(PAGE_FILTER)}`;
    const [walkPostgres, walkStale, walkMemory] = [await walkPages(postgresUncached.url, walkPath), await walkPages(postgresUncached.url, `${walkPath}&stale`), await walkPages(memoryUncached.url, walkPath)];
    const sameWalk = JSON.stringify(walkPostgres.ids) === JSON.stringify(walkMemory.ids) && JSON.stringify(walkStale.ids) === JSON.stringify(walkMemory.ids);
    const walk = {
      perPage: 100,
      pages: walkMemory.pages,
      postgres: walkPostgres.ids.length,
      stale: walkStale.ids.length,
      memory: walkMemory.ids.length,
      same: sameWalk,
      ms: { postgres: walkPostgres.ms, memory: walkMemory.ms },
    };
    const differing = answers.filter((a) => a.postgresToStale !== "same" || a.postgresToMemory !== "same");
    console.log(
      `answers compared (consistent on PostgreSQL against ?stale and the other PostgreSQL agent, byte for byte; against memory, items without indexes and times): ` +
        `${differing.length === 0 ? `the same for all ${answers.length} requests` : `${differing.length} of ${answers.length} differ`}; every page of F (${count(walk.pages)} pages of 100, uncached): ` +
        `${walk.same ? `the same ${count(walk.memory)} jobs` : `PostgreSQL ${count(walk.postgres)}, ?stale ${count(walk.stale)}, memory ${count(walk.memory)} jobs, not the same`}, in ${decimal(walk.ms.postgres / 1000, 2)} s on PostgreSQL, ${decimal(walk.ms.memory / 1000, 2)} s on memory`,
    );
    for (const a of differing) console.log(`  ${a.label}: against ?stale ${a.postgresToStale}; against memory ${a.postgresToMemory}`);

    console.log(
      `closed loop, ${DEFAULT_CONNECTIONS} connections, ${DURATION_MS / 1000} s windows after ${WARMUP_MS / 1000} s of warm-up; F = ${PAGE_FILTER} (${count(filterMatches)} jobs); ` +
        `cached: the agent's answer cache (default), uncached: responseCacheBytes 0 (each answer cut anew)`,
    );
    console.log(
      `${"request".padEnd(38)} ${"".padEnd(8)} ${pad("pg req/s", 9)} ${pad("p50 ms", 7)} ${pad("p99 ms", 7)}  ${pad("mem req/s", 9)} ${pad("p50 ms", 7)} ${pad("p99 ms", 7)}  pg/mem`,
    );
    const client = (agent: AgentProcess) => {
      const made = createLoadClient(agent.url, DEFAULT_CONNECTIONS);
      clients.push(made);
      return made;
    };
    const pairs = { cached: { postgres: client(postgres), memory: client(memory) }, uncached: { postgres: client(postgresUncached), memory: client(memoryUncached) } };
    const run = async (loadClient: LoadClient, request: LoadRequest) => runFigures(await loadClient.run(request, { durationMs: DURATION_MS, warmupMs: WARMUP_MS }));
    const requests: Record<string, ListRequestFigures> = {};
    for (const scenario of scenarios) {
      const measured = {} as Record<"cached" | "uncached", ListRequestFigures["cached"]>;
      for (const mode of ["cached", "uncached"] as const) {
        const onPostgres = await run(pairs[mode].postgres, scenario.request);
        const onMemory = await run(pairs[mode].memory, scenario.request);
        measured[mode] = { postgres: onPostgres, memory: onMemory, postgresToMemory: onPostgres.requestsPerSecond / onMemory.requestsPerSecond };
        console.log(`${scenario.label.padEnd(38)} ${mode.padEnd(8)} ${cells(onPostgres)}  ${cells(onMemory)}  ${pad(`${measured[mode].postgresToMemory.toFixed(3)}×`, 7)}${problems(onPostgres, onMemory)}`);
      }
      const answer = await fetchAnswer(memory.url, scenario.request.path);
      requests[scenario.name] = {
        label: scenario.label,
        path: scenario.request.path,
        exact: scenario.filter === undefined ? null : exactness(scenario.filter),
        items: (JSON.parse(answer.body) as unknown[]).length,
        ...measured,
      };
    }
    const staleCached = await run(pairs.cached.postgres, { path: stalePath });
    const staleUncached = await run(pairs.uncached.postgres, { path: stalePath });
    const stalePage = {
      label: "GET /v1/jobs?per_page=100&stale",
      path: stalePath,
      cached: staleCached,
      uncached: staleUncached,
      staleToConsistent: {
        cached: staleCached.requestsPerSecond / requests["page"]!.cached.postgres.requestsPerSecond,
        uncached: staleUncached.requestsPerSecond / requests["page"]!.uncached.postgres.requestsPerSecond,
      },
    };
    console.log(`${"…?per_page=100&stale (pg only)".padEnd(38)} ${"cached".padEnd(8)} ${cells(staleCached)}  ${pad(`${stalePage.staleToConsistent.cached.toFixed(3)}× the consistent page`, 30)}${problems(staleCached)}`);
    console.log(`${"".padEnd(38)} ${"uncached".padEnd(8)} ${cells(staleUncached)}  ${pad(`${stalePage.staleToConsistent.uncached.toFixed(3)}× the consistent page`, 30)}${problems(staleUncached)}`);
    console.log(
      `(exact pushdown: F ${requests["filteredPage"]!.exact ? "yes" : "no, re-checked"}, the ID filter ${requests["selective"]!.exact ? "yes" : "no, re-checked"}; ` +
        `each PostgreSQL agent has a pool of 8 connections to the server; load generator and agents share the machine's ${cpus().length} CPUs with the server)`,
    );
    return {
      jobs,
      load: { postgres: postgresLoad, memory: memoryLoad, memoryUncached: memoryUncachedLoad },
      joinMs: postgresUncached.startMs,
      filterMatches,
      requests,
      stalePage,
      answers,
      walk,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(agents.map((agent) => stopServer(agent)));
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Runs the cluster's section: finds or starts a PostgreSQL server, measures, prints a readable
 * section, and returns the figures; null (after saying why) when there is no PostgreSQL server.
 * The agents are stopped, the schemas dropped and a throw-away server removed at the end, also
 * when a measurement fails.
 */
export async function clusterBench(): Promise<ClusterBenchResults | null> {
  const started = performance.now();
  console.log(`\nthe cluster: agents sharing their state through PostgreSQL, each in a process of its own${SCALE === 1 ? "" : ` (BEXPR_BENCH_CLUSTER_SCALE ${SCALE})`}`);
  const server = await postgresServer();
  if (typeof server === "string") {
    console.log(`the cluster's section is skipped: ${server}`);
    return null;
  }
  const prefix = `bench_${Date.now().toString(36)}_${process.pid}`;
  const schemas: string[] = [];
  const schema = (suffix: string) => {
    const name = `${prefix}_${suffix}`;
    schemas.push(name);
    return name;
  };
  let admin: pg.Client | undefined;
  /** Drops the schemas and stops a throw-away server: at the end, or when the run is interrupted. */
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      if (admin !== undefined) {
        for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch((error: Error) => console.log(`could not drop the schema ${name}: ${error.message}`));
        await admin.end().catch(() => {});
      }
      server.stop();
    })());
  const interrupted = (signal: NodeJS.Signals) => {
    console.log(`
${signal}: dropping the cluster's schemas${server.source.startsWith("a throw-away") ? " and stopping its PostgreSQL server" : ""}`);
    const exit = () => process.exit(signal === "SIGINT" ? 130 : 143);
    setTimeout(exit, 10_000).unref();
    void cleanUp().then(exit, exit);
  };
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  try {
    try {
      admin = await adminClient(server.url);
    } catch (error) {
      console.log(`the cluster's section is skipped: PostgreSQL at ${server.source} cannot be reached: ${(error as Error).message}`);
      return null;
    }
    const [{ version }] = (await admin.query<{ version: string }>("SELECT version() AS version")).rows as [{ version: string }];
    const settings: Record<string, string> = {};
    for (const name of ["fsync", "synchronous_commit", "shared_buffers", "max_connections"]) settings[name] = String((await admin.query(`SHOW ${name}`)).rows[0]?.[name]);
    const shortVersion = version.split(" on ")[0]!;
    console.log(`PostgreSQL: ${shortVersion}, from ${server.source}; ${Object.entries(settings).map(([k, v]) => `${k} ${v}`).join(", ")}`);
    const notes: string[] = [];

    const fanOutStarted = performance.now();
    const fanOut = await clusterFanOut(server.url, schema("fanout"));
    const listsStarted = performance.now();
    const lists: ListSizeFigures[] = [];
    const listSeconds: number[] = [];
    for (const jobs of LIST_JOBS) {
      const sizeStarted = performance.now();
      const figures = await listSize(server.url, schema(`list${jobs}`), jobs);
      lists.push(figures);
      listSeconds.push((performance.now() - sizeStarted) / 1000);
      if (figures.load.postgres.slow) notes.push(`registering ${count(jobs)} jobs on PostgreSQL took ${decimal(figures.load.postgres.seconds)} s, more than ${SLOW_LOAD_SECONDS} s`);
      const differing = figures.answers.filter((a) => a.postgresToStale !== "same" || a.postgresToMemory !== "same");
      if (differing.length > 0 || !figures.walk.same) notes.push(`${count(jobs)} jobs: answers differ between the stores (see lists[].answers and lists[].walk)`);
    }
    const finished = performance.now();
    const seconds = { total: (finished - started) / 1000, fanOut: (listsStarted - fanOutStarted) / 1000, lists: listSeconds };
    for (const note of notes) console.log(`note: ${note}`);
    console.log(`\nthe cluster's section took ${decimal(seconds.total)} s (fan-out ${decimal(seconds.fanOut)}, lists ${listSeconds.map((s) => decimal(s)).join(" and ")})`);
    return {
      node: process.version,
      date: new Date().toISOString(),
      scale: SCALE,
      postgres: { source: server.source, version: shortVersion, settings },
      placementDelayMs: PLACEMENT_DELAY_MS,
      load: { connections: DEFAULT_CONNECTIONS, durationMs: DURATION_MS, warmupMs: WARMUP_MS, registrationConcurrency: LOAD_CONCURRENCY },
      pageFilter: PAGE_FILTER,
      fanOut,
      lists,
      notes,
      seconds,
    };
  } finally {
    await cleanUp();
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
  }
}

/** Run alone (`npm run bench:cluster`): the section, and its figures as `cluster` in bench/results.json. */
async function main(): Promise<void> {
  const results = await clusterBench();
  const previous = JSON.parse(readFileSync(RESULTS_PATH, "utf8")) as Record<string, unknown>;
  writeFileSync(RESULTS_PATH, `${JSON.stringify({ ...previous, cluster: results }, null, 2)}\n`);
  console.log(`wrote the cluster's figures to ${RESULTS_PATH}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
