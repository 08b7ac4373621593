/**
 * Placing allocations on nodes, as the reference's generic scheduler does once the reconciler has
 * said what to place (`scheduler/generic_sched.go`, `computePlacements`): the nodes that can take
 * a job (ready, eligible, not draining, in its node pool and one of its datacenters) are ranked
 * for each allocation by the job's stack (`stack.ts`: constraints, drivers, `distinct_*`, room for
 * its CPU, memory and disk, then bin packing, anti-affinity, affinities and spreads), a
 * rescheduled allocation ranked down on the nodes it failed on; a replacement names the
 * allocation it replaces and, when that one failed, carries its reschedule tracker. Each
 * allocation placed carries what the scheduler gave it on its node (`AllocatedResources`, see
 * `resources.ts`). What finds no node is counted among the group's failed placements
 * (`FailedTGAllocs`, the stack's `AllocMetric`), for a blocked evaluation to place later.
 *
 * @module
 */
import { newUuid } from "../base/ids.js";
import { NODE_POOL_ALL } from "../state/operator.js";
import type { Allocation, Evaluation, Job, JobSpec, JsonObject, Node, SchedulerAlgorithm, TaskGroup } from "../state/model.js";
import type { Tables } from "../state/store.js";
import type { Plan, PlanStop } from "./plan.js";
import { STOP_DESCRIPTIONS, type ReconcileResults } from "./reconciler.js";
import { LAST_RESCHEDULE_FAILED, reschedulePolicyOf, trackerOfReplacement } from "./reschedule.js";
import { allocateResources, NodeUsageIndex } from "./resources.js";
import { AllocMetric, Stack } from "./stack.js";
import type { HostVolumeView } from "./host-volumes.js";
import { CLIENT_DESCRIPTIONS } from "./state.js";

/** Whether a job's datacenter pattern matches a node's datacenter: `*` stands for any run of characters, as the reference's glob. */
export function matchesGlob(pattern: string, datacenter: string): boolean {
  if (!pattern.includes("*")) return pattern === datacenter;
  const parts = pattern.split("*");
  if (!datacenter.startsWith(parts[0]!) || !datacenter.endsWith(parts[parts.length - 1]!)) return false;
  let at = parts[0]!.length;
  const end = datacenter.length - parts[parts.length - 1]!.length;
  if (end < at) return false;
  for (const part of parts.slice(1, -1)) {
    const found = datacenter.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}


/**
 * The nodes that can take the job's allocations (`readyNodesInDCsAndPool`): ready, eligible, not
 * draining, in the job's node pool (any pool for `all`) and in one of its datacenters (`*` and
 * other globs match as the reference's). Whether each can run a group, and has room for it, is the
 * stack's to decide (`stack.ts`).
 */
export function nodesFor(tables: Tables, job: JobSpec): Node[] {
  return [...tables.nodes.values()].filter((node) => isReady(node) && targets(job, node));
}

/** Whether a node can take new allocations (`Node.Ready`): ready, eligible, not draining. */
export function isReady(node: Node): boolean {
  return node.Status === "ready" && node.SchedulingEligibility === "eligible" && !node.Drain;
}

/** Whether the job targets the node: in its node pool (any pool for `all`) and one of its datacenters. */
export function targets(job: Pick<JobSpec, "NodePool" | "Datacenters">, node: Node): boolean {
  const anyPool = job.NodePool === NODE_POOL_ALL || job.NodePool === "";
  return (anyPool || node.NodePool === job.NodePool) && job.Datacenters.some((pattern) => matchesGlob(pattern, node.Datacenter));
}

/** What placing the reconciler's results gives: the plan, the groups that found no node, and how many of each group's placements are left to make. */
export interface Placements {
  readonly plan: Plan;
  /** Per task group, why its placements failed (`structs.AllocMetric`); empty when all were placed. */
  readonly failedTGAllocs: Record<string, JsonObject>;
  /** Per task group, the placements not made (`QueuedAllocations`). */
  readonly queued: Record<string, number>;
}

/** What {@link computePlacements} places with. */
export interface PlacementInput {
  readonly job: Job;
  readonly evaluation: Evaluation;
  /** The nodes that can take the job. */
  readonly nodes: readonly Node[];
  /** The deployment new allocations join (`""`: none). */
  readonly deploymentId: string;
  readonly nowNs: bigint;
  /** Every allocation of the cluster, read (once) when the first placement is ranked, to know what the nodes' live allocations hold. */
  readonly allocations: () => Iterable<Allocation>;
  /** A node by ID, for the allocations `distinct_property` and spreads count on nodes the job cannot take (default: among `nodes`). */
  readonly nodeOf?: (id: string) => Node | undefined;
  /** Placing a system or sysbatch job's allocations: its stack has no `distinct_hosts` and no ranking (`SystemStack`). */
  readonly system?: boolean;
  /** The scheduler's algorithm for the job's pool (binpack by default). */
  readonly algorithm?: SchedulerAlgorithm;
  /** The dynamic host volumes and sticky claims the groups' `volume` blocks need (see `host-volumes.ts`). */
  readonly hostVolumes?: HostVolumeView;
}

/**
 * Turns the reconciler's results into a plan (`computeJobAllocs`, `computePlacements`): its stops
 * and changed allocations as they are (those updated in place in the evaluation's deployment),
 * and each placement (replacements of older versions first) on the next node that can take it.
 */
export function computePlacements(input: PlacementInput, results: ReconcileResults): Placements {
  const { job, nodes, deploymentId, nowNs } = input;
  const nowMs = Number(nowNs / 1_000_000n);
  const stops: PlanStop[] = [...results.stop];
  // An allocation updated in place joins the evaluation's deployment, its health there not yet known.
  const inplace = results.inplaceUpdate.map((alloc) => (alloc.DeploymentID === deploymentId ? alloc : { ...alloc, DeploymentID: deploymentId, DeploymentStatus: null }));
  const allocs: Allocation[] = [...inplace, ...results.attributeUpdates];
  const failed = new Map<string, AllocMetric>();
  const queued: Record<string, number> = {};
  // What the allocations this plan stops hold is free for its placements, as the reference's proposed allocations leave them out.
  const stopping = new Set([...results.stop.map((stop) => stop.alloc.ID), ...results.destructive.map((each) => each.stop.ID)]);
  const usage = new NodeUsageIndex(function* () {
    for (const alloc of input.allocations()) if (!stopping.has(alloc.ID)) yield alloc;
  });
  const stack = new Stack({ job, nodes, usage, system: input.system === true, ...(input.nodeOf === undefined ? {} : { nodeOf: input.nodeOf }), ...(input.algorithm === undefined ? {} : { algorithm: input.algorithm }), ...(input.hostVolumes === undefined ? {} : { hostVolumes: input.hostVolumes }) });
  const placements = [
    ...results.destructive.map((each) => ({ group: each.group, name: each.name, canary: false, previous: each.stop, reschedule: false, destructive: true })),
    ...results.place.map((each) => ({ ...each, destructive: false })),
  ];
  for (const { group, name, canary, previous, reschedule, destructive } of placements) {
    queued[group.Name] = (queued[group.Name] ?? 0) + 1;
    const metric = failed.get(group.Name);
    // A group that failed once is not tried again in this evaluation (`CoalescedFailures`).
    if (metric !== undefined) {
      metric.coalescedFailures++;
      metric.exhaustResources(group);
      continue;
    }
    const selection = stack.select(group, { penaltyNodeIds: penaltyNodes(previous), allocName: name });
    if (!selection.ok) {
      selection.metric.exhaustResources(group);
      failed.set(group.Name, selection.metric);
      // The failed allocation stays as it is, its tracker noting the attempt (`markFailedToReschedule`).
      if (reschedule && previous !== undefined) {
        const at = stops.findIndex((stop) => stop.alloc.ID === previous.ID);
        if (at !== -1) stops.splice(at, 1);
        allocs.push({ ...previous, RescheduleTracker: { Events: previous.RescheduleTracker?.Events ?? [], LastReschedule: LAST_RESCHEDULE_FAILED } });
      }
      continue;
    }
    const node = selection.node;
    queued[group.Name]!--;
    const alloc = newAllocation(input, usage, group, name, node, canary && deploymentId !== "");
    usage.record(alloc);
    if (previous === undefined) {
      allocs.push(alloc);
      continue;
    }
    if (!reschedule) {
      allocs.push({ ...alloc, PreviousAllocation: previous.ID });
      if (destructive) stops.push({ alloc: previous, description: STOP_DESCRIPTIONS.updating });
      continue;
    }
    const policy = reschedulePolicyOf(job, group.Name);
    allocs.push({ ...alloc, PreviousAllocation: previous.ID, RescheduleTracker: trackerOfReplacement(previous, policy, nowMs) });
    // The failed allocation's stop notes that its reschedule was placed.
    const at = stops.findIndex((stop) => stop.alloc.ID === previous.ID);
    const tracker = { Events: previous.RescheduleTracker?.Events ?? [], LastReschedule: "ok" };
    if (at !== -1) stops[at] = { ...stops[at]!, alloc: { ...previous, RescheduleTracker: tracker } };
  }
  const failedTGAllocs = Object.fromEntries([...failed].map(([group, metric]) => [group, metric.toJSON()]));
  return { plan: { deployment: results.deployment, deploymentUpdates: results.deploymentUpdates, stops, allocs }, failedTGAllocs, queued };
}

/**
 * The nodes a replacement is ranked down on (`getSelectOptions`): the one its predecessor failed
 * on, and those of the predecessor's earlier reschedules.
 */
function penaltyNodes(previous: Allocation | undefined): ReadonlySet<string> | undefined {
  if (previous === undefined) return undefined;
  const nodes = new Set((previous.RescheduleTracker?.Events ?? []).map((event) => event.PrevNodeID));
  if (previous.ClientStatus === "failed") nodes.add(previous.NodeID);
  return nodes;
}

/** A new allocation of the job's group on `node`, pending, with the resources it is given there (its write sets its indexes). */
function newAllocation(input: PlacementInput, usage: NodeUsageIndex, group: TaskGroup, name: string, node: Node, canary: boolean): Allocation {
  const { job, evaluation, deploymentId, nowNs } = input;
  const taskNames = Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]).map((task) => String(task.Name ?? "")) : [];
  return {
    ID: newUuid(),
    Namespace: job.Namespace,
    EvalID: evaluation.ID,
    Name: name,
    NodeID: node.ID,
    NodeName: node.Name,
    JobID: job.ID,
    JobType: job.Type,
    JobVersion: job.Version,
    TaskGroup: group.Name,
    DeploymentID: deploymentId,
    DesiredStatus: "run",
    DesiredDescription: "",
    ClientStatus: "pending",
    ClientDescription: CLIENT_DESCRIPTIONS.pending,
    DeploymentStatus: deploymentId === "" ? null : { Healthy: null, Timestamp: "", Canary: canary, ModifyIndex: 0 },
    CreateIndex: 0,
    ModifyIndex: 0,
    CreateTime: nowNs,
    ModifyTime: nowNs,
    TaskRun: { Tasks: taskNames, StartedAt: null, FinishedAt: null, ExitCode: null },
    AllocatedResources: allocateResources(group, node, usage),
  };
}
