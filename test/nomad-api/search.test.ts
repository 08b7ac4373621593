/** The reference's `api/search_test.go`, ported (see `jobs.test.ts` for how). */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { goTestServers, len, testJob } from "./support.js";

/** Every test of api/search_test.go (reference commit aa026cc99cfb), in its order. */
export const SEARCH_TESTS = {
  TestSearch_PrefixSearch: PORTED,
  TestSearch_FuzzySearch: PORTED,
} as const;

describe.each(HEADER_STYLES)("api/search_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(SEARCH_TESTS, {
    async TestSearch_PrefixSearch() {
      const { client } = await makeClient();
      const job = testJob();
      await client.jobs.register(job);

      const id = job.ID as string;
      const prefix = id.slice(0, -2);
      const [resp, qm] = await client.search.prefixSearch(prefix, "jobs");
      expect(qm).not.toBeNull();
      expect(resp).not.toBeNull();

      const jobMatches = resp.Matches?.jobs ?? null;
      expect(len(jobMatches)).toBe(1);
      expect(jobMatches?.[0]).toBe(id);
    },

    async TestSearch_FuzzySearch() {
      const { client } = await makeClient();
      const job = testJob();
      await client.jobs.register(job);

      const [resp, qm] = await client.search.fuzzySearch("bin", "all");
      expect(qm).not.toBeNull();
      expect(resp).not.toBeNull();

      const commandMatches = resp.Matches?.commands ?? null;
      expect(len(commandMatches)).toBe(1);
      expect(commandMatches?.[0]?.ID).toBe("/bin/sleep");
      expect(commandMatches?.[0]?.Scope).toEqual(["default", job.ID, "group1", "task1"]);
    },
  });
});
