/**
 * The HTTP adapter: fastify with gzip, the routes, and the one place that turns errors into
 * responses (plain text, the status from the error's class). Every response carries
 * `Vary: Accept-Encoding`.
 *
 * @module
 */
import compress from "@fastify/compress";
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { AccessControl } from "./acl.js";
import type { Cluster } from "./cluster.js";
import { HttpError } from "./http-errors.js";
import { EMPTY_BODY_HEADER, sendText, TEXT, type HttpSettings, type RouteContext } from "./http.js";
import type { Metrics } from "./metrics/index.js";
import { aclRoutes } from "./routes-acl.js";
import { jobRoutes } from "./routes-jobs.js";
import { metricsRoutes } from "./routes-metrics.js";
import { namespaceRoutes } from "./routes-namespaces.js";

export { FILTER_CACHE_SIZE } from "./routes-jobs.js";
export type { HttpSettings } from "./http.js";

/** Largest accepted request body (a job spec); larger bodies get 413. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The agent's server, with the count of requests being answered (for a graceful close). */
export interface AgentServer {
  readonly app: FastifyInstance;
  requestsInFlight(): number;
}

/** Builds the agent's HTTP server (not yet listening). */
export async function buildApp(cluster: Cluster, acl: AccessControl, settings: HttpSettings, metrics: Metrics): Promise<AgentServer> {
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
  app.addHook("onResponse", async (request, reply) => {
    inFlight.delete(request);
    // The route's pattern, not the path, so that names (`/v1/acl/policy/:name`) do not make new series.
    metrics.request(request.method, request.routeOptions.url ?? "*", reply.statusCode, reply.elapsedTime);
  });
  app.addHook("onRequestAbort", async (request) => {
    inFlight.delete(request);
  });

  await app.register(compress, { global: true, threshold: 0, syncThreshold: 0, encodings: ["gzip", "deflate"] });

  // Runs last on every route (after compression): Vary on every response, and empty bodies as the
  // reference sends them (no Content-Type, unless compressed, when Go sniffs text/plain).
  app.addHook("onRoute", (route) => {
    const finish = async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      reply.header("Vary", "Accept-Encoding");
      if (reply.getHeader(EMPTY_BODY_HEADER) !== undefined) {
        reply.removeHeader(EMPTY_BODY_HEADER);
        if (reply.getHeader("content-encoding") === undefined) reply.removeHeader("content-type");
        else reply.header("content-type", TEXT);
      }
      return payload;
    };
    route.onSend = route.onSend === undefined ? [finish] : [...[route.onSend].flat(), finish];
  });

  // Bodies are read as text; the JSON decoding (with Go's error texts) is the handlers'.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof HttpError) return sendText(reply, error.status, error.message);
    const { statusCode: status, message } = error as { statusCode?: number; message?: string };
    if (status !== undefined && status >= 400 && status < 500) {
      return sendText(reply, status, status === 413 ? `Request body is larger than ${MAX_BODY_BYTES} bytes` : String(message));
    }
    request.log.error(error);
    return sendText(reply, 500, "Internal error");
  });

  const context: RouteContext = { cluster, acl, settings, metrics };
  jobRoutes(app, context);
  metricsRoutes(app, context);
  aclRoutes(app, context);
  namespaceRoutes(app, context);

  // Unknown paths: an empty 404 (and the UI redirect for `/`), as the reference's fallthrough.
  app.all("*", async (request, reply) => {
    const url = new URL(request.url, "http://agent");
    if (request.method === "GET" && url.pathname === "/") {
      return reply.code(307).header("Location", `/ui/${url.search}`).header(EMPTY_BODY_HEADER, "1").send(Buffer.alloc(0));
    }
    return reply.code(404).header(EMPTY_BODY_HEADER, "1").send(Buffer.alloc(0));
  });

  return { app, requestsInFlight: () => inFlight.size };
}
