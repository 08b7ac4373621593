/**
 * The rules' cost budget as a test suite meets it: `limits.rulesCostPerWrite`, and the rules it
 * stopped shown with their `LastError` in the scenario list, while the write succeeds.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, useAgent } from "./support.js";

/** Twenty small tasks (all ten allocations fit on the three nodes; at the default 300 MB a task, two would fill a node). */
const TASKS = Array.from({ length: 20 }, (_, i) => ({ Name: `task-${i}`, Driver: "mock", Resources: { CPU: 20, MemoryMB: 32 } }));
const COSTLY = 'any TaskRun.Tasks as a { any TaskRun.Tasks as b { a == b and a == "none" } }';

describe("the rules' cost budget of one write, over HTTP", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, limits: { rulesCostPerWrite: 1000 } });

  it("lists the rules past the budget with why they stopped, while the job is placed and a rule within it fires", async () => {
    for (const rule of [
      { on: "allocation", select: 'JobID == "web"', after: "1m", set: { ClientStatus: "failed" } },
      { on: "allocation", select: COSTLY, set: { ClientStatus: "lost" } },
    ]) {
      expect((await agent.put("/_bexpr/scenarios", rule, { method: "POST" })).status).toBe(200);
    }
    await agent.register(job("web", { TaskGroups: [{ Name: "g", Count: 10, Tasks: TASKS }] }));
    await agent.agent.clock.advance("1m");
    const listed = parseJson((await agent.get("/_bexpr/scenarios")).text) as { ID: string; Fired: number; LastError?: string }[];
    expect(listed.map((rule) => [rule.ID, rule.Fired, rule.LastError === undefined])).toEqual([
      ["rule-1", 10, true],
      ["rule-2", 0, false],
    ]);
    expect(listed[1]!.LastError).toMatch(/^rule "rule-2" stopped: the rules' filters exceeded their cost budget of 1000 units for the write at index \d+ \(limits\.rulesCostPerWrite\)/);
    expect(agent.agent.scenarios.list()[1]!.lastError).toBe(listed[1]!.LastError);
    const allocs = parseJson((await agent.get("/v1/job/web/allocations")).text) as { ClientStatus: string }[];
    expect(allocs.map((alloc) => alloc.ClientStatus)).toEqual(Array(10).fill("failed"));
  });
});
