/**
 * `GET /v1/agent/members`: the reference's answer, for this agent alone or for every agent that
 * shares its state.
 *
 * @module
 */
import type { MemberRecord } from "../state/postgres/membership.js";
import type { HeaderStyle } from "../base/header-names.js";

/** Who the agent is. */
export interface MemberIdentity {
  readonly region: string;
  readonly datacenter: string;
  readonly nodeName: string;
  /** A UUID fixed for the agent's lifetime. */
  readonly nodeId: string;
  /** The address members are advertised on. */
  readonly advertiseAddress: string;
  /** The agent's version (the package version). */
  readonly version: string;
}

/** The reference's default ports: HTTP 4646, RPC 4647, Serf 4648. */
const RPC_PORT = 4647;
const SERF_PORT = 4648;

/** One agent of the cluster (see the PostgreSQL store's `Membership`; a lone agent is its only member). */
export type { MemberRecord };

/** What the agent knows of the cluster it is part of: the leader, and the members. */
export interface Peers {
  /** Whether a leader is known (the `X-Svc-KnownLeader` of reads). */
  readonly knownLeader: boolean;
  /**
   * The `X-Svc-LastContact` of a read: 0 for a consistent read; for a `?stale` read answered from
   * the agent's copy of the state, how old that copy may be, in milliseconds.
   */
  lastContactMs(stale: boolean): number;
  /** Every member, this agent among them. */
  members(): Promise<readonly MemberRecord[]>;
  /** The member name of the leader while one is known (this agent's own on a store of its own). */
  readonly leader?: string;
}

/** The member an agent is, alive, from its identity (`<node>.<region>`). */
export function memberOf(identity: MemberIdentity): MemberRecord {
  return {
    name: `${identity.nodeName}.${identity.region}`,
    address: identity.advertiseAddress,
    port: 0,
    datacenter: identity.datacenter,
    nodeId: identity.nodeId,
    version: identity.version,
    status: "alive",
  };
}

/** The peers of an agent with a store of its own: itself, alive and leading. */
export function lonePeers(identity: MemberIdentity): Peers {
  const self = memberOf(identity);
  return { knownLeader: true, lastContactMs: () => 0, members: async () => [self], leader: self.name };
}

/**
 * The `role` tag of a server in each header style: the reference's `nomad` (its Go client's
 * `IsNomadServer` takes no other), and in the spec's style the renamed `svc`.
 */
export const SERVER_ROLES: Readonly<Record<HeaderStyle, string>> = { svc: "svc", nomad: "nomad" };

/**
 * One member in the reference's shape (`command/agent`'s `Member`), as `/v1/agent/members` lists
 * it and `/v1/agent/self` names the agent itself. Tags are written in sorted key order, as Go
 * writes maps.
 */
export function presentMember(identity: MemberIdentity, member: MemberRecord, style: HeaderStyle): unknown {
  return {
    Name: member.name,
    Addr: member.address,
    Port: SERF_PORT,
    Tags: {
      bootstrap: "1",
      build: member.version,
      dc: member.datacenter,
      id: member.nodeId,
      port: String(RPC_PORT),
      raft_vsn: "3",
      region: identity.region,
      revision: "",
      role: SERVER_ROLES[style],
      rpc_addr: member.address,
      vsn: "1",
    },
    Status: member.status,
    ProtocolMin: 1,
    ProtocolMax: 5,
    ProtocolCur: 2,
    DelegateMin: 2,
    DelegateMax: 4,
    DelegateCur: 4,
  };
}

/** The members response, in the reference's shape: `Server*` name this agent, `Members` every agent sharing its state. */
export function membersResponse(identity: MemberIdentity, members: readonly MemberRecord[], style: HeaderStyle): unknown {
  return {
    ServerName: identity.nodeName,
    ServerRegion: identity.region,
    ServerDC: identity.datacenter,
    Members: members.map((member) => presentMember(identity, member, style)),
  };
}
