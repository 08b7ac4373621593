/**
 * Parameterized jobs dispatched as the reference's job endpoint dispatches them (`Job.Dispatch`,
 * `validateDispatchRequest` in `nomad/job_endpoint.go`): a child `<id>/dispatch-<unix>-<8 hex>`
 * with the parent's spec, `ParentID`, `Dispatched`, the request's meta merged and its payload;
 * the parameterized block's rules refuse a request with the reference's texts; an idempotency
 * token answers the child it made; the parent's summary counts its children. And re-registering
 * a job that changes its kind (periodic, parameterized) is refused as `validateJobUpdate` does,
 * while a client's `Dispatched` is dropped (`ApiJobToStructJob`). On the manual clock, over real
 * sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "../../src/json.js";
import { DISPATCH_PAYLOAD_SIZE_LIMIT } from "../../src/server/scheduler/parameterized.js";
import { job, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

const parameterized = (id: string, block: Record<string, unknown>, fields: Record<string, unknown> = {}) => job(id, { Type: "batch", ParameterizedJob: block, Meta: { team: "a", keep: "1" }, ...fields });

function reader(agent: TestAgent) {
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const dispatch = (id: string, body: unknown, query = "") => agent.put(`/v1/job/${encodeURIComponent(id)}/dispatch${query}`, body);
  return { read, dispatch };
}

describe("PUT /v1/job/<id>/dispatch", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { read, dispatch } = reader(agent);
  const payload = Buffer.from("hello payload").toString("base64");

  it("makes a child with the parent's spec, the meta merged and the payload, and answers its IDs and indexes", async () => {
    const registered = await agent.register(parameterized("param", { Payload: "required", MetaRequired: ["team"], MetaOptional: ["extra"] }));
    expect(registered.EvalID).toBe("");
    expect(await read("/v1/job/param")).toMatchObject({ Status: "running", ParameterizedJob: { Payload: "required", MetaRequired: ["team"], MetaOptional: ["extra"] } });

    const response = await dispatch("param", { Payload: payload, Meta: { team: "b", extra: "x" } });
    expect(response.status).toBe(200);
    const body = response.json<Item>();
    expect(Object.keys(body).sort()).toEqual(["DispatchedJobID", "EvalCreateIndex", "EvalID", "Index", "JobCreateIndex"]);
    const seconds = Math.floor(agent.agent.clock.now().getTime() / 1000);
    expect(body.DispatchedJobID).toMatch(new RegExp(`^param/dispatch-${seconds}-[0-9a-f]{8}$`));
    expect(body).toMatchObject({ JobCreateIndex: body.Index, EvalCreateIndex: body.Index });
    expect(response.headers["x-svc-index"]).toBe(String(body.Index));

    const child = await read(`/v1/job/${encodeURIComponent(body.DispatchedJobID)}`);
    expect(child).toMatchObject({
      ID: body.DispatchedJobID,
      Name: body.DispatchedJobID,
      ParentID: "param",
      Dispatched: true,
      Type: "batch",
      Meta: { team: "b", keep: "1", extra: "x" },
      Payload: payload,
      ParameterizedJob: { Payload: "required" },
    });
    // The child's evaluation is processed at once: wait for the steps due now.
    await agent.agent.clock.advance(0);
    const evaluation = await read(`/v1/evaluation/${body.EvalID}`);
    expect(evaluation).toMatchObject({ JobID: body.DispatchedJobID, TriggeredBy: "job-register", Type: "batch" });
    expect(await read<Item[]>(`/v1/job/${encodeURIComponent(body.DispatchedJobID)}/allocations`)).toHaveLength(1);
    expect(await read<Item[]>("/v1/job/param/allocations")).toEqual([]);
    expect((await read("/v1/job/param/summary")).Children).toEqual({ Pending: 0, Running: 1, Dead: 0 });
    await agent.agent.clock.advance("2s");
    expect((await read("/v1/job/param/summary")).Children).toEqual({ Pending: 0, Running: 0, Dead: 1 });
  });

  it("answers the child an idempotency token made instead of making another", async () => {
    await agent.register(parameterized("token", { Payload: "optional" }));
    const first = (await dispatch("token", {}, "?idempotency_token=retry-1")).json<Item>();
    const again = await dispatch("token", {}, "?idempotency_token=retry-1");
    expect(again.status).toBe(200);
    expect(again.json<Item>()).toMatchObject({ DispatchedJobID: first.DispatchedJobID, EvalID: "", EvalCreateIndex: 0, JobCreateIndex: first.JobCreateIndex });
    expect(await read(`/v1/job/${encodeURIComponent(first.DispatchedJobID)}`)).toMatchObject({ DispatchIdempotencyToken: "retry-1" });
    const other = (await dispatch("token", { IdempotencyToken: "retry-2" })).json<Item>();
    expect(other.DispatchedJobID).not.toBe(first.DispatchedJobID);
    expect(await read<Item[]>(`/v1/jobs?prefix=${encodeURIComponent("token/dispatch-")}`)).toHaveLength(2);
  });

  it("takes the request's priority, or the parent's", async () => {
    await agent.register(parameterized("priority", {}, { Priority: 70 }));
    const own = (await dispatch("priority", {})).json<Item>();
    const given = (await dispatch("priority", { Priority: 20 })).json<Item>();
    expect((await read(`/v1/job/${encodeURIComponent(own.DispatchedJobID)}`)).Priority).toBe(70);
    expect((await read(`/v1/job/${encodeURIComponent(given.DispatchedJobID)}`)).Priority).toBe(20);
  });

  it.each([
    ["a missing required payload", { Payload: "required" }, {}, 400, "Payload is not provided but required by parameterized job"],
    ["a forbidden payload", { Payload: "forbidden" }, { Payload: payload }, 400, "Payload provided but forbidden by parameterized job"],
    ["a payload over 16 KiB", {}, { Payload: Buffer.alloc(DISPATCH_PAYLOAD_SIZE_LIMIT + 1).toString("base64") }, 400, `Payload exceeds maximum size; ${DISPATCH_PAYLOAD_SIZE_LIMIT + 1} > 16384`],
    ["meta keys it does not name", { MetaOptional: ["a"] }, { Meta: { z: "1", b: "2", a: "3" } }, 400, "Dispatch request included unpermitted metadata keys: [b z]"],
    ["missing required meta keys", { MetaRequired: ["y", "x"] }, { Meta: { x: "1" } }, 400, "Dispatch did not provide required meta keys: [y]"],
    ["a priority out of range", {}, { Priority: 101 }, 400, "dispatch job priority must be between [1, 100]"],
    ["a payload that is not base64", {}, { Payload: "no!" }, 400, "illegal base64 data at input byte 2"],
    ["a body naming another job", {}, { JobID: "other" }, 400, "Job ID does not match"],
  ])("refuses %s", async (_name, block, body, status, message) => {
    const id = `refused-${Math.random().toString(16).slice(2, 8)}`;
    await agent.register(parameterized(id, block));
    const response = await dispatch(id, body);
    expect({ status: response.status, text: response.text }).toEqual({ status, text: message });
    expect(await read<Item[]>(`/v1/jobs?prefix=${encodeURIComponent(`${id}/`)}`)).toEqual([]);
  });

  it.each([
    ["a job that is not parameterized", () => job("plain", { Type: "batch" }), "plain", 400, 'Specified job "plain" is not a parameterized job'],
    ["a job that does not exist", undefined, "nothing", 404, "parameterized job not found"],
  ])("refuses %s", async (_name, spec, id, status, message) => {
    if (spec !== undefined) await agent.register(spec());
    const response = await dispatch(id, {});
    expect({ status: response.status, text: response.text }).toEqual({ status, text: message });
  });

  it("dispatches in the request's namespace only", async () => {
    expect((await agent.put("/v1/namespace/team", { Name: "team" })).status).toBe(200);
    await agent.register(parameterized("scoped", {}), "?namespace=team");
    expect((await dispatch("scoped", {})).status).toBe(404);
    const response = await dispatch("scoped", {}, "?namespace=team");
    expect(response.status).toBe(200);
    await agent.agent.clock.advance(0);
    const child = await read(`/v1/job/${encodeURIComponent(response.json<Item>().DispatchedJobID)}?namespace=team`);
    expect(child).toMatchObject({ Namespace: "team", ParentID: "scoped" });
    expect((await read("/v1/job/scoped/summary?namespace=team")).Children).toEqual({ Pending: 0, Running: 1, Dead: 0 });
  });

  it("refuses a stopped parameterized job", async () => {
    await agent.register(parameterized("halted", {}));
    expect((await agent.put("/v1/job/halted", "", { method: "DELETE" })).status).toBe(200);
    const response = await dispatch("halted", {});
    expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: 'Specified job "halted" is stopped' });
  });
});

describe("dispatching with ACLs", () => {
  const management = "00000000-0000-4000-8000-000000000001";
  const submitter = "00000000-0000-4000-8000-000000000002";
  const dispatcher = "00000000-0000-4000-8000-000000000003";
  const agent = useAgent({
    clock: "manual",
    nodes: 1,
    acl: {
      enabled: true,
      bootstrapToken: management,
      policies: [
        { Name: "read", Rules: 'namespace "default" { capabilities = ["read-job", "list-jobs"] }' },
        { Name: "dispatch", Rules: 'namespace "default" { capabilities = ["dispatch-job"] }' },
      ],
      tokens: [
        { SecretID: submitter, AccessorID: "00000000-0000-4000-8000-0000000000a2", Name: "read", Type: "client", Policies: ["read"] },
        { SecretID: dispatcher, AccessorID: "00000000-0000-4000-8000-0000000000a3", Name: "dispatch", Type: "client", Policies: ["dispatch"] },
      ],
    },
  });

  it("needs dispatch-job in the job's namespace", async () => {
    const registered = await agent.put("/v1/jobs", { Job: parameterized("guarded", {}) }, { headers: { "x-svc-token": management } });
    expect(registered.status).toBe(200);
    const denied = await agent.put("/v1/job/guarded/dispatch", {}, { headers: { "x-svc-token": submitter } });
    expect({ status: denied.status, text: denied.text }).toEqual({ status: 403, text: "Permission denied" });
    const allowed = await agent.put("/v1/job/guarded/dispatch", {}, { headers: { "x-svc-token": dispatcher } });
    expect(allowed.status).toBe(200);
    // Periodic force takes dispatch-job too, as the reference: refused here only because the job is not periodic.
    const force = await agent.put("/v1/job/guarded/periodic/force", "", { headers: { "x-svc-token": dispatcher } });
    expect({ status: force.status, text: force.text }).toEqual({ status: 400, text: "can't force launch non-periodic job" });
    const forceDenied = await agent.put("/v1/job/guarded/periodic/force", "", { headers: { "x-svc-token": submitter } });
    expect(forceDenied.status).toBe(403);
  });
});

describe("re-registering a job that changes its kind", () => {
  const agent = useAgent({ clock: "manual", nodes: 1 });
  const periodic = { Spec: "*/5 * * * *" };

  it.each([
    ["batch to periodic", job("k1", { Type: "batch" }), job("k1", { Type: "batch", Periodic: periodic }), "cannot update non-periodic job to being periodic"],
    ["periodic to batch", job("k2", { Type: "batch", Periodic: periodic }), job("k2", { Type: "batch" }), "cannot update periodic job to being non-periodic"],
    ["batch to parameterized", job("k3", { Type: "batch" }), job("k3", { Type: "batch", ParameterizedJob: {} }), "cannot update non-parameterized job to being parameterized"],
    ["parameterized to batch", job("k4", { Type: "batch", ParameterizedJob: {} }), job("k4", { Type: "batch" }), "cannot update parameterized job to being non-parameterized"],
  ])("refuses %s with the reference's text", async (_name, first, second, message) => {
    await agent.register(first);
    const response = await agent.put("/v1/jobs", { Job: second });
    expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: message });
    expect((await agent.get(`/v1/job/${String(first.ID)}`)).json<Item>().Version).toBe(0);
  });

  it("drops a client's Dispatched, ParentID and DispatchIdempotencyToken", async () => {
    await agent.register(job("claims", { Type: "batch", Dispatched: true, ParentID: "someone", DispatchIdempotencyToken: "t" }));
    expect((await agent.get("/v1/job/claims")).json<Item>()).toMatchObject({ Dispatched: false, ParentID: "", DispatchIdempotencyToken: "" });
  });

  it.each([
    ["as it is: it would become parameterized", {}, "cannot update non-parameterized job to being parameterized"],
    ["without its parameterized block: its Dispatched is read-only", { ParameterizedJob: null }, "field 'Dispatched' is read-only"],
  ])("refuses a dispatched child registered again %s", async (_name, change, message) => {
    await agent.register(job("parent", { Type: "batch", ParameterizedJob: {} }));
    const child = (await agent.put("/v1/job/parent/dispatch", {})).json<Item>().DispatchedJobID as string;
    const stored = parseJson((await agent.get(`/v1/job/${encodeURIComponent(child)}`)).text) as Item;
    const response = await agent.put("/v1/jobs", stringifyJson({ Job: { ...stored, ...change } }));
    expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: message });
  });
});
