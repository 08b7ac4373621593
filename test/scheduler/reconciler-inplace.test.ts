/**
 * The reference's reconciler tests of in-place updates (`scheduler/reconciler/reconcile_cluster_test.go`:
 * `TestReconciler_Inplace`, `_Inplace_ScaleUp`, `_Inplace_ScaleDown`,
 * `TestReconciler_CreateDeployment_RollingUpgrade_Inplace`) as a table against `reconcile()`, a
 * pure function: the reference's `mock.Job()` (no update block, so no deployment, unless the case
 * gives one) and its allocations, every allocation updated in place (`allocUpdateFnInplace`). Then
 * the generic update function (`genericAllocUpdateFn`) on the agent's job versions: what it
 * replaces and what it updates in place.
 */
import { describe, expect, it } from "vitest";
import { allocName } from "../../src/server/scheduler/alloc-names.js";
import { genericAllocUpdate } from "../../src/server/scheduler/alloc-update.js";
import { canonicalizeJob } from "../../src/server/scheduler/canonicalize.js";
import { reconcile, type AllocUpdateFn } from "../../src/server/scheduler/reconciler.js";
import type { Allocation, Job, Node } from "../../src/server/state/model.js";

/** `mock.Job()`'s group `web` of `count`, at `version`; `update`: the group's update block (none, as the mock's). */
function mockJob(count: number, version = 0, update: Record<string, unknown> | null = null, image = "/bin/date"): Job {
  const spec = canonicalizeJob(
    { ID: "mock", Type: "service", Datacenters: ["dc1"], TaskGroups: [{ Name: "web", Count: count, Tasks: [{ Name: "web", Driver: "exec", Config: { command: image } }] }] },
    "default",
    "global",
  );
  // The reference's struct-level mock has no update block; the API's canonicalisation gives a service job one.
  const groups = spec.TaskGroups.map((group) => ({ ...group, Update: update }));
  return { ...spec, Update: null, TaskGroups: groups, Status: "running", StatusDescription: "", Stable: false, Version: version, SubmitTime: 0n, CreateIndex: 42, ModifyIndex: 99 + version, JobModifyIndex: 99 + version };
}

/** `mock.Alloc()`s of the job's group `web`, named 0 to n-1, each on its own node, running at `version`. */
function mockAllocs(n: number, version = 0): Allocation[] {
  return Array.from({ length: n }, (_, index) => ({
    ID: `alloc-${index}`,
    Namespace: "default",
    EvalID: "eval-0",
    Name: allocName("mock", "web", index),
    NodeID: `node-${index}`,
    NodeName: `client-${index}`,
    JobID: "mock",
    JobType: "service",
    JobVersion: version,
    TaskGroup: "web",
    DeploymentID: "",
    DesiredStatus: "run",
    DesiredDescription: "",
    ClientStatus: "running",
    ClientDescription: "Tasks are running",
    DeploymentStatus: null,
    CreateIndex: 100 + index,
    ModifyIndex: 100 + index,
    CreateTime: 0n,
    ModifyTime: 0n,
  }));
}

/** `allocUpdateFnInplace`: every allocation updated in place. */
const inplace: AllocUpdateFn = (existing, job) => ({ kind: "inplace", alloc: { ...existing, JobVersion: job.Version } });

const indexes = (names: readonly string[]) => names.map((name) => Number(/\[(\d+)\]$/.exec(name)![1])).sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("reconcile with every allocation updated in place", () => {
  it.each([
    { test: "TestReconciler_Inplace", count: 10, existing: 10, version: 0, update: null, place: [], inplace: range(0, 9), stop: [], deployment: undefined },
    { test: "TestReconciler_Inplace_ScaleUp", count: 15, existing: 10, version: 0, update: null, place: range(10, 14), inplace: range(0, 9), stop: [], deployment: undefined },
    { test: "TestReconciler_Inplace_ScaleDown", count: 5, existing: 10, version: 0, update: null, place: [], inplace: range(0, 4), stop: range(5, 9), deployment: undefined },
    {
      test: "TestReconciler_CreateDeployment_RollingUpgrade_Inplace",
      count: 10,
      existing: 10,
      version: 1,
      update: { MaxParallel: 4, HealthCheck: "checks", MinHealthyTime: 10_000_000_000, HealthyDeadline: 600_000_000_000, Stagger: 31_000_000_000 },
      place: [],
      inplace: range(0, 9),
      stop: [],
      deployment: { DesiredTotal: 10, PlacedAllocs: 0, DesiredCanaries: 0 },
    },
  ])("$test: places $place.length, updates $inplace.length in place, stops $stop.length", ({ count, existing, version, update, place, inplace: kept, stop, deployment }) => {
    const job = mockJob(count, version, update);
    const results = reconcile({ job, allocUpdate: inplace, allocs: mockAllocs(existing), deployment: undefined, taintedNodes: new Map(), evaluation: { ID: "eval-1", Priority: 50 }, nowNs: 0n });
    expect(indexes(results.place.map((each) => each.name))).toEqual(place);
    expect(indexes(results.inplaceUpdate.map((alloc) => alloc.Name))).toEqual(kept);
    expect(indexes(results.stop.map((each) => each.alloc.Name))).toEqual(stop);
    expect(results.destructive).toEqual([]);
    if (deployment === undefined) expect(results.deployment).toBeUndefined();
    else expect(results.deployment).toMatchObject({ JobVersion: version, Status: "running", TaskGroups: { web: deployment } });
  });
});

describe("genericAllocUpdate on the agent's job versions", () => {
  const node = (datacenter = "dc1", pool = "default") => ({ ID: "node-0", Datacenter: datacenter, NodePool: pool }) as Node;
  const decide = (older: Job, newer: Job, alloc: Allocation, at: Node | undefined) =>
    genericAllocUpdate({ jobAt: (version) => (version === older.Version ? older : undefined), node: () => at, evalId: "eval-1" })(alloc, newer, newer.TaskGroups[0]!);
  const [running] = mockAllocs(1);

  it.each([
    { name: "an allocation of the job's version is ignored", older: mockJob(2), newer: mockJob(2), alloc: running!, at: node(), kind: "ignore" },
    { name: "a new count is in place", older: mockJob(2), newer: mockJob(4, 1), alloc: running!, at: node(), kind: "inplace" },
    { name: "a new task config is destructive", older: mockJob(2), newer: mockJob(2, 1, null, "/bin/other"), alloc: running!, at: node(), kind: "destructive" },
    { name: "a finished allocation of a change in place is ignored", older: mockJob(2), newer: mockJob(4, 1), alloc: { ...running!, ClientStatus: "complete" as const }, at: node(), kind: "ignore" },
    { name: "a pruned version is destructive", older: mockJob(2, 7), newer: mockJob(4, 9), alloc: { ...running!, JobVersion: 8 }, at: node(), kind: "destructive" },
    { name: "a node that is gone is destructive", older: mockJob(2), newer: mockJob(4, 1), alloc: running!, at: undefined, kind: "destructive" },
    { name: "a node outside the job's datacenters is destructive", older: mockJob(2), newer: mockJob(4, 1), alloc: running!, at: node("dc2"), kind: "destructive" },
    { name: "a node outside the job's pool is destructive", older: mockJob(2), newer: mockJob(4, 1), alloc: running!, at: node("dc1", "gpu"), kind: "destructive" },
  ])("$name", ({ older, newer, alloc, at, kind }) => {
    expect(decide(older, newer, alloc, at).kind).toBe(kind);
  });

  it("updates in place the same allocation, at the new version, naming the evaluation", () => {
    const update = decide(mockJob(2), mockJob(4, 1), running!, node());
    expect(update).toEqual({ kind: "inplace", alloc: { ...running!, EvalID: "eval-1", JobVersion: 1 } });
  });
});
