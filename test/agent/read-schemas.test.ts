/**
 * The allocation, evaluation and node lists compile their filters against the schemas of
 * `list/filter-schemas.ts` (typed mode): every field of every row they filter, as
 * `domain/present.ts` writes it, is described there with its kind, so that no field a user sees
 * is refused as unknown and none is compared as the wrong kind.
 */
import { describe, expect, it } from "vitest";
import { Cluster } from "../../src/server/scheduler/cluster.js";
import { loadDemo } from "../../src/server/control/demo.js";
import { decodeRegisterRequest } from "../../src/server/scheduler/job-spec.js";
import { allocationsEndpoint, evaluationsEndpoint, nodesEndpoint, type ListEndpoint } from "../../src/server/list/endpoints.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import type { RowRange, Store } from "../../src/server/state/store.js";
import { mismatches } from "../support/schema-shape.js";

/** A cluster with the demo data, a stopped job and a draining-free node set, run to the end. */
async function settledStore(): Promise<{ store: Store; close: () => void }> {
  const store = new MemoryStore();
  const cluster = new Cluster(store, { region: "global", placementDelayMs: 0 });
  await cluster.seed(3);
  cluster.lead();
  await loadDemo(cluster);
  const meta = { Meta: { "bexpr.run_for": "1s" } };
  await cluster.register(decodeRegisterRequest(JSON.stringify({ Job: { ID: "short", ...meta, TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "exec", Env: { A: "1" } }] }] } })), "default", "global");
  await cluster.settle();
  return { store, close: () => cluster.close() };
}

const ENDPOINTS: [string, ListEndpoint<unknown>][] = [
  ["allocations", allocationsEndpoint as ListEndpoint<unknown>],
  ["evaluations", evaluationsEndpoint as ListEndpoint<unknown>],
  ["nodes", nodesEndpoint as ListEndpoint<unknown>],
];

describe.each(ENDPOINTS)("the %s list's filter schema", (_name, endpoint) => {
  it("describes every field of every row the list filters, with its kind", async () => {
    const { store, close } = await settledStore();
    try {
      const rows: RowRange<unknown> = endpoint.rows(store, "*", "");
      const targets = Array.from({ length: rows.size }, (_, i) => endpoint.filterTarget(rows.at(i), store));
      expect(targets.length).toBeGreaterThanOrEqual(3);
      expect(targets.flatMap((target) => mismatches(endpoint.schema!, target, "")).join("\n")).toBe("");
    } finally {
      close();
    }
  });
});
