/**
 * The header styles: the spec's `X-Svc-*` (the default) and the reference's own `X-Nomad-*`
 * (`headers: "nomad"`, `--headers nomad`), in which HashiCorp Nomad's Go client, CLI and SDKs can
 * be tested against the agent unchanged. Every place that reads the token or writes the meta
 * headers follows the agent's style, and a style never reads nor writes the other's headers.
 * The expected names are spelt out here, as the reference names them, rather than taken from the
 * agent's own table.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request as undiciRequest } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOptions, runAgent } from "../../src/cli/agent.js";
import { UsageError } from "../../src/cli/terminal.js";
import { DEFAULT_OPTIONS, OptionsError, REDACTED, startAgent, type Agent, type AgentOptions, type HeaderStyle } from "../../src/server/index.js";
import { getJson } from "../../src/ui/api.js";
import { eventually, job, send, startTestAgent, type Response } from "./support.js";

const ROOT = "00000000-0000-4000-8000-00000000a001";
const READER = "00000000-0000-4000-8000-00000000a002";
const STRANGER = "00000000-0000-4000-8000-00000000a003";

/** The headers of one style, as the reference names them (HTTP header names are read in any case). */
interface Expected {
  readonly token: string;
  readonly index: string;
  readonly knownLeader: string;
  readonly lastContact: string;
  readonly nextToken: string;
  /** The prefix every header of the style starts with, lower-case. */
  readonly prefix: string;
}

const SVC: Expected = { token: "X-Svc-Token", index: "X-Svc-Index", knownLeader: "X-Svc-Knownleader", lastContact: "X-Svc-Lastcontact", nextToken: "X-Svc-Nexttoken", prefix: "x-svc-" };
const NOMAD: Expected = { token: "X-Nomad-Token", index: "X-Nomad-Index", knownLeader: "X-Nomad-Knownleader", lastContact: "X-Nomad-Lastcontact", nextToken: "X-Nomad-Nexttoken", prefix: "x-nomad-" };

/** Each style, with its headers and the other style's. */
const STYLES: [HeaderStyle, Expected, Expected][] = [
  ["svc", SVC, NOMAD],
  ["nomad", NOMAD, SVC],
];

/** A response header (undici gives them lower-case). */
const header = (response: Response, name: string) => response.headers[name.toLowerCase()];

/** The names of a response's headers that start with `prefix` (another style's, say). */
const headersStartingWith = (response: Response, prefix: string) => Object.keys(response.headers).filter((name) => name.startsWith(prefix));

/** The status of a GET of the event stream: the stream is left as soon as its status is in. */
async function streamStatus(url: string, headers: Record<string, string>): Promise<number> {
  const controller = new AbortController();
  const response = await undiciRequest(url, { headers, signal: controller.signal });
  controller.abort();
  await response.body.text().catch(() => "");
  return response.statusCode;
}

describe.each(STYLES)("the %s header style", (style, expected, other) => {
  let agent: Agent;
  const as = (token: string) => ({ [expected.token]: token });
  const get = (path: string, headers: Record<string, string> = as(READER)) => send(`${agent.url}${path}`, { headers });

  /**
   * Waits until the scheduler is done with the jobs of earlier tests (every evaluation processed,
   * on a shared store once this agent leads) and the jobs' index stays put, so that only the
   * test's own requests move it; resolves with that index.
   */
  async function quietIndex(): Promise<number> {
    let before = Number.NaN;
    return eventually(async () => {
      const evaluations = await get("/v1/evaluations", as(ROOT));
      const pending = evaluations.json<{ Status: string }[]>().some((evaluation) => evaluation.Status === "pending");
      const now = Number(header(await get("/v1/jobs"), expected.index));
      if (!pending && now === before) return now;
      before = now;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return undefined;
    }, 30_000);
  }

  beforeAll(async () => {
    agent = await startTestAgent({
      port: 0,
      demo: false,
      logLevel: "silent",
      placementDelayMs: 60_000,
      headers: style,
      acl: {
        enabled: true,
        bootstrapToken: ROOT,
        policies: [
          { Name: "default-read", Rules: 'namespace "default" { policy = "read" }' },
          { Name: "other-read", Rules: 'namespace "other" { policy = "read" }' },
        ],
        tokens: [
          { SecretID: READER, Name: "reader", Policies: ["default-read"] },
          { SecretID: STRANGER, Name: "stranger", Policies: ["other-read"] },
        ],
      },
    });
    for (const id of ["a", "b"]) {
      const response = await send(`${agent.url}/v1/jobs`, { method: "PUT", headers: as(ROOT), body: JSON.stringify({ Job: job(id) }) });
      expect(response.status, response.text).toBe(200);
    }
  });
  afterAll(async () => {
    await agent?.close();
  });

  it(`reads the token from ${expected.token} or Authorization: Bearer, never from ${other.token}`, async () => {
    expect((await get("/v1/jobs", as(READER))).status).toBe(200);
    expect((await get("/v1/jobs", { Authorization: `Bearer ${READER}` })).status).toBe(200);
    const refused = await get("/v1/jobs", { [other.token]: READER });
    expect([refused.status, refused.text]).toEqual([403, "Permission denied"]);
    // The style's header wins over Authorization, as the reference's parseToken has it.
    expect((await get("/v1/jobs", { ...as(STRANGER), Authorization: `Bearer ${READER}` })).status).toBe(403);
  });

  it(`answers a list with ${expected.index}, ${expected.knownLeader}, ${expected.lastContact} and ${expected.nextToken}, and no ${other.prefix}* header`, async () => {
    const page = await get("/v1/jobs?per_page=1");
    expect(page.status, page.text).toBe(200);
    expect(Number(header(page, expected.index))).toBeGreaterThan(0);
    expect(header(page, expected.knownLeader)).toBe("true");
    expect(header(page, expected.lastContact)).toBe("0");
    expect(header(page, expected.nextToken)).toBe("default.b");
    expect(headersStartingWith(page, other.prefix)).toEqual([]);
    const last = await get(`/v1/jobs?per_page=1&next_token=${header(page, expected.nextToken)}`);
    expect(last.json<{ ID: string }[]>().map((item) => item.ID)).toEqual(["b"]);
    expect(header(last, expected.nextToken)).toBeUndefined();
  });

  it(`answers a write with ${expected.index}, which the Go client's parseWriteMeta reads`, async () => {
    const response = await send(`${agent.url}/v1/jobs`, { method: "PUT", headers: as(ROOT), body: JSON.stringify({ Job: job("written") }) });
    expect(response.status, response.text).toBe(200);
    expect(Number(header(response, expected.index))).toBe(response.json<{ Index: number }>().Index);
    expect(headersStartingWith(response, other.prefix)).toEqual([]);
  });

  it(`answers a blocking query, once a write passes its index, with ${expected.index} above it`, async () => {
    const before = await quietIndex();
    // Blocking queries of earlier tests may still be waiting out their time: this one is one more.
    const parked = agent.blockingQueries;
    const waiting = get(`/v1/jobs?index=${before}&wait=10s`);
    await eventually(async () => (agent.blockingQueries > parked ? true : undefined));
    await send(`${agent.url}/v1/jobs`, { method: "PUT", headers: as(ROOT), body: JSON.stringify({ Job: job(`woken-${style}`) }) });
    const woken = await waiting;
    expect(woken.status, woken.text).toBe(200);
    expect(Number(header(woken, expected.index))).toBeGreaterThan(before);
    expect(header(woken, expected.knownLeader)).toBe("true");
    expect(header(woken, expected.lastContact)).toBe("0");
    expect(headersStartingWith(woken, other.prefix)).toEqual([]);
  });

  it(`answers an object read with ${expected.index}, ${expected.knownLeader} and ${expected.lastContact}`, async () => {
    const read = await get("/v1/job/a");
    expect(read.status, read.text).toBe(200);
    expect(Number(header(read, expected.index))).toBe(read.json<{ ModifyIndex: number }>().ModifyIndex);
    expect(header(read, expected.knownLeader)).toBe("true");
    expect(header(read, expected.lastContact)).toBe("0");
    expect(headersStartingWith(read, other.prefix)).toEqual([]);
  });

  it(`answers the 404 of a read with the read's meta headers, and a 400 with none of either style`, async () => {
    const missing = await get("/v1/job/nope");
    expect([missing.status, missing.text]).toEqual([404, "job not found"]);
    expect(Number(header(missing, expected.index))).toBeGreaterThan(0);
    expect(header(missing, expected.knownLeader)).toBe("true");
    expect(header(missing, expected.lastContact)).toBe("0");
    expect(headersStartingWith(missing, other.prefix)).toEqual([]);
    const malformed = await get("/v1/jobs?per_page=x");
    expect(malformed.status).toBe(400);
    expect([...headersStartingWith(malformed, "x-svc-"), ...headersStartingWith(malformed, "x-nomad-")]).toEqual([]);
  });

  it(`answers a repeated list with the same ${expected.prefix}* headers, and never another token's answer`, async () => {
    // A write between the two reads (the scheduler's, for the job an earlier test registered) would move the index.
    await quietIndex();
    const first = await get("/v1/jobs?prefix=a");
    const again = await get("/v1/jobs?prefix=a");
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    for (const name of [expected.index, expected.knownLeader, expected.lastContact]) expect(header(again, name)).toBe(header(first, name));
    expect(headersStartingWith(again, other.prefix)).toEqual([]);
    // The same URL with another token of the style: the lane keys its answers by the style's token header.
    expect((await get("/v1/jobs?prefix=a", as(STRANGER))).status).toBe(403);
    expect((await get("/v1/jobs?prefix=a", {})).status).toBe(403);
  });

  it(`answers a stale read while the leader is lost with ${expected.knownLeader}: false and the time since in ${expected.lastContact}`, async () => {
    agent.setLeader(false);
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const stale = await get("/v1/jobs?stale");
      expect(stale.status, stale.text).toBe(200);
      expect(header(stale, expected.knownLeader)).toBe("false");
      expect(Number(header(stale, expected.lastContact))).toBeGreaterThan(0);
      expect(headersStartingWith(stale, other.prefix)).toEqual([]);
    } finally {
      agent.setLeader(true);
    }
  });

  it(`lists its members with the role tag ${style === "nomad" ? "nomad, as the reference (its Go client's IsNomadServer takes no other)" : "svc"}`, async () => {
    const members = (await get("/v1/agent/members", as(ROOT))).json<{ Members: { Tags: Record<string, string> }[] }>().Members;
    expect(members.map((member) => member.Tags.role)).toEqual([style === "nomad" ? "nomad" : "svc"]);
  });

  it(`sends no ${other.prefix}* header on any answer`, async () => {
    const paths = ["/nowhere", "/", "/v1/status/leader", "/v1/regions", "/v1/agent/members", "/v1/metrics", "/v1/namespaces", "/v1/namespace/default", "/v1/acl/policies", "/v1/acl/token/self", "/v1/nodes", "/v1/allocations", "/v1/evaluations", "/v1/deployments", "/v1/job/a/summary", "/ui/"];
    for (const path of paths) {
      const response = await get(path, as(ROOT));
      expect(headersStartingWith(response, other.prefix), path).toEqual([]);
      expect(headersStartingWith(response, "x-bexpr-empty"), path).toEqual([]);
    }
    // Writes with empty answers too.
    const policy = { Name: "throwaway", Rules: 'namespace "x" { policy = "read" }' };
    const written = await send(`${agent.url}/v1/acl/policy/throwaway`, { method: "PUT", headers: as(ROOT), body: JSON.stringify(policy) });
    expect(written.status, written.text).toBe(200);
    expect(Number(header(written, expected.index))).toBeGreaterThan(0);
    const deleted = await send(`${agent.url}/v1/acl/policy/throwaway`, { method: "DELETE", headers: as(ROOT) });
    expect(deleted.status, deleted.text).toBe(200);
    for (const response of [written, deleted]) {
      expect(headersStartingWith(response, other.prefix)).toEqual([]);
      expect(headersStartingWith(response, "x-bexpr-empty")).toEqual([]);
    }
  });

  it(`checks the event stream's token from ${expected.token}`, async () => {
    expect(await streamStatus(`${agent.url}/v1/event/stream?topic=Job`, as(READER))).toBe(200);
    expect(await streamStatus(`${agent.url}/v1/event/stream?topic=Job`, { [other.token]: READER })).toBe(403);
    await eventually(async () => (agent.eventStreams === 0 ? true : undefined));
  });

  it(`checks the management token of the control routes and the web UI's explain in ${expected.token}`, async () => {
    expect((await get("/_bexpr/requests", as(ROOT))).status).toBe(200);
    expect((await get("/_bexpr/requests", { [other.token]: ROOT })).status).toBe(403);
    const explain = `/_bexpr/explain?list=jobs&namespace=default&id=a&filter=${encodeURIComponent('ID == "a"')}`;
    expect((await get(explain, as(READER))).status).toBe(200);
    expect((await get(explain, { [other.token]: READER })).status).toBe(403);
  });

  it(`keeps ${expected.token} out of the journal (and ${other.token}, a secret all the same), and takes the entry's Index from ${expected.index}`, async () => {
    const path = "/v1/jobs?prefix=b&journal";
    const response = await get(path, { ...as(READER), [other.token]: ROOT });
    const entry = await eventually(async () => agent.requests('Query.prefix == "b" and "journal" in Query')[0]);
    expect(entry.Headers[expected.token.toLowerCase()]).toBe(REDACTED);
    expect(entry.Headers[other.token.toLowerCase()]).toBe(REDACTED);
    expect(JSON.stringify(entry)).not.toContain(READER);
    expect(entry.Index).toBe(Number(header(response, expected.index)));
    expect(entry.Index).toBeGreaterThan(0);
  });

  it("serves the web UI's requests: its token as Authorization: Bearer, its blocking index from the style's header", async () => {
    const signal = new AbortController().signal;
    const { body, index } = await getJson(`${agent.url}/v1/jobs?prefix=a`, READER, signal);
    expect((body as { ID: string }[]).map((item) => item.ID)).toEqual(["a"]);
    expect(index).toBe(Number(header(await get("/v1/jobs?prefix=a"), expected.index)));
    expect(index).toBeGreaterThan(0);
  });
});

describe("the headers option", () => {
  it('is "svc" by default', () => {
    expect(DEFAULT_OPTIONS.headers).toBe("svc");
  });

  it.each([["consul"], ["Nomad"], ["X-Nomad"], [""], [true]])("refuses %j, naming the styles", async (value) => {
    const refused = startAgent({ port: 0, demo: false, logLevel: "silent", headers: value as AgentOptions["headers"] });
    await expect(refused).rejects.toBeInstanceOf(OptionsError);
    await expect(refused).rejects.toThrow(`invalid value for headers: ${JSON.stringify(value)}; expected "svc" (the spec's X-Svc-* headers) or "nomad" (the reference's X-Nomad-* headers)`);
  });
});

describe("bexpr agent --headers", () => {
  it("takes the style from --headers, over the config file's", async () => {
    expect(agentOptions(["--headers", "nomad"])).toMatchObject({ headers: "nomad" });
    expect(agentOptions(["--port", "0"])).not.toHaveProperty("headers");
    const directory = mkdtempSync(join(tmpdir(), "bexpr-headers-"));
    try {
      const config = join(directory, "agent.json");
      writeFileSync(config, JSON.stringify({ headers: "nomad" }));
      expect(agentOptions(["--config", config])).toMatchObject({ headers: "nomad" });
      expect(agentOptions(["--config", config, "--headers", "svc"])).toMatchObject({ headers: "svc" });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    const options = agentOptions(["--headers", "nomad", "--port", "0", "--no-demo", "--log-level", "silent"]);
    if (typeof options === "string") throw new Error(`unexpected ${options}`);
    const agent = await startAgent(options);
    try {
      const response = await send(`${agent.url}/v1/jobs`);
      expect(Number(response.headers["x-nomad-index"])).toBeGreaterThan(0);
      expect(headersStartingWith(response, "x-svc-")).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it("refuses another style with the option's message", async () => {
    const refused = runAgent(["--headers", "consul", "--port", "0", "--no-demo"], { stdout: process.stdout });
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow('invalid value for headers: "consul"; expected "svc" (the spec\'s X-Svc-* headers) or "nomad"');
  });
});
