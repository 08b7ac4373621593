/**
 * The structs of the reference are declared once (`src/structs/`): the model's row types, the
 * filter schemas, the presenters, the snapshot checks and the editors' field docs derive from the
 * declarations. These tests hold the derivations to Go's rules (zero values, `omitempty`, the
 * API's `Merge` and `Canonicalize`) and the model's types to the declarations.
 */
import { describe, expect, it } from "vitest";
import { schemas } from "../../src/schemas.js";
import { ALLOC_LIST_STUB, ALLOCATION } from "../../src/structs/allocation.js";
import { field, map, ptr, rowFieldNames, slice, struct, untyped, type FieldNames, type RowKeys } from "../../src/structs/declare.js";
import { DEPLOYMENT, DEPLOYMENT_STATE } from "../../src/structs/deployment.js";
import { fill, overlay, present, rowChecks, schemaOf } from "../../src/structs/derive.js";
import { DECLARED_STRUCTS, fieldDoc } from "../../src/structs/docs.js";
import { EVALUATION } from "../../src/structs/evaluation.js";
import { JOB } from "../../src/structs/job.js";
import { JOB_SUMMARY, TASK_GROUP_SUMMARY } from "../../src/structs/job-list.js";
import { UPDATE_STRATEGY } from "../../src/structs/job-blocks.js";
import { NODE } from "../../src/structs/node.js";
import { allocationFilterTarget, evaluationFilterTarget, nodeFilterTarget } from "../../src/server/list/filter-schemas.js";
import type { Allocation, Deployment, DeploymentState, Evaluation, Job, JobSummary, Node, TaskGroupSummary } from "../../src/server/state/model.js";

/** True when `A` and `B` are the same set of keys (a compile error below otherwise). */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** True when every key of `A` is one of `B`. */
type Within<A, B> = [A] extends [B] ? true : false;

// The model's row types against their declarations: checked by `tsc` (npm test), asserted here too.
const modelKeys: readonly true[] = [
  true satisfies SameKeys<keyof Deployment, RowKeys<typeof DEPLOYMENT>>,
  true satisfies SameKeys<keyof DeploymentState, RowKeys<typeof DEPLOYMENT_STATE>>,
  true satisfies SameKeys<keyof JobSummary, RowKeys<typeof JOB_SUMMARY>>,
  true satisfies SameKeys<keyof TaskGroupSummary, RowKeys<typeof TASK_GROUP_SUMMARY>>,
  // The job's row is the whole struct; the snapshot checks a part of it.
  true satisfies SameKeys<keyof Job, FieldNames<typeof JOB>>,
  true satisfies Within<RowKeys<typeof EVALUATION>, keyof Evaluation>,
  true satisfies Within<keyof Evaluation, FieldNames<typeof EVALUATION>>,
  true satisfies Within<RowKeys<typeof ALLOCATION>, keyof Allocation>,
  true satisfies Within<keyof Allocation, FieldNames<typeof ALLOCATION>>,
  true satisfies SameKeys<keyof Node, RowKeys<typeof NODE>>,
];

describe("the declarations", () => {
  it("hold the model's types (keys checked at compile time)", () => {
    expect(modelKeys.every(Boolean)).toBe(true);
    expect(rowFieldNames(DEPLOYMENT)).toEqual(["ID", "Namespace", "JobID", "JobVersion", "JobModifyIndex", "JobSpecModifyIndex", "JobCreateIndex", "IsMultiregion", "TaskGroups", "Status", "StatusDescription", "EvalPriority", "CreateIndex", "ModifyIndex", "CreateTime", "ModifyTime"]);
  });

  it("refuse a field declared twice", () => {
    expect(() => struct("structs.X", "x", [field("A", "int", "a"), field("A", "string", "a")])).toThrow("structs.X declares A twice");
  });

  it.each(DECLARED_STRUCTS.map((decl) => [decl.name, decl] as const))("give %s one filter schema, its fields in declaration order, each with a doc line", (name, decl) => {
    const schema = schemaOf(decl);
    expect(schemaOf(decl)).toBe(schema);
    expect(schema.typeName).toBe(name);
    expect(Object.keys(schema.fields)).toEqual(decl.fields.map((each) => each.name));
    for (const each of decl.fields) expect(fieldDoc(name, each.name)).toMatch(/^\S.*: \S/);
  });

  it("are what the agent filters on: the shipped schemas and the lists' targets derive from them", () => {
    expect(schemas.deployment).toBe(schemaOf(DEPLOYMENT));
    expect(schemas.job.fields.TaskGroups).toEqual(schemaOf(JOB).fields.TaskGroups);
    expect(evaluationFilterTarget).toBe(schemaOf(EVALUATION));
    expect(Object.keys(allocationFilterTarget.fields)).toEqual([...ALLOCATION.fields.map((each) => each.name), "JobType", "JobVersion"]);
    expect(allocationFilterTarget.fields.JobVersion).toBe("uint");
    expect(Object.keys(nodeFilterTarget.fields).slice(-3)).toEqual(["Drain", "Address", "Version"]);
  });

  it("map Go types to the filter's kinds: durations and times since the epoch are int, indexes uint, untyped values any", () => {
    const decl = struct("structs.Kinds", "kinds", [
      field("D", "duration", "d"),
      field("N", "nanotime", "n"),
      field("I", "index", "i"),
      field("T", "time", "t"),
      field("U", untyped("*Opaque"), "u"),
      field("P", ptr("bool"), "p"),
      field("L", slice(untyped("*Opaque")), "l"),
      field("M", map("string"), "m"),
    ]);
    expect(schemaOf(decl).fields).toEqual({ D: "int", N: "int", I: "uint", T: "time", U: "any", P: "bool", L: { kind: "array", items: "any" }, M: { kind: "map", values: "string" } });
  });

  it("give the snapshot's checks from the row rules", () => {
    expect(rowChecks(EVALUATION)).toMatchObject({ ID: "string", JobModifyIndex: "index", DeploymentID: "string?", Status: ["pending", "complete", "failed", "canceled", "blocked"], QueuedAllocations: "object?", CreateTime: "nanoseconds?" });
    expect(rowChecks(JOB)).toMatchObject({ Datacenters: "strings", TaskGroups: "array", Update: "object|null", Periodic: "object|null", SubmitTime: "nanoseconds" });
    expect(Object.keys(rowChecks(ALLOCATION)).slice(-3)).toEqual(["JobType", "JobVersion", "TaskRun"]);
  });
});

describe("present: the reference's JSON of a struct", () => {
  const INNER = struct("structs.Inner", "inner", [field("A", "int", "a"), field("B", ptr("bool"), "b")]);
  const OUTER = struct("structs.Outer", "outer", [
    field("Text", "string", "t"),
    field("Count", "int", "c"),
    field("When", "time", "w"),
    field("Pointer", ptr(INNER), "p"),
    field("Value", INNER, "v"),
    field("List", slice(ptr(INNER)), "l"),
    field("Map", map("string"), "m"),
    field("Opaque", untyped("*Opaque"), "o"),
  ]);
  const OMITTING = struct("structs.Omitting", "omitting", OUTER.fields, { omitempty: true });

  it("writes every field in declaration order, a missing one at its zero value, nested structs likewise, an unset time null", () => {
    const written = present(OUTER, { Map: { k: "v" }, Count: 3, Extra: true, When: "", List: [{ B: true }], Opaque: { Kept: { As: "is" } } });
    expect(written).toStrictEqual({
      Text: "",
      Count: 3,
      When: null,
      Pointer: null,
      Value: { A: 0, B: null },
      List: [{ A: 0, B: true }],
      Map: { k: "v" },
      Opaque: { Kept: { As: "is" } },
    });
    expect(Object.keys(written)).toEqual(OUTER.fields.map((each) => each.name));
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ["all empty", {}, []],
    ["a nil pointer is left out, one to a zero struct kept", { Pointer: { A: 0 } }, ["Pointer"]],
    ["a struct held by value is left out when all zero", { Value: { A: 0, B: null } }, []],
    ["a struct held by value is kept when a field is set", { Value: { A: 1 } }, ["Value"]],
    ["an empty list or map is left out", { List: [], Map: {} }, []],
    ["zero, empty text and a zero time are left out", { Count: 0, Text: "", When: "" }, []],
    ["an untyped pointer is left out only when nil", { Opaque: {} }, ["Opaque"]],
  ])("leaves out what omitempty leaves out: %s", (_name, row, kept) => {
    expect(Object.keys(present(OMITTING, row))).toEqual(kept);
  });

  it("writes a stub's omitempty field only when set", () => {
    expect(Object.keys(present(ALLOC_LIST_STUB, { AllocatedResources: null }))).not.toContain("AllocatedResources");
    // Set, it is written as Go writes the struct: every field, zero values filled in.
    expect(present(ALLOC_LIST_STUB, { AllocatedResources: { Shared: {} } }).AllocatedResources).toEqual({ Tasks: null, TaskLifecycles: null, Shared: { DiskMB: 0, Networks: null, Ports: null } });
  });
});

describe("overlay and fill: the API's Merge and Canonicalize", () => {
  it("lays the given block's set fields over the base's, a null field keeping the base's", () => {
    expect(overlay(UPDATE_STRATEGY, { MaxParallel: 1, Canary: 0 }, { Canary: 2, MaxParallel: null, HealthCheck: "manual" })).toStrictEqual({ MaxParallel: 1, HealthCheck: "manual", Canary: 2 });
  });

  it("fills a block's unset fields with the defaults, then the zero values, in the struct's order", () => {
    expect(fill(UPDATE_STRATEGY, { ProgressDeadline: 5 }, { MaxParallel: 1 })).toStrictEqual({
      Stagger: 0,
      MaxParallel: 1,
      HealthCheck: "",
      MinHealthyTime: 0,
      HealthyDeadline: 0,
      ProgressDeadline: 5,
      AutoRevert: false,
      AutoPromote: false,
      Canary: 0,
    });
  });
});
