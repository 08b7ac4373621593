/**
 * The volume and plugin routes (`command/agent/host_volume_endpoint.go`, `volumes_endpoint.go`,
 * `task_group_host_volume_claim_endpoint.go`, `csi_endpoint.go`):
 *
 * - `GET /v1/volumes?type=host` (the host volume list: `host-volume-read`, see
 *   `list/volume-endpoints.ts`), `?type=csi` (a cluster without CSI plugins: `[]`, with
 *   `csi-list-volume`), no `type`: `[]`, another: 404 `resource not found`;
 * - `PUT`/`POST /v1/volume/host/create` (`host-volume-create`) and `/register`
 *   (`host-volume-register`), `GET /v1/volume/host/<id>` (`host-volume-read`, with the
 *   allocations that use it), `DELETE /v1/volume/host/<id>` (`host-volume-delete`), in the
 *   request's namespace (a create's or register's volume may name its own);
 * - `GET /v1/volumes/claims` and `DELETE /v1/volumes/claim/<id>`: the sticky volume claims;
 * - `GET /v1/volume/csi/<id>`: 404 `volume not found`; `GET /v1/plugins`: `[]` (`plugin:list`),
 *   `GET /v1/plugin/csi/<id>`: 404 `plugin not found` (`plugin:read`).
 *
 * The reference answers its RPCs' plain errors with a 500; the agent answers a client's mistake
 * with a 400 (a volume that does not validate, a node or pool that does not exist, no node to place
 * on), an unknown volume or claim with a 404 and a volume in use with a 409, each with the
 * reference's words (docs/agent.md, "Where the agent differs").
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { parseGoBool } from "../../go/strconv.js";
import { present, schemaOf } from "../../structs/derive.js";
import { HOST_VOLUME } from "../../structs/host-volume.js";
import { checkRegion } from "../base/errors.js";
import type { Caller } from "../domain/acl.js";
import { presentAllocationStub } from "../domain/present.js";
import { blockingRead, expiryOf } from "../list/pipeline.js";
import { parseQueryOptions, type QueryOptions } from "../list/query.js";
import { hostVolumeClaimsEndpoint, hostVolumesEndpoint } from "../list/volume-endpoints.js";
import { allocationsUsing, type HostVolumeInput, type HostVolumeWriteKind } from "../scheduler/host-volumes.js";
import { constraintsOf } from "../scheduler/feasible.js";
import type { HostVolume, JsonObject } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { badRequest, invalidMethod, notFound, permissionDenied } from "./errors.js";
import { byMethod, clientGone, listRoute, objectBody, queryOf, setReadMeta, type Handler, type Result, type RouteContext } from "./route.js";
import { notSimulated } from "./unserved-routes.js";
import type { Found } from "./read-routes.js";

/** The reference's `resourceNotFoundErr`. */
const RESOURCE_NOT_FOUND = "resource not found";

/** The fields `structs.WriteRequest` embeds in a request struct. */
const WRITE_REQUEST_FIELDS = { Region: "string", Namespace: "string", AuthToken: "string", IdempotencyToken: "string" } as const;

/** `structs.HostVolumeCreateRequest` and `HostVolumeRegisterRequest`, as the handler decodes the body. */
const HOST_VOLUME_REQUEST: ObjectSchema = {
  kind: "object",
  typeName: "HostVolumeCreateRequest",
  fields: { Volume: schemaOf(HOST_VOLUME), PolicyOverride: "bool", ...WRITE_REQUEST_FIELDS },
};

/** The write each create or register needs, and its reference's name. */
const WRITES: { readonly [Kind in HostVolumeWriteKind]: { readonly capability: string; readonly typeName: string } } = {
  create: { capability: "host-volume-create", typeName: "structs.HostVolumeCreateRequest" },
  register: { capability: "host-volume-register", typeName: "structs.HostVolumeRegisterRequest" },
};

/** A string field of a decoded body ("" when absent). */
const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** An `int64` field of a decoded body (a bigint past 2^53, kept as the nearest number). */
const int64 = (value: unknown): number => (typeof value === "bigint" ? Number(value) : typeof value === "number" ? value : 0);

/** The volume of a decoded request body, in `namespace` unless it names its own. */
function volumeInput(volume: JsonObject, namespace: string): HostVolumeInput {
  const capabilities = Array.isArray(volume.RequestedCapabilities) ? (volume.RequestedCapabilities as (JsonObject | null)[]) : [];
  const parameters = volume.Parameters;
  return {
    Namespace: text(volume.Namespace) || namespace,
    ID: text(volume.ID),
    Name: text(volume.Name),
    PluginID: text(volume.PluginID),
    NodePool: text(volume.NodePool),
    NodeID: text(volume.NodeID),
    Constraints: constraintsOf(volume.Constraints),
    RequestedCapacityMinBytes: int64(volume.RequestedCapacityMinBytes),
    RequestedCapacityMaxBytes: int64(volume.RequestedCapacityMaxBytes),
    CapacityBytes: int64(volume.CapacityBytes),
    RequestedCapabilities: capabilities.filter((each): each is JsonObject => each !== null).map((each) => ({ AttachmentMode: text(each.AttachmentMode), AccessMode: text(each.AccessMode) })),
    Parameters: typeof parameters === "object" && parameters !== null && Object.keys(parameters).length > 0 ? (parameters as Record<string, string>) : null,
    HostPath: text(volume.HostPath),
  };
}

/** The caller of a write, its options read (`parseWriteRequest`): the region checked, the token (the header's, or the body's) authenticated. */
function writeCaller(context: RouteContext, request: FastifyRequest, body: JsonObject = {}): { readonly caller: Caller; readonly options: QueryOptions } {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  checkRegion(query.get("region") || text(body.Region) || context.settings.region, context.settings.region);
  return { caller: context.acl.authenticate(options.token || text(body.AuthToken)), options };
}

/** Whether the caller holds `capability` in `namespace`. */
function allows(caller: Caller, namespace: string, capability: string): boolean {
  return caller.management || caller.permissions.allows(namespace, capability);
}

/** `PUT /v1/volume/host/create` or `/register`. */
async function writeVolume(context: RouteContext, request: FastifyRequest, kind: HostVolumeWriteKind): Promise<Result> {
  const body = objectBody(request, HOST_VOLUME_REQUEST, WRITES[kind].typeName);
  const { caller, options } = writeCaller(context, request, body);
  const volume = body.Volume as JsonObject | null | undefined;
  if (volume == null) throw badRequest("missing volume definition");
  const input = volumeInput(volume, options.namespace);
  if (!allows(caller, input.Namespace, WRITES[kind].capability)) throw permissionDenied();
  // A policy override needs `sentinel-override` (the enterprise's policies; none are enforced here).
  if (body.PolicyOverride === true && !allows(caller, input.Namespace, "sentinel-override")) throw permissionDenied();
  const response = await context.cluster.writeHostVolume(kind, input);
  return { body: { Volume: present(HOST_VOLUME, response.Volume), Warnings: response.Warnings, Index: response.Index }, index: response.Index };
}

/** `GET /v1/volume/host/<id>`: the volume, with the allocations that use it (a blocking query on the volumes and the allocations). */
function readVolume(context: RouteContext, id: string): Handler {
  return async (request, reply) => {
    const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
    checkRegion(options.region, context.settings.region);
    const expiresAt = expiryOf(context.acl, context.acl.authenticate(options.token));
    const { store } = context;
    const found = await blockingRead(context.lists, ["host_volumes", "allocs"], options, clientGone(reply), expiresAt, (caller): Found => {
      if (!allows(caller, options.namespace, "host-volume-read")) throw permissionDenied();
      const volume = store.tables.host_volumes.get(namespacedKey(options.namespace, id));
      if (volume === undefined) return { index: store.tableIndex("host_volumes"), missing: "volume not found" };
      return { index: volume.ModifyIndex, body: presentVolume(context, volume) };
    });
    if ("missing" in found) {
      // The reference sets the meta headers before it looks at the result: its 404 carries them.
      setReadMeta(request, reply, found.index);
      throw notFound(found.missing);
    }
    return { body: found.body, index: found.index, read: true } satisfies Result;
  };
}

/** The volume as a read answers it: with the stubs of the allocations that use it. */
function presentVolume(context: RouteContext, volume: HostVolume): JsonObject {
  const using = allocationsUsing(context.store.tables, volume);
  return present(HOST_VOLUME, volume, { Allocations: using.length === 0 ? null : using.map((alloc) => presentAllocationStub(alloc)) });
}

/** `DELETE /v1/volume/host/<id>` (`?force` read as Go's `ParseBool`). */
async function deleteVolume(context: RouteContext, request: FastifyRequest, id: string): Promise<Result> {
  const { caller, options } = writeCaller(context, request);
  const force = queryOf(request).get("force") ?? "";
  if (force !== "" && !parseGoBool(force).ok) throw badRequest("invalid force value");
  if (!allows(caller, options.namespace, "host-volume-delete")) throw permissionDenied();
  const index = await context.cluster.deleteHostVolume(options.namespace, id);
  return { body: { Index: index }, index };
}

/** The first segment of a path's suffix past `prefix` ("" for none), as the reference's handlers take it apart (`strings.FieldsFunc` on `/`). */
function firstSegment(request: FastifyRequest, prefix: string): string {
  const path = new URL(request.url, "http://agent").pathname;
  return path.slice(prefix.length).split("/").find((segment) => segment !== "") ?? "";
}

/** The empty list of a cluster without CSI plugins, as a read (blocking on nothing that changes). */
function noCsi(context: RouteContext, check: (caller: Caller, namespace: string) => boolean): Handler {
  return async (request) => {
    const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
    checkRegion(options.region, context.settings.region);
    if (!check(context.acl.authenticate(options.token), options.namespace)) throw permissionDenied();
    return { body: [], index: 1, read: true } satisfies Result;
  };
}

/** A CSI read of one object: the caller's rights, then the reference's 404 (none exists). */
function noCsiObject(context: RouteContext, check: (caller: Caller, namespace: string) => boolean, missing: string): Handler {
  return async (request, reply) => {
    const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
    checkRegion(options.region, context.settings.region);
    if (!check(context.acl.authenticate(options.token), options.namespace)) throw permissionDenied();
    setReadMeta(request, reply, 1);
    throw notFound(missing);
  };
}

/** `CSIVolume.List`'s rights: any of `csi-list-volume`, `csi-read-volume`, `csi-mount-volume`, `list-jobs` in the namespace (any namespace for `*`). */
function listsCsiVolumes(caller: Caller, namespace: string): boolean {
  const capabilities = ["csi-list-volume", "csi-read-volume", "csi-mount-volume", "list-jobs"];
  if (caller.management) return true;
  return namespace === "*" ? capabilities.some((each) => caller.permissions.allowsAnywhere(each)) : capabilities.some((each) => caller.permissions.allows(namespace, each));
}

/** `CSIVolume.Get`'s rights: any of `csi-read-volume`, `csi-mount-volume`, `read-job`. */
function readsCsiVolume(caller: Caller, namespace: string): boolean {
  return caller.management || ["csi-read-volume", "csi-mount-volume", "read-job"].some((each) => caller.permissions.allows(namespace, each));
}

/** Registers the routes of the module's description. */
export function volumeRoutes(app: FastifyInstance, context: RouteContext): void {
  const hostList = listRoute(context, hostVolumesEndpoint);
  const csiList = noCsi(context, listsCsiVolumes);
  app.all("/v1/volumes", async (request, reply) => {
    const query = queryOf(request);
    // `GET /v1/volumes` chooses by `type`; its other methods are the CSI volumes' (a 405 but for the CSI register, not simulated).
    if (request.method === "PUT" || request.method === "POST") throw notSimulated(request.method, "/v1/volumes");
    return byMethod({
      GET: async (inner, innerReply) => {
        if (!query.has("type")) return { body: [] };
        switch (query.getAll("type")[0]) {
          case "host":
            return hostList(inner, innerReply);
          case "csi":
            return csiList(inner, innerReply);
          default:
            throw notFound(RESOURCE_NOT_FOUND);
        }
      },
    })(request, reply);
  });
  const write = (request: FastifyRequest): Promise<Result> => {
    const action = firstSegment(request, "/v1/volume/host/");
    if (action === "create") return writeVolume(context, request, "create");
    if (action === "register") return writeVolume(context, request, "register");
    throw notFound(RESOURCE_NOT_FOUND);
  };
  app.all("/v1/volume/host/*", async (request, reply) => {
    const id = firstSegment(request, "/v1/volume/host/");
    if (id === "") throw notFound(RESOURCE_NOT_FOUND);
    // Other methods: the reference's 404.
    const refuse = async (): Promise<Result> => {
      throw notFound(RESOURCE_NOT_FOUND);
    };
    const handlers: Record<string, Handler> = { PUT: write, POST: write, GET: readVolume(context, id), DELETE: (inner) => deleteVolume(context, inner, id) };
    return byMethod({ ...handlers, [request.method]: handlers[request.method] ?? refuse })(request, reply);
  });
  app.all("/v1/volumes/claims", byMethod({ GET: listRoute(context, hostVolumeClaimsEndpoint) }));
  app.all("/v1/volumes/claim/*", async (request, reply) => {
    const id = firstSegment(request, "/v1/volumes/claim/");
    if (id === "") throw notFound(RESOURCE_NOT_FOUND);
    return byMethod({
      DELETE: async (inner) => {
        const { caller, options } = writeCaller(context, inner);
        if (!allows(caller, options.namespace, "host-volume-delete")) throw permissionDenied();
        const index = await context.cluster.deleteHostVolumeClaim(options.namespace, id);
        return { index };
      },
    })(request, reply);
  });
  // CSI: a cluster without CSI plugins.
  app.all("/v1/volume/csi/*", async (request, reply) => {
    if (request.method !== "GET") {
      if (!["PUT", "POST", "DELETE"].includes(request.method)) throw invalidMethod();
      throw notSimulated(request.method, "/v1/volume/csi/*");
    }
    return byMethod({ GET: noCsiObject(context, readsCsiVolume, "volume not found") })(request, reply);
  });
  app.all(
    "/v1/plugins",
    byMethod({
      GET: async (request, reply) => {
        const query = queryOf(request);
        if (!query.has("type")) return { body: [] };
        // Another type than csi: the reference's handler answers nothing (`null`).
        if (query.getAll("type")[0] !== "csi") return {};
        return noCsi(context, (caller) => caller.management || caller.permissions.pluginList)(request, reply);
      },
    }),
  );
  app.all("/v1/plugin/csi/*", byMethod({ GET: noCsiObject(context, (caller) => caller.management || caller.permissions.pluginRead, "plugin not found") }));
}
