import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { job, useAgent, type TestAgent } from "./support.js";

const ROOT = "00000000-0000-4000-8000-000000000001";
const PROD_READER = "00000000-0000-4000-8000-000000000002";
const PROD_WRITER = "00000000-0000-4000-8000-000000000003";
const NODE_READER = "00000000-0000-4000-8000-000000000004";
const UNRELATED = "00000000-0000-4000-8000-000000000005";
const EXPIRED = "00000000-0000-4000-8000-000000000006";
const PROD_LISTER = "00000000-0000-4000-8000-000000000007";

const aclOptions = {
  enabled: true,
  bootstrapToken: ROOT,
  tokenMinExpirationTTL: "1ms",
  policies: [
    { Name: "prod-read", Rules: 'namespace "prod" { policy = "read" }' },
    { Name: "prod-write", Rules: 'namespace "prod" { policy = "write" }' },
    { Name: "prod-list", Rules: '{"namespace": {"prod": {"capabilities": ["list-jobs"]}}}' },
    { Name: "node-read", Rules: 'node { policy = "read" }' },
    { Name: "elsewhere", Rules: 'namespace "other" { policy = "write" }\nnode { policy = "deny" }' },
  ],
  tokens: [
    { SecretID: PROD_READER, Name: "prod reader", Policies: ["prod-read"] },
    { SecretID: PROD_WRITER, Name: "prod writer", Policies: ["prod-write", "prod-read"] },
    { SecretID: PROD_LISTER, Name: "prod lister", Policies: ["prod-list"] },
    { SecretID: NODE_READER, Name: "node reader", Policies: ["node-read"] },
    { SecretID: UNRELATED, Name: "unrelated", Policies: ["elsewhere"] },
    { SecretID: EXPIRED, Name: "expired", Policies: ["prod-write", "node-read"], ExpirationTime: "2020-01-01T00:00:00Z" },
  ],
};

const agent = useAgent({ demo: true, acl: aclOptions, placementDelayMs: 60_000 });

function as(target: TestAgent, token: string | undefined, path: string, method = "GET", body?: unknown) {
  return target.get(path, { method, headers: token === undefined ? {} : { "x-svc-token": token }, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Each endpoint, and the token that holds what it needs. */
const endpoints: [string, string, string, unknown, string][] = [
  ["GET", "/v1/jobs?namespace=prod", "list-jobs", undefined, PROD_READER],
  ["PUT", "/v1/jobs?namespace=prod", "submit-job", { Job: job("acl-new") }, PROD_WRITER],
  ["GET", "/v1/deployments?namespace=prod", "read-job", undefined, PROD_READER],
  ["GET", "/v1/agent/members", "node:read", undefined, NODE_READER],
  ["GET", "/v1/namespace/prod", "any capability in prod", undefined, PROD_LISTER],
  ["GET", "/v1/acl/tokens", "management", undefined, ROOT],
  ["PUT", "/v1/namespace/acl-made", "management", { Name: "acl-made" }, ROOT],
  ["PUT", "/v1/acl/policy/acl-made", "management", { Name: "acl-made", Rules: 'node { policy = "read" }' }, ROOT],
];

const deniedCallers: [string, string | undefined][] = [
  ["no token", undefined],
  ["an unknown token", randomUUID()],
  ["a malformed token", "not-a-uuid"],
  ["an expired token", EXPIRED],
  ["a token without the capability", UNRELATED],
];

describe("with ACLs enabled", () => {
  describe.each(endpoints)("%s %s (needs %s)", (method, path, _needs, body, allowed) => {
    it.each(deniedCallers)("answers %s with 403 Permission denied", async (_caller, token) => {
      const response = await as(agent, token, path, method, body);
      expect(response.status).toBe(403);
      expect(response.text).toBe("Permission denied");
      expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    });

    it("answers a token with the capability", async () => {
      const response = await as(agent, allowed, path, method, body);
      expect(response.status, response.text).toBe(200);
    });

    it("answers the management token", async () => {
      const response = await as(agent, ROOT, path, method, body);
      expect(response.status, response.text).toBe(200);
    });
  });

  it("serves metrics without a token", async () => {
    expect((await as(agent, undefined, "/v1/metrics")).status).toBe(200);
    expect((await as(agent, "not-a-uuid", "/v1/metrics")).status).toBe(200);
  });

  it("accepts Authorization: Bearer, and prefers X-Svc-Token", async () => {
    expect((await agent.get("/v1/agent/members", { headers: { authorization: `Bearer ${NODE_READER}` } })).status).toBe(200);
    expect((await agent.get("/v1/agent/members", { headers: { authorization: `bearer ${NODE_READER}` } })).status).toBe(200);
    expect((await agent.get("/v1/agent/members", { headers: { authorization: NODE_READER } })).status).toBe(403);
    const both = { "x-svc-token": UNRELATED, authorization: `Bearer ${NODE_READER}` };
    expect((await agent.get("/v1/agent/members", { headers: both })).status).toBe(403);
    const trimmed = { "x-svc-token": `  ${NODE_READER} ` };
    expect((await agent.get("/v1/agent/members", { headers: trimmed })).status).toBe(200);
  });

  it("registers with submit-job or register-job, and refuses read-only tokens", async () => {
    expect((await as(agent, PROD_READER, "/v1/jobs?namespace=prod", "PUT", { Job: job("by-reader") })).status).toBe(403);
    expect((await as(agent, PROD_WRITER, "/v1/jobs", "PUT", { Job: job("in-default") })).status).toBe(403);
    expect((await as(agent, PROD_WRITER, "/v1/jobs", "PUT", { Job: job("via-job", { Namespace: "prod" }) })).status).toBe(200);
    const withSecret = await agent.put("/v1/jobs?namespace=prod", { Job: job("via-secret"), SecretID: PROD_WRITER });
    expect(withSecret.status).toBe(200);
  });

  it("refuses a specific namespace the token cannot list", async () => {
    expect((await as(agent, PROD_READER, "/v1/jobs?namespace=default")).status).toBe(403);
    expect((await as(agent, PROD_LISTER, "/v1/deployments?namespace=prod")).status).toBe(403);
  });

  it("lists namespace=* as the permitted namespaces only, trimmed before paging", async () => {
    const everything = (await as(agent, ROOT, "/v1/jobs?namespace=*")).json<{ Namespace: string; ID: string }[]>();
    const prodJobs = everything.filter((stub) => stub.Namespace === "prod").map((stub) => stub.ID);
    expect(everything.some((stub) => stub.Namespace === "default")).toBe(true);
    const visible = (await as(agent, PROD_READER, "/v1/jobs?namespace=*")).json<{ Namespace: string; ID: string }[]>();
    expect(visible.map((stub) => stub.ID)).toEqual(prodJobs);
    const first = await as(agent, PROD_READER, "/v1/jobs?namespace=*&per_page=1");
    expect(first.json<{ ID: string }[]>().map((stub) => stub.ID)).toEqual(prodJobs.slice(0, 1));
    expect(first.headers["x-svc-nexttoken"]).toBe(`prod.${prodJobs[1]}`);
  });

  it("refuses namespace=* when no namespace grants the capability", async () => {
    expect((await as(agent, NODE_READER, "/v1/jobs?namespace=*")).status).toBe(403);
    // A grant in a namespace that does not exist passes the check and lists nothing.
    const response = await as(agent, UNRELATED, "/v1/jobs?namespace=*");
    expect(response.status).toBe(200);
    expect(response.text).toBe("[]");
  });

  it.each(deniedCallers)("lists no namespace for %s (the list is trimmed, never refused)", async (_caller, token) => {
    const response = await as(agent, token, "/v1/namespaces");
    expect(response.status).toBe(200);
    expect(response.text).toBe("[]");
  });

  it("lists only the namespaces a token may see", async () => {
    const names = (token: string) => as(agent, token, "/v1/namespaces").then((r) => r.json<{ Name: string }[]>().map((n) => n.Name));
    expect(await names(PROD_READER)).toEqual(["prod"]);
    expect(await names(NODE_READER)).toEqual([]);
    expect(await names(ROOT)).toEqual(expect.arrayContaining(["default", "prod"]));
  });
});

describe("the anonymous policy", () => {
  const anonymous = useAgent({
    demo: true,
    acl: { enabled: true, bootstrapToken: ROOT, policies: [{ Name: "anonymous", Rules: 'namespace "default" { policy = "read" }' }] },
  });

  it("applies to requests without a token, and only to them", async () => {
    expect((await anonymous.get("/v1/jobs")).status).toBe(200);
    expect((await anonymous.get("/v1/deployments")).status).toBe(200);
    expect((await anonymous.get("/v1/jobs?namespace=prod")).status).toBe(403);
    expect((await anonymous.get("/v1/agent/members")).status).toBe(403);
    expect((await anonymous.get("/v1/jobs", { headers: { "x-svc-token": randomUUID() } })).status).toBe(403);
    expect((await anonymous.get("/v1/jobs", { headers: { "x-svc-token": "malformed" } })).status).toBe(403);
  });

  it("grants nothing once the policy is deleted", async () => {
    expect((await as(anonymous, ROOT, "/v1/acl/policy/anonymous", "DELETE")).status).toBe(200);
    expect((await anonymous.get("/v1/jobs")).status).toBe(403);
  });
});

describe("with ACLs disabled", () => {
  const open = useAgent();

  it("lets every request through, whatever its token", async () => {
    expect((await open.get("/v1/jobs", { headers: { "x-svc-token": "anything" } })).status).toBe(200);
    expect((await open.get("/v1/agent/members")).status).toBe(200);
  });

  it.each([
    ["POST", "/v1/acl/bootstrap"],
    ["GET", "/v1/acl/policies"],
    ["GET", "/v1/acl/tokens"],
    ["GET", "/v1/acl/token/self"],
    ["GET", "/v1/acl/roles"],
    ["PUT", "/v1/acl/role"],
    ["GET", "/v1/acl/role/6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e"],
    ["GET", "/v1/acl/role/name/ops"],
    ["PUT", "/v1/acl/token/onetime"],
    ["PUT", "/v1/acl/token/onetime/exchange"],
  ])("answers %s %s with 400 ACL support disabled", async (method, path) => {
    const response = await open.get(path, { method, body: method === "PUT" ? JSON.stringify({ OneTimeSecretID: "x" }) : undefined });
    expect(response.status).toBe(400);
    expect(response.text).toBe("ACL support disabled");
  });
});
