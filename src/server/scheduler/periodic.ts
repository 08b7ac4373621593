/**
 * Periodic jobs, as the reference's leader launches them (`nomad/periodic.go`, `PeriodicDispatch`,
 * and `PeriodicConfig.Next` in `nomad/structs/structs.go`): a periodic job places nothing itself;
 * at each time its cron spec gives, in its time zone, the leader registers a child job
 * `<id>/periodic-<unix seconds>` (`derivedJobID`) with the parent's spec, `ParentID` set and no
 * periodic block (`deriveJob`), and an evaluation `periodic-job` for it (`DispatchJob`). A job
 * that prohibits overlap skips a launch while a child still has an evaluation or an allocation
 * that has not finished (`RunningChildren`). A new leader takes the jobs up from the state, and
 * launches once at once a job whose launch fell due while nobody led
 * (`restorePeriodicDispatcher`).
 * The times come from `cron.ts` (`PeriodicConfig.Next`).
 *
 * @module
 */
import { JOB } from "../../structs/job.js";
import type { Evaluation, Job, JobSpec, JsonObject } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import { nextLaunchMs } from "./cron.js";
import { nextVersion, putVersion } from "./register.js";
import { isParameterized, isTerminal, newEvaluation, putJob, putSummary, type SchedulerContext } from "./state.js";
import type { StepQueue } from "./timers.js";

/** What a launched child's ID adds to its parent's (`structs.PeriodicLaunchSuffix`). */
export const PERIODIC_LAUNCH_SUFFIX = "/periodic-";

/** The reference's `Job.IsPeriodicActive`: periodic, enabled, not stopped, not parameterized. */
export function periodicActive(job: JobSpec): job is JobSpec & { readonly Periodic: JsonObject } {
  return job.Periodic !== null && job.Periodic.Enabled !== false && !job.Stop && !isParameterized(job);
}

/** The child's ID for a launch at `launchMs` (`derivedJobID`: the parent's, the suffix, Unix seconds). */
export function derivedJobId(parentId: string, launchMs: number): string {
  return `${parentId}${PERIODIC_LAUNCH_SUFFIX}${Math.floor(launchMs / 1000)}`;
}

/** The periodic job's children, by ID prefix and `ParentID`, as `RunningChildren` finds them. */
function launchedChildren(context: SchedulerContext, parent: Job): Job[] {
  const range = context.store.queries.jobs(parent.Namespace, `${parent.ID}${PERIODIC_LAUNCH_SUFFIX}`);
  const children: Job[] = [];
  for (let i = 0; i < range.size; i++) if (range.at(i).ParentID === parent.ID) children.push(range.at(i));
  return children;
}

/** The reference's `RunningChildren`: a child has an evaluation not finished, or an allocation not terminal. */
export function runningChildren(context: SchedulerContext, parent: Job): boolean {
  const { tables } = context.store;
  return launchedChildren(context, parent).some((child) => {
    const key = namespacedKey(child.Namespace, child.ID);
    return [...tables.evals.group(key).values()].some((e) => e.Status === "pending" || e.Status === "blocked") || [...tables.allocs.group(key).values()].some((alloc) => !isTerminal(alloc));
  });
}

/**
 * When the periodic job last launched, as the reference's `periodic_launch` table holds it: its
 * newest child's launch time (from the child's ID), or, before any, when the job was submitted.
 */
export function lastLaunchMs(context: SchedulerContext, parent: Job): number {
  let last = Number(parent.SubmitTime / 1_000_000n);
  for (const child of launchedChildren(context, parent)) {
    const seconds = Number(child.ID.slice(child.ID.lastIndexOf(PERIODIC_LAUNCH_SUFFIX) + PERIODIC_LAUNCH_SUFFIX.length));
    if (Number.isSafeInteger(seconds) && seconds * 1000 > last) last = seconds * 1000;
  }
  return last;
}

/**
 * Registers a job a periodic or parameterized job derived (the reference's `DispatchJob`, and the
 * registration `Job.Dispatch` writes): a new job, or a new version of one of the same ID, its
 * summary, and a pending evaluation triggered by `triggeredBy` unless the child is periodic
 * itself. Its parent's summary counts it (see `putJob`).
 */
export function registerChild(
  context: SchedulerContext,
  state: Transaction<"jobs" | "job_summary" | "evals" | "job_versions">,
  spec: JobSpec,
  triggeredBy: string,
): { readonly job: Job; readonly evaluation: Evaluation | undefined } {
  const { index } = state;
  const key = namespacedKey(spec.Namespace, spec.ID);
  const previous = state.jobs.get(key);
  const job = nextVersion(context, spec, previous, index, "");
  putSummary(state, job);
  const evaluation =
    job.Periodic === null ? newEvaluation(context.clock, index, { Namespace: job.Namespace, Priority: job.Priority, Type: job.Type, TriggeredBy: triggeredBy, JobID: job.ID, JobModifyIndex: index }) : undefined;
  if (evaluation !== undefined) state.evals.put(evaluation);
  putJob(context, state, job);
  putVersion(state, key);
  return { job: state.jobs.get(key)!, evaluation };
}

/** A job's spec: its fields but those the server sets (what a child copies of its parent, `Job.Copy`). */
export function specOf(job: Job): JobSpec {
  const spec = Object.fromEntries(JOB.fields.filter((each) => !each.server).map(({ name }) => [name, structuredClone(job[name as keyof Job])]));
  // The cast: a row's fields picked by their declared names, those of JobSpec.
  return spec as unknown as JobSpec;
}

/** The spec of the child launched at `launchMs` (`deriveJob`): the parent's, its own ID and name, `ParentID`, no periodic block. */
function deriveJob(parent: Job, launchMs: number): JobSpec {
  const id = derivedJobId(parent.ID, launchMs);
  return { ...specOf(parent), ID: id, Name: id, ParentID: parent.ID, Periodic: null };
}

/** Why a forced launch was refused: the reference's texts (`Periodic.Force`, `ForceEval`). */
export type ForceRefusal = "not found" | "not periodic" | "not tracked";

/**
 * Launches the periodic job `key` at `launchMs` in one write (`createEval`): its child and the
 * child's evaluation. A scheduled launch (`force` false) does nothing when the job is no longer
 * periodic and active, or prohibits overlap while a child still runs; a forced one
 * (`PUT /v1/job/<id>/periodic/force`) only needs the job to be periodic and active. Returns the
 * child's evaluation, or why nothing was launched.
 */
export async function launchPeriodic(context: SchedulerContext, key: string, launchMs: number, force: boolean): Promise<{ readonly evaluation: Evaluation; readonly index: number } | ForceRefusal | undefined> {
  const current = context.store.tables.jobs.get(key);
  if (current === undefined) return "not found";
  if (current.Periodic === null) return "not periodic";
  if (!periodicActive(current)) return "not tracked";
  if (!force && current.Periodic.ProhibitOverlap === true && runningChildren(context, current)) return undefined;
  const { index, result } = await context.store.write(["jobs", "job_summary", "evals", "job_versions"], (state) => {
    const parent = state.jobs.get(key);
    if (parent === undefined || !periodicActive(parent)) return undefined;
    return registerChild(context, state, deriveJob(parent, launchMs), "periodic-job").evaluation;
  }, "JobRegister");
  return result === undefined ? undefined : { evaluation: result, index };
}

/** What the names of the periodic jobs' launch steps start with (settling the scheduler leaves them to their times). */
export const PERIODIC_STEP_PREFIX = "periodic ";

/** The name of a periodic job's launch step. */
function stepName(key: string): string {
  return `${PERIODIC_STEP_PREFIX}${key}`;
}

/**
 * The leader's periodic launches (the reference's `PeriodicDispatch`, its heap being the
 * scheduler's steps): one step per periodic job, at its next launch. Only the leader tracks jobs
 * (the cluster calls it while it leads); the state says everything else, so a new leader starts
 * from it with {@link PeriodicDispatch.restore}.
 */
export class PeriodicDispatch {
  /** The periodic block each job's launch was scheduled with, by job key: a change schedules it again. */
  readonly #scheduledWith = new Map<string, string>();

  constructor(
    private readonly context: SchedulerContext,
    private readonly steps: StepQueue,
  ) {}

  /**
   * Tracks these jobs as written (`Add`): a periodic, active job gets its next launch scheduled,
   * again when its periodic block changed; a job no longer periodic or active (stopped,
   * disabled) is no longer launched.
   */
  track(jobs: Iterable<Job>): void {
    for (const job of jobs) {
      const key = namespacedKey(job.Namespace, job.ID);
      const name = stepName(key);
      if (!periodicActive(job)) {
        if (this.#scheduledWith.delete(key)) this.steps.drop((step) => step === name);
        continue;
      }
      const config = JSON.stringify(job.Periodic);
      if (this.steps.has(name) && this.#scheduledWith.get(key) === config) continue;
      this.steps.drop((step) => step === name);
      this.#scheduledWith.set(key, config);
      this.#schedule(key, job.Periodic, this.context.clock.nowMs(), undefined);
    }
  }

  /**
   * Takes every periodic job up as a new leader does (`restorePeriodicDispatcher`): each is
   * tracked, and one whose next launch after its last fell due while nobody led is launched at
   * once (unless it prohibits overlap and a child still runs), its following launches counted
   * from now.
   */
  restore(jobs: Iterable<Job>): void {
    const nowMs = this.context.clock.nowMs();
    for (const job of jobs) {
      if (!periodicActive(job)) continue;
      const key = namespacedKey(job.Namespace, job.ID);
      const missed = nextLaunchMs(job.Periodic, lastLaunchMs(this.context, job));
      if (missed === undefined || missed >= nowMs) continue;
      this.steps.drop((step) => step === stepName(key));
      this.#scheduledWith.set(key, JSON.stringify(job.Periodic));
      this.#schedule(key, job.Periodic, nowMs, nowMs);
    }
    this.track(jobs);
  }

  /** Schedules the job's launch: at `launchMs` when given, else its next launch after `fromMs`; each launch schedules the next. */
  #schedule(key: string, periodic: JsonObject, fromMs: number, launchMs: number | undefined): void {
    const next = launchMs ?? nextLaunchMs(periodic, fromMs);
    if (next === undefined) return;
    this.steps.defer(stepName(key), Math.max(0, next - this.context.clock.nowMs()), async () => {
      await launchPeriodic(this.context, key, next, false);
      const job = this.context.store.tables.jobs.get(key);
      if (job === undefined || !periodicActive(job)) {
        this.#scheduledWith.delete(key);
        return;
      }
      this.#scheduledWith.set(key, JSON.stringify(job.Periodic));
      this.#schedule(key, job.Periodic, next, undefined);
    });
  }
}
