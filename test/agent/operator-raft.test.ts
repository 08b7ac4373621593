/**
 * The operator's Raft and autopilot endpoints and the community edition's enterprise answers,
 * as the reference's `command/agent/operator_endpoint.go` and `operator_endpoint_ce.go` answer
 * them: the Raft configuration of the agents sharing the state, the peer removal's checks, the
 * autopilot configuration with check-and-set, the servers' health, `/v1/operator/license`; with
 * their ACL rules in both header styles, and several agents on one PostgreSQL schema.
 */
import { describe, expect, it } from "vitest";
import { startAgent, type Agent } from "../../src/server/index.js";
import { ON_POSTGRES, send, testStore, useAgent } from "./support.js";

type Item = Record<string, unknown>;

const RAFT = "/v1/operator/raft/configuration";
const PEER = "/v1/operator/raft/peer";
const AUTOPILOT = "/v1/operator/autopilot/configuration";
const HEALTH = "/v1/operator/autopilot/health";

/** The agent's own node ID and member name, as `/v1/agent/self` names them. */
async function selfOf(url: string): Promise<{ id: string; name: string }> {
  const self = (await send(`${url}/v1/agent/self`)).json<{ member: { Name: string; Tags: { id: string } } }>();
  return { id: self.member.Tags.id, name: self.member.Name };
}

describe("the Raft configuration and the servers' health of a lone agent", () => {
  const agent = useAgent({ nodeName: "alpha" });

  it("lists the agent as the one voter, the leader, in the reference's shape", async () => {
    const { id } = await selfOf(agent.url);
    const response = await agent.get(RAFT);
    expect(response.status, response.text).toBe(200);
    expect(response.json()).toEqual({ Servers: [{ ID: id, Node: "alpha.global", Address: "127.0.0.1:4647", Leader: true, Voter: true, RaftProtocol: "3" }], Index: 1 });
  });

  it("answers the servers' health: healthy, no failure tolerated with one voter", async () => {
    const { id } = await selfOf(agent.url);
    const response = await agent.get(HEALTH);
    expect(response.status, response.text).toBe(200);
    const health = response.json<Item & { Servers: Item[] }>();
    expect(health).toMatchObject({ Healthy: true, FailureTolerance: 0, Leader: id, Voters: [id] });
    expect(health.Servers).toHaveLength(1);
    expect(health.Servers[0]).toMatchObject({ ID: id, Name: "alpha.global", Address: "127.0.0.1:4647", SerfStatus: "alive", Leader: true, Voter: true, Healthy: true, LastContact: "0s" });
    expect(health.Servers[0]!.StableSince).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(health.Servers[0]!.LastIndex).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ["without an ID", PEER, 400, "Must specify the peer's ID to remove"],
    ["by address", `${PEER}?address=127.0.0.1:4647`, 400, "Removing a peer by address is not supported in the current raft protocol version"],
    ["of an ID not in the configuration", `${PEER}?id=nope`, 400, 'id "nope" was not found in the Raft configuration'],
  ])("refuses the removal of a peer %s", async (_what, path, status, message) => {
    const response = await send(agent.url + path, { method: "DELETE" });
    expect([response.status, response.text]).toEqual([status, message]);
  });

  it("answers the removal of a peer that shares the state, which stays a voter", async () => {
    const { id } = await selfOf(agent.url);
    const response = await send(`${agent.url}${PEER}?id=${id}`, { method: "DELETE" });
    expect([response.status, response.text]).toEqual([200, ""]);
    expect((await agent.get(RAFT)).json<{ Servers: Item[] }>().Servers.map((server) => server.ID)).toEqual([id]);
  });

  const TRANSFER = "/v1/operator/raft/transfer-leadership";
  it.each([
    ["without a target", "", 400, "must specify id or address"],
    ["with both an ID and an address", "?id=a&address=b", 400, "must specify either id or address"],
    ["with an empty ID", "?id=", 400, "id must be non-empty"],
    ["with two IDs", "?id=a&id=b", 400, "must specify only one id"],
    ["with an empty address", "?address=", 400, "address must be non-empty"],
    ["with an ID that is not a UUID", "?id=nope", 400, "id must be a uuid: uuid string is wrong length"],
    ["with an address without a port", "?address=127.0.0.1", 400, "address must be in IP:port format: not an ip:port"],
    ["to a server not in the configuration", "?id=00000000-0000-4000-8000-000000000000", 400, 'id "00000000-0000-4000-8000-000000000000" was not found in the Raft configuration'],
  ])("refuses a leadership transfer %s", async (_what, query, status, message) => {
    const response = await agent.put(`${TRANSFER}${query}`, "");
    expect([response.status, response.text]).toEqual([status, message]);
  });

  it("answers a leadership transfer to the leader itself as the reference's no-op, by ID and by address", async () => {
    const { id } = await selfOf(agent.url);
    const noop = { From: { Address: "127.0.0.1:4647", ID: id }, To: { Address: "127.0.0.1:4647", ID: id }, Noop: true, Err: null };
    for (const query of [`?id=${id}`, "?address=127.0.0.1:4647"]) {
      const response = await send(`${agent.url}${TRANSFER}${query}`, { method: "POST" });
      expect(response.status, response.text).toBe(200);
      expect(response.json()).toEqual(noop);
    }
    expect((await agent.get(TRANSFER)).status).toBe(405);
  });

  it("answers a stale Raft configuration without a leader, none marked, and no health (the reference asks the leader)", async () => {
    agent.agent.setLeader(false);
    try {
      const raft = await agent.get(`${RAFT}?stale`);
      expect(raft.status, raft.text).toBe(200);
      expect(raft.json<{ Servers: Item[] }>().Servers.map((server) => server.Leader)).toEqual([false]);
      for (const path of [RAFT, HEALTH, `${HEALTH}?stale`]) expect([path, (await agent.get(path)).text]).toEqual([path, "No cluster leader"]);
    } finally {
      agent.agent.setLeader(true);
    }
  });

  it.each([
    ["PUT", RAFT, 405, ""],
    ["GET", PEER, 404, "Invalid method"],
    ["GET", "/v1/operator/raft/other", 404, "Invalid method"],
    ["POST", AUTOPILOT, 404, "Invalid method"],
    ["PUT", HEALTH, 404, "Invalid method"],
    ["GET", "/v1/operator/license", 204, ""],
    ["PUT", "/v1/operator/license", 501, "Nomad Enterprise only endpoint"],
    ["DELETE", "/v1/operator/license", 405, "Invalid method"],
    ["POST", "/v1/operator/utilization", 501, "Nomad Enterprise only endpoint"],
    ["GET", "/v1/operator/utilization", 405, "Invalid method"],
  ])("answers %s %s as the reference: %i", async (method, path, status, body) => {
    const response = await send(agent.url + path, { method, ...(method === "PUT" || method === "POST" ? { body: "{}" } : {}) });
    expect([response.status, response.text]).toEqual([status, body]);
  });
});

describe("the autopilot configuration", () => {
  const agent = useAgent();
  const read = async () => (await agent.get(AUTOPILOT)).json<Item & { ModifyIndex: number }>();

  it("answers the reference's defaults before any write, durations as Go writes them", async () => {
    const response = await agent.get(AUTOPILOT);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      LastContactThreshold: "200ms",
      ServerStabilizationTime: "10s",
      CleanupDeadServers: true,
      MaxTrailingLogs: 250,
      MinQuorum: 0,
      EnableRedundancyZones: false,
      DisableUpgradeMigration: false,
      EnableCustomUpgrades: false,
      CreateIndex: 1,
      ModifyIndex: 1,
    });
  });

  it("writes without check-and-set, answering true", async () => {
    const response = await agent.put(AUTOPILOT, { CleanupDeadServers: false, LastContactThreshold: "1m30s", ServerStabilizationTime: "", MaxTrailingLogs: 10, MinQuorum: 3 });
    expect([response.status, response.text]).toEqual([200, "true"]);
    expect(await read()).toMatchObject({ CleanupDeadServers: false, LastContactThreshold: "1m30s", ServerStabilizationTime: "0s", MaxTrailingLogs: 10, MinQuorum: 3 });
  });

  it("writes with check-and-set: false and unchanged for a stale index, true for the current one", async () => {
    const before = await read();
    const stale = await agent.put(`${AUTOPILOT}?cas=${before.ModifyIndex - 1}`, { CleanupDeadServers: true });
    expect([stale.status, stale.text]).toEqual([200, "false"]);
    expect((await read()).CleanupDeadServers).toBe(false);
    const current = await agent.put(`${AUTOPILOT}?cas=${before.ModifyIndex}`, { CleanupDeadServers: true, LastContactThreshold: "250ms" });
    expect([current.status, current.text]).toEqual([200, "true"]);
    const after = await read();
    expect(after).toMatchObject({ CleanupDeadServers: true, LastContactThreshold: "250ms" });
    expect(after.ModifyIndex).toBeGreaterThan(before.ModifyIndex);
  });

  it.each([
    ["a duration Go cannot read", AUTOPILOT, { LastContactThreshold: "soon" }, 'Error parsing autopilot config: time: invalid duration "soon"'],
    ["a duration as a number", AUTOPILOT, { LastContactThreshold: 5 }, "Error parsing autopilot config: json: cannot unmarshal number into Go struct field AutopilotConfiguration.LastContactThreshold of type string"],
    ["a body that is not the struct", AUTOPILOT, "[1]", "Error parsing autopilot config: json: cannot unmarshal array into Go value of type api.AutopilotConfiguration"],
    ["a cas that is not a number", `${AUTOPILOT}?cas=x`, {}, 'Error parsing cas value: strconv.ParseUint: parsing "x": invalid syntax'],
  ])("refuses %s with a 400", async (_what, path, body, message) => {
    const response = await agent.put(path, body);
    expect([response.status, response.text]).toEqual([400, message]);
  });
});

describe.each([
  ["svc", "x-svc-token"],
  ["nomad", "x-nomad-token"],
] as const)("the operator's Raft and autopilot endpoints with ACLs, in the %s header style", (headers, tokenHeader) => {
  const ROOT = "00000000-0000-4000-8000-0000000000b0";
  const OPERATOR_READER = "00000000-0000-4000-8000-0000000000b1";
  const OPERATOR_WRITER = "00000000-0000-4000-8000-0000000000b2";
  const NODE_READER = "00000000-0000-4000-8000-0000000000b3";
  const agent = useAgent({
    headers,
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "operator-read", Rules: 'operator { policy = "read" }' },
        { Name: "operator-write", Rules: 'operator { policy = "write" }' },
        { Name: "node-read", Rules: 'node { policy = "read" }' },
      ],
      tokens: [
        { SecretID: OPERATOR_READER, Type: "client", Policies: ["operator-read"] },
        { SecretID: OPERATOR_WRITER, Type: "client", Policies: ["operator-write"] },
        { SecretID: NODE_READER, Type: "client", Policies: ["node-read"] },
      ],
    },
  });

  it.each([
    ["reads the Raft configuration with a management token", ROOT, "GET", RAFT, 200],
    ["refuses the Raft configuration to operator:write, as the reference asks management", OPERATOR_WRITER, "GET", RAFT, 403],
    ["refuses a peer's removal to operator:write", OPERATOR_WRITER, "DELETE", `${PEER}?id=x`, 403],
    ["reads the autopilot configuration with operator:read", OPERATOR_READER, "GET", AUTOPILOT, 200],
    ["refuses the autopilot configuration without operator:read", NODE_READER, "GET", AUTOPILOT, 403],
    ["refuses to write it with operator:read", OPERATOR_READER, "PUT", AUTOPILOT, 403],
    ["writes it with operator:write", OPERATOR_WRITER, "PUT", AUTOPILOT, 200],
    ["reads the health with operator:read", OPERATOR_READER, "GET", HEALTH, 200],
    ["refuses the health without operator:read", NODE_READER, "GET", HEALTH, 403],
    ["reads the license without a token", "", "GET", "/v1/operator/license", 204],
  ])("%s", async (_what, token, method, path, status) => {
    const response = await send(agent.url + path, { method, headers: token === "" ? {} : { [tokenHeader]: token }, ...(method === "PUT" ? { body: "{}" } : {}) });
    expect(response.status, response.text).toBe(status);
    if (status === 403) expect(response.text).toBe("Permission denied");
  });
});

describe.runIf(ON_POSTGRES)("the Raft configuration of agents sharing one PostgreSQL schema", () => {
  it("lists each agent as a voter, the leader marked once, and their health", async () => {
    const { store, drop } = await testStore();
    const agents: Agent[] = [];
    try {
      for (const nodeName of ["alpha", "beta"]) agents.push(await startAgent({ port: 0, demo: false, logLevel: "silent", store, nodeName }));
      const selves = await Promise.all(agents.map((agent) => selfOf(agent.url)));
      for (const agent of agents) {
        const { Servers } = (await send(agent.url + RAFT)).json<{ Servers: (Item & { ID: string; Leader: boolean })[] }>();
        expect(Servers.map((server) => [server.ID, server.Node, server.Voter])).toEqual(selves.map(({ id, name }) => [id, name, true]));
        expect(Servers.filter((server) => server.Leader)).toHaveLength(1);
        const health = (await send(agent.url + HEALTH)).json<Item & { Servers: Item[] }>();
        // Two voters: a quorum of two, no failure tolerated.
        expect(health).toMatchObject({ Healthy: true, FailureTolerance: 0, Voters: selves.map(({ id }) => id) });
      }
    } finally {
      await Promise.all(agents.map((agent) => agent.close()));
      await drop();
    }
  });
});
