/** The reference's `api/namespace_test.go`, ported (see `jobs.test.ts` for how). */
import { describe, expect } from "vitest";
import { HEADER_STYLES, UnexpectedResponseError } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { assertQueryMeta, assertWriteMeta, goTestServers, len, testNamespace } from "./support.js";

/** Every test of api/namespace_test.go (reference commit aa026cc99cfb), in its order. */
export const NAMESPACE_TESTS = {
  TestNamespaces_Register: PORTED,
  TestNamespaces_Register_Invalid: PORTED,
  TestNamespaces_Info: PORTED,
  TestNamespaces_Delete: PORTED,
  TestNamespaces_List: PORTED,
  TestNamespace_NotFound: PORTED,
} as const;

describe.each(HEADER_STYLES)("api/namespace_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(NAMESPACE_TESTS, {
    async TestNamespaces_Register() {
      const { client } = await makeClient();
      const ns = testNamespace();
      assertWriteMeta(await client.namespaces.register(ns));

      // Newest first (NamespaceIndexSort).
      const [resp, qm] = await client.namespaces.list();
      assertQueryMeta(qm);
      expect(len(resp)).toBe(2);
      expect(resp?.[0]?.Name).toBe(ns.Name);
      expect(resp?.[1]?.Name).toBe("default");
    },

    async TestNamespaces_Register_Invalid() {
      const { client } = await makeClient();
      const ns = testNamespace();
      ns.Name = "*";
      await expect(client.namespaces.register(ns)).rejects.toThrow('invalid name "*".');
    },

    async TestNamespaces_Info() {
      const { client } = await makeClient();
      await expect(client.namespaces.info("foo")).rejects.toThrow("not found");

      const ns = testNamespace();
      assertWriteMeta(await client.namespaces.register(ns));

      const [result, qm] = await client.namespaces.info(ns.Name as string);
      assertQueryMeta(qm);
      expect(result).not.toBeNull();
      expect(result.Name).toBe(ns.Name);
    },

    async TestNamespaces_Delete() {
      const { client } = await makeClient();
      const ns = testNamespace();
      assertWriteMeta(await client.namespaces.register(ns));

      const [resp, qm] = await client.namespaces.list();
      assertQueryMeta(qm);
      expect(len(resp)).toBe(2);
      expect(resp?.[0]?.Name).toBe(ns.Name);
      expect(resp?.[1]?.Name).toBe("default");

      assertWriteMeta(await client.namespaces.delete(ns.Name as string));

      const [resp2, qm2] = await client.namespaces.list();
      assertQueryMeta(qm2);
      expect(len(resp2)).toBe(1);
      expect(resp2?.[0]?.Name).toBe("default");
    },

    async TestNamespaces_List() {
      const { client } = await makeClient();
      const ns1 = { ...testNamespace(), Name: "fooaaa" };
      const ns2 = { ...testNamespace(), Name: "foobbb" };
      assertWriteMeta(await client.namespaces.register(ns1));
      assertWriteMeta(await client.namespaces.register(ns2));

      const [all, qm] = await client.namespaces.list();
      assertQueryMeta(qm);
      expect(len(all)).toBe(3);

      const [foo, qm2] = await client.namespaces.prefixList("foo");
      assertQueryMeta(qm2);
      expect(len(foo)).toBe(2);

      const [foob, qm3] = await client.namespaces.prefixList("foob");
      assertQueryMeta(qm3);
      expect(len(foob)).toBe(1);
      expect(foob?.[0]?.Name).toBe(ns2.Name);
    },

    async TestNamespace_NotFound() {
      const { client } = await makeClient();
      const error = await client.namespaces.info("dummy").then(
        () => undefined,
        (failure: unknown) => failure,
      );
      // errors.As(e, &UnexpectedResponseError{}), then its status.
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect((error as UnexpectedResponseError).statusCode).toBe(404);
    },
  });
});
