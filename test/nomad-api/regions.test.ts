/** The reference's `api/regions_test.go`: its one test needs two servers of two regions, joined. */
import { describe } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { runGoTests, skipped } from "./ported.js";

/** Every test of api/regions_test.go (reference commit aa026cc99cfb). */
export const REGIONS_TESTS = {
  TestRegionsList: skipped("needs-cluster", "two servers of regions regionA and regionB joined with PUT /v1/agent/join; the agent serves its own region only"),
} as const;

describe.each(HEADER_STYLES)("api/regions_test.go (%s headers)", () => {
  runGoTests(REGIONS_TESTS, {});
});
