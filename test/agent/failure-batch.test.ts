/**
 * Allocations of a job that fail at the same moment make one `alloc-failure` evaluation, as the
 * reference's server writes its clients' updates of a moment in one batch with one evaluation per
 * job (`Node.UpdateAlloc`, `batchUpdate`); that evaluation sees every failure, and writes one
 * follow-up evaluation for the failures due within 5 s of each other (`createLaterEvals`). On the
 * manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, useAgent } from "./support.js";

type Item = Record<string, any>;

describe("allocations failing at the same moment", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;

  it.each([
    // The simulated clients end both allocations' tasks 20 s after they start, with exit code 1 (their deployment done by then).
    { how: "the finish step (bexpr.run_for, bexpr.exit_code)", id: "ends", fields: { Meta: { "bexpr.run_for": "20s", "bexpr.exit_code": "1" } }, rule: false },
    // A scenario rule fails each running allocation 20 s after it selects them (one write per allocation).
    { how: "a scenario rule", id: "ruled", fields: {}, rule: true },
  ])("through $how: one alloc-failure evaluation, one follow-up for both", async ({ id, fields, rule }) => {
    await agent.register(job(id, { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }], ...fields }));
    await agent.agent.clock.advance("1s");
    const added = rule ? agent.agent.scenarios.add({ on: "allocation", select: `JobID == "${id}" and ClientStatus == "running"`, after: "20s", set: { ClientStatus: "failed" } }) : undefined;
    await agent.agent.clock.advance("20s");

    const allocs = await read<Item[]>(`/v1/job/${id}/allocations`);
    expect(allocs.map((alloc) => alloc.ClientStatus)).toEqual(["failed", "failed"]);
    const evals = await read<Item[]>(`/v1/job/${id}/evaluations`);
    const failures = evals.filter((evaluation) => evaluation.TriggeredBy === "alloc-failure");
    const followups = evals.filter((evaluation) => evaluation.TriggeredBy === "alloc-reschedule");
    expect(failures).toHaveLength(1);
    expect(followups).toHaveLength(1);
    expect(failures[0]).toMatchObject({ Status: "complete", NextEval: followups[0]!.ID });
    expect(allocs.map((alloc) => alloc.FollowupEvalID)).toEqual([followups[0]!.ID, followups[0]!.ID]);
    if (added !== undefined) agent.agent.scenarios.remove(added);
  });

  it("that fail a moment apart, after the first evaluation was processed, make two", async () => {
    await agent.register(job("apart", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("1s");
    const [first, second] = await read<Item[]>(`/v1/job/apart/allocations`);
    const one = agent.agent.scenarios.add({ on: "allocation", select: `ID == "${first!.ID}"`, after: "20s", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("20s");
    const two = agent.agent.scenarios.add({ on: "allocation", select: `ID == "${second!.ID}"`, after: "1s", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("1s");
    const evals = await read<Item[]>(`/v1/job/apart/evaluations`);
    expect(evals.filter((evaluation) => evaluation.TriggeredBy === "alloc-failure")).toHaveLength(2);
    // The second failure's time falls within 5 s of the first's follow-up: it would share it, but the first evaluation wrote its follow-up already.
    expect(evals.filter((evaluation) => evaluation.TriggeredBy === "alloc-reschedule" || evaluation.WaitUntil !== undefined)).toHaveLength(2);
    agent.agent.scenarios.remove(one);
    agent.agent.scenarios.remove(two);
  });
});
