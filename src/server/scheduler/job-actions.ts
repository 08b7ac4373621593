/**
 * What a user asks of a job besides registering and stopping it, as the reference's job endpoint
 * does it (`nomad/job_endpoint.go`): `Revert` (an older version registered again, as a new
 * version), `Stable` (a version marked stable or not) and `Evaluate` (a new evaluation, failed
 * allocations marked to be rescheduled whatever their policy's attempts when the caller asks).
 * And the allocation's `Stop` of `nomad/alloc_endpoint.go`: the allocation marked to migrate and
 * an evaluation, which replaces it.
 *
 * @module
 */
import { inDeclaredOrder } from "../../structs/derive.js";
import { JOB } from "../../structs/job.js";
import { invalid, missing } from "../base/errors.js";
import type { Allocation, DesiredTransition, Evaluation, Job } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { putVersion, type RegisterResponse } from "./register.js";
import { reschedulePolicyOf } from "./reschedule.js";
import { isParameterized, newEvaluation, putJob, putSummary, type SchedulerContext } from "./state.js";

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
  const { index, result } = await context.store.write(["jobs", "job_summary", "evals", "job_versions"], (state) => {
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
