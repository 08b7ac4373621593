/** The reference's `api/status_test.go`, ported (see `jobs.test.ts` for how). */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { goTestServers } from "./support.js";

/** Every test of api/status_test.go (reference commit aa026cc99cfb). */
export const STATUS_TESTS = {
  TestStatus_Leader: PORTED,
} as const;

describe.each(HEADER_STYLES)("api/status_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(STATUS_TESTS, {
    async TestStatus_Leader() {
      const { client } = await makeClient();
      const out = await client.status.leader();
      expect(out).not.toBe("");
    },
  });
});
