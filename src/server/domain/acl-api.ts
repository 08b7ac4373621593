/**
 * The JSON of the ACL endpoints: the reference's structs their bodies are decoded as
 * ({@link ACL_POLICY_BODY}, {@link ACL_TOKEN_BODY}, {@link BOOTSTRAP_BODY}), a token's
 * `ExpirationTTL` read from one ({@link parseTtl}), and tokens and policies as the API writes
 * them, whole, in lists and to a token list's filter.
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import { stringifyJson } from "../../json.js";
import { goDurationText, parseGoDuration } from "../../go/duration.js";
import { blake2b } from "@noble/hashes/blake2b";
import { invalid } from "../base/errors.js";
import type { AclPolicy, AclRole, AclRolePolicyLink, AclToken, OneTimeToken } from "../state/model.js";
import type { ReadTable } from "../state/store.js";

/** The reference's `structs.ACLPolicy`, as `PUT /v1/acl/policy/<name>` bodies are decoded. */
export const ACL_POLICY_BODY: ObjectSchema = {
  kind: "object",
  typeName: "ACLPolicy",
  fields: { Name: "string", Description: "string", Rules: "string", JobACL: "any", CreateIndex: "uint", ModifyIndex: "uint" },
};

/**
 * The reference's `structs.ACLToken`, as token bodies are decoded; `ExpirationTTL` is a Go
 * duration string or a number of nanoseconds (the reference decodes it into `interface{}`).
 */
export const ACL_TOKEN_BODY: ObjectSchema = {
  kind: "object",
  typeName: "ACLToken",
  fields: {
    AccessorID: "string",
    SecretID: "string",
    Name: "string",
    Type: "string",
    Policies: { kind: "array", items: "string" },
    Roles: { kind: "array", items: { kind: "object", typeName: "ACLTokenRoleLink", fields: { ID: "string", Name: "string" } } },
    Global: "bool",
    CreateTime: "time",
    ExpirationTime: "time",
    ExpirationTTL: "any",
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

/** The reference's `structs.ACLRole`, as role bodies are decoded (`Hash` is computed, whatever is sent). */
export const ACL_ROLE_BODY: ObjectSchema = {
  kind: "object",
  typeName: "ACLRole",
  fields: {
    ID: "string",
    Name: "string",
    Description: "string",
    Policies: { kind: "array", items: { kind: "object", typeName: "ACLRolePolicyLink", fields: { Name: "string" } } },
    Hash: "any",
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

/** The reference's `structs.OneTimeTokenExchangeRequest` body. */
export const ONE_TIME_EXCHANGE_BODY: ObjectSchema = { kind: "object", typeName: "OneTimeTokenExchangeRequest", fields: { OneTimeSecretID: "string" } };

/**
 * A role's hash, as the reference's `ACLRole.SetHash`: BLAKE2b-256 of its name, description and
 * policy names written one after the other, base64 (Go writes `[]byte` so in JSON).
 */
export function roleHash(name: string, description: string, policies: readonly AclRolePolicyLink[]): string {
  const text = name + description + policies.map((link) => link.Name).join("");
  return Buffer.from(blake2b(Buffer.from(text, "utf8"), { dkLen: 32 })).toString("base64");
}

/** A role as the API writes it (`structs.ACLRole`). */
export function roleResponse(role: AclRole): unknown {
  return {
    ID: role.ID,
    Name: role.Name,
    Description: role.Description,
    Policies: role.Policies.map((link) => ({ Name: link.Name })),
    Hash: role.Hash,
    CreateIndex: role.CreateIndex,
    ModifyIndex: role.ModifyIndex,
  };
}

/** A role in lists (`structs.ACLRoleListStub`: the same fields). */
export const roleStub: (role: AclRole) => unknown = roleResponse;

/** A one-time token as the API writes it (`structs.OneTimeToken`). */
export function oneTimeTokenResponse(token: OneTimeToken): unknown {
  return { OneTimeSecretID: token.OneTimeSecretID, AccessorID: token.AccessorID, ExpiresAt: token.ExpiresAt, CreateIndex: token.CreateIndex, ModifyIndex: token.ModifyIndex };
}

/**
 * A token's role links (`[]*ACLTokenRoleLink`): null when it has none. As stored (the ID, an empty
 * name) without `roles`; with them, as the reference's single reads fix them
 * (`fixTokenRoleLinks`): each role's name now, and no link to a role deleted.
 */
function roleLinks(token: AclToken, roles: Pick<ReadTable<AclRole>, "get"> | undefined): unknown {
  const ids = token.Roles ?? [];
  if (ids.length === 0) return null;
  if (roles === undefined) return ids.map((id) => ({ ID: id, Name: "" }));
  return ids.flatMap((id) => {
    const role = roles.get(id);
    return role === undefined ? [] : [{ ID: id, Name: role.Name }];
  });
}

/** The reference's `structs.ACLTokenBootstrapRequest` body. */
export const BOOTSTRAP_BODY: ObjectSchema = { kind: "object", typeName: "ACLTokenBootstrapRequest", fields: { BootstrapSecret: "string" } };

/** The most nanoseconds a Go `time.Duration` holds. */
const MAX_DURATION_NS = 2 ** 63;

/** `ExpirationTTL` as milliseconds: a Go duration string or nanoseconds. */
export function parseTtl(value: unknown): number {
  if (value === undefined || value === null || value === "" || value === 0) return 0;
  if (typeof value === "number" || typeof value === "bigint") {
    const nanoseconds = Number(value);
    if (Math.abs(nanoseconds) >= MAX_DURATION_NS) throw invalid(`json: cannot unmarshal number ${String(value)} into Go struct field ACLToken.ExpirationTTL of type time.Duration`);
    return nanoseconds / 1e6;
  }
  const ms = typeof value === "string" ? parseGoDuration(value) : undefined;
  // Written as JSON with int64 kept (a nested number past 2^63 is a bigint, which JSON.stringify refuses).
  if (ms === undefined) throw invalid(`time: invalid duration ${stringifyJson(value)}`);
  return ms;
}

/**
 * A token as the API writes it (the reference's field order; no hash). With `roles`, its role
 * links as a single read shows them (see {@link roleLinks}); without, as stored (lists).
 */
export function tokenResponse(token: AclToken, roles?: Pick<ReadTable<AclRole>, "get">): unknown {
  return {
    ExpirationTTL: token.ExpirationTTL === 0 ? "" : goDurationText(token.ExpirationTTL),
    AccessorID: token.AccessorID,
    SecretID: token.SecretID,
    Name: token.Name,
    Type: token.Type,
    Policies: token.Type === "management" && token.Policies.length === 0 ? null : token.Policies,
    Roles: roleLinks(token, roles),
    Global: token.Global,
    CreateTime: token.CreateTime,
    ExpirationTime: token.ExpirationTime,
    CreateIndex: token.CreateIndex,
    ModifyIndex: token.ModifyIndex,
  };
}

/**
 * What a filter on `GET /v1/acl/tokens` sees: the whole token, as the reference evaluates its
 * filter on the stored `structs.ACLToken` (secret included; only management tokens may list),
 * with `ExpirationTTL` as Go's `time.Duration`, nanoseconds.
 */
export function tokenFilterTarget(token: AclToken): unknown {
  return { ...(tokenResponse(token) as Record<string, unknown>), ExpirationTTL: token.ExpirationTTL };
}

/** The schema of {@link tokenFilterTarget}: the reference's `structs.ACLToken`. */
export const ACL_TOKEN_FILTER: ObjectSchema = {
  ...ACL_TOKEN_BODY,
  fields: { ...ACL_TOKEN_BODY.fields, ExpirationTTL: "int" },
};

/** A token in lists: no secret. */
export function tokenStub(token: AclToken): unknown {
  const { SecretID: _secret, ExpirationTTL: _ttl, ...rest } = tokenResponse(token) as Record<string, unknown>;
  return rest;
}

/** A policy as the API writes it, with its parsed rules. */
export function policyResponse(policy: AclPolicy): unknown {
  return {
    Name: policy.Name,
    Description: policy.Description,
    Rules: policy.Rules,
    RulesJSON: policy.parsed,
    JobACL: null,
    CreateIndex: policy.CreateIndex,
    ModifyIndex: policy.ModifyIndex,
  };
}

/** A policy in lists. */
export function policyStub(policy: AclPolicy): unknown {
  return { Name: policy.Name, Description: policy.Description, CreateIndex: policy.CreateIndex, ModifyIndex: policy.ModifyIndex };
}
