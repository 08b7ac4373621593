/**
 * The members of a job version diff: which members of a job, a group and a task have their own
 * object diff and by which of the reference's functions ({@link JOB_MEMBERS},
 * {@link GROUP_MEMBERS}, {@link TASK_MEMBERS}), how the elements of lists of objects are matched
 * (`LIST_RULES`), and those object diffs.
 *
 * @module
 */
import {
  canonicalText,
  compareFieldDiffs,
  compareObjectDiffs,
  elements,
  elementText,
  field,
  fieldDiff,
  fieldDiffs,
  flattenFree,
  flattenPrimitive,
  isAbsent,
  isNested,
  isObject,
  isPrimitive,
  MAX_DIFF_DEPTH,
  NOTHING,
  orNull,
  sameJson,
  size,
  unionKeys,
  wholeText,
  type DiffType,
  type FieldDiff,
  type ObjectDiff,
} from "./job-diff-fields.js";
import type { JsonObject } from "../state/model.js";

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
export const JOB_MEMBERS: readonly MemberRule[] = [
  { kind: "strings", field: "Datacenters", name: "Datacenters" },
  { kind: "set", field: "Constraints", name: "Constraint", key: { by: "content" } },
  { kind: "set", field: "Affinities", name: "Affinity", key: { by: "content" } },
  { kind: "periodic", field: "Periodic", name: "Periodic" },
  { kind: "parameterized", field: "ParameterizedJob", name: "ParameterizedJob" },
  { kind: "struct", field: "Multiregion", name: "Multiregion" },
  { kind: "struct", field: "UI", name: "UI" },
];

/** `TaskGroup.Diff`'s objects, in its order (then its tasks). */
export const GROUP_MEMBERS: readonly MemberRule[] = [
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
export const TASK_MEMBERS: readonly MemberRule[] = [
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
export function diffMembers(rules: readonly MemberRule[], older: JsonObject, newer: JsonObject, contextual: boolean): ObjectDiff[] {
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
