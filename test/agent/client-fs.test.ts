/**
 * An allocation's files and its tasks' logs (`/v1/client/fs/*`), as the reference's client serves
 * them, over the simulated allocation directory: what a task's `Meta` scripts (stdout and stderr
 * lines at given times, files under `local/`), the simulated client's own lines, the framed and
 * plain answers, `follow` on the manual clock until the task ends, the reference's errors, and
 * `read-logs`/`read-fs` in both header styles, over real sockets.
 */
import { request as undiciRequest } from "undici";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_TASK_LOG_BYTES } from "../../src/server/scheduler/alloc-dir.js";
import { eventually, job, send, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

/** A `StreamFrame` as the reference's JSON codec writes it. */
interface Frame {
  readonly Offset?: number;
  readonly Data?: string;
  readonly File?: string;
  readonly FileEvent?: string;
}

/** The frames of a body: JSON objects one after the other, with nothing between them (the reference's codec). */
function framesOf(text: string): Frame[] {
  const frames: Frame[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === "}") {
      depth -= 1;
      if (depth === 0) frames.push(JSON.parse(text.slice(start, index + 1)) as Frame);
    }
  }
  return frames;
}

/** The bytes the data frames carry, heartbeats left out. */
const dataOf = (frames: readonly Frame[]) => frames.map((frame) => Buffer.from(frame.Data ?? "", "base64").toString("utf8")).join("");

/** The task `app` scripts its output and a file; `side` scripts nothing; the allocation runs 20s. */
const SCRIPTED = {
  Name: "app",
  Driver: "mock",
  Meta: {
    "bexpr.stdout": "listening on :8080\n@5s GET / 200\n@10s GET /health 200\n@30s never written: the task ended at 20s\n",
    "bexpr.stderr": "@7s warning: slow request",
    "bexpr.file.local/app.conf": "port = 8080\n",
    "bexpr.file.local/conf.d/extra.json": '{"debug": true}',
    "bexpr.file.secrets/token": "s3cr3t",
    "bexpr.file.../../etc/passwd": "not written: outside the task's directories",
  },
};
const webJob = (id: string) => job(id, { Meta: { "bexpr.run_for": "20s" }, TaskGroups: [{ Name: "g", Count: 1, Tasks: [SCRIPTED, { Name: "side", Driver: "mock" }] }] });

/** The one allocation of a job, once it is in the state. */
async function allocationOf(agent: TestAgent, jobId: string, status: string, namespace = "default", token?: string): Promise<Item> {
  return eventually(async () => {
    const allocs = (await agent.get(`/v1/job/${jobId}/allocations?namespace=${namespace}`, token === undefined ? {} : { headers: { "x-svc-token": token } })).json<Item[]>();
    return allocs.find((alloc) => alloc.ClientStatus === status);
  });
}

describe("an allocation's files and logs", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  let alloc: Item;
  const fs = (path: string) => agent.get(`/v1/client/fs/${path.replace("<alloc>", alloc.ID)}`);

  beforeAll(async () => {
    await agent.register(webJob("web"));
    await allocationOf(agent, "web", "pending");
    await agent.agent.clock.advance("1s");
    alloc = await allocationOf(agent, "web", "running");
  });

  it("lays out the directory as the reference's client: alloc/{data,logs,tmp} and each task's local, secrets and tmp", async () => {
    const names = async (path: string) => (await fs(`ls/<alloc>?path=${encodeURIComponent(path)}`)).json<Item[]>().map((entry) => [entry.Name, entry.IsDir]);
    expect(await names("/")).toEqual([["alloc", true], ["app", true], ["side", true]]);
    expect(await names("alloc")).toEqual([["data", true], ["logs", true], ["tmp", true]]);
    expect(await names("/alloc/logs")).toEqual([["app.stderr.0", false], ["app.stdout.0", false], ["side.stderr.0", false], ["side.stdout.0", false]]);
    expect(await names("app")).toEqual([["local", true], ["secrets", true], ["tmp", true]]);
    expect(await names("app/local")).toEqual([["app.conf", false], ["conf.d", true]]);
    expect(await names("app/secrets")).toEqual([["token", false]]);
    // No path is the directory itself, as the reference's `/`.
    expect((await fs("ls/<alloc>")).json<Item[]>().map((entry) => entry.Name)).toEqual(["alloc", "app", "side"]);
  });

  it("answers stat with the reference's AllocFileInfo, its content type sniffed (.json by its name)", async () => {
    const conf = (await fs("stat/<alloc>?path=app/local/app.conf")).json<Item>();
    expect(conf).toEqual({ Name: "app.conf", IsDir: false, Size: 12, FileMode: "-rw-r--r--", ModTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), ContentType: "text/plain; charset=utf-8" });
    expect((await fs("stat/<alloc>?path=app/local/conf.d/extra.json")).json<Item>()).toMatchObject({ Size: 15, ContentType: "application/json" });
    expect((await fs("stat/<alloc>?path=alloc")).json<Item>()).toMatchObject({ Name: "alloc", IsDir: true, Size: 4096, FileMode: "drwxr-xr-x", ContentType: "application/octet-stream" });
    // The listing carries no content type, as the reference's.
    expect((await fs("ls/<alloc>?path=app/local")).json<Item[]>()[0]).not.toHaveProperty("ContentType");
  });

  it.each([
    ["cat/<alloc>?path=app/local/app.conf", "port = 8080\n"],
    ["cat/<alloc>?path=/app/./local/../local/app.conf", "port = 8080\n"],
    ["readat/<alloc>?path=app/local/app.conf&offset=7&limit=4", "8080"],
    ["readat/<alloc>?path=app/local/app.conf&offset=7&limit=0", "8080\n"],
    ["readat/<alloc>?path=app/local/app.conf&offset=100", ""],
  ])("reads %s as %j", async (path, expected) => {
    const response = await fs(path);
    expect(response.status, response.text).toBe(200);
    expect(response.text).toBe(expected);
  });

  it("sends a file's bytes as they are to a client that takes gzip (bytes that look like a zlib header included)", async () => {
    const response = await agent.get(`/v1/client/fs/readat/${alloc.ID}?path=app/local/app.conf&offset=7&limit=4`, { headers: { "accept-encoding": "gzip" } });
    expect([response.status, response.headers["content-encoding"], response.raw.toString("utf8")]).toEqual([200, undefined, "8080"]);
  });

  it("writes the scripted lines at their times after the task started, plain or framed", async () => {
    const plain = async (type: string) => (await fs(`logs/<alloc>?task=app&type=${type}&plain=true`)).text;
    expect(await plain("stdout")).toBe("listening on :8080\n");
    expect(await plain("stderr")).toBe("");
    await agent.agent.clock.advance("5s");
    expect(await plain("stdout")).toBe("listening on :8080\nGET / 200\n");
    await agent.agent.clock.advance("2s");
    expect(await plain("stderr")).toBe("warning: slow request\n");
    const framed = await fs("logs/<alloc>?task=app&type=stdout");
    expect(framed.headers["content-type"]).toBe("application/json");
    expect(framesOf(framed.text)).toEqual([{ Offset: 29, Data: Buffer.from("listening on :8080\nGET / 200\n").toString("base64"), File: "alloc/logs/app.stdout.0" }]);
  });

  it.each([
    ["origin=end&offset=4", "200\n"],
    ["origin=end&offset=1000", "listening on :8080\nGET / 200\n"],
    ["origin=start&offset=19", "GET / 200\n"],
    ["offset=-4", "200\n"],
    ["offset=1000", ""],
  ])("reads a log from %s as the reference's findClosest", async (query, expected) => {
    expect((await fs(`logs/<alloc>?task=app&type=stdout&plain=1&${query}`)).text).toBe(expected);
  });

  it("gives a task that scripts nothing the simulated client's line when it starts", async () => {
    expect((await fs("logs/<alloc>?task=side&type=stdout&plain=true")).text).toBe('[bexpr] task "side" started\n');
    expect((await fs("stat/<alloc>?path=alloc/logs/side.stdout.0")).json<Item>().Size).toBe(28);
  });

  it.each([
    ["ls/", 400, "must provide a valid alloc id"],
    ["bogus/<alloc>", 404, "Invalid method"],
    ["ls/00000000-0000-4000-8000-0000000000ff", 404, 'Unknown allocation "00000000-0000-4000-8000-0000000000ff"'],
    ["logs/00000000-0000-4000-8000-0000000000ff?task=app&type=stdout", 404, 'Unknown allocation "00000000-0000-4000-8000-0000000000ff"'],
    ["logs/<alloc>?type=stdout", 400, "must provide task name"],
    ["logs/<alloc>?task=app", 400, "must provide log type (stdout/stderr)"],
    ["logs/<alloc>?task=app&type=stdin", 400, "must provide log type (stdout/stderr)"],
    ["logs/<alloc>?task=app&type=stdout&origin=middle", 400, "origin must be start or end"],
    ["logs/<alloc>?task=app&type=stdout&follow=maybe", 400, 'failed to parse follow field to boolean: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ["logs/<alloc>?task=app&type=stdout&plain=yes", 400, 'failed to parse plain field to boolean: strconv.ParseBool: parsing "yes": invalid syntax'],
    ["logs/<alloc>?task=app&type=stdout&offset=0x10", 400, 'error parsing offset: strconv.ParseInt: parsing "0x10": invalid syntax'],
    ["logs/<alloc>?task=app&type=stdout&offset=99999999999999999999", 400, 'error parsing offset: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ["logs/<alloc>?task=nope&type=stdout", 400, 'unknown task name "nope"'],
    ["ls/<alloc>?path=../..", 400, "Path escapes the alloc directory"],
    ["stat/<alloc>?path=app/../../other", 400, "Path escapes the alloc directory"],
    ["cat/<alloc>?path=../../../../../../etc/passwd", 400, "Path escapes the alloc directory"],
    ["stat/<alloc>", 400, "must provide a file name"],
    ["cat/<alloc>", 400, "must provide a file name"],
    ["stat/<alloc>?path=app/local/nope", 404, "stat /opt/nomad/data/alloc/<alloc>/app/local/nope: no such file or directory"],
    ["ls/<alloc>?path=nope", 404, "open /opt/nomad/data/alloc/<alloc>/nope: no such file or directory"],
    ["ls/<alloc>?path=app/local/app.conf", 400, "readdirent /opt/nomad/data/alloc/<alloc>/app/local/app.conf: not a directory"],
    ["cat/<alloc>?path=nope", 400, "stat /opt/nomad/data/alloc/<alloc>/nope: no such file or directory"],
    ["cat/<alloc>?path=alloc", 400, 'file "alloc" is a directory'],
    ["cat/<alloc>?path=app/secrets/token", 403, "Reading secret file prohibited: app/secrets/token"],
    ["readat/<alloc>?path=app/local/app.conf", 400, 'error parsing offset: strconv.ParseInt: parsing "": invalid syntax'],
    ["readat/<alloc>?path=app/local/app.conf&offset=0&limit=ten", 400, 'error parsing limit: strconv.ParseInt: parsing "ten": invalid syntax'],
    ["readat/<alloc>?path=app/local/app.conf&offset=-1", 400, "can't seek to offset -1: seek /opt/nomad/data/alloc/<alloc>/app/local/app.conf: invalid argument"],
    ["stream/<alloc>?path=app/local/app.conf&origin=top", 400, "origin must be start or end"],
    ["stream/<alloc>?path=app/local/app.conf&follow=2", 400, 'failed to parse follow field to boolean: strconv.ParseBool: parsing "2": invalid syntax'],
  ])("answers %s with %i %s", async (path, status, text) => {
    const response = await fs(path);
    expect({ status: response.status, text: response.text }).toEqual({ status, text: text.replace("<alloc>", alloc.ID) });
  });

  it("answers 404 for the logs of a task that has not started", async () => {
    await agent.register(job("later"));
    const pending = await allocationOf(agent, "later", "pending");
    const response = await agent.get(`/v1/client/fs/logs/${pending.ID}?task=t&type=stdout`);
    expect({ status: response.status, text: response.text }).toEqual({ status: 404, text: 'task "t" not started yet. No logs available' });
    // Its directory is there, the logs empty.
    expect((await agent.get(`/v1/client/fs/stat/${pending.ID}?path=alloc/logs/t.stdout.0`)).json<Item>().Size).toBe(0);
  });

  it("streams a file in frames without following when asked", async () => {
    const response = await fs("stream/<alloc>?path=app/local/app.conf&follow=false&origin=end&offset=5");
    expect(framesOf(response.text)).toEqual([{ Offset: 12, Data: Buffer.from("8080\n").toString("base64"), File: "app/local/app.conf" }]);
  });
});

describe("following a task's log", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });

  /** Opens a followed log and collects what arrives, until it ends. */
  async function follow(path: string) {
    const response = await undiciRequest(`${agent.url}${path}`);
    let text = "";
    const ended = (async () => {
      for await (const chunk of response.body) text += (chunk as Buffer).toString("utf8");
    })();
    return { status: response.statusCode, headers: response.headers, text: () => text, ended };
  }

  it.each([
    ["framed", false],
    ["plain", true],
  ])("sends each line %s as the task writes it on the agent's clock, and ends when the task ends", async (_name, plain) => {
    const id = `follow-${plain ? "plain" : "framed"}`;
    await agent.register(webJob(id));
    await allocationOf(agent, id, "pending");
    await agent.agent.clock.advance("1s");
    const alloc = await allocationOf(agent, id, "running");
    const stream = await follow(`/v1/client/fs/logs/${alloc.ID}?task=app&type=stdout&follow=true&plain=${plain}`);
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toBe(plain ? "text/plain" : "application/json");
    const received = () => (plain ? stream.text() : dataOf(framesOf(stream.text())));
    await eventually(async () => (received() === "listening on :8080\n" ? true : undefined));
    await agent.agent.clock.advance("5s");
    await eventually(async () => (received() === "listening on :8080\nGET / 200\n" ? true : undefined));
    await agent.agent.clock.advance("5s");
    await eventually(async () => (received().endsWith("GET /health 200\n") ? true : undefined));
    // The task ends at 20s (bexpr.run_for): the stream ends with it, the 30s line never written.
    await agent.agent.clock.advance("15s");
    await stream.ended;
    expect(received()).toBe("listening on :8080\nGET / 200\nGET /health 200\n");
    if (!plain) {
      const frames = framesOf(stream.text());
      // Heartbeats (`{}`) came while nothing was written; each data frame's Offset is where its data ends.
      expect(frames.filter((frame) => frame.Data !== undefined).map((frame) => [frame.Offset, frame.File])).toEqual([
        [19, "alloc/logs/app.stdout.0"],
        [29, "alloc/logs/app.stdout.0"],
        [45, "alloc/logs/app.stdout.0"],
      ]);
      expect(frames.some((frame) => Object.keys(frame).length === 0)).toBe(true);
    }
    // The side task's log ends with the client's line for its end.
    expect((await agent.get(`/v1/client/fs/logs/${alloc.ID}?task=side&type=stdout&plain=true`)).text).toBe('[bexpr] task "side" started\n[bexpr] task "side" exited with code 0\n');
  });

  it("answers a followed log of a task that already ended with what it wrote, and ends", async () => {
    await agent.register(job("short", { Meta: { "bexpr.run_for": "2s", "bexpr.exit_code": "3" } }));
    await allocationOf(agent, "short", "pending");
    await agent.agent.clock.advance("4s");
    const alloc = await allocationOf(agent, "short", "failed");
    const stream = await follow(`/v1/client/fs/logs/${alloc.ID}?task=t&type=stderr&follow=true&plain=true`);
    await stream.ended;
    expect(stream.text()).toBe('[bexpr] task "t" exited with code 3\n');
  });

  it("writes the mock driver's stdout_string when the task starts, as the reference's TestFS_Logs reads it", async () => {
    const input = Array.from({ length: 80 * 1024 }, (_, line) => `${line}\n`).join("");
    await agent.register(job("TestFS_Logs", { Type: "batch", TaskGroups: [{ Name: "TestFS_LogsGroup", Tasks: [{ Name: "logger", Driver: "mock", Config: { stdout_string: input } }] }] }));
    await allocationOf(agent, "TestFS_Logs", "pending");
    await agent.agent.clock.advance("3s");
    const alloc = await allocationOf(agent, "TestFS_Logs", "complete");
    for (let read = 0; read < 3; read += 1) {
      const frames = framesOf((await agent.get(`/v1/client/fs/logs/${alloc.ID}?task=logger&type=stdout&origin=start&offset=0&follow=false`)).text);
      expect(dataOf(frames)).toBe(input);
      // In frames of at most 64 KiB, each Offset where its data ends.
      expect(frames.map((frame) => frame.Offset)).toEqual(Array.from({ length: Math.ceil(input.length / 65536) }, (_, index) => Math.min((index + 1) * 65536, input.length)));
    }
  });

  it(`keeps at most ${MAX_TASK_LOG_BYTES} bytes of a log`, async () => {
    const line = "x".repeat(1023);
    const script = Array.from({ length: 1100 }, () => line).join("\n");
    await agent.register(job("chatty", { TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "mock", Meta: { "bexpr.stdout": script } }] }] }));
    await allocationOf(agent, "chatty", "pending");
    await agent.agent.clock.advance("1s");
    const alloc = await allocationOf(agent, "chatty", "running");
    const log = await agent.get(`/v1/client/fs/logs/${alloc.ID}?task=t&type=stdout&plain=true`);
    expect(log.text.length).toBe(MAX_TASK_LOG_BYTES);
    expect((await agent.get(`/v1/client/fs/stat/${alloc.ID}?path=alloc/logs/t.stdout.0`)).json<Item>().Size).toBe(MAX_TASK_LOG_BYTES);
  });
});

describe.each(["svc", "nomad"] as const)("read-logs and read-fs with the %s header style", (style) => {
  const ROOT = "00000000-0000-4000-8000-0000000000b0";
  const LOGS = "00000000-0000-4000-8000-0000000000b1";
  const FS = "00000000-0000-4000-8000-0000000000b2";
  const READ = "00000000-0000-4000-8000-0000000000b3";
  const OTHER = "00000000-0000-4000-8000-0000000000b4";
  const agent = useAgent({
    clock: "manual",
    placementDelayMs: 1000,
    nodes: 1,
    headers: style,
    namespaces: [{ Name: "a" }, { Name: "b" }],
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "logs", Rules: 'namespace "a" { capabilities = ["read-logs"] }' },
        { Name: "fs", Rules: 'namespace "a" { capabilities = ["read-fs"] }' },
        { Name: "read", Rules: 'namespace "a" { policy = "read" }' },
        { Name: "other", Rules: 'namespace "b" { policy = "write" }' },
      ],
      tokens: [
        { SecretID: LOGS, Name: "logs", Type: "client", Policies: ["logs"] },
        { SecretID: FS, Name: "fs", Type: "client", Policies: ["fs"] },
        { SecretID: READ, Name: "read", Type: "client", Policies: ["read"] },
        { SecretID: OTHER, Name: "other", Type: "client", Policies: ["other"] },
      ],
    },
  });
  const tokenHeader = style === "nomad" ? "x-nomad-token" : "x-svc-token";
  let allocId = "";

  beforeAll(async () => {
    const registered = await send(`${agent.url}/v1/jobs?namespace=a`, { method: "PUT", headers: { [tokenHeader]: ROOT }, body: JSON.stringify({ Job: job("acl") }) });
    expect(registered.status, registered.text).toBe(200);
    await agent.agent.clock.advance("1s");
    allocId = (
      await eventually(async () => {
        const allocs = (await send(`${agent.url}/v1/job/acl/allocations?namespace=a`, { headers: { [tokenHeader]: ROOT } })).json<Item[]>();
        return allocs.find((alloc) => alloc.ClientStatus === "running");
      })
    ).ID;
  });

  it.each([
    ["read-logs", "logs", 200, LOGS],
    ["read-logs", "ls", 403, LOGS],
    ["read-logs", "cat", 403, LOGS],
    ["read-fs", "logs", 200, FS],
    ["read-fs", "ls", 200, FS],
    ["read-fs", "cat", 200, FS],
    ["read-fs", "stat", 200, FS],
    ["the read policy", "logs", 403, READ],
    ["the read policy", "stat", 403, READ],
    ["write in another namespace", "logs", 403, OTHER],
    ["write in another namespace", "ls", 403, OTHER],
    ["no token", "logs", 403, ""],
  ])("a token with %s gets %s: %i", async (_name, route, status, token) => {
    const query = { logs: "task=t&type=stdout&plain=true", ls: "path=/", cat: "path=alloc/logs/t.stdout.0", stat: "path=alloc" }[route];
    const response = await send(`${agent.url}/v1/client/fs/${route}/${allocId}?${query}`, { headers: token === "" ? {} : { [tokenHeader]: token } });
    expect(response.status, response.text).toBe(status);
    if (status === 403) expect(response.text).toBe("Permission denied");
    if (route === "logs" && status === 200) expect(response.text).toBe('[bexpr] task "t" started\n');
  });
});
