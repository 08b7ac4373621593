/**
 * How an allocation takes a new version of its job, as the reference's generic scheduler tells
 * its reconciler (`scheduler/util.go`, `genericAllocUpdateFn`): nothing to do when it is of the
 * job's version; replaced when the new version changes its tasks in a way they cannot take in
 * place (`tasks-updated.ts`); left as it is when it has finished; replaced when its node is gone
 * or no longer in the job's datacenters or node pool; otherwise updated in place, on its node,
 * with the resources it was given there (every change of them is destructive).
 *
 * The reference's allocation carries the job it runs; the agent's carries its version, and the
 * job at that version is read from the versions the agent keeps (`register.ts`, `putVersion`).
 * An allocation whose version was pruned (the newest six and the newest stable one are kept) is
 * replaced. As the reference, the placement stack is asked whether the group of the new version
 * still fits on the allocation's node, the allocations being updated set aside (a constraint that
 * no longer holds there makes the update destructive).
 *
 * @module
 */
import type { Allocation, Job, Node, TaskGroup } from "../state/model.js";
import { namespacedKey, type Tables } from "../state/store.js";
import { nodesFor, targets } from "./placement.js";
import type { AllocUpdateFn } from "./reconciler.js";
import { NodeUsageIndex } from "./resources.js";
import { Stack } from "./stack.js";
import { isTerminal } from "./state.js";
import { tasksUpdated } from "./tasks-updated.js";

/** What {@link genericAllocUpdate} reads of the state: the job at an earlier version, a node by ID. */
export interface AllocUpdateState {
  /** The job as it was at `version`; undefined when that version is no longer kept. */
  readonly jobAt: (version: number) => Job | undefined;
  readonly node: (id: string) => Node | undefined;
  /** The evaluation being processed: an allocation updated in place names it. */
  readonly evalId: string;
  /** Whether the new version's group fits on the node (the placement stack's checks and room); every node does without it. */
  readonly fits?: (node: Node, group: TaskGroup) => boolean;
}

/**
 * The update function of an evaluation of `job` on the state in `tables` (the generic or, with
 * `system`, the system scheduler's): earlier versions from the versions the agent keeps, and the
 * placement stack's answer for the allocation's node, with the room the job's allocations of
 * earlier versions hold given back to them (an allocation updated in place keeps its own).
 */
export function allocUpdateFor(tables: Tables, job: Job, evalId: string, system: boolean): AllocUpdateFn {
  const key = namespacedKey(job.Namespace, job.ID);
  let stack: Stack | undefined;
  const fits = (node: Node, group: TaskGroup) => {
    stack ??= new Stack({
      job,
      nodes: nodesFor(tables, job),
      usage: new NodeUsageIndex(function* () {
        for (const alloc of tables.allocs.values()) if (alloc.JobVersion === job.Version || alloc.Namespace !== job.Namespace || alloc.JobID !== job.ID) yield alloc;
      }),
      nodeOf: (id) => tables.nodes.get(id),
      system,
    });
    return stack.select(group, { nodes: [node] }).ok;
  };
  return genericAllocUpdate({ jobAt: (version) => tables.job_versions.get(`${key}\u0000${version}`)?.Job, node: (id) => tables.nodes.get(id), evalId, fits });
}


/**
 * The reference's `genericAllocUpdateFn` on the agent's state: an allocation updated in place is
 * the same allocation (ID, name, node, resources) of the job's version, naming the evaluation;
 * the plan gives it the evaluation's deployment (`generic-sched.ts`).
 */
export function genericAllocUpdate(state: AllocUpdateState): AllocUpdateFn {
  return (existing, job, group) => {
    if (existing.JobVersion === job.Version) return { kind: "ignore" };
    const previous = state.jobAt(existing.JobVersion);
    if (previous === undefined || tasksUpdated(job, previous, group.Name).modified) return { kind: "destructive" };
    // A finished allocation (a batch job's) is not written again: nothing on its client would change.
    if (isTerminal(existing)) return { kind: "ignore" };
    const node = state.node(existing.NodeID);
    if (node === undefined) return { kind: "destructive" };
    if (!targets(job, node)) return { kind: "destructive" };
    if (state.fits !== undefined && !state.fits(node, group)) return { kind: "destructive" };
    const updated: Allocation = { ...existing, EvalID: state.evalId, JobType: job.Type, JobVersion: job.Version };
    return { kind: "inplace", alloc: updated };
  };
}
