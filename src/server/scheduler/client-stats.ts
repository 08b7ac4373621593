/**
 * What the simulated clients measure of what they run, as the reference's client reports it
 * (`client/allocrunner/alloc_runner.go`, `LatestAllocStats`; `client/hoststats/`): each running
 * task's memory and CPU, the sum over the allocation's running tasks, and the node's memory,
 * cores and disk. The simulated tasks use no real machine, so their use is made up, but within
 * what each was given, and moving on the agent's clock:
 *
 * - a task's memory in use (`RSS`) swings between 30% and 60% of its `MemoryMB` over a minute,
 *   with 5% more of page cache (`Cache`); `MaxUsage` is the most it has used since it started;
 * - its CPU between 10% and 50% of its `CpuShares` over half a minute (`TotalTicks`, in MHz;
 *   `Percent` of one core, four fifths of it in user space);
 * - each task starts its swing at its own point (from a hash of the allocation's and task's
 *   names), so two tasks do not move in step, and the same task reads the same on every run;
 * - the figures are those of the last whole second, as the reference's client collects them
 *   every second (`collection_interval`): a read within one second reads the same.
 *
 * A node's figures are its running allocations' use plus a little of its own (its client, 256 MB
 * and 2% of each core), against what it offers (`NodeResources`); its disk holds a tenth of its
 * allocations' ephemeral disks.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { present } from "../../structs/derive.js";
import { ALLOC_RESOURCE_USAGE, HOST_STATS } from "../../structs/client.js";
import type { Allocation, JsonObject, Node } from "../state/model.js";
import { tasksRunning } from "./client-actions.js";

/** Bytes in a MB, as the reference counts memory and disk (MiB). */
const MB = 1024 * 1024;
/** A core's speed when the node does not say (the simulated machine's). */
const DEFAULT_CORE_MHZ = 2500;
/** How often the reference's client collects stats (`collection_interval`'s default). */
const COLLECTION_NS = 1_000_000_000n;
/** The period of a task's memory swing, and of its CPU swing, in seconds. */
const MEMORY_PERIOD_S = 60;
const CPU_PERIOD_S = 30;
/** What the node's own processes use: memory in bytes, and a share of each core. */
const HOST_MEMORY_BYTES = 256 * MB;
const HOST_CPU_SHARE = 0.02;
/** What the memory figures measure (an exec driver's task on cgroups v2), and the CPU figures. */
const MEMORY_MEASURED = ["RSS", "Cache", "Swap", "Usage", "Max Usage"];
const CPU_MEASURED = ["System Mode", "User Mode", "Percent"];

/** Where a task's swing starts, in [0, 1): from a hash of its allocation and name. */
function phaseOf(allocId: string, task: string): number {
  return createHash("sha256").update(`${allocId}/${task}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** The share of its memory a task holds `seconds` after it started. */
function memoryShare(seconds: number, phase: number): number {
  return 0.45 + 0.15 * Math.sin(2 * Math.PI * (seconds / MEMORY_PERIOD_S + phase));
}

/** The share of its CPU a task uses `seconds` after it started. */
function cpuShare(seconds: number, phase: number): number {
  return 0.3 + 0.2 * Math.sin(2 * Math.PI * (seconds / CPU_PERIOD_S + phase));
}

/** The most of its memory a task has held in its first `seconds` (a swing's peak once it has run a whole period; else sampled each second, at most one period's worth). */
function peakShare(seconds: number, phase: number): number {
  if (seconds >= MEMORY_PERIOD_S) return 0.6;
  let peak = 0;
  for (let s = 0; s <= seconds; s++) peak = Math.max(peak, memoryShare(s, phase));
  return peak;
}

/** One task's use at `nowNs` (the last whole second), `seconds` after it started: `cstructs.TaskResourceUsage`'s fields. */
interface TaskUse {
  readonly memoryMb: number;
  readonly rss: number;
  readonly cache: number;
  readonly maxUsage: number;
  readonly ticks: number;
}

/** A task's made-up use (see the module's description). */
function taskUse(alloc: Allocation, task: string, seconds: number, coreMhz: number): TaskUse {
  const given = alloc.AllocatedResources?.Tasks?.[task];
  // A task of a row written before the agent kept resources asks what a task without `Resources` asks.
  const memoryMb = given?.Memory.MemoryMB ?? 300;
  const cpu = given?.Cpu.CpuShares || (given?.Cpu.ReservedCores?.length ?? 0) * coreMhz || 100;
  const phase = phaseOf(alloc.ID, task);
  const rss = Math.round(memoryMb * MB * memoryShare(seconds, phase));
  const cache = Math.round(memoryMb * MB * 0.05);
  return { memoryMb, rss, cache, maxUsage: Math.round(memoryMb * MB * peakShare(seconds, phase)) + cache, ticks: cpu * cpuShare(seconds, phase) };
}

/** `cstructs.ResourceUsage` of a use (a task's, or a sum). */
function resourceUsage(use: Omit<TaskUse, "memoryMb">, coreMhz: number): JsonObject {
  const percent = (use.ticks / coreMhz) * 100;
  return {
    MemoryStats: { RSS: use.rss, Cache: use.cache, Swap: 0, Usage: use.rss + use.cache, MaxUsage: use.maxUsage, KernelUsage: 0, KernelMaxUsage: 0, Measured: MEMORY_MEASURED },
    CpuStats: { SystemMode: percent * 0.2, UserMode: percent * 0.8, TotalTicks: use.ticks, ThrottledPeriods: 0, ThrottledTime: 0, Percent: percent, Measured: CPU_MEASURED },
    DeviceStats: [],
  };
}

/** The time of the last collection at `nowNs`: the last whole second. */
function collectedAt(nowNs: bigint): bigint {
  return nowNs - (nowNs % COLLECTION_NS);
}

/** Each running task's use at `nowNs`: none when the allocation's tasks do not run. */
function runningUse(alloc: Allocation, nowNs: bigint, coreMhz: number, only = ""): Map<string, TaskUse> {
  const uses = new Map<string, TaskUse>();
  const run = alloc.TaskRun;
  if (!tasksRunning(run) || alloc.ClientStatus !== "running") return uses;
  const at = collectedAt(nowNs);
  for (const task of run.Tasks) {
    if (only !== "" && task !== only) continue;
    // A restarted task's swing starts again.
    const started = Math.max(run.StartedAt!, run.Restarts?.[task]?.Last ?? 0);
    const seconds = Math.max(0, Math.floor((Number(at / 1_000_000n) - started) / 1000));
    uses.set(task, taskUse(alloc, task, seconds, coreMhz));
  }
  return uses;
}

/** A node's core speed: its CPU shares over its cores. */
function coreMhzOf(node: Node | undefined): number {
  const cpu = node?.NodeResources?.Cpu;
  return cpu !== undefined && cpu.TotalCpuCores > 0 && cpu.CpuShares > 0 ? cpu.CpuShares / cpu.TotalCpuCores : DEFAULT_CORE_MHZ;
}

/**
 * The allocation's resource use at `nowNs` (`cstructs.AllocResourceUsage`): each running task's
 * (only `task`'s when one is named; an unknown name gives none, as the reference's filter), and
 * their sum, timestamped at the last collection (0 when no task runs).
 */
export function allocStats(alloc: Allocation, node: Node | undefined, nowNs: bigint, task = ""): JsonObject {
  const coreMhz = coreMhzOf(node);
  const uses = runningUse(alloc, nowNs, coreMhz, task);
  const timestamp = uses.size === 0 ? 0n : collectedAt(nowNs);
  const tasks: JsonObject = {};
  const sum = { rss: 0, cache: 0, maxUsage: 0, ticks: 0 };
  for (const [name, use] of uses) {
    tasks[name] = { ResourceUsage: resourceUsage(use, coreMhz), Timestamp: timestamp, Pids: null };
    sum.rss += use.rss;
    sum.cache += use.cache;
    sum.maxUsage += use.maxUsage;
    sum.ticks += use.ticks;
  }
  return present(ALLOC_RESOURCE_USAGE, { ResourceUsage: resourceUsage(sum, coreMhz), Tasks: tasks, Timestamp: timestamp });
}

/**
 * The node's resource use at `nowNs` (`hoststats.HostStats`): memory, each core and the disk,
 * from its running allocations' use (see the module's description); its uptime counted from
 * `bootMs` (when its client registered it).
 */
export function hostStats(node: Node, allocs: Iterable<Allocation>, nowNs: bigint, bootMs: number): JsonObject {
  const coreMhz = coreMhzOf(node);
  const cores = Math.max(1, node.NodeResources?.Cpu.TotalCpuCores ?? 4);
  const totalMemory = (node.NodeResources?.Memory.MemoryMB ?? 16_384) * MB;
  const diskSize = (node.NodeResources?.Disk.DiskMB ?? 102_400) * MB;
  let memory = HOST_MEMORY_BYTES;
  let ticks = cores * coreMhz * HOST_CPU_SHARE;
  let disk = 0;
  for (const alloc of allocs) {
    if (alloc.NodeID !== node.ID) continue;
    for (const use of runningUse(alloc, nowNs, coreMhz).values()) {
      memory += use.rss + use.cache;
      ticks += use.ticks;
    }
    if (alloc.ClientStatus === "running") disk += Math.round(((alloc.AllocatedResources?.Shared.DiskMB ?? 0) * MB) / 10);
  }
  const used = Math.min(memory, totalMemory);
  const busy = Math.min(100, (ticks / (cores * coreMhz)) * 100);
  const cpu = Array.from({ length: cores }, (_, i) => ({ CPU: `cpu${i}`, User: busy * 0.8, System: busy * 0.2, Idle: 100 - busy }));
  const usedDisk = Math.min(disk, diskSize);
  const diskStats = { Device: "/dev/sda1", Mountpoint: "/", Size: diskSize, Used: usedDisk, Available: diskSize - usedDisk, UsedPercent: (usedDisk / diskSize) * 100, InodesUsedPercent: 1 };
  const at = collectedAt(nowNs);
  return present(HOST_STATS, {
    Memory: { Total: totalMemory, Available: totalMemory - used, Used: used, Free: totalMemory - used },
    CPU: cpu,
    DiskStats: [diskStats],
    AllocDirStats: diskStats,
    DeviceStats: [],
    Uptime: Math.max(0, Math.floor((Number(at / 1_000_000n) - bootMs) / 1000)),
    Timestamp: at,
    CPUTicksConsumed: ticks,
  });
}
