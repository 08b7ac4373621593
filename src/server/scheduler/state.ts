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
import { newUuid } from "../base/ids.js";
import type { Allocation, ClientStatus, Deployment, DeploymentState, Evaluation, Job, JobSpec, JobSummary, Node, TaskGroupSummary, TaskRun } from "../state/model.js";
import { goTime } from "../../go/time.js";
import { namespacedKey, type Store, type Tables, type Transaction } from "../state/store.js";
import type { Clock } from "../base/clock.js";
import { reschedulePolicyOf, rescheduleEligible } from "./reschedule.js";
import { clientTerminal, deregisterAllocServices } from "./services.js";

/** What the scheduler's functions read besides their transaction. */
export interface SchedulerContext {
  /** The store: its tables as they are now, for what is read outside a write, and its writes. */
  readonly store: Store;
  /** The clock of timestamps. */
  readonly clock: Clock;
  /** Milliseconds from an allocation's placement until it runs, twice over (it runs at half of it); a batch job's tasks run for all of it. Health follows the update block. */
  readonly placementDelayMs: number;
  /**
   * The evaluation being processed for each job (by its namespaced key), as the reference's eval
   * broker hands a job's evaluations to its workers one at a time: processing one takes several
   * writes, and the next waits for them.
   */
  readonly evaluating: Map<string, Promise<void>>;
}

/** The texts of deployment states (the reference's constants). */
export const DEPLOYMENT_DESCRIPTIONS = {
  running: "Deployment is running",
  needsPromotion: "Deployment is running but requires manual promotion",
  autoPromotion: "Deployment is running pending automatic promotion",
  paused: "Deployment is paused",
  resumed: "Deployment is running",
  successful: "Deployment completed successfully",
  markedFailed: "Deployment marked as failed",
  progressDeadline: "Failed due to progress deadline",
  unhealthy: "Failed due to unhealthy allocations",
  newerJob: "Cancelled due to newer version of job",
  stoppedJob: "Cancelled because job is stopped",
} as const;

/**
 * What a failed deployment's description says of its auto-revert (the reference's
 * `DeploymentStatusDescriptionRollback`, `…RollbackNoop` and `…NoRollbackTarget`), after the reason
 * it failed.
 */
export const ROLLBACK_DESCRIPTIONS = {
  rollback: (base: string, version: number) => `${base} - rolling back to job version ${version}`,
  noop: (base: string, version: number) => `${base} - not rolling back to stable job version ${version} as current job has same specification`,
  noTarget: (base: string) => `${base} - no stable job version to auto revert to`,
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

/** An evaluation's fields before it is written: what it is for (an ID when one was chosen already; pending unless it says otherwise). */
export type EvaluationFields = Omit<Evaluation, "ID" | "Status" | "CreateIndex" | "ModifyIndex" | "CreateTime" | "ModifyTime"> & Partial<Pick<Evaluation, "ID" | "Status">>;

/** A new evaluation written at `index`, now. */
export function newEvaluation(clock: Clock, index: number, fields: EvaluationFields): Evaluation {
  const now = clock.nowNs();
  return { ID: newUuid(), Status: "pending", ...fields, CreateIndex: index, ModifyIndex: index, CreateTime: now, ModifyTime: now };
}

/** The reference's `Job.IsParameterized`: a parameterized block, and not a dispatched child (which carries its parent's block). */
export function isParameterized(job: JobSpec): boolean {
  return job.ParameterizedJob !== null && !job.Dispatched;
}

/**
 * The reference's job status: system, periodic and parameterized jobs run unless stopped; other
 * jobs run while a deployment is active or an allocation has not finished, are pending while an
 * evaluation is, dead once their work is done (or stopped), and pending before any.
 */
export function jobStatus(tables: Tables, job: JobSpec, state: Partial<Transaction<"deployment" | "allocs" | "evals">>): string {
  if (job.Type === "system" || job.Periodic !== null || isParameterized(job)) return job.Stop ? "dead" : "running";
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

/**
 * Stores a job with its status as the reference computes it. A child of a periodic or
 * parameterized job whose status changes moves from one count of its parent's summary to the
 * other (`setJobSummary`), in the same write when it names the summaries (every write that can
 * change a batch job's status does).
 */
export function putJob(context: SchedulerContext, state: Transaction<"jobs"> & Partial<Transaction<"deployment" | "allocs" | "evals" | "job_summary">>, job: Job): void {
  const status = jobStatus(context.store.tables, job, state);
  const before = state.jobs.get(namespacedKey(job.Namespace, job.ID))?.Status ?? "";
  state.jobs.put(status === job.Status ? job : { ...job, Status: status, ModifyIndex: state.index });
  if (job.ParentID !== "" && status !== before && state.job_summary !== undefined) countChild(state as Transaction<"job_summary">, job, before, status);
}

/** The children counts of a job's summary, by the job status each counts. */
const CHILDREN_FIELDS: Readonly<Record<string, keyof JobSummary["Children"]>> = { pending: "Pending", running: "Running", dead: "Dead" };

/** Moves a child from its old status's count (none for a new child) to its new one in its parent's summary, when the parent still has one. */
export function countChild(state: Transaction<"job_summary">, child: JobSpec, before: string, after: string): void {
  const key = namespacedKey(child.Namespace, child.ParentID);
  const summary = state.job_summary.get(key);
  if (summary === undefined) return;
  const children = { ...summary.Children };
  const from = CHILDREN_FIELDS[before];
  const to = CHILDREN_FIELDS[after];
  if (from !== undefined) children[from] = Math.max(0, children[from] - 1);
  if (to !== undefined) children[to] += 1;
  state.job_summary.put({ ...summary, Children: children, ModifyIndex: state.index });
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
 *
 * An allocation its client reports failed, in a write that names the evaluations and
 * deployments (a client's report: the `finish` step, a scenario rule), is what the reference's
 * `Node.UpdateAlloc` makes of it: unhealthy in its deployment when it had not been found
 * healthy yet (the client's health check), and, when its group's reschedule policy allows
 * another attempt, an `alloc-failure` evaluation in the same write.
 */
export function updateAlloc(
  context: SchedulerContext,
  state: Transaction<"allocs" | "job_summary" | "service_registrations"> & Partial<Transaction<"evals" | "deployment">>,
  job: Job | undefined,
  alloc: Allocation,
  change: Partial<Allocation>,
  exitCode = 0,
): void {
  const status = change.ClientStatus ?? alloc.ClientStatus;
  const description = status !== alloc.ClientStatus && change.ClientDescription === undefined ? { ClientDescription: CLIENT_DESCRIPTIONS[status] } : {};
  const run = alloc.TaskRun === undefined || status === alloc.ClientStatus ? {} : { TaskRun: taskRun(context.clock, alloc.TaskRun, status, change.DesiredStatus ?? alloc.DesiredStatus, exitCode) };
  let updated: Allocation = { ...alloc, ...description, ...change, ...run, ModifyIndex: state.index, ModifyTime: context.clock.nowNs() };
  const failed = status === "failed" && alloc.ClientStatus !== "failed" && (change.DesiredStatus ?? alloc.DesiredStatus) === "run";
  // One updated in place into its deployment has no deployment status yet: its client's health tracker reports it all the same.
  if (failed && state.deployment !== undefined && updated.DeploymentID !== "" && (updated.DeploymentStatus?.Healthy ?? null) === null) {
    const deployment = state.deployment.get(updated.DeploymentID);
    if (deployment !== undefined && ACTIVE_DEPLOYMENT.has(deployment.Status)) {
      updated = { ...updated, DeploymentStatus: { Canary: false, ...updated.DeploymentStatus, Healthy: false, Timestamp: new Date(context.clock.nowMs()).toISOString(), ModifyIndex: state.index } };
      updateDeploymentWithAlloc(context, state as Transaction<"deployment">, alloc, updated);
    }
  }
  state.allocs.put(updated);
  // An allocation that becomes client-terminal loses its services in the same write (`deregisterServicesForTerminalAllocs`).
  if (status !== alloc.ClientStatus && clientTerminal(status)) deregisterAllocServices(state, alloc.ID);
  if (job !== undefined && status !== alloc.ClientStatus) count(state, job, alloc.TaskGroup, { [SUMMARY_FIELDS[alloc.ClientStatus]]: -1, [SUMMARY_FIELDS[status]]: 1 });
  if (failed && state.evals !== undefined && job !== undefined && (alloc.FollowupEvalID ?? "") === "") {
    const policy = reschedulePolicyOf(job, alloc.TaskGroup);
    if (policy !== undefined && rescheduleEligible(alloc.RescheduleTracker, policy, context.clock.nowMs()) && !batchedFailureEval(context, state as Transaction<"evals">, alloc)) {
      state.evals.put(newEvaluation(context.clock, state.index, { Namespace: alloc.Namespace, Priority: job.Priority, Type: job.Type, TriggeredBy: "alloc-failure", JobID: alloc.JobID, JobModifyIndex: 0 }));
    }
  }
}

/**
 * How long after a client's update the reference's server writes it, with every other update that
 * came meanwhile, in one write (`batchUpdateInterval`).
 */
export const CLIENT_BATCH_MS = 50;

/**
 * Whether the allocation's job has an `alloc-failure` evaluation still pending that was made
 * within {@link CLIENT_BATCH_MS} (in this write, or a client's update of the same moment): the
 * reference's server makes one per job for a batch of updates (`batchUpdate`), and that
 * evaluation, not yet processed, sees this failure too.
 */
function batchedFailureEval(context: SchedulerContext, state: Transaction<"evals">, alloc: Allocation): boolean {
  const since = context.clock.nowNs() - BigInt(CLIENT_BATCH_MS) * 1_000_000n;
  for (const evaluation of state.evals.group(namespacedKey(alloc.Namespace, alloc.JobID)).values()) {
    if (evaluation.TriggeredBy === "alloc-failure" && evaluation.Status === "pending" && (evaluation.CreateTime ?? 0n) >= since) return true;
  }
  return false;
}

/**
 * Counts an allocation's change in its deployment, as the reference's state store does with
 * every allocation it writes (`updateDeploymentWithAlloc`): a new one (or one new to the
 * deployment) is placed, a canary among its `PlacedCanaries`, the first placement starts the
 * progress deadline; a health found moves the healthy or unhealthy count (and the deadline).
 */
export function updateDeploymentWithAlloc(context: SchedulerContext, state: Transaction<"deployment">, existing: Allocation | undefined, alloc: Allocation): void {
  const deployment = alloc.DeploymentID === "" ? undefined : state.deployment.get(alloc.DeploymentID);
  const group = deployment?.TaskGroups[alloc.TaskGroup];
  if (deployment === undefined || group === undefined) return;
  const before = existing?.DeploymentStatus?.Healthy ?? null;
  const after = alloc.DeploymentStatus?.Healthy ?? null;
  const placed = existing === undefined || existing.DeploymentID !== alloc.DeploymentID ? 1 : 0;
  const healthy = placed === 0 && before === null && after === true ? 1 : 0;
  const unhealthy = placed === 0 && after === false && before !== false ? 1 : 0;
  if (placed + healthy + unhealthy === 0) return;
  const nowMs = context.clock.nowMs();
  let requireProgressBy = group.RequireProgressBy;
  if (group.ProgressDeadline > 0) {
    if (placed !== 0 && requireProgressBy === null) requireProgressBy = new Date(nowMs + group.ProgressDeadline / 1e6).toISOString();
    else if (healthy !== 0 && (requireProgressBy === null || Date.parse(requireProgressBy) < nowMs + group.ProgressDeadline / 1e6)) requireProgressBy = new Date(nowMs + group.ProgressDeadline / 1e6).toISOString();
  }
  const canary = alloc.DeploymentStatus?.Canary === true && !(group.PlacedCanaries ?? []).includes(alloc.ID);
  const counted: DeploymentState = {
    ...group,
    RequireProgressBy: requireProgressBy,
    PlacedCanaries: canary ? [...(group.PlacedCanaries ?? []), alloc.ID] : group.PlacedCanaries,
    PlacedAllocs: group.PlacedAllocs + placed,
    HealthyAllocs: group.HealthyAllocs + healthy - (before === true && after === false ? 1 : 0),
    UnhealthyAllocs: group.UnhealthyAllocs + unhealthy,
  };
  state.deployment.put({ ...deployment, TaskGroups: { ...deployment.TaskGroups, [alloc.TaskGroup]: counted }, ModifyIndex: state.index, ModifyTime: alloc.ModifyTime });
}

/**
 * Sets a deployment's status (`updateDeploymentStatusImpl`): a deployment running or paused
 * again has its progress deadline start over, and a successful one makes its job's version
 * stable. A deployment already finished is left as it is.
 */
export function updateDeploymentStatus(
  context: SchedulerContext,
  state: Transaction<"deployment"> & Partial<Transaction<"jobs" | "job_versions">>,
  id: string,
  status: string,
  description: string,
): Deployment | undefined {
  const deployment = state.deployment.get(id);
  if (deployment === undefined || !ACTIVE_DEPLOYMENT.has(deployment.Status)) return undefined;
  const nowMs = context.clock.nowMs();
  const restart = status === "running" || status === "paused";
  const groups = Object.fromEntries(
    Object.entries(deployment.TaskGroups).map(([name, group]) => [name, restart && group.ProgressDeadline > 0 ? { ...group, RequireProgressBy: new Date(nowMs + group.ProgressDeadline / 1e6).toISOString() } : group]),
  );
  const updated: Deployment = { ...deployment, Status: status, StatusDescription: description, TaskGroups: groups, ModifyIndex: state.index, ModifyTime: context.clock.nowNs() };
  state.deployment.put(updated);
  if (status === "successful" && state.jobs !== undefined && state.job_versions !== undefined) markStable(state as Transaction<"jobs" | "job_versions">, updated);
  return updated;
}

/** The job's version that a successful deployment rolled out is stable (`updateJobStabilityImpl`), the job too when it is still that version. */
function markStable(state: Transaction<"jobs" | "job_versions">, deployment: Deployment): void {
  const key = namespacedKey(deployment.Namespace, deployment.JobID);
  const job = state.jobs.get(key);
  if (job !== undefined && job.Version === deployment.JobVersion && !job.Stable) state.jobs.put({ ...job, Stable: true, ModifyIndex: state.index });
  const version = state.job_versions.get(`${key}\u0000${deployment.JobVersion}`);
  if (version !== undefined && !version.Job.Stable) state.job_versions.put({ ...version, Job: { ...version.Job, Stable: true, ModifyIndex: state.index } });
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

/**
 * What a node's registration at `atMs` adds to it: the time its status was set, in whole seconds
 * (`Node.Register` sets it to the request's time), and its first event, `Node registered`, at that
 * second and the registration's index (the state store's `UpsertNode`).
 */
export function registered(atMs: number, index: number): Pick<Node, "StatusUpdatedAt" | "Events"> {
  const seconds = Math.floor(atMs / 1000);
  return { StatusUpdatedAt: seconds, Events: [{ Message: "Node registered", Subsystem: "Cluster", Details: null, Timestamp: goTime(seconds * 1000), CreateIndex: index }] };
}
