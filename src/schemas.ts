/**
 * Schemas of the objects the scheduler's API returns, for typed-mode evaluation (and editor
 * support): the job list item (spec 2.2) and the deployment (spec 2.3), with the Go kinds of the
 * reference's structs (`uint64` indexes, pointer structs, `time.Time`).
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

/** `structs.Multiregion` (a pointer; null for single-region jobs). */
const multiregion: ObjectSchema = {
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
 * An element of the job list (spec 2.2, the reference's `JobListStub`). `Meta` is present with
 * `?meta=true`; `NodePool` is the reference's (the spec's table leaves it out).
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
    Multiregion: multiregion,
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
 * What the agent filters `/v1/jobs` on: the stored job (the reference's `structs.Job`) with the
 * list item's fields laid over it (`Periodic` and `ParameterizedJob` become booleans, `JobSummary`
 * is added), so every field a user sees in the list, and every field of the job spec, can be
 * filtered. Nested spec blocks (task groups, constraints…) are untyped JSON.
 */
export const jobFilterTarget: ObjectSchema = {
  kind: "object",
  typeName: "structs.Job",
  fields: {
    ...jobSpecFields,
    TaskGroups: { kind: "array", items: "any" },
    Multiregion: multiregion,
    Periodic: "bool",
    ParameterizedJob: "bool",
    JobSummary: jobSummary,
  },
};

/** The shipped schemas, for `compileFilter(source, { schema: schemas.job })`. */
export const schemas = Object.freeze({
  /** An element of the job list (`GET /v1/jobs`, the reference's `structs.JobListStub`). */
  job: jobListItem,
  deployment,
});
