/**
 * `GET /v1/event/stream` over real sockets (on the agent's own store and on PostgreSQL), and the
 * event buffer's bounds on a store of its own.
 */
import { get, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { AccessControl } from "../../src/server/domain/acl.js";
import {
  EVENT_BUFFER_WRITES,
  EVENT_STREAMS_MAX,
  EventBroker,
  SUBSCRIPTION_CLOSED,
  TOKEN_EXPIRED,
  parseEventTopics,
  type EventBrokerOptions,
  type EventSink,
} from "../../src/server/domain/events.js";
import { CLOSE_GRACE_MS, startAgent, type Agent } from "../../src/server/index.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import type { Job, Node } from "../../src/server/state/model.js";
import { namespacedKey } from "../../src/server/state/store.js";
import { eventually, job, ON_POSTGRES, send, settled, startTestAgent, testStore, useAgent } from "./support.js";

interface StreamEvent {
  Topic: string;
  Type: string;
  Key: string;
  Namespace: string;
  FilterKeys: string[] | null;
  Index: number;
  Payload: Record<string, Record<string, unknown>>;
}

interface Frame {
  Index: number;
  Events: StreamEvent[];
}

/** An open `GET /v1/event/stream`: the lines as they arrive. */
interface Stream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Every complete line so far (heartbeats `{}` included). */
  readonly lines: string[];
  /** The frames so far (lines with an `Index`). */
  frames(): Frame[];
  /** Resolves with the frames once `done` holds for them (rejects after `timeoutMs`). */
  until(done: (frames: Frame[]) => boolean, timeoutMs?: number): Promise<Frame[]>;
  /** Resolves when the response ends: true when it ended cleanly, false when the connection broke. */
  readonly ended: Promise<boolean>;
  /** The whole body so far, as text. */
  body(): string;
  /** Goes away. */
  close(): void;
}

/** Opens a stream (or any request) and resolves once the status and headers are in. */
function openStream(url: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers, agent: false }, (response) => {
      response.setEncoding("utf8");
      let text = "";
      const lines: string[] = [];
      let partial = "";
      const listeners = new Set<() => void>();
      response.on("data", (chunk: string) => {
        text += chunk;
        const parts = (partial + chunk).split("\n");
        partial = parts.pop()!;
        lines.push(...parts);
        for (const listener of listeners) listener();
      });
      const ended = new Promise<boolean>((done) => {
        response.on("end", () => done(true));
        response.on("aborted", () => done(false));
        response.on("error", () => done(false));
        request.on("error", () => done(false));
      });
      const frames = () => lines.filter((line) => line.startsWith('{"Index"')).map((line) => parseJson(line) as Frame);
      resolve({
        status: response.statusCode!,
        headers: response.headers,
        lines,
        frames,
        body: () => text,
        ended,
        close: () => request.destroy(),
        until: (done, timeoutMs = 10_000) =>
          new Promise((resolveFrames, rejectFrames) => {
            const check = () => {
              const current = frames();
              if (!done(current)) return;
              listeners.delete(check);
              clearTimeout(timer);
              resolveFrames(current);
            };
            const timer = setTimeout(() => {
              listeners.delete(check);
              rejectFrames(new Error(`the stream did not deliver what was awaited in ${timeoutMs} ms; lines: ${lines.join("\n").slice(0, 2000)}`));
            }, timeoutMs);
            listeners.add(check);
            check();
          }),
      });
    });
    request.on("error", reject);
  });
}

/** Opens a stream and waits for its first heartbeat (it is then subscribed). */
async function subscribe(url: string, headers: Record<string, string> = {}): Promise<Stream> {
  const stream = await openStream(url, headers);
  expect(stream.status, stream.body()).toBe(200);
  await eventually(async () => (stream.lines.length > 0 ? true : undefined));
  expect(stream.lines[0]).toBe("{}");
  return stream;
}

const events = (frames: Frame[]) => frames.flatMap((frame) => frame.Events);
const hasEvent = (topic: string, key: string) => (frames: Frame[]) => events(frames).some((event) => event.Topic === topic && event.Key === key);
const hasDeploymentOf = (jobId: string) => (frames: Frame[]) => events(frames).some((event) => event.Topic === "Deployment" && event.Payload.Deployment!.JobID === jobId);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const agent = useAgent({ placementDelayMs: 60_000, eventHeartbeatMs: 200, namespaces: [{ Name: "a" }, { Name: "b" }] });

describe("GET /v1/event/stream", () => {
  it("streams a registration's events in index order: the job and its evaluation, then the scheduler's plan (allocations and deployment), then its evaluation", async () => {
    const stream = await subscribe(`${agent.url}/v1/event/stream`);
    expect(stream.headers["content-type"]).toBe("application/json");
    expect(stream.headers["content-encoding"]).toBeUndefined();
    const registered = await agent.register(job("web", { TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    const completed = (frames: Frame[]) => events(frames).some((event) => event.Key === registered.EvalID && event.Payload.Evaluation!.Status === "complete");
    const frames = (await stream.until(completed)).filter((frame) => frame.Index >= registered.Index);
    stream.close();

    const indexes = frames.map((frame) => frame.Index);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(new Set(indexes).size).toBe(indexes.length);
    for (const frame of frames) for (const event of frame.Events) expect(event.Index).toBe(frame.Index);

    const [first, second, third] = frames;
    expect(first!.Index).toBe(registered.Index);
    expect(first!.Events.map((event) => [event.Topic, event.Type, event.Key, event.Namespace, event.FilterKeys])).toEqual([
      // One type per write, the registration's (the reference's MsgTypeEvents): its evaluation too.
      ["Job", "JobRegistered", "web", "default", null],
      ["Evaluation", "JobRegistered", registered.EvalID, "default", ["web", ""]],
    ]);
    expect(first!.Events[0]!.Payload.Job).toMatchObject({ ID: "web", Status: "pending", Version: 0, JobModifyIndex: registered.Index });
    expect(first!.Events[1]!.Payload.Evaluation).toMatchObject({ ID: registered.EvalID, JobID: "web", Status: "pending" });

    // The scheduler's plan, one write: the job running, two allocations, the deployment; topics in a fixed order.
    const deployment = second!.Events.find((event) => event.Topic === "Deployment")!;
    expect(second!.Events.map((event) => event.Topic)).toEqual(["Job", "Allocation", "Allocation", "Deployment"]);
    expect(second!.Events.map((event) => event.Type)).toEqual(["PlanResult", "PlanResult", "PlanResult", "PlanResult"]);
    expect(second!.Events[0]!.Payload.Job).toMatchObject({ ID: "web", Status: "running" });
    // Then the evaluation complete, a write of its own, as the reference's worker writes it after the plan.
    expect(third!.Index).toBe(second!.Index + 1);
    expect(third!.Events.map((event) => [event.Topic, event.Type, event.FilterKeys])).toEqual([["Evaluation", "EvaluationUpdated", ["web", deployment.Key]]]);
    expect(third!.Events[0]!.Payload.Evaluation).toMatchObject({ ID: registered.EvalID, Status: "complete", DeploymentID: deployment.Key });
    for (const alloc of second!.Events.filter((event) => event.Topic === "Allocation")) {
      expect(alloc.FilterKeys).toEqual(["web", deployment.Key]);
      expect(alloc.Payload.Allocation).toMatchObject({ JobID: "web", DeploymentID: deployment.Key, ID: alloc.Key });
    }
    expect(deployment.FilterKeys).toEqual(["web"]);
    expect(deployment.Payload.Deployment).toMatchObject({ ID: deployment.Key, JobID: "web", Status: "running" });

    // Rows as stored, nanosecond times as exact JSON integers.
    expect(typeof first!.Events[0]!.Payload.Job!.SubmitTime).toBe("bigint");
    expect(stream.lines.find((line) => line.includes('"SubmitTime"'))).toMatch(/"SubmitTime":\d{19}[,}]/);
  });

  it("resumes from index at the frame of that index, as the reference's StartAtClosest: that frame and the ones after it", async () => {
    const live = await subscribe(`${agent.url}/v1/event/stream`);
    const registered = await agent.register(job("resumed"));
    await live.until(hasDeploymentOf("resumed"));
    await settled(agent.url);
    await pause(100);
    live.close();
    const frameLines = (stream: { lines: string[] }) => stream.lines.filter((line) => line.startsWith('{"Index"'));
    const from = frameLines(live).filter((line) => (parseJson(line) as Frame).Index >= registered.Index);
    // The registration's own frame, then the scheduler's.
    expect((parseJson(from[0]!) as Frame).Index).toBe(registered.Index);
    expect(from.length).toBeGreaterThan(1);

    const resumed = await subscribe(`${agent.url}/v1/event/stream?index=${registered.Index}`);
    const last = (parseJson(from.at(-1)!) as Frame).Index;
    await resumed.until((frames) => frames.some((frame) => frame.Index >= last));
    await pause(300);
    resumed.close();
    // Byte for byte the frames the live stream had from that index on, and nothing else.
    expect(frameLines(resumed)).toEqual(from);
  });

  it("starts with new writes only when no index is given, and replays what is buffered from index=0", async () => {
    await agent.register(job("before-subscribing"));
    await settled(agent.url);
    const current = Number((await agent.get("/v1/jobs")).headers["x-svc-index"]);
    const live = await subscribe(`${agent.url}/v1/event/stream?topic=Job`);
    const replay = await subscribe(`${agent.url}/v1/event/stream?topic=Job&index=0`);
    const old = await replay.until(hasEvent("Job", "before-subscribing"));
    await agent.register(job("after-subscribing"));
    const fresh = await live.until(hasEvent("Job", "after-subscribing"));
    live.close();
    replay.close();
    expect(old[0]!.Index).toBeLessThan(current);
    expect(fresh.every((frame) => frame.Index > current)).toBe(true);
    expect(events(fresh).some((event) => event.Key === "before-subscribing")).toBe(false);
  });

  it("selects topics and keys: a job's ID, and a key an allocation carries among its FilterKeys", async () => {
    const stream = await subscribe(`${agent.url}/v1/event/stream?topic=Job:alpha&topic=Allocation:beta&topic=Job:sentinel-1`);
    await agent.register(job("alpha"));
    await agent.register(job("beta"));
    await settled(agent.url);
    await agent.register(job("sentinel-1"));
    const frames = await stream.until(hasEvent("Job", "sentinel-1"));
    stream.close();
    const selected = events(frames).filter((event) => event.Key !== "sentinel-1");
    expect(new Set(selected.map((event) => event.Topic))).toEqual(new Set(["Job", "Allocation"]));
    expect(selected.filter((event) => event.Topic === "Job").every((event) => event.Key === "alpha")).toBe(true);
    const allocations = selected.filter((event) => event.Topic === "Allocation");
    expect(allocations.length).toBeGreaterThan(0);
    expect(allocations.every((event) => event.FilterKeys![0] === "beta" && event.Payload.Allocation!.JobID === "beta")).toBe(true);
  });

  it("selects every key of a topic with Topic or Topic:*, and every topic without a topic parameter", async () => {
    const jobs = await subscribe(`${agent.url}/v1/event/stream?topic=Job`);
    const starred = await subscribe(`${agent.url}/v1/event/stream?topic=Job:*`);
    const all = await subscribe(`${agent.url}/v1/event/stream`);
    await agent.register(job("every-key"));
    const [fromJobs, fromStarred, fromAll] = await Promise.all([
      jobs.until(hasEvent("Job", "every-key")),
      starred.until(hasEvent("Job", "every-key")),
      all.until(hasDeploymentOf("every-key")),
    ]);
    for (const stream of [jobs, starred, all]) stream.close();
    expect(new Set(events(fromJobs).map((event) => event.Topic))).toEqual(new Set(["Job"]));
    expect(new Set(events(fromStarred).map((event) => event.Topic))).toEqual(new Set(["Job"]));
    expect(new Set(events(fromAll).map((event) => event.Topic))).toEqual(new Set(["Job", "Evaluation", "Allocation", "Deployment"]));
  });

  it("filters by namespace (default when none is given), and namespace=* streams them all", async () => {
    const inA = await subscribe(`${agent.url}/v1/event/stream?topic=Job&namespace=a`);
    const inDefault = await subscribe(`${agent.url}/v1/event/stream?topic=Job`);
    const everywhere = await subscribe(`${agent.url}/v1/event/stream?topic=Job&namespace=*`);
    await agent.register(job("spread"), "?namespace=b");
    await agent.register(job("spread"), "?namespace=default");
    await agent.register(job("spread"), "?namespace=a");
    await Promise.all([
      inA.until(hasEvent("Job", "spread")),
      inDefault.until(hasEvent("Job", "spread")),
      everywhere.until((frames) => new Set(events(frames).map((event) => event.Namespace)).size === 3),
    ]);
    await settled(agent.url);
    await pause(200);
    for (const stream of [inA, inDefault, everywhere]) stream.close();
    expect(new Set(events(inA.frames()).map((event) => event.Namespace))).toEqual(new Set(["a"]));
    expect(new Set(events(inDefault.frames()).map((event) => event.Namespace))).toEqual(new Set(["default"]));
    expect(new Set(events(everywhere.frames()).map((event) => event.Namespace))).toEqual(new Set(["a", "b", "default"]));
  });

  it("sends a heartbeat {} at the start and every eventHeartbeatMs, also while nothing happens", async () => {
    const stream = await subscribe(`${agent.url}/v1/event/stream?topic=Job:nothing-happens`);
    await pause(700);
    stream.close();
    expect(stream.lines.length).toBeGreaterThanOrEqual(3);
    expect(new Set(stream.lines)).toEqual(new Set(["{}"]));
  });

  it.each([
    ["topic=a:b:c", 400, "Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: a:b:c"],
    ["topic=Job:web:extra", 400, "Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: Job:web:extra"],
    ["topic=Jobs", 400, 'Invalid topic query: unknown topic "Jobs"; topics are *, Job, Evaluation, Allocation, Deployment, Node, Service, NodePool, ACLPolicy, ACLToken, ACLRole, ACLAuthMethod, ACLBindingRule, Variable, each alone or as Topic:Key'],
    ["index=abc", 400, 'Unable to parse index: strconv.Atoi: parsing "abc": invalid syntax'],
    ["index=1.5", 400, 'Unable to parse index: strconv.Atoi: parsing "1.5": invalid syntax'],
    ["index=9223372036854775808", 400, 'Unable to parse index: strconv.Atoi: parsing "9223372036854775808": value out of range'],
    ["index=-1", 400, "Invalid index"],
    ["region=mars", 500, "No path to region"],
  ])("refuses %s with %i and a plain-text reason, before streaming", async (query, status, message) => {
    const response = await agent.get(`/v1/event/stream?${query}`);
    expect(response.status).toBe(status);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(response.text).toBe(message);
  });

  it("answers other methods with 405 Invalid method", async () => {
    const response = await agent.get("/v1/event/stream", { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.text).toBe("Invalid method");
  });

  it("accepts the reference's topics the agent never sends, and sends only heartbeats for them", async () => {
    const stream = await subscribe(`${agent.url}/v1/event/stream?topic=NodePool&topic=ACLToken`);
    await agent.register(job("silent"));
    await settled(agent.url);
    stream.close();
    expect(new Set(stream.lines)).toEqual(new Set(["{}"]));
  });

  it("forgets a stream when its client goes away", async () => {
    // The earlier tests' streams, closed by their clients, are forgotten too.
    await eventually(async () => (agent.agent.eventStreams === 0 ? true : undefined));
    const stream = await subscribe(`${agent.url}/v1/event/stream`);
    expect(agent.agent.eventStreams).toBe(1);
    stream.close();
    await eventually(async () => (agent.agent.eventStreams === 0 ? true : undefined));
  });
});

describe("the event stream's ACL, checked per event", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000e1";
  const A_READER = "00000000-0000-4000-8000-0000000000e2";
  const NODE_READER = "00000000-0000-4000-8000-0000000000e3";
  const secured = useAgent({
    placementDelayMs: 60_000,
    namespaces: [{ Name: "a" }, { Name: "b" }],
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "a-read", Rules: 'namespace "a" { policy = "read" }' },
        { Name: "node-read", Rules: 'node { policy = "read" }' },
      ],
      tokens: [
        { SecretID: A_READER, Policies: ["a-read"] },
        { SecretID: NODE_READER, Policies: ["node-read"] },
      ],
    },
  });
  const as = (token: string) => ({ "x-svc-token": token });

  it("sends a token for namespace a only a's events, with namespace=*", async () => {
    const stream = await subscribe(`${secured.url}/v1/event/stream?namespace=*`, as(A_READER));
    const root = await subscribe(`${secured.url}/v1/event/stream?namespace=*`, as(ROOT));
    for (const namespace of ["b", "default", "a"]) {
      const response = await secured.put(`/v1/jobs?namespace=${namespace}`, { Job: job("guarded") }, { headers: as(ROOT) });
      expect(response.status, response.text).toBe(200);
    }
    const everything = await root.until((frames) => events(frames).filter((event) => event.Topic === "Deployment").length === 3);
    const seen = await stream.until((frames) => events(frames).some((event) => event.Topic === "Deployment"));
    await pause(200);
    stream.close();
    root.close();
    expect(new Set(events(everything).map((event) => event.Namespace))).toEqual(new Set(["a", "b", "default"]));
    expect(new Set(events(stream.frames()).map((event) => event.Namespace))).toEqual(new Set(["a"]));
    expect(events(seen).map((event) => event.Topic)).toEqual(expect.arrayContaining(["Job", "Evaluation", "Allocation", "Deployment"]));
  });

  it.each([
    ["no token (the anonymous policy grants nothing)", {}, ""],
    ["an unknown token", as("00000000-0000-4000-8000-0000000000ff"), ""],
    ["a malformed token", as("not-a-uuid"), ""],
    ["a token without read-job in the namespace asked for", as(A_READER), "?namespace=b"],
    ["a token that may read none of the topics asked for", as(NODE_READER), "?topic=Job"],
  ])("refuses %s with 403 at subscribe", async (_case, headers, query) => {
    const response = await secured.get(`/v1/event/stream${query}`, { headers });
    expect(response.status).toBe(403);
    expect(response.text).toBe("Permission denied");
  });

  it("sends a heartbeat at once, long before the 30 s interval", async () => {
    const started = performance.now();
    const stream = await subscribe(`${secured.url}/v1/event/stream?namespace=a`, as(A_READER));
    expect(performance.now() - started).toBeLessThan(5_000);
    stream.close();
  });

  it("ends the stream with the reference's words when its token is deleted", async () => {
    const created = await secured.put("/v1/acl/token", { Type: "client", Policies: ["a-read"] }, { headers: as(ROOT) });
    const { AccessorID, SecretID } = created.json<{ AccessorID: string; SecretID: string }>();
    const stream = await subscribe(`${secured.url}/v1/event/stream?namespace=a`, as(SecretID));
    expect((await send(`${secured.url}/v1/acl/token/${AccessorID}`, { method: "DELETE", headers: as(ROOT) })).status).toBe(200);
    await secured.put("/v1/jobs?namespace=a", { Job: job("after-revocation") }, { headers: as(ROOT) });
    expect(await stream.ended).toBe(true);
    expect(stream.lines.at(-1)).toBe(SUBSCRIPTION_CLOSED);
    expect(events(stream.frames()).some((event) => event.Key === "after-revocation")).toBe(false);
  });
});

describe("the event stream's end", () => {
  it("ends every stream at once when the agent closes, as the reference's server: at a frame's end, no last line, the body ended", async () => {
    const own = await startTestAgent({ port: 0, demo: false, logLevel: "silent" });
    const stream = await subscribe(`${own.url}/v1/event/stream`);
    const started = performance.now();
    await own.close();
    expect(performance.now() - started).toBeLessThan(CLOSE_GRACE_MS);
    // The body ends where a frame ends (the Go client reads io.EOF, as the pinned reference's test asserts).
    expect(await stream.ended).toBe(true);
    expect(stream.lines).toEqual(["{}"]);
  });

  it("closes the connection of a reader that does not read once the frame it is in the middle of leaves the buffer", async () => {
    const own = await startTestAgent({ port: 0, demo: false, logLevel: "silent", placementDelayMs: 60_000 });
    try {
      // A client that sends its request and then reads nothing: the kernel's buffers fill, then the agent's queue.
      const socket = connect(own.port, "127.0.0.1");
      socket.pause();
      socket.write(`GET /v1/event/stream?topic=Job HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      await eventually(async () => (own.eventStreams === 1 ? true : undefined));
      // Large jobs first (about 1.4 MB of events each), then enough small writes to push the rest out of the buffer.
      const big = "x".repeat(700_000);
      let registrations = 0;
      const register = async (id: string, meta?: Record<string, string>) => {
        const response = await send(`${own.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(id, meta === undefined ? {} : { Meta: meta }) }) });
        expect(response.status, response.text).toBe(200);
        registrations++;
      };
      for (let i = 0; i < 8; i++) await register(`big-${i}`, { payload: big });
      for (let i = 0; own.eventStreams > 0 && i < EVENT_BUFFER_WRITES * 2; i++) await register(`small-${i}`);
      expect(own.eventStreams).toBe(0);
      expect(registrations).toBeGreaterThan(8 + EVENT_BUFFER_WRITES / 4);

      // The client reads at last: whole frames, then part of one (the agent sends a frame in
      // slices of at most its queue's bytes, and stopped in the middle of one), then the end:
      // no reason line, which would read as the rest of the frame.
      const received: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk));
      socket.resume();
      await new Promise((resolve) => socket.once("close", resolve));
      const lines = dechunk(Buffer.concat(received)).split("\n");
      const unfinished = lines.pop()!;
      expect(unfinished.slice(0, 8)).toBe('{"Index"');
      expect(lines.filter((line) => line !== "{}" && !line.startsWith('{"Index"'))).toEqual([]);
      const sent = lines.filter((line) => line.startsWith('{"Index"')).map((line) => parseJson(line) as Frame);
      // It had been sent the big jobs' frames only, not the small ones that came after.
      expect(events(sent).every((event) => event.Key.startsWith("big-"))).toBe(true);
    } finally {
      await own.close();
    }
  });
});

/** The body of an HTTP/1.1 response with chunked transfer encoding, as text. */
function dechunk(response: Buffer): string {
  let at = response.indexOf("\r\n\r\n") + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = response.indexOf("\r\n", at);
    const size = Number.parseInt(response.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(response.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts).toString("utf8");
}

describe.runIf(ON_POSTGRES)("the event stream of agents sharing a PostgreSQL store", () => {
  it("streams the writes another agent made, at their own indexes", async () => {
    const { store, drop } = await testStore();
    const agents: Agent[] = [];
    try {
      for (const nodeName of ["alpha", "beta"]) agents.push(await startAgent({ port: 0, demo: false, logLevel: "silent", store, nodeName, placementDelayMs: 60_000 }));
      const [alpha, beta] = agents as [Agent, Agent];
      const stream = await subscribe(`${beta.url}/v1/event/stream?topic=Job&topic=Evaluation`);
      const response = await send(`${alpha.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("elsewhere") }) });
      const { Index, EvalID } = response.json<{ Index: number; EvalID: string }>();
      // The evaluation completed by the leader's scheduler, whichever agent leads.
      const frames = await stream.until((frames) => events(frames).some((event) => event.Key === EvalID && event.Payload.Evaluation!.Status === "complete"));
      stream.close();
      expect(events(frames).some((event) => event.Topic === "Job" && event.Key === "elsewhere")).toBe(true);
      // beta may catch up with several of alpha's writes at once: each event keeps the index of its row's write.
      for (const frame of frames) {
        expect(frame.Index).toBeGreaterThanOrEqual(Index);
        for (const event of frame.Events) expect(event.Payload[event.Topic]!.ModifyIndex).toBe(frame.Index);
      }
    } finally {
      await Promise.all(agents.map((agent) => agent.close()));
      await drop();
    }
  });
});

/** A sink that keeps what it is sent; `pendingBytes` is whatever the test sets. */
function fakeSink() {
  const drains: (() => void)[] = [];
  const sink = {
    written: [] as string[],
    pendingBytes: 0,
    ended: false,
    destroyed: false,
    write(chunk: string | Uint8Array) {
      sink.written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    },
    onDrain(callback: () => void) {
      drains.push(callback);
    },
    drain() {
      sink.pendingBytes = 0;
      for (const callback of drains.splice(0)) callback();
    },
    end() {
      sink.ended = true;
    },
    destroy() {
      sink.destroyed = true;
    },
    /** The whole frames written, however they were sliced. */
    frames: () =>
      sink.written
        .join("")
        .split("\n")
        .filter((line) => line.startsWith('{"Index"'))
        .map((line) => parseJson(line) as Frame),
  };
  return sink satisfies EventSink;
}

/**
 * A sink whose socket takes nothing until `drain()`: what is written waits there, as in a socket
 * whose client has stopped reading. Keeps the chunks as written, and the most bytes ever waiting.
 */
function stalledSink() {
  const drains: (() => void)[] = [];
  const sink = {
    chunks: [] as (string | Uint8Array)[],
    pendingBytes: 0,
    mostPending: 0,
    ended: false,
    destroyed: false,
    write(chunk: string | Uint8Array) {
      sink.chunks.push(chunk);
      sink.pendingBytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
      sink.mostPending = Math.max(sink.mostPending, sink.pendingBytes);
    },
    onDrain(callback: () => void) {
      drains.push(callback);
    },
    drain() {
      sink.pendingBytes = 0;
      for (const callback of drains.splice(0)) callback();
    },
    end() {
      sink.ended = true;
    },
    destroy() {
      sink.destroyed = true;
    },
    /** What was written, as text: the bytes joined first (a slice may end inside a character). */
    text: () => Buffer.concat(sink.chunks.map((chunk) => (typeof chunk === "string" ? Buffer.from(chunk) : chunk))).toString("utf8"),
  };
  return sink satisfies EventSink;
}

/** A store of its own with a broker on it, and ACLs when asked. */
async function brokerOn(options: EventBrokerOptions = {}, acl: Parameters<typeof AccessControl.fromOptions>[1] = {}) {
  const store = new MemoryStore();
  await store.seed(["namespaces"], (state) => {
    for (const Name of ["default", "a", "b"]) state.namespaces.put({ Name, Description: "", Quota: "", Meta: null, CreateIndex: 1, ModifyIndex: 1 });
  });
  const access = await AccessControl.fromOptions(store, acl);
  const broker = new EventBroker(store, access, options);
  const putJob = (id: string, namespace = "default", Meta: Record<string, string> | null = null) =>
    store.write(["jobs"], (state) => {
      state.jobs.put({ ID: id, Namespace: namespace, TaskGroups: [], Meta, ModifyIndex: state.index, CreateIndex: state.index } as unknown as Job);
    }, "JobRegister");
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  return { store, broker, putJob, flush };
}

const ALL_TOPICS = parseEventTopics([]);
const request = (fields: Partial<Parameters<EventBroker["open"]>[0]> = {}) => ({ topics: ALL_TOPICS, namespace: "*", index: undefined, secret: "", ...fields });

describe("the event buffer", () => {
  it(`keeps the frames of the last ${EVENT_BUFFER_WRITES} writes`, async () => {
    const { broker, putJob } = await brokerOn();
    const indexes: number[] = [];
    for (let i = 0; i <= EVENT_BUFFER_WRITES; i++) indexes.push((await putJob(`job-${i}`)).index);
    expect(broker.bufferedIndexes).toEqual(indexes.slice(1));
  });

  it("keeps frames up to its byte bound, and always the newest", async () => {
    const measure = await brokerOn();
    for (const id of ["one", "two", "six"]) await measure.putJob(id);
    const threeFrames = measure.broker.bufferedBytes;
    const bounded = await brokerOn({ bufferBytes: threeFrames });
    const indexes: number[] = [];
    for (const id of ["one", "two", "six"]) indexes.push((await bounded.putJob(id)).index);
    expect(bounded.broker.bufferedIndexes).toEqual(indexes);
    indexes.push((await bounded.putJob("ten")).index);
    expect(bounded.broker.bufferedIndexes).toEqual(indexes.slice(1));
    const tiny = await brokerOn({ bufferBytes: 1 });
    await tiny.putJob("one");
    const { index } = await tiny.putJob("two");
    expect(tiny.broker.bufferedIndexes).toEqual([index]);
  });

  it.each([
    ["0", (oldest: number) => 0 * oldest, ["oldest", "newest"]],
    ["older than the buffer", (oldest: number) => oldest - 1, ["oldest", "newest"]],
    ["the oldest frame's", (oldest: number) => oldest, ["oldest", "newest"]],
    ["the newest frame's", (_oldest: number, newest: number) => newest, ["newest"]],
    ["past the newest (the reference sends the newest again)", (_oldest: number, newest: number) => newest + 100, ["newest"]],
  ] as const)("starts an index %s as the reference's StartAtClosest", async (_name, index, expected) => {
    const { broker, putJob, flush } = await brokerOn({ bufferWrites: 2 });
    for (const id of ["one", "two", "six", "ten"]) await putJob(id);
    const [oldest, newest] = broker.bufferedIndexes as [number, number];
    const sink = fakeSink();
    broker.open(request({ index: index(oldest, newest) })).start(sink);
    const { index: later } = await putJob("later");
    await flush();
    expect(sink.frames().map((frame) => frame.Index)).toEqual([...expected.map((which) => (which === "oldest" ? oldest : newest)), later]);
  });

  it("starts at the first frame after an index that has none", async () => {
    const { store, broker, putJob, flush } = await brokerOn();
    const { index: first } = await putJob("one");
    // A write that makes no event (a namespace) leaves a gap in the frames' indexes.
    const gap = await store.write(["namespaces"], (state) => state.namespaces.put({ Name: "c", Description: "", Quota: "", Meta: null, CreateIndex: state.index, ModifyIndex: state.index }), "NamespaceUpsert");
    const { index: second } = await putJob("two");
    expect(gap.index).toBeGreaterThan(first);
    const sink = fakeSink();
    broker.open(request({ index: gap.index })).start(sink);
    await flush();
    expect(sink.frames().map((frame) => frame.Index)).toEqual([second]);
  });

  it("makes no event of a row written again unchanged", async () => {
    const { store, broker, putJob, flush } = await brokerOn();
    const first = await putJob("same");
    const sink = fakeSink();
    broker.open(request()).start(sink);
    await store.write(["jobs"], (state) => state.jobs.put(state.jobs.get(namespacedKey("default", "same"))!), "JobRegister");
    const { index } = await putJob("changed");
    await flush();
    expect(sink.frames().map((frame) => [frame.Index, frame.Events.map((event) => event.Key)])).toEqual([[index, ["changed"]]]);
    expect(broker.bufferedIndexes).toEqual([first.index, index]);
  });

  it("splits a write caught up from other agents into a frame per index, and sends deletions of jobs as JobDeregistered", async () => {
    const { store, broker, flush } = await brokerOn();
    const sink = fakeSink();
    broker.open(request()).start(sink);
    const at = store.index;
    const row = (id: string, index: number) => ({ ID: id, Namespace: "default", TaskGroups: [], CreateIndex: index, ModifyIndex: index });
    store.replicate({
      index: at + 3,
      changes: {
        jobs: new Map<string, Job | undefined>([
          [namespacedKey("default", "second"), row("second", at + 2) as unknown as Job],
          [namespacedKey("default", "first"), row("first", at + 1) as unknown as Job],
          [namespacedKey("a", "gone"), undefined],
        ]),
      },
      // Each index's message gives its events' type: a registration, a plan's result, a deregistration.
      messages: new Map([
        [at + 1, "JobRegister"],
        [at + 2, "ApplyPlanResults"],
        [at + 3, "JobDeregister"],
      ]),
      deletedAt: new Map([[`jobs ${namespacedKey("a", "gone")}`, at + 3]]),
    });
    await flush();
    expect(sink.frames().map((frame) => [frame.Index, frame.Events.map((event) => [event.Type, event.Key, event.Namespace])])).toEqual([
      [at + 1, [["JobRegistered", "first", "default"]]],
      [at + 2, [["PlanResult", "second", "default"]]],
      [at + 3, [["JobDeregistered", "gone", "a"]]],
    ]);
    expect(sink.frames()[2]!.Events[0]!.Payload).toEqual({ Job: { ID: "gone", Namespace: "a" } });
  });

  it("sends node events without a namespace, to callers with node:read only", async () => {
    const NODE_READER = "00000000-0000-4000-8000-0000000000d1";
    const JOB_READER = "00000000-0000-4000-8000-0000000000d2";
    const { store, broker, flush } = await brokerOn(
      {},
      {
        enabled: true,
        policies: [
          { Name: "nodes", Rules: 'node { policy = "read" }\nnamespace "a" { policy = "read" }' },
          { Name: "jobs", Rules: 'namespace "*" { policy = "read" }' },
        ],
        tokens: [
          { SecretID: NODE_READER, Policies: ["nodes"] },
          { SecretID: JOB_READER, Policies: ["jobs"] },
        ],
      },
    );
    const nodes = fakeSink();
    const jobs = fakeSink();
    broker.open(request({ secret: NODE_READER, namespace: "a" })).start(nodes);
    broker.open(request({ secret: JOB_READER })).start(jobs);
    const node = {
      ID: "8d3c1f4a-0000-4000-8000-000000000001",
      Name: "client-1",
      Datacenter: "dc1",
      NodePool: "default",
      NodeClass: "",
      Address: "127.0.0.2",
      Status: "ready",
      StatusDescription: "",
      SchedulingEligibility: "eligible",
      Drain: false,
      Version: "1.9.4",
      Attributes: { "kernel.name": "linux" },
      Meta: {},
    } as unknown as Node;
    const { index } = await store.write(["nodes"], (state) => state.nodes.put({ ...node, CreateIndex: state.index, ModifyIndex: state.index }), "NodeRegister");
    await store.write(["nodes"], (state) => state.nodes.delete(node.ID), "NodeDeregister");
    await flush();
    expect(nodes.frames().map((frame) => frame.Events.map((event) => [event.Topic, event.Type, event.Key, event.Namespace, event.FilterKeys]))).toEqual([
      [["Node", "NodeRegistration", node.ID, "", null]],
      [["Node", "NodeDeregistration", node.ID, "", null]],
    ]);
    // The node as GET /v1/node/<id> writes it: sanitized, no secret.
    expect(nodes.frames()[0]!.Events[0]!.Payload.Node).toMatchObject({ ID: node.ID, SecretID: "", Name: "client-1", Datacenter: "dc1", Status: "ready", CreateIndex: index, ModifyIndex: index });
    expect(jobs.frames()).toEqual([]);
    expect(() => broker.open(request({ secret: JOB_READER, topics: parseEventTopics(["Node"]) }))).toThrow("Permission denied");
  });

  it("shows a deployment as stored, without the fields a row keeps for the agent's own use", async () => {
    const { store, broker, flush } = await brokerOn();
    const sink = fakeSink();
    broker.open(request()).start(sink);
    await store.write(["deployment"], (state) =>
      state.deployment.put({ ID: "5b1c0d2e-0000-4000-8000-000000000001", Namespace: "default", JobID: "web", Status: "running", CreateIndex: state.index, ModifyIndex: state.index, progressTimer: 7 } as never),
      "DeploymentStatusUpdate",
    );
    await flush();
    const [event] = events(sink.frames());
    expect(event!.Payload.Deployment).toEqual({ ID: "5b1c0d2e-0000-4000-8000-000000000001", Namespace: "default", JobID: "web", Status: "running", CreateIndex: event!.Index, ModifyIndex: event!.Index });
  });

  it("ends a stream whose token expires, with the reference's words", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const SHORT = "00000000-0000-4000-8000-0000000000c1";
    const store = new MemoryStore();
    await store.seed(["namespaces"], (state) => state.namespaces.put({ Name: "default", Description: "", Quota: "", Meta: null, CreateIndex: 1, ModifyIndex: 1 }));
    const access = await AccessControl.fromOptions(
      store,
      { enabled: true, policies: [{ Name: "read", Rules: 'namespace "default" { policy = "read" }' }], tokens: [{ SecretID: SHORT, Policies: ["read"], ExpirationTime: "2030-01-01T00:01:00Z" }] },
      () => now,
    );
    const broker = new EventBroker(store, access, {}, () => now);
    const sink = fakeSink();
    broker.open(request({ secret: SHORT, namespace: "default" })).start(sink);
    now += 120_000;
    await store.write(["jobs"], (state) => state.jobs.put({ ID: "late", Namespace: "default", TaskGroups: [], ModifyIndex: state.index } as unknown as Job), "JobRegister");
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.written.at(-1)).toBe(`${TOKEN_EXPIRED}\n`);
    expect(sink.ended).toBe(true);
    expect(sink.frames()).toEqual([]);
    expect(broker.streams).toBe(0);
  });
});

describe("a stream's queue", () => {
  it("holds no more than queueBytes of a frame larger than it: the frame goes in slices as the socket drains, heartbeats falling due meanwhile kept out of it", async () => {
    const { broker, putJob, flush } = await brokerOn({ queueBytes: 1_000, heartbeatMs: 5 });
    const sink = stalledSink();
    broker.open(request()).start(sink);
    sink.drain();
    const payload = "é".repeat(20_000);
    const written = await putJob("large", "default", { payload });
    await flush();
    // Heartbeats fall due while the frame waits for its socket: none may land inside its line.
    await pause(30);
    let rounds = 0;
    while (!sink.text().endsWith("]}\n") && rounds++ < 1_000) sink.drain();
    expect(sink.mostPending).toBeLessThanOrEqual(1_000);
    // 40,000 bytes of payload: at least 40 slices.
    expect(rounds).toBeGreaterThanOrEqual(40);
    const lines = sink.text().split("\n").filter((line) => line !== "" && line !== "{}");
    expect(lines).toHaveLength(1);
    const [frame] = lines.map((line) => parseJson(line) as Frame);
    expect(frame!.Index).toBe(written.index);
    expect(frame!.Events[0]!.Payload.Job!.Meta).toEqual({ payload });
  });

  it("writes every stream the same bytes of an event: the event is written as JSON once", async () => {
    const { broker, putJob, flush } = await brokerOn();
    const sinks = [stalledSink(), stalledSink(), stalledSink()];
    for (const sink of sinks) broker.open(request()).start(sink);
    await putJob("shared", "default", { payload: "x".repeat(100_000) });
    await flush();
    const largest = sinks.map((sink) => sink.chunks.filter((chunk): chunk is Uint8Array => typeof chunk !== "string").sort((a, b) => b.length - a.length)[0]!);
    expect(largest[0]!.length).toBeGreaterThan(100_000);
    for (const chunk of largest) expect(chunk.buffer).toBe(largest[0]!.buffer);
  });

  it("closes the connection of a stream in the middle of a frame when that frame leaves the buffer, without a line after the half frame", async () => {
    const { broker, putJob, flush } = await brokerOn({ queueBytes: 1_000, bufferWrites: 2 });
    const sink = stalledSink();
    broker.open(request()).start(sink);
    sink.drain();
    await putJob("large", "default", { payload: "x".repeat(10_000) });
    await flush();
    sink.drain();
    await putJob("next-1");
    await flush();
    expect(broker.streams).toBe(1);
    expect(sink.destroyed).toBe(false);
    await putJob("next-2");
    await flush();
    expect(sink.destroyed).toBe(true);
    expect(broker.streams).toBe(0);
    expect(sink.text()).not.toContain(SUBSCRIPTION_CLOSED);
    expect(sink.text().endsWith("\n")).toBe(false);
  });

  it("is sent frames while fewer than queueBytes wait in its socket, and waits for the socket from there", async () => {
    const { broker, putJob, flush } = await brokerOn({ queueBytes: 100 });
    const sink = fakeSink();
    broker.open(request()).start(sink);
    sink.pendingBytes = 99;
    const first = await putJob("first");
    await flush();
    expect(sink.frames().map((frame) => frame.Index)).toEqual([first.index]);
    sink.pendingBytes = 100;
    const second = await putJob("second");
    await flush();
    expect(sink.frames().map((frame) => frame.Index)).toEqual([first.index]);
    sink.drain();
    expect(sink.frames().map((frame) => frame.Index)).toEqual([first.index, second.index]);
  });

  it("is cut off, with the index to resume from, when a frame it was not sent leaves the buffer; its connection goes after a heartbeat interval", async () => {
    const { broker, putJob, flush } = await brokerOn({ queueBytes: 100, bufferWrites: 2, heartbeatMs: 20 });
    const sink = fakeSink();
    const stream = broker.open(request());
    stream.start(sink);
    const sent = await putJob("sent");
    await flush();
    sink.pendingBytes = 100;
    await putJob("waiting-1");
    await putJob("waiting-2");
    await flush();
    // Not sent, but still in the buffer: the stream waits for its socket.
    expect(broker.streams).toBe(1);
    await putJob("waiting-3");
    await flush();
    // waiting-1 has left the buffer: the stream is cut off at once, without waiting for its socket.
    expect(sink.frames().map((frame) => frame.Index)).toEqual([sent.index]);
    expect(sink.written.at(-1)).toBe(`${SUBSCRIPTION_CLOSED}: the client fell behind, and the events after index ${sent.index} have left the agent's buffer of 2 writes\n`);
    expect(sink.ended).toBe(true);
    expect(broker.streams).toBe(0);
    await eventually(async () => (sink.destroyed ? true : undefined));
    stream.close();
  });
});

describe("the number of event streams", () => {
  it("is capped by limits.eventStreams: one more is answered 429 with the reason, and a stream is accepted again once one ends", async () => {
    const own = await startTestAgent({ port: 0, demo: false, logLevel: "silent", limits: { eventStreams: 2 } });
    const streams: Stream[] = [];
    try {
      streams.push(await subscribe(`${own.url}/v1/event/stream`), await subscribe(`${own.url}/v1/event/stream?topic=Job`));
      const refused = await send(`${own.url}/v1/event/stream`);
      expect(refused.status).toBe(429);
      expect(refused.text).toBe("Too many event streams: the agent serves at most 2 at once; retry once one has ended");
      expect(own.eventStreams).toBe(2);
      streams.shift()!.close();
      await eventually(async () => (own.eventStreams === 1 ? true : undefined));
      streams.push(await subscribe(`${own.url}/v1/event/stream`));
      expect(own.eventStreams).toBe(2);
    } finally {
      for (const stream of streams) stream.close();
      await own.close();
    }
  });

  it(`is ${EVENT_STREAMS_MAX} by default`, async () => {
    const { broker } = await brokerOn();
    for (let i = 0; i < EVENT_STREAMS_MAX; i++) broker.open(request()).start(stalledSink());
    expect(() => broker.open(request())).toThrow(`at most ${EVENT_STREAMS_MAX} at once`);
    broker.close();
  });
});

describe("the agent's own nodes in the stream", () => {
  it("are in the buffer from the agent's start: index=0 replays a NodeRegistration for each, as the reference's registrations", async () => {
    const own = await startTestAgent({ port: 0, demo: false, logLevel: "silent", nodes: 2, placementDelayMs: 60_000 });
    try {
      const stream = await subscribe(`${own.url}/v1/event/stream?topic=Node&index=0`);
      const frames = await stream.until((received) => events(received).length >= 2);
      stream.close();
      const nodes = events(frames);
      expect(nodes.map((event) => [event.Topic, event.Type, event.Index])).toEqual([
        ["Node", "NodeRegistration", 1],
        ["Node", "NodeRegistration", 1],
      ]);
      expect(nodes.map((event) => event.Payload.Node!.Name).sort()).toEqual(["client-1", "client-2"]);
      expect(nodes[0]!.Payload.Node).toMatchObject({ SecretID: "", Events: [{ Message: "Node registered", Subsystem: "Cluster", CreateIndex: 1 }] });
    } finally {
      await own.close();
    }
  });
});
