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
import { buildApp, type AgentServer, type ClusterPart } from "./http/app.js";
import { Cluster } from "./domain/cluster.js";
import type { ScenarioRule, ScenarioRuleError } from "./domain/scenarios.js";
import { ManualClock, parseDuration, RealClock, type Clock } from "./domain/clock.js";
import { MemoryStore } from "./state/memory.js";
import { connectServer, fromPglite } from "./state/postgres/database.js";
import { MemberNameTaken, Membership } from "./state/postgres/membership.js";
import { PostgresStore, StoreSetupError } from "./state/postgres/store.js";
import type { Store } from "./state/store.js";
import { lonePeers, type Peers } from "./domain/members.js";
import { SEARCH_DOCUMENTS } from "./list/sql-pages.js";
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
  MAX_NODES,
  MIN_METRICS_INTERVAL_MS,
  OptionsError,
  readConfigFile,
  REQUEST_TIMEOUT_MS,
  RESPONSE_CACHE_BYTES,
  type AgentLimits,
  type AgentOptions,
  type LogFormat,
  type LogLevel,
  type PostgresStoreConfig,
} from "./options.js";
export type { PgliteLike, PgliteResults } from "./state/postgres/database.js";
export { HEARTBEAT_MS, LEADER_LEASE_MS, MEMBER_FAILED_AFTER_MS } from "./state/postgres/membership.js";
export { DEFAULT_SCHEMA, SCHEMA_VERSION } from "./state/postgres/store.js";
export { DEFAULT_METRICS_OPTIONS, METRICS, RUNTIME_STATS_INTERVAL_MS, type MetricDefinition, type MetricsOptions, type MetricsSummary } from "./metrics/index.js";
export { DEFAULT_WAIT_MS, JITTER_FRACTION, MAX_WAIT_MS } from "./list/blocking.js";
export { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_PATH_PARAM_LENGTH } from "./http/app.js";
export { LIST_LANE_BYTES } from "./http/list-lane.js";
export { ASYNC_GZIP_BYTES } from "./list/pipeline.js";
export { MAX_JSON_DEPTH } from "../go/json.js";
export { MAX_JOB_ALLOCATIONS } from "./domain/register.js";
export { CLIENT_DESCRIPTIONS, DEPLOYMENT_DESCRIPTIONS, META_EXIT_CODE, META_FAIL_DEPLOYMENT, META_RUN_FOR, type DeploymentUpdateResponse, type DeregisterResponse } from "./domain/cluster.js";
export { MAX_SCENARIO_RULES, SCENARIO_TABLES, ScenarioRuleError, SETTABLE, type ScenarioKind, type ScenarioRule } from "./domain/scenarios.js";
export type { ClientStatus, DesiredStatus } from "./state/model.js";
export { MAX_POLICY_RULES_BYTES } from "./domain/acl-policy.js";
export type { AclOptions, AclPolicyConfig, AclTokenConfig } from "./domain/acl.js";
export type { ResolvedOptions } from "./options.js";
export type { MetricType } from "./metrics/catalogue.js";
export type { GaugeValue, SampledValue } from "./metrics/sink.js";

/** How long an agent starting on a shared store waits for another agent to load the demo data. */
const DEMO_WAIT_MS = 30_000;

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
  /** Whether this agent runs the simulated scheduler: always on a store of its own, the leader's part on a shared one. */
  readonly leading: boolean;
  /** The agent's clock: what its timestamps say, and, with `clock: "manual"`, the way to move it. */
  readonly clock: AgentClock;
  /** The scenario rules of the simulated scheduler (see {@link ScenarioRule}). */
  readonly scenarios: AgentScenarios;
  /**
   * Stops the agent: answers every waiting blocking query with its current result, stops the
   * simulated scheduler, leaves the cluster (a shared store's members show it `left`, and another
   * agent leads), and closes the server once in-flight requests are answered.
   */
  close(): Promise<void>;
}

/** The clock of an agent (see {@link AgentOptions.clock}). */
export interface AgentClock {
  /** `"real"` or `"manual"`. */
  readonly kind: "real" | "manual";
  /** The agent's time now. */
  now(): Date;
  /**
   * Moves a manual clock forward (milliseconds, or a duration such as `"10m"` or `"1h30m"`),
   * running every scheduler step that falls due on the way, in order: placements, allocations
   * that run and finish, deployments that complete or miss their progress deadline. Resolves once
   * they are written. Throws on the real clock, which nobody moves.
   */
  advance(duration: number | string): Promise<void>;
}

/** The scenario rules of an agent: lifecycle steps a test adds, each acting once on each row it selects. */
export interface AgentScenarios {
  /**
   * Adds a rule and returns its ID; it acts on the rows there are and on every row a write
   * changes. Throws {@link ScenarioRuleError} saying what is wrong with a rule that cannot be used.
   *
   * @example
   * ```ts
   * agent.scenarios.add({ on: "allocation", select: 'JobID == "web"', after: "30s", set: { ClientStatus: "failed" } });
   * ```
   */
  add(rule: ScenarioRule): string;
  /** Removes a rule (its steps not yet run are dropped); false when there is no rule of that ID. */
  remove(id: string): boolean;
  /** The rules, in the order added, with how many rows each changed. */
  list(): { readonly id: string; readonly rule: ScenarioRule; readonly fired: number }[];
  /** Removes every rule. */
  clear(): void;
}

/** The {@link AgentScenarios} of a cluster. */
function agentScenarios(cluster: Cluster): AgentScenarios {
  return {
    add: (rule) => cluster.addRule(rule).id,
    remove: (id) => cluster.removeRule(id),
    list: () => cluster.rules.map(({ id, rule, fired }) => ({ id, rule, fired })),
    clear: () => {
      for (const { id } of cluster.rules) cluster.removeRule(id);
    },
  };
}

/** The {@link AgentClock} of a clock. */
function agentClock(clock: Clock): AgentClock {
  return {
    kind: clock.kind,
    now: () => new Date(clock.nowMs()),
    advance: async (duration) => {
      const ms = parseDuration(duration);
      if (!(clock instanceof ManualClock)) throw new Error('the agent runs on the real clock: start it with clock: "manual" to move its time');
      await clock.advance(ms);
    },
  };
}

/** The agent's state: its own, or shared through PostgreSQL, and how to let go of it. */
interface OpenedStore {
  readonly store: Store;
  readonly shared?: PostgresStore;
  /** Closes the connections the agent opened (not a PGlite instance it was given). */
  readonly disconnect: () => Promise<void>;
}

async function openStore(option: ResolvedOptions["store"]): Promise<OpenedStore> {
  if (option === "memory") return { store: new MemoryStore(), disconnect: async () => {} };
  const config = typeof option === "string" ? { url: option } : option;
  const database = config.url !== undefined ? await connectServer(config.url) : fromPglite(config.pglite!);
  try {
    const shared = await PostgresStore.open(database, { ...(config.schema === undefined ? {} : { schema: config.schema }), documents: SEARCH_DOCUMENTS });
    return { store: shared, shared, disconnect: () => database.close() };
  } catch (error) {
    await database.close().catch(() => {});
    if (error instanceof StoreSetupError) throw new OptionsError(`store: ${error.message}`);
    // A server that cannot be reached or refuses the agent is the user's to fix: say which, without the password.
    const where = config.url === undefined ? "PGlite" : redactPassword(config.url);
    throw new OptionsError(`store: cannot open the state in PostgreSQL at ${where}: ${(error as Error).message}`);
  }
}

/**
 * Starts an agent.
 *
 * @throws OptionsError for an invalid option, or a database that cannot hold the agent's state; the
 *   listen error when the port is taken; the database's error when it cannot be reached.
 */
export async function startAgent(options: AgentOptions = {}): Promise<Agent> {
  const resolved = resolveOptions(options);
  const { store, shared, disconnect } = await openStore(resolved.store);
  let log: ((error: unknown) => void) | undefined;
  const clock = resolved.clock === "manual" ? new ManualClock() : new RealClock();
  const cluster = new Cluster(store, { region: resolved.region, placementDelayMs: resolved.placementDelayMs, clock, onError: (error) => log?.(error) });
  let membership: Membership | undefined;
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
  let started: { app: AgentServer["app"]; metrics: Metrics } | undefined;
  try {
    await cluster.seed(resolved.nodes, resolved.datacenter);
    try {
      for (const namespace of resolved.namespaces) await cluster.putNamespace(validateNamespace(namespace));
    } catch (error) {
      throw new OptionsError(`namespaces: ${(error as Error).message}`);
    }
    let acl: AccessControl;
    try {
      acl = await AccessControl.fromOptions(store, resolved.acl, () => clock.nowMs());
    } catch (error) {
      if (error instanceof AclConfigError || responseOf(error) !== undefined) throw new OptionsError((error as Error).message);
      throw error;
    }
    // The demo data is loaded once per store: by a lone agent, or by the first agent of a shared one,
    // which schedules it as if it led until it knows who does.
    if (resolved.demo && (await store.claim("demo"))) {
      cluster.lead();
      await loadDemo(cluster);
      await shared?.finishClaim("demo");
    } else if (resolved.demo && shared !== undefined) {
      // Another agent loads it: serve once it is there (or, if that agent died on the way, after a while).
      await shared.waitForClaim("demo", DEMO_WAIT_MS);
      await shared.catchUp();
    }
    if (shared === undefined) cluster.lead();
    else cluster.follow();
    const metrics = new Metrics(resolved.metrics, settings, store);
    // The agent's own peers until it has joined the cluster (it serves nothing before).
    let current: Peers = lonePeers(settings);
    const peers: Peers = {
      get knownLeader() {
        return current.knownLeader;
      },
      lastContactMs: (stale) => current.lastContactMs(stale),
      members: () => current.members(),
    };
    const part: ClusterPart = shared === undefined ? { peers } : { peers, shared };
    const server = await buildApp(store, cluster, acl, settings, metrics, part);
    started = { app: server.app, metrics };
    log = (error) => server.app.log.error({ err: error }, "a step of the scheduler failed; the leader takes it up again");
    await server.app.listen({ host: resolved.bind, port: resolved.port });
    const { address, port } = server.app.server.address() as AddressInfo;
    if (shared !== undefined) {
      const self = { name: `${resolved.nodeName}.${resolved.region}`, address: advertiseAddress, port, datacenter: resolved.datacenter, nodeId: settings.nodeId, version: VERSION };
      membership = new Membership(shared, self, (leading) => {
        // The reference's words, in the agent's log.
        server.app.log.info(leading ? "cluster leadership acquired" : "cluster leadership lost");
        if (leading) cluster.lead();
        else cluster.follow();
      });
      current = sharedPeers(membership, shared);
      try {
        await membership.join();
      } catch (error) {
        if (error instanceof MemberNameTaken) throw new OptionsError(`nodeName: ${error.message}`);
        throw error;
      }
    }
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
      get leading() {
        return cluster.leading;
      },
      clock: agentClock(clock),
      scenarios: agentScenarios(cluster),
      close: () => {
        closing ??= (async () => {
          metrics.close();
          await membership?.stop(true);
          cluster.close();
          // Let the woken blocking queries (and other requests) finish writing, within a grace period.
          const deadline = Date.now() + CLOSE_GRACE_MS;
          while (server.requestsInFlight() > 0 && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          await server.app.close();
          await disconnect();
        })();
        return closing;
      },
    };
  } catch (error) {
    await membership?.stop(false);
    started?.metrics.close();
    cluster.close();
    await started?.app.close();
    await disconnect().catch(() => {});
    throw error;
  }
}

/** A connection URL without its password. */
function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "redacted";
    return parsed.toString();
  } catch {
    return "the URL given";
  }
}

/** The peers of an agent sharing its state: the leader's lease and the members' table, and the copy's age for `?stale` reads. */
function sharedPeers(membership: Membership, shared: PostgresStore): Peers {
  return {
    get knownLeader() {
      return membership.knownLeader;
    },
    lastContactMs: (stale) => (stale ? shared.copyAgeMs : 0),
    members: () => membership.members(),
  };
}
