/** The reference's `api/system_test.go`, ported (see `jobs.test.ts` for how). */
import { describe } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { goTestServers } from "./support.js";

/** Every test of api/system_test.go (reference commit aa026cc99cfb), in its order. */
export const SYSTEM_TESTS = {
  TestSystem_GarbageCollect: PORTED,
} as const;

describe.each(HEADER_STYLES)("api/system_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(SYSTEM_TESTS, {
    async TestSystem_GarbageCollect() {
      const { client } = await makeClient();
      // must.NoError: the call resolves (a refusal rejects).
      await client.system.garbageCollect();
    },
  });
});
