/**
 * The properties of the reference's `scheduler/reconciler/reconcile_cluster_prop_test.go`, as
 * fast-check properties of our `reconcile()` (inputs drawn by `arbitraries.ts`, per-group counts
 * computed by `expect-results.ts` as the reference's `DesiredTGUpdates`). Their fates are in
 * `reconcile-cluster-ported.ts` (`PROP_FATES`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reconcile, type ReconcileInput, type ReconcileResults } from "../../src/server/scheduler/reconciler.js";
import { isTerminal } from "../../src/server/scheduler/state.js";
import { reconcileInputArbitrary } from "./arbitraries.js";
import { desiredUpdates } from "./expect-results.js";
import { PROP_FATES, PROP_TEST_FUNCTIONS } from "./reconcile-cluster-ported.js";

/** As many runs as rapid's default check (100), each input small. */
const RUNS = 100;

const CLIENT_TERMINAL = new Set(["complete", "failed", "lost"]);

/** `collectExpected`: what each group wants and has, by the counts the properties compare with. */
function collectExpected(input: ReconcileInput): Map<string, { expectCount: number; maxCanaries: number; existTotal: number; existCanary: number; existNonClientTerminal: number }> {
  const groups = new Map<string, { expectCount: number; maxCanaries: number; existTotal: number; existCanary: number; existNonClientTerminal: number }>();
  for (const group of input.job.TaskGroups) {
    const update = group.Update as { Canary?: number } | null | undefined;
    groups.set(group.Name, { expectCount: group.Count, maxCanaries: update?.Canary ?? 0, existTotal: 0, existCanary: 0, existNonClientTerminal: 0 });
  }
  for (const alloc of input.allocs) {
    let counts = groups.get(alloc.TaskGroup);
    if (counts === undefined) groups.set(alloc.TaskGroup, (counts = { expectCount: 0, maxCanaries: 0, existTotal: 0, existCanary: 0, existNonClientTerminal: 0 }));
    counts.existTotal++;
    if (alloc.DeploymentStatus?.Canary === true) counts.existCanary++;
    if (!CLIENT_TERMINAL.has(alloc.ClientStatus)) counts.existNonClientTerminal++;
  }
  return groups;
}

/** `sharedSafetyProperties`: what never happens, whatever the job, its allocations and deployment. */
function checkSafety(input: ReconcileInput, results: ReconcileResults): void {
  const { job } = input;
  const current = input.deployment !== undefined && input.deployment.JobVersion === job.Version && input.deployment.JobCreateIndex === job.CreateIndex ? input.deployment : undefined;
  if (job.Stop && current !== undefined) {
    expect(results.deployment, "a stopped job with a current deployment makes no new deployment").toBeUndefined();
    // (The reference checks its Stop list is not nil; ours is always a list: every allocation still running is stopped.)
    const stopped = new Set(results.stop.map(({ alloc }) => alloc.ID));
    expect(input.allocs.filter((alloc) => !isTerminal(alloc) && !stopped.has(alloc.ID)), "a stopped job's allocations are all stopped").toEqual([]);
  }
  if (current?.Status === "failed") expect(results.deployment, "a failed deployment makes no new deployment").toBeUndefined();
  if (input.deployment === undefined && input.allocs.length === 0) {
    const total = job.TaskGroups.reduce((sum, group) => sum + group.Count, 0);
    expect(results.place.length, "a new job places at most its groups' counts").toBeLessThanOrEqual(total);
  }
  const updates = desiredUpdates(input, results);
  for (const [name, counts] of collectExpected(input)) {
    const group = updates[name]!;
    const context = `${name} ${JSON.stringify(counts)} => ${JSON.stringify(group)}`;
    if (counts.expectCount === 0 || job.Stop) {
      expect({ Place: group.Place, Canary: group.Canary, DestructiveUpdate: group.DestructiveUpdate, Migrate: group.Migrate, RescheduleLater: group.RescheduleLater }, `nothing placed or replaced on stop or scale to zero: ${context}`).toEqual({
        Place: 0,
        Canary: 0,
        DestructiveUpdate: 0,
        Migrate: 0,
        RescheduleLater: 0,
      });
      continue;
    }
    expect(group.Place, `placements never exceed the count: ${context}`).toBeLessThanOrEqual(counts.expectCount);
    expect(group.Canary, `canaries never exceed those wanted: ${context}`).toBeLessThanOrEqual(counts.maxCanaries);
    expect(group.Canary + counts.existCanary, `canaries and existing canaries never exceed those wanted: ${context}`).toBeLessThanOrEqual(counts.maxCanaries);
    expect(group.DestructiveUpdate, `destructive updates never exceed the count: ${context}`).toBeLessThanOrEqual(counts.expectCount);
    expect(group.Canary + group.Place + group.DestructiveUpdate, `placements, canaries and replacements never exceed the count and canaries: ${context}`).toBeLessThanOrEqual(counts.expectCount + counts.maxCanaries);
    expect(group.InPlaceUpdate, `in-place updates never exceed the allocations: ${context}`).toBeLessThanOrEqual(counts.existTotal);
    expect(group.DestructiveUpdate, `destructive updates never exceed the allocations: ${context}`).toBeLessThanOrEqual(counts.existTotal);
    expect(group.Migrate, `migrations never exceed the allocations: ${context}`).toBeLessThanOrEqual(counts.existTotal);
    expect(group.Ignore, `allocations ignored never exceed the allocations: ${context}`).toBeLessThanOrEqual(counts.existTotal);
    expect(group.Stop, `migrated allocations are stopped: ${context}`).toBeGreaterThanOrEqual(group.Migrate);
    expect(group.Ignore, `allocations to reschedule later are kept: ${context}`).toBeGreaterThanOrEqual(group.RescheduleLater);
  }
}

/**
 * `TestAllocReconciler_cancelUnneededCanaries`, through `reconcile()` (the reference calls its
 * method directly; ours is not exported): the unpromoted canaries of an older deployment, and of
 * the current one once it failed, are stopped when they still run.
 */
function checkUnneededCanariesStopped(input: ReconcileInput, results: ReconcileResults): void {
  const { job, deployment } = input;
  if (deployment === undefined) return;
  const current = deployment.JobVersion === job.Version && deployment.JobCreateIndex === job.CreateIndex && !job.Stop;
  if (current && deployment.Status !== "failed") return;
  const unneeded = new Set(Object.values(deployment.TaskGroups).flatMap((group) => (group.Promoted ? [] : (group.PlacedCanaries ?? []))));
  const stopped = new Set(results.stop.map(({ alloc }) => alloc.ID));
  const wanted = new Map(job.TaskGroups.map((group) => [group.Name, group.Count]));
  const left = input.allocs.filter((alloc) => unneeded.has(alloc.ID) && alloc.DesiredStatus === "run" && !CLIENT_TERMINAL.has(alloc.ClientStatus) && (wanted.get(alloc.TaskGroup) ?? 0) > 0 && !stopped.has(alloc.ID));
  expect(left, "unneeded canaries still running are stopped").toEqual([]);
}

describe("reconcile_cluster_prop_test.go, as fast-check properties", () => {
  it("gives every test function of the Go file a fate", () => {
    expect(Object.keys(PROP_FATES)).toEqual([...PROP_TEST_FUNCTIONS]);
  });

  it.each(["batch", "service"] as const)("TestAllocReconciler_PropTest: %s jobs keep the reference's safety properties", (type) => {
    fc.assert(
      fc.property(reconcileInputArbitrary(type), (input) => {
        checkSafety(input, reconcile(input));
      }),
      { numRuns: RUNS },
    );
  });

  it("TestAllocReconciler_cancelUnneededCanaries: unneeded canaries are stopped", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("batch" as const, "service" as const).chain((type) => reconcileInputArbitrary(type)),
        (input) => {
          checkUnneededCanariesStopped(input, reconcile(input));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it.skip("TestAllocReconciler_ReconnectingProps (skipped: disconnected clients)", () => {});
});
