/**
 * Whether a new version of a job changes a task group in a way its running allocations cannot
 * take in place, as the reference decides it (`scheduler/util.go`, `tasksUpdated` and its
 * helpers): a different number of tasks, ephemeral disk, network, Consul namespace or cluster,
 * Connect plumbing, volumes, or a task's driver, user, config, environment, artifacts, Vault,
 * secrets, templates, CSI plugin, volume mounts, metadata (the job's, the group's and the task's
 * combined), resources, identities, log collection or template rendering on restart. Anything
 * else (the count, the update block, constraints, services without Connect, the job's priority…)
 * is taken in place: the allocation stays where it is and moves to the new version.
 *
 * The agent's jobs are JSON (canonicalised at registration, `canonicalize.ts`); the reference's
 * `Equal` methods and `cmp.Equal` are one deep comparison here ({@link sameJson}), which, as
 * `helper.OpaqueMapsEqual` and Go's `slices.Equal` do, takes an absent, null or empty list as the
 * same. An empty object is not the same as none: JSON does not tell a map from a struct, and a
 * pointer to an empty struct differs from nil in the reference (`Identity: {}` is a change); the
 * maps the reference compares with `maps.Equal` (`Env`, `Meta`) are none when empty once
 * canonicalised.
 *
 * @module
 */
import type { JobSpec, JsonObject, TaskGroup } from "../state/model.js";

/** What {@link tasksUpdated} found: a destructive difference (its label and both sides), or none. */
export interface Comparison {
  readonly modified: boolean;
  /** What changed, in the reference's words (`"task config"`, `"network port map"`…). */
  readonly label?: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** No destructive difference: the group can be updated in place. */
export const SAME: Comparison = Object.freeze({ modified: false });

function difference(label: string, before: unknown, after: unknown): Comparison {
  return { modified: true, label, before, after };
}

/** A JSON value's block (an object), or null. */
function blockOf(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** A JSON value's list, or an empty one. */
function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Whether a value is none or Go's nil list: absent, null, or an empty list. */
function isNone(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}

/**
 * Deep equality of two JSON values, with an absent, null or empty list equal to each other
 * (`cmpopts.EquateEmpty`), and a number equal to a bigint of the same value (the agent decodes
 * integers beyond 2^53 as bigints).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (isNone(a) || isNone(b)) return isNone(a) && isNone(b);
  const numeric = (value: unknown) => typeof value === "number" || typeof value === "bigint";
  if (numeric(a) && numeric(b)) return typeof a === typeof b ? a === b : Number(a) === Number(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameJson(item, b[index]));
  }
  const left = a as JsonObject;
  const right = b as JsonObject;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!sameJson(left[key], right[key])) return false;
  return true;
}

/** A string field as Go reads it: "" when absent. */
function textOf(block: JsonObject | null, field: string): string {
  const value = block?.[field];
  return typeof value === "string" ? value : "";
}

/** A number field as Go reads it: 0 when absent. */
function numberOf(block: JsonObject | null, field: string): number {
  const value = block?.[field];
  return typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : 0;
}

/**
 * Decides whether the group `groupName` of `jobB` differs from that of `jobA` in a way that needs
 * its allocations replaced (`tasksUpdated`): the first destructive difference, in the
 * reference's order, or {@link SAME}. A group missing from either job is a difference (the
 * reference always has both).
 */
export function tasksUpdated(jobA: JobSpec, jobB: JobSpec, groupName: string): Comparison {
  const a = jobA.TaskGroups.find((group) => group.Name === groupName);
  const b = jobB.TaskGroups.find((group) => group.Name === groupName);
  if (a === undefined || b === undefined) return difference("task group", a?.Name ?? null, b?.Name ?? null);
  const tasksA = listOf(a.Tasks).map((task) => blockOf(task) ?? {});
  const tasksB = listOf(b.Tasks).map((task) => blockOf(task) ?? {});
  if (tasksA.length !== tasksB.length) return difference("number of tasks", tasksA.length, tasksB.length);
  if (!sameJson(a.EphemeralDisk, b.EphemeralDisk)) return difference("ephemeral disk", a.EphemeralDisk, b.EphemeralDisk);
  const network = networkUpdated(a.Networks, b.Networks);
  if (network.modified) return network;
  const consul = consulUpdated(a.Consul, b.Consul);
  if (consul.modified) return consul;
  const connect = connectServiceUpdated(a.Services, b.Services);
  if (connect.modified) return connect;
  // No task driver can change its mounts in place.
  if (!sameJson(a.Volumes, b.Volumes)) return difference("volume request", a.Volumes, b.Volumes);
  // The template hook reads render_templates when the task starts.
  const render = renderTemplatesUpdated(a.RestartPolicy, b.RestartPolicy, "group restart render_templates");
  if (render.modified) return render;
  for (const taskA of tasksA) {
    const name = textOf(taskA, "Name");
    const taskB = tasksB.find((task) => textOf(task, "Name") === name);
    if (taskB === undefined) return difference("task deleted", name, "(nil)");
    const changed = taskUpdated(jobA, jobB, a, b, taskA, taskB);
    if (changed.modified) return changed;
  }
  return SAME;
}

/** The checks of one task (the loop of `tasksUpdated`), in the reference's order. */
function taskUpdated(jobA: JobSpec, jobB: JobSpec, groupA: TaskGroup, groupB: TaskGroup, a: JsonObject, b: JsonObject): Comparison {
  const field = (name: string) => [a[name], b[name]] as const;
  const same = (label: string, name: string): Comparison => {
    const [before, after] = field(name);
    return sameJson(before, after) ? SAME : difference(label, before, after);
  };
  if (textOf(a, "Driver") !== textOf(b, "Driver")) return difference("task driver", textOf(a, "Driver"), textOf(b, "Driver"));
  if (textOf(a, "User") !== textOf(b, "User")) return difference("task user", textOf(a, "User"), textOf(b, "User"));
  const checks: readonly (() => Comparison)[] = [
    () => same("task config", "Config"),
    () => same("task env", "Env"),
    () => same("task artifacts", "Artifacts"),
    () => same("task vault", "Vault"),
    () => same("task secrets", "Secrets"),
    () => consulUpdated(a.Consul, b.Consul),
    () => same("task templates", "Templates"),
    () => same("task csi config", "CSIPluginConfig"),
    () => same("task volume mount", "VolumeMounts"),
    () => {
      const metaA = combinedTaskMeta(jobA, groupA, a);
      const metaB = combinedTaskMeta(jobB, groupB, b);
      return sameJson(metaA, metaB) ? SAME : difference("task meta", metaA, metaB);
    },
    // The dynamic ports of a task's own networks.
    () => networkUpdated(blockOf(a.Resources)?.Networks, blockOf(b.Resources)?.Networks),
    () => nonNetworkResourcesUpdated(blockOf(a.Resources), blockOf(b.Resources)),
    () => same("task identity", "Identity"),
    () => same("task identity", "Identities"),
    // Most of a log block changes in place; switching collection off or on restarts the task with other stdout and stderr.
    () => {
      const before = blockOf(a.LogConfig)?.Disabled === true;
      const after = blockOf(b.LogConfig)?.Disabled === true;
      return before === after ? SAME : difference("task log disabled", before, after);
    },
    () => renderTemplatesUpdated(a.RestartPolicy, b.RestartPolicy, "task restart render_templates"),
  ];
  for (const check of checks) {
    const result = check();
    if (result.modified) return result;
  }
  return SAME;
}

/** A task's metadata over its group's over its job's (`Job.CombinedTaskMeta`). */
export function combinedTaskMeta(job: JobSpec, group: TaskGroup, task: JsonObject | null): Record<string, unknown> {
  return { ...(blockOf(job.Meta) ?? {}), ...(blockOf(group.Meta) ?? {}), ...(blockOf(task?.Meta) ?? {}) };
}

/** CPU, cores, memory, devices, NUMA and the secrets directory (`nonNetworkResourcesUpdated`). */
function nonNetworkResourcesUpdated(a: JsonObject | null, b: JsonObject | null): Comparison {
  for (const [label, name] of [
    ["task cpu", "CPU"],
    ["task cores", "Cores"],
    ["task memory", "MemoryMB"],
    ["task memory max", "MemoryMaxMB"],
  ] as const) {
    if (numberOf(a, name) !== numberOf(b, name)) return difference(label, numberOf(a, name), numberOf(b, name));
  }
  if (!sameJson(a?.Devices, b?.Devices)) return difference("task devices", a?.Devices, b?.Devices);
  if (!sameJson(a?.NUMA, b?.NUMA)) return difference("numa", a?.NUMA, b?.NUMA);
  if (numberOf(a, "SecretsMB") !== numberOf(b, "SecretsMB")) return difference("task secrets", numberOf(a, "SecretsMB"), numberOf(b, "SecretsMB"));
  return SAME;
}

/**
 * A change of Consul namespace, or of cluster or partition when both sides have a block
 * (`consulUpdated`): they decide which intentions let connections through.
 */
function consulUpdated(consulA: unknown, consulB: unknown): Comparison {
  const a = blockOf(consulA);
  const b = blockOf(consulB);
  if (textOf(a, "Namespace") !== textOf(b, "Namespace")) return difference("consul namespace", textOf(a, "Namespace"), textOf(b, "Namespace"));
  if (a !== null && b !== null) {
    if (textOf(a, "Cluster") !== textOf(b, "Cluster")) return difference("consul cluster", textOf(a, "Cluster"), textOf(b, "Cluster"));
    if (textOf(a, "Partition") !== textOf(b, "Partition")) return difference("consul partition", textOf(a, "Partition"), textOf(b, "Partition"));
  }
  return SAME;
}

/**
 * A change of a Connect service that needs its task destroyed (`connectServiceUpdated`): an
 * ordinary service is updated in Consul in place; a Connect service's plumbing is derived from
 * its connect block, port label and cluster.
 */
export function connectServiceUpdated(servicesA: unknown, servicesB: unknown): Comparison {
  const listB = listOf(servicesB).map(blockOf);
  for (const serviceA of listOf(servicesA).map(blockOf)) {
    if (blockOf(serviceA?.Connect) === null) continue;
    const serviceB = listB.find((each) => textOf(each, "Name") === textOf(serviceA, "Name"));
    if (serviceB === undefined) continue;
    const connect = connectUpdated(serviceA?.Connect, serviceB?.Connect);
    if (connect.modified) return connect;
    if (textOf(serviceA, "PortLabel") !== textOf(serviceB, "PortLabel")) return difference("connect service port label", textOf(serviceA, "PortLabel"), textOf(serviceB, "PortLabel"));
    if (textOf(serviceA, "Cluster") !== textOf(serviceB, "Cluster")) return difference("connect service cluster", textOf(serviceA, "Cluster"), textOf(serviceB, "Cluster"));
  }
  return SAME;
}

/** A connect block's change that Consul's sync cannot apply (`connectUpdated`, `connectSidecarServiceUpdated`): tags and proxy settings can. */
export function connectUpdated(connectA: unknown, connectB: unknown): Comparison {
  const a = blockOf(connectA);
  const b = blockOf(connectB);
  if (a === null && b === null) return SAME;
  if (a === null) return difference("connect added", a, b);
  if (b === null) return difference("connect removed", a, b);
  if ((a.Native === true) !== (b.Native === true)) return difference("connect native", a.Native === true, b.Native === true);
  if (!sameJson(a.Gateway, b.Gateway)) return difference("connect gateway", a.Gateway, b.Gateway);
  if (!sameJson(a.SidecarTask, b.SidecarTask)) return difference("connect sidecar task", a.SidecarTask, b.SidecarTask);
  const sidecarA = blockOf(a.SidecarService);
  const sidecarB = blockOf(b.SidecarService);
  if (sidecarA === null && sidecarB === null) return SAME;
  if (sidecarA === null) return difference("connect service add", sidecarA, sidecarB);
  if (sidecarB === null) return difference("connect service delete", sidecarA, sidecarB);
  if (textOf(sidecarA, "Port") !== textOf(sidecarB, "Port")) return difference("connect port", textOf(sidecarA, "Port"), textOf(sidecarB, "Port"));
  return SAME;
}

/**
 * A change of a group's or task's networks (`networkUpdated`): their number, mode, bandwidth,
 * hostname, DNS, CNI, or ports (a dynamic port's value aside: the scheduler picks it).
 */
export function networkUpdated(netA: unknown, netB: unknown): Comparison {
  const a = listOf(netA).map(blockOf);
  const b = listOf(netB).map(blockOf);
  if (a.length !== b.length) return difference("network lengths", a.length, b.length);
  for (const [index, an] of a.entries()) {
    const bn = b[index]!;
    if (textOf(an, "Mode") !== textOf(bn, "Mode")) return difference("network mode", textOf(an, "Mode"), textOf(bn, "Mode"));
    if (numberOf(an, "MBits") !== numberOf(bn, "MBits")) return difference("network mbits", numberOf(an, "MBits"), numberOf(bn, "MBits"));
    if (textOf(an, "Hostname") !== textOf(bn, "Hostname")) return difference("network hostname", textOf(an, "Hostname"), textOf(bn, "Hostname"));
    if (!sameJson(an?.DNS, bn?.DNS)) return difference("network dns", an?.DNS, bn?.DNS);
    if (!sameJson(an?.CNI, bn?.CNI)) return difference("network cni", an?.CNI, bn?.CNI);
    const portsA = networkPortMap(an);
    const portsB = networkPortMap(bn);
    if (!sameJson(portsA, portsB)) return difference("network port map", portsA, portsB);
  }
  return SAME;
}

/** A network's ports as the scheduler allocates them, a dynamic port's value left out (`networkPortMap`). */
function networkPortMap(network: JsonObject | null): { Label: string; Value: number; To: number; HostIP: string }[] {
  const port = (each: unknown, dynamic: boolean) => {
    const block = blockOf(each);
    return { Label: textOf(block, "Label"), Value: dynamic ? -1 : numberOf(block, "Value"), To: numberOf(block, "To"), HostIP: textOf(block, "HostNetwork") };
  };
  return [...listOf(network?.ReservedPorts).map((each) => port(each, false)), ...listOf(network?.DynamicPorts).map((each) => port(each, true))];
}

/** A change of a restart block's `RenderTemplates` (`renderTemplatesUpdated`); an absent block renders none. */
function renderTemplatesUpdated(a: unknown, b: unknown, label: string): Comparison {
  const before = blockOf(a)?.RenderTemplates === true;
  const after = blockOf(b)?.RenderTemplates === true;
  return before === after ? SAME : difference(label, before, after);
}
