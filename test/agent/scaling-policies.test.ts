/**
 * Scaling policies: one for each task group with a scaling block, listed as stubs with `job`,
 * `type` and `prefix`, read whole; their ID kept across the job's versions; gone with the job.
 * Over real sockets.
 */
import { describe, expect, it } from "vitest";
import { job, send, useAgent } from "./support.js";

type Stub = { ID: string; Type: string; Enabled: boolean; Target: Record<string, string> };

const scaled = (id: string, fields: Record<string, unknown> = {}) =>
  job(id, { TaskGroups: [{ Name: "web", Count: 2, Scaling: { Max: 5, Policy: { cooldown: "1m" }, ...fields }, Tasks: [{ Name: "t", Driver: "mock" }] }, { Name: "plain", Tasks: [{ Name: "t", Driver: "mock" }] }] });

describe("scaling policies", () => {
  const agent = useAgent({ clock: "manual", nodes: 1, namespaces: [{ Name: "prod" }] });
  const list = async (query = "") => (await agent.get(`/v1/scaling/policies${query}`)).json<Stub[]>();

  it("lists one policy per scaled group, and reads it whole", async () => {
    expect(await list()).toEqual([]);
    await agent.register(scaled("api"));
    const [stub, ...others] = await list();
    expect(others).toEqual([]);
    expect(stub).toMatchObject({ Type: "horizontal", Enabled: true, Target: { Namespace: "default", Job: "api", Group: "web" } });
    const policy = await agent.get(`/v1/scaling/policy/${stub!.ID}`);
    expect(policy.status).toBe(200);
    expect(policy.json()).toMatchObject({ ID: stub!.ID, Min: 2, Max: 5, Policy: { cooldown: "1m" }, Enabled: true });
    expect((await agent.get("/v1/scaling/policy/00000000-0000-4000-8000-000000000000")).text).toBe("policy not found");
  });

  it("keeps a policy's ID across the job's versions", async () => {
    const [before] = await list();
    await agent.register(scaled("api", { Max: 9, Enabled: false }));
    const [after] = await list();
    expect(after!.ID).toBe(before!.ID);
    expect(after!.Enabled).toBe(false);
    expect((await agent.get(`/v1/scaling/policy/${after!.ID}`)).json()).toMatchObject({ Max: 9 });
  });

  it("selects by job, type, prefix and namespace", async () => {
    await agent.register(scaled("worker"));
    await agent.register(scaled("other"), "?namespace=prod");
    expect((await list("?job=worker")).map((stub) => stub.Target.Job)).toEqual(["worker"]);
    expect(await list("?type=vertical")).toEqual([]);
    const [first] = await list();
    expect((await list(`?prefix=${first!.ID.slice(0, 6)}`)).map((stub) => stub.ID)).toContain(first!.ID);
    expect((await list("?namespace=prod")).map((stub) => stub.Target.Job)).toEqual(["other"]);
    expect((await list("?namespace=*")).map((stub) => stub.Target.Job).sort()).toEqual(["api", "other", "worker"]);
    const [prod] = await list("?namespace=prod");
    expect((await agent.get(`/v1/scaling/policy/${prod!.ID}`)).status).toBe(404);
    expect((await agent.get(`/v1/scaling/policy/${prod!.ID}?namespace=prod`)).status).toBe(200);
  });

  it("drops a purged job's policies", async () => {
    expect((await send(`${agent.url}/v1/job/worker?purge=true`, { method: "DELETE" })).status).toBe(200);
    expect((await list("?job=worker"))).toEqual([]);
  });
});
