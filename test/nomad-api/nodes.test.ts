/**
 * The reference's `api/nodes_test.go`, ported (see `jobs.test.ts` for how). Its tests run a `-dev`
 * agent: one client node, which the agent's `nodes: 1` stands for.
 */
import { describe, expect, onTestFinished } from "vitest";
import { decodeStruct } from "./go-json.js";
import { HEADER_STYLES } from "./go-client.js";
import { clientSide, PORTED, runGoTests } from "./ported.js";
import { assertQueryMeta, assertWriteMeta, goTestServers, len, MustError, oneNodeFromNodeList } from "./support.js";

const SECOND_NS = 1_000_000_000;

/** Every test of api/nodes_test.go (reference commit aa026cc99cfb), in its order. */
export const NODES_TESTS = {
  TestNodes_List: PORTED,
  TestNodes_PrefixList: PORTED,
  TestNodes_List_Resources: PORTED,
  TestNodes_Info: PORTED,
  TestNode_Stats: PORTED,
  TestNodes_NoSecretID: PORTED,
  TestNodes_ToggleDrain: PORTED,
  TestNodes_ToggleEligibility: PORTED,
  TestNodes_Allocations: PORTED,
  TestNodes_ForceEvaluate: PORTED,
  TestNodes_Sort: clientSide("NodeIndexSort"),
  TestNodes_MonitorDrain_Multiplex_Bad: clientSide("Nodes.monitorDrainMultiplex"),
  TestNodes_MonitorDrain_Multiplex_Good: clientSide("Nodes.monitorDrainMultiplex"),
  TestNodes_DrainStrategy_Equal: clientSide("DrainStrategy.Equal"),
  TestNodes_Purge: PORTED,
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

    async TestNode_Stats() {
      const { client } = await makeClient({ devMode: true });
      const nodeID = (await oneNodeFromNodeList(client)).ID;
      const stats = await client.nodes.stats(nodeID);
      // There isn't much to check reliably beyond the values being populated (the reference's words).
      expect(stats.Memory).not.toBeNull();
      expect(stats.Memory!.Available).not.toBe(0);
      expect(stats.AllocDirStats).not.toBeNull();
      expect(stats.AllocDirStats!.Size).not.toBe(0);
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

    async TestNodes_ToggleDrain() {
      const { client } = await makeClient({ devMode: true });
      const nodeID = (await oneNodeFromNodeList(client)).ID;
      const [out] = await client.nodes.info(nodeID);
      expect(out.Drain).toBe(false);
      expect(out.LastDrain).toBeNull();

      const timeBeforeDrain = Date.now() - 1000;
      const drainMeta = { reason: "this node needs to go" };
      const drainOut = await client.nodes.updateDrainOpts(nodeID, { DrainSpec: { Deadline: 10 * SECOND_NS }, MarkEligible: false, Meta: drainMeta });
      assertWriteMeta(drainOut.WriteMeta);

      // The drain may have completed already: the node's events tell its course.
      const controller = new AbortController();
      onTestFinished(() => controller.abort());
      const channel = await client.eventStream.stream({ Node: [nodeID] }, 0, {}, controller.signal);
      let sawDraining = 0;
      let sawDrainComplete = 0;
      while (sawDrainComplete === 0) {
        const events = await channel.next(5_000);
        if (events === "timeout" || events === "closed") throw new MustError("waiting on stream event that never happened");
        if (events.Err !== undefined) throw new MustError(String(events.Err));
        for (const event of events.Events ?? []) {
          const node = decodeStruct(event.Payload, "EventPayload", "mapstructure").Node!;
          expect(node.DrainStrategy !== null).toBe(node.Drain);
          expect(!node.Drain || node.SchedulingEligibility === "ineligible").toBe(true);
          if (node.Drain && node.SchedulingEligibility === "ineligible") {
            expect(node.LastDrain).not.toBeNull();
            expect(node.LastDrain!.Status).toBe("draining");
            const startedAt = Date.parse(node.LastDrain!.StartedAt as string);
            expect(startedAt).toBeGreaterThanOrEqual(timeBeforeDrain);
            expect(startedAt).toBeLessThanOrEqual(Date.now());
            expect(node.LastDrain!.Meta).toEqual(drainMeta);
            sawDraining = Number(node.ModifyIndex);
          } else if (sawDraining !== 0 && !node.Drain && node.SchedulingEligibility === "ineligible") {
            expect(node.LastDrain).not.toBeNull();
            expect(node.LastDrain!.Status).toBe("complete");
            expect(Date.parse(node.LastDrain!.UpdatedAt as string)).toBeGreaterThanOrEqual(Date.parse(node.LastDrain!.StartedAt as string));
            expect(node.LastDrain!.Meta).toEqual(drainMeta);
            sawDrainComplete = Number(node.ModifyIndex);
          }
        }
      }

      const offOut = await client.nodes.updateDrain(nodeID, null, true);
      assertWriteMeta(offOut.WriteMeta);
      const [after] = await client.nodes.info(nodeID);
      expect(after.Drain).toBe(false);
      expect(after.DrainStrategy).toBeNull();
      expect(after.SchedulingEligibility).toBe("eligible");
    },

    async TestNodes_ToggleEligibility() {
      const { client } = await makeClient({ devMode: true });
      const nodeID = (await oneNodeFromNodeList(client)).ID;
      expect((await client.nodes.info(nodeID))[0].SchedulingEligibility).toBe("eligible");

      assertWriteMeta((await client.nodes.toggleEligibility(nodeID, false)).WriteMeta);
      expect((await client.nodes.info(nodeID))[0].SchedulingEligibility).toBe("ineligible");

      assertWriteMeta((await client.nodes.toggleEligibility(nodeID, true)).WriteMeta);
      const [out] = await client.nodes.info(nodeID);
      expect(out.SchedulingEligibility).toBe("eligible");
      expect(out.DrainStrategy).toBeNull();
    },

    async TestNodes_Allocations() {
      const { client } = await makeClient({ devMode: true });
      // A node that does not exist has no allocations (the index is not checked: the node may have registered).
      const [allocations] = await client.nodes.allocations("nope");
      expect(len(allocations)).toBe(0);
    },

    async TestNodes_ForceEvaluate() {
      const { client } = await makeClient({ devMode: true });
      await expect(client.nodes.forceEvaluate("12345678-abcd-efab-cdef-123456789abc")).rejects.toThrow("not found");
      const nodeID = (await oneNodeFromNodeList(client)).ID;
      // No allocations to process: the index and the evaluation are not checked.
      await client.nodes.forceEvaluate(nodeID);
    },

    async TestNodes_Purge() {
      const { client } = await makeClient({ devMode: true });
      await expect(client.nodes.purge("12345678-abcd-efab-cdef-123456789abc")).rejects.toThrow("not found");
      const nodeID = (await oneNodeFromNodeList(client)).ID;
      const [out, meta] = await client.nodes.purge(nodeID);
      expect(out).not.toBeNull();
      // Not assertQueryMeta: the RPC's answer does not say whether a leader is known.
      expect(Number(meta.LastIndex)).toBeGreaterThan(0);
    },
  });
});
