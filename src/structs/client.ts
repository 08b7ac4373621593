/**
 * What the reference's client agent answers about what it runs (`client/structs/structs.go`,
 * `client/hoststats/host.go`, `nomad/structs/checks.go`): an allocation's resource usage
 * (`AllocResourceUsage`, `GET /v1/client/allocation/<id>/stats`), its node's (`HostStats`, `GET
 * /v1/client/stats`) and the results of its service checks (`CheckQueryResult`, `GET
 * /v1/client/allocation/<id>/checks`). None has JSON tags but the check result's `omitempty`s:
 * Go's field names, every field written.
 *
 * @module
 */
import { field, map, ptr, slice, struct, untyped } from "./declare.js";

/** `cstructs.MemoryStats`: bytes. */
export const MEMORY_STATS = struct("structs.MemoryStats", "A task's memory use, as its driver measured it.", [
  field("RSS", "uint", "resident set size, in bytes"),
  field("Cache", "uint", "page cache, in bytes"),
  field("Swap", "uint", "swap in use, in bytes"),
  field("Usage", "uint", "memory in use (RSS and cache), in bytes"),
  field("MaxUsage", "uint", "the most memory in use so far, in bytes"),
  field("KernelUsage", "uint", "kernel memory in use, in bytes"),
  field("KernelMaxUsage", "uint", "the most kernel memory in use so far, in bytes"),
  field("Measured", slice("string"), "the figures the driver measures"),
]);

/** `cstructs.CpuStats`. */
export const CPU_STATS = struct("structs.CpuStats", "A task's CPU use, as its driver measured it.", [
  field("SystemMode", "float", "percent of a core spent in the kernel"),
  field("UserMode", "float", "percent of a core spent in user space"),
  field("TotalTicks", "float", "CPU used, in MHz"),
  field("ThrottledPeriods", "uint", "periods the task was throttled in"),
  field("ThrottledTime", "uint", "time the task was throttled, in nanoseconds"),
  field("Percent", "float", "percent of a core used"),
  field("Measured", slice("string"), "the figures the driver measures"),
]);

/** `cstructs.ResourceUsage`. */
export const RESOURCE_USAGE = struct("structs.ResourceUsage", "Memory, CPU and device use.", [
  field("MemoryStats", ptr(MEMORY_STATS), "memory use"),
  field("CpuStats", ptr(CPU_STATS), "CPU use"),
  field("DeviceStats", slice(untyped("*DeviceGroupStats")), "device use (the simulated nodes have no devices)"),
]);

/** `cstructs.TaskResourceUsage`. */
export const TASK_RESOURCE_USAGE = struct("structs.TaskResourceUsage", "A task's resource use at one moment.", [
  field("ResourceUsage", ptr(RESOURCE_USAGE), "its use"),
  field("Timestamp", "nanotime", "when it was measured, in nanoseconds since the epoch"),
  field("Pids", map(untyped("*ResourceUsage")), "use per process (null: not measured per process)"),
]);

/** `cstructs.AllocResourceUsage`. */
export const ALLOC_RESOURCE_USAGE = struct("structs.AllocResourceUsage", "An allocation's resource use: the sum of its running tasks', and each task's.", [
  field("ResourceUsage", ptr(RESOURCE_USAGE), "the sum of its running tasks' use"),
  field("Tasks", map(ptr(TASK_RESOURCE_USAGE)), "each task's use, by name"),
  field("Timestamp", "nanotime", "when the newest figure was measured, in nanoseconds since the epoch"),
]);

/** `hoststats.MemoryStats`. */
export const HOST_MEMORY_STATS = struct("hoststats.MemoryStats", "A host's memory, in bytes.", [
  field("Total", "uint", "all of it"),
  field("Available", "uint", "what processes may still take"),
  field("Used", "uint", "in use"),
  field("Free", "uint", "unused"),
]);

/** `hoststats.CPUStats`. */
export const HOST_CPU_STATS = struct("hoststats.CPUStats", "One core's use, in percent.", [
  field("CPU", "string", "the core's name (`cpu0`)"),
  field("User", "float", "percent in user space"),
  field("System", "float", "percent in the kernel"),
  field("Idle", "float", "percent idle"),
]);

/** `hoststats.DiskStats`. */
export const HOST_DISK_STATS = struct("hoststats.DiskStats", "A mounted disk's use.", [
  field("Device", "string", "the device"),
  field("Mountpoint", "string", "where it is mounted"),
  field("Size", "uint", "its size, in bytes"),
  field("Used", "uint", "bytes used"),
  field("Available", "uint", "bytes available"),
  field("UsedPercent", "float", "percent used"),
  field("InodesUsedPercent", "float", "percent of inodes used"),
]);

/** `hoststats.HostStats`. */
export const HOST_STATS = struct("hoststats.HostStats", "A client node's resource use.", [
  field("Memory", ptr(HOST_MEMORY_STATS), "its memory"),
  field("CPU", slice(ptr(HOST_CPU_STATS)), "each core's use"),
  field("DiskStats", slice(ptr(HOST_DISK_STATS)), "each disk's use"),
  field("AllocDirStats", ptr(HOST_DISK_STATS), "the use of the disk holding the allocations' directories"),
  field("DeviceStats", slice(untyped("*DeviceGroupStats")), "device use (the simulated nodes have no devices)"),
  field("Uptime", "uint", "seconds since the host booted"),
  field("Timestamp", "nanotime", "when it was measured, in nanoseconds since the epoch"),
  field("CPUTicksConsumed", "float", "CPU used, in MHz"),
]);

/** `structs.CheckQueryResult`. */
export const CHECK_QUERY_RESULT = struct("structs.CheckQueryResult", "The latest result of one of an allocation's native service checks.", [
  field("ID", "string", "the check's ID (a hash of the allocation, group, task and check)"),
  field("Mode", "string", "`healthiness`, or `readiness` for a check whose `on_update` is `ignore`"),
  field("Status", "string", "`success`, `failure` or `pending`"),
  field("StatusCode", "int", "an HTTP check's status code", { omitempty: true }),
  field("Output", "string", "what the check said"),
  field("Timestamp", "int", "when it ran, in seconds since the epoch"),
  field("Group", "string", "the group of the service"),
  field("Task", "string", "the task of the service, for a task's service", { omitempty: true }),
  field("Service", "string", "the service's name"),
  field("Check", "string", "the check's name"),
]);
