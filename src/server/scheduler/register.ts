/**
 * Registering and stopping jobs, as the reference's job endpoint does (`nomad/job_endpoint.go`,
 * `Register` and `Deregister`): the job is checked, a new version is written when its spec
 * changed (the versions kept as `state_store.go` prunes them), with the counts and resources of
 * the job as it was when the request asks to preserve them, `EnforceIndex` is checked, and an
 * evaluation is written for the scheduler.
 *
 * @module
 */
import { deregisterAllocServices } from "./services.js";
import { inDeclaredOrder } from "../../structs/derive.js";
import { JOB } from "../../structs/job.js";
import { invalid } from "../base/errors.js";
import type { Evaluation, Job, JobSpec, JsonObject } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import { formatErrors } from "../../go/multierror.js";
import { canonicalizeJob, specChanged, validateJobIn, type RegisterRequest } from "./job-spec.js";
import { countChild, isParameterized, newEvaluation, putJob, putSummary, type SchedulerContext } from "./state.js";
import { deleteSubmissions, putSubmission, submittedSource, type SubmittedSource } from "./submission.js";
import { formatWarnings } from "../../go/multierror.js";

/** The versions of a job kept (the reference's `JobDefaultTrackedVersions`), and its newest stable one. */
export const MAX_JOB_VERSIONS = 6;

/** What `PUT /v1/jobs` answers. */
export interface RegisterResponse {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobModifyIndex: number;
  readonly Warnings: string;
  readonly Index: number;
  readonly LastContact: number;
  readonly KnownLeader: boolean;
  readonly NextToken: string;
}

/** What `DELETE /v1/job/<id>` answers. */
export interface DeregisterResponse {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobModifyIndex: number;
  readonly VolumeEvalID: string;
  readonly VolumeEvalIndex: number;
  readonly Index: number;
  readonly LastContact: number;
  readonly KnownLeader: boolean;
  readonly NextToken: string;
}

/** Thrown inside a registration's write when the state it was planned on has moved (another agent's write): the registration plans again. */
const STALE_PLAN = Symbol("the job changed since the registration was planned");

/** What registering a spec over the job as it is does. */
interface Plan {
  /** The spec differs from the job's (or there is no job): a new version. */
  readonly changed: boolean;
  /** The scheduler has work: an evaluation (none for periodic and parameterized jobs). */
  readonly needsEval: boolean;
}

/**
 * Registers a job (`PUT /v1/jobs`), with the namespace and region already resolved. The checks
 * are made again inside the write, on the latest state: when another agent of a shared store
 * changed the job in between, the registration starts over with the new state.
 */
export async function register(context: SchedulerContext, request: RegisterRequest, namespace: string, region: string): Promise<RegisterResponse> {
  const { store } = context;
  const spec = canonicalizeJob(request.job, namespace, region);
  const key = namespacedKey(spec.Namespace, spec.ID);
  // A source too large to keep is dropped with a warning (`submissionController`).
  const { source, warning } = submittedSource(request.submission);
  const warnings = formatWarnings(warning === undefined ? [] : [warning]);
  for (;;) {
    const previous = store.tables.jobs.get(key);
    const plan = planRegistration(context, spec, request, previous);
    if (plan === undefined) return registerResponse("", 0, previous!.JobModifyIndex, previous!.ModifyIndex, warnings);
    try {
      const { index, result: evaluation } = await store.write(["jobs", "job_summary", "evals", "job_versions", "job_submission"], (state) => {
        // The state the plan was made on has moved: plan again.
        if (state.jobs.get(key) !== previous || (plan.changed && store.tables.namespaces.get(spec.Namespace) === undefined)) throw STALE_PLAN;
        return registerAt(context, state, spec, request, previous, plan, source);
      }, "JobRegister");
      const jobModifyIndex = plan.changed ? index : previous!.JobModifyIndex;
      return registerResponse(evaluation?.ID ?? "", evaluation === undefined ? 0 : index, jobModifyIndex, index, warnings);
    } catch (error) {
      if (error !== STALE_PLAN) throw error;
    }
  }
}

/** What registering `spec` over `previous` does; undefined when nothing (an unchanged periodic or parameterized job). */
function planRegistration(context: SchedulerContext, spec: JobSpec, request: RegisterRequest, previous: Job | undefined): Plan | undefined {
  const errors = validateJobIn(context.store.tables, spec);
  // Invalid jobs are client mistakes: 400, where the reference answers 500 (decisions table).
  if (errors.length > 0) throw invalid(formatErrors(errors));
  if (request.enforceIndex) enforceIndex(previous, request.jobModifyIndex);
  if (previous !== undefined) validateJobUpdate(previous, spec);
  const changed = previous === undefined || specChanged(previous, spec);
  const needsEval = spec.Periodic === null && !isParameterized(spec);
  return changed || needsEval ? { changed, needsEval } : undefined;
}

/**
 * The job's next version as `spec` registers it at `index` (its first when there is no
 * `previous`): not stable, submitted now, created when the first was, with `status` until the
 * state store's rules set it. In `structs.Job`'s order, the order its row keeps (and its JSON is
 * written in).
 */
export function nextVersion(context: SchedulerContext, spec: JobSpec, previous: Job | undefined, index: number, status: string): Job {
  return inDeclaredOrder(JOB, {
    ...spec,
    Status: status,
    StatusDescription: "",
    Stable: false,
    Version: previous === undefined ? 0 : previous.Version + 1,
    SubmitTime: context.clock.nowNs(),
    CreateIndex: previous?.CreateIndex ?? index,
    ModifyIndex: index,
    JobModifyIndex: index,
  });
}

/** The registration's write: the job (when changed) with its source, its summary, and its evaluation (when one is needed). */
function registerAt(
  context: SchedulerContext,
  state: Transaction<"jobs" | "job_summary" | "evals" | "job_versions" | "job_submission">,
  spec: JobSpec,
  request: RegisterRequest,
  previous: Job | undefined,
  plan: Plan,
  source: SubmittedSource | undefined,
): Evaluation | undefined {
  const { index } = state;
  let job = previous;
  if (plan.changed) {
    job = nextVersion(context, preserved(spec, previous, request), previous, index, "pending");
    putSummary(state, job);
  }
  const evaluation = plan.needsEval
    ? newEvaluation(context.clock, index, { Namespace: spec.Namespace, Priority: request.evalPriority || spec.Priority, Type: spec.Type, TriggeredBy: "job-register", JobID: spec.ID, JobModifyIndex: job!.JobModifyIndex })
    : undefined;
  if (evaluation !== undefined) state.evals.put(evaluation);
  putJob(context, state, job!);
  if (plan.changed) {
    putVersion(state, namespacedKey(spec.Namespace, spec.ID));
    // An unchanged spec makes no version, so keeps no source (the reference writes only its evaluation).
    if (source !== undefined) putSubmission(state, job!, source, index, MAX_JOB_VERSIONS);
  }
  return evaluation;
}

/**
 * The reference's `updatePreservedValues` (`nomad/state/state_store.go`): with `PreserveCounts`,
 * each task group the job had keeps its count; with `PreserveResources`, each task it had (by
 * group and task name) keeps its resources. Applied when the version is written: whether the spec
 * changed was decided on the spec as sent, as the reference decides it.
 */
function preserved(spec: JobSpec, previous: Job | undefined, request: RegisterRequest): JobSpec {
  if (previous === undefined || (request.preserveCounts !== true && request.preserveResources !== true)) return spec;
  const before = new Map(previous.TaskGroups.map((group) => [group.Name, group]));
  const taskGroups = spec.TaskGroups.map((group) => {
    const old = before.get(group.Name);
    if (old === undefined) return group;
    const count = request.preserveCounts === true ? old.Count : group.Count;
    if (request.preserveResources !== true || !Array.isArray(group.Tasks)) return { ...group, Count: count };
    const oldTasks = new Map((Array.isArray(old.Tasks) ? (old.Tasks as JsonObject[]) : []).map((task) => [task.Name, task]));
    const tasks = (group.Tasks as JsonObject[]).map((task) => {
      const oldTask = oldTasks.get(task.Name);
      return oldTask === undefined ? task : { ...task, Resources: structuredClone(oldTask.Resources ?? null) };
    });
    return { ...group, Count: count, Tasks: tasks };
  });
  return { ...spec, TaskGroups: taskGroups };
}

/**
 * Records the job as it is now as its version (`GET /v1/job/<id>/versions`), keeping the newest
 * {@link MAX_JOB_VERSIONS} and the newest stable one, as the reference prunes them.
 */
export function putVersion(state: Transaction<"jobs" | "job_versions">, key: string): void {
  const job = state.jobs.get(key);
  if (job === undefined) return;
  state.job_versions.put({ Namespace: job.Namespace, ID: job.ID, Version: job.Version, Job: job });
  const versions = [...state.job_versions.group(key).values()].sort((a, b) => b.Version - a.Version);
  const newestStable = versions.find((version) => version.Job.Stable);
  for (const version of versions.slice(MAX_JOB_VERSIONS)) if (version !== newestStable) state.job_versions.delete(`${key}\u0000${version.Version}`);
}

/**
 * The reference's `validateJobUpdate`: a job keeps its type, and stays periodic or not,
 * parameterized or not, dispatched or not (`Dispatched` is dropped from what a client sends, so
 * a dispatched child cannot be registered again).
 */
function validateJobUpdate(previous: Job, spec: JobSpec): void {
  if (previous.Type !== spec.Type) throw invalid(`cannot update job from type ${JSON.stringify(previous.Type)} to ${JSON.stringify(spec.Type)}`);
  const periodic = (job: JobSpec) => job.Periodic !== null;
  if (periodic(previous) && !periodic(spec)) throw invalid("cannot update periodic job to being non-periodic");
  if (!periodic(previous) && periodic(spec)) throw invalid("cannot update non-periodic job to being periodic");
  if (isParameterized(previous) && !isParameterized(spec)) throw invalid("cannot update parameterized job to being non-parameterized");
  if (!isParameterized(previous) && isParameterized(spec)) throw invalid("cannot update non-parameterized job to being parameterized");
  if (previous.Dispatched !== spec.Dispatched) throw invalid("field 'Dispatched' is read-only");
}

/** `EnforceIndex`: the job must be at the modify index the client says (0: must not exist). */
function enforceIndex(previous: Job | undefined, expected: number): void {
  const prefix = `Enforcing job modify index ${expected}`;
  if (expected === 0 && previous !== undefined) throw invalid(`${prefix}: job already exists`);
  if (expected !== 0 && previous === undefined) throw invalid(`${prefix}: job does not exist`);
  if (previous !== undefined && expected !== 0 && previous.JobModifyIndex !== expected) {
    throw invalid(`${prefix}: job exists with conflicting job modify index: ${previous.JobModifyIndex}`);
  }
}

/**
 * Stops a job (`DELETE /v1/job/<id>`): a new version with `Stop` set and a `job-deregister`
 * evaluation, which the scheduler turns into stopped allocations and cancelled deployments; with
 * `purge`, the job, its summary, allocations and deployments are removed and its pending
 * evaluations completed. A job that does not exist is answered with zeros, as the reference does.
 */
export async function deregister(context: SchedulerContext, namespace: string, id: string, options: { readonly purge: boolean; readonly evalPriority?: number }): Promise<DeregisterResponse> {
  const { store, clock } = context;
  const key = namespacedKey(namespace, id);
  const zero: DeregisterResponse = { EvalID: "", EvalCreateIndex: 0, JobModifyIndex: 0, VolumeEvalID: "", VolumeEvalIndex: 0, Index: 0, LastContact: 0, KnownLeader: false, NextToken: "" };
  if (store.tables.jobs.get(key) === undefined) return zero;
  const { index, result } = await store.write(["jobs", "job_summary", "evals", "allocs", "deployment", "job_versions", "scaling_event", "job_submission", "service_registrations"], (state) => {
    const job = state.jobs.get(key);
    if (job === undefined) return undefined;
    const now = clock.nowNs();
    const needsEval = job.Periodic === null && !isParameterized(job);
    if (options.purge) {
      state.jobs.delete(key);
      // A child purged counts as dead in its parent's summary (`DeleteJobTxn`).
      if (job.ParentID !== "") countChild(state, job, job.Status, "dead");
      state.job_summary.delete(key);
      for (const alloc of [...state.allocs.group(key).values()]) {
        state.allocs.delete(alloc.ID);
        // Its native services go with it (`deleteServiceRegistrationByAllocIDTxn`).
        deregisterAllocServices(state, alloc.ID);
      }
      for (const deployment of [...state.deployment.group(key).values()]) state.deployment.delete(deployment.ID);
      for (const version of [...state.job_versions.group(key).values()]) state.job_versions.delete(`${key}\u0000${version.Version}`);
      // Its scaling events go with it (`DeleteJobTxn`).
      if (state.scaling_event.get(key) !== undefined) state.scaling_event.delete(key);
      deleteSubmissions(state, namespace, id);
      for (const evaluation of [...state.evals.group(key).values()]) {
        if (evaluation.Status === "pending") state.evals.put({ ...evaluation, Status: "complete", StatusDescription: `job ${id} deleted`, ModifyIndex: state.index, ModifyTime: now });
      }
    } else {
      putJob(context, state, { ...job, Stop: true, Version: job.Version + 1, SubmitTime: now, ModifyIndex: state.index, JobModifyIndex: state.index });
      putVersion(state, key);
    }
    // The reference writes "service" whatever the job's type.
    const evaluation = needsEval
      ? newEvaluation(clock, state.index, { Namespace: namespace, Priority: options.evalPriority || job.Priority || 50, Type: "service", TriggeredBy: "job-deregister", JobID: id, JobModifyIndex: state.index })
      : undefined;
    if (evaluation !== undefined) state.evals.put(evaluation);
    return evaluation;
  }, "JobDeregister");
  return { ...zero, EvalID: result?.ID ?? "", EvalCreateIndex: index, JobModifyIndex: index, Index: index };
}

function registerResponse(evalId: string, evalCreateIndex: number, jobModifyIndex: number, index: number, warnings = ""): RegisterResponse {
  return { EvalID: evalId, EvalCreateIndex: evalCreateIndex, JobModifyIndex: jobModifyIndex, Warnings: warnings, Index: index, LastContact: 0, KnownLeader: false, NextToken: "" };
}
