/**
 * The reference's `reconcile_cluster_test.go`, second part: deployments (cancelled, created,
 * paused or failed, complete), canaries and their promotion, and the deployment's limit on
 * replacements, ported as `cases-1.ts` says. Where the Go test's `allocUpdateFnMock` tells some
 * allocations apart (ignored: the deployment's own; destructive: the others), the deployment's
 * allocations are of the job's version and the others of the version before.
 */
import { expect } from "vitest";
import { reconcile } from "../../src/server/scheduler/reconciler.js";
import { DEPLOYMENT_DESCRIPTIONS } from "../../src/server/scheduler/state.js";
import type { Allocation, Deployment, Job } from "../../src/server/state/model.js";
import { expectResults, indexesOf, intRange, namesOf } from "./expect-results.js";
import { CANARY_UPDATE, deploymentStatus, downNodes, groupState, mockAlloc, mockAllocs, mockDeployment, mockJob, NO_CANARY_UPDATE, nextVersion, reconcileInputOf, UPDATE_INPLACE, withGroup } from "./mock.js";
import type { GoTests } from "./reconcile-cluster-ported.js";

/** Runs the reconciler on the test's state. */
function compute(fields: Parameters<typeof reconcileInputOf>[0]) {
  const input = reconcileInputOf(fields);
  return { input, results: reconcile(input) };
}

/** A job with an update block on its group `web` (and `count` allocations wanted), at version 0 and the version after it. */
function versions(update: typeof CANARY_UPDATE, count = 10): { old: Job; job: Job } {
  const old = withGroup(mockJob(), { Count: count, Update: update });
  return { old, job: nextVersion(old) };
}

/** Allocations of `job` named `from` to `to` − 1 in group `group`, each changed by `change`. */
function named(job: Job, from: number, to: number, change: (index: number) => Partial<Allocation> = () => ({}), group = "web"): Allocation[] {
  return Array.from({ length: to - from }, (_, i) => mockAlloc(job, from + i, change(from + i), group));
}

/** The deployment with the group states given. */
function withStates(deployment: Deployment, states: Record<string, Parameters<typeof groupState>[0]>): Deployment {
  return { ...deployment, TaskGroups: Object.fromEntries(Object.entries(states).map(([group, fields]) => [group, groupState(fields)])) };
}

const healthy = (deployment: Deployment, canary = false) => ({ DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(true, canary) });

/** The tests of the second part, by the name of the Go test each ports. */
export const TESTS_2: GoTests = {
  TestReconciler_CancelDeployment_JobStop() {
    // The Go test's two cases with a nil job have no counterpart: our reconciler is given a job.
    for (const status of ["running", "failed"]) {
      const job = mockJob({ Stop: true });
      const deployment = mockDeployment(job, { Status: status });
      const { input, results } = compute({ job, allocs: mockAllocs(job, 10), deployment });
      const updates = status === "running" ? [{ DeploymentID: deployment.ID, Status: "cancelled", StatusDescription: DEPLOYMENT_DESCRIPTIONS.stoppedJob }] : [];
      expectResults(input, results, { deploymentUpdates: updates, stop: 10, desiredTGUpdates: { web: { Stop: 10 } } });
      expect(indexesOf(namesOf(results).stop)).toEqual(intRange(0, 9));
    }
  },

  TestReconciler_CancelDeployment_JobUpdate() {
    for (const status of ["running", "failed"]) {
      const old = mockJob();
      const deployment = mockDeployment(old, { Status: status });
      const job = { ...old, Version: old.Version + 10 };
      // The allocations need no change: of the job's version.
      const { input, results } = compute({ job, allocs: mockAllocs(job, 10), deployment });
      const updates = status === "running" ? [{ DeploymentID: deployment.ID, Status: "cancelled", StatusDescription: DEPLOYMENT_DESCRIPTIONS.newerJob }] : [];
      expectResults(input, results, { deploymentUpdates: updates, desiredTGUpdates: { web: { Ignore: 10 } } });
    }
  },

  TestReconciler_CreateDeployment_RollingUpgrade_Destructive() {
    const { old, job } = versions(NO_CANARY_UPDATE);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10) });
    expectResults(input, results, {
      createDeployment: { JobVersion: job.Version, Status: "running", StatusDescription: DEPLOYMENT_DESCRIPTIONS.running, TaskGroups: { web: { DesiredTotal: 10, DesiredCanaries: 0, Promoted: false } } },
      destructive: 4,
      desiredTGUpdates: { web: { DestructiveUpdate: 4, Ignore: 6 } },
    });
    expect(indexesOf(namesOf(results).destructive)).toEqual(intRange(0, 3));
  },

  TestReconciler_CreateDeployment_RollingUpgrade_Inplace() {
    const { old, job } = versions(NO_CANARY_UPDATE);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10), allocUpdate: UPDATE_INPLACE });
    expectResults(input, results, { createDeployment: { TaskGroups: { web: { DesiredTotal: 10 } } }, inplace: 10, desiredTGUpdates: { web: { InPlaceUpdate: 10 } } });
  },

  TestReconciler_CreateDeployment_NewerCreateIndex() {
    // The allocations are of an earlier job of the same ID and version (its CreateIndex 100 lower), needing no change.
    const old = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const job = { ...old, CreateIndex: old.CreateIndex + 100 };
    const { input, results } = compute({ job, allocs: mockAllocs(old, 5) });
    expectResults(input, results, { createDeployment: { TaskGroups: { web: { DesiredTotal: 5 } } }, place: 5, desiredTGUpdates: { web: { Ignore: 5, Place: 5 } } });
  },

  TestReconciler_DontCreateDeployment_NoChanges() {
    const job = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const { input, results } = compute({ job, allocs: mockAllocs(job, 10) });
    expectResults(input, results, { desiredTGUpdates: { web: { Ignore: 10 } } });
  },

  TestReconciler_PausedOrFailedDeployment_NoMoreCanaries() {
    for (const [status, stop] of [["paused", 0], ["failed", 1]] as const) {
      const { old, job } = versions(CANARY_UPDATE);
      const deployment = mockDeployment(job, { Status: status });
      const canary = mockAlloc(job, 0, { DeploymentID: deployment.ID });
      const withState = withStates(deployment, { web: { DesiredCanaries: 2, DesiredTotal: 10, PlacedAllocs: 1, PlacedCanaries: [canary.ID] } });
      const { input, results } = compute({ job, allocs: [...mockAllocs(old, 10), canary], deployment: withState });
      expectResults(input, results, { stop, desiredTGUpdates: { web: { Ignore: 11 - stop, Stop: stop } } });
    }
  },

  TestReconciler_PausedOrFailedDeployment_NoMorePlacements() {
    for (const status of ["paused", "failed"]) {
      const job = withGroup(mockJob(), { Update: NO_CANARY_UPDATE, Count: 15 });
      const deployment = withStates(mockDeployment(job, { Status: status }), { web: { DesiredTotal: 15, PlacedAllocs: 10 } });
      const { input, results } = compute({ job, allocs: mockAllocs(job, 10), deployment });
      expectResults(input, results, { desiredTGUpdates: { web: { Ignore: 10 } } });
    }
  },

  TestReconciler_PausedOrFailedDeployment_NoMoreDestructiveUpdates() {
    for (const status of ["paused", "failed"]) {
      const { old, job } = versions(NO_CANARY_UPDATE);
      const deployment = withStates(mockDeployment(job, { Status: status }), { web: { DesiredTotal: 10, PlacedAllocs: 1 } });
      const placed = mockAlloc(job, 0, { DeploymentID: deployment.ID });
      const { input, results } = compute({ job, allocs: [...named(old, 1, 10), placed], deployment });
      expectResults(input, results, { desiredTGUpdates: { web: { Ignore: 10 } } });
    }
  },

  TestReconciler_LostNode_Canary() {
    const { old, job } = versions(CANARY_UPDATE);
    const deployment = mockDeployment(job);
    const canaries = mockAllocs(job, 2, () => ({ DeploymentID: deployment.ID }));
    const withState = withStates(deployment, { web: { DesiredTotal: 10, DesiredCanaries: 2, PlacedAllocs: 2, PlacedCanaries: canaries.map((each) => each.ID) } });
    const { input, results } = compute({ job, allocs: [...mockAllocs(old, 10), ...canaries], deployment: withState, tainted: downNodes([canaries[1]!]) });
    expectResults(input, results, { place: 1, stop: 1, desiredTGUpdates: { web: { Canary: 1, Ignore: 11 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([1]);
    expect(indexesOf(namesOf(results).place)).toEqual([1]);
  },

  TestReconciler_StopOldCanaries() {
    const { old } = versions(CANARY_UPDATE);
    const deployment = mockDeployment(old);
    const job = { ...old, Version: old.Version + 10 };
    // The canaries of the old deployment are of the job (the Go test gives them the job after its change), the rest to replace.
    const canaries = mockAllocs(job, 2, () => ({ DeploymentID: deployment.ID }));
    const withState = withStates(deployment, { web: { DesiredTotal: 10, DesiredCanaries: 2, PlacedAllocs: 2, PlacedCanaries: canaries.map((each) => each.ID) } });
    const { input, results } = compute({ job, allocs: [...mockAllocs(old, 10), ...canaries], deployment: withState });
    expectResults(input, results, {
      createDeployment: { JobVersion: job.Version, StatusDescription: DEPLOYMENT_DESCRIPTIONS.needsPromotion, TaskGroups: { web: { DesiredCanaries: 2, DesiredTotal: 10 } } },
      deploymentUpdates: [{ DeploymentID: deployment.ID, Status: "cancelled", StatusDescription: DEPLOYMENT_DESCRIPTIONS.newerJob }],
      place: 2,
      stop: 2,
      desiredTGUpdates: { web: { Canary: 2, Stop: 2, Ignore: 10 } },
    });
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
  },

  TestReconciler_NewCanaries() {
    const { old, job } = versions(CANARY_UPDATE);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10) });
    expectResults(input, results, {
      createDeployment: { StatusDescription: DEPLOYMENT_DESCRIPTIONS.needsPromotion, TaskGroups: { web: { DesiredCanaries: 2, DesiredTotal: 10 } } },
      place: 2,
      desiredTGUpdates: { web: { Canary: 2, Ignore: 10 } },
    });
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
  },

  TestReconciler_NewCanaries_CountGreater() {
    // Seven canaries for a count of 3: three placed (the reference then reports Place 3 besides Canary 7, which our results cannot tell apart).
    const { old, job } = versions({ ...CANARY_UPDATE, Canary: 7 }, 3);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 3) });
    expectResults(input, results, { createDeployment: { StatusDescription: DEPLOYMENT_DESCRIPTIONS.needsPromotion, TaskGroups: { web: { DesiredCanaries: 7, DesiredTotal: 3 } } }, place: 3 });
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1, 2]);
  },

  TestReconciler_NewCanaries_MultiTG() {
    const base = versions(CANARY_UPDATE);
    const twoGroups = (job: Job): Job => ({ ...job, TaskGroups: [{ ...job.TaskGroups[0]!, Name: "tg2" }, job.TaskGroups[0]!] });
    const old = twoGroups(base.old);
    const job = twoGroups(base.job);
    const { input, results } = compute({ job, allocs: [...mockAllocs(old, 10, () => ({}), "tg2"), ...mockAllocs(old, 10, () => ({}), "web")] });
    expectResults(input, results, {
      createDeployment: { StatusDescription: DEPLOYMENT_DESCRIPTIONS.needsPromotion, TaskGroups: { tg2: { DesiredCanaries: 2, DesiredTotal: 10 }, web: { DesiredCanaries: 2, DesiredTotal: 10 } } },
      place: 4,
      desiredTGUpdates: { tg2: { Canary: 2, Ignore: 10 }, web: { Canary: 2, Ignore: 10 } },
    });
    expect(indexesOf(namesOf(results).place)).toEqual([0, 0, 1, 1]);
  },

  TestReconciler_NewCanaries_ScaleUp() {
    const { old, job } = versions(CANARY_UPDATE, 15);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10) });
    expectResults(input, results, {
      createDeployment: { StatusDescription: DEPLOYMENT_DESCRIPTIONS.needsPromotion, TaskGroups: { web: { DesiredCanaries: 2, DesiredTotal: 15 } } },
      place: 2,
      desiredTGUpdates: { web: { Canary: 2, Ignore: 10 } },
    });
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
  },

  TestReconciler_NewCanaries_ScaleDown() {
    const { old, job } = versions(CANARY_UPDATE, 5);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10) });
    expectResults(input, results, {
      createDeployment: { StatusDescription: DEPLOYMENT_DESCRIPTIONS.needsPromotion, TaskGroups: { web: { DesiredCanaries: 2, DesiredTotal: 5 } } },
      place: 2,
      stop: 5,
      desiredTGUpdates: { web: { Canary: 2, Stop: 5, Ignore: 5 } },
    });
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(5, 9));
  },

  TestReconciler_NewCanaries_FillNames() {
    const { old, job } = versions({ ...CANARY_UPDATE, Canary: 4, Stagger: 0 });
    const deployment = mockDeployment(job);
    // Canaries 0 and 3 are placed; 1 and 2 are missing.
    const canaries = [mockAlloc(job, 0, { DeploymentID: deployment.ID }), mockAlloc(job, 3, { DeploymentID: deployment.ID })];
    const withState = withStates(deployment, { web: { DesiredTotal: 10, DesiredCanaries: 4, PlacedAllocs: 2, PlacedCanaries: canaries.map((each) => each.ID) } });
    const { input, results } = compute({ job, allocs: [...mockAllocs(old, 10), ...canaries], deployment: withState });
    expectResults(input, results, { place: 2, desiredTGUpdates: { web: { Canary: 2, Ignore: 12 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([1, 2]);
  },

  TestReconciler_PromoteCanaries_Unblock() {
    const { old, job } = versions(CANARY_UPDATE);
    const deployment = mockDeployment(job);
    const canaries = mockAllocs(job, 2, () => healthy(deployment));
    const withState = withStates(deployment, { web: { Promoted: true, DesiredTotal: 10, DesiredCanaries: 2, PlacedAllocs: 2, PlacedCanaries: canaries.map((each) => each.ID) } });
    const { input, results } = compute({ job, allocs: [...mockAllocs(old, 10), ...canaries], deployment: withState });
    expectResults(input, results, { destructive: 2, stop: 2, desiredTGUpdates: { web: { Stop: 2, DestructiveUpdate: 2, Ignore: 8 } } });
    const canaryIds = new Set(canaries.map((each) => each.ID));
    expect(results.stop.filter(({ alloc }) => canaryIds.has(alloc.ID))).toEqual([]);
    expect(indexesOf(namesOf(results).destructive)).toEqual([2, 3]);
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
  },

  TestReconciler_PromoteCanaries_CanariesEqualCount() {
    const { old, job } = versions(CANARY_UPDATE, 2);
    const deployment = mockDeployment(job);
    const canaries = mockAllocs(job, 2, () => healthy(deployment));
    const withState = withStates(deployment, { web: { Promoted: true, DesiredTotal: 2, DesiredCanaries: 2, PlacedAllocs: 2, HealthyAllocs: 2, PlacedCanaries: canaries.map((each) => each.ID) } });
    const { input, results } = compute({ job, allocs: [...mockAllocs(old, 2), ...canaries], deployment: withState });
    expectResults(input, results, {
      deploymentUpdates: [{ DeploymentID: deployment.ID, Status: "successful", StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful }],
      stop: 2,
      desiredTGUpdates: { web: { Stop: 2, Ignore: 2 } },
    });
    const canaryIds = new Set(canaries.map((each) => each.ID));
    expect(results.stop.filter(({ alloc }) => canaryIds.has(alloc.ID))).toEqual([]);
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
  },

  TestReconciler_DeploymentLimit_HealthAccounting() {
    for (const healthyCount of [0, 1, 2, 3, 4]) {
      const { old, job } = versions(NO_CANARY_UPDATE);
      const deployment = mockDeployment(job);
      const withState = withStates(deployment, { web: { Promoted: true, DesiredTotal: 10, PlacedAllocs: 4 } });
      const placed = named(job, 0, 4, (i) => (i < healthyCount ? healthy(deployment) : { DeploymentID: deployment.ID }));
      const { input, results } = compute({ job, allocs: [...named(old, 4, 10), ...placed], deployment: withState });
      expectResults(input, results, { destructive: healthyCount, desiredTGUpdates: { web: { DestructiveUpdate: healthyCount, Ignore: 10 - healthyCount } } });
      expect(indexesOf(namesOf(results).destructive)).toEqual(intRange(4, 3 + healthyCount));
    }
  },

  TestReconciler_CompleteDeployment() {
    const job = withGroup(mockJob(), { Update: CANARY_UPDATE });
    const deployment = mockDeployment(job, { Status: "successful" });
    const withState = withStates(deployment, { web: { Promoted: true, DesiredTotal: 10, DesiredCanaries: 2, PlacedAllocs: 10, HealthyAllocs: 10 } });
    const { input, results } = compute({ job, allocs: mockAllocs(job, 10, () => healthy(deployment)), deployment: withState });
    expectResults(input, results, { desiredTGUpdates: { web: { Ignore: 10 } } });
  },

  TestReconciler_MarkDeploymentComplete_FailedAllocations() {
    const job = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const deployment = mockDeployment(job);
    const withState = withStates(deployment, { web: { DesiredTotal: 10, PlacedAllocs: 20, HealthyAllocs: 10 } });
    const allocs = mockAllocs(job, 20, (i) =>
      i < 10
        ? { ClientStatus: "running", DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(true) }
        : { DesiredStatus: "stop", ClientStatus: "failed", DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(false) },
    ).map((alloc, i) => ({ ...alloc, Name: `${job.ID}.web[${i % 10}]` }));
    const { input, results } = compute({ job, allocs, deployment: withState });
    expectResults(input, results, {
      deploymentUpdates: [{ DeploymentID: deployment.ID, Status: "successful", StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful }],
      desiredTGUpdates: { web: { Ignore: 10 } },
    });
  },

  TestReconciler_FailedDeployment_CancelCanaries() {
    const base = versions(CANARY_UPDATE);
    const twoGroups = (job: Job): Job => ({ ...job, TaskGroups: [job.TaskGroups[0]!, { ...job.TaskGroups[0]!, Name: "two" }] });
    const old = twoGroups(base.old);
    const job = twoGroups(base.job);
    const deployment = mockDeployment(job, { Status: "failed" });
    // Group web: promoted, 4 replaced (2 of them canaries); group two: not promoted, its 2 canaries placed.
    const webNew = named(job, 0, 4, () => healthy(deployment), "web");
    const twoNew = named(job, 0, 2, () => healthy(deployment), "two");
    const withState = withStates(deployment, {
      web: { Promoted: true, DesiredTotal: 10, DesiredCanaries: 2, PlacedAllocs: 4, PlacedCanaries: webNew.slice(0, 2).map((each) => each.ID) },
      two: { Promoted: false, DesiredTotal: 10, DesiredCanaries: 2, PlacedAllocs: 2, PlacedCanaries: twoNew.map((each) => each.ID) },
    });
    const allocs = [...webNew, ...named(old, 4, 10, () => ({}), "web"), ...twoNew, ...named(old, 2, 10, () => ({}), "two")];
    const { input, results } = compute({ job, allocs, deployment: withState });
    expectResults(input, results, { stop: 2, desiredTGUpdates: { web: { Ignore: 10 }, two: { Stop: 2, Ignore: 8 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
  },

  TestReconciler_FailedDeployment_NewJob() {
    const old = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const deployment = withStates(mockDeployment(old, { Status: "failed" }), { web: { Promoted: true, DesiredTotal: 10, PlacedAllocs: 4 } });
    const allocs = [...named(old, 4, 10), ...named(old, 0, 4, () => healthy(deployment))];
    const job = { ...old, Version: old.Version + 100 };
    const { input, results } = compute({ job, allocs, deployment });
    expectResults(input, results, { createDeployment: { JobVersion: job.Version, TaskGroups: { web: { DesiredTotal: 10 } } }, destructive: 4, desiredTGUpdates: { web: { DestructiveUpdate: 4, Ignore: 6 } } });
    expect(indexesOf(namesOf(results).destructive)).toEqual(intRange(0, 3));
  },

  TestReconciler_MarkDeploymentComplete() {
    const job = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const deployment = mockDeployment(job);
    const withState = withStates(deployment, { web: { Promoted: true, DesiredTotal: 10, PlacedAllocs: 10, HealthyAllocs: 10 } });
    const { input, results } = compute({ job, allocs: mockAllocs(job, 10, () => healthy(deployment)), deployment: withState });
    expectResults(input, results, {
      deploymentUpdates: [{ DeploymentID: deployment.ID, Status: "successful", StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful }],
      desiredTGUpdates: { web: { Ignore: 10 } },
    });
  },
};
