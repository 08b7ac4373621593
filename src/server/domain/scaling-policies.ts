/**
 * Scaling policies (`structs.ScalingPolicy`), as the reference keeps them beside its jobs: one for
 * each task group with a `scaling` block (`Job.GetScalingPolicies`), its target the group, its `Min`
 * the group's count when the block has none, enabled unless it says otherwise or the job is
 * stopped. The agent derives them from the jobs when asked rather than keeping a table: a
 * policy's ID is a UUID derived from its target, so it stays the same across the job's versions
 * while the target does, as the reference's `updateJobScalingPolicies` keeps it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { compareStrings } from "../../go/order.js";
import type { Job, JsonObject } from "../state/model.js";

/** The policy type of a task group's count (`ScalingPolicyTypeHorizontal`). */
export const HORIZONTAL = "horizontal";

/** A scaling policy as the API shows it (`structs.ScalingPolicy`). */
export interface ScalingPolicy {
  readonly ID: string;
  readonly Type: string;
  readonly Target: { readonly Namespace: string; readonly Job: string; readonly Group: string };
  readonly Policy: JsonObject | null;
  readonly Min: number;
  readonly Max: number;
  readonly Enabled: boolean;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** A UUID (version 4's layout) made from the policy's target and type: the same target, the same ID. */
function policyId(namespace: string, job: string, group: string, type: string): string {
  const hex = createHash("sha256").update(JSON.stringify([namespace, job, group, type])).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The scaling policies of a job's groups. Their indexes are the job's (`CreateIndex` its
 * registration's, `ModifyIndex` its latest version's): the reference moves a policy's
 * `ModifyIndex` only when the policy changed.
 */
export function scalingPoliciesOf(job: Job): ScalingPolicy[] {
  const policies: ScalingPolicy[] = [];
  for (const group of job.TaskGroups) {
    const block = group.Scaling;
    if (typeof block !== "object" || block === null) continue;
    const scaling = block as JsonObject;
    const type = typeof scaling.Type === "string" && scaling.Type !== "" ? scaling.Type : HORIZONTAL;
    const number = (value: unknown): number | undefined => (typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : undefined);
    policies.push({
      ID: policyId(job.Namespace, job.ID, group.Name, type),
      Type: type,
      Target: { Namespace: job.Namespace, Job: job.ID, Group: group.Name },
      Policy: typeof scaling.Policy === "object" && scaling.Policy !== null ? (scaling.Policy as JsonObject) : null,
      Min: number(scaling.Min) ?? group.Count,
      Max: number(scaling.Max) ?? 0,
      Enabled: scaling.Enabled !== false && !job.Stop,
      CreateIndex: job.CreateIndex,
      ModifyIndex: job.JobModifyIndex,
    });
  }
  return policies;
}

/** The policies of the jobs given, sorted by ID (the reference's table order). */
export function scalingPolicies(jobs: Iterable<Job>, keep: (policy: ScalingPolicy) => boolean): ScalingPolicy[] {
  const kept: ScalingPolicy[] = [];
  for (const job of jobs) for (const policy of scalingPoliciesOf(job)) if (keep(policy)) kept.push(policy);
  return kept.sort((a, b) => compareStrings(a.ID, b.ID));
}

/** A policy's list stub (`ScalingPolicy.Stub`). */
export function scalingPolicyStub(policy: ScalingPolicy): JsonObject {
  return { ID: policy.ID, Enabled: policy.Enabled, Type: policy.Type, Target: policy.Target, CreateIndex: policy.CreateIndex, ModifyIndex: policy.ModifyIndex };
}
