/**
 * Helpers of the stress suite (`npm run test:stress`): an agent run as a child process (so that a
 * blocked event loop is seen from outside, as a client sees it), a bounded HTTP client, raw
 * sockets for slow clients, latency statistics and tables to print.
 *
 * Everything here talks to 127.0.0.1 only, and every wait has a deadline: a stress run that hangs
 * tells nothing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent as UndiciAgent, request, type Dispatcher } from "undici";
import type { AgentOptions } from "../../src/server/index.js";

/** The built command (`npm run test:stress` builds first). */
export const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Milliseconds since `start` (a `performance.now()` reading), with a tenth of a millisecond. */
export const since = (start: number) => Math.round((performance.now() - start) * 10) / 10;

/** Rejects with `what` when `promise` has not settled within `ms`: no wait of the suite is unbounded. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` every `everyMs` until it returns true; false if `timeoutMs` passes first. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 10): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/** The resident set size of a process, from `/proc/<pid>/status` (Linux), in bytes; NaN elsewhere. */
export function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match === null ? Number.NaN : Number(match[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** Bytes as mebibytes with one decimal. */
export const mib = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : "n/a");

/** An agent running as a child process (`node dist/cli.js agent --config FILE`). */
export interface ChildAgent {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly process: ChildProcess;
  /** The child's resident set size now, in bytes. */
  rss(): number;
  /** What the child wrote on stderr (empty when all is well). */
  stderr(): string;
  /** Whether the child has exited. */
  exited(): boolean;
  /** SIGTERM, then SIGKILL if it has not exited within a few seconds. */
  stop(): Promise<void>;
}

/** The longest a child agent may live: far more than any stress file needs. */
const CHILD_LIFETIME_MS = 20 * 60_000;

/**
 * Loaded into each child agent before the CLI (`node --import`): it exits when the test process
 * that started it is gone (a worker killed without running its `afterAll`), or after
 * {@link CHILD_LIFETIME_MS}, so that no agent outlives the run.
 */
const WATCHDOG = `data:text/javascript,${encodeURIComponent(
  `const parent = ${process.pid}; const started = Date.now();` +
    `setInterval(() => { if (process.ppid !== parent || Date.now() - started > ${CHILD_LIFETIME_MS}) process.exit(70); }, 1000).unref();`,
)}`;

/** Children still running, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * Starts `bexpr agent` as a child process (`node --import <watchdog> dist/cli.js agent --port 0
 * --config FILE --log-level silent`) with `options` in a JSON config file (under the OS's
 * temporary directory), silent, on a free port of 127.0.0.1, without the demo data unless
 * `options.demo` is true. Metrics default to one interval for the whole run, so the JSON document
 * shows each gauge's latest value (the default shows the last finished 10-second interval).
 */
export async function startChildAgent(options: AgentOptions = {}, startTimeoutMs = 20_000): Promise<ChildAgent> {
  const directory = mkdtempSync(join(tmpdir(), "bexpr-stress-"));
  const configFile = join(directory, "agent.json");
  const config: AgentOptions = { bind: "127.0.0.1", metrics: { intervalMs: 2 ** 40, retentionMs: 2 ** 40 }, ...options };
  writeFileSync(configFile, JSON.stringify(config));
  const args = ["--import", WATCHDOG, CLI, "agent", "--port", "0", "--config", configFile, "--log-level", "silent", ...(options.demo === true ? [] : ["--no-demo"])];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exitedPromise = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", () => running.delete(child));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const stopped = await Promise.race([exitedPromise.then(() => true), sleep(5_000).then(() => false)]);
      if (!stopped) {
        child.kill("SIGKILL");
        await Promise.race([exitedPromise, sleep(2_000)]);
      }
    }
    rmSync(directory, { recursive: true, force: true });
  };

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the agent did not start within ${startTimeoutMs} ms; stderr: ${stderr}`)), startTimeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.stdout!.off("data", look);
      void stop().then(() => reject(error));
    };
    const look = () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout!.off("data", look);
      resolve(match[1]!);
    };
    child.stdout!.on("data", look);
    child.once("exit", (code, signal) => fail(new Error(`the agent exited (${code ?? signal}) before listening; stderr: ${stderr}`)));
  });
  // The config was read at start: remove it now, so that nothing is left behind even if the run is killed.
  rmSync(directory, { recursive: true, force: true });
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    process: child,
    rss: () => rssOf(child.pid!),
    stderr: () => stderr,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    stop,
  };
}

/** One HTTP answer, read in full. */
export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly text: string;
  /** Milliseconds from sending to the last byte of the body. */
  readonly ms: number;
}

/** Options of {@link call}. */
export interface CallOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** The whole exchange is aborted after this many milliseconds (default 60 s). */
  readonly timeoutMs?: number;
  readonly dispatcher?: Dispatcher;
  readonly signal?: AbortSignal;
}

/** Sends one request and reads the whole answer, within `timeoutMs`. */
export async function call(url: string, options: CallOptions = {}): Promise<Reply> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  const response = await request(url, {
    method: (options.method ?? "GET") as Dispatcher.HttpMethod,
    headers: options.headers,
    body: options.body,
    signal: options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]),
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  });
  const text = await response.body.text();
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  return { status: response.statusCode, headers, text, ms: since(started) };
}

/** The metrics document's gauges by name (the first series of each), e.g. `svc.runtime.rss_bytes`. */
export async function gauges(url: string, dispatcher?: Dispatcher): Promise<Record<string, number>> {
  const reply = await call(`${url}/v1/metrics`, { timeoutMs: 30_000, ...(dispatcher === undefined ? {} : { dispatcher }) });
  const document = JSON.parse(reply.text) as { Gauges: { Name: string; Value: number }[] };
  const byName: Record<string, number> = {};
  for (const gauge of document.Gauges) byName[gauge.Name] ??= gauge.Value;
  return byName;
}

/** Percentiles and extremes of a list of latencies (milliseconds). */
export interface Stats {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** The statistics of `values` (nearest-rank percentiles); zeros for an empty list. */
export function stats(values: readonly number[]): Stats {
  if (values.length === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  const round = (value: number) => Math.round(value * 10) / 10;
  return { count: sorted.length, p50: round(rank(50)), p99: round(rank(99)), max: round(sorted[sorted.length - 1]!) };
}

/**
 * Measures, from outside, how long the agent takes to answer a cheap request while something else
 * runs: `GET /v1/metrics` one after another (a pause of `everyMs` between them) on a connection of
 * its own. A blocked event loop shows as one slow answer.
 */
export function probeLatency(url: string, everyMs = 20): { stop(): Promise<Stats & { errors: number }> } {
  const dispatcher = new UndiciAgent({ connections: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let stopped = false;
  const loop = (async () => {
    // Bounded by `stop()`, and by ten minutes in case a test forgets it.
    const deadline = Date.now() + 600_000;
    while (!stopped && Date.now() < deadline) {
      try {
        latencies.push((await call(`${url}/v1/metrics`, { dispatcher, timeoutMs: 60_000 })).ms);
      } catch {
        errors++;
      }
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await within(loop, 65_000, "the latency probe");
      await dispatcher.close();
      return { ...stats(latencies), errors };
    },
  };
}

/** What a raw connection received, and how it ended. */
export interface RawOutcome {
  /** Everything received, as latin1 text. */
  readonly received: string;
  /** The status line's code, or 0 when nothing was received. */
  readonly status: number;
  /** Whether the server closed the connection (false: still open when the deadline came). */
  readonly closed: boolean;
  /** Milliseconds from connecting until the close (or the deadline). */
  readonly ms: number;
  /** Bytes this client managed to send. */
  readonly sent: number;
}

/**
 * A slow client on a raw socket: sends `prefix` at once, then one character of `drip` every
 * `everyMs` (the last character again once `drip` is used up), until the server closes the
 * connection or `deadlineMs` passes (then the client closes it). Reports what it received.
 */
export function trickle(port: number, options: { prefix: string; drip: string; everyMs: number; deadlineMs: number }): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let sent = 0;
    let position = 0;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(drip);
      clearTimeout(deadline);
      socket.destroy();
      const received = Buffer.concat(chunks).toString("latin1");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ received, status, closed, ms: since(started), sent });
    };
    const write = (text: string) => {
      if (!socket.writable) return;
      socket.write(text);
      sent += Buffer.byteLength(text);
    };
    socket.on("connect", () => write(options.prefix));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => finish(true));
    socket.on("close", () => finish(true));
    const drip = setInterval(() => {
      const text = options.drip;
      write(text[Math.min(position++, text.length - 1)] ?? " ");
    }, options.everyMs);
    const deadline = setTimeout(() => finish(false), options.deadlineMs);
  });
}

/** Prints rows as a Markdown table under a title (every value as text; columns from all rows). */
export function printTable(title: string, rows: readonly Record<string, unknown>[]): void {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (value: unknown) => (value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value)).replace(/\|/g, "\\|").replace(/\n/g, " ");
  const table = [columns, ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
  const line = (cells: readonly string[]) => `| ${cells.map((text, i) => text.padEnd(widths[i]!)).join(" | ")} |`;
  const text = [line(table[0]!), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...table.slice(1).map(line)].join("\n");
  console.log(`\n### ${title}\n\n${text}\n`);
}

/** A minimal valid job, as the agent tests register them. */
export function job(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { ID: id, TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "mock" }] }], ...fields };
}
