/**
 * What a server agent says of itself: `GET /v1/agent/self` (`AgentSelfRequest`: the agent's
 * configuration, its member, its stats) and `GET /v1/agent/health` (`HealthRequest`), in the
 * shapes the reference's Go client decodes (`api.AgentSelf`, `api.AgentHealthResponse`).
 *
 * The agent is a server of the reference (its simulated clients are nodes of its state, not
 * client agents of its own), so its configuration says `Server.Enabled` and not `Client.Enabled`,
 * and its health has a `server` part alone. Of the reference's configuration, the fields that have
 * a meaning here are given (region, datacenter, node name, addresses and ports, ACLs, the version);
 * of its stats, the `nomad` and `serf` sections (raft's and Go's runtime's have none).
 *
 * @module
 */
import { memberOf, presentMember, type MemberIdentity, type MemberRecord } from "./members.js";
import type { HeaderStyle } from "../base/header-names.js";

/** The reference's default ports: RPC 4647, Serf 4648 (as `/v1/agent/members` names them). */
const RPC_PORT = 4647;
const SERF_PORT = 4648;

/** What the agent says of itself, beyond its {@link MemberIdentity}. */
export interface AgentFacts {
  /** The reference version the agent answers as: its simulated clients' (`SIMULATED_NOMAD_VERSION`). */
  readonly nomadVersion: string;
  /** The address the HTTP server is bound to, and the port it listens on. */
  readonly bind: string;
  readonly httpPort: number;
  readonly logLevel: string;
  readonly aclEnabled: boolean;
  /** Whether this agent leads, and the address of the leader when one is known ("" else). */
  readonly leading: boolean;
  readonly leaderAddress: string;
  /** Every member sharing the agent's state, this agent among them. */
  readonly members: readonly MemberRecord[];
}

/** This agent's own member: the one with its node ID, or one made from its identity (a member list that does not name it yet). */
function selfMember(identity: MemberIdentity, members: readonly MemberRecord[]): MemberRecord {
  return members.find((member) => member.nodeId === identity.nodeId) ?? memberOf(identity);
}

/**
 * The body of `GET /v1/agent/self`: `config` (the reference's agent `Config`, with the fields that
 * have a meaning here, under their Go names), `member` (as `/v1/agent/members` writes it) and
 * `stats` (string maps, as the reference's `Server.Stats`).
 *
 * @example
 * agentSelfResponse(settings, facts, "nomad").config.Region // "global"
 */
export function agentSelfResponse(identity: MemberIdentity, facts: AgentFacts, style: HeaderStyle): { config: Record<string, unknown>; member: unknown; stats: Record<string, Record<string, string>> } {
  const advertise = identity.advertiseAddress;
  const alive = facts.members.filter((member) => member.status === "alive").length;
  return {
    config: {
      Region: identity.region,
      Datacenter: identity.datacenter,
      NodeName: identity.nodeName,
      LogLevel: facts.logLevel.toUpperCase(),
      BindAddr: facts.bind,
      Ports: { HTTP: facts.httpPort, RPC: RPC_PORT, Serf: SERF_PORT },
      Addresses: { HTTP: facts.bind, RPC: facts.bind, Serf: facts.bind },
      AdvertiseAddrs: { HTTP: `${advertise}:${facts.httpPort}`, RPC: `${advertise}:${RPC_PORT}`, Serf: `${advertise}:${SERF_PORT}` },
      Server: { Enabled: true, BootstrapExpect: facts.members.length },
      Client: { Enabled: false },
      ACL: { Enabled: facts.aclEnabled },
      Version: { Revision: "", Version: facts.nomadVersion, VersionPrerelease: "", VersionMetadata: "" },
    },
    member: presentMember(identity, selfMember(identity, facts.members), style),
    stats: {
      nomad: {
        server: "true",
        leader: String(facts.leading),
        leader_addr: facts.leaderAddress,
        bootstrap: String(facts.members.length === 1),
        known_regions: "1",
      },
      serf: { members: String(alive), failed: String(facts.members.filter((member) => member.status === "failed").length), left: String(facts.members.filter((member) => member.status === "left").length) },
    },
  };
}

/** One agent kind's part of a health answer (`api.AgentHealth`). */
export interface AgentHealth {
  readonly ok: boolean;
  readonly message: string;
}

/** A health answer (`api.AgentHealthResponse`): the parts asked for; healthy when none is not ok. */
export interface HealthResponse {
  readonly client?: AgentHealth;
  readonly server?: AgentHealth;
}

/**
 * The body of `GET /v1/agent/health` for a server agent (`HealthRequest`): with no `type`, the
 * server's part; `type=client` and `type=server` ask for one kind each, and a kind the agent is
 * not (a client) is `client not enabled`. The server is ok while a leader is known.
 */
export function agentHealth(types: readonly string[], leaderKnown: boolean): HealthResponse {
  const wantClient = types.includes("client");
  const wantServer = types.length === 0 || types.includes("server");
  return {
    ...(wantClient ? { client: { ok: false, message: "client not enabled" } } : {}),
    ...(wantServer ? { server: leaderKnown ? { ok: true, message: "ok" } : { ok: false, message: "no leader" } } : {}),
  };
}

/** Whether a health answer is healthy (`healthResponse.ok`): no part says not ok. */
export function healthy(health: HealthResponse): boolean {
  return health.client?.ok !== false && health.server?.ok !== false;
}
