/**
 * The clock and the scenario rules over HTTP, under `/_bexpr/`, for suites in any language.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { LATEST_CLOCK_NS } from "../../src/server/base/clock.js";
import { job, send, startTestAgent, useAgent } from "./support.js";

/** The refusal of a duration past Go's longest, after Go's own error text. */
const LONGEST = "the longest duration is 9223372036854775807ns (2562047h47m16.854775807s), Go's time.Duration being int64 nanoseconds";

describe("the simulation's control routes", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000 });
  const post = (path: string, body: unknown) => send(agent.url + path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });

  it("shows the clock, and moves it by a duration, running what falls due", async () => {
    const before = (await agent.get("/_bexpr/clock")).json() as { Kind: string; Now: string };
    expect(before.Kind).toBe("manual");
    await agent.register(job("nightly", { Type: "batch" }));
    const moved = await post("/_bexpr/clock/advance", { By: "1h30m" });
    expect(moved.status).toBe(200);
    expect(Date.parse((moved.json() as { Now: string }).Now) - Date.parse(before.Now)).toBe(90 * 60_000);
    const [item] = parseJson((await agent.get(`/v1/jobs?filter=${encodeURIComponent('ID == "nightly"')}`)).text) as { Status: string }[];
    expect(item?.Status).toBe("dead");
  });

  it.each([
    ["", "Request body is empty"],
    ["[]", 'the body must be an object such as {"By": "10m"}'],
    [{ By: "soon" }, '"soon" is not a duration: give milliseconds, or write it as 10m, 1h30m, 250ms or 1.5s'],
    [{ By: -5 }, "-5 is not a duration: give milliseconds, or write it as 10m, 1h30m, 250ms or 1.5s"],
    [{ By: "1m", Until: "x" }, 'unknown field "Until": the body holds By only'],
    // One nanosecond past Go's longest duration, which time.ParseDuration refuses; the same in milliseconds.
    [{ By: "9223372036854775808ns" }, `time: invalid duration "9223372036854775808ns": ${LONGEST}`],
    [{ By: "2562047h47m16.854775808s" }, `time: invalid duration "2562047h47m16.854775808s": ${LONGEST}`],
    [{ By: 9_223_372_036_855 }, "9223372036855 ms is longer than the longest duration, 9223372036854775807ns (2562047h47m16.854775807s): Go's time.Duration is int64 nanoseconds"],
  ])("answers an advance with %j: 400 %s", async (body, message) => {
    const response = await post("/_bexpr/clock/advance", body);
    expect([response.status, response.text]).toEqual([400, message]);
  });

  it("keeps a move of less than a millisecond: what it writes next is stamped that much later", async () => {
    await agent.register(job("before"));
    const moved = await post("/_bexpr/clock/advance", { By: "1us" });
    expect(moved.status).toBe(200);
    const after = await agent.put("/v1/jobs", { Job: job("after") });
    expect(after.status).toBe(200);
    const submitted = async (id: string) => ((await agent.get(`/v1/job/${id}`)).json() as { SubmitTime: bigint }).SubmitTime;
    expect((await submitted("after")) - (await submitted("before"))).toBe(1_000n);
  });

  it("adds, lists, shows and removes scenario rules, which act on the state", async () => {
    const added = await post("/_bexpr/scenarios", { On: "allocation", Select: 'JobID == "doomed"', After: "10s", Set: { ClientStatus: "failed" } });
    expect(added.status).toBe(200);
    const { ID } = added.json() as { ID: string };
    expect(((await agent.get("/_bexpr/scenarios")).json() as { ID: string }[]).map((rule) => rule.ID)).toContain(ID);
    await agent.register(job("doomed", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await post("/_bexpr/clock/advance", { By: "11s" });
    expect((await agent.get(`/_bexpr/scenarios/${ID}`)).json()).toEqual({ ID, Fired: 1, Rule: { On: "allocation", Select: 'JobID == "doomed"', After: "10s", Set: { ClientStatus: "failed" } } });
    // In JavaScript, the same rule in camelCase.
    expect(agent.agent.scenarios.list().find((rule) => rule.id === ID)).toEqual({ id: ID, fired: 1, rule: { on: "allocation", select: 'JobID == "doomed"', after: "10s", set: { ClientStatus: "failed" } } });
    expect((await send(`${agent.url}/_bexpr/scenarios/${ID}`, { method: "DELETE" })).status).toBe(200);
    const gone = await agent.get(`/_bexpr/scenarios/${ID}`);
    expect([gone.status, gone.text]).toEqual([404, `scenario rule "${ID}" not found`]);
  });

  it("answers a rule that cannot be used with a 400 saying why", async () => {
    // Fields are read in any case, as Go's encoding/json reads them.
    const response = await post("/_bexpr/scenarios", { on: "allocation", SET: { ClientStatus: "exploded" } });
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/^ClientStatus must be one of pending, running/);
  });
});

describe("the manual clock's latest time over HTTP", () => {
  const agent = useAgent({ clock: "manual" });
  const advance = (by: string) => send(`${agent.url}/_bexpr/clock/advance`, { method: "POST", body: JSON.stringify({ By: by }) });
  const now = async () => ((await agent.get("/_bexpr/clock")).json() as { Now: string }).Now;

  it("moves the clock to 2262-04-11T23:47:16.854775807Z and not a nanosecond further, a refused move leaving it where it was", async () => {
    const start = await now();
    // The clock starts on a whole millisecond.
    const left = LATEST_CLOCK_NS - BigInt(Date.parse(start)) * 1_000_000n;
    const refusal = (it: string, room: bigint, by: bigint) =>
      `the clock cannot move past 2262-04-11T23:47:16.854775807Z (9223372036854775807 ns since the epoch, the latest time the reference writes as int64 nanoseconds): it is ${it}, so it moves by ${room}ns at most, not ${by}ns`;
    const startText = `${start.slice(0, -1)}000000Z`;
    for (const [by, ns] of [
      ["2200000h", 2_200_000n * 3_600_000_000_000n],
      ["9223372036854775807ns", LATEST_CLOCK_NS],
      [`${left + 1n}ns`, left + 1n],
    ] as const) {
      const response = await advance(by);
      expect([response.status, response.text]).toEqual([400, refusal(startText, left, ns)]);
      expect(await now()).toBe(start);
    }
    const moved = await advance(`${left}ns`);
    expect([moved.status, moved.json()]).toEqual([200, { Kind: "manual", Now: "2262-04-11T23:47:16.854Z" }]);
    const past = await advance("1ns");
    expect([past.status, past.text]).toEqual([400, refusal("2262-04-11T23:47:16.854775807Z", 0n, 1n)]);
    // At the latest time, the agent still registers a job, and stamps it with int64 nanoseconds.
    const registered = await agent.put("/v1/jobs", { Job: job("last") });
    expect(registered.status).toBe(200);
    expect(((await agent.get("/v1/job/last")).json() as { SubmitTime: bigint }).SubmitTime).toBe(LATEST_CLOCK_NS);
  });
});

describe("the clock route on the real clock", () => {
  it("refuses to move it", async () => {
    const agent = await startTestAgent({ port: 0, demo: false, logLevel: "silent" });
    try {
      const response = await send(`${agent.url}/_bexpr/clock/advance`, { method: "POST", body: '{"By": "1m"}' });
      expect(response.status).toBe(400);
      expect(response.text).toMatch(/real clock/);
      expect(((await send(`${agent.url}/_bexpr/clock`)).json() as { Kind: string }).Kind).toBe("real");
    } finally {
      await agent.close();
    }
  });
});
