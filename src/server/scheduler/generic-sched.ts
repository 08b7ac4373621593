/**
 * Processing an evaluation, as the reference's generic scheduler does it
 * (`scheduler/generic_sched.go`, `Process` and `process`): the reconciler decides
 * (`reconciler.ts`), the placements are made on the nodes (`placement.ts`), and the outcome is
 * written in the reference's writes, each its own (so its own frame on the event stream):
 *
 * 1. a blocked evaluation, when some placements found no node (`createBlockedEval`);
 * 2. each follow-up evaluation that will reschedule failed allocations later (`CreateEval`);
 * 3. the plan, unless it changes nothing (`SubmitPlan`, applied by `plan.ts`);
 * 4. the evaluation, complete, with what it could not place and the evaluations it made
 *    (`setStatus`); a job's blocked evaluation is cancelled once an evaluation of it placed
 *    everything (the state store's `nestedUpsertEval`).
 *
 * A job's evaluations are processed one at a time, as the reference's eval broker hands them out.
 *
 * @module
 */
import { hostVolumeView } from "./host-volumes.js";
import type { Evaluation, Job, JobSummary, JsonObject, Node } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { algorithmFor } from "../state/operator.js";
import { allocUpdateFor } from "./alloc-update.js";
import { BLOCKED_DESCRIPTION, writeBlocked } from "./blocked.js";
import { desiredUpdates, systemDesiredUpdates, type DesiredUpdates } from "./annotate.js";
import { applyPlan, isNoOp, planTables, type Plan } from "./plan.js";
import { computePlacements, nodesFor } from "./placement.js";
import { reconcile, type ReconcileInput } from "./reconciler.js";
import { count, isTerminal, newEvaluation, putJob, type EvaluationFields, type SchedulerContext } from "./state.js";
import { computeSystemPlan, isSystemJob } from "./system-sched.js";

/** Processes a pending evaluation, or a blocked one unblocked (see `Cluster.#reprocess`), after any other evaluation of its job being processed. */
export async function processEvaluation(context: SchedulerContext, evalId: string): Promise<void> {
  const evaluation = context.store.tables.evals.get(evalId);
  if (evaluation === undefined || !PROCESSED.has(evaluation.Status)) return;
  const key = namespacedKey(evaluation.Namespace, evaluation.JobID);
  const before = context.evaluating.get(key) ?? Promise.resolve();
  const processing = before.then(() => process(context, evalId));
  const settled = processing.catch(() => {});
  context.evaluating.set(key, settled);
  void settled.then(() => {
    if (context.evaluating.get(key) === settled) context.evaluating.delete(key);
  });
  await processing;
}

/**
 * What the reconciler reads for a job now: its allocations, latest deployment, the nodes that are
 * down, draining or gone, and how an allocation takes the job's version (the job's earlier versions, as the agent
 * keeps them, stand for the job each allocation carries in the reference).
 */
export function reconcileInput(context: SchedulerContext, job: Job, evaluation: Pick<Evaluation, "ID" | "Priority">): ReconcileInput {
  const { tables } = context.store;
  const key = namespacedKey(job.Namespace, job.ID);
  const allocs = [...tables.allocs.group(key).values()];
  const deployments = [...tables.deployment.group(key).values()];
  const tainted = new Map<string, Node | undefined>();
  for (const alloc of allocs) {
    const node = tables.nodes.get(alloc.NodeID);
    // Down, draining, or gone (purged): its allocations are lost, or migrate when the drainer marked them.
    if (node === undefined || node.Status === "down" || node.DrainStrategy != null) tainted.set(alloc.NodeID, node);
  }
  const allocUpdate = allocUpdateFor(tables, job, evaluation.ID, false);
  return { job, allocUpdate, allocs, deployment: deployments.at(-1), taintedNodes: tainted, evaluation, nowNs: context.clock.nowNs() };
}

/** How many times an evaluation is processed again when its plan was made on a state that changed. */
const MAX_PLAN_ATTEMPTS = 5;

/**
 * A plan made on a state that changed before it was written: the job's allocations or deployments
 * were written meanwhile (another agent's scheduler processing the same evaluation around a change
 * of leader, a client's update). As the reference's plan applier sends the scheduler back to
 * refresh its snapshot, the evaluation is processed again on the new state.
 */
class StalePlan extends Error {
  override readonly name = "StalePlan";
}

/** One evaluation's processing, again while its plan is stale. */
async function process(context: SchedulerContext, evalId: string): Promise<void> {
  for (let attempt = 1; attempt <= MAX_PLAN_ATTEMPTS; attempt++) {
    try {
      await processOnce(context, evalId);
      return;
    } catch (error) {
      if (!(error instanceof StalePlan) || attempt === MAX_PLAN_ATTEMPTS) throw error;
    }
  }
}

/** The statuses of the evaluations processed: pending ones, and blocked ones once unblocked (see `blocked.ts`, `unblockable`). */
const PROCESSED: ReadonlySet<string> = new Set(["pending", "blocked"]);

/** One evaluation's processing, in the reference's writes. */
async function processOnce(context: SchedulerContext, evalId: string): Promise<void> {
  const { store, clock } = context;
  const evaluation = store.tables.evals.get(evalId);
  if (evaluation === undefined || !PROCESSED.has(evaluation.Status)) return;
  // The state the plan is made on: a plan is written only if the job's allocations and deployments are still as read here.
  const snapshotIndex = store.index;
  const key = namespacedKey(evaluation.Namespace, evaluation.JobID);
  const job = store.tables.jobs.get(key);
  if (job === undefined) {
    await writeStatus(context, evaluation, { failedTGAllocs: {}, queued: {}, deploymentId: "" });
    return;
  }
  const planned = computeEvaluation(context, job, evaluation);
  const { plan, failedTGAllocs, queued, deploymentId } = planned;
  if (planned.system) {
    if (!isNoOp(plan)) await writePlan(context, job, plan, snapshotIndex);
    await writeStatus(context, evaluation, { failedTGAllocs, queued, deploymentId });
    return;
  }
  const failed = Object.keys(failedTGAllocs).length > 0;
  const waitUntilMs = evaluation.WaitUntil === undefined ? undefined : Date.parse(evaluation.WaitUntil);
  const delayed = waitUntilMs !== undefined && !Number.isNaN(waitUntilMs);

  // A blocked evaluation processed again that still cannot place everything goes back to waiting (`ReblockEval`): written
  // only when what it leaves queued is not what the job's summary says (as the reference's worker then updates it); else
  // the tracker takes it back in memory, and nothing is written.
  if (failed && evaluation.TriggeredBy === "queued-allocs") {
    if (!isNoOp(plan)) await writePlan(context, job, plan, snapshotIndex);
    if (evaluation.Status !== "blocked" || queuedDiffers(store.tables.job_summary.get(key), queued)) await writeStatus(context, evaluation, { failedTGAllocs, queued, deploymentId, status: "blocked" });
    return;
  }
  let blockedId: string | undefined;
  if (failed && (planned.followupEvals.length === 0 || (delayed && clock.nowMs() > waitUntilMs))) blockedId = await writeBlocked(context, job, evaluation, failedTGAllocs);
  let nextEval: string | undefined;
  if (!isNoOp(plan)) {
    // Follow-ups are made once: not by an evaluation that was itself delayed.
    if (!delayed) {
      for (const followup of planned.followupEvals) {
        await store.write(["evals", "jobs"], (state) => {
          state.evals.put(newEvaluation(clock, state.index, { ...followup, PreviousEval: evaluation.ID }));
          putJob(context, state, state.jobs.get(key) ?? job);
        }, "EvalUpdate");
        nextEval = followup.ID;
      }
    }
    await writePlan(context, job, plan, snapshotIndex);
  }
  await writeStatus(context, evaluation, { failedTGAllocs, queued, deploymentId, blockedId, nextEval });
}

/** Whether an evaluation's queued allocations differ from the job summary's for some group they name (`Worker.ReblockEval`). */
function queuedDiffers(summary: JobSummary | undefined, queued: Readonly<Record<string, number>>): boolean {
  if (summary === undefined) return false;
  return Object.entries(summary.Summary).some(([group, counts]) => group in queued && queued[group] !== counts.Queued);
}

/** What one evaluation of a job decides, before anything is written. */
export interface EvaluationPlan {
  /** Planned node by node (a system or sysbatch job). */
  readonly system: boolean;
  readonly plan: Plan;
  /** Per task group, why its placements failed (`FailedTGAllocs`). */
  readonly failedTGAllocs: Record<string, JsonObject>;
  /** Per task group, the placements left to make (`QueuedAllocations`). */
  readonly queued: Record<string, number>;
  /** The deployment the evaluation works with, or `""`. */
  readonly deploymentId: string;
  /** The evaluations that will reschedule failed allocations later. */
  readonly followupEvals: readonly EvaluationFields[];
  /** Per task group, the counts of the decisions (`PlanAnnotations.DesiredTGUpdates`). */
  readonly desiredTGUpdates: Record<string, DesiredUpdates>;
}

/**
 * Decides what an evaluation of `job` changes on the state of `context.store.tables`, writing
 * nothing: the reconciler (or, for system and sysbatch jobs, the node reconciler) and the
 * placements. Processing an evaluation writes it (`processOnce`); a job's plan only answers it
 * (`plan-job.ts`, on a view of the state with the job's next version).
 */
export function computeEvaluation(context: SchedulerContext, job: Job, evaluation: Evaluation): EvaluationPlan {
  const { tables } = context.store;
  const key = namespacedKey(job.Namespace, job.ID);
  // System and sysbatch jobs are planned node by node (the reference's worker hands their evaluations to its system scheduler).
  if (isSystemJob(job)) {
    const { plan, failedTGAllocs, queued, deploymentId } = computeSystemPlan(context, job, evaluation);
    const live = [...tables.allocs.group(key).values()].filter((alloc) => !isTerminal(alloc));
    const desiredTGUpdates = systemDesiredUpdates(job.TaskGroups.map((group) => group.Name), live, (id) => tables.allocs.get(id), plan);
    return { system: true, plan, failedTGAllocs, queued, deploymentId, followupEvals: [], desiredTGUpdates };
  }
  const input = reconcileInput(context, job, evaluation);
  const results = reconcile(input);
  const created = results.deployment;
  const latest = input.deployment;
  // New allocations join the job's deployment when it is going (`s.deployment.Active()`).
  const joined = created ?? (latest !== undefined && latest.JobVersion === job.Version && ["running", "paused", "blocked", "unblocking", "initializing", "pending"].includes(latest.Status) ? latest : undefined);
  const { plan, failedTGAllocs, queued } = computePlacements({ job, evaluation, nodes: nodesFor(tables, job), deploymentId: joined?.ID ?? "", nowNs: input.nowNs, allocations: () => tables.allocs.values(), nodeOf: (id) => tables.nodes.get(id), algorithm: algorithmFor(tables, job.NodePool), hostVolumes: hostVolumeView(tables) }, results);
  // Every group of a job that placed nothing has nothing queued.
  const queuedAllocations = results.place.length + results.destructive.length === 0 ? Object.fromEntries(job.TaskGroups.map((group) => [group.Name, 0])) : queued;
  const deploymentId = (created ?? latest)?.ID ?? "";
  return { system: false, plan, failedTGAllocs, queued: queuedAllocations, deploymentId, followupEvals: results.followupEvals, desiredTGUpdates: desiredUpdates(input, results) };
}

/**
 * Writes the plan (`SubmitPlan`), unless the job's allocations or deployments were written after
 * `snapshotIndex`, the state it was made on.
 *
 * @throws StalePlan when they were: nothing is written, and the evaluation is processed again.
 */
async function writePlan(context: SchedulerContext, job: Job, plan: Parameters<typeof applyPlan>[3], snapshotIndex: number): Promise<void> {
  const key = namespacedKey(job.Namespace, job.ID);
  // Only the tables the plan changes are named: a table named moves its index.
  await context.store.write(planTables(plan, job), (state) => {
    const written = (rows: Iterable<{ readonly ModifyIndex: number }>) => [...rows].some((row) => row.ModifyIndex > snapshotIndex);
    // A table the plan does not change is not named, so not in the transaction.
    const tables: Partial<Pick<typeof state, "allocs" | "deployment">> = state;
    if ((tables.allocs !== undefined && written(tables.allocs.group(key).values())) || (tables.deployment !== undefined && written(tables.deployment.group(key).values()))) throw new StalePlan();
    applyPlan(context, state as Parameters<typeof applyPlan>[1], job, plan);
  }, "ApplyPlanResults");
}

/** The outcome of an evaluation, as `setStatus` writes it. */
interface EvaluationOutcome {
  readonly failedTGAllocs: Readonly<Record<string, JsonObject>>;
  readonly queued: Readonly<Record<string, number>>;
  readonly deploymentId: string;
  readonly status?: "complete" | "blocked";
  readonly blockedId?: string;
  readonly nextEval?: string;
}

/**
 * Writes the evaluation processed (`setStatus`, `UpdateEval`): complete (or blocked again), with
 * the job's deployment, the groups it could not place, what is left queued (which the job's
 * summary counts), and the evaluations it made. An evaluation complete with nothing left to
 * place cancels the job's blocked evaluations (`nestedUpsertEval`).
 */
async function writeStatus(context: SchedulerContext, evaluation: Evaluation, outcome: EvaluationOutcome): Promise<void> {
  const { store, clock } = context;
  const key = namespacedKey(evaluation.Namespace, evaluation.JobID);
  await store.write(["evals", "jobs", "job_summary"], (state) => {
    // Written only if nothing changed its status while it was processed (a blocked one canceled by another's success, say).
    const current = state.evals.get(evaluation.ID);
    if (current === undefined || current.Status !== evaluation.Status) return;
    const now = clock.nowNs();
    const failed = Object.keys(outcome.failedTGAllocs).length > 0;
    const status = outcome.status ?? "complete";
    // The groups it could not place this time, and none when it placed everything.
    const { FailedTGAllocs: _previous, ...rest } = current;
    state.evals.put({
      ...rest,
      Status: status,
      StatusDescription: status === "blocked" ? BLOCKED_DESCRIPTION : "",
      ...(outcome.deploymentId === "" ? {} : { DeploymentID: outcome.deploymentId }),
      ...(failed ? { FailedTGAllocs: outcome.failedTGAllocs } : {}),
      QueuedAllocations: outcome.queued,
      ...(outcome.blockedId === undefined ? {} : { BlockedEval: outcome.blockedId }),
      ...(outcome.nextEval === undefined ? {} : { NextEval: outcome.nextEval }),
      ModifyIndex: state.index,
      ModifyTime: now,
    });
    const job = state.jobs.get(key);
    if (job !== undefined) {
      const summary = state.job_summary.get(key);
      for (const [group, queued] of Object.entries(outcome.queued)) {
        const counts = summary?.Summary[group];
        if (counts !== undefined && counts.Queued !== queued) count(state, job, group, { Queued: queued - counts.Queued });
      }
    }
    if (status === "complete" && !failed) {
      for (const other of [...state.evals.group(key).values()]) {
        if (other.Status === "blocked") state.evals.put({ ...other, Status: "canceled", StatusDescription: `evaluation ${JSON.stringify(evaluation.ID)} successful`, ModifyIndex: state.index, ModifyTime: now });
      }
    }
    if (job !== undefined) putJob(context, state, job);
  }, "EvalUpdate");
}
