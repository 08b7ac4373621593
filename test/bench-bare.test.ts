/**
 * The agent benchmark's bare server (bench/bare.ts) sends what the agent sent, byte for byte but
 * the Date: the same head (framed as the agent framed it, with the same keep-alive timeout) and
 * body, so that the two servers' difference is the agent's work. It used to send every body in
 * chunks, with a keep-alive timeout of its own.
 */
import net from "node:net";
import { gunzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { record } from "../bench/agent.js";
import { bareServer } from "../bench/bare.js";
import { startAgent, type Agent } from "../src/server/index.js";

/**
 * One HTTP/1.1 answer to `path` from `port`: its raw bytes (the Date line taken out), its head, and
 * its body once unchunked and unzipped.
 */
function rawAnswer(port: number, path: string, headers = ""): Promise<{ raw: string; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: keep-alive\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = all.subarray(0, end).toString("latin1").replace(/\r\ndate: [^\r]*/i, "");
      const length = /\r\ncontent-length: (\d+)/i.exec(head);
      let body: Buffer | undefined;
      if (length !== null && all.length >= end + 4 + Number(length[1])) body = all.subarray(end + 4);
      if (/\r\ntransfer-encoding: chunked/i.test(head) && all.subarray(-5).toString("latin1") === "0\r\n\r\n") {
        const parts: Buffer[] = [];
        for (let at = end + 4; ; ) {
          const line = all.indexOf("\r\n", at);
          const size = Number.parseInt(all.subarray(at, line).toString("latin1"), 16);
          if (size === 0) break;
          parts.push(all.subarray(line + 2, line + 2 + size));
          at = line + 2 + size + 2;
        }
        body = Buffer.concat(parts);
      }
      if (body === undefined) return;
      socket.destroy();
      const decoded = /\r\ncontent-encoding: gzip/i.test(head) ? gunzipSync(body) : body;
      resolve({ raw: all.toString("latin1").replace(/\r\ndate: [^\r]*/i, ""), head, body: decoded.toString("utf8") });
    });
  });
}

describe("the bare server", () => {
  let agent: Agent;
  beforeAll(async () => {
    agent = await startAgent({ port: 0, logLevel: "silent" });
  });
  afterAll(() => agent.close());

  it.each([
    ["a page of jobs", "/v1/jobs?per_page=2", ""],
    ["the whole list", "/v1/jobs", ""],
    ["the list gzipped", "/v1/jobs", "Accept-Encoding: gzip\r\n"],
  ])("answers %s with the agent's bytes, the Date aside", async (_, path, headers) => {
    const gzip = headers !== "";
    const { recorded } = await record(agent.url, { path, ...(gzip ? { headers: { "accept-encoding": "gzip" } } : {}) });
    const server = bareServer([recorded]);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const bare = await rawAnswer((server.address() as AddressInfo).port, path, headers);
      const answered = await rawAnswer(agent.port, path, headers);
      expect(bare.head).toBe(answered.head);
      expect(bare.body).toBe(answered.body);
      // Framed by its length, the bytes are the same; a compressed stream's chunks may be cut elsewhere.
      if (!recorded.chunked) expect(bare.raw).toBe(answered.raw);
      expect(bare.head).toMatch(recorded.chunked === true ? /\r\ntransfer-encoding: chunked/i : /\r\ncontent-length: /i);
    } finally {
      server.close();
    }
  });
});
