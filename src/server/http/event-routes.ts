/**
 * `GET /v1/event/stream`: the event stream as newline-delimited JSON, written straight to the
 * socket (never compressed, so each frame reaches the client when it is written).
 *
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { OutgoingHttpHeaders } from "node:http";
import { checkRegion } from "../base/errors.js";
import { parseEventIndex, parseEventTopics, type EventBroker, type EventSink } from "../domain/events.js";
import { DEFAULT_NAMESPACE, parseToken } from "../list/query.js";
import { byMethod, queryOf, type RouteContext } from "./route.js";

/**
 * Reads the request in the reference's order (index, topics, then region and token), checks the
 * caller, and only then answers 200 and streams: every refusal is a plain-text 4xx (or the
 * region's 500) before the stream starts.
 */
async function stream(context: RouteContext, events: EventBroker, request: FastifyRequest, reply: FastifyReply): Promise<undefined> {
  const query = queryOf(request);
  const index = parseEventIndex(query.get("index"));
  const topics = parseEventTopics(query.getAll("topic"));
  checkRegion(query.get("region") || context.settings.region, context.settings.region);
  const subscription = events.open({ topics, namespace: query.get("namespace") || DEFAULT_NAMESPACE, index, secret: parseToken(request.headers, context.settings.headerNames) });

  reply.hijack();
  const response = reply.raw;
  response.socket?.setNoDelay(true);
  // Headers earlier hooks set on the reply go out too (the reply is not sent through fastify).
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name.toLowerCase()] = value;
  response.writeHead(200, { ...headers, "content-type": "application/json", "cache-control": "no-cache", vary: "Accept-Encoding" });
  const sink: EventSink = {
    write: (text) => {
      response.write(text);
    },
    get pendingBytes() {
      return response.writableLength;
    },
    onDrain: (callback) => {
      response.once("drain", callback);
    },
    end: () => {
      response.end();
    },
    destroy: () => {
      response.destroy();
    },
  };
  // The client went away, or the response was ended and sent: the stream is forgotten.
  response.once("close", () => subscription.close());
  if (response.socket === null || response.socket.destroyed) subscription.close();
  else subscription.start(sink);
  return undefined;
}

/** Registers `/v1/event/stream`, fed by `events`. */
export function eventRoutes(app: FastifyInstance, context: RouteContext, events: EventBroker): void {
  app.all("/v1/event/stream", byMethod({ GET: (request, reply) => stream(context, events, request, reply) }));
}
