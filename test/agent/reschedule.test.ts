/**
 * Failed allocations rescheduled as the reference does (`ReschedulePolicy`): the client's failure
 * brings an `alloc-failure` evaluation, whose processing writes a follow-up evaluation waiting
 * for the policy's delay (the job `pending` meanwhile); the follow-up places the replacement,
 * which names the failed allocation and carries its reschedule tracker. On the manual clock,
 * over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { goTime } from "../../src/go/time.js";
import { job, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

const SECOND_NS = 1_000_000_000;

function reader(agent: TestAgent) {
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  return {
    read,
    allocations: (id: string) => read<Item[]>(`/v1/job/${id}/allocations`),
    allocation: (id: string) => read(`/v1/allocation/${id}`),
    evaluations: (id: string) => read<Item[]>(`/v1/job/${id}/evaluations`),
    jobStatus: async (id: string) => (await read(`/v1/job/${id}`)).Status as string,
    summary: async (id: string) => (await read<{ Summary: Record<string, Record<string, number>> }>(`/v1/job/${id}/summary`)).Summary.g!,
  };
}

describe("a failed allocation of a service job", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { allocations, allocation, evaluations, jobStatus, summary } = reader(agent);
  const nowMs = () => agent.agent.clock.now().getTime();

  it("is rescheduled 30 s after it failed, by a follow-up evaluation that keeps the job pending meanwhile", async () => {
    await agent.register(job("web"));
    await agent.agent.clock.advance("1s");
    const [first] = await allocations("web");
    const rule = agent.agent.scenarios.add({ on: "allocation", select: `ID == "${first!.ID}"`, after: "10s", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("10s");
    const failedAt = nowMs();

    const evals = await evaluations("web");
    const failure = evals.find((evaluation) => evaluation.TriggeredBy === "alloc-failure")!;
    const followup = evals.find((evaluation) => evaluation.TriggeredBy === "alloc-reschedule")!;
    expect(failure).toMatchObject({ Status: "complete", NextEval: followup.ID, JobID: "web", Type: "service" });
    expect(followup).toMatchObject({ Status: "pending", PreviousEval: failure.ID, StatusDescription: "created for delayed rescheduling", WaitUntil: goTime(failedAt + 30_000) });
    expect(await allocation(first!.ID)).toMatchObject({ ClientStatus: "failed", DesiredStatus: "run", FollowupEvalID: followup.ID });
    expect(await jobStatus("web")).toBe("pending");
    expect(await summary("web")).toMatchObject({ Failed: 1, Running: 0, Starting: 0 });

    await agent.agent.clock.advance("29s");
    expect(await allocations("web")).toHaveLength(1);
    await agent.agent.clock.advance("1s");
    const failed = await allocation(first!.ID);
    expect(failed).toMatchObject({ ClientStatus: "failed", DesiredStatus: "stop", DesiredDescription: "alloc was rescheduled because it failed" });
    const replacement = await allocation(failed.NextAllocation);
    expect(replacement).toMatchObject({ Name: first!.Name, PreviousAllocation: first!.ID, EvalID: followup.ID, DesiredStatus: "run" });
    expect(replacement.NodeID).not.toBe(first!.NodeID);
    expect(replacement.RescheduleTracker).toEqual({
      Events: [{ RescheduleTime: BigInt(failedAt + 30_000) * 1_000_000n, PrevAllocID: first!.ID, PrevNodeID: first!.NodeID, Delay: 30 * SECOND_NS }],
      LastReschedule: "ok",
    });
    expect((await evaluations("web")).find((evaluation) => evaluation.ID === followup.ID)).toMatchObject({ Status: "complete" });
    expect(await jobStatus("web")).toBe("running");
    await agent.agent.clock.advance("1s");
    expect(await summary("web")).toMatchObject({ Failed: 1, Running: 1 });
    agent.agent.scenarios.remove(rule);
  });

  it("waits twice as long after each failure (the default policy is exponential, unlimited)", async () => {
    await agent.register(job("crashing"));
    await agent.agent.clock.advance("1s");
    const rule = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "crashing" and ClientStatus == "running"', after: "10s", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("10s");
    await agent.agent.clock.advance("30s");
    // The replacement runs half a second after it is placed, and fails ten seconds later.
    await agent.agent.clock.advance("10500ms");
    const secondFailure = nowMs();
    const followups = (await evaluations("crashing")).filter((evaluation) => evaluation.WaitUntil !== undefined);
    expect(followups.map((evaluation) => evaluation.WaitUntil)).toContain(goTime(secondFailure + 60_000));
    await agent.agent.clock.advance("59s");
    expect((await allocations("crashing")).filter((alloc) => alloc.ClientStatus !== "failed")).toEqual([]);
    await agent.agent.clock.advance("1s");
    const third = (await allocations("crashing")).find((alloc) => alloc.ClientStatus === "pending")!;
    const tracker = (await allocation(third.ID)).RescheduleTracker;
    expect(tracker.Events.map((event: Item) => event.Delay)).toEqual([30 * SECOND_NS, 60 * SECOND_NS]);
    agent.agent.scenarios.remove(rule);
  });

  it("is replaced once the deployment's watcher lets it be, when it failed before the deployment was healthy", async () => {
    await agent.register(job("early", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    const rule = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "early" and Name == "early.g[0]" and ClientStatus == "running"', after: "100ms", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("600ms");
    const [deployment] = await reader(agent).read<Item[]>("/v1/job/early/deployments");
    expect(deployment!.TaskGroups.g).toMatchObject({ PlacedAllocs: 2, UnhealthyAllocs: 1, HealthyAllocs: 0 });
    // A second later the watcher allows the replacement; the deployment goes on (the other allocation is healthy once it has run 10 s, MinHealthyTime).
    await agent.agent.clock.advance("1s");
    const failed = (await allocations("early")).find((alloc) => alloc.ClientStatus === "failed")!;
    expect(await allocation(failed.ID)).toMatchObject({ DeploymentStatus: { Healthy: false }, DesiredTransition: { Reschedule: true } });
    expect((await evaluations("early")).map((evaluation) => evaluation.TriggeredBy)).toContain("deployment-watcher");
    expect((await reader(agent).read<Item[]>("/v1/job/early/deployments"))[0]).toMatchObject({ Status: "running", TaskGroups: { g: { HealthyAllocs: 0 } } });
    agent.agent.scenarios.remove(rule);
    await agent.agent.clock.advance("30s");
    const replacement = await allocation((await allocation(failed.ID)).NextAllocation);
    expect(replacement).toMatchObject({ Name: "early.g[0]", PreviousAllocation: failed.ID, DeploymentID: deployment!.ID });
    // Placed at 30.6 s, it runs at 31.1 s and is healthy 10 s later.
    await agent.agent.clock.advance("10s");
    expect((await reader(agent).read<Item[]>("/v1/job/early/deployments"))[0]).toMatchObject({ Status: "successful", TaskGroups: { g: { HealthyAllocs: 2, UnhealthyAllocs: 1, PlacedAllocs: 3 } } });
  });

  it("is not rescheduled when its group's policy allows no attempt", async () => {
    const noReschedule = { Attempts: 0, Unlimited: false, Interval: 0, Delay: 0, DelayFunction: "constant", MaxDelay: 0 };
    await agent.register(job("once", { TaskGroups: [{ Name: "g", ReschedulePolicy: noReschedule, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    // Its deployment is successful first (healthy 10 s after it runs), so the failure does not fail it.
    await agent.agent.clock.advance("10.5s");
    const rule = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "once"', after: "1s", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("1m");
    expect((await evaluations("once")).map((evaluation) => evaluation.TriggeredBy)).toEqual(["job-register"]);
    expect(await jobStatus("once")).toBe("dead");
    agent.agent.scenarios.remove(rule);
  });
});

describe("a failed allocation of a batch job", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { allocations, allocation, evaluations, jobStatus } = reader(agent);

  it("is rescheduled once a day, 5 s after it failed; the job is dead once its replacement fails too", async () => {
    await agent.register(job("nightly", { Type: "batch", Meta: { "bexpr.run_for": "1m", "bexpr.exit_code": "2" } }));
    await agent.agent.clock.advance("60500ms");
    const [first] = await allocations("nightly");
    expect(first).toMatchObject({ ClientStatus: "failed" });
    const followup = (await evaluations("nightly")).find((evaluation) => evaluation.TriggeredBy === "alloc-reschedule")!;
    expect(followup.WaitUntil).toBe(goTime(agent.agent.clock.now().getTime() + 5000));
    expect(await jobStatus("nightly")).toBe("pending");
    await agent.agent.clock.advance("5s");
    const replacement = await allocation((await allocation(first!.ID)).NextAllocation);
    expect(replacement.RescheduleTracker.Events).toMatchObject([{ PrevAllocID: first!.ID, Delay: 5 * SECOND_NS }]);
    await agent.agent.clock.advance("61s");
    expect((await allocations("nightly")).map((alloc) => alloc.ClientStatus)).toEqual(["failed", "failed"]);
    // One attempt a day: no evaluation for the second failure.
    expect((await evaluations("nightly")).filter((evaluation) => evaluation.TriggeredBy === "alloc-failure")).toHaveLength(1);
    expect(await jobStatus("nightly")).toBe("dead");
  });
});
