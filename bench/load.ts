/**
 * The load generators of the agent's section of `npm run bench` (and of bench/agent-postgres.ts
 * and bench/cluster.ts): closed loops, where each of N keep-alive connections sends its next
 * request as soon as the previous answer has been read to its last byte, for a fixed time after a
 * warm-up. A run counts the answers completed inside the measured window (per second), their
 * latencies (p50, p99), the other statuses and the failures, and the CPU time the client and
 * (given its process ID) the server spent meanwhile.
 *
 * Two clients, chosen by bench/wrk.ts's `createLoadClient`: `wrk` (bench/wrk.ts), a C program with an
 * event loop per thread, when it is installed; otherwise the undici client of this module,
 * labelled `client-bound`: on the same cores as the server, its JavaScript costs about as much CPU
 * per request as a cached answer of the agent, so its rate is the client's ceiling rather than
 * the server's (issue 39: it reached 13,815 requests per second on the agent and 13,174 on a bare
 * `node:http` server).
 *
 * Closed loop: a slow server gets fewer requests, so the latency is the server's time plus the
 * queue of the other connections in front of it, and requests per second is its capacity.
 */
import { readFileSync } from "node:fs";
import { Pool } from "undici";
import { quantile } from "./stats.js";

/** Connections that each send one request at a time. */
export const DEFAULT_CONNECTIONS = 50;

/** The measured window. */
export const DEFAULT_DURATION_MS = 5_000;

/** Requests before the window, not counted: connections opened, the JIT and the caches warm. */
export const DEFAULT_WARMUP_MS = 1_000;

const P50 = 0.5;
const P99 = 0.99;
const MS_PER_SECOND = 1_000;

/** What each connection sends, again and again. */
export interface LoadRequest {
  /** Path and query string, such as `/v1/jobs?per_page=100`. */
  readonly path: string;
  /**
   * The `n`-th request's path instead of `path`, for requests that must differ from each other (a
   * filter never seen before, which no cache can answer).
   */
  readonly pathOf?: (n: number) => string;
  /** Request headers, such as `{ "accept-encoding": "gzip" }`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** How long a run lasts, and whose CPU it measures; the connections are the client's. */
export interface LoadOptions {
  /** Default {@link DEFAULT_DURATION_MS}. */
  readonly durationMs?: number;
  /** Default {@link DEFAULT_WARMUP_MS}; 0 when the same client has just warmed the server. */
  readonly warmupMs?: number;
  /** The server's process, whose CPU time over the window the figures give; none: NaN. */
  readonly serverPid?: number;
}

/** Which program made the load: `wrk`, or the undici client (whose rate is its own limit). */
export type LoadClientKind = "wrk" | "undici (client-bound)";

/** The figures of one run. */
export interface LoadFigures {
  /** The client that made them. */
  readonly client: LoadClientKind;
  /** 2xx answers completed (body read) inside the window, per second. */
  readonly requestsPerSecond: number;
  /** Median latency of those answers, from sending the request to the body's last byte. */
  readonly p50Ms: number;
  /** 99th percentile of the same latencies. */
  readonly p99Ms: number;
  /** 2xx answers completed inside the window. */
  readonly completed: number;
  /** Answers with another status inside the window (wrk: 4xx and 5xx; read to the end like the others). */
  readonly non2xx: number;
  /** Requests that failed inside the window (connection refused or reset, timeouts). */
  readonly errors: number;
  /**
   * Mean bytes received per completed answer. The undici client counts the body only (as
   * received: compressed when the server compressed it); wrk counts headers too, and the partial
   * answers under way when the window closed.
   */
  readonly bodyBytes: number;
  /** Whether {@link bodyBytes} holds headers and partial answers (wrk) or bodies only. */
  readonly bytesWithHeaders: boolean;
  /** Connections used. */
  readonly connections: number;
  /** The window, in seconds. */
  readonly seconds: number;
  /** CPU time (user + system) the client's process spent in the window, ms. */
  readonly clientCpuMs: number;
  /** CPU time (user + system) of the process {@link LoadOptions.serverPid} in the window, ms; NaN without one. */
  readonly serverCpuMs: number;
}

/** A server under load, through one client's connections. */
export interface LoadClient {
  readonly origin: string;
  readonly connections: number;
  readonly kind: LoadClientKind;
  /** Runs `request` in a closed loop on every connection: the warm-up, then the measured window. */
  run(request: LoadRequest, options?: LoadOptions): Promise<LoadFigures>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/** Linux's clock ticks per second of /proc's CPU times (`getconf CLK_TCK`: 100 on every Linux port Node runs on). */
const CLOCK_TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command's closing parenthesis (the command may hold spaces). */
function statFields(pid: number | "self"): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** The CPU time (user + system, /proc/<pid>/stat's utime and stime) a process has used, ms; NaN without /proc. */
export function processCpuMs(pid: number | undefined): number {
  // utime and stime are the stat file's 14th and 15th fields: the 12th and 13th after the command (the 2nd).
  const fields = pid === undefined ? undefined : statFields(pid);
  return fields === undefined ? Number.NaN : ((Number(fields[11]) + Number(fields[12])) * MS_PER_SECOND) / CLOCK_TICKS_PER_SECOND;
}

/**
 * The CPU time (user + system) of this process's children that have exited and been waited for
 * (cutime and cstime, the stat file's 16th and 17th fields), ms; NaN without /proc. A client
 * process's CPU is the difference across its run.
 */
export function exitedChildrenCpuMs(): number {
  const fields = statFields("self");
  return fields === undefined ? Number.NaN : ((Number(fields[13]) + Number(fields[14])) * MS_PER_SECOND) / CLOCK_TICKS_PER_SECOND;
}

/**
 * The undici client, in the bench's own process: a pool of `connections` keep-alive connections
 * to `origin`, kept between runs so that a later run against the same server needs no new
 * connections. Its figures are labelled client-bound (see the module's comment).
 */
export class UndiciLoadClient implements LoadClient {
  readonly kind = "undici (client-bound)" as const;
  readonly #pool: Pool;

  constructor(
    readonly origin: string,
    readonly connections = DEFAULT_CONNECTIONS,
  ) {
    this.#pool = new Pool(origin, { connections, pipelining: 1 });
  }

  async run(request: LoadRequest, options: LoadOptions = {}): Promise<LoadFigures> {
    const durationMs = options.durationMs ?? DEFAULT_DURATION_MS;
    const warmupMs = options.warmupMs ?? DEFAULT_WARMUP_MS;
    const measureFrom = performance.now() + warmupMs;
    const measureUntil = measureFrom + durationMs;
    const latencies: number[] = [];
    let non2xx = 0;
    let errors = 0;
    let bodyBytes = 0;
    const inWindow = (time: number) => time >= measureFrom && time <= measureUntil;
    // The CPU times are read when the window opens (a timer) and when the loops are done.
    let cpuFrom = { client: Number.NaN, server: Number.NaN };
    const cpuNow = () => {
      const own = process.cpuUsage();
      return { client: (own.user + own.system) / MS_PER_SECOND, server: processCpuMs(options.serverPid) };
    };
    const opened = setTimeout(() => (cpuFrom = cpuNow()), warmupMs);

    let sent = 0;
    const pathOf = request.pathOf ?? (() => request.path);
    const loop = async () => {
      // No new request once the window is over; the answers under way are still read to the end,
      // so that the next run starts on an idle server.
      while (performance.now() < measureUntil) {
        const started = performance.now();
        try {
          const response = await this.#pool.request({ path: pathOf(sent++), method: "GET", headers: request.headers });
          let bytes = 0;
          for await (const chunk of response.body) bytes += (chunk as Buffer).length;
          const finished = performance.now();
          if (!inWindow(finished)) continue;
          if (response.statusCode >= 200 && response.statusCode < 300) {
            latencies.push(finished - started);
            bodyBytes += bytes;
          } else {
            non2xx++;
          }
        } catch {
          if (inWindow(performance.now())) errors++;
        }
      }
    };
    await Promise.all(Array.from({ length: this.connections }, loop));
    clearTimeout(opened);
    const cpuTo = cpuNow();

    latencies.sort((a, b) => a - b);
    return {
      client: this.kind,
      requestsPerSecond: (latencies.length * MS_PER_SECOND) / durationMs,
      p50Ms: quantile(latencies, P50),
      p99Ms: quantile(latencies, P99),
      completed: latencies.length,
      non2xx,
      errors,
      bodyBytes: latencies.length === 0 ? 0 : bodyBytes / latencies.length,
      bytesWithHeaders: false,
      connections: this.connections,
      seconds: durationMs / MS_PER_SECOND,
      clientCpuMs: cpuTo.client - cpuFrom.client,
      serverCpuMs: cpuTo.server - cpuFrom.server,
    };
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
