/** The reference's `api/operator_metrics_test.go`, ported (see `jobs.test.ts` for how). */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { goTestServers, len } from "./support.js";

/** Every test of api/operator_metrics_test.go (reference commit aa026cc99cfb), in its order. */
export const OPERATOR_METRICS_TESTS = {
  TestOperator_MetricsSummary: PORTED,
  TestOperator_Metrics_Prometheus: PORTED,
} as const;

describe.each(HEADER_STYLES)("api/operator_metrics_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(OPERATOR_METRICS_TESTS, {
    async TestOperator_MetricsSummary() {
      // The summary shows the last finished interval. The reference's dev agent times something in
      // every interval (Raft, RPCs); ours times its own requests and its taking the lead, so an
      // interval may hold no sample when the agent's start straddles its end (seen once on
      // PostgreSQL, where the lead is taken a moment after the start). Short intervals, and the
      // summary asked until a finished interval holds the samples of the requests before it
      // (1 s intervals: the runtime gauges are collected every second).
      const { client } = await makeClient({ devMode: true, metricsIntervalMs: 1000 });
      const summary = async () => client.operator.metricsSummary({ Params: { pretty: "1" } });
      const complete = (found: Awaited<ReturnType<typeof summary>>[0]) => len(found?.Samples) > 0 && len(found?.Gauges) > 0 && len(found?.Counters) > 0;
      let [metrics, qm] = await summary();
      for (let attempt = 0; !complete(metrics) && attempt < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        [metrics, qm] = await summary();
      }
      expect(metrics).not.toBeNull();
      expect(qm).not.toBeNull();
      expect(metrics?.Timestamp).not.toBeNull(); // a string: never nil
      expect(len(metrics?.Points)).toBe(0); // no points yet
      expect(len(metrics?.Gauges)).toBeGreaterThan(0);
      expect(len(metrics?.Counters)).toBeGreaterThan(0);
      expect(len(metrics?.Samples)).toBeGreaterThan(0);
    },

    async TestOperator_Metrics_Prometheus() {
      const { client } = await makeClient({ devMode: true });
      const metrics = await client.operator.metrics({ Params: { format: "prometheus" } });
      expect(metrics).not.toBeNull();
      expect(metrics.toString("utf8")).toContain("# HELP");
    },
  });
});
