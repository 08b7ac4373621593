/**
 * A node's endpoints besides its read (`command/agent/node_endpoint.go`):
 *
 * - `GET /v1/node/<id>/allocations`: its allocations, whole, those of namespaces the caller may
 *   not read left out (`node:read`, then `read-job` per namespace, as `Node.GetAllocs`); a
 *   blocking query on the allocations;
 * - `PUT`/`POST /v1/node/<id>/eligibility` (`NodeUpdateEligibilityRequest`), `/drain`
 *   (`NodeUpdateDrainRequest`), `/purge` and `/evaluate`: `node:write`, the write's index in the
 *   index header (see `scheduler/node-update.ts` and `scheduler/drainer.ts`).
 *
 * A node that does not exist is a 404 `node not found` (the reference's RPC answers 500 with those
 * words: the decisions table).
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { compareStrings } from "../../go/order.js";
import { checkRegion } from "../base/errors.js";
import type { Caller } from "../domain/acl.js";
import { presentAllocation } from "../domain/present.js";
import { allocationJob } from "../list/endpoints.js";
import { blockingRead, expiryOf } from "../list/pipeline.js";
import { parseQueryOptions } from "../list/query.js";
import type { DrainRequest } from "../scheduler/node-update.js";
import { badRequest, permissionDenied } from "./errors.js";
import { byMethod, clientGone, objectBody, param, queryOf, type Handler, type Result, type RouteContext } from "./route.js";

/** The fields `structs.WriteRequest` embeds in a request struct: the body may name the region and the token. */
const WRITE_REQUEST_FIELDS = { Region: "string", Namespace: "string", AuthToken: "string", IdempotencyToken: "string" } as const;

/** `structs.NodeUpdateEligibilityRequest`, as the handler decodes the body. */
const ELIGIBILITY_REQUEST: ObjectSchema = {
  kind: "object",
  typeName: "NodeUpdateEligibilityRequest",
  fields: { NodeID: "string", Eligibility: "string", UpdatedAt: "int", ...WRITE_REQUEST_FIELDS },
};

/** `api.NodeUpdateDrainRequest`: `DrainSpec` null stops the drain. */
const DRAIN_REQUEST: ObjectSchema = {
  kind: "object",
  typeName: "NodeUpdateDrainRequest",
  fields: {
    NodeID: "string",
    DrainSpec: { kind: "object", typeName: "DrainSpec", fields: { Deadline: "int", IgnoreSystemJobs: "bool" } },
    MarkEligible: "bool",
    Meta: { kind: "map", values: "string" },
    ...WRITE_REQUEST_FIELDS,
  },
};

/** `node:write`, or a 403. */
function requireNodeWrite(caller: Caller): void {
  if (!caller.management && !caller.permissions.nodeWrite) throw permissionDenied();
}

/** A string field of a decoded body ("" when absent). */
const stringOf = (value: unknown) => (typeof value === "string" ? value : "");

/**
 * One write on one node: the body (decoded first, as the reference's handler does), the region
 * (`?region` over the body's), the token (the header over the body's), `node:write`, then the write.
 */
function nodeWrite(context: RouteContext, decode: (request: FastifyRequest) => Record<string, unknown>, write: (id: string, body: Record<string, unknown>) => Promise<{ readonly Index: number }>): Handler {
  return async (request) => {
    const body = decode(request);
    const query = queryOf(request);
    const options = parseQueryOptions(query, request.headers, context.settings);
    checkRegion(query.get("region") || stringOf(body.Region) || context.settings.region, context.settings.region);
    requireNodeWrite(context.acl.authenticate(options.token || stringOf(body.AuthToken)));
    const id = param(request, "id");
    if (id === "") throw badRequest("missing node ID");
    const response = await write(id, body);
    return { body: response, index: response.Index } satisfies Result;
  };
}

/** The drain request from its decoded body. */
function drainRequestOf(body: Record<string, unknown>): DrainRequest {
  const spec = body.DrainSpec as { Deadline?: number | bigint; IgnoreSystemJobs?: boolean } | null | undefined;
  const deadline = spec?.Deadline ?? 0;
  return {
    // An int64 past 2^53 arrives as a bigint: far past any deadline taken, refused by the drain.
    spec: spec == null ? null : { Deadline: typeof deadline === "bigint" ? Number(deadline) : deadline, IgnoreSystemJobs: spec.IgnoreSystemJobs === true },
    markEligible: body.MarkEligible === true,
    meta: (body.Meta as Record<string, string> | null | undefined) ?? null,
  };
}

/** Registers the node endpoints of the module's description. */
export function nodeRoutes(app: FastifyInstance, context: RouteContext): void {
  const { store, cluster } = context;
  const noBody = () => ({});
  const writes = (handler: Handler) => byMethod({ PUT: handler, POST: handler });

  app.all(
    "/v1/node/:id/allocations",
    byMethod({
      GET: async (request, reply) => {
        const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
        checkRegion(options.region, context.settings.region);
        const expiresAt = expiryOf(context.acl, context.acl.authenticate(options.token));
        const id = param(request, "id");
        const found = await blockingRead(context.lists, ["allocs"], options, clientGone(reply), expiresAt, (caller) => {
          if (!caller.management && !caller.permissions.nodeRead) throw permissionDenied();
          if (id === "") throw badRequest("missing node ID");
          // One scan of the allocations: the state keeps no index by node.
          const allocs = [...store.tables.allocs.values()].filter((alloc) => alloc.NodeID === id).sort((a, b) => compareStrings(a.ID, b.ID));
          const index = allocs.length === 0 ? store.tableIndex("allocs") : Math.max(...allocs.map((alloc) => alloc.ModifyIndex));
          const readable = allocs.filter((alloc) => caller.management || caller.permissions.allows(alloc.Namespace, "read-job"));
          return { index, body: readable.map((alloc) => presentAllocation(alloc, allocationJob(alloc, store))) };
        });
        return { body: found.body, index: found.index, read: true } satisfies Result;
      },
    }),
  );
  app.all(
    "/v1/node/:id/eligibility",
    writes(
      nodeWrite(
        context,
        (request) => objectBody(request, ELIGIBILITY_REQUEST, "structs.NodeUpdateEligibilityRequest"),
        // The body's NodeID, when it names one, is the node written (as the reference's handler).
        (id, body) => cluster.updateNodeEligibility(stringOf(body.NodeID) || id, stringOf(body.Eligibility)),
      ),
    ),
  );
  app.all(
    "/v1/node/:id/drain",
    writes(
      nodeWrite(
        context,
        (request) => objectBody(request, DRAIN_REQUEST, "api.NodeUpdateDrainRequest"),
        (id, body) => cluster.updateNodeDrain(id, drainRequestOf(body)),
      ),
    ),
  );
  app.all("/v1/node/:id/purge", writes(nodeWrite(context, noBody, (id) => cluster.purgeNode(id))));
  app.all("/v1/node/:id/evaluate", writes(nodeWrite(context, noBody, (id) => cluster.evaluateNode(id))));
}
