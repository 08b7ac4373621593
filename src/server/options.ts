/**
 * The agent's options: defaults, the JSON config file, and their checks.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { AclOptions } from "./acl.js";
import { DEFAULT_METRICS_OPTIONS, type MetricsOptions } from "./metrics/index.js";

/** The shortest metrics interval accepted (`metrics.intervalMs`). */
export const MIN_METRICS_INTERVAL_MS = 10;

/** The most metrics intervals kept (`metrics.retentionMs / metrics.intervalMs`), which bounds their memory. */
export const MAX_METRICS_INTERVALS = 1000;

/** Log levels, from pino (fastify's logger); `silent` logs nothing. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Options of {@link startAgent}; every field is optional. */
export interface AgentOptions {
  /** Address to listen on (default `127.0.0.1`). */
  readonly bind?: string;
  /** Port to listen on (default 4646; 0 picks a free port). */
  readonly port?: number;
  /** The agent's region (default `global`). */
  readonly region?: string;
  /** The agent's datacenter (default `dc1`). */
  readonly datacenter?: string;
  /** The node name (default: the host name). */
  readonly nodeName?: string;
  /** Load the demo data set (default true). */
  readonly demo?: boolean;
  /** Milliseconds from a job's registration until its deployment is healthy (default 2000). */
  readonly placementDelayMs?: number;
  /** Log level (default `info`; `silent` for test suites). */
  readonly logLevel?: LogLevel;
  /** ACLs: off by default, as the reference's dev agent (see {@link AclOptions}). */
  readonly acl?: AclOptions;
  /** Namespaces created at start, besides `default` (`[{ "Name": "prod" }]`). */
  readonly namespaces?: readonly {
    /** The namespace's name: 1 to 128 letters, digits or `-`. */
    readonly Name: string;
    /** Free text of at most 256 characters (default empty). */
    readonly Description?: string;
    /** Free-form string metadata (default none). */
    readonly Meta?: Record<string, string>;
  }[];
  /** Metrics: interval and retention of the JSON document, and whether Prometheus output is served. */
  readonly metrics?: MetricsOptions;
}

/** Options with every default applied. */
export type ResolvedOptions = { readonly [K in Exclude<keyof AgentOptions, "metrics">]-?: NonNullable<AgentOptions[K]> } & {
  /** The metrics options, each with its default applied. */
  readonly metrics: Required<MetricsOptions>;
};

/** The defaults of {@link AgentOptions}. */
export const DEFAULT_OPTIONS: ResolvedOptions = Object.freeze({
  bind: "127.0.0.1",
  port: 4646,
  region: "global",
  datacenter: "dc1",
  nodeName: hostname(),
  demo: true,
  placementDelayMs: 2000,
  logLevel: "info",
  acl: { enabled: false },
  namespaces: [],
  metrics: DEFAULT_METRICS_OPTIONS,
});

const CHECKS: { readonly [K in keyof AgentOptions]-?: (value: unknown) => boolean } = {
  bind: (value) => typeof value === "string" && value !== "",
  port: (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535,
  region: (value) => typeof value === "string" && /^[A-Za-z0-9_-]+$/.test(value),
  datacenter: (value) => typeof value === "string" && value !== "",
  nodeName: (value) => typeof value === "string" && value !== "",
  demo: (value) => typeof value === "boolean",
  placementDelayMs: (value) => typeof value === "number" && Number.isFinite(value) && value >= 0,
  logLevel: (value) => (LOG_LEVELS as readonly unknown[]).includes(value),
  acl: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  namespaces: (value) => Array.isArray(value) && value.every((entry) => typeof entry === "object" && entry !== null && typeof (entry as { Name?: unknown }).Name === "string"),
  metrics: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
};

const METRICS_CHECKS: { readonly [K in keyof MetricsOptions]-?: (value: unknown) => boolean } = {
  intervalMs: (value) => Number.isInteger(value) && (value as number) >= MIN_METRICS_INTERVAL_MS,
  retentionMs: (value) => Number.isInteger(value) && (value as number) > 0,
  prometheus: (value) => typeof value === "boolean",
};

/** The metrics options with their defaults, each checked; retention holds 1 to MAX_METRICS_INTERVALS intervals. */
function resolveMetricsOptions(options: MetricsOptions): Required<MetricsOptions> {
  const resolved: Record<string, unknown> = { ...DEFAULT_METRICS_OPTIONS };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const check = METRICS_CHECKS[key as keyof MetricsOptions];
    if (check === undefined) throw new OptionsError(`unknown option metrics.${key}; known options: ${Object.keys(METRICS_CHECKS).join(", ")}`);
    if (!check(value)) throw new OptionsError(`invalid value for metrics.${key}: ${JSON.stringify(value)}`);
    resolved[key] = value;
  }
  const { intervalMs, retentionMs } = resolved as Required<MetricsOptions>;
  const intervals = Math.floor(retentionMs / intervalMs);
  if (intervals < 1 || intervals > MAX_METRICS_INTERVALS) {
    throw new OptionsError(`metrics.retentionMs must hold 1 to ${MAX_METRICS_INTERVALS} intervals of metrics.intervalMs (${retentionMs} / ${intervalMs} gives ${intervals})`);
  }
  return resolved as Required<MetricsOptions>;
}

/** An option that is missing a valid value; the message names it. */
export class OptionsError extends Error {
  /** Always `"OptionsError"`. */
  override readonly name = "OptionsError";
}

/** Applies the defaults to `options`, checking each given value. */
export function resolveOptions(options: AgentOptions): ResolvedOptions {
  const resolved: Record<string, unknown> = { ...DEFAULT_OPTIONS };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const check = CHECKS[key as keyof AgentOptions];
    if (check === undefined) throw new OptionsError(`unknown option ${JSON.stringify(key)}; known options: ${Object.keys(CHECKS).join(", ")}`);
    if (!check(value)) throw new OptionsError(`invalid value for ${key}: ${JSON.stringify(value)}`);
    resolved[key] = key === "metrics" ? resolveMetricsOptions(value as MetricsOptions) : value;
  }
  return resolved as ResolvedOptions;
}

/** Reads a JSON config file holding {@link AgentOptions}. */
export function readConfigFile(path: string): AgentOptions {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new OptionsError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new OptionsError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new OptionsError(`config file ${path} must hold a JSON object`);
  return parsed as AgentOptions;
}
