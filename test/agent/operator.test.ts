/**
 * The operator's and the system's endpoints: the scheduler configuration (check-and-set, what the
 * double honours of it: registrations rejected, the eval broker paused, spread against binpack),
 * evaluations deleted while the broker is paused, the forced garbage collection and the job
 * summaries reconciled; with their errors and ACL rules. On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { eventually, job, send, useAgent } from "./support.js";

type Item = Record<string, unknown>;
type Config = Item & { SchedulerAlgorithm: string; PauseEvalBroker: boolean; RejectJobRegistration: boolean; CreateIndex: number; ModifyIndex: number };
type Alloc = Item & { ID: string; NodeID: string; ClientStatus: string };

const CONFIG = "/v1/operator/scheduler/configuration";

describe("the scheduler configuration", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const config = async () => (await agent.get(CONFIG)).json<{ SchedulerConfig: Config; Index: number }>();
  const setConfig = (fields: Item, query = "") => agent.put(`${CONFIG}${query}`, { SchedulerAlgorithm: "binpack", PreemptionConfig: { SystemSchedulerEnabled: true }, ...fields });

  it("answers the reference's defaults before any write", async () => {
    const response = await agent.get(CONFIG);
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({
      SchedulerConfig: {
        SchedulerAlgorithm: "binpack",
        PreemptionConfig: { SystemSchedulerEnabled: true, SysBatchSchedulerEnabled: false, BatchSchedulerEnabled: false, ServiceSchedulerEnabled: false },
        MemoryOversubscriptionEnabled: false,
        RejectJobRegistration: false,
        PauseEvalBroker: false,
        CreateIndex: 1,
        ModifyIndex: 1,
      },
      KnownLeader: true,
    });
    expect(response.json<Item>().SchedulerConfig).not.toHaveProperty("Name");
  });

  it("writes with check-and-set: a stale index is not updated, the current one is", async () => {
    const before = (await config()).SchedulerConfig;
    const stale = await setConfig({ MemoryOversubscriptionEnabled: true }, `?cas=${before.ModifyIndex + 100}`);
    expect(stale.status, stale.text).toBe(200);
    expect(stale.json()).toMatchObject({ Updated: false });
    expect((await config()).SchedulerConfig.MemoryOversubscriptionEnabled).toBe(false);
    const current = await setConfig({ MemoryOversubscriptionEnabled: true }, `?cas=${before.ModifyIndex}`);
    const answer = current.json<{ Updated: boolean; Index: number }>();
    expect(answer.Updated).toBe(true);
    expect(Number(current.headers["x-svc-index"])).toBe(answer.Index);
    const after = await config();
    expect(after.SchedulerConfig).toMatchObject({ MemoryOversubscriptionEnabled: true, ModifyIndex: answer.Index });
    expect(after.Index).toBe(answer.Index);
  });

  it.each([
    ["an unknown algorithm", CONFIG, { SchedulerAlgorithm: "random" }, "invalid scheduler algorithm: random"],
    ["a body that is not the struct", CONFIG, "[1]", "Error parsing scheduler config: json: cannot unmarshal array into Go value of type api.SchedulerConfiguration"],
    ["a cas that is not a number", `${CONFIG}?cas=x`, {}, 'Error parsing cas value: strconv.ParseUint: parsing "x": invalid syntax'],
  ])("refuses %s with a 400", async (_what, path, body, message) => {
    const response = await agent.put(path, body);
    expect(response.status).toBe(400);
    expect(response.text).toBe(message);
  });

  it("rejects job registrations while RejectJobRegistration is set (with ACLs off every caller is management: allowed)", async () => {
    expect((await setConfig({ RejectJobRegistration: true })).status).toBe(200);
    // ACLs are off here: the reference's management check lets the registration through.
    expect((await agent.put("/v1/jobs", { Job: job("allowed") })).status).toBe(200);
    expect((await setConfig({ RejectJobRegistration: false })).status).toBe(200);
  });

  it("holds evaluations while the eval broker is paused, and processes them once it is unpaused", async () => {
    expect((await setConfig({ PauseEvalBroker: true })).status).toBe(200);
    const { EvalID } = await agent.register(job("held"));
    await agent.agent.clock.advance("2s");
    expect((await agent.get(`/v1/evaluation/${EvalID}`)).json()).toMatchObject({ Status: "pending" });
    expect((await setConfig({ PauseEvalBroker: false })).status).toBe(200);
    await eventually(async () => ((await agent.get(`/v1/evaluation/${EvalID}`)).json<Item>().Status === "complete" ? true : undefined));
  });

  it("deletes evaluations only while the broker is paused, by ID or by filter", async () => {
    const { EvalID } = await agent.register(job("doomed", { Type: "batch" }));
    await eventually(async () => ((await agent.get(`/v1/evaluation/${EvalID}`)).json<Item>().Status === "complete" ? true : undefined));
    const remove = (body: Item) => send(`${agent.url}/v1/evaluations`, { method: "DELETE", body: JSON.stringify(body) });
    const running = await remove({ EvalIDs: [EvalID] });
    expect(running.status).toBe(400);
    expect(running.text).toBe("eval broker is enabled; eval broker must be paused to delete evals");
    expect((await remove({})).text).toBe("evals must be deleted by either ID or filter");
    expect((await remove({ EvalIDs: [EvalID], Filter: "x" })).text).toBe("evals cannot be deleted by both ID and filter");
    expect((await remove({ EvalIDs: Array(7282).fill(EvalID) })).text).toBe("request includes 7282 evaluation IDs, must be 7281 or fewer");
    expect((await setConfig({ PauseEvalBroker: true })).status).toBe(200);
    // At the limit the IDs are looked up (an unknown one is a 404); one more is refused before.
    expect((await remove({ EvalIDs: Array(7281).fill("00000000-0000-4000-8000-000000000000") })).status).toBe(404);
    const byId = await remove({ EvalIDs: [EvalID] });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.json()).toMatchObject({ Count: 1 });
    expect((await agent.get(`/v1/evaluation/${EvalID}`)).status).toBe(404);
    const byFilter = await remove({ Filter: 'JobID == "held"' });
    expect(byFilter.json()).toMatchObject({ Count: 1 });
    expect((await agent.get("/v1/job/held/evaluations")).json()).toEqual([]);
    expect((await setConfig({ PauseEvalBroker: false })).status).toBe(200);
  });

  it("collects a purged job's garbage and reconciles the summaries", async () => {
    const { EvalID } = await agent.register(job("stopped"));
    await eventually(async () => ((await agent.get(`/v1/evaluation/${EvalID}`)).json<Item>().Status === "complete" ? true : undefined));
    const stop = await send(`${agent.url}/v1/job/stopped`, { method: "DELETE" });
    expect(stop.status).toBe(200);
    await agent.agent.clock.advance("2s");
    await eventually(async () => ((await agent.get("/v1/job/stopped")).json<Item>().Status === "dead" ? true : undefined));
    expect((await agent.get("/v1/system/gc")).status).toBe(405);
    const gc = await agent.put("/v1/system/gc", "");
    expect(gc.status, gc.text).toBe(200);
    expect((await agent.get("/v1/job/stopped")).status).toBe(404);
    expect((await agent.get(`/v1/evaluation/${EvalID}`)).status).toBe(404);
    const reconcile = await agent.put("/v1/system/reconcile/summaries", "");
    expect(reconcile.status).toBe(200);
    expect((await agent.get("/v1/job/allowed/summary")).json()).toMatchObject({ Summary: { g: { Queued: 0 } } });
  });
});

describe("the scheduler's algorithm", () => {
  // Two nodes: both are ranked for each placement (the limit is 2), so the fit score alone decides.
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });
  const nodeOf = async (id: string) => {
    await agent.register(job(id, { TaskGroups: [{ Name: "g", Count: 1, Tasks: [{ Name: "t", Driver: "mock", Resources: { CPU: 500, MemoryMB: 256 } }] }] }));
    const [alloc] = await eventually(async () => {
      const listed = (await agent.get(`/v1/job/${id}/allocations`)).json<Alloc[]>();
      return listed.length === 1 ? listed : undefined;
    });
    return alloc!.NodeID;
  };

  it("packs a job beside another with binpack, and puts it on the emptier node with spread", async () => {
    const first = await nodeOf("first");
    expect(await nodeOf("packed")).toBe(first);
    expect((await agent.put(CONFIG, { SchedulerAlgorithm: "spread" })).status).toBe(200);
    expect(await nodeOf("spread")).not.toBe(first);
  });
});

describe("the operator endpoints with ACLs", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000a0";
  const OPERATOR_READER = "00000000-0000-4000-8000-0000000000a1";
  const SUBMITTER = "00000000-0000-4000-8000-0000000000a2";
  const agent = useAgent({
    clock: "manual",
    nodes: 1,
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "operator-read", Rules: 'operator { policy = "read" }' },
        { Name: "submit", Rules: 'namespace "default" { policy = "write" }' },
      ],
      tokens: [
        { SecretID: OPERATOR_READER, Type: "client", Policies: ["operator-read"] },
        { SecretID: SUBMITTER, Type: "client", Policies: ["submit"] },
      ],
    },
  });
  const as = (token: string, path: string, method = "GET", body?: unknown) =>
    send(agent.url + path, { method, headers: { "x-svc-token": token }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  it.each([
    ["reads the configuration with operator:read", OPERATOR_READER, CONFIG, "GET", 200],
    ["refuses to write it with operator:read", OPERATOR_READER, CONFIG, "PUT", 403],
    ["refuses to read it without operator:read", SUBMITTER, CONFIG, "GET", 403],
    ["writes it with a management token", ROOT, CONFIG, "PUT", 200],
    ["refuses the garbage collection to a client token", OPERATOR_READER, "/v1/system/gc", "PUT", 403],
    ["refuses the reconciliation to a client token", SUBMITTER, "/v1/system/reconcile/summaries", "PUT", 403],
    ["refuses the evaluations' delete to a client token", SUBMITTER, "/v1/evaluations", "DELETE", 403],
  ])("%s", async (_what, token, path, method, status) => {
    const body = method === "DELETE" ? { EvalIDs: ["00000000-0000-4000-8000-000000000000"] } : method === "PUT" && path === CONFIG ? { SchedulerAlgorithm: "binpack" } : undefined;
    expect((await as(token, path, method, body)).status).toBe(status);
  });

  it("refuses a registration to a client token while RejectJobRegistration is set, not to a management token", async () => {
    expect((await as(ROOT, CONFIG, "PUT", { SchedulerAlgorithm: "binpack", RejectJobRegistration: true })).status).toBe(200);
    const refused = await as(SUBMITTER, "/v1/jobs", "PUT", { Job: job("web") });
    expect(refused.status).toBe(403);
    expect(refused.text).toBe("Job registration, dispatch, and scale are disabled by the scheduler configuration");
    expect((await as(ROOT, "/v1/jobs", "PUT", { Job: job("web") })).status).toBe(200);
    expect((await as(ROOT, CONFIG, "PUT", { SchedulerAlgorithm: "binpack" })).status).toBe(200);
    expect((await as(SUBMITTER, "/v1/jobs", "PUT", { Job: job("web") })).status).toBe(200);
  });

  // The reference's revert registers the old version (`doRegister`), which the configuration refuses as a registration.
  it("refuses a revert to a client token while RejectJobRegistration is set, not to a management token", async () => {
    expect((await as(ROOT, "/v1/jobs", "PUT", { Job: job("reverted", { Meta: { v: "0" } }) })).status).toBe(200);
    expect((await as(ROOT, "/v1/jobs", "PUT", { Job: job("reverted", { Meta: { v: "1" } }) })).status).toBe(200);
    expect((await as(ROOT, CONFIG, "PUT", { SchedulerAlgorithm: "binpack", RejectJobRegistration: true })).status).toBe(200);
    const refused = await as(SUBMITTER, "/v1/job/reverted/revert", "PUT", { JobID: "reverted", JobVersion: 0 });
    expect([refused.status, refused.text]).toEqual([403, "Job registration, dispatch, and scale are disabled by the scheduler configuration"]);
    const reverted = await as(ROOT, "/v1/job/reverted/revert", "PUT", { JobID: "reverted", JobVersion: 0 });
    expect(reverted.status, reverted.text).toBe(200);
    expect((await as(ROOT, CONFIG, "PUT", { SchedulerAlgorithm: "binpack" })).status).toBe(200);
  });
});

describe("deleting evaluations by a filter past the request's cost budget", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1, limits: { filterCostPerRequest: 1 } });

  // The filter runs inside the store's write: its budget error was thrown as it was, a 500.
  it("answers 400 with the budget's reason, and deletes nothing", async () => {
    const { EvalID } = await agent.register(job("spent", { Type: "batch" }));
    await eventually(async () => ((await agent.get(`/v1/evaluation/${EvalID}`)).json<Item>().Status === "complete" ? true : undefined));
    expect((await agent.put("/v1/operator/scheduler/configuration", { SchedulerAlgorithm: "binpack", PauseEvalBroker: true })).status).toBe(200);
    const refused = await send(`${agent.url}/v1/evaluations`, { method: "DELETE", body: JSON.stringify({ Filter: 'JobID == "spent" and Status == "complete"' }) });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.text).toMatch(/^failed to evaluate filter: .*cost budget of 1 units/);
    expect((await agent.get(`/v1/evaluation/${EvalID}`)).status).toBe(200);
  });
});
