/**
 * `DELETE /v1/job/<id>`: a job stopped (a new version, its allocations stopped, dead), or purged.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, startTestAgent, useAgent } from "./support.js";

describe("DELETE /v1/job/<id>", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000 });
  const remove = (path: string) => send(agent.url + path, { method: "DELETE" });

  it("stops a job: a new version with Stop set, its allocations stopped, the job dead", async () => {
    await agent.register(job("web", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance("1s");
    const stopped = await remove("/v1/job/web");
    expect(stopped.status).toBe(200);
    const body = stopped.json() as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["EvalID", "EvalCreateIndex", "JobModifyIndex", "VolumeEvalID", "VolumeEvalIndex", "Index", "LastContact", "KnownLeader", "NextToken"]);
    expect(body).toMatchObject({ EvalCreateIndex: body.Index, JobModifyIndex: body.Index });
    expect(stopped.headers["x-svc-index"]).toBe(String(body.Index));
    await agent.agent.clock.advance(0);
    const full = parseJson((await agent.get("/v1/job/web")).text) as { Stop: boolean; Version: number; Status: string };
    expect(full).toMatchObject({ Stop: true, Version: 1, Status: "dead" });
    const allocations = parseJson((await agent.get("/v1/job/web/allocations")).text) as { DesiredStatus: string; ClientStatus: string }[];
    expect(allocations).toHaveLength(2);
    for (const alloc of allocations) expect(alloc).toMatchObject({ DesiredStatus: "stop", ClientStatus: "complete" });
    const evaluations = parseJson((await agent.get("/v1/job/web/evaluations")).text) as { ID: string; TriggeredBy: string; Status: string }[];
    expect(evaluations.find((evaluation) => evaluation.ID === body.EvalID)).toMatchObject({ TriggeredBy: "job-deregister", Status: "complete" });
  });

  it("purges a job: it, its summary, allocations and deployments are gone", async () => {
    await agent.register(job("gone", { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance("1s");
    expect((await remove("/v1/job/gone?purge=true")).status).toBe(200);
    await agent.agent.clock.advance(0);
    const read = await agent.get("/v1/job/gone");
    expect([read.status, read.text]).toEqual([404, "job not found"]);
    expect((await agent.get("/v1/job/gone/summary")).status).toBe(404);
    expect((await agent.get("/v1/job/gone/versions")).status).toBe(404);
    expect(parseJson((await agent.get("/v1/job/gone/allocations")).text)).toEqual([]);
    const deployments = parseJson((await agent.get("/v1/deployments")).text) as { JobID: string }[];
    expect(deployments.filter((deployment) => deployment.JobID === "gone")).toEqual([]);
  });

  it("keeps the versions of a job, newest first, the stable one marked, and the stop as a version", async () => {
    await agent.register(job("versioned", { Meta: { v: "0" }, Update: { MaxParallel: 1 } }));
    // Healthy (so stable) once it has run the default MinHealthyTime, 10 s.
    await agent.agent.clock.advance("10.5s");
    await agent.register(job("versioned", { Meta: { v: "1" }, Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance(0);
    await remove("/v1/job/versioned");
    await agent.agent.clock.advance(0);
    const response = await agent.get("/v1/job/versioned/versions");
    expect(response.status).toBe(200);
    const body = parseJson(response.text) as { Versions: { Version: number; Stable: boolean; Stop: boolean; Meta: Record<string, string>; ModifyIndex: number }[]; Diffs: null; Index: number };
    expect(Object.keys(body)).toEqual(["Versions", "Diffs", "Index", "LastContact", "KnownLeader", "NextToken"]);
    expect(body.Versions.map((version) => [version.Version, version.Stable, version.Stop, version.Meta.v])).toEqual([
      [2, false, true, "1"],
      [1, false, false, "1"],
      [0, true, false, "0"],
    ]);
    expect(body.Diffs).toBeNull();
    expect(body.Index).toBe(Math.max(...body.Versions.map((version) => version.ModifyIndex)));
    expect(response.headers["x-svc-index"]).toBe(String(body.Index));
    const missing = await agent.get("/v1/job/nothing/versions");
    expect([missing.status, missing.text]).toEqual([404, "job versions not found"]);
  });

  it("answers each version's diff from the one before it, newest first, with diffs=true", async () => {
    await agent.register(job("diffed", { Meta: { v: "0" }, Priority: 50 }));
    await agent.register(job("diffed", { Meta: { v: "1" }, Priority: 70 }));
    await remove("/v1/job/diffed");
    await agent.agent.clock.advance(0);
    const response = await agent.get("/v1/job/diffed/versions?diffs=true");
    expect(response.status).toBe(200);
    type Diff = { Type: string; ID: string; Fields: { Type: string; Name: string; Old: string; New: string }[] | null };
    const body = parseJson(response.text) as { Versions: { Version: number }[]; Diffs: Diff[] };
    expect(body.Versions.map((version) => version.Version)).toEqual([2, 1, 0]);
    const changed = (diff: Diff) => (diff.Fields ?? []).filter((field) => field.Type !== "None").map((field) => [field.Type, field.Name, field.Old, field.New]);
    expect(body.Diffs.map((diff) => [diff.Type, diff.ID])).toEqual([["Edited", "diffed"], ["Edited", "diffed"]]);
    // Version 2 stopped the job; version 1 changed its priority and a meta value.
    expect(changed(body.Diffs[0]!)).toEqual([["Edited", "Stop", "false", "true"]]);
    expect(changed(body.Diffs[1]!)).toEqual([["Edited", "Meta[v]", "0", "1"], ["Edited", "Priority", "50", "70"]]);
    // Without diffs, or with one version, there are none.
    expect((parseJson((await agent.get("/v1/job/diffed/versions")).text) as { Diffs: unknown }).Diffs).toBeNull();
    await agent.register(job("single"));
    expect((parseJson((await agent.get("/v1/job/single/versions?diffs=true")).text) as { Diffs: unknown }).Diffs).toBeNull();
  });

  it("keeps the newest six versions, and the newest stable one", async () => {
    await agent.register(job("many", { Meta: { v: "0" }, Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance("10.5s");
    for (let v = 1; v <= 8; v++) await agent.register(job("many", { Meta: { v: String(v) } }));
    await agent.agent.clock.advance(0);
    const body = parseJson((await agent.get("/v1/job/many/versions")).text) as { Versions: { Version: number }[] };
    expect(body.Versions.map((version) => version.Version)).toEqual([8, 7, 6, 5, 4, 3, 0]);
  });

  it("answers a job that does not exist with zeros, as the reference does", async () => {
    const response = await remove("/v1/job/never");
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ EvalID: "", EvalCreateIndex: 0, JobModifyIndex: 0, Index: 0 });
  });

  it.each([
    ["?purge=maybe", 'Failed to parse value of "purge" (maybe) as a bool: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ["?eval_priority=101", "Eval priority must be between 1 and 100 inclusively"],
    ["?eval_priority=high", 'Failed to parse value of "eval_priority" (high) as a int'],
  ])("answers %s with a 400", async (query, message) => {
    await agent.register(job("kept"));
    const response = await remove(`/v1/job/kept${query}`);
    expect([response.status, response.text]).toEqual([400, message]);
  });
});

describe("DELETE /v1/job/<id> with ACLs", () => {
  it("needs submit-job in the job's namespace", async () => {
    const agent = await startTestAgent({
      port: 0,
      demo: false,
      logLevel: "silent",
      namespaces: [{ Name: "a" }, { Name: "b" }],
      acl: {
        enabled: true,
        bootstrapToken: "11111111-1111-4111-8111-111111111111",
        policies: [{ Name: "a-write", Rules: 'namespace "a" { policy = "write" }' }],
        tokens: [{ SecretID: "22222222-2222-4222-8222-222222222222", Policies: ["a-write"] }],
      },
    });
    try {
      const root = { "X-Svc-Token": "11111111-1111-4111-8111-111111111111" };
      await send(`${agent.url}/v1/jobs?namespace=b`, { method: "PUT", headers: root, body: JSON.stringify({ Job: job("web") }) });
      const refused = await send(`${agent.url}/v1/job/web?namespace=b`, { method: "DELETE", headers: { "X-Svc-Token": "22222222-2222-4222-8222-222222222222" } });
      expect([refused.status, refused.text]).toEqual([403, "Permission denied"]);
      const read = await send(`${agent.url}/v1/job/web?namespace=b`, { headers: root });
      expect((parseJson(read.text) as { Stop: boolean }).Stop).toBe(false);
    } finally {
      await agent.close();
    }
  });
});
