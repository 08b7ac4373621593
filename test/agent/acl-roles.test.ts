/**
 * ACL roles (`/v1/acl/roles`, `/v1/acl/role[/<id>]`, `/v1/acl/role/name/<name>`), tokens linked to
 * them, and one-time tokens (`/v1/acl/token/onetime[/exchange]`), over HTTP.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { blake2b } from "@noble/hashes/blake2b";
import { MAX_ROLE_NAME_LENGTH, MAX_ROLE_POLICIES, MAX_TOKEN_ROLES, ONE_TIME_TOKEN_TTL_MS } from "../../src/server/domain/acl.js";
import { useAgent } from "./support.js";

const ROOT = "0b5b3a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
const READ_DEFAULT = 'namespace "default" { policy = "read" }';
const READ_PROD = 'namespace "prod" { policy = "read" }';

const agent = useAgent({
  clock: "manual",
  namespaces: [{ Name: "prod" }],
  acl: {
    enabled: true,
    bootstrapToken: ROOT,
    policies: [
      { Name: "read-default", Rules: READ_DEFAULT },
      { Name: "read-prod", Rules: READ_PROD },
    ],
  },
});

interface Role {
  ID: string;
  Name: string;
  Description: string;
  Policies: { Name: string }[];
  Hash: string;
  CreateIndex: number;
  ModifyIndex: number;
}

interface Token {
  AccessorID: string;
  SecretID: string;
  Policies: string[] | null;
  Roles: { ID: string; Name: string }[] | null;
}

const as = (token: string, path: string, method = "GET", body?: unknown) =>
  agent.get(path, { method, headers: { "x-svc-token": token }, body: body === undefined ? undefined : JSON.stringify(body) });

let roleCount = 0;
/** A new role of these policies, named uniquely unless a name is given. */
async function createRole(policies: string[], name = `role-${++roleCount}`): Promise<Role> {
  const response = await as(ROOT, "/v1/acl/role", "PUT", { Name: name, Policies: policies.map((Name) => ({ Name })) });
  expect(response.status, response.text).toBe(200);
  return response.json<Role>();
}

async function createToken(fields: Record<string, unknown>): Promise<Token> {
  const response = await as(ROOT, "/v1/acl/token", "PUT", { Type: "client", ...fields });
  expect(response.status, response.text).toBe(200);
  return response.json<Token>();
}

describe("BLAKE2b (@noble/hashes, as Go's golang.org/x/crypto/blake2b)", () => {
  it("gives Go's blake2b.Sum256 of nothing", () => {
    expect(Buffer.from(blake2b(Buffer.alloc(0), { dkLen: 32 })).toString("hex")).toBe("0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  });

  it.each([0, 1, 127, 128, 129, 256, 1000])("agrees with Node's BLAKE2b-512 on %i bytes", (size) => {
    const data = Buffer.from(Array.from({ length: size }, (_, i) => (i * 7) & 0xff));
    expect(Buffer.from(blake2b(data, { dkLen: 64 })).equals(createHash("blake2b512").update(data).digest())).toBe(true);
  });
});

describe("roles", () => {
  it("creates, reads by ID and by name, lists, updates and deletes a role", async () => {
    const created = await as(ROOT, "/v1/acl/role", "PUT", { Name: "ops", Description: "operators", Policies: [{ Name: "read-default" }, { Name: "read-default" }] });
    expect(created.status).toBe(200);
    const role = created.json<Role>();
    expect(Object.keys(role)).toEqual(["ID", "Name", "Description", "Policies", "Hash", "CreateIndex", "ModifyIndex"]);
    expect(role).toMatchObject({ Name: "ops", Description: "operators", Policies: [{ Name: "read-default" }] });
    expect(role.ID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // BLAKE2b-256 of "opsoperatorsread-default" (name, description and policy names), base64.
    expect(role.Hash).toBe("ENiQbaFxf1PFK5HwcLTBEa5KVobVUL0NnePU3WBqKzg=");
    expect(created.headers["x-svc-index"]).toBe(String(role.ModifyIndex));

    const byId = await as(ROOT, `/v1/acl/role/${role.ID}`);
    expect([byId.status, byId.json()]).toEqual([200, role]);
    expect(byId.headers["x-svc-index"]).toBe(String(role.ModifyIndex));
    expect((await as(ROOT, "/v1/acl/role/name/ops")).json()).toEqual(role);
    expect((await as(ROOT, "/v1/acl/roles")).json<Role[]>()).toContainEqual(role);
    expect((await as(ROOT, `/v1/acl/roles?prefix=${role.ID.slice(0, 6)}`)).json<Role[]>().map((listed) => listed.ID)).toEqual([role.ID]);

    const same = (await as(ROOT, `/v1/acl/role/${role.ID}`, "PUT", { ID: role.ID, Name: "ops", Description: "operators", Policies: [{ Name: "read-default" }] })).json<Role>();
    expect(same.ModifyIndex).toBe(role.ModifyIndex);
    const renamed = (await as(ROOT, `/v1/acl/role/${role.ID}`, "POST", { ID: role.ID, Name: "operators", Policies: [{ Name: "read-prod" }] })).json<Role>();
    expect(renamed).toMatchObject({ ID: role.ID, Name: "operators", Description: "", Policies: [{ Name: "read-prod" }], CreateIndex: role.CreateIndex });
    expect(renamed.ModifyIndex).toBeGreaterThan(role.ModifyIndex);
    expect((await as(ROOT, "/v1/acl/role/name/ops")).status).toBe(404);

    const deleted = await as(ROOT, `/v1/acl/role/${role.ID}`, "DELETE");
    expect(deleted.status).toBe(200);
    expect(Number(deleted.headers["x-svc-index"])).toBeGreaterThan(renamed.ModifyIndex);
    const gone = await as(ROOT, `/v1/acl/role/${role.ID}`);
    expect([gone.status, gone.text]).toEqual([404, "ACL role not found"]);
    expect(gone.headers["x-svc-index"]).toBe(deleted.headers["x-svc-index"]);
    const again = await as(ROOT, `/v1/acl/role/${role.ID}`, "DELETE");
    expect([again.status, again.text]).toEqual([404, "ACL role not found"]);
  });

  const many = (count: number) => Array.from({ length: count }, () => ({ Name: "read-default" }));
  it.each([
    ["a name with a space", { Name: "bad name", Policies: [{ Name: "read-default" }] }, "role 0 invalid: 1 error occurred:\n\t* invalid name 'bad name'\n\n"],
    ["a name too long", { Name: "n".repeat(MAX_ROLE_NAME_LENGTH + 1), Policies: [{ Name: "read-default" }] }, `role 0 invalid: 1 error occurred:\n\t* invalid name '${"n".repeat(MAX_ROLE_NAME_LENGTH + 1)}'\n\n`],
    ["no policy", { Name: "empty" }, "role 0 invalid: 1 error occurred:\n\t* at least one policy should be specified\n\n"],
    ["too many policy links", { Name: "crowded", Policies: many(MAX_ROLE_POLICIES + 1) }, `role 0 invalid: 1 error occurred:\n\t* more than ${MAX_ROLE_POLICIES} policies\n\n`],
    ["a description too long", { Name: "wordy", Description: "d".repeat(257), Policies: [{ Name: "read-default" }] }, "role 0 invalid: 1 error occurred:\n\t* description longer than 256\n\n"],
    ["two problems", { Name: "", Description: "d".repeat(257) }, "role 0 invalid: 3 errors occurred:\n\t* invalid name ''\n\t* description longer than 256\n\t* at least one policy should be specified\n\n"],
    ["a policy that does not exist", { Name: "ghost", Policies: [{ Name: "nope" }] }, "cannot find policy nope"],
    ["an ID no role has", { ID: "6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e", Name: "ghost", Policies: [{ Name: "read-default" }] }, "cannot find role 6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e"],
  ])("refuses %s with 400", async (_case, body, text) => {
    const response = await as(ROOT, "/v1/acl/role", "PUT", body);
    expect([response.status, response.text]).toEqual([400, text]);
  });

  it(`takes a name of ${MAX_ROLE_NAME_LENGTH} characters and ${MAX_ROLE_POLICIES} policy links`, async () => {
    const role = await createRole(["read-default"], "n".repeat(MAX_ROLE_NAME_LENGTH));
    expect(role.Name).toHaveLength(MAX_ROLE_NAME_LENGTH);
    const response = await as(ROOT, "/v1/acl/role", "PUT", { Name: "full", Policies: many(MAX_ROLE_POLICIES) });
    expect([response.status, response.json<Role>().Policies]).toEqual([200, [{ Name: "read-default" }]]);
  });

  it("refuses a second role of the same name, by create or by rename", async () => {
    const first = await createRole(["read-default"]);
    const second = await createRole(["read-default"]);
    const dup = await as(ROOT, "/v1/acl/role", "PUT", { Name: first.Name, Policies: [{ Name: "read-default" }] });
    expect([dup.status, dup.text]).toEqual([400, `role with name ${first.Name} already exists`]);
    const rename = await as(ROOT, `/v1/acl/role/${second.ID}`, "PUT", { ID: second.ID, Name: first.Name, Policies: [{ Name: "read-default" }] });
    expect([rename.status, rename.text]).toEqual([400, `ACL role with name ${first.Name} already exists`]);
  });

  it.each([
    ["PUT", "/v1/acl/role/6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e", { Name: "x", Policies: [{ Name: "read-default" }] }, 400, "ACL role ID does not match request path"],
    ["GET", "/v1/acl/role/", undefined, 400, "missing ACL role ID"],
    ["DELETE", "/v1/acl/role/", undefined, 400, "missing ACL role ID"],
    ["GET", "/v1/acl/role/name/", undefined, 400, "missing ACL role name"],
    ["GET", "/v1/acl/role/abc/def", undefined, 400, "invalid URI"],
    ["PUT", "/v1/acl/role/abc/def", undefined, 405, "Invalid method"],
    ["DELETE", "/v1/acl/role/name/ops", undefined, 405, "Invalid method"],
    ["GET", "/v1/acl/role/abc/def/ghi", undefined, 400, "invalid URI"],
    ["DELETE", "/v1/acl/roles", undefined, 405, "Invalid method"],
    ["GET", "/v1/acl/role", undefined, 405, "Invalid method"],
  ])("answers %s %s as the reference", async (method, path, body, status, text) => {
    const response = await as(ROOT, path, method, body);
    expect([response.status, response.text]).toEqual([status, text]);
  });

  it("wakes a blocking read of a role, and of the role list, when the role changes", async () => {
    const role = await createRole(["read-default"]);
    // The wait is longer than the test's timeout: only the write can answer them in time.
    const reading = as(ROOT, `/v1/acl/role/${role.ID}?index=${role.ModifyIndex}&wait=60s`);
    const listing = as(ROOT, `/v1/acl/roles?index=${role.ModifyIndex}&wait=60s`);
    const updated = (await as(ROOT, `/v1/acl/role/${role.ID}`, "PUT", { ID: role.ID, Name: role.Name, Description: "now", Policies: [{ Name: "read-default" }] })).json<Role>();
    const read = await reading;
    expect([read.status, read.json<Role>().Description, read.headers["x-svc-index"]]).toEqual([200, "now", String(updated.ModifyIndex)]);
    expect((await listing).headers["x-svc-index"]).toBe(String(updated.ModifyIndex));
  });

  it("lets only a management token write roles", async () => {
    const role = await createRole(["read-default"]);
    const holder = await createToken({ Roles: [{ ID: role.ID }] });
    const cases: [string, string, unknown][] = [
      ["PUT", "/v1/acl/role", { Name: "mine", Policies: [{ Name: "read-default" }] }],
      ["PUT", `/v1/acl/role/${role.ID}`, { ID: role.ID, Name: role.Name, Policies: [{ Name: "read-prod" }] }],
      ["DELETE", `/v1/acl/role/${role.ID}`, undefined],
    ];
    for (const [method, path, body] of cases) {
      const response = await as(holder.SecretID, path, method, body);
      expect([method, response.status, response.text]).toEqual([method, 403, "Permission denied"]);
    }
    expect((await as(ROOT, `/v1/acl/role/${role.ID}`)).json<Role>().Policies).toEqual([{ Name: "read-default" }]);
  });
});

describe("tokens with roles", () => {
  it("links roles by name or ID, once each, and answers with their names", async () => {
    const role = await createRole(["read-default"]);
    const token = await createToken({ Policies: ["read-prod"], Roles: [{ Name: role.Name }, { ID: role.ID }] });
    expect(token.Roles).toEqual([{ ID: role.ID, Name: role.Name }]);
    expect(token.Policies).toEqual(["read-prod"]);
    const read = await as(ROOT, `/v1/acl/token/${token.AccessorID}`);
    expect(read.json()).toEqual(token);
    // Lists show the links as stored: the ID, and no name (the reference's stubs).
    const stub = (await as(ROOT, "/v1/acl/tokens")).json<Token[]>().find((listed) => listed.AccessorID === token.AccessorID);
    expect(stub?.Roles).toEqual([{ ID: role.ID, Name: "" }]);
    const roleOnly = await createToken({ Roles: [{ Name: role.Name }] });
    expect([roleOnly.Policies, roleOnly.Roles]).toEqual([[], [{ ID: role.ID, Name: role.Name }]]);
  });

  it.each([
    ["a role name no role has", [{ Name: "nobody" }], "cannot find role nobody"],
    ["a role ID no role has", [{ ID: "6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e" }], "cannot find role 6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e"],
  ])("refuses %s with 400", async (_case, roles, text) => {
    const response = await as(ROOT, "/v1/acl/token", "PUT", { Type: "client", Roles: roles });
    expect([response.status, response.text]).toEqual([400, text]);
  });

  it(`takes ${MAX_TOKEN_ROLES} role links and refuses ${MAX_TOKEN_ROLES + 1}`, async () => {
    const role = await createRole(["read-default"]);
    const links = (count: number) => Array.from({ length: count }, () => ({ ID: role.ID }));
    expect((await createToken({ Roles: links(MAX_TOKEN_ROLES) })).Roles).toEqual([{ ID: role.ID, Name: role.Name }]);
    const refused = await as(ROOT, "/v1/acl/token", "PUT", { Type: "client", Roles: links(MAX_TOKEN_ROLES + 1) });
    expect([refused.status, refused.text]).toEqual([400, `token 0 invalid: 1 error occurred:\n\t* more than ${MAX_TOKEN_ROLES} roles\n\n`]);
  });

  it("grants what the role's policies allow, follows changes of the role and its policies at once, and nothing once it is deleted", async () => {
    const role = await createRole(["read-default"]);
    const token = await createToken({ Roles: [{ ID: role.ID }] });
    const reads = async () => [(await as(token.SecretID, "/v1/jobs?namespace=default")).status, (await as(token.SecretID, "/v1/jobs?namespace=prod")).status];
    expect(await reads()).toEqual([200, 403]);

    expect((await as(ROOT, `/v1/acl/role/${role.ID}`, "PUT", { ID: role.ID, Name: role.Name, Policies: [{ Name: "read-prod" }] })).status).toBe(200);
    expect(await reads()).toEqual([403, 200]);

    await as(ROOT, "/v1/acl/policy/read-prod", "DELETE");
    expect(await reads()).toEqual([403, 403]);
    await as(ROOT, "/v1/acl/policy/read-prod", "PUT", { Name: "read-prod", Rules: READ_PROD });
    expect(await reads()).toEqual([403, 200]);

    // The token reads its role's policy, as a holder of it.
    expect((await as(token.SecretID, "/v1/acl/policy/read-prod")).status).toBe(200);
    expect((await as(token.SecretID, "/v1/acl/policies")).json<{ Name: string }[]>().map((policy) => policy.Name)).toEqual(["read-prod"]);

    await as(ROOT, `/v1/acl/role/${role.ID}`, "DELETE");
    expect(await reads()).toEqual([403, 403]);
    expect((await as(token.SecretID, "/v1/acl/token/self")).json<Token>().Roles).toEqual([]);
  });

  it("lets a token read and list the roles it links to, and no other", async () => {
    const mine = await createRole(["read-default"]);
    const other = await createRole(["read-default"]);
    const token = await createToken({ Roles: [{ ID: mine.ID }] });
    expect((await as(token.SecretID, `/v1/acl/role/${mine.ID}`)).json()).toEqual(mine);
    expect((await as(token.SecretID, `/v1/acl/role/name/${mine.Name}`)).json()).toEqual(mine);
    expect((await as(token.SecretID, "/v1/acl/roles")).json<Role[]>()).toEqual([mine]);
    for (const path of [`/v1/acl/role/${other.ID}`, `/v1/acl/role/name/${other.Name}`, "/v1/acl/role/6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e"]) {
      const response = await as(token.SecretID, path);
      expect([path, response.status, response.text]).toEqual([path, 403, "Permission denied"]);
    }
    const anonymous = await agent.get(`/v1/acl/role/${mine.ID}`);
    expect(anonymous.status).toBe(403);
    expect((await agent.get("/v1/acl/roles")).json()).toEqual([]);
  });
});

describe("one-time tokens", () => {
  it("gives a one-time token for the caller's token, exchanged once for that token", async () => {
    const role = await createRole(["read-default"]);
    const token = await createToken({ Roles: [{ ID: role.ID }] });
    const now = agent.agent.clock.now().getTime();
    const upserted = await as(token.SecretID, "/v1/acl/token/onetime", "PUT");
    expect(upserted.status).toBe(200);
    const { OneTimeToken: ott, Index } = upserted.json<{ OneTimeToken: Record<string, unknown>; Index: number }>();
    expect(Object.keys(ott)).toEqual(["OneTimeSecretID", "AccessorID", "ExpiresAt", "CreateIndex", "ModifyIndex"]);
    expect(ott).toMatchObject({ AccessorID: token.AccessorID, ExpiresAt: new Date(now + ONE_TIME_TOKEN_TTL_MS).toISOString(), CreateIndex: Index, ModifyIndex: Index });
    expect(upserted.headers["x-svc-index"]).toBe(String(Index));

    const exchanged = await agent.put("/v1/acl/token/onetime/exchange", { OneTimeSecretID: ott.OneTimeSecretID });
    expect(exchanged.status).toBe(200);
    const { Token: got, Index: exchangeIndex } = exchanged.json<{ Token: Token; Index: number }>();
    expect(got).toMatchObject({ AccessorID: token.AccessorID, SecretID: token.SecretID, Roles: [{ ID: role.ID, Name: role.Name }] });
    expect(exchangeIndex).toBeGreaterThan(Index);

    const twice = await agent.put("/v1/acl/token/onetime/exchange", { OneTimeSecretID: ott.OneTimeSecretID });
    expect([twice.status, twice.text]).toEqual([403, "Permission denied"]);
  });

  it("refuses a one-time token past its 10 minutes, and removes it", async () => {
    const token = await createToken({ Policies: ["read-default"] });
    const first = (await as(token.SecretID, "/v1/acl/token/onetime", "PUT")).json<{ OneTimeToken: { OneTimeSecretID: string } }>().OneTimeToken;
    await agent.agent.clock.advance(ONE_TIME_TOKEN_TTL_MS);
    // Still good at its ExpiresAt (the reference refuses it once ExpiresAt is before now).
    expect((await agent.put("/v1/acl/token/onetime/exchange", { OneTimeSecretID: first.OneTimeSecretID })).status).toBe(200);

    const second = (await as(token.SecretID, "/v1/acl/token/onetime", "PUT")).json<{ OneTimeToken: { OneTimeSecretID: string } }>().OneTimeToken;
    await agent.agent.clock.advance(ONE_TIME_TOKEN_TTL_MS + 1);
    const late = await agent.put("/v1/acl/token/onetime/exchange", { OneTimeSecretID: second.OneTimeSecretID });
    expect([late.status, late.text]).toEqual([403, "Permission denied"]);
    const kept = (await agent.agent.snapshot()).Tables.one_time_token;
    expect(kept.map((row) => row.AccessorID)).not.toContain(token.AccessorID);
  });

  it("refuses the one-time token of a token deleted since", async () => {
    const token = await createToken({ Policies: ["read-default"] });
    const ott = (await as(token.SecretID, "/v1/acl/token/onetime", "PUT")).json<{ OneTimeToken: { OneTimeSecretID: string } }>().OneTimeToken;
    await as(ROOT, `/v1/acl/token/${token.AccessorID}`, "DELETE");
    const response = await agent.put("/v1/acl/token/onetime/exchange", { OneTimeSecretID: ott.OneTimeSecretID });
    expect([response.status, response.text]).toEqual([403, "Permission denied"]);
  });

  it("replaces a token's earlier one-time token with a new one", async () => {
    const token = await createToken({ Policies: ["read-default"] });
    const ask = async () => (await as(token.SecretID, "/v1/acl/token/onetime", "POST")).json<{ OneTimeToken: { OneTimeSecretID: string } }>().OneTimeToken.OneTimeSecretID;
    const older = await ask();
    const newer = await ask();
    expect((await agent.put("/v1/acl/token/onetime/exchange", { OneTimeSecretID: older })).status).toBe(403);
    expect((await agent.put("/v1/acl/token/onetime/exchange", { OneTimeSecretID: newer.toUpperCase() })).status).toBe(200);
  });

  it.each([
    ["no token", "PUT", "/v1/acl/token/onetime", undefined, undefined, 403, "Permission denied"],
    ["an unknown token", "PUT", "/v1/acl/token/onetime", "6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e", undefined, 403, "Permission denied"],
    ["GET", "GET", "/v1/acl/token/onetime", ROOT, undefined, 405, "Invalid method"],
    ["an unknown secret", "PUT", "/v1/acl/token/onetime/exchange", undefined, { OneTimeSecretID: "6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e" }, 403, "Permission denied"],
    ["a secret that is no UUID", "PUT", "/v1/acl/token/onetime/exchange", undefined, { OneTimeSecretID: "nope" }, 403, "Permission denied"],
    ["no secret", "PUT", "/v1/acl/token/onetime/exchange", undefined, {}, 400, "one-time token lookup failed: missing secret"],
    ["a secret of the wrong type", "PUT", "/v1/acl/token/onetime/exchange", undefined, { OneTimeSecretID: 7 }, 400, undefined],
    ["GET on exchange", "GET", "/v1/acl/token/onetime/exchange", undefined, undefined, 405, "Invalid method"],
  ])("answers %s as the reference", async (_case, method, path, token, body, status, text) => {
    const response = await agent.get(path, { method, headers: token === undefined ? {} : { "x-svc-token": token }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect(response.status).toBe(status);
    if (text !== undefined) expect(response.text).toBe(text);
  });
});

describe("snapshots", () => {
  it("keeps roles, role links and one-time tokens, and restores a snapshot taken before them with none", async () => {
    const role = await createRole(["read-default"]);
    const token = await createToken({ Roles: [{ ID: role.ID }] });
    await as(token.SecretID, "/v1/acl/token/onetime", "PUT");
    const snapshot = await agent.agent.snapshot();
    expect(snapshot.Tables.acl_role.map((row) => row.ID)).toContain(role.ID);
    expect(snapshot.Tables.one_time_token.map((row) => row.AccessorID)).toContain(token.AccessorID);

    await as(ROOT, `/v1/acl/role/${role.ID}`, "DELETE");
    await agent.agent.restore(snapshot);
    expect((await as(token.SecretID, "/v1/jobs?namespace=default")).status).toBe(200);

    const { acl_role: _roles, one_time_token: _ott, ...older } = snapshot.Tables;
    await agent.agent.restore({ ...snapshot, Tables: older as typeof snapshot.Tables });
    expect((await as(ROOT, "/v1/acl/roles")).json()).toEqual([]);
    expect((await as(token.SecretID, "/v1/jobs?namespace=default")).status).toBe(403);
    expect((await as(token.SecretID, "/v1/acl/token/self")).json<Token>().Roles).toEqual([]);
  });

  it("refuses a snapshot with two roles of one name", async () => {
    const snapshot = await agent.agent.snapshot();
    const row = { ID: "6a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e", Name: "twin", Description: "", Policies: [], Hash: "", CreateIndex: 1, ModifyIndex: 1 };
    const twins = { ...snapshot, Tables: { ...snapshot.Tables, acl_role: [row, { ...row, ID: "7a1f0c1e-2f4b-4c55-9b7e-0d3c2b1a0f9e" }] } };
    await expect(agent.agent.restore(twins)).rejects.toThrow(/Name/);
  });
});
