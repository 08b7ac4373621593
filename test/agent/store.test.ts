/**
 * The state store's seam: a table changes only inside a write that names it (so no write can
 * forget to wake the queries watching a table), keeps its rows sorted and grouped as they change,
 * and the cluster finds a job's deployments, evaluations and allocations through its group.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareStrings, StateStore, Table, WAKE_BATCH } from "../../src/server/store.js";

interface Row {
  readonly ID: string;
  readonly CreateIndex: number;
  readonly JobID: string;
  /** Neither ordered nor grouped by: an update that keeps the row's place. */
  readonly Status: string;
}

const order = (a: Row, b: Row) => a.CreateIndex - b.CreateIndex || compareStrings(a.ID, b.ID);

function table(store = new StateStore()) {
  return { store, rows: new Table<Row>("allocs", store, order, (row) => row.JobID) };
}

describe("a table", () => {
  it("changes only inside a write that names it", () => {
    const { store, rows } = table();
    expect(() => rows.put("a", { ID: "a", CreateIndex: 1, JobID: "j", Status: "x" })).toThrow(/outside a write that names it/);
    expect(() => store.write(["jobs", "evals"], () => rows.put("a", { ID: "a", CreateIndex: 1, JobID: "j", Status: "x" }))).toThrow(/the table allocs was changed outside a write that names it/);
    expect(rows.size).toBe(0);
    expect(store.index).toBe(1);
    store.write(["allocs"], () => rows.put("a", { ID: "a", CreateIndex: 2, JobID: "j", Status: "x" }));
    expect(store.tableIndex("allocs")).toBe(2);
    expect(() => rows.delete("a")).toThrow(/outside a write/);
    expect(rows.get("a")).toBeDefined();
  });

  it("wakes what watches it: a write that names the table moves the table's index", async () => {
    const { store, rows } = table();
    const woken = store.waitForChange(["allocs"], 1, new AbortController().signal);
    store.write(["allocs"], () => rows.put("a", { ID: "a", CreateIndex: 2, JobID: "j", Status: "x" }));
    await expect(woken).resolves.toBeUndefined();
  });

  it("keeps its rows sorted and grouped through any sequence of changes", () => {
    const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
    const change = fc.oneof(
      fc.record({ kind: fc.constant("put" as const), key, CreateIndex: fc.integer({ min: 1, max: 4 }), JobID: fc.constantFrom("j1", "j2", "j3"), Status: fc.constantFrom("x", "y") }),
      fc.record({ kind: fc.constant("delete" as const), key }),
    );
    fc.assert(
      fc.property(fc.array(change, { maxLength: 40 }), (changes) => {
        const { store, rows } = table();
        const model = new Map<string, Row>();
        for (const c of changes) {
          store.write(["allocs"], () => {
            if (c.kind === "put") {
              const row = { ID: c.key, CreateIndex: c.CreateIndex, JobID: c.JobID, Status: c.Status };
              rows.put(c.key, row);
              model.set(c.key, row);
            } else {
              expect(rows.delete(c.key)).toBe(model.delete(c.key));
            }
          });
          expect(rows.sorted()).toEqual([...model.values()].sort(order));
          for (const job of ["j1", "j2", "j3"]) {
            expect(new Map(rows.group(job))).toEqual(new Map([...model].filter(([, row]) => row.JobID === job)));
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("waking blocking queries", () => {
  it(`wakes ${WAKE_BATCH} at once and the rest a batch per turn of the event loop, every one in the end`, async () => {
    const { store, rows } = table();
    const count = 3 * WAKE_BATCH + 7;
    let woken = 0;
    const waits = Array.from({ length: count }, () => store.waitForChange(["allocs"], 1, new AbortController().signal).then(() => woken++));
    store.write(["allocs"], () => rows.put("a", { ID: "a", CreateIndex: 2, JobID: "j", Status: "x" }));
    await Promise.resolve();
    await Promise.resolve();
    expect(woken).toBe(WAKE_BATCH);
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBeGreaterThan(WAKE_BATCH);
    expect(woken).toBeLessThanOrEqual(2 * WAKE_BATCH);
    await Promise.all(waits);
    expect(woken).toBe(count);
    expect(store.waiting).toBe(0);
  });

  it("wakes only the queries that watch a table the write names, past their index", async () => {
    const { store, rows } = table();
    let jobs = false;
    let allocs = false;
    void store.waitForChange(["jobs"], 1, new AbortController().signal).then(() => (jobs = true));
    void store.waitForChange(["allocs"], 1, new AbortController().signal).then(() => (allocs = true));
    store.write(["allocs"], () => rows.put("a", { ID: "a", CreateIndex: 2, JobID: "j", Status: "x" }));
    await new Promise((resolve) => setImmediate(resolve));
    expect([jobs, allocs]).toEqual([false, true]);
    expect(store.waiting).toBe(1);
    store.close();
  });
});
