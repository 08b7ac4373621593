/**
 * What a web page can make the agent do (issue 25, finding 4): requests whose Host is not one the
 * agent serves (DNS rebinding) get 421; writes from a page of another origin, or a page's writes
 * that are not JSON, get 403; clients that are not browsers (no Origin) are not affected. Every
 * request here is written on a raw socket, so the headers are exactly those shown.
 */
import { connect } from "node:net";
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { agentOptions } from "../../src/cli/agent.js";
import { BrowserGuard, isAllowedHostEntry, parseAllowedHosts, type AllowedHosts } from "../../src/server/control/browser-guard.js";
import { OptionsError, resolveOptions } from "../../src/server/options.js";
import type { Agent } from "../../src/server/index.js";
import { job, startTestAgent, useAgent } from "../agent/support.js";

interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  /** The header lines, in order; `PORT` in a value is the agent's port. No Host is sent unless given. */
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string;
  readonly version?: "1.0" | "1.1";
}

/** The body of a chunked response, decoded. */
function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", at);
    const size = parseInt(body.subarray(at, lineEnd).toString(), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Sends one request on its own connection, exactly as given (plus Content-Length for a body and Connection: close). */
function raw(port: number, request: RawRequest): Promise<RawResponse> {
  const { method = "GET", path = "/v1/jobs", headers = [], body, version = "1.1" } = request;
  const lines = headers.map(([name, value]) => `${name}: ${value.replaceAll("PORT", String(port))}\r\n`).join("");
  const length = body === undefined ? "" : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`${method} ${path} HTTP/${version}\r\n${lines}${length}Connection: close\r\n\r\n${body ?? ""}`));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const [statusLine, ...headerLines] = all.subarray(0, split).toString().split("\r\n");
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        parsed[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const rest = all.subarray(split + 4);
      resolve({ status: Number(statusLine!.split(" ")[1]), headers: parsed, body: (parsed["transfer-encoding"] === "chunked" ? unchunk(rest) : rest).toString() });
    });
  });
}

const FOREIGN = "http://attacker.example";
const JSON_TYPE = ["Content-Type", "application/json"] as const;
const OWN_HOST = ["Host", "127.0.0.1:PORT"] as const;
const OWN_ORIGIN = ["Origin", "http://127.0.0.1:PORT"] as const;
const FAULT = JSON.stringify({ path: "/v1/nowhere", status: 503 });

describe("the Host a request names", () => {
  const agent = useAgent();

  it.each([
    ["127.0.0.1:PORT", "the address it listens on"],
    ["127.0.0.1", "without the port"],
    ["127.8.9.10:4646", "127.0.0.0/8"],
    ["localhost:PORT", "localhost"],
    ["LOCALHOST", "in capitals"],
    ["localhost.:PORT", "with the final dot"],
    ["ui.localhost:PORT", "a subdomain of localhost"],
    ["[::1]:PORT", "IPv6 loopback"],
    ["[0:0:0:0:0:0:0:1]", "IPv6 loopback, spelled out"],
    ["10.1.2.3:8080", "any IPv4 address (a port forwarded or NATed to the agent; rebinding needs a name)"],
    ["[2001:db8::1]:4646", "any IPv6 address"],
  ])("answers Host: %s (%s)", async (host) => {
    const response = await raw(agent.agent.port, { headers: [["Host", host]] });
    expect([response.status, response.body]).toEqual([200, "[]"]);
  });

  it.each([
    ["attacker.example", "attacker.example"],
    ["attacker.example:PORT", "attacker.example"],
    ["ATTACKER.example.", "attacker.example"],
    ["localhost.attacker.example", "localhost.attacker.example"],
    ["127.0.0.1.nip.io:PORT", "127.0.0.1.nip.io"],
    ["agent", "agent"],
    ["2130706433", "2130706433"],
  ])("refuses Host: %s with 421, naming %s and --allowed-hosts", async (host, named) => {
    const response = await raw(agent.agent.port, { headers: [["Host", host]] });
    expect(response.status).toBe(421);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.body).toBe(
      `Blocked request: this agent does not answer to the host "${named}" (another name pointed at it is how a web page reaches it by DNS rebinding). ` +
        `To allow it, start the agent with --allowed-hosts ${named} (config key allowedHosts).`,
    );
  });

  it.each([["evil.example@127.0.0.1"], ["127.0.0.1/x"], ["[::1"], ["[attacker.example]:80"], ["a b"]])("refuses the malformed Host: %s with 421", async (host) => {
    const response = await raw(agent.agent.port, { headers: [["Host", host]] });
    expect(response.status).toBe(421);
    expect(response.body).toBe(`Blocked request: the Host header ${JSON.stringify(host)} is not a host name with an optional port`);
  });

  it("answers an HTTP/1.0 request without a Host, which no browser sends", async () => {
    const response = await raw(agent.agent.port, { version: "1.0" });
    expect([response.status, response.body]).toEqual([200, "[]"]);
  });

  it("refuses a repeated list request (which the lane answers before the router), and leaves refusals out of the journal", async () => {
    await agent.register(job("lane"));
    const path = "/v1/jobs?filter=ID%20%3D%3D%20%22lane%22";
    for (let i = 0; i < 3; i++) expect((await raw(agent.agent.port, { path, headers: [OWN_HOST] })).status).toBe(200);
    agent.agent.clearRequests();
    const rebound = await raw(agent.agent.port, { path, headers: [["Host", "attacker.example:PORT"]] });
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toContain('"lane"');
    expect(agent.agent.requests()).toEqual([]);
  });
});

describe("the finding's four requests: text/plain, a foreign Origin", () => {
  let agent: Agent;
  beforeAll(async () => {
    agent = await startTestAgent({ port: 0, demo: false, logLevel: "silent" });
  });
  afterAll(async () => {
    await agent?.close();
  });

  const attack = (host: string, method: string, path: string, body?: string, origin = FOREIGN, type = "text/plain") =>
    raw(agent.port, { method, path, headers: [["Host", host], ["Origin", origin], ["Content-Type", type]], ...(body === undefined ? {} : { body }) });

  const FOUR = [
    ["POST", "/_bexpr/faults", JSON.stringify({ status: 503, body: "owned" })],
    ["POST", "/_bexpr/reset", undefined],
    ["GET", "/_bexpr/requests", undefined],
    ["POST", "/v1/jobs", JSON.stringify({ Job: job("planted") })],
  ] as const;

  it.each(FOUR)("refuses %s %s through DNS rebinding (Host: attacker.example), as the finding sent it, with 421", async (method, path, body) => {
    agent.clearRequests();
    const response = await attack("attacker.example:PORT", method, path, body);
    expect(response.status).toBe(421);
    expect(agent.faults.list()).toEqual([]);
    expect(agent.requests()).toEqual([]);
  });

  it.each(FOUR)("refuses %s %s from a rebound page, same-origin in the browser's eyes and sending JSON, with 421", async (method, path, body) => {
    const response = await attack("attacker.example:PORT", method, path, body, "http://attacker.example:PORT", "application/json");
    expect(response.status).toBe(421);
    expect(agent.faults.list()).toEqual([]);
  });

  it.each([
    ["POST", "/_bexpr/faults", JSON.stringify({ status: 503, body: "owned" })],
    ["POST", "/_bexpr/reset", undefined],
    ["POST", "/v1/jobs", JSON.stringify({ Job: job("planted") })],
  ])("refuses %s %s from a page of another site (Host: 127.0.0.1) with 403", async (method, path, body) => {
    const response = await attack("127.0.0.1:PORT", method, path, body);
    expect(response.status).toBe(403);
    expect(response.body).toBe(
      `Blocked request: a web page of "${FOREIGN}" may not write to this agent; only the agent's own pages and those of its allowed hosts may. ` +
        "To allow it, start the agent with --allowed-hosts attacker.example (config key allowedHosts).",
    );
  });

  it("changes nothing: no fault, the jobs still there, none planted", async () => {
    const jobs = await raw(agent.port, { method: "PUT", path: "/v1/jobs", headers: [OWN_HOST], body: JSON.stringify({ Job: job("kept") }) });
    expect(jobs.status).toBe(200);
    for (const path of ["/_bexpr/faults", "/_bexpr/reset", "/v1/jobs"]) await attack("127.0.0.1:PORT", "POST", path, JSON.stringify({ Job: job("planted"), status: 503 }));
    expect(agent.faults.list()).toEqual([]);
    const listed = await raw(agent.port, { headers: [OWN_HOST] });
    expect((JSON.parse(listed.body) as { ID: string }[]).map((row) => row.ID)).toEqual(["kept"]);
  });

  it("answers a page's read, which it sends no CORS header for, so a page of another site cannot see it", async () => {
    const response = await raw(agent.port, { path: "/_bexpr/requests", headers: [OWN_HOST, ["Origin", FOREIGN]] });
    expect(response.status).toBe(200);
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("a write's Origin", () => {
  const agent = useAgent();

  it.each([
    ["none (curl, the Go client, Node's fetch)", 200, [OWN_HOST]],
    ["the agent's own (its /ui/)", 200, [OWN_HOST, OWN_ORIGIN]],
    ["the agent's own, by name", 200, [["Host", "localhost:PORT"], ["Origin", "http://localhost:PORT"]]],
    ["another site", 403, [OWN_HOST, ["Origin", FOREIGN]]],
    ["another site, on the agent's port", 403, [OWN_HOST, ["Origin", "http://attacker.example:PORT"]]],
    ["another local server (another port)", 403, [OWN_HOST, ["Origin", "http://127.0.0.1:3000"]]],
    ["another local name", 403, [OWN_HOST, ["Origin", "http://localhost:PORT"]]],
    ["hidden (null: sandboxed frames, data: and file: pages, no-referrer)", 403, [OWN_HOST, ["Origin", "null"]]],
    ["a browser extension's", 403, [OWN_HOST, ["Origin", "chrome-extension://abcdef"]]],
    ["not an origin", 403, [OWN_HOST, ["Origin", "127.0.0.1:PORT"]]],
  ] as const)("PUT /_bexpr/leader as JSON with Origin %s: %i", async (_name, status, headers) => {
    const response = await raw(agent.agent.port, { method: "PUT", path: "/_bexpr/leader", headers: [...headers, JSON_TYPE], body: JSON.stringify({ KnownLeader: true }) });
    expect(response.status).toBe(status);
  });

  it.each([
    ["POST", "/_bexpr/faults", FAULT],
    ["DELETE", "/_bexpr/faults", undefined],
    ["PUT", "/v1/jobs", JSON.stringify({ Job: job("from-a-page") })],
    ["DELETE", "/v1/job/from-a-page", undefined],
    ["OPTIONS", "/v1/jobs", undefined],
  ])("refuses %s %s from another site with 403, JSON or not", async (method, path, body) => {
    const response = await raw(agent.agent.port, { method, path, headers: [OWN_HOST, ["Origin", FOREIGN], JSON_TYPE], ...(body === undefined ? {} : { body }) });
    expect(response.status).toBe(403);
  });
});

describe("a write's Content-Type", () => {
  const agent = useAgent();

  it.each([
    ["application/json", 200],
    ["application/json; charset=utf-8", 200],
    ["text/plain", 403],
    ["Text/Plain ; charset=UTF-8", 403],
    ["application/x-www-form-urlencoded", 403],
    ["multipart/form-data; boundary=x", 403],
    ["none", 403],
  ])("from the agent's own page, POST /_bexpr/faults with Content-Type %s: %i", async (given, status) => {
    const type = given === "none" ? undefined : given;
    await agent.agent.faults.clear();
    const headers = [OWN_HOST, OWN_ORIGIN, ...(type === undefined ? [] : [["Content-Type", type] as const])];
    const response = await raw(agent.agent.port, { method: "POST", path: "/_bexpr/faults", headers, body: FAULT });
    expect(response.status).toBe(status);
    expect(agent.agent.faults.list()).toHaveLength(status === 200 ? 1 : 0);
    if (status === 403) {
      expect(response.body).toBe(
        "Blocked request: a write from a web page must be sent with Content-Type: application/json (the types a page of another site can send without the browser asking first are refused); " +
          `this one has ${type === undefined ? "none" : JSON.stringify(type)}`,
      );
    }
  });

  it("refuses a page's bodiless POST, which is as simple as a form", async () => {
    const response = await raw(agent.agent.port, { method: "POST", path: "/_bexpr/reset", headers: [OWN_HOST, OWN_ORIGIN] });
    expect(response.status).toBe(403);
  });

  it.each([
    ["text/plain;charset=UTF-8", "Node's fetch with a string body"],
    ["application/x-www-form-urlencoded", "curl -d"],
    ["none", "the Go client, undici's request"],
  ])("takes writes without an Origin whatever their Content-Type: %s (%s)", async (given) => {
    const type = given === "none" ? undefined : given;
    await agent.agent.faults.clear();
    const headers = [OWN_HOST, ...(type === undefined ? [] : [["Content-Type", type] as const])];
    expect((await raw(agent.agent.port, { method: "POST", path: "/_bexpr/faults", headers, body: FAULT })).status).toBe(200);
    const registered = await raw(agent.agent.port, { method: "PUT", path: "/v1/jobs", headers, body: JSON.stringify({ Job: job("client") }) });
    expect(registered.status).toBe(200);
    await agent.agent.faults.clear();
  });
});

describe("the web UI", () => {
  const agent = useAgent();

  it.each([["127.0.0.1:PORT"], ["localhost:PORT"]])("serves the page and what it reads at http://%s", async (host) => {
    // What Chromium sends for the page's own requests: the page, a list, an explanation (GETs, so no Origin).
    const browser = [["Host", host], ["Sec-Fetch-Site", "same-origin"], ["Sec-Fetch-Mode", "cors"], ["Accept", "*/*"]] as const;
    const page = await raw(agent.agent.port, { path: "/ui/", headers: [["Host", host], ["Sec-Fetch-Site", "none"], ["Sec-Fetch-Mode", "navigate"]] });
    expect([200, 503]).toContain(page.status);
    expect((await raw(agent.agent.port, { path: "/v1/jobs?namespace=*", headers: browser })).status).toBe(200);
    await agent.register(job("shown"));
    const explained = await raw(agent.agent.port, { path: "/_bexpr/explain?list=jobs&namespace=default&id=shown&filter=ID%20%3D%3D%20%22shown%22", headers: browser });
    expect([explained.status, JSON.parse(explained.body).matched]).toEqual([200, true]);
  });
});

describe("allowedHosts and --allowed-hosts", () => {
  let named: Agent;
  let any: Agent;
  beforeAll(async () => {
    named = await startTestAgent({ port: 0, demo: false, logLevel: "silent", ...(agentOptions(["--allowed-hosts", "agent.example,.corp.example"]) as object) });
    any = await startTestAgent({ port: 0, demo: false, logLevel: "silent", allowedHosts: true });
  });
  afterAll(async () => {
    await named?.close();
    await any?.close();
  });

  it.each([
    ["agent.example:PORT", 200],
    ["AGENT.example", 200],
    ["corp.example", 200],
    ["ci.corp.example:PORT", 200],
    ["a.b.corp.example", 200],
    ["badcorp.example", 421],
    ["agent.example.attacker.example", 421],
    ["localhost:PORT", 200],
  ])("with --allowed-hosts agent.example,.corp.example, Host: %s gets %i", async (host, status) => {
    expect((await raw(named.port, { headers: [["Host", host]] })).status).toBe(status);
  });

  it("takes a write from a page of an allowed host (behind a proxy that rewrites the Host)", async () => {
    const headers = [OWN_HOST, ["Origin", "https://ci.corp.example"], JSON_TYPE] as const;
    expect((await raw(named.port, { method: "PUT", path: "/_bexpr/leader", headers, body: JSON.stringify({ KnownLeader: true }) })).status).toBe(200);
  });

  it("with allowedHosts true answers any Host, but still takes no write from a page of another site", async () => {
    expect((await raw(any.port, { headers: [["Host", "anything.example:PORT"]] })).status).toBe(200);
    const write = await raw(any.port, { method: "PUT", path: "/_bexpr/leader", headers: [["Host", "anything.example"], ["Origin", FOREIGN], JSON_TYPE], body: JSON.stringify({ KnownLeader: true }) });
    expect(write.status).toBe(403);
    const proxied = await raw(any.port, { method: "PUT", path: "/_bexpr/leader", headers: [["Host", "anything.example"], ["Origin", "https://anything.example"], JSON_TYPE], body: JSON.stringify({ KnownLeader: true }) });
    expect(proxied.status).toBe(200);
  });

  it.each([
    [["--allowed-hosts", "agent.example"], ["agent.example"]],
    [["--allowed-hosts", "a.example, .b.example"], ["a.example", ".b.example"]],
    [["--allowed-hosts", "a.example", "--allowed-hosts", "b.example"], ["a.example", "b.example"]],
    [["--allowed-hosts", "*"], true],
    [["--allowed-hosts", "true"], true],
  ])("reads %j as %j", (args, allowedHosts) => {
    expect(agentOptions(args)).toMatchObject({ allowedHosts });
    expect(parseAllowedHosts(args.filter((arg) => arg !== "--allowed-hosts"))).toEqual(allowedHosts);
  });

  it.each([[["http://agent.example"]], [["agent.example:4646"]], [["*.example"]], [["agent/x"]], [[""]], ["agent.example"], [[7]]])("refuses allowedHosts %j", (allowedHosts) => {
    expect(() => resolveOptions({ allowedHosts: allowedHosts as AllowedHosts })).toThrow(OptionsError);
    expect(() => resolveOptions({ allowedHosts: allowedHosts as AllowedHosts })).toThrow(/invalid value for allowedHosts: .*; expected true, or a list of host names without scheme or port/);
  });

  it.each([["agent.example"], [".corp.example"], ["10.0.0.5"], ["::1"], ["[fd00::1]"], ["*"], ["agent_1"]])("accepts the entry %s", (entry) => {
    expect(isAllowedHostEntry(entry)).toBe(true);
  });
});

describe("the guard's table", () => {
  /** The refusal of a request with these headers, by its code. */
  const codeOf = (options: { bind?: string; allowedHosts?: AllowedHosts }, method: string, headers: Record<string, string>) =>
    new BrowserGuard({ bind: options.bind ?? "127.0.0.1", allowedHosts: options.allowedHosts ?? [] }).refusal({ method, headers } as unknown as IncomingMessage)?.code;

  it.each([
    [{ bind: "agent.internal" }, "agent.internal:4646", undefined],
    [{ bind: "Agent.Internal." }, "agent.internal", undefined],
    [{ bind: "agent.internal" }, "other.internal", "host_not_allowed"],
    [{ bind: "0.0.0.0" }, "192.168.1.20:4646", undefined],
    [{ bind: "::" }, "[fe80::1]:4646", undefined],
    [{ bind: "0.0.0.0" }, "mybox.lan", "host_not_allowed"],
    [{ allowedHosts: ["[fd00::1]"] }, "[fd00:0::1]", undefined],
    [{ allowedHosts: ["*"] }, "anything.example", undefined],
  ])("with %j, Host: %s gives %s", (options, host, code) => {
    expect(codeOf(options, "GET", { host })).toBe(code);
  });

  it.each([
    ["GET", { host: "127.0.0.1:4646", origin: FOREIGN }, undefined],
    ["HEAD", { host: "127.0.0.1:4646", origin: "null" }, undefined],
    ["PATCH", { host: "127.0.0.1:4646", origin: FOREIGN, "content-type": "application/json" }, "origin_not_allowed"],
    ["POST", { host: "agent.example", origin: "https://agent.example", "content-type": "application/json" }, "host_not_allowed"],
    ["POST", { host: "127.0.0.1", origin: "http://127.0.0.1", "content-type": "application/json" }, undefined],
    ["POST", { host: "127.0.0.1:80", origin: "http://127.0.0.1", "content-type": "application/json" }, undefined],
    ["POST", { host: "127.0.0.1", origin: "https://127.0.0.1", "content-type": "application/json" }, undefined],
    ["POST", { host: "127.0.0.1:443", origin: "http://127.0.0.1", "content-type": "application/json" }, "origin_not_allowed"],
    ["POST", { origin: "http://127.0.0.1", "content-type": "application/json" }, "origin_not_allowed"],
    ["POST", { host: "127.0.0.1", origin: "http://127.0.0.1", "content-type": "application/octet-stream" }, undefined],
    ["POST", { host: "127.0.0.1", origin: "http://127.0.0.1" }, "simple_content_type"],
  ])("%s with %j gives %s", (method, headers, code) => {
    expect(codeOf({}, method, headers)).toBe(code);
  });

  it("parses a Host once while it repeats (every request asks), and a new Host again", () => {
    const guard = new BrowserGuard({ bind: "127.0.0.1", allowedHosts: [] });
    const refusal = (host: string) => guard.refusal({ method: "GET", headers: { host } } as unknown as IncomingMessage)?.code;
    // The Host pattern (and isIPv4's) run through RegExp.prototype.exec: counted to show the parse is not repeated.
    const exec = vi.spyOn(RegExp.prototype, "exec");
    try {
      expect(refusal("localhost:4646")).toBeUndefined();
      const once = exec.mock.calls.length;
      expect(once).toBeGreaterThan(0);
      for (let i = 0; i < 10; i++) expect(refusal("localhost:4646")).toBeUndefined();
      expect(exec.mock.calls.length).toBe(once);
      // Another Host is parsed (and refused), and the first is parsed again after it.
      expect(refusal("attacker.example")).toBe("host_not_allowed");
      expect(refusal("localhost:4646")).toBeUndefined();
      expect(exec.mock.calls.length).toBeGreaterThan(once);
    } finally {
      exec.mockRestore();
    }
  });
});
