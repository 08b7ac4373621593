/**
 * A job as the reference stores it once registered: the API's `Job.Canonicalize`
 * (`api/jobs.go`, `api/tasks.go`, `api/resources.go`), its conversion to the server's struct
 * (`ApiJobToStructJob` in `command/agent/job_endpoint.go`) and the server's `Job.Canonicalize`
 * (`nomad/structs/structs.go`), for the blocks the agent models (`src/structs/`). Everything the
 * client sent is kept; blocks the agent does not model are kept as sent.
 *
 * - The job: Name is the ID, Priority 50, Type service, Datacenters `["*"]`, NodePool `default`;
 *   empty Meta, Constraints, Affinities and Spreads are none; a parameterized block's payload
 *   rule is `optional` by default; `ParentID`, `Dispatched` and `DispatchIdempotencyToken` are
 *   the server's to set (`ApiJobToStructJob` does not carry them over). A service or system job without an
 *   update block gets `DefaultUpdateStrategy`; an update block's unset fields take its values.
 * - Each task group: Count 1 (or its scaling Min); the job's update block with the group's own
 *   over it (a group inherits the job's unless it is all zero); the job's `Reschedule` and
 *   `Migrate` with the group's over them; the job type's restart and reschedule policies under
 *   its own; `DefaultEphemeralDisk` (300 MB) when it has none, its unset fields otherwise; empty
 *   Meta, Constraints, Affinities and Spreads are none.
 * - Each task: `DefaultResources` (100 MHz, 300 MB; no CPU default when it asks for cores), a
 *   5 s `KillTimeout`, `DefaultLogConfig` (10 files of 10 MB), its group's restart policy under
 *   its own; an empty Lifecycle, Config, Env, Meta, Constraints, Affinities or VolumeMounts is none.
 *
 * Where the agent differs: the job keeps its whole update block (the reference keeps only
 * Stagger and MaxParallel there, once merged into the groups); a service job's groups get no
 * default migrate block, and system and sysbatch groups no reschedule policy, unless the client
 * gives one; scaling, multiregion and periodic blocks are kept as sent (with the periodic
 * defaults), and resources' networks and devices too.
 *
 * @module
 */
import { fill, overlay, present } from "../../structs/derive.js";
import { JOB } from "../../structs/job.js";
import {
  DEFAULT_EPHEMERAL_DISK,
  DEFAULT_LOG_CONFIG,
  DEFAULT_MIGRATE_STRATEGY,
  DEFAULT_RESOURCES,
  DEFAULT_UPDATE_STRATEGY,
  defaultReschedulePolicy,
  defaultRestartPolicy,
  EPHEMERAL_DISK,
  LOG_CONFIG,
  MIGRATE_STRATEGY,
  RESCHEDULE_POLICY,
  RESTART_POLICY,
  UPDATE_STRATEGY,
} from "../../structs/job-blocks.js";
import type { JobSpec, JsonObject } from "../state/model.js";

/** The API's default `KillTimeout`: 5 s, in nanoseconds. */
export const DEFAULT_KILL_TIMEOUT_NS = 5_000_000_000;

/** What a task group's canonicalisation reads of its job. */
interface JobContext {
  readonly type: string;
  /** The job's update block, canonical; null when it has none. */
  readonly update: JsonObject | null;
  /** The job's `Reschedule` and `Migrate` blocks, as sent. */
  readonly reschedule: JsonObject | null;
  readonly migrate: JsonObject | null;
}

/** Text, or `fallback` when the value is not text. */
function text(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

/** A decoded integer field as a number (a bigint beyond 2^53 only needs telling apart from valid values); undefined when absent. */
export function integer(value: unknown): number | undefined {
  return typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : undefined;
}

/** A block (an object), or null. */
function block(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** Go's `if len(x) == 0 { x = nil }` of the structs' `Canonicalize`: an empty (or absent) list or map is none. */
function orNone(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.length === 0 ? null : value;
  return typeof value === "object" && Object.keys(value).length === 0 ? null : value;
}

/** The API's `UpdateStrategy.Empty`: every field unset or zero. */
function emptyStrategy(update: JsonObject): boolean {
  return Object.values(update).every((value) => value === null || value === undefined || value === 0 || value === 0n || value === "" || value === false);
}

/** Two blocks merged as `Merge` does (`inner`'s set fields over `outer`'s); null when neither is given. */
function merged(decl: typeof RESCHEDULE_POLICY | typeof MIGRATE_STRATEGY | typeof UPDATE_STRATEGY, outer: JsonObject | null, inner: JsonObject | null): JsonObject | null {
  if (outer === null) return inner;
  return inner === null ? outer : overlay(decl, outer, inner);
}

/**
 * The job as the reference stores it, without the fields the server sets (status, version,
 * indexes, submit time). The namespace and region come from the request (already resolved by
 * precedence).
 */
export function canonicalizeJob(job: JsonObject, namespace: string, region: string): JobSpec {
  const type = text(job.Type, "service");
  const id = text(job.ID, "");
  const given = block(job.Update);
  const context: JobContext = {
    type,
    update: given !== null ? fill(UPDATE_STRATEGY, given, DEFAULT_UPDATE_STRATEGY) : type === "service" || type === "system" ? { ...DEFAULT_UPDATE_STRATEGY } : null,
    reschedule: block(job.Reschedule),
    migrate: block(job.Migrate),
  };
  const datacenters = Array.isArray(job.Datacenters) && job.Datacenters.length > 0 ? job.Datacenters : ["*"];
  const periodic = block(job.Periodic);
  const parameterized = block(job.ParameterizedJob);
  const written = present(JOB, {
    ...job,
    Stop: job.Stop === true,
    Region: region,
    Namespace: namespace,
    ID: id,
    Name: text(job.Name, id),
    Type: type,
    Priority: integer(job.Priority) || 50,
    AllAtOnce: job.AllAtOnce === true,
    Datacenters: datacenters,
    NodePool: text(job.NodePool, "") || "default",
    Constraints: orNone(job.Constraints),
    Affinities: orNone(job.Affinities),
    Spreads: orNone(job.Spreads),
    TaskGroups: Array.isArray(job.TaskGroups) ? job.TaskGroups.map((group: unknown) => canonicalizeGroup(block(group) ?? {}, context)) : [],
    Update: context.update,
    Periodic: periodic === null ? null : { Enabled: true, SpecType: "cron", ProhibitOverlap: false, TimeZone: "UTC", ...periodic },
    ParameterizedJob: parameterized === null ? null : { ...parameterized, Payload: text(parameterized.Payload, "") || "optional" },
    // What the server sets of a child (`ApiJobToStructJob` does not carry them over).
    ParentID: "",
    Dispatched: false,
    DispatchIdempotencyToken: "",
    Meta: block(job.Meta) === null ? null : orNone(job.Meta),
  });
  // The spec is the job without what the server sets. The cast is the JSON boundary: `present` gives untyped JSON, here
  // each field of the spec decoded by its Go type (job-spec.ts) and canonicalised above.
  return Object.fromEntries(JOB.fields.filter((each) => !each.server).map(({ name }) => [name, written[name]])) as unknown as JobSpec;
}

/** A task group as `api.TaskGroup.Canonicalize`, `ApiTgToStructsTG` and `structs.TaskGroup.Canonicalize` leave it (written in its struct's order with the job). */
function canonicalizeGroup(group: JsonObject, job: JobContext): JsonObject {
  const scaling = block(group.Scaling);
  // The job's update block, the group's own over it; a group inherits the job's unless it is all zero.
  const own = block(group.Update);
  const update = job.update !== null && own !== null ? overlay(UPDATE_STRATEGY, job.update, own) : job.update !== null && !emptyStrategy(job.update) ? job.update : own;
  const reschedule = merged(RESCHEDULE_POLICY, job.reschedule, block(group.ReschedulePolicy));
  const migrate = merged(MIGRATE_STRATEGY, job.migrate, block(group.Migrate));
  const restart = fill(RESTART_POLICY, block(group.RestartPolicy), defaultRestartPolicy(job.type));
  return {
    ...group,
    Name: text(group.Name, ""),
    Count: integer(group.Count) ?? integer(scaling?.Min) ?? 1,
    Update: update === null ? null : fill(UPDATE_STRATEGY, update, DEFAULT_UPDATE_STRATEGY),
    Migrate: migrate === null ? null : fill(MIGRATE_STRATEGY, migrate, DEFAULT_MIGRATE_STRATEGY),
    Constraints: orNone(group.Constraints),
    RestartPolicy: restart,
    Tasks: Array.isArray(group.Tasks) ? group.Tasks.map((task: unknown) => canonicalizeTask(block(task) ?? {}, restart)) : null,
    EphemeralDisk: fill(EPHEMERAL_DISK, block(group.EphemeralDisk), DEFAULT_EPHEMERAL_DISK),
    Meta: orNone(group.Meta),
    ReschedulePolicy: reschedule === null ? defaultReschedulePolicy(job.type) : fill(RESCHEDULE_POLICY, reschedule, defaultReschedulePolicy(job.type) ?? {}),
    Affinities: orNone(group.Affinities),
    Spreads: orNone(group.Spreads),
  };
}

/** A task as `api.Task.Canonicalize`, `ApiTaskToStructsTask` and `structs.Task.Canonicalize` leave it. */
function canonicalizeTask(task: JsonObject, groupRestart: JsonObject): JsonObject {
  const lifecycle = block(task.Lifecycle);
  const restart = block(task.RestartPolicy);
  return {
    ...task,
    Config: orNone(task.Config),
    Env: orNone(task.Env),
    Constraints: orNone(task.Constraints),
    Affinities: orNone(task.Affinities),
    Resources: canonicalResources(block(task.Resources)),
    RestartPolicy: restart === null ? groupRestart : fill(RESTART_POLICY, restart, groupRestart),
    Lifecycle: lifecycle === null || typeof lifecycle.Hook !== "string" || lifecycle.Hook === "" ? null : lifecycle,
    Meta: orNone(task.Meta),
    KillTimeout: task.KillTimeout ?? DEFAULT_KILL_TIMEOUT_NS,
    LogConfig: fill(LOG_CONFIG, block(task.LogConfig), DEFAULT_LOG_CONFIG),
    VolumeMounts: orNone(task.VolumeMounts),
  };
}

/**
 * `api.Resources.Canonicalize` then `ApiResourcesToStructs`: CPU 100 unless the task asks for
 * cores, MemoryMB 300; `DiskMB` is not carried over (the group's ephemeral disk is the disk); a
 * NUMA block keeps its affinity (`none` by default).
 */
function canonicalResources(given: JsonObject | null): JsonObject {
  const resources = given ?? {};
  let cpu = resources.CPU ?? null;
  let cores = resources.Cores ?? null;
  if (cores === null) {
    cores = DEFAULT_RESOURCES.Cores;
    if (cpu === null) cpu = DEFAULT_RESOURCES.CPU;
  }
  const numa = block(resources.NUMA);
  return {
    CPU: cpu ?? 0,
    Cores: cores,
    MemoryMB: resources.MemoryMB ?? DEFAULT_RESOURCES.MemoryMB,
    MemoryMaxMB: resources.MemoryMaxMB ?? 0,
    DiskMB: 0,
    IOPS: resources.IOPS ?? 0,
    Networks: orNone(resources.Networks),
    Devices: orNone(resources.Devices),
    NUMA: numa === null ? null : { Affinity: text(numa.Affinity, "") || "none", Devices: null },
    SecretsMB: resources.SecretsMB ?? 0,
  };
}
