/**
 * The agent benchmark's blocking fan-out (bench/agent.ts, `FanOut`) tells a query woken before its
 * registration by a write the agent made on its own (its scheduler runs on a real clock: a
 * deployment's deadline writes while the queries are parked) from a wait that ran out: the first is
 * worth another attempt at the same count, the second is not. Once, every early answer made the
 * bench give the count up (10,000 and 5,000 in a run whose fan-out came at a deployment deadline).
 */
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FanOut, jobSpec, jobsIndex, registration } from "../bench/agent.js";
import { startAgent, type Agent } from "../src/server/index.js";
import { eventually } from "./agent/support.js";

describe("the bench's blocking fan-out", () => {
  let agent: Agent;
  let pool: Pool;
  beforeAll(async () => {
    agent = await startAgent({ port: 0, logLevel: "silent", demo: false, clock: "manual" });
    pool = new Pool(agent.url, { connections: 4, pipelining: 1 });
  });
  afterAll(async () => {
    await pool.destroy();
    await agent.close();
  });

  /** Parks `count` queries of `fan` and waits until the agent holds them. */
  const park = async (fan: FanOut, count: number) => {
    const watches = Array.from({ length: count }, () => fan.watch(pool));
    await eventually(async () => (agent.blockingQueries >= count ? true : undefined));
    return watches;
  };

  it("says the agent wrote when a query is answered past its index before the registration", async () => {
    const index = await jobsIndex(agent.url);
    const fan = new FanOut(`/v1/jobs?per_page=1&index=${index}&wait=60s`, index);
    const watches = await park(fan, 2);
    // A write the bench did not make: another job registered.
    const put = await fetch(`${agent.url}/v1/jobs`, registration({ ...jobSpec(1, "written-meanwhile"), Namespace: "default" }));
    expect(put.status).toBe(200);
    await Promise.all(watches);
    expect(fan.failure).toMatch(new RegExp(`^a blocking query answered 200 at index \\d+ \\(parked at ${index}\\) before the registration`));
    expect(fan.moved).toBe(true);
  });

  it("says it did not when a query's wait ran out at its index", async () => {
    // What the earlier registration's scheduling has yet to write, written first (moving the clock runs it).
    await agent.clock.advance("1h");
    const index = await jobsIndex(agent.url);
    const fan = new FanOut(`/v1/jobs?per_page=1&index=${index}&wait=1s`, index);
    const watches = await park(fan, 1);
    // The wait's time on the agent's clock (the reference adds up to a sixteenth of it as jitter).
    await agent.clock.advance("2s");
    await Promise.all(watches);
    expect(fan.failure).toBe(`a blocking query answered 200 at index ${index} (parked at ${index}) before the registration that should wake it`);
    expect(fan.moved).toBe(false);
  });

  it("fails on neither when the registration comes first", async () => {
    const index = await jobsIndex(agent.url);
    const fan = new FanOut(`/v1/jobs?per_page=1&index=${index}&wait=60s`, index);
    const watches = await park(fan, 2);
    const { times } = await fan.wake(agent.url, { ...jobSpec(2, "the-wake"), Namespace: "default" }, [watches], 30_000);
    expect(times[0]).toHaveLength(2);
    expect([fan.failure, fan.moved]).toEqual([undefined, false]);
  });
});
