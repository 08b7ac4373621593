/**
 * A plan's annotations (`structs.PlanAnnotations`, `scheduler/annotate.go`): per task group, how
 * many allocations the evaluation places, stops, migrates, updates in place or by replacement,
 * places as canaries or leaves alone (`DesiredTGUpdates`), which `PUT /v1/job/<id>/plan` answers
 * (and `domain/job-diff-annotate.ts` writes into the job's diff).
 *
 * Our reconcilers do not keep the reference's counts as they go; they are counted here from what
 * they decided, once for the generic scheduler (from the reconciler's results) and once for the
 * system scheduler (from its plan).
 *
 * @module
 */
import type { Allocation } from "../state/model.js";
import type { Plan } from "./plan.js";
import { STOP_DESCRIPTIONS, type ReconcileInput, type ReconcileResults } from "./reconciler.js";

/** `structs.DesiredUpdates`, in its field order. */
export interface DesiredUpdates {
  Ignore: number;
  Place: number;
  Migrate: number;
  Stop: number;
  InPlaceUpdate: number;
  DestructiveUpdate: number;
  Canary: number;
  /** Allocations of other jobs evicted: the agent does not preempt (always 0). */
  Preemptions: number;
  /** Allocations of disconnected clients: the agent has none (always 0). */
  Disconnect: number;
  /** Allocations of reconnected clients: the agent has none (always 0). */
  Reconnect: number;
  /** Failed allocations replaced now: counted in `Place`, as our reconciler does not tell them apart (always 0). */
  RescheduleNow: number;
  /** Allocations given a follow-up evaluation to reschedule them later. */
  RescheduleLater: number;
}

/** A group's counts, all zero. */
export function noDesiredUpdates(): DesiredUpdates {
  return { Ignore: 0, Place: 0, Migrate: 0, Stop: 0, InPlaceUpdate: 0, DestructiveUpdate: 0, Canary: 0, Preemptions: 0, Disconnect: 0, Reconnect: 0, RescheduleNow: 0, RescheduleLater: 0 };
}

/** Counts by group, a group made on its first count. */
function countsByGroup(): { readonly groups: Map<string, DesiredUpdates>; readonly of: (group: string) => DesiredUpdates } {
  const groups = new Map<string, DesiredUpdates>();
  const of = (group: string) => {
    let updates = groups.get(group);
    if (updates === undefined) groups.set(group, (updates = noDesiredUpdates()));
    return updates;
  };
  return { groups, of };
}

/**
 * The reference's `DesiredTGUpdates` of each group, from the generic reconciler's results: what is
 * placed (canaries apart), stopped and replaced; `Ignore` is every allocation the reconciler
 * considered (the server still wants it run, and for a service job it has not completed or been
 * lost, nor been replaced already) that it left alone.
 */
export function desiredUpdates(input: ReconcileInput, results: ReconcileResults): Record<string, DesiredUpdates> {
  const { groups, of } = countsByGroup();
  for (const group of input.job.TaskGroups) of(group.Name);
  for (const alloc of input.allocs) of(alloc.TaskGroup);
  const touched = new Set<string>();
  for (const place of results.place) {
    // A migration's placement is counted with its stop, below (`computeMigrations` counts each migrating allocation once, placed or not).
    const migrating = place.previous?.DesiredTransition?.Migrate === true && !place.reschedule;
    if (place.previous !== undefined) touched.add(place.previous.ID);
    if (migrating) continue;
    if (place.canary && place.previous === undefined) of(place.group.Name).Canary++;
    else of(place.group.Name).Place++;
  }
  // The current deployment's canaries lost with their node are stopped without being counted (`cancelUnneededCanaries`: transient, not the deployment's progress).
  const deployment = input.deployment;
  const current = deployment !== undefined && !input.job.Stop && deployment.JobVersion === input.job.Version && deployment.JobCreateIndex === input.job.CreateIndex;
  const canaries = new Set(current ? Object.values(deployment.TaskGroups).flatMap((group) => group.PlacedCanaries ?? []) : []);
  for (const { alloc, clientStatus, description } of results.stop) {
    // Migrations are counted as Migrate (`computeMigrations`); the current deployment's canaries
    // stopped as migrating are not counted (`cancelUnneededCanaries`); a migrating allocation
    // stopped for a scale-down is a Stop (`computeStop`).
    const migrating = description === STOP_DESCRIPTIONS.migrating;
    if (migrating && !canaries.has(alloc.ID)) of(alloc.TaskGroup).Migrate++;
    else if (!(clientStatus === "lost" && canaries.has(alloc.ID)) && !migrating) of(alloc.TaskGroup).Stop++;
    touched.add(alloc.ID);
  }
  for (const { stop } of results.destructive) {
    of(stop.TaskGroup).DestructiveUpdate++;
    touched.add(stop.ID);
  }
  for (const alloc of results.attributeUpdates) {
    // Still kept (the reference counts it in Ignore too), with a follow-up evaluation to replace it.
    if ((alloc.FollowupEvalID ?? "") !== "") of(alloc.TaskGroup).RescheduleLater++;
    else touched.add(alloc.ID);
  }
  for (const alloc of results.inplaceUpdate) {
    of(alloc.TaskGroup).InPlaceUpdate++;
    touched.add(alloc.ID);
  }
  const service = input.job.Type !== "batch";
  // A stopped job's groups, and a group removed or scaled to zero, only stop (`handleStop`, `filterAndStopAll`).
  const stopsOnly = (group: string) => input.job.Stop || (input.job.TaskGroups.find((each) => each.Name === group)?.Count ?? 0) === 0;
  for (const alloc of input.allocs) {
    // A batch job's allocations stopped by the server still count, unless marked to reschedule (`filterServerTerminalAllocs`).
    const considered = alloc.DesiredStatus === "run" || (!service && alloc.DesiredTransition?.Reschedule !== true);
    if (!considered || touched.has(alloc.ID) || stopsOnly(alloc.TaskGroup)) continue;
    if (service && (alloc.ClientStatus === "complete" || alloc.ClientStatus === "lost")) continue;
    if ((alloc.NextAllocation ?? "") !== "" && ["complete", "failed", "lost"].includes(alloc.ClientStatus)) continue;
    of(alloc.TaskGroup).Ignore++;
  }
  return Object.fromEntries(groups);
}

/**
 * The `DesiredTGUpdates` of a system or sysbatch job, from its plan (the reference's system
 * scheduler counts the node reconciler's sets): a new allocation is a `Place`, one that replaces
 * an allocation stopped for the update a `DestructiveUpdate`, an allocation the plan keeps with
 * the new version an `InPlaceUpdate`, one stopped off a tainted node a `Migrate`, any other stop
 * a `Stop`, and every running allocation the plan leaves alone an `Ignore`.
 */
export function systemDesiredUpdates(groupNames: readonly string[], live: readonly Allocation[], existing: (id: string) => Allocation | undefined, plan: Plan): Record<string, DesiredUpdates> {
  const { groups, of } = countsByGroup();
  for (const name of groupNames) of(name);
  const touched = new Set<string>();
  const replaced = new Set<string>();
  for (const { alloc, description } of plan.stops) {
    touched.add(alloc.ID);
    if (description === STOP_DESCRIPTIONS.updating) replaced.add(alloc.ID);
    else if (description === STOP_DESCRIPTIONS.nodeTainted) of(alloc.TaskGroup).Migrate++;
    else of(alloc.TaskGroup).Stop++;
  }
  for (const alloc of plan.allocs) {
    touched.add(alloc.ID);
    if (existing(alloc.ID) !== undefined) of(alloc.TaskGroup).InPlaceUpdate++;
    else if (alloc.PreviousAllocation !== undefined && replaced.has(alloc.PreviousAllocation)) of(alloc.TaskGroup).DestructiveUpdate++;
    else of(alloc.TaskGroup).Place++;
  }
  for (const alloc of live) if (alloc.DesiredStatus === "run" && !touched.has(alloc.ID)) of(alloc.TaskGroup).Ignore++;
  return Object.fromEntries(groups);
}
