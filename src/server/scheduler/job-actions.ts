/**
 * What a user asks of a job besides registering and stopping it, as the reference's job endpoint
 * does it (`nomad/job_endpoint.go`): `Revert` (an older version registered again, as a new
 * version), `Stable` (a version marked stable or not) and `Evaluate` (a new evaluation, failed
 * allocations marked to be rescheduled whatever their policy's attempts when the caller asks).
 * And the allocation's `Stop` of `nomad/alloc_endpoint.go`: the allocation marked to migrate and
 * an evaluation, which replaces it. And `Scale` and `ScaleStatus`: a group's count changed as a new
 * version, and the group's scaling events kept.
 *
 * @module
 */
import { inDeclaredOrder } from "../../structs/derive.js";
import { JOB } from "../../structs/job.js";
import { invalid, missing } from "../base/errors.js";
import type { Allocation, Deployment, DesiredTransition, Evaluation, Job, JsonObject, ScalingEventRow } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { MAX_JOB_VERSIONS, nextVersion, putVersion, type RegisterResponse } from "./register.js";
import { putSubmission, submissionKey } from "./submission.js";
import { reschedulePolicyOf } from "./reschedule.js";
import { ACTIVE_DEPLOYMENT, isParameterized, isTerminal, newEvaluation, putJob, putSummary, type SchedulerContext } from "./state.js";

/** `structs.DesiredTransition` with nothing set. */
const NO_TRANSITION: DesiredTransition = { Migrate: null, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null };

/** A register response (`structs.JobRegisterResponse`) for a write at `index`. */
function registerResponse(evaluation: Evaluation | undefined, index: number, jobModifyIndex: number): RegisterResponse {
  return { EvalID: evaluation?.ID ?? "", EvalCreateIndex: evaluation === undefined ? 0 : index, JobModifyIndex: jobModifyIndex, Warnings: "", Index: index, LastContact: 0, KnownLeader: false, NextToken: "" };
}

/** What `PUT /v1/job/<id>/revert` asks (`structs.JobRevertRequest`). */
export interface RevertRequest {
  readonly version: number;
  /** The version the job must be at now (`EnforcePriorVersion`); undefined when not enforced. */
  readonly enforcePriorVersion?: number;
}

/**
 * Reverts a job to an older version (`Job.Revert`): that version's spec registered again as the
 * job's next version, not stable and without its tag, with an evaluation (none for periodic and
 * parameterized jobs), in one `JobRegister` write. Refused for a job that does not exist or a
 * version not kept (404; the reference answers 500), the current version, or a job not at the
 * enforced prior version (400).
 */
export async function revertJob(context: SchedulerContext, namespace: string, id: string, request: RevertRequest): Promise<RegisterResponse> {
  const key = namespacedKey(namespace, id);
  const { index, result } = await context.store.write(["jobs", "job_summary", "evals", "job_versions", "job_submission"], (state) => {
    const current = state.jobs.get(key);
    if (current === undefined) throw missing(`job ${JSON.stringify(id)} not found`);
    if (request.version === current.Version) throw invalid("can't revert to current version");
    const target = state.job_versions.get(`${key}\u0000${request.version}`)?.Job;
    if (target === undefined) throw missing(`job ${JSON.stringify(id)} in namespace ${JSON.stringify(namespace)} at version ${request.version} not found`);
    if (request.enforcePriorVersion !== undefined && current.Version !== request.enforcePriorVersion) {
      throw invalid(`Current job has version ${current.Version}; enforcing version ${request.enforcePriorVersion}`);
    }
    // The older spec as a new registration (`upsertJobImpl`): the next version, at this index, submitted now.
    const reverted: Job = inDeclaredOrder(JOB, {
      ...target,
      VersionTag: null,
      Stable: false,
      Status: "pending",
      StatusDescription: "",
      Version: current.Version + 1,
      SubmitTime: context.clock.nowNs(),
      CreateIndex: current.CreateIndex,
      ModifyIndex: state.index,
      JobModifyIndex: state.index,
    });
    putSummary(state, reverted);
    const evaluation =
      reverted.Periodic === null && !isParameterized(reverted)
        ? newEvaluation(context.clock, state.index, { Namespace: namespace, Priority: reverted.Priority, Type: reverted.Type, TriggeredBy: "job-register", JobID: id, JobModifyIndex: state.index })
        : undefined;
    if (evaluation !== undefined) state.evals.put(evaluation);
    putJob(context, state, reverted);
    putVersion(state, key);
    // The new version keeps the source of the version it reverts to (`upsertJobImpl`'s reversion case).
    const source = state.job_submission.get(submissionKey(namespace, id, request.version));
    if (source !== undefined) putSubmission(state, reverted, source, state.index, MAX_JOB_VERSIONS);
    return evaluation;
  }, "JobRegister");
  return registerResponse(result, index, index);
}

/**
 * Marks a version of a job stable or not (`Job.Stable`, the state store's
 * `UpdateJobStability`): the version kept, and the job when it is at that version. A version
 * already so is left as it is (the write still happens, as the reference's Raft apply does).
 * Refused for a version not kept (404; the reference answers 500).
 */
export async function markJobStability(context: SchedulerContext, namespace: string, id: string, version: number, stable: boolean): Promise<number> {
  const key = namespacedKey(namespace, id);
  const { index } = await context.store.write(["jobs", "job_versions"], (state) => {
    const kept = state.job_versions.get(`${key}\u0000${version}`);
    if (kept === undefined) throw missing(`job ${JSON.stringify(id)} in namespace ${JSON.stringify(namespace)} at version ${version} not found`);
    if (kept.Job.Stable === stable) return;
    state.job_versions.put({ ...kept, Job: { ...kept.Job, Stable: stable, ModifyIndex: state.index } });
    // The reference's store puts the version's job in the jobs table too; only the job at that version is changed here (the decisions table).
    const job = state.jobs.get(key);
    if (job !== undefined && job.Version === version) state.jobs.put({ ...job, Stable: stable, ModifyIndex: state.index });
  }, "JobStability");
  return index;
}

/**
 * Evaluates a job again (`Job.Evaluate`): a `job-register` evaluation, and with
 * `forceReschedule` each failed allocation not yet replaced, of a group whose policy reschedules,
 * marked `DesiredTransition.ForceReschedule` (the reconciler then reschedules it now, whatever its
 * policy's attempts), in one `AllocUpdateDesiredTransition` write. Refused for a job that does
 * not exist (404) and for periodic and parameterized jobs (400), as the reference (which answers 500).
 */
export async function evaluateJob(context: SchedulerContext, namespace: string, id: string, forceReschedule: boolean): Promise<RegisterResponse> {
  const key = namespacedKey(namespace, id);
  const { index, result } = await context.store.write(["evals", "allocs"], (state) => {
    const job = context.store.tables.jobs.get(key);
    if (job === undefined) throw missing("job not found");
    if (job.Periodic !== null) throw invalid("can't evaluate periodic job");
    if (isParameterized(job)) throw invalid("can't evaluate parameterized job");
    if (forceReschedule) {
      for (const alloc of [...state.allocs.group(key).values()]) {
        const policy = reschedulePolicyOf(job, alloc.TaskGroup);
        if (policy === undefined || (policy.Attempts <= 0 && !policy.Unlimited)) continue;
        if ((alloc.NextAllocation ?? "") !== "" || alloc.ClientStatus !== "failed" || alloc.DesiredTransition?.ForceReschedule === true) continue;
        state.allocs.put({ ...alloc, DesiredTransition: { ...NO_TRANSITION, ...alloc.DesiredTransition, ForceReschedule: true }, ModifyIndex: state.index });
      }
    }
    const evaluation = newEvaluation(context.clock, state.index, { Namespace: namespace, Priority: job.Priority, Type: job.Type, TriggeredBy: "job-register", JobID: id, JobModifyIndex: job.ModifyIndex });
    state.evals.put(evaluation);
    return { evaluation, jobModifyIndex: job.ModifyIndex };
  }, "AllocUpdateDesiredTransition");
  return registerResponse(result.evaluation, index, result.jobModifyIndex);
}

/** What `PUT /v1/allocation/<id>/stop` answers (`structs.AllocStopResponse`). */
export interface AllocStopResponse {
  readonly EvalID: string;
  readonly Index: number;
}

/**
 * Stops an allocation (`Alloc.Stop`): it is marked to migrate (and with `NoShutdownDelay` and
 * `Reschedule` as asked) with an `alloc-stop` evaluation of its job, in one
 * `AllocUpdateDesiredTransition` write; the reconciler stops it and places its replacement.
 */
export async function stopAllocation(context: SchedulerContext, alloc: Allocation, options: { readonly noShutdownDelay: boolean; readonly reschedule: boolean }): Promise<AllocStopResponse> {
  const { index, result } = await context.store.write(["evals", "allocs"], (state) => {
    const current = state.allocs.get(alloc.ID);
    if (current === undefined) throw missing("alloc not found");
    const job = context.store.tables.jobs.get(namespacedKey(current.Namespace, current.JobID));
    state.allocs.put({
      ...current,
      DesiredTransition: { ...NO_TRANSITION, ...current.DesiredTransition, Migrate: true, NoShutdownDelay: options.noShutdownDelay, Reschedule: options.reschedule },
      ModifyIndex: state.index,
    });
    const evaluation = newEvaluation(context.clock, state.index, {
      Namespace: current.Namespace,
      Priority: job?.Priority ?? 50,
      Type: job?.Type ?? "service",
      TriggeredBy: "alloc-stop",
      JobID: current.JobID,
      JobModifyIndex: job?.ModifyIndex ?? 0,
    });
    state.evals.put(evaluation);
    return evaluation;
  }, "AllocUpdateDesiredTransition");
  return { EvalID: result.ID, Index: index };
}

/** The scaling events kept of each task group, newest first (`structs.JobTrackedScalingEvents`). */
export const MAX_SCALING_EVENTS = 20;

/** What `PUT /v1/job/<id>/scale` asks (`structs.JobScaleRequest`), checked by the route. */
export interface ScaleRequest {
  readonly group: string;
  /** The group's new count; undefined for an event that changes none (an error, a message). */
  readonly count?: number;
  readonly message: string;
  readonly error: boolean;
  readonly meta: JsonObject | null;
  /** The job's `JobModifyIndex` the caller expects (0: not checked). */
  readonly jobModifyIndex: number;
}

/** A number of a decoded block (its `Min` or `Max`), or undefined. */
function numberOf(value: unknown): number | undefined {
  if (typeof value === "bigint") return Number(value);
  return typeof value === "number" ? value : undefined;
}

/**
 * Scales a task group (`Job.Scale`), in the reference's three writes: with a count, the job's next
 * version with the group's count (`JobRegister`) and a `job-scaling` evaluation (`EvalUpdate`;
 * none for periodic and parameterized jobs); then the scaling event, kept as the group's newest
 * (`ScalingEventRegister`, which makes no event). Refused: an unknown job (404), a system job
 * scaled past 1, an unknown group, a count outside the group's scaling policy, an active
 * deployment of the job, a job not at the expected `JobModifyIndex` (400).
 */
export async function scaleJob(context: SchedulerContext, namespace: string, id: string, request: ScaleRequest): Promise<RegisterResponse> {
  const { store, clock } = context;
  const key = namespacedKey(namespace, id);
  const job = store.tables.jobs.get(key);
  if (job === undefined) throw missing(`job ${JSON.stringify(id)} not found`);
  const { count } = request;
  if (job.Type === "system" && count !== undefined && count > 1) throw invalid('jobs of type "system" can only be scaled between 0 and 1');
  const group = job.TaskGroups.find((each) => each.Name === request.group);
  if (group === undefined) throw invalid(`task group ${JSON.stringify(request.group)} specified for scaling does not exist in job`);
  const previousCount = group.Count;
  let jobModifyIndex = job.ModifyIndex;
  let evaluation: Evaluation | undefined;
  let evalIndex = 0;
  if (count !== undefined) {
    const scaling = typeof group.Scaling === "object" && group.Scaling !== null ? (group.Scaling as JsonObject) : undefined;
    const min = numberOf(scaling?.Min);
    const max = numberOf(scaling?.Max);
    if (min !== undefined && count < min) throw invalid(`group count was less than scaling policy minimum: ${count} < ${min}`);
    if (max !== undefined && max < count) throw invalid(`group count was greater than scaling policy maximum: ${count} > ${max}`);
    const latest = [...store.tables.deployment.group(key).values()].reduce<Deployment | undefined>((newest, each) => (newest === undefined || each.CreateIndex > newest.CreateIndex ? each : newest), undefined);
    if (latest !== undefined && ACTIVE_DEPLOYMENT.has(latest.Status) && latest.JobCreateIndex === job.CreateIndex) throw invalid("job scaling blocked due to active deployment");
    if (request.jobModifyIndex > 0 && request.jobModifyIndex !== job.JobModifyIndex) {
      throw invalid(`Enforcing job modify index ${request.jobModifyIndex}: job exists with conflicting job modify index: ${job.JobModifyIndex}`);
    }
    const written = await store.write(["jobs", "job_summary", "job_versions"], (state) => {
      const current = state.jobs.get(key);
      // Another write got there first (the reference's EnforceIndex on the job it read).
      if (current === undefined || current.JobModifyIndex !== job.JobModifyIndex) throw invalid(`Enforcing job modify index ${job.JobModifyIndex}: job exists with conflicting job modify index: ${current?.JobModifyIndex ?? 0}`);
      const spec = { ...current, TaskGroups: current.TaskGroups.map((each) => (each.Name === request.group ? { ...each, Count: count } : each)) };
      const scaled = nextVersion(context, spec, current, state.index, current.Status);
      putSummary(state, scaled);
      putJob(context, state, scaled);
      putVersion(state, key);
    }, "JobRegister");
    jobModifyIndex = written.index;
    if (job.Periodic === null && !isParameterized(job)) {
      const created = await store.write(["evals"], (state) => {
        const made = newEvaluation(clock, state.index, { Namespace: namespace, Priority: job.Priority, Type: job.Type, TriggeredBy: "job-scaling", JobID: id, JobModifyIndex: jobModifyIndex });
        state.evals.put(made);
        return made;
      }, "EvalUpdate");
      evaluation = created.result;
      evalIndex = created.index;
    }
  }
  const event: ScalingEventRow = {
    TimeMs: clock.nowMs(),
    Count: count ?? null,
    PreviousCount: previousCount,
    Error: request.error,
    Message: request.message,
    Meta: request.meta,
    EvalID: evaluation?.ID ?? null,
    CreateIndex: 0,
  };
  const { index } = await store.write(["scaling_event"], (state) => {
    const kept = state.scaling_event.get(key);
    const events = kept?.ScalingEvents ?? {};
    const groupEvents = [{ ...event, CreateIndex: state.index }, ...(events[request.group] ?? [])].slice(0, MAX_SCALING_EVENTS);
    state.scaling_event.put({ Namespace: namespace, JobID: id, ScalingEvents: { ...events, [request.group]: groupEvents }, ModifyIndex: state.index });
  }, "ScalingEventRegister");
  return { EvalID: evaluation?.ID ?? "", EvalCreateIndex: evalIndex, JobModifyIndex: jobModifyIndex, Warnings: "", Index: index, LastContact: 0, KnownLeader: false, NextToken: "" };
}

/**
 * A job's scale status (`Job.ScaleStatus`): per task group its count, and its allocations still
 * wanted that are not canaries, placed, running, healthy and unhealthy, with its scaling events;
 * the index is the newest of the job's, its allocations' and its events'. Undefined for a job
 * that does not exist.
 */
export function scaleStatus(context: SchedulerContext, namespace: string, id: string): { readonly index: number; readonly body: JsonObject } | undefined {
  const { tables } = context.store;
  const key = namespacedKey(namespace, id);
  const job = tables.jobs.get(key);
  if (job === undefined) return undefined;
  const kept = tables.scaling_event.get(key);
  const groups: Record<string, { Desired: number; Placed: number; Running: number; Healthy: number; Unhealthy: number; Events: JsonObject[] | null }> = {};
  for (const group of job.TaskGroups) {
    const events = kept?.ScalingEvents[group.Name];
    groups[group.Name] = { Desired: group.Count, Placed: 0, Running: 0, Healthy: 0, Unhealthy: 0, Events: events === undefined ? null : events.map(presentScalingEvent) };
  }
  let index = Math.max(job.ModifyIndex, kept?.ModifyIndex ?? 0);
  for (const alloc of tables.allocs.group(key).values()) {
    if (alloc.DeploymentStatus?.Canary === true || isTerminal(alloc)) continue;
    const counts = groups[alloc.TaskGroup];
    if (counts === undefined) continue;
    counts.Placed++;
    if (alloc.ClientStatus === "running") counts.Running++;
    if (alloc.DeploymentStatus?.Healthy === true) counts.Healthy++;
    else if (alloc.DeploymentStatus?.Healthy === false) counts.Unhealthy++;
    index = Math.max(index, alloc.ModifyIndex);
  }
  return { index, body: { JobID: job.ID, Namespace: job.Namespace, JobCreateIndex: job.CreateIndex, JobModifyIndex: job.ModifyIndex, JobStopped: job.Stop, TaskGroups: groups } };
}

/** A kept scaling event as the reference writes it (`structs.ScalingEvent`): its time in nanoseconds. */
function presentScalingEvent(event: ScalingEventRow): JsonObject {
  return {
    Time: BigInt(event.TimeMs) * 1_000_000n,
    Count: event.Count,
    PreviousCount: event.PreviousCount,
    Error: event.Error,
    Message: event.Message,
    Meta: event.Meta,
    EvalID: event.EvalID,
    CreateIndex: event.CreateIndex,
  };
}
