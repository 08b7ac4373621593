/**
 * Starting an agent: what `startAgent` puts together, in order, each part named.
 *
 * 1. the options resolved, and the data file read (a bad one is a quick error);
 * 2. the store opened: the agent's own, or PostgreSQL shared with other agents;
 * 3. the parts that act on it: the clock, the simulated scheduler, the test harness's control
 *    plane, the agent's identity, its metrics ({@link assemble});
 * 4. on a shared store, the agent's name claimed before it writes or serves anything ({@link claimName});
 * 5. the state filled: nodes, configured namespaces and ACLs, the event broker, then the demo data
 *    or the data file, once per store ({@link fillState});
 * 6. the HTTP server started, and the agent joined to the cluster ({@link serve});
 * 7. the handle a test holds ({@link agentHandle}), whose `close` undoes it all; a start that fails
 *    half-way undoes what it did ({@link undo}).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import { VERSION } from "../version.js";
import { loadOptional } from "../optional-packages.js";
import { ManualClock, parseDurationNs, RealClock, type Clock } from "./base/clock.js";
import { HEADER_NAMES } from "./base/header-names.js";
import { loadDemo } from "./control/demo.js";
import type { Fault, FaultRule } from "./control/faults.js";
import type { JournalEntry } from "./control/journal.js";
import { ControlPlane } from "./control/plane.js";
import { AgentDataError, type AgentSnapshot } from "./control/snapshot.js";
import { readAgentData, StateControl, type AgentData, type AgentDataSource } from "./control/state-control.js";
import { AccessControl, AclConfigError } from "./domain/acl.js";
import { EventBroker } from "./domain/events.js";
import { lonePeers, type Peers } from "./domain/members.js";
import { validateNamespace } from "./domain/namespaces.js";
import type { AgentServer, ClusterPart } from "./http/app.js";
import { responseOf } from "./http/errors.js";
import type { HttpSettings } from "./http/route.js";
import { SEARCH_DOCUMENTS } from "./list/endpoints.js";
import { Metrics } from "./metrics/index.js";
import { OptionsError, resolveOptions, type AgentOptions, type ResolvedOptions } from "./options.js";
import { Cluster } from "./scheduler/cluster.js";
import type { LifecycleChange, LifecycleStep, LifecycleStepName, ScenarioRule, ScenarioRuleError } from "./scheduler/scenarios.js";
import { MemoryStore } from "./state/memory.js";
import { connectServer, fromPglite } from "./state/postgres/database.js";
import { MemberNameTaken, Membership } from "./state/postgres/membership.js";
import { PostgresStore, StoreSetupError } from "./state/postgres/store.js";
import type { Store } from "./state/store.js";

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
  /** How many `GET /v1/event/stream` streams are open right now. */
  readonly eventStreams: number;
  /** Whether this agent runs the simulated scheduler: always on a store of its own, the leader's part on a shared one. */
  readonly leading: boolean;
  /** The agent's clock: what its timestamps say, and, with `clock: "manual"`, the way to move it. */
  readonly clock: AgentClock;
  /** The scenario rules of the simulated scheduler (see {@link ScenarioRule}). */
  readonly scenarios: AgentScenarios;
  /**
   * The requests the agent served (all but the control routes'), oldest first, that match a bexpr
   * filter (all without one), with secrets redacted: `agent.requests('Method == "PUT" and Status == 400')`.
   * See {@link JournalEntry} for what a filter sees; at most {@link MAX_JOURNAL_ENTRIES} entries
   * and {@link JOURNAL_BYTES} are kept, the oldest dropped first.
   *
   * @throws FilterSyntaxError for a filter that is not valid; FilterEvaluationError when it cannot
   *   be evaluated on an entry or spends the request's cost budget.
   */
  requests(filter?: string): JournalEntry[];
  /** Empties the request journal (and its count of dropped entries). */
  clearRequests(): void;
  /** How many entries the journal dropped, oldest first, to stay within its limits since it was last cleared. */
  readonly droppedRequests: number;
  /** The fault rules: answers and delays instead of the routes' (see {@link FaultRule}). */
  readonly faults: AgentFaults;
  /**
   * Loses the cluster's leader (`false`) or gets it back (`true`): meanwhile writes and consistent
   * reads fail with the reference's `500 No cluster leader`, and `?stale` reads are answered with
   * `X-Svc-KnownLeader: false` (`X-Nomad-KnownLeader`, in the nomad header style).
   */
  setLeader(known: boolean): void;
  /**
   * Stops the agent: answers every waiting blocking query with its current result, stops the
   * simulated scheduler, leaves the cluster (a shared store's members show it `left`, and another
   * agent leads), and closes the server once in-flight requests are answered.
   */
  close(): Promise<void>;
  /**
   * {@link Agent.close}, for `await using agent = await startAgent()`: the agent stops when the
   * block that holds it ends, however it ends.
   */
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * The whole state (every table's rows) as a versioned JSON-able document, to give to
   * {@link Agent.restore} later, or to another agent's, or as its `data` (write it with
   * `stringifyJson`, or take it over HTTP, to keep its nanosecond times exact).
   */
  snapshot(): Promise<AgentSnapshot>;
  /**
   * Puts a snapshot back in one write that names every table: rows it does not hold are deleted,
   * its rows put as they were, so lists answer byte for byte what they answered when it was taken;
   * the index still grows (blocking queries wake). The scheduler then takes its work up from the
   * restored state. Resolves with the index of the write.
   *
   * @throws AgentDataError for a document that is not a snapshot this agent can restore (the
   *   message names the place in it and what is expected).
   * @example
   * ```ts
   * const before = await agent.snapshot();
   * await fetch(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job }) });
   * await agent.restore(before);
   * ```
   */
  restore(snapshot: AgentSnapshot): Promise<number>;
  /**
   * Empties the state back to a new agent's: the `default` namespace, the agent's nodes, its
   * configured namespaces and ACL policies and tokens (no demo data, no `data`). Resolves with
   * the index of the write. Scenario rules, faults, the journal and the clock are left as they are.
   */
  reset(): Promise<number>;
}

/** The fault rules of an agent ({@link Agent.faults}). */
export interface AgentFaults {
  /**
   * Adds a rule, tried after those added before; returns its ID (`f1`, `f2`…).
   *
   * @throws FaultRuleError for a rule that is not valid, or when {@link MAX_FAULTS} rules are held.
   * @example
   * ```ts
   * agent.faults.add({ method: "GET", path: "/v1/jobs", status: 503, body: "No cluster leader", count: 2 });
   * ```
   */
  add(rule: FaultRule): string;
  /** Removes a rule; returns whether it was there. */
  remove(id: string): boolean;
  /** Removes every rule. */
  clear(): void;
  /** The rules in the order they are tried, spent ones included, with how many times each fired. */
  list(): Fault[];
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
   * they are written. Throws on the real clock, which nobody moves; a RangeError for a duration
   * longer than Go's longest (`2562047h47m16.854775807s`), and one named `ClockLimitError` (the
   * clock unmoved) for a move past 2262-04-11T23:47:16.854775807Z, the latest time the reference's
   * int64 nanosecond timestamps hold.
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
  list(): ScenarioRuleListing[];
  /** Removes every rule. */
  clear(): void;
  /**
   * The built-in lifecycle's steps (`evaluate`, `run`, `finish`, `complete`): the simulated
   * scheduler's and clients' own work, each a rule with a filter and a time.
   */
  lifecycle(): LifecycleStep[];
  /**
   * Changes a step of the built-in lifecycle: `select` (a filter over the rows it may act on),
   * `after` (a duration in place of its own timing, or null for it) or `enabled` (false: its rows
   * stay as they are, for the test's rules to move). Returns the step as changed; throws
   * {@link ScenarioRuleError} for a change that cannot be used.
   *
   * @example
   * ```ts
   * agent.scenarios.changeStep("run", { select: 'ClientStatus == "pending" and JobID != "stuck"' }); // "stuck" never starts
   * agent.scenarios.changeStep("complete", { after: "10m" }); // deployments take ten minutes
   * ```
   */
  changeStep(name: LifecycleStepName, change: LifecycleChange): LifecycleStep;
  /** Puts the built-in lifecycle back as the agent started with it. */
  resetLifecycle(): void;
}

/** A scenario rule the agent holds. */
export interface ScenarioRuleListing {
  /** Its ID, to remove it. */
  readonly id: string;
  /** The rule as it was added. */
  readonly rule: ScenarioRule;
  /** How many rows it changed so far. */
  readonly fired: number;
  /** Why it last stopped short of rows: the rules' filters ran out of `limits.rulesCostPerWrite` (absent when they never did). */
  readonly lastError?: string;
}

/** The {@link AgentScenarios} of a cluster. */
function agentScenarios(cluster: Cluster): AgentScenarios {
  return {
    add: (rule) => cluster.addRule(rule).id,
    remove: (id) => cluster.removeRule(id),
    list: () => cluster.rules.map(({ id, rule, fired, lastError }) => ({ id, rule, fired, ...(lastError === undefined ? {} : { lastError }) })),
    clear: () => {
      for (const { id } of cluster.rules) cluster.removeRule(id);
    },
    lifecycle: () => [...cluster.lifecycle],
    changeStep: (name, change) => cluster.changeLifecycle(name, change),
    resetLifecycle: () => cluster.resetLifecycle(),
  };
}

/** The {@link AgentClock} of a clock. */
function agentClock(clock: Clock): AgentClock {
  return {
    kind: clock.kind,
    now: () => new Date(clock.nowMs()),
    advance: async (duration) => {
      const ns = parseDurationNs(duration);
      if (!(clock instanceof ManualClock)) throw new Error('the agent runs on the real clock: start it with clock: "manual" to move its time');
      await clock.advanceNs(ns);
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

/**
 * Opens the agent's state; `onListening` is told when the connection to a PostgreSQL server is
 * lost and when it is back.
 */
async function openStore(option: ResolvedOptions["store"], onListening: (listening: boolean, error?: Error) => void): Promise<OpenedStore> {
  if (option === "memory") return { store: new MemoryStore(), disconnect: async () => {} };
  const config = typeof option === "string" ? { url: option } : option;
  const database =
    config.url !== undefined
      ? await connectServer(config.url, { onListening, ...(config.listStatementTimeoutMs === undefined ? {} : { listStatementTimeoutMs: config.listStatementTimeoutMs }) })
      : fromPglite(config.pglite!);
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
  // Read (and a fixture checked) before anything starts: a bad data file is a quick error.
  const data = resolved.data === undefined ? undefined : readData(resolved.data, resolved.region);
  const logs = new AgentLogs();
  const opened = await openStore(resolved.store, (listening, error) => logs.database(listening, error));
  const parts = await assemble(resolved, opened, logs);
  const started: Started = {};
  try {
    started.membership = await claimName(parts);
    const state = await fillState(parts, data, started);
    const server = await serve(parts, state, started);
    return agentHandle(parts, state, server, started.membership);
  } catch (error) {
    await undo(parts, started);
    throw error;
  }
}

/** What the agent's log says of its scheduler, its leadership and its database, once it has a log (it serves). */
class AgentLogs {
  #log: FastifyBaseLogger | undefined;
  #databaseLostAt = 0;

  /** From now on, to `log`. */
  attach(log: FastifyBaseLogger): void {
    this.#log = log;
  }

  /** A step of the simulated scheduler failed (the leader takes it up again). */
  schedulerError(error: unknown): void {
    this.#log?.error({ err: error }, "a step of the scheduler failed; the leader takes it up again");
  }

  /** The agent started or stopped leading the cluster: the reference's words. */
  leadership(leading: boolean): void {
    this.#log?.info(leading ? "cluster leadership acquired" : "cluster leadership lost");
  }

  /** The connection to PostgreSQL was lost, or is back. */
  database(listening: boolean, error?: Error): void {
    if (!listening) this.#databaseLostAt = performance.now();
    if (listening) this.#log?.info(`connected to the database again after ${Math.round(performance.now() - this.#databaseLostAt)} ms`);
    else this.#log?.warn({ err: error }, "lost the connection to the database; connecting again (requests that need it wait for it, then answer 500 No cluster leader)");
  }
}

/** The parts of an agent that act on its store, made before it fills or serves anything. */
interface Parts extends OpenedStore {
  readonly resolved: ResolvedOptions;
  readonly logs: AgentLogs;
  readonly clock: Clock;
  readonly cluster: Cluster;
  readonly control: ControlPlane;
  readonly settings: HttpSettings;
  readonly metrics: Metrics;
  /** The cluster leads from here, the change counted and timed. */
  readonly lead: () => void;
  /** The cluster follows another agent from here, the change counted. */
  readonly follow: () => void;
}

/** What a start did that a failure must undo. */
interface Started {
  membership?: Membership | undefined;
  events?: EventBroker;
  app?: AgentServer["app"];
}

/** The clock, the scheduler, the control plane, the agent's identity and its metrics. */
async function assemble(resolved: ResolvedOptions, opened: OpenedStore, logs: AgentLogs): Promise<Parts> {
  const clock = resolved.clock === "manual" ? new ManualClock() : new RealClock();
  const cluster = new Cluster(opened.store, { region: resolved.region, placementDelayMs: resolved.placementDelayMs, clock, rulesCostPerWrite: resolved.limits.rulesCostPerWrite, onError: (error) => logs.schedulerError(error) });
  // The names of the token and meta headers, chosen once: the routes, the lane and the journal all take them from here.
  const headerNames = HEADER_NAMES[resolved.headers];
  // The journal's times are the agent's clock's. While a test has the leader lost, the scheduler stands still, as the reference's does.
  const control = new ControlPlane({ http: resolved.control, region: resolved.region, headerNames, now: () => clock.nowMs(), filterCostPerRequest: resolved.limits.filterCostPerRequest, onLeaderChange: (known) => cluster.suspend(!known) });
  const settings: HttpSettings = {
    region: resolved.region,
    datacenter: resolved.datacenter,
    nodeName: resolved.nodeName,
    nodeId: randomUUID(),
    advertiseAddress: resolved.bind === "0.0.0.0" || resolved.bind === "::" ? "127.0.0.1" : resolved.bind,
    version: VERSION,
    bind: resolved.bind,
    allowedHosts: resolved.allowedHosts,
    logLevel: resolved.logLevel,
    logFormat: resolved.logFormat,
    limits: resolved.limits,
    headerNames,
  };
  // Made first, so that what the agent does as it starts (becoming the leader or a follower) is measured.
  const metrics = await Metrics.create(resolved.metrics, settings, opened.store);
  const lead = (): void => {
    if (cluster.leading) return;
    const start = performance.now();
    cluster.lead();
    metrics.leadership({ leading: true, elapsedMs: performance.now() - start });
  };
  const follow = (): void => {
    cluster.follow();
    metrics.leadership({ leading: false });
  };
  return { ...opened, resolved, logs, clock, cluster, control, settings, metrics, lead, follow };
}

/** On a shared store, the agent's name, its own before it writes or serves anything; its leadership follows the lease. */
async function claimName({ resolved, shared, settings, logs, lead, follow }: Parts): Promise<Membership | undefined> {
  if (shared === undefined) return undefined;
  const self = { name: `${resolved.nodeName}.${resolved.region}`, address: settings.advertiseAddress, port: resolved.port, datacenter: resolved.datacenter, nodeId: settings.nodeId, version: VERSION };
  const membership = new Membership(shared, self, (leading) => {
    logs.leadership(leading);
    if (leading) lead();
    else follow();
  });
  try {
    await membership.claim();
  } catch (error) {
    if (error instanceof MemberNameTaken) throw new OptionsError(`nodeName: ${error.message}`);
    throw error;
  }
  return membership;
}

/** The agent's state and what serves it: ACLs, events, the test harness's state control. */
interface FilledState {
  readonly acl: AccessControl;
  readonly events: EventBroker;
  readonly state: StateControl;
}

/**
 * The nodes, the configured namespaces and ACLs (the baseline a reset keeps), the event broker
 * (which follows every write from then on), then the demo data and the data file: each loaded
 * once per store, by a lone agent or the first of a shared store's, which schedules it as if it
 * led until it knows who does; the others wait for it.
 */
async function fillState(parts: Parts, data: AgentData | undefined, started: Started): Promise<FilledState> {
  const { resolved, store, shared, cluster, clock, lead, follow } = parts;
  await cluster.seed(resolved.nodes, resolved.datacenter);
  // Rows written from here to the demo data are the configuration's, which a reset keeps.
  const configuredSince = store.index;
  try {
    for (const namespace of resolved.namespaces) await cluster.putNamespace(validateNamespace(namespace));
  } catch (error) {
    throw new OptionsError(`namespaces: ${(error as Error).message}`);
  }
  let acl: AccessControl;
  try {
    acl = await AccessControl.fromOptions(store, resolved.acl, () => clock.nowMs(), clock);
  } catch (error) {
    if (error instanceof AclConfigError || responseOf(error) !== undefined) throw new OptionsError((error as Error).message);
    throw error;
  }
  const events = new EventBroker(store, acl, { heartbeatMs: resolved.eventHeartbeatMs, maxStreams: resolved.limits.eventStreams }, () => clock.nowMs());
  started.events = events;
  const state = new StateControl({ store, cluster, ...(shared === undefined ? {} : { shared }), datacenter: resolved.datacenter, now: () => clock.nowMs(), onRestored: () => acl.forgetBootstrap() });
  state.keepBaseline({
    namespaces: resolved.namespaces.map((namespace) => namespace.Name),
    policies: (resolved.acl.policies ?? []).map((policy) => policy.Name),
    tokenSecrets: [...(resolved.acl.tokens ?? []).flatMap((token) => (token.SecretID === undefined ? [] : [token.SecretID])), ...(resolved.acl.bootstrapToken === undefined ? [] : [resolved.acl.bootstrapToken])],
    since: configuredSince,
  });
  if (resolved.demo) await once(parts, "demo", () => loadDemo(cluster));
  if (data !== undefined) await once(parts, "data", () => loadData(state, data, resolved.data!));
  if (shared === undefined) lead();
  else follow();
  // The gauges again, now that the configuration's namespaces and the data are written: the first request sees them.
  parts.metrics.collect();
  return { acl, events, state };
}

/**
 * Loads something once per store: the agent that claims `name` loads it, leading meanwhile; on a
 * shared store the others serve once it is there (or, if that agent died on the way, after a while).
 */
async function once({ store, shared, lead }: Parts, name: string, load: () => Promise<void>): Promise<void> {
  if (await store.claim(name)) {
    lead();
    await load();
    await shared?.finishClaim(name);
  } else if (shared !== undefined) {
    await shared.waitForClaim(name, DEMO_WAIT_MS);
    await shared.catchUp();
  }
}

/** The HTTP server, listening; on a shared store, the agent then joins the cluster at its port. */
async function serve(parts: Parts, { acl, events, state }: FilledState, started: Started): Promise<AgentServer> {
  const { resolved, store, shared, cluster, control, settings, metrics, logs } = parts;
  // The agent's own peers until it has joined the cluster (it serves nothing before).
  let current: Peers = lonePeers(settings);
  // A test's leader loss overrides what the agent knows of its leader.
  const peers: Peers = {
    get knownLeader() {
      return control.leader.lost ? false : current.knownLeader;
    },
    lastContactMs: (stale) => (control.leader.lost ? control.leader.lastContactMs() : current.lastContactMs(stale)),
    members: () => current.members(),
    get leader() {
      return control.leader.lost ? undefined : current.leader;
    },
  };
  const part: ClusterPart = shared === undefined ? { peers } : { peers, shared };
  // The HTTP layer (fastify) is loaded by the first agent started, not by importing this module.
  const { buildApp } = await loadOptional("the agent", () => import("./http/app.js"));
  const server = await buildApp(store, cluster, acl, settings, metrics, part, events, control, state);
  started.app = server.app;
  logs.attach(server.app.log);
  await server.app.listen({ host: resolved.bind, port: resolved.port });
  const { membership } = started;
  if (membership !== undefined && shared !== undefined) {
    current = sharedPeers(membership, shared);
    await membership.join((server.app.server.address() as AddressInfo).port);
  }
  return server;
}

/** The handle of a running agent; its `close` stops everything, once. */
function agentHandle(parts: Parts, { events, state }: FilledState, server: AgentServer, membership: Membership | undefined): Agent {
  const { resolved, store, cluster, control, clock, metrics, disconnect } = parts;
  const { address, port } = server.app.server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  let closing: Promise<void> | undefined;
  const agent: Agent = {
    url: `http://${host}:${port}`,
    address,
    port,
    options: { ...resolved, port },
    get blockingQueries() {
      return store.waiting;
    },
    get eventStreams() {
      return events.streams;
    },
    get leading() {
      return cluster.leading;
    },
    clock: agentClock(clock),
    scenarios: agentScenarios(cluster),
    requests: (filter) => control.journal.query(filter),
    clearRequests: () => control.journal.clear(),
    get droppedRequests() {
      return control.journal.dropped;
    },
    faults: {
      add: (rule) => control.faults.add(rule),
      remove: (id) => control.faults.remove(id),
      clear: () => control.faults.clear(),
      list: () => control.faults.list(),
    },
    setLeader: (known) => control.leader.set(known),
    snapshot: () => state.snapshot(),
    restore: (snapshot) => state.restore(snapshot),
    reset: () => state.reset(),
    [Symbol.asyncDispose]: () => agent.close(),
    close: () => {
      closing ??= (async () => {
        // Requests a fault delays go on to be answered now.
        control.close();
        metrics.close();
        await membership?.stop(true);
        cluster.close();
        // Event streams end now (they would otherwise be in flight until the grace runs out).
        events.close();
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
  return agent;
}

/** Undoes a start that failed half-way; an agent that claimed its name leaves, so the name is free at once. */
async function undo({ cluster, metrics, disconnect }: Parts, started: Started): Promise<void> {
  await started.membership?.stop(true);
  started.events?.close();
  metrics.close();
  cluster.close();
  await started.app?.close();
  await disconnect().catch(() => {});
}

/** What the `data` option names: the file (or document) read, its errors as {@link OptionsError}s. */
function dataSourceName(source: AgentDataSource): string {
  return typeof source === "string" ? `data file ${source}` : "data";
}

/** Reads the `data` option (see `readAgentData`). */
function readData(source: AgentDataSource, region: string): AgentData {
  try {
    return readAgentData(source, region);
  } catch (error) {
    const reason = error instanceof AgentDataError ? error.message : `cannot be read: ${(error as Error).message}`;
    throw new OptionsError(`${dataSourceName(source)}: ${reason}`);
  }
}

/** Loads the data the agent starts from into its state. */
async function loadData(state: StateControl, data: AgentData, source: AgentDataSource): Promise<void> {
  try {
    await state.load(data);
  } catch (error) {
    if (error instanceof AgentDataError) throw new OptionsError(`${dataSourceName(source)}: ${error.message}`);
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
    get leader() {
      return membership.leader;
    },
  };
}
