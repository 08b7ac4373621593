/**
 * A client agent's allocation endpoints, which the reference's server forwards to the client
 * running the allocation (`command/agent/alloc_endpoint.go`, `ClientAllocRequest`, and
 * `stats_endpoint.go`; the RPCs of `nomad/client_alloc_endpoint.go`), answered for the simulated
 * clients (`scheduler/client-actions.ts`, `client-stats.ts`, `client-checks.ts`):
 *
 * - `/v1/client/allocation/<id>/restart` (`alloc-lifecycle`), `/signal` (`alloc-lifecycle`;
 *   `PUT` or `POST`), `/stats` (`read-job`), `/checks` (`read-job`), `/gc` (`submit-job` or
 *   `gc-allocation`), and `/exec`, `/snapshot`, `/pause`, which are not simulated;
 * - `/v1/allocation/<id>/checks`, the same as the client's;
 * - `/v1/client/gc?node_id=` (`node:write`) and `/v1/client/stats?node_id=` (`node:read`).
 *
 * Each checks, in the reference's order: the token (a 403 for one that is not valid), the
 * allocation (`Unknown allocation "<id>"`, a 404, before any capability is asked), the
 * capability in the allocation's namespace, the node (`Unknown node <id>`, or `No path to node`
 * while it is down), then the client's own checks. These endpoints take any method but
 * `signal`, as the reference's handlers do, and send no index header (they set no query meta).
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { decodeBody, GoJsonError } from "../../go/json.js";
import { checkRegion } from "../base/errors.js";
import { namespaceAccess, type Caller } from "../domain/acl.js";
import { allocationJob } from "../list/endpoints.js";
import { parseQueryOptions } from "../list/query.js";
import { clientAllocation, reachNode } from "../scheduler/client-actions.js";
import { allocChecks } from "../scheduler/client-checks.js";
import { allocStats, hostStats } from "../scheduler/client-stats.js";
import type { Allocation } from "../state/model.js";
import { badRequest, invalidMethod, notFound, permissionDenied } from "./errors.js";
import { bodyText, byMethod, queryOf, type Handler, type Result, type RouteContext } from "./route.js";
import { notSimulated } from "./unserved-routes.js";

/** The body of a restart, as the reference's handler decodes it: an anonymous struct (no name in Go's errors), so the body cannot name another allocation. */
const RESTART_BODY = { kind: "object", typeName: "", fields: { TaskName: "string", AllTasks: "bool" } } as const;

/** `structs.AllocSignalRequest`, which embeds `structs.QueryOptions`. */
const SIGNAL_REQUEST = {
  kind: "object",
  typeName: "structs.AllocSignalRequest",
  fields: { AllocID: "string", Task: "string", Signal: "string", Region: "string", Namespace: "string", AuthToken: "string" },
} as const;

/** Every method: the reference's client endpoints but `signal` check none. */
const ANY_METHOD = ["GET", "PUT", "POST", "DELETE"] as const;

/** The reference's answer to a path of `/v1/client/allocation/` that names no action it has. */
const RESOURCE_NOT_FOUND = "resource not found";

/** `structs.GenericResponse`: what restart and signal answer. */
const GENERIC_RESPONSE = Object.freeze({ Index: 0 });

/** The request's region (another is `500 No path to region`) and its caller (a token that is not valid is a 403 before anything is looked up). */
function callerOf(context: RouteContext, request: FastifyRequest): Caller {
  const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  const caller = context.acl.authenticate(options.token);
  // The RPC's `Authenticate` fails for a secret no token has (or an expired one): refused before the allocation is looked up.
  if (options.token !== "" && !caller.management && caller.token === undefined) throw permissionDenied();
  return caller;
}

/** The allocation the path names, found as the server's RPC finds it, the caller checked for one of `capabilities` in its namespace, and its node reached. */
function targetAlloc(context: RouteContext, caller: Caller, id: string, capabilities: readonly string[]): Allocation {
  const { tables } = context.store;
  const alloc = clientAllocation(tables, id);
  namespaceAccess(caller, alloc.Namespace, capabilities);
  reachNode(tables, alloc.NodeID);
  return alloc;
}

/** The `node_id` a node's client endpoint needs (the reference's 400 without one: the agent runs no client of its own). */
function nodeIdOf(request: FastifyRequest): string {
  const id = queryOf(request).get("node_id") ?? "";
  if (id === "") throw badRequest("No local Node and node_id not provided");
  return id;
}

/** `GET /v1/client/allocation/<id>/checks`, `/v1/allocation/<id>/checks`: `read-job`. */
function checks(context: RouteContext, request: FastifyRequest, id: string): Result {
  const alloc = targetAlloc(context, callerOf(context, request), id, ["read-job"]);
  return { body: allocChecks(alloc, allocationJob(alloc, context.store)) };
}

/** `GET /v1/client/allocation/<id>/stats` (`?task`): `read-job`. */
function stats(context: RouteContext, request: FastifyRequest, id: string): Result {
  const alloc = targetAlloc(context, callerOf(context, request), id, ["read-job"]);
  const node = context.store.tables.nodes.get(alloc.NodeID);
  return { body: allocStats(alloc, node, context.cluster.clock.nowNs(), queryOf(request).get("task") ?? "") };
}

/** `/v1/client/allocation/<id>/restart` (`{TaskName, AllTasks}`, or no body): `alloc-lifecycle`. */
async function restart(context: RouteContext, request: FastifyRequest, id: string): Promise<Result> {
  const caller = callerOf(context, request);
  // The reference's handler decodes the body before the RPC; an empty one restarts the running tasks.
  const body = bodyText(request) === "" ? {} : decodeBody(bodyText(request), RESTART_BODY, RESTART_BODY.typeName);
  const alloc = targetAlloc(context, caller, id, ["alloc-lifecycle"]);
  await context.cluster.clients.restart(alloc, { taskName: typeof body.TaskName === "string" ? body.TaskName : "", allTasks: body.AllTasks === true });
  return { body: GENERIC_RESPONSE };
}

/** `PUT`/`POST /v1/client/allocation/<id>/signal` (`{Task, Signal}`): `alloc-lifecycle`. */
async function signal(context: RouteContext, request: FastifyRequest, id: string): Promise<Result> {
  let body: Record<string, unknown>;
  try {
    body = decodeBody(bodyText(request), SIGNAL_REQUEST, SIGNAL_REQUEST.typeName);
  } catch (error) {
    if (error instanceof GoJsonError) throw badRequest(`Failed to decode body: ${error.message}`);
    throw error;
  }
  const alloc = targetAlloc(context, callerOf(context, request), id, ["alloc-lifecycle"]);
  await context.cluster.clients.signal(alloc, { task: typeof body.Task === "string" ? body.Task : "", signal: typeof body.Signal === "string" ? body.Signal : "" });
  return { body: GENERIC_RESPONSE };
}

/** `/v1/client/allocation/<id>/gc`: `submit-job` or `gc-allocation`; an empty answer. */
function collect(context: RouteContext, request: FastifyRequest, id: string): Result {
  const alloc = targetAlloc(context, callerOf(context, request), id, ["submit-job", "gc-allocation"]);
  context.cluster.clients.collect(alloc);
  return {};
}

/** A route that answers every method with `handler`. */
function anyMethod(handler: Handler) {
  return byMethod(Object.fromEntries(ANY_METHOD.map((method) => [method, handler])));
}

/** Registers the routes of the module's description. */
export function clientRoutes(app: FastifyInstance, context: RouteContext): void {
  // One route for every path under the prefix, taken apart as the reference's handler does: `<id>/<action>`, else a 404.
  app.all(
    "/v1/client/allocation/*",
    anyMethod(async (request) => {
      const tokens = ((request.params as Record<string, string | undefined>)["*"] ?? "").split("/");
      if (tokens.length !== 2) throw notFound(RESOURCE_NOT_FOUND);
      const [id, action] = tokens as [string, string];
      switch (action) {
        case "checks":
          return checks(context, request, id);
        case "stats":
          return stats(context, request, id);
        case "restart":
          return restart(context, request, id);
        case "gc":
          return collect(context, request, id);
        case "signal":
          if (request.method !== "PUT" && request.method !== "POST") throw invalidMethod();
          return signal(context, request, id);
        case "exec":
        case "snapshot":
        case "pause":
          // A task's shell, the allocation's directory as a tarball, a task's schedule (enterprise): nothing of them is simulated.
          throw notSimulated(request.method, `/v1/client/allocation/:id/${action}`);
        default:
          throw notFound(RESOURCE_NOT_FOUND);
      }
    }),
  );
  app.all(
    "/v1/allocation/:id/checks",
    anyMethod(async (request) => checks(context, request, (request.params as { id: string }).id)),
  );
  app.all(
    "/v1/client/stats",
    anyMethod(async (request) => {
      // The handler's own check comes first; then the RPC's: the token, its capability, the node.
      const nodeId = nodeIdOf(request);
      const caller = callerOf(context, request);
      if (!caller.management && !caller.permissions.nodeRead) throw permissionDenied();
      const node = reachNode(context.store.tables, nodeId);
      const bootMs = Number((node.StatusUpdatedAt ?? 0) * 1000);
      return { body: hostStats(node, context.store.tables.allocs.values(), context.cluster.clock.nowNs(), bootMs) };
    }),
  );
  app.all(
    "/v1/client/gc",
    anyMethod(async (request) => {
      // The handler's own check comes first; then the RPC's: the token, its capability, the node.
      const nodeId = nodeIdOf(request);
      const caller = callerOf(context, request);
      if (!caller.management && !caller.permissions.nodeWrite) throw permissionDenied();
      reachNode(context.store.tables, nodeId);
      context.cluster.clients.collectAll(nodeId);
      return {};
    }),
  );
}
