/**
 * A scheduler's plan and its application, as the reference's plan applier writes it in one write
 * (`structs.Plan`, `nomad/state/state_store.go` `UpsertPlanResults`): the deployment it creates
 * and the status changes of others, the allocations it stops, places or updates, with what the
 * state store derives from them in the same write (summary counts, deployment counts, the
 * replaced allocation's link to its replacement, the job's status).
 *
 * @module
 */
import { claimStickyVolumes, volumeRequests } from "./host-volumes.js";
import type { Allocation, ClientStatus, Deployment, Job, TaskGroup } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import { clientTerminal } from "./services.js";
import { count, putJob, updateAlloc, updateDeploymentStatus, updateDeploymentWithAlloc, type SchedulerContext } from "./state.js";

/** An allocation the plan stops (`Plan.AppendStoppedAlloc`). */
export interface PlanStop {
  readonly alloc: Allocation;
  /** Its `DesiredDescription`. */
  readonly description: string;
  /** The client status the server sets with it (`lost`); otherwise its client reports it once its tasks are killed. */
  readonly clientStatus?: ClientStatus;
  /** The follow-up evaluation that will reschedule it. */
  readonly followupEvalId?: string;
}

/** A change of a deployment's status (`structs.DeploymentStatusUpdate`). */
export interface DeploymentStatusUpdate {
  readonly DeploymentID: string;
  readonly Status: string;
  readonly StatusDescription: string;
}

/** What one evaluation's processing writes (`structs.Plan`). */
export interface Plan {
  /** The deployment it creates, or changes (a system job's, whose `DesiredTotal` each evaluation counts). */
  readonly deployment: Deployment | undefined;
  readonly deploymentUpdates: readonly DeploymentStatusUpdate[];
  readonly stops: readonly PlanStop[];
  /** New allocations, and allocations it changes (a follow-up evaluation noted, a failed reschedule annotated). */
  readonly allocs: readonly Allocation[];
}

/** A table a plan's write may change. */
type PlanTable = "allocs" | "job_summary" | "deployment" | "jobs" | "job_versions" | "service_registrations" | "host_volume_claims";

/** The tables a plan's write changes (a table named moves its index, and wakes its blocking queries). */
export function planTables(plan: Plan, job?: Job): PlanTable[] {
  const tables: PlanTable[] = ["jobs"];
  // New allocations of a group with a sticky volume claim it (`updateStickyVolumeClaimsFromAlloc`).
  if (job !== undefined && plan.allocs.length > 0 && (job.TaskGroups as TaskGroup[]).some((group) => volumeRequests(group).some((request) => request.Sticky))) tables.push("host_volume_claims");
  if (plan.stops.length + plan.allocs.length > 0) tables.push("allocs", "job_summary");
  // An allocation the plan marks lost loses its native services in the plan's write.
  if (plan.stops.some((stop) => stop.clientStatus !== undefined && clientTerminal(stop.clientStatus))) tables.push("service_registrations");
  if (plan.deployment !== undefined || plan.deploymentUpdates.length > 0 || plan.allocs.some((alloc) => alloc.DeploymentID !== "")) tables.push("deployment");
  if (plan.deploymentUpdates.some((update) => update.Status === "successful")) tables.push("job_versions");
  return tables;
}

/** Whether the plan changes nothing (`Plan.IsNoOp`): then it is not written. */
export function isNoOp(plan: Plan): boolean {
  return plan.deployment === undefined && plan.deploymentUpdates.length === 0 && plan.stops.length === 0 && plan.allocs.length === 0;
}

/**
 * Applies a plan in one write (`UpsertPlanResults`): the new deployment, the status updates, the
 * stops, then the allocations (new ones counted `Starting` and placed in their deployment, a
 * replacement named by the allocation it replaces), and the job's status.
 */
export function applyPlan(context: SchedulerContext, state: Transaction<PlanTable>, job: Job, plan: Plan): void {
  // The write names only the tables the plan changes (see {@link planTables}).
  const { index } = state;
  const now = context.clock.nowNs();
  if (plan.deployment !== undefined) state.deployment.put({ ...plan.deployment, CreateIndex: state.deployment.get(plan.deployment.ID)?.CreateIndex ?? index, ModifyIndex: index, ModifyTime: now });
  for (const update of plan.deploymentUpdates) updateDeploymentStatus(context, state, update.DeploymentID, update.Status, update.StatusDescription);
  for (const stop of plan.stops) {
    const alloc = state.allocs.get(stop.alloc.ID);
    if (alloc === undefined) continue;
    updateAlloc(context, state, job, alloc, {
      DesiredStatus: "stop",
      DesiredDescription: stop.description,
      ...(stop.clientStatus === undefined ? {} : { ClientStatus: stop.clientStatus, ClientDescription: stop.description }),
      ...(stop.followupEvalId === undefined ? {} : { FollowupEvalID: stop.followupEvalId }),
      ...(stop.alloc.RescheduleTracker === undefined ? {} : { RescheduleTracker: stop.alloc.RescheduleTracker }),
    });
  }
  for (const alloc of plan.allocs) {
    const existing = state.allocs.get(alloc.ID);
    const stamped = existing === undefined && alloc.DeploymentStatus !== null ? { DeploymentStatus: { ...alloc.DeploymentStatus, ModifyIndex: index } } : {};
    const written: Allocation = { ...alloc, ...stamped, CreateIndex: existing?.CreateIndex ?? index, ModifyIndex: index, ...(existing === undefined ? {} : { ModifyTime: now }) };
    state.allocs.put(written);
    updateDeploymentWithAlloc(context, state, existing, written);
    if (existing !== undefined) continue;
    // A new allocation is starting, and one fewer is queued.
    const queued = state.job_summary.get(namespacedKey(job.Namespace, job.ID))?.Summary[alloc.TaskGroup]?.Queued ?? 0;
    count(state, job, alloc.TaskGroup, { Starting: 1, ...(queued > 0 ? { Queued: -1 } : {}) });
    const previous = alloc.PreviousAllocation === undefined ? undefined : state.allocs.get(alloc.PreviousAllocation);
    if (previous !== undefined) state.allocs.put({ ...previous, NextAllocation: alloc.ID, ModifyIndex: index });
  }
  const claims = (state as Partial<Transaction<"host_volume_claims">>).host_volume_claims;
  if (claims !== undefined) claimStickyVolumes({ host_volume_claims: claims, allocs: state.allocs, index }, context.store.tables, job, plan.allocs);
  putJob(context, state, state.jobs.get(namespacedKey(job.Namespace, job.ID)) ?? job);
}
