/**
 * A plan's job diff annotated as the reference's `scheduler.Annotate` does it
 * (`scheduler/annotate.go`), for `PUT /v1/job/<id>/plan` with `Diff`: each group's non-zero
 * updates by the reference's names, its `Count` field marked as forcing creates or destroys, and
 * each changed task marked as forcing a create, a destroy, an in-place or a destructive update.
 *
 * @module
 */
import type { JobDiff, TaskDiff, TaskGroupDiff } from "./job-diff.js";

/** A group's counts of the scheduler's decisions (`structs.DesiredUpdates`) that a diff shows. */
export interface GroupUpdates {
  readonly Ignore?: number;
  readonly Place?: number;
  readonly Migrate?: number;
  readonly Stop?: number;
  readonly Canary?: number;
  readonly InPlaceUpdate?: number;
  readonly DestructiveUpdate?: number;
}

/** The reference's annotations of a task's change (`annotate.go`). */
const TASK_ANNOTATIONS = {
  create: "forces create",
  destroy: "forces destroy",
  inplace: "forces in-place update",
  destructive: "forces create/destroy update",
} as const;

/** The reference's names of a group's updates in a plan's diff (`UpdateType…`), by the count they show. */
const UPDATE_NAMES: readonly (readonly [keyof GroupUpdates, string])[] = [
  ["Ignore", "ignore"],
  ["Place", "create"],
  ["Migrate", "migrate"],
  ["Stop", "destroy"],
  ["Canary", "canary"],
  ["InPlaceUpdate", "in-place update"],
  ["DestructiveUpdate", "create/destroy update"],
];

/**
 * The job diff annotated with the scheduler's counts of each group.
 *
 * @example
 * annotateDiff(diff, { web: { Place: 3 } }).TaskGroups[0].Updates // { create: 3 }
 */
export function annotateDiff(diff: JobDiff, updates: { readonly [group: string]: GroupUpdates }): JobDiff {
  if (diff.TaskGroups === null || diff.TaskGroups.length === 0) return diff;
  return { ...diff, TaskGroups: diff.TaskGroups.map((group) => annotateGroup(group, updates[group.Name])) };
}

function annotateGroup(group: TaskGroupDiff, updates: GroupUpdates | undefined): TaskGroupDiff {
  let named: Record<string, number> | null = group.Updates === null ? null : { ...group.Updates };
  if (updates !== undefined) {
    named ??= {};
    for (const [field, name] of UPDATE_NAMES) if ((updates[field] ?? 0) !== 0) named[name] = updates[field]!;
  }
  const fields = group.Fields?.map((field) => {
    if (field.Name !== "Count") return field;
    const older = field.Old === "" ? 0 : Number(field.Old);
    const newer = field.New === "" ? 0 : Number(field.New);
    if (older === newer) return field;
    return { ...field, Annotations: [...(field.Annotations ?? []), older < newer ? TASK_ANNOTATIONS.create : TASK_ANNOTATIONS.destroy] };
  }) ?? null;
  const tasks = group.Tasks?.map((task) => annotateTask(task, group)) ?? null;
  return { ...group, Fields: fields, Tasks: tasks, Updates: named };
}

/** Objects of a task that change in place (a `LogConfig` does, unless it is enabled or disabled). */
const INPLACE_OBJECTS: ReadonlySet<string> = new Set(["Service", "Constraint", "Affinity", "Spread"]);

function annotateTask(task: TaskDiff, group: TaskGroupDiff): TaskDiff {
  if (task.Type === "None") return task;
  const add = (annotation: string): TaskDiff => ({ ...task, Annotations: [...(task.Annotations ?? []), annotation] });
  // The whole group comes or goes.
  if (group.Type === "Added" || group.Type === "Deleted") {
    if (task.Type === "Added") return add(TASK_ANNOTATIONS.create);
    if (task.Type === "Deleted") return add(TASK_ANNOTATIONS.destroy);
  }
  // Every change of a primitive field but KillTimeout replaces the allocation.
  let destructive = (task.Fields ?? []).some((field) => field.Name !== "KillTimeout");
  if (!destructive) {
    destructive = (task.Objects ?? []).some((object) => {
      if (INPLACE_OBJECTS.has(object.Name)) return false;
      if (object.Name === "LogConfig") return (object.Fields ?? []).some((field) => field.Name === "Disabled");
      return true;
    });
  }
  return add(destructive ? TASK_ANNOTATIONS.destructive : TASK_ANNOTATIONS.inplace);
}
