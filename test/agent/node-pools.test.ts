/**
 * Node pools: the built-in `all` and `default`, pools created, replaced and deleted (not the
 * built-in ones, not one in use), the list with prefix, filter and pages, a pool's nodes and jobs,
 * and the `node_pool` ACL rules. Over real sockets.
 */
import { describe, expect, it } from "vitest";
import { job, send, useAgent } from "./support.js";

type Pool = { Name: string; Description: string; Meta: Record<string, string> | null; SchedulerConfiguration: unknown; CreateIndex: number; ModifyIndex: number };

describe("node pools", () => {
  const agent = useAgent({ clock: "manual", nodes: 2 });
  const remove = (name: string) => send(`${agent.url}/v1/node/pool/${name}`, { method: "DELETE" });

  it("lists the built-in pools, and reads each", async () => {
    const pools = (await agent.get("/v1/node/pools")).json<Pool[]>();
    expect(pools.map((pool) => pool.Name)).toEqual(["all", "default"]);
    expect(pools[0]).toMatchObject({ Description: "Node pool with all nodes in the cluster.", Meta: null, SchedulerConfiguration: null });
    expect((await agent.get("/v1/node/pool/default")).json()).toMatchObject({ Name: "default", Description: "Default node pool." });
    const missing = await agent.get("/v1/node/pool/nope");
    expect(missing.status).toBe(404);
    expect(missing.text).toBe("node pool not found");
  });

  it("creates and replaces a pool, its index the write's", async () => {
    const created = await agent.put("/v1/node/pools", { Name: "gpu", Description: "GPUs", Meta: { team: "ml" }, SchedulerConfiguration: { SchedulerAlgorithm: "spread" } });
    expect(created.status, created.text).toBe(200);
    const index = Number(created.headers["x-svc-index"]);
    expect((await agent.get("/v1/node/pool/gpu")).json()).toMatchObject({ Name: "gpu", Meta: { team: "ml" }, SchedulerConfiguration: { SchedulerAlgorithm: "spread", MemoryOversubscriptionEnabled: null }, CreateIndex: index, ModifyIndex: index });
    const replaced = await agent.put("/v1/node/pool/gpu", { Name: "gpu", Description: "more GPUs" });
    expect(replaced.status).toBe(200);
    expect((await agent.get("/v1/node/pool/gpu")).json()).toMatchObject({ Description: "more GPUs", CreateIndex: index });
    expect((await agent.put("/v1/node/pools", { Name: "batch" })).status).toBe(200);
  });

  it("pages, prefixes and filters the list", async () => {
    expect((await agent.get("/v1/node/pools?prefix=g")).json<Pool[]>().map((pool) => pool.Name)).toEqual(["gpu"]);
    const first = await agent.get("/v1/node/pools?per_page=2");
    expect(first.json<Pool[]>().map((pool) => pool.Name)).toEqual(["all", "batch"]);
    const next = first.headers["x-svc-nexttoken"];
    expect(next).toBe("default");
    expect((await agent.get(`/v1/node/pools?per_page=2&next_token=${next!}`)).json<Pool[]>().map((pool) => pool.Name)).toEqual(["default", "gpu"]);
    expect((await agent.get(`/v1/node/pools?filter=${encodeURIComponent('Description contains "GPU"')}`)).json<Pool[]>().map((pool) => pool.Name)).toEqual(["gpu"]);
  });

  it.each([
    ["a built-in pool changed", "/v1/node/pool/all", { Name: "all" }, 'modifying node pool "all" is not allowed'],
    ["a name that is not the path's", "/v1/node/pool/gpu", { Name: "cpu" }, "Node pool name does not match request path"],
    ["an invalid name", "/v1/node/pools", { Name: "a b" }, 'invalid node pool "a b": 1 error occurred:\n\t* invalid name "a b", must match regex ^[a-zA-Z0-9-_]{1,128}$\n\n'],
    ["an unknown algorithm", "/v1/node/pools", { Name: "x", SchedulerConfiguration: { SchedulerAlgorithm: "random" } }, 'invalid node pool "x": 1 error occurred:\n\t* invalid scheduler algorithm: random\n\n'],
  ])("refuses %s with a 400", async (_what, path, body, message) => {
    const response = await agent.put(path, body);
    expect(response.status).toBe(400);
    expect(response.text).toBe(message);
  });

  it("lists a pool's nodes and jobs, `all` every one", async () => {
    await agent.register(job("in-batch", { NodePool: "batch" }));
    await agent.register(job("in-default"));
    expect((await agent.get("/v1/node/pool/batch/jobs")).json<{ ID: string }[]>().map((stub) => stub.ID)).toEqual(["in-batch"]);
    expect((await agent.get("/v1/node/pool/all/jobs")).json<{ ID: string }[]>().map((stub) => stub.ID).sort()).toEqual(["in-batch", "in-default"]);
    expect((await agent.get("/v1/node/pool/default/nodes")).json<unknown[]>()).toHaveLength(2);
    expect((await agent.get("/v1/node/pool/batch/nodes")).json()).toEqual([]);
    const prefixed = await agent.get("/v1/node/pool/batch/jobs?prefix=in");
    expect(prefixed.status).toBe(400);
    expect(prefixed.text).toBe("prefix argument not allowed");
  });

  it("deletes a pool no node and no live job is in; never a built-in one or one in use", async () => {
    const inUse = await remove("batch");
    expect(inUse.status).toBe(400);
    expect(inUse.text).toContain('node pool "batch" has non-terminal jobs in regions: [global]');
    expect((await remove("default")).text).toBe('deleting node pool "default" is not allowed');
    expect((await remove("nope")).status).toBe(404);
    const deleted = await remove("gpu");
    expect(deleted.status, deleted.text).toBe(200);
    expect((await agent.get("/v1/node/pool/gpu")).status).toBe(404);
  });
});

describe("node pools with ACLs", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000c0";
  const GPU_READER = "00000000-0000-4000-8000-0000000000c1";
  const GPU_WRITER = "00000000-0000-4000-8000-0000000000c2";
  const agent = useAgent({
    clock: "manual",
    nodes: 1,
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "gpu-read", Rules: 'node_pool "gpu*" { policy = "read" }\nnamespace "default" { policy = "read" }' },
        { Name: "gpu-write", Rules: 'node_pool "gpu" { policy = "write" }\nnode_pool "other" { capabilities = ["read"] }' },
      ],
      tokens: [
        { SecretID: GPU_READER, Type: "client", Policies: ["gpu-read"] },
        { SecretID: GPU_WRITER, Type: "client", Policies: ["gpu-write"] },
      ],
    },
  });
  const as = (token: string, path: string, method = "GET", body?: unknown) =>
    send(agent.url + path, { method, headers: { "x-svc-token": token }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  it.each([
    ["a reader reads a pool its glob matches", GPU_READER, "/v1/node/pool/gpu-big", "GET", undefined, 404],
    ["a reader may not read another pool", GPU_READER, "/v1/node/pool/default", "GET", undefined, 403],
    ["a reader may not write", GPU_READER, "/v1/node/pools", "PUT", { Name: "gpu" }, 403],
    ["a writer writes its pool", GPU_WRITER, "/v1/node/pools", "PUT", { Name: "gpu" }, 200],
    ["a writer may not write another", GPU_WRITER, "/v1/node/pools", "PUT", { Name: "other" }, 403],
    ["a reader may not delete", GPU_READER, "/v1/node/pool/gpu", "DELETE", undefined, 403],
    ["a reader reads the pool's jobs", GPU_READER, "/v1/node/pool/gpu/jobs", "GET", undefined, 200],
    ["a reader may not read another pool's jobs", GPU_READER, "/v1/node/pool/default/jobs", "GET", undefined, 403],
  ])("%s", async (_what, token, path, method, body, status) => {
    expect((await as(token, path, method, body)).status).toBe(status);
  });

  it("lists the pools a token's rules grant anything in", async () => {
    expect((await as(GPU_READER, "/v1/node/pools")).json<Pool[]>().map((pool) => pool.Name)).toEqual(["gpu"]);
    expect((await as(ROOT, "/v1/node/pools")).json<Pool[]>().map((pool) => pool.Name)).toEqual(["all", "default", "gpu"]);
  });

  it("refuses an invalid node_pool rule with the reference's text", async () => {
    const response = await as(ROOT, "/v1/acl/policy/bad", "PUT", { Name: "bad", Rules: 'node_pool "x" { capabilities = ["fly"] }' });
    expect(response.status).toBe(400);
    expect(response.text).toContain("Invalid node pool capability 'fly' for 'x'");
  });
});

describe("a job's node pool", () => {
  // A fixture's node in a pool brings the pool, as the reference's node registration creates it.
  const agent = useAgent({ clock: "manual", demo: false, data: { Nodes: [{ Name: "gpu-1", NodePool: "gpu" }] } });

  it("is made by a node registered in it", async () => {
    const pool = await agent.get("/v1/node/pool/gpu");
    expect(pool.status, pool.text).toBe(200);
    expect(pool.json()).toMatchObject({ Name: "gpu", Description: "" });
    expect((await agent.put("/v1/jobs", { Job: job("on-gpu", { NodePool: "gpu" }) })).status).toBe(200);
  });

  // The reference's admission hook (`jobNodePoolValidatingHook`): a job in a pool that does not exist was taken, 200.
  it.each([
    ["a registration", "/v1/jobs", 400],
    ["a plan", "/v1/job/nowhere/plan", 400],
  ])("refuses %s into a pool that does not exist", async (_what, path, status) => {
    const response = await agent.put(path, { Job: job("nowhere", { NodePool: "nope" }) });
    expect(response.status).toBe(status);
    expect(response.text).toContain('job "nowhere" is in nonexistent node pool "nope"');
  });

  it("lists a pool that does not exist among a validation's errors", async () => {
    const response = await agent.put("/v1/validate/job", { Job: job("nowhere", { NodePool: "nope" }) });
    expect(response.status).toBe(200);
    expect(response.json<{ ValidationErrors: string[] }>().ValidationErrors).toContain('job "nowhere" is in nonexistent node pool "nope"');
  });
});
