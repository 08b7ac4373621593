/**
 * Blocked evaluations and nodes that go down, as the reference handles them
 * (`nomad/blocked_evals.go`, and the node endpoint's `createNodeEvals`): a job no node can take
 * waits behind a `blocked` evaluation until a node can take it; a node that goes down makes a
 * `node-update` evaluation for each job with allocations on it.
 *
 * @module
 */
import type { Evaluation, Job, JsonObject, Node } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import { nodesFor, type Placement } from "./placement.js";
import { count, isTerminal, newEvaluation, putJob, type SchedulerContext } from "./state.js";

/** What the reference writes on a blocked evaluation. */
const BLOCKED_DESCRIPTION = "created to place remaining allocations";

/** `structs.AllocMetric` with every field at its zero value: what a task group that found no node reports. */
const ALLOC_METRIC: JsonObject = Object.freeze({
  NodesEvaluated: 0,
  NodesFiltered: 0,
  NodesInPool: 0,
  NodesAvailable: null,
  ClassFiltered: null,
  ConstraintFiltered: null,
  NodesExhausted: 0,
  ClassExhausted: null,
  DimensionExhausted: null,
  QuotaExhausted: null,
  ResourcesExhausted: null,
  ScoreMetaData: null,
  AllocationTime: 0,
  CoalescedFailures: 0,
});

/**
 * No node can take the job (none ready and eligible in its datacenters): as the reference's
 * scheduler, the evaluation completes with the task groups it could not place
 * (`FailedTGAllocs`) and a `blocked` evaluation (`BlockedEval`) waits for a node; the summary
 * counts the allocations `Queued`, and the job stays pending.
 */
export function block(context: SchedulerContext, state: Transaction<"evals" | "job_summary">, job: Job, evaluation: Evaluation, placements: readonly Placement[]): void {
  const { index } = state;
  const now = context.clock.nowNs();
  const available = Object.fromEntries(job.Datacenters.filter((pattern) => !pattern.includes("*")).map((datacenter) => [datacenter, 0]));
  const failed: Record<string, JsonObject> = {};
  const queued: Record<string, number> = {};
  for (const { group } of placements) queued[group.Name] = (queued[group.Name] ?? 0) + 1;
  for (const [group, wanted] of Object.entries(queued)) {
    failed[group] = { ...ALLOC_METRIC, NodesAvailable: available, CoalescedFailures: wanted - 1 };
    const already = state.job_summary.get(namespacedKey(job.Namespace, job.ID))?.Summary[group]?.Queued ?? 0;
    count(state, job, group, { Queued: wanted - already });
  }
  const blocked = newEvaluation(context.clock, index, {
    Namespace: job.Namespace,
    Priority: evaluation.Priority,
    Type: evaluation.Type,
    TriggeredBy: "queued-allocs",
    JobID: job.ID,
    JobModifyIndex: job.JobModifyIndex,
    Status: "blocked",
    StatusDescription: BLOCKED_DESCRIPTION,
    PreviousEval: evaluation.ID,
  });
  state.evals.put(blocked);
  state.evals.put({ ...evaluation, FailedTGAllocs: failed, QueuedAllocations: queued, BlockedEval: blocked.ID, ModifyIndex: index, ModifyTime: now });
}

/**
 * A node can take allocations now: the blocked evaluations of jobs that a node can take are
 * pending again, for the `evaluate` step (a scan of the evaluations, made when a node becomes
 * ready or eligible, which is rare).
 */
export async function unblock(context: SchedulerContext): Promise<void> {
  const { store, clock } = context;
  const unblocked = [...store.tables.evals.values()].filter((evaluation) => {
    if (evaluation.Status !== "blocked") return false;
    const job = store.tables.jobs.get(namespacedKey(evaluation.Namespace, evaluation.JobID));
    return job !== undefined && nodesFor(store.tables, job).length > 0;
  });
  if (unblocked.length === 0) return;
  await store.write(["evals"], (state) => {
    for (const { ID } of unblocked) {
      const evaluation = state.evals.get(ID);
      if (evaluation?.Status === "blocked") state.evals.put({ ...evaluation, Status: "pending", StatusDescription: "", ModifyIndex: state.index, ModifyTime: clock.nowNs() });
    }
  });
}

/**
 * Nodes are down: a `node-update` evaluation for each job with allocations still on one of them,
 * which the `evaluate` step turns into lost allocations and their replacements (one scan of the
 * allocations for all the nodes down, made when a node goes down, which is rare).
 */
export async function nodesDown(context: SchedulerContext): Promise<void> {
  const { store, clock } = context;
  const jobs = new Map<string, Node>();
  for (const alloc of store.tables.allocs.values()) {
    if (isTerminal(alloc)) continue;
    const node = store.tables.nodes.get(alloc.NodeID);
    if (node?.Status === "down") jobs.set(namespacedKey(alloc.Namespace, alloc.JobID), node);
  }
  if (jobs.size === 0) return;
  await store.write(["evals", "jobs"], (state) => {
    for (const [key, node] of jobs) {
      const job = state.jobs.get(key);
      // One waiting node-update evaluation a job is enough (the evaluate step may be off).
      if (job === undefined || [...state.evals.group(key).values()].some((e) => e.Status === "pending" && e.TriggeredBy === "node-update")) continue;
      state.evals.put(
        newEvaluation(clock, state.index, {
          Namespace: job.Namespace,
          Priority: job.Priority,
          Type: job.Type,
          TriggeredBy: "node-update",
          JobID: job.ID,
          JobModifyIndex: job.JobModifyIndex,
          NodeID: node.ID,
          NodeModifyIndex: node.ModifyIndex,
        }),
      );
      putJob(context, state, job);
    }
  });
}
