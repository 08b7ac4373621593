/**
 * The Raft and autopilot views of the servers that share the agent's state, as the reference's
 * operator endpoint shows its own (`nomad/operator_endpoint.go`: `RaftGetConfiguration`,
 * `ServerHealth`; `command/agent/operator_endpoint.go` for the API shapes): every agent that
 * shares the store is a voter (the members of `/v1/status/peers`), the leader marked; and the
 * autopilot configuration (`api.AutopilotConfiguration`) as its body is read and written.
 *
 * The agent keeps no Raft log: a server's `LastIndex` is the state's index, its `LastTerm` 1, and
 * the configuration's `Index` 1 (see docs/agent.md, "Where the agent differs from the reference").
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import { goDurationText, GoDurationError, parseGoDurationNs } from "../../go/duration.js";
import { goTime } from "../../go/time.js";
import { invalid } from "../base/errors.js";
import type { AutopilotConfig, JsonObject } from "../state/model.js";
import type { MemberRecord } from "./members.js";

/** The reference's RPC port, at which Raft addresses its servers. */
const RAFT_PORT = 4647;

/** The Raft protocol every simulated server speaks (its members' `raft_vsn` tag). */
export const RAFT_PROTOCOL = "3";

/** `api.AutopilotConfiguration`, the body of `PUT /v1/operator/autopilot/configuration` (its durations as Go duration text). */
export const AUTOPILOT_CONFIG_BODY: ObjectSchema = {
  kind: "object",
  typeName: "api.AutopilotConfiguration",
  fields: {
    CleanupDeadServers: "bool",
    LastContactThreshold: "string",
    MaxTrailingLogs: "uint",
    MinQuorum: "uint",
    ServerStabilizationTime: "string",
    EnableRedundancyZones: "bool",
    DisableUpgradeMigration: "bool",
    EnableCustomUpgrades: "bool",
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

/** The longest duration kept (Go's `time.Duration` holds more; a JavaScript number counts nanoseconds exactly up to 2^53, 104 days). */
const MAX_DURATION_NS = BigInt(Number.MAX_SAFE_INTEGER);

/** A duration of the body (`""` is zero, as `AutopilotConfiguration.UnmarshalJSON` leaves it), in nanoseconds; Go's error text otherwise. */
function durationNs(value: unknown): number {
  if (typeof value !== "string" || value === "") return 0;
  let ns: bigint;
  try {
    ns = parseGoDurationNs(value);
  } catch (error) {
    if (error instanceof GoDurationError) throw invalid(`Error parsing autopilot config: ${error.message}`);
    throw error;
  }
  if (ns > MAX_DURATION_NS || ns < -MAX_DURATION_NS) throw invalid(`Error parsing autopilot config: duration ${JSON.stringify(value)} is longer than the agent keeps`);
  return Number(ns);
}

/** A count of the body (`uint`), refused past what a number holds exactly. */
function countOf(value: unknown, name: string): number {
  if (typeof value === "bigint") throw invalid(`Error parsing autopilot config: ${name} is too large: ${value}`);
  return typeof value === "number" ? value : 0;
}

/** A decoded `api.AutopilotConfiguration` as the write keeps it (what the reference's handler copies into `structs.AutopilotConfig`). */
export function autopilotConfigUpdate(body: JsonObject): Omit<AutopilotConfig, "Name" | "CreateIndex" | "ModifyIndex"> {
  return {
    CleanupDeadServers: body.CleanupDeadServers === true,
    ServerStabilizationTime: durationNs(body.ServerStabilizationTime),
    LastContactThreshold: durationNs(body.LastContactThreshold),
    MaxTrailingLogs: countOf(body.MaxTrailingLogs, "MaxTrailingLogs"),
    MinQuorum: countOf(body.MinQuorum, "MinQuorum"),
    EnableRedundancyZones: body.EnableRedundancyZones === true,
    DisableUpgradeMigration: body.DisableUpgradeMigration === true,
    EnableCustomUpgrades: body.EnableCustomUpgrades === true,
  };
}

/** The configuration as the API writes it (`api.AutopilotConfiguration`'s `MarshalJSON`: durations as Go duration text first). */
export function presentAutopilotConfig(config: AutopilotConfig): JsonObject {
  return {
    LastContactThreshold: goDurationText(config.LastContactThreshold),
    ServerStabilizationTime: goDurationText(config.ServerStabilizationTime),
    CleanupDeadServers: config.CleanupDeadServers,
    MaxTrailingLogs: config.MaxTrailingLogs,
    MinQuorum: config.MinQuorum,
    EnableRedundancyZones: config.EnableRedundancyZones,
    DisableUpgradeMigration: config.DisableUpgradeMigration,
    EnableCustomUpgrades: config.EnableCustomUpgrades,
    CreateIndex: config.CreateIndex,
    ModifyIndex: config.ModifyIndex,
  };
}

/** The servers Raft counts: every member that has not left (a failed one stays until it is removed, as in the reference's configuration). */
export function raftServers(members: readonly MemberRecord[]): MemberRecord[] {
  return members.filter((member) => member.status !== "left");
}

/** A server's Raft address (`ip:4647`). */
function raftAddress(member: MemberRecord): string {
  return member.address.includes(":") ? `[${member.address}]:${RAFT_PORT}` : `${member.address}:${RAFT_PORT}`;
}

/**
 * `structs.RaftConfigurationResponse`: each server, by member name (the order the agent keeps;
 * the reference's is its log's), its node ID as the Raft ID, a voter, the leader marked.
 */
export function raftConfiguration(members: readonly MemberRecord[], leader: string | undefined): JsonObject {
  const servers = raftServers(members)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((member) => ({ ID: member.nodeId, Node: member.name, Address: raftAddress(member), Leader: member.name === leader, Voter: true, RaftProtocol: RAFT_PROTOCOL }));
  return { Servers: servers, Index: 1 };
}

/** What the health of the servers is decided from besides the members. */
export interface HealthFacts {
  /** The member name of the leader, when one is known. */
  readonly leader: string | undefined;
  /** The state's index (each server's `LastIndex`: they share the state). */
  readonly index: number;
  /** When the servers were last seen to become stable, epoch milliseconds (the agent's start). */
  readonly stableSinceMs: number;
}

/**
 * `api.OperatorHealthReply` (`GetClusterHealth`): each server healthy while it is alive and a
 * leader is known; `FailureTolerance` the healthy voters beyond a quorum (none below 0); `Healthy`
 * when every server is (the endpoint answers `429` otherwise, with the same body).
 */
export function operatorHealth(members: readonly MemberRecord[], facts: HealthFacts): JsonObject & { readonly Healthy: boolean } {
  const servers = raftServers(members).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const stableSince = goTime(Math.round(facts.stableSinceMs / 1000) * 1000);
  const health = servers.map((member) => {
    const healthy = member.status === "alive" && facts.leader !== undefined;
    return {
      ID: member.nodeId,
      Name: member.name,
      Address: raftAddress(member),
      SerfStatus: member.status,
      Version: member.version,
      Leader: member.name === facts.leader,
      LastContact: "0s",
      LastTerm: 1,
      LastIndex: facts.index,
      Healthy: healthy,
      Voter: true,
      StableSince: stableSince,
    };
  });
  const quorum = Math.floor(servers.length / 2) + 1;
  const healthyVoters = health.filter((server) => server.Healthy).length;
  const leader = servers.find((member) => member.name === facts.leader);
  return {
    Healthy: health.length > 0 && health.every((server) => server.Healthy),
    FailureTolerance: Math.max(0, healthyVoters - quorum),
    Servers: health,
    Leader: leader?.nodeId ?? "",
    Voters: servers.map((member) => member.nodeId),
  };
}
