/**
 * The simulated client nodes: what the reference's client agent reports of the allocations it
 * runs (`client/allocrunner/`, through `Node.UpdateAlloc`): they start running, and, when their
 * work ends, complete or fail (a failure the group may reschedule brings an `alloc-failure`
 * evaluation, see `updateAlloc`); those the server stopped are killed. A job's `Meta` scripts
 * their fate.
 *
 * Every update a client sends carries the allocation's network status (`allocRunner.clientAlloc`):
 * what its network hook set up, or an empty status with its group network's DNS configuration.
 * The simulated clients set up no network namespace (their nodes have no bridge), so every
 * allocation reports what a host-mode network does: no interface, no address
 * ({@link networkStatusOf}).
 *
 * @module
 */
import { parseGoDuration } from "../../go/duration.js";
import type { Allocation, AllocNetworkStatus, ClientStatus, Job } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { clientTerminal, syncServices } from "./services.js";
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
 * (`finishAfterMs`), and the placement delay for batch and sysbatch jobs) and `bexpr.exit_code` (not 0: they
 * fail when they finish).
 */
export function fateOf(context: SchedulerContext, alloc: Allocation, finishAfterMs: number | undefined): Fate {
  const job = context.store.tables.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
  const meta = job?.Meta ?? {};
  const runFor = meta[META_RUN_FOR];
  const parsed = runFor === undefined ? undefined : parseGoDuration(runFor);
  const runForMs = parsed !== undefined && parsed >= 0 ? parsed : (finishAfterMs ?? (alloc.JobType === "batch" || alloc.JobType === "sysbatch" ? context.placementDelayMs : undefined));
  const exitCode = Number.parseInt(meta[META_EXIT_CODE] ?? "0", 10);
  return { runForMs, exitCode: Number.isNaN(exitCode) ? 0 : exitCode };
}

/**
 * The network status a client reports with an allocation (`allocRunner.clientAlloc`) whose group
 * network is in host mode, or that has none: the network hook sets nothing up for it
 * (`networkHook.Prerun`), so the status is empty but for the DNS configuration of the group's
 * network, when it gives one (taken from the network the scheduler gave the allocation, which
 * is its job version's). A status the allocation already has is kept.
 */
export function networkStatusOf(alloc: Allocation): AllocNetworkStatus {
  if (alloc.NetworkStatus !== undefined) return alloc.NetworkStatus;
  const dns = alloc.AllocatedResources?.Shared.Networks?.[0]?.DNS ?? null;
  return { InterfaceName: "", Address: "", AddressIPv6: "", DNS: dns === null ? null : structuredClone(dns) };
}

/** The allocations report running (`Node.UpdateAlloc`): their summary counts and the job's status follow. */
export async function runAllocations(context: SchedulerContext, allocIds: readonly string[]): Promise<void> {
  const starts = (alloc: Allocation | undefined): alloc is Allocation => alloc !== undefined && alloc.ClientStatus === "pending" && alloc.DesiredStatus === "run";
  if (!allocIds.some((id) => starts(context.store.tables.allocs.get(id)))) return;
  await reportAll(context, allocIds, starts, "running");
  // Their clients then register their native services, an RPC of their own.
  await syncServices(context, allocIds);
}

/**
 * The server stopped allocations of the job that still run: their clients kill the tasks and
 * report them complete, in a write after the scheduler's (the reference's client acts on the
 * plan it reads).
 */
export async function stopAllocations(context: SchedulerContext, jobKey: string): Promise<void> {
  const stops = (alloc: Allocation | undefined): alloc is Allocation => alloc !== undefined && alloc.DesiredStatus !== "run" && (alloc.ClientStatus === "pending" || alloc.ClientStatus === "running");
  const stopped = [...context.store.tables.allocs.group(jobKey).values()].filter(stops).map((alloc) => alloc.ID);
  if (stopped.length > 0) await reportAll(context, stopped, stops, "complete");
}

/** One client write: the allocations `applies` still selects take `status`, and their jobs' statuses follow. */
async function reportAll(context: SchedulerContext, allocIds: readonly string[], applies: (alloc: Allocation | undefined) => alloc is Allocation, status: ClientStatus): Promise<void> {
  // A write that ends allocations also drops their services (named only then: a table named moves its index).
  const tables = clientTerminal(status) ? (["allocs", "job_summary", "jobs", "service_registrations"] as const) : (["allocs", "job_summary", "jobs"] as const);
  await context.store.write(tables, (state) => {
    const jobs = new Map<string, Job>();
    for (const id of allocIds) {
      const alloc = state.allocs.get(id);
      if (!applies(alloc)) continue;
      const key = namespacedKey(alloc.Namespace, alloc.JobID);
      const job = state.jobs.get(key);
      updateAlloc(context, state, job, alloc, { ClientStatus: status, NetworkStatus: networkStatusOf(alloc) });
      if (job !== undefined) jobs.set(key, job);
    }
    for (const job of jobs.values()) putJob(context, state, job);
  }, "AllocClientUpdate");
}

/**
 * The allocations' tasks end, in one client write (`Node.UpdateAlloc`, whose server batches the
 * updates that come within a moment: `batchUpdate`): each is complete, or failed when its job
 * scripts a non-zero exit code; a job with failures its policy reschedules gets one
 * `alloc-failure` evaluation for the batch (see `updateAlloc`).
 */
export async function finishAllocations(context: SchedulerContext, allocIds: readonly string[], finishAfterMs: number | undefined): Promise<void> {
  await context.store.write(["allocs", "job_summary", "jobs", "deployment", "evals", "service_registrations"], (state) => {
    const jobs = new Map<string, Job>();
    for (const allocId of allocIds) {
      const alloc = state.allocs.get(allocId);
      if (alloc === undefined || isTerminal(alloc)) continue;
      const key = namespacedKey(alloc.Namespace, alloc.JobID);
      const job = state.jobs.get(key);
      if (job === undefined) continue;
      const { exitCode } = fateOf(context, alloc, finishAfterMs);
      updateAlloc(context, state, job, alloc, { ClientStatus: exitCode === 0 ? "complete" : "failed", NetworkStatus: networkStatusOf(alloc) }, exitCode);
      jobs.set(key, job);
    }
    for (const job of jobs.values()) putJob(context, state, job);
  }, "AllocClientUpdate");
}
