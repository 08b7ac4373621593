/**
 * Variables over real sockets (`/v1/vars`, `/v1/var/<path>`): writes, check-and-set conflicts,
 * the path rules and limits, the `variables` ACL block, and locks on the manual clock.
 */
import { describe, expect, it } from "vitest";
import { applyVariable, checkRequest, MAX_VARIABLE_ITEMS, MAX_VARIABLE_SIZE, MAX_VARIABLES } from "../../src/server/scheduler/variables.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import { ManualClock } from "../../src/server/base/clock.js";
import { namespacedKey } from "../../src/server/state/store.js";
import { Permissions, parsePolicy, PolicyError } from "../../src/server/domain/acl-policy.js";
import { eventually, send, useAgent } from "./support.js";

const ROOT = "7d1fd4d3-0e84-4d2a-9b8e-1f0e6cbd1a01";
const TEAM = "8e2a95e4-1f95-4e3b-8c9f-2a1f7dce2b02";
const TEAM_RULES = `namespace "default" {
  variables {
    path "team/*" { capabilities = ["write", "read"] }
    path "team/secret" { capabilities = ["deny"] }
    path "shared/*" { capabilities = ["list"] }
    path "hidden/*" { capabilities = ["write"] }
  }
}`;

describe("variables", () => {
  const agent = useAgent({
    clock: "manual",
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [{ Name: "team", Rules: TEAM_RULES }],
      tokens: [{ SecretID: TEAM, Name: "team", Type: "client", Policies: ["team"] }],
    },
  });
  const as = (token: string) => ({ headers: { "x-svc-token": token } });
  const put = (path: string, body: unknown, token = ROOT) => agent.put(path, body, as(token));
  const del = (path: string, token = ROOT) => send(agent.url + path, { method: "DELETE", ...as(token) });
  const get = (path: string, token = ROOT) => agent.get(path, as(token));

  it("creates, reads, updates and deletes a variable, with the write's index", async () => {
    const created = await put("/v1/var/app/config", { Items: { port: "8080" } });
    expect(created.status).toBe(200);
    const body = created.json<{ Path: string; Namespace: string; Items: Record<string, string>; CreateIndex: number; ModifyIndex: number }>();
    expect(body).toMatchObject({ Namespace: "default", Path: "app/config", Items: { port: "8080" } });
    expect(Number(created.headers["x-svc-index"])).toBe(body.ModifyIndex);
    const read = await get("/v1/var/app/config");
    expect(read.json()).toMatchObject({ Path: "app/config", Items: { port: "8080" }, ModifyIndex: body.ModifyIndex });
    const updated = (await put("/v1/var/app/config", { Items: { port: "9090" } })).json<{ CreateIndex: number; ModifyIndex: number }>();
    expect(updated.CreateIndex).toBe(body.CreateIndex);
    expect(updated.ModifyIndex).toBeGreaterThan(body.ModifyIndex);
    const deleted = await del("/v1/var/app/config");
    expect(deleted.status).toBe(204);
    const gone = await get("/v1/var/app/config");
    expect([gone.status, gone.text]).toEqual([404, "variable not found"]);
  });

  it("answers a check-and-set conflict with 409 and the variable in the way", async () => {
    const first = (await put("/v1/var/cas/one?cas=0", { Items: { a: "1" } })).json<{ ModifyIndex: number }>();
    const again = await put("/v1/var/cas/one?cas=0", { Items: { a: "2" } });
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({ Path: "cas/one", ModifyIndex: first.ModifyIndex, Items: { a: "1" } });
    const stale = await put(`/v1/var/cas/one?cas=${first.ModifyIndex + 100}`, { Items: { a: "3" } });
    expect(stale.status).toBe(409);
    const right = await put(`/v1/var/cas/one?cas=${first.ModifyIndex}`, { Items: { a: "4" } });
    expect(right.status).toBe(200);
    const missingOne = await put("/v1/var/cas/none?cas=5", { Items: { a: "1" } });
    expect([missingOne.status, missingOne.json<{ ModifyIndex: number }>().ModifyIndex]).toEqual([409, 0]);
    const deleteStale = await del(`/v1/var/cas/one?cas=${first.ModifyIndex}`);
    expect(deleteStale.status).toBe(409);
  });

  it.each([
    ["a path of a forbidden character", "/v1/var/a.b", { Items: { a: "1" } }, 'invalid path "a.b"'],
    ["a path longer than 128", `/v1/var/${"p".repeat(129)}`, { Items: { a: "1" } }, `invalid path "${"p".repeat(129)}"`],
    ["the reserved nomad/ path", "/v1/var/nomad/other", { Items: { a: "1" } }, 'only paths at "nomad/jobs" or "nomad/job-templates" and below are valid paths under the top-level "nomad" directory'],
    ["no items", "/v1/var/empty", {}, "variable missing required Items object"],
    ["items over 64 KiB", "/v1/var/big", { Items: { k: "v".repeat(MAX_VARIABLE_SIZE) } }, "variables are limited to 64KiB in total size"],
    ["too many items", "/v1/var/many", { Items: Object.fromEntries(Array.from({ length: MAX_VARIABLE_ITEMS + 1 }, (_, i) => [`k${i}`, ""])) }, `variables are limited to ${MAX_VARIABLE_ITEMS} items`],
    ["a bad cas", "/v1/var/x?cas=abc", { Items: { a: "1" } }, 'can not parse cas: strconv.ParseUint: parsing "abc": invalid syntax'],
    ["cas with a lock operation", "/v1/var/x?cas=1&lock-acquire", {}, "CAS can't be used with lock operations"],
    ["two lock operations", "/v1/var/x?lock-acquire&lock-release", {}, "multiple lock operations"],
    ["a lock TTL under 10s", "/v1/var/x?lock-acquire", { Lock: { TTL: "5s" } }, "1 error occurred:\n\t* TTL must be between 10 seconds and 24 hours\n\n"],
    ["a lock given with a write", "/v1/var/x", { Items: { a: "1" }, Lock: { TTL: "15s" } }, "variable should not contain lock definition"],
    ["a release without the lock's ID", "/v1/var/x?lock-release", {}, "missing lock information"],
  ])("refuses %s with a 400", async (_name, path, body, message) => {
    const response = await put(path, body);
    expect([response.status, response.text]).toEqual([400, message]);
  });

  it("accepts items of exactly 64 KiB", async () => {
    const response = await put("/v1/var/edge", { Items: { k: "v".repeat(MAX_VARIABLE_SIZE - 1) } });
    expect(response.status).toBe(200);
  });

  it("lists metadata by namespace with a prefix, and pages with next_token", async () => {
    for (const path of ["list/a", "list/b", "list/c"]) await put(`/v1/var/${path}`, { Items: { v: path } });
    const listed = await get("/v1/vars?prefix=list/");
    const items = listed.json<{ Path: string; Items?: unknown }[]>();
    expect(items.map((item) => item.Path)).toEqual(["list/a", "list/b", "list/c"]);
    expect(items[0]!.Items).toBeUndefined();
    const page = await get("/v1/vars?prefix=list/&per_page=2");
    expect(page.json<{ Path: string }[]>().map((item) => item.Path)).toEqual(["list/a", "list/b"]);
    const token = page.headers["x-svc-nexttoken"];
    expect(token).toBe("default.list/c");
    const filtered = await get(`/v1/vars?filter=${encodeURIComponent('Path == "list/b"')}`);
    expect(filtered.json<{ Path: string }[]>().map((item) => item.Path)).toEqual(["list/b"]);
  });

  it("wakes a blocking read of a variable when it is written", async () => {
    const first = (await put("/v1/var/block/one", { Items: { v: "1" } })).json<{ ModifyIndex: number }>();
    const waiting = get(`/v1/var/block/one?index=${first.ModifyIndex}&wait=60s`);
    await put("/v1/var/block/one", { Items: { v: "2" } });
    const woken = await waiting;
    expect(woken.json()).toMatchObject({ Items: { v: "2" } });
    expect(Number(woken.headers["x-svc-index"])).toBeGreaterThan(first.ModifyIndex);
  });

  it("lists every namespace's variables with namespace=*, each namespace a segment of the pages", async () => {
    await put("/v1/var/across/one?namespace=other", { Items: { v: "1" } });
    await put("/v1/var/across/one", { Items: { v: "1" } });
    const all = (await get("/v1/vars?namespace=*&prefix=across/")).json<{ Namespace: string; Path: string }[]>();
    expect(all.map((item) => `${item.Namespace}.${item.Path}`)).toEqual(["default.across/one", "other.across/one"]);
    const first = await get("/v1/vars?namespace=*&prefix=across/&per_page=1");
    const next = first.headers["x-svc-nexttoken"];
    expect(next).toBe("other.across/one");
    const second = (await get(`/v1/vars?namespace=*&prefix=across/&per_page=1&next_token=${encodeURIComponent(next!)}`)).json<{ Namespace: string }[]>();
    expect(second.map((item) => item.Namespace)).toEqual(["other"]);
  });

  it("keeps variables and their locks through a snapshot restored", async () => {
    await put("/v1/var/snap/plain", { Items: { kept: "yes" } });
    const lock = (await put("/v1/var/snap/locked?lock-acquire", { Lock: { TTL: "10s", LockDelay: "10s" } })).json<{ Lock: { ID: string } }>().Lock;
    const before = (await get("/v1/var/snap/plain")).json();
    const snapshot = await agent.agent.snapshot();
    expect(snapshot.Tables.variables.length).toBeGreaterThanOrEqual(2);
    await del("/v1/var/snap/plain");
    await agent.agent.restore(snapshot);
    expect((await get("/v1/var/snap/plain")).json()).toEqual(before);
    // The restored lock is timed again from now: renewable, then lost after twice its TTL.
    expect((await put("/v1/var/snap/locked?lock-renew", { Lock: { ID: lock.ID } })).status).toBe(200);
    await agent.agent.clock.advance("21s");
    expect((await put("/v1/var/snap/locked?lock-renew", { Lock: { ID: lock.ID } })).status).toBe(409);
  });

  describe("the variables ACL block", () => {
    it.each([
      ["reads a path its glob grants", "GET", "/v1/var/team/app", 200],
      ["is denied the path a closer rule denies", "GET", "/v1/var/team/secret", 403],
      ["is denied a path no rule names", "GET", "/v1/var/app/other", 403],
      ["is denied a read where it may only list", "GET", "/v1/var/shared/one", 403],
      ["writes a path its glob grants", "PUT", "/v1/var/team/new", 200],
      ["is denied a delete without destroy", "DELETE", "/v1/var/team/app", 403],
    ])("a team token %s", async (_name, method, path, status) => {
      await put("/v1/var/team/app", { Items: { a: "1" } });
      await put("/v1/var/team/secret", { Items: { a: "1" } });
      await put("/v1/var/shared/one", { Items: { a: "1" } });
      const response = await send(agent.url + path, { method, ...as(TEAM), ...(method === "PUT" ? { body: JSON.stringify({ Items: { b: "2" } }) } : {}) });
      expect(response.status).toBe(status);
    });

    it("lists only the paths the token may list", async () => {
      const listed = (await get("/v1/vars", TEAM)).json<{ Path: string }[]>().map((item) => item.Path);
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.every((path) => path.startsWith("team/") || path.startsWith("shared/"))).toBe(true);
      expect(listed).not.toContain("team/secret");
    });

    it("hides the conflicting items from a writer who may not read them", async () => {
      await put("/v1/var/hidden/two", { Items: { hidden: "yes" } });
      const conflict = await put("/v1/var/hidden/two?cas=0", { Items: { mine: "1" } }, TEAM);
      expect(conflict.status).toBe(409);
      expect(conflict.json()).toMatchObject({ Path: "hidden/two" });
      expect(conflict.json<{ Items?: unknown }>().Items).toBeUndefined();
      const asRoot = await put("/v1/var/hidden/two?cas=0", { Items: { mine: "1" } });
      expect(asRoot.json<{ Items?: unknown }>().Items).toEqual({ hidden: "yes" });
    });
  });

  describe("locks", () => {
    it("acquires, renews, refuses another holder, and releases", async () => {
      const acquired = await put("/v1/var/locks/one?lock-acquire", { Lock: { TTL: "10s", LockDelay: "5s" } });
      expect(acquired.status).toBe(200);
      const lock = acquired.json<{ Lock: { ID: string; TTL: string; LockDelay: string } }>().Lock;
      expect(lock).toMatchObject({ TTL: "10s", LockDelay: "5s" });
      // A management token sees the lock in the list too.
      const listed = (await get("/v1/vars?prefix=locks/one")).json<{ Lock?: { ID: string } }[]>();
      expect(listed[0]?.Lock?.ID).toBe(lock.ID);
      const other = await put("/v1/var/locks/one?lock-acquire", { Lock: { TTL: "10s" } });
      expect(other.status).toBe(409);
      const write = await put("/v1/var/locks/one", { Items: { a: "1" } });
      expect(write.status).toBe(409);
      await agent.agent.clock.advance("15s");
      const renewed = await put("/v1/var/locks/one?lock-renew", { Lock: { ID: lock.ID } });
      expect(renewed.status).toBe(200);
      expect(renewed.json<{ Lock: { ID: string } }>().Lock.ID).toBe(lock.ID);
      const wrongId = await put("/v1/var/locks/one?lock-release", { Lock: { ID: "another" } });
      expect(wrongId.status).toBe(409);
      const released = await put("/v1/var/locks/one?lock-release", { Lock: { ID: lock.ID } });
      expect(released.status).toBe(200);
      expect(released.json<{ Lock?: unknown }>().Lock).toBeUndefined();
      const again = await put("/v1/var/locks/one?lock-acquire", { Lock: { TTL: "10s" } });
      expect(again.status).toBe(200);
    });

    it("loses a lock not renewed within twice its TTL, and frees it after its delay", async () => {
      const acquired = await put("/v1/var/locks/two?lock-acquire", { Lock: { TTL: "10s", LockDelay: "30s" } });
      const lock = acquired.json<{ Lock: { ID: string } }>().Lock;
      await agent.agent.clock.advance("21s");
      const late = await put("/v1/var/locks/two?lock-renew", { Lock: { ID: lock.ID } });
      expect([late.status, late.text]).toEqual([409, "attempting to modify locked variable"]);
      // Still held during the delay.
      expect((await put("/v1/var/locks/two?lock-acquire", { Lock: { TTL: "10s" } })).status).toBe(409);
      await agent.agent.clock.advance("31s");
      await eventually(async () => ((await get("/v1/var/locks/two")).json<{ Lock?: unknown }>().Lock === undefined ? true : undefined));
      expect((await put("/v1/var/locks/two?lock-acquire", { Lock: { TTL: "10s" } })).status).toBe(200);
    });

    // The timers were keyed by the lock's ID alone: the second namespace's lock got no timer and was never lost.
    it("times the locks of two namespaces that share a lock ID apart", async () => {
      const ns = ["default", "other"];
      for (const namespace of ns) {
        const acquired = await put(`/v1/var/locks/shared?namespace=${namespace}&lock-acquire`, { Lock: { ID: "same-id", TTL: "10s", LockDelay: "1s" } });
        expect(acquired.status, acquired.text).toBe(200);
        expect(acquired.json<{ Lock: { ID: string } }>().Lock.ID).toBe("same-id");
      }
      // A renewal in one namespace starts that lock's timer again only.
      await agent.agent.clock.advance("15s");
      expect((await put("/v1/var/locks/shared?namespace=default&lock-renew", { Lock: { ID: "same-id" } })).status).toBe(200);
      await agent.agent.clock.advance("7s");
      await eventually(async () => ((await get("/v1/var/locks/shared?namespace=other")).json<{ Lock?: unknown }>().Lock === undefined ? true : undefined));
      expect((await get("/v1/var/locks/shared?namespace=default")).json<{ Lock?: { ID: string } }>().Lock?.ID).toBe("same-id");
      await agent.agent.clock.advance("15s");
      await eventually(async () => ((await get("/v1/var/locks/shared?namespace=default")).json<{ Lock?: unknown }>().Lock === undefined ? true : undefined));
    });

    it("keeps a lock's timer when a test changes the lifecycle", async () => {
      const lock = (await put("/v1/var/locks/three?lock-acquire", { Lock: { TTL: "10s", LockDelay: "5s" } })).json<{ Lock: { ID: string } }>().Lock;
      agent.agent.scenarios.resetLifecycle();
      expect((await put("/v1/var/locks/three?lock-renew", { Lock: { ID: lock.ID } })).status).toBe(200);
      await agent.agent.clock.advance("26s");
      await eventually(async () => ((await get("/v1/var/locks/three")).json<{ Lock?: unknown }>().Lock === undefined ? true : undefined));
    });

    it.each([
      ["a variable that does not exist", "/v1/var/locks/none?lock-renew", { Lock: { ID: "x" } }, 404, "variable doesn't exist"],
      ["a variable without a lock", "/v1/var/edge?lock-renew", { Lock: { ID: "x" } }, 409, "variable doesn't hold a lock"],
      ["no lock ID", "/v1/var/edge?lock-renew", {}, 400, "1 error occurred:\n\t* missing lock ID\n\n"],
    ])("refuses a renewal of %s", async (_name, path, body, status, message) => {
      const response = await put(path, body);
      expect([response.status, response.text]).toEqual([status, message]);
    });
  });
});

describe("the number of variables", () => {
  it(`takes the ${MAX_VARIABLES}th variable and refuses one more, but not a write to one that exists`, async () => {
    const store = new MemoryStore();
    const context = { store, clock: new ManualClock(), placementDelayMs: 1000, evaluating: new Map() };
    const fill = (count: number) =>
      store.write(["variables"], (state) => {
        for (let i = state.variables.size; i < count; i++) {
          state.variables.put({ Namespace: "default", Path: `v${i}`, Lock: null, Items: { a: "1" }, CreateIndex: state.index, CreateTime: 0n, ModifyIndex: state.index, ModifyTime: 0n });
        }
      }, "VarApplyState");
    const write = (path: string) => applyVariable(context, "set", checkRequest("set", { Namespace: "default", Path: path, Items: { a: "2" }, Lock: null, ModifyIndex: 0 }));
    await fill(MAX_VARIABLES - 1);
    expect((await write("last")).result).toBe("ok");
    await expect(write("one-more")).rejects.toThrow(`the agent holds ${MAX_VARIABLES} variables, the most it may`);
    expect((await write("v0")).result).toBe("ok");
    expect(store.tables.variables.get(namespacedKey("default", "v0"))?.Items).toEqual({ a: "2" });
  });
});

describe("variables policy rules", () => {
  it.each([
    ['namespace "a" {\n  variables {\n    path "x" { capabilities = ["fly"] }\n  }\n}', "Invalid variable capability 'fly' in namespace a"],
    ['namespace "a" {\n  variables {\n    path "/x" { capabilities = ["read"] }\n  }\n}', "Invalid variable path \"/x\" in namespace a: cannot start with a leading '/'`"],
    ['{"namespace": {"a": {"variables": {}}}}', "Invalid variable policy: no variable paths in namespace a"],
  ])("refuses %s", async (rules, message) => {
    await expect(parsePolicy(rules)).rejects.toThrow(new PolicyError(message));
  });

  it("expands read to list, and picks the closest glob", async () => {
    const policy = await parsePolicy('{"namespace": {"*": {"variables": {"path": {"a/*": {"capabilities": ["read"]}, "a/b/*": {"capabilities": ["write"]}}}}}}');
    const permissions = new Permissions([policy]);
    expect(permissions.allowsVariable("prod", "a/x", "list")).toBe(true);
    expect(permissions.allowsVariable("prod", "a/b/c", "write")).toBe(true);
    expect(permissions.allowsVariable("prod", "a/b/c", "read")).toBe(false);
  });
});
