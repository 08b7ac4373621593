/**
 * The reference's `reconcile_cluster_test.go`, third part: draining nodes and migrations (a gap
 * of ours), the rest of the deployment tests, rescheduling within and after deployments, forced
 * and disabled rescheduling, batch re-runs and scaling down past finished allocations; ported as
 * `cases-1.ts` says.
 */
import { expect } from "vitest";
import { reconcile } from "../../src/server/scheduler/reconciler.js";
import { DEPLOYMENT_DESCRIPTIONS } from "../../src/server/scheduler/state.js";
import type { Allocation, DesiredTransition, Deployment, Job, Node, TaskRun } from "../../src/server/state/model.js";
import { expectResults, indexesOf, intRange, namesOf } from "./expect-results.js";
import { deploymentStatus, groupState, mockAlloc, mockAllocs, mockBatchJob, mockDeployment, mockJob, mockNode, NO_CANARY_UPDATE, CANARY_UPDATE, nextVersion, NOW_MS, reconcileInputOf, withGroup } from "./mock.js";
import type { GoTests } from "./reconcile-cluster-ported.js";

const SECOND_MS = 1000;
const HOUR_MS = 3600 * SECOND_MS;
const SECOND_NS = 1_000_000_000;
const HOUR_NS = 3600 * SECOND_NS;

/** Runs the reconciler on the test's state. */
function compute(fields: Parameters<typeof reconcileInputOf>[0]) {
  const input = reconcileInputOf(fields);
  return { input, results: reconcile(input) };
}

/** A desired transition with the fields given set (`structs.DesiredTransition`). */
function transition(fields: Partial<DesiredTransition>): DesiredTransition {
  return { Migrate: null, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null, ...fields };
}

/** Tasks that ran for an hour and ended at `finishedMs`. */
function ranUntil(finishedMs: number): TaskRun {
  return { Tasks: ["web"], StartedAt: finishedMs - HOUR_MS, FinishedAt: finishedMs, ExitCode: 1 };
}

/** A reschedule tracker of events `agoMs` before now. */
function trackerOf(...agoMs: number[]): NonNullable<Allocation["RescheduleTracker"]> {
  return { Events: agoMs.map((ago) => ({ RescheduleTime: BigInt(NOW_MS - ago) * 1_000_000n, PrevAllocID: "prev", PrevNodeID: "node", Delay: 5 * SECOND_NS })), LastReschedule: "ok" };
}

/** Sets fields of one allocation. */
function change(allocs: Allocation[], index: number, fields: Partial<Allocation>): void {
  allocs[index] = { ...allocs[index]!, ...fields };
}

/** The first `count` allocations marked to migrate, and their nodes draining (`mock.DrainNode()`). */
function drain(allocs: Allocation[], count: number): Map<string, Node> {
  const tainted = new Map<string, Node>();
  for (let i = 0; i < count; i++) {
    change(allocs, i, { DesiredTransition: transition({ Migrate: true }) });
    tainted.set(allocs[i]!.NodeID, mockNode(allocs[i]!.NodeID, "ready", { Drain: true, SchedulingEligibility: "ineligible" }));
  }
  return tainted;
}

/** The deployment with the group states given. */
function withStates(deployment: Deployment, states: Record<string, Parameters<typeof groupState>[0]>): Deployment {
  return { ...deployment, TaskGroups: Object.fromEntries(Object.entries(states).map(([group, fields]) => [group, groupState(fields)])) };
}

/** Allocations of `job` named `from` to `to` − 1, each changed by `change`. */
function named(job: Job, from: number, to: number, fields: (index: number) => Partial<Allocation> = () => ({})): Allocation[] {
  return Array.from({ length: to - from }, (_, i) => mockAlloc(job, from + i, fields(from + i)));
}

/** The placements that replace a previous allocation, and those that reschedule one. */
function previousAndRescheduled(results: ReturnType<typeof reconcile>): { previous: number; rescheduled: number } {
  return { previous: results.place.filter((each) => each.previous !== undefined).length, rescheduled: results.place.filter((each) => each.previous !== undefined && each.reschedule).length };
}

/** The tests of the third part, by the name of the Go test each ports. */
export const TESTS_3: GoTests = {
  TestReconciler_DrainNode() {
    const job = mockJob();
    const allocs = mockAllocs(job, 10);
    const tainted = drain(allocs, 2);
    const { input, results } = compute({ job, allocs, tainted });
    expectResults(input, results, { place: 2, stop: 2, desiredTGUpdates: { web: { Migrate: 2, Ignore: 8 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
    expect(previousAndRescheduled(results)).toEqual({ previous: 2, rescheduled: 0 });
  },

  TestReconciler_MigrateBatchAllocs() {
    const job = mockBatchJob();
    const allocs = mockAllocs(job, 10, (i) => (i < 2 ? { DesiredTransition: transition({ Migrate: true }) } : {}));
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 2, stop: 2, desiredTGUpdates: { web: { Migrate: 2, Ignore: 8 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
  },

  TestReconciler_MigrateDisablePlacementBatchAllocs() {
    const job = mockBatchJob();
    const allocs = mockAllocs(job, 10, (i) => (i < 2 ? { DesiredTransition: transition({ Migrate: true, MigrateDisablePlacement: true }) } : {}));
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { stop: 2, desiredTGUpdates: { web: { Migrate: 2, Ignore: 8 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
  },

  TestReconciler_MigrateDisablePlacementBatchAllocs_StillRunningAfterStop() {
    const job = mockBatchJob();
    const allocs = mockAllocs(job, 10, (i) => (i < 2 ? { ClientStatus: "running", DesiredStatus: "stop", DesiredTransition: transition({ Migrate: true, MigrateDisablePlacement: true }) } : { ClientStatus: "running" }));
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { desiredTGUpdates: { web: { Ignore: 10 } } });
  },

  TestReconciler_MigrateRescheduleBatchAllocs() {
    // Its four cases: no reschedule policy, attempts 0, reschedule now, reschedule later (the batch allocations stopped with `alloc stop`).
    const cases: { policy: Record<string, unknown> | null; modifyNow: boolean; place: number; followups: number }[] = [
      { policy: null, modifyNow: false, place: 0, followups: 0 },
      { policy: { Attempts: 0 }, modifyNow: false, place: 0, followups: 0 },
      { policy: {}, modifyNow: false, place: 2, followups: 0 },
      { policy: {}, modifyNow: true, place: 0, followups: 1 },
    ];
    for (const { policy, modifyNow, place } of cases) {
      const base = mockBatchJob();
      const group = base.TaskGroups[0]!;
      const job = withGroup(base, { ReschedulePolicy: policy === null ? { Attempts: 0, Interval: 0, Delay: 0, DelayFunction: "", MaxDelay: 0, Unlimited: false } : { ...(group.ReschedulePolicy as object), ...policy } });
      const allocs = mockAllocs(job, 10, (i) => ({ ...(modifyNow ? { ModifyTime: BigInt(NOW_MS) * 1_000_000n } : {}), ...(i < 2 ? { DesiredTransition: transition({ Migrate: true, Reschedule: true }) } : {}) }));
      const { input, results } = compute({ job, allocs });
      expectResults(input, results, { place, stop: 2, desiredTGUpdates: { web: { Migrate: 2, Ignore: 8, Place: place } } });
      expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
    }
  },

  TestReconciler_DrainNode_ScaleUp() {
    const job = withGroup(mockJob(), { Count: 15 });
    const allocs = mockAllocs(job, 10);
    const tainted = drain(allocs, 2);
    const { input, results } = compute({ job, allocs, tainted });
    expectResults(input, results, { place: 7, stop: 2, desiredTGUpdates: { web: { Place: 5, Migrate: 2, Ignore: 8 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(0, 1, 10, 14));
    expect(previousAndRescheduled(results)).toEqual({ previous: 2, rescheduled: 0 });
  },

  TestReconciler_DrainNode_ScaleDown() {
    const job = withGroup(mockJob(), { Count: 8 });
    const allocs = mockAllocs(job, 10);
    const tainted = drain(allocs, 3);
    const { input, results } = compute({ job, allocs, tainted });
    expectResults(input, results, { place: 1, stop: 3, desiredTGUpdates: { web: { Migrate: 1, Stop: 2, Ignore: 7 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1, 2]);
    expect(indexesOf(namesOf(results).place)).toEqual([0]);
    expect(previousAndRescheduled(results)).toEqual({ previous: 1, rescheduled: 0 });
  },

  TestReconciler_DrainNode_Canary() {
    const old = withGroup(mockJob(), { Update: CANARY_UPDATE });
    const job = nextVersion(old);
    const deployment = mockDeployment(job);
    const canaries = mockAllocs(job, 2, () => ({ DeploymentID: deployment.ID }));
    const allocs = [...mockAllocs(old, 10), ...canaries];
    const drainNode = mockNode("drain-node", "ready", { Drain: true, SchedulingEligibility: "ineligible" });
    const moved = allocs.map((alloc, i) => (i >= 10 ? { ...alloc, NodeID: drainNode.ID, DesiredTransition: transition({ Migrate: true }) } : alloc));
    const withState = withStates(deployment, { web: { DesiredTotal: 10, DesiredCanaries: 2, PlacedAllocs: 2, PlacedCanaries: canaries.map((each) => each.ID) } });
    const { input, results } = compute({ job, allocs: moved, deployment: withState, tainted: new Map([[drainNode.ID, drainNode]]) });
    expectResults(input, results, { place: 2, stop: 2, desiredTGUpdates: { web: { Canary: 2, Ignore: 10 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
    // Migrated, not lost: their client still runs them (`StatusAllocMigrating`, the client status left as it is).
    expect(results.stop.map(({ clientStatus, description }) => ({ clientStatus, description }))).toEqual([
      { clientStatus: undefined, description: "alloc is being migrated" },
      { clientStatus: undefined, description: "alloc is being migrated" },
    ]);
  },

  TestReconciler_TaintedNode_RollingUpgrade() {
    const old = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const job = nextVersion(old);
    const deployment = withStates(mockDeployment(job), { web: { Promoted: true, DesiredTotal: 10, PlacedAllocs: 7 } });
    const allocs = [...named(old, 8, 10), ...named(job, 0, 8, () => ({ DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(true) }))];
    // Of the new ones, names 0 to 2: the first's node is down, the other two's drain.
    const tainted = new Map<string, Node>();
    for (let i = 0; i < 3; i++) {
      const alloc = allocs[2 + i]!;
      if (i === 0) tainted.set(alloc.NodeID, mockNode(alloc.NodeID, "down"));
      else {
        change(allocs, 2 + i, { DesiredTransition: transition({ Migrate: true }) });
        tainted.set(alloc.NodeID, mockNode(alloc.NodeID, "ready", { Drain: true }));
      }
    }
    const { input, results } = compute({ job, allocs, deployment, tainted });
    expectResults(input, results, { place: 3, destructive: 2, stop: 3, desiredTGUpdates: { web: { Place: 1, Stop: 1, Migrate: 2, DestructiveUpdate: 2, Ignore: 5 } } });
    expect(indexesOf(namesOf(results).destructive)).toEqual([8, 9]);
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1, 2]);
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1, 2]);
  },

  TestReconciler_FailedDeployment_TaintedNodes() {
    const old = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const job = nextVersion(old);
    const deployment = withStates(mockDeployment(job, { Status: "failed" }), { web: { Promoted: true, DesiredTotal: 10, PlacedAllocs: 4 } });
    const allocs = [...named(old, 4, 10), ...named(job, 0, 4, () => ({ DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(true) }))];
    const tainted = new Map<string, Node>();
    const down = allocs[6]!;
    tainted.set(down.NodeID, mockNode(down.NodeID, "down"));
    change(allocs, 7, { DesiredTransition: transition({ Migrate: true }) });
    tainted.set(allocs[7]!.NodeID, mockNode(allocs[7]!.NodeID, "ready", { Drain: true }));
    const { input, results } = compute({ job, allocs, deployment, tainted });
    expectResults(input, results, { place: 2, stop: 2, desiredTGUpdates: { web: { Place: 1, Migrate: 1, Stop: 1, Ignore: 8 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
    expect(indexesOf(namesOf(results).stop)).toEqual([0, 1]);
  },

  TestReconciler_JobChange_ScaleUp_SecondEval() {
    const old = withGroup(mockJob(), { Update: NO_CANARY_UPDATE, Count: 30 });
    const job = nextVersion(old);
    const deployment = withStates(mockDeployment(job), { web: { DesiredTotal: 30, PlacedAllocs: 20 } });
    const allocs = [...named(old, 0, 10), ...named(job, 10, 30, () => ({ DeploymentID: deployment.ID }))];
    const { input, results } = compute({ job, allocs, deployment });
    expectResults(input, results, { desiredTGUpdates: { web: { Ignore: 30 } } });
  },

  TestReconciler_RollingUpgrade_MissingAllocs() {
    const old = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const job = nextVersion(old);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 7) });
    expectResults(input, results, { createDeployment: { TaskGroups: { web: { DesiredTotal: 10 } } }, place: 3, destructive: 1, desiredTGUpdates: { web: { Place: 3, DestructiveUpdate: 1, Ignore: 6 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([7, 8, 9]);
    expect(indexesOf(namesOf(results).destructive)).toEqual([0]);
  },

  TestReconciler_Batch_Rerun() {
    // The job is registered again (a CreateIndex one higher, the same version): its allocations that ran to completion are an earlier job's.
    const old = mockJob({ Type: "batch" });
    const allocs = mockAllocs(old, 10, (i) => ({ ClientStatus: "complete", DesiredStatus: i % 2 === 0 ? "stop" : "run" }));
    const job = { ...old, CreateIndex: old.CreateIndex + 1 };
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 10, desiredTGUpdates: { web: { Place: 10, Ignore: 10 } } });
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(0, 9));
  },

  TestReconciler_FailedDeployment_DontReschedule() {
    const job = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const deployment = withStates(mockDeployment(job, { Status: "failed" }), { web: { Promoted: true, DesiredTotal: 5, PlacedAllocs: 4 } });
    const allocs = mockAllocs(job, 4, (i) => ({ DeploymentID: deployment.ID, ...(i >= 2 ? { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 10 * SECOND_MS) } : {}) }));
    const { input, results } = compute({ job, allocs, deployment });
    // The reference's Ignore is 2: it leaves out the two failed allocations it would reschedule now but for the failed
    // deployment, which our results do not name; nothing is placed or stopped either way.
    expectResults(input, results, {});
  },

  TestReconciler_DeploymentWithFailedAllocs_DontReschedule() {
    const job = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const deployment = withStates(mockDeployment(job), { web: { DesiredTotal: 10, PlacedAllocs: 10 } });
    const allocs = mockAllocs(job, 10, (i) => ({ DeploymentID: deployment.ID, ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 10 * SECOND_MS), ...(i < 5 ? { DesiredTransition: transition({ Reschedule: true }) } : {}) }));
    const { input, results } = compute({ job, allocs, deployment });
    expectResults(input, results, { place: 5, stop: 5, desiredTGUpdates: { web: { Place: 5, Stop: 5, Ignore: 5 } } });
  },

  TestReconciler_FailedDeployment_AutoRevert_CancelCanaries() {
    // v2's deployment promoted and healthy; v1's three allocations failed and stopped.
    const base = withGroup(mockJob(), { Count: 3, Update: { ...CANARY_UPDATE, Canary: 3 } });
    const v1 = { ...base, Version: 1 };
    const v2 = { ...base, Version: 2 };
    const deployment = withStates(mockDeployment(v2), { web: { Promoted: true, DesiredTotal: 3, PlacedAllocs: 3, HealthyAllocs: 3 } });
    const allocs = [
      ...mockAllocs(v2, 3, () => ({ DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(true), ClientStatus: "running" })),
      ...mockAllocs(v1, 3, () => ({ DeploymentID: "an-earlier-deployment", DeploymentStatus: deploymentStatus(false), DesiredStatus: "stop", ClientStatus: "failed" })),
    ];
    const { input, results } = compute({ job: v2, allocs, deployment });
    expectResults(input, results, {
      deploymentUpdates: [{ DeploymentID: deployment.ID, Status: "successful", StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful }],
      desiredTGUpdates: { web: { Ignore: 3 } },
    });
  },

  TestReconciler_SuccessfulDeploymentWithFailedAllocs_Reschedule() {
    const job = withGroup(mockJob(), { Update: NO_CANARY_UPDATE });
    const deployment = withStates(mockDeployment(job, { Status: "successful" }), { web: { DesiredTotal: 10, PlacedAllocs: 10 } });
    const allocs = mockAllocs(job, 10, () => ({ DeploymentID: deployment.ID, ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 10 * SECOND_MS) }));
    const { input, results } = compute({ job, allocs, deployment });
    expectResults(input, results, { place: 10, stop: 10, desiredTGUpdates: { web: { Place: 10, Stop: 10 } } });
    expect(previousAndRescheduled(results).previous).toBe(10);
  },

  TestReconciler_ForceReschedule_Service() {
    const job = withGroup(mockJob(), { Count: 5, Update: NO_CANARY_UPDATE, ReschedulePolicy: { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, DelayFunction: "", MaxDelay: HOUR_NS, Unlimited: false } });
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    // Its one attempt is used, but a forced reschedule ignores the policy.
    change(allocs, 0, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS), DesiredTransition: transition({ ForceReschedule: true }) });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 1, stop: 1, followupEvals: 0, desiredTGUpdates: { web: { Place: 1, Stop: 1, Ignore: 4 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([0]);
    expect(previousAndRescheduled(results)).toEqual({ previous: 1, rescheduled: 1 });
  },

  TestReconciler_RescheduleNot_Service() {
    const job = withGroup(mockJob(), { Count: 5, Update: NO_CANARY_UPDATE, ReschedulePolicy: { Attempts: 0, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, DelayFunction: "", MaxDelay: HOUR_NS, Unlimited: false } });
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS) });
    change(allocs, 1, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 10 * SECOND_MS) });
    change(allocs, 4, { DesiredStatus: "stop" });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 1, followupEvals: 0, desiredTGUpdates: { web: { Place: 1, Ignore: 4 } } });
    expect(previousAndRescheduled(results)).toEqual({ previous: 0, rescheduled: 0 });
  },

  TestReconciler_RescheduleNot_Batch() {
    const job = withGroup(mockJob({ Type: "batch" }), { Count: 4, ReschedulePolicy: { Attempts: 0, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, DelayFunction: "constant", MaxDelay: 0, Unlimited: false } });
    const allocs = mockAllocs(job, 6, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", NextAllocation: allocs[1]!.ID });
    change(allocs, 1, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS), NextAllocation: allocs[2]!.ID });
    change(allocs, 2, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 5 * SECOND_MS), FollowupEvalID: "another-eval", RescheduleTracker: trackerOf(2 * HOUR_MS, HOUR_MS) });
    change(allocs, 5, { ClientStatus: "complete" });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { followupEvals: 0, desiredTGUpdates: { web: { Ignore: 4 } } });
  },

  TestReconciler_ScaleDown_ClientTerminal_Batch() {
    const job = withGroup(mockBatchJob(), { Count: 5 });
    const allocs = mockAllocs(job, 7);
    change(allocs, 5, { ClientStatus: "complete", TaskRun: { Tasks: ["web"], StartedAt: null, FinishedAt: null, ExitCode: 0 } });
    change(allocs, 6, { DesiredStatus: "stop", ClientStatus: "complete", TaskRun: { Tasks: ["web"], StartedAt: null, FinishedAt: null, ExitCode: 0 } });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { stop: 1, desiredTGUpdates: { web: { Ignore: 6, Stop: 1 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([5]);
  },

  TestReconciler_ScaleDown_ClientTerminal_Service() {
    const job = withGroup(mockJob(), { Count: 5 });
    const allocs = mockAllocs(job, 6);
    change(allocs, 3, { ClientStatus: "failed", TaskRun: { Tasks: ["web"], StartedAt: null, FinishedAt: null, ExitCode: 1 } });
    const { input, results } = compute({ job, allocs });
    expect(indexesOf(namesOf(results).stop)).toEqual([3]);
    expectResults(input, results, { place: 1, stop: 1, desiredTGUpdates: { web: { Ignore: 5, Place: 1, Stop: 1 } } });
  },

  TestReconciler_ScaleDown_ClientTerminal_Service_ActiveDeployment() {
    const job = withGroup(mockJob(), { Count: 2 });
    const deployment = withStates(mockDeployment(job), { web: { DesiredTotal: 3, PlacedAllocs: 3 } });
    const allocs = mockAllocs(job, 3, () => ({ DeploymentID: deployment.ID }));
    change(allocs, 2, { ClientStatus: "failed", TaskRun: { Tasks: ["web"], StartedAt: null, FinishedAt: null, ExitCode: 1 } });
    const { input, results } = compute({ job, allocs, deployment });
    expectResults(input, results, { stop: 1, desiredTGUpdates: { web: { Ignore: 2, Stop: 1 } } });
    expect(results.stop.map(({ alloc }) => alloc.ID)).toEqual([allocs[2]!.ID]);
  },
};
