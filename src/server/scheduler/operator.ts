/**
 * The operator's writes to the cluster state, each one transaction as the reference's Raft
 * message: the scheduler configuration with check-and-set (`Operator.SchedulerSetConfiguration`,
 * `SchedulerCASConfig`), node pools (`NodePool.UpsertNodePools`, `DeleteNodePools`), evaluations
 * deleted by an operator (`Eval.Delete`, `EvalIsUserDeleteSafe`), the forced core garbage
 * collection (`nomad/core_sched.go` with every threshold zero) and the job summaries reconciled
 * (`ReconcileJobSummaries`).
 *
 * @module
 */
import { formatErrors } from "../../go/multierror.js";
import { invalid, missing } from "../base/errors.js";
import type { Allocation, Evaluation, Job, NodePool, SchedulerConfiguration, TaskGroupSummary } from "../state/model.js";
import { SCHEDULER_CONFIG_NAME } from "../state/model.js";
import { BUILT_IN_NODE_POOLS, schedulerConfigOf } from "../state/operator.js";
import { namespacedKey, type Tables } from "../state/store.js";
import { reschedulePolicyOf } from "./reschedule.js";
import { EMPTY_GROUP_SUMMARY, isTerminal, type SchedulerContext } from "./state.js";

/** What a scheduler configuration write answers (`SchedulerSetConfigurationResponse`). */
export interface SchedulerSetConfigurationResponse {
  readonly Updated: boolean;
  readonly Index: number;
}

/**
 * Writes the scheduler configuration. With `cas`, only when the stored configuration's
 * `ModifyIndex` is `cas` (the defaults count as written at index 1); otherwise `Updated` is false
 * and nothing changes, as `SchedulerCASConfig` answers.
 */
export async function setSchedulerConfig(context: SchedulerContext, update: Omit<SchedulerConfiguration, "Name" | "CreateIndex" | "ModifyIndex">, cas: number | undefined): Promise<SchedulerSetConfigurationResponse> {
  const { index, result } = await context.store.write(["scheduler_config"], (state) => {
    const current = schedulerConfigOf(state);
    if (cas !== undefined && current.ModifyIndex !== cas) return false;
    state.scheduler_config.put({ ...update, Name: SCHEDULER_CONFIG_NAME, CreateIndex: state.scheduler_config.get(SCHEDULER_CONFIG_NAME)?.CreateIndex ?? state.index, ModifyIndex: state.index });
    return true;
  }, "SchedulerConfig");
  return { Updated: result, Index: index };
}

/** Creates or replaces a node pool; the built-in ones cannot be changed (`modifying node pool "all" is not allowed`). */
export async function upsertNodePool(context: SchedulerContext, pool: Omit<NodePool, "CreateIndex" | "ModifyIndex">): Promise<number> {
  if (BUILT_IN_NODE_POOLS.has(pool.Name)) throw invalid(`modifying node pool ${JSON.stringify(pool.Name)} is not allowed`);
  const { index } = await context.store.write(["node_pool"], (state) => {
    const previous = state.node_pool.get(pool.Name);
    state.node_pool.put({ ...pool, CreateIndex: previous?.CreateIndex ?? state.index, ModifyIndex: state.index });
  }, "NodePoolUpsert");
  return index;
}

/**
 * Deletes a node pool: not a built-in one, not one that does not exist, and not one that nodes or
 * jobs that have not finished are in (the reference's texts; its 500s for these are 400s here).
 */
export async function deleteNodePool(context: SchedulerContext, name: string, region: string): Promise<number> {
  if (BUILT_IN_NODE_POOLS.has(name)) throw invalid(`deleting node pool ${JSON.stringify(name)} is not allowed`);
  const { index } = await context.store.write(["node_pool"], (state) => {
    if (state.node_pool.get(name) === undefined) throw missing(`node pool ${name} not found`);
    const problems: string[] = [];
    const tables = context.store.tables;
    for (const job of tables.jobs.values()) {
      if (job.NodePool === name && job.Status !== "dead") {
        problems.push(`node pool ${JSON.stringify(name)} has non-terminal jobs in regions: [${job.Region}]`);
        break;
      }
    }
    for (const node of tables.nodes.values()) {
      if (node.NodePool === name) {
        problems.push(`node pool ${JSON.stringify(name)} has nodes in regions: [${region}]`);
        break;
      }
    }
    if (problems.length > 0) throw invalid(formatErrors(problems));
    state.node_pool.delete(name);
  }, "NodePoolDelete");
  return index;
}

/**
 * Whether an operator may delete an evaluation (`EvalIsUserDeleteSafe`): its job is gone, stopped
 * or dead, or none of its allocations runs (or may), and none failed that its job still means to
 * reschedule.
 */
export function evalIsUserDeleteSafe(tables: Tables, evaluation: Evaluation): boolean {
  const key = namespacedKey(evaluation.Namespace, evaluation.JobID);
  const job = tables.jobs.get(key);
  if (job === undefined || job.Stop || job.Status === "dead") return true;
  for (const alloc of tables.allocs.group(key).values()) {
    if (alloc.EvalID !== evaluation.ID) continue;
    if (alloc.ClientStatus === "running" || alloc.ClientStatus === "unknown") return false;
    if (alloc.ClientStatus !== "failed") continue;
    const policy = reschedulePolicyOf(job, alloc.TaskGroup);
    if (policy === undefined || (!policy.Unlimited && policy.Attempts === 0)) continue;
    if (alloc.NextAllocation === "" || alloc.NextAllocation === undefined) return false;
    if (policy.Unlimited) return false;
    if ((alloc.RescheduleTracker?.Events ?? []).length === 0) return false;
  }
  return true;
}

/** The reference's error for evaluations deleted while the broker runs. */
export const EVAL_BROKER_ENABLED = "eval broker is enabled; eval broker must be paused to delete evals";

/** What deleting evaluations answers (`EvalDeleteResponse`). */
export interface EvalDeleteResponse {
  readonly Count: number;
  readonly Index: number;
}

/**
 * Deletes evaluations by ID (each must exist and be safe to delete, or nothing is deleted) or
 * every safe one a filter selects, while the eval broker is paused (`PauseEvalBroker`).
 */
export async function deleteEvaluations(context: SchedulerContext, selection: { readonly ids: readonly string[] } | { readonly matches: (evaluation: Evaluation) => boolean }): Promise<EvalDeleteResponse> {
  const { store } = context;
  if (!schedulerConfigOf(store.tables).PauseEvalBroker) throw invalid(EVAL_BROKER_ENABLED);
  const { index, result } = await store.write(["evals"], (state) => {
    const tables = store.tables;
    const chosen: Evaluation[] = [];
    if ("ids" in selection) {
      for (const id of selection.ids) {
        const evaluation = state.evals.get(id);
        if (evaluation === undefined) throw missing("eval not found");
        if (!evalIsUserDeleteSafe(tables, evaluation)) throw invalid(`eval ${evaluation.ID} is not safe to delete`);
        chosen.push(evaluation);
      }
    } else {
      for (const evaluation of state.evals.values()) if (evalIsUserDeleteSafe(tables, evaluation) && selection.matches(evaluation)) chosen.push(evaluation);
    }
    if (!schedulerConfigOf(store.tables).PauseEvalBroker) throw invalid(EVAL_BROKER_ENABLED);
    for (const evaluation of chosen) state.evals.delete(evaluation.ID);
    return chosen.length;
  }, "EvalDelete");
  return { Count: result, Index: index };
}

/** What a forced garbage collection removed, by kind. */
export interface GarbageCollected {
  readonly evals: number;
  readonly allocs: number;
  readonly jobs: number;
  readonly deployments: number;
}

/** The evaluation statuses `Evaluation.TerminalStatus` names. */
const TERMINAL_EVAL = new Set(["complete", "failed", "canceled"]);

/**
 * The reference's core scheduler forced (`CoreJobForceGC`, every threshold zero), in one write:
 * terminal evaluations whose allocations are all terminal go with those allocations (a batch
 * job's while the job lives stay, as `gcEval` keeps them); dead jobs all of whose evaluations go
 * are purged with their summary, versions and deployments; deployments no longer active with no
 * allocation left that has not finished go. (Nodes are not collected: a simulated node that is
 * down comes back.)
 */
export async function collectGarbage(context: SchedulerContext): Promise<GarbageCollected> {
  const { result } = await context.store.write(["jobs", "job_summary", "job_versions", "scaling_event", "evals", "allocs", "deployment"], (state) => {
    const tables = context.store.tables;
    let evals = 0;
    let allocs = 0;
    let jobs = 0;
    let deployments = 0;
    const collectable = (evaluation: Evaluation, job: Job | undefined, own: readonly Allocation[]): boolean => {
      if (!TERMINAL_EVAL.has(evaluation.Status)) return false;
      // A live batch job keeps its evaluations and allocations: its summary counts them.
      if (job !== undefined && job.Type === "batch" && !job.Stop && job.Status !== "dead") return false;
      return own.every(isTerminal);
    };
    const byJob = new Map<string, Evaluation[]>();
    for (const evaluation of tables.evals.values()) {
      const key = namespacedKey(evaluation.Namespace, evaluation.JobID);
      const list = byJob.get(key) ?? [];
      list.push(evaluation);
      byJob.set(key, list);
    }
    for (const [key, evaluations] of byJob) {
      const job = tables.jobs.get(key);
      const allocsOf = new Map<string, Allocation[]>();
      for (const alloc of tables.allocs.group(key).values()) {
        const list = allocsOf.get(alloc.EvalID);
        if (list === undefined) allocsOf.set(alloc.EvalID, [alloc]);
        else list.push(alloc);
      }
      const gone = evaluations.filter((evaluation) => collectable(evaluation, job, allocsOf.get(evaluation.ID) ?? []));
      for (const evaluation of gone) {
        state.evals.delete(evaluation.ID);
        evals++;
        for (const alloc of allocsOf.get(evaluation.ID) ?? []) if (state.allocs.delete(alloc.ID)) allocs++;
      }
      // A dead job goes once every evaluation of it went (`jobGC`), and all it had with it.
      if (job !== undefined && job.Status === "dead" && gone.length === evaluations.length && job.Periodic === null) {
        state.jobs.delete(key);
        state.job_summary.delete(key);
        for (const version of [...tables.job_versions.group(key).values()]) state.job_versions.delete(`${key}\u0000${version.Version}`);
        if (tables.scaling_event.get(key) !== undefined) state.scaling_event.delete(key);
        for (const alloc of [...state.allocs.group(key).values()]) if (state.allocs.delete(alloc.ID)) allocs++;
        for (const deployment of [...state.deployment.group(key).values()]) if (state.deployment.delete(deployment.ID)) deployments++;
        jobs++;
      }
    }
    for (const deployment of [...state.deployment.values()]) {
      if (["running", "paused", "blocked", "unblocking", "initializing", "pending"].includes(deployment.Status)) continue;
      const key = namespacedKey(deployment.Namespace, deployment.JobID);
      const live = [...state.allocs.group(key).values()].some((alloc) => alloc.DeploymentID === deployment.ID && !isTerminal(alloc));
      if (!live && state.deployment.delete(deployment.ID)) deployments++;
    }
    return { evals, allocs, jobs, deployments };
  }, "EvalDelete");
  return result;
}

/** The summary count an allocation's client status adds to (`ReconcileJobSummaries`). */
const SUMMARY_FIELD: Readonly<Record<string, keyof TaskGroupSummary>> = { pending: "Starting", running: "Running", complete: "Complete", failed: "Failed", lost: "Lost", unknown: "Unknown" };

/**
 * Counts every job's summary again from its allocations (`ReconcileJobSummaries`): each group's
 * counts by the allocations' client status, its queued count from the job's latest evaluation.
 * The index of the write.
 */
export async function reconcileSummaries(context: SchedulerContext): Promise<number> {
  const { index } = await context.store.write(["job_summary"], (state) => {
    const tables = context.store.tables;
    for (const job of tables.jobs.values()) {
      const key = namespacedKey(job.Namespace, job.ID);
      const counts: Record<string, TaskGroupSummary> = {};
      for (const group of job.TaskGroups) counts[group.Name] = { ...EMPTY_GROUP_SUMMARY };
      let latest: Evaluation | undefined;
      for (const evaluation of tables.evals.group(key).values()) if (latest === undefined || evaluation.CreateIndex > latest.CreateIndex) latest = evaluation;
      for (const [group, queued] of Object.entries(latest?.QueuedAllocations ?? {})) if (counts[group] !== undefined) counts[group] = { ...counts[group]!, Queued: queued };
      for (const alloc of tables.allocs.group(key).values()) {
        const field = SUMMARY_FIELD[alloc.ClientStatus];
        const group = counts[alloc.TaskGroup];
        if (field !== undefined && group !== undefined) counts[alloc.TaskGroup] = { ...group, [field]: group[field] + 1 };
      }
      const previous = state.job_summary.get(key);
      state.job_summary.put({
        JobID: job.ID,
        Namespace: job.Namespace,
        Summary: counts,
        Children: previous?.Children ?? { Pending: 0, Running: 0, Dead: 0 },
        CreateIndex: previous?.CreateIndex ?? state.index,
        ModifyIndex: state.index,
      });
    }
  }, "ReconcileJobSummaries");
  return index;
}
