/**
 * The reference's `api/allocations_test.go`, ported (see `jobs.test.ts` for how). Its tests run a
 * `-dev` agent: one client node, which the agent's `nodes: 1` stands for.
 */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { clientSide, notServed, PORTED, runGoTests, skipped } from "./ported.js";
import { len, assertWriteMeta, expectIndexOfEmptyTable, expectUUID, goTestServers, oneNodeFromNodeList, testJob, waitFor } from "./support.js";

/** Every test of api/allocations_test.go (reference commit aa026cc99cfb), in its order. */
export const ALLOCATIONS_TESTS = {
  TestAllocations_List: PORTED,
  TestAllocations_PrefixList: PORTED,
  TestAllocations_List_Resources: PORTED,
  TestAllocations_CreateIndexSort: clientSide("AllocIndexSort"),
  TestAllocations_Info: PORTED,
  TestAllocations_RescheduleInfo: clientSide("Allocation.RescheduleInfo"),
  TestAllocations_Stop: PORTED,
  TestAllocations_ExecErrors: notServed("GET /v1/client/allocation/<id>/exec (a websocket)"),
  TestAllocation_ServerTerminalStatus: clientSide("Allocation.ServerTerminalStatus"),
  TestAllocation_ClientTerminalStatus: clientSide("Allocation.ClientTerminalStatus"),
  TestAllocations_ShouldMigrate: clientSide("DesiredTransition.ShouldMigrate"),
  TestAllocations_ShouldReschedule: clientSide("DesiredTransition.ShouldReschedule"),
  TestAllocations_ShouldForceReschedule: clientSide("DesiredTransition.ShouldForceReschedule"),
  TestAllocations_ShouldIgnoreShutdownDelay: clientSide("DesiredTransition.ShouldIgnoreShutdownDelay"),
  TestAllocations_ShouldDisableMigrationPlacement: clientSide("DesiredTransition.ShouldDisableMigrationPlacement"),
  TestAllocations_Services: skipped("no-body", "t.Skip: needs to be implemented"),
} as const;

describe.each(HEADER_STYLES)("api/allocations_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(ALLOCATIONS_TESTS, {
    async TestAllocations_List() {
      const { client } = await makeClient({ devMode: true });
      await oneNodeFromNodeList(client);

      const [allocs, qm] = await client.allocations.list();
      expectIndexOfEmptyTable(qm); // the reference: must.Zero(t, qm.LastIndex)
      expect(len(allocs)).toBe(0);

      const [resp, wm] = await client.jobs.register(testJob());
      expectUUID(resp.EvalID);
      assertWriteMeta(wm);

      const [allocs2, qm2] = await client.allocations.list({ WaitIndex: wm.LastIndex });
      expect(qm2.LastIndex).not.toBe(0);
      expect(len(allocs2)).toBe(1);
      expect(allocs2?.[0]?.EvalID).toBe(resp.EvalID);
      // Resources are left out by default.
      expect(allocs2?.[0]?.AllocatedResources).toBeNull();
    },

    async TestAllocations_PrefixList() {
      const { client } = await makeClient({ devMode: true });
      await oneNodeFromNodeList(client);

      const [allocs, qm] = await client.allocations.prefixList("");
      expectIndexOfEmptyTable(qm); // the reference: must.Zero(t, qm.LastIndex)
      expect(len(allocs)).toBe(0);

      const job = testJob();
      const [resp, wm] = await client.jobs.register(job);
      expectUUID(resp.EvalID);
      assertWriteMeta(wm);

      await waitFor(
        async () => {
          const [jobAllocs] = await client.jobs.allocations(job.ID as string, false);
          if (len(jobAllocs) !== 1) throw new Error("waiting for job allocations");
        },
        5_000,
        100,
      );
      const [jobAllocs] = await client.jobs.allocations(job.ID as string, false);
      expect(len(jobAllocs)).toBe(1);
      const id = jobAllocs?.[0]?.ID as string;

      const [byPrefix] = await client.allocations.prefixList(id.slice(0, 4));
      expect(len(byPrefix)).toBe(1);
      expect(byPrefix?.[0]?.ID).toBe(id);

      const [none] = await client.allocations.prefixList(crypto.randomUUID());
      expect(len(none)).toBe(0);
    },

    async TestAllocations_List_Resources() {
      const { client } = await makeClient({ devMode: true });
      await oneNodeFromNodeList(client);

      const [resp, wm] = await client.jobs.register(testJob());
      expectUUID(resp.EvalID);
      assertWriteMeta(wm);

      const [stubs, qm] = await client.allocations.list({ Params: { resources: "true" }, WaitIndex: wm.LastIndex });
      expect(qm.LastIndex).toBeGreaterThan(0);
      expect(len(stubs)).toBe(1);
      expect(stubs?.[0]?.EvalID).toBe(resp.EvalID);
      expect(stubs?.[0]?.AllocatedResources).not.toBeNull();
    },

    async TestAllocations_Stop() {
      // The reference's three subtests: default, rescheduled, no shutdown delay.
      for (const params of [{}, { reschedule: "true" }, { no_shutdown_delay: "true" }] as Record<string, string>[]) {
        const { client } = await makeClient({ devMode: true });
        await oneNodeFromNodeList(client);

        const [, wm] = await client.jobs.register(testJob());
        const [stubs, qm] = await client.allocations.list({ WaitIndex: wm.LastIndex });
        expect(len(stubs)).toBe(1);
        const id = stubs?.[0]?.ID as string;

        const resp = await client.allocations.stop(id, { Params: params, WaitIndex: qm.LastIndex });
        if (Object.keys(params).length === 0) {
          expectUUID(resp.EvalID);
          expect(resp.LastIndex).not.toBe(0);
          // Stopping an allocation that does not exist fails.
          await expect(client.allocations.stop("invalid", { WaitIndex: qm.LastIndex })).rejects.toThrow();
          continue;
        }
        const [alloc] = await client.allocations.info(id, { WaitIndex: resp.LastIndex });
        if (params.reschedule !== undefined) expect(alloc.DesiredTransition?.Reschedule).toBe(true);
        else expect(alloc.DesiredTransition?.NoShutdownDelay).toBe(true);
      }
    },

    async TestAllocations_Info() {
      const { client } = await makeClient({ devMode: true });
      await oneNodeFromNodeList(client);

      const [resp, wm] = await client.jobs.register(testJob());
      expectUUID(resp.EvalID);
      assertWriteMeta(wm);

      const qo = { WaitIndex: wm.LastIndex };
      const [allocs, qm] = await client.allocations.list(qo);
      expect(qm.LastIndex).not.toBe(0);
      expect(len(allocs)).toBe(1);
      expect(allocs?.[0]?.EvalID).toBe(resp.EvalID);

      qo.WaitIndex = qm.LastIndex;
      const [alloc] = await client.allocations.info(allocs?.[0]?.ID as string, qo);
      expect(alloc.NetworkStatus).not.toBeNull();
    },
  });
});
