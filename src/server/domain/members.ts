/**
 * `GET /v1/agent/members`: the reference's answer for a cluster of one server, this agent.
 *
 * @module
 */

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

/**
 * The members response, in the reference's shape. Tags are written in sorted key order, as Go
 * writes maps.
 */
export function membersResponse(identity: MemberIdentity): unknown {
  const tags: Record<string, string> = {
    bootstrap: "1",
    build: identity.version,
    dc: identity.datacenter,
    id: identity.nodeId,
    port: String(RPC_PORT),
    raft_vsn: "3",
    region: identity.region,
    revision: "",
    role: "svc",
    rpc_addr: identity.advertiseAddress,
    vsn: "1",
  };
  return {
    ServerName: identity.nodeName,
    ServerRegion: identity.region,
    ServerDC: identity.datacenter,
    Members: [
      {
        Name: `${identity.nodeName}.${identity.region}`,
        Addr: identity.advertiseAddress,
        Port: SERF_PORT,
        Tags: tags,
        Status: "alive",
        ProtocolMin: 1,
        ProtocolMax: 5,
        ProtocolCur: 2,
        DelegateMin: 2,
        DelegateMax: 4,
        DelegateCur: 4,
      },
    ],
  };
}
