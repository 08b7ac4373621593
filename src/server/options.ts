/**
 * The agent's options: defaults, the JSON config file, and their checks.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { stringifyJson } from "../json.js";
import type { AclOptions } from "./domain/acl.js";
import type { AgentFixture } from "./control/fixture.js";
import type { AgentDataSource } from "./control/state-control.js";
import { EVENT_HEARTBEAT_MS, EVENT_STREAMS_MAX } from "./domain/events.js";
import { controlEnabled } from "./control/access.js";
import { isAllowedHostEntry, type AllowedHosts } from "./control/browser-guard.js";
import { RULES_COST_PER_WRITE } from "./scheduler/scenarios.js";
import { STATE_HEAP_FRACTION } from "./state/heap-limit.js";
import type { LIST_STATEMENT_TIMEOUT_MS, PgliteLike } from "./state/postgres/database.js";
import { DEFAULT_METRICS_OPTIONS, type MetricsOptions } from "./metrics/index.js";
import { HEADER_STYLES, type HeaderStyle } from "./base/header-names.js";

/** The shortest metrics interval accepted (`metrics.intervalMs`). */
export const MIN_METRICS_INTERVAL_MS = 10;

/** The most metrics intervals kept (`metrics.retentionMs / metrics.intervalMs`), which bounds their memory. */
export const MAX_METRICS_INTERVALS = 1000;

/** Log levels, from pino (fastify's logger); `silent` logs nothing. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How log lines are written: pino's JSON (for log collectors), or one line of text per event (for people). */
export const LOG_FORMATS = ["json", "text"] as const;

/** A log format. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The default of {@link AgentLimits.filterCacheBytes}: 64 MiB of compiled filters. */
export const FILTER_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The default of {@link AgentLimits.responseCacheBytes}: 64 MiB of list answers, kept by the
 * index they were made at, so that the blocking queries one write wakes share one computation.
 */
export const RESPONSE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The default of {@link AgentLimits.filterCostPerRequest}: 20,000,000 cost units (see the
 * README's "Cost model"), at most about 0.3 s of filtering for one request on a 2-core machine,
 * and enough for a regular expression over 100,000 jobs.
 */
export const FILTER_COST_PER_REQUEST = 20_000_000;

/** The default of {@link AgentLimits.requestTimeoutMs}: 30 seconds to send a request's headers and body. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Limits that protect the agent from clients that send too much, too slowly, or too costly. */
export interface AgentLimits {
  /** Memory the cache of compiled filters may hold, in bytes (default {@link FILTER_CACHE_BYTES}). */
  readonly filterCacheBytes?: number;
  /**
   * Memory the cache of list answers may hold, in bytes (default {@link RESPONSE_CACHE_BYTES});
   * an answer larger than it is made for each request. 0 turns the cache off.
   */
  readonly responseCacheBytes?: number;
  /**
   * Cost units the filter of one list request may spend over all its rows (default
   * {@link FILTER_COST_PER_REQUEST}); beyond it the request is a 400. Each row also has the
   * engine's own per-evaluation budget.
   */
  readonly filterCostPerRequest?: number;
  /**
   * Cost units the filters of the lifecycle's steps and of the scenario rules may spend together
   * on one write's rows, or on one scan of the state (the leader back, a rule added, a step
   * changed); default {@link RULES_COST_PER_WRITE}. The steps go first, then the rules in the
   * order added; those the budget does not reach are stopped for that write, with the reason in
   * their `lastError`. The write itself succeeds.
   */
  readonly rulesCostPerWrite?: number;
  /**
   * Milliseconds a client has to send a whole request, headers and body (default
   * {@link REQUEST_TIMEOUT_MS}); a slower one gets `408` and its connection is closed. Blocking
   * queries are not affected: their request arrives at once, only the answer waits.
   */
  readonly requestTimeoutMs?: number;
  /**
   * Event streams (`GET /v1/event/stream`) open at once, all clients together (default
   * {@link EVENT_STREAMS_MAX}); one more is answered `429`.
   */
  readonly eventStreams?: number;
  /**
   * The share of the process's heap limit (`--max-old-space-size`) past which writes that add to
   * the state (`PUT` and `POST` of `/v1/`, but `PUT /v1/system/gc`) are refused with `503` and
   * the reason (default {@link STATE_HEAP_FRACTION}); a number above 0, at most 1.
   */
  readonly stateHeapFraction?: number;
}

/**
 * A PostgreSQL database for the agent's state (see {@link AgentOptions.store}): a server's URL, or
 * a PGlite instance the caller opened; `schema` names the PostgreSQL schema of the agent's tables.
 */
export interface PostgresStoreConfig {
  /** A server: `postgres://user:password@host:port/database`. */
  readonly url?: string;
  /** An embedded PGlite instance (`@electric-sql/pglite`), which the caller opens and closes; agents of one process may share it. */
  readonly pglite?: PgliteLike;
  /** The PostgreSQL schema of the agent's tables (default `bexpr`): agents share their state when they share the database and the schema. */
  readonly schema?: string;
  /**
   * On a server, how long one statement of a list page may run before the server cancels it
   * (default {@link LIST_STATEMENT_TIMEOUT_MS}); a page whose pushed-down filter takes longer is
   * read again with the filter decided by the agent. PGlite cannot cancel a statement.
   */
  readonly listStatementTimeoutMs?: number;
}

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
  /**
   * The header style (default `"svc"`): `"svc"` reads the token from `X-Svc-Token` and answers
   * `X-Svc-Index`, `X-Svc-Knownleader`, `X-Svc-Lastcontact` and `X-Svc-Nexttoken`, as the spec
   * names them; `"nomad"` reads `X-Nomad-Token` and answers the `X-Nomad-*` headers, as HashiCorp
   * Nomad does, so that its Go client, CLI and SDKs can be tested against the agent unchanged. A
   * style neither reads nor writes the other's headers; `Authorization: Bearer` is read in both.
   */
  readonly headers?: HeaderStyle;
  /** The node name (default: the host name). */
  readonly nodeName?: string;
  /** Load the demo data set (default true). */
  readonly demo?: boolean;
  /**
   * When placed allocations run: half of it after their placement, in milliseconds (default 2000);
   * a batch job's tasks run for the whole delay. Their health then follows the group's update
   * block (`MinHealthyTime`, `HealthyDeadline`), as the reference's client finds it.
   */
  readonly placementDelayMs?: number;
  /**
   * `"real"` (the default) follows the machine's clock; `"manual"` stands still until the test
   * moves it with `agent.clock.advance("10m")`, which runs the scheduler's steps due on the way.
   */
  readonly clock?: "real" | "manual";
  /** How many simulated client nodes the agent has in its datacenter (default 3); allocations are placed on them as the reference's scheduler ranks them (`placement.ts`). */
  readonly nodes?: number;
  /** Log level (default `info`; `silent` for test suites). */
  readonly logLevel?: LogLevel;
  /** Log format (default `json`; the `bexpr agent` command writes `text`). */
  readonly logFormat?: LogFormat;
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
  /** Limits against hostile clients (see {@link AgentLimits}). */
  readonly limits?: AgentLimits;
  /**
   * Where the state is kept: `memory` (the default: the agent's own, gone when it stops), or
   * PostgreSQL, where several agents share it as the servers of one region and it survives them:
   * a URL (`postgres://…`) or a {@link PostgresStoreConfig}.
   */
  readonly store?: "memory" | string | PostgresStoreConfig;
  /**
   * Milliseconds between the heartbeats `{}` of `GET /v1/event/stream` (default
   * {@link EVENT_HEARTBEAT_MS}, 30 s as the reference; a test suite may make it short).
   */
  readonly eventHeartbeatMs?: number;
  /**
   * Whether the control API (`/_bexpr/requests`, `/_bexpr/faults`, `/_bexpr/leader`…) is served
   * over HTTP. Default: on when the agent listens on a loopback address (`127.0.0.0/8`, `::1`,
   * `localhost`), off otherwise; when off its paths answer 404. The programmatic API
   * (`agent.requests()`, `agent.faults`…) works either way.
   */
  readonly control?: boolean;
  /**
   * Host names the agent answers to besides its own (loopback names, IP addresses, the `bind`
   * name): `["agent.example"]`, `[".corp.example"]` for a name and its subdomains, `true` (or
   * `["*"]`) for any, behind a proxy. Another Host is refused with 421, so that a web page cannot
   * reach the agent by DNS rebinding; a page of one of these hosts may also write to it (see
   * docs/agent.md, "What a web page can reach"). Default none.
   */
  readonly allowedHosts?: AllowedHosts;
  /**
   * The state to start from instead of the demo data: the path of a data file (JSON), or the
   * document itself. A snapshot (`agent.snapshot()`, `GET /_bexpr/snapshots/<name>`: it has a
   * `Format`) is restored as it is; a fixture (`{"Namespaces", "Nodes", "Jobs", "Deployments",
   * "ACL"}`, see {@link AgentFixture}) is loaded through the agent's own registration and scheduler.
   * With data, the demo data is off by default, and cannot be turned on.
   */
  readonly data?: AgentDataSource;
}

/** Options with every default applied. */
export type ResolvedOptions = { readonly [K in Exclude<keyof AgentOptions, "metrics" | "limits" | "data">]-?: NonNullable<AgentOptions[K]> } & {
  /** The data the agent starts from, if any. */
  readonly data: AgentDataSource | undefined;
  /** The metrics options, each with its default applied. */
  readonly metrics: Required<MetricsOptions>;
  /** The limits, each with its default applied. */
  readonly limits: Required<AgentLimits>;
};

/** The default {@link AgentLimits}. */
export const DEFAULT_LIMITS: Required<AgentLimits> = Object.freeze({
  filterCacheBytes: FILTER_CACHE_BYTES,
  responseCacheBytes: RESPONSE_CACHE_BYTES,
  filterCostPerRequest: FILTER_COST_PER_REQUEST,
  rulesCostPerWrite: RULES_COST_PER_WRITE,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  eventStreams: EVENT_STREAMS_MAX,
  stateHeapFraction: STATE_HEAP_FRACTION,
});

/** The most simulated client nodes an agent has (each is a row every placement reads). */
export const MAX_NODES = 1000;

/** The defaults of {@link AgentOptions}. */
export const DEFAULT_OPTIONS: ResolvedOptions = Object.freeze({
  bind: "127.0.0.1",
  port: 4646,
  region: "global",
  datacenter: "dc1",
  headers: "svc",
  nodeName: hostname(),
  demo: true,
  placementDelayMs: 2000,
  clock: "real",
  nodes: 3,
  logLevel: "info",
  logFormat: "json",
  acl: { enabled: false },
  namespaces: [],
  metrics: DEFAULT_METRICS_OPTIONS,
  limits: DEFAULT_LIMITS,
  store: "memory",
  eventHeartbeatMs: EVENT_HEARTBEAT_MS,
  // On, as the default bind is a loopback address; `resolveOptions` decides from the bind given.
  control: true,
  allowedHosts: Object.freeze([]),
  data: undefined,
});

const CHECKS: { readonly [K in keyof AgentOptions]-?: (value: unknown) => boolean } = {
  bind: (value) => typeof value === "string" && value !== "",
  port: (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535,
  region: (value) => typeof value === "string" && /^[A-Za-z0-9_-]+$/.test(value),
  datacenter: (value) => typeof value === "string" && value !== "",
  headers: (value) => (HEADER_STYLES as readonly unknown[]).includes(value),
  nodeName: (value) => typeof value === "string" && value !== "",
  demo: (value) => typeof value === "boolean",
  placementDelayMs: (value) => typeof value === "number" && Number.isFinite(value) && value >= 0,
  clock: (value) => value === "real" || value === "manual",
  nodes: (value) => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_NODES,
  logLevel: (value) => (LOG_LEVELS as readonly unknown[]).includes(value),
  logFormat: (value) => (LOG_FORMATS as readonly unknown[]).includes(value),
  acl: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  namespaces: (value) => Array.isArray(value) && value.every((entry) => typeof entry === "object" && entry !== null && typeof (entry as { Name?: unknown }).Name === "string"),
  metrics: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  limits: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  store: (value) => value === "memory" || isPostgresUrl(value) || isPostgresConfig(value),
  eventHeartbeatMs: (value) => Number.isSafeInteger(value) && (value as number) > 0,
  control: (value) => typeof value === "boolean",
  allowedHosts: (value) => value === true || (Array.isArray(value) && value.every(isAllowedHostEntry)),
  data: (value) => (typeof value === "string" && value !== "") || (typeof value === "object" && value !== null && !Array.isArray(value)),
};

/** A PostgreSQL connection URL. */
function isPostgresUrl(value: unknown): value is string {
  return typeof value === "string" && /^postgres(ql)?:\/\//.test(value);
}

/** A {@link PostgresStoreConfig}: a URL or a PGlite instance (one of them), and an optional schema. */
function isPostgresConfig(value: unknown): value is PostgresStoreConfig {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { url, pglite, schema, listStatementTimeoutMs, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || (url === undefined) === (pglite === undefined)) return false;
  if (listStatementTimeoutMs !== undefined && !isPositiveInteger(listStatementTimeoutMs)) return false;
  const pgliteLike = pglite === undefined || (typeof pglite === "object" && pglite !== null && typeof (pglite as PgliteLike).query === "function");
  return (url === undefined || isPostgresUrl(url)) && pgliteLike && (schema === undefined || typeof schema === "string");
}

/** What each option accepts, for the message when a value is refused. */
const EXPECTS: { readonly [K in keyof AgentOptions]-?: string } = {
  bind: "an address or host name to listen on, such as 127.0.0.1",
  port: "a whole number from 0 to 65535 (0 picks a free port)",
  region: "letters, digits, _ and -",
  datacenter: "a non-empty name",
  headers: '"svc" (the spec\'s X-Svc-* headers) or "nomad" (the reference\'s X-Nomad-* headers)',
  nodeName: "a non-empty name",
  demo: "true or false",
  placementDelayMs: "a number of milliseconds, 0 or more",
  clock: '"real" or "manual"',
  nodes: `a whole number from 0 to ${MAX_NODES}`,
  logLevel: `one of ${LOG_LEVELS.join(", ")}`,
  logFormat: `one of ${LOG_FORMATS.join(", ")}`,
  acl: 'an object such as {"enabled": true}',
  namespaces: 'a list of objects with a Name, such as [{"Name": "prod"}]',
  metrics: 'an object such as {"intervalMs": 10000}',
  limits: 'an object such as {"requestTimeoutMs": 30000}',
  store: 'memory, a PostgreSQL URL such as postgres://user@localhost/bexpr, or {"url": "postgres://…", "schema": "bexpr"}',
  eventHeartbeatMs: "a positive whole number of milliseconds",
  control: "true or false",
  allowedHosts: 'true, or a list of host names without scheme or port, such as ["agent.example", ".corp.example"] (a leading dot for the subdomains too; "*" for any)',
  data: "the path of a data file (a snapshot or a fixture), or such a document",
};

const isPositiveInteger = (value: unknown) => Number.isSafeInteger(value) && (value as number) > 0;
const isNonNegativeInteger = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

const LIMITS_CHECKS: { readonly [K in keyof AgentLimits]-?: (value: unknown) => boolean } = {
  filterCacheBytes: isNonNegativeInteger,
  responseCacheBytes: isNonNegativeInteger,
  filterCostPerRequest: isPositiveInteger,
  rulesCostPerWrite: isPositiveInteger,
  requestTimeoutMs: isPositiveInteger,
  eventStreams: isPositiveInteger,
  stateHeapFraction: (value) => typeof value === "number" && value > 0 && value <= 1,
};

const METRICS_CHECKS: { readonly [K in keyof MetricsOptions]-?: (value: unknown) => boolean } = {
  intervalMs: (value) => Number.isInteger(value) && (value as number) >= MIN_METRICS_INTERVAL_MS,
  retentionMs: (value) => Number.isInteger(value) && (value as number) > 0,
  prometheus: (value) => typeof value === "boolean",
};

/**
 * `given` over `defaults`, each given value checked by its key's check. `prefix` names the group
 * in messages (`metrics.`); `expects` says what a key accepts, when the check alone does not.
 */
function resolveGroup<T extends object>(
  given: object,
  defaults: T,
  checks: Readonly<Record<string, (value: unknown) => boolean>>,
  prefix = "",
  expects: (key: string) => string | undefined = () => undefined,
): T {
  const resolved: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const check = checks[key];
    if (check === undefined) throw new OptionsError(`unknown option ${prefix}${key}; known options: ${Object.keys(checks).join(", ")}`);
    if (!check(value)) {
      const hint = expects(key);
      throw new OptionsError(`invalid value for ${prefix}${key}: ${stringifyJson(value)}${hint === undefined ? "" : `; expected ${hint}`}`);
    }
    resolved[key] = value;
  }
  return resolved as T;
}

/** The metrics options with their defaults, each checked; retention holds 1 to MAX_METRICS_INTERVALS intervals. */
function resolveMetricsOptions(options: MetricsOptions): Required<MetricsOptions> {
  const resolved = resolveGroup<Required<MetricsOptions>>(options, DEFAULT_METRICS_OPTIONS, METRICS_CHECKS, "metrics.", (key) =>
    key === "intervalMs" ? `a whole number of milliseconds, at least ${MIN_METRICS_INTERVAL_MS}` : key === "retentionMs" ? "a positive whole number of milliseconds" : "true or false",
  );
  const { intervalMs, retentionMs } = resolved;
  const intervals = Math.floor(retentionMs / intervalMs);
  if (intervals < 1 || intervals > MAX_METRICS_INTERVALS) {
    throw new OptionsError(`metrics.retentionMs must hold 1 to ${MAX_METRICS_INTERVALS} intervals of metrics.intervalMs (${retentionMs} / ${intervalMs} gives ${intervals})`);
  }
  return resolved;
}

/** The limits with their defaults, each checked. */
function resolveLimits(options: AgentLimits): Required<AgentLimits> {
  return resolveGroup<Required<AgentLimits>>(options, DEFAULT_LIMITS, LIMITS_CHECKS, "limits.", (key) =>
    key === "filterCacheBytes" || key === "responseCacheBytes" ? "a non-negative whole number" : key === "stateHeapFraction" ? "a number above 0, at most 1" : "a positive whole number",
  );
}

/** An option that is missing a valid value; the message names it. */
export class OptionsError extends Error {
  /** Always `"OptionsError"`. */
  override readonly name = "OptionsError";
}

/** Applies the defaults to `options`, checking each given value. */
export function resolveOptions(options: AgentOptions): ResolvedOptions {
  const resolved = resolveGroup<ResolvedOptions>(options, DEFAULT_OPTIONS, CHECKS, "", (key) => EXPECTS[key as keyof AgentOptions]);
  // The data replaces the demo data set: both would register the same kind of jobs into one state.
  if (resolved.data !== undefined && options.demo === true) throw new OptionsError("demo and data cannot both be loaded: give one of them");
  return {
    ...resolved,
    demo: resolved.data === undefined && resolved.demo,
    control: controlEnabled(options.control, resolved.bind),
    metrics: options.metrics === undefined ? resolved.metrics : resolveMetricsOptions(options.metrics),
    limits: options.limits === undefined ? resolved.limits : resolveLimits(options.limits),
  };
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
