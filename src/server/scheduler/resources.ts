/**
 * What the scheduler gives an allocation on its node, as the reference's bin-packing iterator
 * works it out (`scheduler/feasible/rank.go`, `BinPackIterator.Next`) and the generic scheduler
 * writes it (`computePlacements`: `structs.AllocatedResources`):
 *
 * - each task its CPU (`CpuShares`: the task's `CPU`, or the speed of the cores it reserves) and
 *   memory (`MemoryMB` with its `SecretsMB`; `MemoryMaxMB` only under memory oversubscription,
 *   which the reference's default scheduler configuration leaves off and the agent cannot turn on);
 * - each task's lifecycle (`TaskLifecycles`: null for a main task);
 * - what the group's tasks share: the ephemeral disk (`DiskMB`), and the group's network with its
 *   ports (`NetworkIndex.AssignPorts`): static ports as asked, on the node's address; dynamic ports
 *   in the node's range (`MinDynamicPort`-`MaxDynamicPort`).
 *
 * Where the agent is simpler, so that a test can predict the answer: a dynamic port is the
 * lowest port of the node's range that no live allocation of the node holds, no port of this
 * placement already took, and the node does not keep back (the reference picks one at random);
 * reserved cores are the node's lowest cores no live allocation holds (the reference shuffles
 * them). Whether an allocation fits on a node (CPU, memory, disk, cores) is decided before it
 * is given anything (`stack.ts`, with {@link comparableResources}); ports are not checked for
 * room: when a node's dynamic ports run out, the lowest ones are given again.
 *
 * @module
 */
import type { Allocation, AllocatedResources, JsonObject, Node, TaskGroup } from "../state/model.js";
import { integer } from "./canonicalize.js";
import { DYNAMIC_PORTS } from "./fingerprint.js";

/** The reference's default `SchedulerConfiguration.MemoryOversubscriptionEnabled`: the agent serves no scheduler configuration to change it. */
export const MEMORY_OVERSUBSCRIPTION_ENABLED = false;

/** `structs.MemoryNoLimit`: a `MemoryMaxMB` of -1 lifts the limit (under oversubscription). */
const MEMORY_NO_LIMIT = -1;

/** The host network a port without one is on (`NetworkResource.Canonicalize`). */
const DEFAULT_HOST_NETWORK = "default";

/** `structs.Port`, as a network of an allocation holds it. */
interface Port {
  readonly Label: string;
  readonly Value: number;
  readonly To: number;
  readonly HostNetwork: string;
  readonly IgnoreCollision: boolean;
}

/** `structs.AllocatedPortMapping`. */
interface PortMapping {
  readonly Label: string;
  readonly Value: number;
  readonly To: number;
  readonly HostIP: string;
  readonly IgnoreCollision: boolean;
}

/** What one node's live allocations hold: the ports and reserved cores a placement must not take again, and the allocations themselves. */
interface NodeUsage {
  readonly ports: Set<number>;
  readonly cores: Set<number>;
  /** The node's proposed allocations (`ProposedAllocs`): those that run there, less those the plan stops, and the plan's own. */
  readonly allocs: Allocation[];
  /** What they weigh together (`AllocsFit`'s `used`), kept as they are added so that a node's room is read at once. */
  readonly used: { cpu: number; memory: number; disk: number };
}

/** The client statuses of an allocation that holds nothing on its node any more. */
const FINISHED_ON_CLIENT: ReadonlySet<string> = new Set(["complete", "failed", "lost"]);

/**
 * What each allocation row's resources weigh ({@link comparableResources}), worked out once: every
 * evaluation counts every live allocation again (a freed node makes each blocked evaluation run,
 * thousands of them at once), and a row's resources never change in place.
 */
const WEIGHTS = new WeakMap<AllocatedResources, ComparableResources>();

/** {@link comparableResources} of an allocation row's resources, from {@link WEIGHTS} once worked out (read only: it is shared). */
function weightOf(resources: AllocatedResources | undefined): ComparableResources {
  if (resources === undefined) return comparableResources(resources);
  let weight = WEIGHTS.get(resources);
  if (weight === undefined) WEIGHTS.set(resources, (weight = comparableResources(resources)));
  return weight;
}

/**
 * What the nodes' live allocations hold (`NetworkIndex.AddAllocs`, the cores the reference counts
 * as consumed, and the allocations the bin packing and the `distinct_*` checks count), read from
 * the allocations once, when a placement first needs it, and kept up to date with the plan's
 * own placements (the reference's proposed allocations: call {@link NodeUsageIndex.record} with
 * each allocation placed).
 */
export class NodeUsageIndex {
  #byNode: Map<string, NodeUsage> | undefined;

  /** `allocations` are read on first use only; those not running (desired to stop, or finished on their client) are left out. */
  constructor(private readonly allocations: () => Iterable<Allocation>) {}

  /** The usage of a node (created empty for a node nothing runs on). */
  of(nodeId: string): NodeUsage {
    if (this.#byNode === undefined) {
      this.#byNode = new Map();
      for (const alloc of this.allocations()) {
        if (alloc.DesiredStatus !== "run" || FINISHED_ON_CLIENT.has(alloc.ClientStatus)) continue;
        this.record(alloc);
        if (alloc.AllocatedResources !== undefined) this.add(alloc.NodeID, alloc.AllocatedResources);
      }
    }
    let usage = this.#byNode.get(nodeId);
    if (usage === undefined) this.#byNode.set(nodeId, (usage = { ports: new Set(), cores: new Set(), allocs: [], used: { cpu: 0, memory: 0, disk: 0 } }));
    return usage;
  }

  /** Counts an allocation among its node's, and what it weighs there (the ports and cores of one the plan places were counted when they were given). */
  record(alloc: Allocation): void {
    const usage = this.of(alloc.NodeID);
    usage.allocs.push(alloc);
    const weight = weightOf(alloc.AllocatedResources);
    usage.used.cpu += weight.cpu;
    usage.used.memory += weight.memory;
    usage.used.disk += weight.disk;
  }

  /** The proposed allocations of one job, on every node. */
  *jobAllocs(namespace: string, jobId: string): Generator<Allocation> {
    this.of("");
    for (const usage of this.#byNode!.values()) for (const alloc of usage.allocs) if (alloc.JobID === jobId && alloc.Namespace === namespace) yield alloc;
  }

  /** Counts what an allocation placed on the node holds. */
  add(nodeId: string, resources: AllocatedResources): void {
    const usage = this.of(nodeId);
    for (const port of resources.Shared.Ports ?? []) if (!port.IgnoreCollision) usage.ports.add(port.Value);
    for (const task of Object.values(resources.Tasks ?? {})) {
      for (const core of task.Cpu.ReservedCores ?? []) usage.cores.add(core);
      for (const network of task.Networks ?? []) for (const port of [...(network.ReservedPorts ?? []), ...(network.DynamicPorts ?? [])]) usage.ports.add(port.Value);
    }
  }
}

/** A block (an object), or undefined. */
function block(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

/** A list of blocks (none for anything else). */
function blocks(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.map(block).filter((each): each is JsonObject => each !== undefined) : [];
}

/** Text, or "". */
function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A port of a network block as the server's struct holds it (`ApiPortToStructs`, then `NetworkResource.Canonicalize`). */
function portOf(given: JsonObject): Port {
  return { Label: text(given.Label), Value: integer(given.Value) ?? 0, To: integer(given.To) ?? 0, HostNetwork: text(given.HostNetwork) || DEFAULT_HOST_NETWORK, IgnoreCollision: given.IgnoreCollision === true };
}

/** Ports parsed from the reference's port-range text (`80,443,1000-2000`; `ParsePortRanges`), ignoring what does not parse. */
function parsePortRanges(spec: string): number[] {
  const ports: number[] = [];
  for (const part of spec.split(",")) {
    const [low, high] = part.trim().split("-").map((each) => Number.parseInt(each, 10));
    if (low === undefined || Number.isNaN(low)) continue;
    const last = high === undefined || Number.isNaN(high) ? low : high;
    // A range beyond the ports there are is not one a client can configure: bounded, so a row cannot make this loop long.
    for (let port = low; port <= Math.min(last, 65_535); port++) ports.push(port);
  }
  return ports;
}

/** The node's address for a host network (`NetworkIndex.HostNetworks`): its `default` alias, the address the node registered with otherwise. */
function hostAddress(node: Node, hostNetwork: string): string {
  for (const network of node.NodeResources?.NodeNetworks ?? []) {
    for (const address of network.Addresses ?? []) if (address.Alias === hostNetwork) return address.Address;
  }
  return node.Address;
}

/** The node's address as `AllocatedPortsToNetworkResouce` writes it into a network: its first host-mode interface's first address. */
function networkAddress(node: Node): string {
  const host = (node.NodeResources?.NodeNetworks ?? []).find((network) => network.Mode === "host");
  return host?.Addresses?.[0]?.Address ?? node.Address;
}

/**
 * Gives a network's ports (`NetworkIndex.AssignPorts`): each static port as asked, on the node's
 * address for its host network; each dynamic port the lowest free port of the node's range.
 * What it gives is counted in `usage` at once, so the next port (and the next allocation of the
 * plan) takes another.
 */
function assignPorts(ask: { readonly reserved: readonly Port[]; readonly dynamic: readonly Port[] }, node: Node, usage: NodeUsage): PortMapping[] {
  const offer: PortMapping[] = [];
  for (const port of ask.reserved) {
    offer.push({ Label: port.Label, Value: port.Value, To: port.To, HostIP: hostAddress(node, port.HostNetwork), IgnoreCollision: port.IgnoreCollision });
    if (!port.IgnoreCollision) usage.ports.add(port.Value);
  }
  const min = node.NodeResources?.MinDynamicPort || DYNAMIC_PORTS.min;
  const max = node.NodeResources?.MaxDynamicPort || DYNAMIC_PORTS.max;
  const kept = new Set(parsePortRanges(node.ReservedResources?.Networks.ReservedHostPorts ?? ""));
  for (const port of ask.dynamic) {
    let value = min;
    while (value <= max && (usage.ports.has(value) || kept.has(value))) value++;
    // The range is full: the agent does not refuse a placement, and gives its first port again.
    if (value > max) value = min;
    usage.ports.add(value);
    offer.push({ Label: port.Label, Value: value, To: port.To === -1 ? value : port.To, HostIP: hostAddress(node, port.HostNetwork), IgnoreCollision: false });
  }
  return offer;
}

/** `structs.NetworkResource` of an ask, with its ports given (`AllocatedPortsToNetworkResouce`, and the task-level `AssignTaskNetwork`). */
function networkOf(ask: JsonObject, reserved: readonly Port[], dynamic: readonly Port[], offer: readonly PortMapping[], ip: string, fromNode?: { readonly Device: string; readonly CIDR: string }): AllocatedNetwork {
  const given = (label: string) => offer.find((port) => port.Label === label);
  const dns = block(ask.DNS);
  return {
    Mode: text(ask.Mode),
    Device: fromNode?.Device ?? text(ask.Device),
    CIDR: fromNode?.CIDR ?? text(ask.CIDR),
    IP: ip,
    Hostname: text(ask.Hostname),
    MBits: integer(ask.MBits) ?? 0,
    DNS: dns === undefined ? null : { Servers: stringsOf(dns.Servers), Searches: stringsOf(dns.Searches), Options: stringsOf(dns.Options) },
    ReservedPorts: reserved.length === 0 ? null : reserved,
    DynamicPorts: dynamic.length === 0 ? null : dynamic.map((port) => ({ ...port, Value: given(port.Label)?.Value ?? port.Value, To: given(port.Label)?.To ?? port.To })),
    CNI: block(ask.CNI) ?? null,
  };
}

/** A network of `AllocatedResources` (`structs.NetworkResource`). */
type AllocatedNetwork = NonNullable<AllocatedResources["Shared"]["Networks"]>[number];

/** What one task is given (`structs.AllocatedTaskResources`). */
type TaskResources = NonNullable<AllocatedResources["Tasks"]>[string];

/** A list of strings, or null. */
function stringsOf(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((each): each is string => typeof each === "string") : null;
}

/** The node's cores and their speed (`Topology.UsableCores`), lowest ID first. */
function usableCores(node: Node): { readonly id: number; readonly mhz: number }[] {
  const topology = block(node.NodeResources?.Processors.Topology);
  return blocks(topology?.Cores)
    .filter((core) => core.Disable !== true)
    .map((core) => ({ id: integer(core.ID) ?? 0, mhz: integer(core.BaseSpeed) ?? 0 }))
    .sort((a, b) => a.id - b.id);
}

/** The cores a task reserves: the lowest the node's live allocations do not hold (the lowest of all when too few are free). */
function reserveCores(wanted: number, node: Node, usage: NodeUsage): { readonly cores: number[]; readonly mhz: number } {
  const usable = usableCores(node);
  const free = usable.filter((core) => !usage.cores.has(core.id));
  const chosen = (free.length >= wanted ? free : usable).slice(0, wanted);
  for (const core of chosen) usage.cores.add(core.id);
  return { cores: chosen.map((core) => core.id), mhz: chosen.reduce((sum, core) => sum + core.mhz, 0) };
}

/**
 * What the scheduler gives one allocation of `group` on `node` (`structs.AllocatedResources`),
 * from the group's canonical tasks and ephemeral disk, counting what it takes in `usage`.
 */
export function allocateResources(group: TaskGroup, node: Node, usage: NodeUsageIndex, memoryOversubscription = MEMORY_OVERSUBSCRIPTION_ENABLED, commit = true): AllocatedResources {
  // The node's usage is read only for what takes ports or cores: most groups take neither. A trial (`commit` false) takes them from a copy.
  let trial: NodeUsage | undefined;
  const held = (): NodeUsage => {
    if (commit) return usage.of(node.ID);
    const real = usage.of(node.ID);
    return (trial ??= { ports: new Set(real.ports), cores: new Set(real.cores), allocs: real.allocs, used: real.used });
  };
  const disk = integer(block(group.EphemeralDisk)?.SizeMB) ?? 0;
  let shared: AllocatedResources["Shared"] = { Networks: null, DiskMB: disk, Ports: null };
  // Only the group's first network is given (`iter.taskGroup.Networks[0]`).
  const groupNetwork = blocks(group.Networks)[0];
  if (groupNetwork !== undefined) {
    const reserved = blocks(groupNetwork.ReservedPorts).map(portOf);
    const dynamic = blocks(groupNetwork.DynamicPorts).map(portOf);
    const offer = assignPorts({ reserved, dynamic }, node, held());
    shared = { Networks: [networkOf(groupNetwork, reserved, dynamic, offer, networkAddress(node))], DiskMB: disk, Ports: offer };
  }
  const tasks: Record<string, TaskResources> = {};
  const lifecycles: Record<string, unknown> = {};
  for (const task of blocks(group.Tasks)) {
    const name = text(task.Name);
    const resources = block(task.Resources) ?? {};
    const secrets = integer(resources.SecretsMB) ?? 0;
    const memoryMax = integer(resources.MemoryMaxMB) ?? 0;
    let cpu: TaskResources["Cpu"] = { CpuShares: integer(resources.CPU) ?? 0, ReservedCores: null };
    const wantedCores = integer(resources.Cores) ?? 0;
    if (wantedCores > 0) {
      const { cores, mhz } = reserveCores(wantedCores, node, held());
      cpu = { CpuShares: mhz, ReservedCores: cores };
    }
    // A task-level network (deprecated) is given on the node's own interface (`AssignTaskNetwork`).
    const taskNetwork = blocks(resources.Networks)[0];
    let networks: AllocatedNetwork[] | null = null;
    if (taskNetwork !== undefined) {
      const nodeNetwork = node.NodeResources?.Networks?.[0];
      const reserved = blocks(taskNetwork.ReservedPorts).map(portOf);
      const dynamic = blocks(taskNetwork.DynamicPorts).map(portOf);
      const offer = assignPorts({ reserved, dynamic }, node, held());
      networks = [networkOf(taskNetwork, reserved, dynamic, offer, nodeNetwork?.IP ?? node.Address, { Device: nodeNetwork?.Device ?? "", CIDR: nodeNetwork?.CIDR ?? "" })];
    }
    tasks[name] = {
      Cpu: cpu,
      Memory: {
        MemoryMB: (integer(resources.MemoryMB) ?? 0) + secrets,
        MemoryMaxMB: !memoryOversubscription ? 0 : memoryMax > 0 ? memoryMax + secrets : memoryMax === MEMORY_NO_LIMIT ? MEMORY_NO_LIMIT : 0,
      },
      Networks: networks,
      Devices: null,
    };
    lifecycles[name] = block(task.Lifecycle) ?? null;
  }
  // A main task's lifecycle is a nil pointer, which Go's map holds and writes as null (the declared type has no null elements).
  return { Tasks: tasks, TaskLifecycles: lifecycles as AllocatedResources["TaskLifecycles"], Shared: shared };
}

/** `structs.ComparableResources` flattened to what the bin packing compares: CPU shares, memory, disk, reserved cores. */
export interface ComparableResources {
  cpu: number;
  memory: number;
  disk: number;
  readonly cores: number[];
}

/**
 * What an allocation's resources weigh on its node (`AllocatedResources.Comparable`): its tasks'
 * CPU and memory, counting tasks that cannot run at the same time once (the largest of the
 * prestart, main and poststop phases; sidecars in both prestart and main), reserved cores always,
 * and the group's disk.
 */
export function comparableResources(resources: AllocatedResources | undefined): ComparableResources {
  const total: ComparableResources = { cpu: 0, memory: 0, disk: resources?.Shared.DiskMB ?? 0, cores: [] };
  if (resources === undefined) return total;
  const phases = { prestart: { cpu: 0, memory: 0 }, main: { cpu: 0, memory: 0 }, poststop: { cpu: 0, memory: 0 } };
  for (const [name, task] of Object.entries(resources.Tasks ?? {})) {
    let cpu = task.Cpu.CpuShares;
    // Reserved cores are not shared with other phases: always counted.
    if ((task.Cpu.ReservedCores ?? []).length > 0) {
      total.cpu += cpu;
      total.cores.push(...(task.Cpu.ReservedCores ?? []));
      cpu = 0;
    }
    const lifecycle = block((resources.TaskLifecycles as Record<string, unknown> | null | undefined)?.[name]);
    const hook = text(lifecycle?.Hook);
    const into = lifecycle === undefined ? ["main"] : hook === "prestart" ? (lifecycle.Sidecar === true ? ["prestart", "main"] : ["prestart"]) : hook === "poststart" ? ["main"] : hook === "poststop" ? ["poststop"] : [];
    for (const phase of into as (keyof typeof phases)[]) {
      phases[phase].cpu += cpu;
      phases[phase].memory += task.Memory.MemoryMB;
    }
  }
  total.cpu += Math.max(phases.prestart.cpu, phases.main.cpu, phases.poststop.cpu);
  total.memory += Math.max(phases.prestart.memory, phases.main.memory, phases.poststop.memory);
  return total;
}

/** The cores of the node that no live or planned allocation holds. */
export function freeCores(node: Node, usage: NodeUsageIndex): number {
  const held = usage.of(node.ID).cores;
  return usableCores(node).filter((core) => !held.has(core.id)).length;
}
