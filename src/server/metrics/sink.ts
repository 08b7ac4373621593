/**
 * The in-memory metrics sink, with the semantics of the reference's (go-metrics `InmemSink`):
 * time is cut into fixed intervals aligned to the clock; counters and samples are aggregated per
 * interval (count, sum, sum of squares, min, max), gauges keep their last value; the last
 * `retention / interval` intervals are kept. The document shows the most recent finished
 * interval, or the current one when it is the only one.
 *
 * @module
 */
import { compareStrings } from "../../go/order.js";
import { goTimeString } from "../../go/time.js";

/** Labels in emission order (the order is part of an entry's identity, as in the reference). */
export type Labels = readonly (readonly [name: string, value: string])[];

/** One series of {@link InmemSink.recorder}: its metric's name and its labels. */
export interface SeriesName {
  readonly name: string;
  readonly labels: Labels;
}

/** A counter's or sample's aggregate over one interval. */
export class AggregateSample {
  count = 0;
  sum = 0;
  sumSq = 0;
  min = 0;
  max = 0;

  /** Adds one value. */
  ingest(value: number): void {
    this.count++;
    this.sum += value;
    this.sumSq += value * value;
    if (value < this.min || this.count === 1) this.min = value;
    if (value > this.max || this.count === 1) this.max = value;
  }

  /** The mean (0 before any value). */
  get mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /**
   * The sample standard deviation, 0 when there are fewer than two values. The reference's
   * formula, with rounding noise below zero clamped (it would give NaN).
   */
  get stddev(): number {
    if (this.count <= 1) return 0;
    const numerator = this.count * this.sumSq - this.sum * this.sum;
    return Math.sqrt(Math.max(0, numerator) / (this.count * (this.count - 1)));
  }
}

interface Entry {
  readonly name: string;
  readonly labels: Labels;
}

interface GaugeEntry extends Entry {
  value: number;
}

interface AggregateEntry extends Entry {
  readonly aggregate: AggregateSample;
}

/** What one interval holds, by hash (name and labels). */
interface Interval {
  readonly start: number;
  readonly gauges: Map<string, GaugeEntry>;
  readonly counters: Map<string, AggregateEntry>;
  readonly samples: Map<string, AggregateEntry>;
}

/** A gauge in the document. */
export interface GaugeValue {
  /** The metric's dotted name (`svc.runtime.rss_bytes`). */
  readonly Name: string;
  /** The last value set during the interval. */
  readonly Value: number;
  /** Every label by name, the common ones (`node_id`, `datacenter`, `host`) included. */
  readonly Labels: Readonly<Record<string, string>>;
}

/** A counter or sample in the document (the reference's `SampledValue`). */
export interface SampledValue {
  /** The metric's dotted name (`svc.http.requests`). */
  readonly Name: string;
  /** How many values were recorded during the interval (at least one). */
  readonly Count: number;
  /** `Sum` per second of the interval. */
  readonly Rate: number;
  /** The total of the values recorded. */
  readonly Sum: number;
  /** The smallest value recorded. */
  readonly Min: number;
  /** The largest value recorded. */
  readonly Max: number;
  /** `Sum / Count`. */
  readonly Mean: number;
  /** The sample standard deviation of the values; 0 with a single value. */
  readonly Stddev: number;
  /** Every label by name, `host` included. */
  readonly Labels: Readonly<Record<string, string>>;
}

/** The metrics document (spec 2.4), in the reference's field order. */
export interface MetricsSummary {
  /** The start of the interval shown, as Go prints a UTC time: `2026-08-21 12:00:00 +0000 UTC`. */
  readonly Timestamp: string;
  /** Every gauge set during the interval, with its last value, sorted by key (the name followed by the labels). */
  readonly Gauges: readonly GaugeValue[];
  /** Always empty: the reference fills it only for float64 gauges, which the agent does not emit. */
  readonly PrecisionGauges: readonly GaugeValue[];
  /** Always empty: the reference fills it only from `EmitKey`, which it does not use. */
  readonly Points: readonly never[];
  /** Every counter incremented during the interval, sorted as `Gauges`; each increment is one value. */
  readonly Counters: readonly SampledValue[];
  /** Every sample (timer) recorded during the interval, sorted as `Gauges`; times are in milliseconds. */
  readonly Samples: readonly SampledValue[];
}

/** Options of the sink. */
export interface SinkOptions {
  /** Length of an interval in milliseconds. */
  readonly intervalMs: number;
  /** How long intervals are kept, in milliseconds (at least one interval). */
  readonly retentionMs: number;
  /** The clock (for tests); default `Date.now`. */
  readonly now?: () => number;
}

/** The reference's entry identity: the name, then `;name=value` for each label in order. */
function hashOf(name: string, labels: Labels): string {
  let hash = name;
  for (const [key, value] of labels) hash += `;${key}=${value}`;
  return hash;
}


function labelObject(labels: Labels): Record<string, string> {
  // Go writes a map with its keys sorted; the order is not significant (spec 2.4).
  const sorted = [...labels].sort(([a], [b]) => compareStrings(a, b));
  return Object.fromEntries(sorted);
}

function byHash<T>(entries: Map<string, T>): T[] {
  return [...entries.keys()].sort(compareStrings).map((hash) => entries.get(hash)!);
}

/** The in-memory sink. */
export class InmemSink {
  readonly #intervalMs: number;
  readonly #maxIntervals: number;
  readonly #now: () => number;
  readonly #intervals: Interval[] = [];

  constructor(options: SinkOptions) {
    if (!(options.intervalMs > 0) || !(options.retentionMs >= options.intervalMs)) {
      throw new RangeError("the interval must be positive and the retention at least one interval");
    }
    this.#intervalMs = options.intervalMs;
    this.#maxIntervals = Math.floor(options.retentionMs / options.intervalMs);
    this.#now = options.now ?? Date.now;
  }

  /** Sets a gauge to `value` (the last value in an interval is the one shown). */
  setGauge(name: string, value: number, labels: Labels = []): void {
    const hash = hashOf(name, labels);
    const gauges = this.#current().gauges;
    const entry = gauges.get(hash);
    if (entry === undefined) gauges.set(hash, { name, labels, value });
    else entry.value = value;
  }

  /** Adds `value` to a counter. */
  incrCounter(name: string, value: number, labels: Labels = []): void {
    this.#aggregate(this.#current().counters, name, labels).ingest(value);
  }

  /** Records one observation of a sample (a timer records milliseconds). */
  addSample(name: string, value: number, labels: Labels = []): void {
    this.#aggregate(this.#current().samples, name, labels).ingest(value);
  }

  /** The document: the most recent finished interval, or the current one if it is the only one. */
  display(): MetricsSummary {
    this.#current();
    const intervals = this.#intervals;
    const interval = intervals.length === 1 ? intervals[0]! : intervals[intervals.length - 2]!;
    const seconds = this.#intervalMs / 1000;
    const sampled = (entry: AggregateEntry): SampledValue => ({
      Name: entry.name,
      Count: entry.aggregate.count,
      Rate: entry.aggregate.sum / seconds,
      Sum: entry.aggregate.sum,
      Min: entry.aggregate.min,
      Max: entry.aggregate.max,
      Mean: entry.aggregate.mean,
      Stddev: entry.aggregate.stddev,
      Labels: labelObject(entry.labels),
    });
    return {
      Timestamp: goTimeString(interval.start),
      Gauges: byHash(interval.gauges).map((entry) => ({ Name: entry.name, Value: entry.value, Labels: labelObject(entry.labels) })),
      PrecisionGauges: [],
      Points: [],
      Counters: byHash(interval.counters).map(sampled),
      Samples: byHash(interval.samples).map(sampled),
    };
  }

  /**
   * One series of counters or samples, its identity made once: a recorder for a path that records
   * the same series again and again (what {@link InmemSink.incrCounter} and
   * {@link InmemSink.addSample} do, without hashing the labels each time).
   */
  series(kind: "counters" | "samples", name: string, labels: Labels): (value: number) => void {
    const hash = hashOf(name, labels);
    return (value) => this.#aggregate(this.#current()[kind], name, labels, hash).ingest(value);
  }

  /**
   * Counters and samples recorded together again and again (a list answer the lane writes counts
   * three series and times two): the recorder adds `count` to each counter and `value` to each
   * sample, with one look at the clock a call and each series' aggregate found once an interval,
   * rather than both for each series as {@link InmemSink.series} does.
   */
  recorder(counters: readonly SeriesName[], samples: readonly SeriesName[]): (count: number, value: number) => void {
    const counterHashes = counters.map(({ name, labels }) => hashOf(name, labels));
    const sampleHashes = samples.map(({ name, labels }) => hashOf(name, labels));
    let interval: Interval | undefined;
    let counted: AggregateSample[] = [];
    let sampled: AggregateSample[] = [];
    return (count, value) => {
      const current = this.#current();
      if (current !== interval) {
        interval = current;
        counted = counters.map(({ name, labels }, i) => this.#aggregate(current.counters, name, labels, counterHashes[i]));
        sampled = samples.map(({ name, labels }, i) => this.#aggregate(current.samples, name, labels, sampleHashes[i]));
      }
      // Counted loops: a `for…of` makes an iterator a loop, and this runs for every answer the lane writes.
      for (let i = 0; i < counted.length; i++) counted[i]!.ingest(count);
      for (let i = 0; i < sampled.length; i++) sampled[i]!.ingest(value);
    };
  }

  #aggregate(entries: Map<string, AggregateEntry>, name: string, labels: Labels, hash = hashOf(name, labels)): AggregateSample {
    let entry = entries.get(hash);
    if (entry === undefined) {
      entry = { name, labels, aggregate: new AggregateSample() };
      entries.set(hash, entry);
    }
    return entry.aggregate;
  }

  /** The interval holding now, created on first use; the oldest beyond retention are dropped. */
  #current(): Interval {
    const now = this.#now();
    const last = this.#intervals[this.#intervals.length - 1];
    // A clock stepped back (NTP) stays in the latest interval rather than splitting one in two.
    const start = Math.max(now - (((now % this.#intervalMs) + this.#intervalMs) % this.#intervalMs), last?.start ?? -Infinity);
    if (last !== undefined && last.start === start) return last;
    const interval: Interval = { start, gauges: new Map(), counters: new Map(), samples: new Map() };
    this.#intervals.push(interval);
    if (this.#intervals.length > this.#maxIntervals) this.#intervals.splice(0, this.#intervals.length - this.#maxIntervals);
    return interval;
  }
}
