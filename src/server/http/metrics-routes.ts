/**
 * `GET /v1/metrics`: the metrics document in JSON (spec 2.4), or the Prometheus text format with
 * `?format=prometheus`. No ACL, no region, no blocking, no `X-Svc-*` headers, as the reference.
 *
 * @module
 */
import type { FastifyInstance } from "fastify";
import { HttpError } from "./errors.js";
import { byMethod, queryOf, type RouteContext } from "./route.js";
import type { MetricsSummary } from "../metrics/index.js";
import { PROMETHEUS_CONTENT_TYPE } from "../metrics/prometheus.js";
import { goFloat } from "../../go/json.js";


/** The document with its floating-point fields written as floats (`Count` stays an integer). */
function withFloats(summary: MetricsSummary): unknown {
  const sampled = ({ Name, Count, Rate, Sum, Min, Max, Mean, Stddev, Labels }: MetricsSummary["Counters"][number]) => ({
    Name,
    Count,
    Rate: goFloat(Rate),
    Sum: goFloat(Sum),
    Min: goFloat(Min),
    Max: goFloat(Max),
    Mean: goFloat(Mean),
    Stddev: goFloat(Stddev),
    Labels,
  });
  const gauge = ({ Name, Value, Labels }: MetricsSummary["Gauges"][number]) => ({ Name, Value: goFloat(Value), Labels });
  return {
    Timestamp: summary.Timestamp,
    Gauges: summary.Gauges.map(gauge),
    PrecisionGauges: summary.PrecisionGauges.map(gauge),
    Points: summary.Points,
    Counters: summary.Counters.map(sampled),
    Samples: summary.Samples.map(sampled),
  };
}

/** Registers `/v1/metrics`. */
export function metricsRoutes(app: FastifyInstance, context: RouteContext): void {
  app.all(
    "/v1/metrics",
    byMethod({
      GET: async (request) => {
        if (queryOf(request).get("format") === "prometheus") {
          const text = await context.metrics.prometheus();
          if (text === undefined) throw new HttpError(415, "Prometheus is not enabled");
          return { text: { body: text, contentType: PROMETHEUS_CONTENT_TYPE } };
        }
        return { body: withFloats(context.metrics.document()) };
      },
    }),
  );
}
