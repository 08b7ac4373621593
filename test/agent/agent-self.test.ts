/**
 * The agent endpoints a server agent answers on its own (`/v1/agent/self`, `/health`,
 * `/servers`), the answer to the reference's routes the agent does not simulate, and the hint a
 * client of the reference gets from an agent of the svc header style. Over HTTP, in both header
 * styles where the style shows.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Agent, HeaderStyle } from "../../src/server/index.js";
import { MAX_PATH_PARAM_LENGTH } from "../../src/server/http/constants.js";
import { send, startTestAgent, useAgent } from "./support.js";

const ROOT = "00000000-0000-4000-8000-00000000b001";
const AGENT_READER = "00000000-0000-4000-8000-00000000b002";
const NODE_READER = "00000000-0000-4000-8000-00000000b003";

/** What `/v1/agent/self` answers, as the reference's Go client decodes it (`api.AgentSelf`). */
interface AgentSelf {
  config: Record<string, unknown> & { Region: string; Datacenter: string; NodeName: string; ACL: { Enabled: boolean }; Version: { Version: string }; Server: { Enabled: boolean } };
  member: { Name: string; Addr: string; Port: number; Status: string; Tags: Record<string, string> };
  stats: Record<string, Record<string, string>>;
}

describe.each<[HeaderStyle, string]>([
  ["svc", "x-svc-token"],
  ["nomad", "x-nomad-token"],
])("GET /v1/agent/self (%s headers)", (headers, tokenHeader) => {
  const agent = useAgent({
    headers,
    region: "r1",
    datacenter: "dc7",
    nodeName: "agent-one",
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "agent-read", Rules: 'agent { policy = "read" }' },
        { Name: "node-read", Rules: 'node { policy = "read" }' },
      ],
      tokens: [
        { SecretID: AGENT_READER, Name: "agent reader", Type: "client", Policies: ["agent-read"] },
        { SecretID: NODE_READER, Name: "node reader", Type: "client", Policies: ["node-read"] },
      ],
    },
  });
  const as = (token: string, path: string) => agent.get(path, { headers: { [tokenHeader]: token } });

  it("answers the agent's region, datacenter, node name, version and ACLs in its config", async () => {
    const response = await as(ROOT, "/v1/agent/self");
    expect(response.status, response.text).toBe(200);
    const { config } = response.json<AgentSelf>();
    expect(config).toMatchObject({ Region: "r1", Datacenter: "dc7", NodeName: "agent-one", ACL: { Enabled: true }, Server: { Enabled: true }, Client: { Enabled: false } });
    expect(config.Version.Version).toBe("2.0.6");
  });

  it("answers the agent's member as /v1/agent/members writes it", async () => {
    const self = (await as(ROOT, "/v1/agent/self")).json<AgentSelf>();
    const members = (await as(ROOT, "/v1/agent/members")).json<{ Members: unknown[] }>();
    expect(members.Members).toHaveLength(1);
    expect(self.member).toEqual(members.Members[0]);
    expect(self.member.Name).toBe("agent-one.r1");
    expect(self.member.Tags.role).toBe(headers);
  });

  it("answers the server's stats as strings: a lone server leads and bootstraps", async () => {
    const { stats } = (await as(ROOT, "/v1/agent/self")).json<AgentSelf>();
    expect(stats.nomad).toEqual({ server: "true", leader: "true", leader_addr: "127.0.0.1:4647", bootstrap: "true", known_regions: "1" });
    for (const section of Object.values(stats)) for (const value of Object.values(section)) expect(typeof value).toBe("string");
  });

  it.each([
    ["a management token", 200, ROOT],
    ["a token with agent:read", 200, AGENT_READER],
    ["a token with node:read alone", 403, NODE_READER],
    ["no token", 403, ""],
  ])("answers %s with %i", async (_name, status, token) => {
    const response = token === "" ? await agent.get("/v1/agent/self") : await as(token, "/v1/agent/self");
    expect(response.status, response.text).toBe(status);
    if (status === 403) expect(response.text).toBe("Permission denied");
  });

  it("refuses other methods with 405 Invalid method", async () => {
    const response = await agent.put("/v1/agent/self", "", { headers: { [tokenHeader]: ROOT } });
    expect([response.status, response.text]).toEqual([405, "Invalid method"]);
  });

  it("answers /v1/agent/servers with the servers' RPC addresses (agent:read)", async () => {
    const response = await as(AGENT_READER, "/v1/agent/servers");
    expect([response.status, response.json()]).toEqual([200, ["127.0.0.1:4647"]]);
    expect((await as(NODE_READER, "/v1/agent/servers")).status).toBe(403);
  });
});

describe("GET /v1/agent/health", () => {
  const agent = useAgent({ control: true });

  it.each([
    ["(no type)", 200, { server: { ok: true, message: "ok" } }],
    ["?type=server", 200, { server: { ok: true, message: "ok" } }],
    ["?type=client", 500, { client: { ok: false, message: "client not enabled" } }],
    ["?type=client&type=server", 500, { client: { ok: false, message: "client not enabled" }, server: { ok: true, message: "ok" } }],
  ])("answers %s with %i and the reference's shape", async (query, status, body) => {
    const response = await agent.get(`/v1/agent/health${query.startsWith("?") ? query : ""}`);
    expect(response.status, response.text).toBe(status);
    expect(JSON.parse(response.text)).toEqual(body);
  });

  it("is not ok while the leader is lost, and ok again when it is back", async () => {
    expect((await agent.put("/_bexpr/leader", { KnownLeader: false })).status).toBe(200);
    try {
      const response = await agent.get("/v1/agent/health");
      expect([response.status, JSON.parse(response.text)]).toEqual([500, { server: { ok: false, message: "no leader" } }]);
    } finally {
      expect((await agent.put("/_bexpr/leader", { KnownLeader: true })).status).toBe(200);
    }
    expect((await agent.get("/v1/agent/health")).status).toBe(200);
  });
});

describe("the reference's routes the agent does not simulate", () => {
  const agent = useAgent();

  it.each([
    ["GET", "/v1/client/allocation/5b7d1a4e-0000-4000-8000-000000000001/exec", "/v1/client/allocation/:id/exec"],
    ["GET", "/v1/agent/keyring/list", "/v1/agent/keyring/*"],
    ["GET", "/v1/operator/keyring/keys", "/v1/operator/keyring/*"],
    ["GET", "/v1/operator/snapshot", "/v1/operator/snapshot"],
    ["GET", "/v1/agent/schedulers", "/v1/agent/schedulers"],
    ["PUT", "/v1/agent/join?address=10.0.0.1", "/v1/agent/join"],
    ["PUT", "/v1/agent/servers?address=10.0.0.1:4647", "/v1/agent/servers"],
    ["GET", "/v1/volumes/external", "/v1/volumes/external"],
    ["GET", "/.well-known/jwks.json", "/.well-known/jwks.json"],
  ])("answers %s %s with a 404 naming %s", async (method, path, pattern) => {
    const response = await send(agent.url + path, { method });
    expect([response.status, response.headers["content-type"], response.text]).toEqual([404, "text/plain; charset=utf-8", `the mini-agent does not simulate ${method} ${pattern}`]);
  });

  it.each(["/v1/sentinel/policies", "/v1/quotas", "/v1/quota/q1", "/v1/recommendations"])("answers the enterprise route %s as the reference's community edition: 501", async (path) => {
    const response = await agent.get(path);
    expect([response.status, response.text]).toEqual([501, "Nomad Enterprise only endpoint"]);
  });

  it.each([
    ["a path the reference does not have", "/v1/nothing-here"],
    ["a suffix the reference's job handler does not know", "/v1/job/example/nothing"],
    ["a path outside /v1", "/nothing"],
    ["a served route's path the router does not take (a name past its length limit)", `/v1/namespace/${"n".repeat(MAX_PATH_PARAM_LENGTH + 1)}`],
  ])("answers %s with the reference's empty 404", async (_name, path) => {
    const response = await agent.get(path);
    expect([response.status, response.text, response.headers["content-type"]]).toEqual([404, "", undefined]);
  });

  it("keeps the 404 of an unknown ID on a served route", async () => {
    const response = await agent.get("/v1/job/no-such-job");
    expect([response.status, response.text]).toEqual([404, "job not found"]);
  });
});

describe("a client of the reference talking to an agent of the svc header style", () => {
  let agent: Agent;
  let written: string[];
  beforeAll(async () => {
    // Warnings go to the agent's log: the text format writes them to stdout, where the test reads them.
    written = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    agent = await startTestAgent({ port: 0, demo: false, logLevel: "warn", logFormat: "text" });
  });
  afterAll(async () => {
    await agent.close();
    vi.restoreAllMocks();
  });
  const hints = () => written.filter((line) => line.includes("--headers nomad"));

  it.each([
    ["X-Nomad-Token", "/v1/jobs"],
    ["X-Nomad-Index", "/v1/jobs?index=1&wait=1ms"],
    ["x-nomad-namespace", "/v1/agent/members"],
  ])("answers a request with %s with a header naming --headers nomad", async (name, path) => {
    const response = await send(agent.url + path, { headers: { [name]: "00000000-0000-4000-8000-000000000000" } });
    expect(response.headers["x-svc-header-hint"]).toContain("--headers nomad");
  });

  it("warns once in the agent's log, however many such requests come", async () => {
    // The same list thrice: the repeats are answered by the list lane, before the router, with the hint too.
    for (let i = 0; i < 3; i++) {
      const response = await send(`${agent.url}/v1/jobs?per_page=1`, { headers: { "X-Nomad-Token": "x" } });
      expect(response.headers["x-svc-header-hint"]).toContain("--headers nomad");
    }
    expect(hints()).toHaveLength(1);
    expect(hints()[0]).toContain("WARN");
  });

  it("adds no hint to a request without X-Nomad-* headers", async () => {
    const response = await send(`${agent.url}/v1/jobs`, { headers: { "X-Svc-Token": "x" } });
    expect(response.headers["x-svc-header-hint"]).toBeUndefined();
  });

  it("adds no hint in the nomad style, where the headers are read", async () => {
    const nomad = await startTestAgent({ port: 0, demo: false, logLevel: "silent", headers: "nomad" });
    try {
      const response = await send(`${nomad.url}/v1/jobs`, { headers: { "X-Nomad-Token": "x" } });
      expect(response.status).toBe(200);
      expect(Object.keys(response.headers).filter((name) => name.startsWith("x-svc-"))).toEqual([]);
    } finally {
      await nomad.close();
    }
  });
});
