/**
 * A closed-loop HTTP load generator on undici, for the agent's section of `npm run bench`: each
 * of N keep-alive connections sends the same request again as soon as the previous answer has
 * been read to its last byte, for a fixed time after a warm-up. It counts the 2xx answers that
 * complete inside the measured window (per second), their latencies (p50, p99), the other
 * statuses and the failures.
 *
 * Closed loop: a slow server gets fewer requests, so the latency is the server's time plus the
 * queue of the other connections in front of it, and requests per second is its capacity.
 */
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

/** How long a run lasts; the connections are the client's. */
export interface LoadOptions {
  /** Default {@link DEFAULT_DURATION_MS}. */
  readonly durationMs?: number;
  /** Default {@link DEFAULT_WARMUP_MS}; 0 when the same client has just warmed the server. */
  readonly warmupMs?: number;
}

/** The figures of one run. */
export interface LoadFigures {
  /** 2xx answers completed (body read) inside the window, per second. */
  readonly requestsPerSecond: number;
  /** Median latency of those answers, from sending the request to the body's last byte. */
  readonly p50Ms: number;
  /** 99th percentile of the same latencies. */
  readonly p99Ms: number;
  /** 2xx answers completed inside the window. */
  readonly completed: number;
  /** Answers with another status inside the window (read to the end like the others). */
  readonly non2xx: number;
  /** Requests that failed inside the window (connection refused or reset, timeouts). */
  readonly errors: number;
  /** Mean body bytes of a 2xx answer, as received (compressed when the server compressed it). */
  readonly bodyBytes: number;
  /** Connections used. */
  readonly connections: number;
  /** The window, in seconds. */
  readonly seconds: number;
}


/**
 * A server under load: a pool of `connections` keep-alive connections to `origin`, kept between
 * runs so that a later run against the same server needs no new connections.
 */
export class LoadClient {
  readonly #pool: Pool;

  constructor(
    readonly origin: string,
    readonly connections = DEFAULT_CONNECTIONS,
  ) {
    this.#pool = new Pool(origin, { connections, pipelining: 1 });
  }

  /** Runs `request` in a closed loop on every connection: the warm-up, then the measured window. */
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

    latencies.sort((a, b) => a - b);
    return {
      requestsPerSecond: (latencies.length * MS_PER_SECOND) / durationMs,
      p50Ms: quantile(latencies, P50),
      p99Ms: quantile(latencies, P99),
      completed: latencies.length,
      non2xx,
      errors,
      bodyBytes: latencies.length === 0 ? 0 : bodyBytes / latencies.length,
      connections: this.connections,
      seconds: durationMs / MS_PER_SECOND,
    };
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    await this.#pool.close();
  }
}
