/**
 * The schemas `/v1/allocations`, `/v1/evaluations` and `/v1/nodes` compile their filters against
 * (typed mode, as the reference evaluates on its Go structs): the reference's `structs.Allocation`,
 * `structs.Evaluation` and `structs.Node` as `domain/present.ts` writes them, each field with its
 * Go kind, so a field the struct lacks is the reference's error and an absent one its zero value.
 * The allocation and node targets also hold the fields their list's stub adds (see
 * {@link allocationFilterTarget}). Blocks the agent never fills in (resources, metrics, plugins)
 * are `any`: untyped, as their shapes vary between versions of the reference.
 *
 * @module
 */
import type { FieldSchema, ObjectSchema } from "../../evaluator/schema.js";
import { jobSpecFields, multiregionSchema, taskGroupSchema, taskSchema, updateStrategySchema } from "../../schemas.js";

const strings: FieldSchema = { kind: "array", items: "string" };
const stringMap: FieldSchema = { kind: "map", values: "string" };

/** `structs.Task` as the full job prints it: the fields registrations keep, then the others. */
const fullTask: ObjectSchema = {
  kind: "object",
  typeName: "structs.Task",
  fields: {
    ...Object.fromEntries(
      ["Services", "Vault", "Consul", "Templates", "Constraints", "Affinities", "Resources", "RestartPolicy", "DispatchPayload", "Lifecycle", "LogConfig", "Artifacts", "VolumeMounts", "ScalingPolicies", "CSIPluginConfig", "Identity", "Identities", "Actions", "Schedule"].map(
        (name) => [name, "any"],
      ),
    ),
    ...taskSchema.fields,
    KillTimeout: "int",
    ShutdownDelay: "int",
    KillSignal: "string",
    Kind: "string",
  },
};

/** `structs.TaskGroup` as the full job prints it. */
const fullTaskGroup: ObjectSchema = {
  kind: "object",
  typeName: "structs.TaskGroup",
  fields: {
    ...Object.fromEntries(
      ["Migrate", "Constraints", "RestartPolicy", "Disconnect", "EphemeralDisk", "ReschedulePolicy", "Affinities", "Spreads", "Networks", "Consul", "Services", "Volumes", "ShutdownDelay", "StopAfterClientDisconnect", "MaxClientDisconnect"].map(
        (name) => [name, "any"],
      ),
    ),
    ...taskGroupSchema.fields,
    Tasks: { kind: "array", items: fullTask },
    PreventRescheduleOnLost: "bool",
  },
};

/** `structs.Job`, the full job (an allocation's `Job`). */
export const fullJobSchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.Job",
  fields: {
    ...jobSpecFields,
    TaskGroups: { kind: "array", items: fullTaskGroup },
    Update: updateStrategySchema,
    Multiregion: multiregionSchema,
    Periodic: "any",
    ParameterizedJob: "any",
    UI: "any",
    VersionTag: "any",
  },
};

/** `structs.TaskState`. */
const taskState: ObjectSchema = {
  kind: "object",
  typeName: "structs.TaskState",
  fields: {
    State: "string",
    Failed: "bool",
    Restarts: "uint",
    LastRestart: "time",
    StartedAt: "time",
    FinishedAt: "time",
    Events: { kind: "array", items: "any" },
    TaskHandle: "any",
    Paused: "string",
  },
};

/**
 * What `GET /v1/allocations?filter=` is evaluated on: the full `structs.Allocation`, and the two
 * fields only its stub has, `JobType` and `JobVersion` (the reference fails a filter on them: the
 * decisions table lets users filter on what they see, as on `/v1/jobs`).
 */
export const allocationFilterTarget: ObjectSchema = {
  kind: "object",
  typeName: "structs.Allocation",
  fields: {
    ID: "string",
    Namespace: "string",
    EvalID: "string",
    Name: "string",
    NodeID: "string",
    NodeName: "string",
    JobID: "string",
    Job: fullJobSchema,
    TaskGroup: "string",
    Resources: "any",
    SharedResources: "any",
    TaskResources: { kind: "map", values: "any" },
    AllocatedResources: "any",
    Metrics: "any",
    DesiredStatus: "string",
    DesiredDescription: "string",
    DesiredTransition: {
      kind: "object",
      typeName: "structs.DesiredTransition",
      fields: { Migrate: "bool", Reschedule: "bool", ForceReschedule: "bool", NoShutdownDelay: "bool" },
    },
    ClientStatus: "string",
    ClientDescription: "string",
    TaskStates: { kind: "map", values: taskState },
    AllocStates: { kind: "array", items: "any" },
    PreviousAllocation: "string",
    NextAllocation: "string",
    DeploymentID: "string",
    DeploymentStatus: {
      kind: "object",
      typeName: "structs.AllocDeploymentStatus",
      fields: { Healthy: "bool", Timestamp: "time", Canary: "bool", ModifyIndex: "uint" },
    },
    RescheduleTracker: {
      kind: "object",
      typeName: "structs.RescheduleTracker",
      fields: {
        Events: { kind: "array", items: { kind: "object", typeName: "structs.RescheduleEvent", fields: { RescheduleTime: "int", PrevAllocID: "string", PrevNodeID: "string", Delay: "int" } } },
        LastReschedule: "string",
      },
    },
    NetworkStatus: "any",
    FollowupEvalID: "string",
    PreemptedAllocations: strings,
    PreemptedByAllocation: "string",
    SigningKeyID: "string",
    CreateIndex: "uint",
    ModifyIndex: "uint",
    AllocModifyIndex: "uint",
    CreateTime: "int",
    ModifyTime: "int",
    JobType: "string",
    JobVersion: "uint",
  },
};

/** What `GET /v1/evaluations?filter=` is evaluated on: the full `structs.Evaluation`. */
export const evaluationFilterTarget: ObjectSchema = {
  kind: "object",
  typeName: "structs.Evaluation",
  fields: {
    ID: "string",
    Namespace: "string",
    Priority: "int",
    Type: "string",
    TriggeredBy: "string",
    JobID: "string",
    JobModifyIndex: "uint",
    NodeID: "string",
    NodeModifyIndex: "uint",
    DeploymentID: "string",
    Status: "string",
    StatusDescription: "string",
    Wait: "int",
    WaitUntil: "time",
    NextEval: "string",
    PreviousEval: "string",
    BlockedEval: "string",
    RelatedEvals: { kind: "array", items: "any" },
    FailedTGAllocs: { kind: "map", values: "any" },
    ClassEligibility: { kind: "map", values: "bool" },
    QuotaLimitReached: "string",
    EscapedComputedClass: "bool",
    AnnotatePlan: "bool",
    QueuedAllocations: { kind: "map", values: "int" },
    LeaderACL: "string",
    SnapshotIndex: "uint",
    CreateIndex: "uint",
    ModifyIndex: "uint",
    CreateTime: "int",
    ModifyTime: "int",
  },
};

/**
 * What `GET /v1/nodes?filter=` is evaluated on: the full `structs.Node` (with `Drain`, which its
 * JSON carries), and the stub's `Address` and `Version` (a filter on them fails on the reference,
 * issue 19871; the decisions table lets users filter on what they see).
 */
export const nodeFilterTarget: ObjectSchema = {
  kind: "object",
  typeName: "structs.Node",
  fields: {
    ID: "string",
    SecretID: "string",
    Datacenter: "string",
    Name: "string",
    CgroupParent: "string",
    HTTPAddr: "string",
    TLSEnabled: "bool",
    Attributes: stringMap,
    NodeResources: "any",
    ReservedResources: "any",
    Resources: "any",
    Reserved: "any",
    Links: stringMap,
    Meta: stringMap,
    NodeClass: "string",
    NodePool: "string",
    ComputedClass: "string",
    DrainStrategy: "any",
    SchedulingEligibility: "string",
    Status: "string",
    StatusDescription: "string",
    StatusUpdatedAt: "int",
    Events: { kind: "array", items: "any" },
    Drivers: { kind: "map", values: "any" },
    CSIControllerPlugins: "any",
    CSINodePlugins: "any",
    HostVolumes: "any",
    HostNetworks: "any",
    LastDrain: "any",
    LastMissedHeartbeatIndex: "uint",
    LastAllocUpdateIndex: "uint",
    CreateIndex: "uint",
    ModifyIndex: "uint",
    Drain: "bool",
    Address: "string",
    Version: "string",
  },
};
