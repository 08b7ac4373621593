/**
 * The allocation, evaluation and node lists compile their filters against the schemas of
 * `list/filter-schemas.ts` (typed mode): every field of every row they filter, as
 * `domain/present.ts` writes it, is described there with its kind, so that no field a user sees
 * is refused as unknown and none is compared as the wrong kind.
 */
import { describe, expect, it } from "vitest";
import type { FieldSchema } from "../../src/evaluator/schema.js";
import { Cluster } from "../../src/server/domain/cluster.js";
import { loadDemo } from "../../src/server/domain/demo.js";
import { decodeRegisterRequest } from "../../src/server/domain/register.js";
import { allocationsEndpoint, evaluationsEndpoint, nodesEndpoint, type ListEndpoint } from "../../src/server/list/endpoints.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import type { RowRange, Store } from "../../src/server/state/store.js";

/** Where `value` does not have the shape and kinds of `schema` (paths, with what was found). */
function mismatches(schema: FieldSchema, value: unknown, path: string): string[] {
  if (value === null || schema === "any") return [];
  const found = `${path}: ${Array.isArray(value) ? "array" : typeof value}`;
  if (typeof schema === "string") {
    const fits =
      schema === "string" || schema === "time" ? typeof value === "string"
      : schema === "bool" ? typeof value === "boolean"
      : schema === "float" ? typeof value === "number"
      : (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint";
    return fits ? [] : [`${found}, declared ${schema}`];
  }
  if (schema.kind === "array") return Array.isArray(value) ? value.flatMap((element) => mismatches(schema.items, element, `${path}[]`)) : [`${found}, declared a list`];
  if (typeof value !== "object" || Array.isArray(value)) return [`${found}, declared a ${schema.kind}`];
  const entries = Object.entries(value as Record<string, unknown>);
  if (schema.kind === "map") return entries.flatMap(([, element]) => mismatches(schema.values, element, `${path}[*]`));
  return entries.flatMap(([key, element]) => (Object.hasOwn(schema.fields, key) ? mismatches(schema.fields[key]!, element, `${path}.${key}`) : [`${path}.${key}: not in the schema`]));
}

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
