/**
 * Access control as the reference does it: ACL policies, tokens (a management token, or client
 * tokens holding policies), the one-time bootstrap, and the authentication of each request.
 *
 * Every authentication failure (a malformed, unknown or expired token) and every missing
 * capability is the same `403 Permission denied`; requests without a token act as the anonymous
 * token, whose rights are those of a policy named `anonymous`, if one exists.
 *
 * The endpoints' bodies and answers are in `acl-api.ts`.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { newUuid } from "../base/ids.js";
import { Permissions, parsePolicy, PolicyError } from "./acl-policy.js";
import { parseTtl, roleHash } from "./acl-api.js";
import { goDurationText, parseGoDuration } from "../../go/duration.js";
import { denied, invalid, missing } from "../base/errors.js";
import { formatErrors } from "../../go/multierror.js";
import type { AclPolicy, AclRole, AclRolePolicyLink, AclToken, JsonObject, OneTimeToken, ParsedPolicy } from "../state/model.js";
import type { ReadTable, Store, TableName } from "../state/store.js";
import { EVERY_ROW } from "../state/page.js";
import { RealClock, type Clock } from "../base/clock.js";

/** Writes to these tables can change a caller's rights (a token, a policy, a role its token links to). */
export const ACL_TABLES: readonly TableName[] = ["acl_token", "acl_policy", "acl_role"];

/** A token or policy given in the agent's configuration. */
export interface AclTokenConfig {
  /** The token's public identifier (default: a random UUID). */
  readonly AccessorID?: string;
  /** The secret a client presents, a UUID (default: a random one). */
  readonly SecretID?: string;
  /** A human-readable name (default empty). */
  readonly Name?: string;
  /** `management` may do everything; `client` only what its policies allow (default: `management` without policies, else `client`). */
  readonly Type?: "client" | "management";
  /** Names of the policies whose rules a client token holds (default none). */
  readonly Policies?: readonly string[];
  /** RFC 3339; may be in the past, to give a test suite an expired token. */
  readonly ExpirationTime?: string;
}

/** A policy given in the agent's configuration. */
export interface AclPolicyConfig {
  /** 1 to 128 letters, digits or `-`; tokens name it in `Policies`, and `anonymous` applies to requests without a token. */
  readonly Name: string;
  /** Free text of at most 256 characters (default empty). */
  readonly Description?: string;
  /** The rules, in the reference's HCL syntax or its JSON form (`namespace "prod" { policy = "read" }`). */
  readonly Rules: string;
}

/** ACL settings of the agent. */
export interface AclOptions {
  /** Enforce ACLs (default false, as the reference's dev agent). */
  readonly enabled?: boolean;
  /** The secret of a management token created at start (bootstrap is then done). */
  readonly bootstrapToken?: string;
  /** Policies created at start. */
  readonly policies?: readonly AclPolicyConfig[];
  /** Tokens created at start. */
  readonly tokens?: readonly AclTokenConfig[];
  /** Shortest TTL a created token may have, a Go duration (default `1m`, as the reference). */
  readonly tokenMinExpirationTTL?: string;
  /** Longest TTL a created token may have, a Go duration (default `24h`, as the reference). */
  readonly tokenMaxExpirationTTL?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The longest role name (and policy name), as the reference's `ValidACLRoleName` and `ValidPolicyName` allow. */
export const MAX_ROLE_NAME_LENGTH = 128;

/** A policy's or a role's name: 1 to {@link MAX_ROLE_NAME_LENGTH} letters, digits or `-`. */
const POLICY_NAME = new RegExp(`^[a-zA-Z0-9-]{1,${MAX_ROLE_NAME_LENGTH}}$`);

/**
 * The most policies one role links to (the reference has no bound): every request of a token
 * resolves its roles' policies, so what one role may hold bounds that work.
 */
export const MAX_ROLE_POLICIES = 32;

/**
 * The most roles one token links to (the reference has no bound): with {@link MAX_ROLE_POLICIES},
 * a token's request resolves at most 32 × 32 policy links.
 */
export const MAX_TOKEN_ROLES = 32;

/** How long a one-time token may be exchanged, as the reference's `UpsertOneTimeToken` (10 minutes). */
export const ONE_TIME_TOKEN_TTL_MS = 10 * 60_000;
const MAX_DESCRIPTION = 256;
const MAX_TOKEN_NAME = 256;

function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret).digest();
}

/** Go's zero `time.Time` (`0001-01-01T00:00:00Z`), in epoch milliseconds: a time sent as it is no time. */
const GO_ZERO_TIME_MS = Date.parse("0001-01-01T00:00:00Z");

/** Why a new token's chosen secret is refused (the secret itself is never written back). */
const SECRET_TAKEN = "token with this SecretID already exists";

/**
 * Whether one of `tokens` holds `secret`. Compared as the reference's `secret` index compares
 * UUIDs, whatever the case of their hex digits; in constant time per token, as authentication.
 */
function holdsSecret(tokens: Iterable<AclToken>, secret: string): boolean {
  const hash = hashSecret(secret.toLowerCase());
  let held = false;
  for (const token of tokens) if (timingSafeEqual(hash, hashSecret(token.SecretID.toLowerCase()))) held = true;
  return held;
}


/** Who is making a request, and what they may do. */
export interface Caller {
  readonly management: boolean;
  /** The token presented, when it is valid. */
  readonly token: AclToken | undefined;
  /**
   * The names of the policies the caller holds: the token's own and its roles' (the reference's
   * `getPoliciesForIdentity`), `anonymous` without a token; none for a management token.
   */
  readonly policies: ReadonlySet<string>;
  /** Capabilities per namespace, and the node policy. */
  readonly permissions: Permissions;
}

const NO_PERMISSIONS = new Permissions([]);
const NO_POLICIES: ReadonlySet<string> = new Set();
const ANONYMOUS_POLICIES: ReadonlySet<string> = new Set(["anonymous"]);

/**
 * Checks a caller against a namespace for one of `capabilities` and returns which rows it may
 * see: for a named namespace the caller needs the capability there (else 403); for `*`, in at
 * least one namespace (else 403), and then sees the rows of the namespaces that grant it.
 */
export function namespaceAccess(caller: Caller, namespace: string, capabilities: readonly string[]): (rowNamespace: string) => boolean {
  if (caller.management) return EVERY_ROW;
  if (namespace === "*") {
    if (!caller.permissions.allowsAnywhere(...capabilities)) throw denied();
    return (rowNamespace) => caller.permissions.allows(rowNamespace, ...capabilities);
  }
  if (!caller.permissions.allows(namespace, ...capabilities)) throw denied();
  return EVERY_ROW;
}

/**
 * The policies a caller may read and list: those its token holds, its roles' included; without a
 * valid token, `anonymous`.
 */
export function heldPolicies(caller: Caller): ReadonlySet<string> {
  return caller.token === undefined ? ANONYMOUS_POLICIES : caller.policies;
}

/** Requires a management token. */
export function requireManagement(caller: Caller): void {
  if (!caller.management) throw denied();
}

/** A token's rights as resolved at one index of the ACL tables. */
interface Resolved {
  readonly index: number;
  readonly policies: ReadonlySet<string>;
  readonly permissions: Permissions;
}

/** The name of the token `POST /v1/acl/bootstrap` makes. */
const BOOTSTRAP_TOKEN_NAME = "Bootstrap Token";

/** The ACL tables, the bootstrap state, and authentication. */
export class AccessControl {
  #bootstrapIndex: number | undefined;
  /** Each token row's resolved rights, at the ACL tables' index they were resolved at (see `#resolve`). */
  readonly #resolved = new WeakMap<AclToken, Resolved>();
  readonly #minTtlMs: number;
  readonly #maxTtlMs: number;

  constructor(
    private readonly store: Store,
    readonly enabled: boolean,
    limits: { minTtlMs: number; maxTtlMs: number },
    /** Epoch milliseconds now, on the agent's clock: tokens are created and expire by it (the list lane's answers too). */
    readonly now: () => number = Date.now,
    /** The agent's clock's timers, which {@link AccessControl.atExpiry} sets (by default the machine's, whose time `now` must then be). */
    private readonly timers: Pick<Clock, "kind" | "setTimer" | "clearTimer"> = new RealClock(),
  ) {
    this.#minTtlMs = limits.minTtlMs;
    this.#maxTtlMs = limits.maxTtlMs;
  }

  /**
   * Calls `wake` once the agent's clock reaches `expiresAt` (a token's expiry, epoch milliseconds):
   * on a clock a test drives, when the test moves it there, not when the machine's clock does.
   * Returns what cancels it.
   */
  atExpiry(expiresAt: number, wake: () => void): () => void {
    // A token is expired from its expiry on (see `#expired`); real timers may fire a fraction of a millisecond early by `Date.now()`.
    const delayMs = Math.max(0, expiresAt - this.now()) + (this.timers.kind === "manual" ? 0 : 1);
    const timer = this.timers.setTimer(delayMs, wake);
    return () => this.timers.clearTimer(timer);
  }

  /** The policies table, to read. */
  get policies(): ReadTable<AclPolicy> {
    return this.store.tables.acl_policy;
  }

  /** The tokens table, to read. */
  get tokens(): ReadTable<AclToken> {
    return this.store.tables.acl_token;
  }

  /** The roles table, to read. */
  get roles(): ReadTable<AclRole> {
    return this.store.tables.acl_role;
  }

  /** Sets up ACLs from the agent's options: policies, tokens, and the bootstrap token. */
  static async fromOptions(store: Store, options: AclOptions, now: () => number = Date.now, timers?: Pick<Clock, "kind" | "setTimer" | "clearTimer">): Promise<AccessControl> {
    const minTtlMs = parseGoDuration(options.tokenMinExpirationTTL ?? "1m");
    const maxTtlMs = parseGoDuration(options.tokenMaxExpirationTTL ?? "24h");
    if (minTtlMs === undefined || maxTtlMs === undefined) throw new AclConfigError("acl token expiration TTLs must be Go durations such as 1m or 24h");
    const acl = new AccessControl(store, options.enabled === true, { minTtlMs, maxTtlMs }, now, timers);
    for (const policy of options.policies ?? []) {
      try {
        await acl.upsertPolicy({ Name: policy.Name, Description: policy.Description ?? "", Rules: policy.Rules });
      } catch (error) {
        throw new AclConfigError(`acl policy ${JSON.stringify(policy.Name)} in the configuration: ${(error as Error).message}`);
      }
    }
    if (options.bootstrapToken !== undefined) {
      if (!UUID.test(options.bootstrapToken)) throw new AclConfigError("acl.bootstrapToken must be a UUID");
      // On a shared store, the agent that bootstrapped first made the token; the others find it.
      if (acl.#storedBootstrapIndex() === undefined) await acl.bootstrap({ BootstrapSecret: options.bootstrapToken });
    }
    for (const token of options.tokens ?? []) {
      const type = token.Type ?? (token.Policies === undefined || token.Policies.length === 0 ? "management" : "client");
      if (token.SecretID !== undefined && !UUID.test(token.SecretID)) throw new AclConfigError(`acl token ${JSON.stringify(token.Name ?? "")}: SecretID must be a UUID`);
      // A configured token already stored (a shared store, a restart) is kept as it is.
      if (token.SecretID !== undefined && acl.#findBySecret(token.SecretID) !== undefined) continue;
      await acl.#store({
        AccessorID: token.AccessorID ?? newUuid(),
        SecretID: token.SecretID ?? newUuid(),
        Name: token.Name ?? "",
        Type: type,
        Policies: token.Policies ?? [],
        Global: false,
        CreateTime: new Date(now()).toISOString(),
        ExpirationTime: token.ExpirationTime ?? null,
        ExpirationTTL: 0,
      });
    }
    return acl;
  }

  /** Rejects ACL requests while ACLs are disabled, as the reference does. */
  requireEnabled(): void {
    if (!this.enabled) throw invalid("ACL support disabled");
  }

  /**
   * Authenticates a request's secret. With ACLs disabled every caller may do everything; a missing
   * secret is the anonymous token; a malformed, unknown or expired one may do nothing.
   */
  authenticate(secret: string): Caller {
    if (!this.enabled) return { management: true, token: undefined, policies: NO_POLICIES, permissions: NO_PERMISSIONS };
    if (secret === "") return { management: false, token: undefined, policies: ANONYMOUS_POLICIES, permissions: this.#permissionsOf(ANONYMOUS_POLICIES) };
    const token = UUID.test(secret) ? this.#findBySecret(secret) : undefined;
    if (token === undefined || this.#expired(token)) return { management: false, token: undefined, policies: NO_POLICIES, permissions: NO_PERMISSIONS };
    const { policies, permissions } = this.#resolve(token);
    return { management: token.Type === "management", token, policies, permissions };
  }

  /**
   * A token's policies and permissions, kept with the token's row (rows are never changed in
   * place: a token written again is a new row) until a write to the ACL tables (a token, a
   * policy, a role) moves their index: a request of a token linked to 32 roles of 32 policies
   * each resolves them once, not at every request.
   */
  #resolve(token: AclToken): Resolved {
    const index = this.store.tableIndex(...ACL_TABLES);
    const kept = this.#resolved.get(token);
    if (kept !== undefined && kept.index === index) return kept;
    const policies = this.#policiesOf(token);
    const resolved = { index, policies, permissions: this.#permissionsOf(policies) };
    this.#resolved.set(token, resolved);
    return resolved;
  }

  /**
   * The policies a token holds: its own, and those of the roles it links to that exist (a role
   * deleted, or a policy a role names deleted, grants nothing), as the reference's
   * `policyNamesFromRoleLinks`. Read again after every write to the ACL tables, so a change of a
   * role or a policy counts at once.
   */
  #policiesOf(token: AclToken): ReadonlySet<string> {
    const names = new Set(token.Policies);
    for (const id of token.Roles ?? []) for (const link of this.roles.get(id)?.Policies ?? []) names.add(link.Name);
    return names;
  }

  /** Compares the secret with every token's in constant time, so timing reveals nothing. */
  #findBySecret(secret: string): AclToken | undefined {
    const hash = hashSecret(secret);
    let found: AclToken | undefined;
    for (const token of this.tokens.values()) if (timingSafeEqual(hash, token.secretHash)) found = token;
    return found;
  }

  #expired(token: AclToken): boolean {
    return token.ExpirationTime !== null && Date.parse(token.ExpirationTime) <= this.now();
  }

  #permissionsOf(names: ReadonlySet<string>): Permissions {
    return new Permissions([...names].flatMap((name) => this.policies.get(name)?.parsed ?? []));
  }

  /** `POST /v1/acl/bootstrap`: the first management token, once. */
  async bootstrap(body: JsonObject): Promise<AclToken> {
    this.requireEnabled();
    // Done once per cluster: by this agent, or (on a shared store) by another, whose token is in the table.
    this.#bootstrapIndex ??= this.#storedBootstrapIndex();
    if (this.#bootstrapIndex !== undefined) throw invalid(`ACL bootstrap already done (reset index: ${this.#bootstrapIndex})`);
    const secret = body.BootstrapSecret;
    if (secret !== undefined && secret !== "" && (typeof secret !== "string" || !UUID.test(secret))) throw invalid("invalid acl token");
    const token = await this.#store({
      AccessorID: newUuid(),
      SecretID: typeof secret === "string" && secret !== "" ? secret : newUuid(),
      Name: BOOTSTRAP_TOKEN_NAME,
      Type: "management",
      Policies: [],
      Global: true,
      CreateTime: new Date(this.now()).toISOString(),
      ExpirationTime: null,
      ExpirationTTL: 0,
    });
    this.#bootstrapIndex = token.CreateIndex;
    return token;
  }

  /**
   * Forgets what this agent knew of the bootstrap, after the state was restored or reset: the
   * bootstrap is done when the state it has now holds a bootstrap token.
   */
  forgetBootstrap(): void {
    this.#bootstrapIndex = undefined;
  }

  /** The index of a bootstrap token in the table (one another agent of a shared store made). */
  #storedBootstrapIndex(): number | undefined {
    for (const token of this.tokens.values()) if (token.Name === BOOTSTRAP_TOKEN_NAME && token.Global && token.Type === "management") return token.CreateIndex;
    return undefined;
  }

  /**
   * Writes a token: an update of `previous`, or a new one. With `refuseTakenSecret` (an uploaded
   * token, whose secret the client chose), a secret another token holds is refused, in the write
   * itself so that no two agents of a shared store can both pass. The reference has no such
   * check: its unique `secret` index silently points the secret at the newer token.
   */
  async #store(fields: Omit<AclToken, "CreateIndex" | "ModifyIndex" | "secretHash">, previous?: AclToken, refuseTakenSecret = false): Promise<AclToken> {
    const { result } = await this.store.write(["acl_token"], (state) => {
      const { index } = state;
      if (refuseTakenSecret && holdsSecret(state.acl_token.values(), fields.SecretID)) throw invalid(SECRET_TAKEN);
      const token: AclToken = {
        ...fields,
        CreateIndex: previous?.CreateIndex ?? index,
        ModifyIndex: index,
        secretHash: hashSecret(fields.SecretID),
      };
      state.acl_token.put(token);
      return token;
    }, "ACLTokenUpsert");
    return result;
  }

  /** Creates or replaces a policy; a management caller is checked by the handler. */
  async upsertPolicy(body: JsonObject): Promise<number> {
    const name = typeof body.Name === "string" ? body.Name : "";
    const description = typeof body.Description === "string" ? body.Description : "";
    const rules = typeof body.Rules === "string" ? body.Rules : "";
    const problems: string[] = [];
    if (!POLICY_NAME.test(name)) problems.push(`invalid name '${name}'`);
    let parsed: ParsedPolicy | undefined;
    try {
      parsed = await parsePolicy(rules);
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      problems.push(`failed to parse rules: ${error.message}`);
    }
    if (description.length > MAX_DESCRIPTION) problems.push(`description longer than ${MAX_DESCRIPTION}`);
    if (problems.length > 0 || parsed === undefined) throw invalid(`policy 0 invalid: ${formatErrors(problems)}`);
    const { index } = await this.store.write(["acl_policy"], (state) => {
      const { index } = state;
      const previous = state.acl_policy.get(name);
      state.acl_policy.put({ Name: name, Description: description, Rules: rules, parsed: parsed!, CreateIndex: previous?.CreateIndex ?? index, ModifyIndex: index });
    }, "ACLPolicyUpsert");
    return index;
  }

  /** Deletes a policy. */
  async deletePolicy(name: string): Promise<number> {
    const { index } = await this.store.write(["acl_policy"], (state) => {
      state.acl_policy.delete(name);
    }, "ACLPolicyDelete");
    return index;
  }

  /**
   * Creates a token, or updates the one named by `AccessorID`, as the reference's
   * `ACL.UpsertTokens` does (`nomad/acl_endpoint.go`; `structs.ACLToken.Canonicalize` and
   * `Validate`):
   *
   * - without an `AccessorID`, a new token: both IDs drawn, created now;
   * - with the `AccessorID` of a token, an update of it (its secret, creation time, global mode,
   *   TTL and expiry kept);
   * - with another `AccessorID`, an upload: a client token with the IDs the caller chose, both
   *   UUIDs, created at the `CreateTime` sent (now if none); anything else is `cannot find token
   *   <id>`, and a secret another token holds is refused.
   *
   * Then the checks of `Validate` (`token 0 invalid: …`), then the roles (the agent has none, so
   * any is `cannot find role <id or name>`).
   *
   * @example
   * await acl.upsertToken({ AccessorID: "b306571d-a3fa-42d2-ac5b-bbe49d8c3c7f", SecretID: "c28ba0f6-ab8d-4e4d-b9f0-7f9f5d1c2e3a", Type: "client", Policies: ["readers"] });
   */
  upsertToken(body: JsonObject): Promise<AclToken> {
    const accessor = typeof body.AccessorID === "string" ? body.AccessorID : "";
    const secret = typeof body.SecretID === "string" ? body.SecretID : "";
    const previous = accessor === "" ? undefined : this.#tokenByAccessor(accessor);
    const uploaded = accessor !== "" && previous === undefined;
    // Only a client token with both IDs UUIDs may be uploaded; the reference says nothing more of the others.
    if (uploaded && (!UUID.test(accessor) || !UUID.test(secret) || body.Type === "management")) throw invalid(`cannot find token ${accessor}`);

    const name = typeof body.Name === "string" ? body.Name : "";
    const type = body.Type;
    const policies = Array.isArray(body.Policies) ? body.Policies.map(String) : [];
    const roles = Array.isArray(body.Roles) ? (body.Roles as (JsonObject | null)[]) : [];
    const global = body.Global === true;
    // An uploaded token keeps the creation time it comes with (Go's zero time is none); and then its TTL sets no expiry (Canonicalize).
    const sentCreateTime = uploaded && typeof body.CreateTime === "string" && Date.parse(body.CreateTime) !== GO_ZERO_TIME_MS ? body.CreateTime : undefined;
    const createTime = previous?.CreateTime ?? sentCreateTime ?? new Date(this.now()).toISOString();
    const ttlMs = parseTtl(body.ExpirationTTL);
    let expiration = typeof body.ExpirationTime === "string" ? body.ExpirationTime : null;
    if (previous === undefined && sentCreateTime === undefined && expiration === null && ttlMs !== 0) expiration = new Date(Date.parse(createTime) + ttlMs).toISOString();

    const problems: string[] = [];
    if (name.length > MAX_TOKEN_NAME) problems.push("token name too long");
    if (roles.length > MAX_TOKEN_ROLES) problems.push(`more than ${MAX_TOKEN_ROLES} roles`);
    if (type === "client") {
      if (policies.length === 0 && roles.length === 0) problems.push("client token missing policies or roles");
    } else if (type === "management") {
      if (policies.length > 0 || roles.length > 0) problems.push("management token cannot be associated with policies or roles");
    } else {
      problems.push("token type must be client or management");
    }
    if (previous === undefined) {
      if (ttlMs < 0) problems.push(`token expiration TTL '${goDurationText(ttlMs * 1e6)}' should not be negative`);
      if (expiration !== null) {
        const inFuture = Date.parse(expiration) - Date.parse(createTime);
        if (inFuture < 0) problems.push("expiration time cannot be before create time");
        if (inFuture > this.#maxTtlMs) problems.push(`expiration time cannot be more than ${goDurationText(this.#maxTtlMs * 1e6)} in the future (was ${goDurationText(inFuture * 1e6)})`);
        else if (inFuture < this.#minTtlMs) problems.push(`expiration time cannot be less than ${goDurationText(this.#minTtlMs * 1e6)} in the future (was ${goDurationText(inFuture * 1e6)})`);
      }
    } else {
      if (previous.Global !== global) problems.push("cannot toggle global mode");
      if (ttlMs !== 0 && ttlMs * 1e6 !== previous.ExpirationTTL) problems.push("cannot update expiration TTL");
      if (expiration !== null && expiration !== previous.ExpirationTime) problems.push("cannot update expiration time");
    }
    if (problems.length > 0) throw invalid(`token 0 invalid: ${formatErrors(problems)}`);
    const roleIds = this.#roleIds(roles);

    return this.#store(
      {
        AccessorID: previous?.AccessorID ?? (uploaded ? accessor : newUuid()),
        SecretID: previous?.SecretID ?? (uploaded ? secret : newUuid()),
        Name: name,
        Type: type as AclToken["Type"],
        Policies: policies,
        Global: global,
        CreateTime: createTime,
        ExpirationTime: previous?.ExpirationTime ?? expiration,
        ExpirationTTL: previous?.ExpirationTTL ?? ttlMs * 1e6,
        Roles: roleIds,
      },
      previous,
      uploaded,
    );
  }

  /**
   * The token with this accessor: the reference's accessor index reads a UUID's hex digits in
   * either case, so an accessor that differs only in case names the same token.
   */
  #tokenByAccessor(accessor: string): AclToken | undefined {
    const exact = this.tokens.get(accessor);
    if (exact !== undefined || !UUID.test(accessor)) return exact;
    const folded = accessor.toLowerCase();
    for (const token of this.tokens.values()) if (token.AccessorID.toLowerCase() === folded) return token;
    return undefined;
  }

  /** Deletes a token. */
  async deleteToken(accessor: string): Promise<number> {
    const { index } = await this.store.write(["acl_token"], (state) => {
      if (!state.acl_token.delete(accessor)) throw invalid(`Cannot delete nonexistent tokens: ${accessor}`);
    }, "ACLTokenDelete");
    return index;
  }

  /** A token by accessor, for a caller allowed to read it (management, or the token itself). */
  readToken(accessor: string, caller: Caller): AclToken {
    const token = this.tokens.get(accessor);
    if (!caller.management && caller.token?.AccessorID !== accessor) throw denied();
    if (token === undefined) throw missing("ACL token not found");
    return token;
  }

  /** A policy by name, for a caller allowed to read it (management, holders, and everyone for `anonymous`). */
  readPolicy(name: string, caller: Caller): AclPolicy {
    const heldBy = heldPolicies(caller).has(name) || name === "anonymous";
    if (!caller.management && !heldBy) throw denied();
    const policy = this.policies.get(name);
    if (policy === undefined) throw missing("ACL policy not found");
    return policy;
  }

  /**
   * Creates a role (no `ID`) or updates the one `ID` names, as the reference's `ACL.UpsertRoles`
   * (`nomad/acl_endpoint.go`) and `ACLRole.Validate`: a name of {@link MAX_ROLE_NAME_LENGTH}
   * letters, digits or `-` at most, unique; a description of 256 characters at most; 1 to
   * {@link MAX_ROLE_POLICIES} policies, each existing, kept once each. An update that changes
   * nothing leaves the role as it was (its `ModifyIndex` too).
   */
  async upsertRole(body: JsonObject): Promise<AclRole> {
    const id = typeof body.ID === "string" ? body.ID : "";
    const name = typeof body.Name === "string" ? body.Name : "";
    const description = typeof body.Description === "string" ? body.Description : "";
    const links = Array.isArray(body.Policies) ? (body.Policies as (JsonObject | null)[]) : [];
    const problems: string[] = [];
    if (!POLICY_NAME.test(name)) problems.push(`invalid name '${name}'`);
    if (description.length > MAX_DESCRIPTION) problems.push(`description longer than ${MAX_DESCRIPTION}`);
    if (links.length < 1) problems.push("at least one policy should be specified");
    if (links.length > MAX_ROLE_POLICIES) problems.push(`more than ${MAX_ROLE_POLICIES} policies`);
    if (problems.length > 0) throw invalid(`role 0 invalid: ${formatErrors(problems)}`);

    if (id === "") {
      if (this.#roleByName(this.roles, name) !== undefined) throw invalid(`role with name ${name} already exists`);
    } else if (this.roles.get(id) === undefined) {
      throw invalid(`cannot find role ${id}`);
    }
    const policies: AclRolePolicyLink[] = [];
    const seen = new Set<string>();
    for (const link of links) {
      const policy = typeof link?.Name === "string" ? link.Name : "";
      if (this.policies.get(policy) === undefined) throw invalid(`cannot find policy ${policy}`);
      if (!seen.has(policy)) policies.push({ Name: policy });
      seen.add(policy);
    }
    const roleId = id === "" ? newUuid() : id;
    const hash = roleHash(name, description, policies);
    const { result } = await this.store.write(["acl_role"], (state) => {
      // Checked again in the write, as the reference's state store does: another write may have come between.
      const named = this.#roleByName(state.acl_role, name);
      if (named !== undefined && named.ID !== roleId) throw invalid(`ACL role with name ${name} already exists`);
      const existing = state.acl_role.get(roleId);
      if (id !== "" && existing === undefined) throw invalid(`cannot find role ${id}`);
      if (existing !== undefined && existing.Hash === hash) return existing;
      const role: AclRole = { ID: roleId, Name: name, Description: description, Policies: policies, Hash: hash, CreateIndex: existing?.CreateIndex ?? state.index, ModifyIndex: state.index };
      state.acl_role.put(role);
      return role;
    }, "ACLRolesUpsert");
    return result;
  }

  /** The role of that name (names are unique). */
  #roleByName(roles: ReadTable<AclRole>, name: string): AclRole | undefined {
    for (const role of roles.group(name).values()) return role;
    return undefined;
  }

  /** Deletes a role; tokens keep their link, which then grants nothing and reads as gone (as the reference's). */
  async deleteRole(id: string): Promise<number> {
    const { index } = await this.store.write(["acl_role"], (state) => {
      if (!state.acl_role.delete(id)) throw missing("ACL role not found");
    }, "ACLRolesDeleteByID");
    return index;
  }

  /**
   * Whether the caller may read the role: a management token may read any; another token the roles
   * it links to, as they are now (`GetRoleByID`, `GetRoleByName`); no token, none.
   */
  #mayReadRole(caller: Caller, role: AclRole | undefined): boolean {
    if (caller.management) return true;
    return role !== undefined && (caller.token?.Roles ?? []).includes(role.ID);
  }

  /** A role by ID, or undefined, for a caller allowed to read it (else 403, whether or not it exists). */
  readRole(caller: Caller, id: string): AclRole | undefined {
    this.requireEnabled();
    const role = this.roles.get(id);
    if (!this.#mayReadRole(caller, role)) throw denied();
    return role;
  }

  /** A role by name, or undefined, for a caller allowed to read it (else 403, whether or not it exists). */
  readRoleByName(caller: Caller, name: string): AclRole | undefined {
    this.requireEnabled();
    const role = this.#roleByName(this.roles, name);
    if (!this.#mayReadRole(caller, role)) throw denied();
    return role;
  }

  /**
   * A token's role links as sent (`ACLTokenRoleLink`s: by ID, else by name), as the IDs to store:
   * each role must exist (else `cannot find role <ID or name>`), and is kept once.
   */
  #roleIds(links: readonly (JsonObject | null)[]): string[] {
    const ids: string[] = [];
    for (const link of links) {
      const byId = typeof link?.ID === "string" ? link.ID : "";
      const byName = typeof link?.Name === "string" ? link.Name : "";
      const role = byId === "" ? this.#roleByName(this.roles, byName) : this.roles.get(byId);
      if (role === undefined) throw invalid(`cannot find role ${byId === "" ? byName : byId}`);
      if (!ids.includes(role.ID)) ids.push(role.ID);
    }
    return ids;
  }

  /**
   * `PUT /v1/acl/token/onetime`: a one-time token for the caller's own token, usable for
   * {@link ONE_TIME_TOKEN_TTL_MS} on the agent's clock; it replaces one asked for before. Any
   * valid token may ask (no capability), as the reference's `UpsertOneTimeToken`.
   */
  async upsertOneTimeToken(caller: Caller): Promise<OneTimeToken> {
    this.requireEnabled();
    const token = caller.token;
    if (token === undefined) throw denied();
    await this.#expireOneTimeTokens();
    const { result } = await this.store.write(["one_time_token"], (state) => {
      const created: OneTimeToken = {
        OneTimeSecretID: newUuid(),
        AccessorID: token.AccessorID,
        ExpiresAt: new Date(this.now() + ONE_TIME_TOKEN_TTL_MS).toISOString(),
        CreateIndex: state.index,
        ModifyIndex: state.index,
      };
      state.one_time_token.put(created);
      return created;
    }, "OneTimeTokenUpsert");
    return result;
  }

  /**
   * `PUT /v1/acl/token/onetime/exchange`: the ACL token a one-time secret stands for, once. An
   * unknown, used or expired secret is a 403, as is one whose token was deleted or has expired.
   */
  async exchangeOneTimeToken(body: JsonObject): Promise<{ token: AclToken; index: number }> {
    this.requireEnabled();
    const secret = typeof body.OneTimeSecretID === "string" ? body.OneTimeSecretID : "";
    // The reference's state store refuses it (a 500 there).
    if (secret === "") throw invalid("one-time token lookup failed: missing secret");
    await this.#expireOneTimeTokens();
    const { index, result } = await this.store.write(["one_time_token"], (state) => {
      let found: OneTimeToken | undefined;
      if (UUID.test(secret)) for (const row of state.one_time_token.group(secret.toLowerCase()).values()) found = row;
      if (found === undefined || Date.parse(found.ExpiresAt) < this.now()) throw denied();
      const token = this.tokens.get(found.AccessorID);
      if (token === undefined || this.#expired(token)) throw denied();
      state.one_time_token.delete(found.AccessorID);
      return token;
    }, "OneTimeTokenDelete");
    return { token: result, index };
  }

  /**
   * Removes the expired one-time tokens, as the reference's core GC does every 10 minutes
   * (`ACL.ExpireOneTimeTokens`): here before each one-time token write, a write of its own when
   * there is one to remove.
   */
  async #expireOneTimeTokens(): Promise<void> {
    const expired = (token: OneTimeToken) => Date.parse(token.ExpiresAt) < this.now();
    if (![...this.store.tables.one_time_token.values()].some(expired)) return;
    await this.store.write(["one_time_token"], (state) => {
      for (const token of [...state.one_time_token.values()]) if (expired(token)) state.one_time_token.delete(token.AccessorID);
    }, "OneTimeTokenExpire");
  }
}

/** An ACL setting of the agent's configuration that cannot be used. */
export class AclConfigError extends Error {
  override readonly name = "AclConfigError";
}
