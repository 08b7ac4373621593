/** The reference's `api/scaling_test.go`, ported (see `jobs.test.ts` for how). */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { goTestServers, testJob } from "./support.js";

/** Every test of api/scaling_test.go (reference commit aa026cc99cfb), in its order. */
export const SCALING_TESTS = {
  TestScalingPolicies_ListPolicies: PORTED,
  TestScalingPolicies_GetPolicy: PORTED,
} as const;

describe.each(HEADER_STYLES)("api/scaling_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(SCALING_TESTS, {
    async TestScalingPolicies_ListPolicies() {
      const { client } = await makeClient();
      // No scaling policies before a job that has one is registered.
      expect((await client.scaling.listPolicies())[0] ?? []).toEqual([]);

      const job = testJob();
      job.TaskGroups![0]!.Scaling = { Max: 100n };
      await client.jobs.register(job);

      const [policies] = await client.scaling.listPolicies();
      expect(policies).toHaveLength(1);
      const policy = policies![0]!;
      expect(policy.Target?.Namespace).toBe(job.Namespace ?? "default");
      expect(policy.Target?.Job).toBe(job.ID);
      expect(policy.Target?.Group).toBe(job.TaskGroups![0]!.Name);
      expect(policy.Type).toBe("horizontal");
    },

    async TestScalingPolicies_GetPolicy() {
      const { client } = await makeClient();
      // An empty ID and one that does not exist are 404s.
      await expect(client.scaling.getPolicy("")).rejects.toThrow("404");
      await expect(client.scaling.getPolicy("i-do-not-exist")).rejects.toThrow("404");

      const job = testJob();
      const policy = { Enabled: true, Min: 1, Max: 1, Policy: { key: "value" } };
      job.TaskGroups![0]!.Scaling = policy;
      await client.jobs.register(job);

      const [policies] = await client.scaling.listPolicies();
      const policyID = (policies ?? []).find((each) => each?.Target?.Job === job.ID)?.ID ?? "";
      expect(policyID, `a scaling policy for job ${String(job.ID)}`).not.toBe("");

      const [resp] = await client.scaling.getPolicy(policyID);
      expect(resp.Target).toEqual({ Namespace: job.Namespace ?? "default", Job: job.ID, Group: job.TaskGroups![0]!.Name });
      expect(resp.Policy).toEqual(policy.Policy);
      expect(resp.Enabled).toBe(policy.Enabled);
      expect(resp.Min).toBe(policy.Min);
      expect(resp.Max).toBe(policy.Max);
    },
  });
});
