/**
 * The agent's instrumentation: every measurement goes to the in-memory sink (the JSON document)
 * and, unless Prometheus is disabled, to the Prometheus registry, so the two formats agree.
 * Runtime and job-status gauges are collected every second, as the reference collects its
 * runtime stats.
 *
 * @module
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import type { Store } from "../state/store.js";
import { HOST_LABEL, labelNames, METRICS, type MetricDefinition } from "./catalogue.js";
import type { PrometheusSink } from "./prometheus.js";
import { InmemSink, type Labels, type MetricsSummary } from "./sink.js";
import { loadOptional } from "../../optional-packages.js";

export { METRICS, type MetricDefinition } from "./catalogue.js";
export type { MetricsSummary } from "./sink.js";


/** Why a blocking query stopped waiting. */
export type WakeReason = "change" | "timeout" | "disconnect" | "shutdown";

/** Who is told about a blocking query's runs and waits (the agent's metrics: list/blocking.ts tells them). */
export interface BlockingObserver {
  /** The query ran (once per request, and again after each wake). */
  pass(): void;
  /** The query starts waiting. */
  parked(): void;
  /** The query stopped waiting. */
  woken(reason: WakeReason): void;
}
/** How often runtime and job-status gauges are collected (the reference: every second). */
export const RUNTIME_STATS_INTERVAL_MS = 1000;

/** The resolution of the event-loop delay histogram. */
const EVENT_LOOP_RESOLUTION_MS = 10;

/** Options of the metrics (the agent's `metrics` option). */
export interface MetricsOptions {
  /** Length of an interval of the JSON document, in milliseconds (default 10000, as the reference). */
  readonly intervalMs?: number;
  /** How long intervals are kept, in milliseconds (default 60000; at least one interval). */
  readonly retentionMs?: number;
  /** Serve `?format=prometheus` (default true; when false it is a 415). */
  readonly prometheus?: boolean;
}

/** The defaults of {@link MetricsOptions}. */
export const DEFAULT_METRICS_OPTIONS: Required<MetricsOptions> = Object.freeze({ intervalMs: 10_000, retentionMs: 60_000, prometheus: true });

/** Who the agent is, for the common labels. */
export interface MetricsIdentity {
  readonly nodeName: string;
  readonly nodeId: string;
  readonly datacenter: string;
}

type LabelValues = Readonly<Record<string, string>>;

/** One series of {@link Metrics.recorder}: a counter's or a sample's definition and its labels. */
export interface SeriesOf {
  readonly definition: MetricDefinition;
  readonly labels?: LabelValues;
}

/** The statuses a job-status gauge is kept for. */
const JOB_STATUS_GAUGES = [
  ["pending", METRICS.jobStatusPending],
  ["running", METRICS.jobStatusRunning],
  ["dead", METRICS.jobStatusDead],
] as const;

/** An agent's metrics. */
export class Metrics implements BlockingObserver {
  /** The metrics of an agent, with prom-client loaded when Prometheus is on (importing the server does not load it). */
  static async create(options: Required<MetricsOptions>, identity: MetricsIdentity, store: Store): Promise<Metrics> {
    const prometheus = options.prometheus ? new (await loadOptional("the agent", () => import("./prometheus.js"))).PrometheusSink() : undefined;
    return new Metrics(options, identity, store, prometheus);
  }

  readonly #sink: InmemSink;
  readonly #prometheus: PrometheusSink | undefined;
  readonly #common: LabelValues;
  readonly #store: Store;
  readonly #eventLoop: IntervalHistogram;
  readonly #timer: NodeJS.Timeout;
  readonly #collectors: (() => void)[] = [];
  #waiting = 0;
  /** The last job-status counts and the state they were counted at (see {@link Metrics.#jobStatusCounts}). */
  #jobCounts: { readonly key: string; readonly counts: ReadonlyMap<string, Readonly<Record<string, number>>> } | undefined;

  /**
   * Metrics of one agent; `prometheus` is the Prometheus registry's sink when `options.prometheus`
   * is on (made by {@link Metrics.create}, which loads prom-client only then).
   */
  constructor(options: Required<MetricsOptions>, identity: MetricsIdentity, store: Store, prometheus?: PrometheusSink) {
    this.#sink = new InmemSink(options);
    this.#prometheus = options.prometheus ? prometheus : undefined;
    this.#common = { node_id: identity.nodeId, datacenter: identity.datacenter, [HOST_LABEL]: identity.nodeName };
    this.#store = store;
    this.#eventLoop = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
    this.#eventLoop.enable();
    this.collect();
    this.#timer = setInterval(() => this.collect(), RUNTIME_STATS_INTERVAL_MS).unref();
  }

  /** Adds `value` (default 1) to a counter. */
  counter(definition: MetricDefinition, labels: LabelValues = {}, value = 1): void {
    const all = this.#labels(definition, labels);
    this.#sink.incrCounter(definition.name, value, all);
    this.#prometheus?.incrCounter(definition, value, Object.fromEntries(all));
  }

  /** Records one observation of a sample (milliseconds for timers). */
  sample(definition: MetricDefinition, value: number, labels: LabelValues = {}): void {
    const all = this.#labels(definition, labels);
    this.#sink.addSample(definition.name, value, all);
    this.#prometheus?.addSample(definition, value, Object.fromEntries(all));
  }

  /**
   * A recorder of one series of a counter (its value is added) or a sample (its value observed),
   * its labels resolved once: for a path that records the same series again and again.
   */
  series(definition: MetricDefinition, labels: LabelValues = {}): (value: number) => void {
    if (definition.type === "gauge") throw new TypeError(`${definition.name} is a gauge`);
    const all = this.#labels(definition, labels);
    const local = this.#sink.series(definition.type === "counter" ? "counters" : "samples", definition.name, all);
    const prometheus = this.#prometheus?.series(definition, Object.fromEntries(all));
    return prometheus === undefined
      ? local
      : (value) => {
          local(value);
          prometheus(value);
        };
  }

  /**
   * A recorder of several series at once, their labels resolved once: each call adds `count` to
   * every counter of `counters` and observes `value` in every sample of `samples` (a list answer the
   * lane writes: its counts and its timers), as {@link Metrics.series} of each would, with the
   * in-memory sink's interval looked up once a call.
   */
  recorder(counters: readonly SeriesOf[], samples: readonly SeriesOf[]): (count: number, value: number) => void {
    const resolve = (series: readonly SeriesOf[], type: "counter" | "sample") =>
      series.map(({ definition, labels = {} }) => {
        if (definition.type !== type) throw new TypeError(`${definition.name} is not a ${type}`);
        return { name: definition.name, labels: this.#labels(definition, labels) };
      });
    const [counted, sampled] = [resolve(counters, "counter"), resolve(samples, "sample")];
    const local = this.#sink.recorder(counted, sampled);
    const prometheus = this.#prometheus;
    if (prometheus === undefined) return local;
    const [counts, observations] = [counters.map((series, i) => prometheus.series(series.definition, Object.fromEntries(counted[i]!.labels))), samples.map((series, i) => prometheus.series(series.definition, Object.fromEntries(sampled[i]!.labels)))];
    return (count, value) => {
      local(count, value);
      // Counted loops, as the sink's recorder's (no iterator a call).
      for (let i = 0; i < counts.length; i++) counts[i]!(count);
      for (let i = 0; i < observations.length; i++) observations[i]!(value);
    };
  }

  /** Sets a gauge. */
  gauge(definition: MetricDefinition, value: number, labels: LabelValues = {}): void {
    const all = this.#labels(definition, labels);
    this.#sink.setGauge(definition.name, value, all);
    this.#prometheus?.setGauge(definition, value, Object.fromEntries(all));
  }

  /** Times `run` into a sample, whether it succeeds or throws. */
  async time<T>(definition: MetricDefinition, run: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await run();
    } finally {
      this.sample(definition, performance.now() - start);
    }
  }

  /** Counts one answered HTTP request and its duration. */
  request(method: string, route: string, status: number, elapsedMs: number): void {
    const labels = { method, route, code: String(status) };
    this.counter(METRICS.httpRequests, labels);
    this.sample(METRICS.httpRequest, elapsedMs, labels);
  }

  /**
   * The agent became the leader (`elapsedMs`: the time it took to take up the scheduler's work)
   * or a follower: counted as the reference's Raft counts its states, and, for a leader, timed as
   * the reference times `establishLeadership`. An agent records one or the other as it starts, so
   * a fresh agent's document already has a counter (and, on a leader, a sample).
   */
  leadership(change: { readonly leading: true; readonly elapsedMs: number } | { readonly leading: false }): void {
    if (!change.leading) {
      this.counter(METRICS.raftStateFollower);
      return;
    }
    this.counter(METRICS.raftStateLeader);
    this.sample(METRICS.establishLeadership, change.elapsedMs);
  }

  /** {@link BlockingObserver}: a read query ran. */
  pass(): void {
    this.counter(METRICS.rpcQuery);
  }

  /** {@link BlockingObserver}: a blocking query starts waiting. */
  parked(): void {
    this.#waiting++;
    this.gauge(METRICS.blockingWaiting, this.#waiting);
  }

  /** {@link BlockingObserver}: a blocking query stopped waiting. */
  woken(reason: WakeReason): void {
    this.#waiting--;
    this.gauge(METRICS.blockingWaiting, this.#waiting);
    this.counter(METRICS.blockingWoken, { reason });
  }

  /** Adds gauges to collect every second (besides whenever their owner sets them). */
  onCollect(collector: () => void): void {
    this.#collectors.push(collector);
    collector();
  }

  /** Collects the runtime and job-status gauges, and those given to {@link Metrics.onCollect} (every second, and at start). */
  collect(): void {
    for (const collector of this.#collectors) collector();
    // The heap from V8; the resident size reads a file of /proc, which fails when the process is out
    // of descriptors: a gauge left as it was then, not an error that ends the agent (from a timer).
    const heap = getHeapStatistics();
    this.gauge(METRICS.heapUsed, heap.used_heap_size);
    this.gauge(METRICS.heapTotal, heap.total_heap_size);
    try {
      this.gauge(METRICS.rss, process.memoryUsage.rss());
    } catch {
      // Kept from the last collection.
    }
    const delay = this.#eventLoop.count > 0 ? this.#eventLoop.mean / 1e6 : 0;
    this.#eventLoop.reset();
    this.gauge(METRICS.eventLoopDelay, delay);
    this.gauge(METRICS.activeHandles, process.getActiveResourcesInfo().length);
    this.gauge(METRICS.blockingWaiting, this.#waiting);
    this.#collectJobStatus();
  }

  /** The JSON document (spec 2.4). */
  document(): MetricsSummary {
    return this.#sink.display();
  }

  /** The Prometheus text, or undefined when Prometheus is disabled. */
  async prometheus(): Promise<string | undefined> {
    return this.#prometheus?.text();
  }

  /** Stops collecting. */
  close(): void {
    clearInterval(this.#timer);
    this.#eventLoop.disable();
  }

  /**
   * Job counts by status for every namespace: counted again only when the jobs or namespaces
   * may have changed. The scan walks every stored job (about 4 ms a second of an idle agent's CPU
   * with 10,000 jobs, more under load); a state that stands still has the same counts.
   */
  #jobStatusCounts(): ReadonlyMap<string, Readonly<Record<string, number>>> {
    const { jobs, namespaces } = this.#store.tables;
    // A write moves the tables' index; a seed (at start) does not, but it changes their sizes.
    const key = `${this.#store.tableIndex("jobs", "namespaces")} ${jobs.size} ${namespaces.size}`;
    if (this.#jobCounts?.key === key) return this.#jobCounts.counts;
    const counts = new Map<string, Record<string, number>>();
    for (const namespace of namespaces.values()) counts.set(namespace.Name, { pending: 0, running: 0, dead: 0 });
    for (const job of jobs.values()) {
      const byStatus = counts.get(job.Namespace);
      if (byStatus !== undefined && job.Status in byStatus) byStatus[job.Status]!++;
    }
    this.#jobCounts = { key, counts };
    return counts;
  }

  /** Job counts by status for every namespace (0 included), so a namespace's gauges exist from its creation. */
  #collectJobStatus(): void {
    const counts = this.#jobStatusCounts();
    for (const [status, definition] of JOB_STATUS_GAUGES) {
      const series: [Record<string, string>, number][] = [];
      for (const [namespace, byStatus] of counts) {
        const all = this.#labels(definition, { namespace });
        this.#sink.setGauge(definition.name, byStatus[status]!, all);
        series.push([Object.fromEntries(all), byStatus[status]!]);
      }
      this.#prometheus?.replaceGauge(definition, series);
    }
  }

  /** The labels of a measurement in emission order: its own, then the common ones. */
  #labels(definition: MetricDefinition, labels: LabelValues): Labels {
    return labelNames(definition).map((name) => [name, labels[name] ?? this.#common[name] ?? ""] as const);
  }
}
