/**
 * The in-memory store shares equal leaves between its rows (`state/intern.ts`): a leaf (a plain
 * object or array of primitives) of a row put is replaced by the equal one seen first and frozen,
 * the row reads the same, and what the interner remembers is bounded by bytes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LeafInterner, MAX_LEAF_KEY_LENGTH } from "../../src/server/state/intern.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import type { Job } from "../../src/server/state/model.js";

/** A job row of the shape the store keeps, with the leaves of a task's defaults. */
function job(Namespace: string, ID: string, extra: Record<string, unknown> = {}): Job {
  return {
    Namespace,
    ID,
    Datacenters: ["dc1", "dc2"],
    Meta: { owner: ID },
    TaskGroups: [{ Name: "web", Count: 1, RestartPolicy: { Attempts: 2, Interval: 1_800_000_000_000, Delay: 15_000_000_000, Mode: "fail" }, Tasks: [{ Name: "main", LogConfig: { MaxFiles: 10, MaxFileSizeMB: 10 } }] }],
    ...extra,
  } as unknown as Job;
}

const restartPolicy = (row: Job) => (row as unknown as { TaskGroups: { RestartPolicy: object }[] }).TaskGroups[0]!.RestartPolicy;

describe("the memory store's rows", () => {
  it("share an equal leaf across jobs and namespaces, frozen, and keep a different one their own", async () => {
    const store = new MemoryStore();
    await store.write(["jobs"], (state) => {
      state.jobs.put(job("default", "a"));
      state.jobs.put(job("prod", "b"));
    }, "JobRegister");
    const a = store.tables.jobs.get("default\u0000a")!;
    const b = store.tables.jobs.get("prod\u0000b")!;
    expect(restartPolicy(a)).toBe(restartPolicy(b));
    expect(a.Datacenters).toBe(b.Datacenters);
    expect(Object.isFrozen(restartPolicy(a))).toBe(true);
    // A change in place would be a change to every job holding the leaf: it throws instead.
    expect(() => {
      (restartPolicy(a) as { Attempts: number }).Attempts = 9;
    }).toThrow(TypeError);
    expect(a.Meta).not.toBe(b.Meta);
    expect(b.Meta).toEqual({ owner: "b" });
    // The row itself is never shared or frozen, even when all its values are primitives.
    expect(Object.isFrozen(a)).toBe(false);
  });

  it("read the same once their leaves are shared", async () => {
    const store = new MemoryStore();
    const rows = [job("default", "a"), job("default", "b", { Datacenters: ["dc2", "dc1"] }), job("dev", "c", { Meta: { owner: "c", "": "" } })];
    const before = rows.map((row) => JSON.stringify(row));
    await store.write(["jobs"], (state) => rows.forEach((row) => state.jobs.put(row)), "JobRegister");
    expect(rows.map((row) => JSON.stringify(store.tables.jobs.get(`${row.Namespace}\u0000${row.ID}`)))).toEqual(before);
  });
});

describe("LeafInterner", () => {
  it.each([
    ["key order", { a: 1, b: 2 }, { b: 2, a: 1 }],
    ["0 and -0", { a: 0 }, { a: -0 }],
    ["a string and a number", { a: "1" }, { a: 1 }],
    ["null and undefined", { a: null }, { a: undefined }],
    ["a missing key and an undefined one", {}, { a: undefined }],
    ["an array and an object of its indices", ["x"], { 0: "x" }],
    ["strings that concatenate alike", { a: "b,", c: "" }, { a: "b", ",c": "" }],
    ["a bigint and a number", { a: 1n }, { a: 1 }],
  ])("keeps leaves apart that differ by %s", (_, first, second) => {
    const interner = new LeafInterner();
    const rows = [{ leaf: first }, { leaf: second }];
    rows.forEach((row) => interner.shareLeaves(row));
    expect(rows[1]!.leaf).toBe(second);
    expect(rows[0]!.leaf).not.toBe(rows[1]!.leaf);
  });

  it.each([
    ["a class instance", new Map([["a", 1]])],
    ["a leaf with a key longer than MAX_LEAF_KEY_LENGTH", { text: "x".repeat(MAX_LEAF_KEY_LENGTH) }],
    ["a sparse array", [1, , 3]],
  ])("leaves %s alone", (_, value) => {
    const interner = new LeafInterner();
    const copy = value instanceof Map ? new Map(value) : structuredClone(value);
    const rows = [{ value }, { value: copy }];
    rows.forEach((row) => interner.shareLeaves(row));
    expect(rows[1]!.value).toBe(copy);
    expect(Object.isFrozen(value)).toBe(false);
  });

  it("shares a leaf one key shorter than MAX_LEAF_KEY_LENGTH's edge", () => {
    const interner = new LeafInterner();
    // The key of {text: s} is "{4:text=s<length>:<s>," : 14 characters besides s's for a length of three digits.
    const text = "x".repeat(MAX_LEAF_KEY_LENGTH - 14);
    const rows = [{ value: { text } }, { value: { text } }];
    rows.forEach((row) => interner.shareLeaves(row));
    expect(rows[1]!.value).toBe(rows[0]!.value);
  });

  it("remembers at most its bytes: the older generation is dropped when the newer fills", () => {
    const maxBytes = 64 * 1024;
    const interner = new LeafInterner(maxBytes);
    for (let i = 0; i < 10_000; i++) interner.shareLeaves({ leaf: { i } });
    // Each key is some 16 characters (32 bytes) plus the 64 counted for its entry: at most maxBytes / 96 of them.
    expect(interner.size).toBeLessThanOrEqual(Math.ceil(maxBytes / 96) + 1);
    expect(interner.size).toBeGreaterThan(0);
  });

  it("keeps every row deep-equal to its copy, whatever the rows (property)", () => {
    const leafValue = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -2, max: 2 }), fc.constantFrom(0, -0, null, undefined, true, false, 1n));
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, leafValue, fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { maxKeys: 3, noNullPrototype: true })),
    })).node;
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.constantFrom("x", "y"), tree, { noNullPrototype: true }), { maxLength: 6 }), (rows) => {
        const copies = rows.map((row) => structuredClone(row));
        const interner = new LeafInterner();
        rows.forEach((row) => interner.shareLeaves(row));
        expect(rows).toStrictEqual(copies);
      }),
    );
  });
});
