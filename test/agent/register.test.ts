import { describe, expect, it } from "vitest";
import { eventually, job, useAgent } from "./support.js";

// A long placement delay: deployments stay running unless a test waits for them.
const agent = useAgent({ placementDelayMs: 60_000 });

interface Stub {
  ID: string;
  Name: string;
  Namespace: string;
  Type: string;
  Priority: number;
  Status: string;
  SubmitTime: bigint;
  JobModifyIndex: number;
  JobSummary: { Children: unknown; Summary: Record<string, Record<string, number>> };
  Meta?: Record<string, string>;
}

interface DeploymentItem {
  ID: string;
  JobID: string;
  JobVersion: number;
  Status: string;
  StatusDescription: string;
  TaskGroups: Record<string, Record<string, unknown>>;
}

async function jobs(query = ""): Promise<Stub[]> {
  return (await agent.get(`/v1/jobs${query}`)).json<Stub[]>();
}

async function deployments(query = ""): Promise<DeploymentItem[]> {
  return (await agent.get(`/v1/deployments${query}`)).json<DeploymentItem[]>();
}

describe("PUT /v1/jobs: refusals", () => {
  it.each([
    ["", "Request body is empty"],
    ["   ", "EOF"],
    ["{not json", "invalid character 'n' looking for beginning of object key string"],
    ['{"Job": {"ID": "x",}}', "invalid character '}' looking for beginning of object key string"],
    ['{"Job": {"ID" "x"}}', "invalid character '\"' after object key"],
    ['{"Job": tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"Job": {"ID": "x"}', "unexpected EOF"],
    ["x", "invalid character 'x' looking for beginning of value"],
    ["{}", "Job must be specified"],
    ['{"Job": null}', "Job must be specified"],
    ["null", "Job must be specified"],
    ['{"Job": {"Name": "x"}}', "Job ID hasn't been provided"],
    ['{"Job": {"ID": null}}', "Job ID hasn't been provided"],
    ['{"Job": "x"}', "json: cannot unmarshal string into Go struct field JobRegisterRequest.Job of type api.Job"],
    ['{"Job": {"ID": 5}}', "json: cannot unmarshal number into Go struct field JobRegisterRequest.Job.ID of type string"],
    ['{"Job": {"ID": "x", "Priority": 1.5}}', "json: cannot unmarshal number 1.5 into Go struct field JobRegisterRequest.Job.Priority of type int"],
    ["[]", "json: cannot unmarshal array into Go value of type api.JobRegisterRequest"],
    ['{"Job": {"ID": "x", "TaskGroups": [{"Name": "g", "Tasks": []}]}, "EvalPriority": 101}', "Eval priority must be between 1 and 100 inclusively"],
    [
      '{"Job": {"ID": "x", "Type": "system", "TaskGroups": [{"Name": "g", "Scaling": {"Max": 2}}]}}',
      "Task groups with job type system do not support scaling blocks",
    ],
  ])("answers %j with 400 %j", async (body, text) => {
    const response = await agent.put("/v1/jobs", body);
    expect(response.status).toBe(400);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.text).toBe(text);
  });

  it.each([
    [{ ID: "x" }, "1 error occurred:\n\t* Missing job task groups\n\n"],
    [{ ID: "" }, "3 errors occurred:\n\t* Missing job ID\n\t* Missing job name\n\t* Missing job task groups\n\n"],
    [{ ID: "a b", TaskGroups: [] }, "2 errors occurred:\n\t* Job ID contains a space\n\t* Missing job task groups\n\n"],
    [{ ID: "x", Type: "nope", TaskGroups: [] }, '2 errors occurred:\n\t* Invalid job type: "nope"\n\t* Missing job task groups\n\n'],
    [{ ID: "x", Priority: 101, TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "d" }] }] }, "1 error occurred:\n\t* job priority must be between [1, 100]\n\n"],
    [
      { ID: "x", TaskGroups: [{ Name: "web" }] },
      "1 error occurred:\n\t* Task group web validation failed: 1 error occurred:\n\t* Missing tasks for task group\n\n\n\n",
    ],
    [
      { ID: "x", TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "d" }] }, { Name: "g", Tasks: [{ Name: "t", Driver: "d" }] }] },
      "1 error occurred:\n\t* Job task group 2 redefines 'g' from group 1\n\n",
    ],
    [
      { ID: "x", TaskGroups: [{ Name: "g", Tasks: [{ Name: "t" }] }] },
      "1 error occurred:\n\t* Task group g validation failed: 1 error occurred:\n\t* Task t validation failed: 1 error occurred:\n\t* Missing task driver\n\n\n\n\n\n",
    ],
    [
      { ID: "x", Type: "system", TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "d" }] }] },
      "1 error occurred:\n\t* Job task group g has count 2. Count cannot exceed 1 with system scheduler\n\n",
    ],
    [
      { ID: "x", Periodic: { Spec: "* * * * *" }, TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "d" }] }] },
      '1 error occurred:\n\t* Periodic can only be used with "batch" or "sysbatch" scheduler\n\n',
    ],
  ])("refuses the invalid job %j with 400 and the reference's multi-error text", async (spec, text) => {
    const response = await agent.put("/v1/jobs", { Job: spec });
    expect(response.status).toBe(400);
    expect(response.text).toBe(text);
  });

  it("refuses a job in a namespace that does not exist", async () => {
    const response = await agent.put("/v1/jobs?namespace=nosuch", { Job: job("x") });
    expect(response.status).toBe(400);
    expect(response.text).toBe('1 error occurred:\n\t* job "x" is in nonexistent namespace "nosuch"\n\n');
  });

  it("refuses changing a job's type", async () => {
    await agent.register(job("typed"));
    const response = await agent.put("/v1/jobs", { Job: job("typed", { Type: "batch" }) });
    expect(response.status).toBe(400);
    expect(response.text).toBe('cannot update job from type "service" to "batch"');
  });
});

describe("PUT /v1/jobs: registration", () => {
  it("answers with the reference's fields and the index in X-Svc-Index", async () => {
    const response = await agent.put("/v1/jobs", { Job: job("web") });
    expect(response.status).toBe(200);
    const body = response.json<Record<string, unknown>>();
    expect(Object.keys(body)).toEqual(["EvalID", "EvalCreateIndex", "JobModifyIndex", "Warnings", "Index", "LastContact", "KnownLeader", "NextToken"]);
    expect(body.EvalID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body).toMatchObject({ Warnings: "", LastContact: 0, KnownLeader: false, NextToken: "" });
    expect(response.headers["x-svc-index"]).toBe(String(body.Index));
    expect(body.JobModifyIndex).toBe(body.Index);
    expect(body.EvalCreateIndex).toBe(body.Index);
    expect(response.headers["x-svc-knownleader"]).toBeUndefined();
  });

  it("registers with POST exactly as with PUT", async () => {
    const response = await agent.get("/v1/jobs", { method: "POST", body: JSON.stringify({ Job: job("posted") }) });
    expect(response.status).toBe(200);
    expect((await jobs()).some((stub) => stub.ID === "posted")).toBe(true);
  });

  it("applies the reference's defaults and lists the job as pending, then running", async () => {
    await agent.register(job("defaults"));
    const [stub] = (await jobs()).filter((s) => s.ID === "defaults");
    expect(stub).toMatchObject({ ID: "defaults", Name: "defaults", Namespace: "default", Type: "service", Priority: 50 });
    expect(["pending", "running"]).toContain(stub!.Status);
    expect(stub!.JobSummary.Children).toEqual({ Pending: 0, Running: 0, Dead: 0 });
    expect(stub).not.toHaveProperty("Meta");
    await eventually(async () => ((await jobs()).find((s) => s.ID === "defaults")?.Status === "running" ? true : undefined));
  });

  it("lists the job item's fields in the reference's order", async () => {
    await agent.register(job("ordered", { Meta: { owner: "me" } }));
    const stub = (await agent.get("/v1/jobs?meta=true")).json<Record<string, unknown>[]>().find((s) => s.ID === "ordered")!;
    expect(Object.keys(stub)).toEqual([
      "ID", "ParentID", "Name", "Namespace", "Datacenters", "NodePool", "Multiregion", "Type", "Priority", "Periodic", "ParameterizedJob",
      "Stop", "Status", "StatusDescription", "JobSummary", "CreateIndex", "ModifyIndex", "JobModifyIndex", "SubmitTime", "Meta",
    ]);
    expect(stub.Meta).toEqual({ owner: "me" });
    expect(Object.keys(stub.JobSummary as object)).toEqual(["JobID", "Namespace", "Summary", "Children", "CreateIndex", "ModifyIndex"]);
  });

  it("keeps SubmitTime exact in nanoseconds", async () => {
    const before = BigInt(Date.now()) * 1_000_000n;
    await agent.register(job("timed"));
    const stub = (await jobs()).find((s) => s.ID === "timed")!;
    expect(typeof stub.SubmitTime).toBe("bigint");
    expect(stub.SubmitTime).toBeGreaterThanOrEqual(before);
    const text = (await agent.get(`/v1/jobs?filter=${encodeURIComponent(`SubmitTime == ${stub.SubmitTime}`)}`)).json<Stub[]>();
    expect(text.map((s) => s.ID)).toEqual(["timed"]);
    const next = (await agent.get(`/v1/jobs?filter=${encodeURIComponent(`SubmitTime == ${stub.SubmitTime + 1n}`)}`)).json<Stub[]>();
    expect(next).toEqual([]);
  });

  it("creates a new evaluation but no new version when the same spec is registered again", async () => {
    const first = await agent.register(job("again"));
    const second = await agent.register(job("again"));
    expect(second.EvalID).not.toBe(first.EvalID);
    expect(second.JobModifyIndex).toBe(first.JobModifyIndex);
    expect(second.Index).toBeGreaterThan(first.Index);
    expect(second.EvalCreateIndex).toBe(second.Index);
  });

  it("gives periodic jobs no evaluation, and lists them as running", async () => {
    const response = await agent.register(job("cron", { Type: "batch", Periodic: { Spec: "0 * * * *" } }));
    expect(response.EvalID).toBe("");
    expect(response.EvalCreateIndex).toBe(0);
    const stub = (await jobs()).find((s) => s.ID === "cron")!;
    expect(stub).toMatchObject({ Status: "running", Periodic: true });
  });
});

describe("deployments of registered jobs", () => {
  it("starts a running deployment for a service job", async () => {
    await agent.register(job("svc"));
    const deployment = await eventually(async () => (await deployments()).find((d) => d.JobID === "svc"));
    expect(deployment).toMatchObject({ JobVersion: 0, Status: "running", StatusDescription: "Deployment is running" });
    expect(deployment.TaskGroups.g).toMatchObject({ DesiredTotal: 1, HealthyAllocs: 0 });
  });

  it("cancels the active deployment when a newer version is registered", async () => {
    await agent.register(job("rolling"));
    await eventually(async () => (await deployments()).find((d) => d.JobID === "rolling"));
    await agent.register(job("rolling", { Meta: { version: "2" } }));
    const both = await eventually(async () => {
      const mine = (await deployments()).filter((d) => d.JobID === "rolling");
      return mine.length === 2 ? mine : undefined;
    });
    expect(both[0]).toMatchObject({ JobVersion: 0, Status: "cancelled", StatusDescription: "Cancelled due to newer version of job" });
    expect(both[1]).toMatchObject({ JobVersion: 1, Status: "running", StatusDescription: "Deployment is running" });
  });

  it("creates no deployment for a batch job", async () => {
    await agent.register(job("batchy", { Type: "batch" }));
    await eventually(async () => ((await jobs()).find((s) => s.ID === "batchy")?.Status === "running" ? true : undefined));
    expect((await deployments()).some((d) => d.JobID === "batchy")).toBe(false);
  });
});

describe("a deployment that completes", () => {
  const fast = useAgent({ placementDelayMs: 300 });

  it("becomes successful once its allocations are healthy, its counters moving on the way", async () => {
    // On the real clock: healthy as soon as they run (no MinHealthyTime).
    await fast.register(job("quick", { Update: { MaxParallel: 1, MinHealthyTime: 0 }, TaskGroups: [{ Name: "web", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    const seen = new Set<string>();
    const done = await eventually(async () => {
      const [deployment] = (await fast.get("/v1/deployments")).json<DeploymentItem[]>();
      if (deployment === undefined) return undefined;
      const group = deployment.TaskGroups.web!;
      seen.add(`${group.PlacedAllocs}/${group.HealthyAllocs}`);
      return deployment.Status === "successful" ? deployment : undefined;
    });
    expect(done.StatusDescription).toBe("Deployment completed successfully");
    expect(done.TaskGroups.web).toMatchObject({ DesiredTotal: 2, PlacedAllocs: 2, HealthyAllocs: 2 });
    // Seen before it was healthy (its first reads may come after a placement on a loaded machine:
    // the placement delay runs on the real clock here).
    expect([...seen].some((counters) => !counters.endsWith("/2"))).toBe(true);
    const stub = (await fast.get("/v1/jobs")).json<Stub[]>()[0]!;
    expect(stub.Status).toBe("running");
    expect(stub.JobSummary.Summary.web).toMatchObject({ Running: 2, Starting: 0, Queued: 0 });
  });
});
