/**
 * `structs.Deployment` and `structs.DeploymentState` of the reference (1.9): the rollout of one
 * version of a service job. The agent's rows are these structs, written as they are.
 *
 * @module
 */
import { field, map, ptr, slice, struct } from "./declare.js";

/** `structs.DeploymentState`: one task group of a deployment. */
export const DEPLOYMENT_STATE = struct("structs.DeploymentState", "One task group of a deployment.", [
  field("AutoRevert", "bool", "a failed deployment reverts the job to its last stable version", { row: "kept" }),
  field("AutoPromote", "bool", "canaries are promoted once healthy", { row: "kept" }),
  field("ProgressDeadline", "duration", "how long it may go without a newly healthy allocation", { row: "kept" }),
  field("RequireProgressBy", "time", "when it fails without a newly healthy allocation (null before the first placement)", { row: "nullable" }),
  field("Promoted", "bool", "its canaries were promoted", { row: "kept" }),
  field("PlacedCanaries", slice("string"), "the IDs of its canaries", { row: "nullable" }),
  field("DesiredCanaries", "int", "canaries it wants", { row: "kept" }),
  field("DesiredTotal", "int", "allocations it wants", { row: "kept" }),
  field("PlacedAllocs", "int", "allocations placed", { row: "kept" }),
  field("HealthyAllocs", "int", "allocations healthy", { row: "kept" }),
  field("UnhealthyAllocs", "int", "allocations unhealthy", { row: "kept" }),
]);

/** `structs.Deployment`. */
export const DEPLOYMENT = struct("structs.Deployment", "The rollout of one version of a service job.", [
  field("ID", "string", "the deployment's ID", { row: "kept" }),
  field("Namespace", "string", "its job's namespace", { row: "kept" }),
  field("JobID", "string", "its job's ID", { row: "kept" }),
  field("JobVersion", "uint", "the version it rolls out", { row: "kept" }),
  field("JobModifyIndex", "index", "its job's ModifyIndex when it was made", { row: "kept" }),
  field("JobSpecModifyIndex", "index", "its job's JobModifyIndex when it was made", { row: "kept" }),
  field("JobCreateIndex", "index", "its job's CreateIndex", { row: "kept" }),
  field("IsMultiregion", "bool", "it is one region's of a multiregion deployment", { row: "kept" }),
  field("TaskGroups", map(ptr(DEPLOYMENT_STATE)), "its state per task group", { row: "kept" }),
  field("Status", "string", "running, paused, successful, failed, cancelled…", { row: "kept" }),
  field("StatusDescription", "string", "why it has its status", { row: "kept" }),
  field("EvalPriority", "int", "the priority of the evaluations it makes", { row: "kept" }),
  field("CreateIndex", "index", "the index it was created at", { row: "kept" }),
  field("ModifyIndex", "index", "the index it last changed at", { row: "kept" }),
  field("CreateTime", "nanotime", "when it was created, in nanoseconds since the epoch", { row: "kept" }),
  field("ModifyTime", "nanotime", "when it last changed, in nanoseconds since the epoch", { row: "kept" }),
]);
