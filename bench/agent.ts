/**
 * The agent's section of `npm run bench` (also alone: `npm run bench:agent`). The agent runs in a
 * process of its own (bench/agent-child.ts), started through the public API only (`startAgent`
 * from `bexpr/server`) and driven over HTTP by wrk (bench/wrk.ts; without it, the undici client of
 * bench/load.ts, labelled client-bound). It measures:
 *
 * - registering 10,000 jobs (`PUT /v1/jobs`, 8 in flight), in jobs per second per 1,000, so that a
 *   cost growing with the number of stored jobs shows;
 * - the agent's RSS empty and with the 10,000 jobs, per stored job;
 * - four list requests under closed-loop load, against a bare `node:http` server
 *   (bench/bare-child.ts) that answers the very bytes the agent answered for the same request, in
 *   turns (agent, bare, agent, bare…), medians and worst of the rounds, with the CPU per request
 *   of the server and of the client; the bare server must answer {@link CLIENT_HEADROOM} times
 *   the agent's rate, or the row says that the client may be the limit;
 * - a fan-out: thousands of parked blocking queries, the RSS they hold, and how long one
 *   registration takes to answer them all.
 *
 * Figures are printed and returned (bench/run.ts writes them to bench/results.json under `agent`;
 * run alone, this module writes that key itself), never asserted.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { Pool, request as undiciRequest } from "undici";
import type { AgentChildMessage, AgentParentMessage } from "./agent-child.js";
import type { BareChildMessage, RecordedResponse } from "./bare-child.js";
import { DEFAULT_CONNECTIONS, DEFAULT_DURATION_MS, DEFAULT_WARMUP_MS, type LoadClientKind, type LoadFigures, type LoadRequest } from "./load.js";
import { createLoadClient, describeLoadClient } from "./wrk.js";
import { mean, median, quantile } from "./stats.js";
import { postgresSection, type PostgresSectionFigures } from "./agent-postgres.js";
import { README_AGENT_END, README_AGENT_START, renderAgentFigures, withReadmeSection } from "./report.js";
import { compileFilter } from "bexpr";
import { DEFAULT_SEED, jobListItems, jobSpec as dataJobSpec, newFilter, newFilterPredicate } from "./data.js";

/** Jobs registered before the list requests are measured. */
const JOBS = 10_000;
/** Registrations per printed rate. */
const REGISTRATION_CHUNK = 1_000;
/** Registrations in flight at once: a busy CI pipeline, not a flood. */
const REGISTRATION_CONCURRENCY = 8;
/**
 * The large registration: jobs registered into a fresh agent, and the chunk its rate is given per:
 * 100,000 with `BENCH_LARGE=1` (the issue's figure; a few minutes when registering slows down),
 * 30,000 by default, so that the section stays short.
 */
const LARGE_JOBS = process.env["BENCH_LARGE"] === "1" ? 100_000 : 30_000;
const LARGE_CHUNK = 10_000;
/**
 * The agent's simulated placement (`placementDelayMs`): short, so that the scheduler's work for
 * the last job is done soon after it is registered and the state stands still while lists are
 * measured (the work per job is the same whatever the delay).
 */
const PLACEMENT_DELAY_MS = 100;
/** Measured rounds of each request on each server; the figures are their medians (and worst rounds). */
const ROUNDS = 5;
/**
 * How many times the agent's rate the bare server must answer under the same client for the
 * agent's rate to be the agent's own: below it, the client (or the machine's cores, which it
 * shares) may be what limits both, and the row says so. The bare server does nothing but write
 * recorded bytes, so a client that is not the limit drives it well past any agent's rate.
 */
export const CLIENT_HEADROOM = 1.5;

/**
 * Whether the bare server's rate (`bareRate`) is short of {@link CLIENT_HEADROOM} times the
 * agent's under the same client, or nothing (a bare server that answered nothing proves nothing).
 */
export function clientMayLimit(bareRate: number, agentRate: number): boolean {
  return !(bareRate > 0 && bareRate >= CLIENT_HEADROOM * agentRate);
}
/**
 * Connections for the gzip-encoded whole list: the agent compresses about 6 MB for every such
 * request, by far its slowest answer (tens a second), so 50 connections would only lengthen the
 * queue (a p50 of 50 answers' time) and leave a 5-second window with few more answers than
 * connections; 8 keep it busy with a short queue.
 */
const GZIP_CONNECTIONS = 8;
/** A filter that matches some of the registered jobs and not others (see {@link jobSpec}). */
export const MIXED_FILTER = '"dc1" in Datacenters and Priority == 50 and not Stop == true';
/** Blocking queries parked for the fan-out; fewer when the open-files limit does not allow as many. */
const FAN_OUT_COUNTS = [10_000, 5_000, 2_000, 1_000] as const;
/** File descriptors each process keeps besides the fan-out's sockets (listeners, pipes, the pools). */
const FD_HEADROOM = 256;
/** Blocking queries opened at once: more would overflow the listen backlog (511) and wait for SYN retries. */
const FAN_OUT_BATCH = 500;
/**
 * Attempts of one count of the fan-out when the agent wrote on its own while the queries were
 * parked (a deployment's progress deadline, say: its scheduler runs on a real clock), which woke
 * them before the registration could: the fan-out is tried again, at the index then.
 */
const FAN_OUT_ATTEMPTS = 3;
/** The blocking queries' `?wait`: longer than the whole fan-out, so that none times out. */
const FAN_OUT_WAIT = "60s";
/**
 * The blocking queries ask for one job, not the whole list: with 10,000 jobs the whole list is
 * about 6 MB, so waking 10,000 of them would make some 60 GB of answers at once, more memory than
 * the machine has, for one client process to read; one job a query measures the wake-up itself.
 */
const FAN_OUT_PER_PAGE = 1;
/** How long a batch of blocking queries may take to be parked. */
const PARK_TIMEOUT_MS = 20_000;
/** How long the parked queries may take to answer after the registration that wakes them. */
const WAKE_TIMEOUT_MS = 30_000;
/** How often the agent is asked how many queries it parked. */
const POLL_MS = 50;
/** How long the agent's index must stand still to call the scheduler done. */
const SETTLED_MS = 4 * PLACEMENT_DELAY_MS;
/** How long a child may take to start listening. */
const START_TIMEOUT_MS = 30_000;
/** How long a child may take to exit after SIGTERM before it is killed. */
const EXIT_TIMEOUT_MS = 2_000;
/** The file bench/run.ts writes; run alone, this module sets its `agent` key. */
const RESULTS_PATH = "bench/results.json";
/** The README, whose agent section this module rewrites when run alone. */
const README_PATH = "README.md";

const KIB = 1024;
const MIB = 1024 * KIB;

const AGENT_CHILD = fileURLToPath(new URL("./agent-child.js", import.meta.url));
const BARE_CHILD = fileURLToPath(new URL("./bare-child.js", import.meta.url));

/** A request measured on both servers. */
interface Scenario {
  readonly name: string;
  readonly label: string;
  readonly request: LoadRequest;
  readonly connections: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "page", label: "GET /v1/jobs?per_page=100", request: { path: "/v1/jobs?per_page=100" }, connections: DEFAULT_CONNECTIONS },
  {
    name: "filteredPage",
    label: "GET /v1/jobs?per_page=100&filter=M",
    request: { path: `/v1/jobs?per_page=100&filter=${encodeURIComponent(MIXED_FILTER)}` },
    connections: DEFAULT_CONNECTIONS,
  },
  {
    name: "allNamespacesFilteredPage",
    label: "GET /v1/jobs?namespace=*&per_page=100&filter=M",
    request: { path: `/v1/jobs?namespace=*&per_page=100&filter=${encodeURIComponent(MIXED_FILTER)}` },
    connections: DEFAULT_CONNECTIONS,
  },
  { name: "all", label: "GET /v1/jobs (the default namespace)", request: { path: "/v1/jobs" }, connections: DEFAULT_CONNECTIONS },
  {
    name: "allGzip",
    label: "GET /v1/jobs, Accept-Encoding: gzip",
    request: { path: "/v1/jobs", headers: { "accept-encoding": "gzip" } },
    connections: GZIP_CONNECTIONS,
  },
];

/** The medians of a request's rounds on one server. */
export type ServerFigures = Pick<LoadFigures, "requestsPerSecond" | "p50Ms" | "p99Ms" | "non2xx" | "errors">;

/** One request on both servers. */
export interface RequestFigures {
  readonly label: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  /** Bytes of the answer's body, as sent (gzip-encoded for `allGzip`). */
  readonly bodyBytes: number;
  /** Jobs in the answer (before compression). */
  readonly items: number;
  /** Rounds whose answers were not, on average, as long as the recorded answer (0: every answer had the recorded size). */
  readonly sizeMismatches: number;
  readonly agent: ServerFigures;
  readonly bare: ServerFigures;
  /** The agent's requests per second over the bare server's. */
  readonly agentToBare: number;
  /** The agent's worst round over the bare server's median (requests per second). */
  readonly agentToBareWorst: number;
  /** The agent process's CPU per answered request, ms: median of the rounds, and the worst round's. */
  readonly agentCpuMsPerRequest: number;
  readonly agentCpuMsPerRequestWorst: number;
  /** The client that made the load. */
  readonly client: LoadClientKind;
  /** The bare server's process's CPU per answered request, ms (median of the rounds). */
  readonly bareCpuMsPerRequest: number;
  /** The client's CPU per answered request, ms, while loading the agent and while loading the bare server (medians). */
  readonly clientCpuMsPerRequest: { readonly agent: number; readonly bare: number };
  /** The bare server's requests per second over the agent's (medians): below {@link CLIENT_HEADROOM}, the client may be the limit. */
  readonly bareToAgent: number;
  /** Whether {@link bareToAgent} is below {@link CLIENT_HEADROOM}. */
  readonly clientMayLimit: boolean;
  /** Every round, in the order they ran. */
  readonly rounds: { readonly agent: readonly LoadFigures[]; readonly bare: readonly LoadFigures[] };
}

/** The blocking fan-out. */
export interface FanOutFigures {
  /** Blocking queries parked at once. */
  readonly queries: number;
  /** Their request, with the index they waited past. */
  readonly path: string;
  /** Larger counts tried first, and why they failed. */
  readonly failedAttempts: readonly { readonly queries: number; readonly error: string }[];
  /** The agent's RSS at rest ({@link AgentRss}) before the queries are parked, and with them parked. */
  readonly rssBeforeBytes: number;
  readonly rssParkedBytes: number;
  /** (parked − before) / queries. */
  readonly rssBytesPerQuery: number;
  /** From sending the registration that wakes them to its answer. */
  readonly putMs: number;
  /** From sending the registration to the first, median and last answer of a blocking query (body read). */
  readonly firstAnswerMs: number;
  readonly medianAnswerMs: number;
  readonly lastAnswerMs: number;
}

/** A registration through `PUT /v1/jobs`. */
export interface RegistrationFigures {
  readonly concurrency: number;
  readonly chunk: number;
  /** Jobs per second of each chunk, in order. */
  readonly jobsPerSecond: readonly number[];
  readonly medianJobsPerSecond: number;
  /** The slowest chunk's rate. */
  readonly worstJobsPerSecond: number;
  /** The last chunk's rate over the first's: below 1 when registering slows as the store grows. */
  readonly lastToFirst: number;
  readonly totalSeconds: number;
}

/**
 * Requests that each carry a filter never seen before (bench/data.ts's `newFilter`), so that no
 * cache answers: the agent's rate and its CPU per request, against the hand-written JavaScript of
 * the same filters over the same rows (the job list items the agent lists, fetched once).
 */
export interface NewFilterFigures {
  readonly label: string;
  /** The path of the first request. */
  readonly example: string;
  readonly connections: number;
  /** Rows the filter is evaluated on (the jobs of the namespaces read). */
  readonly rows: number;
  readonly agent: ServerFigures;
  /** The agent process's CPU (user + system) per answered request, median of the rounds, and the worst round's. */
  readonly agentCpuMsPerRequest: number;
  readonly agentCpuMsPerRequestWorst: number;
  /** The client that made the load, and its CPU per answered request, ms (median of the rounds). */
  readonly client: LoadClientKind;
  readonly clientCpuMsPerRequest: number;
  /** The hand-written predicate of each filter over the same rows, ms per pass (median and p99 over the filters). */
  readonly handMsPerPass: number;
  readonly handMsPerPassP99: number;
  /** The agent's CPU per request over the hand-written pass. */
  readonly cpuToHand: number;
  /** Compiling each filter with bexpr and filtering the same rows with it in the bench's process, ms (median and p99 over the filters): the issue's "in-process compile + filter". */
  readonly inProcessMs: number;
  readonly inProcessMsP99: number;
  /** The same, the mean over the filters: what the agent's CPU per request (a round's CPU over its requests, a mean) is set against. */
  readonly inProcessMeanMs: number;
  /** The agent's CPU per request over the in-process compile + filter, mean against mean. */
  readonly cpuToInProcess: number;
  readonly rounds: readonly (LoadFigures & { readonly cpuMsPerRequest: number })[];
}

/** The figures of the agent's section (bench/results.json's `agent`). */
export interface AgentBenchResults {
  readonly node: string;
  readonly date: string;
  readonly jobs: number;
  readonly registration: RegistrationFigures;
  /**
   * The agent's RSS ({@link AgentRss}) empty and with {@link JOBS} jobs: at rest (`emptyRssBytes`,
   * `loadedRssBytes`, and the difference per job), and just after a full collection (`…PeakBytes`).
   */
  readonly memory: {
    readonly emptyRssBytes: number;
    readonly loadedRssBytes: number;
    readonly rssBytesPerJob: number;
    readonly emptyRssPeakBytes: number;
    readonly loadedRssPeakBytes: number;
  };
  readonly load: {
    readonly rounds: number;
    readonly durationMs: number;
    readonly warmupMs: number;
    /** The client that made the load ({@link describeLoadClient}). */
    readonly client: string;
    /** Jobs of the {@link JOBS} that {@link MIXED_FILTER} matches. */
    readonly filterMatches: number;
    readonly requests: Record<string, RequestFigures>;
  };
  /** Null when not even the smallest count could be parked. */
  readonly fanOut: FanOutFigures | null;
  /** Requests with a filter never seen before each, on the memory agent. */
  readonly newFilters: Record<string, NewFilterFigures>;
  /** The PostgreSQL store beside the memory store (bench/agent-postgres.ts); null when it could not run. */
  readonly postgres: PostgresSectionFigures | null;
  /** {@link LARGE_JOBS} jobs registered into a fresh agent: the rate per {@link LARGE_CHUNK}, and its RSS then, at rest and just after a full collection ({@link AgentRss}). */
  readonly largeRegistration: RegistrationFigures & { readonly jobs: number; readonly rssBytes: number; readonly rssPeakBytes: number };
  /** The whole section, and its parts. */
  readonly seconds: { readonly total: number; readonly setup: number; readonly load: number; readonly fanOut: number };
}

/** A child process serving HTTP. */
export interface Server {
  readonly child: ChildProcess;
  readonly url: string;
}

/** Forks `script` and waits for its `listening` message (which the server is given with, as `listening`). */
export function startServer<Message extends { readonly kind: string; readonly url?: string } = AgentChildMessage | BareChildMessage>(
  script: string,
  args: readonly string[],
  timeoutMs = START_TIMEOUT_MS,
): Promise<Server & { readonly listening: Message }> {
  const child = fork(script, args, { execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => fail(new Error(`${script} did not start within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.once("error", fail);
    child.once("exit", (code, signal) => fail(new Error(`${script} exited before listening (${signal ?? code})`)));
    child.once("message", (message: Message) => {
      clearTimeout(timer);
      child.removeAllListeners("exit");
      child.removeAllListeners("error");
      if (message.kind !== "listening" || message.url === undefined) reject(new Error(`${script} sent ${JSON.stringify(message)} before listening`));
      else resolvePromise({ child, url: message.url, listening: message });
    });
  });
}

/** Stops a child: SIGTERM, then SIGKILL if it is still there after {@link EXIT_TIMEOUT_MS}. */
export async function stopServer(server: Server | undefined): Promise<void> {
  if (server === undefined || server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise<void>((resolvePromise) => server.child.once("exit", () => resolvePromise()));
  server.child.kill("SIGTERM");
  const timer = setTimeout(() => server.child.kill("SIGKILL"), EXIT_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * Sends `request` to a server's process and resolves with its first message of kind `reply`;
 * rejects when the process exits first.
 */
export function ask<Reply extends { readonly kind: string }>(server: Server, request: object, reply: Reply["kind"]): Promise<Reply> {
  return new Promise((resolvePromise, reject) => {
    const exited = () => reject(new Error("the agent's process exited"));
    const answer = (message: Reply) => {
      if (message.kind !== reply) return;
      server.child.off("message", answer).off("exit", exited);
      resolvePromise(message);
    };
    server.child.on("message", answer).once("exit", exited);
    server.child.send(request);
  });
}

/**
 * Asks the agent's process how many blocking queries are waiting; with `collect`, after a full
 * garbage collection there (before reading its RSS).
 */
async function probe(agent: Server, collect: boolean): Promise<number> {
  const message = await ask<Extract<AgentChildMessage, { kind: "probed" }>>(agent, { kind: "probe", collect } satisfies AgentParentMessage, "probed");
  return message.blockingQueries;
}

/** The resident set of a process (VmRSS of /proc/<pid>/status), in bytes; NaN where there is no /proc. */
function rssBytes(pid: number | undefined): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match === null ? Number.NaN : Number(match[1]) * KIB;
  } catch {
    return Number.NaN;
  }
}

/**
 * Samples of the agent's RSS taken after its second full collection, {@link RSS_SETTLE_SAMPLE_MS}
 * apart: V8 gives the pages a compacting collection emptied back to the system in the background,
 * within about half a second on the loaded machine (measured: 417 MiB just after the collection at
 * 10,000 jobs, 346 at 100 ms, 190 from 500 ms on), so the lowest of two seconds of samples is the
 * figure at rest.
 */
const RSS_SETTLE_SAMPLES = 8;
const RSS_SETTLE_SAMPLE_MS = 250;

/** The agent's RSS at a moment of the bench: its peak around a full collection, and at rest. */
export interface AgentRss {
  /**
   * Just after a full garbage collection: the compacting one the agent runs once idle
   * (`src/cli/heap.ts`; the probe runs it at once), which holds the live objects twice while it
   * moves them, and the pages it emptied are not given back yet; about what the agent peaks at.
   */
  readonly peakBytes: number;
  /** After a second full collection, the lowest of {@link RSS_SETTLE_SAMPLES} samples: the pages given back. */
  readonly restingBytes: number;
}

/** The RSS of the agent's process just after a full garbage collection in it, and at rest after another. */
async function agentRss(agent: Server): Promise<AgentRss> {
  await probe(agent, true);
  const peakBytes = rssBytes(agent.child.pid);
  await probe(agent, true);
  let restingBytes = rssBytes(agent.child.pid);
  for (let sample = 0; sample < RSS_SETTLE_SAMPLES; sample++) {
    await sleep(RSS_SETTLE_SAMPLE_MS);
    restingBytes = Math.min(restingBytes, rssBytes(agent.child.pid));
  }
  return { peakBytes, restingBytes };
}

/** The soft limit of open files of a process (/proc/<pid>/limits); Infinity when unknown or unlimited. */
export function openFilesLimit(pid: number | "self" | undefined): number {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"));
    return match === null ? Infinity : Number(match[1]);
  } catch {
    return Infinity;
  }
}

/**
 * The `i`-th job specification of the benchmark (bench/data.ts, its default seed): a random ID, one
 * to three task groups, varied `Meta`, one of four namespaces; `id` replaces its ID.
 */
export function jobSpec(i: number, id?: string): Record<string, unknown> {
  return dataJobSpec(i, DEFAULT_SEED, id);
}

/** A `PUT /v1/jobs` body. */
export function registration(job: Record<string, unknown>): { method: "PUT"; body: string; headers: Record<string, string> } {
  return { method: "PUT", body: JSON.stringify({ Job: job }), headers: { "content-type": "application/json" } };
}

/** The median and the worst (slowest) of a registration's rates per chunk, and its last chunk's rate over its first. */
export function rateSummary(rates: readonly number[]): { readonly medianJobsPerSecond: number; readonly worstJobsPerSecond: number; readonly lastToFirst: number } {
  return { medianJobsPerSecond: median(rates), worstJobsPerSecond: Math.min(...rates), lastToFirst: rates[rates.length - 1]! / rates[0]! };
}

/**
 * Registers `count` jobs ({@link jobSpec}: numbered from `first`, `concurrency` in flight; a
 * specification of `spec` instead); the rate of each chunk of `chunk` jobs, its median, worst and
 * last-to-first ratio, and the total time.
 */
export async function registerJobs(
  origin: string,
  count = JOBS,
  chunk = REGISTRATION_CHUNK,
  concurrency = REGISTRATION_CONCURRENCY,
  first = 0,
  spec: (i: number) => Record<string, unknown> = (i) => jobSpec(i),
): Promise<RegistrationFigures> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const rates: number[] = [];
  let next = first;
  let done = 0;
  const start = performance.now();
  let chunkStart = start;
  const register = async () => {
    for (let i = next++; i < first + count; i = next++) {
      const response = await pool.request({ path: "/v1/jobs", ...registration(spec(i)) });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`registering job ${i}: ${response.statusCode} ${text}`);
      if (++done % chunk === 0) {
        const now = performance.now();
        rates.push((chunk * 1000) / (now - chunkStart));
        chunkStart = now;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, register));
  } finally {
    await pool.close();
  }
  const totalSeconds = (performance.now() - start) / 1000;
  return { concurrency, chunk, jobsPerSecond: rates, ...rateSummary(rates.length > 0 ? rates : [count / totalSeconds]), totalSeconds };
}

/** The agent's `X-Svc-Index` for the job list. */
export async function jobsIndex(origin: string): Promise<number> {
  const response = await undiciRequest(`${origin}/v1/jobs?per_page=1`);
  await response.body.dump();
  return Number(response.headers["x-svc-index"]);
}

export const sleep = (ms: number) => new Promise((resolvePromise) => setTimeout(resolvePromise, ms));

/** Waits until the simulated scheduler has placed the last job (the index stands still). */
export async function waitUntilSettled(origin: string): Promise<void> {
  let index = await jobsIndex(origin);
  for (;;) {
    await sleep(SETTLED_MS);
    const now = await jobsIndex(origin);
    if (now === index) return;
    index = now;
  }
}

/** Headers Node's http server writes itself, so the bare server must not copy them. */
const NODE_WRITTEN_HEADERS = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);

/** What the agent answers to `request` (its status, headers and body bytes), and how many items the body holds. */
export async function record(origin: string, request: LoadRequest): Promise<{ recorded: RecordedResponse; items: number }> {
  const response = await undiciRequest(`${origin}${request.path}`, { headers: request.headers });
  const body = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode !== 200) throw new Error(`${request.path}: ${response.statusCode} ${body.toString("utf8")}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !NODE_WRITTEN_HEADERS.has(name)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const gzip = request.headers?.["accept-encoding"] !== undefined;
  if (gzip && headers["content-encoding"] !== "gzip") throw new Error(`${request.path}: not gzip-encoded (${headers["content-encoding"] ?? "no Content-Encoding"})`);
  const text = (gzip ? gunzipSync(body) : body).toString("utf8");
  const chunked = response.headers["transfer-encoding"] === "chunked";
  return { recorded: { url: request.path, gzip, status: response.statusCode, headers, chunked, body: body.toString("base64") }, items: (JSON.parse(text) as unknown[]).length };
}


/** The median of each figure over the rounds, each on its own. */
function medians(rounds: readonly LoadFigures[]): ServerFigures {
  const of = (key: keyof ServerFigures) => median(rounds.map((round) => round[key]));
  return { requestsPerSecond: of("requestsPerSecond"), p50Ms: of("p50Ms"), p99Ms: of("p99Ms"), non2xx: of("non2xx"), errors: of("errors") };
}

/** Bytes of an answer's headers, at most (the agent's are a few hundred): wrk counts them with the body. */
const MAX_HEADER_BYTES = 2_048;

/**
 * Whether a round's answers had the recorded body's size: exactly (the undici client counts
 * bodies); within the headers' bytes and the answers under way when the window closed (wrk counts
 * every byte read).
 */
export function sizeAsRecorded(round: LoadFigures, bodyBytes: number): boolean {
  if (round.completed === 0) return true;
  if (!round.bytesWithHeaders) return Math.round(round.bodyBytes) === bodyBytes;
  const answers = round.completed + round.non2xx;
  return round.bodyBytes >= bodyBytes && round.bodyBytes <= ((bodyBytes + MAX_HEADER_BYTES) * (answers + round.connections)) / answers;
}

/** A round's CPU per answered request, ms, of the server's process and of the client. */
export function cpuPerRequest(figures: LoadFigures): { readonly server: number; readonly client: number } {
  return { server: figures.serverCpuMs / figures.completed, client: figures.clientCpuMs / figures.completed };
}

/** Runs a scenario's rounds, agent and bare server taking turns, each warmed once first. */
async function measure(scenario: Scenario, agent: Server, bare: Server): Promise<{ agent: LoadFigures[]; bare: LoadFigures[] }> {
  const servers = { agent, bare };
  const clients = { agent: createLoadClient(agent.url, scenario.connections), bare: createLoadClient(bare.url, scenario.connections) };
  const rounds = { agent: [] as LoadFigures[], bare: [] as LoadFigures[] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of ["agent", "bare"] as const) {
        // Warmed in the first round only: each server keeps its JIT and caches.
        const warmupMs = round === 0 ? DEFAULT_WARMUP_MS : 0;
        rounds[server].push(await clients[server].run(scenario.request, { durationMs: DEFAULT_DURATION_MS, warmupMs, serverPid: servers[server].child.pid }));
      }
    }
  } finally {
    await Promise.all([clients.agent.close(), clients.bare.close()]);
  }
  return rounds;
}

/** The outcome of one blocking query: when its body was read, its status and index; or why it failed. */
export type Watch = { readonly ok: true; readonly at: number; readonly status: number; readonly index: number } | { readonly ok: false; readonly error: string };

/**
 * The blocking queries of a fan-out, parked on `path` (whose `index` is `index`), and the
 * registration that wakes them: each answer must come after it, past `index`, with 200.
 */
export class FanOut {
  #early: string | undefined;
  #moved = false;
  #woken = false;

  constructor(
    readonly path: string,
    readonly index: number,
  ) {}

  /** Why the fan-out cannot be measured: a query answered before the wake, or failed. */
  get failure(): string | undefined {
    return this.#early;
  }

  /** Whether the first query answered before the wake answered past the parked index: the agent wrote meanwhile (not a wait that ran out). */
  get moved(): boolean {
    return this.#moved;
  }

  /** One blocking query through `pool`. */
  async watch(pool: Pool): Promise<Watch> {
    try {
      const response = await pool.request({ path: this.path, method: "GET" });
      await response.body.text();
      const index = Number(response.headers["x-svc-index"]);
      // The index tells a write the agent made on its own (it moved) from a wait that ran out (it did not).
      if (!this.#woken && this.#early === undefined) {
        this.#early = `a blocking query answered ${response.statusCode} at index ${index} (parked at ${this.index}) before the registration that should wake it`;
        this.#moved = index > this.index;
      }
      return { ok: true, at: performance.now(), status: response.statusCode, index };
    } catch (error) {
      this.#early ??= `a blocking query failed: ${(error as Error).message}`;
      return { ok: false, error: (error as Error).message };
    }
  }

  /**
   * Registers `job` through `origin` and waits for every query of `groups` (at most
   * `timeoutMs`): how long the registration took, and each query's answer time after the
   * registration was sent, by group.
   */
  async wake(origin: string, job: Record<string, unknown>, groups: readonly (readonly Promise<Watch>[])[], timeoutMs: number): Promise<{ putMs: number; times: number[][] }> {
    if (this.#early !== undefined) throw new Error(this.#early);
    this.#woken = true;
    const start = performance.now();
    const put = await undiciRequest(`${origin}/v1/jobs`, registration(job));
    const putText = await put.body.text();
    const putMs = performance.now() - start;
    if (put.statusCode !== 200) throw new Error(`the waking registration failed: ${put.statusCode} ${putText}`);
    const timeout = sleep(timeoutMs).then(() => "timeout" as const);
    const outcome = await Promise.race([Promise.all(groups.map((group) => Promise.all(group))), timeout]);
    if (outcome === "timeout") throw new Error(`the blocking queries were not all answered within ${timeoutMs} ms`);
    const times = outcome.map((results) =>
      results.map((result) => {
        if (!result.ok) throw new Error(`a blocking query failed: ${result.error}`);
        if (result.status !== 200 || !(result.index > this.index)) throw new Error(`a blocking query answered ${result.status} at index ${result.index} (waited past ${this.index})`);
        return result.at - start;
      }),
    );
    return { putMs, times };
  }
}

/** Connections for requests with a new filter each: enough to keep the agent busy, a short queue (each costs milliseconds). */
const NEW_FILTER_CONNECTIONS = 8;
/** The filters a round of new filters may use, its n-th request taking the n-th (the next round starts past them). */
const NEW_FILTERS_PER_ROUND = 1_000_000;
/** Filters whose hand-written predicate is timed over the rows, for the baseline. */
const HAND_FILTERS = 200;

/** The requests with a new filter each. */
const NEW_FILTER_SCENARIOS = [
  { name: "newFilterAllNamespaces", label: "GET /v1/jobs?namespace=*&filter=<new>", namespaces: "*" },
  { name: "newFilterDefault", label: "GET /v1/jobs?filter=<new> (default namespace)", namespaces: "default" },
] as const;

/**
 * Measures requests that each carry a filter never seen before on `agent`, and the hand-written
 * predicates of the same filters over the same rows (the agent's own list items, `?meta=true`).
 */
export async function measureNewFilters(agent: Server, offset = 0): Promise<Record<string, NewFilterFigures>> {
  const out: Record<string, NewFilterFigures> = {};
  for (const scenario of NEW_FILTER_SCENARIOS) {
    const namespace = scenario.namespaces === "*" ? "namespace=*&" : "";
    const rowsResponse = await undiciRequest(`${agent.url}/v1/jobs?${namespace}meta=true`);
    const rows = (await rowsResponse.body.json()) as ReturnType<typeof jobListItems>;
    const hand: number[] = [];
    for (let n = 0; n < HAND_FILTERS; n++) {
      const predicate = newFilterPredicate(n);
      const start = performance.now();
      let count = 0;
      for (let i = 0; i < rows.length; i++) if (predicate(rows[i]!)) count++;
      hand.push(performance.now() - start + (count < 0 ? 1 : 0));
    }
    hand.sort((a, b) => a - b);
    // The same kind of filters, never seen before, compiled and run in this process over the same rows.
    const inProcess: number[] = [];
    for (let n = 0; n < HAND_FILTERS; n++) {
      const start = performance.now();
      const kept = compileFilter(newFilter(NEW_FILTERS_PER_ROUND * 1_000 + n)).filter(rows);
      inProcess.push(performance.now() - start + (kept.length < 0 ? 1 : 0));
    }
    inProcess.sort((a, b) => a - b);
    const path = (n: number) => `/v1/jobs?${namespace}filter=${encodeURIComponent(newFilter(offset + n))}`;
    const client = createLoadClient(agent.url, NEW_FILTER_CONNECTIONS);
    const rounds: (LoadFigures & { cpuMsPerRequest: number })[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const warmupMs = round === 0 ? DEFAULT_WARMUP_MS : 0;
        // Each round its own filters: the n-th request of every round would otherwise repeat the first round's.
        const figures = await client.run(
          { path: path(round * NEW_FILTERS_PER_ROUND), pathOf: (n) => path(round * NEW_FILTERS_PER_ROUND + n) },
          { durationMs: DEFAULT_DURATION_MS, warmupMs, serverPid: agent.child.pid },
        );
        rounds.push({ ...figures, cpuMsPerRequest: cpuPerRequest(figures).server });
      }
    } finally {
      await client.close();
    }
    const cpuMs = rounds.map((r) => r.cpuMsPerRequest);
    const handMsPerPass = median(hand);
    out[scenario.name] = {
      label: scenario.label,
      example: path(0),
      connections: NEW_FILTER_CONNECTIONS,
      rows: rows.length,
      agent: medians(rounds),
      agentCpuMsPerRequest: median(cpuMs),
      agentCpuMsPerRequestWorst: Math.max(...cpuMs),
      client: client.kind,
      clientCpuMsPerRequest: median(rounds.map((r) => cpuPerRequest(r).client)),
      handMsPerPass,
      handMsPerPassP99: quantile(hand, 0.99),
      cpuToHand: median(cpuMs) / handMsPerPass,
      inProcessMs: median(inProcess),
      inProcessMsP99: quantile(inProcess, 0.99),
      inProcessMeanMs: mean(inProcess),
      // A round's CPU per request is a mean over its requests (some match a third of the jobs, some
      // a few): set against the mean of the in-process passes, not their median.
      cpuToInProcess: median(cpuMs) / mean(inProcess),
      rounds,
    };
  }
  return out;
}

/** Prints the new-filter figures. */
export function printNewFilters(figures: Record<string, NewFilterFigures>): void {
  for (const f of Object.values(figures)) {
    console.log(
      `${f.label.padEnd(48)} ${pad(integer(f.rows), 6)} rows: ${pad(decimal(f.agent.requestsPerSecond), 8)} req/s, p50 ${decimal(f.agent.p50Ms)} ms, p99 ${decimal(f.agent.p99Ms)} ms; ` +
        `agent CPU ${decimal(f.agentCpuMsPerRequest, 2)} ms/request (worst round ${decimal(f.agentCpuMsPerRequestWorst, 2)}), client ${decimal(f.clientCpuMsPerRequest, 2)}; hand-written ${decimal(f.handMsPerPass, 3)} ms/pass (p99 ${decimal(f.handMsPerPassP99, 3)}): ${decimal(f.cpuToHand)}×; ` +
        `compile + filter in process ${decimal(f.inProcessMeanMs, 3)} ms a filter (median ${decimal(f.inProcessMs, 3)}, p99 ${decimal(f.inProcessMsP99, 3)}): ${decimal(f.cpuToInProcess)}×`,
    );
  }
}

/** Waits until `until` holds, polling the agent; fails when `failed` holds or after `timeoutMs`. */
async function pollAgent(agent: Server, until: (waiting: number) => boolean, failed: () => string | undefined, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const waiting = await probe(agent, false);
    if (until(waiting)) return;
    const failure = failed();
    if (failure !== undefined) throw new Error(failure);
    if (performance.now() > deadline) throw new Error(`timed out: ${waiting} blocking queries waiting`);
    await sleep(POLL_MS);
  }
}

/** Why a fan-out attempt failed, and whether the agent's own write woke a query early (worth another attempt). */
class FanOutError extends Error {
  constructor(
    message: string,
    readonly moved: boolean,
  ) {
    super(message);
  }
}

/** Parks `queries` blocking queries, then registers one job and times how the agent answers them all. */
async function fanOutOnce(agent: Server, queries: number): Promise<Omit<FanOutFigures, "failedAttempts">> {
  const index = await jobsIndex(agent.url);
  const fan = new FanOut(`/v1/jobs?per_page=${FAN_OUT_PER_PAGE}&index=${index}&wait=${FAN_OUT_WAIT}`, index);
  const rssBeforeBytes = (await agentRss(agent)).restingBytes;
  const pool = new Pool(agent.url, { connections: queries, pipelining: 1 });
  const watches: Promise<Watch>[] = [];
  try {
    for (let opened = 0; opened < queries; ) {
      const batch = Math.min(FAN_OUT_BATCH, queries - opened);
      for (let i = 0; i < batch; i++) watches.push(fan.watch(pool));
      opened += batch;
      await pollAgent(agent, (waiting) => waiting >= opened, () => fan.failure, PARK_TIMEOUT_MS).catch((error: unknown) => {
        throw fan.failure === undefined ? error : new FanOutError(fan.failure, fan.moved);
      });
    }
    const rssParkedBytes = (await agentRss(agent)).restingBytes;
    if (fan.failure !== undefined) throw new FanOutError(fan.failure, fan.moved);
    const { putMs, times: answered } = await fan.wake(agent.url, { ...jobSpec(JOBS, `fan-out-${queries}`), Namespace: "default" }, [watches], WAKE_TIMEOUT_MS);
    const times = answered[0]!.sort((a, b) => a - b);
    return {
      queries,
      path: fan.path,
      rssBeforeBytes,
      rssParkedBytes,
      rssBytesPerQuery: (rssParkedBytes - rssBeforeBytes) / queries,
      putMs,
      firstAnswerMs: times[0]!,
      medianAnswerMs: median(times),
      lastAnswerMs: times[times.length - 1]!,
    };
  } finally {
    await pool.destroy();
  }
}

/**
 * The fan-out with the largest count of {@link FAN_OUT_COUNTS} the open-files limits of both
 * processes allow, falling back to smaller counts when parking fails.
 */
async function fanOut(agent: Server): Promise<FanOutFigures | null> {
  const limit = Math.min(openFilesLimit("self"), openFilesLimit(agent.child.pid)) - FD_HEADROOM;
  const failedAttempts: { queries: number; error: string }[] = [];
  for (const queries of FAN_OUT_COUNTS) {
    if (queries > limit) {
      failedAttempts.push({ queries, error: `not tried: the open-files limit allows about ${limit} connections` });
      continue;
    }
    for (let attempt = 1; attempt <= FAN_OUT_ATTEMPTS; attempt++) {
      try {
        return { ...(await fanOutOnce(agent, queries)), failedAttempts };
      } catch (error) {
        failedAttempts.push({ queries, error: (error as Error).message });
        // The agent lets go of the queries whose clients went away before the next attempt.
        await pollAgent(agent, (waiting) => waiting === 0, () => undefined, PARK_TIMEOUT_MS).catch(() => undefined);
        // Only the agent's own write is tried again at the same count; anything else, at a smaller one.
        if (!(error instanceof FanOutError && error.moved)) break;
      }
    }
  }
  console.log("\nblocking fan-out: not even the smallest count could be parked");
  for (const attempt of failedAttempts) console.log(`  (${attempt.queries.toLocaleString("en")} queries: ${attempt.error})`);
  return null;
}

const integer = (value: number) => Math.round(value).toLocaleString("en");
const decimal = (value: number, digits = 1) => value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mebibytes = (bytes: number) => `${decimal(bytes / MIB)} MiB`;
const pad = (text: string, width: number) => text.padStart(width);

const microseconds = (ms: number) => `${decimal(ms * 1000, 0)} µs`;

/** The header of {@link printRequest}'s lines. */
const REQUEST_HEADER =
  `${"request".padEnd(48)} ${pad("conns", 5)} ${pad("body bytes", 10)}  ${pad("agent req/s", 11)} ${pad("p50 ms", 7)} ${pad("p99 ms", 7)} ${pad("CPU/req", 8)} ${pad("worst", 8)}` +
  `  ${pad("bare req/s", 11)} ${pad("p50 ms", 7)} ${pad("p99 ms", 7)} ${pad("CPU/req", 8)}  ${pad("client CPU/req", 15)} ${pad("agent/client CPU", 16)}  agent/bare ${pad("worst", 7)} bare/agent`;

/** Prints one request's line of the table: both servers' medians, the client's CPU on each, the ratios and what went wrong. */
function printRequest(figures: RequestFigures): void {
  const server = (f: ServerFigures) => `${pad(decimal(f.requestsPerSecond), 11)} ${pad(decimal(f.p50Ms), 7)} ${pad(decimal(f.p99Ms), 7)}`;
  const problems = [
    ...([figures.agent, figures.bare].some((f) => f.non2xx > 0 || f.errors > 0) ? [`non-2xx ${figures.agent.non2xx}/${figures.bare.non2xx}, errors ${figures.agent.errors}/${figures.bare.errors}`] : []),
    ...(figures.sizeMismatches > 0 ? [`${figures.sizeMismatches} rounds with answers of another size`] : []),
    ...(figures.clientMayLimit ? [`the bare server is not ${CLIENT_HEADROOM}× the agent: the client or the cores may be the limit`] : []),
  ];
  console.log(
    `${figures.label.padEnd(48)} ${pad(String(figures.connections), 5)} ${pad(integer(figures.bodyBytes), 10)}  ${server(figures.agent)} ${pad(microseconds(figures.agentCpuMsPerRequest), 8)} ${pad(microseconds(figures.agentCpuMsPerRequestWorst), 8)}` +
      `  ${server(figures.bare)} ${pad(microseconds(figures.bareCpuMsPerRequest), 8)}  ${pad(`${microseconds(figures.clientCpuMsPerRequest.agent)} / ${microseconds(figures.clientCpuMsPerRequest.bare)}`, 15)}` +
      // Above 1, the client on a core of its own could send more than the agent on a core of its own answers, however loaded the machine.
      ` ${pad(`${(figures.agentCpuMsPerRequest / figures.clientCpuMsPerRequest.agent).toFixed(2)}×`, 16)}` +
      `  ${pad(`${figures.agentToBare.toFixed(3)}×`, 10)} ${pad(`${figures.agentToBareWorst.toFixed(3)}×`, 7)} ${pad(`${figures.bareToAgent.toFixed(2)}×`, 10)}${problems.length === 0 ? "" : `   (${problems.join("; ")})`}`,
  );
}

/**
 * Runs the agent's section: starts the agent and the bare server in processes of their own,
 * measures, prints a readable section, and returns the figures. Both processes are stopped at the
 * end, also when a measurement fails.
 */
export async function agentBench(): Promise<AgentBenchResults> {
  const started = performance.now();
  const temporary = mkdtempSync(join(tmpdir(), "bexpr-bench-agent-"));
  let agent: Server | undefined;
  let bare: Server | undefined;
  try {
    console.log(`\nthe agent (bexpr/server in a process of its own, driven over HTTP by ${describeLoadClient()}), ${JOBS.toLocaleString("en")} jobs`);
    agent = await startServer(AGENT_CHILD, [String(PLACEMENT_DELAY_MS)]);
    const empty = await agentRss(agent);

    const registered = await registerJobs(agent.url);
    console.log(
      `random-ID registration, ${REGISTRATION_CONCURRENCY} in flight, jobs/s per ${REGISTRATION_CHUNK.toLocaleString("en")}: ${registered.jobsPerSecond.map(integer).join(" ")}` +
        ` (median ${integer(registered.medianJobsPerSecond)}, worst ${integer(registered.worstJobsPerSecond)}, last/first ${decimal(registered.lastToFirst, 2)})` +
        `; ${JOBS.toLocaleString("en")} in ${decimal(registered.totalSeconds)} s (${integer(JOBS / registered.totalSeconds)} jobs/s)`,
    );
    await waitUntilSettled(agent.url);
    const loaded = await agentRss(agent);
    const memory = {
      emptyRssBytes: empty.restingBytes,
      loadedRssBytes: loaded.restingBytes,
      rssBytesPerJob: (loaded.restingBytes - empty.restingBytes) / JOBS,
      emptyRssPeakBytes: empty.peakBytes,
      loadedRssPeakBytes: loaded.peakBytes,
    };
    console.log(
      `agent RSS at rest (after two full GCs and ${decimal((RSS_SETTLE_SAMPLES * RSS_SETTLE_SAMPLE_MS) / 1000)} s): empty ${mebibytes(memory.emptyRssBytes)}, with ${JOBS.toLocaleString("en")} jobs ${mebibytes(memory.loadedRssBytes)}: ` +
        `${decimal(memory.rssBytesPerJob / KIB)} KiB per job (its job, summary, evaluation, allocation and deployment); ` +
        `during a full collection (just after one) ${mebibytes(memory.emptyRssPeakBytes)} and ${mebibytes(memory.loadedRssPeakBytes)}`,
    );

    const recordings = await Promise.all(SCENARIOS.map((scenario) => record(agent!.url, scenario.request)));
    const filterMatches = (await record(agent.url, { path: `/v1/jobs?filter=${encodeURIComponent(MIXED_FILTER)}` })).items;
    const recordingFile = join(temporary, "responses.json");
    writeFileSync(recordingFile, JSON.stringify(recordings.map((r) => r.recorded)));
    bare = await startServer(BARE_CHILD, [recordingFile]);

    console.log(
      `\nclosed loop, ${DEFAULT_DURATION_MS / 1000} s windows (after ${DEFAULT_WARMUP_MS / 1000} s of warm-up in the first round), ` +
        `medians of ${ROUNDS} rounds, agent and bare server taking turns;\nthe bare server (node:http) answers the agent's recorded bytes. ` +
        `CPU per request: each server's process (/proc/<pid>/stat) and the client's (agent / bare). worst: the worst round. M = ${MIXED_FILTER}`,
    );
    console.log(REQUEST_HEADER);
    const loadStarted = performance.now();
    const requests: Record<string, RequestFigures> = {};
    for (const [i, scenario] of SCENARIOS.entries()) {
      const rounds = await measure(scenario, agent, bare);
      const { recorded, items } = recordings[i]!;
      const bodyBytes = Buffer.byteLength(recorded.body, "base64");
      const agentRate = median(rounds.agent.map((r) => r.requestsPerSecond));
      const bareRate = median(rounds.bare.map((r) => r.requestsPerSecond));
      const agentCpu = rounds.agent.map((r) => cpuPerRequest(r).server);
      const figures: RequestFigures = {
        label: scenario.label,
        path: scenario.request.path,
        headers: scenario.request.headers ?? {},
        connections: scenario.connections,
        bodyBytes,
        items,
        sizeMismatches: [...rounds.agent, ...rounds.bare].filter((round) => !sizeAsRecorded(round, bodyBytes)).length,
        agent: medians(rounds.agent),
        bare: medians(rounds.bare),
        agentToBare: agentRate / bareRate,
        agentToBareWorst: Math.min(...rounds.agent.map((r) => r.requestsPerSecond)) / bareRate,
        agentCpuMsPerRequest: median(agentCpu),
        agentCpuMsPerRequestWorst: Math.max(...agentCpu),
        client: rounds.agent[0]!.client,
        bareCpuMsPerRequest: median(rounds.bare.map((r) => cpuPerRequest(r).server)),
        clientCpuMsPerRequest: { agent: median(rounds.agent.map((r) => cpuPerRequest(r).client)), bare: median(rounds.bare.map((r) => cpuPerRequest(r).client)) },
        bareToAgent: bareRate / agentRate,
        clientMayLimit: clientMayLimit(bareRate, agentRate),
        rounds,
      };
      requests[scenario.name] = figures;
      printRequest(figures);
    }
    console.log(
      `(M matches ${integer(filterMatches)} of the ${JOBS.toLocaleString("en")} jobs; gzip makes the whole list ${decimal((requests["allGzip"]!.bodyBytes / requests["all"]!.bodyBytes) * 100)}% of its size)`,
    );
    console.log(`\na filter never seen before in each request (${NEW_FILTER_CONNECTIONS} connections; e.g. ${newFilter(0)}), against the hand-written predicate of each over the same rows`);
    const newFilters = await measureNewFilters(agent);
    printNewFilters(newFilters);

    const postgres = await postgresSection(agent, { jobs: JOBS, placementDelayMs: PLACEMENT_DELAY_MS });
    const fanOutStarted = performance.now();

    const fanOutFigures = await fanOut(agent);
    if (fanOutFigures !== null) {
      const f = fanOutFigures;
      console.log(
        `\nblocking fan-out: ${f.queries.toLocaleString("en")} queries parked (${f.path.replace(/index=\d+/, "index=<X-Svc-Index>")}); ` +
          `agent RSS at rest ${mebibytes(f.rssBeforeBytes)} → ${mebibytes(f.rssParkedBytes)} (${decimal(f.rssBytesPerQuery / KIB)} KiB per parked query);` +
          ` one job a query, since ${f.queries.toLocaleString("en")} whole lists would be ${decimal((f.queries * requests["all"]!.bodyBytes) / (KIB * MIB))} GiB of answers at once`,
      );
      console.log(
        `one PUT /v1/jobs wakes them: it is answered after ${decimal(f.putMs)} ms; the blocking queries after ${decimal(f.firstAnswerMs)} ms (first), ` +
          `${decimal(f.medianAnswerMs)} ms (median), ${decimal(f.lastAnswerMs)} ms (last)`,
      );
      for (const attempt of f.failedAttempts) console.log(`  (${attempt.queries.toLocaleString("en")} queries: ${attempt.error})`);
    }
    await stopServer(agent);
    agent = await startServer(AGENT_CHILD, [String(PLACEMENT_DELAY_MS)]);
    const large = await registerJobs(agent.url, LARGE_JOBS, LARGE_CHUNK);
    const largeRss = await agentRss(agent);
    const largeRegistration = { ...large, jobs: LARGE_JOBS, rssBytes: largeRss.restingBytes, rssPeakBytes: largeRss.peakBytes };
    console.log(
      `\n${LARGE_JOBS.toLocaleString("en")} random-ID jobs registered into a fresh agent (${REGISTRATION_CONCURRENCY} in flight) in ${decimal(large.totalSeconds)} s; jobs/s per ${LARGE_CHUNK.toLocaleString("en")}: ` +
        `${large.jobsPerSecond.map(integer).join(" ")} (median ${integer(large.medianJobsPerSecond)}, worst ${integer(large.worstJobsPerSecond)}, last/first ${decimal(large.lastToFirst, 2)}); agent RSS then ${mebibytes(largeRegistration.rssBytes)} at rest, ${mebibytes(largeRegistration.rssPeakBytes)} during a full collection` +
        (LARGE_JOBS < 100_000 ? " (BENCH_LARGE=1 for 100,000)" : ""),
    );
    const finished = performance.now();
    const seconds = {
      total: (finished - started) / 1000,
      setup: (loadStarted - started) / 1000,
      load: (fanOutStarted - loadStarted) / 1000,
      fanOut: (finished - fanOutStarted) / 1000,
    };
    console.log(`\nthe agent's section took ${decimal(seconds.total)} s (setup ${decimal(seconds.setup)}, lists ${decimal(seconds.load)}, fan-out and the large registration ${decimal(seconds.fanOut)})`);
    return {
      node: process.version,
      date: new Date().toISOString(),
      jobs: JOBS,
      registration: registered,
      memory,
      load: { rounds: ROUNDS, durationMs: DEFAULT_DURATION_MS, warmupMs: DEFAULT_WARMUP_MS, client: describeLoadClient(), filterMatches, requests },
      newFilters,
      postgres,
      fanOut: fanOutFigures,
      largeRegistration,
      seconds,
    };
  } finally {
    await Promise.all([stopServer(agent), stopServer(bare)]);
    rmSync(temporary, { recursive: true, force: true });
  }
}

/** Run alone (`npm run bench:agent`): the section, its figures as `agent` in bench/results.json, and the README's agent section. */
async function main(): Promise<void> {
  const results = await agentBench();
  const previous = JSON.parse(readFileSync(RESULTS_PATH, "utf8")) as Record<string, unknown>;
  writeFileSync(RESULTS_PATH, `${JSON.stringify({ ...previous, agent: results }, null, 2)}\n`);
  writeFileSync(README_PATH, withReadmeSection(readFileSync(README_PATH, "utf8"), README_AGENT_START, README_AGENT_END, renderAgentFigures(results)));
  console.log(`wrote the agent's figures to ${RESULTS_PATH} and the README`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
