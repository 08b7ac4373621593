/**
 * The agent's manual clock: it stands still until the test moves it, and moving it runs the
 * scheduler's steps due on the way, in order; the timestamps follow it.
 */
import { describe, expect, it, vi } from "vitest";
import { parseJson } from "../../src/json.js";
import { ClockLimitError, LATEST_CLOCK_NS, LATEST_CLOCK_TEXT, ManualClock, RealClock } from "../../src/server/base/clock.js";
import { job, startTestAgent, useAgent } from "./support.js";

/** The list item of one job. */
async function jobItem(agent: ReturnType<typeof useAgent>, id: string): Promise<Record<string, unknown>> {
  const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent(`ID == "${id}"`)}`);
  const [item] = parseJson(response.text) as Record<string, unknown>[];
  if (item === undefined) throw new Error(`no job ${id}`);
  return item;
}

/** The counts of the job's only task group, `g`. */
async function counts(agent: ReturnType<typeof useAgent>, id: string): Promise<Record<string, number>> {
  const item = await jobItem(agent, id);
  return (item.JobSummary as { Summary: Record<string, Record<string, number>> }).Summary.g!;
}

describe("an agent on the manual clock", () => {
  const start = Date.parse("2030-01-01T00:00:00Z");
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000 });

  it("stands still, and stamps what it writes with its own time", async () => {
    const before = agent.agent.clock.now().getTime();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(agent.agent.clock.now().getTime()).toBe(before);
    expect(agent.agent.clock.kind).toBe("manual");
    await agent.register(job("stamped", { Type: "batch" }));
    await agent.agent.clock.advance(0);
    const item = await jobItem(agent, "stamped");
    expect(item.SubmitTime).toBe(BigInt(before) * 1_000_000n);
    expect(start).toBeGreaterThan(0);
  });

  it("runs a batch job to completion when the clock is moved past its run time, and not before", async () => {
    await agent.register(job("report", { Type: "batch", TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance(0);
    // Placed, not yet running: real time passing changes nothing.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await counts(agent, "report")).toMatchObject({ Starting: 2, Running: 0, Complete: 0 });
    expect((await jobItem(agent, "report")).Status).toBe("running");
    await agent.agent.clock.advance("500ms");
    expect(await counts(agent, "report")).toMatchObject({ Starting: 0, Running: 2, Complete: 0 });
    await agent.agent.clock.advance("999ms");
    expect(await counts(agent, "report")).toMatchObject({ Running: 2, Complete: 0 });
    await agent.agent.clock.advance("1ms");
    expect(await counts(agent, "report")).toMatchObject({ Running: 0, Complete: 2 });
    expect((await jobItem(agent, "report")).Status).toBe("dead");
  });

  it("follows the job's Meta: bexpr.run_for and a failing bexpr.exit_code", async () => {
    await agent.register(job("flaky", { Type: "batch", Meta: { "bexpr.run_for": "10m", "bexpr.exit_code": "3" } }));
    await agent.agent.clock.advance("9m");
    expect(await counts(agent, "flaky")).toMatchObject({ Running: 1, Failed: 0 });
    // It fails 10m after it started; a batch job's group reschedules it once, 5 s later, and the replacement fails too.
    await agent.agent.clock.advance("1m1s");
    expect(await counts(agent, "flaky")).toMatchObject({ Running: 0, Failed: 1, Complete: 0 });
    expect((await jobItem(agent, "flaky")).Status).toBe("pending");
    await agent.agent.clock.advance("1m");
    expect(await counts(agent, "flaky")).toMatchObject({ Running: 1, Failed: 1 });
    await agent.agent.clock.advance("10m");
    expect(await counts(agent, "flaky")).toMatchObject({ Running: 0, Failed: 2, Complete: 0 });
    expect((await jobItem(agent, "flaky")).Status).toBe("dead");
  });

  it("completes a service job's deployment once its allocations have run MinHealthyTime, and wakes a blocking query on the way", async () => {
    await agent.register(job("web"));
    await agent.agent.clock.advance(0);
    const first = await agent.get("/v1/deployments");
    const index = Number(first.headers["x-svc-index"]);
    const waiting = agent.get(`/v1/deployments?index=${index}&wait=30s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Running at half the placement delay, healthy 10 s (the default MinHealthyTime) later.
    await agent.agent.clock.advance("10.5s");
    const woken = await waiting;
    expect(Number(woken.headers["x-svc-index"])).toBeGreaterThan(index);
    const deployments = parseJson((await agent.get("/v1/deployments")).text) as { JobID: string; Status: string }[];
    expect(deployments.find((deployment) => deployment.JobID === "web")?.Status).toBe("successful");
  });

  // Past Go's longest duration (int64 nanoseconds), as a string and as milliseconds; past the latest time from 2030.
  it.each([-1, "soon", "10", Number.NaN, "9223372036854775808ns", 9_223_372_036_855, "2200000h"])("refuses to move by %s", async (duration) => {
    const before = agent.agent.clock.now().getTime();
    await expect(agent.agent.clock.advance(duration as number | string)).rejects.toThrow(RangeError);
    expect(agent.agent.clock.now().getTime()).toBe(before);
  });
});

describe("the manual clock's bounds", () => {
  /** The last whole millisecond before the latest time: 775807 ns are left. */
  const LATEST_MS = Number(LATEST_CLOCK_NS / 1_000_000n);

  it("moves to 2262-04-11T23:47:16.854775807Z, the latest int64 nanoseconds since the epoch, and not a nanosecond further", async () => {
    expect(LATEST_CLOCK_TEXT).toBe("2262-04-11T23:47:16.854775807Z");
    const clock = new ManualClock(LATEST_MS);
    await expect(clock.advanceNs(775_808n)).rejects.toThrow(ClockLimitError);
    expect(clock.nowNs()).toBe(9_223_372_036_854_000_000n);
    await clock.advanceNs(775_807n);
    expect([clock.nowNs(), clock.nowMs()]).toEqual([LATEST_CLOCK_NS, LATEST_MS]);
    await expect(clock.advanceNs(1n)).rejects.toMatchObject({ code: "past_latest_time", nowNs: LATEST_CLOCK_NS, byNs: 1n });
    await expect(clock.advance(1)).rejects.toThrow(ClockLimitError);
    await clock.advance(0);
    expect(clock.nowNs()).toBe(LATEST_CLOCK_NS);
  });

  it("runs a step due at the latest time, and never one due after it", async () => {
    const clock = new ManualClock(LATEST_MS);
    const ran: string[] = [];
    clock.setTimer(0.775807, () => void ran.push("at the latest time"));
    clock.setTimer(0.775808, () => void ran.push("after it"));
    clock.setTimer(Infinity, () => void ran.push("never"));
    await clock.advanceNs(775_807n);
    expect(ran).toEqual(["at the latest time"]);
    expect(clock.pending).toHaveLength(2);
  });

  it("refuses to start after the latest time", () => {
    expect(() => new ManualClock(LATEST_MS + 1)).toThrow(RangeError);
  });

  it("adds up moves and delays of less than a millisecond, to the nanosecond", async () => {
    const clock = new ManualClock(1000);
    const ran: bigint[] = [];
    clock.setTimer(0.0015, () => void ran.push(clock.nowNs()));
    await clock.advanceNs(1_000n);
    expect([ran, clock.nowNs(), clock.nowMs()]).toEqual([[], 1_000_001_000n, 1000]);
    await clock.advance(0.0006);
    expect([ran, clock.nowNs(), clock.nowMs()]).toEqual([[1_000_001_500n], 1_000_001_600n, 1000]);
    await clock.advance(0.9984);
    expect([clock.nowNs(), clock.nowMs()]).toEqual([1_001_000_000n, 1001]);
  });
});

describe("the real clock's timers", () => {
  /** The longest delay Node's setTimeout holds; it runs a longer one after 1 ms. */
  const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

  it("wait for a step due later than setTimeout can hold, instead of running it at once", async () => {
    // Fake timers (restored below) stand in for the 24.8 days; they run long delays after 1 ms, as Node does.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const clock = new RealClock();
      const ran: string[] = [];
      clock.setTimer(LONGEST_TIMEOUT_MS + 1001, () => void ran.push("due"));
      const cleared = clock.setTimer(LONGEST_TIMEOUT_MS + 2000, () => void ran.push("cleared"));
      await vi.advanceTimersByTimeAsync(LONGEST_TIMEOUT_MS);
      clock.clearTimer(cleared);
      await vi.advanceTimersByTimeAsync(1000);
      expect(ran).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual(["due"]);
      await vi.advanceTimersByTimeAsync(LONGEST_TIMEOUT_MS);
      expect(ran).toEqual(["due"]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("an agent on the real clock", () => {
  it("cannot be moved", async () => {
    const agent = await startTestAgent({ port: 0, demo: false, logLevel: "silent" });
    try {
      expect(agent.clock.kind).toBe("real");
      expect(Math.abs(agent.clock.now().getTime() - Date.now())).toBeLessThan(1000);
      await expect(agent.clock.advance("1m")).rejects.toThrow(/clock: "manual"/);
    } finally {
      await agent.close();
    }
  });
});
