/**
 * The scheduler writes as the reference does, each write its own frame on the event stream: a
 * blocked evaluation, a follow-up evaluation, the plan (allocations, deployments, the job's
 * status) and the evaluation's update are separate writes, as are a client's reports (a failure
 * with its `alloc-failure` evaluation, allocations stopped) and the deployment's health and
 * success. So every frame of the `Evaluation` topic holds one event, as the reference's
 * `TestEvent_Stream` expects. On the manual clock, over real sockets.
 */
import { get } from "node:http";
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, useAgent, type TestAgent } from "./support.js";

interface Event {
  Topic: string;
  Type: string;
  Key: string;
  Index: number;
  Payload: Record<string, Record<string, any>>;
}

interface Frame {
  Index: number;
  Events: Event[];
}

/** The frames the agent's buffer holds from `index` on (`?index=`), read until the heartbeat after them. */
function framesFrom(agent: TestAgent, index: number, query = ""): Promise<Frame[]> {
  return new Promise((resolve, reject) => {
    const request = get(`${agent.url}/v1/event/stream?index=${index}${query}`, { agent: false }, (response) => {
      response.setEncoding("utf8");
      let partial = "";
      let heartbeats = 0;
      const frames: Frame[] = [];
      response.on("data", (chunk: string) => {
        const lines = (partial + chunk).split("\n");
        partial = lines.pop()!;
        for (const line of lines) {
          if (line === "{}") heartbeats++;
          else frames.push(parseJson(line) as Frame);
        }
        // The first heartbeat comes at once, the second after the buffered frames.
        if (heartbeats >= 2) {
          request.destroy();
          resolve(frames);
        }
      });
    });
    request.on("error", (error) => (error.message === "socket hang up" ? undefined : reject(error)));
  });
}

const topics = (frame: Frame) => frame.Events.map((event) => event.Topic);
const evaluationOf = (frame: Frame) => frame.Events.find((event) => event.Topic === "Evaluation")?.Payload.Evaluation;

describe("the scheduler's writes, on a cluster without nodes", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 0, eventHeartbeatMs: 100 });

  it("are a frame each: the registration, the blocked evaluation, the plan, the evaluation's update", async () => {
    const registered = await agent.register(job("web"));
    await agent.agent.clock.advance(0);
    const frames = await framesFrom(agent, registered.Index);
    expect(frames.map(topics)).toEqual([["Job", "Evaluation"], ["Evaluation"], ["Job", "Deployment"], ["Evaluation"]]);
    expect(frames.map((frame) => frame.Index)).toEqual([0, 1, 2, 3].map((step) => registered.Index + step));
    const [, blocked, plan, update] = frames;
    expect(evaluationOf(blocked!)).toMatchObject({ Status: "blocked", PreviousEval: registered.EvalID });
    expect(plan!.Events.map((event) => event.Payload.Job?.Status ?? event.Payload.Deployment?.Status)).toEqual(["running", "running"]);
    expect(evaluationOf(update!)).toMatchObject({ ID: registered.EvalID, Status: "complete", BlockedEval: evaluationOf(blocked!)!.ID });

    // What the reference's TestEvent_Stream reads: the Evaluation topic from the start, one event a frame.
    const evaluations = await framesFrom(agent, 0, "&topic=Evaluation");
    expect(evaluations.length).toBeGreaterThanOrEqual(3);
    for (const frame of evaluations) expect(frame.Events).toHaveLength(1);
  });
});

describe("the scheduler's writes, on a cluster with nodes", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3, eventHeartbeatMs: 100 });

  it("place a job in the plan's frame, complete its evaluation in the next, and report health and success apart", async () => {
    const registered = await agent.register(job("web", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    // Running at half the placement delay, healthy 10 s (the default MinHealthyTime) later.
    await agent.agent.clock.advance("10.5s");
    const frames = await framesFrom(agent, registered.Index);
    expect(frames.map(topics)).toEqual([
      ["Job", "Evaluation"],
      ["Job", "Allocation", "Allocation", "Deployment"],
      ["Evaluation"],
      ["Allocation", "Allocation"],
      ["Allocation", "Allocation", "Deployment"],
      ["Job", "Deployment"],
    ]);
    const [, plan, update, running, healthy, success] = frames;
    expect(plan!.Events[0]!.Payload.Job).toMatchObject({ Status: "running" });
    expect(plan!.Events[3]!.Payload.Deployment).toMatchObject({ Status: "running", TaskGroups: { g: { PlacedAllocs: 2 } } });
    expect(evaluationOf(update!)).toMatchObject({ ID: registered.EvalID, Status: "complete", DeploymentID: plan!.Events[3]!.Key });
    expect(running!.Events.map((event) => event.Payload.Allocation!.ClientStatus)).toEqual(["running", "running"]);
    expect(healthy!.Events[2]!.Payload.Deployment).toMatchObject({ Status: "running", TaskGroups: { g: { HealthyAllocs: 2 } } });
    expect(success!.Events.map((event) => event.Payload.Job?.Stable ?? event.Payload.Deployment?.Status)).toEqual([true, "successful"]);
  });

  it("stop a job in the plan's frame, and its clients report the allocations stopped in one of their own", async () => {
    await agent.register(job("stopped", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("10.5s");
    const stop = await send(`${agent.url}/v1/job/stopped`, { method: "DELETE" });
    const { Index } = stop.json<{ Index: number }>();
    await agent.agent.clock.advance(0);
    const frames = (await framesFrom(agent, Index)).map((frame) => ({ ...frame, Events: frame.Events.filter((event) => event.Key === "stopped" || event.Payload[event.Topic]?.JobID === "stopped") }));
    expect(frames.map(topics)).toEqual([["Job", "Evaluation"], ["Job", "Allocation", "Allocation"], ["Job", "Evaluation"], ["Allocation", "Allocation"]]);
    const [, plan, , clients] = frames;
    expect(plan!.Events.slice(1).map((event) => [event.Payload.Allocation!.DesiredStatus, event.Payload.Allocation!.ClientStatus])).toEqual([
      ["stop", "running"],
      ["stop", "running"],
    ]);
    expect(clients!.Events.map((event) => event.Payload.Allocation!.ClientStatus)).toEqual(["complete", "complete"]);
  });

  it("report a failure with its evaluation, then the follow-up evaluation, the plan and the update, each apart", async () => {
    await agent.register(job("flaky"));
    await agent.agent.clock.advance("10.5s");
    const rule = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "flaky"', after: "1s", set: { ClientStatus: "failed" } });
    const before = Number((await agent.get("/v1/jobs")).headers["x-svc-index"]);
    await agent.agent.clock.advance("1s");
    const frames = (await framesFrom(agent, before + 1)).filter((frame) => frame.Events.some((event) => event.Key === "flaky" || event.Payload[event.Topic]?.JobID === "flaky"));
    expect(frames.map(topics)).toEqual([["Job", "Evaluation", "Allocation"], ["Evaluation"], ["Allocation"], ["Evaluation"]]);
    const [failure, followup, plan, update] = frames;
    expect(failure!.Events.map((event) => event.Payload.Job?.Status ?? event.Payload.Evaluation?.TriggeredBy ?? event.Payload.Allocation?.ClientStatus)).toEqual(["pending", "alloc-failure", "failed"]);
    expect(evaluationOf(followup!)).toMatchObject({ TriggeredBy: "alloc-reschedule", Status: "pending" });
    expect(plan!.Events[0]!.Payload.Allocation).toMatchObject({ FollowupEvalID: evaluationOf(followup!)!.ID });
    expect(evaluationOf(update!)).toMatchObject({ TriggeredBy: "alloc-failure", Status: "complete", NextEval: evaluationOf(followup!)!.ID });
    agent.agent.scenarios.remove(rule);
  });
});
