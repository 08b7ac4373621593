/**
 * `structs.Evaluation` and `structs.EvaluationStub` of the reference (1.9). The evaluation carries
 * `_struct bool \`codec:",omitempty"\``, which makes every one of its fields `omitempty`; the
 * stub writes every field.
 *
 * @module
 */
import { field, map, slice, struct, untyped } from "./declare.js";

/** The statuses of an evaluation the agent writes. */
export const EVALUATION_STATUSES = ["pending", "complete", "failed", "canceled", "blocked"] as const;

/** `structs.Evaluation`. */
export const EVALUATION = struct(
  "structs.Evaluation",
  "The scheduler's work item for a change of a job.",
  [
    field("ID", "string", "the evaluation's ID", { row: "kept" }),
    field("Namespace", "string", "its job's namespace", { row: "kept" }),
    field("Priority", "int", "its priority: the job's, or the request's", { row: "kept" }),
    field("Type", "string", "the scheduler it runs on: service, batch, system, sysbatch or _core", { row: "kept" }),
    field("TriggeredBy", "string", "what made it: job-register, job-deregister, deployment-watcher, alloc-failure…", { row: "kept" }),
    field("JobID", "string", "its job's ID", { row: "kept" }),
    field("JobModifyIndex", "index", "its job's JobModifyIndex when it was made", { row: "kept" }),
    field("NodeID", "string", "the node whose change made it"),
    field("NodeModifyIndex", "index", "that node's ModifyIndex then"),
    field("DeploymentID", "string", "the deployment it made or serves", { row: "optional" }),
    field("Status", "string", "pending, then complete; failed, canceled or blocked", { row: "kept", oneOf: EVALUATION_STATUSES }),
    field("StatusDescription", "string", "why it has its status", { row: "optional" }),
    field("Wait", "duration", "how long it waits before it is processed"),
    field("WaitUntil", "time", "when it may be processed"),
    field("NextEval", "string", "the evaluation made to continue it"),
    field("PreviousEval", "string", "the evaluation that made it"),
    field("BlockedEval", "string", "the evaluation made to place what it could not"),
    field("RelatedEvals", slice(untyped("*EvaluationStub")), "the evaluations linked to it (with ?related=true)"),
    field("FailedTGAllocs", map(untyped("*AllocMetric")), "why the task groups it could not place were not placed"),
    field("ClassEligibility", map("bool"), "which node classes could take the job"),
    field("QuotaLimitReached", "string", "the quota that stopped placements (enterprise)"),
    field("EscapedComputedClass", "bool", "the job's constraints escape node classes"),
    field("AnnotatePlan", "bool", "its plan is annotated (a job plan's)"),
    field("QueuedAllocations", map("int"), "the allocations left to place per task group", { row: "optional" }),
    field("LeaderACL", "string", "the leader's token, for the scheduler's writes"),
    field("SnapshotIndex", "index", "the state index it was processed at"),
    field("CreateIndex", "index", "the index it was created at", { row: "kept" }),
    field("ModifyIndex", "index", "the index it last changed at", { row: "kept" }),
    field("CreateTime", "nanotime", "when it was created, in nanoseconds since the epoch", { row: "optional" }),
    field("ModifyTime", "nanotime", "when it last changed, in nanoseconds since the epoch", { row: "optional" }),
  ],
  { omitempty: true },
);

/** `structs.EvaluationStub`: an evaluation's related evaluations. */
export const EVALUATION_STUB = struct("structs.EvaluationStub", "An evaluation as another evaluation lists it.", [
  field("ID", "string", "the evaluation's ID"),
  field("Namespace", "string", "its job's namespace"),
  field("Priority", "int", "its priority"),
  field("Type", "string", "the scheduler it runs on"),
  field("TriggeredBy", "string", "what made it"),
  field("JobID", "string", "its job's ID"),
  field("NodeID", "string", "the node whose change made it"),
  field("DeploymentID", "string", "the deployment it made or serves"),
  field("Status", "string", "its status"),
  field("StatusDescription", "string", "why it has its status"),
  field("WaitUntil", "time", "when it may be processed"),
  field("NextEval", "string", "the evaluation made to continue it"),
  field("PreviousEval", "string", "the evaluation that made it"),
  field("BlockedEval", "string", "the evaluation made to place what it could not"),
  field("CreateIndex", "index", "the index it was created at"),
  field("ModifyIndex", "index", "the index it last changed at"),
  field("CreateTime", "nanotime", "when it was created, in nanoseconds since the epoch"),
  field("ModifyTime", "nanotime", "when it last changed, in nanoseconds since the epoch"),
]);
