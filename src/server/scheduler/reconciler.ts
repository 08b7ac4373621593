/**
 * The scheduler's work for one evaluation, as the reference's reconciler decides it
 * (`scheduler/reconciler/reconcile_cluster.go`): allocations on a node that is down are lost and
 * replaced; those of an older version (or of a stopped job) are stopped; active deployments of an
 * older version are cancelled; a newer evaluation supersedes the job's blocked one; then the
 * allocations the job wants are placed, with a deployment for a service job's new version, or
 * queued behind a blocked evaluation when no node can take them.
 *
 * @module
 */
import type { Allocation, Job } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { block } from "./blocked.js";
import { startDeployment, updateStrategy } from "./deployment-watcher.js";
import { nodesFor, place, type Placement } from "./placement.js";
import { ACTIVE_DEPLOYMENT, count, DEPLOYMENT_DESCRIPTIONS, isTerminal, putJob, updateAlloc, type SchedulerContext } from "./state.js";

/** The reference's words for an allocation lost with its node. */
const LOST_DESCRIPTION = "alloc is lost since its node is down";

/** What the reference writes on a blocked evaluation a newer evaluation superseded. */
const BLOCKED_SUPERSEDED = "evaluation superseded by a newer one of the job";

/** Processes a pending evaluation: it completes, and the job's allocations and deployments follow from it. */
export async function processEvaluation(context: SchedulerContext, evalId: string): Promise<void> {
  const { store, clock } = context;
  await store.write(["evals", "allocs", "deployment", "jobs", "job_summary"], (state) => {
    const { index } = state;
    const evaluation = state.evals.get(evalId);
    if (evaluation === undefined || evaluation.Status !== "pending") return;
    const jobKey = namespacedKey(evaluation.Namespace, evaluation.JobID);
    state.evals.put({ ...evaluation, Status: "complete", ModifyIndex: index, ModifyTime: clock.nowNs() });
    const job = state.jobs.get(jobKey);
    if (job === undefined) return;
    // Allocations on a node that is down are lost, as the reference's reconciler finds them; those of the job's version are replaced.
    const lost = [...state.allocs.group(jobKey).values()].filter((a) => !isTerminal(a) && store.tables.nodes.get(a.NodeID)?.Status === "down");
    for (const alloc of lost) updateAlloc(context, state, job, alloc, { DesiredStatus: "stop", DesiredDescription: LOST_DESCRIPTION, ClientStatus: "lost", ClientDescription: LOST_DESCRIPTION });
    const current = [...state.allocs.group(jobKey).values()].filter((a) => !isTerminal(a));
    const obsolete = job.Stop ? current : current.filter((a) => a.JobVersion !== job.Version);
    for (const alloc of obsolete) {
      updateAlloc(context, state, job, alloc, { DesiredStatus: "stop", DesiredDescription: "alloc not needed due to job update", ClientStatus: "complete" });
    }
    for (const deployment of [...state.deployment.group(jobKey).values()]) {
      if (!ACTIVE_DEPLOYMENT.has(deployment.Status)) continue;
      if (job.Stop || deployment.JobVersion < job.Version) {
        const description = job.Stop ? DEPLOYMENT_DESCRIPTIONS.stoppedJob : DEPLOYMENT_DESCRIPTIONS.newerJob;
        state.deployment.put({ ...deployment, Status: "cancelled", StatusDescription: description, ModifyIndex: index, ModifyTime: clock.nowNs() });
      }
    }
    // A newer evaluation supersedes the job's blocked one; a stopped job queues nothing.
    for (const other of [...state.evals.group(jobKey).values()]) {
      if (other.Status === "blocked" && other.ID !== evalId) state.evals.put({ ...other, Status: "canceled", StatusDescription: BLOCKED_SUPERSEDED, ModifyIndex: index, ModifyTime: clock.nowNs() });
    }
    if (job.Stop) {
      for (const [group, counts] of Object.entries(state.job_summary.get(jobKey)?.Summary ?? {})) if (counts.Queued > 0) count(state, job, group, { Queued: -counts.Queued });
    }
    const replaced = lost.filter((alloc) => alloc.JobVersion === job.Version);
    if (!job.Stop && (replaced.length > 0 || !current.some((a) => a.JobVersion === job.Version))) {
      const nodes = nodesFor(store.tables, job);
      const placements = replaced.length > 0 ? replacements(job, replaced) : placementsOf(job);
      if (nodes.length === 0 && placements.length > 0) {
        block(context, state, job, state.evals.get(evalId)!, placements);
      } else if (replaced.length > 0) {
        place(context, state, job, evaluation, nodes, placements);
      } else {
        const deployment = startDeployment(context, state, job, evaluation);
        place(context, state, job, evaluation, nodes, deployment === undefined ? placements : placementsOf(job, deployment));
      }
    }
    putJob(context, state, job);
  });
}

/**
 * The allocations a job wants: `Count` per task group (one per group for system jobs), named
 * `<job>.<group>[<i>]`; with a deployment, the first of each group are its canaries when the
 * group's update strategy asks for them.
 */
function placementsOf(job: Job, deploymentId = ""): Placement[] {
  const placements: Placement[] = [];
  for (const group of job.TaskGroups) {
    const wanted = job.Type === "system" ? Math.min(group.Count, 1) : group.Count;
    const canaries = deploymentId === "" ? 0 : Number(updateStrategy(job, group).Canary ?? 0);
    for (let i = 0; i < wanted; i++) placements.push({ group, name: `${job.ID}.${group.Name}[${i}]`, deploymentId, canary: i < canaries });
  }
  return placements;
}

/** One allocation in place of each lost one, of the same name, outside any deployment. */
function replacements(job: Job, lost: readonly Allocation[]): Placement[] {
  return lost.flatMap((previous) => {
    const group = job.TaskGroups.find((each) => each.Name === previous.TaskGroup);
    return group === undefined ? [] : [{ group, name: previous.Name, deploymentId: "", canary: false, previous }];
  });
}
