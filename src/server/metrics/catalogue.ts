/**
 * Every metric the agent emits: its name (the reference's pattern under the prefix `svc`), its
 * type, its own labels, its unit and what it means. The sinks create metrics from these
 * definitions, and `docs/metrics.md` documents exactly this list (a test compares them).
 *
 * Every metric also carries the label `host` (the node name), as the reference's; gauges carry
 * `node_id` and `datacenter` before it.
 *
 * @module
 */

/** How a metric aggregates: counters add, samples (timers) record observations, gauges hold a value. */
export type MetricType = "counter" | "gauge" | "sample";

/** One metric. */
export interface MetricDefinition {
  /** The dotted name, prefix included (`svc.http.requests`). */
  readonly name: string;
  /** How it aggregates; gauges also carry the labels `node_id` and `datacenter`. */
  readonly type: MetricType;
  /** The metric's own labels, in emission order (the common ones are added after them). */
  readonly labels: readonly string[];
  /** The unit of a value (`ms`, `bytes`, or what is counted). */
  readonly unit: string;
  /** What it means, for the docs. */
  readonly meaning: string;
}

const define = (type: MetricType) => (name: string, labels: readonly string[], unit: string, meaning: string): MetricDefinition =>
  Object.freeze({ name, type, labels: Object.freeze([...labels]), unit, meaning });
const counter = define("counter");
const gauge = define("gauge");
const sample = define("sample");

/** The labels every gauge carries (spec 2.4), before `host`. */
export const GAUGE_LABELS = Object.freeze(["node_id", "datacenter"] as const);

/** The label every metric carries last, as the reference's `EnableHostnameLabel`. */
export const HOST_LABEL = "host";

/** The metrics, by the name the code uses. */
export const METRICS = Object.freeze({
  /** Gauge `svc.runtime.heap_used_bytes`: bytes of V8 heap in use, collected every second. */
  heapUsed: gauge("svc.runtime.heap_used_bytes", [], "bytes", "V8 heap in use (`process.memoryUsage().heapUsed`), every second"),
  /** Gauge `svc.runtime.heap_total_bytes`: bytes of V8 heap reserved, collected every second. */
  heapTotal: gauge("svc.runtime.heap_total_bytes", [], "bytes", "V8 heap reserved (`heapTotal`), every second"),
  /** Gauge `svc.runtime.rss_bytes`: resident set size of the process in bytes, collected every second. */
  rss: gauge("svc.runtime.rss_bytes", [], "bytes", "resident set size of the process, every second"),
  /** Gauge `svc.runtime.event_loop_delay_ms`: mean event-loop delay over the last second, in milliseconds. */
  eventLoopDelay: gauge("svc.runtime.event_loop_delay_ms", [], "ms", "mean event-loop delay over the last second (`monitorEventLoopDelay`)"),
  /** Gauge `svc.runtime.active_handles`: handles and requests keeping the event loop alive, collected every second. */
  activeHandles: gauge("svc.runtime.active_handles", [], "handles", "handles and requests keeping the event loop alive (`process.getActiveResourcesInfo()`), every second"),
  /** Counter `svc.raft.state.leader`: times this agent became the leader (the reference's Raft counts its elections so). */
  raftStateLeader: counter("svc.raft.state.leader", [], "times", "times this agent became the leader and started scheduling: at its start when it is alone on its store, when it gains the lease of a shared store (the reference's Raft counter)"),
  /** Counter `svc.raft.state.follower`: times this agent became a follower of another agent's leadership. */
  raftStateFollower: counter("svc.raft.state.follower", [], "times", "times this agent became a follower: at its start on a shared store, and when it loses the lease (the reference's Raft counter)"),
  /** Sample `svc.svc.leader.establish_leadership`: milliseconds this agent took to take up the scheduler's work when it became the leader. */
  establishLeadership: sample("svc.svc.leader.establish_leadership", [], "ms", "time the agent took, when it became the leader, to take up the scheduler's work from the state (the reference times `establishLeadership` so)"),
  /** Counter `svc.http.requests`: HTTP requests answered, by `method`, `route` and `code`. */
  httpRequests: counter("svc.http.requests", ["method", "route", "code"], "requests", "HTTP requests answered, by method, route pattern (`*` for an unknown path) and status code"),
  /** Sample `svc.http.request`: milliseconds from a request's arrival to the last byte of its response, by `method`, `route` and `code`. */
  httpRequest: sample("svc.http.request", ["method", "route", "code"], "ms", "time from a request's arrival to the last byte of its response"),
  /** Sample `svc.svc.job.list`: milliseconds a `GET /v1/jobs` takes, its blocking wait included. */
  jobList: sample("svc.svc.job.list", [], "ms", "time of a `GET /v1/jobs`, its blocking wait included (as the reference times the RPC)"),
  /** Sample `svc.svc.deployment.list`: milliseconds a `GET /v1/deployments` takes, its blocking wait included. */
  deploymentList: sample("svc.svc.deployment.list", [], "ms", "time of a `GET /v1/deployments`, its blocking wait included"),
  /** Sample `svc.svc.job.register`: milliseconds a job registration takes, failed ones included. */
  jobRegister: sample("svc.svc.job.register", [], "ms", "time of a job registration (`PUT`/`POST /v1/jobs`), failed ones included; `Count` is the number of registrations"),
  /** Counter `svc.svc.rpc.query`: runs of a read query, once per request and again each time a blocking query wakes. */
  rpcQuery: counter("svc.svc.rpc.query", [], "runs", "runs of a list query (jobs, deployments, namespaces, ACL policies and tokens): once per request, and again each time a blocking query wakes"),
  /** Gauge `svc.svc.blocking.waiting`: blocking queries waiting for a change right now. */
  blockingWaiting: gauge("svc.svc.blocking.waiting", [], "queries", "blocking queries waiting for a change; set when one starts or stops waiting, and every second"),
  /** Counter `svc.svc.blocking.woken`: blocking queries that stopped waiting, by `reason` (`change`, `timeout`, `disconnect`, `shutdown`). */
  blockingWoken: counter("svc.svc.blocking.woken", ["reason"], "queries", "blocking queries that stopped waiting, by `reason`: `change`, `timeout`, `disconnect` (the client went away) or `shutdown`"),
  /** Counter `svc.svc.filter.compiled`: filters compiled because the cache did not hold them, by `endpoint`. */
  filterCompiled: counter("svc.svc.filter.compiled", ["endpoint"], "filters", "filters compiled (not found in the cache of compiled filters), by `endpoint` (`job`, `deployment`, `acl_token`)"),
  /** Counter `svc.svc.filter.compile_errors`: filters refused with a syntax error (400), by `endpoint`. */
  filterCompileErrors: counter("svc.svc.filter.compile_errors", ["endpoint"], "filters", "filters refused with a syntax error (400)"),
  /** Counter `svc.svc.filter.evaluations`: objects filters were evaluated on (`Sum`), over query runs (`Count`), by `endpoint`. */
  filterEvaluations: counter("svc.svc.filter.evaluations", ["endpoint"], "objects", "objects a filter was evaluated on; `Count` is the number of query runs, `Sum` the objects"),
  /** Gauge `svc.svc.filter.cache_bytes`: memory held by the cache of compiled filters (estimated). */
  filterCacheBytes: gauge("svc.svc.filter.cache_bytes", [], "bytes", "memory held by the cache of compiled filters (their estimate); at most `limits.filterCacheBytes`; set when it changes, and every second"),
  /** Gauge `svc.svc.filter.cache_entries`: compiled filters in the cache. */
  filterCacheEntries: gauge("svc.svc.filter.cache_entries", [], "filters", "compiled filters in the cache; set when it changes, and every second"),
  /** Counter `svc.svc.filter.evaluation_errors`: queries failed by a filter's evaluation error (400), by `endpoint`. */
  filterEvaluationErrors: counter("svc.svc.filter.evaluation_errors", ["endpoint"], "queries", "queries failed by a filter's evaluation error (400)"),
  /** Counter `svc.svc.list.answers`: list answers sent, by `endpoint` and `source` (`computed`, `cache`, `lane`). */
  listAnswers: counter("svc.svc.list.answers", ["endpoint", "source"], "answers", "list answers sent, by `endpoint` and by `source`: `computed` (the pipeline cut the page), `cache` (the pipeline found the answer at the current indexes) or `lane` (a repeated request answered from the cache before the router)"),
  /** Gauge `svc.svc.job_status.pending`: jobs with status `pending`, by `namespace`, collected every second. */
  jobStatusPending: gauge("svc.svc.job_status.pending", ["namespace"], "jobs", "jobs with status `pending`, per namespace, every second"),
  /** Gauge `svc.svc.job_status.running`: jobs with status `running`, by `namespace`, collected every second. */
  jobStatusRunning: gauge("svc.svc.job_status.running", ["namespace"], "jobs", "jobs with status `running`, per namespace, every second"),
  /** Gauge `svc.svc.job_status.dead`: jobs with status `dead`, by `namespace`, collected every second. */
  jobStatusDead: gauge("svc.svc.job_status.dead", ["namespace"], "jobs", "jobs with status `dead`, per namespace, every second"),
});

/** All labels of a metric, in emission order: its own, the gauge labels, then `host`. */
export function labelNames(definition: MetricDefinition): readonly string[] {
  let names = LABEL_NAMES.get(definition);
  if (names === undefined) LABEL_NAMES.set(definition, (names = Object.freeze([...definition.labels, ...(definition.type === "gauge" ? GAUGE_LABELS : []), HOST_LABEL])));
  return names;
}

/** Each definition's label names, made once: every measurement asks for them. */
const LABEL_NAMES = new WeakMap<MetricDefinition, readonly string[]>();

/** The Prometheus name, as the reference's sink makes it: `.`, space, `=`, `-` and `/` become `_`. */
export function prometheusName(name: string): string {
  return name.replace(/[ .=\-/]/g, "_");
}
