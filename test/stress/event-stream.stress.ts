/**
 * Stalled event-stream subscribers (issue 25, finding 1): hundreds of clients subscribe to
 * `/v1/event/stream` and never read, then one job with 3.9 MiB of metadata is registered. Before
 * the fix each stream was written the whole frame (its own copy of the text), so 200 such
 * subscribers took the agent from 80 MB to 1.6 GB and blocked its loop 9.6 s.
 *
 * Printed: the agent's RSS before and after, the longest wait of a cheap request meanwhile (the
 * event loop's longest block, seen from outside), and the statuses the subscribers got (`429` past
 * the cap on streams). Asserted only what must hold on any machine: the agent lives, answers, and
 * holds a bounded amount per stream.
 */
import { connect, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { EVENT_QUEUE_BYTES, EVENT_STREAMS_MAX } from "../../src/server/index.js";
import { call, job, mib, printTable, probeLatency, sleep, startChildAgent, until, type ChildAgent } from "./support.js";

/** 3.9 MiB of metadata: the largest job a 4 MiB body holds with room to spare. */
const META_BYTES = Math.floor(3.9 * 2 ** 20);

/** A subscriber that reads its status line and first heartbeat, then stops reading for good. */
interface Stalled {
  readonly socket: Socket;
  /** The status it was answered, once known (0 until then, or when the connection failed). */
  readonly status: Promise<number>;
}

function subscribeAndStall(port: number): Stalled {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  const status = new Promise<number>((resolve) => {
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1] ?? 0));
    });
    socket.once("close", () => resolve(0));
  });
  socket.write("GET /v1/event/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  return { socket, status };
}

const rows: Record<string, unknown>[] = [];
afterAll(() => printTable("Stalled event-stream subscribers, one job of 3.9 MiB of metadata", rows));

describe.each([
  // No subscriber: what registering the job costs by itself.
  { subscribers: 0, eventStreams: undefined },
  { subscribers: 200, eventStreams: undefined },
  { subscribers: 1_000, eventStreams: undefined },
  // The cap raised out of the way: the bound per stream alone must hold memory.
  { subscribers: 1_000, eventStreams: 1_000 },
])("$subscribers stalled subscribers, limits.eventStreams $eventStreams", ({ subscribers, eventStreams }) => {
  let agent: ChildAgent | undefined;
  const stalled: Stalled[] = [];

  afterAll(async () => {
    for (const subscriber of stalled) subscriber.socket.destroy();
    await agent?.stop();
  });

  it("keeps the agent's memory bounded per stream and its loop free", async () => {
    agent = await startChildAgent({ placementDelayMs: 60_000, ...(eventStreams === undefined ? {} : { limits: { eventStreams } }) }, 60_000);
    const rssEmpty = agent.rss();
    for (let i = 0; i < subscribers; i++) stalled.push(subscribeAndStall(agent.port));
    const statuses = await Promise.all(stalled.map((subscriber) => subscriber.status));
    const counts: Record<number, number> = {};
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    const open = counts[200] ?? 0;
    expect(open).toBe(Math.min(subscribers, eventStreams ?? EVENT_STREAMS_MAX));
    expect(counts[429] ?? 0).toBe(subscribers - open);
    await sleep(500);
    const rssBefore = agent.rss();

    const probe = probeLatency(agent.url, 10);
    const registered = await call(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("large", { Meta: { blob: "x".repeat(META_BYTES) } }) }), timeoutMs: 120_000 });
    expect(registered.status).toBe(200);
    // Let every stream be written what its socket takes, then a few more writes go through.
    await sleep(2_000);
    for (let i = 0; i < 5; i++) expect((await call(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(`small-${i}`) }) })).status).toBe(200);
    await sleep(1_000);
    const latency = await probe.stop();
    const rssAfter = agent.rss();
    expect(agent.exited()).toBe(false);
    expect((await call(`${agent.url}/v1/status/leader`)).status).toBe(200);

    rows.push({
      subscribers,
      "limits.eventStreams": eventStreams ?? `${EVENT_STREAMS_MAX} (default)`,
      statuses: JSON.stringify(counts),
      "RSS empty": mib(rssEmpty),
      "RSS with the subscribers": mib(rssBefore),
      "RSS after the 3.9 MiB job": mib(rssAfter),
      "growth per open stream": mib((rssAfter - rssBefore) / Math.max(open, 1)),
      "longest wait of GET /v1/metrics": `${latency.max} ms`,
      "p50 wait": `${latency.p50} ms`,
    });
    // What a stream holds is its queue (and what the kernel took); the frame itself is shared.
    // 4 queues' worth per stream, plus 200 MiB for the frame, its copies in the store and the
    // heap's slack, is far above what the bound allows and far below the 1.5 GB of a copy each.
    expect(rssAfter - rssBefore).toBeLessThan(open * 4 * EVENT_QUEUE_BYTES + 200 * 2 ** 20);
    expect(await until(() => !agent!.exited(), 10)).toBe(true);
  });
});
