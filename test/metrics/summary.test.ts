/**
 * The summary behind the Prometheus exposition: O(1) observations, quantiles over the last ten
 * seconds computed at the scrape; exact while a bucket holds few observations, a weighted uniform
 * sample beyond, bounded memory, and the reference's `_sum` and `_count` since the start.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CumulativeCounter, SUMMARY_AGE_BUCKETS, SUMMARY_MAX_AGE_SECONDS, SUMMARY_QUANTILES, SUMMARY_SAMPLES_PER_BUCKET, WindowedSummary } from "../../src/server/metrics/summary.js";

/** The exposition's values by line: `quantile=0.5`, `_sum`, `_count`. */
async function exposed(summary: WindowedSummary): Promise<Map<string, number>> {
  const { values } = await summary.get();
  return new Map(values.map((value) => [value.metricName === undefined ? `quantile=${value.labels.quantile}` : value.metricName.slice(summary.name.length), value.value]));
}

/** The exact quantile: the smallest value with at least q of the observations at or below it. */
function exact(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

describe("a windowed summary", () => {
  it("gives the exact quantiles, sum and count while the window holds few observations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: 1, maxLength: SUMMARY_SAMPLES_PER_BUCKET }), async (values) => {
        const summary = new WindowedSummary("t", "t", () => 1_000_000);
        for (const value of values) summary.observe({ host: "h" }, value);
        const lines = await exposed(summary);
        for (const q of SUMMARY_QUANTILES) expect(lines.get(`quantile=${q}`)).toBe(exact(values, q));
        expect(lines.get("_count")).toBe(values.length);
        expect(lines.get("_sum")).toBeCloseTo(values.reduce((a, b) => a + b, 0), 6);
      }),
      { numRuns: 200 },
    );
  });

  it("forgets observations older than the window in its quantiles, not in its sum and count", async () => {
    let now = 0;
    const summary = new WindowedSummary("t", "t", () => now);
    for (let i = 0; i < 100; i++) summary.observe({}, 1000);
    now += SUMMARY_MAX_AGE_SECONDS * 1000 - 1;
    summary.observe({}, 1);
    expect((await exposed(summary)).get("quantile=0.99")).toBe(1000);
    now += SUMMARY_MAX_AGE_SECONDS * 1000;
    expect((await exposed(summary)).get("quantile=0.5")).toBe(0);
    summary.observe({}, 7);
    const lines = await exposed(summary);
    expect([lines.get("quantile=0.5"), lines.get("_count"), lines.get("_sum")]).toEqual([7, 102, 100 * 1000 + 1 + 7]);
  });

  it("keeps at most its sample per bucket, weighted: a flood does not drown the quieter buckets", async () => {
    let now = 0;
    const summary = new WindowedSummary("t", "t", () => now);
    // A quiet bucket of 100 large values, then a loud one of 100,000 small values.
    for (let i = 0; i < 100; i++) summary.observe({}, 5000 + i);
    now += (SUMMARY_MAX_AGE_SECONDS * 1000) / SUMMARY_AGE_BUCKETS;
    for (let i = 0; i < 100_000; i++) summary.observe({}, i % 100);
    const lines = await exposed(summary);
    // 100 of 100,100 observations are large: the 0.99 quantile is among the small ones, as it is exactly.
    expect(lines.get("quantile=0.99")).toBeLessThan(100);
    expect(lines.get("quantile=0.5")).toBeGreaterThanOrEqual(35);
    expect(lines.get("quantile=0.5")).toBeLessThanOrEqual(65);
    expect(lines.get("_count")).toBe(100_100);
  });

  it("keeps series apart by their labels, each with its quantile lines, sum and count", async () => {
    const summary = new WindowedSummary("t", "t", () => 0);
    summary.observe({ route: "/a" }, 1);
    summary.observe({ route: "/b" }, 2);
    const { values } = await summary.get();
    expect(values).toHaveLength(2 * (SUMMARY_QUANTILES.length + 2));
    expect(values.filter((value) => value.labels.route === "/b" && value.metricName === undefined).map((value) => value.value)).toEqual([2, 2, 2]);
  });
});

describe("recorders of one series", () => {
  it("record what the labelled calls record, and make their series on first use only", async () => {
    const counter = new CumulativeCounter("c", "c");
    const record = counter.series({ route: "/a" });
    expect((await counter.get()).values).toEqual([]);
    record(1);
    record(2);
    counter.inc({ route: "/a" }, 4);
    counter.inc({ route: "/b" }, 1);
    expect((await counter.get()).values).toEqual([
      { labels: { route: "/a" }, value: 7 },
      { labels: { route: "/b" }, value: 1 },
    ]);
    const summary = new WindowedSummary("s", "s", () => 0);
    const observe = summary.series({ route: "/a" });
    expect((await summary.get()).values).toEqual([]);
    observe(3);
    summary.observe({ route: "/a" }, 5);
    const lines = await exposed(summary);
    expect([lines.get("_count"), lines.get("_sum"), lines.get("quantile=0.99")]).toEqual([2, 8, 5]);
  });
});
