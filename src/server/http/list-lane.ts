/**
 * How list answers are written, and the lane that answers a repeated list request before the
 * router sees it.
 *
 * A list answer is written straight to the socket (fastify's reply is hijacked: its `onResponse`
 * hooks still run) when the client takes it as it is or takes gzip only: the answer's bytes, or
 * its gzip kept with it, with the headers of {@link listHeaders} (the meta headers named in the
 * agent's header style). Any other `Accept-Encoding` goes through the compression plugin as every
 * other response does.
 *
 * The lane remembers, for each list request answered so (by its method, raw URL, token headers
 * of the agent's style and encoding), where its answer is in the pipeline's answer cache. When
 * the same request comes again and the answer is still current (the list's tables and the ACL
 * tables at the same indexes, the token not expired, and no blocking wait due), it is written at
 * once, with the same metrics as the pipeline would record, without parsing, routing, or running
 * the pipeline. A request the lane does not know, or whose answer has moved on, goes the usual way.
 *
 * An agent sharing its state (PostgreSQL) asks the lane only after the barrier of a consistent read
 * (its copy brought up to the database's index as of the request's arrival, as the router's hook
 * does): the answer cache is keyed by the copy's indexes, so a current answer there is the one the
 * router would read. Its `?stale` reads, whose `LastContact` varies, always go through the router.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ListEndpoint } from "../list/endpoints.js";
import { aclIndex, answerKeyAt, gzipOf, gzipReady, type ListAnswer, type ListContext, type Listed } from "../list/pipeline.js";
import { BoundedCache } from "../list/bounded-cache.js";
import { METRICS } from "../metrics/index.js";
import type { HeaderNames } from "../base/header-names.js";
import { LIST_LANE_BYTES } from "./constants.js";

/** How a list answer is encoded for a client. */
export type ListEncoding = "identity" | "gzip";

/**
 * The encoding the lane writes for a request's headers: `identity` when the client names no
 * encoding, `gzip` when gzip is the only one the compression plugin supports (gzip, deflate) that
 * it names, without weights; undefined for anything else (left to the plugin).
 */
export function listEncoding(headers: IncomingMessage["headers"]): ListEncoding | undefined {
  if (headers["x-no-compression"] !== undefined) return undefined;
  const header = headers["accept-encoding"];
  if (header === undefined) return "identity";
  if (header.includes(";")) return undefined;
  let named: string | undefined;
  for (const part of header.split(",")) {
    const token = part.trim().toLowerCase();
    if (token !== "gzip" && token !== "deflate" && token !== "*" && token !== "identity") continue;
    if (named !== undefined) return undefined;
    named = token;
  }
  return named === "gzip" ? "gzip" : undefined;
}

/** The agent's header names as the lane writes them (lower-case, as fastify writes the router's) and reads its keys' token header (as Node gives request headers). */
function lowerCased(names: HeaderNames): HeaderNames {
  const { style, token, index, knownLeader, lastContact, nextToken } = names;
  return { style, token: token.toLowerCase(), index: index.toLowerCase(), knownLeader: knownLeader.toLowerCase(), lastContact: lastContact.toLowerCase(), nextToken: nextToken.toLowerCase() };
}

/**
 * The headers of a list answer: the reference's meta headers (named by `names`), the content's,
 * and `Vary`. A gzip body is sent as the compression plugin and the reference send one, chunked,
 * without a length.
 */
export function listHeaders(names: HeaderNames, answer: ListAnswer, encoding: ListEncoding, length: number): Record<string, string> {
  return {
    // First, where a routed answer has it (set before the router): the lane's bytes are the router's.
    vary: "Accept-Encoding",
    [names.index]: String(answer.index),
    [names.knownLeader]: "true",
    [names.lastContact]: "0",
    ...(answer.nextToken === "" ? {} : { [names.nextToken]: answer.nextToken }),
    "content-type": "application/json",
    ...(encoding === "gzip" ? { "content-encoding": "gzip" } : {}),
    ...(encoding === "gzip" ? {} : { "content-length": String(length) }),
  };
}

/**
 * {@link listHeaders} as the flat list of names and values `writeHead` also takes: Node then
 * writes them in a counted loop, where an object costs it a `for…in` with an own-property check a
 * header, on objects of every shape the router's responses also pass through it.
 */
export function listHeaderList(names: HeaderNames, answer: ListAnswer, encoding: ListEncoding, length: number): string[] {
  return Object.entries(listHeaders(names, answer, encoding, length)).flat();
}

/**
 * The headers of each answer written, by encoding, made once: a page polled again and again is
 * written with the same list. Weak: an answer the answer cache lets go takes its headers along.
 */
type WrittenHeaders = WeakMap<ListAnswer, Partial<Record<ListEncoding, string[]>>>;

/** Writes a list answer to `response` in `encoding`, its body given (the answer's, or its gzip); its headers made once into `written`. */
function writeAnswer(response: ServerResponse, names: HeaderNames, answer: ListAnswer, encoding: ListEncoding, body: Buffer, written: WrittenHeaders): void {
  let byEncoding = written.get(answer);
  if (byEncoding === undefined) written.set(answer, (byEncoding = {}));
  response.writeHead(200, (byEncoding[encoding] ??= listHeaderList(names, answer, encoding, body.length)));
  if (encoding === "gzip") {
    // Written before the end, so that Node sends it chunked rather than count its length.
    response.write(body);
    response.end();
  } else {
    response.end(body);
  }
}

/** A GET without a body: the only requests the lane remembers and answers. */
function isBodilessGet(request: IncomingMessage): boolean {
  return request.method === "GET" && request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined;
}

/** What the lane knows of one request it can answer. */
interface LaneEntry {
  readonly endpoint: ListEndpoint<unknown>;
  /** The request's part of the answer cache's key (see {@link answerKey}). */
  readonly requestKey: string;
  readonly encoding: ListEncoding;
  /** The request's `?index`: an answer at or below it must wait, which only the pipeline does. */
  readonly minQueryIndex: number;
  /** When the request's token expires (epoch milliseconds; Infinity when it does not). */
  readonly expiresAt: number;
  /** Records what the pipeline would: a pass of the query, the answer, the request and its time. */
  readonly record: (elapsedMs: number) => void;
  /**
   * The answer cache's key at the indexes it was last made at (see {@link answerKeyAt}): made again
   * only when one of them moved, so that a page polled again and again builds no string for it.
   */
  answerKey: string;
  listIndex: number;
  aclIndex: number;
}

/** The fast lane of repeated list requests (see the module's description). */
export class ListLane {
  readonly #entries = new BoundedCache<LaneEntry>(LIST_LANE_BYTES);
  /** The recorders of each endpoint and route (a handful), made once. */
  readonly #recorders = new Map<string, (elapsedMs: number) => void>();
  /** The agent's header names, lower-case (see {@link lowerCased}). */
  readonly #names: HeaderNames;
  readonly #written: WrittenHeaders = new WeakMap();

  /**
   * @param context - the list pipeline's context, whose answer cache the lane reads.
   * @param names - the agent's header names: the token header of the lane's keys, the meta headers of its answers.
   */
  constructor(
    private readonly context: ListContext,
    names: HeaderNames,
  ) {
    this.#names = lowerCased(names);
  }

  /** The metrics of a list request answered by the lane, as {@link LaneEntry.record}. */
  #recorder(endpoint: ListEndpoint<unknown>, route: string): (elapsedMs: number) => void {
    const key = `${endpoint.name} ${route}`;
    let record = this.#recorders.get(key);
    if (record === undefined) {
      const request = { method: "GET", route, code: "200" };
      // One recorder of the five series: the clock and the interval are looked at once an answer.
      const recorder = this.context.metrics.recorder(
        [{ definition: METRICS.rpcQuery }, { definition: METRICS.listAnswers, labels: { endpoint: endpoint.name, source: "lane" } }, { definition: METRICS.httpRequests, labels: request }],
        [...(endpoint.timer === undefined ? [] : [{ definition: endpoint.timer }]), { definition: METRICS.httpRequest, labels: request }],
      );
      record = (elapsedMs) => recorder(1, elapsedMs);
      this.#recorders.set(key, record);
    }
    return record;
  }

  /**
   * The lane's key of a request: method, raw URL, token headers and encoding. The token headers
   * are those the agent reads (its style's, and `Authorization`), so that requests of different
   * tokens never share an answer.
   */
  #keyOf(request: IncomingMessage, encoding: ListEncoding): string {
    const { headers } = request;
    return `${encoding} ${request.url ?? ""}\n${headers[this.#names.token] ?? ""}\n${headers.authorization ?? ""}`;
  }

  /** The entry of a request the lane remembers (a GET without a body, its token not expired), and the encoding it is written in. */
  #entryOf(request: IncomingMessage): { readonly entry: LaneEntry; readonly encoding: ListEncoding } | undefined {
    if (!isBodilessGet(request)) return undefined;
    const encoding = listEncoding(request.headers);
    if (encoding === undefined) return undefined;
    const entry = this.#entries.get(this.#keyOf(request, encoding));
    // The token's expiry on the agent's clock, as the ACL reads it (a test may drive that clock).
    if (entry === undefined || this.context.acl.now() >= entry.expiresAt) return undefined;
    return { entry, encoding };
  }

  /**
   * Whether the lane remembers `request`: an agent sharing its state then brings its copy up to
   * the database (the barrier of a consistent read) before it asks the lane to {@link ListLane.serve} it,
   * and sends the request to the router without that wait otherwise.
   */
  remembers(request: IncomingMessage): boolean {
    return this.#entryOf(request) !== undefined;
  }

  /**
   * Answers `request` from the lane when it can (see the module's description); returns the answer
   * written, or undefined when it did not. Only GET requests without a body are answered here. On
   * an agent sharing its state, only once its copy caught up with the database after the request
   * came (`PostgresStore.catchUp`): the answer is then the one the router would read, at the same
   * index, with the same headers (see {@link ListLane.send}).
   */
  serve(request: IncomingMessage, response: ServerResponse): ListAnswer | undefined {
    const found = this.#entryOf(request);
    if (found === undefined) return undefined;
    const start = performance.now();
    const { entry, encoding } = found;
    const { store, answers } = this.context;
    const listIndex = store.tableIndex(...entry.endpoint.tables);
    const aclTablesIndex = aclIndex(store);
    if (listIndex !== entry.listIndex || aclTablesIndex !== entry.aclIndex) {
      entry.answerKey = answerKeyAt(listIndex, aclTablesIndex, entry.requestKey);
      entry.listIndex = listIndex;
      entry.aclIndex = aclTablesIndex;
    }
    const answer = answers.get(entry.answerKey);
    if (answer === undefined || (entry.minQueryIndex > 0 && answer.index <= entry.minQueryIndex)) return undefined;
    // A large body's gzip not made yet is made on the router's path, off the event loop.
    const body = encoding === "gzip" ? gzipReady(answer) : answer.body;
    if (body === undefined) return undefined;
    writeAnswer(response, this.#names, answer, encoding, body, this.#written);
    entry.record(performance.now() - start);
    return answer;
  }

  /**
   * Writes a list answer for a request that went through the router, straight to the socket when
   * the lane writes its encoding (and remembers the request for next time); returns false, writing
   * nothing, when the compression plugin must encode it.
   */
  async send<Row>(request: FastifyRequest, reply: FastifyReply, endpoint: ListEndpoint<Row>, listed: Listed, minQueryIndex: number, stale: boolean): Promise<boolean> {
    const { answer, requestKey, expiresAt } = listed;
    const encoding = listEncoding(request.headers);
    // A `?stale` read of an agent sharing its state says how old its copy may be (`LastContact`),
    // which varies: the router writes it. A consistent read's headers are the lane's (a leader
    // known, the caller checked that; `LastContact` 0).
    if (encoding === undefined || (this.context.shared && stale)) return false;
    const body = encoding === "gzip" ? await gzipOf(answer) : answer.body;
    reply.hijack();
    writeAnswer(reply.raw, this.#names, answer, encoding, body, this.#written);
    if (isBodilessGet(request.raw)) {
      const key = this.#keyOf(request.raw, encoding);
      // No key yet (indexes no store has): the first answer from the lane makes it.
      const entry: LaneEntry = { endpoint: endpoint as ListEndpoint<unknown>, requestKey, encoding, minQueryIndex, expiresAt, record: this.#recorder(endpoint as ListEndpoint<unknown>, request.routeOptions.url ?? "*"), answerKey: "", listIndex: -1, aclIndex: -1 };
      this.#entries.set(key, entry, 2 * (key.length + requestKey.length) + 64);
    }
    return true;
  }
}
