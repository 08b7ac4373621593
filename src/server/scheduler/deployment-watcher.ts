/**
 * Deployments, as the reference's deployment watcher runs them (`nomad/deploymentwatcher/`): the
 * reconciler creates a deployment (`reconciler.ts`); the simulated clients find its allocations
 * healthy or not on the update block's times (`healthDue`, the client's health tracker); once
 * they are healthy the watcher pushes it along with an evaluation when the reconciler has more to
 * roll out, promotes canaries that may promote themselves, or finds it complete; it lets the
 * reconciler replace an allocation found unhealthy while the deployment went on, or fails the
 * deployment when it cannot; it fails a deployment past its progress deadline; a client fails,
 * pauses, resumes or promotes it (`updateDeployment`). A failed deployment whose groups say
 * `AutoRevert` reverts its job to its latest stable version (`failAt`).
 *
 * @module
 */
import { newUuid } from "../base/ids.js";
import { invalid, missing } from "../base/errors.js";
import { inDeclaredOrder } from "../../structs/derive.js";
import { JOB } from "../../structs/job.js";
import type { Allocation, Deployment, Evaluation, Job } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import { formatErrors } from "../../go/multierror.js";
import { reconcile, requiresPromotion, updateStrategyOf } from "./reconciler.js";
import { specChanged } from "./job-spec.js";
import { putVersion } from "./register.js";
import { reconcileInput } from "./generic-sched.js";
import { isNoOp } from "./plan.js";
import { computeSystemPlan, isSystemJob } from "./system-sched.js";
import { reschedulePolicyOf, rescheduleEligible } from "./reschedule.js";
import { ACTIVE_DEPLOYMENT, DEPLOYMENT_DESCRIPTIONS, isTerminal, newEvaluation, putJob, putSummary, ROLLBACK_DESCRIPTIONS, updateDeploymentStatus, updateDeploymentWithAlloc, type SchedulerContext } from "./state.js";

/** The job `Meta` key that makes its deployments fail: their allocations are found unhealthy at their `HealthyDeadline`. */
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

/** A client's action on a deployment; `health` sets the health of its allocations, as a client's health checks would. */
export type DeploymentAction =
  | { readonly kind: "fail" }
  | { readonly kind: "pause"; readonly pause: boolean }
  | { readonly kind: "promote"; readonly groups?: readonly string[] }
  | { readonly kind: "health"; readonly healthy: readonly string[]; readonly unhealthy: readonly string[] };

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
 * failed (reverting the job when a group says `AutoRevert`: `RevertedJobVersion` is the version
 * reverted to, see {@link failAt}), `pause` pauses or resumes it, `promote` promotes its healthy canaries (every group, or
 * those named). Each but a pause writes a `deployment-watcher` evaluation in the same write, as
 * the reference's watcher does: a pause answers `EvalID: ""` and `EvalCreateIndex: 0`. An
 * unknown deployment is a 404, a finished one and a promotion of unhealthy canaries a 400, where
 * the reference answers 500 (the decisions table).
 */
export async function updateDeployment(context: SchedulerContext, id: string, action: DeploymentAction): Promise<DeploymentUpdateResponse> {
  const { store } = context;
  if (action.kind === "health") return setAllocHealth(context, id, action.healthy, action.unhealthy);
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
      ? await store.write(FAIL_TABLES, (state) => {
          const deployment = found(state);
          // A user's failure reverts when any group of the deployment says AutoRevert (`FailDeployment`).
          return failAt(context, state, deployment, DEPLOYMENT_DESCRIPTIONS.markedFailed, Object.values(deployment.TaskGroups).some((group) => group.AutoRevert));
        }, "DeploymentStatusUpdate")
      : action.kind === "promote"
        ? await store.write(["deployment", "evals", "allocs"], (state) => ({ evaluation: promoteAt(context, state, found(state), action.groups), reverted: null }), "DeploymentPromote")
        : await store.write(["deployment", "evals"], (state) => {
            const deployment = found(state);
            const [status, description] = action.pause ? ["paused", DEPLOYMENT_DESCRIPTIONS.paused] : ["running", DEPLOYMENT_DESCRIPTIONS.resumed];
            updateDeploymentStatus(context, state, id, status, description);
            // Pausing asks nothing of the scheduler; resuming has it place what the pause held.
            const evaluation = action.pause ? undefined : watcherEvaluation(context, state, deployment);
            if (evaluation !== undefined) state.evals.put(evaluation);
            return { evaluation, reverted: null };
          }, "DeploymentStatusUpdate");
  const { evaluation, reverted } = result;
  return { EvalID: evaluation?.ID ?? "", EvalCreateIndex: evaluation === undefined ? 0 : index, DeploymentModifyIndex: index, RevertedJobVersion: reverted, Index: index };
}

/**
 * Sets the health of a deployment's allocations (`Deployment.SetAllocHealth`, the watcher's
 * `setAllocHealth` and the state store's `UpdateDeploymentAllocHealth`), in one
 * `DeploymentAllocHealth` write: each allocation's `DeploymentStatus.Healthy`, the deployment's
 * counts, and an evaluation for the scheduler; an unhealthy one fails the deployment, which
 * reverts its job when that allocation's group says `AutoRevert`. Refused (400; the reference
 * answers 500) with no allocation named, for a finished deployment, or an allocation unknown or
 * of another deployment; an unknown deployment is a 404.
 */
async function setAllocHealth(context: SchedulerContext, id: string, healthy: readonly string[], unhealthy: readonly string[]): Promise<DeploymentUpdateResponse> {
  if (healthy.length + unhealthy.length === 0) throw invalid("must specify at least one healthy/unhealthy allocation ID");
  const { clock } = context;
  const { index, result } = await context.store.write(
    [...FAIL_TABLES, "allocs"],
    (state) => {
      const deployment = state.deployment.get(id);
      if (deployment === undefined) throw missing("deployment not found");
      if (!ACTIVE_DEPLOYMENT.has(deployment.Status)) throw invalid("can't set health of allocations for a terminal deployment");
      const timestamp = new Date(clock.nowMs()).toISOString();
      const set = (allocId: string, value: boolean) => {
        const alloc = state.allocs.get(allocId);
        if (alloc === undefined) throw invalid(`unknown alloc ${JSON.stringify(allocId)}`);
        if (alloc.DeploymentID !== id) throw invalid(`alloc ${JSON.stringify(allocId)} is not part of deployment ${JSON.stringify(id)}`);
        const updated: Allocation = { ...alloc, DeploymentStatus: { Canary: false, ...alloc.DeploymentStatus, Healthy: value, Timestamp: timestamp, ModifyIndex: state.index }, ModifyTime: clock.nowNs(), ModifyIndex: state.index };
        state.allocs.put(updated);
        updateDeploymentWithAlloc(context, state, alloc, updated);
        return alloc;
      };
      for (const allocId of healthy) set(allocId, true);
      const failed = unhealthy.map((allocId) => set(allocId, false));
      const current = state.deployment.get(id)!;
      if (failed.length > 0) {
        // The job reverts when the group of an allocation found unhealthy says AutoRevert.
        const rollback = failed.some((alloc) => current.TaskGroups[alloc.TaskGroup]?.AutoRevert === true);
        return failAt(context, state, current, DEPLOYMENT_DESCRIPTIONS.unhealthy, rollback);
      }
      const evaluation = watcherEvaluation(context, state, current);
      state.evals.put(evaluation);
      return { evaluation, reverted: null };
    },
    "DeploymentAllocHealth",
  );
  return { EvalID: result.evaluation.ID, EvalCreateIndex: index, DeploymentModifyIndex: index, RevertedJobVersion: result.reverted, Index: index };
}

/** The tables a deployment's failure writes: the deployment, its evaluation, and the job (its status, or the version an auto-revert registers). */
const FAIL_TABLES = ["deployment", "evals", "jobs", "job_summary", "job_versions"] as const;

/** What failing a deployment wrote: its evaluation, and the version the job was reverted to (null when none). */
interface FailResult {
  readonly evaluation: Evaluation;
  readonly reverted: number | null;
}

/**
 * Marks the deployment failed with an evaluation, in one write (`upsertDeploymentStatusUpdate`).
 * With `rollback` (a group's `AutoRevert`), the job goes back to its latest stable version
 * (`latestStableJob`) as the reference's state store registers it (`upsertJobImpl`): a new version
 * with that version's spec, and the description says so (`handleRollbackValidity`); there is no
 * revert when no version is stable, or when the stable one has the job's spec already (a revert
 * would fail the same way, over and over). The job's status follows.
 */
function failAt(context: SchedulerContext, state: Transaction<(typeof FAIL_TABLES)[number]>, deployment: Deployment, base: string, rollback: boolean): FailResult {
  const key = namespacedKey(deployment.Namespace, deployment.JobID);
  const job = state.jobs.get(key);
  let description = base;
  let target: Job | undefined;
  if (rollback && job !== undefined) {
    const stable = latestStableJob(state, key);
    if (stable === undefined) description = ROLLBACK_DESCRIPTIONS.noTarget(base);
    else if (!specChanged(job, stable)) description = ROLLBACK_DESCRIPTIONS.noop(base, stable.Version);
    else {
      description = ROLLBACK_DESCRIPTIONS.rollback(base, stable.Version);
      target = stable;
    }
  }
  updateDeploymentStatus(context, state, deployment.ID, "failed", description);
  if (job !== undefined && target !== undefined) {
    // The stable version's job as it was kept (its Stable flag and submit time too), at the next version and this index.
    const reverted: Job = inDeclaredOrder(JOB, { ...target, Version: job.Version + 1, CreateIndex: job.CreateIndex, ModifyIndex: state.index, JobModifyIndex: state.index });
    putSummary(state, reverted);
    putJob(context, state, reverted);
    putVersion(state, key);
  }
  const evaluation = watcherEvaluation(context, state, deployment, state.jobs.get(key));
  state.evals.put(evaluation);
  const current = state.jobs.get(key);
  if (current !== undefined) putJob(context, state, current);
  return { evaluation, reverted: target?.Version ?? null };
}

/** The job's newest version that is stable (`latestStableJob`: its versions newest first). */
function latestStableJob(state: Transaction<"job_versions">, key: string): Job | undefined {
  const versions = [...state.job_versions.group(key).values()].sort((a, b) => b.Version - a.Version);
  return versions.find((version) => version.Job.Stable)?.Job;
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
function awaitingHealth(allocs: Iterable<Allocation>, deployment: Deployment): Allocation[] {
  return [...allocs].filter((alloc) => alloc.DeploymentID === deployment.ID && !isTerminal(alloc) && (alloc.DeploymentStatus?.Healthy ?? null) === null);
}

/**
 * When an allocation joined its deployment (agent milliseconds): when it was placed, or, for one
 * updated in place (no deployment status yet), at its last write, the plan's: its client's health
 * tracker starts again then.
 */
function joinedMs(alloc: Allocation): number {
  return Number((alloc.DeploymentStatus === null ? alloc.ModifyTime : alloc.CreateTime) / 1_000_000n);
}

/** When a client finds an allocation healthy or unhealthy (agent milliseconds). */
export interface HealthDue {
  readonly atMs: number;
  readonly healthy: boolean;
}

/**
 * When the client finds an allocation of a deployment healthy or not, as the reference's health
 * tracker does with task states (`client/allochealth/tracker.go`; the simulated tasks have no
 * checks, so `checks` comes to the same): healthy once its tasks have run its group's
 * `MinHealthyTime`, unhealthy at its `HealthyDeadline` (counted from its placement, when its
 * client starts watching it) when it is not healthy by then, or when its job scripts a failure
 * (`bexpr.fail_deployment`). A test that retimed the `complete` step (`retimedMs`) has the
 * allocation found that long after its placement instead. Undefined while nothing can be told
 * (a pending allocation with no deadline).
 */
export function healthDue(context: SchedulerContext, alloc: Allocation, job: Job | undefined, retimedMs: number | undefined): HealthDue | undefined {
  const placedMs = joinedMs(alloc);
  const fails = job?.Meta?.[META_FAIL_DEPLOYMENT] === "true";
  if (retimedMs !== undefined) return { atMs: placedMs + retimedMs, healthy: !fails };
  const group = job?.TaskGroups.find((each) => each.Name === alloc.TaskGroup);
  const update = job === undefined || group === undefined ? undefined : updateStrategyOf(job, group);
  const deadlineMs = update === undefined || update.HealthyDeadline <= 0 ? undefined : placedMs + update.HealthyDeadline / 1e6;
  // A scripted failure without a deadline still ends: at the placement delay, as before the update block was read.
  if (fails) return { atMs: deadlineMs ?? placedMs + context.placementDelayMs, healthy: false };
  if (alloc.ClientStatus !== "running") return deadlineMs === undefined ? undefined : { atMs: deadlineMs, healthy: false };
  // An allocation updated in place ran before it joined: its health is tracked from then.
  const startedMs = Math.max(alloc.TaskRun?.StartedAt ?? Number(alloc.ModifyTime / 1_000_000n), placedMs);
  const healthyMs = startedMs + (update?.MinHealthyTime ?? 0) / 1e6;
  return deadlineMs !== undefined && healthyMs > deadlineMs ? { atMs: deadlineMs, healthy: false } : { atMs: healthyMs, healthy: true };
}

/** When the next of the deployment's allocations is found healthy or not (agent milliseconds), or undefined when none waits for a time. */
export function nextHealthMs(context: SchedulerContext, deployment: Deployment, retimedMs: number | undefined): number | undefined {
  const { tables } = context.store;
  const job = tables.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
  const due = awaitingHealth(tables.allocs.group(namespacedKey(deployment.Namespace, deployment.JobID)).values(), deployment)
    .map((alloc) => healthDue(context, alloc, job, retimedMs)?.atMs)
    .filter((atMs): atMs is number => atMs !== undefined);
  return due.length === 0 ? undefined : Math.min(...due);
}

/**
 * The clients find the deployment's allocations whose time has come healthy or unhealthy (see
 * {@link healthDue}), in one write; then, when one was found healthy, the watcher acts on the
 * deployment (see {@link watchDeployment}). An unhealthy one is the watcher's a moment later (see
 * {@link allowReplacements}). A paused or finished deployment is left as it is. The step stands
 * for the time `atMs` (its timer's), or now when later: settling runs it before its time.
 */
export async function completeDeployment(context: SchedulerContext, deploymentId: string, retimedMs: number | undefined, atMs = 0): Promise<void> {
  const { store, clock } = context;
  const deployment = store.tables.deployment.get(deploymentId);
  if (deployment === undefined || deployment.Status !== "running") return;
  const key = namespacedKey(deployment.Namespace, deployment.JobID);
  const waiting = awaitingHealth(store.tables.allocs.group(key).values(), deployment).map((alloc) => alloc.ID);
  // Only health found now moves the watcher: a step whose allocations were all told before it (a
  // deadline timer set while they were pending, say) writes nothing, as a client's tracker stops.
  let found = false;
  if (waiting.length > 0) {
    await store.write(["allocs", "deployment"], (state) => {
      const nowMs = Math.max(clock.nowMs(), atMs);
      const job = store.tables.jobs.get(key);
      const timestamp = new Date(clock.nowMs()).toISOString();
      for (const id of waiting) {
        const alloc = state.allocs.get(id);
        if (alloc === undefined || (alloc.DeploymentStatus?.Healthy ?? null) !== null || isTerminal(alloc)) continue;
        const due = healthDue(context, alloc, job, retimedMs);
        if (due === undefined || due.atMs > nowMs) continue;
        const updated: Allocation = { ...alloc, DeploymentStatus: { Canary: false, ...alloc.DeploymentStatus, Healthy: due.healthy, Timestamp: timestamp, ModifyIndex: state.index }, ModifyIndex: state.index };
        state.allocs.put(updated);
        updateDeploymentWithAlloc(context, state, alloc, updated);
        found ||= due.healthy;
      }
    }, "AllocClientUpdate");
  }
  if (found) await watchDeployment(context, deploymentId);
}

/**
 * When the deployment must have made progress (`getDeploymentProgressCutoff`): the earliest
 * `RequireProgressBy` of its groups not done yet (agent milliseconds); undefined when none has one.
 */
export function progressCutoffMs(context: SchedulerContext, deployment: Deployment): number | undefined {
  const done = doneGroups(context.store.tables.allocs.group(namespacedKey(deployment.Namespace, deployment.JobID)).values(), deployment);
  const cutoffs = Object.entries(deployment.TaskGroups)
    .filter(([name, group]) => !done.has(name) && group.RequireProgressBy !== null)
    .map(([, group]) => Date.parse(group.RequireProgressBy!))
    .filter((ms) => !Number.isNaN(ms));
  return cutoffs.length === 0 ? undefined : Math.min(...cutoffs);
}

/** The deployment's groups that look done (`doneGroups`): promoted, or without canaries, and with as many healthy allocations running as they want. */
function doneGroups(allocs: Iterable<Allocation>, deployment: Deployment): Set<string> {
  const healthy = new Map<string, number>();
  for (const alloc of allocs) {
    if (alloc.DeploymentID !== deployment.ID || isTerminal(alloc) || alloc.DeploymentStatus?.Healthy !== true) continue;
    healthy.set(alloc.TaskGroup, (healthy.get(alloc.TaskGroup) ?? 0) + 1);
  }
  const done = Object.entries(deployment.TaskGroups).filter(([name, group]) => (group.DesiredCanaries === 0 || group.Promoted) && (healthy.get(name) ?? 0) >= group.DesiredTotal);
  return new Set(done.map(([name]) => name));
}

/**
 * The deployment's progress deadline has passed (the watcher's deadline timer): the health its
 * clients found by now counts first; then, unless it is paused, a group short of healthy
 * allocations (its canaries, before promotion) fails it, `Failed due to progress deadline`,
 * reverting the job when such a group's update says `AutoRevert` (`shouldFail`). The step stands
 * for the time `atMs`, as {@link completeDeployment}.
 */
export async function passProgressDeadline(context: SchedulerContext, deploymentId: string, retimedMs: number | undefined, atMs = 0): Promise<void> {
  await completeDeployment(context, deploymentId, retimedMs, atMs);
  const { store, clock } = context;
  const deployment = store.tables.deployment.get(deploymentId);
  if (deployment === undefined || deployment.Status !== "running") return;
  const cutoff = progressCutoffMs(context, deployment);
  if (cutoff === undefined || cutoff > Math.max(clock.nowMs(), atMs)) return;
  const job = store.tables.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
  const failing = Object.entries(deployment.TaskGroups).filter(([, group]) => group.HealthyAllocs < (group.DesiredCanaries > 0 && !group.Promoted ? group.DesiredCanaries : group.DesiredTotal));
  if (failing.length === 0) return;
  const rollback = failing.some(([name]) => {
    const group = job?.TaskGroups.find((each) => each.Name === name);
    return job !== undefined && group !== undefined && updateStrategyOf(job, group)?.AutoRevert === true;
  });
  await store.write(FAIL_TABLES, (state) => {
    const current = state.deployment.get(deploymentId);
    if (current?.Status === "running") failAt(context, state, current, DEPLOYMENT_DESCRIPTIONS.progressDeadline, rollback);
  }, "DeploymentStatusUpdate");
}

/**
 * The watcher looks at a running deployment: canaries that all promote themselves and are healthy
 * are promoted (`autoPromoteDeployment`); canaries waiting for a manual promotion wait. Otherwise, when the
 * reconciler has more to roll out (the next `MaxParallel` allocations, the old ones a promotion
 * replaces) it writes an evaluation for it (`createBatchedUpdate`); when the deployment is
 * complete it is successful, the job's version stable. The reference has every healthy
 * allocation bring an evaluation, whose plan marks a complete deployment successful; the agent
 * writes a service job's success directly, and a system job's evaluation (whose plan rolls the
 * next `MaxParallel` nodes, or finds the deployment complete) whenever its plan would change
 * something.
 */
export async function watchDeployment(context: SchedulerContext, deploymentId: string): Promise<void> {
  const { store } = context;
  const deployment = store.tables.deployment.get(deploymentId);
  if (deployment === undefined || deployment.Status !== "running") return;
  const key = namespacedKey(deployment.Namespace, deployment.JobID);
  const job = store.tables.jobs.get(key);
  if (job === undefined) return;
  const running = (state: Transaction<"deployment">) => state.deployment.get(deploymentId)?.Status === "running";
  if (requiresPromotion(deployment) && canAutoPromote(context, deployment)) {
    await store.write(["deployment", "evals", "allocs"], (state) => void (running(state) && promoteAt(context, state, state.deployment.get(deploymentId)!, undefined)), "DeploymentPromote");
    return;
  }
  // A system job's evaluation rolls the next nodes, says the deployment waits for promotion, or finds it complete (the system scheduler's `computeJobAllocs`).
  if (isSystemJob(job)) {
    const { plan } = computeSystemPlan(context, job, watcherEvaluation(context, store, deployment, job));
    if (isNoOp(plan)) return;
    await store.write(["evals"], (state) => {
      if (store.tables.deployment.get(deploymentId)?.Status === "running") state.evals.put(watcherEvaluation(context, state, deployment, job));
    }, "EvalUpdate");
    return;
  }
  if (requiresPromotion(deployment)) return;
  const results = reconcile(reconcileInput(context, job, { ID: newUuid(), Priority: deployment.EvalPriority }));
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
  const failEarly = unhealthy.filter(
    (alloc) => (deployment.TaskGroups[alloc.TaskGroup]?.ProgressDeadline ?? 0) === 0 || !rescheduleEligible(alloc.RescheduleTracker, reschedulePolicyOf(job, alloc.TaskGroup), clock.nowMs()),
  );
  if (failEarly.length > 0) {
    // The job reverts when a group of an allocation that fails the deployment says AutoRevert (`handleAllocUpdate`).
    const rollback = failEarly.some((alloc) => deployment.TaskGroups[alloc.TaskGroup]?.AutoRevert === true);
    await store.write(
      FAIL_TABLES,
      (state) => {
        const current = state.deployment.get(deploymentId);
        if (current !== undefined && ACTIVE_DEPLOYMENT.has(current.Status)) failAt(context, state, current, DEPLOYMENT_DESCRIPTIONS.unhealthy, rollback);
      },
      "DeploymentStatusUpdate",
    );
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
