/**
 * Blocked evaluations and nodes that go down, as the reference handles them
 * (`nomad/blocked_evals.go`, the scheduler's `createBlockedEval`, and the node endpoint's
 * `createNodeEvals`): allocations no node can take wait behind a `blocked` evaluation until a
 * node can take them; a node that goes down makes a `node-update` evaluation for each job with
 * allocations on it.
 *
 * @module
 */
import type { Evaluation, Job, JsonObject, Node } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { nodesFor } from "./placement.js";
import { isTerminal, newEvaluation, putJob, type EvaluationFields, type SchedulerContext } from "./state.js";
import type { Clock } from "../base/clock.js";

/** What the reference writes on a blocked evaluation (`DescBlockedEvalFailedPlacements`). */
export const BLOCKED_DESCRIPTION = "created to place remaining allocations";

/** The blocked evaluation an evaluation that could not place everything makes (`Evaluation.CreateBlockedEval`). */
export function blockedEvalFields(evaluation: Evaluation, failedTGAllocs: Readonly<Record<string, JsonObject>>): EvaluationFields {
  return {
    Namespace: evaluation.Namespace,
    Priority: evaluation.Priority,
    Type: evaluation.Type,
    TriggeredBy: "queued-allocs",
    JobID: evaluation.JobID,
    JobModifyIndex: evaluation.JobModifyIndex,
    Status: "blocked",
    StatusDescription: BLOCKED_DESCRIPTION,
    PreviousEval: evaluation.ID,
    FailedTGAllocs: failedTGAllocs,
  };
}

/**
 * No node could take some of the job's allocations: a `blocked` evaluation waits for one
 * (`Evaluation.CreateBlockedEval`), written on its own as the reference's worker writes it
 * (`Worker.CreateEval`), before the plan; the job stays pending while nothing runs. Returns
 * its ID. A blocked evaluation the job had already is cancelled by a write of its own
 * afterwards, as the reference's leader reaps duplicates (`reapDupBlockedEvaluations`).
 */
export async function writeBlocked(context: SchedulerContext, job: Job, evaluation: Evaluation, failedTGAllocs: Readonly<Record<string, JsonObject>>): Promise<string> {
  const { store, clock } = context;
  const key = namespacedKey(job.Namespace, job.ID);
  const { result: blocked } = await store.write(["evals", "jobs"], (state) => {
    const written = newEvaluation(clock, state.index, blockedEvalFields(evaluation, failedTGAllocs));
    state.evals.put(written);
    putJob(context, state, state.jobs.get(key) ?? job);
    return written;
  }, "EvalUpdate");
  const duplicates = [...store.tables.evals.group(key).values()].filter((other) => other.Status === "blocked" && other.ID !== blocked.ID);
  if (duplicates.length > 0) {
    await store.write(["evals", "jobs"], (state) => {
      for (const { ID } of duplicates) {
        const duplicate = state.evals.get(ID);
        if (duplicate?.Status !== "blocked") continue;
        state.evals.put({ ...duplicate, Status: "canceled", StatusDescription: `existing blocked evaluation exists for job ${JSON.stringify(job.ID)}`, ModifyIndex: state.index, ModifyTime: clock.nowNs() });
      }
      const current = state.jobs.get(key);
      if (current !== undefined) putJob(context, state, current);
    }, "EvalUpdate");
  }
  return blocked.ID;
}

/**
 * What may let a blocked evaluation place now: a node that became ready and eligible, or room
 * freed on the nodes (an allocation that stopped running, as the reference's node endpoint
 * unblocks the evaluations of the node's class when a client reports an allocation finished).
 */
export type UnblockCause = "node" | "capacity";

/**
 * Whether freed room may help a blocked evaluation: some node was without room for it, or held
 * allocations a `distinct_*` constraint counted. One whose nodes were all filtered by what they
 * are (constraints, drivers) waits for a node, as the reference's class eligibility keeps it.
 */
function roomMayHelp(evaluation: Evaluation): boolean {
  return Object.values(evaluation.FailedTGAllocs ?? {}).some((metric) => {
    const filtered = typeof metric.ConstraintFiltered === "object" && metric.ConstraintFiltered !== null ? Object.keys(metric.ConstraintFiltered) : [];
    return (typeof metric.NodesExhausted === "number" && metric.NodesExhausted > 0) || filtered.some((reason) => reason.startsWith("distinct_"));
  });
}

/**
 * A node can take allocations now, or room was freed: the blocked evaluations of jobs that a node
 * can take, to be processed again (a scan of the evaluations, made when a node becomes ready or
 * eligible, or an allocation stops running, while an evaluation is blocked). Nothing is written:
 * as the reference's blocked-evaluation tracker, the scheduler takes them up in memory, and they
 * stay `blocked` in the state until their processing places something or changes what is queued.
 */
export function unblockable(context: SchedulerContext, cause: UnblockCause = "node"): Evaluation[] {
  const { store } = context;
  return [...store.tables.evals.values()].filter((evaluation) => {
    if (evaluation.Status !== "blocked" || (cause === "capacity" && !roomMayHelp(evaluation))) return false;
    const job = store.tables.jobs.get(namespacedKey(evaluation.Namespace, evaluation.JobID));
    return job !== undefined && nodesFor(store.tables, job).length > 0;
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
      state.evals.put(nodeUpdateEval(clock, state.index, job, node));
      putJob(context, state, job);
    }
  }, "EvalUpdate");
}

/**
 * Nodes can take allocations (ready and eligible again, or new): a `node-update` evaluation, with
 * the node's ID, for each system job that one of them could run and that has no allocation
 * running there (`createNodeEvals`, which evaluates every system job of the node's datacenters
 * and pool when a node becomes ready or eligible; sysbatch jobs are not among them, as the
 * reference's `JobsByScheduler("system")`). Derived from the state, so a node written again, or
 * the work taken up by a new leader, makes none for a job that has its allocation there or an
 * evaluation waiting already.
 */
export async function nodesReady(context: SchedulerContext): Promise<void> {
  const { store, clock } = context;
  const wanted = new Map<string, Node>();
  for (const job of store.tables.jobs.values()) {
    // A job that wants nothing anywhere (every group's count 0) has nothing to place either.
    if (job.Type !== "system" || job.Stop || !job.TaskGroups.some((group) => group.Count > 0)) continue;
    const key = namespacedKey(job.Namespace, job.ID);
    const running = new Set<string>();
    for (const alloc of store.tables.allocs.group(key).values()) if (!isTerminal(alloc)) running.add(alloc.NodeID);
    const node = nodesFor(store.tables, job).find((each) => !running.has(each.ID));
    if (node !== undefined) wanted.set(key, node);
  }
  if (wanted.size === 0) return;
  await store.write(["evals", "jobs"], (state) => {
    for (const [key, node] of wanted) {
      const job = state.jobs.get(key);
      // One waiting evaluation a job is enough: it places on every node that lacks the job's allocation.
      if (job === undefined || [...state.evals.group(key).values()].some((e) => e.Status === "pending")) continue;
      state.evals.put(nodeUpdateEval(clock, state.index, job, node));
      putJob(context, state, job);
    }
  }, "EvalUpdate");
}

/** A job's evaluation for a node's change (`createNodeEvals`): `node-update`, naming the node and the index it was at. */
function nodeUpdateEval(clock: Clock, index: number, job: Job, node: Node): Evaluation {
  return newEvaluation(clock, index, {
    Namespace: job.Namespace,
    Priority: job.Priority,
    Type: job.Type,
    TriggeredBy: "node-update",
    JobID: job.ID,
    JobModifyIndex: job.JobModifyIndex,
    NodeID: node.ID,
    NodeModifyIndex: node.ModifyIndex,
  });
}
