/**
 * The ACL API: `/v1/acl/bootstrap`, `/v1/acl/policies`, `/v1/acl/policy/<name>`,
 * `/v1/acl/tokens`, `/v1/acl/token[/<accessor>]`, `/v1/acl/token/self`,
 * `/v1/acl/token/onetime[/exchange]`, `/v1/acl/roles`, `/v1/acl/role[/<id>]` and
 * `/v1/acl/role/name/<name>`. With ACLs disabled every one answers `400 ACL support disabled`, as
 * the reference does.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { requireManagement, type Caller } from "../domain/acl.js";
import { ACL_POLICY_BODY, ACL_ROLE_BODY, ACL_TOKEN_BODY, BOOTSTRAP_BODY, ONE_TIME_EXCHANGE_BODY, oneTimeTokenResponse, policyResponse, roleResponse, tokenResponse } from "../domain/acl-api.js";
import { aclPoliciesEndpoint, aclRolesEndpoint, aclTokensEndpoint } from "../list/endpoints.js";
import { parseQueryOptions, type QueryOptions } from "../list/query.js";
import type { AclRole } from "../state/model.js";
import { badRequest, notFound } from "./errors.js";
import { objectRoute } from "./read-routes.js";
import { bodyText, byMethod, listRoute, missingName, objectBody, param, queryOf, type Result, type RouteContext } from "./route.js";

/** Registers the ACL routes. */
export function aclRoutes(app: FastifyInstance, context: RouteContext): void {
  const { acl } = context;
  const options = (request: FastifyRequest): QueryOptions => {
    const parsed = parseQueryOptions(queryOf(request), request.headers, context.settings);
    acl.requireEnabled();
    return parsed;
  };
  const management = (request: FastifyRequest) => requireManagement(acl.authenticate(options(request).token));

  const bootstrap = async (request: FastifyRequest): Promise<Result> => {
    options(request);
    const text = bodyText(request);
    const token = await acl.bootstrap(text.trim() === "" ? {} : objectBody(request, BOOTSTRAP_BODY, "structs.ACLTokenBootstrapRequest"));
    return { body: tokenResponse(token, acl.roles), index: token.CreateIndex };
  };
  app.all("/v1/acl/bootstrap", byMethod({ PUT: bootstrap, POST: bootstrap }));

  app.all("/v1/acl/policies", byMethod({ GET: listRoute(context, aclPoliciesEndpoint) }));

  app.all("/v1/acl/policy/", missingName("Missing Policy Name"));
  const upsertPolicy = async (request: FastifyRequest): Promise<Result> => {
    management(request);
    const body = objectBody(request, ACL_POLICY_BODY, "structs.ACLPolicy");
    if (body.Name !== param(request, "name")) throw badRequest("ACL policy name does not match request path");
    return { index: await acl.upsertPolicy(body) };
  };
  app.all(
    "/v1/acl/policy/:name",
    byMethod({
      GET: async (request) => {
        const policy = acl.readPolicy(param(request, "name"), acl.authenticate(options(request).token));
        return { body: policyResponse(policy), index: policy.ModifyIndex, read: true };
      },
      PUT: upsertPolicy,
      POST: upsertPolicy,
      DELETE: async (request) => {
        management(request);
        return { index: await acl.deletePolicy(param(request, "name")) };
      },
    }),
  );

  app.all("/v1/acl/tokens", byMethod({ GET: listRoute(context, aclTokensEndpoint) }));

  /**
   * `aclTokenUpdate`: the body first (decoded, and naming the token of the path, if any), then the
   * caller (a management token), then `ACL.UpsertTokens`. The body's `AccessorID` counts on both
   * paths, as the reference's: on `/v1/acl/token` too, it names a token to update or to upload.
   */
  const upsertToken = async (request: FastifyRequest): Promise<Result> => {
    const body = objectBody(request, ACL_TOKEN_BODY, "structs.ACLToken");
    const accessor = param(request, "accessor");
    if (accessor !== "" && body.AccessorID !== accessor) throw badRequest("ACL token accessor does not match request path");
    management(request);
    const token = await acl.upsertToken(body);
    return { body: tokenResponse(token, acl.roles), index: token.ModifyIndex };
  };
  app.all("/v1/acl/token", byMethod({ PUT: upsertToken, POST: upsertToken }));

  app.all(
    "/v1/acl/token/self",
    byMethod({
      GET: async (request) => {
        const caller = acl.authenticate(options(request).token);
        if (caller.token === undefined) throw notFound("ACL token not found");
        return { body: tokenResponse(caller.token, acl.roles), index: caller.token.ModifyIndex, read: true };
      },
    }),
  );

  /** `UpsertOneTimeToken`: for the request's own token; the body is not read. */
  const oneTime = async (request: FastifyRequest): Promise<Result> => {
    const ott = await acl.upsertOneTimeToken(acl.authenticate(options(request).token));
    return { body: { OneTimeToken: oneTimeTokenResponse(ott), Index: ott.ModifyIndex }, index: ott.ModifyIndex };
  };
  app.all("/v1/acl/token/onetime", byMethod({ PUT: oneTime, POST: oneTime }));
  /** `ExchangeOneTimeToken`: the body first, then the exchange; the request's own token plays no part. */
  const exchange = async (request: FastifyRequest): Promise<Result> => {
    const body = objectBody(request, ONE_TIME_EXCHANGE_BODY, "structs.OneTimeTokenExchangeRequest");
    options(request);
    const { token, index } = await acl.exchangeOneTimeToken(body);
    return { body: { Token: tokenResponse(token, acl.roles), Index: index }, index };
  };
  app.all("/v1/acl/token/onetime/exchange", byMethod({ PUT: exchange, POST: exchange }));

  app.all("/v1/acl/token/", missingName("Missing Token Accessor"));
  app.all(
    "/v1/acl/token/:accessor",
    byMethod({
      GET: async (request) => {
        const token = acl.readToken(param(request, "accessor"), acl.authenticate(options(request).token));
        return { body: tokenResponse(token, acl.roles), index: token.ModifyIndex, read: true };
      },
      PUT: upsertToken,
      POST: upsertToken,
      DELETE: async (request) => {
        management(request);
        return { index: await acl.deleteToken(param(request, "accessor")) };
      },
    }),
  );

  app.all("/v1/acl/roles", byMethod({ GET: listRoute(context, aclRolesEndpoint) }));

  /**
   * `aclRoleUpsertRequest`: the body first (decoded, and naming the role of the path, if any),
   * then the caller (a management token), then `ACL.UpsertRoles`; the answer is the role written.
   */
  const upsertRole = async (request: FastifyRequest): Promise<Result> => {
    const body = objectBody(request, ACL_ROLE_BODY, "structs.ACLRole");
    const id = param(request, "id");
    if (id !== "" && body.ID !== id) throw badRequest("ACL role ID does not match request path");
    management(request);
    const role = await acl.upsertRole(body);
    return { body: roleResponse(role), index: role.ModifyIndex };
  };
  app.all("/v1/acl/role", byMethod({ PUT: upsertRole, POST: upsertRole }));
  /** A blocking read of one role (`GetRoleByID`, `GetRoleByName`): the role at its `ModifyIndex`, or a 404 at the role table's index. */
  const roleRead = (find: (caller: Caller, key: string) => AclRole | undefined) =>
    objectRoute(context, {
      tables: ["acl_role"],
      read: (caller, { id }) => {
        const role = find(caller, id);
        return role === undefined ? { index: context.store.tableIndex("acl_role"), missing: "ACL role not found" } : { index: role.ModifyIndex, body: roleResponse(role) };
      },
    });
  app.all("/v1/acl/role/", missingName("missing ACL role ID"));
  app.all(
    "/v1/acl/role/:id",
    byMethod({
      GET: roleRead((caller, id) => acl.readRole(caller, id)),
      PUT: upsertRole,
      POST: upsertRole,
      DELETE: async (request) => {
        management(request);
        return { index: await acl.deleteRole(param(request, "id")) };
      },
    }),
  );
  // The reference takes the rest of the path apart itself: two parts are a read by name (GET only), more are an invalid URI.
  app.all(
    "/v1/acl/role/name/",
    byMethod({
      GET: async () => {
        throw badRequest("missing ACL role name");
      },
    }),
  );
  app.all(
    "/v1/acl/role/name/:id",
    byMethod({
      GET: roleRead((caller, name) => acl.readRoleByName(caller, name)),
    }),
  );
  const invalidUri = async (): Promise<Result> => {
    throw badRequest("invalid URI");
  };
  app.all("/v1/acl/role/:id/:part", byMethod({ GET: invalidUri }));
  app.all("/v1/acl/role/:id/:part/*", byMethod({ GET: invalidUri, PUT: invalidUri, POST: invalidUri, DELETE: invalidUri }));
}
