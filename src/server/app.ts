/**
 * The HTTP adapter: fastify routes for the agent's endpoints, and the one place that turns
 * results and errors into responses (JSON or plain text, pretty output, meta headers, gzip,
 * `Vary: Accept-Encoding` on every response).
 *
 * @module
 */
import compress from "@fastify/compress";
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { FilterEvaluationError, FilterSyntaxError } from "../errors.js";
import { compileFilter } from "../filter.js";
import type { Filter } from "../evaluator/compile.js";
import { blockingQuery } from "./blocking.js";
import type { Cluster } from "./cluster.js";
import { deploymentsEndpoint, jobsEndpoint, type ListEndpoint } from "./endpoints.js";
import { badRequest, HttpError, invalidMethod } from "./http-errors.js";
import { stringifyJson } from "../json.js";
import { decodeJsonBody } from "./json.js";
import { membersResponse, type MemberIdentity } from "./members.js";
import { cutPage } from "./pagination.js";
import { parseQueryOptions, type QueryOptions } from "./query.js";
import { decodeRegisterRequest } from "./register.js";

/** Largest accepted request body (a job spec); larger bodies get 413. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** How many compiled filters are kept for reuse (polling clients send the same filter again and again). */
export const FILTER_CACHE_SIZE = 256;

/** The agent's identity and settings the HTTP layer needs. */
export interface HttpSettings extends MemberIdentity {
  readonly logLevel: string;
}

/** A response body: JSON (with the meta headers of a read) or nothing. */
interface Result {
  readonly body: unknown;
  /** The `X-Svc-Index` value; list reads also send the leader headers. */
  readonly index?: number;
  readonly nextToken?: string;
  readonly read?: boolean;
}

const TEXT = "text/plain; charset=utf-8";

/** Builds the agent's HTTP server (not yet listening). */
export async function buildApp(cluster: Cluster, settings: HttpSettings): Promise<FastifyInstance> {
  const app = Fastify({
    logger: settings.logLevel === "silent" ? false : { level: settings.logLevel },
    exposeHeadRoutes: false,
    bodyLimit: MAX_BODY_BYTES,
    // One log line per request only at debug and trace levels.
    logController: new LogController({ disableRequestLogging: settings.logLevel !== "debug" && settings.logLevel !== "trace" }),
    // `Agent.close` answers in-flight requests first, then lingering connections are cut.
    forceCloseConnections: true,
  });
  const inFlight = new Set<FastifyRequest>();
  app.addHook("onRequest", async (request) => {
    inFlight.add(request);
  });
  app.addHook("onResponse", async (request) => {
    inFlight.delete(request);
  });
  app.addHook("onRequestAbort", async (request) => {
    inFlight.delete(request);
  });
  app.decorate("requestsInFlight", () => inFlight.size);
  await app.register(compress, { global: true, threshold: 0, syncThreshold: 0, encodings: ["gzip", "deflate"] });

  // Runs last on every route (after compression): Vary on every response, and the empty 404 as
  // the reference sends it (no Content-Type unless compressed).
  app.addHook("onRoute", (route) => {
    const finish = async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      reply.header("Vary", "Accept-Encoding");
      if (reply.statusCode === 404 && reply.getHeader("x-svc-empty") !== undefined) {
        reply.removeHeader("x-svc-empty");
        if (reply.getHeader("content-encoding") === undefined) reply.removeHeader("content-type");
        else reply.header("content-type", TEXT);
      }
      return payload;
    };
    route.onSend = route.onSend === undefined ? [finish] : [...[route.onSend].flat(), finish];
  });

  // Bodies are read as text; the JSON decoding (with Go's error texts) is the handler's.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof HttpError) return sendText(reply, error.status, error.message);
    const { statusCode: status, message: text } = error as { statusCode?: number; message?: string };
    if (status !== undefined && status >= 400 && status < 500) {
      const message = status === 413 ? `Request body is larger than ${MAX_BODY_BYTES} bytes` : String(text);
      return sendText(reply, status, message);
    }
    request.log.error(error);
    return sendText(reply, 500, "Internal error");
  });

  const filters = new FilterCache();
  const methods = (handlers: Partial<Record<string, (request: FastifyRequest, reply: FastifyReply) => Promise<Result>>>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const handler = handlers[request.method];
      if (handler === undefined) throw invalidMethod();
      return sendResult(request, reply, await handler(request, reply));
    };

  app.all(
    "/v1/jobs",
    methods({
      GET: (request, reply) => list(cluster, jobsEndpoint, request, reply, settings, filters),
      PUT: (request) => register(cluster, request, settings),
      POST: (request) => register(cluster, request, settings),
    }),
  );
  app.all("/v1/deployments", methods({ GET: (request, reply) => list(cluster, deploymentsEndpoint, request, reply, settings, filters) }));
  app.all("/v1/agent/members", methods({ GET: async () => ({ body: membersResponse(settings) }) }));
  app.all("/v1/metrics", methods({ GET: async () => ({ body: emptyMetrics() }) }));

  // Unknown paths: an empty 404 (and the UI redirect for `/`), as the reference's fallthrough.
  app.all("*", async (request, reply) => {
    const url = new URL(request.url, "http://agent");
    if (request.method === "GET" && url.pathname === "/") {
      return reply.code(307).header("Location", `/ui/${url.search}`).type(TEXT).send(Buffer.alloc(0));
    }
    return reply.code(404).header("x-svc-empty", "1").send(Buffer.alloc(0));
  });

  return app;
}

function sendText(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type(TEXT).send(Buffer.from(message));
}

function queryOf(request: FastifyRequest): URLSearchParams {
  return new URL(request.url, "http://agent").searchParams;
}

/** Writes a successful result: JSON (pretty on request), with the meta headers of reads. */
function sendResult(request: FastifyRequest, reply: FastifyReply, result: Result): FastifyReply {
  const query = queryOf(request);
  const pretty = query.has("pretty") && query.get("pretty") !== "0";
  if (result.index !== undefined) reply.header("X-Svc-Index", String(result.index));
  if (result.read) {
    reply.header("X-Svc-Knownleader", "true");
    reply.header("X-Svc-Lastcontact", "0");
    if (result.nextToken) reply.header("X-Svc-Nexttoken", result.nextToken);
  }
  return reply.code(200).header("Content-Type", "application/json").send(Buffer.from(stringifyJson(result.body, pretty)));
}

/** The agent serves its own region only; others have no servers to forward to. */
function checkRegion(region: string, settings: HttpSettings): void {
  if (region !== settings.region) throw new HttpError(500, "No path to region");
}

/** Compiled filters by text, most recently used last. */
class FilterCache {
  readonly #entries = new Map<string, Filter>();

  get(source: string, endpoint: ListEndpoint<unknown>): Filter {
    const key = `${endpoint.capability}\u0000${source}`;
    const cached = this.#entries.get(key);
    if (cached !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, cached);
      return cached;
    }
    let filter: Filter;
    try {
      filter = compileFilter(source, { schema: endpoint.schema });
    } catch (error) {
      if (error instanceof FilterSyntaxError) {
        throw badRequest(`failed to create result paginator: failed to read filter expression: ${error.message}`);
      }
      throw error;
    }
    this.#entries.set(key, filter);
    if (this.#entries.size > FILTER_CACHE_SIZE) this.#entries.delete(this.#entries.keys().next().value!);
    return filter;
  }
}

/** An AbortSignal that fires when the client goes away before the response is written. */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The shared list pipeline: query options, blocking, filter, namespaces, page. */
async function list<Row>(
  cluster: Cluster,
  endpoint: ListEndpoint<Row>,
  request: FastifyRequest,
  reply: FastifyReply,
  settings: HttpSettings,
  filters: FilterCache,
): Promise<Result> {
  const query = queryOf(request);
  const options: QueryOptions = parseQueryOptions(query, request.headers, settings.region);
  const itemOptions = endpoint.itemOptions(query);
  checkRegion(options.region, settings);
  if (options.filter !== "" && options.prefix !== "") throw badRequest("Filter expression cannot be used with other filter parameters");
  const filter = options.filter === "" ? undefined : filters.get(options.filter, endpoint as ListEndpoint<unknown>);

  const answer = await blockingQuery(cluster.store, endpoint.tables, options.minQueryIndex, options.maxQueryTime, clientGone(reply), () => {
    const rows = endpoint.rows(cluster, options.namespace, options.prefix);
    let page;
    try {
      page = cutPage(
        {
          rows,
          token: (row) => endpoint.token(row, options.prefix),
          compare: (token, next) => endpoint.compare(token, next, options.prefix),
          filterTarget: (row) => endpoint.filterTarget(row, cluster),
          permitted: () => true,
        },
        { perPage: options.perPage, nextToken: options.nextToken, reverse: options.reverse, filter },
      );
    } catch (error) {
      if (error instanceof FilterEvaluationError) throw badRequest(`failed to read result page: ${describeEvaluationError(error)}`);
      throw error;
    }
    return { index: cluster.store.tableIndex(...endpoint.tables), page };
  });
  return {
    body: answer.page.rows.map((row) => endpoint.item(row, cluster, itemOptions)),
    index: answer.index,
    nextToken: answer.page.nextToken,
    read: true,
  };
}

/** The reference's wording first (clients match on it), then where in the filter it happened. */
function describeEvaluationError(error: FilterEvaluationError): string {
  const lines = error.message.split("\n").slice(1);
  return [error.reason, ...lines].join("\n");
}

/** `PUT /v1/jobs`. */
async function register(cluster: Cluster, request: FastifyRequest, settings: HttpSettings): Promise<Result> {
  const query = queryOf(request);
  // Malformed query options are refused before the body is read, as the reference parses first.
  parseQueryOptions(query, request.headers, settings.region);
  const body = decodeJsonBody(typeof request.body === "string" ? request.body : "");
  const registration = decodeRegisterRequest(body);
  const job = registration.job;
  const namespace = query.get("namespace") || registration.namespace || (typeof job.Namespace === "string" && job.Namespace) || "default";
  let region = query.get("region") || registration.region || (typeof job.Region === "string" ? job.Region : "");
  if (region === "" || region === "global") region = settings.region;
  checkRegion(region, settings);
  const response = cluster.register(registration, namespace, region);
  return { body: response, index: response.Index };
}

/** The metrics document until the metrics issue lands: no intervals recorded yet. */
function emptyMetrics(): unknown {
  const timestamp = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, " +0000 UTC");
  return { Timestamp: timestamp, Gauges: [], Points: [], Counters: [], Samples: [] };
}

