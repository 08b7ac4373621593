/**
 * `bexpr/server`: the mini-agent, for test suites and `bexpr agent`.
 *
 * ```ts
 * import { startAgent } from "bexpr/server";
 * const agent = await startAgent({ port: 0, demo: false, logLevel: "silent" });
 * await fetch(`${agent.url}/v1/jobs`);
 * await agent.close();
 * ```
 *
 * @packageDocumentation
 * @module bexpr/server
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { VERSION } from "../version.js";
import { AccessControl, AclConfigError } from "./domain/acl.js";
import { buildApp } from "./http/app.js";
import { Cluster } from "./domain/cluster.js";
import { MemoryStore } from "./state/memory.js";
import { responseOf } from "./http/errors.js";
import { validateNamespace } from "./domain/namespaces.js";
import { loadDemo } from "./domain/demo.js";
import { Metrics } from "./metrics/index.js";
import { OptionsError, resolveOptions, type AgentOptions, type ResolvedOptions } from "./options.js";

export {
  DEFAULT_LIMITS,
  DEFAULT_OPTIONS,
  FILTER_CACHE_BYTES,
  FILTER_COST_PER_REQUEST,
  LOG_FORMATS,
  LOG_LEVELS,
  MAX_METRICS_INTERVALS,
  MIN_METRICS_INTERVAL_MS,
  OptionsError,
  readConfigFile,
  REQUEST_TIMEOUT_MS,
  RESPONSE_CACHE_BYTES,
  type AgentLimits,
  type AgentOptions,
  type LogFormat,
  type LogLevel,
} from "./options.js";
export { DEFAULT_METRICS_OPTIONS, METRICS, RUNTIME_STATS_INTERVAL_MS, type MetricDefinition, type MetricsOptions, type MetricsSummary } from "./metrics/index.js";
export { DEFAULT_WAIT_MS, JITTER_FRACTION, MAX_WAIT_MS } from "./list/blocking.js";
export { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_PATH_PARAM_LENGTH } from "./http/app.js";
export { LIST_LANE_BYTES } from "./http/list-lane.js";
export { ASYNC_GZIP_BYTES } from "./list/pipeline.js";
export { MAX_JSON_DEPTH } from "../go/json.js";
export { MAX_JOB_ALLOCATIONS } from "./domain/register.js";
export { MAX_POLICY_RULES_BYTES } from "./domain/acl-policy.js";
export type { AclOptions, AclPolicyConfig, AclTokenConfig } from "./domain/acl.js";
export type { ResolvedOptions } from "./options.js";
export type { MetricType } from "./metrics/catalogue.js";
export type { GaugeValue, SampledValue } from "./metrics/sink.js";

/** How long `Agent.close` waits for in-flight requests to be answered before cutting connections. */
export const CLOSE_GRACE_MS = 2000;

/** A running agent. */
export interface Agent {
  /** The base URL, such as `http://127.0.0.1:4646`. */
  readonly url: string;
  /** The address it listens on. */
  readonly address: string;
  /** The port it listens on (the one picked when asked for port 0). */
  readonly port: number;
  /** The options it runs with, defaults applied. */
  readonly options: ResolvedOptions;
  /**
   * How many blocking queries are waiting right now; a test can wait for its watcher to be parked
   * before it makes the write that should wake it.
   */
  readonly blockingQueries: number;
  /**
   * Stops the agent: answers every waiting blocking query with its current result, stops the
   * simulated scheduler, and closes the server once in-flight requests are answered.
   */
  close(): Promise<void>;
}

/**
 * Starts an agent.
 *
 * @throws OptionsError for an invalid option; the listen error when the port is taken.
 */
export async function startAgent(options: AgentOptions = {}): Promise<Agent> {
  const resolved = resolveOptions(options);
  const store = new MemoryStore();
  const cluster = new Cluster(store, { region: resolved.region, placementDelayMs: resolved.placementDelayMs });
  await cluster.seed();
  // On a store of its own, the agent runs the scheduler.
  cluster.lead();
  try {
    for (const namespace of resolved.namespaces) await cluster.putNamespace(validateNamespace(namespace));
  } catch (error) {
    throw new OptionsError(`namespaces: ${(error as Error).message}`);
  }
  let acl: AccessControl;
  try {
    acl = await AccessControl.fromOptions(store, resolved.acl);
  } catch (error) {
    if (error instanceof AclConfigError || responseOf(error) !== undefined) throw new OptionsError((error as Error).message);
    throw error;
  }
  if (resolved.demo) await loadDemo(cluster);
  const advertiseAddress = resolved.bind === "0.0.0.0" || resolved.bind === "::" ? "127.0.0.1" : resolved.bind;
  const settings = {
    region: resolved.region,
    datacenter: resolved.datacenter,
    nodeName: resolved.nodeName,
    nodeId: randomUUID(),
    advertiseAddress,
    version: VERSION,
    logLevel: resolved.logLevel,
    logFormat: resolved.logFormat,
    limits: resolved.limits,
  };
  const metrics = new Metrics(resolved.metrics, settings, store);
  const { app, requestsInFlight } = await buildApp(store, cluster, acl, settings, metrics);
  try {
    await app.listen({ host: resolved.bind, port: resolved.port });
  } catch (error) {
    metrics.close();
    cluster.close();
    await app.close();
    throw error;
  }
  const { address, port } = app.server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    address,
    port,
    options: { ...resolved, port },
    get blockingQueries() {
      return store.waiting;
    },
    close: () => {
      closing ??= (async () => {
        metrics.close();
        cluster.close();
        // Let the woken blocking queries (and other requests) finish writing, within a grace period.
        const deadline = Date.now() + CLOSE_GRACE_MS;
        while (requestsInFlight() > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await app.close();
      })();
      return closing;
    },
  };
}
