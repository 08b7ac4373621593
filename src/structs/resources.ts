/**
 * The reference's resource structs (1.9, `nomad/structs/structs.go`, `numa.go`, `network.go`,
 * `alloc.go`): what a node offers and keeps back (`NodeResources`, `NodeReservedResources`), what
 * the scheduler gives an allocation (`AllocatedResources`), what its client reports of its network
 * (`AllocNetworkStatus`), and the network structs they hold. `NetworkResource`, `Port` and
 * `AllocatedPortMapping` carry `_struct bool \`codec:",omitempty"\``: every one of their fields is
 * left out when empty.
 *
 * @module
 */
import { field, map, ptr, slice, struct, untyped } from "./declare.js";

/** `structs.DNSConfig`. */
export const DNS_CONFIG = struct("structs.DNSConfig", "The DNS configuration of a network namespace.", [
  field("Servers", slice("string"), "the name servers"),
  field("Searches", slice("string"), "the search domains"),
  field("Options", slice("string"), "the resolver options"),
]);

/** `structs.Port`. */
export const PORT = struct(
  "structs.Port",
  "A port a network asks for: static (its Value) or dynamic (given by the scheduler).",
  [
    field("Label", "string", "the port's name, as the job's network block labels it"),
    field("Value", "int", "the host's port: static, or the one the scheduler gave a dynamic port"),
    field("To", "int", "the port inside the network namespace it is forwarded to (-1: the same as Value)"),
    field("HostNetwork", "string", "the host network it is on (default: the node's default one)"),
    field("IgnoreCollision", "bool", "the port may be used more than once (SO_REUSEPORT)"),
  ],
  { omitempty: true },
);

/** `structs.NetworkResource`. */
export const NETWORK_RESOURCE = struct(
  "structs.NetworkResource",
  "A network: one a node has, or one a task group asks for and the scheduler gave it.",
  [
    field("Mode", "string", "host, bridge, cni/<name> or none"),
    field("Device", "string", "its interface"),
    field("CIDR", "string", "its block of addresses"),
    field("IP", "string", "the host's address on it"),
    field("Hostname", "string", "the hostname of its network namespace"),
    field("MBits", "int", "its throughput, in megabits per second"),
    field("DNS", ptr(DNS_CONFIG), "its DNS configuration"),
    field("ReservedPorts", slice(PORT), "its static ports"),
    field("DynamicPorts", slice(PORT), "its dynamic ports (their values given by the scheduler)"),
    field("CNI", untyped("*CNIConfig"), "its CNI arguments"),
  ],
  { omitempty: true },
);

/** `structs.AllocatedPortMapping`. */
export const ALLOCATED_PORT_MAPPING = struct(
  "structs.AllocatedPortMapping",
  "A port the scheduler gave an allocation.",
  [
    field("Label", "string", "the port's name"),
    field("Value", "int", "the host's port"),
    field("To", "int", "the port inside the network namespace it is forwarded to"),
    field("HostIP", "string", "the host's address it is on"),
    field("IgnoreCollision", "bool", "the port may be used more than once"),
  ],
  { omitempty: true },
);

/** `structs.NodeNetworkAddress`. */
export const NODE_NETWORK_ADDRESS = struct("structs.NodeNetworkAddress", "An address of a node's network interface.", [
  field("Family", "string", "ipv4 or ipv6"),
  field("Alias", "string", "the host network it stands for (default: the node's default interface)"),
  field("Address", "string", "the address"),
  field("ReservedPorts", "string", "the ports reserved on it (80,443,1000-2000)"),
  field("Gateway", "string", "its default route"),
]);

/** `structs.NodeNetworkResource`. */
export const NODE_NETWORK_RESOURCE = struct("structs.NodeNetworkResource", "A network interface a node's client found.", [
  field("Mode", "string", "host for a physical interface, bridge, cni/<name>"),
  field("Device", "string", "its name"),
  field("MacAddress", "string", "its hardware address"),
  field("Speed", "int", "its speed, in megabits per second"),
  field("Addresses", slice(NODE_NETWORK_ADDRESS), "its addresses"),
]);

/** `structs.LegacyNodeCpuResources`: the pre-1.7 view of a node's CPU, which the reference still writes. */
export const LEGACY_NODE_CPU_RESOURCES = struct("structs.LegacyNodeCpuResources", "A node's CPU, as clients before 1.7 reported it.", [
  field("CpuShares", "int", "its compute, in MHz"),
  field("TotalCpuCores", "uint", "its cores"),
  field("ReservableCpuCores", slice("uint"), "the cores tasks may reserve"),
]);

/** `structs.NodeProcessorResources`. */
export const NODE_PROCESSOR_RESOURCES = struct("structs.NodeProcessorResources", "A node's processors.", [
  field("Topology", untyped("*numalib.Topology"), "its NUMA nodes, their distances and cores"),
]);

/** `structs.NodeMemoryResources`. */
export const NODE_MEMORY_RESOURCES = struct("structs.NodeMemoryResources", "A node's memory.", [field("MemoryMB", "int", "its memory, in MB")]);

/** `structs.NodeDiskResources`. */
export const NODE_DISK_RESOURCES = struct("structs.NodeDiskResources", "A node's disk.", [field("DiskMB", "int", "the space of its allocations' directory, in MB")]);

/** `structs.NodeResources`. */
export const NODE_RESOURCES = struct("structs.NodeResources", "What a node offers, as its client fingerprinted it.", [
  field("Cpu", LEGACY_NODE_CPU_RESOURCES, "its CPU, as clients before 1.7 reported it"),
  field("Processors", NODE_PROCESSOR_RESOURCES, "its processors"),
  field("Memory", NODE_MEMORY_RESOURCES, "its memory"),
  field("Disk", NODE_DISK_RESOURCES, "its disk"),
  field("Devices", slice(untyped("*NodeDeviceResource")), "its devices (GPUs…)"),
  field("NodeNetworks", slice(ptr(NODE_NETWORK_RESOURCE)), "its network interfaces"),
  field("Networks", slice(ptr(NETWORK_RESOURCE)), "its default interface (for task-level networks)"),
  field("MinDynamicPort", "int", "the lowest port given to dynamic ports"),
  field("MaxDynamicPort", "int", "the highest port given to dynamic ports"),
]);

/** `structs.NodeReservedCpuResources`. */
export const NODE_RESERVED_CPU_RESOURCES = struct("structs.NodeReservedCpuResources", "The CPU a node keeps back from tasks.", [
  field("CpuShares", "int", "compute kept back, in MHz"),
  field("ReservedCpuCores", slice("uint"), "cores kept back"),
]);

/** `structs.NodeReservedMemoryResources`. */
export const NODE_RESERVED_MEMORY_RESOURCES = struct("structs.NodeReservedMemoryResources", "The memory a node keeps back from tasks.", [field("MemoryMB", "int", "memory kept back, in MB")]);

/** `structs.NodeReservedDiskResources`. */
export const NODE_RESERVED_DISK_RESOURCES = struct("structs.NodeReservedDiskResources", "The disk a node keeps back from tasks.", [field("DiskMB", "int", "disk kept back, in MB")]);

/** `structs.NodeReservedNetworkResources`. */
export const NODE_RESERVED_NETWORK_RESOURCES = struct("structs.NodeReservedNetworkResources", "The ports a node keeps back from tasks.", [
  field("ReservedHostPorts", "string", "ports kept back on every interface (80,443,1000-2000)"),
]);

/** `structs.NodeReservedResources`. */
export const NODE_RESERVED_RESOURCES = struct("structs.NodeReservedResources", "What a node keeps back from tasks, as its client's configuration reserves it.", [
  field("Cpu", NODE_RESERVED_CPU_RESOURCES, "CPU kept back"),
  field("Memory", NODE_RESERVED_MEMORY_RESOURCES, "memory kept back"),
  field("Disk", NODE_RESERVED_DISK_RESOURCES, "disk kept back"),
  field("Networks", NODE_RESERVED_NETWORK_RESOURCES, "ports kept back"),
]);

/** `structs.AllocatedCpuResources`. */
export const ALLOCATED_CPU_RESOURCES = struct("structs.AllocatedCpuResources", "The CPU given to a task.", [
  field("CpuShares", "int", "its compute, in MHz"),
  field("ReservedCores", slice("uint"), "the cores reserved for it"),
]);

/** `structs.AllocatedMemoryResources`. */
export const ALLOCATED_MEMORY_RESOURCES = struct("structs.AllocatedMemoryResources", "The memory given to a task.", [
  field("MemoryMB", "int", "its memory, in MB (its secrets directory's included)"),
  field("MemoryMaxMB", "int", "the memory it may use beyond, in MB (with memory oversubscription only)"),
]);

/** `structs.AllocatedTaskResources`. */
export const ALLOCATED_TASK_RESOURCES = struct("structs.AllocatedTaskResources", "What the scheduler gave one task of an allocation.", [
  field("Cpu", ALLOCATED_CPU_RESOURCES, "its CPU"),
  field("Memory", ALLOCATED_MEMORY_RESOURCES, "its memory"),
  field("Networks", slice(ptr(NETWORK_RESOURCE)), "its task-level network (deprecated)"),
  field("Devices", slice(untyped("*AllocatedDeviceResource")), "its devices"),
]);

/** `structs.AllocatedSharedResources`. */
export const ALLOCATED_SHARED_RESOURCES = struct("structs.AllocatedSharedResources", "What the scheduler gave an allocation's tasks together.", [
  field("Networks", slice(ptr(NETWORK_RESOURCE)), "the group's network, its ports given"),
  field("DiskMB", "int", "the group's ephemeral disk, in MB"),
  field("Ports", slice(ALLOCATED_PORT_MAPPING), "the group's ports"),
]);

/** `structs.AllocatedResources`. */
export const ALLOCATED_RESOURCES = struct("structs.AllocatedResources", "What the scheduler gave an allocation on its node.", [
  field("Tasks", map(ptr(ALLOCATED_TASK_RESOURCES)), "each task's resources, by name"),
  field("TaskLifecycles", map(untyped("*TaskLifecycleConfig")), "each task's lifecycle, by name (null for a main task)"),
  field("Shared", ALLOCATED_SHARED_RESOURCES, "what its tasks share"),
]);

/** `structs.AllocNetworkStatus`. */
export const ALLOC_NETWORK_STATUS = struct("structs.AllocNetworkStatus", "An allocation's network, as its client set it up.", [
  field("InterfaceName", "string", "the interface of its network namespace (empty in host mode)"),
  field("Address", "string", "its IPv4 address there (empty in host mode)"),
  field("AddressIPv6", "string", "its IPv6 address there"),
  field("DNS", ptr(DNS_CONFIG), "its DNS configuration: its group network's"),
]);
