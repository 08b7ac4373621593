/**
 * The clock and the scenario rules over HTTP, under `/_bexpr/`, for suites in any language.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, startTestAgent, useAgent } from "./support.js";

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
  ])("answers an advance with %j: 400 %s", async (body, message) => {
    const response = await post("/_bexpr/clock/advance", body);
    expect([response.status, response.text]).toEqual([400, message]);
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
