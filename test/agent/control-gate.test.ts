/**
 * The gate of the control API: on by default on a loopback bind only, forced by the `control`
 * option (and `--control`/`--no-control`), 404 when off, a management token with ACLs on; and
 * which paths are control routes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOptions } from "../../src/cli/agent.js";
import { CONTROL_PREFIX, isControlPath, isLoopbackAddress } from "../../src/server/control/access.js";
import { CONTROL_PATHS } from "../../src/server/http/control-routes.js";
import { EXPLAIN_PATH } from "../../src/server/http/ui-routes.js";
import type { Agent } from "../../src/server/index.js";
import { resolveOptions } from "../../src/server/options.js";
import { send, startTestAgent, useAgent } from "./support.js";

const ROOT = "00000000-0000-4000-8000-00000000c001";
const READER = "00000000-0000-4000-8000-00000000c002";

/** One request to each control route, as a test suite would make it. */
const CONTROL_REQUESTS: readonly [string, string, string?][] = [
  ["GET", CONTROL_PATHS.requests],
  ["DELETE", CONTROL_PATHS.requests],
  ["GET", CONTROL_PATHS.faults],
  ["POST", CONTROL_PATHS.faults, JSON.stringify({ path: "/v1/jobs", status: 503 })],
  ["DELETE", CONTROL_PATHS.faults],
  ["GET", "/_bexpr/faults/f1"],
  ["GET", CONTROL_PATHS.leader],
  ["PUT", CONTROL_PATHS.leader, JSON.stringify({ KnownLeader: true })],
];

describe("which addresses are loopback", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["::1", true],
    ["[::1]", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.1", false],
    ["128.0.0.1", false],
    ["::2", false],
    ["::ffff:10.0.0.1", false],
    ["fe80::1%lo0", false],
    ["example.com", false],
    ["localhost.example.com", false],
  ])("%s is loopback: %s", (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });

  it.each([
    [{}, true],
    [{ bind: "::1" }, true],
    [{ bind: "0.0.0.0" }, false],
    [{ bind: "192.168.1.10" }, false],
    [{ bind: "0.0.0.0", control: true }, true],
    [{ bind: "127.0.0.1", control: false }, false],
  ])("resolves the control option of %j to %s", (options, control) => {
    expect(resolveOptions(options).control).toBe(control);
  });

  it("refuses a control option that is not a boolean", () => {
    expect(() => resolveOptions({ control: "yes" as unknown as boolean })).toThrow("invalid value for control: \"yes\"; expected true or false");
  });

  it("reads --control and --no-control", () => {
    expect(agentOptions(["--control"])).toMatchObject({ control: true });
    expect(agentOptions(["--no-control"])).toMatchObject({ control: false });
    expect(agentOptions([])).not.toHaveProperty("control");
  });
});

describe("which paths are control routes", () => {
  it("takes every path under the prefix but the UI's explain endpoint", () => {
    expect(CONTROL_PREFIX).toBe("/_bexpr/");
    for (const path of Object.values(CONTROL_PATHS)) expect(isControlPath(path), path).toBe(true);
    expect(isControlPath("/_bexpr/clock")).toBe(true);
    expect(isControlPath(EXPLAIN_PATH)).toBe(false);
    expect(isControlPath("/v1/jobs")).toBe(false);
    expect(isControlPath("/_bexpr")).toBe(false);
  });
});

describe("on a loopback bind, by default", () => {
  const agent = useAgent();

  it("is on", () => {
    expect(agent.agent.options.control).toBe(true);
  });

  it.each(CONTROL_REQUESTS)("answers %s %s", async (method, path, body) => {
    const response = await agent.get(path, { method, ...(body === undefined ? {} : { body }) });
    // f1 may not exist: a 404 with a reason, not the empty 404 of an unknown path.
    if (path.endsWith("/f1") && response.status === 404) expect(response.text).toBe('fault "f1" not found');
    else expect(response.status).toBe(200);
  });

  it("answers other methods 405, as every route", async () => {
    expect((await agent.get(CONTROL_PATHS.leader, { method: "POST", body: "{}" })).status).toBe(405);
    expect((await agent.get(CONTROL_PATHS.requests, { method: "PUT", body: "{}" })).status).toBe(405);
  });
});

describe("with control: false", () => {
  const agent = useAgent({ control: false });

  it.each(CONTROL_REQUESTS)("answers %s %s 404, as an unknown path", async (method, path, body) => {
    const response = await agent.get(path, { method, ...(body === undefined ? {} : { body }) });
    expect(response.status).toBe(404);
    expect(response.raw.length).toBe(0);
  });

  it("still serves the UI's explain endpoint", async () => {
    const response = await agent.get(`${EXPLAIN_PATH}?list=jobs&id=x&filter=${encodeURIComponent('ID == "x"')}`);
    expect(response.status).toBe(404);
    expect(response.text).toBe('job "x" not found in namespace "default"');
  });

  it("keeps the programmatic API", async () => {
    await agent.get("/v1/jobs");
    // A path is written in backticks: a quoted value that starts with "/" is a JSON pointer.
    expect(agent.agent.requests("Path == `/v1/jobs`")).toHaveLength(1);
    const id = agent.agent.faults.add({ path: "/v1/jobs", status: 503 });
    expect((await agent.get("/v1/jobs")).status).toBe(503);
    expect(agent.agent.faults.remove(id)).toBe(true);
  });
});

describe("on a bind that is not loopback", () => {
  let off: Agent;
  let forced: Agent;
  beforeAll(async () => {
    off = await startTestAgent({ bind: "0.0.0.0", port: 0, demo: false, logLevel: "silent" });
    forced = await startTestAgent({ bind: "0.0.0.0", port: 0, demo: false, logLevel: "silent", control: true });
  });
  afterAll(async () => {
    await off?.close();
    await forced?.close();
  });

  it("is off by default", async () => {
    expect(off.options.control).toBe(false);
    expect((await send(`http://127.0.0.1:${off.port}${CONTROL_PATHS.requests}`)).status).toBe(404);
  });

  it("is on when the control option forces it", async () => {
    expect(forced.options.control).toBe(true);
    expect((await send(`http://127.0.0.1:${forced.port}${CONTROL_PATHS.requests}`)).status).toBe(200);
  });
});

describe("with ACLs on", () => {
  const agent = useAgent({
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [{ Name: "read-all", Rules: 'namespace "*" { policy = "write" }\nnode { policy = "write" }\nagent { policy = "write" }\noperator { policy = "write" }' }],
      tokens: [{ SecretID: READER, Name: "writer everywhere", Policies: ["read-all"] }],
    },
  });

  it.each(CONTROL_REQUESTS)("refuses %s %s without a management token: 403 Permission denied", async (method, path, body) => {
    const callers: Record<string, string>[] = [{}, { "x-svc-token": READER }, { authorization: `Bearer ${READER}` }, { "x-svc-token": "00000000-0000-4000-8000-00000000dead" }];
    for (const headers of callers) {
      const response = await agent.get(path, { method, headers, ...(body === undefined ? {} : { body }) });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.text).toBe("Permission denied");
    }
  });

  it.each(CONTROL_REQUESTS)("answers %s %s with a management token", async (method, path, body) => {
    const response = await agent.get(path, { method, headers: { "x-svc-token": ROOT }, ...(body === undefined ? {} : { body }) });
    expect(response.status === 200 || (path.endsWith("/f1") && response.status === 404), `${response.status} ${response.text}`).toBe(true);
  });

  it("takes the token from Authorization: Bearer too", async () => {
    expect((await agent.get(CONTROL_PATHS.leader, { headers: { authorization: `Bearer ${ROOT}` } })).status).toBe(200);
  });
});
