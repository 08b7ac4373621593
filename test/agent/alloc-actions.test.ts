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
