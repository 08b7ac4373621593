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
 * replaced. The reference also asks its placement stack whether the group still fits on the
 * node (a constraint changed, say); the agent does not.
 *
 * @module
 */
import type { Allocation, Job, Node } from "../state/model.js";
import { matchesGlob } from "./placement.js";
import type { AllocUpdateFn } from "./reconciler.js";
import { isTerminal } from "./state.js";
import { tasksUpdated } from "./tasks-updated.js";

/** What {@link genericAllocUpdate} reads of the state: the job at an earlier version, a node by ID. */
export interface AllocUpdateState {
  /** The job as it was at `version`; undefined when that version is no longer kept. */
  readonly jobAt: (version: number) => Job | undefined;
  readonly node: (id: string) => Node | undefined;
  /** The evaluation being processed: an allocation updated in place names it. */
  readonly evalId: string;
}

/** The node pool that stands for every pool (`NodePoolAll`). */
const NODE_POOL_ALL = "all";

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
    if (!job.Datacenters.some((pattern) => matchesGlob(pattern, node.Datacenter))) return { kind: "destructive" };
    if (job.NodePool !== NODE_POOL_ALL && node.NodePool !== job.NodePool) return { kind: "destructive" };
    const updated: Allocation = { ...existing, EvalID: state.evalId, JobType: job.Type, JobVersion: job.Version };
    return { kind: "inplace", alloc: updated };
  };
}
