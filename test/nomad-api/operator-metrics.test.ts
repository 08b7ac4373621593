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
      const { client } = await makeClient({ devMode: true });
      const [metrics, qm] = await client.operator.metricsSummary({ Params: { pretty: "1" } });
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
