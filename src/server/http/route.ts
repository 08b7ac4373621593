/**
 * The pieces every route shares: the request's query, the one place that writes successful
 * results (JSON or empty, pretty on request, with the meta headers of reads), and method dispatch.
 *
 * @module
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { stringifyJson } from "../../json.js";
import type { AccessControl } from "../domain/acl.js";
import type { ListEndpoint } from "../list/endpoints.js";
import { runList, type ListContext } from "../list/pipeline.js";
import type { ListLane } from "./list-lane.js";
import { parseQueryOptions, parseStale } from "../list/query.js";
import type { Cluster } from "../scheduler/cluster.js";
import { badRequest, invalidMethod } from "./errors.js";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { decodeBody } from "../../go/json.js";
import type { JsonObject } from "../state/model.js";
import type { MemberIdentity, Peers } from "../domain/members.js";
import type { Metrics } from "../metrics/index.js";
import type { AgentLimits } from "../options.js";
import type { Store } from "../state/store.js";
import type { LeaderSwitch } from "../control/leader.js";
import type { AllowedHosts } from "../control/browser-guard.js";
import type { HeaderNames } from "../base/header-names.js";

/** Plain-text content type of error bodies. */
export const TEXT = "text/plain; charset=utf-8";

/**
 * A header that marks a response whose body is empty: it is sent without a Content-Type. The
 * agent's own, removed before the response is written (`app.ts`); named apart from every header
 * style's, whose headers an agent of the other style never sends.
 */
export const EMPTY_BODY_HEADER = "x-bexpr-empty-body";

/** The agent's identity and settings the routes need. */
export interface HttpSettings extends MemberIdentity {
  /** The address or name the agent listens on (a name is one it answers to). */
  readonly bind: string;
  /** Host names the agent answers to besides its own (see `control/browser-guard.ts`). */
  readonly allowedHosts: AllowedHosts;
  readonly logLevel: string;
  readonly logFormat: "json" | "text";
  readonly limits: Required<AgentLimits>;
  /** The names of the token header and of the meta headers, in the agent's header style. */
  readonly headerNames: HeaderNames;
}

/** What the routes share. */
export interface RouteContext {
  /** The cluster as this agent knows it: the leader, the members. */
  readonly peers: Peers;
  readonly store: Store;
  readonly cluster: Cluster;
  readonly acl: AccessControl;
  readonly settings: HttpSettings;
  readonly metrics: Metrics;
  /** What the list pipeline needs. */
  readonly lists: ListContext;
  /** How list answers are written, and the lane of repeated list requests. */
  readonly lane: ListLane;
}

/** A successful response. */
export interface Result {
  /** The JSON body; undefined for an empty body. */
  readonly body?: unknown;
  /**
   * The JSON body as bytes, already written as the request asked (compact or `pretty`), when the
   * handler has them cheaper than `body` (a list's cached answer). Takes precedence over `body`.
   */
  readonly json?: Buffer;
  /** A body that is not JSON, sent as it is (the Prometheus text format). */
  readonly text?: { readonly body: string; readonly contentType: string };
  /** The index header's value (`X-Svc-Index`); reads also send the leader headers. */
  readonly index?: number;
  readonly nextToken?: string;
  readonly read?: boolean;
  /** The status, when not 200 (a variable's conflict is a 409 with a JSON body, its deletion a 204). */
  readonly status?: number;
}

/** A handler of one method: its result, or undefined when it wrote the response itself. */
export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Result | undefined>;

/** `?pretty` (any value but `0`): indented JSON. */
export function wantsPretty(query: URLSearchParams): boolean {
  return query.has("pretty") && query.get("pretty") !== "0";
}

/** The query string of a request. */
export function queryOf(request: FastifyRequest): URLSearchParams {
  return new URL(request.url, "http://agent").searchParams;
}

/** A route parameter (`/v1/namespace/:name`). */
export function param(request: FastifyRequest, name: string): string {
  return (request.params as Record<string, string | undefined>)[name] ?? "";
}

/** An AbortSignal that fires when the client goes away before the response is written. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** A list endpoint's route handler: the shared pipeline, timed, stopped when the client leaves. */
export function listRoute<Row>(context: RouteContext, endpoint: ListEndpoint<Row>): Handler {
  const answer = async (request: FastifyRequest, reply: FastifyReply): Promise<Result | undefined> => {
    const query = queryOf(request);
    const options = parseQueryOptions(query, request.headers, context.settings);
    const listed = await runList(context.lists, endpoint, { options, query, signal: clientGone(reply) });
    // Written straight to the socket when the lane writes the client's encoding (its headers say a leader is known).
    if (context.peers.knownLeader && (await context.lane.send(request, reply, endpoint, listed, options.minQueryIndex, options.allowStale))) return undefined;
    const { answer } = listed;
    return { json: answer.body, index: answer.index, nextToken: answer.nextToken, read: true };
  };
  const { timer } = endpoint;
  return timer === undefined ? answer : (request, reply) => context.metrics.time(timer, () => answer(request, reply));
}

/** Writes a plain-text response (errors). */
export function sendText(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type(TEXT).send(Buffer.from(message));
}

/** What the routes of one agent's server write their results with (see {@link useAgentMeta}). */
export interface AgentMeta {
  /** The cluster as the agent knows it, for the known-leader and last-contact headers of reads. */
  readonly peers: Peers;
  /** The names of the meta headers, in the agent's header style. */
  readonly headerNames: HeaderNames;
  /** The leader switch (see `control/leader.ts`). */
  readonly leader?: LeaderSwitch;
}

/** The {@link AgentMeta} of each agent's server. */
const AGENTS = new WeakMap<object, AgentMeta>();

/** Gives the routes of `server` the agent's peers, header names and leader switch. */
export function useAgentMeta(server: object, meta: AgentMeta): void {
  AGENTS.set(server, meta);
}

/** The {@link AgentMeta} of the agent serving `request`, which every agent's server has from its start (see `app.ts`). */
function agentMeta(request: FastifyRequest): AgentMeta {
  const meta = AGENTS.get(request.server);
  if (meta === undefined) throw new Error("the server has no agent meta: call useAgentMeta when building it");
  return meta;
}

/**
 * Writes the reference's meta headers of a read (`setMeta`), in the agent's header style: the
 * index, whether a leader is known, the last contact with it, and the next page's token when
 * more follows. The one place that writes them but for the lane's pre-written list answers
 * (`list-lane.ts`), which take their names from the same {@link HeaderNames}.
 */
export function setReadMeta(request: FastifyRequest, reply: FastifyReply, index: number, nextToken = ""): void {
  const { peers, headerNames } = agentMeta(request);
  reply.header(headerNames.index, String(index));
  reply.header(headerNames.knownLeader, String(peers.knownLeader));
  reply.header(headerNames.lastContact, String(peers.lastContactMs(staleRead(request))));
  if (nextToken) reply.header(headerNames.nextToken, nextToken);
}

/** Whether a read asked for `?stale` (a malformed value was refused before any read). */
export function staleRead(request: FastifyRequest): boolean {
  try {
    return parseStale(queryOf(request));
  } catch {
    return false;
  }
}

/** Writes a successful result. */
function sendResult(request: FastifyRequest, reply: FastifyReply, result: Result): FastifyReply {
  if (result.read) setReadMeta(request, reply, result.index ?? 0, result.nextToken);
  else if (result.index !== undefined) reply.header(agentMeta(request).headerNames.index, String(result.index));
  if (result.text !== undefined) return reply.code(200).header("Content-Type", result.text.contentType).send(Buffer.from(result.text.body));
  if (result.body === undefined && result.json === undefined) return reply.code(result.status ?? 200).header(EMPTY_BODY_HEADER, "1").send(Buffer.alloc(0));
  const body = result.json ?? Buffer.from(stringifyJson(result.body, wantsPretty(queryOf(request))));
  return reply.code(result.status ?? 200).header("Content-Type", "application/json").send(body);
}

/** A route handler dispatching on the method; other methods are `405 Invalid method`. */
export function byMethod(handlers: Partial<Record<string, Handler>>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const handler = handlers[request.method];
    if (handler === undefined) throw invalidMethod();
    // While a test has the leader lost, what the reference forwards to its leader fails here
    // (decided by the route's pattern, however the path was spelled). A server of the UI's files
    // alone, as their tests build one, has no agent meta and no leader to lose.
    const leader = AGENTS.get(request.server)?.leader;
    if (leader?.lost) leader.requireLeader({ method: request.method, path: request.routeOptions.url ?? "", query: queryOf(request), headers: request.headers });
    const result = await handler(request, reply);
    return result === undefined ? reply : sendResult(request, reply, result);
  };
}

/** The body of a request as text ("" when there is none). */
export function bodyText(request: FastifyRequest): string {
  return typeof request.body === "string" ? request.body : "";
}

/**
 * The body of a request decoded into the Go struct `schema` describes (named `typeName` in Go's
 * error texts); a body that is not that struct is a 400 with Go's words.
 */
export function objectBody(request: FastifyRequest, schema: ObjectSchema, typeName: string): JsonObject {
  return decodeBody(bodyText(request), schema, typeName);
}

/** A route for a path whose name part is empty (`/v1/acl/policy/`): every method is a 400 with `message`. */
export function missingName(message: string) {
  const refuse = async (): Promise<Result> => {
    throw badRequest(message);
  };
  return byMethod({ GET: refuse, PUT: refuse, POST: refuse, DELETE: refuse });
}
