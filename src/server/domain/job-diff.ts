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
 * @module
 */
import { compareStrings } from "../../go/order.js";
import { goQuote } from "../../go/strings.js";
import type { Job, JsonObject } from "../state/model.js";
import { invalid } from "./errors.js";
import { presentJob } from "./present.js";

/** How a field, object, task, group or job changed (the reference's `DiffType`). */
export type DiffType = "None" | "Added" | "Deleted" | "Edited";

/** A change of one primitive field (`structs.FieldDiff`); Old and New are `""` where absent. */
export interface FieldDiff {
  readonly Type: DiffType;
  readonly Name: string;
  readonly Old: string;
  readonly New: string;
  /** Set by the reference's scheduler in a plan (`forces create/destroy update`); null here. */
  readonly Annotations: readonly string[] | null;
}

/** A change of a nested object (`structs.ObjectDiff`); empty lists are null, as the reference's nil slices. */
export interface ObjectDiff {
  readonly Type: DiffType;
  readonly Name: string;
  readonly Fields: readonly FieldDiff[] | null;
  readonly Objects: readonly ObjectDiff[] | null;
}

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
 * How many generic objects deep (below a job, group or task) a diff descends before it compares a
 * nested value whole, as JSON text in one field. Jobs come from users; the reference's deepest
 * hand-written diffs (a service's Connect proxy upstreams) are about six objects deep.
 */
export const MAX_DIFF_DEPTH = 8;

/**
 * The diff of two versions of a job, as the reference's `Job.Diff(other, contextual)`: `older`
 * is the earlier version, `newer` the later. `GET /v1/job/<id>/versions?diffs=true` diffs each
 * version against the one before it with `contextual` true.
 *
 * @example
 * diffJobs(v0, v1, true).Fields // [{ Type: "Edited", Name: "Priority", Old: "50", New: "70", Annotations: null }]
 * @throws a Refusal (invalid) when the jobs' IDs differ, with the reference's text.
 */
export function diffJobs(older: Job, newer: Job, contextual = false): JobDiff {
  if (older.ID !== newer.ID) throw invalid(`can not diff jobs with different IDs: ${goQuote(older.ID)} and ${goQuote(newer.ID)}`);
  const before = presentJob(older);
  const after = presentJob(newer);
  const fields = fieldDiffs(flattenPrimitive(before, JOB_IGNORED), flattenPrimitive(after, JOB_IGNORED), false);
  const objects = diffMembers(JOB_MEMBERS, before, after, contextual);
  const groups = diffNamed(elements(before.TaskGroups), elements(after.TaskGroups), (a, b) => diffTaskGroup(a, b, contextual));
  const changed = fields.length > 0 || objects.some((diff) => diff.Type !== "None") || groups.some((diff) => diff.Type !== "None");
  return { Type: changed ? "Edited" : "None", ID: newer.ID, Fields: orNull(fields), Objects: orNull(objects), TaskGroups: orNull(groups) };
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

// ---------------------------------------------------------------------------------------------
// Named object diffs

/** How list elements are matched between versions: by position, by content, or by a field. */
type ListKey = { readonly by: "index" } | { readonly by: "content" } | { readonly by: "field"; readonly field: string };

/** How the elements of a list of objects are named and matched, by the list's field name. */
interface ListRule {
  readonly name: string;
  readonly key: ListKey;
}

/**
 * The lists of objects the diff knows, wherever they appear; any other list of objects is matched
 * by position and its elements named by the list's field.
 */
const LIST_RULES: { readonly [field: string]: ListRule } = {
  Services: { name: "Service", key: { by: "field", field: "Name" } },
  Checks: { name: "Check", key: { by: "field", field: "Name" } },
  Networks: { name: "Network", key: { by: "content" } },
  Templates: { name: "Template", key: { by: "field", field: "DestPath" } },
  Secrets: { name: "Secret", key: { by: "field", field: "Name" } },
  Identities: { name: "Identity", key: { by: "field", field: "Name" } },
  Actions: { name: "Action", key: { by: "index" } },
  VolumeMounts: { name: "VolumeMount", key: { by: "index" } },
  Regions: { name: "Region", key: { by: "field", field: "Name" } },
  Devices: { name: "Device", key: { by: "index" } },
};

/** A member of a job, group or task with its own diff, by the reference's function for it. */
type MemberRule =
  /** `stringSetDiff`, shown only when changed (`Datacenters`). */
  | { readonly kind: "strings"; readonly field: string; readonly name: string }
  /** `primitiveObjectSetDiff`: objects matched by `key` (their `DiffID` or content), each a `primitiveObjectDiff`. */
  | { readonly kind: "set"; readonly field: string; readonly name: string; readonly key: ListKey }
  /** `primitiveObjectDiff`: the object's primitive fields; its type follows from theirs. */
  | { readonly kind: "primitive"; readonly field: string; readonly name: string; readonly ignored?: ReadonlySet<string> }
  /** A hand-written diff of the reference, approximated by {@link structDiff}. */
  | { readonly kind: "struct"; readonly field: string; readonly name: string; readonly ignored?: ReadonlySet<string> }
  /** A list of objects, as `LIST_RULES` names and matches it. */
  | { readonly kind: "list"; readonly field: string }
  /** A map of objects (`Volumes`), one object per key. */
  | { readonly kind: "map"; readonly field: string; readonly name: string }
  /** `configDiff`: a free-form map, fully flattened. */
  | { readonly kind: "config"; readonly field: string; readonly name: string }
  /** `periodicDiff`. */
  | { readonly kind: "periodic"; readonly field: string; readonly name: string }
  /** `parameterizedJobDiff`. */
  | { readonly kind: "parameterized"; readonly field: string; readonly name: string };

/** `Job.Diff`'s objects, in its order. */
const JOB_MEMBERS: readonly MemberRule[] = [
  { kind: "strings", field: "Datacenters", name: "Datacenters" },
  { kind: "set", field: "Constraints", name: "Constraint", key: { by: "content" } },
  { kind: "set", field: "Affinities", name: "Affinity", key: { by: "content" } },
  { kind: "periodic", field: "Periodic", name: "Periodic" },
  { kind: "parameterized", field: "ParameterizedJob", name: "ParameterizedJob" },
  { kind: "struct", field: "Multiregion", name: "Multiregion" },
  { kind: "struct", field: "UI", name: "UI" },
];

/** `TaskGroup.Diff`'s objects, in its order (then its tasks). */
const GROUP_MEMBERS: readonly MemberRule[] = [
  { kind: "set", field: "Constraints", name: "Constraint", key: { by: "content" } },
  { kind: "set", field: "Affinities", name: "Affinity", key: { by: "content" } },
  { kind: "primitive", field: "RestartPolicy", name: "RestartPolicy" },
  { kind: "primitive", field: "Migrate", name: "Migrate" },
  { kind: "primitive", field: "ReschedulePolicy", name: "ReschedulePolicy" },
  { kind: "primitive", field: "EphemeralDisk", name: "EphemeralDisk" },
  { kind: "primitive", field: "Consul", name: "Consul" },
  // The reference leaves out the deprecated Stagger.
  { kind: "primitive", field: "Update", name: "Update", ignored: new Set(["Stagger"]) },
  { kind: "struct", field: "Disconnect", name: "Disconnect" },
  { kind: "list", field: "Networks" },
  // What the server sets (IDs, indexes, the type and the target) is no change of the spec.
  { kind: "struct", field: "Scaling", name: "Scaling", ignored: new Set(["CreateIndex", "ModifyIndex", "ID", "Type", "Target[Job]", "Target[Group]", "Target[Namespace]"]) },
  { kind: "list", field: "Services" },
  { kind: "map", field: "Volumes", name: "Volume" },
];

/** `Task.Diff`'s objects, in its order. */
const TASK_MEMBERS: readonly MemberRule[] = [
  { kind: "set", field: "Constraints", name: "Constraint", key: { by: "content" } },
  { kind: "set", field: "Affinities", name: "Affinity", key: { by: "content" } },
  { kind: "config", field: "Config", name: "Config" },
  { kind: "struct", field: "Resources", name: "Resources" },
  { kind: "primitive", field: "LogConfig", name: "LogConfig" },
  { kind: "primitive", field: "DispatchPayload", name: "DispatchPayload" },
  { kind: "set", field: "Artifacts", name: "Artifact", key: { by: "field", field: "RelativeDest" } },
  { kind: "list", field: "Services" },
  { kind: "struct", field: "Vault", name: "Vault" },
  { kind: "list", field: "Secrets" },
  { kind: "primitive", field: "Consul", name: "Consul" },
  { kind: "list", field: "Templates" },
  { kind: "struct", field: "Identity", name: "Identity" },
  { kind: "list", field: "Identities" },
  { kind: "list", field: "Actions" },
  { kind: "list", field: "VolumeMounts" },
  { kind: "struct", field: "Schedule", name: "Schedule" },
];

/** The object diffs of a job's, group's or task's members, in the rules' order. */
function diffMembers(rules: readonly MemberRule[], older: JsonObject, newer: JsonObject, contextual: boolean): ObjectDiff[] {
  const diffs: ObjectDiff[] = [];
  const add = (diff: ObjectDiff | null) => {
    if (diff !== null) diffs.push(diff);
  };
  for (const rule of rules) {
    const before = older[rule.field];
    const after = newer[rule.field];
    switch (rule.kind) {
      case "strings": {
        const diff = stringSetDiff(elements(before), elements(after), rule.name, contextual);
        if (diff !== null && diff.Type !== "None") diffs.push(diff);
        break;
      }
      case "set":
        diffs.push(...keyedDiffs(elements(before), elements(after), rule.key, (a, b) => primitiveObjectDiff(a, b, rule.name, contextual)));
        break;
      case "primitive":
        add(primitiveObjectDiff(before, after, rule.name, contextual, rule.ignored));
        break;
      case "struct":
        add(structDiff(before, after, rule.name, contextual, 1, rule.ignored));
        break;
      case "list":
        diffs.push(...listDiffs(rule.field, elements(before), elements(after), contextual, 1));
        break;
      case "map":
        diffs.push(...mapDiffs(before, after, rule.name, contextual));
        break;
      case "config":
        add(configDiff(before, after, rule.name, contextual));
        break;
      case "periodic":
        add(periodicDiff(before, after, rule.name, contextual));
        break;
      case "parameterized":
        add(parameterizedDiff(before, after, rule.name, contextual));
        break;
      default:
        return unreachableRule(rule);
    }
  }
  return diffs;
}

function unreachableRule(rule: never): never {
  throw new TypeError(`no such kind of member rule: ${JSON.stringify(rule)}`);
}

/**
 * `primitiveObjectDiff`: the primitive fields of two objects (either may be absent); the type
 * follows from the fields' (any Edited, or Added and Deleted: Edited), none when nothing changed.
 */
function primitiveObjectDiff(older: unknown, newer: unknown, name: string, contextual: boolean, ignored?: ReadonlySet<string>): ObjectDiff | null {
  const fields = fieldDiffs(flattenPrimitive(older, ignored), flattenPrimitive(newer, ignored), contextual);
  let added = false;
  let deleted = false;
  for (const field of fields) {
    if (field.Type === "Edited") return objectDiff("Edited", name, fields, []);
    added ||= field.Type === "Added";
    deleted ||= field.Type === "Deleted";
  }
  if (added && deleted) return objectDiff("Edited", name, fields, []);
  if (added) return objectDiff("Added", name, fields, []);
  if (deleted) return objectDiff("Deleted", name, fields, []);
  return null;
}

/** `periodicDiff`: the primitive fields, and the `Specs` set when it changed. */
function periodicDiff(older: unknown, newer: unknown, name: string, contextual: boolean): ObjectDiff | null {
  if (sameJson(older, newer)) return null;
  const specs = stringSetDiff(elements(field(older, "Specs")), elements(field(newer, "Specs")), "Specs", contextual);
  const fields = fieldDiffs(flattenPrimitive(older), flattenPrimitive(newer), contextual);
  return objectDiff(sideType(older, newer), name, fields, specs !== null && specs.Type !== "None" ? [specs] : []);
}

/** `parameterizedJobDiff`: the primitive fields, then the `MetaOptional` and `MetaRequired` sets. */
function parameterizedDiff(older: unknown, newer: unknown, name: string, contextual: boolean): ObjectDiff | null {
  if (sameJson(older, newer)) return null;
  const objects = ["MetaOptional", "MetaRequired"].map((set) => stringSetDiff(elements(field(older, set)), elements(field(newer, set)), set, contextual));
  const fields = fieldDiffs(flattenPrimitive(older), flattenPrimitive(newer), contextual);
  return objectDiff(sideType(older, newer), name, fields, objects.filter((diff) => diff !== null));
}

/** `configDiff`: a free-form map (`map[string]any`), flattened whole. */
function configDiff(older: unknown, newer: unknown, name: string, contextual: boolean): ObjectDiff | null {
  if (sameJson(older, newer)) return null;
  const type: DiffType = size(older) === 0 ? "Added" : size(newer) === 0 ? "Deleted" : "Edited";
  return objectDiff(type, name, fieldDiffs(flattenFree(older), flattenFree(newer), contextual), []);
}

/** A map of objects (a group's `Volumes`): one object per key, sorted. */
function mapDiffs(older: unknown, newer: unknown, name: string, contextual: boolean): ObjectDiff[] {
  const before = isObject(older) ? older : {};
  const after = isObject(newer) ? newer : {};
  const diffs: ObjectDiff[] = [];
  for (const key of unionKeys(before, after)) {
    const diff = structDiff(before[key], after[key], name, contextual, 1);
    if (diff !== null) diffs.push(diff);
  }
  return diffs.sort(compareObjectDiffs);
}

/**
 * An object the reference diffs by hand, approximated: its primitive fields (less `ignored`),
 * then one diff per nested object (named by its field), string list (a set) or object list (as
 * `LIST_RULES` says), sorted. `depth` counts the objects above it, below the job, group or
 * task; past {@link MAX_DIFF_DEPTH}, nested values are compared whole, as fields of JSON text.
 */
function structDiff(older: unknown, newer: unknown, name: string, contextual: boolean, depth: number, ignored: ReadonlySet<string> = NOTHING): ObjectDiff | null {
  if (sameJson(older, newer)) return null;
  const before = isObject(older) ? older : {};
  const after = isObject(newer) ? newer : {};
  const beforeFlat = flattenPrimitive(before, ignored);
  const afterFlat = flattenPrimitive(after, ignored);
  const objects: ObjectDiff[] = [];
  for (const key of unionKeys(before, after)) {
    const a = before[key];
    const b = after[key];
    if (ignored.has(key) || !(isNested(key, a) || isNested(key, b))) continue;
    if (depth >= MAX_DIFF_DEPTH) {
      beforeFlat.set(key, wholeText(a));
      afterFlat.set(key, wholeText(b));
    } else if (Array.isArray(a) || Array.isArray(b)) {
      const list = [...elements(a), ...elements(b)];
      if (list.every(isPrimitive)) {
        const diff = stringSetDiff(elements(a), elements(b), key, contextual);
        if (diff !== null) objects.push(diff);
      } else objects.push(...listDiffs(key, elements(a), elements(b), contextual, depth + 1));
    } else {
      const diff = structDiff(a, b, key, contextual, depth + 1);
      if (diff !== null) objects.push(diff);
    }
  }
  return objectDiff(sideType(older, newer), name, fieldDiffs(beforeFlat, afterFlat, contextual), objects.sort(compareObjectDiffs));
}

/** A list of objects: its elements matched as `LIST_RULES` says, each a {@link structDiff}. */
function listDiffs(field: string, older: readonly unknown[], newer: readonly unknown[], contextual: boolean, depth: number): ObjectDiff[] {
  const rule = LIST_RULES[field] ?? { name: field, key: { by: "index" } };
  return keyedDiffs(older, newer, rule.key, (a, b) => structDiff(a, b, rule.name, contextual, depth));
}

/**
 * Elements of two lists matched by key (through maps: linear), diffed by `diff` (deleted and
 * edited ones, then added ones), sorted as the reference sorts `ObjectDiffs`. Equal keys within
 * a list are told apart by their order of appearance.
 */
function keyedDiffs(older: readonly unknown[], newer: readonly unknown[], key: ListKey, diff: (older: unknown, newer: unknown) => ObjectDiff | null): ObjectDiff[] {
  const before = keyElements(older, key);
  const after = keyElements(newer, key);
  const diffs: ObjectDiff[] = [];
  for (const [name, element] of before) {
    const result = diff(element, after.get(name));
    if (result !== null) diffs.push(result);
  }
  for (const [name, element] of after) {
    if (before.has(name)) continue;
    const result = diff(undefined, element);
    if (result !== null) diffs.push(result);
  }
  return diffs.sort(compareObjectDiffs);
}

function keyElements(list: readonly unknown[], key: ListKey): Map<string, unknown> {
  const keyed = new Map<string, unknown>();
  const seen = new Map<string, number>();
  list.forEach((element, index) => {
    let name: string;
    if (key.by === "index") name = String(index);
    else {
      const value = key.by === "field" ? field(element, key.field) : undefined;
      // A field that is empty falls back to the content, as the reference's `DiffID` falls back to a hash.
      name = typeof value === "string" && value !== "" ? `=${value}` : `#${canonicalText(element)}`;
    }
    const count = seen.get(name) ?? 0;
    seen.set(name, count + 1);
    keyed.set(count === 0 ? name : `${name}\u0000${count}`, element);
  });
  return keyed;
}

/**
 * `stringSetDiff`: two lists as sets of their elements' text. Null when they are equal (unless
 * `contextual`, which gives Type None with each element a None field) or both empty.
 */
function stringSetDiff(older: readonly unknown[], newer: readonly unknown[], name: string, contextual: boolean): ObjectDiff | null {
  const before = new Set(older.map(elementText));
  const after = new Set(newer.map(elementText));
  const fields: FieldDiff[] = [];
  let added = false;
  let removed = false;
  const add = (diff: FieldDiff | null) => {
    if (diff !== null) fields.push(diff);
  };
  for (const element of before) {
    if (!after.has(element)) {
      add(fieldDiff(element, "", name, contextual));
      removed = true;
    } else if (contextual) add(fieldDiff(element, element, name, contextual));
  }
  for (const element of after) {
    if (before.has(element)) continue;
    add(fieldDiff("", element, name, contextual));
    added = true;
  }
  const type: DiffType = added && removed ? "Edited" : added ? "Added" : removed ? "Deleted" : "None";
  if (type === "None" && (!contextual || fields.length === 0)) return null;
  return objectDiff(type, name, fields.sort(compareFieldDiffs), []);
}

/** An object's type from which side is missing. */
function sideType(older: unknown, newer: unknown): DiffType {
  if (isAbsent(older)) return "Added";
  if (isAbsent(newer)) return "Deleted";
  return "Edited";
}

function objectDiff(type: DiffType, name: string, fields: readonly FieldDiff[], objects: readonly ObjectDiff[]): ObjectDiff {
  return { Type: type, Name: name, Fields: orNull(fields), Objects: orNull(objects) };
}

// ---------------------------------------------------------------------------------------------
// Fields

/** Field paths to their values' text, as `flatmap.Flatten` gives them. */
type Flat = Map<string, string>;

const NOTHING: ReadonlySet<string> = new Set();

/** The `map[string]string` fields of the reference's structs, which flatmap keeps as `Name[key]` fields. */
const STRING_MAPS: ReadonlySet<string> = new Set(["Meta", "Env", "GetterOptions", "GetterHeaders", "Target", "CanaryMeta", "TaggedAddresses"]);

/**
 * `flatmap.Flatten(struct, ignored, true)`: the object's primitive fields, and its string maps as
 * `Name[key]`; nested objects and lists are left out. An absent object has no fields.
 */
function flattenPrimitive(object: unknown, ignored: ReadonlySet<string> = NOTHING): Flat {
  const flat: Flat = new Map();
  if (!isObject(object)) return flat;
  for (const [name, value] of Object.entries(object)) {
    if (isPrimitive(value)) flat.set(name, formatValue(value));
    else if (STRING_MAPS.has(name) && isObject(value)) {
      for (const [key, item] of Object.entries(value)) flat.set(`${name}[${key}]`, isPrimitive(item) ? formatValue(item) : canonicalText(item));
    }
  }
  for (const name of ignored) flat.delete(name);
  return flat;
}

/**
 * `flatmap.Flatten(map, nil, false)` of a free-form map: top-level keys bare, then `[key]` and
 * `[index]`, null as `nil`; deeper than {@link MAX_DIFF_DEPTH} levels, a value's JSON text.
 */
function flattenFree(value: unknown): Flat {
  const flat: Flat = new Map();
  const walk = (item: unknown, path: string, depth: number): void => {
    if (isAbsent(item)) flat.set(path, "nil");
    else if (isPrimitive(item)) flat.set(path, formatFree(item));
    else if (depth > MAX_DIFF_DEPTH) flat.set(path, canonicalText(item));
    else if (Array.isArray(item)) item.forEach((element, index) => walk(element, `${path}[${index}]`, depth + 1));
    else for (const [key, element] of Object.entries(item as JsonObject)) walk(element, path === "" ? key : `${path}[${key}]`, depth + 1);
  };
  if (isObject(value)) for (const [key, element] of Object.entries(value)) walk(element, key, 1);
  return flat;
}

/** `fieldDiff`: none when equal (unless `contextual`), Added from `""`, Deleted to `""`, else Edited. */
function fieldDiff(older: string, newer: string, name: string, contextual: boolean): FieldDiff | null {
  if (older === newer) return contextual ? { Type: "None", Name: name, Old: older, New: newer, Annotations: null } : null;
  const type: DiffType = older === "" ? "Added" : newer === "" ? "Deleted" : "Edited";
  return { Type: type, Name: name, Old: older, New: newer, Annotations: null };
}

/** `fieldDiffs`: every path of either side (a missing one is `""`), sorted. */
function fieldDiffs(older: Flat, newer: Flat, contextual: boolean): FieldDiff[] {
  const diffs: FieldDiff[] = [];
  for (const [name, value] of older) {
    const diff = fieldDiff(value, newer.get(name) ?? "", name, contextual);
    if (diff !== null) diffs.push(diff);
  }
  for (const [name, value] of newer) {
    if (older.has(name)) continue;
    const diff = fieldDiff("", value, name, contextual);
    if (diff !== null) diffs.push(diff);
  }
  return diffs.sort(compareFieldDiffs);
}

// ---------------------------------------------------------------------------------------------
// Order: the reference's `FieldDiff.Less` and `ObjectDiff.Less`, with Go's string order

/** `DiffType.Less` sorts Edited, then Added, then Deleted, then None. */
const TYPE_ORDER: { readonly [type in DiffType]: number } = { Edited: 0, Added: 1, Deleted: 2, None: 3 };

function compareFieldDiffs(a: FieldDiff, b: FieldDiff): number {
  return compareStrings(a.Name, b.Name) || compareStrings(a.Old, b.Old) || compareStrings(a.New, b.New);
}

/** By name, type, number of fields, number of objects, then the fields and objects themselves. */
function compareObjectDiffs(a: ObjectDiff, b: ObjectDiff): number {
  const byShape =
    compareStrings(a.Name, b.Name) ||
    TYPE_ORDER[a.Type] - TYPE_ORDER[b.Type] ||
    (a.Fields?.length ?? 0) - (b.Fields?.length ?? 0) ||
    (a.Objects?.length ?? 0) - (b.Objects?.length ?? 0);
  if (byShape !== 0) return byShape;
  const fields = a.Fields ?? [];
  for (let i = 0; i < fields.length; i++) {
    const order = compareFieldDiffs(fields[i]!, b.Fields![i]!);
    if (order !== 0) return order;
  }
  const objects = a.Objects ?? [];
  for (let i = 0; i < objects.length; i++) {
    const order = compareObjectDiffs(objects[i]!, b.Objects![i]!);
    if (order !== 0) return order;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Values

type Primitive = string | number | boolean | bigint;

function isPrimitive(value: unknown): value is Primitive {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" || typeof value === "bigint";
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A nil pointer, slice or map. */
function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** Whether a member is an object or list of its own (a string map is fields). */
function isNested(key: string, value: unknown): boolean {
  return Array.isArray(value) || (isObject(value) && !STRING_MAPS.has(key));
}

function field(object: unknown, name: string): unknown {
  return isObject(object) ? object[name] : undefined;
}

function elements(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function size(value: unknown): number {
  return isObject(value) ? Object.keys(value).length : 0;
}

function unionKeys(a: JsonObject, b: JsonObject): string[] {
  return [...Object.keys(a), ...Object.keys(b).filter((key) => !Object.hasOwn(a, key))];
}

function orNull<T>(list: readonly T[]): readonly T[] | null {
  return list.length === 0 ? null : list;
}

/** A struct field's value as Go's `%v` writes it: integers in decimal, other numbers as a float64. */
function formatValue(value: Primitive): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  return Number.isSafeInteger(value) ? String(value) : formatGoFloat(value);
}

/** A free-form map's value: Go decodes JSON numbers there as float64. */
function formatFree(value: Primitive): string {
  if (typeof value === "number" || typeof value === "bigint") return formatGoFloat(Number(value));
  return formatValue(value);
}

/**
 * Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest digits, in
 * exponent form when the exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`).
 */
function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(value);
  return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

/** A string set's element as text. */
function elementText(value: unknown): string {
  return isPrimitive(value) ? formatValue(value) : canonicalText(value);
}

/** A pointer's or a value compared whole (past the depth limit): its text, `""` when absent (nil). */
function wholeText(value: unknown): string {
  if (isAbsent(value)) return "";
  return isPrimitive(value) ? formatValue(value) : canonicalText(value);
}

/** JSON text with object keys sorted, so equal values (whatever their key order) have equal text. */
function canonicalText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort(compareStrings);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalText(value[key])}`).join(",")}}`;
  }
  if (typeof value === "bigint") return value.toString();
  return JSON.stringify(value) ?? "null";
}

/** The reference's `reflect.DeepEqual` of two decoded JSON values (a nil and a missing value are equal). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b || (isAbsent(a) && isAbsent(b))) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((element, i) => sameJson(element, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
}
