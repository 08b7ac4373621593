/**
 * The blocks of a job (`nomad/structs/structs.go` of the reference, 1.9): resources, logs, the
 * ephemeral disk, the update, restart, reschedule and migrate strategies, scaling and
 * multiregion. Each block's defaults (the API's `Canonicalize`) are beside it.
 *
 * @module
 */
import { field, map, ptr, slice, struct, untyped, type StructValue } from "./declare.js";

const SECOND_NS = 1_000_000_000;
const MINUTE_NS = 60 * SECOND_NS;
const HOUR_NS = 60 * MINUTE_NS;

/** `structs.NUMA`. */
export const NUMA = struct("structs.NUMA", "How a task's cores are placed on NUMA nodes (enterprise).", [
  field("Affinity", "string", "none, prefer or require: how strictly cores share a NUMA node"),
  field("Devices", slice("string"), "the devices that must share the cores' NUMA node"),
]);

/** `structs.Resources`: what a task asks of its node. */
export const RESOURCES = struct("structs.Resources", "What a task asks of its node.", [
  field("CPU", "int", "CPU in MHz"),
  field("Cores", "int", "whole cores reserved for the task (CPU is then 0)"),
  field("MemoryMB", "int", "memory in MB"),
  field("MemoryMaxMB", "int", "memory the task may use above MemoryMB, in MB (0: none)"),
  field("DiskMB", "int", "deprecated: disk is the group's EphemeralDisk"),
  field("IOPS", "int", "deprecated: ignored"),
  field("Networks", untyped("Networks"), "network resources (deprecated on tasks)"),
  field("Devices", untyped("ResourceDevices"), "devices (GPUs…) the task asks for"),
  field("NUMA", ptr(NUMA), "NUMA placement of the task's cores"),
  field("SecretsMB", "int", "size of the task's secrets directory, in MB"),
]);

/** The API's `DefaultResources`: 100 MHz and 300 MB (a block that sets `Cores` gets no CPU default). */
export const DEFAULT_RESOURCES = Object.freeze({ CPU: 100, Cores: 0, MemoryMB: 300 });

/** `structs.LogConfig`. */
export const LOG_CONFIG = struct("structs.LogConfig", "How many log files of a task are kept, and how large.", [
  field("MaxFiles", "int", "the most log files kept per stream"),
  field("MaxFileSizeMB", "int", "the size at which a log file is rotated, in MB"),
  field("Disabled", "bool", "no logs are collected"),
]);

/** The API's `DefaultLogConfig`. */
export const DEFAULT_LOG_CONFIG = Object.freeze({ MaxFiles: 10, MaxFileSizeMB: 10, Disabled: false });

/** `structs.EphemeralDisk`. */
export const EPHEMERAL_DISK = struct("structs.EphemeralDisk", "The disk a task group's allocations share.", [
  field("Sticky", "bool", "a replacement allocation is placed on the same node, with the data"),
  field("SizeMB", "int", "its size, in MB"),
  field("Migrate", "bool", "the data follows a replacement to another node"),
]);

/** The API's `DefaultEphemeralDisk`: 300 MB. */
export const DEFAULT_EPHEMERAL_DISK = Object.freeze({ Sticky: false, SizeMB: 300, Migrate: false });

/** `structs.UpdateStrategy`. */
export const UPDATE_STRATEGY = struct("structs.UpdateStrategy", "How a new version of a task group is rolled out (its deployment).", [
  field("Stagger", "duration", "deprecated: the delay between migrations"),
  field("MaxParallel", "int", "allocations updated at once; 0: no deployment"),
  field("HealthCheck", "string", "what makes an allocation healthy: checks, task_states or manual"),
  field("MinHealthyTime", "duration", "how long an allocation must be healthy to count"),
  field("HealthyDeadline", "duration", "how long an allocation has to become healthy"),
  field("ProgressDeadline", "duration", "how long the deployment may go without a newly healthy allocation"),
  field("AutoRevert", "bool", "a failed deployment reverts the job to its last stable version"),
  field("AutoPromote", "bool", "canaries are promoted once healthy"),
  field("Canary", "int", "canaries placed before the rest"),
]);

/** `structs.UpdateStrategy` as the scheduler reads it (durations in nanoseconds). */
export type UpdateStrategy = StructValue<typeof UPDATE_STRATEGY>;

/** The API's `DefaultUpdateStrategy`, given to service jobs without an update block. */
export const DEFAULT_UPDATE_STRATEGY: UpdateStrategy = Object.freeze({
  Stagger: 30 * SECOND_NS,
  MaxParallel: 1,
  HealthCheck: "checks",
  MinHealthyTime: 10 * SECOND_NS,
  HealthyDeadline: 300 * SECOND_NS,
  ProgressDeadline: 600 * SECOND_NS,
  AutoRevert: false,
  AutoPromote: false,
  Canary: 0,
});

/** `structs.RestartPolicy`. */
export const RESTART_POLICY = struct("structs.RestartPolicy", "How the client restarts a failed task in place.", [
  field("Attempts", "int", "restarts allowed within Interval"),
  field("Interval", "duration", "the window Attempts are counted in"),
  field("Delay", "duration", "the wait before a restart"),
  field("Mode", "string", "once the attempts are spent: fail, or delay until the next interval"),
  field("RenderTemplates", "bool", "templates are rendered again on a restart"),
]);

/** The API's default restart policies by job type (`defaultServiceJobRestartPolicy`, `defaultBatchJobRestartPolicy`). */
export function defaultRestartPolicy(type: string): StructValue<typeof RESTART_POLICY> {
  return type === "service" || type === "system"
    ? { Attempts: 2, Interval: 30 * MINUTE_NS, Delay: 15 * SECOND_NS, Mode: "fail", RenderTemplates: false }
    : { Attempts: 3, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, Mode: "fail", RenderTemplates: false };
}

/** `structs.ReschedulePolicy`. */
export const RESCHEDULE_POLICY = struct("structs.ReschedulePolicy", "How the server replaces a failed allocation on another node.", [
  field("Attempts", "int", "reschedules allowed within Interval"),
  field("Interval", "duration", "the window Attempts are counted in"),
  field("Delay", "duration", "the wait before the first reschedule"),
  field("DelayFunction", "string", "how the wait grows: constant, exponential or fibonacci"),
  field("MaxDelay", "duration", "the longest wait"),
  field("Unlimited", "bool", "reschedule without limit"),
]);

/**
 * The reschedule policy a task group of `type` gets when it has none (`NewDefaultReschedulePolicy`):
 * service and batch jobs have one; system and sysbatch jobs none (null), as the agent has always
 * written them.
 */
export function defaultReschedulePolicy(type: string): StructValue<typeof RESCHEDULE_POLICY> | null {
  if (type === "service") return { Attempts: 0, Interval: 0, Delay: 30 * SECOND_NS, DelayFunction: "exponential", MaxDelay: HOUR_NS, Unlimited: true };
  if (type === "batch") return { Attempts: 1, Interval: 24 * HOUR_NS, Delay: 5 * SECOND_NS, DelayFunction: "constant", MaxDelay: 0, Unlimited: false };
  return null;
}

/** `structs.MigrateStrategy`. */
export const MIGRATE_STRATEGY = struct("structs.MigrateStrategy", "How allocations leave a draining node.", [
  field("MaxParallel", "int", "allocations migrated at once"),
  field("HealthCheck", "string", "what makes a migrated allocation healthy: checks or task_states"),
  field("MinHealthyTime", "duration", "how long a migrated allocation must be healthy"),
  field("HealthyDeadline", "duration", "how long it has to become healthy"),
]);

/** The API's `DefaultMigrateStrategy`, filling a migrate block's unset fields. */
export const DEFAULT_MIGRATE_STRATEGY: StructValue<typeof MIGRATE_STRATEGY> = Object.freeze({ MaxParallel: 1, HealthCheck: "checks", MinHealthyTime: 10 * SECOND_NS, HealthyDeadline: 300 * SECOND_NS });

/** `structs.ScalingPolicy`, as the client sent it (the agent neither canonicalises nor indexes it). */
export const SCALING_POLICY = struct(
  "structs.ScalingPolicy",
  "How far an autoscaler may scale a task group.",
  [
    field("ID", "string", "the policy's ID"),
    field("Type", "string", "horizontal (a group's count) or a vertical kind"),
    field("Target", map("string"), "what it scales: Namespace, Job, Group"),
    field("Policy", untyped("map[string]interface{}"), "the autoscaler's configuration"),
    field("Min", "int", "the lowest count; a group's count when it has none"),
    field("Max", "int", "the highest count"),
    field("Enabled", "bool", "the autoscaler acts on it"),
    field("CreateIndex", "index", "the index it was created at"),
    field("ModifyIndex", "index", "the index it last changed at"),
  ],
  { asSent: true },
);

/** `structs.MultiregionStrategy`. */
export const MULTIREGION_STRATEGY = struct(
  "structs.MultiregionStrategy",
  "How a multiregion job's regions are deployed.",
  [field("MaxParallel", "int", "regions deployed at once"), field("OnFailure", "string", "what a failed region does to the others: fail_all or fail_local")],
  { asSent: true },
);

/** `structs.MultiregionRegion`. */
export const MULTIREGION_REGION = struct(
  "structs.MultiregionRegion",
  "One region of a multiregion job.",
  [
    field("Name", "string", "the region"),
    field("Count", "int", "the task groups' count there"),
    field("Datacenters", slice("string"), "its datacenters"),
    field("NodePool", "string", "its node pool"),
    field("Meta", map("string"), "metadata merged into the job's there"),
  ],
  { asSent: true },
);

/** `structs.Multiregion`, as the client sent it. */
export const MULTIREGION = struct(
  "structs.Multiregion",
  "A job deployed to several regions (enterprise).",
  [field("Strategy", ptr(MULTIREGION_STRATEGY), "how the regions are deployed"), field("Regions", slice(ptr(MULTIREGION_REGION)), "the regions, in deployment order")],
  { asSent: true },
);

