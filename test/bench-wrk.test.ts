/**
 * The benchmark's load client (bench/wrk.ts): which wrk it finds, and what its Lua script counts,
 * against a node:http server in this process (the run is skipped, saying so, without wrk); and
 * how the agent's table (bench/agent.ts) flags a row and checks the answers' size.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientMayLimit, sizeAsRecorded } from "../bench/agent.js";
import { exitedChildrenCpuMs, processCpuMs, UndiciLoadClient, type LoadFigures } from "../bench/load.js";
import { createLoadClient, findWrk, WrkClient } from "../bench/wrk.js";

const directory = mkdtempSync(join(tmpdir(), "bexpr-bench-wrk-test-"));
const fakeWrk = join(directory, "wrk");
const notExecutable = join(directory, "not-executable");
writeFileSync(fakeWrk, "#!/bin/sh\n");
chmodSync(fakeWrk, 0o755);
writeFileSync(notExecutable, "");
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("findWrk", () => {
  it.each([
    ["WRK names an executable", { WRK: fakeWrk, PATH: "" }, fakeWrk],
    ["WRK is empty (the undici client forced), wrk on the PATH", { WRK: "", PATH: directory }, undefined],
    ["WRK names a file that is not executable", { WRK: notExecutable, PATH: directory }, undefined],
    ["WRK names nothing", { WRK: join(directory, "missing"), PATH: directory }, undefined],
    ["no WRK, wrk in a directory of the PATH", { PATH: ["/nonexistent", directory].join(delimiter) }, fakeWrk],
    ["no WRK, no wrk on the PATH", { PATH: "/nonexistent" }, undefined],
  ])("when %s: %s", (_, environment, found) => {
    expect(findWrk(environment)).toBe(found);
  });
});

describe("createLoadClient", () => {
  it("falls back to the undici client, labelled client-bound, without wrk", async () => {
    const previous = process.env["WRK"];
    process.env["WRK"] = "";
    try {
      const client = createLoadClient("http://127.0.0.1:1", 2);
      expect(client).toBeInstanceOf(UndiciLoadClient);
      expect(client.kind).toBe("undici (client-bound)");
      await client.close();
    } finally {
      if (previous === undefined) delete process.env["WRK"];
      else process.env["WRK"] = previous;
    }
  });
});

describe("the CPU times of /proc", () => {
  it("reads a process's CPU time, which grows while it computes", () => {
    const before = processCpuMs(process.pid);
    const start = process.cpuUsage();
    let spin = 0;
    // Computes until Node's own clock says 100 ms of CPU went by (at least 10 of /proc's 10 ms ticks).
    while (process.cpuUsage(start).user < 100_000) spin++;
    expect(spin).toBeGreaterThan(0);
    expect(processCpuMs(process.pid) - before).toBeGreaterThanOrEqual(50);
  });

  it.each([["no process ID", undefined], ["a process that does not exist", 2 ** 30]])("is NaN for %s", (_, pid) => {
    expect(processCpuMs(pid)).toBeNaN();
  });

  it("reads the exited children's CPU time as a number", () => {
    expect(exitedChildrenCpuMs()).toBeGreaterThanOrEqual(0);
  });
});

const wrk = findWrk();

describe.skipIf(wrk === undefined)("the wrk client (skipped without wrk)", () => {
  const seen = new Map<string, number>();
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = request.url ?? "";
      seen.set(url, (seen.get(url) ?? 0) + 1);
      if (url.startsWith("/missing")) response.writeHead(404).end("no");
      else response.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(1000));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends each request its own path, never one twice, and counts the answers the server gave", async () => {
    seen.clear();
    const client = new WrkClient(wrk!, origin, 4, 2);
    try {
      const figures = await client.run({ path: "/new/0", pathOf: (n) => `/new/${n}` }, { durationMs: 1000, warmupMs: 0, serverPid: process.pid });
      const answered = [...seen.values()].reduce((a, b) => a + b, 0);
      expect(figures.completed).toBeGreaterThan(0);
      expect([...seen.values()].every((times) => times === 1)).toBe(true);
      // The server counts the requests wrk sent; wrk those answered inside its window (a few under way at the end are not).
      expect(answered - figures.completed).toBeGreaterThanOrEqual(0);
      expect(answered - figures.completed).toBeLessThanOrEqual(4);
      expect(figures.repeatedPaths).toBe(0);
      expect(figures.non2xx).toBe(0);
      expect(figures.errors).toBe(0);
      expect(figures.clientCpuMs).toBeGreaterThan(0);
      expect(figures.serverCpuMs).toBeGreaterThanOrEqual(0);
      expect(figures.bytesWithHeaders).toBe(true);
      expect(figures.bodyBytes).toBeGreaterThan(1000);
      expect(figures.p99Ms).toBeGreaterThanOrEqual(figures.p50Ms);
    } finally {
      await client.close();
    }
  });

  it("counts the answers with an error status apart, and sends the request's headers", async () => {
    seen.clear();
    const client = new WrkClient(wrk!, origin, 2);
    try {
      const figures = await client.run({ path: "/missing", headers: { "accept-encoding": "gzip" } }, { durationMs: 1000, warmupMs: 0 });
      expect(figures.non2xx).toBeGreaterThan(0);
      expect(figures.completed).toBe(0);
      expect(figures.requestsPerSecond).toBe(0);
      expect(figures.serverCpuMs).toBeNaN();
    } finally {
      await client.close();
    }
  });
});

describe("the agent's table", () => {
  it.each([
    ["1.5 times the agent's rate", 1500, 1000, false],
    ["just short of 1.5 times", 1499, 1000, true],
    ["the agent's rate", 1000, 1000, true],
    ["no answer from either", 0, 0, true],
  ])("flags a row whose bare server answered %s: %s", (_, bare, agent, flagged) => {
    expect(clientMayLimit(bare, agent)).toBe(flagged);
  });

  const round = (bodyBytes: number, bytesWithHeaders: boolean, completed = 100): LoadFigures => ({
    client: bytesWithHeaders ? "wrk" : "undici (client-bound)",
    requestsPerSecond: completed,
    p50Ms: 1,
    p99Ms: 2,
    completed,
    non2xx: 0,
    errors: 0,
    bodyBytes,
    bytesWithHeaders,
    connections: 10,
    seconds: 1,
    clientCpuMs: 1,
    serverCpuMs: 1,
  });
  it.each([
    ["bodies of the recorded size (undici)", round(1000, false), true],
    ["a body of another size (undici)", round(999.6, false), true],
    ["bodies a byte short (undici)", round(998, false), false],
    ["headers and bodies (wrk)", round(1300, true), true],
    ["headers, bodies and the answers under way at the end (wrk)", round(((1000 + 2048) * 110) / 100, true), true],
    ["fewer bytes than the bodies (wrk)", round(999, true), false],
    ["more than headers, bodies and the answers under way (wrk)", round(((1000 + 2048) * 110) / 100 + 1, true), false],
    ["no answer", round(0, true, 0), true],
  ])("takes %s as the recorded size: %s", (_, figures, same) => {
    expect(sizeAsRecorded(figures, 1000)).toBe(same);
  });
});
