/**
 * What the reference's clients answer about their own node, and the control that changes what a
 * simulated client reports:
 *
 * - `GET /v1/client/metadata?node_id=` (`node:read`) and `POST /v1/client/metadata` (`node:write`;
 *   `{NodeID, Meta}`, a null value removes a key), as the reference's `NodeMeta.Read` and `Apply`
 *   answer them through a server (`command/agent/meta_endpoint.go`, `client/meta_endpoint.go`):
 *   `{Meta, Dynamic, Static}`;
 * - `PUT /_bexpr/nodes/<id>/drivers/<name>` (a control route): `{"Healthy": false}`,
 *   `{"Detected": false}`, `{"HealthDescription": "…"}`, as the node's client would fingerprint its
 *   driver; answers `{Drivers, Index}`.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { checkRegion } from "../base/errors.js";
import type { ControlPlane } from "../control/plane.js";
import { parseQueryOptions } from "../list/query.js";
import { nodeMetaOf, type NodeMetaView } from "../scheduler/node-client.js";
import type { Node } from "../state/model.js";
import { decodeBody, GoJsonError } from "../../go/json.js";
import { fieldsInAnyCase } from "./control-casing.js";
import { controlRoute, jsonBody } from "./control-routes.js";
import { badRequest, HttpError, permissionDenied } from "./errors.js";
import { bodyText, byMethod, param, queryOf, type Result, type RouteContext } from "./route.js";

/** The control route that changes a node's driver. */
export const NODE_DRIVER_PATH = "/_bexpr/nodes/:id/drivers/:name";

/** `structs.NodeMetaApplyRequest` as its JSON is decoded (its query options among its fields). */
const NODE_META_APPLY_REQUEST = {
  kind: "object",
  typeName: "structs.NodeMetaApplyRequest",
  fields: { NodeID: "string", Meta: "any", Region: "string", Namespace: "string", AuthToken: "string", AllowStale: "bool" },
} as const;

/** The most keys one apply may name (a body is bounded in bytes too). */
export const MAX_META_KEYS_PER_APPLY = 1024;

/**
 * A dotted HCL identifier part (`hclsyntax.ValidIdentifier`): a letter or `_`, then letters,
 * digits, `_` or `-`, as Unicode's ID_Start and ID_Continue say.
 */
const HCL_IDENTIFIER = /^[\p{ID_Start}_][\p{ID_Continue}-]*$/u;

/** A map written as Go writes one: its keys sorted. */
function sortedMap<V>(map: Readonly<Record<string, V>>): Record<string, V> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `structs.NodeMetaResponse` as the API writes it. */
function presentMeta(view: NodeMetaView): Record<string, unknown> {
  return { Meta: sortedMap(view.Meta), Dynamic: sortedMap(view.Dynamic), Static: sortedMap(view.Static) };
}

/** `Meta` of an apply, checked as `NodeMetaApplyRequest.Validate` checks it (the reference's words). */
function metaOf(value: unknown): Record<string, string | null> {
  if (value === undefined || value === null) throw badRequest("missing required Meta object");
  if (typeof value !== "object" || Array.isArray(value)) throw new GoJsonError(`json: cannot unmarshal ${Array.isArray(value) ? "array" : typeof value} into Go struct field NodeMetaApplyRequest.Meta of type map[string]*string`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw badRequest("missing required Meta object");
  if (entries.length > MAX_META_KEYS_PER_APPLY) throw badRequest(`at most ${MAX_META_KEYS_PER_APPLY} metadata keys may be applied at once`);
  const meta: Record<string, string | null> = {};
  for (const [key, each] of entries) {
    if (each !== null && typeof each !== "string") throw new GoJsonError(`json: cannot unmarshal ${typeof each} into Go struct field NodeMetaApplyRequest.Meta of type string`);
    if (key === "") throw badRequest("metadata keys must not be empty");
    if (!key.split(".").every((part) => HCL_IDENTIFIER.test(part))) throw badRequest(`${JSON.stringify(key)} is invalid; metadata keys must be valid dotted hcl identifiers`);
    Object.defineProperty(meta, key, { value: each, enumerable: true, writable: true, configurable: true });
  }
  return meta;
}

/**
 * The node a metadata request is for: the agent is a server without a client of its own, so one
 * must be named (`No local Node and node_id not provided`); an unknown node is the reference's
 * `Unknown node <id>`, one that is not connected (down) its `No path to node`.
 */
function targetNode(context: RouteContext, nodeId: string): Node {
  if (nodeId === "") throw badRequest("No local Node and node_id not provided");
  const node = context.store.tables.nodes.get(nodeId);
  if (node === undefined) throw new HttpError(404, `Unknown node ${nodeId}`);
  if (node.Status === "down" || node.Status === "disconnected") throw new HttpError(404, "No path to node");
  return node;
}

/** `GET /v1/client/metadata?node_id=`. */
async function readMeta(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  const caller = context.acl.authenticate(options.token);
  if (!caller.management && !caller.permissions.nodeRead) throw permissionDenied();
  return { body: presentMeta(nodeMetaOf(targetNode(context, query.get("node_id") ?? ""))) };
}

/** `POST /v1/client/metadata`: the body decoded first, then the query, `node:write`, the node, the keys. */
async function applyMeta(context: RouteContext, request: FastifyRequest): Promise<Result> {
  let body;
  try {
    body = decodeBody(bodyText(request), NODE_META_APPLY_REQUEST, NODE_META_APPLY_REQUEST.typeName);
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  const caller = context.acl.authenticate(options.token || (typeof body.AuthToken === "string" ? body.AuthToken : ""));
  if (!caller.management && !caller.permissions.nodeWrite) throw permissionDenied();
  const nodeId = query.get("node_id") || (typeof body.NodeID === "string" ? body.NodeID : "");
  const node = targetNode(context, nodeId);
  let meta;
  try {
    meta = metaOf(body.Meta);
  } catch (error) {
    if (error instanceof GoJsonError) throw badRequest(error.message);
    throw error;
  }
  return { body: presentMeta(await context.cluster.applyNodeMeta(node.ID, meta)) };
}

/** The fields of a driver change, read in any case. */
const DRIVER_FIELDS = ["Detected", "Healthy", "HealthDescription"] as const;

/** `PUT /_bexpr/nodes/<id>/drivers/<name>`. */
async function changeDriver(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const body = fieldsInAnyCase(jsonBody(request), DRIVER_FIELDS);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest('the body must be an object such as {"Healthy": false}');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !(DRIVER_FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) throw badRequest(`unknown field ${JSON.stringify(unknown)}: the body holds Detected, Healthy and HealthDescription`);
  for (const flag of ["Detected", "Healthy"]) if (fields[flag] !== undefined && typeof fields[flag] !== "boolean") throw badRequest(`${flag} must be true or false`);
  if (fields.HealthDescription !== undefined && typeof fields.HealthDescription !== "string") throw badRequest("HealthDescription must be a string");
  const change = {
    ...(fields.Detected === undefined ? {} : { detected: fields.Detected as boolean }),
    ...(fields.Healthy === undefined ? {} : { healthy: fields.Healthy as boolean }),
    ...(fields.HealthDescription === undefined ? {} : { healthDescription: fields.HealthDescription as string }),
  };
  const { drivers, index } = await context.cluster.setNodeDriver(param(request, "id"), param(request, "name"), change);
  return { body: { Drivers: drivers, Index: index } };
}

/** Registers `/v1/client/metadata` and the driver control. */
export function clientNodeRoutes(app: FastifyInstance, context: RouteContext, control: ControlPlane): void {
  app.all("/v1/client/metadata", byMethod({ GET: (request) => readMeta(context, request), POST: (request) => applyMeta(context, request) }));
  controlRoute(app, context, control, NODE_DRIVER_PATH, { PUT: (request) => changeDriver(context, request) });
}
