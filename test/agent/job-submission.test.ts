/**
 * The source a job was registered with (`GET /v1/job/<id>/submission?version=N`, the reference's
 * `Jobs().Submission`): kept per version by a registration's `Submission`, pruned with the
 * versions, carried by a revert, deleted when the job is purged, dropped with a warning when too
 * large. On the manual clock over real sockets.
 */
import { describe, expect, it } from "vitest";
import { humanBytes } from "../../src/go/humanize.js";
import { MAX_JOB_SOURCE_BYTES } from "../../src/server/scheduler/submission.js";
import { useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

const counted = (id: string, count: number, namespace?: string) => ({
  ID: id,
  ...(namespace === undefined ? {} : { Namespace: namespace }),
  TaskGroups: [{ Name: "g", Count: count, Tasks: [{ Name: "t", Driver: "mock" }] }],
});
const source = (count: number) => `job "x" { group "g" { count = ${count} } }`;

/** Registers `job` with a submission of `text`; answers the registration's body. */
async function registerWith(agent: TestAgent, job: Item, text: string, extra: Item = {}, query = "") {
  const response = await agent.put(`/v1/jobs${query}`, { Job: job, Submission: { Source: text, Format: "hcl2", VariableFlags: { owner: "team%20a" }, Variables: "a = 1", ...extra } });
  expect(response.status, response.text).toBe(200);
  return response.json<Item>();
}

describe("a job's submission", () => {
  const agent = useAgent({ clock: "manual", nodes: 1, namespaces: [{ Name: "other" }] });

  it("answers the source each version was registered with, its flags unescaped, at its JobModifyIndex", async () => {
    const first = await registerWith(agent, counted("sub", 1), source(1));
    const second = await registerWith(agent, counted("sub", 2), source(2));
    for (const [version, registered, count] of [[0, first, 1], [1, second, 2]] as const) {
      const response = await agent.get(`/v1/job/sub/submission?version=${version}`);
      expect(response.status).toBe(200);
      expect(response.json<Item>()).toEqual({
        Source: source(count),
        Format: "hcl2",
        VariableFlags: { owner: "team a" },
        Variables: "a = 1",
        Namespace: "default",
        JobID: "sub",
        Version: version,
        JobModifyIndex: registered.JobModifyIndex,
      });
      expect(Number(response.headers["x-svc-index"])).toBe(registered.JobModifyIndex);
    }
  });

  it.each([
    ["a version that does not exist", "/v1/job/sub/submission?version=9", 404, "job source not found"],
    ["a job that does not exist", "/v1/job/nobody/submission?version=0", 404, "job source not found"],
    ["no version", "/v1/job/sub/submission", 400, "Unable to parse job submission version parameter"],
    ["a version that is not a number", "/v1/job/sub/submission?version=x", 400, "Unable to parse job submission version parameter"],
    ["a negative version", "/v1/job/sub/submission?version=-1", 400, "Unable to parse job submission version parameter"],
    ["the job in another namespace", "/v1/job/sub/submission?version=0&namespace=other", 404, "job source not found"],
  ])("answers %s with the reference's text", async (_name, path, status, text) => {
    if ((await agent.get("/v1/job/sub")).status === 404) await registerWith(agent, counted("sub", 1), source(1));
    const response = await agent.get(path);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });

  it("keeps none for a registration without one, nor for one that changes nothing", async () => {
    await agent.register(counted("plain", 1));
    expect((await agent.get("/v1/job/plain/submission?version=0")).status).toBe(404);
    await registerWith(agent, counted("plain", 1), source(1));
    expect((await agent.get("/v1/job/plain/submission?version=0")).status).toBe(404);
  });

  it("keeps as many sources as versions, the newest", async () => {
    for (let count = 1; count <= 8; count++) await registerWith(agent, counted("many", count), source(count));
    const statuses = [];
    for (let version = 0; version < 8; version++) statuses.push((await agent.get(`/v1/job/many/submission?version=${version}`)).status);
    expect(statuses).toEqual([404, 404, 200, 200, 200, 200, 200, 200]);
  });

  it("gives a reverted version the source of the version it reverts to", async () => {
    await registerWith(agent, counted("rev", 1), source(1));
    await registerWith(agent, counted("rev", 2), source(2));
    expect((await agent.put("/v1/job/rev/revert", { JobID: "rev", JobVersion: 0 })).status).toBe(200);
    expect((await agent.get("/v1/job/rev/submission?version=2")).json<Item>()).toMatchObject({ Source: source(1), Version: 2 });
  });

  it("deletes the sources with the purged job, and keeps them when it is only stopped", async () => {
    await registerWith(agent, counted("gone", 1), source(1));
    expect((await agent.get("/v1/job/gone", { method: "DELETE" })).status).toBe(200);
    expect((await agent.get("/v1/job/gone/submission?version=0")).status).toBe(200);
    expect((await agent.get("/v1/job/gone?purge=true", { method: "DELETE" })).status).toBe(200);
    expect((await agent.get("/v1/job/gone/submission?version=0")).status).toBe(404);
  });

  it("keeps a job's source in its namespace only", async () => {
    await registerWith(agent, counted("spaced", 1, "other"), source(1), {}, "?namespace=other");
    expect((await agent.get("/v1/job/spaced/submission?version=0&namespace=other")).json<Item>()).toMatchObject({ Namespace: "other", JobID: "spaced" });
    expect((await agent.get("/v1/job/spaced/submission?version=0")).status).toBe(404);
  });

  it.each([
    ["at the limit is kept", MAX_JOB_SOURCE_BYTES, 200, ""],
    ["a byte over the limit is dropped with a warning", MAX_JOB_SOURCE_BYTES + 1, 404, "1 warning:\n\n* job source size of 1.0 MB exceeds maximum of 1.0 MB and will be discarded"],
  ])("a source %s", async (_name, bytes, status, warnings) => {
    const id = `big-${bytes}`;
    // The variables file and the flags count with the source.
    const flags = { k: "v" };
    const text = "x".repeat(bytes - "a = 1".length - 2);
    const registered = await registerWith(agent, counted(id, 1), text, { VariableFlags: flags });
    expect(registered.Warnings).toBe(warnings);
    expect((await agent.get(`/v1/job/${id}/submission?version=0`)).status).toBe(status);
    expect((await agent.get(`/v1/job/${id}`)).status).toBe(200);
  });
});

const ROOT = "00000000-0000-4000-8000-000000000001";
const READER = "00000000-0000-4000-8000-000000000002";
const LISTER = "00000000-0000-4000-8000-000000000003";

describe("a job's submission under ACLs", () => {
  const agent = useAgent({
    clock: "manual",
    nodes: 1,
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "reader", Rules: 'namespace "default" { capabilities = ["read-job"] }' },
        { Name: "lister", Rules: 'namespace "default" { capabilities = ["list-jobs"] }' },
      ],
      tokens: [
        { SecretID: READER, Name: "reader", Type: "client", Policies: ["reader"] },
        { SecretID: LISTER, Name: "lister", Type: "client", Policies: ["lister"] },
      ],
    },
  });

  it.each([
    ["read-job", READER, 200],
    ["list-jobs only", LISTER, 403],
    ["no token", "", 403],
  ])("answers a token with %s", async (_name, token, status) => {
    const body = { Job: counted("secret", 1), Submission: { Source: "s", Format: "hcl2" } };
    if ((await agent.get("/v1/job/secret", { headers: { "x-svc-token": ROOT } })).status === 404) expect((await agent.put("/v1/jobs", body, { headers: { "x-svc-token": ROOT } })).status).toBe(200);
    const response = await agent.get("/v1/job/secret/submission?version=0", token === "" ? {} : { headers: { "x-svc-token": token } });
    expect(response.status, response.text).toBe(status);
  });
});

describe("sizes in the reference's words (go-humanize's Bytes)", () => {
  it.each([
    [0, "0 B"],
    [9, "9 B"],
    [10, "10 B"],
    [999, "999 B"],
    [1_000, "1.0 kB"],
    [1_049, "1.0 kB"],
    [1_050, "1.1 kB"],
    [12_345, "12 kB"],
    [1_000_000, "1.0 MB"],
    [1_000_001, "1.0 MB"],
    [4_194_304, "4.2 MB"],
    [82_854_982, "83 MB"],
  ])("writes %d bytes as %s", (bytes, text) => {
    expect(humanBytes(bytes)).toBe(text);
  });
});
