/**
 * An allocation's stop and the lists around evaluations and deployments, as the reference's
 * client calls them (`Allocations().Stop`, `Evaluations().Allocations`, `Evaluations().Count`,
 * `Deployments().Allocations`), on the manual clock over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

function reader(agent: TestAgent) {
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  return { read, allocations: (id: string) => read<Item[]>(`/v1/job/${id}/allocations`) };
}

const counted = (id: string, count: number) => job(id, { TaskGroups: [{ Name: "g", Count: count, Tasks: [{ Name: "t", Driver: "mock" }] }] });

describe("stopping an allocation", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { read, allocations } = reader(agent);

  it("marks it to migrate with an alloc-stop evaluation, which stops it and places its replacement under its name", async () => {
    await agent.register(counted("stopper", 2));
    await agent.agent.clock.advance("11s");
    const [first] = (await allocations("stopper")).sort((a, b) => (a.Name < b.Name ? -1 : 1));
    const response = await agent.put(`/v1/allocation/${first!.ID}/stop`, "");
    expect(response.status).toBe(200);
    const answer = response.json<Item>();
    expect(Object.keys(answer).sort()).toEqual(["EvalID", "Index"]);
    expect(Number(response.headers["x-svc-index"])).toBe(answer.Index);
    expect(await read(`/v1/evaluation/${answer.EvalID}`)).toMatchObject({ TriggeredBy: "alloc-stop", JobID: "stopper", Type: "service" });
    await agent.agent.clock.advance("100ms");
    const stopped = await read(`/v1/allocation/${first!.ID}`);
    expect(stopped).toMatchObject({ DesiredStatus: "stop", DesiredDescription: "alloc is being migrated", DesiredTransition: { Migrate: true, NoShutdownDelay: false } });
    const replacement = await read(`/v1/allocation/${stopped.NextAllocation}`);
    expect(replacement).toMatchObject({ Name: first!.Name, PreviousAllocation: first!.ID, DesiredStatus: "run", EvalID: answer.EvalID });
    expect((await allocations("stopper")).filter((alloc) => alloc.DesiredStatus === "run")).toHaveLength(2);
  });

  it("leaves a batch job's allocation stopped with reschedule to its rescheduling, which replaces it after the policy's delay", async () => {
    await agent.register(job("batched", { Type: "batch", TaskGroups: [{ Name: "g", Count: 1, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("600ms");
    const [first] = await allocations("batched");
    expect(first).toMatchObject({ ClientStatus: "running" });
    const response = await agent.put(`/v1/allocation/${first!.ID}/stop?reschedule=true`, "");
    expect(response.status).toBe(200);
    await agent.agent.clock.advance("100ms");
    expect(await read(`/v1/allocation/${first!.ID}`)).toMatchObject({ DesiredTransition: { Migrate: true, Reschedule: true } });
    // A batch job's policy waits 5 s before its one attempt.
    await agent.agent.clock.advance("5s");
    const replaced = await read(`/v1/allocation/${first!.ID}`);
    expect(replaced).toMatchObject({ DesiredStatus: "stop" });
    expect(await read(`/v1/allocation/${replaced.NextAllocation}`)).toMatchObject({ Name: first!.Name, PreviousAllocation: first!.ID, DesiredStatus: "run" });
  });

  it.each([
    ["an allocation that does not exist", "/v1/allocation/00000000-0000-4000-8000-00000000dead/stop", 404, "alloc not found"],
    ["a no_shutdown_delay that is not a bool", "/v1/allocation/00000000-0000-4000-8000-00000000dead/stop?no_shutdown_delay=maybe", 400, 'Failed to parse value of "no_shutdown_delay" (maybe) as a bool: strconv.ParseBool: parsing "maybe": invalid syntax'],
  ])("refuses %s", async (_name, path, status, text) => {
    const response = await agent.put(path, "");
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });

  it("answers GET with 405", async () => {
    expect((await agent.get("/v1/allocation/x/stop")).status).toBe(405);
  });
});

describe("an evaluation's and a deployment's allocations", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { read, allocations } = reader(agent);

  it("lists the allocations an evaluation placed, as stubs in ID order, with the allocations' index", async () => {
    const registered = await agent.register(counted("placed", 3));
    await agent.agent.clock.advance("100ms");
    const response = await agent.get(`/v1/evaluation/${registered.EvalID}/allocations`);
    expect(response.status).toBe(200);
    const listed = response.json<Item[]>();
    const ids = (await allocations("placed")).map((alloc) => alloc.ID).sort();
    expect(listed.map((alloc) => alloc.ID)).toEqual(ids);
    expect(listed[0]).toMatchObject({ EvalID: registered.EvalID, JobID: "placed", TaskGroup: "g" });
    expect(listed[0]!.Job).toBeUndefined();
    expect(Number(response.headers["x-svc-index"])).toBeGreaterThan(0);
    expect((await agent.get("/v1/evaluation/00000000-0000-4000-8000-000000000000/allocations")).json()).toEqual([]);
  });

  it("lists a deployment's allocations", async () => {
    await agent.register(counted("rolled", 2));
    await agent.agent.clock.advance("100ms");
    const [deployment] = await read<Item[]>("/v1/job/rolled/deployments");
    const listed = await read<Item[]>(`/v1/deployment/allocations/${deployment!.ID}`);
    expect(listed.map((alloc) => alloc.ID)).toEqual((await allocations("rolled")).map((alloc) => alloc.ID).sort());
    expect(listed.every((alloc) => alloc.DeploymentStatus !== undefined)).toBe(true);
    expect(await read("/v1/deployment/allocations/00000000-0000-4000-8000-000000000000")).toEqual([]);
  });
});

describe("setting the health of a deployment's allocations", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { read, allocations } = reader(agent);
  const HOUR_NS = 3_600_000_000_000;
  // Health that the simulated clients would find only an hour after the allocations run: the test decides it.
  const slow = (id: string, fields: Record<string, unknown> = {}, image = "v1") =>
    job(id, {
      Update: { MaxParallel: 2, MinHealthyTime: HOUR_NS, HealthyDeadline: 2 * HOUR_NS, ProgressDeadline: 3 * HOUR_NS, ...fields },
      TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "docker", Config: { image } }] }],
    });
  const setHealth = (id: string, body: unknown) => agent.put(`/v1/deployment/allocation-health/${id}`, body);

  it("marks allocations healthy, and the deployment completes once all are", async () => {
    await agent.register(slow("healthy"));
    await agent.agent.clock.advance("1s");
    const [deployment] = await read<Item[]>("/v1/job/healthy/deployments");
    const ids = (await allocations("healthy")).map((alloc) => alloc.ID);
    const response = await setHealth(deployment!.ID, { DeploymentID: deployment!.ID, HealthyAllocationIDs: ids });
    expect(response.status).toBe(200);
    const answer = response.json<Item>();
    expect(answer).toMatchObject({ EvalCreateIndex: answer.Index, DeploymentModifyIndex: answer.Index, RevertedJobVersion: null });
    expect(await read(`/v1/allocation/${ids[0]}`)).toMatchObject({ DeploymentStatus: { Healthy: true } });
    expect(await read(`/v1/evaluation/${answer.EvalID}`)).toMatchObject({ TriggeredBy: "deployment-watcher", DeploymentID: deployment!.ID });
    await agent.agent.clock.advance("100ms");
    expect(await read(`/v1/deployment/${deployment!.ID}`)).toMatchObject({ Status: "successful", TaskGroups: { g: { HealthyAllocs: 2 } } });
  });

  it("fails the deployment on an unhealthy allocation, reverting the job when its group says AutoRevert", async () => {
    await agent.register(slow("reverted", { MinHealthyTime: 0 }));
    await agent.agent.clock.advance("2s");
    expect((await read("/v1/job/reverted")).Stable).toBe(true);
    await agent.register(slow("reverted", { AutoRevert: true }, "v2"));
    await agent.agent.clock.advance("1s");
    const deployment = (await read<Item[]>("/v1/job/reverted/deployments")).find((each) => each.JobVersion === 1)!;
    const [unhealthy] = await read<Item[]>(`/v1/deployment/allocations/${deployment.ID}`);
    const response = await setHealth(deployment.ID, { DeploymentID: deployment.ID, UnhealthyAllocationIDs: [unhealthy!.ID] });
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ RevertedJobVersion: 0 });
    expect(await read(`/v1/deployment/${deployment.ID}`)).toMatchObject({
      Status: "failed",
      StatusDescription: "Failed due to unhealthy allocations - rolling back to job version 0",
      TaskGroups: { g: { UnhealthyAllocs: 1 } },
    });
    expect(await read("/v1/job/reverted")).toMatchObject({ Version: 2 });
  });

  it.each<[string, (id: string) => unknown, number, string]>([
    ["no allocation", (id) => ({ DeploymentID: id }), 400, "must specify at least one healthy/unhealthy allocation ID"],
    ["an unknown allocation", (id) => ({ DeploymentID: id, HealthyAllocationIDs: ["nope"] }), 400, 'unknown alloc "nope"'],
    ["a body naming another deployment", () => ({ DeploymentID: "other" }), 400, "Deployment ID does not match"],
    ["an empty body", () => "", 400, "Request body is empty"],
  ])("refuses %s", async (_name, body, status, text) => {
    if ((await agent.get("/v1/job/refused")).status === 404) await agent.register(slow("refused"));
    await agent.agent.clock.advance("1s");
    const [deployment] = await read<Item[]>("/v1/job/refused/deployments");
    const response = await setHealth(deployment!.ID, body(deployment!.ID));
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });

  it("refuses a finished deployment and an allocation of another deployment", async () => {
    await agent.register(slow("done", { MinHealthyTime: 0 }));
    await agent.register(slow("elsewhere"));
    await agent.agent.clock.advance("2s");
    const [finished] = await read<Item[]>("/v1/job/done/deployments");
    expect(finished!.Status).toBe("successful");
    const [alloc] = await allocations("done");
    const terminal = await setHealth(finished!.ID, { DeploymentID: finished!.ID, HealthyAllocationIDs: [alloc!.ID] });
    expect({ status: terminal.status, text: terminal.text }).toEqual({ status: 400, text: "can't set health of allocations for a terminal deployment" });
    const [running] = await read<Item[]>("/v1/job/elsewhere/deployments");
    const foreign = await setHealth(running!.ID, { DeploymentID: running!.ID, HealthyAllocationIDs: [alloc!.ID] });
    expect({ status: foreign.status, text: foreign.text }).toEqual({ status: 400, text: `alloc "${alloc!.ID}" is not part of deployment "${running!.ID}"` });
  });
});

describe("counting evaluations", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });

  it("counts the evaluations of the namespace, with a filter or a prefix, and the evaluations' index", async () => {
    const first = await agent.register(counted("c1", 1));
    await agent.register(counted("c2", 1));
    await agent.agent.clock.advance("100ms");
    const all = await agent.get("/v1/evaluations/count");
    expect(all.status).toBe(200);
    expect(all.json()).toMatchObject({ Count: 2, Index: Number(all.headers["x-svc-index"]), KnownLeader: true });
    expect((await agent.get(`/v1/evaluations/count?filter=${encodeURIComponent('JobID == "c1"')}`)).json()).toMatchObject({ Count: 1 });
    expect((await agent.get(`/v1/evaluations/count?prefix=${first.EvalID.slice(0, 8)}`)).json()).toMatchObject({ Count: 1 });
    expect((await agent.get("/v1/evaluations/count?namespace=*")).json()).toMatchObject({ Count: 2 });
    expect((await agent.get("/v1/evaluations/count?namespace=other")).json()).toMatchObject({ Count: 0 });
  });

  it("refuses a filter that does not parse with a 400", async () => {
    const response = await send(`${agent.url}/v1/evaluations/count?filter=${encodeURIComponent("JobID ==")}`);
    expect(response.status).toBe(400);
  });
});

describe("allocation actions with ACLs", () => {
  const management = "00000000-0000-4000-8000-000000000001";
  const reader = "00000000-0000-4000-8000-000000000002";
  const operator = "00000000-0000-4000-8000-000000000003";
  const agent = useAgent({
    clock: "manual",
    nodes: 2,
    acl: {
      enabled: true,
      bootstrapToken: management,
      policies: [
        { Name: "read", Rules: 'namespace "default" { capabilities = ["read-job", "list-jobs"] }' },
        { Name: "lifecycle", Rules: 'namespace "default" { capabilities = ["alloc-lifecycle"] }' },
      ],
      tokens: [
        { SecretID: reader, AccessorID: "00000000-0000-4000-8000-0000000000a2", Name: "read", Type: "client", Policies: ["read"] },
        { SecretID: operator, AccessorID: "00000000-0000-4000-8000-0000000000a3", Name: "lifecycle", Type: "client", Policies: ["lifecycle"] },
      ],
    },
  });

  it("stops an allocation with alloc-lifecycle only; reads its evaluation's allocations with read-job", async () => {
    const headers = (token: string) => ({ headers: { "x-svc-token": token } });
    const registered = (await agent.put("/v1/jobs", { Job: counted("guarded", 1) }, headers(management))).json<Item>();
    await agent.agent.clock.advance("100ms");
    const listed = await agent.get(`/v1/evaluation/${registered.EvalID}/allocations`, headers(reader));
    expect(listed.status).toBe(200);
    const [alloc] = listed.json<Item[]>();
    expect((await agent.get(`/v1/evaluation/${registered.EvalID}/allocations`, headers(operator))).status).toBe(403);
    expect((await agent.get("/v1/evaluations/count", headers(operator))).status).toBe(403);
    const denied = await agent.put(`/v1/allocation/${alloc!.ID}/stop`, "", headers(reader));
    expect({ status: denied.status, text: denied.text }).toEqual({ status: 403, text: "Permission denied" });
    expect((await agent.put(`/v1/allocation/${alloc!.ID}/stop`, "", headers(operator))).status).toBe(200);
  });
});
