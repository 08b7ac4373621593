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
 * compared instead.
 *
 * It also keeps the job's deployment, as the reference's does since 1.11: a job whose version
 * is going out to nodes (a first registration, or allocations of an older version to replace)
 * gets one when its group has an update block (`createDeployment`), unless an eligible node is
 * older than 1.11 (`compatNodeTooOldForDeployment`); a deployment of an older version, or of a
 * stopped job, is cancelled (`cancelUnnededSystemDeployments`). How many allocations each
 * evaluation replaces, and when the deployment is complete, the system scheduler decides
 * (`system-sched.ts`).
 *
 * An update of a group whose update block asks for canaries, before its deployment promoted
 * them, is a canary (the system scheduler keeps as many as the deployment wants).
 *
 * Not modelled: disconnected clients (the reference's `Disconnecting`, `Reconnecting` and
 * expiring `unknown` allocations: a running allocation on a disconnected node is kept, see
 * `Node.TerminalStatus`).
 *
 * @module
 */
import { compareVersions, parseVersion } from "../../go/version.js";
import type { Allocation, Deployment, Job, Node, TaskGroup } from "../state/model.js";
import { allocName } from "./alloc-names.js";
import { nomadVersionOf } from "./fingerprint.js";
import type { DeploymentStatusUpdate } from "./plan.js";
import { newDeployment, newGroupState, updateStrategyOf } from "./reconciler.js";
import { ACTIVE_DEPLOYMENT, DEPLOYMENT_DESCRIPTIONS } from "./state.js";

/** What the node reconciler reads of an allocation. */
export type NodeAlloc = Pick<Allocation, "ID" | "NodeID" | "Name" | "TaskGroup" | "JobType" | "JobVersion" | "ClientStatus" | "DesiredStatus" | "DesiredTransition">;

/** What the node reconciler reads of a job. */
export type NodeJob = Pick<Job, "ID" | "Name" | "Namespace" | "Type" | "Version" | "Stop" | "TaskGroups" | "Update" | "Priority" | "CreateIndex" | "JobModifyIndex">;

/** What the node reconciler reads of a ready node: its ID, and the Nomad version its client reports (the deployment gate). */
export type NodeReady = Pick<Node, "ID"> & Partial<Pick<Node, "Version" | "Attributes">>;

/** The version from which clients track the health of a system job's deployment (`minVersionSystemDeployments`). */
const MIN_VERSION_SYSTEM_DEPLOYMENTS = parseVersion("1.11.0")!;

/** An allocation the job requires or has, by name, and what to do with it on its node (`AllocTuple`). */
export interface AllocTuple<A extends NodeAlloc = NodeAlloc> {
  readonly name: string;
  /** The node it is on, or is to be placed on. */
  readonly nodeId: string;
  /** Its task group; undefined when the job no longer has the group (the allocation is stopped). */
  readonly group: TaskGroup | undefined;
  /** The allocation itself; for a placement, the terminal allocation of that name on the node it replaces, if any. */
  readonly alloc: A | undefined;
  /** An update to be placed as a canary of the job's deployment (the group's `Canary` above 0, not yet promoted). */
  readonly canary?: boolean;
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

/**
 * The job's deployments as the node reconciler leaves them (`NodeReconciler`'s
 * `DeploymentCurrent`, `DeploymentOld`, `DeploymentUpdates`), filled in node by node.
 */
export interface NodeDeployments {
  /** The deployment of the job's version still going, or the one created for it; undefined when none. */
  current: Deployment | undefined;
  /** Whether `current` was created by this reconciliation (then the plan writes it). */
  created: boolean;
  /** A deployment set aside: of an older version (cancelled), or successful. */
  old: Deployment | undefined;
  /** Status changes: a deployment cancelled, or one created running. */
  readonly updates: DeploymentStatusUpdate[];
  /** Whether some allocation of the job's version was found up to date (`compatHasSameVersionAllocs`). */
  sameVersionAllocs: boolean;
}

/** The deployments before reconciliation: the job's latest one. */
export function nodeDeployments(latest: Deployment | undefined): NodeDeployments {
  return { current: latest, created: false, old: undefined, updates: [], sameVersionAllocs: false };
}

/** What {@link reconcileNodes} reads (the arguments of `NodeReconciler.Compute`). */
export interface NodeReconcileInput<A extends NodeAlloc = NodeAlloc> {
  readonly job: NodeJob;
  /** The nodes the job can be placed on: ready, eligible and in its datacenters (`readyNodes`). */
  readonly readyNodes: readonly NodeReady[];
  /** Nodes that are not ready: down, ineligible, or draining (`notReadyNodes`), by ID. */
  readonly notReadyNodes: ReadonlySet<string>;
  /** Nodes of the job's allocations that are down, draining or disconnected, by ID; undefined for a node that no longer exists (`taintedNodes`). */
  readonly taintedNodes: ReadonlyMap<string, Pick<Node, "Status"> | undefined>;
  /** The job's allocations that are not terminal. */
  readonly live: readonly A[];
  /** The job's latest terminal allocation of each name, by node ID then name (`TerminalByNodeByName`). */
  readonly terminal: ReadonlyMap<string, ReadonlyMap<string, A>>;
  /** The job's latest deployment, if any. */
  readonly deployment?: Deployment | undefined;
  /** Now (nanoseconds since the epoch), a new deployment's `CreateTime`; 0 when not told. */
  readonly nowNs?: bigint;
}

/**
 * The allocations a system or sysbatch job requires on each node, by name, with their groups
 * (`materializeSystemTaskGroups`); none once the job is stopped.
 */
export function requiredAllocs(job: NodeJob): Map<string, TaskGroup> {
  const required = new Map<string, TaskGroup>();
  if (job.Stop) return required;
  for (const group of job.TaskGroups) for (let i = 0; i < group.Count; i++) required.set(allocName(job.Name, group.Name, i), group);
  return required;
}

/** An empty diff. */
function emptyResult<A extends NodeAlloc>(): NodeReconcileResult<A> {
  return { place: [], update: [], migrate: [], stop: [], ignore: [], lost: [] };
}

/**
 * Diffs the job's allocations against what it requires, on every node that has one of them or
 * can take one (`NodeReconciler.Compute`), and says what becomes of the job's deployment
 * (`deployments`).
 */
export function reconcileNodes<A extends NodeAlloc>(input: NodeReconcileInput<A>): NodeReconcileResult<A> & { readonly deployments: NodeDeployments } {
  const deployments = nodeDeployments(input.deployment);
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
    const diff = reconcileNode(input, nodeId, eligible, required, allocs, deployments);
    for (const key of Object.keys(result) as (keyof NodeReconcileResult<A>)[]) result[key].push(...diff[key]);
  }
  // A deployment is not started where clients would not report its health: when allocations of
  // the job's version already run with none (a rollout begun before the upgrade), or while an
  // eligible node is older than 1.11 (the COMPAT(1.11.0) checks of `Compute`).
  const tooOld = input.readyNodes.some((node) => {
    const version = parseVersion(nomadVersionOf(node));
    return version !== undefined && compareVersions(version, MIN_VERSION_SYSTEM_DEPLOYMENTS) < 0;
  });
  if (input.deployment === undefined && deployments.current !== undefined && (deployments.sameVersionAllocs || tooOld)) {
    const dropped = deployments.current.ID;
    deployments.current = undefined;
    deployments.created = false;
    deployments.updates.splice(0, deployments.updates.length, ...deployments.updates.filter((update) => update.DeploymentID !== dropped));
  }
  return { ...result, deployments };
}

/**
 * Sets aside the deployment the job no longer needs (`cancelUnnededSystemDeployments`): one still
 * going is cancelled when the job is stopped or has another version; a successful one is no
 * longer current.
 */
function cancelUnneededDeployments(job: NodeJob, deployments: NodeDeployments): void {
  const current = deployments.current;
  if (current === undefined) return;
  const cancel = (description: string) => {
    // Once per reconciliation, where the reference stages it again on every node.
    if (ACTIVE_DEPLOYMENT.has(current.Status) && !deployments.updates.some((update) => update.DeploymentID === current.ID)) deployments.updates.push({ DeploymentID: current.ID, Status: "cancelled", StatusDescription: description });
  };
  if (job.Stop) {
    cancel(DEPLOYMENT_DESCRIPTIONS.stoppedJob);
    return;
  }
  if ((current.JobCreateIndex !== job.CreateIndex || current.JobVersion !== job.Version) && ACTIVE_DEPLOYMENT.has(current.Status)) {
    cancel(DEPLOYMENT_DESCRIPTIONS.newerJob);
    deployments.old = current;
    deployments.current = undefined;
    return;
  }
  if (current.Status === "successful") {
    deployments.old = current;
    deployments.current = undefined;
  }
}

/**
 * Gives the group a place in the job's deployment, creating it when it is the first
 * (`createDeployment`): not when an older deployment was of this version already, nor when the
 * node runs the job's version already and nothing there is being updated (nor when that version
 * ended there: a replacement of a finished allocation is no rollout).
 */
function createDeployment<A extends NodeAlloc>(input: Pick<NodeReconcileInput<A>, "job" | "nowNs">, group: TaskGroup, updates: number, live: readonly A[], terminal: ReadonlyMap<string, A> | undefined, deployments: NodeDeployments): void {
  const { job } = input;
  if (deployments.old !== undefined && deployments.old.JobVersion === job.Version) return;
  const ofThisVersion = (alloc: A) => alloc.JobVersion === job.Version;
  let hadRunning = false;
  if (live.some(ofThisVersion)) {
    deployments.sameVersionAllocs = true;
    hadRunning = true;
  }
  if ([...(terminal?.values() ?? [])].some(ofThisVersion)) hadRunning = true;
  if (hadRunning && updates === 0) return;
  if (deployments.current === undefined) {
    deployments.current = newDeployment(job, job.Priority, input.nowNs ?? 0n);
    deployments.created = true;
    deployments.updates.push({ DeploymentID: deployments.current.ID, Status: "running", StatusDescription: DEPLOYMENT_DESCRIPTIONS.running });
  }
  deployments.current = { ...deployments.current, TaskGroups: { ...deployments.current.TaskGroups, [group.Name]: newGroupState(updateStrategyOf(job, group)) } };
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
  deployments: NodeDeployments = nodeDeployments(undefined),
): NodeReconcileResult<A> {
  const { job, notReadyNodes, taintedNodes, terminal } = input;
  const result = emptyResult<A>();
  cancelUnneededDeployments(job, deployments);
  // A paused deployment (or one waiting for its peers), or a failed one, starts nothing new.
  const held = deployments.current !== undefined && ["paused", "pending", "initializing", "failed"].includes(deployments.current.Status);
  const ignore = (tuple: AllocTuple<A>) => {
    deployments.sameVersionAllocs = true;
    result.ignore.push(tuple);
  };
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
      if (alloc.JobType === "sysbatch" && alloc.ClientStatus === "complete") ignore(tuple);
      // Lost with a node that is down or gone; left alone on one that is draining or disconnected.
      else if (node === undefined || node.Status === "down") result.lost.push(tuple);
      else ignore(tuple);
      continue;
    }
    // On a node that is not ready (ineligible, say): kept, unless the job changed since it was placed.
    if (notReadyNodes.has(nodeId)) {
      if (alloc.JobVersion !== job.Version) result.stop.push(tuple);
      else ignore(tuple);
      continue;
    }
    // On a node the job no longer targets (another datacenter, say): stopped.
    if (!eligible.has(nodeId)) {
      result.stop.push(tuple);
      continue;
    }
    if (alloc.JobVersion !== job.Version) {
      // A canary while the group's deployment has not promoted it (with no deployment yet, the one to come has not).
      const state = deployments.current === undefined ? undefined : deployments.current.TaskGroups[group.Name];
      const promoted = deployments.current === undefined ? false : state === undefined ? undefined : state.Promoted;
      const canary = (updateStrategyOf(job, group)?.Canary ?? 0) > 0 && promoted === false;
      result.update.push(canary ? { ...tuple, canary } : tuple);
    } else ignore(tuple);
  }
  for (const [name, group] of required) {
    if (!existing.has(name)) {
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
    // A group with an update block (its MaxParallel above 0) rolls out behind a deployment, unless the job's has it already.
    const inDeployment = deployments.current !== undefined && Object.hasOwn(deployments.current.TaskGroups, group.Name);
    if (inDeployment || held || updateStrategyOf(job, group) === undefined) continue;
    createDeployment(input, group, result.update.length, live, terminal.get(nodeId), deployments);
  }
  return result;
}
