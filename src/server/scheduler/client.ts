/**
 * The simulated client nodes: what the reference's client agent reports of the allocations it
 * runs (`client/allocrunner/`, through `Node.UpdateAlloc`): they start running, and, when their
 * work ends, complete or fail. A job's `Meta` scripts their fate.
 *
 * @module
 */
import { parseGoDuration } from "../../go/duration.js";
import type { Allocation } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { updateDeploymentGroups } from "./deployment-watcher.js";
import { isTerminal, putJob, updateAlloc, type SchedulerContext } from "./state.js";

/** The job `Meta` key that makes its allocations finish that long after they start (a Go duration). */
export const META_RUN_FOR = "bexpr.run_for";

/** The job `Meta` key of the exit code its allocations finish with (not 0: they fail). */
export const META_EXIT_CODE = "bexpr.exit_code";

/** How an allocation's work ends: when (undefined: it runs until stopped) and with what exit code. */
export interface Fate {
  readonly runForMs: number | undefined;
  readonly exitCode: number;
}

/**
 * What the job's `Meta` scripts for its allocations: `bexpr.run_for` (a duration: they finish
 * that long after they start; without it, the `finish` step's `after` when a test set one
 * (`finishAfterMs`), and the placement delay for batch jobs) and `bexpr.exit_code` (not 0: they
 * fail when they finish).
 */
export function fateOf(context: SchedulerContext, alloc: Allocation, finishAfterMs: number | undefined): Fate {
  const job = context.store.tables.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
  const meta = job?.Meta ?? {};
  const runFor = meta[META_RUN_FOR];
  const parsed = runFor === undefined ? undefined : parseGoDuration(runFor);
  const runForMs = parsed !== undefined && parsed >= 0 ? parsed : (finishAfterMs ?? (alloc.JobType === "batch" ? context.placementDelayMs : undefined));
  const exitCode = Number.parseInt(meta[META_EXIT_CODE] ?? "0", 10);
  return { runForMs, exitCode: Number.isNaN(exitCode) ? 0 : exitCode };
}

/** The allocations report running; their deployment counts them placed. */
export async function runAllocations(context: SchedulerContext, allocIds: readonly string[], deploymentId: string | undefined): Promise<void> {
  await context.store.write(["allocs", "job_summary", "deployment", "jobs"], (state) => {
    for (const id of allocIds) {
      const alloc = state.allocs.get(id);
      const job = alloc && state.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
      if (alloc === undefined || job === undefined || alloc.ClientStatus !== "pending" || alloc.DesiredStatus !== "run") continue;
      updateAlloc(context, state, job, alloc, { ClientStatus: "running" });
    }
    updateDeploymentGroups(context, state, deploymentId, (group) => ({ ...group, PlacedAllocs: group.DesiredTotal }));
  });
}

/** An allocation's tasks end: it is complete, or failed when its job scripts a non-zero exit code. */
export async function finishAllocation(context: SchedulerContext, allocId: string, finishAfterMs: number | undefined): Promise<void> {
  await context.store.write(["allocs", "job_summary", "jobs", "deployment", "evals"], (state) => {
    const alloc = state.allocs.get(allocId);
    const job = alloc && state.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
    if (alloc === undefined || job === undefined || isTerminal(alloc)) return;
    const { exitCode } = fateOf(context, alloc, finishAfterMs);
    updateAlloc(context, state, job, alloc, { ClientStatus: exitCode === 0 ? "complete" : "failed" }, exitCode);
    putJob(context, state, job);
  });
}
