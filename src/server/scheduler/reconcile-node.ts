/**
 * The node reconciler: what one evaluation changes of a system or sysbatch job, as the reference's
 * `scheduler/reconciler/reconcile_node.go` decides it (`NodeReconciler.Compute`, per node
 * `computeForNode`). Such a job wants each of its task groups once on every node that can take
 * it, so the diff is made node by node: on each node, every allocation the job requires
 * (`materializeSystemTaskGroups`: `<job>.<group>[<i>]` for each group's count, none once the job
 * is stopped) is placed when the node lacks it, kept, updated when it is of an older version,
 * migrated when marked so, lost when its node is down, or stopped when the job no longer wants it
 * or the node is no longer one the job targets.
 *
 * Unlike the cluster reconciler (`reconciler.ts`), nothing is replaced on another node: an
 * allocation lost with its node is only marked lost, and a node that comes back gets its own
 * placement from the evaluation its return makes. A sysbatch allocation that finished is not
 * placed again on its node until the job changes.
 *
 * A pure function of its input, tested as the reference's own tables and properties
 * (`test/scheduler/reconcile-node.test.ts`). Where the reference compares an allocation's job's
 * `JobModifyIndex` with the job's, the agent's allocations carry their job's version, which is
 * compared instead. Not modelled: disconnected clients (the reference's `Disconnecting`,
 * `Reconnecting` and expiring `unknown` allocations: a running allocation on a disconnected node
 * is kept, see `Node.TerminalStatus`) and system deployments (`createDeployment`,
 * `cancelUnnededSystemDeployments`).
 *
 * @module
 */
import type { Allocation, Job, Node, TaskGroup } from "../state/model.js";
import { allocName } from "./alloc-names.js";

/** What the node reconciler reads of an allocation. */
export type NodeAlloc = Pick<Allocation, "ID" | "NodeID" | "Name" | "TaskGroup" | "JobType" | "JobVersion" | "ClientStatus" | "DesiredStatus" | "DesiredTransition">;

/** What the node reconciler reads of a job. */
export type NodeJob = Pick<Job, "ID" | "Type" | "Version" | "Stop" | "TaskGroups">;

/** An allocation the job requires or has, by name, and what to do with it on its node (`AllocTuple`). */
export interface AllocTuple<A extends NodeAlloc = NodeAlloc> {
  readonly name: string;
  /** The node it is on, or is to be placed on. */
  readonly nodeId: string;
  /** Its task group; undefined when the job no longer has the group (the allocation is stopped). */
  readonly group: TaskGroup | undefined;
  /** The allocation itself; for a placement, the terminal allocation of that name on the node it replaces, if any. */
  readonly alloc: A | undefined;
}

/** The diff of a system job's allocations, node by node (`NodeReconcileResult`). */
export interface NodeReconcileResult<A extends NodeAlloc = NodeAlloc> {
  /** Required on a node that can take them, and missing there. */
  readonly place: AllocTuple<A>[];
  /** Of an older version of the job (for sysbatch, a finished one too): replaced on the same node. */
  readonly update: AllocTuple<A>[];
  /** Marked for migration (`DesiredTransition.Migrate`) off a draining node. */
  readonly migrate: AllocTuple<A>[];
  /** No longer required, or on a node the job no longer targets. */
  readonly stop: AllocTuple<A>[];
  /** Up to date, or left where they are (on a node that is ineligible or draining, or a sysbatch one that finished). */
  readonly ignore: AllocTuple<A>[];
  /** On a node that is down or gone. */
  readonly lost: AllocTuple<A>[];
}

/** What {@link reconcileNodes} reads (the arguments of `NodeReconciler.Compute`). */
export interface NodeReconcileInput<A extends NodeAlloc = NodeAlloc> {
  readonly job: NodeJob;
  /** The nodes the job can be placed on: ready, eligible and in its datacenters (`readyNodes`). */
  readonly readyNodes: readonly Pick<Node, "ID">[];
  /** Nodes that are not ready: down, ineligible, or draining (`notReadyNodes`), by ID. */
  readonly notReadyNodes: ReadonlySet<string>;
  /** Nodes of the job's allocations that are down, draining or disconnected, by ID; undefined for a node that no longer exists (`taintedNodes`). */
  readonly taintedNodes: ReadonlyMap<string, Pick<Node, "Status"> | undefined>;
  /** The job's allocations that are not terminal. */
  readonly live: readonly A[];
  /** The job's latest terminal allocation of each name, by node ID then name (`TerminalByNodeByName`). */
  readonly terminal: ReadonlyMap<string, ReadonlyMap<string, A>>;
}

/**
 * The allocations a system or sysbatch job requires on each node, by name, with their groups
 * (`materializeSystemTaskGroups`); none once the job is stopped.
 */
export function requiredAllocs(job: NodeJob): Map<string, TaskGroup> {
  const required = new Map<string, TaskGroup>();
  if (job.Stop) return required;
  for (const group of job.TaskGroups) for (let i = 0; i < group.Count; i++) required.set(allocName(job.ID, group.Name, i), group);
  return required;
}

/** An empty diff. */
function emptyResult<A extends NodeAlloc>(): NodeReconcileResult<A> {
  return { place: [], update: [], migrate: [], stop: [], ignore: [], lost: [] };
}

/**
 * Diffs the job's allocations against what it requires, on every node that has one of them or
 * can take one (`NodeReconciler.Compute`).
 */
export function reconcileNodes<A extends NodeAlloc>(input: NodeReconcileInput<A>): NodeReconcileResult<A> {
  const byNode = new Map<string, A[]>();
  for (const alloc of input.live) byNode.set(alloc.NodeID, [...(byNode.get(alloc.NodeID) ?? []), alloc]);
  const eligible = new Set<string>();
  for (const node of input.readyNodes) {
    if (!byNode.has(node.ID)) byNode.set(node.ID, []);
    eligible.add(node.ID);
  }
  const required = requiredAllocs(input.job);
  const result = emptyResult<A>();
  for (const [nodeId, allocs] of byNode) {
    const diff = reconcileNode(input, nodeId, eligible, required, allocs);
    for (const key of Object.keys(result) as (keyof NodeReconcileResult<A>)[]) result[key].push(...diff[key]);
  }
  return result;
}

/**
 * The diff on one node (`computeForNode`): first each live allocation there, then each required
 * allocation the node lacks.
 *
 * @param eligible - the IDs of the ready nodes the job can be placed on.
 * @param required - what {@link requiredAllocs} gives for the job.
 */
export function reconcileNode<A extends NodeAlloc>(
  input: Omit<NodeReconcileInput<A>, "readyNodes" | "live">,
  nodeId: string,
  eligible: ReadonlySet<string>,
  required: ReadonlyMap<string, TaskGroup>,
  live: readonly A[],
): NodeReconcileResult<A> {
  const { job, notReadyNodes, taintedNodes, terminal } = input;
  const result = emptyResult<A>();
  const existing = new Set<string>();
  for (const alloc of live) {
    const name = alloc.Name;
    existing.add(name);
    const group = required.get(name);
    const tuple: AllocTuple<A> = { name, nodeId, group, alloc };
    // Not required (any more): stopped.
    if (group === undefined) {
      result.stop.push(tuple);
      continue;
    }
    if (alloc.DesiredTransition?.Migrate === true) {
      result.migrate.push(tuple);
      continue;
    }
    if (taintedNodes.has(alloc.NodeID)) {
      const node = taintedNodes.get(alloc.NodeID);
      // A sysbatch allocation that ran to completion is done with, wherever its node went.
      if (alloc.JobType === "sysbatch" && alloc.ClientStatus === "complete") result.ignore.push(tuple);
      // Lost with a node that is down or gone; left alone on one that is draining or disconnected.
      else if (node === undefined || node.Status === "down") result.lost.push(tuple);
      else result.ignore.push(tuple);
      continue;
    }
    // On a node that is not ready (ineligible, say): kept, unless the job changed since it was placed.
    if (notReadyNodes.has(nodeId)) {
      if (alloc.JobVersion !== job.Version) result.stop.push(tuple);
      else result.ignore.push(tuple);
      continue;
    }
    // On a node the job no longer targets (another datacenter, say): stopped.
    if (!eligible.has(nodeId)) {
      result.stop.push(tuple);
      continue;
    }
    if (alloc.JobVersion !== job.Version) result.update.push(tuple);
    else result.ignore.push(tuple);
  }
  for (const [name, group] of required) {
    if (existing.has(name)) continue;
    const finished = terminal.get(nodeId)?.get(name);
    // A sysbatch allocation that finished here is not placed again, unless the job changed since.
    if (job.Type === "sysbatch" && finished !== undefined) {
      (finished.JobVersion !== job.Version ? result.update : result.ignore).push({ name, nodeId, group, alloc: finished });
      continue;
    }
    // Nothing is placed on a node that is tainted or that the job cannot use.
    if (taintedNodes.has(nodeId) || !eligible.has(nodeId)) continue;
    // A placement names the allocation of that name that ended on the node, which it replaces.
    result.place.push({ name, nodeId, group, alloc: finished?.NodeID === nodeId ? finished : undefined });
  }
  return result;
}
