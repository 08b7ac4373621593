/**
 * Rescheduling failed allocations, as the reference does it: each task group's reschedule policy
 * (`structs.ReschedulePolicy`, defaulted by job type), the delay before an allocation's next
 * attempt and whether it may have one (`Allocation.NextDelay`, `NextRescheduleTime`,
 * `RescheduleTracker.RescheduleEligible` in `nomad/structs/alloc.go` and `structs.go`), the
 * reconciler's split of a group's allocations into those to keep, to reschedule now and to
 * reschedule later (`scheduler/reconciler/filters.go`, `filterByRescheduleable`), and the tracker
 * a replacement carries (`generic_sched.go`, `UpdateRescheduleTracker`).
 *
 * Times are the agent's milliseconds; durations of a policy and of the tracker are nanoseconds,
 * as the reference's JSON has them.
 *
 * @module
 */
import type { StructValue } from "../../structs/declare.js";
import { defaultReschedulePolicy, type RESCHEDULE_POLICY } from "../../structs/job-blocks.js";
import type { Allocation, Deployment, JobSpec, JsonObject, RescheduleTracker } from "../state/model.js";

/** `structs.ReschedulePolicy` (declared in `src/structs/job-blocks.ts`); durations in nanoseconds. */
export type ReschedulePolicy = StructValue<typeof RESCHEDULE_POLICY>;

/** How many reschedule events an allocation of an unlimited policy carries (`maxPastRescheduleEvents`). */
const MAX_PAST_RESCHEDULE_EVENTS = 5;

/** How close to its time an allocation is rescheduled at once (`rescheduleWindowSize`): clocks of servers drift. */
const RESCHEDULE_WINDOW_MS = 1000;

/** What the reference's tracker says when the last attempt found no node (`LastRescheduleFailedToPlace`). */
export const LAST_RESCHEDULE_FAILED = "no placement";

/**
 * A task group's reschedule policy: the group's own, as its registration canonicalised it (the
 * job type's default with the job's `Reschedule` block and the group's over it, as the
 * reference's API merges them); for a group stored without one, the job type's default with the
 * job's block over it. Undefined for job types without one (system jobs).
 */
export function reschedulePolicyOf(job: JobSpec, group: string): ReschedulePolicy | undefined {
  const taskGroup = job.TaskGroups.find((each) => each.Name === group);
  if (taskGroup === undefined) return undefined;
  const own = taskGroup.ReschedulePolicy;
  if (typeof own === "object" && own !== null) return { ...(defaultReschedulePolicy(job.Type) ?? NO_RESCHEDULE), ...numbers(own as JsonObject) };
  const base = defaultReschedulePolicy(job.Type);
  if (base === null) return undefined;
  // The API's job-level block: registration merges it into the groups and does not keep it; a snapshot's row may.
  const fromJob = "Reschedule" in job ? job.Reschedule : undefined;
  return { ...base, ...(typeof fromJob === "object" && fromJob !== null ? numbers(fromJob as JsonObject) : {}) };
}

/** A policy that never reschedules, under a block that sets only some fields. */
const NO_RESCHEDULE: ReschedulePolicy = { Attempts: 0, Interval: 0, Delay: 0, DelayFunction: "", MaxDelay: 0, Unlimited: false };

/** A policy block's set fields, durations as numbers (a decoded body may hold bigints). */
function numbers(block: JsonObject): Partial<ReschedulePolicy> {
  const set: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(block)) if (value !== null && value !== undefined && Object.hasOwn(NO_RESCHEDULE, field)) set[field] = typeof value === "bigint" ? Number(value) : value;
  return set as Partial<ReschedulePolicy>;
}

/** When the allocation's tasks last ended (`LastEventTime`): their finish, else its last change. */
export function lastEventTimeMs(alloc: Allocation): number {
  return alloc.TaskRun?.FinishedAt ?? Number(alloc.ModifyTime / 1_000_000n);
}

/** Whether the last attempt to reschedule the allocation found no node (`LastRescheduleFailed`). */
export function lastRescheduleFailed(alloc: Allocation): boolean {
  const last = alloc.RescheduleTracker?.LastReschedule ?? "";
  return last !== "" && last !== "ok";
}

/** How many of the tracker's attempts count against the policy's, at `failMs` (`rescheduleInfo`). */
function attemptsWithin(tracker: RescheduleTracker | undefined, policy: ReschedulePolicy, failMs: number): number {
  if (tracker === undefined || policy.Attempts <= 0) return 0;
  const failNs = BigInt(Math.round(failMs)) * 1_000_000n;
  return tracker.Events.filter((event) => Number(failNs - event.RescheduleTime) < policy.Interval).length;
}

/** Whether an allocation that failed at `failMs` may be rescheduled again (`RescheduleTracker.RescheduleEligible`). */
export function rescheduleEligible(tracker: RescheduleTracker | undefined, policy: ReschedulePolicy | undefined, failMs: number): boolean {
  if (policy === undefined || (policy.Attempts <= 0 && !policy.Unlimited)) return false;
  if (policy.Unlimited) return true;
  if (tracker === undefined || tracker.Events.length === 0) return true;
  return attemptsWithin(tracker, policy, failMs) < policy.Attempts;
}

/** The delay before the allocation's next attempt, in nanoseconds, by the policy's delay function (`NextDelay`). */
export function nextDelay(alloc: Allocation, policy: ReschedulePolicy): number {
  const events = alloc.RescheduleTracker?.Events ?? [];
  if (events.length === 0) return policy.Delay;
  const last = events[events.length - 1]!;
  let delay = policy.Delay;
  switch (policy.DelayFunction) {
    case "exponential":
      delay = last.Delay * 2;
      break;
    case "fibonacci":
      if (events.length >= 2) {
        const before = events[events.length - 2]!.Delay;
        // A delay back at its start after the ceiling begins a new series.
        delay = before === policy.MaxDelay && last.Delay === policy.Delay ? last.Delay : last.Delay + before;
      }
      break;
    default:
      return delay;
  }
  if (policy.MaxDelay > 0 && delay > policy.MaxDelay) {
    delay = policy.MaxDelay;
    // Failing again long after the last attempt starts the series over.
    const sinceLastMs = lastEventTimeMs(alloc) - Number(last.RescheduleTime / 1_000_000n);
    if (sinceLastMs * 1e6 > delay) delay = policy.Delay;
  }
  return delay;
}

/**
 * When the allocation may be rescheduled (agent milliseconds), and whether it may be at all
 * (`NextRescheduleTime`): only failed (or lost) allocations the server still wants, within the
 * policy's attempts.
 */
export function nextRescheduleTime(alloc: Allocation, policy: ReschedulePolicy | undefined, jobType: string): { readonly atMs: number; readonly eligible: boolean } {
  const never = { atMs: 0, eligible: false };
  if (policy === undefined || (policy.Attempts <= 0 && !policy.Unlimited)) return never;
  const rescheduledBatch = jobType === "batch" && alloc.DesiredTransition?.Reschedule === true;
  if ((alloc.DesiredStatus === "stop" && !lastRescheduleFailed(alloc)) || (!rescheduledBatch && alloc.ClientStatus !== "failed" && alloc.ClientStatus !== "lost")) return never;
  const failMs = lastEventTimeMs(alloc);
  const delay = nextDelay(alloc, policy);
  const tracker = alloc.RescheduleTracker;
  let eligible = policy.Unlimited || (policy.Attempts > 0 && tracker === undefined);
  if (policy.Attempts > 0 && tracker !== undefined && tracker.Events.length > 0) eligible = attemptsWithin(tracker, policy, failMs) < policy.Attempts && delay < policy.Interval;
  return { atMs: failMs + delay / 1e6, eligible };
}

/**
 * The tracker of an allocation that replaces `previous` at `nowMs` (`UpdateRescheduleTracker`):
 * the previous attempts still within the policy's interval (the last five for an unlimited
 * policy), and this one with its delay.
 */
export function trackerOfReplacement(previous: Allocation, policy: ReschedulePolicy | undefined, nowMs: number): RescheduleTracker {
  const nowNs = BigInt(nowMs) * 1_000_000n;
  const past = previous.RescheduleTracker?.Events ?? [];
  const kept =
    policy !== undefined && policy.Attempts > 0
      ? past.filter((event) => policy.Interval > 0 && Number(nowNs - event.RescheduleTime) <= policy.Interval)
      : past.slice(Math.max(0, past.length - MAX_PAST_RESCHEDULE_EVENTS));
  const delay = policy === undefined ? 0 : nextDelay(previous, policy);
  return { Events: [...kept, { RescheduleTime: nowNs, PrevAllocID: previous.ID, PrevNodeID: previous.NodeID, Delay: delay }], LastReschedule: "ok" };
}

/**
 * Whether the reconciler keeps an allocation as it is (`untainted`) or leaves it out (`ignore`)
 * before asking whether to reschedule it (`shouldFilter`): a batch job's allocations that ran
 * to completion count as done; a service job's stopped, complete or lost ones are left out.
 */
function shouldFilter(alloc: Allocation, batch: boolean): { readonly untainted: boolean; readonly ignore: boolean } {
  if (batch) {
    // A drained batch allocation (MigrateDisablePlacement) still counts, so that nothing replaces it.
    if (alloc.DesiredTransition?.MigrateDisablePlacement === true) return { untainted: true, ignore: false };
    if (alloc.DesiredTransition?.Reschedule === true) return { untainted: false, ignore: false };
    if (alloc.DesiredStatus === "stop") {
      if (alloc.ClientStatus === "complete") return { untainted: true, ignore: false };
      return lastRescheduleFailed(alloc) ? { untainted: false, ignore: false } : { untainted: false, ignore: true };
    }
    if (alloc.DesiredStatus === "evict") return { untainted: false, ignore: true };
    return alloc.ClientStatus === "failed" ? { untainted: false, ignore: false } : { untainted: true, ignore: false };
  }
  if (alloc.DesiredStatus === "stop" || alloc.DesiredStatus === "evict") return lastRescheduleFailed(alloc) ? { untainted: false, ignore: false } : { untainted: false, ignore: true };
  if (alloc.ClientStatus === "complete" || alloc.ClientStatus === "lost") return { untainted: false, ignore: true };
  return { untainted: false, ignore: false };
}

/** An allocation to reschedule once its delay has passed. */
export interface DelayedReschedule {
  readonly alloc: Allocation;
  readonly atMs: number;
}

/** What {@link filterByRescheduleable} makes of a group's allocations. */
export interface RescheduleSplit {
  readonly untainted: Allocation[];
  readonly now: Allocation[];
  readonly later: DelayedReschedule[];
}

/**
 * Splits a group's allocations into those kept as they are, those to reschedule now (their time
 * has come within a second, or this is their follow-up evaluation) and those to reschedule later
 * (`filterByRescheduleable`). An allocation of a deployment still going is rescheduled only when
 * the deployment's watcher allowed it (`DesiredTransition.Reschedule`); one already replaced is
 * left out. One marked `DesiredTransition.ForceReschedule` is rescheduled now, as the reference's
 * `updateByReschedulable` does.
 */
export function filterByRescheduleable(
  allocs: readonly Allocation[],
  context: {
    readonly batch: boolean;
    readonly jobType: string;
    readonly policyOf: (group: string) => ReschedulePolicy | undefined;
    readonly nowMs: number;
    readonly evalId: string;
    /** The job's deployment when it is still going (`Deployment.Active`). */
    readonly activeDeployment: Deployment | undefined;
  },
): RescheduleSplit {
  const split: RescheduleSplit = { untainted: [], now: [], later: [] };
  for (const alloc of allocs) {
    // A failed allocation already replaced is done with (`TerminalStatus`: stopped by the server, or ended on its client).
    if ((alloc.NextAllocation ?? "") !== "" && (alloc.DesiredStatus !== "run" || ["complete", "failed", "lost"].includes(alloc.ClientStatus))) continue;
    const { untainted, ignore } = shouldFilter(alloc, context.batch);
    if (untainted) {
      split.untainted.push(alloc);
      continue;
    }
    if (ignore) continue;
    const deployment = context.activeDeployment;
    const held = deployment !== undefined && alloc.DeploymentID === deployment.ID && alloc.DesiredTransition?.Reschedule !== true;
    // A user asked for it (`POST /v1/job/<id>/evaluate` with `ForceReschedule`): an allocation that ended on its client goes now, whatever its policy's attempts and delay.
    if (!held && alloc.DesiredTransition?.ForceReschedule === true && ["complete", "failed", "lost"].includes(alloc.ClientStatus)) {
      split.now.push(alloc);
      continue;
    }
    const { atMs, eligible } = held ? { atMs: 0, eligible: false } : nextRescheduleTime(alloc, context.policyOf(alloc.TaskGroup), context.jobType);
    const followup = alloc.FollowupEvalID ?? "";
    if (eligible && (followup === context.evalId || atMs - context.nowMs <= RESCHEDULE_WINDOW_MS)) {
      split.now.push(alloc);
      continue;
    }
    split.untainted.push(alloc);
    if (eligible && followup === "") split.later.push({ alloc, atMs });
  }
  return split;
}
