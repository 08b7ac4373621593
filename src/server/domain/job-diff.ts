/**
 * Job version diffs as the reference computes them (`Job.Diff` in nomad/structs/diff.go), for
 * `GET /v1/job/<id>/versions?diffs=true`: the reference's `Job.GetJobVersions`
 * (nomad/job_endpoint.go) diffs each version against the one before it, newest first, with
 * `contextual` set, and answers the diffs as `JobVersionsResponse.Diffs`.
 *
 * Both jobs are first presented as the reference stores them ({@link presentJob}: every field of
 * its structs, a group's update block inherited from the job, the type's restart and reschedule
 * policies), so the diff sees what the reference's diff sees.
 *
 * What follows the reference:
 * - Primitive fields are flattened as `flatmap.Flatten(…, primitiveOnly)` does: the struct's own
 *   strings, numbers and booleans (as Go's `%v` writes them: `"50"`, `"true"`) and its
 *   `map[string]string` fields as `Meta[key]`; nested structs, pointers and slices are left to
 *   object diffs. A field whose old value is `""` is Added, whose new value is `""` Deleted.
 * - The job ignores `ID`, `Status`, `StatusDescription`, `Version`, `Stable`, `CreateIndex`,
 *   `ModifyIndex`, `JobModifyIndex`, `Update` (the reference copies it into each group, where it
 *   is diffed), `SubmitTime`, `NomadTokenID` and `VaultToken`; a group ignores `Name` and adds its
 *   `ShutdownDelay` pointer; a task ignores `Name` and `Config` (diffed as the `Config` object).
 * - Job, group and task fields are never contextual; `contextual` adds the unchanged fields
 *   (Type None) inside an object that changed, and the kept members of a changed string set.
 *   Groups and tasks are matched by Name and always listed, unchanged ones with Type None.
 * - Named object diffs in the reference's order: the job's `Datacenters` (a string set, only when
 *   changed), `Constraint` and `Affinity` sets, `Periodic` (with its `Specs` set),
 *   `ParameterizedJob` (with `MetaOptional` and `MetaRequired`), `Multiregion`, `UI`; a group's
 *   `Constraint`, `Affinity`, `RestartPolicy`, `Migrate`, `ReschedulePolicy`, `EphemeralDisk`,
 *   `Consul`, `Update` (without `Stagger`), `Disconnect`, `Network`s, `Scaling`, `Service`s,
 *   `Volume`s; a task's `Constraint`, `Affinity`, `Config` (fully flattened: `image`, `args[0]`,
 *   `auth[username]`, numbers as Go's float64), `Resources`, `LogConfig`, `DispatchPayload`,
 *   `Artifact`s, `Service`s, `Vault`, `Secret`s, `Consul`, `Template`s, `Identity`,
 *   `Identities`, `Action`s, `VolumeMount`s, `Schedule`. The job's, a group's and a task's object
 *   lists keep that order (the reference does not sort them); fields, and the objects of one set or
 *   list, are sorted as its `FieldDiffs` and `ObjectDiffs` sort them.
 * - An object's type: for the reference's `primitiveObjectDiff` (`Update`, `RestartPolicy`,
 *   `Constraint`…) it follows from its fields (only Added fields: Added…); for the others, from
 *   which side is missing. A group or task is Edited when it differs at all, even in a field the
 *   diff does not show (`Spreads`); the job is Edited only when something it lists changed, so a
 *   change to the job's `Spreads` alone is no change, as in the reference.
 *
 * Where it approximates (the reference has hand-written diffs for each of these structs):
 * - `Disconnect`, `Scaling` (without its IDs, type and target), `Resources`, `Vault`, `Identity`,
 *   `Schedule`, `Multiregion`, `UI`, each `Volume`, and every object inside a service, network,
 *   template and so on, are diffed generically: primitive fields as above, nested objects as
 *   ObjectDiffs named by their field, lists of strings as string sets (Nomad's `Tags`, `Args`…),
 *   lists of objects element by element (see `LIST_RULES`). Names of the reference's
 *   special objects inside them (`Static Port`, `ConsulConnect`, `Check`'s `Header`…) differ.
 * - List elements are matched by a key, not by the reference's scoring: services by `Name`
 *   (the reference also matches on port label and position), templates by `DestPath` and
 *   artifacts by `RelativeDest` (their `DiffID`), secrets and identities by `Name`, regions by
 *   `Name`, networks, constraints and affinities by their content (the reference's hash), the
 *   rest by position. Elements with the same key are matched in order of appearance.
 * - Numbers of a struct are written as integers, numbers of a free-form map (`Config`, a
 *   scaling policy) as Go writes a float64 (`1e+06`).
 * - The job's `ConsulToken` (a field of older references) is ignored, as a secret.
 *
 * Bounds: the work is linear in the size of the two jobs times {@link MAX_DIFF_DEPTH}. Members are
 * matched through maps (never pairwise), and a generic object nested deeper than MAX_DIFF_DEPTH
 * objects below its job, group or task (or a `Config` value nested deeper than that many levels)
 * is not descended into: it is compared whole and shown as one field whose Old and New are its
 * JSON text (keys sorted).
 *
 * The fields, their order and the values' text are in `job-diff-fields.ts`; the members of a job,
 * group and task and their object diffs in `job-diff-rules.ts`; this module diffs the job, its
 * groups and its tasks.
 *
 * @module
 */
import { compareStrings } from "../../go/order.js";
import { goQuote } from "../../go/strings.js";
import type { Job, JsonObject } from "../state/model.js";
import { invalid } from "../base/errors.js";
import { elements, fieldDiffs, flattenPrimitive, isObject, orNull, sameJson, wholeText, type DiffType, type FieldDiff, type ObjectDiff } from "./job-diff-fields.js";
import { diffMembers, GROUP_MEMBERS, JOB_MEMBERS, TASK_MEMBERS } from "./job-diff-rules.js";
import { presentJob } from "./present.js";

export { MAX_DIFF_DEPTH, type DiffType, type FieldDiff, type ObjectDiff } from "./job-diff-fields.js";

/** A change of a task, matched by its Name (`structs.TaskDiff`). */
export interface TaskDiff {
  readonly Type: DiffType;
  readonly Name: string;
  readonly Fields: readonly FieldDiff[] | null;
  readonly Objects: readonly ObjectDiff[] | null;
  /** Set by the reference's scheduler in a plan; null in version diffs. */
  readonly Annotations: readonly string[] | null;
}

/** A change of a task group, matched by its Name (`structs.TaskGroupDiff`). */
export interface TaskGroupDiff {
  readonly Type: DiffType;
  readonly Name: string;
  readonly Fields: readonly FieldDiff[] | null;
  readonly Objects: readonly ObjectDiff[] | null;
  readonly Tasks: readonly TaskDiff[] | null;
  /** The scheduler's counts of placements by kind, in a plan; null in version diffs. */
  readonly Updates: { readonly [update: string]: number } | null;
}

/** The change from one version of a job to another (`structs.JobDiff`). */
export interface JobDiff {
  readonly Type: DiffType;
  readonly ID: string;
  readonly Fields: readonly FieldDiff[] | null;
  readonly Objects: readonly ObjectDiff[] | null;
  readonly TaskGroups: readonly TaskGroupDiff[] | null;
}


/**
 * The diff of two versions of a job, as the reference's `Job.Diff(other, contextual)`: `older`
 * is the earlier version, `newer` the later. `GET /v1/job/<id>/versions?diffs=true` diffs each
 * version against the one before it with `contextual` true.
 *
 * @example
 * diffJobs(v0, v1, true).Fields // [{ Type: "Edited", Name: "Priority", Old: "50", New: "70", Annotations: null }]
 * A plan diffs the job as it is (undefined when it does not exist yet: the diff is Added, as the
 * reference's diff of a nil job) against the version planned.
 *
 * @throws a Refusal (invalid) when the jobs' IDs differ, with the reference's text.
 */
export function diffJobs(older: Job | undefined, newer: Job, contextual = false): JobDiff {
  if (older !== undefined && older.ID !== newer.ID) throw invalid(`can not diff jobs with different IDs: ${goQuote(older.ID)} and ${goQuote(newer.ID)}`);
  const before = older === undefined ? {} : presentJob(older);
  const after = presentJob(newer);
  const fields = fieldDiffs(older === undefined ? new Map() : flattenPrimitive(before, JOB_IGNORED), flattenPrimitive(after, JOB_IGNORED), false);
  const objects = diffMembers(JOB_MEMBERS, before, after, contextual);
  const groups = diffNamed(elements(before.TaskGroups), elements(after.TaskGroups), (a, b) => diffTaskGroup(a, b, contextual));
  const changed = fields.length > 0 || objects.some((diff) => diff.Type !== "None") || groups.some((diff) => diff.Type !== "None");
  const type = older === undefined ? "Added" : changed ? "Edited" : "None";
  return { Type: type, ID: newer.ID, Fields: orNull(fields), Objects: orNull(objects), TaskGroups: orNull(groups) };
}

// ---------------------------------------------------------------------------------------------
// Groups and tasks

/** A group's fields left out of its primitive fields: its name, and its pointers (`ShutdownDelay` comes back below). */
const GROUP_IGNORED: ReadonlySet<string> = new Set(["Name", "ShutdownDelay", "MaxRunDuration", "StopAfterClientDisconnect", "MaxClientDisconnect"]);
/** A task's fields left out of its primitive fields (`Config` is its own object). */
const TASK_IGNORED: ReadonlySet<string> = new Set(["Name", "Config"]);
/** The job's fields left out of its primitive fields (the reference's filter, and `ConsulToken`). */
const JOB_IGNORED: ReadonlySet<string> = new Set([
  "ID", "Status", "StatusDescription", "Version", "Stable", "CreateIndex", "ModifyIndex", "JobModifyIndex",
  "Update", "SubmitTime", "NomadTokenID", "VaultToken", "ConsulToken",
]);

/** `TaskGroup.Diff`: `older` or `newer` is undefined when the group was added or deleted. */
function diffTaskGroup(older: JsonObject | undefined, newer: JsonObject | undefined, contextual: boolean): TaskGroupDiff {
  const before = older ?? {};
  const after = newer ?? {};
  const beforeFlat = flattenPrimitive(older, GROUP_IGNORED);
  const afterFlat = flattenPrimitive(newer, GROUP_IGNORED);
  // The one pointer the reference adds back, and only when both groups exist.
  if (older !== undefined && newer !== undefined) {
    beforeFlat.set("ShutdownDelay", wholeText(before.ShutdownDelay));
    afterFlat.set("ShutdownDelay", wholeText(after.ShutdownDelay));
  }
  return {
    Type: changeType(older, newer),
    Name: nameOf((newer ?? older)!),
    Fields: orNull(fieldDiffs(beforeFlat, afterFlat, false)),
    Objects: orNull(diffMembers(GROUP_MEMBERS, before, after, contextual)),
    Tasks: orNull(diffNamed(elements(before.Tasks), elements(after.Tasks), (a, b) => diffTask(a, b, contextual))),
    Updates: null,
  };
}

/** `Task.Diff`: `older` or `newer` is undefined when the task was added or deleted. */
function diffTask(older: JsonObject | undefined, newer: JsonObject | undefined, contextual: boolean): TaskDiff {
  return {
    Type: changeType(older, newer),
    Name: nameOf((newer ?? older)!),
    Fields: orNull(fieldDiffs(flattenPrimitive(older, TASK_IGNORED), flattenPrimitive(newer, TASK_IGNORED), false)),
    Objects: orNull(diffMembers(TASK_MEMBERS, older ?? {}, newer ?? {}, contextual)),
    Annotations: null,
  };
}

/** A group's or task's type: Added, Deleted, or Edited when it differs at all (the reference's `reflect.DeepEqual`). */
function changeType(older: JsonObject | undefined, newer: JsonObject | undefined): DiffType {
  if (older === undefined) return "Added";
  if (newer === undefined) return "Deleted";
  return sameJson(older, newer) ? "None" : "Edited";
}

/** A group's or task's Name, `""` when it has none. */
function nameOf(member: JsonObject): string {
  return typeof member.Name === "string" ? member.Name : "";
}

/**
 * Groups or tasks matched by Name (of equal names the last wins, as in the reference's maps),
 * every one diffed, sorted by Name.
 */
function diffNamed<T extends { readonly Name: string }>(
  older: readonly unknown[],
  newer: readonly unknown[],
  diff: (older: JsonObject | undefined, newer: JsonObject | undefined) => T,
): T[] {
  const byName = (members: readonly unknown[]) => new Map(members.filter(isObject).map((member) => [nameOf(member), member] as const));
  const before = byName(older);
  const after = byName(newer);
  const diffs: T[] = [];
  for (const [name, member] of before) diffs.push(diff(member, after.get(name)));
  for (const [name, member] of after) if (!before.has(name)) diffs.push(diff(undefined, member));
  return diffs.sort((a, b) => compareStrings(a.Name, b.Name));
}

