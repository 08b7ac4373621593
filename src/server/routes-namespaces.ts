/**
 * The namespace API: `/v1/namespaces`, `/v1/namespace[/<name>]`. Reading needs access to the
 * namespace (any capability in it); writing needs a management token.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ObjectSchema } from "../evaluator/schema.js";
import { requireManagement } from "./acl.js";
import { badRequest, notFound, permissionDenied } from "./http-errors.js";
import { blockingRead, byMethod, missingName, objectBody, param, queryOf, type Result, type RouteContext } from "./http.js";
import type { JsonObject, Namespace } from "./model.js";
import { parseQueryOptions } from "./query.js";
import { formatErrors } from "./register.js";

/** The reference's `structs.Namespace`, as namespace bodies are decoded. */
export const NAMESPACE_BODY: ObjectSchema = {
  kind: "object",
  typeName: "Namespace",
  fields: {
    Name: "string",
    Description: "string",
    Quota: "string",
    Capabilities: "any",
    NodePoolConfiguration: "any",
    VaultConfiguration: "any",
    ConsulConfiguration: "any",
    Meta: { kind: "map", values: "string" },
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

const NAMESPACE_NAME = /^[a-zA-Z0-9-]{1,128}$/;
const MAX_DESCRIPTION = 256;

/** A namespace as the API writes it (the reference's field order). */
export function namespaceResponse(namespace: Namespace): unknown {
  return {
    Name: namespace.Name,
    Description: namespace.Description,
    Quota: namespace.Quota,
    Capabilities: null,
    NodePoolConfiguration: null,
    VaultConfiguration: null,
    ConsulConfiguration: null,
    Meta: namespace.Meta,
    CreateIndex: namespace.CreateIndex,
    ModifyIndex: namespace.ModifyIndex,
  };
}

/** Checks a namespace definition as the reference does; returns the fields to store. */
export function validateNamespace(body: JsonObject): Omit<Namespace, "CreateIndex" | "ModifyIndex"> {
  const name = typeof body.Name === "string" ? body.Name : "";
  const description = typeof body.Description === "string" ? body.Description : "";
  const problems: string[] = [];
  if (!NAMESPACE_NAME.test(name)) problems.push(`invalid name ${JSON.stringify(name)}. Must match regex ^[a-zA-Z0-9-]{1,128}$`);
  if (description.length > MAX_DESCRIPTION) problems.push(`description longer than ${MAX_DESCRIPTION}`);
  // Invalid definitions are client mistakes: 400, where the reference answers 500.
  if (problems.length > 0) throw badRequest(`Invalid namespace ${JSON.stringify(name)}: ${formatErrors(problems)}`);
  const meta = body.Meta !== null && typeof body.Meta === "object" && !Array.isArray(body.Meta) ? (body.Meta as Record<string, string>) : null;
  return { Name: name, Description: description, Quota: typeof body.Quota === "string" ? body.Quota : "", Meta: meta };
}

/** Registers the namespace routes. */
export function namespaceRoutes(app: FastifyInstance, context: RouteContext): void {
  const { acl, cluster } = context;
  const caller = (request: FastifyRequest) => acl.authenticate(parseQueryOptions(queryOf(request), request.headers, context.settings.region).token);

  app.all(
    "/v1/namespaces",
    byMethod({
      GET: async (request, reply) => {
        const query = parseQueryOptions(queryOf(request), request.headers, context.settings.region);
        const answer = await blockingRead(context, reply, ["namespaces"], query, (who) => ({
          index: cluster.store.tableIndex("namespaces"),
          namespaces: cluster.namespaces
            .sorted()
            .filter((namespace) => namespace.Name.startsWith(query.prefix) && (who.management || who.permissions.seesNamespace(namespace.Name))),
        }));
        return { body: answer.namespaces.map(namespaceResponse), index: answer.index, read: true };
      },
    }),
  );

  const create = async (request: FastifyRequest, name?: string): Promise<Result> => {
    requireManagement(caller(request));
    const body = objectBody(request, NAMESPACE_BODY, "structs.Namespace");
    if (name !== undefined && body.Name !== name) throw badRequest("Namespace name does not match request path");
    return { index: cluster.putNamespace(validateNamespace(body)) };
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
        const namespace = cluster.namespaces.get(name);
        if (namespace === undefined) throw notFound("Namespace not found");
        return { body: namespaceResponse(namespace), index: namespace.ModifyIndex, read: true };
      },
      PUT: (request) => create(request, param(request, "name")),
      POST: (request) => create(request, param(request, "name")),
      DELETE: async (request) => {
        requireManagement(caller(request));
        return { index: cluster.deleteNamespace(param(request, "name")) };
      },
    }),
  );
}
