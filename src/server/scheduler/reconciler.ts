/**
 * The reconciler: what one evaluation changes of a service or batch job, as the reference's
 * `scheduler/reconciler/reconcile_cluster.go` decides it from the job, its allocations and its
 * latest deployment. Per task group: allocations on nodes that are down are lost and replaced;
 * failed ones are rescheduled now or by a follow-up evaluation (`reschedule.ts`); extra ones are
 * stopped; those of an older version are updated in place when the new version changes nothing
 * their tasks cannot take (`tasks-updated.ts`), and otherwise replaced, at most `MaxParallel` at
 * a time and, while the group's canaries wait for promotion, not at all (only the canaries are
 * placed, and only when there is something to replace); the allocations the group still lacks
 * are placed; a deployment is created for a new version of a service job, and the deployment is
 * successful once every group is healthy. An older version's deployment still going is cancelled.
 *
 * The reconciler only decides; `generic-sched.ts` turns its results into writes, and tells it
 * how each allocation takes the job's version ({@link AllocUpdateFn}, the reference's
 * `allocUpdateFn`).
 *
 * @module
 */
import { newUuid } from "../base/ids.js";
import { goTime } from "../../go/time.js";
import { structValue } from "../../structs/derive.js";
import { UPDATE_STRATEGY, type UpdateStrategy } from "../../structs/job-blocks.js";
import type { Allocation, Deployment, DeploymentState, Evaluation, Job, Node, TaskGroup } from "../state/model.js";
import { AllocNameIndex } from "./alloc-names.js";
import { filterByRescheduleable, reschedulePolicyOf, type DelayedReschedule } from "./reschedule.js";
import type { DeploymentStatusUpdate, PlanStop } from "./plan.js";
import { ACTIVE_DEPLOYMENT, DEPLOYMENT_DESCRIPTIONS, isTerminal, type EvaluationFields } from "./state.js";

/** The reference's words for why the scheduler stops an allocation (`scheduler/structs/const.go`). */
export const STOP_DESCRIPTIONS = {
  notNeeded: "alloc not needed due to job update",
  updating: "alloc is being updated due to job update",
  lost: "alloc is lost since its node is down",
  migrating: "alloc is being migrated",
  nodeTainted: "alloc not needed as node is tainted",
  rescheduled: "alloc was rescheduled because it failed",
} as const;

/** Follow-up evaluations of failures within this long of the first are one (`batchedFailedAllocWindowSize`). */
const FOLLOWUP_BATCH_WINDOW_MS = 5000;

/**
 * How an allocation takes the job's version (`AllocUpdateType`'s three results): nothing to do
 * (`ignore`), a replacement (`destructive`), or an update in place (`inplace`, the allocation as
 * the plan writes it).
 */
export type AllocUpdate = { readonly kind: "ignore" } | { readonly kind: "destructive" } | { readonly kind: "inplace"; readonly alloc: Allocation };

/** Decides how `existing` takes `job`'s version of its group (`AllocUpdateType`). */
export type AllocUpdateFn = (existing: Allocation, job: Job, group: TaskGroup) => AllocUpdate;

/** Without an {@link AllocUpdateFn}: an allocation of the job's version is left as it is, one of another is replaced. */
const replaceOlderVersions: AllocUpdateFn = (existing, job) => (existing.JobVersion === job.Version ? { kind: "ignore" } : { kind: "destructive" });

/** What the reconciler reads: the job, its allocations and latest deployment, the nodes that are down, the evaluation. */
export interface ReconcileInput {
  readonly job: Job;
  /** How each allocation takes the job's version; by default, one of another version is replaced. */
  readonly allocUpdate?: AllocUpdateFn;
  readonly allocs: readonly Allocation[];
  /** The job's latest deployment, whatever its status. */
  readonly deployment: Deployment | undefined;
  /** Nodes whose allocations are lost (down) or may be migrated (draining), by ID. */
  readonly taintedNodes: ReadonlyMap<string, Node | undefined>;
  readonly evaluation: Pick<Evaluation, "ID" | "Priority">;
  readonly nowNs: bigint;
}

/** An allocation to place (`AllocPlaceResult`): a new one, a canary, or the replacement of a lost or failed one. */
export interface PlaceResult {
  readonly group: TaskGroup;
  readonly name: string;
  readonly canary: boolean;
  readonly previous?: Allocation;
  /** It replaces a failed allocation: it carries a reschedule tracker, and the failed one is stopped once it is placed. */
  readonly reschedule: boolean;
}

/** An allocation of an older version replaced by a new one of the same name (`allocDestructiveResult`). */
export interface DestructiveResult {
  readonly group: TaskGroup;
  readonly name: string;
  readonly stop: Allocation;
}

/** What the reconciler decided (`ReconcileResults`). */
export interface ReconcileResults {
  /** The deployment to create. */
  deployment: Deployment | undefined;
  readonly deploymentUpdates: DeploymentStatusUpdate[];
  readonly place: PlaceResult[];
  readonly destructive: DestructiveResult[];
  readonly stop: PlanStop[];
  /** Allocations of an older version updated in place to the job's (`InplaceUpdate`): same ID, same node. */
  readonly inplaceUpdate: Allocation[];
  /** Allocations changed in place: a failed one given the follow-up evaluation that will reschedule it. */
  readonly attributeUpdates: Allocation[];
  /** Evaluations to reschedule failed allocations later (with `WaitUntil`). */
  readonly followupEvals: EvaluationFields[];
}

/** A deployment's state for one group, changed while the reconciler fills a deployment it creates. */
type GroupState = { -readonly [Field in keyof DeploymentState]: DeploymentState[Field] };

/** What the reconciler knows of the job's deployment while it goes through the groups. */
interface DeploymentContext {
  old: Deployment | undefined;
  /** The deployment of the job's version still going, or the one the reconciler created (its groups filled in as it goes). */
  current: (Omit<Deployment, "TaskGroups"> & { TaskGroups: Record<string, GroupState> }) | undefined;
  readonly paused: boolean;
  readonly failed: boolean;
}

/**
 * A group's update strategy when it makes deployments (a service or system job's, `MaxParallel`
 * above 0); undefined otherwise (`UpdateStrategy.IsEmpty`; batch and sysbatch jobs may not have
 * one). Registration gave the group its block with the API's defaults applied
 * (`canonicalize.ts`); it is read over the job's, each field as Go holds it (one a stored row
 * lacks at its zero value).
 */
export function updateStrategyOf(job: Pick<Job, "Type" | "Update">, group: TaskGroup): UpdateStrategy | undefined {
  if (job.Type !== "service" && job.Type !== "system") return undefined;
  const own = typeof group.Update === "object" ? group.Update : null;
  const update = structValue(UPDATE_STRATEGY, { ...(job.Update ?? {}), ...(own ?? {}) });
  return update.MaxParallel > 0 ? update : undefined;
}

/** Decides what the evaluation changes of the job (`AllocReconciler.Compute`). */
export function reconcile(input: ReconcileInput): ReconcileResults {
  const { job } = input;
  const results: ReconcileResults = { deployment: undefined, deploymentUpdates: [], place: [], destructive: [], stop: [], inplaceUpdate: [], attributeUpdates: [], followupEvals: [] };
  const groups = allocMatrix(job, input.allocs);
  const cancelled = cancelUnneededDeployments(job, input.deployment);
  results.deploymentUpdates.push(...cancelled.updates);
  if (job.Stop) {
    for (const allocs of groups.values()) stopAll(input, allocs.filter((alloc) => !isTerminal(alloc)), results);
    return results;
  }
  const current = cancelled.current;
  const deployments: DeploymentContext = {
    old: cancelled.old,
    current: current === undefined ? undefined : { ...current, TaskGroups: { ...current.TaskGroups } },
    paused: current !== undefined && ["paused", "pending", "initializing"].includes(current.Status),
    failed: current?.Status === "failed",
  };
  let complete = true;
  for (const [name, allocs] of groups) complete = computeGroup(input, deployments, name, allocs, results) && complete;
  if (current !== undefined && complete) results.deploymentUpdates.push({ DeploymentID: current.ID, Status: "successful", StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful });
  const created = results.deployment;
  if (created !== undefined && requiresPromotion(created)) {
    const auto = Object.values(created.TaskGroups).every((group) => group.DesiredCanaries === 0 || group.AutoPromote);
    results.deployment = { ...created, StatusDescription: auto ? DEPLOYMENT_DESCRIPTIONS.autoPromotion : DEPLOYMENT_DESCRIPTIONS.needsPromotion };
  }
  return results;
}

/** Whether a running deployment waits for its canaries to be promoted (`Deployment.RequiresPromotion`). */
export function requiresPromotion(deployment: Pick<Deployment, "Status" | "TaskGroups">): boolean {
  return deployment.Status === "running" && Object.values(deployment.TaskGroups).some((group) => group.DesiredCanaries > 0 && !group.Promoted);
}

/** The job's allocations by task group, every group of the job included (`newAllocMatrix`). */
function allocMatrix(job: Job, allocs: readonly Allocation[]): Map<string, Allocation[]> {
  const groups = new Map<string, Allocation[]>(job.TaskGroups.map((group) => [group.Name, []]));
  for (const alloc of allocs) groups.set(alloc.TaskGroup, [...(groups.get(alloc.TaskGroup) ?? []), alloc]);
  return groups;
}

/**
 * The job's latest deployment, cancelled when the job is stopped or has a newer version
 * (`cancelUnneededServiceDeployments`); the current one is that of the job's version while it
 * is not successful.
 */
function cancelUnneededDeployments(job: Job, deployment: Deployment | undefined): { old?: Deployment; current?: Deployment; updates: DeploymentStatusUpdate[] } {
  const cancel = (description: string) => (deployment !== undefined && ACTIVE_DEPLOYMENT.has(deployment.Status) ? [{ DeploymentID: deployment.ID, Status: "cancelled", StatusDescription: description }] : []);
  if (job.Stop) return { old: deployment, updates: cancel(DEPLOYMENT_DESCRIPTIONS.stoppedJob) };
  if (deployment === undefined) return { updates: [] };
  if (deployment.JobCreateIndex !== job.CreateIndex || deployment.JobVersion !== job.Version) return { old: deployment, updates: cancel(DEPLOYMENT_DESCRIPTIONS.newerJob) };
  if (deployment.Status === "successful") return { old: deployment, updates: [] };
  return { current: deployment, updates: [] };
}

/**
 * Where each allocation stands (`classifyAllocs`, for the states the agent has): ignored once the
 * server stopped it; lost when it still runs on a node that is down; migrating when the drainer
 * marked it to migrate (`DesiredTransition.Migrate`, its node draining); otherwise kept.
 */
function classify(allocs: readonly Allocation[], tainted: ReadonlyMap<string, Node | undefined>): { untainted: Allocation[]; migrate: Allocation[]; readonly lost: Allocation[] } {
  const untainted: Allocation[] = [];
  const migrate: Allocation[] = [];
  const lost: Allocation[] = [];
  for (const alloc of allocs) {
    // A drained batch allocation keeps its place (the drain said not to replace it), whatever the server did with it.
    if (alloc.DesiredStatus !== "run" && alloc.DesiredTransition?.MigrateDisablePlacement === true) {
      untainted.push(alloc);
      continue;
    }
    // Stopped by the server: nothing more to do with it.
    if (alloc.DesiredStatus !== "run") continue;
    const clientTerminal = alloc.ClientStatus === "complete" || alloc.ClientStatus === "failed" || alloc.ClientStatus === "lost";
    const node = tainted.get(alloc.NodeID);
    // A tainted node that is not draining is down or gone (the reference's rules: lost comes before migrate).
    if (!clientTerminal && tainted.has(alloc.NodeID) && (node === undefined || node.Status === "down" || !(node.Drain || node.DrainStrategy != null))) lost.push(alloc);
    else if (!clientTerminal && alloc.DesiredTransition?.Migrate === true) migrate.push(alloc);
    else untainted.push(alloc);
  }
  return { untainted, migrate, lost };
}

/** Stops every one of `allocs`, lost ones as lost (`filterAndStopAll`). */
function stopAll(input: ReconcileInput, allocs: readonly Allocation[], results: ReconcileResults): void {
  const { untainted, migrate, lost } = classify(allocs, input.taintedNodes);
  for (const alloc of [...untainted, ...migrate]) results.stop.push({ alloc, description: STOP_DESCRIPTIONS.notNeeded });
  for (const alloc of lost) results.stop.push({ alloc, clientStatus: "lost", description: STOP_DESCRIPTIONS.lost });
}

const byName = (a: Allocation, b: Allocation) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0);
const without = (allocs: readonly Allocation[], removed: readonly Allocation[]) => {
  const ids = new Set(removed.map((alloc) => alloc.ID));
  return allocs.filter((alloc) => !ids.has(alloc.ID));
};

/** Reconciles one task group (`computeGroup`); true when the group's part of the deployment is complete. */
function computeGroup(input: ReconcileInput, deployments: DeploymentContext, name: string, allocs: readonly Allocation[], results: ReconcileResults): boolean {
  const { job } = input;
  const batch = job.Type === "batch";
  const group = job.TaskGroups.find((each) => each.Name === name);
  // A batch job's finished allocations count, so that they are not placed again.
  let all = allocs.filter((alloc) => alloc.DesiredStatus === "run" || (batch && alloc.DesiredTransition?.Reschedule !== true));
  // How many allocations the group wants: its count (system and sysbatch jobs, one per node, are reconciled by `reconcile-node.ts`).
  if (group === undefined || group.Count === 0) {
    stopAll(input, all, results);
    return true;
  }
  const wanted = group.Count;
  const update = updateStrategyOf(job, group);
  const existing = deployments.current?.TaskGroups[name];
  // A copy: only a deployment the reconciler creates takes what it decides.
  const dstate: GroupState = existing === undefined ? newGroupState(update) : { ...existing };
  // A batch job's finished allocations of older versions are done with.
  if (batch) all = all.filter((alloc) => alloc.JobVersion >= job.Version || !isTerminal(alloc));
  const canaries = cancelUnneededCanaries(input, deployments, all, results);
  all = canaries.all;

  const classified = classify(all, input.taintedNodes);
  // A batch job's allocation marked to migrate and to reschedule (`alloc stop` asking for it) is the rescheduling's: the
  // reference's migrate set goes through `filterByRescheduleable`, and its migration places nothing.
  if (batch) {
    const rescheduled = classified.migrate.filter((alloc) => alloc.DesiredTransition?.Reschedule === true && alloc.DesiredTransition.MigrateDisablePlacement !== true);
    classified.untainted.push(...rescheduled);
    classified.migrate = without(classified.migrate, rescheduled);
  }
  const split = filterByRescheduleable(classified.untainted, {
    batch,
    jobType: job.Type,
    policyOf: (each) => reschedulePolicyOf(job, each),
    nowMs: Number(input.nowNs / 1_000_000n),
    evalId: input.evaluation.ID,
    activeDeployment: deployments.current !== undefined && ACTIVE_DEPLOYMENT.has(deployments.current.Status) ? (deployments.current as Deployment) : undefined,
  });
  let untainted = split.untainted;
  const { lost } = classified;
  if (split.later.length > 0) rescheduleLater(input, split.later, results);

  const names = new AllocNameIndex(job.ID, name, wanted, [...untainted, ...classified.migrate, ...split.now, ...lost]);
  let canarying = dstate.DesiredCanaries !== 0 && !dstate.Promoted;
  const kept = computeStop(wanted, names, untainted, classified.migrate, lost, canaries.current, canarying, results);
  untainted = kept.untainted;
  const { migrate } = kept;

  const { inplace, destructive } = computeUpdates(input, group, untainted, results);
  if (existing === undefined) dstate.DesiredTotal += destructive.length + inplace.length;
  if (canarying) untainted = without(untainted, canaries.current);
  const needsCanaries = update !== undefined && destructive.length !== 0 && canaries.current.length < update.Canary && !dstate.Promoted;
  const placedBefore = results.place.length;
  if (needsCanaries) {
    dstate.DesiredCanaries = update.Canary;
    if (!deployments.paused && !deployments.failed) {
      for (const canaryName of names.nextCanaries(dstate.DesiredCanaries - canaries.current.length, canaries.current, destructive)) results.place.push({ group, name: canaryName, canary: true, reschedule: false });
    }
  }
  canarying = dstate.DesiredCanaries !== 0 && !dstate.Promoted;
  let underProvisionedBy = computeUnderProvisionedBy(deployments, update, wanted, untainted, destructive, migrate, canarying);
  const place = computePlacements(group, wanted, names, untainted, migrate, split.now, lost);
  if (existing === undefined) dstate.DesiredTotal += place.length;
  const placeReady = !deployments.paused && !deployments.failed && !canarying;
  underProvisionedBy = placeAllocs(deployments, placeReady, place, split.now, lost, underProvisionedBy, results);
  if (placeReady) {
    for (const alloc of destructive.slice(0, Math.max(0, Math.min(destructive.length, underProvisionedBy)))) results.destructive.push({ group, name: alloc.Name, stop: alloc });
  }
  computeMigrations(job, group, migrate, results);
  createDeployment(input, deployments, name, update, existing !== undefined, dstate, all, destructive.length + inplace.length, results);
  // Never more placements than the count.
  const placed = results.place.length - placedBefore;
  if (placed > wanted) results.place.splice(placedBefore + wanted);

  const groupDone = destructive.length + inplace.length + Math.min(placed, wanted) + migrate.length + split.now.length + split.later.length === 0 && !needsCanaries;
  const current = deployments.current?.TaskGroups[name];
  if (!groupDone || deployments.current === undefined) return false;
  return current === undefined || (current.HealthyAllocs >= Math.max(current.DesiredTotal, current.DesiredCanaries) && (current.DesiredCanaries === 0 || current.Promoted));
}

/**
 * Stops each allocation marked to migrate and places its replacement, of the same name, in name
 * order (`computeMigrations`); the drainer paced the marks by the group's `migrate` block. A batch
 * job's allocation the drainer moved (`MigrateDisablePlacement`) is not replaced (one also marked
 * to reschedule was left to the rescheduling, see `computeGroup`).
 */
function computeMigrations(job: Job, group: TaskGroup, migrate: readonly Allocation[], results: ReconcileResults): void {
  for (const alloc of [...migrate].sort(byName)) {
    results.stop.push({ alloc, description: STOP_DESCRIPTIONS.migrating });
    if (job.Type === "batch" && alloc.DesiredTransition?.MigrateDisablePlacement === true) continue;
    results.place.push({ group, name: alloc.Name, previous: alloc, reschedule: false, canary: alloc.DeploymentStatus?.Canary === true });
  }
}

/**
 * Splits the group's allocations by how they take the job's version (`computeUpdates`): those to
 * leave as they are, to update in place (added to the results), and to replace (in name order).
 */
function computeUpdates(input: ReconcileInput, group: TaskGroup, untainted: readonly Allocation[], results: ReconcileResults): { inplace: Allocation[]; destructive: Allocation[] } {
  const decide = input.allocUpdate ?? replaceOlderVersions;
  const inplace: Allocation[] = [];
  const destructive: Allocation[] = [];
  for (const alloc of untainted) {
    const update = decide(alloc, input.job, group);
    if (update.kind === "destructive") destructive.push(alloc);
    else if (update.kind === "inplace") inplace.push(update.alloc);
  }
  results.inplaceUpdate.push(...inplace);
  return { inplace, destructive: destructive.sort(byName) };
}

/** A group's state in a new deployment, from its update strategy (`initializeDeploymentState`); the node reconciler's too. */
export function newGroupState(update: UpdateStrategy | undefined): GroupState {
  return {
    AutoRevert: update?.AutoRevert ?? false,
    AutoPromote: update?.AutoPromote ?? false,
    ProgressDeadline: update?.ProgressDeadline ?? 0,
    RequireProgressBy: null,
    Promoted: false,
    PlacedCanaries: null,
    DesiredCanaries: 0,
    DesiredTotal: 0,
    PlacedAllocs: 0,
    HealthyAllocs: 0,
    UnhealthyAllocs: 0,
  };
}

/**
 * Stops the canaries an older or failed deployment left unpromoted, and returns the current
 * deployment's canaries still up (those lost are stopped) with the group's allocations less the
 * ones stopped (`cancelUnneededCanaries`).
 */
function cancelUnneededCanaries(input: ReconcileInput, deployments: DeploymentContext, all: readonly Allocation[], results: ReconcileResults): { all: Allocation[]; current: Allocation[] } {
  const unpromoted = (deployment: Pick<Deployment, "TaskGroups"> | undefined) => Object.values(deployment?.TaskGroups ?? {}).flatMap((group) => (group.Promoted ? [] : (group.PlacedCanaries ?? [])));
  const stopIds = new Set([...unpromoted(deployments.old), ...(deployments.failed ? unpromoted(deployments.current) : [])]);
  const stopped = all.filter((alloc) => stopIds.has(alloc.ID));
  for (const alloc of stopped) results.stop.push({ alloc, description: STOP_DESCRIPTIONS.notNeeded });
  let remaining = without(all, stopped);
  if (deployments.current === undefined) return { all: remaining, current: [] };
  const canaryIds = new Set(Object.values(deployments.current.TaskGroups).flatMap((group) => group.PlacedCanaries ?? []));
  const { untainted, migrate, lost } = classify(
    remaining.filter((alloc) => canaryIds.has(alloc.ID)),
    input.taintedNodes,
  );
  for (const alloc of migrate) results.stop.push({ alloc, description: STOP_DESCRIPTIONS.migrating });
  for (const alloc of lost) results.stop.push({ alloc, clientStatus: "lost", description: STOP_DESCRIPTIONS.lost });
  remaining = without(remaining, [...migrate, ...lost]);
  return { all: remaining, current: untainted };
}

/**
 * Follow-up evaluations for failed allocations to reschedule later, one for those whose times
 * fall within 5 s of the first of a batch, each allocation noting its evaluation
 * (`createRescheduleLaterEvals`, `createLaterEvals`).
 */
function rescheduleLater(input: ReconcileInput, later: readonly DelayedReschedule[], results: ReconcileResults): void {
  const { job, evaluation } = input;
  const sorted = [...later].sort((a, b) => a.atMs - b.atMs);
  let batchStart = -Infinity;
  let evalId = "";
  for (const { alloc, atMs } of sorted) {
    if (atMs - batchStart >= FOLLOWUP_BATCH_WINDOW_MS) {
      // The reference words the first follow-up so, and the later ones as failed allocations' retries.
      const first = results.followupEvals.length === 0;
      batchStart = atMs;
      evalId = newUuid();
      results.followupEvals.push({
        ID: evalId,
        Namespace: job.Namespace,
        Priority: evaluation.Priority,
        Type: job.Type,
        TriggeredBy: first ? "alloc-reschedule" : "alloc-failure",
        JobID: job.ID,
        JobModifyIndex: job.ModifyIndex,
        ...(first ? { StatusDescription: "created for delayed rescheduling" } : {}),
        WaitUntil: goTime(atMs),
      });
    }
    results.attributeUpdates.push({ ...alloc, FollowupEvalID: evalId });
  }
}

/**
 * Stops the lost allocations and those beyond the count: a promoted canary's namesake first, then
 * the migrating ones of the highest names, then the highest names (`computeStop`); returns the
 * allocations kept and those still to migrate.
 */
function computeStop(
  wanted: number,
  names: AllocNameIndex,
  untainted: readonly Allocation[],
  migrating: readonly Allocation[],
  lost: readonly Allocation[],
  canaries: readonly Allocation[],
  canarying: boolean,
  results: ReconcileResults,
): { untainted: Allocation[]; migrate: Allocation[] } {
  for (const alloc of lost) results.stop.push({ alloc, clientStatus: "lost", description: STOP_DESCRIPTIONS.lost });
  let working = canarying ? without(untainted, canaries) : [...untainted];
  let remove = working.length + migrating.length - wanted;
  let migrate = [...migrating];
  if (remove <= 0) return { untainted: [...untainted], migrate };
  working = working.filter((alloc) => alloc.DesiredStatus === "run").sort(byName);
  const stopped: Allocation[] = [];
  const stop = (alloc: Allocation) => {
    stopped.push(alloc);
    results.stop.push({ alloc, description: STOP_DESCRIPTIONS.notNeeded });
    working = without(working, [alloc]);
    remove--;
  };
  if (!canarying && canaries.length > 0) {
    const canaryNames = new Set(canaries.map((alloc) => alloc.Name));
    for (const alloc of without(working, canaries)) if (remove > 0 && canaryNames.has(alloc.Name)) stop(alloc);
  }
  // Allocations that would move anyway go first: the highest names among them.
  if (remove > 0 && migrate.length > 0) {
    const highest = new AllocNameIndex(migrate[0]!.JobID, migrate[0]!.TaskGroup, wanted, migrate).highest(remove);
    for (const alloc of [...migrate].sort(byName)) {
      if (remove <= 0 || !highest.has(alloc.Name)) continue;
      results.stop.push({ alloc, description: STOP_DESCRIPTIONS.notNeeded });
      migrate = without(migrate, [alloc]);
      names.unset(alloc);
      remove--;
    }
  }
  if (remove > 0) {
    const highest = names.highest(remove);
    for (const alloc of [...working]) if (remove > 0 && highest.has(alloc.Name)) stop(alloc);
  }
  for (const alloc of [...working]) if (remove > 0) stop(alloc);
  return { untainted: without(untainted, stopped), migrate };
}

/**
 * How many allocations the group may still replace (`computeUnderProvisionedBy`): all it wants
 * when nothing is replaced, `MaxParallel` less those of the deployment not yet healthy, none
 * while the deployment is paused or failed, an allocation of it is unhealthy, or canaries wait.
 */
function computeUnderProvisionedBy(deployments: DeploymentContext, update: UpdateStrategy | undefined, wanted: number, untainted: readonly Allocation[], destructive: readonly Allocation[], migrate: readonly Allocation[], canarying: boolean): number {
  if (update === undefined || destructive.length + migrate.length === 0) return wanted;
  const maxParallel = update.MaxParallel;
  const current = deployments.current;
  if (current === undefined) return maxParallel;
  if (deployments.paused || deployments.failed || canarying) return 0;
  let room = maxParallel;
  for (const alloc of untainted) {
    if (alloc.DeploymentID !== current.ID) continue;
    if (alloc.DeploymentStatus?.Healthy === false) return 0;
    if (alloc.DeploymentStatus?.Healthy !== true) room--;
  }
  return Math.max(0, room);
}

/** The placements the group lacks: failed allocations rescheduled, lost ones replaced up to the count, then new ones (`computePlacements`; migrating ones are replaced by `computeMigrations`). */
function computePlacements(group: TaskGroup, wanted: number, names: AllocNameIndex, untainted: readonly Allocation[], migrate: readonly Allocation[], reschedule: readonly Allocation[], lost: readonly Allocation[]): PlaceResult[] {
  const place: PlaceResult[] = reschedule.map((alloc) => ({ group, name: alloc.Name, previous: alloc, reschedule: true, canary: alloc.DeploymentStatus?.Canary === true }));
  let existing = untainted.length + migrate.length + reschedule.length;
  for (const alloc of lost) {
    if (existing >= wanted) break;
    existing++;
    place.push({ group, name: alloc.Name, previous: alloc, reschedule: false, canary: alloc.DeploymentStatus?.Canary === true });
  }
  if (existing < wanted) for (const name of names.next(wanted - existing)) place.push({ group, name, canary: false, reschedule: false });
  return place;
}

/**
 * Takes the placements (`placeAllocs`): all of them when the deployment lets it, each failed
 * allocation rescheduled stopped; otherwise only lost allocations' replacements and the
 * rescheduling of failures outside a failed deployment. Returns how many allocations may still
 * be replaced.
 */
function placeAllocs(deployments: DeploymentContext, ready: boolean, place: readonly PlaceResult[], rescheduleNow: readonly Allocation[], lost: readonly Allocation[], underProvisionedBy: number, results: ReconcileResults): number {
  if (ready) {
    results.place.push(...place);
    for (const alloc of rescheduleNow) results.stop.push({ alloc, description: STOP_DESCRIPTIONS.rescheduled });
    return underProvisionedBy - Math.min(place.length, underProvisionedBy);
  }
  const taken = new Set<PlaceResult>();
  if (lost.length !== 0) for (const each of place.slice(0, Math.min(lost.length, place.length))) taken.add(each);
  if (rescheduleNow.length !== 0) {
    for (const each of place) {
      const previous = each.previous;
      const ofFailedDeployment = deployments.failed && previous !== undefined && previous.DeploymentID === deployments.current?.ID;
      if (ofFailedDeployment || !each.reschedule || previous === undefined) continue;
      taken.add(each);
      results.stop.push({ alloc: previous, description: STOP_DESCRIPTIONS.rescheduled });
    }
  }
  results.place.push(...taken);
  return underProvisionedBy;
}

/**
 * Creates the deployment of the job's version for a group that has something to roll out
 * (`createDeployment`): not when it has no update strategy or nothing to place, nor when
 * allocations of this version exist already and none is being updated (`updates`: the
 * destructive and in-place updates).
 */
function createDeployment(
  input: ReconcileInput,
  deployments: DeploymentContext,
  name: string,
  update: UpdateStrategy | undefined,
  existing: boolean,
  dstate: GroupState,
  all: readonly Allocation[],
  updates: number,
  results: ReconcileResults,
): void {
  if (existing || update === undefined || dstate.DesiredTotal === 0) return;
  const { job } = input;
  const hadRunning = all.some((alloc) => alloc.JobVersion === job.Version);
  if (hadRunning && updates === 0) return;
  if (deployments.current === undefined) {
    deployments.current = newDeployment(job, input.evaluation.Priority, input.nowNs);
    results.deployment = deployments.current as Deployment;
  }
  deployments.current.TaskGroups[name] = dstate;
}

/**
 * A new deployment of the job's version (`structs.NewDeployment`), running, with no group yet: the
 * cluster's and the node reconciler's (its write sets its indexes).
 */
export function newDeployment(job: Pick<Job, "ID" | "Namespace" | "Version" | "JobModifyIndex" | "CreateIndex">, priority: number, nowNs: bigint): Deployment {
  return {
    ID: newUuid(),
    Namespace: job.Namespace,
    JobID: job.ID,
    JobVersion: job.Version,
    JobModifyIndex: job.JobModifyIndex,
    JobSpecModifyIndex: job.JobModifyIndex,
    JobCreateIndex: job.CreateIndex,
    IsMultiregion: false,
    TaskGroups: {},
    Status: "running",
    StatusDescription: DEPLOYMENT_DESCRIPTIONS.running,
    EvalPriority: priority,
    CreateIndex: 0,
    ModifyIndex: 0,
    CreateTime: nowNs,
    ModifyTime: nowNs,
  };
}
