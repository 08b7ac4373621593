/**
 * The Prometheus side of the metrics, with prom-client: one registry per agent for its own
 * metrics, created on first use as the reference's sink does, and one per process for the
 * runtime metrics prom-client collects by default (`process_*`, `nodejs_*`), which belong to the
 * process, not to an agent.
 *
 * As the reference's sink: counters keep their name (no `_total`), samples are summaries with the
 * 0.5, 0.9 and 0.99 quantiles over the last 10 seconds (computed at the scrape: `summary.ts`),
 * and the help text is the name.
 *
 * @module
 */
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { labelNames, prometheusName, type MetricDefinition } from "./catalogue.js";
import { CumulativeCounter, WindowedSummary } from "./summary.js";


/** The content type of the text format. */
export const PROMETHEUS_CONTENT_TYPE: string = Registry.PROMETHEUS_CONTENT_TYPE;

type Labels = Record<string, string>;
type AnyMetric = CumulativeCounter | Gauge | WindowedSummary;

/**
 * The one piece of module state here, on purpose: prom-client's default collectors watch the
 * process (an event-loop delay histogram and a garbage-collection observer that it never stops),
 * so they are created once per process, not once per agent, which would leak a set for every
 * agent a test suite starts and stops.
 */
let processRegistry: Registry | undefined;

/** The process's default metrics, collected into one registry the first time an agent asks. */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** An agent's metrics in Prometheus form. */
export class PrometheusSink {
  readonly #registry = new Registry();
  readonly #metrics = new Map<string, AnyMetric>();

  constructor() {
    processMetrics();
  }

  /** Adds `value` to a counter. */
  incrCounter(definition: MetricDefinition, value: number, labels: Labels): void {
    (this.#metric(definition) as CumulativeCounter).inc(labels, value);
  }

  /** A recorder of one series of a counter or a sample, its labels resolved once. */
  series(definition: MetricDefinition, labels: Labels): (value: number) => void {
    return (this.#metric(definition) as CumulativeCounter | WindowedSummary).series(labels);
  }

  /** Records one observation of a sample. */
  addSample(definition: MetricDefinition, value: number, labels: Labels): void {
    (this.#metric(definition) as WindowedSummary).observe(labels, value);
  }

  /** Sets one series of a gauge. */
  setGauge(definition: MetricDefinition, value: number, labels: Labels): void {
    (this.#metric(definition) as Gauge).set(labels, value);
  }

  /** Replaces every series of a gauge (series not given disappear, such as a deleted namespace's). */
  replaceGauge(definition: MetricDefinition, series: readonly (readonly [Labels, number])[]): void {
    const gauge = this.#metric(definition) as Gauge;
    gauge.reset();
    for (const [labels, value] of series) gauge.set(labels, value);
  }

  /** The text exposition: the agent's metrics, then the process's. */
  async text(): Promise<string> {
    const parts = await Promise.all([this.#registry.metrics(), processMetrics().metrics()]);
    return `${parts.map((part) => part.trim()).filter((part) => part !== "").join("\n\n")}\n`;
  }

  #metric(definition: MetricDefinition): AnyMetric {
    let metric = this.#metrics.get(definition.name);
    if (metric === undefined) {
      const name = prometheusName(definition.name);
      const config = { name, help: name, labelNames: [...labelNames(definition)], registers: [this.#registry] };
      if (definition.type === "gauge") metric = new Gauge(config);
      else {
        // Counters and summaries of our own, cheap to record (see summary.ts). The cast: prom-client's typings take only its
        // own classes, where its registry reads only a metric's name and get(), which these have.
        metric = definition.type === "counter" ? new CumulativeCounter(name, name) : new WindowedSummary(name, name);
        this.#registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
      }
      this.#metrics.set(definition.name, metric);
    }
    return metric;
  }
}
