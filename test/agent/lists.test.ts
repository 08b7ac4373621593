import { describe, expect, it } from "vitest";
import { eventually, job, useAgent, type TestAgent } from "./support.js";

const agent = useAgent({ placementDelayMs: 60_000 });

async function ids(target: TestAgent, path: string): Promise<{ ids: string[]; next: string | undefined; index: string | undefined }> {
  const response = await target.get(path);
  expect(response.status, response.text).toBe(200);
  return {
    ids: response.json<{ ID: string; Namespace: string }[]>().map((item) => item.ID),
    next: response.headers["x-svc-nexttoken"],
    index: response.headers["x-svc-index"],
  };
}

describe("GET /v1/jobs", () => {
  it("orders jobs by ID, reverses only with reverse=true", async () => {
    for (const id of ["c", "a", "b"]) await agent.register(job(id));
    expect((await ids(agent, "/v1/jobs")).ids).toEqual(["a", "b", "c"]);
    expect((await ids(agent, "/v1/jobs?reverse=true")).ids).toEqual(["c", "b", "a"]);
    expect((await ids(agent, "/v1/jobs?reverse=1")).ids).toEqual(["a", "b", "c"]);
    expect((await ids(agent, "/v1/jobs?reverse=True")).ids).toEqual(["a", "b", "c"]);
  });

  it("pages with a next token naming the first item of the next page", async () => {
    const first = await ids(agent, "/v1/jobs?per_page=2");
    expect(first).toMatchObject({ ids: ["a", "b"], next: "default.c" });
    const second = await ids(agent, "/v1/jobs?per_page=2&next_token=default.c");
    expect(second).toMatchObject({ ids: ["c"], next: undefined });
    expect(await ids(agent, "/v1/jobs?per_page=3")).toMatchObject({ ids: ["a", "b", "c"], next: undefined });
    expect((await ids(agent, "/v1/jobs?per_page=0")).ids).toEqual(["a", "b", "c"]);
  });

  it("starts at the next greater item when the token names no job", async () => {
    expect((await ids(agent, "/v1/jobs?next_token=default.bb")).ids).toEqual(["c"]);
    expect((await ids(agent, "/v1/jobs?next_token=default.bb&reverse=true")).ids).toEqual(["b", "a"]);
  });

  it("pages in reverse, the token naming the next item going down", async () => {
    const first = await ids(agent, "/v1/jobs?per_page=2&reverse=true");
    expect(first).toMatchObject({ ids: ["c", "b"], next: "default.a" });
    expect((await ids(agent, "/v1/jobs?per_page=2&reverse=true&next_token=default.a")).ids).toEqual(["a"]);
  });

  it("filters before counting the page", async () => {
    expect(await ids(agent, `/v1/jobs?per_page=1&filter=${encodeURIComponent('ID != "a"')}`)).toMatchObject({ ids: ["b"], next: "default.c" });
  });

  it("selects by ID prefix", async () => {
    await agent.register(job("alpha"));
    expect((await ids(agent, "/v1/jobs?prefix=a")).ids).toEqual(["a", "alpha"]);
  });

  it("answers a filter syntax error with 400 and the parser's message with a caret", async () => {
    const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent("ID ==")}`);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/^failed to create result paginator: failed to read filter expression: 1:6: /);
    expect(response.text).toContain("    ID ==\n");
    expect(response.text).toContain("^");
  });

  it("answers an evaluation error with 400 in the reference's words", async () => {
    const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent('NoSuchField == "x"')}`);
    expect(response.status).toBe(400);
    expect(response.text.split("\n")[0]).toBe(
      'failed to read result page: error finding value in datum: /NoSuchField at part 0: couldn\'t find struct field with name "NoSuchField"',
    );
  });

  it("filters the stored job with the list item's fields laid over it, in typed mode", async () => {
    await agent.register(job("meta", { Meta: { owner: "team-a" }, Datacenters: ["dc1", "dc2"] }));
    const filtered = (filter: string) => ids(agent, `/v1/jobs?filter=${encodeURIComponent(filter)}`).then((r) => r.ids);
    expect(await filtered('Meta.owner == "team-a"')).toEqual(["meta"]);
    expect(await filtered('"dc2" in Datacenters')).toEqual(["meta"]);
    // Placement takes a minute here, so the allocation is still starting.
    expect(await filtered('JobSummary.Summary.g.Starting == 1 and ID == "meta"')).toEqual(["meta"]);
    expect(await filtered('TaskGroups.0.Name == "g" and ID == "a"')).toEqual(["a"]);
    expect(await filtered("Periodic == false and Version == 0 and NodePool == default and ID == a")).toEqual(["a"]);
    expect(await filtered('Meta is empty and ID == "a"')).toEqual(["a"]);
  });

  it("lists namespace=* by namespace, then ID", async () => {
    const response = await agent.get("/v1/jobs?namespace=*");
    const items = response.json<{ ID: string; Namespace: string }[]>();
    const keys = items.map((item) => `${item.Namespace}/${item.ID}`);
    expect(keys).toEqual([...keys].sort());
  });
});

describe("GET /v1/deployments", () => {
  it("lists oldest first, newest first with reverse=true, with <CreateIndex>.<ID> tokens", async () => {
    const fresh = await ids(agent, "/v1/deployments");
    const all = (await agent.get("/v1/deployments")).json<{ ID: string; CreateIndex: number }[]>();
    expect(all.map((d) => d.CreateIndex)).toEqual([...all.map((d) => d.CreateIndex)].sort((a, b) => a - b));
    expect((await ids(agent, "/v1/deployments?reverse=true")).ids).toEqual([...fresh.ids].reverse());
    const page = await ids(agent, "/v1/deployments?per_page=1");
    expect(page.next).toBe(`${all[1]!.CreateIndex}.${all[1]!.ID}`);
    expect((await ids(agent, `/v1/deployments?next_token=${page.next}`)).ids).toEqual(fresh.ids.slice(1));
  });

  it("compares the index part of the token as a number", async () => {
    const all = (await agent.get("/v1/deployments")).json<{ ID: string; CreateIndex: number }[]>();
    const last = all[all.length - 1]!;
    // "5.x" sorts after "10.y" as text, but before it as an index.
    expect((await ids(agent, `/v1/deployments?next_token=${last.CreateIndex}.${last.ID}`)).ids).toEqual([last.ID]);
    expect((await ids(agent, "/v1/deployments?next_token=1.x")).ids).toEqual(all.map((d) => d.ID));
  });

  it("orders by ID with a prefix, the token being the bare ID", async () => {
    const all = (await agent.get("/v1/deployments")).json<{ ID: string }[]>();
    const prefix = all[0]!.ID.slice(0, 2);
    const matching = all.map((d) => d.ID).filter((id) => id.startsWith(prefix)).sort();
    expect((await ids(agent, `/v1/deployments?prefix=${prefix}`)).ids).toEqual(matching);
    const everything = [...all.map((d) => d.ID)].sort();
    const page = await ids(agent, "/v1/deployments?prefix=&per_page=1");
    expect(page.ids).toEqual([all[0]!.ID]);
    expect(everything.length).toBeGreaterThan(1);
  });

  it("refuses a prefix that is not an even number of hexadecimal characters", async () => {
    for (const prefix of ["abc", "xy", "a-b-c"]) {
      const response = await agent.get(`/v1/deployments?prefix=${prefix}`);
      expect(response.status).toBe(400);
      expect(response.text).toMatch(/^Invalid ID prefix/);
    }
  });

  it('filters deployments: Status != "successful"', async () => {
    const running = (await agent.get(`/v1/deployments?filter=${encodeURIComponent('Status != "successful"')}`)).json<{ Status: string }[]>();
    expect(running.length).toBeGreaterThan(0);
    expect(running.every((d) => d.Status !== "successful")).toBe(true);
    const groups = (await agent.get(`/v1/deployments?filter=${encodeURIComponent("TaskGroups.g.DesiredTotal == 1")}`)).json<unknown[]>();
    expect(groups.length).toBe(running.length);
  });

  it("lists deployments in the reference's field order", async () => {
    const [deployment] = (await agent.get("/v1/deployments")).json<Record<string, unknown>[]>();
    expect(Object.keys(deployment!)).toEqual([
      "ID", "Namespace", "JobID", "JobVersion", "JobModifyIndex", "JobSpecModifyIndex", "JobCreateIndex", "IsMultiregion",
      "TaskGroups", "Status", "StatusDescription", "EvalPriority", "CreateIndex", "ModifyIndex", "CreateTime", "ModifyTime",
    ]);
    expect(Object.keys(Object.values(deployment!.TaskGroups as object)[0])).toEqual([
      "AutoRevert", "AutoPromote", "ProgressDeadline", "RequireProgressBy", "Promoted", "PlacedCanaries",
      "DesiredCanaries", "DesiredTotal", "PlacedAllocs", "HealthyAllocs", "UnhealthyAllocs",
    ]);
  });
});

describe("the demo data set", () => {
  const demo = useAgent({ demo: true, placementDelayMs: 60_000 });

  it("has service and batch jobs in two namespaces, and cancelled, successful and running deployments", async () => {
    const jobs = (await demo.get("/v1/jobs?namespace=*")).json<{ Namespace: string; Type: string }[]>();
    expect(new Set(jobs.map((j) => j.Namespace))).toEqual(new Set(["default", "prod"]));
    expect(new Set(jobs.map((j) => j.Type))).toEqual(new Set(["service", "batch"]));
    // The demo's last deployment is made by the scheduler after the agent starts (later on a loaded
    // machine, on PostgreSQL): its list is read until it is there.
    const statuses = await eventually(async () => {
      const listed = (await demo.get("/v1/deployments?namespace=*")).json<{ Status: string; StatusDescription: string }[]>();
      return listed.some((d) => d.Status === "running") ? listed : undefined;
    }, 15_000);
    expect(statuses.map((d) => d.Status)).toEqual(expect.arrayContaining(["cancelled", "successful", "running"]));
    expect(statuses.find((d) => d.Status === "cancelled")!.StatusDescription).toBe("Cancelled due to newer version of job");
  });
});
