/**
 * The reference's `scheduler/reconciler/reconcile_cluster_test.go`, first part (placement,
 * scaling, destructive updates, lost nodes, stopped jobs, several groups, rescheduling, deployment
 * cancel and creation), ported to our pure `reconcile()`. The fate of each Go test is in
 * `reconcile-cluster-ported.ts`; how a test of the reference maps to our model:
 *
 * - `allocUpdateFnIgnore` (the allocation needs no change): the allocation is of the job's version;
 * - `allocUpdateFnDestructive`: the job is one version later than its allocations
 *   (`nextVersion`), which our reconciler replaces;
 * - `allocUpdateFnInplace` and `allocUpdateFnMock`: the test passes the same choice as `allocUpdate`
 *   (`mock.ts`), which our reconciler does not read yet (the gap "in-place updates");
 * - the clock is a fixed instant, `NOW_MS`.
 */
import { expect } from "vitest";
import { reconcile } from "../../src/server/scheduler/reconciler.js";
import type { Allocation, Job, TaskRun } from "../../src/server/state/model.js";
import { expectResults, indexesOf, intRange, namesOf } from "./expect-results.js";
import { CANARY_UPDATE, deploymentStatus, downNodes, groupState, mockAllocs, mockDeployment, mockJob, nextVersion, NO_CANARY_UPDATE, NOW_MS, reconcileInputOf, UPDATE_DESTRUCTIVE, UPDATE_INPLACE, updateByAlloc, withGroup } from "./mock.js";
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

/** Tasks that ran for an hour and ended at `finishedMs` (the tests' `TaskStates`). */
function ranUntil(finishedMs: number): TaskRun {
  return { Tasks: ["web"], StartedAt: finishedMs - HOUR_MS, FinishedAt: finishedMs, ExitCode: 1 };
}

/** A reschedule tracker of events `agoMs` before now. */
function trackerOf(...agoMs: number[]): NonNullable<Allocation["RescheduleTracker"]> {
  return { Events: agoMs.map((ago) => ({ RescheduleTime: BigInt(NOW_MS - ago) * 1_000_000n, PrevAllocID: "prev", PrevNodeID: "node", Delay: 5 * SECOND_NS })), LastReschedule: "ok" };
}

/** `mock.Job()` with its group's count and reschedule policy. */
function jobWith(count: number, reschedule?: Record<string, unknown>, overrides: Partial<Job> = {}): Job {
  const job = mockJob(overrides);
  return withGroup(job, { Count: count, ...(reschedule === undefined ? {} : { ReschedulePolicy: { Attempts: 0, Interval: 0, Delay: 0, DelayFunction: "", MaxDelay: 0, Unlimited: false, ...reschedule } }) });
}

/** Sets fields of some allocations (the tests' `allocs[i].X = …`). */
function change(allocs: Allocation[], index: number, fields: Partial<Allocation>): void {
  allocs[index] = { ...allocs[index]!, ...fields };
}

/** The first part's tests, by the name of the Go test each ports. */
export const TESTS_1: GoTests = {
  TestReconciler_Place_NoExisting() {
    const job = mockJob();
    const { input, results } = compute({ job });
    expectResults(input, results, { place: 10, desiredTGUpdates: { web: { Place: 10 } } });
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(0, 9));
  },

  TestReconciler_Place_Existing() {
    const job = mockJob();
    const { input, results } = compute({ job, allocs: mockAllocs(job, 5) });
    expectResults(input, results, { place: 5, desiredTGUpdates: { web: { Place: 5, Ignore: 5 } } });
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(5, 9));
  },

  TestReconciler_ScaleDown_Partial() {
    const job = mockJob();
    const { input, results } = compute({ job, allocs: mockAllocs(job, 20) });
    expectResults(input, results, { stop: 10, desiredTGUpdates: { web: { Ignore: 10, Stop: 10 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(10, 19));
  },

  TestReconciler_ScaleDown_Zero() {
    const job = jobWith(0);
    const { input, results } = compute({ job, allocs: mockAllocs(job, 20) });
    expectResults(input, results, { stop: 20, desiredTGUpdates: { web: { Stop: 20 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(0, 19));
  },

  TestReconciler_ScaleDown_Zero_DuplicateNames() {
    const job = jobWith(0);
    const allocs = mockAllocs(job, 20).map((alloc, i) => ({ ...alloc, Name: `${job.ID}.web[${i % 2}]` }));
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { stop: 20, desiredTGUpdates: { web: { Stop: 20 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(Array.from({ length: 20 }, (_, i) => i % 2).sort((a, b) => a - b));
  },

  TestReconciler_Inplace() {
    const old = mockJob();
    const job = nextVersion(old);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10), allocUpdate: UPDATE_INPLACE });
    expectResults(input, results, { inplace: 10, desiredTGUpdates: { web: { InPlaceUpdate: 10 } } });
  },

  TestReconciler_Inplace_ScaleUp() {
    const old = mockJob();
    const job = withGroup(nextVersion(old), { Count: 15 });
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10), allocUpdate: UPDATE_INPLACE });
    expectResults(input, results, { place: 5, inplace: 10, desiredTGUpdates: { web: { Place: 5, InPlaceUpdate: 10 } } });
  },

  TestReconciler_Inplace_ScaleDown() {
    const old = mockJob();
    const job = withGroup(nextVersion(old), { Count: 5 });
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10), allocUpdate: UPDATE_INPLACE });
    expectResults(input, results, { stop: 5, inplace: 5, desiredTGUpdates: { web: { Stop: 5, InPlaceUpdate: 5 } } });
  },

  TestReconciler_Inplace_Rollback() {
    // Count 4, three allocations of the older version: the running one updated in place, one failed 10 minutes ago
    // rescheduled later (an hour's delay) and replaced destructively, one failed long ago rescheduled now.
    const old = withGroup(mockJob(), { Count: 4, ReschedulePolicy: { Attempts: 3, Interval: 30 * SECOND_NS, Delay: HOUR_NS, DelayFunction: "exponential", MaxDelay: 0, Unlimited: true } });
    const job = nextVersion(old);
    const allocs = mockAllocs(old, 3);
    change(allocs, 0, { ClientStatus: "running" });
    change(allocs, 1, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 10 * 60 * SECOND_MS) });
    change(allocs, 2, { ClientStatus: "failed" });
    const allocUpdate = updateByAlloc(new Map([[allocs[0]!.ID, UPDATE_INPLACE]]), UPDATE_DESTRUCTIVE);
    const { input, results } = compute({ job, allocs, allocUpdate });
    expectResults(input, results, { place: 2, inplace: 1, stop: 1, destructive: 1, attributeUpdates: 1, followupEvals: 1, desiredTGUpdates: { web: { Place: 2, Stop: 1, InPlaceUpdate: 1, DestructiveUpdate: 1, RescheduleLater: 1 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual([2]);
    expect(indexesOf(namesOf(results).place)).toEqual([2, 3]);
  },

  TestReconciler_Destructive() {
    const old = mockJob();
    const job = nextVersion(old);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10) });
    expectResults(input, results, { destructive: 10, desiredTGUpdates: { web: { DestructiveUpdate: 10 } } });
    expect(indexesOf(namesOf(results).destructive)).toEqual(intRange(0, 9));
  },

  TestReconciler_DestructiveMaxParallel() {
    // mock.MaxParallelJob: the default update block with MaxParallel 0 (no deployment).
    const old = mockJob({ Update: { ...NO_CANARY_UPDATE, MaxParallel: 0 } });
    const job = nextVersion(old);
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10) });
    expectResults(input, results, { destructive: 10, desiredTGUpdates: { web: { DestructiveUpdate: 10 } } });
    expect(indexesOf(namesOf(results).destructive)).toEqual(intRange(0, 9));
  },

  TestReconciler_Destructive_ScaleUp() {
    const old = mockJob();
    const job = withGroup(nextVersion(old), { Count: 15 });
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10) });
    expectResults(input, results, { place: 5, destructive: 10, desiredTGUpdates: { web: { Place: 5, DestructiveUpdate: 10 } } });
    expect(indexesOf(namesOf(results).destructive)).toEqual(intRange(0, 9));
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(10, 14));
  },

  TestReconciler_Destructive_ScaleDown() {
    const old = mockJob();
    const job = withGroup(nextVersion(old), { Count: 5 });
    const { input, results } = compute({ job, allocs: mockAllocs(old, 10) });
    expectResults(input, results, { destructive: 5, stop: 5, desiredTGUpdates: { web: { Stop: 5, DestructiveUpdate: 5 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(5, 9));
    expect(indexesOf(namesOf(results).destructive)).toEqual(intRange(0, 4));
  },

  TestReconciler_LostNode() {
    const job = mockJob();
    const allocs = mockAllocs(job, 10);
    const { input, results } = compute({ job, allocs, tainted: downNodes(allocs.slice(0, 2)) });
    expectResults(input, results, { place: 2, stop: 2, desiredTGUpdates: { web: { Place: 2, Stop: 2, Ignore: 8 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(0, 1));
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(0, 1));
  },

  TestReconciler_LostNode_ScaleUp() {
    const job = jobWith(15);
    const allocs = mockAllocs(job, 10);
    const { input, results } = compute({ job, allocs, tainted: downNodes(allocs.slice(0, 2)) });
    expectResults(input, results, { place: 7, stop: 2, desiredTGUpdates: { web: { Place: 7, Stop: 2, Ignore: 8 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(0, 1));
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(0, 1, 10, 14));
  },

  TestReconciler_LostNode_ScaleDown() {
    const job = jobWith(5);
    const allocs = mockAllocs(job, 10);
    const { input, results } = compute({ job, allocs, tainted: downNodes(allocs.slice(0, 2)) });
    expectResults(input, results, { stop: 5, desiredTGUpdates: { web: { Stop: 5, Ignore: 5 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(0, 1, 7, 9));
  },

  TestReconciler_RemovedTG() {
    const old = mockJob();
    const allocs = mockAllocs(old, 10);
    const job = withGroup(old, { Name: "different" });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 10, stop: 10, desiredTGUpdates: { web: { Stop: 10 }, different: { Place: 10 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(0, 9));
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(0, 9));
  },

  TestReconciler_JobStopped() {
    // mock.MultiTaskGroupJob, stopped (the Go test's "nil job" case has no counterpart: our reconciler is given a job).
    const base = mockJob({ Stop: true });
    const job = { ...base, TaskGroups: [base.TaskGroups[0]!, { ...base.TaskGroups[0]!, Name: "api" }] };
    const allocs = [...mockAllocs(job, 5, () => ({}), "web"), ...mockAllocs(job, 5, () => ({}), "api").map((alloc, i) => ({ ...alloc, Name: `${job.ID}.api[${i + 5}]` }))];
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { stop: 10, desiredTGUpdates: { web: { Stop: 5 }, api: { Stop: 5 } } });
    expect(indexesOf(namesOf(results).stop)).toEqual(intRange(0, 9));
  },

  TestReconciler_JobStopped_TerminalAllocs() {
    const job = mockJob({ Stop: true });
    const allocs = mockAllocs(job, 10, (i) => (i % 2 === 0 ? { DesiredStatus: "stop" } : { ClientStatus: "failed" }));
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { desiredTGUpdates: { web: {} } });
  },

  TestReconciler_MultiTG() {
    const base = mockJob();
    const job = { ...base, TaskGroups: [...base.TaskGroups, { ...base.TaskGroups[0]!, Name: "foo" }] };
    const { input, results } = compute({ job, allocs: mockAllocs(job, 2) });
    expectResults(input, results, { place: 18, desiredTGUpdates: { web: { Place: 8, Ignore: 2 }, foo: { Place: 10 } } });
    expect(indexesOf(namesOf(results).place)).toEqual(intRange(2, 9, 0, 9).sort((a, b) => a - b));
  },

  TestReconciler_MultiTG_SingleUpdateBlock() {
    const base = mockJob();
    const job = { ...base, TaskGroups: [{ ...base.TaskGroups[0]!, Update: NO_CANARY_UPDATE }, { ...base.TaskGroups[0]!, Name: "foo" }] };
    const allocs = [...mockAllocs(job, 10, () => ({}), "web"), ...mockAllocs(job, 10, () => ({}), "foo")];
    const deployment = mockDeployment(job, { TaskGroups: { web: groupState({ DesiredTotal: 10 }) } });
    const { input, results } = compute({ job, allocs, deployment });
    expectResults(input, results, { desiredTGUpdates: { web: { Ignore: 10 }, foo: { Ignore: 10 } } });
  },

  TestReconciler_RescheduleLater_Batch() {
    const job = jobWith(4, { Attempts: 3, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, DelayFunction: "constant" }, { Type: "batch" });
    const allocs = mockAllocs(job, 6, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", NextAllocation: allocs[1]!.ID });
    change(allocs, 1, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS), NextAllocation: allocs[2]!.ID });
    change(allocs, 2, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS), RescheduleTracker: trackerOf(2 * HOUR_MS, HOUR_MS) });
    change(allocs, 5, { ClientStatus: "complete" });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { attributeUpdates: 1, followupEvals: 1, desiredTGUpdates: { web: { Ignore: 4, RescheduleLater: 1 } } });
    expect(results.followupEvals[0]!.WaitUntil).toBe(new Date(NOW_MS + 15 * SECOND_MS).toISOString().replace(".000Z", "Z"));
    expect(indexesOf(namesOf(results).attributeUpdates)).toEqual([2]);
    expect(results.attributeUpdates[0]!.FollowupEvalID).toBe(results.followupEvals[0]!.ID);
  },

  TestReconciler_RescheduleLaterWithBatchedEvals_Batch() {
    const job = jobWith(10, { Attempts: 3, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, DelayFunction: "constant" }, { Type: "batch" });
    const allocs = mockAllocs(job, 10, (i) => (i < 5 ? { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS + 50 * i) } : i < 7 ? { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS + 10 * SECOND_MS) } : { ClientStatus: "running" }));
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { attributeUpdates: 7, followupEvals: 2, desiredTGUpdates: { web: { Ignore: 10, RescheduleLater: 7 } } });
    const [first, second] = results.followupEvals;
    expect(Date.parse(first!.WaitUntil!)).toBe(NOW_MS + 15 * SECOND_MS);
    expect(Date.parse(second!.WaitUntil!)).toBe(NOW_MS + 25 * SECOND_MS);
    expect(indexesOf(namesOf(results).attributeUpdates)).toEqual(intRange(0, 6));
    for (const alloc of results.attributeUpdates) expect(alloc.FollowupEvalID).toBe(indexesOf([alloc.Name])[0]! < 5 ? first!.ID : second!.ID);
  },

  TestReconciler_RescheduleNow_Batch() {
    const job = jobWith(4, { Attempts: 3, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, DelayFunction: "constant" }, { Type: "batch" });
    const allocs = mockAllocs(job, 6, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", NextAllocation: allocs[1]!.ID });
    change(allocs, 1, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS), NextAllocation: allocs[2]!.ID });
    change(allocs, 2, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 5 * SECOND_MS), FollowupEvalID: "another-eval", RescheduleTracker: trackerOf(2 * HOUR_MS, HOUR_MS) });
    change(allocs, 5, { ClientStatus: "complete" });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 1, stop: 1, followupEvals: 0, desiredTGUpdates: { web: { Place: 1, Stop: 1, Ignore: 3 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([2]);
    expect(results.place.filter((each) => each.previous !== undefined && each.reschedule)).toHaveLength(1);
  },

  TestReconciler_RescheduleLater_Service() {
    const job = jobWith(5, { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, MaxDelay: HOUR_NS });
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS) });
    change(allocs, 1, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS) });
    change(allocs, 4, { DesiredStatus: "stop" });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 1, attributeUpdates: 1, followupEvals: 1, desiredTGUpdates: { web: { Place: 1, Ignore: 4, RescheduleLater: 1 } } });
    expect(Date.parse(results.followupEvals[0]!.WaitUntil!)).toBe(NOW_MS + 15 * SECOND_MS);
    expect(indexesOf(namesOf(results).place)).toEqual([4]);
    expect(indexesOf(namesOf(results).attributeUpdates)).toEqual([1]);
    expect(results.attributeUpdates[0]!.FollowupEvalID).toBe(results.followupEvals[0]!.ID);
  },

  TestReconciler_Service_ClientStatusComplete() {
    const job = jobWith(5, { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, MaxDelay: HOUR_NS });
    const allocs = mockAllocs(job, 5, (i) => ({ ClientStatus: i === 4 ? "complete" : "running" }));
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 1, desiredTGUpdates: { web: { Place: 1, Ignore: 4 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([4]);
  },

  TestReconciler_Service_DesiredStop_ClientStatusComplete() {
    const job = jobWith(5, { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, MaxDelay: HOUR_NS });
    const allocs = mockAllocs(job, 5, (i) => (i === 4 ? { ClientStatus: "failed", DesiredStatus: "stop" } : { ClientStatus: "running" }));
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 1, followupEvals: 0, desiredTGUpdates: { web: { Place: 1, Ignore: 4 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([4]);
  },

  TestReconciler_RescheduleNow_Service() {
    const job = withGroup(jobWith(5, { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, MaxDelay: HOUR_NS }), { Update: NO_CANARY_UPDATE });
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS) });
    change(allocs, 1, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 10 * SECOND_MS) });
    change(allocs, 4, { DesiredStatus: "stop" });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 2, stop: 1, followupEvals: 0, desiredTGUpdates: { web: { Place: 2, Ignore: 3, Stop: 1 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([1, 4]);
    expect(results.place.filter((each) => each.previous !== undefined && each.reschedule)).toHaveLength(1);
  },

  TestReconciler_RescheduleNow_WithinAllowedTimeWindow() {
    const job = withGroup(jobWith(5, { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, MaxDelay: HOUR_NS }), { Update: NO_CANARY_UPDATE });
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS) });
    // Failed 4 s ago with a delay of 5 s: within the reschedule window of a second.
    change(allocs, 1, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 4 * SECOND_MS) });
    const { input, results } = compute({ job, allocs });
    expectResults(input, results, { place: 1, stop: 1, followupEvals: 0, desiredTGUpdates: { web: { Place: 1, Stop: 1, Ignore: 4 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([1]);
    expect(results.place.filter((each) => each.previous !== undefined && each.reschedule)).toHaveLength(1);
  },

  TestReconciler_RescheduleNow_EvalIDMatch() {
    const job = withGroup(jobWith(5, { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, MaxDelay: HOUR_NS }), { Update: NO_CANARY_UPDATE });
    const evalId = "the-follow-up";
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS) });
    change(allocs, 1, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 5 * SECOND_MS), FollowupEvalID: evalId });
    // The clock 30 s early: the allocation is rescheduled because this is its follow-up evaluation.
    const { input, results } = compute({ job, allocs, evalId, nowMs: NOW_MS - 30 * SECOND_MS });
    expectResults(input, results, { place: 1, stop: 1, followupEvals: 0, desiredTGUpdates: { web: { Place: 1, Stop: 1, Ignore: 4 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([1]);
    expect(results.place.filter((each) => each.previous !== undefined && each.reschedule)).toHaveLength(1);
  },

  TestReconciler_RescheduleNow_Service_WithCanaries() {
    // The allocations need no change (of the job's version); two canaries of the deployment wait for promotion.
    const job = withGroup(jobWith(5, { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, MaxDelay: HOUR_NS }, { Version: 1 }), { Update: CANARY_UPDATE });
    const deployment = mockDeployment(job, { StatusDescription: "Deployment is running but requires manual promotion" });
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    change(allocs, 0, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS) });
    change(allocs, 1, { ClientStatus: "failed", TaskRun: ranUntil(NOW_MS - 10 * SECOND_MS) });
    change(allocs, 4, { ClientStatus: "failed" });
    const canaries = mockAllocs(job, 2, () => ({ ClientStatus: "running", DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(false, true) }));
    const withState = { ...deployment, TaskGroups: { web: groupState({ DesiredCanaries: 2, DesiredTotal: 5, PlacedCanaries: canaries.map((each) => each.ID) }) } };
    const { input, results } = compute({ job, allocs: [...allocs, ...canaries], deployment: withState });
    expectResults(input, results, { place: 2, stop: 2, followupEvals: 0, desiredTGUpdates: { web: { Place: 2, Stop: 2, Ignore: 5 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([1, 4]);
    expect(results.place.filter((each) => each.previous !== undefined && each.reschedule)).toHaveLength(2);
  },

  TestReconciler_RescheduleNow_Service_Canaries() {
    const job = withGroup(jobWith(5, { Delay: 5 * SECOND_NS, DelayFunction: "constant", MaxDelay: HOUR_NS, Unlimited: true }, { Version: 1 }), { Update: CANARY_UPDATE });
    const deployment = mockDeployment(job, { StatusDescription: "Deployment is running but requires manual promotion" });
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    const canary = (fields: Partial<Allocation>) => ({ DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(false, true), ...fields });
    const canaries = mockAllocs(job, 2, () => canary({ ClientStatus: "running" }));
    const reschedule = { Migrate: null, Reschedule: true, ForceReschedule: null, NoShutdownDelay: null };
    change(canaries, 0, { ClientStatus: "failed", DesiredTransition: reschedule, RescheduleTracker: trackerOf(HOUR_MS) });
    change(canaries, 1, { ClientStatus: "failed", DesiredTransition: reschedule, TaskRun: ranUntil(NOW_MS - 10 * SECOND_MS) });
    // Four more failed canaries, of names 0 and 1, not marked for rescheduling.
    const failedCanaries = mockAllocs(job, 4, () => canary({ ClientStatus: "failed" })).map((alloc, i) => ({ ...alloc, Name: `${job.ID}.web[${i % 2}]` }));
    const all = [...allocs, ...canaries, ...failedCanaries];
    const withState = { ...deployment, TaskGroups: { web: groupState({ DesiredCanaries: 2, DesiredTotal: 5, PlacedCanaries: [...canaries, ...failedCanaries].map((each) => each.ID) }) } };
    const { input, results } = compute({ job, allocs: all, deployment: withState });
    expectResults(input, results, { place: 2, stop: 2, followupEvals: 0, desiredTGUpdates: { web: { Place: 2, Stop: 2, Ignore: 9 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([0, 1]);
    expect(results.place.filter((each) => each.previous !== undefined && each.reschedule)).toHaveLength(2);
  },

  TestReconciler_RescheduleNow_Service_Canaries_Limit() {
    const job = withGroup(jobWith(5, { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, MaxDelay: HOUR_NS }, { Version: 1 }), { Update: CANARY_UPDATE });
    const deployment = mockDeployment(job, { StatusDescription: "Deployment is running but requires manual promotion" });
    const allocs = mockAllocs(job, 5, () => ({ ClientStatus: "running" }));
    const canary = (fields: Partial<Allocation>) => ({ DeploymentID: deployment.ID, DeploymentStatus: deploymentStatus(false, true), ...fields });
    const canaries = mockAllocs(job, 2, () => canary({ ClientStatus: "running" }));
    const reschedule = { Migrate: null, Reschedule: true, ForceReschedule: null, NoShutdownDelay: null };
    // The first has used its one attempt an hour ago: only the second is rescheduled.
    change(canaries, 0, { ClientStatus: "failed", DesiredTransition: reschedule, RescheduleTracker: trackerOf(HOUR_MS) });
    change(canaries, 1, { ClientStatus: "failed", DesiredTransition: reschedule, TaskRun: ranUntil(NOW_MS - 10 * SECOND_MS) });
    const failedCanaries = mockAllocs(job, 4, () => canary({ ClientStatus: "failed" })).map((alloc, i) => ({ ...alloc, Name: `${job.ID}.web[${i % 2}]` }));
    const withState = { ...deployment, TaskGroups: { web: groupState({ DesiredCanaries: 2, DesiredTotal: 5, PlacedCanaries: [...canaries, ...failedCanaries].map((each) => each.ID) }) } };
    const { input, results } = compute({ job, allocs: [...allocs, ...canaries, ...failedCanaries], deployment: withState });
    expectResults(input, results, { place: 1, stop: 1, followupEvals: 0, desiredTGUpdates: { web: { Place: 1, Stop: 1, Ignore: 10 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([1]);
    expect(results.place.filter((each) => each.previous !== undefined && each.reschedule)).toHaveLength(1);
  },

  TestReconciler_DontReschedule_PreviouslyRescheduled() {
    const job = jobWith(5, { Attempts: 5, Interval: 24 * HOUR_NS });
    const allocs = mockAllocs(job, 7, () => ({ ClientStatus: "running" }));
    // The first failed one was already rescheduled: the Go test gives it the ID of the second (it is one allocation, seen twice).
    change(allocs, 0, { ClientStatus: "failed", ID: allocs[1]!.ID });
    change(allocs, 1, { ClientStatus: "failed", RescheduleTracker: trackerOf(HOUR_MS), NextAllocation: allocs[2]!.ID });
    change(allocs, 4, { DesiredStatus: "stop" });
    // allocSet is a map by ID: the later of two rows with one ID wins.
    const byId = new Map(allocs.map((alloc) => [alloc.ID, alloc]));
    const { input, results } = compute({ job, allocs: [...byId.values()] });
    expectResults(input, results, { place: 1, desiredTGUpdates: { web: { Place: 1, Ignore: 4 } } });
    expect(indexesOf(namesOf(results).place)).toEqual([0]);
  },
};
