/**
 * The reference's `api/nodes_test.go`, ported (see `jobs.test.ts` for how). Its tests run a `-dev`
 * agent: one client node, which the agent's `nodes: 1` stands for.
 */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { clientSide, notServed, PORTED, runGoTests } from "./ported.js";
import { assertQueryMeta, goTestServers, len, MustError, oneNodeFromNodeList } from "./support.js";

/** Every test of api/nodes_test.go (reference commit aa026cc99cfb), in its order. */
export const NODES_TESTS = {
  TestNodes_List: PORTED,
  TestNodes_PrefixList: PORTED,
  TestNodes_List_Resources: PORTED,
  TestNodes_Info: PORTED,
  TestNode_Stats: notServed("GET /v1/client/stats"),
  TestNodes_NoSecretID: PORTED,
  TestNodes_ToggleDrain: notServed("PUT /v1/node/<id>/drain"),
  TestNodes_ToggleEligibility: notServed("PUT /v1/node/<id>/eligibility"),
  TestNodes_Allocations: notServed("GET /v1/node/<id>/allocations"),
  TestNodes_ForceEvaluate: notServed("PUT /v1/node/<id>/evaluate"),
  TestNodes_Sort: clientSide("NodeIndexSort"),
  TestNodes_MonitorDrain_Multiplex_Bad: clientSide("Nodes.monitorDrainMultiplex"),
  TestNodes_MonitorDrain_Multiplex_Good: clientSide("Nodes.monitorDrainMultiplex"),
  TestNodes_DrainStrategy_Equal: clientSide("DrainStrategy.Equal"),
  TestNodes_Purge: notServed("PUT /v1/node/<id>/purge"),
  TestNodeStatValueFormatting: clientSide("StatValue.String"),
} as const;

describe.each(HEADER_STYLES)("api/nodes_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(NODES_TESTS, {
    async TestNodes_List() {
      const { client } = await makeClient({ devMode: true });
      const node = await oneNodeFromNodeList(client);
      expect(node.NodePool).toBe("default");
      const [, queryMeta] = await client.nodes.list();
      assertQueryMeta(queryMeta);
    },

    async TestNodes_PrefixList() {
      const { client } = await makeClient({ devMode: true });
      const nodeID = (await oneNodeFromNodeList(client)).ID;
      const [out, qm] = await client.nodes.prefixList(nodeID.slice(0, 4));
      expect(len(out), "expected only 1 node").toBe(1);
      assertQueryMeta(qm);
    },

    async TestNodes_List_Resources() {
      const { client } = await makeClient({ devMode: true });
      const node = await oneNodeFromNodeList(client);
      // Left out by default.
      expect(node.NodeResources).toBeNull();
      expect(node.ReservedResources).toBeNull();

      const [out] = await client.nodes.list({ Params: { resources: "true" } });
      expect(out?.[0]?.NodeResources).not.toBeNull();
      expect(out?.[0]?.ReservedResources).not.toBeNull();
    },

    async TestNodes_Info() {
      const startTime = Math.floor(Date.now() / 1000);
      const { client } = await makeClient({ devMode: true });
      await expect(client.nodes.info("12345678-abcd-efab-cdef-123456789abc")).rejects.toThrow("not found");

      const node = await oneNodeFromNodeList(client);
      const [result, qm] = await client.nodes.info(node.ID);
      assertQueryMeta(qm);
      expect(result.ID).toBe(node.ID);
      expect(result.Datacenter).toBe(node.Datacenter);
      expect(result.NodePool).toBe("default");

      // Go dereferences NodeResources: nil panics the test.
      if (result.NodeResources === null) throw new MustError("nil pointer dereference: NodeResources is nil");
      expect(result.NodeResources.MinDynamicPort).toBe(20000);
      expect(result.NodeResources.MaxDynamicPort).toBe(32000);

      // StatusUpdatedAt is set when the node registered, after the test began.
      expect(Number(result.StatusUpdatedAt)).toBeGreaterThan(startTime);
      expect(len(result.Events)).toBeGreaterThanOrEqual(1);
    },

    async TestNodes_NoSecretID() {
      const { client } = await makeClient({ devMode: true });
      const nodeID = (await oneNodeFromNodeList(client)).ID;
      // A raw decoding: "ID" to check it works, "SecretID" to check the secret is not sent.
      const [resp] = await client.query<Record<string, unknown> | null>(`/v1/node/${nodeID}`, "map[string]any");
      const id = resp?.ID;
      if (typeof id !== "string") throw new MustError(`interface conversion: interface {} is ${typeof id}, not string`);
      expect(id).toBe(nodeID);
      expect(resp?.SecretID).toBe("");
    },
  });
});
