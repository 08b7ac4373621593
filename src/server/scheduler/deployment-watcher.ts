/**
 * Deployments, as the reference's deployment watcher runs them (`nomad/deploymentwatcher/`): a
 * service job's new version starts one (the reconciler asks, `startDeployment`), the watcher
 * counts its allocations placed and healthy and ends it (`complete`), and a client fails, pauses,
 * resumes or promotes it (`updateDeployment`).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { invalid, missing } from "../domain/errors.js";
import type { Deployment, DeploymentState, Evaluation, Job, JobSpec, JsonObject } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import { ACTIVE_DEPLOYMENT, DEPLOYMENT_DESCRIPTIONS, newEvaluation, putJob, type SchedulerContext } from "./state.js";

/** The job `Meta` key that makes its deployments fail: their allocations never become healthy. */
export const META_FAIL_DEPLOYMENT = "bexpr.fail_deployment";

/** What the deployment actions (`fail`, `pause`, `promote`) answer. */
export interface DeploymentUpdateResponse {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly DeploymentModifyIndex: number;
  readonly RevertedJobVersion: number | null;
  readonly Index: number;
}

/** A client's action on a deployment. */
export type DeploymentAction = { readonly kind: "fail" } | { readonly kind: "pause"; readonly pause: boolean } | { readonly kind: "promote"; readonly groups?: readonly string[] };

/** A task group's update strategy: the job's, with the group's own fields over it. */
export function updateStrategy(job: JobSpec, group: JobSpec["TaskGroups"][number]): JsonObject {
  return { ...(job.Update ?? {}), ...((group.Update as JsonObject | null | undefined) ?? {}) };
}

/**
 * Starts a deployment for a service job whose update strategy allows one (MaxParallel above 0)
 * and that wants at least one allocation; returns its ID.
 */
export function startDeployment(context: SchedulerContext, state: Transaction<"deployment">, job: Job, evaluation: Evaluation): string | undefined {
  const { index } = state;
  const { clock } = context;
  if (job.Type !== "service") return undefined;
  const groups: Record<string, DeploymentState> = {};
  for (const group of job.TaskGroups) {
    const update = updateStrategy(job, group);
    if (Number(update.MaxParallel ?? 0) <= 0 || group.Count <= 0) continue;
    const deadline = Number(update.ProgressDeadline ?? 0);
    groups[group.Name] = {
      AutoRevert: update.AutoRevert === true,
      AutoPromote: update.AutoPromote === true,
      ProgressDeadline: deadline,
      RequireProgressBy: deadline > 0 ? new Date(clock.nowMs() + deadline / 1e6).toISOString() : null,
      Promoted: false,
      PlacedCanaries: null,
      DesiredCanaries: Number(update.Canary ?? 0),
      DesiredTotal: group.Count,
      PlacedAllocs: 0,
      HealthyAllocs: 0,
      UnhealthyAllocs: 0,
    };
  }
  if (Object.keys(groups).length === 0) return undefined;
  const now = clock.nowNs();
  const deployment: Deployment = {
    ID: randomUUID(),
    Namespace: job.Namespace,
    JobID: job.ID,
    JobVersion: job.Version,
    JobModifyIndex: job.JobModifyIndex,
    JobSpecModifyIndex: job.JobModifyIndex,
    JobCreateIndex: job.CreateIndex,
    IsMultiregion: false,
    TaskGroups: groups,
    Status: "running",
    StatusDescription: DEPLOYMENT_DESCRIPTIONS.running,
    EvalPriority: evaluation.Priority,
    CreateIndex: index,
    ModifyIndex: index,
    CreateTime: now,
    ModifyTime: now,
  };
  state.deployment.put(deployment);
  return deployment.ID;
}

/** Updates an active deployment's task groups (and status); cancelled ones stay as they are. */
export function updateDeploymentGroups(
  context: SchedulerContext,
  state: Transaction<"deployment">,
  deploymentId: string | undefined,
  change: (state: DeploymentState, name: string) => DeploymentState,
  status?: Pick<Deployment, "Status" | "StatusDescription">,
): void {
  const deployment = deploymentId === undefined ? undefined : state.deployment.get(deploymentId);
  if (deployment === undefined || !ACTIVE_DEPLOYMENT.has(deployment.Status)) return;
  const groups = Object.fromEntries(Object.entries(deployment.TaskGroups).map(([name, state]) => [name, change(state, name)]));
  state.deployment.put({ ...deployment, ...status, TaskGroups: groups, ModifyIndex: state.index, ModifyTime: context.clock.nowNs() });
}

/**
 * A deployment action: `fail` marks it failed, `pause` pauses or resumes it, `promote` promotes
 * its canaries (every group, or those named). Each writes a `deployment-watcher` evaluation, as
 * the reference's deployment watcher does. An unknown deployment is a 404 and a finished one a
 * 400, where the reference answers 500 (the decisions table).
 */
export async function updateDeployment(context: SchedulerContext, id: string, action: DeploymentAction): Promise<DeploymentUpdateResponse> {
  const { store, clock } = context;
  const verb = action.kind === "pause" ? (action.pause ? "pause" : "resume") : action.kind;
  const { index, result } = await store.write(["deployment", "evals", "jobs"], (state) => {
    const deployment = state.deployment.get(id);
    if (deployment === undefined) throw missing("deployment not found");
    if (!ACTIVE_DEPLOYMENT.has(deployment.Status)) throw invalid(`can't ${verb} terminal deployment`);
    const now = clock.nowNs();
    let change: Partial<Deployment>;
    switch (action.kind) {
      case "fail":
        change = { Status: "failed", StatusDescription: DEPLOYMENT_DESCRIPTIONS.markedFailed };
        break;
      case "pause":
        change = action.pause ? { Status: "paused", StatusDescription: DEPLOYMENT_DESCRIPTIONS.paused } : { Status: "running", StatusDescription: DEPLOYMENT_DESCRIPTIONS.resumed };
        break;
      case "promote": {
        const unknown = (action.groups ?? []).filter((group) => !Object.hasOwn(deployment.TaskGroups, group));
        if (unknown.length > 0) throw invalid(`deployment has no task group ${JSON.stringify(unknown[0])}`);
        const groups = Object.fromEntries(
          Object.entries(deployment.TaskGroups).map(([name, group]) => [name, action.groups === undefined || action.groups.includes(name) ? { ...group, Promoted: true } : group]),
        );
        change = { TaskGroups: groups, StatusDescription: deployment.Status === "running" ? DEPLOYMENT_DESCRIPTIONS.running : deployment.StatusDescription };
        break;
      }
    }
    state.deployment.put({ ...deployment, ...change, ModifyIndex: state.index, ModifyTime: now });
    const evaluation = newEvaluation(clock, state.index, {
      Namespace: deployment.Namespace,
      Priority: deployment.EvalPriority,
      Type: "service",
      TriggeredBy: "deployment-watcher",
      JobID: deployment.JobID,
      JobModifyIndex: deployment.JobModifyIndex,
      DeploymentID: deployment.ID,
    });
    state.evals.put(evaluation);
    const job = state.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
    if (job !== undefined) putJob(context, state, job);
    return evaluation;
  });
  return { EvalID: result.ID, EvalCreateIndex: index, DeploymentModifyIndex: index, RevertedJobVersion: null, Index: index };
}

/**
 * The deployment's time is up. Its allocations are healthy and it completes, unless its job
 * scripts a failure (`bexpr.fail_deployment`: it fails, by its progress deadline when it has one)
 * or canaries wait for promotion (it says so, and completes once promoted). A paused or finished
 * deployment is left as it is.
 */
export async function completeDeployment(context: SchedulerContext, deploymentId: string): Promise<void> {
  const { store, clock } = context;
  const deployment = store.tables.deployment.get(deploymentId);
  if (deployment === undefined || deployment.Status !== "running") return;
  const job = store.tables.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
  const failing = job?.Meta?.[META_FAIL_DEPLOYMENT] === "true";
  const awaitingPromotion = !failing && Object.values(deployment.TaskGroups).some((group) => group.DesiredCanaries > 0 && !group.Promoted && !group.AutoPromote);
  // Nothing to write while it waits and already says so (a write would wake the scheduler again).
  if (awaitingPromotion && deployment.StatusDescription === DEPLOYMENT_DESCRIPTIONS.needsPromotion) return;
  await store.write(["deployment", "jobs", "allocs", "job_versions"], (state) => {
    const current = state.deployment.get(deploymentId);
    if (current === undefined || current.Status !== "running") return;
    const jobKey = namespacedKey(current.Namespace, current.JobID);
    const healthy = !failing;
    const timestamp = new Date(clock.nowMs()).toISOString();
    for (const alloc of [...state.allocs.group(jobKey).values()]) {
      if (alloc.DeploymentID !== deploymentId || alloc.DeploymentStatus?.Healthy === healthy) continue;
      state.allocs.put({ ...alloc, DeploymentStatus: { Healthy: healthy, Timestamp: timestamp, Canary: alloc.DeploymentStatus?.Canary ?? false, ModifyIndex: state.index }, ModifyIndex: state.index });
    }
    if (failing) {
      const description = Object.values(current.TaskGroups).some((group) => group.ProgressDeadline > 0) ? DEPLOYMENT_DESCRIPTIONS.progressDeadline : DEPLOYMENT_DESCRIPTIONS.unhealthy;
      updateDeploymentGroups(context, state, deploymentId, (group) => ({ ...group, PlacedAllocs: group.DesiredTotal, HealthyAllocs: 0, UnhealthyAllocs: group.DesiredTotal }), { Status: "failed", StatusDescription: description });
    } else if (awaitingPromotion) {
      const canaries = [...state.allocs.group(jobKey).values()].filter((alloc) => alloc.DeploymentID === deploymentId && alloc.DeploymentStatus?.Canary === true);
      const placedCanaries = (name: string) => canaries.filter((alloc) => alloc.TaskGroup === name).map((alloc) => alloc.ID);
      updateDeploymentGroups(context, state, deploymentId, (group, name) => ({ ...group, PlacedAllocs: group.DesiredTotal, HealthyAllocs: group.DesiredTotal, PlacedCanaries: placedCanaries(name) }), {
        Status: "running",
        StatusDescription: DEPLOYMENT_DESCRIPTIONS.needsPromotion,
      });
    } else {
      updateDeploymentGroups(context, state, deploymentId, (group) => ({ ...group, PlacedAllocs: group.DesiredTotal, HealthyAllocs: group.DesiredTotal }), {
        Status: "successful",
        StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful,
      });
    }
    const after = state.deployment.get(deploymentId);
    const job = state.jobs.get(jobKey);
    if (job !== undefined && after?.Status === "successful" && job.Version === after.JobVersion) {
      putJob(context, state, { ...job, Stable: true, ModifyIndex: state.index });
      // The version the deployment made stable says so too.
      const versionKey = `${jobKey}\u0000${job.Version}`;
      const version = state.job_versions.get(versionKey);
      if (version !== undefined) state.job_versions.put({ ...version, Job: { ...version.Job, Stable: true, ModifyIndex: state.index } });
    } else if (job !== undefined) putJob(context, state, job);
  });
}
