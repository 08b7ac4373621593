/**
 * Placing allocations on nodes, as the reference's generic scheduler does once the reconciler has
 * said what to place (`scheduler/generic_sched.go`, `computePlacements`): the nodes that can take
 * a job (ready, eligible, in one of its datacenters) take its allocations in turn.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { Allocation, Evaluation, Job, JobSpec, JsonObject, Node } from "../state/model.js";
import { namespacedKey, type Tables, type Transaction } from "../state/store.js";
import { CLIENT_DESCRIPTIONS, count, type SchedulerContext } from "./state.js";

/** An allocation the scheduler is to create: its group and name, its deployment, and the lost allocation it replaces. */
export interface Placement {
  readonly group: JobSpec["TaskGroups"][number];
  readonly name: string;
  readonly deploymentId: string;
  readonly canary: boolean;
  readonly previous?: Allocation;
}

/** Whether a job's datacenter pattern matches a node's datacenter: `*` stands for any run of characters, as the reference's glob. */
export function matchesGlob(pattern: string, datacenter: string): boolean {
  if (!pattern.includes("*")) return pattern === datacenter;
  const parts = pattern.split("*");
  if (!datacenter.startsWith(parts[0]!) || !datacenter.endsWith(parts[parts.length - 1]!)) return false;
  let at = parts[0]!.length;
  const end = datacenter.length - parts[parts.length - 1]!.length;
  if (end < at) return false;
  for (const part of parts.slice(1, -1)) {
    const found = datacenter.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** The nodes that can take the job's allocations: ready, eligible, in one of its datacenters (`*` and other globs match as the reference's). */
export function nodesFor(tables: Tables, job: JobSpec): Node[] {
  return [...tables.nodes.values()].filter((node) => node.Status === "ready" && node.SchedulingEligibility === "eligible" && job.Datacenters.some((pattern) => matchesGlob(pattern, node.Datacenter)));
}

/**
 * Creates the allocations of `placements`, each on one of `nodes` (those that can take the job;
 * a job none can take is blocked instead) in turn; a replacement names the allocation it
 * replaces (`PreviousAllocation`), which names it back (`NextAllocation`). What a blocked
 * evaluation had queued is placed with them.
 */
export function place(context: SchedulerContext, state: Transaction<"allocs" | "job_summary">, job: Job, evaluation: Evaluation, nodes: readonly Node[], placements: readonly Placement[]): void {
  const { index } = state;
  const now = context.clock.nowNs();
  let placed = 0;
  for (const { group, name, deploymentId, canary, previous } of placements) {
    const node = nodes.length === 0 ? undefined : nodes[placed++ % nodes.length]!;
    const taskNames = Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]).map((task) => String(task.Name ?? "")) : [];
    const alloc: Allocation = {
      ID: randomUUID(),
      Namespace: job.Namespace,
      EvalID: evaluation.ID,
      Name: name,
      NodeID: node?.ID ?? "",
      NodeName: node?.Name ?? "",
      JobID: job.ID,
      JobType: job.Type,
      JobVersion: job.Version,
      TaskGroup: group.Name,
      DeploymentID: deploymentId,
      DesiredStatus: "run",
      DesiredDescription: "",
      ClientStatus: "pending",
      ClientDescription: CLIENT_DESCRIPTIONS.pending,
      DeploymentStatus: deploymentId === "" ? null : { Healthy: null, Timestamp: "", Canary: canary, ModifyIndex: index },
      CreateIndex: index,
      ModifyIndex: index,
      CreateTime: now,
      ModifyTime: now,
      TaskRun: { Tasks: taskNames, StartedAt: null, FinishedAt: null, ExitCode: null },
      ...(previous === undefined ? {} : { PreviousAllocation: previous.ID }),
    };
    state.allocs.put(alloc);
    if (previous !== undefined) state.allocs.put({ ...state.allocs.get(previous.ID)!, NextAllocation: alloc.ID, ModifyIndex: index });
    count(state, job, group.Name, { Starting: 1 });
  }
  for (const group of new Set(placements.map((placement) => placement.group.Name))) {
    const queued = state.job_summary.get(namespacedKey(job.Namespace, job.ID))?.Summary[group]?.Queued ?? 0;
    if (queued > 0) count(state, job, group, { Queued: -queued });
  }
}
