import { describe, expect, it } from "vitest";
import { job, useAgent } from "./support.js";

const agent = useAgent({ placementDelayMs: 60_000, namespaces: [{ Name: "configured", Description: "from the config" }] });

describe("namespaces", () => {
  it("lists default and the configured namespaces in the reference's shape", async () => {
    const response = await agent.get("/v1/namespaces");
    expect(response.status).toBe(200);
    expect(response.headers["x-svc-index"]).toMatch(/^[1-9]/);
    const namespaces = response.json<Record<string, unknown>[]>();
    expect(namespaces.map((n) => n.Name)).toEqual(["configured", "default"]);
    expect(namespaces[1]).toMatchObject({ Name: "default", Description: "Default shared namespace" });
    expect(Object.keys(namespaces[0]!)).toEqual([
      "Name", "Description", "Quota", "Capabilities", "NodePoolConfiguration", "VaultConfiguration", "ConsulConfiguration", "Meta", "CreateIndex", "ModifyIndex",
    ]);
  });

  it("creates a namespace a job can then be registered into, and reads it back", async () => {
    const created = await agent.put("/v1/namespace/prod", { Name: "prod", Description: "production", Meta: { team: "ops" } });
    expect(created.status).toBe(200);
    expect(created.text).toBe("");
    const read = (await agent.get("/v1/namespace/prod")).json<Record<string, unknown>>();
    expect(read).toMatchObject({ Name: "prod", Description: "production", Meta: { team: "ops" } });
    await agent.register(job("in-prod"), "?namespace=prod");
    expect((await agent.get("/v1/jobs?namespace=prod")).json<{ ID: string }[]>().map((s) => s.ID)).toEqual(["in-prod"]);
  });

  it("creates with POST /v1/namespace and the name in the body", async () => {
    expect((await agent.get("/v1/namespace", { method: "POST", body: JSON.stringify({ Name: "posted" }) })).status).toBe(200);
    expect((await agent.get("/v1/namespace/posted")).status).toBe(200);
  });

  it("takes a job's namespace from the query, then the request, then the job", async () => {
    await agent.put("/v1/namespace/ns-a", { Name: "ns-a" });
    await agent.put("/v1/namespace/ns-b", { Name: "ns-b" });
    await agent.put("/v1/jobs", { Namespace: "ns-a", Job: job("from-request", { Namespace: "ns-b" }) });
    await agent.put("/v1/jobs", { Job: job("from-job", { Namespace: "ns-b" }) });
    await agent.put("/v1/jobs?namespace=ns-b", { Namespace: "ns-a", Job: job("from-query") });
    const ids = async (namespace: string) => (await agent.get(`/v1/jobs?namespace=${namespace}`)).json<{ ID: string }[]>().map((s) => s.ID);
    expect(await ids("ns-a")).toEqual(["from-request"]);
    expect(await ids("ns-b")).toEqual(["from-job", "from-query"]);
  });

  it.each([
    ["GET", "/v1/namespace/nosuch", undefined, 404, "Namespace not found"],
    ["PUT", "/v1/namespace/x", { Name: "y" }, 400, "Namespace name does not match request path"],
    ["PUT", "/v1/namespace/", { Name: "" }, 400, "Missing Namespace Name"],
    ["PUT", "/v1/namespace/bad name", { Name: "bad name" }, 400, 'Invalid namespace "bad name": 1 error occurred:\n\t* invalid name "bad name". Must match regex ^[a-zA-Z0-9-]{1,128}$\n\n'],
    ["DELETE", "/v1/namespace/default", undefined, 400, "default namespace can not be deleted"],
    ["DELETE", "/v1/namespace/nosuch", undefined, 400, "namespace not found"],
    ["PATCH", "/v1/namespace/prod", undefined, 405, "Invalid method"],
  ])("answers %s %s with %i", async (method, path, body, status, text) => {
    const response = await agent.get(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    expect([response.status, response.text]).toEqual([status, text]);
  });

  it("refuses to delete a namespace that still has jobs, and deletes an empty one", async () => {
    const busy = await agent.get("/v1/namespace/prod", { method: "DELETE" });
    expect(busy.status).toBe(400);
    expect(busy.text).toBe('namespace "prod" contains at least one non-terminal job "in-prod". All jobs must be terminal in namespace before it can be deleted');
    expect((await agent.get("/v1/namespace/posted", { method: "DELETE" })).status).toBe(200);
    expect((await agent.get("/v1/namespace/posted")).status).toBe(404);
  });

  it("blocks a namespace list until a namespace changes", async () => {
    const index = Number((await agent.get("/v1/namespaces")).headers["x-svc-index"]);
    const waiting = agent.get(`/v1/namespaces?index=${index}&wait=10s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await agent.put("/v1/namespace/late", { Name: "late" });
    const response = await waiting;
    expect(Number(response.headers["x-svc-index"])).toBeGreaterThan(index);
    expect(response.json<{ Name: string }[]>().map((n) => n.Name)).toContain("late");
  });
});
