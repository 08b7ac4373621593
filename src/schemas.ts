/**
 * Schemas of the objects the scheduler's API filters, for typed-mode evaluation and editor
 * support, with the Go kinds of the reference's structs (`uint64` indexes, pointer structs,
 * `time.Time`). One source: the agent reads registrations with the same blocks
 * (`src/server/register.ts`) and filters `/v1/jobs` and `/v1/deployments` on exactly
 * {@link schemas}`.job` and `.deployment`; a test holds the schemas and the agent's rows together.
 *
 * @module
 */
import type { FieldSchema, ObjectSchema } from "./evaluator/schema.js";

const stringMap: FieldSchema = { kind: "map", values: "string" };

/** `structs.TaskGroupSummary`. */
const taskGroupSummary: ObjectSchema = {
  kind: "object",
  typeName: "structs.TaskGroupSummary",
  fields: { Queued: "int", Complete: "int", Failed: "int", Running: "int", Starting: "int", Lost: "int", Unknown: "int" },
};

/** `structs.JobSummary` (a pointer in the list item). */
const jobSummary: ObjectSchema = {
  kind: "object",
  typeName: "structs.JobSummary",
  fields: {
    JobID: "string",
    Namespace: "string",
    Summary: { kind: "map", values: taskGroupSummary },
    Children: { kind: "object", typeName: "structs.JobChildrenSummary", fields: { Pending: "int", Running: "int", Dead: "int" } },
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

/** The reference's `Task`: the fields the agent reads and keeps (others are dropped when a job is registered). */
export const taskSchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.Task",
  fields: { Name: "string", Driver: "string", User: "string", Config: "any", Env: stringMap, Meta: stringMap, Leader: "bool" },
};

/**
 * The reference's `UpdateStrategy`; durations are int64 nanoseconds. The scheduler computes
 * deadlines from them, so they are read with their Go types, never as untyped JSON.
 */
export const updateStrategySchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.UpdateStrategy",
  fields: {
    Stagger: "int",
    MaxParallel: "int",
    HealthCheck: "string",
    MinHealthyTime: "int",
    HealthyDeadline: "int",
    ProgressDeadline: "int",
    Canary: "int",
    AutoRevert: "bool",
    AutoPromote: "bool",
  },
};

/** The reference's `ScalingPolicy`, whose `Min` is a task group's count when it has none. */
export const scalingPolicySchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.ScalingPolicy",
  fields: { ID: "string", Type: "string", Min: "int", Max: "int", Enabled: "bool", Policy: "any", Target: stringMap },
};

/** The reference's `TaskGroup`: the fields the agent reads and keeps. */
export const taskGroupSchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.TaskGroup",
  fields: {
    Name: "string",
    Count: "int",
    Tasks: { kind: "array", items: taskSchema },
    Meta: stringMap,
    Scaling: scalingPolicySchema,
    Update: updateStrategySchema,
  },
};

/** `structs.Multiregion` (a pointer; null for single-region jobs). */
export const multiregionSchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.Multiregion",
  fields: {
    Strategy: { kind: "object", fields: { MaxParallel: "int", OnFailure: "string" } },
    Regions: {
      kind: "array",
      items: { kind: "object", fields: { Name: "string", Count: "int", Datacenters: { kind: "array", items: "string" }, NodePool: "string", Meta: stringMap } },
    },
  },
};

/**
 * An element of the job list as the reference's `JobListStub` types it (spec 2.2). `Meta` is
 * present with `?meta=true`; `NodePool` is the reference's (the spec's table leaves it out). The
 * golden scenarios' typed mode uses it; the agent filters on {@link jobFilterTarget}.
 */
export const jobListItem: ObjectSchema = {
  kind: "object",
  typeName: "structs.JobListStub",
  fields: {
    ID: "string",
    ParentID: "string",
    Name: "string",
    Namespace: "string",
    Datacenters: { kind: "array", items: "string" },
    NodePool: "string",
    Multiregion: multiregionSchema,
    Type: "string",
    Priority: "int",
    Periodic: "bool",
    ParameterizedJob: "bool",
    Stop: "bool",
    Status: "string",
    StatusDescription: "string",
    JobSummary: jobSummary,
    CreateIndex: "uint",
    ModifyIndex: "uint",
    JobModifyIndex: "uint",
    SubmitTime: "int",
    Meta: stringMap,
  },
};

/** `structs.DeploymentState`: one task group of a deployment. */
const deploymentState: ObjectSchema = {
  kind: "object",
  typeName: "structs.DeploymentState",
  fields: {
    AutoRevert: "bool",
    AutoPromote: "bool",
    ProgressDeadline: "int",
    RequireProgressBy: "time",
    Promoted: "bool",
    PlacedCanaries: { kind: "array", items: "string" },
    DesiredCanaries: "int",
    DesiredTotal: "int",
    PlacedAllocs: "int",
    HealthyAllocs: "int",
    UnhealthyAllocs: "int",
  },
};

/** An element of the deployment list (spec 2.3, the reference's `Deployment`). */
export const deployment: ObjectSchema = {
  kind: "object",
  typeName: "structs.Deployment",
  fields: {
    ID: "string",
    Namespace: "string",
    JobID: "string",
    JobVersion: "uint",
    JobModifyIndex: "uint",
    JobSpecModifyIndex: "uint",
    JobCreateIndex: "uint",
    IsMultiregion: "bool",
    TaskGroups: { kind: "map", values: deploymentState },
    Status: "string",
    StatusDescription: "string",
    EvalPriority: "int",
    CreateIndex: "uint",
    ModifyIndex: "uint",
    CreateTime: "int",
    ModifyTime: "int",
  },
};

/**
 * The fields the reference's API job (`api.Job`, which registrations are decoded into) and its
 * stored job (`structs.Job`) share, with the same kinds. Blocks that differ between the two
 * (task groups, periodic and parameterized configs, multiregion) are added by each schema.
 */
export const jobSpecFields: { readonly [name: string]: FieldSchema } = {
  Stop: "bool",
  Region: "string",
  Namespace: "string",
  ID: "string",
  ParentID: "string",
  Name: "string",
  Type: "string",
  Priority: "int",
  AllAtOnce: "bool",
  Datacenters: { kind: "array", items: "string" },
  NodePool: "string",
  Constraints: "any",
  Affinities: "any",
  Spreads: "any",
  Update: "any",
  Dispatched: "bool",
  DispatchIdempotencyToken: "string",
  Payload: "any",
  Meta: stringMap,
  ConsulToken: "string",
  ConsulNamespace: "string",
  VaultToken: "string",
  VaultNamespace: "string",
  NomadTokenID: "string",
  Status: "string",
  StatusDescription: "string",
  Stable: "bool",
  Version: "uint",
  SubmitTime: "int",
  CreateIndex: "uint",
  ModifyIndex: "uint",
  JobModifyIndex: "uint",
};

/**
 * What the agent filters `/v1/jobs` on, shipped as `schemas.job`: the stored job (the reference's
 * `structs.Job`, as registered and defaulted) with the list item's fields laid over it
 * (`Periodic` and `ParameterizedJob` become booleans, `JobSummary` is added), so every field a
 * user sees in the list, and every field of the job spec, can be filtered.
 */
export const jobFilterTarget: ObjectSchema = {
  kind: "object",
  typeName: "structs.Job",
  // The list's fields first, in its order (editors offer fields in schema order), then the spec's.
  fields: {
    ...jobListItem.fields,
    ...Object.fromEntries(Object.entries(jobSpecFields).filter(([name]) => !Object.hasOwn(jobListItem.fields, name))),
    TaskGroups: { kind: "array", items: taskGroupSchema },
    Update: updateStrategySchema,
    Multiregion: multiregionSchema,
    Periodic: "bool",
    ParameterizedJob: "bool",
    JobSummary: jobSummary,
  },
};

/**
 * The shipped schemas, for `compileFilter(source, { schema: schemas.job })`: exactly what the
 * agent filters on. Fields the job list does not show (`Version`, `TaskGroups`…) are zero values
 * when the list's JSON is filtered on the client (`curl …/v1/jobs | bexpr eval --schema job …`).
 */
export const schemas = Object.freeze({
  /** What `GET /v1/jobs?filter=` is evaluated on: the stored job with the list item's fields laid over it. */
  job: jobFilterTarget,
  /** What `GET /v1/deployments?filter=` is evaluated on: the deployment (`structs.Deployment`). */
  deployment,
});
