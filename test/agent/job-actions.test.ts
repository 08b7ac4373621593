/**
 * A job's actions as the reference's client calls them (`Jobs().Revert`, `Stable`,
 * `EvaluateWithOpts`): `PUT /v1/job/<id>/revert`, `/stable` and `/evaluate`, with the reference's
 * answers, errors and capabilities, on the manual clock over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { eventually, job, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

const HOUR_NS = 3_600_000_000_000;

function reader(agent: TestAgent) {
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  return {
    read,
    jobOf: (id: string) => read(`/v1/job/${id}`),
    versions: async (id: string) => (await read<{ Versions: Item[] }>(`/v1/job/${id}/versions`)).Versions,
    allocations: (id: string) => read<Item[]>(`/v1/job/${id}/allocations`),
    evaluations: (id: string) => read<Item[]>(`/v1/job/${id}/evaluations`),
  };
}

/** A job of one group whose count is `count`. */
const counted = (id: string, count: number, fields: Record<string, unknown> = {}) => job(id, { TaskGroups: [{ Name: "g", Count: count, Tasks: [{ Name: "t", Driver: "mock" }] }], ...fields });

describe("reverting a job", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { jobOf, versions, allocations, read } = reader(agent);

  it("registers the older version's spec again as the next version, with an evaluation, answered as a registration", async () => {
    await agent.register(counted("rev", 1));
    await agent.register(counted("rev", 3));
    await agent.agent.clock.advance("1s");
    expect((await allocations("rev")).filter((alloc) => alloc.DesiredStatus === "run")).toHaveLength(3);
    const response = await agent.put("/v1/job/rev/revert", { JobID: "rev", JobVersion: 0 });
    expect(response.status).toBe(200);
    const body = response.json<Item>();
    expect(body).toMatchObject({ Warnings: "", JobModifyIndex: body.Index, EvalCreateIndex: body.Index });
    expect(body.EvalID).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(response.headers["x-svc-index"])).toBe(body.Index);
    expect(await jobOf("rev")).toMatchObject({ Version: 2, Stable: false, JobModifyIndex: body.Index, TaskGroups: [{ Count: 1 }] });
    expect((await versions("rev")).map((version) => version.Version)).toEqual([2, 1, 0]);
    expect(await read(`/v1/evaluation/${body.EvalID}`)).toMatchObject({ TriggeredBy: "job-register", JobID: "rev", JobModifyIndex: body.Index });
    await agent.agent.clock.advance("1s");
    expect((await allocations("rev")).filter((alloc) => alloc.DesiredStatus === "run")).toHaveLength(1);
  });

  it("checks EnforcePriorVersion against the job's version", async () => {
    await agent.register(counted("enforced", 1));
    await agent.register(counted("enforced", 2));
    const refused = await agent.put("/v1/job/enforced/revert", { JobID: "enforced", JobVersion: 0, EnforcePriorVersion: 0 });
    expect({ status: refused.status, text: refused.text }).toEqual({ status: 400, text: "Current job has version 1; enforcing version 0" });
    const accepted = await agent.put("/v1/job/enforced/revert", { JobID: "enforced", JobVersion: 0, EnforcePriorVersion: 1 });
    expect(accepted.status).toBe(200);
    expect((await jobOf("enforced")).Version).toBe(2);
  });

  it.each([
    ["the body names no job", "reverr", { JobVersion: 0 }, 400, "JobID must be specified"],
    ["the body names another job", "reverr", { JobID: "other", JobVersion: 0 }, 400, "Job ID does not match"],
    ["there is no body", "reverr", "", 400, "Request body is empty"],
    ["the body is not the request", "reverr", "[]", 400, "json: cannot unmarshal array into Go value of type structs.JobRevertRequest"],
    ["the version is the job's", "reverr", { JobID: "reverr", JobVersion: 1 }, 400, "can't revert to current version"],
    ["the version is not kept", "reverr", { JobID: "reverr", JobVersion: 99 }, 404, 'job "reverr" in namespace "default" at version 99 not found'],
    ["the job does not exist", "nobody", { JobID: "nobody", JobVersion: 0 }, 404, 'job "nobody" not found'],
  ])("answers %s with the reference's text", async (_name, id, body, status, text) => {
    if ((await agent.get("/v1/job/reverr")).status === 404) {
      await agent.register(counted("reverr", 1));
      await agent.register(counted("reverr", 2));
    }
    const response = await agent.put(`/v1/job/${id}/revert`, body);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });
});

describe("marking a job's version stable", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  const { jobOf, versions } = reader(agent);

  it("marks the version and, when it is the job's, the job; answers the write's index", async () => {
    await agent.register(counted("stab", 1));
    await agent.register(counted("stab", 2));
    const older = await agent.put("/v1/job/stab/stable", { JobID: "stab", JobVersion: 0, Stable: true });
    expect(older.status).toBe(200);
    expect(older.json()).toEqual({ Index: Number(older.headers["x-svc-index"]) });
    expect((await versions("stab")).map((version) => [version.Version, version.Stable])).toEqual([
      [1, false],
      [0, true],
    ]);
    expect(await jobOf("stab")).toMatchObject({ Version: 1, Stable: false });
    const current = await agent.put("/v1/job/stab/stable", { JobID: "stab", JobVersion: 1, Stable: true });
    expect(current.status).toBe(200);
    expect(await jobOf("stab")).toMatchObject({ Version: 1, Stable: true, ModifyIndex: current.json<Item>().Index });
    await agent.put("/v1/job/stab/stable", { JobID: "stab", JobVersion: 1, Stable: false });
    expect(await jobOf("stab")).toMatchObject({ Stable: false });
  });

  it.each([
    ["the version is not kept", { JobID: "stab", JobVersion: 9, Stable: true }, 404, 'job "stab" in namespace "default" at version 9 not found'],
    ["the body names another job", { JobID: "x", JobVersion: 0, Stable: true }, 400, "Job ID does not match"],
    ["a version that is not a number", { JobID: "stab", JobVersion: "1", Stable: true }, 400, "json: cannot unmarshal string into Go struct field JobStabilityRequest.JobVersion of type uint64"],
  ])("answers %s with the reference's text", async (_name, body, status, text) => {
    const response = await agent.put("/v1/job/stab/stable", body);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });
});

describe("evaluating a job", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { evaluations, allocations, read } = reader(agent);

  it("writes a job-register evaluation, with no body as with one", async () => {
    await agent.register(counted("again", 1));
    await agent.agent.clock.advance("1s");
    // The answer's JobModifyIndex is the job's ModifyIndex, as the reference's.
    const { ModifyIndex } = await read("/v1/job/again");
    for (const body of ["", { JobID: "again" }]) {
      const response = await agent.put("/v1/job/again/evaluate", body);
      expect(response.status).toBe(200);
      const answer = response.json<Item>();
      expect(answer).toMatchObject({ EvalCreateIndex: answer.Index, JobModifyIndex: ModifyIndex });
      expect((await evaluations("again")).find((evaluation) => evaluation.ID === answer.EvalID)).toMatchObject({ TriggeredBy: "job-register", Type: "service" });
    }
  });

  it("reschedules a failed allocation now with ForceReschedule, whatever its policy's delay", async () => {
    const policy = { Attempts: 1, Interval: 2 * HOUR_NS, Delay: HOUR_NS, DelayFunction: "constant", Unlimited: false };
    await agent.register(job("forced", { TaskGroups: [{ Name: "g", Count: 1, ReschedulePolicy: policy, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("1s");
    const [first] = await allocations("forced");
    const rule = agent.agent.scenarios.add({ on: "allocation", select: `ID == "${first!.ID}"`, after: "10s", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("10s");
    await agent.agent.clock.advance("1s");
    // The policy waits an hour.
    expect(await read(`/v1/allocation/${first!.ID}`)).toMatchObject({ ClientStatus: "failed", DesiredStatus: "run" });
    const response = await agent.put("/v1/job/forced/evaluate", { JobID: "forced", EvalOptions: { ForceReschedule: true } });
    expect(response.status).toBe(200);
    await agent.agent.clock.advance("100ms");
    const failed = await read(`/v1/allocation/${first!.ID}`);
    expect(failed).toMatchObject({ DesiredStatus: "stop", DesiredTransition: { ForceReschedule: true }, DesiredDescription: "alloc was rescheduled because it failed" });
    expect(await read(`/v1/allocation/${failed.NextAllocation}`)).toMatchObject({ PreviousAllocation: first!.ID, DesiredStatus: "run", Name: first!.Name });
    agent.agent.scenarios.remove(rule);
  });

  it.each([
    ["a job that does not exist", "ghost", { JobID: "ghost" }, 404, "job not found"],
    ["a periodic job", "cron", { JobID: "cron" }, 400, "can't evaluate periodic job"],
    ["a parameterized job", "param", { JobID: "param" }, 400, "can't evaluate parameterized job"],
    ["a body that names no job", "cron", { EvalOptions: { ForceReschedule: true } }, 400, "Job ID must be specified"],
    ["a body that names another job", "cron", { JobID: "param" }, 400, "JobID not same as job name"],
  ])("refuses %s with the reference's text", async (_name, id, body, status, text) => {
    if ((await agent.get("/v1/job/cron")).status === 404) {
      await agent.register(job("cron", { Type: "batch", Periodic: { Spec: "*/5 * * * *" } }));
      await agent.register(job("param", { Type: "batch", ParameterizedJob: {} }));
    }
    const response = await agent.put(`/v1/job/${id}/evaluate`, body);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });
});

describe("job actions with ACLs", () => {
  const management = "00000000-0000-4000-8000-000000000001";
  const reader = "00000000-0000-4000-8000-000000000002";
  const fine = "00000000-0000-4000-8000-000000000003";
  const scaler = "00000000-0000-4000-8000-000000000004";
  const agent = useAgent({
    clock: "manual",
    nodes: 1,
    acl: {
      enabled: true,
      bootstrapToken: management,
      policies: [
        { Name: "read", Rules: 'namespace "default" { capabilities = ["read-job", "list-jobs"] }' },
        { Name: "fine", Rules: 'namespace "default" { capabilities = ["revert-job", "stable-job", "evaluate-job"] }' },
        { Name: "scaler", Rules: 'namespace "default" { capabilities = ["scale-job", "read-job-scaling"] }' },
      ],
      tokens: [
        { SecretID: reader, AccessorID: "00000000-0000-4000-8000-0000000000a2", Name: "read", Type: "client", Policies: ["read"] },
        { SecretID: fine, AccessorID: "00000000-0000-4000-8000-0000000000a3", Name: "fine", Type: "client", Policies: ["fine"] },
        { SecretID: scaler, AccessorID: "00000000-0000-4000-8000-0000000000a4", Name: "scaler", Type: "client", Policies: ["scaler"] },
      ],
    },
  });

  it.each([
    ["revert", { JobID: "guarded", JobVersion: 0 }],
    ["stable", { JobID: "guarded", JobVersion: 0, Stable: true }],
    ["evaluate", { JobID: "guarded" }],
  ])("%s needs submit-job or its own capability", async (action, body) => {
    const headers = (token: string) => ({ headers: { "x-svc-token": token } });
    await agent.put("/v1/jobs", { Job: counted("guarded", 1) }, headers(management));
    await agent.put("/v1/jobs", { Job: counted("guarded", 2) }, headers(management));
    const denied = await agent.put(`/v1/job/guarded/${action}`, body, headers(reader));
    expect({ status: denied.status, text: denied.text }).toEqual({ status: 403, text: "Permission denied" });
    expect((await agent.put(`/v1/job/guarded/${action}`, body, headers(fine))).status).toBe(200);
  });

  it("scales with scale-job and reads the scale status with read-job or read-job-scaling", async () => {
    const headers = (token: string) => ({ headers: { "x-svc-token": token } });
    await agent.put("/v1/jobs", { Job: counted("scalable", 1) }, headers(management));
    await agent.agent.clock.advance("11s");
    const scaling = { Count: 2, Target: { Group: "g" } };
    const denied = await agent.put("/v1/job/scalable/scale", scaling, headers(reader));
    expect({ status: denied.status, text: denied.text }).toEqual({ status: 403, text: "Permission denied" });
    expect((await agent.put("/v1/job/scalable/scale", scaling, headers(scaler))).status).toBe(200);
    expect((await agent.get("/v1/job/scalable/scale", headers(reader))).status).toBe(200);
    expect((await agent.get("/v1/job/scalable/scale", headers(scaler))).status).toBe(200);
    expect((await agent.get("/v1/job/scalable/scale", headers(fine))).status).toBe(403);
  });
});

describe("scaling a task group", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { jobOf, allocations, read } = reader(agent);
  const scaling = (count: number | undefined, fields: Record<string, unknown> = {}) => ({ ...(count === undefined ? {} : { Count: count }), Target: { Group: "g" }, Message: "more", ...fields });

  it("writes the group's new count as a version, a job-scaling evaluation and the scaling event, which the scale status shows", async () => {
    const registered = await agent.register(counted("scaled", 1));
    await agent.agent.clock.advance("11s");
    const response = await agent.put("/v1/job/scaled/scale", scaling(3, { Meta: { by: "test" } }));
    expect(response.status).toBe(200);
    const answer = response.json<Item>();
    expect(answer.JobModifyIndex).toBeGreaterThan(registered.JobModifyIndex);
    expect(answer.EvalCreateIndex).toBeGreaterThan(answer.JobModifyIndex);
    expect(answer.Index).toBeGreaterThan(answer.EvalCreateIndex);
    expect(Number(response.headers["x-svc-index"])).toBe(answer.Index);
    expect(await read(`/v1/evaluation/${answer.EvalID}`)).toMatchObject({ TriggeredBy: "job-scaling", JobModifyIndex: answer.JobModifyIndex });
    expect(await jobOf("scaled")).toMatchObject({ Version: 1, JobModifyIndex: answer.JobModifyIndex, TaskGroups: [{ Count: 3 }] });
    await agent.agent.clock.advance("1s");
    expect((await allocations("scaled")).filter((alloc) => alloc.DesiredStatus === "run")).toHaveLength(3);
    const status = await agent.get("/v1/job/scaled/scale");
    expect(status.status).toBe(200);
    const body = status.json<Item>();
    expect(body).toMatchObject({ JobID: "scaled", Namespace: "default", JobStopped: false, TaskGroups: { g: { Desired: 3, Placed: 3, Running: 3, Unhealthy: 0 } } });
    expect(body.TaskGroups.g.Events).toEqual([
      { Time: expect.any(BigInt), Count: 3, PreviousCount: 1, Error: false, Message: "more", Meta: { by: "test" }, EvalID: answer.EvalID, CreateIndex: answer.Index },
    ]);
  });

  it("keeps an event without a count (an error report) and changes nothing else", async () => {
    await agent.register(counted("reported", 2));
    await agent.agent.clock.advance("11s");
    const response = await agent.put("/v1/job/reported/scale", scaling(undefined, { Error: true, Message: "autoscaler failed" }));
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ EvalID: "", EvalCreateIndex: 0 });
    expect((await jobOf("reported")).Version).toBe(0);
    const [event] = (await read("/v1/job/reported/scale")).TaskGroups.g.Events;
    expect(event).toMatchObject({ Count: null, PreviousCount: 2, Error: true, Message: "autoscaler failed", EvalID: null });
  });

  it.each([
    ["a job that does not exist", "ghost", scaling(2), 404, 'job "ghost" not found'],
    ["no group", "bounded", { Count: 2 }, 400, "missing task group name for scaling action"],
    ["a group the job does not have", "bounded", scaling(2, { Target: { Group: "nope" } }), 400, 'task group "nope" specified for scaling does not exist in job'],
    ["a negative count", "bounded", scaling(-1), 400, "scaling action count can't be negative"],
    ["a count with an error", "bounded", scaling(2, { Error: true }), 400, "scaling action should not contain count if error is true"],
    ["a count below the policy's minimum", "bounded", scaling(0), 400, "group count was less than scaling policy minimum: 0 < 1"],
    ["a count above the policy's maximum", "bounded", scaling(9), 400, "group count was greater than scaling policy maximum: 9 > 5"],
    ["another job in the target", "bounded", scaling(2, { Target: { Group: "g", Job: "other" } }), 400, "job ID in payload did not match URL"],
    ["another namespace in the target", "bounded", scaling(2, { Target: { Group: "g", Namespace: "other" } }), 400, "namespace in payload did not match header"],
    ["a stale JobModifyIndex", "bounded", scaling(2, { JobModifyIndex: 1 }), 400, "Enforcing job modify index 1: job exists with conflicting job modify index: "],
    ["a count that is not a number", "bounded", scaling(undefined, { Count: "2" }), 400, "json: cannot unmarshal string into Go struct field ScalingRequest.Count of type int"],
  ])("refuses %s", async (_name, id, body, status, text) => {
    if ((await agent.get("/v1/job/bounded")).status === 404) {
      await agent.register(job("bounded", { TaskGroups: [{ Name: "g", Count: 2, Scaling: { Min: 1, Max: 5 }, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
      await agent.agent.clock.advance("11s");
    }
    const response = await agent.put(`/v1/job/${id}/scale`, body);
    expect(response.status).toBe(status);
    expect(response.text).toContain(text);
  });

  it("refuses a count while a deployment of the job is active", async () => {
    await agent.register(counted("rolling", 1));
    // The scheduler's plan writes the deployment a moment after the registration (a transaction later on PostgreSQL).
    await eventually(async () => ((await agent.get("/v1/job/rolling/deployment")).json<{ Status?: string } | null>()?.Status === "running" ? true : undefined));
    const response = await agent.put("/v1/job/rolling/scale", scaling(2));
    expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: "job scaling blocked due to active deployment" });
  });

  it("answers 404 for the scale status of a job that does not exist", async () => {
    const response = await agent.get("/v1/job/ghost/scale");
    expect({ status: response.status, text: response.text }).toEqual({ status: 404, text: "job not found" });
  });
});
