/**
 * `structs.Allocation` and `structs.AllocListStub` of the reference (1.9), with the structs they
 * hold: task states and events, the desired transition, the deployment status, the reschedule
 * tracker. The allocation carries `_struct bool \`codec:",omitempty"\``, which makes every one of
 * its fields `omitempty`; the stub leaves out only `AllocatedResources` when nil.
 *
 * @module
 */
import { field, map, ptr, slice, struct, untyped } from "./declare.js";
import { JOB } from "./job.js";
import { ALLOC_NETWORK_STATUS, ALLOCATED_RESOURCES } from "./resources.js";

/** What the server wants of an allocation. */
export const DESIRED_STATUSES = ["run", "stop", "evict"] as const;
/** What the client reports of an allocation; `complete`, `failed` and `lost` are terminal. */
export const CLIENT_STATUSES = ["pending", "running", "complete", "failed", "lost", "unknown"] as const;

/** `structs.TaskEvent`. */
export const TASK_EVENT = struct("structs.TaskEvent", "Something that happened to a task, as its client recorded it.", [
  field("Type", "string", "what happened: Received, Task Setup, Started, Terminated, Killing, Killed…"),
  field("Time", "nanotime", "when, in nanoseconds since the epoch"),
  field("Message", "string", "a message for the event"),
  field("DisplayMessage", "string", "the message the UI and CLI show"),
  field("Details", map("string"), "the event's details, as text"),
  field("FailsTask", "bool", "the event fails the task"),
  field("RestartReason", "string", "why the task is restarted"),
  field("SetupError", "string", "why the task's setup failed"),
  field("DriverError", "string", "the driver's error"),
  field("ExitCode", "int", "the task's exit code"),
  field("Signal", "int", "the signal that ended the task"),
  field("KillTimeout", "duration", "how long the task had to stop before it was killed"),
  field("KillError", "string", "why the task could not be killed"),
  field("KillReason", "string", "why the task was killed"),
  field("StartDelay", "int", "the wait before a restart, in nanoseconds"),
  field("DownloadError", "string", "why an artifact's download failed"),
  field("ValidationError", "string", "why the task's validation failed"),
  field("DiskLimit", "int", "the disk limit the task exceeded, in MB"),
  field("FailedSibling", "string", "the task whose failure killed this one"),
  field("VaultError", "string", "the Vault error"),
  field("TaskSignalReason", "string", "why the task was signalled"),
  field("TaskSignal", "string", "the signal sent to the task"),
  field("DriverMessage", "string", "the driver's message"),
  field("GenericSource", "string", "the source of a generic event"),
]);

/** `structs.TaskState`. */
export const TASK_STATE = struct("structs.TaskState", "A task of an allocation, as its client reports it.", [
  field("State", "string", "pending, running or dead"),
  field("Failed", "bool", "the task failed"),
  field("Restarts", "uint", "how many times it restarted"),
  field("LastRestart", "time", "when it last restarted"),
  field("StartedAt", "time", "when it started"),
  field("FinishedAt", "time", "when it ended"),
  field("Events", slice(untyped("*TaskEvent")), "what happened to it, oldest first (each a TaskEvent)"),
  field("TaskHandle", untyped("*TaskHandle"), "the driver's handle of it"),
  field("Paused", "string", "its schedule's state (enterprise)"),
]);

/** `structs.DesiredTransition`: every field a nil `*bool` until the server sets one. */
export const DESIRED_TRANSITION = struct("structs.DesiredTransition", "What the server asks of an allocation besides its desired status.", [
  field("Migrate", ptr("bool"), "it is to be migrated off its draining node"),
  field("Reschedule", ptr("bool"), "it is to be rescheduled"),
  field("ForceReschedule", ptr("bool"), "it is to be rescheduled whatever its policy"),
  field("NoShutdownDelay", ptr("bool"), "it is to stop without its shutdown delay"),
  field("MigrateDisablePlacement", ptr("bool"), "a drained batch allocation: stopped, not replaced"),
]);

/** `structs.AllocDeploymentStatus`. */
export const ALLOC_DEPLOYMENT_STATUS = struct("structs.AllocDeploymentStatus", "An allocation as its deployment sees it.", [
  field("Healthy", ptr("bool"), "healthy or not; null until decided"),
  field("Timestamp", "time", "when its health was decided"),
  field("Canary", "bool", "it is a canary"),
  field("ModifyIndex", "index", "the index its status last changed at"),
]);

/** `structs.RescheduleEvent`. */
export const RESCHEDULE_EVENT = struct("structs.RescheduleEvent", "One rescheduling of an allocation.", [
  field("RescheduleTime", "nanotime", "when, in nanoseconds since the epoch"),
  field("PrevAllocID", "string", "the allocation replaced"),
  field("PrevNodeID", "string", "its node"),
  field("Delay", "duration", "the wait before the replacement"),
]);

/** `structs.RescheduleTracker`. */
export const RESCHEDULE_TRACKER = struct("structs.RescheduleTracker", "The reschedulings that led to an allocation.", [
  field("Events", slice(ptr(RESCHEDULE_EVENT)), "the reschedulings, oldest first"),
  field("LastReschedule", "string", "how the last reschedule went"),
]);

const JOB_TYPE = field("JobType", "string", "its job's type when it was placed", { row: "kept" });
const JOB_VERSION = field("JobVersion", "uint", "its job's version when it was placed", { row: "kept" });

/** `structs.AllocListStub`: the item of the allocation lists. */
export const ALLOC_LIST_STUB = struct("structs.AllocListStub", "An allocation as the allocation lists show it.", [
  field("ID", "string", "the allocation's ID"),
  field("EvalID", "string", "the evaluation that placed it"),
  field("Name", "string", "<job>.<group>[<index>]"),
  field("Namespace", "string", "its job's namespace"),
  field("NodeID", "string", "the node it runs on"),
  field("NodeName", "string", "that node's name"),
  field("JobID", "string", "its job's ID"),
  JOB_TYPE,
  JOB_VERSION,
  field("TaskGroup", "string", "its task group"),
  field("AllocatedResources", ptr(ALLOCATED_RESOURCES), "what the scheduler gave it on its node (with ?resources=true)", { omitempty: true }),
  field("DesiredStatus", "string", "what the server wants: run, stop or evict"),
  field("DesiredDescription", "string", "why"),
  field("ClientStatus", "string", "what its client reports: pending, running, complete, failed, lost"),
  field("ClientDescription", "string", "why"),
  field("DesiredTransition", DESIRED_TRANSITION, "what the server asks of it besides its status"),
  field("TaskStates", map(ptr(TASK_STATE)), "its tasks (null with ?task_states=false)"),
  field("DeploymentStatus", ptr(ALLOC_DEPLOYMENT_STATUS), "its deployment's view of it"),
  field("FollowupEvalID", "string", "the evaluation that will reschedule it"),
  field("NextAllocation", "string", "the allocation that replaced it"),
  field("RescheduleTracker", ptr(RESCHEDULE_TRACKER), "the reschedulings that led to it"),
  field("PreemptedAllocations", slice("string"), "the allocations it preempted"),
  field("PreemptedByAllocation", "string", "the allocation that preempted it"),
  field("CreateIndex", "index", "the index it was created at"),
  field("ModifyIndex", "index", "the index it last changed at"),
  field("CreateTime", "nanotime", "when it was created, in nanoseconds since the epoch"),
  field("ModifyTime", "nanotime", "when it last changed, in nanoseconds since the epoch"),
]);

/** `structs.Allocation`. */
export const ALLOCATION = struct(
  "structs.Allocation",
  "A placement of one instance of a task group on a node.",
  [
    field("ID", "string", "the allocation's ID", { row: "kept" }),
    field("Namespace", "string", "its job's namespace", { row: "kept" }),
    field("EvalID", "string", "the evaluation that placed it", { row: "kept" }),
    field("Name", "string", "<job>.<group>[<index>]", { row: "kept" }),
    field("NodeID", "string", "the node it runs on", { row: "kept" }),
    field("NodeName", "string", "that node's name", { row: "kept" }),
    field("JobID", "string", "its job's ID", { row: "kept" }),
    field("Job", ptr(JOB), "its job (the agent keeps no older versions: the job as it is now)"),
    field("TaskGroup", "string", "its task group", { row: "kept" }),
    field("Resources", untyped("*Resources"), "deprecated: AllocatedResources"),
    field("SharedResources", untyped("*Resources"), "deprecated: AllocatedResources"),
    field("TaskResources", map(untyped("*Resources")), "deprecated: AllocatedResources"),
    field("AllocatedResources", ptr(ALLOCATED_RESOURCES), "what the scheduler gave it on its node", { row: "optional" }),
    field("Metrics", untyped("*AllocMetric"), "how the scheduler chose its node"),
    field("DesiredStatus", "string", "what the server wants: run, stop or evict", { row: "kept", oneOf: DESIRED_STATUSES }),
    field("DesiredDescription", "string", "why", { row: "kept" }),
    field("DesiredTransition", DESIRED_TRANSITION, "what the server asks of it besides its status"),
    field("ClientStatus", "string", "what its client reports: pending, running, complete, failed, lost", { row: "kept", oneOf: CLIENT_STATUSES }),
    field("ClientDescription", "string", "why", { row: "kept" }),
    field("TaskStates", map(ptr(TASK_STATE)), "its tasks"),
    field("AllocStates", slice(untyped("*AllocState")), "its changes of state on disconnected clients"),
    field("PreviousAllocation", "string", "the allocation it replaced", { row: "optional" }),
    field("NextAllocation", "string", "the allocation that replaced it", { row: "optional" }),
    field("DeploymentID", "string", "the deployment that placed it", { row: "kept" }),
    field("DeploymentStatus", ptr(ALLOC_DEPLOYMENT_STATUS), "its deployment's view of it", { row: "nullable" }),
    field("RescheduleTracker", ptr(RESCHEDULE_TRACKER), "the reschedulings that led to it"),
    field("NetworkStatus", ptr(ALLOC_NETWORK_STATUS), "its network, as its client set it up", { row: "optional" }),
    field("FollowupEvalID", "string", "the evaluation that will reschedule it"),
    field("PreemptedAllocations", slice("string"), "the allocations it preempted"),
    field("PreemptedByAllocation", "string", "the allocation that preempted it"),
    field("SigningKeyID", "string", "the key its identities are signed with"),
    field("CreateIndex", "index", "the index it was created at", { row: "kept" }),
    field("ModifyIndex", "index", "the index it last changed at", { row: "kept" }),
    field("AllocModifyIndex", "index", "the index the server last changed it at"),
    field("CreateTime", "nanotime", "when it was created, in nanoseconds since the epoch", { row: "kept" }),
    field("ModifyTime", "nanotime", "when it last changed, in nanoseconds since the epoch", { row: "kept" }),
  ],
  {
    omitempty: true,
    agentFields: [JOB_TYPE, JOB_VERSION, field("TaskRun", untyped("*TaskRun"), "what the simulated client did with its tasks, shown as TaskStates", { row: "optional" })],
  },
);
