/**
 * The HTTP adapter: fastify with gzip, the routes, and the one place that turns errors into
 * responses (plain text, the status from the error's class). Every response carries
 * `Vary: Accept-Encoding`.
 *
 * @module
 */
import compress from "@fastify/compress";
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { AccessControl } from "../domain/acl.js";
import type { EventBroker } from "../domain/events.js";
import type { Cluster } from "../scheduler/cluster.js";
import { responseOf } from "./errors.js";
import { EMPTY_BODY_HEADER, sendText, staleRead, TEXT, useAgentMeta, type HttpSettings, type RouteContext } from "./route.js";
import type { Peers } from "../domain/members.js";
import { checkHeapForWrite } from "../state/heap-limit.js";
import type { PostgresStore } from "../state/postgres/store.js";
import { BoundedCache } from "../list/bounded-cache.js";
import { FilterCache } from "../list/filter-cache.js";
import type { ListAnswer, ListContext } from "../list/pipeline.js";
import { ListLane } from "./list-lane.js";
import type { Metrics } from "../metrics/index.js";
import type { Store } from "../state/store.js";
import { aclRoutes } from "./acl-routes.js";
import { eventRoutes } from "./event-routes.js";
import { deregisterJob, jobRoutes } from "./job-routes.js";
import { metricsRoutes } from "./metrics-routes.js";
import { deploymentRoutes } from "./deployment-routes.js";
import { nodeRoutes } from "./node-routes.js";
import { volumeRoutes } from "./volume-routes.js";
import { actionRoutes } from "./action-routes.js";
import { clientRoutes } from "./client-routes.js";
import { clientFsRoutes } from "./client-fs-routes.js";
import { planRoutes } from "./plan-routes.js";
import { jobspecRoutes } from "./jobspec-routes.js";
import { serviceRoutes } from "./service-routes.js";
import { searchRoutes } from "./search-routes.js";
import { operatorRoutes } from "./operator-routes.js";
import { raftRoutes } from "./raft-routes.js";
import { clientNodeRoutes } from "./client-node-routes.js";
import { nodePoolRoutes } from "./node-pool-routes.js";
import { scalingRoutes } from "./scaling-routes.js";
import { namespaceRoutes } from "./namespace-routes.js";
import { readRoutes } from "./read-routes.js";
import { uiRoutes } from "./ui-routes.js";
import { controlHook, controlRoutes } from "./control-routes.js";
import { simulationRoutes } from "./simulation-routes.js";
import type { ControlPlane } from "../control/plane.js";
import { fixtureRoutes } from "./fixture-routes.js";
import { BrowserGuard, type BrowserRefusal } from "../control/browser-guard.js";
import type { JournalObservation } from "../control/journal.js";
import { answeredWithoutLeader, forwardedToLeader } from "../control/leader.js";
import type { StateControl } from "../control/state-control.js";
import { MAX_BODY_BYTES, MAX_PATH_PARAM_LENGTH, MAX_HEADER_BYTES } from "./constants.js";
import { agentRoutes } from "./agent-routes.js";
import { variableRoutes } from "./variable-routes.js";
import { headerHint } from "./header-hint.js";
import { UnservedRoutes } from "./unserved-routes.js";

export type { HttpSettings } from "./route.js";

/** How often the server looks for requests that are taking too long to arrive. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };

/**
 * A destination for pino (fastify's logger) that writes each event as one line of text: time,
 * level, message, then the request or error it is about. Written here rather than taken from
 * pino-pretty, whose thirteen dependencies would serve a handful of lines; fastify's own
 * "Server listening at" is left out, since `bexpr agent` prints its address itself.
 */
function textLog(out: NodeJS.WritableStream): { write(line: string): void } {
  return {
    write(line: string): void {
      let event: { level?: number; time?: number; msg?: string; reqId?: string; req?: { method?: string; url?: string }; res?: { statusCode?: number }; responseTime?: number; err?: { stack?: string; message?: string } };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        out.write(line);
        return;
      }
      if (event.msg?.startsWith("Server listening at ")) return;
      const time = new Date(event.time ?? Date.now()).toISOString().slice(11, 23);
      const id = event.reqId === undefined ? "" : ` ${event.reqId}`;
      const request = event.req === undefined ? "" : ` ${event.req.method ?? ""} ${event.req.url ?? ""}`;
      const response = event.res?.statusCode === undefined ? "" : ` ${event.res.statusCode}${event.responseTime === undefined ? "" : ` in ${event.responseTime.toFixed(1)} ms`}`;
      const error = event.err?.stack === undefined ? "" : `\n${event.err.stack}`;
      out.write(`${time} ${LEVEL_NAMES[event.level ?? 30] ?? "INFO"} ${event.msg ?? ""}${id}${request}${response}${error}\n`);
    },
  };
}

/**
 * Answers a request the {@link BrowserGuard} refused, before the journal, the lane and the router
 * see it (as the client errors below): plain text, then the connection is closed, the body unread.
 */
function refuse(response: ServerResponse, refusal: BrowserRefusal): void {
  const body = Buffer.from(refusal.message);
  response.writeHead(refusal.status, { Vary: "Accept-Encoding", "Content-Type": TEXT, "Content-Length": body.length, Connection: "close" });
  response.end(body);
}

/** The agent's server, with the count of requests being answered (for a graceful close). */
export interface AgentServer {
  readonly app: FastifyInstance;
  requestsInFlight(): number;
}

/** The writes a full heap does not refuse, though their method is `PUT` or `POST`: they free memory. */
export const WRITES_WHEN_FULL: readonly string[] = ["/v1/system/gc"];

/** Whether a request (its method and route pattern) may add to the state: a `PUT` or `POST` of `/v1/` that frees none. */
function addsToState(method: string, path: string): boolean {
  return (method === "PUT" || method === "POST") && forwardedToLeader(path) && !WRITES_WHEN_FULL.includes(path);
}

/** How the agent takes part in a cluster: its peers, and the state it shares with them (none for an agent of its own). */
export interface ClusterPart {
  readonly peers: Peers;
  readonly shared?: PostgresStore;
}

/** Builds the agent's HTTP server (not yet listening). */
export async function buildApp(
  store: Store,
  cluster: Cluster,
  acl: AccessControl,
  settings: HttpSettings,
  metrics: Metrics,
  part: ClusterPart,
  events: EventBroker,
  control: ControlPlane,
  state?: StateControl,
): Promise<AgentServer> {
  const { requestTimeoutMs } = settings.limits;
  const lists: ListContext = {
    store,
    acl,
    metrics,
    region: settings.region,
    filterCostPerRequest: settings.limits.filterCostPerRequest,
    filters: new FilterCache(metrics, settings.limits.filterCacheBytes),
    answers: new BoundedCache<ListAnswer>(settings.limits.responseCacheBytes),
    computing: new Map(),
    shared: part.shared !== undefined,
  };
  const lane = new ListLane(lists, settings.headerNames);
  const guard = new BrowserGuard(settings);
  // Told once, through the agent's log, when a client of the reference sends its headers to an agent of the svc style.
  const hint = headerHint(settings.headerNames.style, (message) => app.log.warn(message));
  const app = Fastify({
    logger: settings.logLevel === "silent" ? false : { level: settings.logLevel, ...(settings.logFormat === "text" ? { stream: textLog(process.stdout) } : {}) },
    exposeHeadRoutes: false,
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // A client gets `requestTimeoutMs` to send its headers and body, checked every second (Node
    // checks every 30 s by default, and fastify turns the timeout off).
    serverFactory: (handler: RequestListener) => {
      /** Answers `request` from the lane when `laneOpen` and it can, else hands it to the router. */
      const laneOrRouter = (request: IncomingMessage, response: ServerResponse, observation: JournalObservation, laneOpen: boolean) => {
        const answered = laneOpen ? lane.serve(request, response) : undefined;
        if (answered !== undefined) return observation.answered(answered.index);
        // Every response carries this Vary (the onSend hook below sets it on routed ones). Set before
        // the router, it also keeps the headers later given to writeHead readable (Node keeps them
        // only when one was set before), and the journal reads the answer's index header there.
        response.setHeader("Vary", "Accept-Encoding");
        handler(request, response);
      };
      return createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: requestTimeoutMs, headersTimeout: requestTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, (request, response) => {
        hint(request, response);
        // A web page's way in (DNS rebinding, a cross-site write) is shut first, for every path and the lane.
        const refusal = guard.refusal(request);
        if (refusal !== undefined) return refuse(response, refusal);
        const observation = control.journal.observe(request, response);
        // A repeated list request whose answer is current is written before the router runs (not
        // while a fault may fire or the leader is lost: the router's hooks and headers apply then).
        // Its headers (Vary among them) go to writeHead at once, as a bare server's do: no header
        // set before makes Node merge them one by one; the journal is told the answer's index.
        const { shared } = part;
        if (shared !== undefined && control.laneOpen && lane.remembers(request)) {
          // A consistent read of a shared state sees every write committed before it came: the copy
          // catches up first (the router's hook would), and the lane answers if the answer is current
          // and a leader is known (its headers say so); else, or when the database is away, the router.
          void shared.catchUp().then(
            () => laneOrRouter(request, response, observation, control.laneOpen && part.peers.knownLeader),
            () => laneOrRouter(request, response, observation, false),
          );
          return;
        }
        laneOrRouter(request, response, observation, control.laneOpen);
      });
    },
    // Malformed requests and requests too slow to arrive: a plain-text 4xx, then the connection closes.
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (!socket.writable) return socket.destroy();
      const [status, reason] =
        error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? ["408 Request Timeout", `the request was not received within ${requestTimeoutMs} ms`]
          : error.code === "HPE_HEADER_OVERFLOW"
            ? ["431 Request Header Fields Too Large", "the request's headers are too large"]
            : ["400 Bad Request", "the request is not valid HTTP"];
      socket.end(`HTTP/1.1 ${status}\r\nContent-Type: ${TEXT}\r\nContent-Length: ${Buffer.byteLength(reason)}\r\nConnection: close\r\n\r\n${reason}`);
    },
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
  // After the in-flight count: a request a fault delays is in flight, and `close` waits for it.
  controlHook(app, control);
  const { shared } = part;
  if (shared !== undefined) {
    // A consistent read sees every write committed before it arrived, whichever agent made it
    // (as the reference's leader answers reads): the agent's copy catches up first. `?stale` reads
    // are answered from the copy as it is, as is what a server answers on its own (`/v1/agent/…`,
    // `/v1/metrics`: the reference does not forward them to its leader), also while the database is away.
    app.addHook("preHandler", async (request) => {
      if (request.method === "GET" && !answeredWithoutLeader(request.routeOptions.url ?? request.url) && !staleRead(request)) await shared.catchUp();
    });
  }
  // Past limits.stateHeapFraction of the heap, a write that adds to the state is refused (503)
  // rather than taken until the process runs out of heap (state/heap-limit.ts).
  app.addHook("preHandler", async (request) => {
    if (addsToState(request.method, request.routeOptions.url ?? request.url)) checkHeapForWrite(settings.limits.stateHeapFraction);
  });
  useAgentMeta(app, { peers: part.peers, headerNames: settings.headerNames, leader: control.leader });

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

  // Every route the agent serves, for the answer to the paths it does not (`unserved-routes.ts`).
  const unserved = new UnservedRoutes();
  app.addHook("onRoute", (route) => unserved.served(route.url));

  // Bodies are read as text; the JSON decoding (with Go's error texts) is the handlers'.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: unknown, request, reply) => {
    const response = responseOf(error);
    if (response !== undefined) return sendText(reply, response.status, response.message);
    const { statusCode: status, message } = error as { statusCode?: number; message?: string };
    if (status !== undefined && status >= 400 && status < 500) {
      return sendText(reply, status, status === 413 ? `Request body is larger than ${MAX_BODY_BYTES} bytes` : String(message));
    }
    request.log.error(error);
    return sendText(reply, 500, "Internal error");
  });

  const context: RouteContext = { store, cluster, acl, settings, metrics, lists, lane, peers: part.peers };
  jobRoutes(app, context);
  metricsRoutes(app, context);
  aclRoutes(app, context);
  namespaceRoutes(app, context);
  deploymentRoutes(app, context);
  nodeRoutes(app, context);
  volumeRoutes(app, context);
  actionRoutes(app, context);
  clientRoutes(app, context);
  clientFsRoutes(app, context);
  variableRoutes(app, context);
  planRoutes(app, context);
  jobspecRoutes(app, context);
  serviceRoutes(app, context);
  searchRoutes(app, context);
  operatorRoutes(app, context);
  raftRoutes(app, context);
  nodePoolRoutes(app, context);
  scalingRoutes(app, context);
  readRoutes(app, context, { job: { DELETE: deregisterJob(context) } });
  uiRoutes(app, context);
  eventRoutes(app, context, events);
  controlRoutes(app, context, control);
  if (state !== undefined) fixtureRoutes(app, context, control, state);
  simulationRoutes(app, context, control);
  clientNodeRoutes(app, context, control);
  agentRoutes(app, context, control.leader);

  // Unknown paths: a route of the reference the agent does not simulate is named as such
  // (`unserved-routes.ts`); any other, an empty 404 (and the UI redirect for `/`), as the reference's fallthrough.
  app.all("*", async (request, reply) => {
    const url = new URL(request.url, "http://agent");
    if (request.method === "GET" && url.pathname === "/") {
      return reply.code(307).header("Location", `/ui/${url.search}`).header(EMPTY_BODY_HEADER, "1").send(Buffer.alloc(0));
    }
    const answer = unserved.answer(request.method, url.pathname);
    if (answer !== undefined) throw answer;
    return reply.code(404).header(EMPTY_BODY_HEADER, "1").send(Buffer.alloc(0));
  });

  return { app, requestsInFlight: () => inFlight.size };
}
