/**
 * Deployments, as the reference's deployment watcher runs them (`nomad/deploymentwatcher/`): the
 * reconciler creates a deployment (`reconciler.ts`); once its allocations are healthy the watcher
 * pushes it along with an evaluation when the reconciler has more to roll out, promotes canaries
 * that may promote themselves, or finds it complete; it fails a deployment scripted to fail; it
 * lets the reconciler replace an allocation that failed while the deployment went on, or fails
 * the deployment when it cannot; and a client fails, pauses, resumes or promotes it
 * (`updateDeployment`).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { invalid, missing } from "../base/errors.js";
import type { Allocation, Deployment, Evaluation } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import { formatErrors } from "../../go/multierror.js";
import { reconcile, requiresPromotion } from "./reconciler.js";
import { reconcileInput } from "./generic-sched.js";
import { reschedulePolicyOf, rescheduleEligible } from "./reschedule.js";
import { ACTIVE_DEPLOYMENT, DEPLOYMENT_DESCRIPTIONS, isTerminal, newEvaluation, putJob, updateDeploymentStatus, updateDeploymentWithAlloc, type SchedulerContext } from "./state.js";

/** The job `Meta` key that makes its deployments fail: their allocations never become healthy. */
export const META_FAIL_DEPLOYMENT = "bexpr.fail_deployment";

/** How long the watcher gathers allocation changes before it writes (`perJobEvalBatchPeriod`). */
export const WATCHER_BATCH_MS = 1000;

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

/** The evaluation the watcher writes to have the scheduler act on the deployment (`getEval`). */
function watcherEvaluation(context: SchedulerContext, state: { readonly index: number }, deployment: Deployment, job = context.store.tables.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID))): Evaluation {
  return newEvaluation(context.clock, state.index, {
    Namespace: deployment.Namespace,
    Priority: deployment.EvalPriority || (job?.Priority ?? 50),
    Type: job?.Type ?? "service",
    TriggeredBy: "deployment-watcher",
    JobID: deployment.JobID,
    JobModifyIndex: deployment.JobModifyIndex,
    DeploymentID: deployment.ID,
  });
}

/**
 * A deployment action (`PauseDeployment`, `FailDeployment`, `PromoteDeployment`): `fail` marks it
 * failed, `pause` pauses or resumes it, `promote` promotes its healthy canaries (every group, or
 * those named). Each but a pause writes a `deployment-watcher` evaluation in the same write, as
 * the reference's watcher does: a pause answers `EvalID: ""` and `EvalCreateIndex: 0`. An
 * unknown deployment is a 404, a finished one and a promotion of unhealthy canaries a 400, where
 * the reference answers 500 (the decisions table).
 */
export async function updateDeployment(context: SchedulerContext, id: string, action: DeploymentAction): Promise<DeploymentUpdateResponse> {
  const { store } = context;
  const verb = action.kind === "pause" ? (action.pause ? "pause" : "resume") : action.kind;
  const found = (state: Transaction<"deployment">) => {
    const deployment = state.deployment.get(id);
    if (deployment === undefined) throw missing("deployment not found");
    if (!ACTIVE_DEPLOYMENT.has(deployment.Status)) throw invalid(`can't ${verb} terminal deployment`);
    return deployment;
  };
  // Each names the tables it changes (a table named moves its index).
  const { index, result } =
    action.kind === "fail"
      ? await store.write(["deployment", "evals", "jobs"], (state) => failAt(context, state, found(state), DEPLOYMENT_DESCRIPTIONS.markedFailed), "DeploymentStatusUpdate")
      : action.kind === "promote"
        ? await store.write(["deployment", "evals", "allocs"], (state) => promoteAt(context, state, found(state), action.groups), "DeploymentPromote")
        : await store.write(["deployment", "evals"], (state) => {
            const deployment = found(state);
            const [status, description] = action.pause ? ["paused", DEPLOYMENT_DESCRIPTIONS.paused] : ["running", DEPLOYMENT_DESCRIPTIONS.resumed];
            updateDeploymentStatus(context, state, id, status, description);
            // Pausing asks nothing of the scheduler; resuming has it place what the pause held.
            const evaluation = action.pause ? undefined : watcherEvaluation(context, state, deployment);
            if (evaluation !== undefined) state.evals.put(evaluation);
            return evaluation;
          }, "DeploymentStatusUpdate");
  return { EvalID: result?.ID ?? "", EvalCreateIndex: result === undefined ? 0 : index, DeploymentModifyIndex: index, RevertedJobVersion: null, Index: index };
}

/** Marks the deployment failed with an evaluation (`upsertDeploymentStatusUpdate`), the job's status following. */
function failAt(context: SchedulerContext, state: Transaction<"deployment" | "evals" | "jobs">, deployment: Deployment, description: string): Evaluation {
  updateDeploymentStatus(context, state, deployment.ID, "failed", description);
  const key = namespacedKey(deployment.Namespace, deployment.JobID);
  const evaluation = watcherEvaluation(context, state, deployment, state.jobs.get(key));
  state.evals.put(evaluation);
  const job = state.jobs.get(key);
  if (job !== undefined) putJob(context, state, job);
  return evaluation;
}

/**
 * Promotes the deployment's groups (all, or those named), with an evaluation, once each has as
 * many healthy canaries as it wants (`UpdateDeploymentPromotion`): the promoted canaries are
 * canaries no more, and a deployment that needs no promotion any more says it is running.
 */
function promoteAt(context: SchedulerContext, state: Transaction<"deployment" | "evals" | "allocs">, deployment: Deployment, groups: readonly string[] | undefined): Evaluation {
  const unknown = (groups ?? []).filter((group) => !Object.hasOwn(deployment.TaskGroups, group));
  if (unknown.length > 0) throw invalid(`deployment has no task group ${JSON.stringify(unknown[0])}`);
  const promoting = (group: string) => groups === undefined || groups.includes(group);
  const canaryIds = new Set(Object.values(deployment.TaskGroups).flatMap((group) => group.PlacedCanaries ?? []));
  const promotable = [...state.allocs.group(namespacedKey(deployment.Namespace, deployment.JobID)).values()].filter(
    (alloc) => alloc.DeploymentID === deployment.ID && canaryIds.has(alloc.ID) && promoting(alloc.TaskGroup) && !isTerminal(alloc) && alloc.DeploymentStatus?.Healthy === true,
  );
  const unhealthy = Object.entries(deployment.TaskGroups)
    .filter(([name, group]) => promoting(name) && group.DesiredCanaries > 0)
    .map(([name, group]) => [name, promotable.filter((alloc) => alloc.TaskGroup === name).length, group.DesiredCanaries] as const)
    .filter(([, healthy, wanted]) => healthy < wanted)
    .map(([name, healthy, wanted]) => `Task group ${JSON.stringify(name)} has ${healthy}/${wanted} healthy allocations`);
  if (unhealthy.length > 0) throw invalid(formatErrors(unhealthy));
  const nowMs = context.clock.nowMs();
  const promotedGroups = Object.fromEntries(
    Object.entries(deployment.TaskGroups).map(([name, group]) => {
      if (!promoting(name)) return [name, group];
      const restarted = group.ProgressDeadline > 0 && group.RequireProgressBy !== null ? new Date(nowMs + group.ProgressDeadline / 1e6).toISOString() : group.RequireProgressBy;
      return [name, { ...group, Promoted: true, RequireProgressBy: restarted }];
    }),
  );
  const promoted: Deployment = { ...deployment, TaskGroups: promotedGroups, ModifyIndex: state.index, ModifyTime: context.clock.nowNs() };
  state.deployment.put(requiresPromotion(promoted) || promoted.Status !== "running" ? promoted : { ...promoted, StatusDescription: DEPLOYMENT_DESCRIPTIONS.running });
  const evaluation = watcherEvaluation(context, state, deployment);
  state.evals.put(evaluation);
  for (const alloc of promotable) state.allocs.put({ ...alloc, DeploymentStatus: { ...alloc.DeploymentStatus!, Canary: false, ModifyIndex: state.index }, ModifyIndex: state.index });
  return evaluation;
}

/** The deployment's allocations its clients have not yet found healthy or not (one updated in place into it has no deployment status yet). */
function awaitingHealth(context: SchedulerContext, deployment: Deployment): Allocation[] {
  const allocs = context.store.tables.allocs.group(namespacedKey(deployment.Namespace, deployment.JobID)).values();
  return [...allocs].filter((alloc) => alloc.DeploymentID === deployment.ID && !isTerminal(alloc) && (alloc.DeploymentStatus?.Healthy ?? null) === null);
}

/**
 * When an allocation joined its deployment (agent milliseconds): when it was placed, or, for one
 * updated in place (no deployment status yet), at its last write, the plan's (or its client's
 * start, later).
 */
function joinedMs(alloc: Allocation): number {
  return Number((alloc.DeploymentStatus === null ? alloc.ModifyTime : alloc.CreateTime) / 1_000_000n);
}

/** When the deployment's allocations were last placed (agent milliseconds), or undefined when none waits to be found healthy. */
export function lastPlacedMs(context: SchedulerContext, deployment: Deployment): number | undefined {
  const waiting = awaitingHealth(context, deployment);
  return waiting.length === 0 ? undefined : Math.max(...waiting.map(joinedMs));
}

/**
 * The deployment's time is up (the `complete` step): its clients find its allocations healthy,
 * or unhealthy when its job scripts a failure (`bexpr.fail_deployment`), in one write; then the
 * watcher acts on it (see {@link watchDeployment}). A paused or finished deployment is left as it is.
 */
export async function completeDeployment(context: SchedulerContext, deploymentId: string): Promise<void> {
  const { store, clock } = context;
  const deployment = store.tables.deployment.get(deploymentId);
  if (deployment === undefined || deployment.Status !== "running") return;
  const job = store.tables.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
  const healthy = job?.Meta?.[META_FAIL_DEPLOYMENT] !== "true";
  const waiting = awaitingHealth(context, deployment).map((alloc) => alloc.ID);
  if (waiting.length > 0) {
    await store.write(["allocs", "deployment"], (state) => {
      const timestamp = new Date(clock.nowMs()).toISOString();
      for (const id of waiting) {
        const alloc = state.allocs.get(id);
        if (alloc === undefined || (alloc.DeploymentStatus?.Healthy ?? null) !== null || isTerminal(alloc)) continue;
        const found: Allocation = { ...alloc, DeploymentStatus: { Canary: false, ...alloc.DeploymentStatus, Healthy: healthy, Timestamp: timestamp, ModifyIndex: state.index }, ModifyIndex: state.index };
        state.allocs.put(found);
        updateDeploymentWithAlloc(context, state, alloc, found);
      }
    }, "AllocClientUpdate");
  }
  await watchDeployment(context, deploymentId);
}

/**
 * The watcher looks at a running deployment: one scripted to fail fails (at its progress deadline
 * when it has one, `Failed due to progress deadline`; else `Failed due to unhealthy
 * allocations`); canaries that all promote themselves and are healthy are promoted
 * (`autoPromoteDeployment`); canaries waiting for a manual promotion wait. Otherwise, when the
 * reconciler has more to roll out (the next `MaxParallel` allocations, the old ones a promotion
 * replaces) it writes an evaluation for it (`createBatchedUpdate`); when the deployment is
 * complete it is successful, the job's version stable. The reference has every healthy
 * allocation bring an evaluation, whose plan marks a complete deployment successful; the agent
 * writes the deployment's success directly.
 */
export async function watchDeployment(context: SchedulerContext, deploymentId: string): Promise<void> {
  const { store } = context;
  const deployment = store.tables.deployment.get(deploymentId);
  if (deployment === undefined || deployment.Status !== "running") return;
  const key = namespacedKey(deployment.Namespace, deployment.JobID);
  const job = store.tables.jobs.get(key);
  if (job === undefined) return;
  const running = (state: Transaction<"deployment">) => state.deployment.get(deploymentId)?.Status === "running";
  if (job.Meta?.[META_FAIL_DEPLOYMENT] === "true") {
    const description = Object.values(deployment.TaskGroups).some((group) => group.ProgressDeadline > 0) ? DEPLOYMENT_DESCRIPTIONS.progressDeadline : DEPLOYMENT_DESCRIPTIONS.unhealthy;
    await store.write(["deployment", "evals", "jobs"], (state) => void (running(state) && failAt(context, state, state.deployment.get(deploymentId)!, description)), "DeploymentStatusUpdate");
    return;
  }
  if (requiresPromotion(deployment)) {
    if (canAutoPromote(context, deployment)) await store.write(["deployment", "evals", "allocs"], (state) => void (running(state) && promoteAt(context, state, state.deployment.get(deploymentId)!, undefined)), "DeploymentPromote");
    return;
  }
  const results = reconcile(reconcileInput(context, job, { ID: randomUUID(), Priority: deployment.EvalPriority }));
  if (results.place.length + results.destructive.length + results.inplaceUpdate.length + results.stop.length + results.attributeUpdates.length > 0) {
    await store.write(["evals"], (state) => {
      if (store.tables.deployment.get(deploymentId)?.Status === "running") state.evals.put(watcherEvaluation(context, state, deployment, job));
    }, "EvalUpdate");
    return;
  }
  const success = results.deploymentUpdates.find((update) => update.DeploymentID === deploymentId && update.Status === "successful");
  if (success !== undefined) {
    // What the plan of the reference's watcher evaluation writes (see above).
    await store.write(["deployment", "jobs", "job_versions"], (state) => {
      if (!running(state)) return;
      updateDeploymentStatus(context, state, deploymentId, success.Status, success.StatusDescription);
      putJob(context, state, state.jobs.get(key) ?? job);
    }, "ApplyPlanResults");
  }
}

/** Whether every group with canaries promotes itself and has them all healthy (`autoPromoteDeployment`). */
function canAutoPromote(context: SchedulerContext, deployment: Deployment): boolean {
  const allocs = [...context.store.tables.allocs.group(namespacedKey(deployment.Namespace, deployment.JobID)).values()];
  return Object.values(deployment.TaskGroups).every((group) => {
    if (group.DesiredCanaries < 1) return true;
    const placed = group.PlacedCanaries ?? [];
    const healthy = allocs.filter((alloc) => placed.includes(alloc.ID) && alloc.DeploymentStatus?.Healthy === true).length;
    return group.AutoPromote && placed.length >= group.DesiredCanaries && healthy === group.DesiredCanaries;
  });
}

/**
 * Allocations of a deployment still going that were found unhealthy (their tasks failed): the
 * watcher lets the reconciler replace them (`DesiredTransition.Reschedule`, with an evaluation;
 * the reconciler holds failed allocations of a deployment still going otherwise), or fails the
 * deployment when it cannot wait for its progress deadline (`shouldFailEarly`: the group has
 * none, or the allocation may not be rescheduled again).
 */
export async function allowReplacements(context: SchedulerContext, deploymentId: string): Promise<void> {
  const { store, clock } = context;
  const deployment = store.tables.deployment.get(deploymentId);
  if (deployment === undefined || !ACTIVE_DEPLOYMENT.has(deployment.Status)) return;
  const key = namespacedKey(deployment.Namespace, deployment.JobID);
  const job = store.tables.jobs.get(key);
  if (job === undefined) return;
  const unhealthy = [...store.tables.allocs.group(key).values()].filter((alloc) => alloc.DeploymentID === deploymentId && alloc.DeploymentStatus?.Healthy === false && alloc.DesiredStatus === "run" && alloc.DesiredTransition?.Reschedule !== true);
  if (unhealthy.length === 0) return;
  const failEarly = unhealthy.some(
    (alloc) => (deployment.TaskGroups[alloc.TaskGroup]?.ProgressDeadline ?? 0) === 0 || !rescheduleEligible(alloc.RescheduleTracker, reschedulePolicyOf(job, alloc.TaskGroup), clock.nowMs()),
  );
  if (failEarly) {
    await store.write(["deployment", "evals", "jobs"], (state) => {
      const current = state.deployment.get(deploymentId);
      if (current !== undefined && ACTIVE_DEPLOYMENT.has(current.Status)) failAt(context, state, current, DEPLOYMENT_DESCRIPTIONS.unhealthy);
    }, "DeploymentStatusUpdate");
    return;
  }
  await store.write(["evals", "allocs"], (state) => {
    for (const { ID } of unhealthy) {
      const alloc = state.allocs.get(ID);
      if (alloc === undefined) continue;
      state.allocs.put({ ...alloc, DesiredTransition: { Migrate: null, ForceReschedule: null, NoShutdownDelay: null, ...alloc.DesiredTransition, Reschedule: true }, ModifyIndex: state.index });
    }
    state.evals.put(watcherEvaluation(context, state, deployment, job));
  }, "AllocUpdateDesiredTransition");
}
