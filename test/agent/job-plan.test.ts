/**
 * A job's plan (`PUT /v1/job/<id>/plan`, the reference's `Jobs().Plan`): the scheduler's decisions
 * for a job's next version on the state as it is (`DesiredTGUpdates`, `FailedTGAllocs`, the job's
 * `JobModifyIndex` for `-check-index`), the diff annotated with them, and nothing written. On the
 * manual clock over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { eventually, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

/** A service job of one group `g` of `count` allocations whose task runs `image`. */
const service = (id: string, fields: { count?: number; image?: string; priority?: number; update?: Item; cpu?: number; stop?: boolean } = {}) => ({
  ID: id,
  Priority: fields.priority ?? 50,
  ...(fields.update === undefined ? {} : { Update: fields.update }),
  ...(fields.stop === undefined ? {} : { Stop: fields.stop }),
  TaskGroups: [
    {
      Name: "g",
      Count: fields.count ?? 2,
      Tasks: [{ Name: "t", Driver: "docker", Config: { image: fields.image ?? "web:1" }, ...(fields.cpu === undefined ? {} : { Resources: { CPU: fields.cpu, MemoryMB: 64 } }) }],
    },
  ],
});

/** Reads of the agent's state that a plan must leave as they were. */
async function stateOf(agent: TestAgent, id: string) {
  const read = async (path: string) => parseJson((await agent.get(path)).text) as Item;
  const job = (await agent.get(`/v1/job/${id}`)).status === 200 ? await read(`/v1/job/${id}`) : undefined;
  return {
    index: Number((await agent.get("/v1/jobs")).headers["x-svc-index"]),
    job: job === undefined ? undefined : { Version: job.Version, JobModifyIndex: job.JobModifyIndex, ModifyIndex: job.ModifyIndex },
    evaluations: (await read("/v1/evaluations")).length,
    allocations: (await read("/v1/allocations")).length,
    deployments: (await read("/v1/deployments")).length,
  };
}

/** The agent's whole state and its index: a plan that wrote anything (an event is made by a write) changes it. */
async function wholeState(agent: TestAgent) {
  const { Index, Tables } = await agent.agent.snapshot();
  return { Index, Tables };
}

const plan = async (agent: TestAgent, job: Item, diff = true) => agent.put(`/v1/job/${job.ID}/plan`, { Job: job, Diff: diff });

describe("a job's plan", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const running = async (id: string) => ((await agent.get(`/v1/job/${id}/allocations`)).json<Item[]>()).filter((alloc) => alloc.DesiredStatus === "run");

  /** Registers version 0 of a job and waits for its allocations. */
  const deployed = async (job: Item, count: number) => {
    await agent.register(job);
    await agent.agent.clock.advance(0);
    await eventually(async () => ((await running(job.ID as string)).length === count ? true : undefined));
    await agent.agent.clock.advance("11s");
  };

  const zero = { Ignore: 0, Place: 0, Migrate: 0, Stop: 0, InPlaceUpdate: 0, DestructiveUpdate: 0, Canary: 0, Preemptions: 0, Disconnect: 0, Reconnect: 0, RescheduleNow: 0, RescheduleLater: 0 };

  it.each([
    { name: "a new job places its count", before: undefined, after: service("p-new", { count: 3 }), updates: { Place: 3 }, diff: "Added", groupUpdates: { create: 3 } },
    { name: "a count from 2 to 4 places 2 and keeps 2", before: service("p-count"), after: service("p-count", { count: 4 }), updates: { Place: 2, InPlaceUpdate: 2 }, diff: "Edited", groupUpdates: { create: 2, "in-place update": 2 } },
    { name: "a count from 2 to 1 stops 1", before: service("p-down"), after: service("p-down", { count: 1 }), updates: { Stop: 1, InPlaceUpdate: 1 }, diff: "Edited", groupUpdates: { destroy: 1, "in-place update": 1 } },
    {
      name: "a new image replaces every allocation MaxParallel lets it",
      before: service("p-image", { update: { MaxParallel: 2 } }),
      after: service("p-image", { image: "web:2", update: { MaxParallel: 2 } }),
      updates: { DestructiveUpdate: 2 },
      diff: "Edited",
      groupUpdates: { "create/destroy update": 2 },
    },
    { name: "a new image replaces one at a time by default", before: service("p-image1"), after: service("p-image1", { image: "web:2" }), updates: { DestructiveUpdate: 1, Ignore: 1 }, diff: "Edited", groupUpdates: { "create/destroy update": 1, ignore: 1 } },
    { name: "a new priority updates in place", before: service("p-prio"), after: service("p-prio", { priority: 70 }), updates: { InPlaceUpdate: 2 }, diff: "Edited", groupUpdates: { "in-place update": 2 } },
    { name: "the same job ignores its allocations", before: service("p-same"), after: service("p-same"), updates: { Ignore: 2 }, diff: "None", groupUpdates: { ignore: 2 } },
    {
      name: "a new image with a canary places the canary only",
      before: service("p-canary", { update: { MaxParallel: 1, Canary: 1 } }),
      after: service("p-canary", { image: "web:2", update: { MaxParallel: 1, Canary: 1 } }),
      updates: { Canary: 1, Ignore: 2 },
      diff: "Edited",
      groupUpdates: { canary: 1, ignore: 2 },
    },
    { name: "a stopped job stops its allocations", before: service("p-stop"), after: service("p-stop", { stop: true }), updates: { Stop: 2 }, diff: "Edited", groupUpdates: { destroy: 2 } },
  ])("$name", async ({ before, after, updates, diff, groupUpdates }) => {
    if (before !== undefined) await deployed(before, before.TaskGroups[0]!.Count);
    const state = await stateOf(agent, after.ID);
    const whole = await wholeState(agent);
    const response = await plan(agent, after);
    expect(response.status, response.text).toBe(200);
    const body = response.json<Item>();
    expect(body.Annotations.DesiredTGUpdates).toEqual({ g: { ...zero, ...updates } });
    expect(body.FailedTGAllocs).toBeNull();
    expect(body.Diff.Type).toBe(diff);
    expect(body.Diff.TaskGroups[0].Updates).toEqual(groupUpdates);
    expect(body.JobModifyIndex).toBe(state.job?.JobModifyIndex ?? 0);
    expect(Number(response.headers["x-svc-index"])).toBe(state.job?.JobModifyIndex ?? 0);
    expect(await stateOf(agent, after.ID)).toEqual(state);
    expect(await wholeState(agent)).toEqual(whole);
  });

  it("answers a job that does not fit with the group's failed allocation metrics and a blocked evaluation, writing neither", async () => {
    const state = await stateOf(agent, "p-huge");
    const whole = await wholeState(agent);
    const response = await plan(agent, service("p-huge", { count: 1, cpu: 10_000_000 }));
    expect(response.status, response.text).toBe(200);
    const body = response.json<Item>();
    expect(body.Annotations.DesiredTGUpdates.g).toMatchObject({ Place: 1 });
    expect(body.FailedTGAllocs.g).toMatchObject({ NodesEvaluated: 3, NodesExhausted: 3 });
    expect(body.FailedTGAllocs.g.DimensionExhausted).toMatchObject({ cpu: 3 });
    expect(body.CreatedEvals).toHaveLength(1);
    expect(body.CreatedEvals[0]).toMatchObject({ Status: "blocked", TriggeredBy: "queued-allocs", JobID: "p-huge" });
    expect(await stateOf(agent, "p-huge")).toEqual(state);
    expect(await wholeState(agent)).toEqual(whole);
    expect((await agent.get(`/v1/evaluation/${body.CreatedEvals[0].ID}`)).status).toBe(404);
  });

  it("plans a system job on each node, then updates it in place", async () => {
    const system = (priority: number) => ({ ID: "p-system", Type: "system", Priority: priority, TaskGroups: [{ Name: "g", Count: 1, Tasks: [{ Name: "t", Driver: "mock" }] }] });
    const first = (await plan(agent, system(50))).json<Item>();
    expect(first.Annotations.DesiredTGUpdates.g).toEqual({ ...zero, Place: 3 });
    await deployed(system(50), 3);
    const second = (await plan(agent, system(60))).json<Item>();
    expect(second.Annotations.DesiredTGUpdates.g).toEqual({ ...zero, InPlaceUpdate: 3 });
  });

  it("annotates the diff's Count and task as the reference does", async () => {
    await deployed(service("p-annotate"), 2);
    const body = (await plan(agent, service("p-annotate", { count: 3, image: "web:2" }))).json<Item>();
    const group = body.Diff.TaskGroups[0];
    expect(group.Fields.find((field: Item) => field.Name === "Count")).toMatchObject({ Old: "2", New: "3", Annotations: ["forces create"] });
    expect(group.Tasks[0]).toMatchObject({ Type: "Edited", Annotations: ["forces create/destroy update"] });
  });

  it("omits the diff unless asked", async () => {
    const body = (await plan(agent, service("p-nodiff"), false)).json<Item>();
    expect(body.Diff).toBeNull();
    expect(body.NextPeriodicLaunch).toBe("0001-01-01T00:00:00Z");
  });

  it("answers a periodic job's next launch", async () => {
    const periodic = { ID: "p-cron", Type: "batch", Periodic: { Enabled: true, SpecType: "cron", Spec: "0 * * * *" }, TaskGroups: [{ Name: "g", Count: 1, Tasks: [{ Name: "t", Driver: "mock" }] }] };
    const body = (await plan(agent, periodic)).json<Item>();
    const next = Date.parse(body.NextPeriodicLaunch);
    const now = agent.agent.clock.now().getTime();
    expect(next).toBeGreaterThan(now);
    expect(next - now).toBeLessThanOrEqual(3_600_000);
    expect(new Date(next).getUTCMinutes()).toBe(0);
  });

  it("gives the JobModifyIndex a check-index registration enforces", async () => {
    await deployed(service("p-check"), 2);
    const body = (await plan(agent, service("p-check", { count: 3 }))).json<Item>();
    const accepted = await agent.put("/v1/jobs", { Job: service("p-check", { count: 3 }), EnforceIndex: true, JobModifyIndex: body.JobModifyIndex });
    expect(accepted.status, accepted.text).toBe(200);
    const stale = await agent.put("/v1/jobs", { Job: service("p-check", { count: 4 }), EnforceIndex: true, JobModifyIndex: body.JobModifyIndex });
    expect(stale.status).toBe(400);
  });

  it.each([
    ["no job", {}, 400, "Job must be specified"],
    ["a job without an ID", { Job: { Name: "x" } }, 400, "Job must have a valid ID"],
    ["another job's ID", { Job: { ID: "other", TaskGroups: [] } }, 400, "Job ID does not match"],
    ["a body that is not the request", [], 400, "json: cannot unmarshal array into Go value of type api.JobPlanRequest"],
  ])("refuses %s", async (_name, body, status, text) => {
    const response = await agent.put("/v1/job/p-refused/plan", body);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });

  it("refuses a job that does not validate with the validation's errors", async () => {
    const response = await agent.put("/v1/job/p-invalid/plan", { Job: { ID: "p-invalid", TaskGroups: [] } });
    expect(response.status).toBe(400);
    expect(response.text).toContain("Missing job task groups");
  });
});

const ROOT = "00000000-0000-4000-8000-000000000001";
const PLANNER = "00000000-0000-4000-8000-000000000002";
const READER = "00000000-0000-4000-8000-000000000003";

describe("a job's plan under ACLs", () => {
  const agent = useAgent({
    clock: "manual",
    nodes: 1,
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "planner", Rules: 'namespace "default" { capabilities = ["plan-job"] }' },
        { Name: "reader", Rules: 'namespace "default" { capabilities = ["read-job"] }' },
      ],
      tokens: [
        { SecretID: PLANNER, Name: "planner", Type: "client", Policies: ["planner"] },
        { SecretID: READER, Name: "reader", Type: "client", Policies: ["reader"] },
      ],
    },
  });

  it.each([
    ["plan-job", PLANNER, 200],
    ["read-job only", READER, 403],
    ["no token", "", 403],
    ["management", ROOT, 200],
  ])("answers a token with %s", async (_name, token, status) => {
    const response = await agent.put("/v1/job/acl-plan/plan", { Job: service("acl-plan") }, token === "" ? {} : { headers: { "x-svc-token": token } });
    expect(response.status, response.text).toBe(status);
  });

  it("needs sentinel-override for PolicyOverride", async () => {
    const response = await agent.put("/v1/job/acl-plan/plan", { Job: service("acl-plan"), PolicyOverride: true }, { headers: { "x-svc-token": PLANNER } });
    expect(response.status).toBe(403);
  });
});
