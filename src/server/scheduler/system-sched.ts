/**
 * The plan of an evaluation of a system or sysbatch job, as the reference's system scheduler makes
 * it (`scheduler/scheduler_system.go`, `SystemScheduler.process`, `computeJobAllocs` and
 * `computePlacements`; the sysbatch scheduler is the same one): the node reconciler
 * (`reconcile-node.ts`) diffs the job's allocations node by node, and each placement is made on
 * its own node, named as the job requires it there (`<job>.<group>[0]` on every node).
 * `generic-sched.ts` dispatches here and writes the plan and the evaluation as it does its own.
 *
 * A job whose groups have an update block rolls out behind a deployment, as the reference's does
 * since 1.11: the node reconciler creates it, each evaluation replaces at most `MaxParallel`
 * allocations of an older version per group (`evictAndPlace`, less the deployment's allocations
 * not yet found healthy), the deployment wants as many allocations as there are nodes the group
 * is placed on (`DesiredTotal`: the reference knows it only once infeasible nodes are filtered
 * out) and is successful once that many are healthy; the deployment watcher's evaluations roll
 * the next nodes (`deployment-watcher.ts`).
 *
 * A group whose update block asks for canaries (`Canary`, for a system job a percentage of the
 * allocations being updated, at most `MaxParallel`) has that many of its nodes replaced first,
 * as canaries; the deployment then waits for their promotion (by a client, or by itself with
 * `AutoPromote`) before it rolls the other nodes.
 *
 * An update its tasks can take is made in place, as the generic scheduler's (`alloc-update.ts`):
 * the allocation stays, at the new version, in the deployment, and holds a `MaxParallel` place
 * until it is found healthy.
 *
 * Not modelled: the system
 * scheduler's per-node blocked evaluations (a placement no node can take is reported in
 * `FailedTGAllocs` only). A finished deployment is left as it is, where the reference writes its
 * `DesiredTotal` again with every evaluation.
 *
 * @module
 */
import { hostVolumeView } from "./host-volumes.js";
import type { Allocation, Deployment, Evaluation, Job, JsonObject, Node } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import type { DeploymentStatusUpdate, PlanStop } from "./plan.js";
import { allocUpdateFor } from "./alloc-update.js";
import { computePlacements, isReady, nodesFor, type Placements } from "./placement.js";
import { reconcileNodes, type AllocTuple, type NodeReconcileResult } from "./reconcile-node.js";
import { requiresPromotion, STOP_DESCRIPTIONS, updateStrategyOf, type DestructiveResult, type PlaceResult } from "./reconciler.js";
import { ACTIVE_DEPLOYMENT, DEPLOYMENT_DESCRIPTIONS, isTerminal, type SchedulerContext } from "./state.js";

/** Whether the system scheduler handles the job's evaluations (`system` and `sysbatch` jobs). */
export function isSystemJob(job: Pick<Job, "Type">): boolean {
  return job.Type === "system" || job.Type === "sysbatch";
}

/**
 * The nodes of the job's allocations whose allocations cannot stay as they are (`taintedNodes`):
 * gone (undefined), down, disconnected or draining.
 */
function taintedNodes(context: SchedulerContext, allocs: readonly Allocation[]): Map<string, Node | undefined> {
  const tainted = new Map<string, Node | undefined>();
  for (const alloc of allocs) {
    if (tainted.has(alloc.NodeID)) continue;
    const node = context.store.tables.nodes.get(alloc.NodeID);
    if (node === undefined || node.Status === "down" || node.Status === "disconnected" || node.Drain) tainted.set(alloc.NodeID, node);
  }
  return tainted;
}

/** The latest terminal allocation of each name on each node (`SplitTerminalAllocs`, `TerminalByNodeByName`). */
function terminalByNodeByName(allocs: readonly Allocation[]): Map<string, Map<string, Allocation>> {
  const terminal = new Map<string, Map<string, Allocation>>();
  for (const alloc of allocs) {
    if (!isTerminal(alloc)) continue;
    const byName = terminal.get(alloc.NodeID) ?? new Map<string, Allocation>();
    terminal.set(alloc.NodeID, byName);
    const other = byName.get(alloc.Name);
    if (other === undefined || other.CreateIndex < alloc.CreateIndex) byName.set(alloc.Name, alloc);
  }
  return terminal;
}

/**
 * The allocations of an older version replaced in this evaluation (`evictAndPlace`): per group,
 * at most its update block's `MaxParallel` (the job's when the group has none; all of them with
 * neither), less the allocations of the deployment going on that are not yet found healthy (one
 * found unhealthy does not hold a place).
 */
function evictAndPlace<A extends Allocation>(job: Job, result: NodeReconcileResult<A>, deployment: Deployment | undefined): AllocTuple<A>[] {
  const jobLimit = typeof job.Update?.MaxParallel === "number" && job.Update.MaxParallel > 0 ? job.Update.MaxParallel : result.update.length;
  const limits = new Map<string, number>(job.TaskGroups.map((group) => [group.Name, updateStrategyOf(job, group)?.MaxParallel ?? jobLimit]));
  if (deployment !== undefined) {
    for (const { alloc } of result.ignore) {
      if (alloc === undefined || alloc.DeploymentID !== deployment.ID || alloc.DeploymentStatus?.Healthy === false) continue;
      if (alloc.DeploymentStatus?.Healthy !== true) limits.set(alloc.TaskGroup, (limits.get(alloc.TaskGroup) ?? 0) - 1);
    }
  }
  const replaced: AllocTuple<A>[] = [];
  for (const tuple of result.update) {
    const group = tuple.alloc?.TaskGroup ?? "";
    const limit = limits.get(group) ?? 0;
    if (limit <= 0) continue;
    replaced.push(tuple);
    // Canaries are all placed here, and cut down to those the deployment wants once it is known (see keepCanaries).
    if (tuple.canary !== true) limits.set(group, limit - 1);
  }
  return replaced;
}

/**
 * What an evaluation of a system or sysbatch job changes (`SystemScheduler.computeJobAllocs`):
 * allocations no longer required, or on nodes the job no longer targets, are stopped; those
 * marked for migration stopped as on a tainted node; those on a node that is down or gone are
 * lost (nothing replaces them elsewhere); those of an older version are replaced on their node,
 * `MaxParallel` at a time (`evictAndPlace`); every node the job can use that lacks one gets it
 * (`computePlacements`, one node at a time, with what `placement.ts` gives an allocation on that
 * node); and the job's deployment is created, counted and found complete (see the module's note).
 */
export function computeSystemPlan(context: SchedulerContext, job: Job, evaluation: Evaluation): Placements & { readonly deploymentId: string } {
  const { tables } = context.store;
  const key = namespacedKey(job.Namespace, job.ID);
  const allocs = [...tables.allocs.group(key).values()];
  const tainted = taintedNodes(context, allocs);
  const readyNodes = job.Stop ? [] : nodesFor(tables, job);
  const notReadyNodes = new Set<string>();
  for (const node of tables.nodes.values()) if (!isReady(node)) notReadyNodes.add(node.ID);
  const latest = [...tables.deployment.group(key).values()].at(-1);
  const nowNs = context.clock.nowNs();
  const reconciled = reconcileNodes({ job, readyNodes, notReadyNodes, taintedNodes: tainted, live: allocs.filter((alloc) => !isTerminal(alloc)), terminal: terminalByNodeByName(allocs), deployment: latest, nowNs });
  const { deployments } = reconciled;
  // Updates its tasks can take stay on their node at the new version (`inplaceUpdate`); the others are destructive.
  const allocUpdate = allocUpdateFor(tables, job, evaluation.ID, true);
  const inplace: Allocation[] = [];
  const destructiveUpdates: AllocTuple<Allocation>[] = [];
  for (const tuple of reconciled.update) {
    const decided = tuple.alloc === undefined || tuple.group === undefined ? ({ kind: "destructive" } as const) : allocUpdate(tuple.alloc, job, tuple.group);
    if (decided.kind === "destructive") destructiveUpdates.push(tuple);
    // A finished allocation its update leaves as it is is not written again (`inplaceUpdate`'s terminal case).
    else if (decided.kind === "inplace") inplace.push(decided.alloc);
  }
  const result = { ...reconciled, update: destructiveUpdates };
  // The deployment the evaluation works with: the reconciler's current one, else the job's latest.
  let deployment = deployments.current ?? latest;
  // One this evaluation cancels takes no allocations.
  const active = deployment !== undefined && ACTIVE_DEPLOYMENT.has(deployment.Status) && !deployments.updates.some((update) => update.DeploymentID === deployment!.ID && update.Status === "cancelled");

  const stops: PlanStop[] = [];
  // Allocations stopped but still running on a node that is gone or down are lost too (`updateNonTerminalAllocsToLost`).
  for (const alloc of allocs) {
    const gone = tainted.has(alloc.NodeID) && (tainted.get(alloc.NodeID) === undefined || tainted.get(alloc.NodeID)?.Status === "down");
    if (gone && alloc.DesiredStatus !== "run" && (alloc.ClientStatus === "pending" || alloc.ClientStatus === "running")) stops.push({ alloc, clientStatus: "lost", description: STOP_DESCRIPTIONS.lost });
  }
  const stopAll = (tuples: readonly AllocTuple<Allocation>[], stop: Omit<PlanStop, "alloc">) => {
    for (const { alloc } of tuples) if (alloc !== undefined) stops.push({ alloc, ...stop });
  };
  stopAll(result.stop, { description: STOP_DESCRIPTIONS.notNeeded });
  stopAll(result.migrate, { description: STOP_DESCRIPTIONS.nodeTainted });
  stopAll(result.lost, { clientStatus: "lost", description: STOP_DESCRIPTIONS.lost });

  // The nodes each group is to be on (`tgCandidateNodeCounts`): placed, kept or updated there.
  const candidates = new Map<string, number>();
  for (const { group } of [...result.place, ...result.ignore, ...reconciled.update]) if (group !== undefined) candidates.set(group.Name, (candidates.get(group.Name) ?? 0) + 1);

  // Each node's placements and replacements, placed on that node alone.
  const perNode = new Map<string, { place: PlaceResult[]; destructive: DestructiveResult[] }>();
  const onNode = (nodeId: string) => perNode.get(nodeId) ?? perNode.set(nodeId, { place: [], destructive: [] }).get(nodeId)!;
  for (const { name, nodeId, group, alloc } of result.place) {
    if (group !== undefined) onNode(nodeId).place.push({ group, name, canary: false, reschedule: false, ...(alloc === undefined ? {} : { previous: alloc }) });
  }
  const canaryOf = new Set<string>();
  for (const { name, nodeId, group, alloc, canary } of evictAndPlace(job, result, active ? deployment : undefined)) {
    if (group === undefined || alloc === undefined) continue;
    onNode(nodeId).destructive.push({ group, name, stop: alloc });
    if (canary === true) canaryOf.add(alloc.ID);
  }
  // The updates of each group (`tgDestructiveUpdateCounts`), less those no node could take.
  const updating = new Map<string, number>();
  for (const { group } of result.update) if (group !== undefined) updating.set(group.Name, (updating.get(group.Name) ?? 0) + 1);
  const deploymentId = active ? deployment!.ID : "";
  // An allocation updated in place joins the deployment, its health there not yet known.
  const planned: Allocation[] = inplace.map((alloc) => (alloc.DeploymentID === deploymentId ? alloc : { ...alloc, DeploymentID: deploymentId, DeploymentStatus: null }));
  const failedTGAllocs: Record<string, JsonObject> = {};
  const queued: Record<string, number> = Object.fromEntries((job.Stop ? [] : job.TaskGroups).map((group) => [group.Name, 0]));
  // Per group: how many placements its constraints filtered out, and their metrics merged (`mergeNodeFiltered`).
  const filtered = new Map<string, { count: number; metric: JsonObject }>();
  // What the nodes hold as the plan goes: the cluster's allocations less those stopped, with those placed on the nodes before (a `distinct_property` counts them).
  const allocations = function* () {
    const stopped = new Set(stops.map((stop) => stop.alloc.ID));
    for (const alloc of tables.allocs.values()) if (!stopped.has(alloc.ID)) yield alloc;
    yield* planned;
  };
  for (const [nodeId, { place, destructive }] of perNode) {
    const node = tables.nodes.get(nodeId);
    const placements = computePlacements(
      { job, evaluation, nodes: node === undefined ? [] : [node], deploymentId, nowNs, allocations, nodeOf: (id) => tables.nodes.get(id), system: true, hostVolumes: hostVolumeView(tables) },
      { deployment: undefined, deploymentUpdates: [], place, destructive, inplaceUpdate: [], stop: [], attributeUpdates: [], followupEvals: [] },
    );
    // An allocation of an older version is stopped whether or not its replacement finds room on its node (`evictAndPlace`).
    for (const { stop } of destructive) {
      if (!placements.plan.stops.some((each) => each.alloc.ID === stop.ID)) stops.push({ alloc: stop, description: STOP_DESCRIPTIONS.updating });
    }
    // A replacement of an update marked canary is the deployment's canary (`missing.Canary`).
    planned.push(...placements.plan.allocs.map((alloc) => (alloc.PreviousAllocation !== undefined && canaryOf.has(alloc.PreviousAllocation) && alloc.DeploymentStatus !== null ? { ...alloc, DeploymentStatus: { ...alloc.DeploymentStatus, Canary: true } } : alloc)));
    stops.push(...placements.plan.stops);
    // A node that could not take its placement is not one the group is on, nor an update that could not be placed one.
    for (const [group, left] of Object.entries(placements.queued)) {
      if (left <= 0) continue;
      candidates.set(group, (candidates.get(group) ?? 0) - left);
      const updates = perNode.get(nodeId)?.destructive.filter((each) => each.group.Name === group).length ?? 0;
      updating.set(group, (updating.get(group) ?? 0) - Math.min(left, updates));
    }
    for (const [group, metric] of Object.entries(placements.failedTGAllocs)) {
      // A node its constraints filter out is not a failed placement: the group is not for that node (`computePlacements`).
      if ((metric.NodesFiltered as number) > 0) {
        const before = filtered.get(group);
        filtered.set(group, { count: (before?.count ?? 0) + (placements.queued[group] ?? 0), metric: before === undefined ? metric : mergeNodeFiltered(before.metric, metric) });
        placements.queued[group] = 0;
        delete placements.failedTGAllocs[group];
      }
    }
    for (const [group, count] of Object.entries(placements.queued)) queued[group] = (queued[group] ?? 0) + count;
    for (const [group, metric] of Object.entries(placements.failedTGAllocs)) {
      const failed = failedTGAllocs[group];
      // One metric a group, the other nodes' failures coalesced into it, as the reference reports them.
      failedTGAllocs[group] = failed === undefined ? metric : { ...failed, CoalescedFailures: (failed.CoalescedFailures as number) + 1 + (metric.CoalescedFailures as number) };
    }
  }

  // A group its constraints kept off every node it was to be placed on, with no allocation anywhere, failed: the filtered nodes' metrics say why.
  for (const [group, { count, metric }] of filtered) {
    const placing = [...perNode.values()].reduce((sum, { place, destructive }) => sum + place.filter((each) => each.group.Name === group).length + destructive.filter((each) => each.group.Name === group).length, 0);
    const existing = [...result.ignore, ...reconciled.update].some((tuple) => tuple.group?.Name === group);
    if (placing - count <= 0 && !existing && failedTGAllocs[group] === undefined) failedTGAllocs[group] = metric;
  }

  // The deployment wants the group on as many nodes as it could be placed on (`DesiredTotal`), and is complete once that many are healthy.
  const deploymentUpdates: DeploymentStatusUpdate[] = [...deployments.updates];
  let written = deployments.created ? deployment : undefined;
  if (deployment !== undefined && active) {
    let complete = true;
    const groups = { ...deployment.TaskGroups };
    for (const group of job.TaskGroups) {
      const wanted = candidates.get(group.Name) ?? 0;
      const state = groups[group.Name];
      if (wanted < 1 || state === undefined) continue;
      const update = updateStrategyOf(job, group);
      // A group is canarying while its deployment has not promoted an update of a version after the first.
      const canarying = update !== undefined && update.Canary > 0 && !state.Promoted && job.Version !== 0 && (updating.get(group.Name) ?? 0) > 0;
      let desiredCanaries = state.DesiredCanaries;
      if (canarying) {
        // `Canary` is a percentage of the allocations being updated here, rounded up, at most MaxParallel.
        const existing = result.ignore.filter(({ alloc }) => alloc?.TaskGroup === group.Name && alloc.DeploymentStatus?.Canary === true);
        desiredCanaries = Math.min(Math.ceil((update.Canary * ((updating.get(group.Name) ?? 0) + existing.length)) / 100), update.MaxParallel);
        keepCanaries(group.Name, desiredCanaries - existing.length, planned, stops);
      }
      if (state.DesiredTotal !== wanted || state.DesiredCanaries !== desiredCanaries) groups[group.Name] = { ...state, DesiredTotal: wanted, DesiredCanaries: desiredCanaries };
      complete &&= !canarying && state.HealthyAllocs >= wanted;
    }
    if (Object.entries(groups).some(([name, state]) => deployment!.TaskGroups[name] !== state)) {
      deployment = { ...deployment, TaskGroups: groups };
      written = deployment;
    }
    if (requiresPromotion(deployment)) {
      // Waiting for its canaries to be promoted, whether or not it is otherwise complete (`setDeploymentStatusAndUpdates`).
      const auto = Object.values(deployment.TaskGroups).every((group) => group.DesiredCanaries === 0 || group.AutoPromote);
      const description = auto ? DEPLOYMENT_DESCRIPTIONS.autoPromotion : DEPLOYMENT_DESCRIPTIONS.needsPromotion;
      if (deployment.StatusDescription !== description) {
        deployment = { ...deployment, StatusDescription: description };
        written = deployment;
      }
    } else if (complete) deploymentUpdates.push({ DeploymentID: deployment.ID, Status: "successful", StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful });
  }
  return { plan: { deployment: written, deploymentUpdates, stops, allocs: planned }, failedTGAllocs, queued, deploymentId: deployment?.ID ?? "" };
}

/**
 * Keeps `wanted` of the group's new canaries among the plan's new allocations, node by node (`evictUnneededCanaries`):
 * the others are not placed, and the allocations they would have replaced are not stopped.
 */
function keepCanaries(group: string, wanted: number, planned: Allocation[], stops: PlanStop[]): void {
  let left = wanted;
  for (let i = 0; i < planned.length; ) {
    const alloc = planned[i]!;
    if (alloc.TaskGroup !== group || alloc.DeploymentStatus?.Canary !== true) {
      i++;
      continue;
    }
    if (left > 0) {
      left--;
      i++;
      continue;
    }
    planned.splice(i, 1);
    const stopped = stops.findIndex((stop) => stop.alloc.ID === alloc.PreviousAllocation);
    if (stopped !== -1) stops.splice(stopped, 1);
  }
}

/** Two filtered nodes' metrics as one (`mergeNodeFiltered`): the nodes evaluated and filtered, and the filters' counts, added. */
function mergeNodeFiltered(a: JsonObject, b: JsonObject): JsonObject {
  const add = (x: unknown, y: unknown) => {
    const sum: Record<string, number> = { ...((x as Record<string, number> | null) ?? {}) };
    for (const [key, count] of Object.entries((y as Record<string, number> | null) ?? {})) sum[key] = (sum[key] ?? 0) + count;
    return Object.keys(sum).length === 0 ? null : sum;
  };
  return {
    ...a,
    NodesEvaluated: (a.NodesEvaluated as number) + (b.NodesEvaluated as number),
    NodesFiltered: (a.NodesFiltered as number) + (b.NodesFiltered as number),
    ClassFiltered: add(a.ClassFiltered, b.ClassFiltered),
    ConstraintFiltered: add(a.ConstraintFiltered, b.ConstraintFiltered),
  };
}
