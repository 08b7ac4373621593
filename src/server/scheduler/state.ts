/**
 * The rules every write of the scheduler keeps, as the reference's state store keeps them
 * (`nomad/state/state_store.go`): a job's status follows from its deployments, allocations and
 * evaluations (`getJobStatus`); a job summary counts its allocations by client status, and an
 * allocation's change moves it from one count to another (`updateSummaryWithAlloc`); a new
 * evaluation is stamped with the index and time of its write.
 *
 * Everything here is a function of a transaction and the {@link SchedulerContext}: what reads the
 * state outside the write reads the context's tables, as the reference's scheduler reads a
 * snapshot.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { Allocation, ClientStatus, Evaluation, Job, JobSpec, TaskGroupSummary, TaskRun } from "../state/model.js";
import { namespacedKey, type Store, type Tables, type Transaction } from "../state/store.js";
import type { Clock } from "../domain/clock.js";

/** What the scheduler's functions read besides their transaction. */
export interface SchedulerContext {
  /** The store: its tables as they are now, for what is read outside a write, and its writes. */
  readonly store: Store;
  /** The clock of timestamps. */
  readonly clock: Clock;
  /** Milliseconds from a job's registration until its deployment is healthy (allocations run at half of it). */
  readonly placementDelayMs: number;
}

/** The texts of deployment states (the reference's constants). */
export const DEPLOYMENT_DESCRIPTIONS = {
  running: "Deployment is running",
  needsPromotion: "Deployment is running but requires manual promotion",
  paused: "Deployment is paused",
  resumed: "Deployment is running",
  successful: "Deployment completed successfully",
  markedFailed: "Deployment marked as failed",
  progressDeadline: "Failed due to progress deadline",
  unhealthy: "Failed due to unhealthy allocations",
  newerJob: "Cancelled due to newer version of job",
  stoppedJob: "Cancelled because job is stopped",
} as const;

/** The statuses of a deployment that is not finished (`structs.Deployment.Active`). */
export const ACTIVE_DEPLOYMENT: ReadonlySet<string> = new Set(["running", "paused", "blocked", "unblocking", "initializing", "pending"]);

/** What the client says of its allocation in each status (the reference's `getClientStatus` texts). */
export const CLIENT_DESCRIPTIONS: { readonly [Status in ClientStatus]: string } = {
  pending: "No tasks have started",
  running: "Tasks are running",
  complete: "All tasks have completed",
  failed: "Failed tasks",
  lost: "alloc is lost since its node is down",
  unknown: "alloc is unknown since its node is disconnected",
};

/** The reference's `TerminalStatus`: stopped or evicted by the server, or finished on the client. */
export function isTerminal(alloc: Allocation): boolean {
  return alloc.DesiredStatus !== "run" || alloc.ClientStatus === "complete" || alloc.ClientStatus === "failed" || alloc.ClientStatus === "lost";
}

/** A task group's counts before any allocation. */
export const EMPTY_GROUP_SUMMARY: TaskGroupSummary = { Queued: 0, Complete: 0, Failed: 0, Running: 0, Starting: 0, Lost: 0, Unknown: 0 };

/** The summary count each client status is counted in. */
const SUMMARY_FIELDS: { readonly [Status in ClientStatus]: keyof TaskGroupSummary } = {
  pending: "Starting",
  running: "Running",
  complete: "Complete",
  failed: "Failed",
  lost: "Lost",
  unknown: "Unknown",
};

/**
 * A new evaluation written at `index`, now: `fields` say what it is for; it is pending unless
 * they say otherwise.
 */
export function newEvaluation(
  clock: Clock,
  index: number,
  fields: Omit<Evaluation, "ID" | "Status" | "CreateIndex" | "ModifyIndex" | "CreateTime" | "ModifyTime"> & Partial<Pick<Evaluation, "Status">>,
): Evaluation {
  const now = clock.nowNs();
  return { ID: randomUUID(), Status: "pending", ...fields, CreateIndex: index, ModifyIndex: index, CreateTime: now, ModifyTime: now };
}

/**
 * The reference's job status: system, periodic and parameterized jobs run unless stopped; other
 * jobs run while a deployment is active or an allocation has not finished, are pending while an
 * evaluation is, dead once their work is done (or stopped), and pending before any.
 */
export function jobStatus(tables: Tables, job: JobSpec, state: Partial<Transaction<"deployment" | "allocs" | "evals">>): string {
  if (job.Type === "system" || job.Periodic !== null || job.ParameterizedJob !== null) return job.Stop ? "dead" : "running";
  const key = namespacedKey(job.Namespace, job.ID);
  // The write's own changes first: the tables it names are read through its transaction.
  const deployments = [...(state.deployment ?? tables.deployment).group(key).values()];
  const allocs = [...(state.allocs ?? tables.allocs).group(key).values()];
  const evals = [...(state.evals ?? tables.evals).group(key).values()];
  if (deployments.some((d) => ACTIVE_DEPLOYMENT.has(d.Status))) return "running";
  if (allocs.some((a) => !isTerminal(a))) return "running";
  if (evals.some((e) => e.Status === "pending" || e.Status === "blocked")) return "pending";
  if (evals.length > 0 || allocs.length > 0 || job.Stop) return "dead";
  return "pending";
}

/** Stores a job with its status as the reference computes it. */
export function putJob(context: SchedulerContext, state: Transaction<"jobs"> & Partial<Transaction<"deployment" | "allocs" | "evals">>, job: Job): void {
  const status = jobStatus(context.store.tables, job, state);
  state.jobs.put(status === job.Status ? job : { ...job, Status: status, ModifyIndex: state.index });
}

/** Stores the job's summary with a count for each of its task groups (the counts it had kept). */
export function putSummary(state: Transaction<"job_summary">, job: JobSpec): void {
  const { index } = state;
  const previous = state.job_summary.get(namespacedKey(job.Namespace, job.ID));
  const summary: Record<string, TaskGroupSummary> = {};
  for (const group of job.TaskGroups) summary[group.Name] = previous?.Summary[group.Name] ?? EMPTY_GROUP_SUMMARY;
  state.job_summary.put({
    JobID: job.ID,
    Namespace: job.Namespace,
    Summary: summary,
    Children: previous?.Children ?? { Pending: 0, Running: 0, Dead: 0 },
    CreateIndex: previous?.CreateIndex ?? index,
    ModifyIndex: index,
  });
}

/** Adds `change` to a task group's counts in the job's summary. */
export function count(state: Transaction<"job_summary">, job: Job, group: string, change: Partial<TaskGroupSummary>): void {
  const summary = state.job_summary.get(namespacedKey(job.Namespace, job.ID));
  if (summary === undefined) return;
  const counts = { ...(summary.Summary[group] ?? EMPTY_GROUP_SUMMARY) };
  for (const [field, delta] of Object.entries(change) as [keyof TaskGroupSummary, number][]) counts[field] = Math.max(0, counts[field] + delta);
  state.job_summary.put({ ...summary, Summary: { ...summary.Summary, [group]: counts }, ModifyIndex: state.index });
}

/**
 * Writes a change of an allocation: a new client status brings the client's description of it
 * (unless the change has its own) and moves the allocation from one count of the job's summary
 * to the other.
 */
export function updateAlloc(context: SchedulerContext, state: Transaction<"allocs" | "job_summary">, job: Job | undefined, alloc: Allocation, change: Partial<Allocation>, exitCode = 0): void {
  const status = change.ClientStatus ?? alloc.ClientStatus;
  const description = status !== alloc.ClientStatus && change.ClientDescription === undefined ? { ClientDescription: CLIENT_DESCRIPTIONS[status] } : {};
  const run = alloc.TaskRun === undefined || status === alloc.ClientStatus ? {} : { TaskRun: taskRun(context.clock, alloc.TaskRun, status, change.DesiredStatus ?? alloc.DesiredStatus, exitCode) };
  state.allocs.put({ ...alloc, ...description, ...change, ...run, ModifyIndex: state.index, ModifyTime: context.clock.nowNs() });
  if (job !== undefined && status !== alloc.ClientStatus) count(state, job, alloc.TaskGroup, { [SUMMARY_FIELDS[alloc.ClientStatus]]: -1, [SUMMARY_FIELDS[status]]: 1 });
}

/**
 * The tasks' record after the allocation's client status became `status`: they start when it
 * runs, and end when it completes or fails (killed, with no exit code, when the server stopped
 * it; failed with `exitCode`, or 1, when it failed). A lost or unknown allocation's client is
 * away, so nothing is known of its tasks.
 */
function taskRun(clock: Clock, run: TaskRun, status: ClientStatus, desired: Allocation["DesiredStatus"], exitCode: number): TaskRun {
  const now = clock.nowMs();
  switch (status) {
    case "running":
      return { ...run, StartedAt: run.StartedAt ?? now };
    case "complete":
    case "failed": {
      if (run.FinishedAt !== null) return run;
      const code = desired !== "run" ? null : status === "failed" ? exitCode || 1 : exitCode;
      return { ...run, FinishedAt: now, ExitCode: code };
    }
    default:
      return run;
  }
}
