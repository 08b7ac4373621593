/**
 * The reference's `api/acl_test.go`, ported (see `jobs.test.ts` for how). `makeACLClient` starts
 * the agent with ACLs on, bootstraps them, and gives the client the management token.
 */
import { describe, expect } from "vitest";
import { HEADER_STYLES, type GoClient } from "./go-client.js";
import { notServed, PORTED, runGoTests } from "./ported.js";
import { assertQueryMeta, assertWriteMeta, expectUUID, goTestServers, len } from "./support.js";

/** Every test of api/acl_test.go (reference commit aa026cc99cfb), in its order. */
export const ACL_TESTS = {
  TestACLPolicies_ListUpsert: PORTED,
  TestACLPolicies_Delete: PORTED,
  TestACLPolicies_Info: PORTED,
  TestACLTokens_List: PORTED,
  TestACLTokens_CreateUpdate: PORTED,
  TestACLTokens_Upload: PORTED,
  // Ported with its four subtests ("token without expiry", "token with expiry", "token with role
  // link", "token with role and policy link").
  TestACLTokens_Info: PORTED,
  TestACLTokens_Self: PORTED,
  TestACLTokens_Delete: PORTED,
  TestACL_OneTimeToken: PORTED,
  TestACLTokens_BootstrapInvalidToken: PORTED,
  TestACLTokens_BootstrapValidToken: PORTED,
  TestACLRoles: PORTED,
  TestACLAuthMethods: notServed("/v1/acl/auth-methods", "/v1/acl/auth-method"),
  TestACLBindingRules: notServed("/v1/acl/binding-rules", "/v1/acl/binding-rule"),
  TestACLIdentity_CreateClientIntroductionToken: notServed("PUT /v1/acl/identity/client-introduction-token"),
} as const;

/** The policy the tests write, its rules as the Go raw string holds them (tabs and all). */
const TEST_POLICY = { Name: "test", Description: "test", Rules: 'namespace "default" {\n\t\t\tpolicy = "read"\n\t\t}\n\t\t' };

/** One hour and ten minutes, as Go's time.Duration (nanoseconds). */
const HOUR = 3_600_000_000_000;
const TEN_MINUTES = 600_000_000_000;

/** The policy the role tests link to, and a role of it (`acl-role-api-test`, as the reference's tests name both). */
const ROLE_POLICY = { Name: "acl-role-api-test", Rules: 'namespace "default" { policy = "read" }' };

/** Creates a role of `policy` named `name`, checked as the reference's tests check it. */
async function createRole(client: GoClient, name: string, policy: string) {
  const role = { Name: name, Policies: [{ Name: policy }] };
  const [created, wm] = await client.aclRoles.create(role);
  assertWriteMeta(wm);
  expectUUID(created.ID);
  expect(created.Name).toBe(role.Name);
  return created;
}

/** A client token of policy `foo1`, created. */
async function createFooToken(client: GoClient) {
  const [out, wm] = await client.aclTokens.create({ Name: "foo", Type: "client", Policies: ["foo1"] });
  assertWriteMeta(wm);
  expect(out).not.toBeNull();
  return out;
}

describe.each(HEADER_STYLES)("api/acl_test.go (%s headers)", (style) => {
  const { makeClient, makeACLClient } = goTestServers(style);

  runGoTests(ACL_TESTS, {
    async TestACLPolicies_ListUpsert() {
      const { client } = await makeACLClient();
      const [result, qm] = await client.aclPolicies.list();
      expect(qm.LastIndex).toBe(1);
      expect(len(result)).toBe(0);

      assertWriteMeta(await client.aclPolicies.upsert(TEST_POLICY));

      const [result2, qm2] = await client.aclPolicies.list();
      assertQueryMeta(qm2);
      expect(len(result2)).toBe(1);
    },

    async TestACLPolicies_Delete() {
      const { client } = await makeACLClient();
      assertWriteMeta(await client.aclPolicies.upsert(TEST_POLICY));
      assertWriteMeta(await client.aclPolicies.delete(TEST_POLICY.Name));

      const [result, qm] = await client.aclPolicies.list();
      assertQueryMeta(qm);
      expect(len(result)).toBe(0);
    },

    async TestACLPolicies_Info() {
      const { client } = await makeACLClient();
      assertWriteMeta(await client.aclPolicies.upsert(TEST_POLICY));

      const [out, qm] = await client.aclPolicies.info(TEST_POLICY.Name);
      assertQueryMeta(qm);
      expect(out.Name).toBe(TEST_POLICY.Name);
    },

    async TestACLTokens_List() {
      const { client } = await makeACLClient();
      // The bootstrap token.
      const [result, qm] = await client.aclTokens.list();
      expect(qm.LastIndex).not.toBe(0);
      expect(len(result)).toBe(1);
      expect(result?.[0]?.ExpirationTime).toBeNull();

      const [created] = await client.aclTokens.create({ Name: "token-with-expiry", Type: "client", Policies: ["foo1"], ExpirationTTL: HOUR });

      const [list, qm2] = await client.aclTokens.list();
      assertQueryMeta(qm2);
      expect(len(list)).toBe(2);
      for (const stub of list ?? []) {
        if (stub?.AccessorID === created.AccessorID) expect(stub.ExpirationTime).not.toBeNull();
      }
    },

    async TestACLTokens_CreateUpdate() {
      const { client } = await makeACLClient();
      const out = await createFooToken(client);

      // Update the token
      const [out2, wm] = await client.aclTokens.update({ ...out, Name: "other" });
      assertWriteMeta(wm);
      expect(out2).not.toBeNull();
      expect(out2.Name).toBe("other");

      // Updating the token to include a TTL is not allowed.
      await expect(client.aclTokens.update({ ...out2, ExpirationTTL: TEN_MINUTES })).rejects.toThrow(/^Unexpected response code: 400/);

      // A role link may be added.
      assertWriteMeta(await client.aclPolicies.upsert(ROLE_POLICY));
      const role = await createRole(client, "acl-role-api-test", ROLE_POLICY.Name);
      const [out3] = await client.aclTokens.update({ ...out2, Roles: [{ Name: role.Name }], ExpirationTTL: 0 });
      expect(out3).not.toBeNull();
      expect(len(out3.Policies)).toBe(1);
      expect(out3.Policies?.[0]).toBe("foo1");
      expect(len(out3.Roles)).toBe(1);
      expect(out3.Roles?.[0]?.Name).toBe(role.Name);
    },

    async TestACLTokens_Upload() {
      const { client } = await makeACLClient();
      await client.aclPolicies.upsert({ Name: "upload-test-policy", Rules: 'namespace "default" { policy = "read" }' });

      // The client refuses the first three before sending anything.
      expect(() => client.aclTokens.upload({ SecretID: "f5b20e34-9g6c-53d2-b8e4-7f1g2c3d5b6e" })).toThrow("missing accessor ID");
      expect(() => client.aclTokens.upload({ AccessorID: "b306571d-a3fa-42d2-ac5b-bbe49d8c3c7f" })).toThrow("missing secret ID");
      expect(() =>
        client.aclTokens.upload({ AccessorID: "d172e5b4-7e3c-4a9e-bf01-8a5f2c9b1d0c", SecretID: "e4a19d23-8f5b-42c1-a7d3-6e0f1b2c4a5d", Name: "my management token", Type: "management" }),
      ).toThrow("cannot upload management tokens");

      const token = {
        AccessorID: "b306571d-a3fa-42d2-ac5b-bbe49d8c3c7f",
        SecretID: "c28ba0f6-ab8d-4e4d-b9f0-7f9f5d1c2e3a",
        Name: "my uploaded token",
        Type: "client",
        Policies: ["upload-test-policy"],
      };
      const [tok, wm] = await client.aclTokens.upload(token);
      assertWriteMeta(wm);
      expect(tok).not.toBeNull();
      expect(tok.AccessorID).toBe(token.AccessorID);
      expect(tok.SecretID).toBe(token.SecretID);
    },

    async TestACLTokens_Info() {
      const { client } = await makeACLClient();

      // token without expiry
      {
        const out = await createFooToken(client);
        const [out2, qm] = await client.aclTokens.info(out.AccessorID);
        assertQueryMeta(qm);
        expect(out2).toEqual(out);
      }

      // token with expiry
      {
        const [out, wm] = await client.aclTokens.create({ Name: "token-with-expiry", Type: "client", Policies: ["foo1"], ExpirationTTL: TEN_MINUTES });
        assertWriteMeta(wm);
        expect(out).not.toBeNull();
        const [out2, qm] = await client.aclTokens.info(out.AccessorID);
        assertQueryMeta(qm);
        expect(out2).toEqual(out);
        expect(out2.ExpirationTime).not.toBeNull();
      }

      // token with role link
      {
        assertWriteMeta(await client.aclPolicies.upsert(ROLE_POLICY));
        const role = await createRole(client, "acl-role-api-test", ROLE_POLICY.Name);
        const [out, wm] = await client.aclTokens.create({ Name: "token-with-role-link", Type: "client", Roles: [{ Name: role.Name }] });
        assertWriteMeta(wm);
        expect(out).not.toBeNull();
        const [out2, qm] = await client.aclTokens.info(out.AccessorID);
        assertQueryMeta(qm);
        expect(out2).toEqual(out);
        expect(len(out.Roles)).toBe(1);
        expect(out.Roles?.[0]?.Name).toBe(ROLE_POLICY.Name);
      }

      // token with role and policy link
      {
        const policy1 = { Name: "acl-role-api-test-1", Rules: 'namespace "default" { policy = "read" }' };
        const policy2 = { Name: "acl-role-api-test-2", Rules: 'namespace "fawlty" { policy = "read" }' };
        assertWriteMeta(await client.aclPolicies.upsert(policy1));
        assertWriteMeta(await client.aclPolicies.upsert(policy2));
        const role = await createRole(client, "acl-role-api-test-role-and-policy", policy1.Name);
        const [out, wm] = await client.aclTokens.create({ Name: "token-with-role-and-policy-link", Type: "client", Policies: [policy2.Name], Roles: [{ Name: role.Name }] });
        assertWriteMeta(wm);
        expect(out).not.toBeNull();
        expect(out.Policies).toEqual([policy2.Name]);
        expect(len(out.Roles)).toBe(1);
        expect(out.Roles?.[0]?.Name).toBe(role.Name);
        const [out2, qm] = await client.aclTokens.info(out.AccessorID);
        assertQueryMeta(qm);
        expect(out2).toEqual(out);
      }
    },

    async TestACLTokens_Self() {
      const { client } = await makeACLClient();
      const out = await createFooToken(client);

      client.setSecretID(out.SecretID);
      const [out2, qm] = await client.aclTokens.self();
      assertQueryMeta(qm);
      expect(out2).toEqual(out);
    },

    async TestACLTokens_Delete() {
      const { client } = await makeACLClient();
      const out = await createFooToken(client);
      assertWriteMeta(await client.aclTokens.delete(out.AccessorID));
    },

    async TestACL_OneTimeToken() {
      const { client } = await makeACLClient();
      const out = await createFooToken(client);

      // Get a one-time token
      client.setSecretID(out.SecretID);
      const [out2, wm] = await client.aclTokens.upsertOneTimeToken();
      assertWriteMeta(wm);
      expect(out2).not.toBeNull();

      // Exchange the one-time token
      const [out3, wm2] = await client.aclTokens.exchangeOneTimeToken(out2.OneTimeSecretID);
      assertWriteMeta(wm2);
      expect(out3).not.toBeNull();
      expect(out3.AccessorID).toBe(out.AccessorID);
    },

    async TestACLTokens_BootstrapInvalidToken() {
      const { client } = await makeClient({ acl: true });
      await expect(client.aclTokens.bootstrapOpts("badtoken")).rejects.toThrow(/^Unexpected response code: 400 \(invalid acl token\)$/);
    },

    async TestACLTokens_BootstrapValidToken() {
      const { client } = await makeClient({ acl: true });
      const bootkn = "2b778dd9-f5f1-6f29-b4b4-9a5fa948757a";
      const [out, wm] = await client.aclTokens.bootstrapOpts(bootkn);
      assertWriteMeta(wm);
      expect(out.SecretID).toBe(bootkn);
    },

    async TestACLRoles() {
      const { client } = await makeACLClient();

      // An initial listing shouldn't return any results.
      const [empty, qm] = await client.aclRoles.list();
      expect(len(empty)).toBe(0);
      assertQueryMeta(qm);

      // The policy the role links to, its rules as the Go raw string holds them.
      const policy = { Name: "acl-role-api-test", Rules: 'namespace "default" {\n\t\t\tpolicy = "read"\n\t\t}\n\t\t' };
      assertWriteMeta(await client.aclPolicies.upsert(policy));
      const created = await createRole(client, "acl-role-api-test", policy.Name);

      // Another listing should return one result.
      const [one, qm2] = await client.aclRoles.list();
      expect(len(one)).toBe(1);
      assertQueryMeta(qm2);

      // Read the role by ID, then by name.
      const [byId, qm3] = await client.aclRoles.get(created.ID);
      assertQueryMeta(qm3);
      expect(byId).toEqual(created);
      const [byName, qm4] = await client.aclRoles.getByName(created.Name);
      assertQueryMeta(qm4);
      expect(byName).toEqual(created);

      // Update the role name.
      const role = { ID: created.ID, Name: "acl-role-api-test-badger-badger-badger", Policies: [{ Name: policy.Name }] };
      const [updated, wm] = await client.aclRoles.update(role);
      assertWriteMeta(wm);
      expect(updated.Name).toBe(role.Name);
      expect(updated.ID).toBe(role.ID);

      // Delete the role; none is left.
      assertWriteMeta(await client.aclRoles.delete(created.ID));
      const [none, qm5] = await client.aclRoles.list();
      expect(len(none)).toBe(0);
      assertQueryMeta(qm5);
    },
  });
});
