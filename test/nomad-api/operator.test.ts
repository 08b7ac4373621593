/** The reference's `api/operator_test.go`, ported (see `jobs.test.ts` for how). */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { goTestServers } from "./support.js";

/** Every test of api/operator_test.go (reference commit aa026cc99cfb), in its order. */
export const OPERATOR_TESTS = {
  TestOperator_RaftGetConfiguration: PORTED,
  TestOperator_RaftRemovePeerByID: PORTED,
  TestOperator_SchedulerGetConfiguration: PORTED,
  TestOperator_SchedulerSetConfiguration: PORTED,
  TestOperator_AutopilotState: PORTED,
} as const;

describe.each(HEADER_STYLES)("api/operator_test.go (%s headers)", (style) => {
  const { makeClient, makeACLClient } = goTestServers(style);

  runGoTests(OPERATOR_TESTS, {
    async TestOperator_RaftGetConfiguration() {
      const { client } = await makeClient();
      const out = await client.operator.raftGetConfiguration();
      expect(out.Servers).toHaveLength(1);
      expect(out.Servers![0]!.Leader).toBe(true);
      expect(out.Servers![0]!.Voter).toBe(true);
    },

    async TestOperator_RaftRemovePeerByID() {
      const { client } = await makeClient();
      // If we get this error, it proves we sent the address all the way through.
      await expect(client.operator.raftRemovePeerByID("nope")).rejects.toThrow('id "nope" was not found in the Raft configuration');
    },

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

    async TestOperator_AutopilotState() {
      const { client } = await makeACLClient();
      // Make authenticated request.
      await client.operator.autopilotServerHealth();
      // Make unauthenticated request.
      client.setSecretID("");
      await expect(client.operator.autopilotServerHealth()).rejects.toThrow("403");
    },
  });
});
