/**
 * `GET /v1/allocations` and `GET /v1/evaluations` through the one list pipeline, over a real
 * socket: oldest first by CreateIndex then ID (newest first with `reverse=true`), pages with
 * `<CreateIndex>.<ID>` tokens whose index part compares as a number (the reference's 1.9 compared
 * them as text, issue 25435), by ID with bare-ID tokens under a `prefix`, `namespace=*`, `filter`
 * on the full objects, and the evaluation list's legacy `job` and `status`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { startAgent, type Agent } from "../../src/server/index.js";
import { job, ON_POSTGRES, send, settled, testStore, useAgent, type Response } from "./support.js";

const agent = useAgent({ placementDelayMs: 60_000, nodes: 1, namespaces: [{ Name: "prod" }] });

type Item = Record<string, unknown> & { ID: string; CreateIndex: number };
const items = (response: Response): Item[] => {
  expect(response.status, response.text).toBe(200);
  return response.json<Item[]>();
};
const ids = async (path: string) => items(await agent.get(path)).map((item) => item.ID);
const token = (item: Item) => `${item.CreateIndex}.${item.ID}`;
const byCreation = (a: Item, b: Item) => a.CreateIndex - b.CreateIndex || (a.ID < b.ID ? -1 : a.ID > b.ID ? 1 : 0);

/** Every allocation and evaluation of the agent, in creation order. */
let allocs: Item[] = [];
let evals: Item[] = [];

beforeAll(async () => {
  // Enough writes that the indexes pass 10: a token compared as text would put "11.…" before "9.…".
  for (const id of ["b1", "b2", "b3", "b4", "b5"]) await agent.register(job(id, { Type: "batch" }));
  await agent.register(job("web"));
  await agent.register(job("api"), "?namespace=prod");
  await settled(agent.url);
  allocs = items(await agent.get("/v1/allocations?namespace=*"));
  evals = items(await agent.get("/v1/evaluations?namespace=*"));
});

describe.each([
  ["/v1/allocations", () => allocs],
  ["/v1/evaluations", () => evals],
])("GET %s", (path, all) => {
  it("lists oldest first (CreateIndex, then ID), newest first with reverse=true, one namespace or all", async () => {
    expect(all().length).toBe(7);
    expect(all()).toEqual([...all()].sort(byCreation));
    expect(all().at(-1)!.CreateIndex).toBeGreaterThan(10);
    expect(await ids(`${path}?namespace=*&reverse=true`)).toEqual(all().map((item) => item.ID).reverse());
    expect(await ids(path)).toEqual(all().filter((item) => item.Namespace === "default").map((item) => item.ID));
    expect(await ids(`${path}?namespace=prod`)).toEqual(all().filter((item) => item.Namespace === "prod").map((item) => item.ID));
    expect(await ids(`${path}?namespace=nosuch`)).toEqual([]);
  });

  it("pages with <CreateIndex>.<ID> tokens naming the first item of the next page", async () => {
    const first = await agent.get(`${path}?namespace=*&per_page=3`);
    expect(items(first).map((item) => item.ID)).toEqual(all().slice(0, 3).map((item) => item.ID));
    expect(first.headers["x-svc-nexttoken"]).toBe(token(all()[3]!));
    const second = await agent.get(`${path}?namespace=*&per_page=3&next_token=${first.headers["x-svc-nexttoken"]}`);
    expect(items(second).map((item) => item.ID)).toEqual(all().slice(3, 6).map((item) => item.ID));
    const last = await agent.get(`${path}?namespace=*&per_page=3&next_token=${second.headers["x-svc-nexttoken"]}`);
    expect(items(last).map((item) => item.ID)).toEqual([all()[6]!.ID]);
    expect(last.headers["x-svc-nexttoken"]).toBeUndefined();
    const reversed = await agent.get(`${path}?namespace=*&per_page=2&reverse=true`);
    expect(reversed.headers["x-svc-nexttoken"]).toBe(token(all()[4]!));
  });

  it("compares the token's index as a number, then the ID", async () => {
    const nine = all().findIndex((item) => item.CreateIndex >= 10) - 1;
    expect(all()[nine]!.CreateIndex).toBeLessThan(10);
    // As text, "9.…" sorts after "11.…": the page would start after every two-digit index.
    expect(await ids(`${path}?namespace=*&next_token=${token(all()[nine]!)}`)).toEqual(all().slice(nine).map((item) => item.ID));
    expect(await ids(`${path}?namespace=*&next_token=${all()[nine + 1]!.CreateIndex}.`)).toEqual(all().slice(nine + 1).map((item) => item.ID));
    expect(await ids(`${path}?namespace=*&reverse=true&next_token=${token(all()[nine]!)}`)).toEqual(all().slice(0, nine + 1).map((item) => item.ID).reverse());
  });

  it("with a prefix, lists by ID with bare-ID tokens, and refuses a prefix of an odd number of hex digits", async () => {
    const sorted = all().map((item) => item.ID).sort();
    const page = await agent.get(`${path}?namespace=*&prefix=&per_page=2`);
    expect(items(page).map((item) => item.ID)).toEqual(all().slice(0, 2).map((item) => item.ID));
    const prefix = sorted[0]!.slice(0, 2);
    expect(await ids(`${path}?namespace=*&prefix=${prefix.toUpperCase()}`)).toEqual(sorted.filter((id) => id.startsWith(prefix)));
    const paged = await agent.get(`${path}?namespace=*&prefix=${sorted[0]!.slice(0, 1)}0&per_page=1`);
    expect(paged.status).toBe(200);
    const all0 = sorted.filter((id) => id.startsWith(`${sorted[0]!.slice(0, 1)}0`));
    if (all0.length > 1) expect(paged.headers["x-svc-nexttoken"]).toBe(all0[1]);
    const odd = await agent.get(`${path}?prefix=abc`);
    expect([odd.status, odd.text]).toEqual([400, 'Invalid ID prefix "abc": a prefix must have an even number of hexadecimal characters']);
    const both = await agent.get(`${path}?prefix=ab&filter=${encodeURIComponent('ID != ""')}`);
    expect([both.status, both.text]).toEqual([400, "Filter expression cannot be used with other filter parameters"]);
  });

  it("answers filter errors as the other lists do", async () => {
    const syntax = await agent.get(`${path}?filter=${encodeURIComponent("JobID ==")}`);
    expect(syntax.status).toBe(400);
    expect(syntax.text).toMatch(/^failed to create result paginator: failed to read filter expression: /);
    const unknown = await agent.get(`${path}?filter=${encodeURIComponent('NoSuchField == "x"')}`);
    expect(unknown.status).toBe(400);
    expect(unknown.text.split("\n")[0]).toMatch(/^failed to read result page: error finding value in datum: \/NoSuchField at part 0: couldn't find struct field with name "NoSuchField"/);
  });
});

describe("GET /v1/allocations", () => {
  it("answers AllocListStubs, at the allocations' (and their jobs') index", async () => {
    const response = await agent.get("/v1/allocations");
    const [first] = items(response);
    expect(first).toMatchObject({ JobID: "b1", JobType: "batch", JobVersion: 0, Name: "b1.g[0]", TaskGroup: "g", DesiredStatus: "run", ClientStatus: "pending", NodeName: "client-1", DeploymentStatus: null });
    // A pending allocation's task was received and its directory built; it has not started.
    expect(first!.TaskStates).toMatchObject({ t: { State: "pending", Failed: false, StartedAt: "0001-01-01T00:00:00Z", Events: [{ Type: "Received" }, { Type: "Task Setup" }] } });
    expect(first).not.toHaveProperty("Job");
    expect(first).not.toHaveProperty("AllocatedResources");
    expect(Number(response.headers["x-svc-index"])).toBeGreaterThanOrEqual(Math.max(...allocs.map((alloc) => alloc.ModifyIndex as number)));
  });

  it("filters on the full allocation (its job included) and on the stub's own fields", async () => {
    const filtered = (filter: string) => ids(`/v1/allocations?namespace=*&filter=${encodeURIComponent(filter)}`);
    const jobsOf = (wanted: (alloc: Item) => boolean) => allocs.filter(wanted).map((alloc) => alloc.ID);
    expect(await filtered('Job.Type == "service"')).toEqual(jobsOf((alloc) => alloc.JobType === "service"));
    expect(await filtered('Job.TaskGroups.0.Tasks.0.Driver == "mock" and Job.Namespace == "prod"')).toEqual(jobsOf((alloc) => alloc.Namespace === "prod"));
    expect(await filtered('JobType == "batch" and JobVersion == 0')).toEqual(jobsOf((alloc) => alloc.JobType === "batch"));
    expect(await filtered('DeploymentID is not empty and AllocModifyIndex != 0')).toEqual(jobsOf((alloc) => alloc.JobType === "service"));
    expect(await filtered('PreviousAllocation is empty and NodeName == "client-1"')).toHaveLength(allocs.length);
  });

  it("takes task_states and resources as bools, and refuses others with a 400", async () => {
    expect(items(await agent.get("/v1/allocations?task_states=false&resources=true")).map((alloc) => alloc.ID)).toEqual(allocs.filter((alloc) => alloc.Namespace === "default").map((alloc) => alloc.ID));
    const bad = await agent.get("/v1/allocations?task_states=nope");
    expect([bad.status, bad.text]).toEqual([400, 'Failed to parse value of "task_states" (nope) as a bool: strconv.ParseBool: parsing "nope": invalid syntax']);
  });
});

describe("GET /v1/evaluations", () => {
  it("answers full evaluations without their empty fields", async () => {
    const [first] = evals;
    expect(first).toMatchObject({ JobID: "b1", Type: "batch", TriggeredBy: "job-register", Status: "complete", Priority: 50 });
    for (const field of ["NodeID", "DeploymentID", "Wait", "BlockedEval", "EscapedComputedClass"]) expect(first).not.toHaveProperty(field);
  });

  it("selects by the legacy job and status before paging; with filter they are a 400", async () => {
    expect(await ids("/v1/evaluations?job=b3")).toEqual(evals.filter((evaluation) => evaluation.JobID === "b3").map((evaluation) => evaluation.ID));
    expect(await ids("/v1/evaluations?job=api")).toEqual([]);
    expect(await ids("/v1/evaluations?namespace=prod&job=api&status=complete")).toEqual(evals.filter((evaluation) => evaluation.JobID === "api").map((evaluation) => evaluation.ID));
    expect(await ids("/v1/evaluations?status=nosuch")).toEqual([]);
    const page = await agent.get("/v1/evaluations?namespace=*&status=complete&per_page=1&next_token=" + token(evals[2]!));
    expect(items(page).map((evaluation) => evaluation.ID)).toEqual([evals[2]!.ID]);
    expect(page.headers["x-svc-nexttoken"]).toBe(token(evals[3]!));
    for (const legacy of ["job=b1", "status=complete"]) {
      const response = await agent.get(`/v1/evaluations?${legacy}&filter=${encodeURIComponent('JobID == "b1"')}`);
      expect([response.status, response.text]).toEqual([400, "Filter expression cannot be used with other filter parameters"]);
    }
  });

  it("filters on the full evaluation, absent fields at their zero values", async () => {
    const filtered = (filter: string) => ids(`/v1/evaluations?namespace=*&filter=${encodeURIComponent(filter)}`);
    expect(await filtered('Type == "service" and TriggeredBy == "job-register"')).toEqual(evals.filter((evaluation) => evaluation.Type === "service").map((evaluation) => evaluation.ID));
    expect(await filtered("NodeModifyIndex == 0 and BlockedEval is empty and JobModifyIndex != 0")).toHaveLength(evals.length);
    // JobType is an allocation stub's; the evaluation has none, as in the reference.
    const refused = await agent.get(`/v1/evaluations?filter=${encodeURIComponent('JobType == "batch"')}`);
    expect(refused.status).toBe(400);
  });
});

describe.runIf(ON_POSTGRES)("on a store shared by two agents", () => {
  it("answers a consistent read of the new lists from the agent's copy, brought up to every write first", async () => {
    const { store, drop } = await testStore();
    const started: Agent[] = [];
    try {
      for (const nodeName of ["alpha", "beta"]) started.push(await startAgent({ port: 0, demo: false, logLevel: "silent", store, nodeName, nodes: 1, placementDelayMs: 60_000 }));
      const [alpha, beta] = started as [Agent, Agent];
      const registered = await send(`${alpha.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("shared", { Type: "batch" }) }) });
      expect(registered.status, registered.text).toBe(200);
      // At once, through the other agent: its copy catches up before it reads.
      const evaluations = await send(`${beta.url}/v1/evaluations?filter=${encodeURIComponent('JobID == "shared"')}`);
      expect(evaluations.json<Item[]>().map((evaluation) => evaluation.JobID)).toEqual(["shared"]);
      expect(Number(evaluations.headers["x-svc-index"])).toBeGreaterThanOrEqual(registered.json<{ Index: number }>().Index);
      await settled(alpha.url);
      // Both name the same leader: the one that leads, by its address.
      const leaders = [await send(`${alpha.url}/v1/status/leader`), await send(`${beta.url}/v1/status/leader`)].map((response) => response.json<string>());
      const leading = alpha.leading ? alpha : beta;
      expect(leaders).toEqual([`${leading.address}:4647`, `${leading.address}:4647`]);
      for (const path of ["/v1/allocations?namespace=*", "/v1/evaluations?per_page=1", "/v1/nodes", `/v1/job/shared/allocations`]) {
        const [fromAlpha, fromBeta] = [await send(alpha.url + path), await send(beta.url + path)];
        expect(fromBeta.status).toBe(200);
        expect([fromBeta.text, fromBeta.headers["x-svc-index"], fromBeta.headers["x-svc-nexttoken"]]).toEqual([fromAlpha.text, fromAlpha.headers["x-svc-index"], fromAlpha.headers["x-svc-nexttoken"]]);
      }
    } finally {
      await Promise.all(started.map((agent) => agent.close()));
      await drop();
    }
  });
});
