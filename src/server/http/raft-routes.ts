/**
 * The operator's Raft and autopilot routes, and the community edition's answers for its enterprise
 * operator routes (`command/agent/operator_endpoint.go`, `operator_endpoint_ce.go`):
 *
 * - `GET /v1/operator/raft/configuration` (management): every agent sharing the state as a voter,
 *   the leader marked (`structs.RaftConfigurationResponse`);
 * - `DELETE /v1/operator/raft/peer?id=` (management): the reference's checks; a peer that shares
 *   the state stays, as a server the reference's serf still knows is added back by its leader;
 * - `PUT`/`POST /v1/operator/raft/transfer-leadership` (management): the reference's checks, and
 *   its no-op answer for the leader itself; another target is not simulated;
 * - `GET`/`PUT /v1/operator/autopilot/configuration` (`operator:read`, `operator:write`), the
 *   write with check-and-set through `?cas=<index>`, answered `true` or `false`;
 * - `GET /v1/operator/autopilot/health` (`operator:read`): `api.OperatorHealthReply`, `429` when a
 *   server is unhealthy, `500 No cluster leader` without a leader, even for `?stale`;
 * - `/v1/operator/license` (`GET` 204, `PUT` 501) and `POST /v1/operator/utilization` (501).
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { isIP } from "node:net";
import { checkRegion, Refusal } from "../base/errors.js";
import { NO_LEADER } from "../control/leader.js";
import type { Caller } from "../domain/acl.js";
import { AUTOPILOT_CONFIG_BODY, autopilotConfigUpdate, operatorHealth, presentAutopilotConfig, raftConfiguration, raftServers } from "../domain/raft.js";
import { parseQueryOptions } from "../list/query.js";
import { setAutopilotConfig } from "../scheduler/autopilot.js";
import { autopilotConfigOf } from "../state/autopilot.js";
import { decodeBody } from "../../go/json.js";
import { ENTERPRISE_ONLY, notSimulated } from "./unserved-routes.js";
import { badRequest, HttpError, permissionDenied } from "./errors.js";
import { casIndex } from "./operator-routes.js";
import { bodyText, byMethod, queryOf, type Handler, type Result, type RouteContext } from "./route.js";

/** The methods a route of the reference answers with its own refusal when it does not take them. */
const METHODS = ["GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS"] as const;

/** The reference's `ErrInvalidMethod`. */
const INVALID_METHOD = "Invalid method";

/** `handlers`, every other method refused with `status` and `Invalid method` (the reference's routes differ: 404 or 405). */
function refusingOthers(handlers: Partial<Record<string, Handler>>, status: number): Partial<Record<string, Handler>> {
  const refuse: Handler = async () => {
    throw new HttpError(status, INVALID_METHOD);
  };
  return Object.fromEntries(METHODS.map((method) => [method, handlers[method] ?? refuse]));
}

/** The caller of a request: its region checked, its token authenticated (the reference's `parse`, then `ResolveACL`). */
function callerOf(context: RouteContext, request: FastifyRequest): Caller {
  const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  return context.acl.authenticate(options.token);
}

/** Raft's own reads and writes need a management token (`aclObj.IsManagement()`). */
function requireManagementCaller(caller: Caller): void {
  if (!caller.management) throw permissionDenied();
}

/** `operator:read` (`AllowOperatorRead`). */
function requireOperatorRead(caller: Caller): void {
  if (!caller.management && !caller.permissions.operatorRead) throw permissionDenied();
}

/** `operator:write` (`AllowOperatorWrite`). */
function requireOperatorWrite(caller: Caller): void {
  if (!caller.management && !caller.permissions.operatorWrite) throw permissionDenied();
}

/** `GET /v1/operator/raft/configuration`. */
async function raftConfigurationRoute(context: RouteContext, request: FastifyRequest): Promise<Result> {
  requireManagementCaller(callerOf(context, request));
  return { body: raftConfiguration(await context.peers.members(), context.peers.leader) };
}

/** `DELETE /v1/operator/raft/peer`: `?address` is refused, `?id` must name a server of the configuration. */
async function removeRaftPeer(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const query = queryOf(request);
  if (query.has("address")) throw badRequest("Removing a peer by address is not supported in the current raft protocol version");
  if (!query.has("id")) throw badRequest("Must specify the peer's ID to remove");
  requireManagementCaller(callerOf(context, request));
  const id = query.get("id") ?? "";
  const servers = raftServers(await context.peers.members());
  // The reference answers this with a 500 (a plain error of its RPC); a client's mistake is a 400 here.
  if (!servers.some((server) => server.nodeId === id)) throw badRequest(`id ${JSON.stringify(id)} was not found in the Raft configuration`);
  return {};
}

/** `uuid.ParseUUID`'s refusal of `id`, or undefined for a UUID. */
function uuidProblem(id: string): string | undefined {
  if (id.length !== 36) return "uuid string is wrong length";
  return /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(id) ? undefined : "uuid is improperly formatted";
}

/** `netip.ParseAddrPort`'s refusal of `address` (its common texts), or undefined for an `IP:port`. */
function addressProblem(address: string): string | undefined {
  const at = address.lastIndexOf(":");
  if (at < 0) return "not an ip:port";
  const host = address.slice(0, at);
  const port = address.slice(at + 1);
  if (port === "") return "no port";
  const ip = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (isIP(ip) === 0) return `ParseAddr(${JSON.stringify(ip)}): unable to parse IP`;
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65_535) return `invalid port ${JSON.stringify(port)} parsing ${JSON.stringify(address)}`;
  return undefined;
}

/**
 * `PUT`/`POST /v1/operator/raft/transfer-leadership?id=|address=`: the reference's checks, a
 * management token, the target found among the servers; a transfer to the leader itself is its
 * no-op answer. Moving the leadership to another agent is not simulated (the leader is whoever
 * holds the shared store's lease).
 */
async function transferLeadership(context: RouteContext, request: FastifyRequest): Promise<Result> {
  if (request.method !== "PUT" && request.method !== "POST") throw new HttpError(405, INVALID_METHOD);
  const query = queryOf(request);
  const ids = query.getAll("id");
  const addresses = query.getAll("address");
  if (ids.length === 0 && addresses.length === 0) throw badRequest("must specify id or address");
  if (ids.length > 0 && addresses.length > 0) throw badRequest("must specify either id or address");
  if (ids.length > 0 && ids[0] === "") throw badRequest("id must be non-empty");
  if (ids.length > 1) throw badRequest("must specify only one id");
  if (addresses.length > 0 && addresses[0] === "") throw badRequest("address must be non-empty");
  if (addresses.length > 1) throw badRequest("must specify only one address");
  const id = ids[0] ?? "";
  const address = addresses[0] ?? "";
  const problem = id !== "" ? uuidProblem(id) : addressProblem(address);
  if (problem !== undefined) throw badRequest(id !== "" ? `id must be a uuid: ${problem}` : `address must be in IP:port format: ${problem}`);
  requireManagementCaller(callerOf(context, request));
  const { Servers } = raftConfiguration(await context.peers.members(), context.peers.leader) as { Servers: { ID: string; Address: string; Leader: boolean }[] };
  const leader = Servers.find((server) => server.Leader);
  if (leader === undefined) throw new HttpError(503, NO_LEADER);
  const target = Servers.find((server) => (id !== "" ? server.ID === id : server.Address === address));
  if (target === undefined) throw badRequest(id !== "" ? `id ${JSON.stringify(id)} was not found in the Raft configuration` : `address ${JSON.stringify(address)} was not found in the Raft configuration`);
  const from = { Address: leader.Address, ID: leader.ID };
  if (target.ID !== leader.ID) throw notSimulated(request.method, "/v1/operator/raft/transfer-leadership to another server");
  return { body: { From: from, To: from, Noop: true, Err: null } };
}

/** The paths under `/v1/operator/raft/`, matched by prefix as the reference's `OperatorRequest` does. */
async function raftRequest(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const path = new URL(request.url, "http://agent").pathname.slice("/v1/operator/raft/".length);
  if (path.startsWith("configuration")) {
    // The reference writes a bare 405 for another method here.
    if (request.method !== "GET") return { status: 405 };
    return raftConfigurationRoute(context, request);
  }
  if (path.startsWith("peer")) {
    if (request.method !== "DELETE") throw new HttpError(404, INVALID_METHOD);
    return removeRaftPeer(context, request);
  }
  if (path.startsWith("transfer-leadership")) return transferLeadership(context, request);
  throw new HttpError(404, INVALID_METHOD);
}

/** `PUT /v1/operator/autopilot/configuration`: decoded, `operator:write`, then written; answers `true`, or the check-and-set's outcome. */
async function setAutopilot(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const caller = callerOf(context, request);
  let body;
  try {
    body = decodeBody(bodyText(request), AUTOPILOT_CONFIG_BODY as typeof AUTOPILOT_CONFIG_BODY & { kind: "object" }, "api.AutopilotConfiguration");
  } catch (error) {
    throw badRequest(`Error parsing autopilot config: ${(error as Error).message}`);
  }
  const update = autopilotConfigUpdate(body);
  const query = queryOf(request);
  const cas = query.has("cas") ? casIndex(query.get("cas") ?? "") : undefined;
  requireOperatorWrite(caller);
  const { updated } = await setAutopilotConfig(context.store, update, cas);
  return { body: cas === undefined ? true : updated };
}

/** Registers the Raft, autopilot, license and utilization routes. */
export function raftRoutes(app: FastifyInstance, context: RouteContext): void {
  const { store, peers } = context;
  // Servers become stable once they have run a while; the agent's start stands for it.
  const stableSinceMs = Date.now();
  const raft = (request: FastifyRequest) => raftRequest(context, request);
  app.all("/v1/operator/raft/*", byMethod(Object.fromEntries(METHODS.map((method) => [method, raft]))));
  app.all(
    "/v1/operator/autopilot/configuration",
    byMethod(
      refusingOthers(
        {
          GET: async (request) => {
            requireOperatorRead(callerOf(context, request));
            return { body: presentAutopilotConfig(autopilotConfigOf(store.tables)) };
          },
          PUT: (request) => setAutopilot(context, request),
        },
        404,
      ),
    ),
  );
  app.all(
    "/v1/operator/autopilot/health",
    byMethod(
      refusingOthers(
        {
          GET: async (request) => {
            requireOperatorRead(callerOf(context, request));
            // The reference asks the leader whatever `?stale` says (`ServerHealth` clears it).
            if (!peers.knownLeader) throw new Refusal("unreachable", NO_LEADER);
            const health = operatorHealth(await peers.members(), { leader: peers.leader, index: store.index, stableSinceMs });
            return health.Healthy ? { body: health } : { body: health, status: 429 };
          },
        },
        404,
      ),
    ),
  );
  // The community edition's answers (`operator_endpoint_ce.go`): no license to read, none to put.
  app.all(
    "/v1/operator/license",
    byMethod(
      refusingOthers(
        {
          GET: async () => ({ status: 204 }),
          PUT: async () => {
            throw new HttpError(501, ENTERPRISE_ONLY);
          },
        },
        405,
      ),
    ),
  );
  app.all(
    "/v1/operator/utilization",
    byMethod(
      refusingOthers(
        {
          POST: async () => {
            throw new HttpError(501, ENTERPRISE_ONLY);
          },
        },
        405,
      ),
    ),
  );
}
