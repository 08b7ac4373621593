/** The reference's `api/agent_test.go`, ported (see `jobs.test.ts` for how): self, node name, datacenter, members, health. */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { clientSide, notServed, PORTED, runGoTests } from "./ported.js";
import { goTestServers, len } from "./support.js";

/** Every test of api/agent_test.go (reference commit aa026cc99cfb), in its order. */
export const AGENT_TESTS = {
  TestAgent_Self: PORTED,
  TestAgent_NodeName: PORTED,
  TestAgent_Datacenter: PORTED,
  TestAgent_Join: notServed("PUT /v1/agent/join"),
  TestAgent_Members: PORTED,
  TestAgent_ForceLeave: notServed("PUT /v1/agent/join", "PUT /v1/agent/force-leave"),
  TestAgent_ForceLeavePrune: notServed("PUT /v1/agent/join", "PUT /v1/agent/force-leave"),
  TestAgents_Sort: clientSide("AgentMembersNameSort"),
  TestAgent_Health: PORTED,
  TestAgent_MonitorWithNode: notServed("GET /v1/agent/monitor"),
  TestAgent_Monitor: notServed("GET /v1/agent/monitor"),
  TestAgentCPUProfile: notServed("GET /v1/agent/pprof/profile"),
  TestAgentTrace: notServed("GET /v1/agent/pprof/trace"),
  TestAgentProfile: notServed("GET /v1/agent/pprof/<profile>"),
  TestAgent_SchedulerWorkerConfig: notServed("GET and PUT /v1/agent/schedulers/config"),
  TestAgent_SchedulerWorkerConfig_BadRequest: notServed("GET and PUT /v1/agent/schedulers/config"),
  TestAgent_SchedulerWorkersInfo: notServed("GET /v1/agent/schedulers (the agent's scheduler is no pool of workers: not simulated)"),
} as const;

describe.each(HEADER_STYLES)("api/agent_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(AGENT_TESTS, {
    async TestAgent_Self() {
      const { client } = await makeClient();
      const a = client.agent;
      const res = await a.self();
      expect(res.Member.Name, "missing member name").not.toBe("");
      // The local cache was populated.
      expect(a.cache.nodeName).not.toBe("");
      expect(a.cache.datacenter).not.toBe("");
      expect(a.cache.region).not.toBe("");
    },

    async TestAgent_NodeName() {
      const { client } = await makeClient();
      expect(await client.agent.nodeName()).not.toBe("");
    },

    async TestAgent_Datacenter() {
      const { client } = await makeClient();
      expect(await client.agent.datacenter()).toBe("dc1");
    },

    async TestAgent_Members() {
      const { client } = await makeClient();
      const mem = await client.agent.members();
      expect(len(mem?.Members)).toBe(1);
      const member = mem?.Members?.[0];
      expect(member?.Name).not.toBe("");
      expect(member?.Addr).not.toBe("");
      expect(member?.Port).not.toBe(0);
    },

    async TestAgent_Health() {
      const { client } = await makeClient();
      const health = await client.agent.health();
      expect(health.Server?.Ok).toBe(true);
    },
  });
});
