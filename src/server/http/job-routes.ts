/**
 * `/v1/jobs`, a job's `dispatch` and `periodic/force`, `/v1/deployments` and `/v1/agent/members`.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { namespaceAccess } from "../domain/acl.js";
import { requireRegistrationsAllowed } from "../domain/operator.js";
import { checkRegion } from "../base/errors.js";
import { membersResponse } from "../domain/members.js";
import { decodeRegisterRequest } from "../scheduler/job-spec.js";
import { decodeDispatchRequest } from "../scheduler/dispatch.js";
import { boolParameter, deploymentsEndpoint, jobsEndpoint, type ListEndpoint } from "../list/endpoints.js";
import { parseQueryOptions } from "../list/query.js";
import { METRICS } from "../metrics/index.js";
import { permissionDenied } from "./errors.js";
import { badRequest } from "./errors.js";
import { bodyText, byMethod, listRoute, param, queryOf, type Handler, type Result, type RouteContext } from "./route.js";

/** `PUT /v1/jobs`: decode, region, ACL (`submit-job` or `register-job`), register. */
async function register(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const query = queryOf(request);
  // Malformed query options are refused before the body is read, as the reference parses first.
  const options = parseQueryOptions(query, request.headers, context.settings);
  const registration = decodeRegisterRequest(bodyText(request));
  const { job } = registration;
  const namespace = query.get("namespace") || registration.namespace || (typeof job.Namespace === "string" && job.Namespace) || "default";
  let region = query.get("region") || registration.region || (typeof job.Region === "string" ? job.Region : "");
  if (region === "" || region === "global") region = context.settings.region;
  checkRegion(region, context.settings.region);
  // A token in the header beats the request's SecretID.
  const caller = context.acl.authenticate(options.token || registration.secretId);
  // The reference refuses a rejected registration before it checks the capability (`doRegister`).
  requireRegistrationsAllowed(caller, context.store.tables);
  namespaceAccess(caller, namespace, ["submit-job", "register-job"]);
  const response = await context.cluster.register(registration, namespace, region);
  return { body: response, index: response.Index };
}

/**
 * `DELETE /v1/job/<id>`: stops the job, or with `purge=true` removes it (`submit-job` in the
 * namespace). `purge` and `eval_priority` that do not parse are 400s, where the reference answers
 * 500 (the decisions table); a job that does not exist is answered with zeros, as the reference does.
 */
export function deregisterJob(context: RouteContext): Handler {
  return async (request) => {
    const query = queryOf(request);
    const options = parseQueryOptions(query, request.headers, context.settings);
    checkRegion(options.region, context.settings.region);
    const purge = boolParameter(query, "purge", false);
    const priorityText = query.get("eval_priority");
    const evalPriority = priorityText === null || priorityText === "" ? 0 : Number(priorityText);
    if (!Number.isSafeInteger(evalPriority)) throw badRequest(`Failed to parse value of "eval_priority" (${priorityText}) as a int`);
    if (evalPriority > 100) throw badRequest("Eval priority must be between 1 and 100 inclusively");
    const caller = context.acl.authenticate(options.token);
    namespaceAccess(caller, options.namespace, ["submit-job"]);
    const response = await context.cluster.deregister(options.namespace, param(request, "id"), { purge, ...(evalPriority > 0 ? { evalPriority } : {}) });
    return { body: response, index: response.Index };
  };
}

/** `PUT /v1/job/<id>/dispatch`: query options, the body, region, ACL (`dispatch-job` in the namespace), then the dispatch. */
async function dispatchJob(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  // The body is read before the region and the ACL, as the reference's handler decodes it first.
  const dispatch = decodeDispatchRequest(bodyText(request), param(request, "id"), query.get("idempotency_token") ?? "");
  checkRegion(options.region, context.settings.region);
  const caller = context.acl.authenticate(options.token);
  namespaceAccess(caller, options.namespace, ["dispatch-job"]);
  requireRegistrationsAllowed(caller, context.store.tables);
  const response = await context.cluster.dispatch(options.namespace, dispatch);
  return { body: response, index: response.Index };
}

/** `PUT /v1/job/<id>/periodic/force`: launches a periodic job now (`dispatch-job`, `submit-job` or `force-periodic-job`, as the reference). */
async function forcePeriodic(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  const caller = context.acl.authenticate(options.token);
  namespaceAccess(caller, options.namespace, ["dispatch-job", "submit-job", "force-periodic-job"]);
  const response = await context.cluster.forcePeriodic(options.namespace, param(request, "id"));
  return { body: response, index: response.Index };
}

/** Registers the routes of jobs, deployments and members. */
export function jobRoutes(app: FastifyInstance, context: RouteContext): void {
  const listOf = <Row>(endpoint: ListEndpoint<Row>) => listRoute(context, endpoint);
  const registerJob = (request: FastifyRequest) => context.metrics.time(METRICS.jobRegister, () => register(context, request));
  app.all(
    "/v1/jobs",
    byMethod({
      GET: listOf(jobsEndpoint),
      PUT: registerJob,
      POST: registerJob,
    }),
  );
  const dispatch = (request: FastifyRequest) => dispatchJob(context, request);
  app.all("/v1/job/:id/dispatch", byMethod({ PUT: dispatch, POST: dispatch }));
  const force = (request: FastifyRequest) => forcePeriodic(context, request);
  app.all("/v1/job/:id/periodic/force", byMethod({ PUT: force, POST: force }));
  app.all("/v1/deployments", byMethod({ GET: listOf(deploymentsEndpoint) }));
  app.all(
    "/v1/agent/members",
    byMethod({
      GET: async (request) => {
        // Members ignores the region (the reference does not forward it), but needs node:read.
        const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
        const caller = context.acl.authenticate(options.token);
        if (!caller.management && !caller.permissions.nodeRead) throw permissionDenied();
        return { body: membersResponse(context.settings, await context.peers.members(), context.settings.headerNames.style) };
      },
    }),
  );
}
