/**
 * What the agent's work saved per request and per second must not change (issue 39, finding 1):
 * the job-status gauges are counted again only when the jobs or the namespaces may have changed,
 * so each kind of change must still show in them, on the next collection.
 */
import { describe, expect, it } from "vitest";
import type { MetricsSummary } from "../../src/server/index.js";
import { eventually, job, useAgent } from "./support.js";

/** One interval that outlasts any test run: every gauge set lands in it. */
const ONE_INTERVAL = { intervalMs: 2 ** 40, retentionMs: 2 ** 40 };

const shared = useAgent({ metrics: ONE_INTERVAL });

/** The job-status gauges (pending, running, dead) of `namespace`, or undefined where a gauge is missing. */
async function statuses(namespace: string): Promise<(number | undefined)[]> {
  const document = (await shared.get("/v1/metrics")).json<MetricsSummary>();
  return ["pending", "running", "dead"].map((status) => document.Gauges.find((gauge) => gauge.Name === `svc.svc.job_status.${status}` && gauge.Labels["namespace"] === namespace)?.Value);
}

/** Waits for the gauges of `namespace` to read `expected` (the gauges are collected every second). */
function gaugesOf(namespace: string, expected: (number | undefined)[]): Promise<(number | undefined)[]> {
  return eventually(async () => {
    const values = await statuses(namespace);
    return JSON.stringify(values) === JSON.stringify(expected) ? values : undefined;
  }, 8_000);
}

describe("job-status gauges counted again only when the state may have changed", () => {
  it.each([
    {
      change: "a namespace created, no job written",
      namespace: "cost-new",
      before: [undefined, undefined, undefined],
      act: async () => expect((await shared.put("/v1/namespace", { Name: "cost-new" })).status).toBe(200),
      after: [0, 0, 0],
    },
    {
      change: "a job registered",
      namespace: "default",
      before: [0, 0, 0],
      act: async () => void (await shared.register(job("cost-registered"))),
      // Placed at once or pending: one job, not dead.
      after: "one live job",
    },
    {
      change: "the same job purged: the count goes back down",
      namespace: "default",
      before: "one live job",
      act: async () => expect((await shared.get("/v1/job/cost-registered?purge=true", { method: "DELETE" })).status).toBe(200),
      after: [0, 0, 0],
    },
  ] as const)("shows $change on the next collection", async ({ namespace, before, act, after }) => {
    const live = async () =>
      eventually(async () => {
        const values = await statuses(namespace);
        return values[0]! + values[1]! === 1 && values[2] === 0 ? values : undefined;
      }, 8_000);
    if (before === "one live job") await live();
    else await gaugesOf(namespace, [...before]);
    await act();
    if (after === "one live job") expect(await live()).toHaveLength(3);
    else expect(await gaugesOf(namespace, [...after])).toEqual(after);
  });
});
