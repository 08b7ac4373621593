/**
 * The state store's seam: a table changes only inside a write that names it (a compile error
 * otherwise, and a runtime error for code that casts around the types), so no write can forget to
 * wake the queries watching a table; tables keep their rows sorted and grouped as they change; the
 * named queries find their rows by range; waking is batched.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore, WAKE_BATCH } from "../../src/server/state/memory.js";
import type { Allocation, Job } from "../../src/server/state/model.js";
import { namespacedKey, TABLES, type Transaction, type WriteTable } from "../../src/server/state/store.js";

function alloc(ID: string, CreateIndex: number, JobID = "j", ClientStatus: Allocation["ClientStatus"] = "pending"): Allocation {
  return {
    ID,
    Namespace: "default",
    EvalID: "",
    Name: `${JobID}.g[0]`,
    NodeID: "",
    NodeName: "",
    JobID,
    JobType: "service",
    JobVersion: 0,
    TaskGroup: "g",
    DeploymentID: "",
    DesiredStatus: "run",
    DesiredDescription: "",
    ClientStatus,
    ClientDescription: "",
    DeploymentStatus: null,
    CreateIndex,
    ModifyIndex: CreateIndex,
    CreateTime: 0n,
    ModifyTime: 0n,
  };
}

function job(Namespace: string, ID: string): Job {
  return { Namespace, ID } as Job;
}

describe("a write transaction", () => {
  it("changes only the tables it names: another is a compile error, and a runtime error when cast", async () => {
    const store = new MemoryStore();
    await store.write(["jobs", "evals"], (state) => {
      // @ts-expect-error: the transaction has no allocs table, as the write did not name it.
      expect(state.allocs).toBeUndefined();
      // Code that gets at the table around the types is refused as it changes it.
      const allocs = store.tables.allocs as WriteTable<Allocation>;
      expect(() => allocs.put(alloc("a", 1))).toThrow(/the table allocs was changed outside a write that names it/);
    }, "JobRegister");
    expect(store.tables.allocs.size).toBe(0);
    expect(() => (store.tables.allocs as WriteTable<Allocation>).put(alloc("a", 1))).toThrow(/outside a write/);
    const { index } = await store.write(["allocs"], (state) => state.allocs.put(alloc("a", 3)), "JobRegister");
    // The first write moved the index to 2 (for jobs and evals), this one to 3.
    expect(index).toBe(3);
    expect(store.tableIndex("allocs")).toBe(3);
    expect(store.tableIndex("jobs")).toBe(2);
    expect(store.tableIndex("deployment")).toBe(1);
    expect(() => (store.tables.allocs as WriteTable<Allocation>).delete("a")).toThrow(/outside a write/);
    expect(store.tables.allocs.get("a")).toBeDefined();
  });

  it("types a helper by the tables it needs: a transaction naming more may be passed to it", async () => {
    const store = new MemoryStore();
    const putAlloc = (state: Transaction<"allocs">, row: Allocation) => state.allocs.put(row);
    await store.write(["allocs", "jobs"], (state) => putAlloc(state, alloc("a", 2)), "JobRegister");
    // @ts-expect-error: a transaction without allocs cannot be given to it.
    await expect(store.write(["jobs"], (state) => putAlloc(state, alloc("b", 3)))).rejects.toThrow();
    expect(store.tables.allocs.size).toBe(1);
  });

  it("is atomic: when apply throws, no row and no index moves, and the write rejects with what it threw", async () => {
    const store = new MemoryStore();
    await store.write(["allocs"], (state) => state.allocs.put(alloc("kept", 2)), "JobRegister");
    const refusal = new Error("refused half way");
    await expect(
      store.write(["allocs", "jobs"], (state) => {
        state.allocs.put(alloc("new", 3));
        state.allocs.delete("kept");
        state.jobs.put(job("prod", "web"));
        // The transaction sees its own changes before they are committed.
        expect([state.allocs.get("new")?.ID, state.allocs.get("kept"), state.allocs.size, [...state.allocs.group(namespacedKey("default", "j")).keys()]]).toEqual(["new", undefined, 1, ["new"]]);
        throw refusal;
      }, "JobRegister"),
    ).rejects.toBe(refusal);
    expect([store.index, store.tableIndex("jobs"), store.tables.allocs.size, store.tables.allocs.get("kept")?.ID, store.tables.jobs.size]).toEqual([2, 1, 1, "kept", 0]);
  });

  it("tells its listeners of every write in index order, with the rows it put and deleted", async () => {
    const store = new MemoryStore();
    const seen: string[] = [];
    const stop = store.subscribe((write) => seen.push(`${write.index}: ${Object.entries(write.changes).map(([table, rows]) => `${table} ${[...rows!].map(([key, row]) => (row === undefined ? `-${key}` : `+${key}`)).join(" ")}`).join(", ")}`));
    await store.write(["allocs"], (state) => state.allocs.put(alloc("a", 2)), "JobRegister");
    await store.write(["allocs", "jobs"], (state) => state.allocs.delete("a"), "JobRegister");
    stop();
    await store.write(["allocs"], (state) => state.allocs.put(alloc("b", 4)), "JobRegister");
    expect(seen).toEqual(["2: allocs +a", "3: allocs -a"]);
  });

  it("applies a replicated write once, at its own index, and ignores one it already has", () => {
    const store = new MemoryStore();
    const row = alloc("a", 7);
    expect(store.replicate({ index: 7, changes: { allocs: new Map([["a", row]]) }, messages: new Map() }, ["allocs", "evals"])).toBe(true);
    expect([store.index, store.tableIndex("allocs"), store.tableIndex("evals"), store.tables.allocs.get("a")]).toEqual([7, 7, 7, row]);
    expect(store.replicate({ index: 7, changes: { allocs: new Map([["a", undefined]]) }, messages: new Map() })).toBe(false);
    expect(store.tables.allocs.get("a")).toBe(row);
  });

  it("keys each row by its table's definition", () => {
    const store = new MemoryStore();
    store.write(["jobs"], (state) => state.jobs.put(job("prod", "web")), "JobRegister");
    expect(store.tables.jobs.get(namespacedKey("prod", "web"))).toEqual(job("prod", "web"));
    expect(TABLES.jobs.key(job("prod", "web"))).toBe(namespacedKey("prod", "web"));
  });

  it("wakes what watches a table it names", async () => {
    const store = new MemoryStore();
    const woken = store.waitForChange(["allocs"], 1, new AbortController().signal);
    store.write(["allocs"], (state) => state.allocs.put(alloc("a", 2)), "JobRegister");
    await expect(woken).resolves.toBeUndefined();
  });
});

describe("a table", () => {
  it("keeps its rows sorted and grouped through any sequence of changes", async () => {
    const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
    const change = fc.oneof(
      fc.record({ kind: fc.constant("put" as const), key, CreateIndex: fc.integer({ min: 1, max: 4 }), JobID: fc.constantFrom("j1", "j2", "j3"), Status: fc.constantFrom("pending" as const, "running" as const) }),
      fc.record({ kind: fc.constant("delete" as const), key }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(change, { maxLength: 40 }), async (changes) => {
        const store = new MemoryStore();
        const model = new Map<string, Allocation>();
        for (const c of changes) {
          await store.write(["allocs"], (state) => {
            if (c.kind === "put") {
              const row = alloc(c.key, c.CreateIndex, c.JobID, c.Status);
              state.allocs.put(row);
              model.set(c.key, row);
            } else {
              expect(state.allocs.delete(c.key)).toBe(model.delete(c.key));
            }
          }, "JobRegister");
          const all = store.tables.allocs.all();
          expect(Array.from({ length: all.size }, (_, i) => all.at(i))).toEqual([...model.values()].sort(TABLES.allocs.order));
          for (const jobId of ["j1", "j2", "j3"]) {
            expect(new Map(store.tables.allocs.group(namespacedKey("default", jobId)))).toEqual(new Map([...model].filter(([, row]) => row.JobID === jobId)));
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("the named queries", () => {
  const namespaces = ["a", "a-b", "b", "default"];
  const ids = ["", "w", "web", "web-2", "x", "zz"];

  it("find a namespace's jobs with a prefix by range, as a scan would, with a segment per namespace across all", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.constantFrom(...namespaces), fc.constantFrom(...ids.slice(1))), { selector: ([ns, id]) => `${ns}/${id}` }), fc.constantFrom("*", ...namespaces), fc.constantFrom(...ids), (rows, namespace, prefix) => {
        const store = new MemoryStore();
        store.write(["jobs"], (state) => rows.forEach(([ns, id]) => state.jobs.put(job(ns, id))), "JobRegister");
        const expected = rows
          .map(([ns, id]) => job(ns, id))
          .filter((row) => (namespace === "*" || row.Namespace === namespace) && row.ID.startsWith(prefix))
          .sort(TABLES.jobs.order);
        const range = store.queries.jobs(namespace, prefix);
        expect(Array.from({ length: range.size }, (_, i) => range.at(i))).toEqual(expected);
        // Each segment starts where the namespace changes, and only there.
        const starts = expected.flatMap((row, i) => (i > 0 && row.Namespace !== expected[i - 1]!.Namespace ? [i] : []));
        expect(range.segments).toEqual(namespace === "*" ? starts : []);
      }),
      { numRuns: 300 },
    );
  });

  it("find names with a prefix by range", () => {
    const store = new MemoryStore();
    store.write(["namespaces"], (state) => ["alpha", "alpine", "beta", "al"].forEach((Name) => state.namespaces.put({ Name, Description: "", Quota: "", Meta: null, CreateIndex: 2, ModifyIndex: 2 })), "JobRegister");
    const range = store.queries.byKeyPrefix("namespaces", "alp");
    expect(Array.from({ length: range.size }, (_, i) => range.at(i).Name)).toEqual(["alpha", "alpine"]);
    expect(store.queries.byKeyPrefix("namespaces", "").size).toBe(4);
    expect(store.queries.byKeyPrefix("namespaces", "zeta").size).toBe(0);
  });
});

describe("waking blocking queries", () => {
  it(`wakes ${WAKE_BATCH} at once and the rest a batch per turn of the event loop, every one in the end`, async () => {
    const store = new MemoryStore();
    const count = 3 * WAKE_BATCH + 7;
    let woken = 0;
    const waits = Array.from({ length: count }, () => store.waitForChange(["allocs"], 1, new AbortController().signal).then(() => woken++));
    store.write(["allocs"], (state) => state.allocs.put(alloc("a", 2)), "JobRegister");
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

  it("wakes only the queries that watch a table the write names, past their index, each once", async () => {
    const store = new MemoryStore();
    let jobs = false;
    let both = 0;
    void store.waitForChange(["jobs"], 1, new AbortController().signal).then(() => (jobs = true));
    void store.waitForChange(["allocs", "evals"], 1, new AbortController().signal).then(() => both++);
    store.write(["allocs", "evals"], (state) => state.allocs.put(alloc("a", 2)), "JobRegister");
    await new Promise((resolve) => setImmediate(resolve));
    expect([jobs, both]).toEqual([false, 1]);
    expect(store.waiting).toBe(1);
    store.close();
    expect(store.waiting).toBe(0);
  });
});
