/**
 * A Prometheus summary whose observation costs O(1), and a counter whose series can be resolved
 * once for a hot path: the quantiles over the last
 * {@link SUMMARY_MAX_AGE_SECONDS} seconds are computed when the metrics are scraped, not kept up
 * to date at every observation.
 *
 * prom-client's `Summary` inserts every observation into one t-digest per age bucket (five, as the
 * reference's window has), and compresses them every thousand observations: measured here, that
 * was a quarter of the CPU time of a list request answered from the cache, and of each of ten
 * thousand blocking queries woken at once. This keeps, per age bucket of the window, a uniform
 * sample of at most {@link SUMMARY_SAMPLES_PER_BUCKET} observations (reservoir sampling, as the
 * reference's client buffers 500 observations before it merges them), and at a scrape sorts the
 * window's samples, each weighted by how many observations it stands for. The quantiles are exact
 * while a bucket holds fewer observations than that, and estimates from a uniform sample beyond.
 *
 * Written here rather than taken from a library: prom-client is the library, and its summary is
 * what costs; no maintained package offers a cheaper summary for its registry.
 *
 * @module
 */

/** The quantiles of a summary, as the reference's objectives. */
export const SUMMARY_QUANTILES = Object.freeze([0.5, 0.9, 0.99]);

/** The window of a summary's quantiles, in seconds (the reference's `MaxAge`). */
export const SUMMARY_MAX_AGE_SECONDS = 10;

/** The window is kept in this many buckets, the oldest dropped as time passes (the reference's `AgeBuckets`). */
export const SUMMARY_AGE_BUCKETS = 5;

/** Observations kept per bucket and series; beyond, a uniform sample of the bucket's observations. */
export const SUMMARY_SAMPLES_PER_BUCKET = 512;

const BUCKET_MS = (SUMMARY_MAX_AGE_SECONDS * 1000) / SUMMARY_AGE_BUCKETS;

type Labels = Record<string, string>;

/** One age bucket: the slot of time it covers, a sample of its observations, and how many there were. */
interface Bucket {
  readonly slot: number;
  readonly values: number[];
  seen: number;
}

/** One labelled series: totals since the start, and the window's buckets, oldest first. */
interface Series {
  readonly labels: Labels;
  count: number;
  sum: number;
  readonly buckets: Bucket[];
}

/** One value of the exposition, as prom-client's registry writes it. */
interface ExposedValue {
  readonly labels: Labels;
  readonly value: number;
  readonly metricName?: string;
}

/**
 * A summary metric for a prom-client `Registry` (it has the `name`, `help`, `type` and `get()`
 * the registry reads): per series, the 0.5, 0.9 and 0.99 quantiles over the window, then `_sum`
 * and `_count` since the start.
 */
export class WindowedSummary {
  readonly type = "summary";
  readonly #series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  /** Records one observation. */
  observe(labels: Labels, value: number): void {
    this.#observe(this.#seriesOf(labels), value);
  }

  /** A recorder of one series, for a path that records it again and again (the series exists from its first observation). */
  series(labels: Labels): (value: number) => void {
    let series: Series | undefined;
    return (value) => this.#observe((series ??= this.#seriesOf(labels)), value);
  }

  #seriesOf(labels: Labels): Series {
    const key = Object.values(labels).join("\u0000");
    let series = this.#series.get(key);
    if (series === undefined) this.#series.set(key, (series = { labels: { ...labels }, count: 0, sum: 0, buckets: [] }));
    return series;
  }

  #observe(series: Series, value: number): void {
    series.count++;
    series.sum += value;
    const slot = Math.floor(this.now() / BUCKET_MS);
    let bucket = series.buckets[series.buckets.length - 1];
    if (bucket?.slot !== slot) {
      series.buckets.push((bucket = { slot, values: [], seen: 0 }));
      if (series.buckets.length > SUMMARY_AGE_BUCKETS) series.buckets.shift();
    }
    bucket.seen++;
    if (bucket.values.length < SUMMARY_SAMPLES_PER_BUCKET) bucket.values.push(value);
    else {
      // Reservoir sampling: every observation of the bucket is kept with the same chance.
      const at = Math.floor(this.random() * bucket.seen);
      if (at < SUMMARY_SAMPLES_PER_BUCKET) bucket.values[at] = value;
    }
  }

  /** The quantile `q` of the window's observations (0 when there are none, as prom-client answers). */
  #quantiles(series: Series): number[] {
    const oldest = Math.floor(this.now() / BUCKET_MS) - SUMMARY_AGE_BUCKETS + 1;
    const weighted: [value: number, weight: number][] = [];
    let total = 0;
    for (const bucket of series.buckets) {
      if (bucket.slot < oldest) continue;
      const weight = bucket.seen / bucket.values.length;
      for (const value of bucket.values) weighted.push([value, weight]);
      total += bucket.seen;
    }
    if (total === 0) return SUMMARY_QUANTILES.map(() => 0);
    weighted.sort((a, b) => a[0] - b[0]);
    return SUMMARY_QUANTILES.map((q) => {
      // The smallest value whose share of the observations at or below it reaches q.
      let seen = 0;
      for (const [value, weight] of weighted) {
        seen += weight;
        if (seen >= q * total - 1e-9) return value;
      }
      return weighted[weighted.length - 1]![0];
    });
  }

  /** The exposition, as prom-client's registry reads a metric's `get()`. */
  async get(): Promise<{ name: string; help: string; type: "summary"; aggregator: "sum"; values: ExposedValue[] }> {
    const values: ExposedValue[] = [];
    for (const series of this.#series.values()) {
      this.#quantiles(series).forEach((value, i) => values.push({ labels: { quantile: String(SUMMARY_QUANTILES[i]), ...series.labels }, value }));
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: "sum", values };
  }

}

/**
 * A Prometheus counter for a prom-client `Registry`, with recorders of one series for hot paths:
 * prom-client's `Counter` hashes and validates the labels at every increment, which a request
 * answered from the cache paid several times.
 */
export class CumulativeCounter {
  readonly type = "counter";
  readonly #series = new Map<string, { readonly labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** Adds `value` to the series of `labels`. */
  inc(labels: Labels, value: number): void {
    this.#seriesOf(labels).value += value;
  }

  /** A recorder of one series (the series exists from its first increment). */
  series(labels: Labels): (value: number) => void {
    let series: { value: number } | undefined;
    return (value) => {
      (series ??= this.#seriesOf(labels)).value += value;
    };
  }

  #seriesOf(labels: Labels): { readonly labels: Labels; value: number } {
    const key = Object.values(labels).join("\u0000");
    let series = this.#series.get(key);
    if (series === undefined) this.#series.set(key, (series = { labels: { ...labels }, value: 0 }));
    return series;
  }

  /** The exposition, as prom-client's registry reads a metric's `get()`. */
  async get(): Promise<{ name: string; help: string; type: "counter"; aggregator: "sum"; values: { labels: Labels; value: number }[] }> {
    return { name: this.name, help: this.help, type: this.type, aggregator: "sum", values: [...this.#series.values()].map(({ labels, value }) => ({ labels, value })) };
  }
}
