/**
 * The reference's `api/event_stream_test.go`, ported (see `jobs.test.ts` for how). The stream is
 * read as the Go client's goroutine reads it (`go-client.ts`, {@link EventChannel}): one
 * `json.Decoder` over the body, heartbeats skipped, the decoding error as the last frame.
 */
import { describe, expect, onTestFinished } from "vitest";
import { decodeGo, decodeStruct } from "./go-json.js";
import { EOF, HEADER_STYLES, type EventChannel, type Events } from "./go-client.js";
import { clientSide, PORTED, runGoTests } from "./ported.js";
import { expectUUID, goTestServers, len, MustError, testJob } from "./support.js";

/** Every test of api/event_stream_test.go (reference commit aa026cc99cfb), in its order. */
export const EVENT_STREAM_TESTS = {
  TestTopic_String: clientSide("Topic.String"),
  TestEvent_Stream: PORTED,
  TestEvent_Stream_Err_InvalidQueryParam: PORTED,
  TestEvent_Stream_CloseCtx: PORTED,
  TestEventStream_PayloadValue: PORTED,
  TestEventStream_PayloadValueHelpers: clientSide("Event.Deployment, Event.Node… on JSON the test writes"),
} as const;

/** A context for one stream, cancelled when the test ends (`t.Context()`). */
function testContext(): AbortController {
  const controller = new AbortController();
  onTestFinished(() => controller.abort());
  return controller;
}

/** `select { case event := <-streamCh: … case <-time.After(5 * time.Second): … }`. */
async function receive(channel: EventChannel, waiting: string): Promise<Events | "closed"> {
  const events = await channel.next(5_000);
  if (events === "timeout") throw new MustError(waiting);
  return events;
}

describe.each(HEADER_STYLES)("api/event_stream_test.go (%s headers)", (style) => {
  const { makeClient, makeACLClient } = goTestServers(style);

  runGoTests(EVENT_STREAM_TESTS, {
    async TestEvent_Stream() {
      const { client, server } = await makeACLClient();
      await client.aclPolicies.upsert({ Name: "read-events-policy", Rules: 'namespace "default" { policy = "read" }' });
      const [token] = await client.aclTokens.create({ Name: "read-events-token", Type: "client", Policies: ["read-events-policy"] });

      // A registration, for events.
      const [resp2] = await client.jobs.register(testJob());
      expect(resp2).not.toBeNull();

      // Down-scoped to the token that reads the default namespace.
      client.setSecretID(token.SecretID);
      const channel = await client.eventStream.stream({ Evaluation: [] }, 0, {}, testContext().signal);

      const first = await receive(channel, "failed waiting for event stream event");
      if (first === "closed" || first.Err !== undefined) throw new MustError(`unexpected ${first === "closed" ? "close" : String(first.Err)}`);
      expect(len(first.Events)).toBe(1);
      expect(first.Events?.[0]?.Topic).toBe("Evaluation");

      // Stopping the server ends the stream at a frame's end: the decoder's io.EOF (at the pinned
      // commit the endpoint writes on the hijacked connection and closes it; the test asserted
      // io.ErrUnexpectedEOF before), then the channel closes.
      await server.stop();
      for (;;) {
        const events = await receive(channel, "failed waiting for event stream EOF");
        if (events === "closed") throw new MustError("chan closed before EOF received");
        if (events.Err === EOF) {
          const after = await channel.next(5_000);
          if (after === "timeout") throw new MustError("failed waiting for event stream to close");
          if (after !== "closed") throw new MustError("expected chan to close after EOF");
          return;
        }
        if (events.Err !== undefined) throw new MustError(`unexpected ${String(events.Err)} (${events.Err.name})`);
        expect(len(events.Events)).toBe(1);
        expect(events.Events?.[0]?.Topic).toBe("Evaluation");
      }
    },

    async TestEvent_Stream_Err_InvalidQueryParam() {
      const { client } = await makeClient();
      const [resp2] = await client.jobs.register(testJob());
      expect(resp2).not.toBeNull();
      await expect(client.eventStream.stream({ Evaluation: ["::*"] }, 0, {}, testContext().signal)).rejects.toThrow("Invalid key value pair");
    },

    async TestEvent_Stream_CloseCtx() {
      const { client } = await makeClient();
      const [resp2] = await client.jobs.register(testJob());
      expect(resp2).not.toBeNull();

      const context = new AbortController();
      const channel = await client.eventStream.stream({ Evaluation: ["*"] }, 0, {}, context.signal);
      context.abort();
      // The channel closes without another frame.
      const events = await channel.next(5_000);
      if (events === "timeout") throw new MustError("failed waiting for event stream event");
      expect(events).toBe("closed");
    },

    async TestEventStream_PayloadValue() {
      const { client } = await makeClient({ devMode: true });
      const [resp2] = await client.jobs.register(testJob());
      expect(resp2).not.toBeNull();

      const channel = await client.eventStream.stream({ Node: ["*"] }, 0, {}, testContext().signal);
      const events = await receive(channel, "failed waiting for event stream event");
      // The reference checks the stream's own error here (nil), not the frame's.
      if (events === "closed") return;
      for (const event of events.Events ?? []) {
        // Event.Node(): the payload through mapstructure into the client's Node.
        const node = decodeStruct(event.Payload, "EventPayload", "mapstructure").Node;
        expectUUID(node?.ID ?? "");
        // A raw decoding into map[string]map[string]any: "ID" decodes, and "SecretID" is empty.
        const raw = decodeGo(event.Payload, "map[string]map[string]any", "mapstructure") as Record<string, Record<string, unknown> | null>;
        expect(Object.keys(raw)).toContain("Node");
        const rawNode = raw.Node;
        if (typeof rawNode?.ID !== "string") throw new MustError("interface conversion: interface {} is not string");
        expect(rawNode.ID).toBe(node?.ID);
        expect(rawNode.SecretID).toBe("");
      }
    },
  });
});
