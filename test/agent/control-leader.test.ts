/**
 * The leader-loss switch: while the leader is lost, writes and consistent reads fail as the
 * reference fails them (`500 No cluster leader`), `?stale` reads are answered with
 * `X-Svc-KnownLeader: false`, and what a server answers on its own is unaffected.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LEADERLESS_PATHS, NO_LEADER } from "../../src/server/index.js";
import { job, settled, useAgent } from "./support.js";

const agent = useAgent();

afterEach(() => {
  agent.agent.setLeader(true);
});

/** Sets the switch over HTTP. */
async function putLeader(known: boolean): Promise<void> {
  const response = await agent.put("/_bexpr/leader", { KnownLeader: known });
  expect(response.status, response.text).toBe(200);
  expect(response.json()).toEqual({ KnownLeader: known });
}

describe("while the leader is lost", () => {
  it("fails consistent reads with the reference's 500 No cluster leader", async () => {
    await putLeader(false);
    for (const path of ["/v1/jobs", "/v1/deployments", "/v1/namespaces", "/v1/jobs?namespace=*&stale=false"]) {
      const response = await agent.get(path);
      expect([response.status, response.text], path).toEqual([500, NO_LEADER]);
      expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(response.headers["x-svc-knownleader"]).toBeUndefined();
    }
    expect(NO_LEADER).toBe("No cluster leader");
  });

  it("fails writes the same way, and they change nothing", async () => {
    agent.agent.setLeader(false);
    const response = await agent.put("/v1/jobs", { Job: job("leaderless") });
    expect([response.status, response.text]).toEqual([500, NO_LEADER]);
    expect((await agent.get("/v1/namespace/leaderless", { method: "DELETE" })).status).toBe(500);
    agent.agent.setLeader(true);
    expect((await agent.get("/v1/jobs")).json<{ ID: string }[]>().map((listed) => listed.ID)).not.toContain("leaderless");
  });

  it("answers ?stale reads, with X-Svc-KnownLeader false and the time since the leader was lost", async () => {
    await agent.register(job("stale-read"));
    await settled(agent.url);
    // Asked once before: the lane of repeated list requests knows the request (and would say a leader is known).
    expect((await agent.get("/v1/jobs?stale")).headers["x-svc-knownleader"]).toBe("true");
    await putLeader(false);
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (let i = 0; i < 2; i++) {
      const response = await agent.get("/v1/jobs?stale");
      expect(response.status).toBe(200);
      expect(response.json<{ ID: string }[]>().map((listed) => listed.ID)).toContain("stale-read");
      expect(response.headers["x-svc-knownleader"]).toBe("false");
      expect(Number(response.headers["x-svc-lastcontact"])).toBeGreaterThanOrEqual(25);
    }
    expect((await agent.get("/v1/jobs?stale=true", { headers: { "accept-encoding": "gzip" } })).headers["x-svc-knownleader"]).toBe("false");
  });

  it("still answers what a server answers on its own", async () => {
    agent.agent.setLeader(false);
    expect(LEADERLESS_PATHS).toEqual(["/v1/agent/", "/v1/metrics", "/v1/regions", "/v1/event/stream", "/v1/operator/license", "/v1/operator/utilization"]);
    // The community edition's license answer asks no server (`operator_endpoint_ce.go`).
    expect((await agent.get("/v1/operator/license")).status).toBe(204);
    expect((await agent.get("/v1/agent/members")).status).toBe(200);
    expect((await agent.get("/v1/%61gent/members")).status).toBe(200);
    expect((await agent.get("/v1/%6Aobs")).status).toBe(500);
    expect((await agent.get("/v1/metrics")).status).toBe(200);
    expect((await agent.get("/_bexpr/requests")).status).toBe(200);
    expect((await agent.get("/_bexpr/leader")).json()).toEqual({ KnownLeader: false });
  });

  it("answers a malformed query's 400 and another region's 500 first, as the reference", async () => {
    agent.agent.setLeader(false);
    const malformed = await agent.get("/v1/jobs?stale=maybe");
    expect([malformed.status, malformed.text]).toEqual([400, "Expect `true` or `false` for `stale` query string parameter"]);
    const elsewhere = await agent.get("/v1/jobs?region=mars");
    expect([elsewhere.status, elsewhere.text]).toEqual([500, "No path to region"]);
  });

  it("ends when the leader is back", async () => {
    await putLeader(false);
    expect((await agent.get("/v1/jobs")).status).toBe(500);
    await putLeader(true);
    const response = await agent.get("/v1/jobs");
    expect(response.status).toBe(200);
    expect(response.headers["x-svc-knownleader"]).toBe("true");
    expect(response.headers["x-svc-lastcontact"]).toBe("0");
    expect((await agent.put("/v1/jobs", { Job: job("leader-back") })).status).toBe(200);
  });
});

describe("the switch over HTTP", () => {
  it.each([
    ["an empty body", "", "Request body is empty"],
    ["text that is not JSON", "{", "the body is not JSON: "],
    ["a list", "[false]", 'the body must be an object such as {"KnownLeader": false}'],
    ["no KnownLeader", "{}", "KnownLeader must be true or false, got nothing"],
    ["KnownLeader as text", '{"KnownLeader": "false"}', 'KnownLeader must be true or false, got "false"'],
    ["another field", '{"KnownLeader": false, "Leader": ""}', 'unknown field "Leader": the body holds KnownLeader only'],
  ])("refuses %s with a 400 and leaves the leader as it was", async (_what, body, reason) => {
    const response = await agent.put("/_bexpr/leader", body);
    expect(response.status).toBe(400);
    expect(response.text.startsWith(reason), response.text).toBe(true);
    expect((await agent.get("/_bexpr/leader")).json()).toEqual({ KnownLeader: true });
  });

  it("refuses a programmatic value that is not a boolean", () => {
    expect(() => agent.agent.setLeader("false" as unknown as boolean)).toThrow(TypeError);
  });
});
