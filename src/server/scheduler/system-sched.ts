/**
 * The plan of an evaluation of a system or sysbatch job, as the reference's system scheduler makes
 * it (`scheduler/scheduler_system.go`, `SystemScheduler.process`, `computeJobAllocs` and
 * `computePlacements`; the sysbatch scheduler is the same one): the node reconciler
 * (`reconcile-node.ts`) diffs the job's allocations node by node, and each placement is made on
 * its own node, named as the job requires it there (`<job>.<group>[0]` on every node).
 * `generic-sched.ts` dispatches here and writes the plan and the evaluation as it does its own.
 *
 * Not modelled: system deployments (the reference makes them since 1.11: an update here replaces
 * every allocation of an older version at once, where the reference rolls `MaxParallel` at a time
 * behind a deployment), in-place updates, and the system scheduler's per-node blocked
 * evaluations (a placement no node can take is reported in `FailedTGAllocs` only).
 *
 * @module
 */
import type { Allocation, Evaluation, Job, JsonObject, Node } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import type { PlanStop } from "./plan.js";
import { computePlacements, nodesFor, type Placements } from "./placement.js";
import { reconcileNodes, type AllocTuple } from "./reconcile-node.js";
import { STOP_DESCRIPTIONS, type DestructiveResult, type PlaceResult } from "./reconciler.js";
import { isTerminal, type SchedulerContext } from "./state.js";

/** Whether the system scheduler handles the job's evaluations (`system` and `sysbatch` jobs). */
export function isSystemJob(job: Pick<Job, "Type">): boolean {
  return job.Type === "system" || job.Type === "sysbatch";
}

/** Whether a node can take new allocations (`Node.Ready`): ready, eligible, not draining. */
function isReady(node: Node): boolean {
  return node.Status === "ready" && node.SchedulingEligibility === "eligible" && !node.Drain;
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
 * What an evaluation of a system or sysbatch job changes (`SystemScheduler.computeJobAllocs`):
 * allocations no longer required, or on nodes the job no longer targets, are stopped; those
 * marked for migration stopped as on a tainted node; those on a node that is down or gone are
 * lost (nothing replaces them elsewhere); those of an older version are replaced on their node
 * (`evictAndPlace`); and every node the job can use that lacks one gets it (`computePlacements`,
 * one node at a time, with what `placement.ts` gives an allocation on that node).
 */
export function computeSystemPlan(context: SchedulerContext, job: Job, evaluation: Evaluation): Placements {
  const { tables } = context.store;
  const allocs = [...tables.allocs.group(namespacedKey(job.Namespace, job.ID)).values()];
  const tainted = taintedNodes(context, allocs);
  const readyNodes = job.Stop ? [] : nodesFor(tables, job);
  const notReadyNodes = new Set<string>();
  for (const node of tables.nodes.values()) if (!isReady(node)) notReadyNodes.add(node.ID);
  const result = reconcileNodes({ job, readyNodes, notReadyNodes, taintedNodes: tainted, live: allocs.filter((alloc) => !isTerminal(alloc)), terminal: terminalByNodeByName(allocs) });

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

  // Each node's placements and replacements, placed on that node alone.
  const perNode = new Map<string, { place: PlaceResult[]; destructive: DestructiveResult[] }>();
  const onNode = (nodeId: string) => perNode.get(nodeId) ?? perNode.set(nodeId, { place: [], destructive: [] }).get(nodeId)!;
  for (const { name, nodeId, group, alloc } of result.place) {
    if (group !== undefined) onNode(nodeId).place.push({ group, name, canary: false, reschedule: false, ...(alloc === undefined ? {} : { previous: alloc }) });
  }
  for (const { name, nodeId, group, alloc } of result.update) {
    if (group !== undefined && alloc !== undefined) onNode(nodeId).destructive.push({ group, name, stop: alloc });
  }
  const planned: Allocation[] = [];
  const failedTGAllocs: Record<string, JsonObject> = {};
  const queued: Record<string, number> = Object.fromEntries((job.Stop ? [] : job.TaskGroups).map((group) => [group.Name, 0]));
  for (const [nodeId, { place, destructive }] of perNode) {
    const node = tables.nodes.get(nodeId);
    const placements = computePlacements(
      { job, evaluation, nodes: node === undefined ? [] : [node], deploymentId: "", nowNs: context.clock.nowNs(), allocations: () => tables.allocs.values(), system: true },
      { deployment: undefined, deploymentUpdates: [], place, destructive, inplaceUpdate: [], stop: [], attributeUpdates: [], followupEvals: [] },
    );
    planned.push(...placements.plan.allocs);
    stops.push(...placements.plan.stops);
    for (const [group, metric] of Object.entries(placements.failedTGAllocs)) {
      // A node its constraints filter out is not a failed placement: the group is not for that node (`computePlacements`).
      if ((metric.NodesFiltered as number) > 0) {
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
  return { plan: { deployment: undefined, deploymentUpdates: [], stops, allocs: planned }, failedTGAllocs, queued };
}
