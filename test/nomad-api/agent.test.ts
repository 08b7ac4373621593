/** The reference's `api/agent_test.go`, ported (see `jobs.test.ts` for how): its members test. */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { clientSide, notServed, PORTED, runGoTests } from "./ported.js";
import { goTestServers, len } from "./support.js";

/** Every test of api/agent_test.go (reference commit aa026cc99cfb), in its order. */
export const AGENT_TESTS = {
  TestAgent_Self: notServed("GET /v1/agent/self"),
  TestAgent_NodeName: notServed("GET /v1/agent/self (Agent.NodeName reads it)"),
  TestAgent_Datacenter: notServed("GET /v1/agent/self (Agent.Datacenter reads it)"),
  TestAgent_Join: notServed("PUT /v1/agent/join"),
  TestAgent_Members: PORTED,
  TestAgent_ForceLeave: notServed("PUT /v1/agent/join", "PUT /v1/agent/force-leave"),
  TestAgent_ForceLeavePrune: notServed("PUT /v1/agent/join", "PUT /v1/agent/force-leave"),
  TestAgents_Sort: clientSide("AgentMembersNameSort"),
  TestAgent_Health: notServed("GET /v1/agent/health"),
  TestAgent_MonitorWithNode: notServed("GET /v1/agent/monitor"),
  TestAgent_Monitor: notServed("GET /v1/agent/monitor"),
  TestAgentCPUProfile: notServed("GET /v1/agent/pprof/profile"),
  TestAgentTrace: notServed("GET /v1/agent/pprof/trace"),
  TestAgentProfile: notServed("GET /v1/agent/pprof/<profile>"),
  TestAgent_SchedulerWorkerConfig: notServed("GET and PUT /v1/agent/schedulers/config"),
  TestAgent_SchedulerWorkerConfig_BadRequest: notServed("GET and PUT /v1/agent/schedulers/config"),
  TestAgent_SchedulerWorkersInfo: notServed("GET /v1/agent/schedulers"),
} as const;

describe.each(HEADER_STYLES)("api/agent_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(AGENT_TESTS, {
    async TestAgent_Members() {
      const { client } = await makeClient();
      const mem = await client.agent.members();
      expect(len(mem?.Members)).toBe(1);
      const member = mem?.Members?.[0];
      expect(member?.Name).not.toBe("");
      expect(member?.Addr).not.toBe("");
      expect(member?.Port).not.toBe(0);
    },
  });
});
