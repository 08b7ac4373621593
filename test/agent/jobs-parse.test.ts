/**
 * `PUT /v1/jobs/parse` and `PUT /v1/validate/job`, as the reference's client calls them
 * (`Jobs().ParseHCLOpts`, `Jobs().Validate`): the jobspec decoded (canonicalised on request), its
 * mistakes as 400s with the reference's `Failed to parse job: ` reason, a job's validation errors
 * answered 200 in the body, and the capabilities each needs, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { MAX_JOBSPEC_BYTES, MAX_JOBSPEC_DEPTH } from "../../src/server/domain/jobspec.js";
import { job, useAgent } from "./support.js";

type Item = Record<string, any>;

const JOBSPEC = `variable "image" {
  type    = string
  default = "nginx"
}

job "web" {
  datacenters = ["dc1"]
  group "g" {
    count = 2
    task "t" {
      driver = "docker"
      config {
        image = var.image
      }
    }
  }
}`;

describe("parsing a jobspec", () => {
  const agent = useAgent({ clock: "manual" });

  it("answers the job as jobspec2 decodes it, without the defaults", async () => {
    const response = await agent.put("/v1/jobs/parse", { JobHCL: JOBSPEC });
    expect(response.status).toBe(200);
    const parsed = response.json<Item>();
    expect(parsed).toMatchObject({ ID: "web", Name: "web", Namespace: null, Type: null, Datacenters: ["dc1"] });
    expect(parsed.TaskGroups[0]).toMatchObject({ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "docker", Config: { image: "nginx" }, Resources: null }] });
  });

  it("takes the request's variables over the defaults", async () => {
    const parsed = (await agent.put("/v1/jobs/parse", { JobHCL: JOBSPEC, Variables: 'image = "redis"\n' })).json<Item>();
    expect(parsed.TaskGroups[0].Tasks[0].Config).toEqual({ image: "redis" });
  });

  it("applies the job's defaults with Canonicalize, as a registration would", async () => {
    const parsed = (await agent.put("/v1/jobs/parse", { JobHCL: JOBSPEC, Canonicalize: true })).json<Item>();
    expect(parsed).toMatchObject({ ID: "web", Namespace: "default", Region: "global", Type: "service", Priority: 50, NodePool: "default" });
    expect(parsed.TaskGroups[0]).toMatchObject({ Count: 2, EphemeralDisk: { SizeMB: 300 }, Tasks: [{ Resources: { CPU: 100, MemoryMB: 300 }, KillTimeout: 5_000_000_000 }] });
  });

  it("reads HCLv1 as HCL2, as the pinned reference does", async () => {
    expect((await agent.put("/v1/jobs/parse", { JobHCL: 'job "v1" {}', HCLv1: true })).json<Item>()).toMatchObject({ ID: "v1" });
  });

  it.each([
    ["no body", "", "Request body is empty"],
    ["a body that is not the request", '{"JobHCL": 3}', "json: cannot unmarshal number into Go struct field JobsParseRequest.JobHCL of type string"],
    ["an empty jobspec", { JobHCL: "" }, "Job spec is empty"],
    ["a syntax error", { JobHCL: 'job "x" {' }, "Failed to parse job: input.hcl:1,9-10: Unclosed configuration block; There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file."],
    ["an argument the job does not have", { JobHCL: 'job "x" {\n  colour = 1\n}' }, 'Failed to parse job: input.hcl:2,3: Unsupported argument; An argument named "colour" is not expected here.'],
    ["a function the agent does not evaluate", { JobHCL: 'job "x" {\n  name = upper("x")\n}' }, /^Failed to parse job: input\.hcl:2,10: Unsupported expression; .*"upper\(\\"x\\"\)"/],
    ["variables that do not parse", { JobHCL: JOBSPEC, Variables: "image = " }, /^Failed to parse job: unable to parse var content: input\.hcl:1,/],
    ["a jobspec past the limit", { JobHCL: `job "x" {}\n${"#".repeat(MAX_JOBSPEC_BYTES)}` }, `Failed to parse job: the job spec and its variables are ${MAX_JOBSPEC_BYTES + 11} bytes long; the limit is ${MAX_JOBSPEC_BYTES}`],
  ])("answers 400 to %s", async (_name, body, reason) => {
    const response = await agent.put("/v1/jobs/parse", body);
    expect(response.status).toBe(400);
    if (typeof reason === "string") expect(response.text).toBe(reason);
    else expect(response.text).toMatch(reason);
  });

  it("answers 400 to brackets nested thousands deep, and parses the next jobspec (they crashed the HCL parser's runtime)", async () => {
    const bomb = `job "deep" {\n  meta {\n    a = ${"[".repeat(20_000)}${"]".repeat(20_000)}\n  }\n}`;
    const refused = await agent.put("/v1/jobs/parse", { JobHCL: bomb });
    expect({ status: refused.status, text: refused.text }).toEqual({ status: 400, text: `Failed to parse job: the job nests deeper than ${MAX_JOBSPEC_DEPTH} levels of brackets` });
    const next = await agent.put("/v1/jobs/parse", { JobHCL: 'job "after" {}' });
    expect({ status: next.status, id: next.json<Item>().ID }).toEqual({ status: 200, id: "after" });
  });

  it("answers 405 to a GET", async () => {
    expect((await agent.get("/v1/jobs/parse")).status).toBe(405);
  });
});

describe("validating a job", () => {
  const agent = useAgent({ clock: "manual" });

  it("answers a valid job with no errors, without registering it", async () => {
    const response = await agent.put("/v1/validate/job", { Job: job("fine") });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ DriverConfigValidated: true, ValidationErrors: null, Error: "", Warnings: "" });
    expect((await agent.get("/v1/job/fine")).status).toBe(404);
  });

  it("answers 200 with the errors a registration refuses, in the reference's list and text", async () => {
    const invalid = job("", { Priority: 101, TaskGroups: [{ Name: "g", Tasks: [{ Name: "t" }] }] });
    const response = await agent.put("/v1/validate/job", { Job: invalid });
    expect(response.status).toBe(200);
    const body = response.json<Item>();
    expect(body.ValidationErrors).toEqual(["Missing job ID", "Missing job name", "Task group g validation failed: 1 error occurred:\n\t* Task t validation failed: 1 error occurred:\n\t* Missing task driver\n\n\n\n", "job priority must be between [1, 100]"]);
    expect(body.Error).toBe(`4 errors occurred:\n${body.ValidationErrors.map((error: string) => `\t* ${error}`).join("\n")}\n\n`);
    const registered = await agent.put("/v1/jobs", { Job: invalid });
    expect({ status: registered.status, text: registered.text }).toEqual({ status: 400, text: body.Error });
  });

  it("validates in the job's namespace, whatever the query names", async () => {
    const body = (await agent.put("/v1/validate/job?namespace=default", { Job: job("elsewhere", { Namespace: "nowhere" }) })).json<Item>();
    expect(body.ValidationErrors).toEqual(['job "elsewhere" is in nonexistent namespace "nowhere"']);
  });

  it.each([
    ["no body", "", "Request body is empty"],
    ["no job", {}, "Job must be specified"],
  ])("answers 400 to %s", async (_name, body, reason) => {
    const response = await agent.put("/v1/validate/job", body);
    expect({ status: response.status, text: response.text }).toEqual({ status: 400, text: reason });
  });
});

describe("the capabilities of parse and validate", () => {
  const management = "00000000-0000-4000-8000-000000000001";
  const parser = "00000000-0000-4000-8000-000000000002";
  const submitter = "00000000-0000-4000-8000-000000000003";
  const reader = "00000000-0000-4000-8000-000000000004";
  const agent = useAgent({
    clock: "manual",
    acl: {
      enabled: true,
      bootstrapToken: management,
      policies: [
        { Name: "parse", Rules: 'namespace "default" { capabilities = ["parse-job"] }' },
        { Name: "submit", Rules: 'namespace "default" { capabilities = ["submit-job"] }' },
        { Name: "read", Rules: 'namespace "prod" { capabilities = ["read-job"] }' },
      ],
      tokens: [
        { SecretID: parser, AccessorID: "00000000-0000-4000-8000-0000000000a2", Name: "parse", Type: "client", Policies: ["parse"] },
        { SecretID: submitter, AccessorID: "00000000-0000-4000-8000-0000000000a3", Name: "submit", Type: "client", Policies: ["submit"] },
        { SecretID: reader, AccessorID: "00000000-0000-4000-8000-0000000000a4", Name: "read", Type: "client", Policies: ["read"] },
      ],
    },
  });
  const as = (token: string) => ({ headers: { "x-svc-token": token } });

  it.each([
    ["parse-job", parser, "", 200],
    ["submit-job", submitter, "", 200],
    ["read-job elsewhere", reader, "", 403],
    ["parse-job in another namespace", parser, "?namespace=prod", 403],
    ["no token", "", "", 403],
  ])("parses with %s: %s", async (_name, token, query, status) => {
    const response = await agent.put(`/v1/jobs/parse${query}`, { JobHCL: 'job "x" {}' }, token === "" ? {} : as(token));
    expect(response.status).toBe(status);
  });

  it("checks the token before it reads the body, as the reference does", async () => {
    const response = await agent.put("/v1/jobs/parse", "", as(reader));
    expect({ status: response.status, text: response.text }).toEqual({ status: 403, text: "Permission denied" });
  });

  it.each([
    ["read-job in the job's namespace", reader, "prod", 200],
    ["parse-job only", parser, "default", 403],
    ["read-job in another namespace than the job's", reader, "default", 403],
  ])("validates with %s", async (_name, token, namespace, status) => {
    const response = await agent.put("/v1/validate/job?namespace=prod", { Job: job("checked", { Namespace: namespace }) }, as(token));
    expect(response.status).toBe(status);
  });
});
