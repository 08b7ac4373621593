/**
 * The simulated clients' pure decisions, as functions: a check's ID (`structs.NomadCheckID`, its
 * settings hashed in the reference's order) and the usage made up for a task (within what it was
 * given at every second of its swings, moving on the clock, the same for the same moment).
 */
import { describe, expect, it } from "vitest";
import { nomadCheckId } from "../../src/server/scheduler/client-checks.js";
import { allocStats } from "../../src/server/scheduler/client-stats.js";
import type { Allocation } from "../../src/server/state/model.js";

/** The reference's own test check (`TestChecks_NomadCheckID`), durations in nanoseconds. */
const CHECK = { Name: "c1", Type: "http", Path: "/health", Protocol: "https", PortLabel: "web", AddressMode: "host", Interval: 60_000_000_000, Timeout: 10_000_000_000, Method: "GET", TaskName: "t1", OnUpdate: "ignore", TLSSkipVerify: false };

describe("a check's ID", () => {
  it("is the reference's SHA-256 of the allocation, group and the check's settings (computed with Go's crypto/sha256 and binary.Write)", () => {
    expect(nomadCheckId("id", "group", CHECK)).toBe("2bc39f57620f6403db71cd6b6a001e607d5aa713d85559d945eeff0f119e55ee");
  });

  it.each<[string, Record<string, unknown>]>([
    ["name", { Name: "c2" }],
    ["type", { Type: "tcp" }],
    ["path", { Path: "/metrics" }],
    ["protocol", { Protocol: "http" }],
    ["port label", { PortLabel: "ingress" }],
    ["address mode", { AddressMode: "bridge" }],
    ["interval", { Interval: 120_000_000_000 }],
    ["timeout", { Timeout: 20_000_000_000 }],
    ["method", { Method: "POST" }],
    ["task", { TaskName: "t2" }],
    ["on update", { OnUpdate: "require_healthy" }],
    ["TLS skip verify", { TLSSkipVerify: true }],
  ])("differs with a different %s", (_name, change) => {
    expect(nomadCheckId("id", "group", { ...CHECK, ...change })).not.toBe(nomadCheckId("id", "group", CHECK));
  });
});

describe("a task's made-up usage", () => {
  const MB = 1024 * 1024;
  const startedMs = Date.UTC(2026, 0, 1);
  const alloc = {
    ID: "00000000-0000-4000-8000-000000000001",
    NodeID: "n",
    ClientStatus: "running",
    DesiredStatus: "run",
    AllocatedResources: { Tasks: { web: { Cpu: { CpuShares: 800, ReservedCores: null }, Memory: { MemoryMB: 512 } } }, Shared: { DiskMB: 300 } },
    TaskRun: { Tasks: ["web"], StartedAt: startedMs, FinishedAt: null, ExitCode: null },
  } as unknown as Allocation;
  const at = (seconds: number) => BigInt(startedMs + seconds * 1000) * 1_000_000n;

  it("stays within the task's memory and CPU at every second of two minutes", () => {
    for (let second = 0; second <= 120; second++) {
      const web = (allocStats(alloc, undefined, at(second)).Tasks as Record<string, any>).web.ResourceUsage;
      expect(web.MemoryStats.RSS).toBeGreaterThanOrEqual(Math.floor(0.3 * 512 * MB));
      expect(web.MemoryStats.RSS).toBeLessThanOrEqual(Math.ceil(0.6 * 512 * MB));
      expect(web.MemoryStats.MaxUsage).toBeGreaterThanOrEqual(web.MemoryStats.Usage);
      expect(web.MemoryStats.MaxUsage).toBeLessThanOrEqual(0.65 * 512 * MB + 1);
      expect(web.CpuStats.TotalTicks).toBeGreaterThanOrEqual(0.1 * 800 - 1e-9);
      expect(web.CpuStats.TotalTicks).toBeLessThanOrEqual(0.5 * 800 + 1e-9);
    }
  });

  it("reads the same within a second and moves from one to the next", () => {
    const rss = (ns: bigint) => ((allocStats(alloc, undefined, ns).Tasks as Record<string, any>).web.ResourceUsage.MemoryStats.RSS as number);
    expect(rss(at(10) + 999_000_000n)).toBe(rss(at(10)));
    expect(rss(at(11))).not.toBe(rss(at(10)));
  });

  it("measures nothing of tasks that do not run", () => {
    const ended = { ...alloc, ClientStatus: "complete", TaskRun: { ...alloc.TaskRun!, FinishedAt: startedMs + 5000, ExitCode: 0 } } as Allocation;
    expect(allocStats(ended, undefined, at(10))).toMatchObject({ Tasks: {}, Timestamp: 0n });
  });
});
