/**
 * Scenario rules: a bexpr filter selects rows, and a while later some of their fields are set,
 * with what follows (summary counts, the job's status); on the manual clock.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { ScenarioRuleError, type ScenarioRule } from "../../src/server/index.js";
import { job, useAgent } from "./support.js";

describe("scenario rules", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000 });

  async function jobItem(id: string): Promise<{ Status: string; JobSummary: { Summary: Record<string, Record<string, number>> } }> {
    const items = parseJson((await agent.get(`/v1/jobs?filter=${encodeURIComponent(`ID == "${id}"`)}`)).text) as never[];
    return items[0]!;
  }

  it("fails the allocations a rule selects, after its delay, and the summary and job status follow", async () => {
    const id = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "crashy" and TaskGroup == "api"', after: "30s", set: { ClientStatus: "failed" } });
    await agent.register(job("crashy", { Type: "batch", Meta: { "bexpr.run_for": "1h" }, TaskGroups: [{ Name: "api", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }, { Name: "db", Count: 1, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("29s");
    expect((await jobItem("crashy")).JobSummary.Summary).toMatchObject({ api: { Running: 2, Failed: 0 }, db: { Running: 1 } });
    await agent.agent.clock.advance("1s");
    const item = await jobItem("crashy");
    expect(item.JobSummary.Summary).toMatchObject({ api: { Running: 0, Failed: 2 }, db: { Running: 1, Failed: 0 } });
    expect(item.Status).toBe("running");
    expect(agent.agent.scenarios.list().find((rule) => rule.id === id)?.fired).toBe(2);
    agent.agent.scenarios.remove(id);
  });

  it("wakes a blocking query when a rule fires", async () => {
    await agent.register(job("woken", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance("1s");
    const first = await agent.get("/v1/jobs");
    const index = Number(first.headers["x-svc-index"]);
    const waiting = agent.get(`/v1/jobs?index=${index}&wait=30s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const id = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "woken"', after: "5s", set: { ClientStatus: "lost" } });
    await agent.agent.clock.advance("5s");
    const woken = await waiting;
    expect(Number(woken.headers["x-svc-index"])).toBeGreaterThan(index);
    expect((await jobItem("woken")).JobSummary.Summary.g).toMatchObject({ Lost: 1, Running: 0 });
    expect((await jobItem("woken")).Status).toBe("dead");
    agent.agent.scenarios.remove(id);
  });

  it("wakes a blocking query on the job's allocations when a rule fails one", async () => {
    await agent.register(job("watched", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance("1s");
    const first = await agent.get("/v1/job/watched/allocations");
    const index = Number(first.headers["x-svc-index"]);
    expect((parseJson(first.text) as { ClientStatus: string }[]).map((alloc) => alloc.ClientStatus)).toEqual(["running"]);
    const waiting = agent.get(`/v1/job/watched/allocations?index=${index}&wait=30s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const id = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "watched" and ClientStatus == "running"', after: "2m", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("2m");
    const woken = await waiting;
    expect(Number(woken.headers["x-svc-index"])).toBeGreaterThan(index);
    expect((parseJson(woken.text) as { ClientStatus: string; ClientDescription: string }[])[0]).toMatchObject({ ClientStatus: "failed", ClientDescription: "Failed tasks" });
    agent.agent.scenarios.remove(id);
  });

  it("acts on the rows there are when it is added, once for each row", async () => {
    await agent.register(job("later", { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance("2s");
    const id = agent.agent.scenarios.add({ on: "deployment", select: 'JobID == "later"', set: { Status: "failed", StatusDescription: "failed by a scenario" } });
    await agent.agent.clock.advance(0);
    const deployments = parseJson((await agent.get("/v1/deployments")).text) as { JobID: string; Status: string; StatusDescription: string }[];
    expect(deployments.find((deployment) => deployment.JobID === "later")).toMatchObject({ Status: "failed", StatusDescription: "failed by a scenario" });
    expect(agent.agent.scenarios.list().find((rule) => rule.id === id)?.fired).toBe(1);
    agent.agent.scenarios.remove(id);
  });

  it("does nothing once removed, before its time", async () => {
    const id = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "spared"', after: "1m", set: { ClientStatus: "failed" } });
    await agent.register(job("spared", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance("10s");
    expect(agent.agent.scenarios.remove(id)).toBe(true);
    expect(agent.agent.scenarios.remove(id)).toBe(false);
    await agent.agent.clock.advance("2m");
    expect((await jobItem("spared")).JobSummary.Summary.g).toMatchObject({ Running: 1, Failed: 0 });
  });

  it.each<[string, unknown, RegExp]>([
    ["an unknown kind", { on: "job", set: { Status: "dead" } }, /"on" must be one of allocation, deployment, evaluation, node/],
    ["a filter that does not parse", { on: "allocation", select: "JobID = web", set: { ClientStatus: "failed" } }, /"select" is not a valid filter/],
    ["a duration that is not one", { on: "allocation", after: "soon", set: { ClientStatus: "failed" } }, /"after": "soon" is not a duration/],
    ["a field it cannot set", { on: "allocation", set: { JobID: "other" } }, /can set ClientStatus, DesiredStatus, ClientDescription, DesiredDescription, not "JobID"/],
    ["a value the field cannot hold", { on: "allocation", set: { ClientStatus: "exploded" } }, /ClientStatus must be one of pending, running, complete, failed, lost, unknown/],
    ["nothing to set", { on: "node", set: {} }, /"set" must be an object naming the fields to set/],
    ["a field rules do not have", { on: "node", set: { Status: "down" }, when: "now" }, /a rule has no field "when"/],
  ])("refuses %s", (_what, rule, message) => {
    expect(() => agent.agent.scenarios.add(rule as ScenarioRule)).toThrow(ScenarioRuleError);
    expect(() => agent.agent.scenarios.add(rule as ScenarioRule)).toThrow(message);
  });
});
