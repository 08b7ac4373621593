/**
 * The agent endpoints a server agent answers on its own (`command/agent/agent_endpoint.go`):
 *
 * - `GET /v1/agent/self`: the agent's configuration, member and stats (`agent:read`);
 * - `GET /v1/agent/health`: `{server: {ok, message}}`, a 500 with the same body when not ok;
 * - `GET /v1/agent/servers`: the servers' RPC addresses, sorted (`agent:read`).
 *
 * `/v1/agent/members` is with the lists (`job-routes.ts`). None of these is forwarded to the
 * leader (see `control/leader.ts`).
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { agentHealth, agentSelfResponse, healthy } from "../domain/agent-self.js";
import type { Caller } from "../domain/acl.js";
import { parseQueryOptions, parseToken } from "../list/query.js";
import type { LeaderSwitch } from "../control/leader.js";
import { SIMULATED_NOMAD_VERSION } from "../scheduler/fingerprint.js";
import { HttpError, permissionDenied } from "./errors.js";
import { SERVER_RPC_PORT } from "./read-routes.js";
import { byMethod, queryOf, type Result, type RouteContext } from "./route.js";
import { notSimulated } from "./unserved-routes.js";

/** The reference's `AllowAgentRead`: a management token, or a policy with `agent { policy = "read" }` (or write). */
function requireAgentRead(caller: Caller): void {
  if (!caller.management && !caller.permissions.agentRead) throw permissionDenied();
}

/**
 * Registers the agent endpoints.
 *
 * @param leader - the leader-loss switch: while a test has the leader lost, the server is not healthy.
 */
export function agentRoutes(app: FastifyInstance, context: RouteContext, leader?: LeaderSwitch): void {
  const { settings, peers, cluster } = context;
  const leaderKnown = () => peers.knownLeader && leader?.lost !== true;
  const rpcAddress = (address: string) => `${address}:${SERVER_RPC_PORT}`;
  const leaderAddress = async (): Promise<string> => {
    if (!leaderKnown()) return "";
    if (cluster.leading) return rpcAddress(settings.advertiseAddress);
    const member = (await peers.members()).find((candidate) => candidate.name === peers.leader);
    return member === undefined ? "" : rpcAddress(member.address);
  };
  // The reference's self and servers handlers resolve the token without parsing the query.
  const callerOf = (request: FastifyRequest) => context.acl.authenticate(parseToken(request.headers, settings.headerNames));

  app.all(
    "/v1/agent/self",
    byMethod({
      GET: async (request): Promise<Result> => {
        requireAgentRead(callerOf(request));
        const facts = {
          nomadVersion: SIMULATED_NOMAD_VERSION,
          bind: settings.bind,
          httpPort: request.socket.localPort ?? 0,
          logLevel: settings.logLevel,
          aclEnabled: context.acl.enabled,
          leading: cluster.leading && leaderKnown(),
          leaderAddress: await leaderAddress(),
          members: await peers.members(),
        };
        return { body: agentSelfResponse(settings, facts, settings.headerNames.style) };
      },
    }),
  );

  app.all(
    "/v1/agent/health",
    byMethod({
      GET: async (request): Promise<Result> => {
        // Parsed as the reference's handler parses it (a malformed option is a 400); no ACL.
        const query = queryOf(request);
        parseQueryOptions(query, request.headers, settings);
        const health = agentHealth(query.getAll("type"), leaderKnown());
        // Not healthy: the reference answers 500 with the same JSON as its error text.
        if (!healthy(health)) throw new HttpError(500, JSON.stringify(health));
        return { body: health };
      },
    }),
  );

  const updateServers = async (request: FastifyRequest): Promise<Result> => {
    throw notSimulated(request.method, "/v1/agent/servers");
  };
  app.all(
    "/v1/agent/servers",
    byMethod({
      // The servers the simulated clients know: every member that has not left (the reference's
      // server-only agent has no client and answers 501; the agent's clients are its own).
      GET: async (request): Promise<Result> => {
        requireAgentRead(callerOf(request));
        const addresses = (await peers.members()).filter((member) => member.status !== "left").map((member) => rpcAddress(member.address));
        return { body: addresses.sort() };
      },
      PUT: updateServers,
      POST: updateServers,
    }),
  );
}
