/**
 * The benchmark's load client: `wrk` (https://github.com/wg/wrk; Debian's package `wrk`), a C
 * program with one event loop a thread, in a process of its own, driven by a Lua script written
 * here: the request's path, or for requests that must differ from each other (a filter never seen
 * before) one path a request from a file, and the figures printed as one JSON line by its
 * `done()`. Its CPU per request is a fraction of the undici client's (bench/load.ts), so that a
 * bare `node:http` server answers several times the agent's rate under it: the rate measured is
 * the server's, not the client's. Without wrk, {@link createLoadClient} falls back to the undici
 * client, whose figures say `undici (client-bound)`.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import {
  DEFAULT_CONNECTIONS,
  DEFAULT_DURATION_MS,
  DEFAULT_WARMUP_MS,
  exitedChildrenCpuMs,
  processCpuMs,
  UndiciLoadClient,
  type LoadClient,
  type LoadFigures,
  type LoadOptions,
  type LoadRequest,
} from "./load.js";

/**
 * wrk's threads (event loops). One: on the benchmark's 2 cores, a second thread of the client
 * takes CPU from the server it measures, and one thread already drives a bare `node:http` server
 * at several times the agent's rate (measured: 1 and 2 threads within the noise on the bare
 * server, the second costing more CPU per request).
 */
export const WRK_THREADS = 1;

/**
 * Distinct paths written for a run of requests that must differ (`LoadRequest.pathOf`): enough
 * for 4,000 requests a second over a 5-second window, 100 times the agent's rate on such requests
 * (tens a second); a run that sends more repeats them from the first, and says so
 * ({@link WrkFigures.repeatedPaths}).
 */
export const DISTINCT_PATHS = 20_000;

/** wrk's request timeout: longer than any answer of the benchmark under its load (the whole list's p99 is tens of ms; a new filter's hundreds). */
const REQUEST_TIMEOUT = "10s";

/** What the script's `done()` prints before its JSON, to find the line among wrk's own output. */
const RESULT_MARK = "bexpr-wrk-result ";

const US_PER_MS = 1_000;
const MS_PER_SECOND = 1_000;

/**
 * The Lua script: with a paths file (`-- <file> <threads>`), each thread sends its share of the
 * file's lines in turn (thread `id` takes the lines whose number modulo the threads is `id`);
 * without one, wrk sends its fixed request (no `request()`: the fastest path). `done()` prints
 * the figures as one JSON line.
 */
const SCRIPT = `
local threads = {}
local started = 0
function setup(thread)
  thread:set("id", started)
  started = started + 1
  table.insert(threads, thread)
end
function init(args)
  sent = 0
  if args[1] == nil then return end
  paths = {}
  local line_number = 0
  for line in io.lines(args[1]) do
    if line_number % tonumber(args[2]) == id then paths[#paths + 1] = line end
    line_number = line_number + 1
  end
  request = function()
    sent = sent + 1
    return wrk.format(nil, paths[((sent - 1) % #paths) + 1])
  end
end
function done(summary, latency, requests)
  local sent_total = 0
  for _, thread in ipairs(threads) do sent_total = sent_total + thread:get("sent") end
  local e = summary.errors
  io.write(string.format('${RESULT_MARK}{"durationUs":%.0f,"requests":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,"p50Us":%.0f,"p99Us":%.0f,"sent":%.0f}\\n',
    summary.duration, summary.requests, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), sent_total))
end
`;

/** What the script prints. */
interface WrkDone {
  readonly durationUs: number;
  readonly requests: number;
  readonly bytes: number;
  readonly connect: number;
  readonly read: number;
  readonly write: number;
  readonly status: number;
  readonly timeout: number;
  readonly p50Us: number;
  readonly p99Us: number;
  /** Requests the script's `request()` built (0 for the fixed request). */
  readonly sent: number;
}

/** A run of wrk: the figures of every client, and how many requests repeated a path of the run. */
export interface WrkFigures extends LoadFigures {
  /** Requests beyond {@link DISTINCT_PATHS} that repeated a path (0 for a fixed path). */
  readonly repeatedPaths: number;
}

/** The executable at `path`, if it is one. */
function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The wrk binary: `WRK` when set (empty: none, to force the undici client), else `wrk` on the PATH; undefined when there is none. */
export function findWrk(environment: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = environment["WRK"];
  if (chosen !== undefined) return chosen !== "" && executable(chosen) ? chosen : undefined;
  return (environment["PATH"] ?? "")
    .split(delimiter)
    .filter((directory) => directory !== "")
    .map((directory) => join(directory, "wrk"))
    .find(executable);
}

/**
 * The load client for `origin`: wrk when {@link findWrk} finds it, else the undici client
 * (bench/load.ts), whose figures are labelled client-bound.
 */
export function createLoadClient(origin: string, connections = DEFAULT_CONNECTIONS): LoadClient {
  const wrk = findWrk();
  return wrk === undefined ? new UndiciLoadClient(origin, connections) : new WrkClient(wrk, origin, connections);
}

/** The client {@link createLoadClient} chooses, in a few words for the bench's output. */
export function describeLoadClient(): string {
  const wrk = findWrk();
  return wrk === undefined
    ? "undici in the bench's own process, client-bound: its rate is its own ceiling (wrk not found; apt-get install wrk)"
    : `wrk (${wrk}, ${WRK_THREADS} thread, a process of its own)`;
}

/** Whole seconds for wrk's `-d` (it takes no fractions), at least 1. */
const wrkSeconds = (ms: number) => Math.max(1, Math.round(ms / MS_PER_SECOND));

/**
 * `origin` under load from wrk: each run is one wrk process (the warm-up another, before it), with
 * `connections` connections over `threads` threads (at most one a connection). Its CPU time is this process's
 * exited children's across the run.
 */
export class WrkClient implements LoadClient {
  readonly kind = "wrk" as const;
  readonly #directory = mkdtempSync(join(tmpdir(), "bexpr-bench-wrk-"));
  readonly #script = join(this.#directory, "load.lua");

  constructor(
    readonly binary: string,
    readonly origin: string,
    readonly connections = DEFAULT_CONNECTIONS,
    readonly threads = WRK_THREADS,
  ) {
    writeFileSync(this.#script, SCRIPT);
  }

  async run(request: LoadRequest, options: LoadOptions = {}): Promise<WrkFigures> {
    const durationMs = options.durationMs ?? DEFAULT_DURATION_MS;
    const warmupMs = options.warmupMs ?? DEFAULT_WARMUP_MS;
    // The warm-up's paths follow the window's, so that the window's are new to the server too.
    if (warmupMs > 0) await this.#wrk(request, wrkSeconds(warmupMs), DISTINCT_PATHS);
    const clientBefore = exitedChildrenCpuMs();
    const serverBefore = processCpuMs(options.serverPid);
    const done = await this.#wrk(request, wrkSeconds(durationMs), 0);
    const clientCpuMs = exitedChildrenCpuMs() - clientBefore;
    const serverCpuMs = processCpuMs(options.serverPid) - serverBefore;
    const seconds = done.durationUs / (US_PER_MS * MS_PER_SECOND);
    const completed = done.requests - done.status;
    return {
      client: this.kind,
      requestsPerSecond: completed / seconds,
      p50Ms: done.p50Us / US_PER_MS,
      p99Ms: done.p99Us / US_PER_MS,
      completed,
      non2xx: done.status,
      errors: done.connect + done.read + done.write + done.timeout,
      bodyBytes: done.requests === 0 ? 0 : done.bytes / done.requests,
      bytesWithHeaders: true,
      connections: this.connections,
      seconds,
      clientCpuMs,
      serverCpuMs,
      repeatedPaths: request.pathOf === undefined ? 0 : Math.max(0, done.sent - DISTINCT_PATHS),
    };
  }

  /** One wrk process for `seconds`; with `request.pathOf`, its paths from the `first`-th on. */
  async #wrk(request: LoadRequest, seconds: number, first: number): Promise<WrkDone> {
    const threads = Math.min(this.threads, this.connections);
    const headers = Object.entries(request.headers ?? {}).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
    let url = `${this.origin}${request.path}`;
    let scriptArgs: string[] = [];
    if (request.pathOf !== undefined) {
      const pathsFile = join(this.#directory, "paths.txt");
      const pathOf = request.pathOf;
      writeFileSync(pathsFile, `${Array.from({ length: DISTINCT_PATHS }, (_, n) => pathOf(first + n)).join("\n")}\n`);
      url = this.origin;
      scriptArgs = ["--", pathsFile, String(threads)];
    }
    const args = ["-t", String(threads), "-c", String(this.connections), "-d", `${seconds}s`, "--timeout", REQUEST_TIMEOUT, "-s", this.#script, ...headers, url, ...scriptArgs];
    const child = spawn(this.binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolvePromise, reject) => {
      child.once("error", reject);
      // "close", not "exit": the output is read to its end, and the process has been waited for (its CPU is in this process's cutime).
      child.once("close", resolvePromise);
    });
    const line = stdout.split("\n").find((text) => text.startsWith(RESULT_MARK));
    if (code !== 0 || line === undefined) throw new Error(`wrk ${args.join(" ")} failed (${code}): ${stderr.trim() || stdout.trim()}`);
    return JSON.parse(line.slice(RESULT_MARK.length)) as WrkDone;
  }

  async close(): Promise<void> {
    rmSync(this.#directory, { recursive: true, force: true });
  }
}
