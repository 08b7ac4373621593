/**
 * The job list's structs (the reference's 1.9): `structs.JobListStub`, the item of `GET
 * /v1/jobs`, and the `structs.JobSummary` it carries.
 *
 * @module
 */
import { field, map, ptr, slice, struct } from "./declare.js";
import { MULTIREGION } from "./job-blocks.js";

/** `structs.TaskGroupSummary`. */
export const TASK_GROUP_SUMMARY = struct("structs.TaskGroupSummary", "A task group's allocations, counted by state.", [
  field("Queued", "int", "allocations waiting to be placed", { row: "kept" }),
  field("Complete", "int", "allocations that completed", { row: "kept" }),
  field("Failed", "int", "allocations that failed", { row: "kept" }),
  field("Running", "int", "allocations running", { row: "kept" }),
  field("Starting", "int", "allocations placed, not yet running", { row: "kept" }),
  field("Lost", "int", "allocations on nodes that went down", { row: "kept" }),
  field("Unknown", "int", "allocations on nodes that lost contact (never, in the agent)", { row: "kept" }),
]);

/** `structs.JobChildrenSummary`. */
export const JOB_CHILDREN_SUMMARY = struct("structs.JobChildrenSummary", "A periodic or parameterized job's children, counted by status.", [
  field("Pending", "int", "children pending", { row: "kept" }),
  field("Running", "int", "children running", { row: "kept" }),
  field("Dead", "int", "children dead", { row: "kept" }),
]);

/** `structs.JobSummary`. */
export const JOB_SUMMARY = struct("structs.JobSummary", "A job's allocations per task group, and its children.", [
  field("JobID", "string", "the job's ID", { row: "kept" }),
  field("Namespace", "string", "the job's namespace", { row: "kept" }),
  field("Summary", map(TASK_GROUP_SUMMARY), "the counts of each task group", { row: "kept" }),
  field("Children", ptr(JOB_CHILDREN_SUMMARY), "the counts of its children", { row: "kept" }),
  field("CreateIndex", "index", "the index it was created at", { row: "kept" }),
  field("ModifyIndex", "index", "the index it last changed at", { row: "kept" }),
]);

/** `structs.JobListStub`: the item of `GET /v1/jobs`. */
export const JOB_LIST_STUB = struct("structs.JobListStub", "A job as the job list shows it.", [
  field("ID", "string", "the job's ID"),
  field("ParentID", "string", "the periodic or parameterized job that made it"),
  field("Name", "string", "its name"),
  field("Namespace", "string", "its namespace", { omitempty: true }),
  field("Datacenters", slice("string"), "the datacenters it may run in"),
  field("NodePool", "string", "its node pool"),
  field("Multiregion", ptr(MULTIREGION), "its regions, for a multiregion job"),
  field("Type", "string", "its scheduler: service, batch, system or sysbatch"),
  field("Priority", "int", "its priority"),
  field("Periodic", "bool", "it is periodic"),
  field("ParameterizedJob", "bool", "it is parameterized (and not a dispatched child)"),
  field("Stop", "bool", "it was stopped"),
  field("Status", "string", "pending, running or dead"),
  field("StatusDescription", "string", "why it has its status"),
  field("JobSummary", ptr(JOB_SUMMARY), "its allocations per task group"),
  field("CreateIndex", "index", "the index it was created at"),
  field("ModifyIndex", "index", "the index anything of it last changed at"),
  field("JobModifyIndex", "index", "the index its spec last changed at"),
  field("SubmitTime", "nanotime", "when its version was registered, in nanoseconds since the epoch"),
  field("Meta", map("string"), "its metadata (with ?meta=true)", { omitempty: true }),
]);
