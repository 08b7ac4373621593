/** The reference's `api/node_pools_test.go`, ported (see `jobs.test.ts` for how). */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { goTestServers } from "./support.js";

/** Every test of api/node_pools_test.go (reference commit aa026cc99cfb), in its order. */
export const NODE_POOLS_TESTS = {
  TestNodePools_List: PORTED,
  TestNodePools_PrefixList: PORTED,
  TestNodePools_Info: PORTED,
  TestNodePools_Register: PORTED,
  TestNodePools_Delete: PORTED,
} as const;

/** `time.Hour` in nanoseconds (720 hours stay below 2^53, exact as a number). */
const HOUR_NS = 3_600_000_000_000;

describe.each(HEADER_STYLES)("api/node_pools_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);
  const names = (pools: readonly ({ Name?: string } | null)[] | null) => (pools ?? []).map((pool) => pool?.Name);

  runGoTests(NODE_POOLS_TESTS, {
    async TestNodePools_List() {
      const { client } = await makeClient();
      // list all; with query param
      expect(names((await client.nodePools.list())[0])).toEqual(expect.arrayContaining(["all", "default"]));
      expect(names((await client.nodePools.list({ PerPage: 1 }))[0])).toEqual(expect.arrayContaining(["all"]));
    },

    async TestNodePools_PrefixList() {
      const { client } = await makeClient();
      await client.nodePools.register({ Name: "dev-1" });
      // prefix; with query param
      expect(names((await client.nodePools.prefixList("d"))[0])).toEqual(expect.arrayContaining(["default", "dev-1"]));
      expect(names((await client.nodePools.prefixList("d", { PerPage: 1 }))[0])).toEqual(expect.arrayContaining(["default"]));
    },

    async TestNodePools_Info() {
      const { client } = await makeClient();
      // default node pool
      expect((await client.nodePools.info("default"))[0].Name).toBe("default");
      // missing node pool name
      await expect(client.nodePools.info("")).rejects.toThrow("missing node pool name");
      // node pool name with special charaters
      await expect(client.nodePools.info("node/pool")).rejects.toThrow("not found");
    },

    async TestNodePools_Register() {
      const { client } = await makeClient();
      // create and update node pool
      const dev1 = { Name: "dev-1", NodeIdentityTTL: 720 * HOUR_NS, Description: "" };
      await client.nodePools.register(dev1);
      let [got] = await client.nodePools.info(dev1.Name);
      expect(got.Name).toBe(dev1.Name);
      expect(got.NodeIdentityTTL).toBe(dev1.NodeIdentityTTL);
      dev1.Description = "test";
      await client.nodePools.register(dev1);
      [got] = await client.nodePools.info(dev1.Name);
      expect(got.Name).toBe(dev1.Name);
      expect(got.Description).toBe(dev1.Description);
      expect(got.NodeIdentityTTL).toBe(dev1.NodeIdentityTTL);
      // missing node pool; missing node pool name
      await expect(client.nodePools.register(null)).rejects.toThrow("missing node pool");
      await expect(client.nodePools.register({})).rejects.toThrow("missing node pool name");
    },

    async TestNodePools_Delete() {
      const { client } = await makeClient();
      // delete node pool
      await client.nodePools.register({ Name: "dev-1" });
      expect((await client.nodePools.info("dev-1"))[0].Name).toBe("dev-1");
      await client.nodePools.delete("dev-1");
      await expect(client.nodePools.info("dev-1")).rejects.toThrow("not found");
      // missing node pool name; node pool name with special charaters
      await expect(client.nodePools.delete("")).rejects.toThrow("missing node pool name");
      await expect(client.nodePools.delete("node/pool")).rejects.toThrow("not found");
    },
  });
});
