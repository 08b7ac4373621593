/**
 * The control API over HTTP, under `/_bexpr/`: the request journal, the fault rules and the
 * leader switch of `control/`, behind the gate (`control/access.ts`), and the hook that applies
 * the faults to every other request. {@link controlRoute} registers a control route with the
 * gate, for every control route (this module's and those of other modules).
 *
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { FilterEvaluationError, FilterSyntaxError } from "../../errors.js";
import { parseJson } from "../../json.js";
import { isControlPath, requireControlAccess } from "../control/access.js";
import { FAULT_RULE_FIELDS, FaultRuleError, type Fault, type FaultRule } from "../control/faults.js";
import { fieldsInAnyCase, pascalKeys } from "./control-casing.js";
import type { ControlPlane } from "../control/plane.js";
import { badRequest, notFound } from "./errors.js";
import { bodyText, byMethod, EMPTY_BODY_HEADER, param, queryOf, type Handler, type Result, type RouteContext } from "./route.js";
import { JOURNAL_DROPPED_HEADER } from "./constants.js";

/** The paths of the control routes this module serves. */
export const CONTROL_PATHS = {
  requests: "/_bexpr/requests",
  faults: "/_bexpr/faults",
  fault: "/_bexpr/faults/:id",
  leader: "/_bexpr/leader",
} as const;

/**
 * Registers a control route: `path` (under `/_bexpr/`, not a UI path) answers `handlers` by
 * method, each behind the gate: with ACLs on, a management token, else `403 Permission denied`.
 * While control over HTTP is off (see the agent's `control` option) nothing is registered, so the
 * path answers `404` as an unknown one.
 *
 * @example
 * ```ts
 * controlRoute(app, context, control, "/_bexpr/clock", { GET: async () => ({ body: { Now: clock.nowMs() } }) });
 * ```
 * @throws TypeError when `path` is not a control route's.
 */
export function controlRoute(app: FastifyInstance, context: RouteContext, control: ControlPlane, path: string, handlers: Readonly<Partial<Record<string, Handler>>>): void {
  if (!isControlPath(path)) throw new TypeError(`${path} is not a control route's path: control routes live under /_bexpr/ (but /_bexpr/explain)`);
  if (!control.http) return;
  const gated: Partial<Record<string, Handler>> = {};
  for (const [method, handler] of Object.entries(handlers)) {
    if (handler === undefined) continue;
    gated[method] = (request, reply) => {
      requireControlAccess(context.acl, request.headers, context.settings.headerNames);
      return handler(request, reply);
    };
  }
  app.all(path, byMethod(gated));
}

/** A request's JSON body, or the 400 that says why there is none. */
export function jsonBody(request: FastifyRequest): unknown {
  const text = bodyText(request);
  if (text === "") throw badRequest("Request body is empty");
  try {
    return parseJson(text);
  } catch (error) {
    throw badRequest(`the body is not JSON: ${(error as Error).message}`);
  }
}

/** `GET /_bexpr/requests?filter=…`: the journal's entries, oldest first, that match the filter. */
function listRequests(control: ControlPlane, request: FastifyRequest, reply: FastifyReply): Result {
  const filter = queryOf(request).get("filter") ?? "";
  try {
    const entries = control.journal.query(filter);
    reply.header(JOURNAL_DROPPED_HEADER, String(control.journal.dropped));
    return { body: entries };
  } catch (error) {
    if (error instanceof FilterSyntaxError) throw badRequest(`failed to read filter expression: ${error.message}`);
    if (error instanceof FilterEvaluationError) throw badRequest(`failed to evaluate filter: ${error.message}`);
    throw error;
  }
}

/** `POST /_bexpr/faults`: adds the rule of the body, and answers it as listed. */
function addFault(control: ControlPlane, request: FastifyRequest): Result {
  let id: string;
  try {
    id = control.faults.add(fieldsInAnyCase(jsonBody(request), FAULT_RULE_FIELDS) as FaultRule);
  } catch (error) {
    if (error instanceof FaultRuleError) throw badRequest(error.message);
    throw error;
  }
  return { body: faultBody(control.faults.list().find((fault) => fault.id === id)!) };
}

/** A fault as the routes show it: its fields in PascalCase (`ID`, `Status`, `Fired`, `Spent`). */
function faultBody(fault: Fault): Record<string, unknown> {
  return pascalKeys(fault);
}

/**
 * The one field of a request's JSON body that holds only `field` (the value, or undefined when
 * absent), or the 400 that says why not; `example` is such a body, for the message.
 */
export function singleFieldBody(request: FastifyRequest, field: string, example: string): unknown {
  const body = jsonBody(request);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest(`the body must be an object such as ${example}`);
  const { [field]: value, ...rest } = fieldsInAnyCase(body, [field]) as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw badRequest(`unknown field ${JSON.stringify(unknown)}: the body holds ${field} only`);
  return value;
}

/** `PUT /_bexpr/leader` with `{"KnownLeader": false}` (or `true`). */
function setLeader(control: ControlPlane, request: FastifyRequest): Result {
  const known = singleFieldBody(request, "KnownLeader", '{"KnownLeader": false}');
  if (typeof known !== "boolean") throw badRequest(`KnownLeader must be true or false, got ${JSON.stringify(known) ?? "nothing"}`);
  control.leader.set(known);
  return { body: { KnownLeader: !control.leader.lost } };
}

/** Registers the journal's, the faults' and the leader switch's routes (see {@link CONTROL_PATHS}). */
export function controlRoutes(app: FastifyInstance, context: RouteContext, control: ControlPlane): void {
  const route = (path: string, handlers: Readonly<Partial<Record<string, Handler>>>) => controlRoute(app, context, control, path, handlers);
  const empty = async (): Promise<Result> => ({});
  route(CONTROL_PATHS.requests, {
    GET: async (request, reply) => listRequests(control, request, reply),
    DELETE: async () => {
      control.journal.clear();
      return empty();
    },
  });
  route(CONTROL_PATHS.faults, {
    GET: async () => ({ body: control.faults.list().map(faultBody) }),
    POST: async (request) => addFault(control, request),
    DELETE: async () => {
      control.faults.clear();
      return empty();
    },
  });
  const oneFault = (request: FastifyRequest) => {
    const id = param(request, "id");
    const fault = control.faults.list().find((listed) => listed.id === id);
    if (fault === undefined) throw notFound(`fault ${JSON.stringify(id)} not found`);
    return fault;
  };
  route(CONTROL_PATHS.fault, {
    GET: async (request) => ({ body: faultBody(oneFault(request)) }),
    DELETE: async (request) => {
      control.faults.remove(oneFault(request).id);
      return empty();
    },
  });
  route(CONTROL_PATHS.leader, {
    GET: async () => ({ body: { KnownLeader: !control.leader.lost } }),
    PUT: async (request) => setLeader(control, request),
  });
}

/**
 * Once a request is routed: a control route's is left out of the journal and never faulted
 * (decided by the route it reached, however its path was spelled: `/%5Fbexpr/requests` is
 * `/_bexpr/requests`); any other gets the fault rules. A fault that fires waits its latency,
 * then answers with its status, headers and body (through the usual `onSend` hooks: compression,
 * `Vary`), or lets the route answer.
 */
export function controlHook(app: FastifyInstance, control: ControlPlane): void {
  app.addHook("onRequest", async (request, reply) => {
    if (isControlPath(request.routeOptions.url ?? "")) {
      control.journal.skip(request.raw);
      return;
    }
    const action = control.fault(request.raw);
    if (action === undefined) return;
    if (action.latencyMs > 0) await control.delay(action.latencyMs);
    const { answer } = action;
    if (answer === undefined) return;
    reply.code(answer.status);
    if (answer.contentType !== undefined) reply.header("content-type", answer.contentType);
    for (const [name, value] of answer.headers) reply.header(name, value);
    // An empty body goes without a Content-Type, as the agent's own empty answers, unless the rule names one.
    if (answer.body.length === 0 && !reply.hasHeader("content-type")) reply.header(EMPTY_BODY_HEADER, "1");
    return reply.send(answer.body);
  });
}
