import { describe, expect, it } from "vitest";
import { goTimeString } from "../../src/go/time.js";
import { AggregateSample, InmemSink } from "../../src/server/metrics/sink.js";

/** A clock the test moves by hand; starts on an interval boundary (10 s and 1 min). */
function clock(start = Date.UTC(2026, 7, 21, 12, 0, 0)) {
  let now = start;
  return {
    now: () => now,
    set: (ms: number) => {
      now = start + ms;
    },
  };
}

function sink(options: { intervalMs?: number; retentionMs?: number } = {}) {
  const time = clock();
  return { time, sink: new InmemSink({ intervalMs: 10_000, retentionMs: 60_000, ...options, now: time.now }) };
}

describe("aggregates", () => {
  it("computes count, sum, min, max, mean, rate and the sample standard deviation of known values", () => {
    const { sink: metrics } = sink();
    for (const value of [2, 4, 4, 4, 5, 5, 7, 9]) metrics.addSample("svc.timer", value);
    const [entry] = metrics.display().Samples;
    // Sum 40, sum of squares 232: stddev = sqrt((8 * 232 - 40^2) / (8 * 7)) = sqrt(32 / 7).
    expect(entry).toEqual({ Name: "svc.timer", Count: 8, Rate: 4, Sum: 40, Min: 2, Max: 9, Mean: 5, Stddev: Math.sqrt(32 / 7), Labels: {} });
  });

  it("keeps min and max right for negative and fractional values", () => {
    const sample = new AggregateSample();
    for (const value of [-1.5, 0.25, -3, 2]) sample.ingest(value);
    expect([sample.count, sample.sum, sample.min, sample.max, sample.mean]).toEqual([4, -2.25, -3, 2, -0.5625]);
  });

  it("has a standard deviation of 0 for one value and no value, and never NaN from rounding", () => {
    const one = new AggregateSample();
    one.ingest(42);
    expect(one.stddev).toBe(0);
    expect(new AggregateSample().stddev).toBe(0);
    expect(new AggregateSample().mean).toBe(0);
    const same = new AggregateSample();
    // 0.7 five times: n * sumSq - sum^2 rounds below zero; the reference's formula would give NaN.
    for (let i = 0; i < 5; i++) same.ingest(0.7);
    expect(5 * same.sumSq - same.sum * same.sum).toBeLessThan(0);
    expect(same.stddev).toBe(0);
  });

  it("aggregates counter increments like samples: Count is the number of increments, Sum their total", () => {
    const { sink: metrics } = sink();
    metrics.incrCounter("svc.count", 3);
    metrics.incrCounter("svc.count", 5);
    expect(metrics.display().Counters).toEqual([{ Name: "svc.count", Count: 2, Rate: 0.8, Sum: 8, Min: 3, Max: 5, Mean: 4, Stddev: Math.SQRT2, Labels: {} }]);
  });

  it("keeps the last value of a gauge within an interval", () => {
    const { sink: metrics } = sink();
    metrics.setGauge("svc.gauge", 1, [["node_id", "n"]]);
    metrics.setGauge("svc.gauge", 7, [["node_id", "n"]]);
    metrics.setGauge("svc.gauge", 2, [["node_id", "m"]]);
    expect(metrics.display().Gauges).toEqual([
      { Name: "svc.gauge", Value: 2, Labels: { node_id: "m" } },
      { Name: "svc.gauge", Value: 7, Labels: { node_id: "n" } },
    ]);
  });

  it("divides the rate by the interval in seconds", () => {
    const { sink: metrics } = sink({ intervalMs: 2_000, retentionMs: 10_000 });
    metrics.incrCounter("svc.count", 5);
    expect(metrics.display().Counters[0]!.Rate).toBe(2.5);
  });
});

describe("the document", () => {
  it("has the reference's keys and an empty document with only the current interval", () => {
    const { sink: metrics } = sink();
    const document = metrics.display();
    expect(Object.keys(document)).toEqual(["Timestamp", "Gauges", "PrecisionGauges", "Points", "Counters", "Samples"]);
    expect(document).toMatchObject({ Timestamp: "2026-08-21 12:00:00 +0000 UTC", Gauges: [], Points: [], Counters: [], Samples: [] });
  });

  it("separates entries by labels and sorts them by name, then labels in emission order", () => {
    const { sink: metrics } = sink();
    metrics.incrCounter("svc.b", 1);
    metrics.incrCounter("svc.a", 1, [["z", "1"]]);
    metrics.incrCounter("svc.a", 1);
    metrics.incrCounter("svc.a", 1, [["code", "404"], ["host", "h"]]);
    metrics.incrCounter("svc.a", 1, [["code", "200"], ["host", "h"]]);
    const counters = metrics.display().Counters;
    expect(counters.map((entry) => [entry.Name, entry.Labels])).toEqual([
      ["svc.a", {}],
      ["svc.a", { code: "200", host: "h" }],
      ["svc.a", { code: "404", host: "h" }],
      ["svc.a", { z: "1" }],
      ["svc.b", {}],
    ]);
  });

  it("writes the labels object with sorted keys whatever the emission order", () => {
    const { sink: metrics } = sink();
    metrics.setGauge("svc.g", 1, [["node_id", "n"], ["datacenter", "dc1"], ["host", "h"]]);
    expect(Object.keys(metrics.display().Gauges[0]!.Labels)).toEqual(["datacenter", "host", "node_id"]);
  });
});

describe("intervals", () => {
  it("shows the current interval while it is the only one, then the most recent finished one", () => {
    const { time, sink: metrics } = sink();
    time.set(1_000);
    metrics.incrCounter("svc.count", 1);
    time.set(9_999);
    metrics.incrCounter("svc.count", 1);
    expect(metrics.display()).toMatchObject({ Timestamp: "2026-08-21 12:00:00 +0000 UTC", Counters: [{ Count: 2 }] });

    // The next interval starts: the finished one is shown, with what was recorded in it.
    time.set(10_000);
    metrics.incrCounter("svc.count", 5);
    expect(metrics.display()).toMatchObject({ Timestamp: "2026-08-21 12:00:00 +0000 UTC", Counters: [{ Count: 2, Sum: 2 }] });

    // And the one after: the second interval is now the finished one.
    time.set(20_500);
    expect(metrics.display()).toMatchObject({ Timestamp: "2026-08-21 12:00:10 +0000 UTC", Counters: [{ Count: 1, Sum: 5 }] });
  });

  it("starts an interval only when something is recorded or shown, so a quiet gap shows the last interval with data", () => {
    const { time, sink: metrics } = sink();
    metrics.incrCounter("svc.count", 1);
    // Nothing at all from 12:00:10 to 12:00:40; the reference shows the interval before the current one.
    time.set(45_000);
    expect(metrics.display()).toMatchObject({ Timestamp: "2026-08-21 12:00:00 +0000 UTC", Counters: [{ Count: 1 }] });
  });

  it("aligns intervals to the clock, not to the first measurement", () => {
    const { time, sink: metrics } = sink();
    time.set(7_300);
    metrics.incrCounter("svc.count", 1);
    expect(metrics.display().Timestamp).toBe("2026-08-21 12:00:00 +0000 UTC");
  });

  it("keeps retention / interval intervals; with room for one only, the current interval is always shown", () => {
    const { time, sink: metrics } = sink({ intervalMs: 10_000, retentionMs: 10_000 });
    metrics.incrCounter("svc.count", 1);
    time.set(10_000);
    const document = metrics.display();
    expect(document.Timestamp).toBe("2026-08-21 12:00:10 +0000 UTC");
    expect(document.Counters).toEqual([]);
  });

  it("keeps a clock stepped back in the latest interval instead of splitting one", () => {
    const { time, sink: metrics } = sink();
    time.set(25_000);
    metrics.incrCounter("svc.count", 1);
    time.set(15_000); // NTP steps the clock back into the previous interval
    metrics.incrCounter("svc.count", 10);
    time.set(25_000);
    metrics.incrCounter("svc.count", 100);
    time.set(30_000);
    expect(metrics.display()).toMatchObject({ Timestamp: "2026-08-21 12:00:20 +0000 UTC", Counters: [{ Count: 3, Sum: 111 }] });
  });

  it("refuses an interval that is not positive, or a retention shorter than one interval", () => {
    expect(() => new InmemSink({ intervalMs: 0, retentionMs: 10 })).toThrow(RangeError);
    expect(() => new InmemSink({ intervalMs: 10, retentionMs: 9 })).toThrow(RangeError);
  });
});

describe("goTimeString", () => {
  it.each([
    [Date.UTC(2026, 0, 2, 3, 4, 5), "2026-01-02 03:04:05 +0000 UTC"],
    [Date.UTC(2026, 0, 2, 3, 4, 5, 499), "2026-01-02 03:04:05 +0000 UTC"],
    [Date.UTC(2026, 0, 2, 3, 4, 5, 500), "2026-01-02 03:04:06 +0000 UTC"],
    [Date.UTC(2026, 11, 31, 23, 59, 59, 999), "2027-01-01 00:00:00 +0000 UTC"],
  ])("prints %d as Go's Time.String, rounded to the second", (ms, text) => {
    expect(goTimeString(ms)).toBe(text);
  });
});

describe("a recorder of several series (issue 39: a lane answer's metrics)", () => {
  const counters = [
    { name: "svc.rpc.query", labels: [] },
    { name: "svc.http.requests", labels: [["route", "/v1/jobs"]] },
  ] as const;
  const samples = [{ name: "svc.http.request", labels: [["route", "/v1/jobs"]] }] as const;
  /** [time (ms from the start), elapsed] of each recorded answer: two intervals, a quiet one, and a third. */
  const answers: readonly (readonly [number, number])[] = [
    [0, 1.5],
    [4_000, 0.25],
    [9_999, 3],
    [10_000, 2],
    [35_000, 7],
    [35_001, 0.5],
  ];

  it.each([1, 2, 4, 5])("records what series() of each would, shown %i interval(s) on", (shownAt) => {
    const one = sink();
    const each = sink();
    const record = one.sink.recorder(counters, samples);
    const recorders = [...counters.map((c) => ({ add: each.sink.series("counters", c.name, c.labels), count: true })), ...samples.map((s) => ({ add: each.sink.series("samples", s.name, s.labels), count: false }))];
    for (const [at, elapsed] of answers) {
      one.time.set(at);
      each.time.set(at);
      record(1, elapsed);
      for (const { add, count } of recorders) add(count ? 1 : elapsed);
    }
    one.time.set(shownAt * 10_000 + 35_000);
    each.time.set(shownAt * 10_000 + 35_000);
    expect(one.sink.display()).toEqual(each.sink.display());
    expect(one.sink.display().Counters.length + one.sink.display().Samples.length).toBeGreaterThan(0);
  });

  it("looks at the clock once an answer, where a recorder of each series looks once a series", () => {
    let reads = 0;
    const recorder = new InmemSink({ intervalMs: 10_000, retentionMs: 60_000, now: () => (reads++, Date.UTC(2026, 7, 21, 12, 0, 0)) });
    const record = recorder.recorder(counters, samples);
    reads = 0;
    for (let i = 0; i < 10; i++) record(1, 2);
    expect(reads).toBe(10);
    const [first, second, third] = [...counters.map((c) => recorder.series("counters", c.name, c.labels)), ...samples.map((s) => recorder.series("samples", s.name, s.labels))];
    reads = 0;
    first!(1);
    second!(1);
    third!(2);
    expect(reads).toBe(3);
  });
});
