import { spawn } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "../../src/json.js";
import { MAX_BODY_BYTES } from "../../src/server/index.js";
import { runCli } from "../support/cli.js";
import { agentOptions } from "../../src/cli/agent.js";
import { send, useAgent } from "../agent/support.js";

/** A directory for this file's tests, removed after them. */
const temporaryDirectories: string[] = [];
afterAll(() => {
  for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
});
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "bexpr-"));
  temporaryDirectories.push(directory);
  return directory;
}

/** Polls `check` every 20 ms until it holds or `timeoutMs` passes. */
async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Starts `bexpr agent` with `args` (Node's own flags `nodeArgs`); resolves with the URL it prints, and a way to stop it. */
function startCli(
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<{ url: string; output: () => string; stop: () => Promise<{ code: number | null; output: string }> }> {
  const child = spawn(process.execPath, [...nodeArgs, "dist/cli.js", "agent", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  // "close", not "exit": the output is read to its end before the result is taken.
  const exited = new Promise<{ code: number | null; output: string }>((resolve) => child.on("close", (code) => resolve({ code, output })));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve({ url: match[1]!, output: () => output, stop: () => (child.kill("SIGTERM"), exited) });
    });
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(({ code }) => reject(new Error(`the agent exited with ${code}: ${output}`)));
  });
}

describe("bexpr agent", () => {
  it("starts with the demo data, prints its address, and stops cleanly on SIGTERM", async () => {
    const agent = await startCli(["--port", "0", "--log-level", "silent"]);
    const jobs = await send(`${agent.url}/v1/jobs?namespace=*`);
    expect(jobs.json<unknown[]>().length).toBeGreaterThan(3);
    const { code, output } = await agent.stop();
    expect(code).toBe(0);
    expect(output).toMatch(/demo data loaded/);
  });

  it("logs text for people, one line per event, and JSON when the config asks for it", async () => {
    const agent = await startCli(["--port", "0", "--log-level", "debug"]);
    expect((await send(`${agent.url}/v1/jobs`)).status).toBe(200);
    // The line is written once the answer has gone, which the client may see first.
    await until(() => agent.output().includes("request completed"), 10_000);
    const { output } = await agent.stop();
    const lines = output.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("{"))).toEqual([]);
    expect(lines.some((line) => /^\d\d:\d\d:\d\d\.\d{3} INFO incoming request req-\d+ GET \/v1\/jobs$/.test(line)), output).toBe(true);
    expect(lines.some((line) => /^\d\d:\d\d:\d\d\.\d{3} INFO request completed req-\d+ 200 in \d+\.\d ms$/.test(line)), output).toBe(true);
    // At the default level, only the command's own lines.
    const quiet = await startCli(["--port", "0"]);
    expect((await quiet.stop()).output).toMatch(/^bexpr agent listening on \S+ \([^)]*\)\nbexpr agent stopping\n$/);
    const directory = temporaryDirectory();
    const config = join(directory, "agent.json");
    writeFileSync(config, JSON.stringify({ logFormat: "json", logLevel: "debug" }));
    const json = await startCli(["--config", config, "--port", "0", "--no-demo"]);
    await send(`${json.url}/v1/jobs`);
    await until(() => json.output().includes("request completed"), 10_000);
    const logged = (await json.stop()).output.split("\n").filter((line) => line.startsWith("{"));
    expect(logged.map((line) => (JSON.parse(line) as { msg: string }).msg)).toContain("request completed");
  });

  it("compacts the heap when idle, unless node was started with the flag or its negation", async () => {
    const agent = await startCli(["--port", "0", "--no-demo"]);
    expect((await agent.stop()).output).toMatch(/^bexpr agent listening on \S+ \(region global, datacenter dc1, heap compacted when idle\)\n/);
    const refused = await startCli(["--port", "0", "--no-demo"], {}, ["--no-compact-on-every-full-gc"]);
    expect((await refused.stop()).output).toMatch(/^bexpr agent listening on \S+ \(region global, datacenter dc1\)\n/);
    const always = await startCli(["--port", "0", "--no-demo"], {}, ["--compact-on-every-full-gc"]);
    expect((await always.stop()).output).toMatch(/^bexpr agent listening on \S+ \(region global, datacenter dc1, heap compacted on full collections\)\n/);
  });

  it("takes options from a JSON config file, flags overriding it", async () => {
    const directory = temporaryDirectory();
    const config = join(directory, "agent.json");
    writeFileSync(config, JSON.stringify({ region: "eu", datacenter: "dc9", nodeName: "node-a", demo: true, logLevel: "silent", metrics: { prometheus: false } }));
    const agent = await startCli(["--config", config, "--port", "0", "--no-demo"]);
    const members = (await send(`${agent.url}/v1/agent/members`)).json<{ ServerRegion: string; ServerDC: string; ServerName: string }>();
    expect(members).toMatchObject({ ServerRegion: "eu", ServerDC: "dc9", ServerName: "node-a" });
    expect((await send(`${agent.url}/v1/jobs?namespace=*`)).text).toBe("[]");
    expect((await send(`${agent.url}/v1/jobs?region=global`)).status).toBe(500);
    expect((await send(`${agent.url}/v1/metrics?format=prometheus`)).status).toBe(415);
    await agent.stop();
  });

  it("runs on a manual clock with --clock manual, on --nodes client nodes", async () => {
    const agent = await startCli(["--port", "0", "--no-demo", "--log-level", "silent", "--clock", "manual", "--nodes", "5"]);
    const clock = (await send(`${agent.url}/_bexpr/clock`)).json<{ Kind: string; Now: string }>();
    expect(clock.Kind).toBe("manual");
    const moved = (await send(`${agent.url}/_bexpr/clock/advance`, { method: "POST", body: '{"By": "1h"}' })).json<{ Now: string }>();
    expect(Date.parse(moved.Now) - Date.parse(clock.Now)).toBe(3_600_000);
    expect((await send(`${agent.url}/v1/nodes`)).json<unknown[]>()).toHaveLength(5);
    await agent.stop();
  });

  it("enforces ACLs with --acl", async () => {
    const agent = await startCli(["--port", "0", "--acl", "--log-level", "silent"]);
    expect((await send(`${agent.url}/v1/jobs`)).status).toBe(403);
    expect((await send(`${agent.url}/v1/acl/bootstrap`, { method: "POST" })).status).toBe(200);
    const { output } = await agent.stop();
    expect(output).toMatch(/ACLs enforced/);
  });

  it.each([
    [["agent", "--port", "abc"], 2, '--port needs a whole number, got "abc"'],
    [["agent", "--bogus"], 2, "bexpr agent: unknown option --bogus\nrun 'bexpr agent --help' for usage\n"],
    [["agent", "--log-level", "loud"], 2, 'invalid value for logLevel: "loud"; expected one of fatal, error, warn, info, debug, trace, silent'],
    // A bad value of a flag is a usage error (it exited 1); the same value from the config file is the file's, 1.
    [["agent", "--port", "99999"], 2, "invalid value for port: 99999; expected a whole number from 0 to 65535 (0 picks a free port)"],
    [["agent", "--config", "test/fixtures/bad-port.json"], 1, "invalid value for port: 99999; expected a whole number from 0 to 65535 (0 picks a free port)"],
    [["agent", "--bind", "no-such-host.invalid", "--no-demo"], 1, "cannot listen on no-such-host.invalid port 4646: getaddrinfo "],
    [["agent", "--config", "/nonexistent.json"], 1, "cannot read config file /nonexistent.json"],
    [["agent", "--config", "test/fixtures/bad-metrics.json"], 1, "invalid value for metrics.intervalMs: 5"],
    [["frobnicate"], 2, 'unknown command "frobnicate"'],
    [["agent", "--store-schema", "staging"], 2, "--store-schema needs a PostgreSQL store: give --store postgres://…"],
    [["agent", "--store", "mysql://db/x"], 2, "invalid value for store: \"mysql://db/x\"; expected memory, a PostgreSQL URL"],
    // Port 1 on the loopback: nothing listens there, and the password is not repeated.
    [["agent", "--store", "postgres://bexpr:s3cret@127.0.0.1:1/bexpr", "--no-demo"], 1, "store: cannot open the state in PostgreSQL at postgres://bexpr:redacted@127.0.0.1:1/bexpr: "],
    [["agent", "--store", "postgres://127.0.0.1:1/bexpr", "--store-schema", "Bad-Name"], 1, 'store: the schema name "Bad-Name" must be a lower-case identifier'],
  ])("refuses %j with exit status %i", async (args, status, message) => {
    const { code, stderr } = await runCli(args);
    expect(code).toBe(status);
    expect(stderr).toContain(message);
    expect(stderr).not.toContain("s3cret");
  });

  it("says which port it cannot listen on, and what to do, when another process holds it", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const { code, stderr } = await runCli(["agent", "--port", String(port), "--no-demo"]);
      expect(code).toBe(1);
      expect(stderr).toContain(`cannot listen on 127.0.0.1 port ${port}: `);
      expect(stderr).toContain("(another process listens there: give another --port, or --port 0 for a free one)");
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("prints its usage and version", async () => {
    expect((await runCli(["agent", "--help"])).stdout).toMatch(/^Usage: bexpr agent/);
    expect((await runCli(["--help"])).stdout).toMatch(/^Usage: bexpr <command>/);
    expect((await runCli(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe("options from the environment (BEXPR_*)", () => {
  it.each([
    ["a value", { BEXPR_PORT: "0", BEXPR_NODE_NAME: "alpha", BEXPR_REGION: "eu" }, [], { port: 0, nodeName: "alpha", region: "eu" }],
    ["booleans", { BEXPR_DEMO: "false", BEXPR_ACL: "true", BEXPR_CONTROL: "0" }, [], { demo: false, acl: { enabled: true }, control: false }],
    ["a flag over its variable", { BEXPR_PORT: "4000", BEXPR_DEMO: "false" }, ["--port", "5000", "--demo"], { port: 5000, demo: true }],
    ["--no- over a true variable", { BEXPR_ACL: "true" }, ["--no-acl"], { acl: { enabled: false } }],
    ["a store and its schema", { BEXPR_STORE: "postgres://db/bexpr", BEXPR_STORE_SCHEMA: "staging" }, [], { store: { url: "postgres://db/bexpr", schema: "staging" } }],
    ["empty variables are not given", { BEXPR_PORT: "", BEXPR_DEMO: "" }, [], {}],
  ])("%s", (_name, env, args, expected) => {
    const options = agentOptions(args, env);
    expect(options).toMatchObject(expected);
    if (Object.keys(expected).length === 0) expect(options).toEqual({ logFormat: "text" });
  });

  it("refuses a boolean that is neither true nor false, naming the variable", () => {
    expect(() => agentOptions([], { BEXPR_DEMO: "yes" })).toThrow('BEXPR_DEMO must be true or false, got "yes"');
  });

  it("puts the environment between the config file and the flags", () => {
    const directory = temporaryDirectory();
    const config = join(directory, "agent.json");
    writeFileSync(config, JSON.stringify({ region: "file", datacenter: "file-dc", nodeName: "file-node" }));
    expect(agentOptions(["--node-name", "flag-node"], { BEXPR_CONFIG: config, BEXPR_DATACENTER: "env-dc", BEXPR_NODE_NAME: "env-node" })).toMatchObject({ region: "file", datacenter: "env-dc", nodeName: "flag-node" });
  });

  it("configures an agent started as a process", async () => {
    const agent = await startCli([], { BEXPR_PORT: "0", BEXPR_REGION: "eu", BEXPR_DEMO: "false", BEXPR_LOG_LEVEL: "silent" });
    expect((await send(`${agent.url}/v1/regions`)).json()).toEqual(["eu"]);
    expect((await send(`${agent.url}/v1/jobs?namespace=*`)).json()).toEqual([]);
    expect((await agent.stop()).code).toBe(0);
  });
});

describe("request bodies", () => {
  const agent = useAgent();

  it(`answers a body above ${MAX_BODY_BYTES} bytes with 413`, async () => {
    const response = await agent.put("/v1/jobs", `{"Job": {"ID": "${"x".repeat(MAX_BODY_BYTES)}"}}`);
    expect(response.status).toBe(413);
    expect(response.text).toBe(`Request body is larger than ${MAX_BODY_BYTES} bytes`);
  });
});

/**
 * JSON the agent reads besides job bodies (`--data` files, control bodies, named snapshots), in a
 * heap of a few times its size: read a character at a time (V8 then kept chains of one-character
 * pieces, about 32 bytes a character), a 62 MB snapshot kept 2.1 GB and eight control bodies of
 * 3.9 MB added up to 556 MB. The agent runs in a heap too small for that, so the old way ends in
 * V8's "heap out of memory".
 */
describe("JSON read by the agent", () => {
  const MiB = 2 ** 20;
  /** Node's options for a process whose heap is at most `mb` megabytes. */
  const heapOf = (mb: number) => ({ NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --max-old-space-size=${mb}` });
  interface Snapshot {
    Tables: { jobs: { Namespace: string; ID: string; Meta: Record<string, string> | null }[] };
  }

  /** The agent's snapshot (its text, from `GET /_bexpr/snapshots/<name>`), its first job's Meta given a string of `length` characters. */
  function withBlob(text: string, length: number): { text: string; job: { Namespace: string; ID: string } } {
    const snapshot = parseJson(text) as Snapshot;
    const job = snapshot.Tables.jobs[0]!;
    job.Meta = { ...job.Meta, blob: "x".repeat(length) };
    return { text: stringifyJson(snapshot), job };
  }

  /** The demo agent's snapshot, as `GET /_bexpr/snapshots/<name>` gives it. */
  async function demoSnapshot(url: string): Promise<string> {
    expect((await send(`${url}/_bexpr/snapshots/demo`, { method: "PUT" })).status).toBe(200);
    return (await send(`${url}/_bexpr/snapshots/demo`)).text;
  }

  it("starts from a --data snapshot holding a string of 32 MiB in a heap of 256 MB", async () => {
    const demo = await startCli(["--port", "0", "--log-level", "silent"]);
    const { text, job } = withBlob(await demoSnapshot(demo.url), 32 * MiB);
    await demo.stop();
    const file = join(temporaryDirectory(), "snapshot.json");
    writeFileSync(file, text);
    // Its integers beyond 2^53 (times in nanoseconds) are read exactly, as before.
    expect(text).toMatch(/"SubmitTime":\d{19}/);
    const agent = await startCli(["--port", "0", "--log-level", "silent", "--data", file], heapOf(256));
    const answer = await send(`${agent.url}/v1/job/${encodeURIComponent(job.ID)}?namespace=${job.Namespace}`);
    expect(answer.json<{ Meta: { blob: string } }>().Meta.blob).toHaveLength(32 * MiB);
    expect((await agent.stop()).code).toBe(0);
    // Two agents, a snapshot of 32 MiB written and read in a heap near its limit, where every full
    // collection compacts (src/cli/heap.ts): 18–22 s on a loaded 2-core machine.
  }, 60_000);

  it("keeps eight snapshots sent at once in bodies of 4 MiB, and restores one, in a heap of 128 MB", async () => {
    const agent = await startCli(["--port", "0", "--log-level", "silent"], heapOf(128));
    const base = await demoSnapshot(agent.url);
    const length = MAX_BODY_BYTES - base.length - 200;
    const { text, job } = withBlob(base, length);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    const names = Array.from({ length: 8 }, (_, k) => `large-${k}`);
    const kept = await Promise.all(names.map((name) => send(`${agent.url}/_bexpr/snapshots/${name}`, { method: "PUT", body: text })));
    expect(kept.map((response) => response.status)).toEqual(names.map(() => 200));
    expect((await send(`${agent.url}/_bexpr/snapshots/large-3/restore`, { method: "POST" })).status).toBe(200);
    const answer = await send(`${agent.url}/v1/job/${encodeURIComponent(job.ID)}?namespace=${job.Namespace}`);
    expect(answer.json<{ Meta: { blob: string } }>().Meta.blob).toHaveLength(length);
    expect((await agent.stop()).code).toBe(0);
  });
});
