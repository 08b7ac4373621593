/**
 * The reference's `api/variables_test.go` and `api/locks_test.go`, ported (see `jobs.test.ts` for
 * how). The lock tests of `locks_test.go` drive the client's `LockLeaser` with a mock `Locker` and
 * call no endpoint: they stay with the Go client.
 */
import { describe, expect } from "vitest";
import { ErrCASConflict, ErrVariablePathNotFound, HEADER_STYLES, type GoClient } from "./go-client.js";
import { clientSide, PORTED, runGoTests } from "./ported.js";
import { goTestServers, len } from "./support.js";
import type { GoStruct, GoStructInput } from "./go-types.js";

/** Every test of api/variables_test.go (reference commit aa026cc99cfb), in its order. */
export const VARIABLES_TESTS = {
  TestVariables_SimpleCRUD: PORTED,
  TestVariables_CRUDWithCAS: PORTED,
  TestVariables_Read: PORTED,
  TestVariables_GetVariableItems: PORTED,
  TestVariable_CreateReturnsContent: PORTED,
  TestVariables_LockRenewRelease: PORTED,
} as const;

/** Every test of api/locks_test.go, in its order: each runs the LockLeaser against a mock Locker. */
export const LOCKS_TESTS = {
  TestAcquireLock_MultipleInstances: clientSide("LockLeaser with a mock Locker"),
  TestFailedRenewal: clientSide("LockLeaser with a mock Locker"),
  TestStart_ProtectedFunctionError: clientSide("LockLeaser with a mock Locker"),
  Test_EarlyReturn: clientSide("LockLeaser with a mock Locker"),
} as const;

/** `NewVariable`. */
function newVariable(path: string): GoStructInput<"Variable"> {
  return { Path: path, Items: {} };
}

/** `Variable.Metadata`. */
function metadata(v: GoStruct<"Variable">): Record<string, unknown> {
  return { Namespace: v.Namespace, Path: v.Path, CreateIndex: v.CreateIndex, ModifyIndex: v.ModifyIndex, CreateTime: v.CreateTime, ModifyTime: v.ModifyTime, Lock: null };
}

/** `writeTestVariable`: a PUT whose answer is decoded into the variable sent. */
async function writeTestVariable(client: GoClient, v: GoStructInput<"Variable">): Promise<GoStruct<"Variable">> {
  const [written] = await client.variables.create(v);
  Object.assign(v, written);
  return written;
}

/** The error a promise rejects with. */
async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe.each(HEADER_STYLES)("api/variables_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(VARIABLES_TESTS, {
    async TestVariables_SimpleCRUD() {
      const { client } = await makeClient();
      const nsv = client.variables;
      let sv1: GoStructInput<"Variable"> = { ...newVariable("my/first/variable/SimpleCRUD"), Namespace: "default", Items: { k1: "v1", k2: "v2" } };
      const sv2: GoStructInput<"Variable"> = { ...sv1, Path: "other/variable/b", Items: { k1: "otherv1", k2: "otherv2" } };

      // 1 fail create when no items
      await expect(nsv.create({ Path: "bad/var" })).rejects.toThrow("Unexpected response code: 400 (variable missing required Items object)");

      // 2 create sv1
      const [get] = await nsv.create(sv1);
      expect(get.CreateIndex).toBeGreaterThan(0);
      expect(get.CreateTime).toBeGreaterThan(0);
      expect(get.ModifyIndex).toBeGreaterThan(0);
      expect(get.ModifyTime).toBeGreaterThan(0);
      expect(get.Items).toEqual(sv1.Items);
      sv1 = { ...get };

      // 2 create sv2
      const [got2] = await nsv.create(sv2);
      Object.assign(sv2, got2);

      // 4 update sv1
      sv1.Items = { ...sv1.Items, "new-hotness": "yeah!" };
      const [updated] = await nsv.update(sv1);
      expect(updated.ModifyIndex).not.toBe(sv1.ModifyIndex);
      expect(updated.Items).toEqual(sv1.Items);
      sv1 = { ...updated };

      // 5 list vars
      const [l] = await nsv.list();
      expect(len(l)).toBe(2);
      expect(l).toEqual([metadata(sv1 as GoStruct<"Variable">), metadata(sv2 as GoStruct<"Variable">)]);

      // 5a list vars opts
      const [page, qm] = await nsv.list({ PerPage: 1 });
      expect(len(page)).toBe(1);
      expect(page?.[0]).toEqual(metadata(sv1 as GoStruct<"Variable">));
      expect(qm.NextToken).not.toBe("");

      // 5b prefixlist
      const [prefixed] = await nsv.prefixList("my");
      expect(len(prefixed)).toBe(1);
      expect(prefixed?.[0]).toEqual(metadata(sv1 as GoStruct<"Variable">));

      // 6 delete sv1
      await nsv.delete(sv1.Path as string);
      await expect(nsv.read(sv1.Path as string)).rejects.toBe(ErrVariablePathNotFound);

      // 7 list vars after delete
      const [after] = await nsv.list();
      expect(after).not.toBeNull();
      expect(len(after)).toBe(1);
    },

    async TestVariables_CRUDWithCAS() {
      const { client } = await makeClient();
      const nsv = client.variables;
      const sv1: GoStructInput<"Variable"> = { Path: "cas/variable/a", Items: { key1: "value1", key2: "value2" } };

      const [get] = await nsv.create(sv1);
      expect(get.CreateIndex).toBeGreaterThan(0);
      expect(get.CreateTime).toBeGreaterThan(0);
      expect(get.ModifyIndex).toBeGreaterThan(0);
      expect(get.ModifyTime).toBeGreaterThan(0);
      expect(get.Items).toEqual(sv1.Items);

      // An out-of-band upsert, then an update with sv1's old state (ModifyIndex 0): a conflict.
      const oobUpdate = { ...sv1, Items: { ...sv1.Items, "new-hotness": "yeah!" } };
      const [nowVal] = await nsv.update(oobUpdate);
      const conflict = await errorOf(nsv.checkedUpdate(sv1));
      expect(conflict).toBeInstanceOf(ErrCASConflict);
      expect((conflict as ErrCASConflict).conflict).toEqual(nowVal);

      // Delete at the old index: a conflict with the variable as it is.
      const deleteConflict = await errorOf(nsv.checkedDelete(sv1.Path as string, sv1.ModifyIndex ?? 0));
      expect(deleteConflict).toBeInstanceOf(ErrCASConflict);
      expect((deleteConflict as ErrCASConflict).conflict).toEqual(nowVal);

      // Delete at the current index.
      await nsv.checkedDelete(sv1.Path as string, nowVal.ModifyIndex);
    },

    async TestVariables_Read() {
      const { client } = await makeClient();
      const nsv = client.variables;
      const tID = String(Date.now());
      const sv1: GoStructInput<"Variable"> = { Namespace: "default", Path: `${tID}/sv1`, Items: { kv1: "val1", kv2: "val2" } };
      await writeTestVariable(client, sv1);

      // not found
      await expect(nsv.read(`${tID}/not/found`)).rejects.toBe(ErrVariablePathNotFound);
      // found
      const [get] = await nsv.read(sv1.Path as string);
      expect(get).toEqual(sv1);
    },

    async TestVariables_GetVariableItems() {
      const { client } = await makeClient();
      const nsv = client.variables;
      const tID = String(Date.now());
      const sv1: GoStructInput<"Variable"> = { Namespace: "default", Path: `${tID}/sv1`, Items: { kv1: "val1", kv2: "val2" } };
      await writeTestVariable(client, sv1);

      await expect(nsv.getVariableItems(`${tID}/not/found`)).rejects.toBe(ErrVariablePathNotFound);
      const [items] = await nsv.getVariableItems(sv1.Path as string);
      expect(items).toEqual(sv1.Items);
    },

    async TestVariable_CreateReturnsContent() {
      const { client } = await makeClient();
      const sv1: GoStructInput<"Variable"> = { ...newVariable("my/first/variable/create"), Namespace: "default", Items: { k1: "v1", k2: "v2" } };
      const [sv1n] = await client.variables.create(sv1);
      expect(sv1n.Items).toEqual(sv1.Items);
    },

    async TestVariables_LockRenewRelease() {
      const { client } = await makeClient();
      const nsv = client.variables;
      const path = `/first/variable-${Date.now()}`;
      let sv1: GoStructInput<"Variable"> = { ...newVariable(path), Namespace: "default", Items: { k1: "v1", k2: "v2" } };

      // 1 create sv1
      const [created] = await nsv.create(sv1);
      expect(created.CreateIndex).toBeGreaterThan(0);
      expect(created.CreateTime).toBeGreaterThan(0);
      expect(created.ModifyIndex).toBeGreaterThan(0);
      expect(created.ModifyTime).toBeGreaterThan(0);
      expect(created.Items).toEqual(sv1.Items);
      sv1 = { ...created };

      // 2 acquire lock on sv1
      const [locked] = await nsv.acquireLock(sv1);
      expect(locked.ModifyIndex).not.toBe(sv1.ModifyIndex);
      expect(locked.Items).toEqual(sv1.Items);
      expect(locked.Lock).not.toBeNull();
      sv1 = { ...locked };

      // 3 renew lock on sv1
      const [renewed] = await nsv.renewLock({ ...sv1 });
      expect(renewed.ModifyIndex).toBe(sv1.ModifyIndex);
      expect(renewed.Lock).not.toBeNull();
      expect(renewed.Lock?.ID).toBe(sv1.Lock?.ID);

      // 4 list vars: ACLs are disabled, so the lock shows
      const [l] = await nsv.list();
      expect(len(l)).toBe(1);
      expect(l?.[0]?.Lock).not.toBeNull();

      // 5 release lock on sv1
      sv1.Items = null;
      const [released] = await nsv.releaseLock(sv1);
      expect(released.ModifyIndex).not.toBe(sv1.ModifyIndex);
      expect(Object.keys(released.Items ?? {}).length).toBe(0);
      expect(released.Lock).toBeNull();
    },
  });
});

describe("api/locks_test.go", () => {
  runGoTests(LOCKS_TESTS, {});
});
