/** The reference's `api/operator_test.go`, ported (see `jobs.test.ts` for how). */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { notServed, PORTED, runGoTests } from "./ported.js";
import { goTestServers } from "./support.js";

/** Every test of api/operator_test.go (reference commit aa026cc99cfb), in its order. */
export const OPERATOR_TESTS = {
  TestOperator_RaftGetConfiguration: notServed("GET /v1/operator/raft/configuration (the agent has no Raft)"),
  TestOperator_RaftRemovePeerByID: notServed("DELETE /v1/operator/raft/peer (the agent has no Raft)"),
  TestOperator_SchedulerGetConfiguration: PORTED,
  TestOperator_SchedulerSetConfiguration: PORTED,
  TestOperator_AutopilotState: notServed("GET /v1/operator/autopilot/health (the agent has no autopilot)"),
} as const;

describe.each(HEADER_STYLES)("api/operator_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(OPERATOR_TESTS, {
    async TestOperator_SchedulerGetConfiguration() {
      const { client } = await makeClient();
      const [schedulerConfig] = await client.operator.schedulerGetConfiguration();
      expect(schedulerConfig).not.toBeNull();
    },

    async TestOperator_SchedulerSetConfiguration() {
      const { client } = await makeClient();
      const newSchedulerConfig = {
        SchedulerAlgorithm: "spread",
        PreemptionConfig: { SystemSchedulerEnabled: true, SysBatchSchedulerEnabled: true, BatchSchedulerEnabled: true, ServiceSchedulerEnabled: true },
        MemoryOversubscriptionEnabled: true,
        RejectJobRegistration: true,
        PauseEvalBroker: true,
        NodeLimitForFeasibilityChecks: 123,
      };
      const [schedulerConfigUpdateResp] = await client.operator.schedulerSetConfiguration(newSchedulerConfig);
      expect(schedulerConfigUpdateResp.Updated).toBe(true);

      // We can't exactly predict the query meta responses, so we test fields individually.
      const [schedulerConfig] = await client.operator.schedulerGetConfiguration();
      const config = schedulerConfig.SchedulerConfig!;
      expect(config.SchedulerAlgorithm).toBe("spread");
      expect(config.PauseEvalBroker).toBe(true);
      expect(config.RejectJobRegistration).toBe(true);
      expect(config.MemoryOversubscriptionEnabled).toBe(true);
      expect(config.PreemptionConfig).toEqual(newSchedulerConfig.PreemptionConfig);
      expect(Number(config.NodeLimitForFeasibilityChecks)).toBe(newSchedulerConfig.NodeLimitForFeasibilityChecks);
    },
  });
});
