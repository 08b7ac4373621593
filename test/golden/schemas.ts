/**
 * Schemas of the reference's typed structs, for the golden scenarios in typed mode.
 *
 * They mirror the Go types the reference evaluates filters against:
 * `structs.JobListStub` (with `*JobSummary`, `*JobChildrenSummary`, `map[string]TaskGroupSummary`,
 * `*Multiregion`) and `structs.Deployment` (with `map[string]*DeploymentState`).
 * Go `uint64` indexes are "uint", `int`/`int64` (including `time.Duration`) are "int",
 * `time.Time` is "time", `map[string]string` is a map of "string".
 */
import type { FieldSchema, ObjectSchema } from "../../src/evaluator/schema.js";

const stringList: FieldSchema = { kind: "array", items: "string" };
const stringMap: FieldSchema = { kind: "map", values: "string" };

/** `structs.TaskGroupSummary` (a value in `JobSummary.Summary`). */
const taskGroupSummary: ObjectSchema = {
  kind: "object",
  typeName: "structs.TaskGroupSummary",
  fields: {
    Queued: "int",
    Complete: "int",
    Failed: "int",
    Running: "int",
    Starting: "int",
    Lost: "int",
    Unknown: "int",
  },
};

/** `*structs.JobChildrenSummary`. */
const jobChildrenSummary: ObjectSchema = {
  kind: "object",
  typeName: "structs.JobChildrenSummary",
  fields: {
    Pending: "int",
    Running: "int",
    Dead: "int",
  },
};

/** `*structs.JobSummary`. */
const jobSummary: ObjectSchema = {
  kind: "object",
  typeName: "structs.JobSummary",
  fields: {
    JobID: "string",
    Namespace: "string",
    Summary: { kind: "map", values: taskGroupSummary },
    Children: jobChildrenSummary,
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

/** `*structs.Multiregion` (always nil in the fixtures). */
const multiregion: ObjectSchema = {
  kind: "object",
  typeName: "structs.Multiregion",
  fields: {
    Strategy: {
      kind: "object",
      typeName: "structs.MultiregionStrategy",
      fields: { MaxParallel: "int", OnFailure: "string" },
    },
    Regions: {
      kind: "array",
      items: {
        kind: "object",
        typeName: "structs.MultiregionRegion",
        fields: { Name: "string", Count: "int", Datacenters: stringList, NodePool: "string", Meta: stringMap },
      },
    },
  },
};

/** `*structs.JobListStub`. */
export const jobSchema: ObjectSchema = {
  kind: "object",
  typeName: "structs.JobListStub",
  fields: {
    ID: "string",
    ParentID: "string",
    Name: "string",
    Namespace: "string",
    Datacenters: stringList,
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

/** `*structs.DeploymentState` (a value in `Deployment.TaskGroups`). */
const deploymentState: ObjectSchema = {
  kind: "object",
  typeName: "structs.DeploymentState",
  fields: {
    AutoRevert: "bool",
    AutoPromote: "bool",
    ProgressDeadline: "int",
    RequireProgressBy: "time",
    Promoted: "bool",
    PlacedCanaries: stringList,
    DesiredCanaries: "int",
    DesiredTotal: "int",
    PlacedAllocs: "int",
    HealthyAllocs: "int",
    UnhealthyAllocs: "int",
  },
};

/** `*structs.Deployment`. */
export const deploymentSchema: ObjectSchema = {
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
