import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { job, settled, useAgent } from "./support.js";

const agent = useAgent();

describe("responses", () => {
  it("answers an empty job list with [] and the meta headers, without a next token", async () => {
    const response = await agent.get("/v1/jobs");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json");
    expect(response.text).toBe("[]");
    expect(response.headers["x-svc-index"]).toMatch(/^[1-9][0-9]*$/);
    expect(response.headers["x-svc-knownleader"]).toBe("true");
    expect(response.headers["x-svc-lastcontact"]).toBe("0");
    expect(response.headers["x-svc-nexttoken"]).toBeUndefined();
  });

  it.each([
    ["GET", "/v1/jobs"],
    ["GET", "/v1/deployments"],
    ["GET", "/v1/agent/members"],
    ["GET", "/v1/metrics"],
    ["GET", "/v1/does-not-exist"],
    ["DELETE", "/v1/jobs"],
    ["GET", "/v1/jobs?stale=maybe"],
    ["PUT", "/v1/jobs"],
  ])("sends Vary: Accept-Encoding on %s %s", async (method, path) => {
    const plain = await agent.get(path, { method });
    const gzipped = await agent.get(path, { method, headers: { "accept-encoding": "gzip" } });
    expect(plain.headers.vary).toBe("Accept-Encoding");
    expect(gzipped.headers.vary).toBe("Accept-Encoding");
  });

  it("gzips a response for a client that accepts gzip, without Content-Length", async () => {
    await agent.register(job("gzip-me"));
    await settled(agent.url);
    const plain = await agent.get("/v1/jobs");
    const gzipped = await agent.get("/v1/jobs", { headers: { "accept-encoding": "gzip" } });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.headers["content-length"]).toBeUndefined();
    expect(gunzipSync(gzipped.raw).toString()).toBe(plain.text);
    expect(gzipped.raw.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it.each([["gzip;q=1.0"], ["deflate;q=0.1, gzip"], ["*"], ["br, gzip;q=0.5"]])("negotiates gzip from %j", async (acceptEncoding) => {
    const response = await agent.get("/v1/jobs", { headers: { "accept-encoding": acceptEncoding } });
    expect(response.headers["content-encoding"]).toBe("gzip");
  });

  it.each([["br"], ["identity"], ["gzip;q=0"], [""]])("does not compress for %j", async (acceptEncoding) => {
    const response = await agent.get("/v1/jobs", { headers: { "accept-encoding": acceptEncoding } });
    expect(response.headers["content-encoding"]).toBeUndefined();
    expect(response.text.startsWith("[")).toBe(true);
  });

  it("compresses errors and the empty 404 too (a valid empty gzip stream)", async () => {
    const missing = await agent.get("/v1/does-not-exist", { headers: { "accept-encoding": "gzip" } });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(missing.raw).toString()).toBe("");
    const error = await agent.get("/v1/jobs?stale=maybe", { headers: { "accept-encoding": "gzip" } });
    expect(error.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(error.raw).toString()).toBe("Expect `true` or `false` for `stale` query string parameter");
  });

  it.each([["/v1/jobs"], ["/v1/agent/members"]])("writes %s?pretty as JSON.stringify(value, null, 4) plus a newline", async (path) => {
    const compact = await agent.get(path);
    const pretty = await agent.get(`${path}?pretty`);
    // JSON.parse would round the int64 SubmitTime, so that one value is set aside on both sides.
    const bigValues = (text: string) => text.replace(/("SubmitTime": ?)\d+/g, "$10");
    expect(bigValues(pretty.text)).toBe(`${JSON.stringify(JSON.parse(bigValues(compact.text)), null, 4)}\n`);
    if (path === "/v1/jobs") expect(pretty.text).toMatch(/"SubmitTime": \d{19}/);
    expect(compact.text.endsWith("\n")).toBe(false);
  });

  it.each([["?pretty"], ["?pretty="], ["?pretty=1"], ["?pretty=true"], ["?pretty=false"], ["?pretty=no"]])("is pretty with %s", async (query) => {
    const response = await agent.get(`/v1/agent/members${query}`);
    expect(response.text.startsWith("{\n    ")).toBe(true);
    expect(response.text.endsWith("}\n")).toBe(true);
  });

  it("is compact only with ?pretty=0, without a trailing newline", async () => {
    const response = await agent.get("/v1/agent/members?pretty=0");
    expect(response.text.startsWith('{"ServerName"')).toBe(true);
    expect(response.text.endsWith("}")).toBe(true);
  });

  it("answers an unknown path with an empty 404 and no content type", async () => {
    for (const path of ["/v1/does-not-exist", "/v1/jobs/", "/v2/jobs", "/uix/"]) {
      const response = await agent.get(path);
      expect(response.status).toBe(404);
      expect(response.text).toBe("");
      expect(response.headers["content-type"]).toBeUndefined();
    }
  });

  it("redirects / to the UI, keeping the query", async () => {
    const response = await agent.get("/?region=global");
    expect(response.status).toBe(307);
    expect(response.headers.location).toBe("/ui/?region=global");
  });

  it.each([
    ["DELETE", "/v1/jobs"],
    ["PATCH", "/v1/jobs"],
    ["HEAD", "/v1/jobs"],
    ["OPTIONS", "/v1/jobs"],
    ["POST", "/v1/deployments"],
    ["PUT", "/v1/deployments"],
    ["POST", "/v1/metrics"],
    ["PUT", "/v1/agent/members"],
    ["DELETE", "/v1/agent/members"],
  ])("answers %s %s with 405 Invalid method", async (method, path) => {
    const response = await agent.get(path, { method });
    expect(response.status).toBe(405);
    if (method !== "HEAD") expect(response.text).toBe("Invalid method");
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.headers["x-svc-index"]).toBeUndefined();
  });

  it("ignores unknown query parameters", async () => {
    const response = await agent.get("/v1/jobs?bogus=1&also=2");
    expect(response.status).toBe(200);
  });

  it("sends errors as plain text without meta headers", async () => {
    const response = await agent.get("/v1/jobs?per_page=abc");
    expect(response.status).toBe(400);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.headers["x-svc-index"]).toBeUndefined();
    expect(response.headers["x-svc-knownleader"]).toBeUndefined();
  });
});

describe("members", () => {
  it("describes a cluster of one alive server, without meta headers, ignoring the region", async () => {
    const response = await agent.get("/v1/agent/members?region=mars");
    expect(response.status).toBe(200);
    expect(response.headers["x-svc-index"]).toBeUndefined();
    const body = response.json<{ ServerRegion: string; ServerDC: string; ServerName: string; Members: Record<string, unknown>[] }>();
    expect(body.ServerRegion).toBe("global");
    expect(body.ServerDC).toBe("dc1");
    expect(body.Members).toHaveLength(1);
    const [member] = body.Members;
    expect(member).toMatchObject({ Name: `${body.ServerName}.global`, Addr: "127.0.0.1", Port: 4648, Status: "alive" });
    expect(member!.Tags).toMatchObject({ role: "svc", region: "global", dc: "dc1", port: "4647", vsn: "1", raft_vsn: "3" });
    expect(Object.keys(member!)).toEqual(["Name", "Addr", "Port", "Tags", "Status", "ProtocolMin", "ProtocolMax", "ProtocolCur", "DelegateMin", "DelegateMax", "DelegateCur"]);
  });
});
