/**
 * The node pool API (`command/agent/node_pool_endpoint.go`): `GET /v1/node/pools` (the list),
 * `PUT`/`POST /v1/node/pools` and `/v1/node/pool/<name>` (create or replace), `GET` and `DELETE
 * /v1/node/pool/<name>`, and the pool's `/nodes` and `/jobs` (the node and job lists of its
 * members). Each needs its capability on the pool from the token's `node_pool` rules (`read`,
 * `write`, `delete`); the built-in `all` and `default` can be read, never changed.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { checkRegion } from "../base/errors.js";
import type { Caller } from "../domain/acl.js";
import { NODE_POOL_BODY, nodePoolUpdate, presentNodePool } from "../domain/operator.js";
import { nodePoolJobsEndpoint, nodePoolNodesEndpoint, nodePoolsEndpoint, type ListEndpoint } from "../list/endpoints.js";
import { parseQueryOptions } from "../list/query.js";
import { nodePoolOf } from "../state/operator.js";
import { badRequest, permissionDenied } from "./errors.js";
import { objectRoute } from "./read-routes.js";
import { byMethod, listRoute, objectBody, param, queryOf, type Handler, type Result, type RouteContext } from "./route.js";

/** The caller of a write, after the region (the reference's `parseWriteRequest`, then `ResolveACL`). */
function writeCaller(context: RouteContext, request: FastifyRequest): Caller {
  const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  return context.acl.authenticate(options.token);
}

/** Registers the node pool routes. */
export function nodePoolRoutes(app: FastifyInstance, context: RouteContext): void {
  const { store, cluster } = context;
  const allows = (caller: Caller, pool: string, capability: "read" | "write" | "delete") => caller.management || caller.permissions.allowsNodePool(pool, capability);

  /** Create or replace: the body decoded and checked, its name the path's (when the path names one), then `write` on the pool. */
  const upsert = async (request: FastifyRequest, name: string): Promise<Result> => {
    const body = objectBody(request, NODE_POOL_BODY, "api.NodePool");
    if (name !== "" && body.Name !== name) throw badRequest("Node pool name does not match request path");
    const caller = writeCaller(context, request);
    const pool = nodePoolUpdate(body);
    if (!allows(caller, pool.Name, "write")) throw permissionDenied();
    return { index: await cluster.upsertNodePool(pool) };
  };
  app.all("/v1/node/pools", byMethod({ GET: listRoute(context, nodePoolsEndpoint), PUT: (request) => upsert(request, ""), POST: (request) => upsert(request, "") }));

  app.all(
    "/v1/node/pool/:id",
    byMethod({
      GET: objectRoute(context, {
        tables: ["node_pool"],
        read: (caller, { id }) => {
          if (!allows(caller, id, "read")) throw permissionDenied();
          const pool = nodePoolOf(store.tables, id);
          if (pool === undefined) return { index: store.tableIndex("node_pool"), missing: "node pool not found" };
          return { index: pool.ModifyIndex, body: presentNodePool(pool) };
        },
      }),
      PUT: (request) => upsert(request, param(request, "id")),
      POST: (request) => upsert(request, param(request, "id")),
      DELETE: async (request) => {
        const name = param(request, "id");
        const caller = writeCaller(context, request);
        if (!allows(caller, name, "delete")) throw permissionDenied();
        return { index: await cluster.deleteNodePool(name) };
      },
    }),
  );

  /** A pool's member list: no `prefix` (the reference's 400), then the list of the path's pool. */
  const members = <Row>(endpointOf: (pool: string) => ListEndpoint<Row>): Handler => async (request, reply) => {
    if ((queryOf(request).get("prefix") ?? "") !== "") throw badRequest("prefix argument not allowed");
    return listRoute(context, endpointOf(param(request, "id")))(request, reply);
  };
  app.all("/v1/node/pool/:id/nodes", byMethod({ GET: members(nodePoolNodesEndpoint) }));
  app.all("/v1/node/pool/:id/jobs", byMethod({ GET: members(nodePoolJobsEndpoint) }));
}
