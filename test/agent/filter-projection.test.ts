/**
 * The memory store's filter projections (`state/projection.ts`): a list filtered again on the same
 * fields is evaluated on its rows' projections, made on the second request at a version of the
 * list's tables and read from then on; any write to those tables (or to the tables its targets are
 * made of), a seed included, makes them stale; the pages are those of the rows. And a page whose
 * caller sees every row does not read the rows to ask (`EVERY_ROW`).
 */
import { describe, expect, it } from "vitest";
import { compileFilter } from "../../src/index.js";
import { allocationsEndpoint, jobsEndpoint } from "../../src/server/list/endpoints.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import type { Job } from "../../src/server/state/model.js";
import { cutPage, EVERY_ROW } from "../../src/server/state/page.js";
import { MIN_PROJECTED_ROWS, ProjectionCache } from "../../src/server/state/projection.js";
import type { ListPageRequest, RowRange, StateView } from "../../src/server/state/store.js";

const JOBS = MIN_PROJECTED_ROWS + 44;

/** A job row as the store keeps its fields that matter here. */
function job(index: number, commit: string): Job {
  return { Namespace: index % 2 === 0 ? "default" : "prod", ID: `job-${String(index).padStart(4, "0")}`, Status: index % 3 === 0 ? "dead" : "running", Meta: { commit }, Periodic: null, ParameterizedJob: null, Dispatched: false } as unknown as Job;
}

/** A store holding {@link JOBS} jobs, the i-th with commit `c<i mod 16 in hex>`. */
async function storeOfJobs(): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.write(["jobs"], (state) => {
    for (let i = 0; i < JOBS; i++) state.jobs.put(job(i, `c${(i % 16).toString(16)}`));
  }, "JobRegister");
  return store;
}

/** Pages `/v1/jobs?namespace=*&filter=<source>` from `store`, counting the targets made. */
function listJobs(store: MemoryStore, source: string, permitted: (row: Job) => boolean = EVERY_ROW): { ids: string[]; targets: number } {
  let targets = 0;
  const request: ListPageRequest<Job> = {
    perPage: 0,
    nextToken: "",
    reverse: false,
    filter: compileFilter(source),
    namespace: "*",
    prefix: "",
    schema: undefined,
    permitted,
    filterTarget: (row: Job, view: StateView) => {
      targets++;
      return jobsEndpoint.filterTarget(row, view);
    },
    stale: false,
  };
  const page = store.page(jobsEndpoint, request) as { rows: Job[] };
  return { ids: page.rows.map((row) => row.ID), targets };
}

/** The IDs the filter accepts, decided on every stored job directly. */
function expected(store: MemoryStore, source: string): string[] {
  const filter = compileFilter(source);
  return [...store.tables.jobs.values()].filter((row) => filter.test(jobsEndpoint.filterTarget(row, store))).map((row) => row.ID).sort();
}

describe("the memory store's filter projections", () => {
  it("are made on the second request for the same fields, then read instead of the rows", async () => {
    const store = await storeOfJobs();
    const made = ['Meta.commit == "c1" and Status == "running"', 'Meta.commit == "c2" and Status == "dead"', 'Meta.commit == "c3" and Status == "running"', 'Status == "dead" and Meta.commit == "c4"'].map((source) => {
      const listed = listJobs(store, source);
      expect([...listed.ids].sort()).toEqual(expected(store, source));
      return listed.targets;
    });
    // First: no projection; second: each row's made once; then none is made again.
    expect(made).toEqual([JOBS, JOBS, 0, 0]);
  });

  it("are per set of fields: a filter on other fields is evaluated on the rows", async () => {
    const store = await storeOfJobs();
    listJobs(store, 'Meta.commit == "c1"');
    listJobs(store, 'Meta.commit == "c2"');
    expect(listJobs(store, 'Status == "dead"').targets).toBe(JOBS);
    expect(listJobs(store, 'Meta.commit == "c5"').targets).toBe(0);
  });

  it.each([
    ["a write to the jobs", async (store: MemoryStore) => void (await store.write(["jobs"], (state) => state.jobs.put(job(7, "c1")), "JobRegister"))],
    ["a seed of the jobs", async (store: MemoryStore) => store.seed(["jobs"], (state) => state.jobs.put(job(7, "c1")))],
  ])("are stale after %s: the page shows the change", async (_, change) => {
    const store = await storeOfJobs();
    const source = 'Meta.commit == "c1"';
    listJobs(store, 'Meta.commit == "c0"');
    listJobs(store, 'Meta.commit == "c0"');
    expect(listJobs(store, source).targets).toBe(0);
    expect(listJobs(store, source).ids).not.toContain("job-0007");
    await change(store);
    const after = listJobs(store, source);
    expect(after.targets).toBe(JOBS);
    expect(after.ids).toContain("job-0007");
    expect([...after.ids].sort()).toEqual(expected(store, source));
  });

  it("are made only for the rows the caller may see", async () => {
    const store = await storeOfJobs();
    const prodOnly = (row: Job) => row.Namespace === "prod";
    listJobs(store, 'Meta.commit == "c1"', prodOnly);
    expect(listJobs(store, 'Meta.commit == "c1"', prodOnly).targets).toBe(JOBS / 2);
    // Another caller, who sees every row, has the rest made for it.
    expect(listJobs(store, 'Meta.commit == "c3"').targets).toBe(JOBS / 2);
    expect(listJobs(store, 'Meta.commit == "c3"', prodOnly).ids.every((id) => Number(id.slice(4)) % 2 === 1)).toBe(true);
  });

  it("of allocations are stale after a change of the job versions their targets are made of", () => {
    expect(allocationsEndpoint.targetTables).toContain("job_versions");
  });
});

describe("ProjectionCache", () => {
  const rows = (size: number): RowRange<{ n: number }> => ({ size, at: (position) => ({ n: position }), segments: [] });
  const expression = compileFilter('A == "x"').expression;

  it("keeps no projection of a list shorter than the least it projects", () => {
    const cache = new ProjectionCache();
    const list = {};
    for (let i = 0; i < 3; i++) expect(cache.targets(list, "*", "", expression, rows(MIN_PROJECTED_ROWS - 1), 1, (row) => row)).toBeUndefined();
  });

  it("holds its bytes within its bound, the least recently used let go first", () => {
    const size = MIN_PROJECTED_ROWS;
    const cache = new ProjectionCache(size * 100);
    const lists = [{}, {}, {}];
    for (const list of lists) {
      cache.targets(list, "*", "", expression, rows(size), 1, (row) => row);
      expect(cache.targets(list, "*", "", expression, rows(size), 1, (row) => row)).toBeDefined();
      expect(cache.bytes).toBeLessThanOrEqual(size * 100);
    }
    // The first list's projection was let go: asked again, it is seen once more first.
    expect(cache.targets(lists[0]!, "*", "", expression, rows(size), 1, (row) => row)).toBeUndefined();
    expect(cache.targets(lists[2]!, "*", "", expression, rows(size), 1, (row) => row)).toBeDefined();
  });
});

describe("a page whose caller sees every row", () => {
  /** Rows that count every read of their fields. */
  function countedRows(size: number): { range: RowRange<object>; reads: () => number } {
    let reads = 0;
    const made = Array.from({ length: size }, (_, n) => new Proxy({ Namespace: "default", n }, { get: (target, key) => (reads++, Reflect.get(target, key)) }));
    return { range: { size, at: (position) => made[position]!, segments: [] }, reads: () => reads };
  }

  it.each([
    ["EVERY_ROW: no row is read", EVERY_ROW, 0],
    ["any other permitted: each row is read", (row: object) => (row as { Namespace: string }).Namespace === "default", 10],
  ])("%s", (_, permitted, reads) => {
    const { range, reads: counted } = countedRows(10);
    const targets = Array.from({ length: 10 }, (_, n) => ({ n }));
    const page = cutPage(
      { rows: range, token: () => "", compare: () => 0, seekable: false, filterTarget: () => ({}), permitted, targetAt: (position) => targets[position] },
      { perPage: 0, nextToken: "", reverse: false, filter: compileFilter("n == 3") },
    );
    expect(page.rows).toHaveLength(1);
    expect(counted()).toBe(reads);
  });
});
