import { describe, expect, it } from "vitest";
import { eventually, useAgent, startTestAgent } from "./support.js";

const agent = useAgent({ acl: { enabled: true, tokenMinExpirationTTL: "1ms" } });

interface Token {
  AccessorID: string;
  SecretID: string;
  Name: string;
  Type: string;
  Policies: string[] | null;
  ExpirationTime: string | null;
  ExpirationTTL: string;
}

let root = "";
const as = (token: string, path: string, method = "GET", body?: unknown) =>
  agent.get(path, { method, headers: { "x-svc-token": token }, body: body === undefined ? undefined : JSON.stringify(body) });

describe("bootstrap", () => {
  it("returns a management token once", async () => {
    const first = await agent.get("/v1/acl/bootstrap", { method: "POST" });
    expect(first.status).toBe(200);
    const token = first.json<Token & Record<string, unknown>>();
    expect(Object.keys(token)).toEqual([
      "ExpirationTTL", "AccessorID", "SecretID", "Name", "Type", "Policies", "Roles", "Global", "CreateTime", "ExpirationTime", "CreateIndex", "ModifyIndex",
    ]);
    expect(token).toMatchObject({ Name: "Bootstrap Token", Type: "management", Global: true, ExpirationTime: null, ExpirationTTL: "" });
    expect(first.headers["x-svc-index"]).toBe(String(token.CreateIndex));
    root = token.SecretID;
    const again = await agent.get("/v1/acl/bootstrap", { method: "PUT" });
    expect(again.status).toBe(400);
    expect(again.text).toBe(`ACL bootstrap already done (reset index: ${token.CreateIndex})`);
  });

  it("takes a secret chosen in advance, from the request or the configuration", async () => {
    const secret = "8e13b8d7-6c5c-4d5a-9f3d-1a2b3c4d5e6f";
    const configured = useAgentLater({ acl: { enabled: true, bootstrapToken: secret } });
    const members = await configured(async (url) => (await fetch(`${url}/v1/acl/token/self`, { headers: { "x-svc-token": secret } })).json());
    expect(members).toMatchObject({ Type: "management", Name: "Bootstrap Token", SecretID: secret });
  });
});

/** Starts an agent for one test body, then stops it. */
function useAgentLater(options: Parameters<typeof import("../../src/server/index.js").startAgent>[0]) {
  return async <T>(body: (url: string) => Promise<T>): Promise<T> => {
    const { startAgent } = await import("../../src/server/index.js");
    const started = await startTestAgent({ port: 0, demo: false, logLevel: "silent", ...options });
    try {
      return await body(started.url);
    } finally {
      await started.close();
    }
  };
}

describe("bootstrap with a request secret", () => {
  it("uses the secret given, and refuses one that is not a UUID", async () => {
    const run = useAgentLater({ acl: { enabled: true } });
    await run(async (url) => {
      const bad = await fetch(`${url}/v1/acl/bootstrap`, { method: "POST", body: JSON.stringify({ BootstrapSecret: "nope" }) });
      expect([bad.status, await bad.text()]).toEqual([400, "invalid acl token"]);
      const secret = "11111111-2222-4333-8444-555555555555";
      const good = await fetch(`${url}/v1/acl/bootstrap`, { method: "POST", body: JSON.stringify({ BootstrapSecret: secret }) });
      expect(((await good.json()) as Token).SecretID).toBe(secret);
    });
  });
});

describe("policies", () => {
  it("creates, reads, lists and deletes a policy written in HCL", async () => {
    const rules = 'namespace "prod" {\n  policy = "read"\n  capabilities = ["submit-job"]\n}\nnamespace "dev-*" { policy = "write" }\nnode { policy = "read" }';
    const put = await as(root, "/v1/acl/policy/prod-ops", "PUT", { Name: "prod-ops", Description: "ops", Rules: rules });
    expect(put.status).toBe(200);
    expect(put.text).toBe("");
    expect(put.headers["content-type"]).toBeUndefined();
    expect(Number(put.headers["x-svc-index"])).toBeGreaterThan(1);
    const got = (await as(root, "/v1/acl/policy/prod-ops")).json<Record<string, unknown>>();
    expect(got).toMatchObject({ Name: "prod-ops", Description: "ops", Rules: rules });
    const parsed = got.RulesJSON as { Namespaces: { Name: string; Capabilities: string[] }[]; Node: { Policy: string } };
    expect(parsed.Namespaces.map((n) => n.Name).sort()).toEqual(["dev-*", "prod"]);
    expect(parsed.Namespaces.find((n) => n.Name === "prod")!.Capabilities).toEqual(expect.arrayContaining(["list-jobs", "read-job", "submit-job"]));
    expect(parsed.Node).toEqual({ Policy: "read" });
    const listed = (await as(root, "/v1/acl/policies")).json<Record<string, unknown>[]>();
    expect(listed.map((p) => p.Name)).toContain("prod-ops");
    expect(Object.keys(listed[0]!)).toEqual(["Name", "Description", "CreateIndex", "ModifyIndex"]);
    expect((await as(root, "/v1/acl/policy/prod-ops", "DELETE")).status).toBe(200);
    const gone = await as(root, "/v1/acl/policy/prod-ops");
    expect([gone.status, gone.text]).toEqual([404, "ACL policy not found"]);
  });

  it("accepts the JSON form of rules", async () => {
    const rules = JSON.stringify({ namespace: { prod: { policy: "write" } }, node: { policy: "read" } });
    expect((await as(root, "/v1/acl/policy/json-form", "PUT", { Name: "json-form", Rules: rules })).status).toBe(200);
    const parsed = (await as(root, "/v1/acl/policy/json-form")).json<{ RulesJSON: { Namespaces: { Capabilities: string[] }[] } }>();
    expect(parsed.RulesJSON.Namespaces[0]!.Capabilities).toContain("submit-job");
  });

  it.each([
    ['namespace "prod" { policy = }', /^policy 0 invalid: 1 error occurred:\n\t\* failed to parse rules: Failed to parse ACL Policy: /],
    ['namespace "prod" { policy = "rule" }', /^policy 0 invalid: 1 error occurred:\n\t\* failed to parse rules: Invalid namespace policy: &acl\.NamespacePolicy\{Name:"prod", Policy:"rule"/],
    ['namespace "prod" { capabilities = ["fly"] }', /Invalid namespace capability 'fly'/],
    ['namespace "a b" { policy = "read" }', /Invalid namespace name/],
    ['node { policy = "root" }', /Invalid node policy/],
    ["{not json", /Failed to parse ACL Policy/],
    ['unknown "x" { a = 1 }', /Invalid policy/],
  ])("refuses the rules %j with 400", async (rules, text) => {
    const response = await as(root, "/v1/acl/policy/bad", "PUT", { Name: "bad", Rules: rules });
    expect(response.status).toBe(400);
    expect(response.text).toMatch(text);
  });

  it.each([
    ["/v1/acl/policy/x", { Name: "y", Rules: "" }, "ACL policy name does not match request path"],
    ["/v1/acl/policy/bad name", { Name: "bad name", Rules: "" }, "policy 0 invalid: 1 error occurred:\n\t* invalid name 'bad name'\n\n"],
    ["/v1/acl/policy/", { Name: "", Rules: "" }, "Missing Policy Name"],
  ])("refuses PUT %s with 400", async (path, body, text) => {
    const response = await as(root, path, "PUT", body);
    expect([response.status, response.text]).toEqual([400, text]);
  });

  it("lets a client token read only the policies it holds", async () => {
    await as(root, "/v1/acl/policy/mine", "PUT", { Name: "mine", Rules: 'node { policy = "read" }' });
    await as(root, "/v1/acl/policy/theirs", "PUT", { Name: "theirs", Rules: 'node { policy = "read" }' });
    const token = (await as(root, "/v1/acl/token", "PUT", { Name: "holder", Type: "client", Policies: ["mine"] })).json<Token>();
    expect((await as(token.SecretID, "/v1/acl/policy/mine")).status).toBe(200);
    expect((await as(token.SecretID, "/v1/acl/policy/theirs")).status).toBe(403);
    expect((await as(token.SecretID, "/v1/acl/policies")).json<{ Name: string }[]>().map((p) => p.Name)).toEqual(["mine"]);
    expect((await as(token.SecretID, "/v1/acl/policy/x", "PUT", { Name: "x", Rules: "" })).status).toBe(403);
  });
});

describe("tokens", () => {
  it("creates, reads, updates, lists and deletes a client token", async () => {
    await as(root, "/v1/acl/policy/readers", "PUT", { Name: "readers", Rules: 'namespace "default" { policy = "read" }' });
    const created = await as(root, "/v1/acl/token", "PUT", { Name: "ci", Type: "client", Policies: ["readers"] });
    expect(created.status).toBe(200);
    const token = created.json<Token>();
    expect(token).toMatchObject({ Name: "ci", Type: "client", Policies: ["readers"] });
    expect(token.SecretID).toMatch(/^[0-9a-f-]{36}$/);
    expect((await as(token.SecretID, "/v1/jobs")).status).toBe(200);
    expect((await as(token.SecretID, "/v1/acl/token/self")).json<Token>().AccessorID).toBe(token.AccessorID);
    expect((await as(token.SecretID, `/v1/acl/token/${token.AccessorID}`)).status).toBe(200);

    const updated = await as(root, `/v1/acl/token/${token.AccessorID}`, "PUT", { AccessorID: token.AccessorID, Name: "ci-2", Type: "client", Policies: ["readers"] });
    expect(updated.json<Token>()).toMatchObject({ Name: "ci-2", SecretID: token.SecretID });

    const listed = (await as(root, "/v1/acl/tokens")).json<Record<string, unknown>[]>();
    const stub = listed.find((t) => t.AccessorID === token.AccessorID)!;
    expect(stub).not.toHaveProperty("SecretID");
    expect(stub.Name).toBe("ci-2");

    expect((await as(root, `/v1/acl/token/${token.AccessorID}`, "DELETE")).status).toBe(200);
    expect((await as(token.SecretID, "/v1/jobs")).status).toBe(403);
    const missing = await as(root, `/v1/acl/token/${token.AccessorID}`);
    expect([missing.status, missing.text]).toEqual([404, "ACL token not found"]);
  });

  it.each([
    [{ Name: "x", Type: "client" }, "client token missing policies or roles"],
    [{ Name: "x", Type: "management", Policies: ["p"] }, "management token cannot be associated with policies or roles"],
    [{ Name: "x", Type: "admin", Policies: ["p"] }, "token type must be client or management"],
    [{ Name: "x".repeat(257), Type: "management" }, "token name too long"],
    [{ Name: "x", Type: "management", ExpirationTTL: "48h" }, "expiration time cannot be more than 24h0m0s in the future (was 48h0m0s)"],
    [{ Name: "x", Type: "management", ExpirationTTL: "-1h" }, "token expiration TTL '-1h0m0s' should not be negative"],
  ])("refuses the token %j with 400", async (body, problem) => {
    const response = await as(root, "/v1/acl/token", "PUT", body);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/^token 0 invalid: \d errors? occurred:\n/);
    expect(response.text).toContain(`* ${problem}`);
  });

  it("refuses an ExpirationTTL holding a number past int64 with 400, not a 500 (found by the fuzz test)", async () => {
    const response = await agent.get("/v1/acl/token", { method: "PUT", headers: { "x-svc-token": root }, body: '{"ExpirationTTL":{"Job":{"Job":9223372036854775808}}}' });
    expect([response.status, response.text]).toEqual([400, 'time: invalid duration {"Job":{"Job":9223372036854775808}}']);
  });

  it("refuses a token that has expired", async () => {
    const token = (await as(root, "/v1/acl/token", "PUT", { Name: "brief", Type: "management", ExpirationTTL: "300ms" })).json<Token>();
    expect(token.ExpirationTTL).toBe("300ms");
    expect(token.ExpirationTime).not.toBeNull();
    expect((await as(token.SecretID, "/v1/acl/tokens")).status).toBe(200);
    await eventually(async () => ((await as(token.SecretID, "/v1/acl/tokens")).status === 403 ? true : undefined));
    expect((await as(token.SecretID, "/v1/acl/tokens")).text).toBe("Permission denied");
  });

  it("lets only a management token manage tokens", async () => {
    await as(root, "/v1/acl/policy/readers", "PUT", { Name: "readers", Rules: 'namespace "default" { policy = "read" }' });
    const client = (await as(root, "/v1/acl/token", "PUT", { Name: "c", Type: "client", Policies: ["readers"] })).json<Token>();
    expect((await as(client.SecretID, "/v1/acl/tokens")).status).toBe(403);
    expect((await as(client.SecretID, "/v1/acl/token", "PUT", { Name: "d", Type: "management" })).status).toBe(403);
    const other = (await as(root, "/v1/acl/token", "PUT", { Name: "e", Type: "management" })).json<Token>();
    expect((await as(client.SecretID, `/v1/acl/token/${other.AccessorID}`)).status).toBe(403);
  });

  it.each([
    ["GET", "/v1/acl/token/", "Missing Token Accessor"],
    ["PUT", "/v1/acl/token/abc", "ACL token accessor does not match request path"],
    ["DELETE", "/v1/acl/token/7c5a0e7c-0000-4000-8000-000000000000", "Cannot delete nonexistent tokens: 7c5a0e7c-0000-4000-8000-000000000000"],
  ])("answers %s %s with 400", async (method, path, text) => {
    const response = await as(root, path, method, method === "PUT" ? { AccessorID: "xyz", Type: "management" } : undefined);
    expect([response.status, response.text]).toEqual([400, text]);
  });

  it("answers token/self without a valid token with 404", async () => {
    const response = await agent.get("/v1/acl/token/self");
    expect([response.status, response.text]).toEqual([404, "ACL token not found"]);
  });
});

describe("uploading a token with the IDs a client chose (PUT /v1/acl/token/<accessor>)", () => {
  // The IDs of the reference's own test of the upload (api/acl_test.go, TestACLTokens_Upload).
  const ACCESSOR = "b306571d-a3fa-42d2-ac5b-bbe49d8c3c7f";
  const SECRET = "c28ba0f6-ab8d-4e4d-b9f0-7f9f5d1c2e3a";
  const upload = (token: string, body: Record<string, unknown>, path = `/v1/acl/token/${String(body.AccessorID)}`) => as(token, path, "PUT", body);
  const readers = () => as(root, "/v1/acl/policy/readers", "PUT", { Name: "readers", Rules: 'namespace "default" { policy = "read" }' });

  it("creates a client token with the accessor and secret sent, which then authenticates", async () => {
    await readers();
    const response = await upload(root, { AccessorID: ACCESSOR, SecretID: SECRET, Name: "my uploaded token", Type: "client", Policies: ["readers"] });
    expect(response.status).toBe(200);
    const token = response.json<Token & { CreateIndex: number; ModifyIndex: number; CreateTime: string }>();
    expect(token).toMatchObject({ AccessorID: ACCESSOR, SecretID: SECRET, Name: "my uploaded token", Type: "client", Policies: ["readers"], ExpirationTime: null });
    expect(token.CreateIndex).toBe(token.ModifyIndex);
    expect(response.headers["x-svc-index"]).toBe(String(token.ModifyIndex));
    expect(Date.parse(token.CreateTime)).toBeGreaterThan(Date.now() - 60_000);
    expect((await as(SECRET, "/v1/acl/token/self")).json<Token>().AccessorID).toBe(ACCESSOR);
    expect((await as(SECRET, "/v1/jobs")).status).toBe(200);
    expect((await as(root, `/v1/acl/token/${ACCESSOR}`)).json<Token>().SecretID).toBe(SECRET);

    // The same PUT again is an update of the token now there: its secret and creation stay.
    const again = await upload(root, { AccessorID: ACCESSOR, SecretID: "0e4c7d52-1111-4222-8333-444455556666", Name: "renamed", Type: "client", Policies: ["readers"] });
    expect(again.json()).toMatchObject({ AccessorID: ACCESSOR, SecretID: SECRET, Name: "renamed", CreateIndex: token.CreateIndex });
  });

  it("computes the expiry of an uploaded token from its ExpirationTTL, as a created one's", async () => {
    await readers();
    const accessor = "5d0c4b1e-0a5f-4c3e-9d2b-7f6e5d4c3b2a";
    const response = await upload(root, { AccessorID: accessor, SecretID: "6e1d5c2f-1b60-4d4f-8e3c-807f6e5d4c3b", Type: "client", Policies: ["readers"], ExpirationTTL: "10h" });
    expect(response.status).toBe(200);
    const token = response.json<Token & { CreateTime: string }>();
    expect(token.ExpirationTTL).toBe("10h0m0s");
    expect(Date.parse(token.ExpirationTime!) - Date.parse(token.CreateTime)).toBe(10 * 3600_000);
  });

  it("keeps the CreateTime an uploaded token comes with; its ExpirationTTL then sets no expiry, as the reference's Canonicalize", async () => {
    await readers();
    const accessor = "7e2f6d30-2c71-4e50-9f4d-918071605f4c";
    const response = await upload(root, { AccessorID: accessor, SecretID: "8f307e41-3d82-4f61-8a5e-a29182716050", Type: "client", Policies: ["readers"], CreateTime: "2020-01-01T00:00:00Z", ExpirationTTL: "1h" });
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ CreateTime: "2020-01-01T00:00:00Z", ExpirationTTL: "1h0m0s", ExpirationTime: null });
  });

  it.each([
    ["an accessor that is not a UUID", { AccessorID: "abc", SecretID: SECRET, Type: "client", Policies: ["readers"] }],
    ["no secret", { AccessorID: "9a418f52-4e93-4a72-9b6f-b3a293827161", Type: "client", Policies: ["readers"] }],
    ["a secret that is not a UUID", { AccessorID: "9a418f52-4e93-4a72-9b6f-b3a293827161", SecretID: "f5b20e34-9g6c-53d2-b8e4-7f1g2c3d5b6e", Type: "client", Policies: ["readers"] }],
    ["a management token", { AccessorID: "d172e5b4-7e3c-4a9e-bf01-8a5f2c9b1d0c", SecretID: "e4a19d23-8f5b-42c1-a7d3-6e0f1b2c4a5d", Name: "my management token", Type: "management" }],
  ])("refuses to upload %s: 400 cannot find token <accessor>, and creates nothing", async (_what, body) => {
    const response = await upload(root, body);
    expect([response.status, response.text]).toEqual([400, `cannot find token ${body.AccessorID}`]);
    expect((await as(root, `/v1/acl/token/${body.AccessorID}`)).status).toBe(404);
  });

  it.each([
    [{ Type: "client" }, "token 0 invalid: 1 error occurred:\n\t* client token missing policies or roles\n\n"],
    [{ Type: "client", Policies: ["readers"], ExpirationTTL: "48h" }, "token 0 invalid: 1 error occurred:\n\t* expiration time cannot be more than 24h0m0s in the future (was 48h0m0s)\n\n"],
    [{ Type: "client", Roles: [{ Name: "ops" }] }, "cannot find role ops"],
    [{ Type: "admin", Roles: [{ ID: "", Name: "ops" }] }, "token 0 invalid: 1 error occurred:\n\t* token type must be client or management\n\n"],
  ])("validates an uploaded token as a created one (%j)", async (fields, text) => {
    const accessor = "a0529063-5fa4-4b83-8c70-c4b3a4938272";
    const response = await upload(root, { AccessorID: accessor, SecretID: "b163a174-60b5-4c94-9d81-d5c4b5a49383", ...fields });
    expect([response.status, response.text]).toEqual([400, text]);
    expect((await as(root, `/v1/acl/token/${accessor}`)).status).toBe(404);
  });

  it("refuses a secret another token holds, in either case, and writes neither it nor anything", async () => {
    await readers();
    const other = (await as(root, "/v1/acl/token", "PUT", { Name: "holder", Type: "client", Policies: ["readers"] })).json<Token>();
    for (const secret of [root, other.SecretID.toUpperCase()]) {
      const accessor = "c274b285-71c6-4da5-8e92-e6d5c6b5a494";
      const response = await upload(root, { AccessorID: accessor, SecretID: secret, Type: "client", Policies: ["readers"] });
      expect([response.status, response.text]).toEqual([400, "token with this SecretID already exists"]);
      expect((await as(root, `/v1/acl/token/${accessor}`)).status).toBe(404);
    }
    // The secrets still belong to their tokens.
    expect((await as(root, "/v1/acl/token/self")).json<Token>().Type).toBe("management");
    expect((await as(other.SecretID, "/v1/acl/token/self")).json<Token>().AccessorID).toBe(other.AccessorID);
  });

  it("updates the token whose accessor differs from the path's only in case, as the reference's UUID index reads it", async () => {
    await readers();
    const token = (await as(root, "/v1/acl/token", "PUT", { Name: "lower", Type: "client", Policies: ["readers"] })).json<Token>();
    const upper = token.AccessorID.toUpperCase();
    const response = await upload(root, { AccessorID: upper, SecretID: "d385c396-82d7-4eb6-9fa3-f7e6d7c6b5a5", Name: "upper", Type: "client", Policies: ["readers"] });
    expect(response.json()).toMatchObject({ AccessorID: token.AccessorID, SecretID: token.SecretID, Name: "upper" });
    const listed = (await as(root, "/v1/acl/tokens")).json<{ AccessorID: string }[]>();
    expect(listed.filter((t) => t.AccessorID.toLowerCase() === token.AccessorID)).toHaveLength(1);
  });

  it("takes the AccessorID of a POST /v1/acl/token body too, as the reference does", async () => {
    await readers();
    const accessor = "e496d4a7-93e8-4fc7-8ab4-08f7e8d7c6b6";
    const response = await as(root, "/v1/acl/token", "POST", { AccessorID: accessor, SecretID: "f5a7e5b8-a4f9-4d08-9bc5-19080f9e8d7c", Type: "client", Policies: ["readers"] });
    expect(response.json()).toMatchObject({ AccessorID: accessor, SecretID: "f5a7e5b8-a4f9-4d08-9bc5-19080f9e8d7c" });
  });

  it("lets only a management token upload, and checks the body before the caller", async () => {
    await readers();
    const client = (await as(root, "/v1/acl/token", "PUT", { Name: "c", Type: "client", Policies: ["readers"] })).json<Token>();
    const accessor = "06b8f6c9-b50a-4e19-8cd6-2a191a0f9e8d";
    const body = { AccessorID: accessor, SecretID: "17c907da-c61b-4f2a-9de7-3b2a2b1a0f9e", Type: "client", Policies: ["readers"] };
    for (const token of [client.SecretID, ""]) {
      const response = await upload(token, body);
      expect([response.status, response.text]).toEqual([403, "Permission denied"]);
    }
    expect((await as(root, `/v1/acl/token/${accessor}`)).status).toBe(404);
    const mismatched = await upload(client.SecretID, body, "/v1/acl/token/17c907da-0000-4000-8000-000000000000");
    expect([mismatched.status, mismatched.text]).toEqual([400, "ACL token accessor does not match request path"]);
  });
});
