/**
 * The namespace API: `/v1/namespaces`, `/v1/namespace[/<name>]`. Reading needs access to the
 * namespace (any capability in it); writing needs a management token.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { requireManagement } from "../domain/acl.js";
import { NAMESPACE_BODY, namespaceResponse, validateNamespace } from "../domain/namespaces.js";
import { namespacesEndpoint } from "../list/endpoints.js";
import { parseQueryOptions } from "../list/query.js";
import { badRequest, notFound, permissionDenied } from "./errors.js";
import { byMethod, listRoute, missingName, objectBody, param, queryOf, type Result, type RouteContext } from "./route.js";

/** Registers the namespace routes. */
export function namespaceRoutes(app: FastifyInstance, context: RouteContext): void {
  const { acl, cluster } = context;
  const caller = (request: FastifyRequest) => acl.authenticate(parseQueryOptions(queryOf(request), request.headers, context.settings).token);

  app.all("/v1/namespaces", byMethod({ GET: listRoute(context, namespacesEndpoint) }));

  const create = async (request: FastifyRequest, name?: string): Promise<Result> => {
    requireManagement(caller(request));
    const body = objectBody(request, NAMESPACE_BODY, "structs.Namespace");
    if (name !== undefined && body.Name !== name) throw badRequest("Namespace name does not match request path");
    return { index: await cluster.putNamespace(validateNamespace(body)) };
  };
  app.all("/v1/namespace", byMethod({ PUT: (request) => create(request), POST: (request) => create(request) }));

  app.all("/v1/namespace/", missingName("Missing Namespace Name"));
  app.all(
    "/v1/namespace/:name",
    byMethod({
      GET: async (request) => {
        const name = param(request, "name");
        const who = caller(request);
        if (!who.management && !who.permissions.seesNamespace(name)) throw permissionDenied();
        const namespace = context.store.tables.namespaces.get(name);
        if (namespace === undefined) throw notFound("Namespace not found");
        return { body: namespaceResponse(namespace), index: namespace.ModifyIndex, read: true };
      },
      PUT: (request) => create(request, param(request, "name")),
      POST: (request) => create(request, param(request, "name")),
      DELETE: async (request) => {
        requireManagement(caller(request));
        return { index: await cluster.deleteNamespace(param(request, "name")) };
      },
    }),
  );
}
