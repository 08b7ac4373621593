/**
 * The reference's JSON of the agent's rows: the full job, allocations (`AllocListStub` and the
 * full `Allocation`), evaluations (`EvaluationStub` and the full `Evaluation`) and nodes
 * (`NodeListStub` and the full `Node`), each with the fields of the reference's Go struct in its
 * declaration order. Routes, list items, filter targets and the event stream all present rows
 * through this module, so a row reads the same everywhere.
 *
 * Rows keep what the simulated scheduler knows; a field of the reference's struct that a row does
 * not have is written as the reference's zero value for it (`""`, `0`, `false`, `null`), or,
 * where the reference's server fills a default at registration (restart and reschedule policies),
 * that default. A field a row gains later (the scheduler learning task states, say) is written as
 * the row has it, with no change here.
 *
 * `structs.Allocation` and `structs.Evaluation` carry `_struct bool \`codec:",omitempty"\``,
 * which makes every one of their fields `omitempty` in the reference's encoder: empty strings,
 * zeros, `false`, nil pointers, empty maps and slices and all-zero structs are left out of the
 * full objects (see {@link omitEmpty}). Their stubs, and every other struct, print every field.
 *
 * Presenting is pure: it reads the rows it is given and nothing else.
 *
 * @module
 */
import type { Allocation, Evaluation, Job, JsonObject, Node, TaskGroup, TaskRun } from "../state/model.js";

/** The reference's HTTP port, in a node's `HTTPAddr` (the simulated clients all listen on it). */
export const CLIENT_HTTP_PORT = 4646;

/**
 * A field of the reference's struct that `row` may lack: the row's value when it has one, else
 * the reference's zero value (or default) `zero`.
 */
function fieldOr(row: object, name: string, zero: unknown): unknown {
  const value = Object.hasOwn(row, name) ? (row as JsonObject)[name] : undefined;
  return value === undefined ? zero : value;
}

/** Fields in a struct's declaration order, each with its zero value (or the reference's default). */
type FieldList = readonly (readonly [name: string, zero: unknown])[];

/** The fields of `row` named in `fields`, in their order, missing ones at their zero value. */
function pick(row: object, fields: FieldList): JsonObject {
  const picked: JsonObject = {};
  for (const [name, zero] of fields) picked[name] = fieldOr(row, name, zero);
  return picked;
}

/** Whether a value is the zero value the reference's `omitempty` leaves out (for a map or slice: empty). */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === "" || value === 0 || value === 0n || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

/**
 * The reference's `omitempty` over every field of `object`: nil pointers (`pointers`: a non-nil
 * one is kept even when what it points to is all zero), empty values, and structs (`structs`)
 * whose every field is empty are left out.
 */
function omitEmpty(object: JsonObject, pointers: ReadonlySet<string>, structs: ReadonlySet<string> = new Set()): JsonObject {
  const kept: JsonObject = {};
  for (const [name, value] of Object.entries(object)) {
    if (pointers.has(name) ? value === null || value === undefined : isEmpty(value)) continue;
    if (structs.has(name) && typeof value === "object" && value !== null && Object.values(value).every(isEmpty)) continue;
    kept[name] = value;
  }
  return kept;
}

/** A time the rows keep as RFC 3339 text (`""` when unset), as the reference encodes `time.Time`: null when zero. */
function time(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

// ---------------------------------------------------------------------------------------------
// Jobs

const SECOND_NS = 1_000_000_000;
const MINUTE_NS = 60 * SECOND_NS;
const HOUR_NS = 60 * MINUTE_NS;

/** The reference's `RestartPolicy` defaults by job type (`structs.NewRestartPolicy`). */
const RESTART_POLICIES: { readonly [type: string]: JsonObject } = {
  service: { Attempts: 2, Interval: 30 * MINUTE_NS, Delay: 15 * SECOND_NS, Mode: "fail", RenderTemplates: false },
  system: { Attempts: 2, Interval: 30 * MINUTE_NS, Delay: 15 * SECOND_NS, Mode: "fail", RenderTemplates: false },
  batch: { Attempts: 3, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, Mode: "fail", RenderTemplates: false },
  sysbatch: { Attempts: 3, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, Mode: "fail", RenderTemplates: false },
};

/** The reference's `ReschedulePolicy` defaults by job type (`structs.NewReschedulePolicy`; none for system jobs). */
const RESCHEDULE_POLICIES: { readonly [type: string]: JsonObject } = {
  service: { Attempts: 0, Interval: 0, Delay: 30 * SECOND_NS, DelayFunction: "exponential", MaxDelay: HOUR_NS, Unlimited: true },
  batch: { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, DelayFunction: "constant", MaxDelay: 0, Unlimited: false },
};

/** The reference's `DefaultEphemeralDisk`. */
const EPHEMERAL_DISK: JsonObject = { Sticky: false, SizeMB: 300, Migrate: false };

/** `structs.Task`'s fields (a task keeps those its registration gave). */
const TASK_FIELDS: FieldList = [
  ["Name", ""],
  ["Driver", ""],
  ["User", ""],
  ["Config", null],
  ["Env", null],
  ["Services", null],
  ["Vault", null],
  ["Consul", null],
  ["Templates", null],
  ["Constraints", null],
  ["Affinities", null],
  ["Resources", null],
  ["RestartPolicy", null],
  ["DispatchPayload", null],
  ["Lifecycle", null],
  ["Meta", null],
  ["KillTimeout", 0],
  ["LogConfig", null],
  ["Artifacts", null],
  ["Leader", false],
  ["ShutdownDelay", 0],
  ["VolumeMounts", null],
  ["ScalingPolicies", null],
  ["KillSignal", ""],
  ["Kind", ""],
  ["CSIPluginConfig", null],
  ["Identity", null],
  ["Identities", null],
  ["Actions", null],
  ["Schedule", null],
];

/** `structs.TaskGroup`'s fields. */
const TASK_GROUP_FIELDS: FieldList = [
  ["Name", ""],
  ["Count", 0],
  ["Update", null],
  ["Migrate", null],
  ["Constraints", null],
  ["Scaling", null],
  ["RestartPolicy", null],
  ["Disconnect", null],
  ["Tasks", null],
  ["EphemeralDisk", null],
  ["Meta", null],
  ["ReschedulePolicy", null],
  ["Affinities", null],
  ["Spreads", null],
  ["Networks", null],
  ["Consul", null],
  ["Services", null],
  ["Volumes", null],
  ["ShutdownDelay", null],
  ["StopAfterClientDisconnect", null],
  ["MaxClientDisconnect", null],
  ["PreventRescheduleOnLost", false],
];

/** A task group as the reference prints it: the job's update block and the type's policies where it has none. */
function presentTaskGroup(group: TaskGroup, job: Job): JsonObject {
  const restart = fieldOr(group, "RestartPolicy", RESTART_POLICIES[job.Type] ?? null);
  const tasks = Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]) : [];
  return pick(
    {
      ...group,
      Update: fieldOr(group, "Update", job.Update),
      RestartPolicy: restart,
      ReschedulePolicy: fieldOr(group, "ReschedulePolicy", RESCHEDULE_POLICIES[job.Type] ?? null),
      EphemeralDisk: fieldOr(group, "EphemeralDisk", EPHEMERAL_DISK),
      Tasks: tasks.map((task) => pick({ ...task, RestartPolicy: fieldOr(task, "RestartPolicy", restart) }, TASK_FIELDS)),
    },
    TASK_GROUP_FIELDS,
  );
}

/** `structs.Job`'s fields (the stored job has them all but the last two). */
const JOB_FIELDS: FieldList = [
  ["Stop", false],
  ["Region", ""],
  ["Namespace", ""],
  ["ID", ""],
  ["ParentID", ""],
  ["Name", ""],
  ["Type", ""],
  ["Priority", 0],
  ["AllAtOnce", false],
  ["Datacenters", null],
  ["NodePool", ""],
  ["Constraints", null],
  ["Affinities", null],
  ["Spreads", null],
  ["TaskGroups", null],
  ["Update", null],
  ["Multiregion", null],
  ["Periodic", null],
  ["ParameterizedJob", null],
  ["Dispatched", false],
  ["DispatchIdempotencyToken", ""],
  ["Payload", null],
  ["Meta", null],
  ["ConsulToken", ""],
  ["ConsulNamespace", ""],
  ["VaultToken", ""],
  ["VaultNamespace", ""],
  ["NomadTokenID", ""],
  ["Status", ""],
  ["StatusDescription", ""],
  ["Stable", false],
  ["Version", 0],
  ["SubmitTime", 0],
  ["CreateIndex", 0],
  ["ModifyIndex", 0],
  ["JobModifyIndex", 0],
  ["UI", null],
  ["VersionTag", null],
];

/** The full job (`GET /v1/job/<id>`, an allocation's `Job`), as the reference prints `structs.Job`. */
export function presentJob(job: Job): JsonObject {
  return pick({ ...job, TaskGroups: job.TaskGroups.map((group) => presentTaskGroup(group, job)) }, JOB_FIELDS);
}

// ---------------------------------------------------------------------------------------------
// Allocations

/** An allocation's `DeploymentStatus` (a pointer: null outside a deployment), its unset time null. */
function deploymentStatus(alloc: Allocation): JsonObject | null {
  const status = alloc.DeploymentStatus;
  return status === null ? null : { Healthy: status.Healthy, Timestamp: time(status.Timestamp), Canary: status.Canary, ModifyIndex: status.ModifyIndex };
}

/** Go's zero `time.Time`, as its JSON writes it. */
const ZERO_GO_TIME = "0001-01-01T00:00:00Z";

/** A time (milliseconds since the epoch) as Go's JSON writes a `time.Time`: RFC 3339 in UTC, its fraction without trailing zeros. */
export function goTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits === "" ? "Z" : `.${digits}Z`));
}

/** `structs.TaskEvent` with every field at its zero value: an event sets the fields it has. */
const TASK_EVENT: JsonObject = Object.freeze({
  Type: "",
  Time: 0,
  Message: "",
  DisplayMessage: "",
  Details: null,
  FailsTask: false,
  RestartReason: "",
  SetupError: "",
  DriverError: "",
  ExitCode: 0,
  Signal: 0,
  KillTimeout: 0,
  KillError: "",
  KillReason: "",
  StartDelay: 0,
  DownloadError: "",
  ValidationError: "",
  DiskLimit: 0,
  FailedSibling: "",
  VaultError: "",
  TaskSignalReason: "",
  TaskSignal: "",
  DriverMessage: "",
  GenericSource: "",
});

/** A task event at `ms` with the reference client's texts. */
function taskEvent(type: string, ms: number, displayMessage: string, fields: JsonObject = {}): JsonObject {
  return { ...TASK_EVENT, Type: type, Time: BigInt(ms) * 1_000_000n, DisplayMessage: displayMessage, Details: {}, ...fields };
}

/** The reference client's kill timeout (`kill_timeout`'s default, 5s), in nanoseconds. */
const KILL_TIMEOUT_NS = 5_000_000_000;

/**
 * `structs.TaskState` of each of the allocation's tasks, from the agent's record of them: pending
 * (received, its directory built), running (started) or dead (terminated with an exit code, or
 * killed when the server stopped it), with the events the reference's client records on the way.
 */
export function presentTaskStates(alloc: Pick<Allocation, "CreateTime" | "ClientStatus">, run: TaskRun): JsonObject {
  const placedMs = Number(alloc.CreateTime / 1_000_000n);
  const events = [taskEvent("Received", placedMs, "Task received by client"), taskEvent("Task Setup", placedMs, "Building Task Directory", { Message: "Building Task Directory" })];
  if (run.StartedAt !== null) events.push(taskEvent("Started", run.StartedAt, "Task started by client"));
  const failed = run.FinishedAt !== null && (alloc.ClientStatus === "failed" || (run.ExitCode ?? 0) !== 0);
  if (run.FinishedAt !== null && run.ExitCode === null) {
    events.push(taskEvent("Killing", run.FinishedAt, `Sent interrupt. Waiting ${KILL_TIMEOUT_NS / 1e9}s before force killing`, { KillTimeout: KILL_TIMEOUT_NS }));
    events.push(taskEvent("Killed", run.FinishedAt, "Task successfully killed"));
  } else if (run.FinishedAt !== null) {
    const code = run.ExitCode ?? 0;
    events.push(taskEvent("Terminated", run.FinishedAt, `Exit Code: ${code}`, { ExitCode: code, Details: { exit_code: String(code), signal: "0", oom_killed: "false" } }));
    if (failed) events.push(taskEvent("Not Restarting", run.FinishedAt, "Policy allows no restarts", { FailsTask: true, Details: { fails_task: "true", restart_reason: "Policy allows no restarts" } }));
  }
  const state = {
    State: run.FinishedAt !== null ? "dead" : run.StartedAt !== null ? "running" : "pending",
    Failed: failed,
    Restarts: 0,
    LastRestart: ZERO_GO_TIME,
    StartedAt: run.StartedAt === null ? ZERO_GO_TIME : goTime(run.StartedAt),
    FinishedAt: run.FinishedAt === null ? ZERO_GO_TIME : goTime(run.FinishedAt),
    Events: events,
    TaskHandle: null,
    Paused: "",
  };
  return Object.fromEntries(run.Tasks.map((task) => [task, state]));
}

/** The allocation's `TaskStates`: its own (a data file's row may give them), else from the agent's record, else null. */
function taskStates(alloc: Allocation): unknown {
  const own = fieldOr(alloc, "TaskStates", null);
  if (own !== null || alloc.TaskRun === undefined || alloc.TaskRun.Tasks.length === 0) return own;
  return presentTaskStates(alloc, alloc.TaskRun);
}

/** `structs.DesiredTransition`: every field a nil `*bool` until the server sets one. */
const DESIRED_TRANSITION: JsonObject = Object.freeze({ Migrate: null, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null });

/** How an allocation stub is written (the list's `task_states` and `resources` parameters). */
export interface AllocationStubOptions {
  /** Whether `TaskStates` is written (else null); the reference's default is true. */
  readonly taskStates: boolean;
  /** Whether `AllocatedResources` is written (when the allocation has them). */
  readonly resources: boolean;
}

/** The stub options of the lists that take none (a job's allocations). */
export const DEFAULT_STUB_OPTIONS: AllocationStubOptions = Object.freeze({ taskStates: true, resources: false });

/** `structs.AllocListStub`: the item of the allocation lists. */
export function presentAllocationStub(alloc: Allocation, options: AllocationStubOptions = DEFAULT_STUB_OPTIONS): JsonObject {
  const resources = options.resources ? fieldOr(alloc, "AllocatedResources", null) : null;
  return {
    ID: alloc.ID,
    EvalID: alloc.EvalID,
    Name: alloc.Name,
    Namespace: alloc.Namespace,
    NodeID: alloc.NodeID,
    NodeName: alloc.NodeName,
    JobID: alloc.JobID,
    JobType: alloc.JobType,
    JobVersion: alloc.JobVersion,
    TaskGroup: alloc.TaskGroup,
    // omitempty in the stub: written only when asked for and present.
    ...(resources === null ? {} : { AllocatedResources: resources }),
    DesiredStatus: alloc.DesiredStatus,
    DesiredDescription: alloc.DesiredDescription,
    ClientStatus: alloc.ClientStatus,
    ClientDescription: alloc.ClientDescription,
    DesiredTransition: fieldOr(alloc, "DesiredTransition", DESIRED_TRANSITION),
    TaskStates: options.taskStates ? taskStates(alloc) : null,
    DeploymentStatus: deploymentStatus(alloc),
    FollowupEvalID: fieldOr(alloc, "FollowupEvalID", ""),
    NextAllocation: fieldOr(alloc, "NextAllocation", ""),
    RescheduleTracker: fieldOr(alloc, "RescheduleTracker", null),
    PreemptedAllocations: fieldOr(alloc, "PreemptedAllocations", null),
    PreemptedByAllocation: fieldOr(alloc, "PreemptedByAllocation", ""),
    CreateIndex: alloc.CreateIndex,
    ModifyIndex: alloc.ModifyIndex,
    CreateTime: alloc.CreateTime,
    ModifyTime: alloc.ModifyTime,
  };
}

/** The full allocation's pointer fields: left out only when nil. */
const ALLOCATION_POINTERS: ReadonlySet<string> = new Set(["Job", "Resources", "SharedResources", "AllocatedResources", "Metrics", "DeploymentStatus", "RescheduleTracker", "NetworkStatus"]);
/** The full allocation's struct fields: left out when all zero. */
const ALLOCATION_STRUCTS: ReadonlySet<string> = new Set(["DesiredTransition"]);

/**
 * `structs.Allocation` (`GET /v1/allocation/<id>`, what `/v1/allocations?filter=` sees), with the
 * reference's `omitempty`. `job` is the allocation's job (null when it is gone); the agent keeps
 * no older versions of a job, so it is the job as it is now.
 */
export function presentAllocation(alloc: Allocation, job: Job | null): JsonObject {
  const full: JsonObject = {
    ID: alloc.ID,
    Namespace: alloc.Namespace,
    EvalID: alloc.EvalID,
    Name: alloc.Name,
    NodeID: alloc.NodeID,
    NodeName: alloc.NodeName,
    JobID: alloc.JobID,
    Job: job === null ? null : presentJob(job),
    TaskGroup: alloc.TaskGroup,
    Resources: fieldOr(alloc, "Resources", null),
    SharedResources: fieldOr(alloc, "SharedResources", null),
    TaskResources: fieldOr(alloc, "TaskResources", null),
    AllocatedResources: fieldOr(alloc, "AllocatedResources", null),
    Metrics: fieldOr(alloc, "Metrics", null),
    DesiredStatus: alloc.DesiredStatus,
    DesiredDescription: alloc.DesiredDescription,
    DesiredTransition: fieldOr(alloc, "DesiredTransition", DESIRED_TRANSITION),
    ClientStatus: alloc.ClientStatus,
    ClientDescription: alloc.ClientDescription,
    TaskStates: taskStates(alloc),
    AllocStates: fieldOr(alloc, "AllocStates", null),
    PreviousAllocation: fieldOr(alloc, "PreviousAllocation", ""),
    NextAllocation: fieldOr(alloc, "NextAllocation", ""),
    DeploymentID: alloc.DeploymentID,
    DeploymentStatus: deploymentStatus(alloc),
    RescheduleTracker: fieldOr(alloc, "RescheduleTracker", null),
    NetworkStatus: fieldOr(alloc, "NetworkStatus", null),
    FollowupEvalID: fieldOr(alloc, "FollowupEvalID", ""),
    PreemptedAllocations: fieldOr(alloc, "PreemptedAllocations", null),
    PreemptedByAllocation: fieldOr(alloc, "PreemptedByAllocation", ""),
    SigningKeyID: fieldOr(alloc, "SigningKeyID", ""),
    CreateIndex: alloc.CreateIndex,
    ModifyIndex: alloc.ModifyIndex,
    // Moved by the server's changes only; the rows do not tell those apart, so it is the
    // allocation's creation (the reference's first server-side write) unless a row says otherwise.
    AllocModifyIndex: fieldOr(alloc, "AllocModifyIndex", alloc.CreateIndex),
    CreateTime: alloc.CreateTime,
    ModifyTime: alloc.ModifyTime,
  };
  return omitEmpty(full, ALLOCATION_POINTERS, ALLOCATION_STRUCTS);
}

// ---------------------------------------------------------------------------------------------
// Evaluations

/** `structs.Evaluation`'s fields. */
const EVALUATION_FIELDS: FieldList = [
  ["ID", ""],
  ["Namespace", ""],
  ["Priority", 0],
  ["Type", ""],
  ["TriggeredBy", ""],
  ["JobID", ""],
  ["JobModifyIndex", 0],
  ["NodeID", ""],
  ["NodeModifyIndex", 0],
  ["DeploymentID", ""],
  ["Status", ""],
  ["StatusDescription", ""],
  ["Wait", 0],
  ["WaitUntil", null],
  ["NextEval", ""],
  ["PreviousEval", ""],
  ["BlockedEval", ""],
  ["RelatedEvals", null],
  ["FailedTGAllocs", null],
  ["ClassEligibility", null],
  ["QuotaLimitReached", ""],
  ["EscapedComputedClass", false],
  ["AnnotatePlan", false],
  ["QueuedAllocations", null],
  ["LeaderACL", ""],
  ["SnapshotIndex", 0],
  ["CreateIndex", 0],
  ["ModifyIndex", 0],
  ["CreateTime", 0],
  ["ModifyTime", 0],
];

/**
 * `structs.Evaluation` (`GET /v1/evaluation/<id>`, the items of the evaluation lists), with the
 * reference's `omitempty`; `related` are the stubs of `?related=true` (left out when empty).
 */
export function presentEvaluation(evaluation: Evaluation, related?: readonly JsonObject[]): JsonObject {
  const fields = pick(evaluation, EVALUATION_FIELDS);
  fields.WaitUntil = time(fields.WaitUntil);
  if (related !== undefined) fields.RelatedEvals = related;
  return omitEmpty(fields, new Set());
}

/** `structs.EvaluationStub`'s fields (no `omitempty`). */
const EVALUATION_STUB_FIELDS: FieldList = [
  ["ID", ""],
  ["Namespace", ""],
  ["Priority", 0],
  ["Type", ""],
  ["TriggeredBy", ""],
  ["JobID", ""],
  ["NodeID", ""],
  ["DeploymentID", ""],
  ["Status", ""],
  ["StatusDescription", ""],
  ["WaitUntil", null],
  ["NextEval", ""],
  ["PreviousEval", ""],
  ["BlockedEval", ""],
  ["CreateIndex", 0],
  ["ModifyIndex", 0],
  ["CreateTime", 0],
  ["ModifyTime", 0],
];

/** `structs.EvaluationStub`: an evaluation's related evaluations. */
export function presentEvaluationStub(evaluation: Evaluation): JsonObject {
  const stub = pick(evaluation, EVALUATION_STUB_FIELDS);
  stub.WaitUntil = time(stub.WaitUntil);
  return stub;
}

/** The links between evaluations (`NextEval`, `PreviousEval`, `BlockedEval`) an evaluation has. */
export function linkedEvaluations(evaluation: Evaluation): string[] {
  return ["NextEval", "PreviousEval", "BlockedEval"].map((name) => fieldOr(evaluation, name, "")).filter((id): id is string => typeof id === "string" && id !== "");
}

// ---------------------------------------------------------------------------------------------
// Nodes

/** A node's attributes as the reference keeps them: `nomad.version` among them, sorted as Go writes a map. */
function nodeAttributes(node: Node): { readonly [name: string]: string } {
  const attributes = { "nomad.version": node.Version, ...node.Attributes };
  return Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `structs.DrainStrategy` of a draining node (a pointer: null when it is not draining). */
function drainStrategy(node: Node): unknown {
  return fieldOr(node, "DrainStrategy", node.Drain ? { Deadline: 0, IgnoreSystemJobs: false, ForceDeadline: null, StartedAt: null } : null);
}

/** How a node stub is written (the node list's `os` and `resources` parameters). */
export interface NodeStubOptions {
  /** `Attributes` with the OS name only. */
  readonly os: boolean;
  /** `NodeResources` and `ReservedResources`, when the node has them. */
  readonly resources: boolean;
}

/** `structs.NodeListStub`: the item of `GET /v1/nodes`. */
export function presentNodeStub(node: Node, options: NodeStubOptions): JsonObject {
  const nodeResources = options.resources ? fieldOr(node, "NodeResources", null) : null;
  const reservedResources = options.resources ? fieldOr(node, "ReservedResources", null) : null;
  return {
    Address: node.Address,
    ID: node.ID,
    // omitempty, as the two resources fields below.
    ...(options.os ? { Attributes: { "os.name": node.Attributes["os.name"] ?? "" } } : {}),
    Datacenter: node.Datacenter,
    Name: node.Name,
    NodePool: node.NodePool,
    NodeClass: node.NodeClass,
    Version: node.Version,
    Drain: node.Drain,
    SchedulingEligibility: node.SchedulingEligibility,
    Status: node.Status,
    StatusDescription: node.StatusDescription,
    Drivers: fieldOr(node, "Drivers", null),
    HostVolumes: fieldOr(node, "HostVolumes", null),
    ...(nodeResources === null ? {} : { NodeResources: nodeResources }),
    ...(reservedResources === null ? {} : { ReservedResources: reservedResources }),
    LastDrain: fieldOr(node, "LastDrain", null),
    CreateIndex: node.CreateIndex,
    ModifyIndex: node.ModifyIndex,
  };
}

/**
 * `structs.Node` (`GET /v1/node/<id>`, what `/v1/nodes?filter=` sees), sanitized as the reference
 * sends it (`SecretID` empty), with the trailing `Drain` its JSON extension adds.
 */
export function presentNode(node: Node): JsonObject {
  return {
    ID: node.ID,
    SecretID: "",
    Datacenter: node.Datacenter,
    Name: node.Name,
    CgroupParent: fieldOr(node, "CgroupParent", ""),
    HTTPAddr: fieldOr(node, "HTTPAddr", `${node.Address}:${CLIENT_HTTP_PORT}`),
    TLSEnabled: fieldOr(node, "TLSEnabled", false),
    Attributes: nodeAttributes(node),
    NodeResources: fieldOr(node, "NodeResources", null),
    ReservedResources: fieldOr(node, "ReservedResources", null),
    Resources: fieldOr(node, "Resources", null),
    Reserved: fieldOr(node, "Reserved", null),
    Links: fieldOr(node, "Links", null),
    Meta: node.Meta,
    NodeClass: node.NodeClass,
    NodePool: node.NodePool,
    ComputedClass: fieldOr(node, "ComputedClass", ""),
    DrainStrategy: drainStrategy(node),
    SchedulingEligibility: node.SchedulingEligibility,
    Status: node.Status,
    StatusDescription: node.StatusDescription,
    StatusUpdatedAt: fieldOr(node, "StatusUpdatedAt", 0),
    Events: fieldOr(node, "Events", null),
    Drivers: fieldOr(node, "Drivers", null),
    CSIControllerPlugins: fieldOr(node, "CSIControllerPlugins", null),
    CSINodePlugins: fieldOr(node, "CSINodePlugins", null),
    HostVolumes: fieldOr(node, "HostVolumes", null),
    HostNetworks: fieldOr(node, "HostNetworks", null),
    LastDrain: fieldOr(node, "LastDrain", null),
    LastMissedHeartbeatIndex: fieldOr(node, "LastMissedHeartbeatIndex", 0),
    LastAllocUpdateIndex: fieldOr(node, "LastAllocUpdateIndex", 0),
    CreateIndex: node.CreateIndex,
    ModifyIndex: node.ModifyIndex,
    Drain: node.Drain,
  };
}
