/**
 * A job's and an allocation's actions, and the lists the reference's client reads around them:
 *
 * - `PUT`/`POST /v1/job/<id>/revert`, `/stable`, `/evaluate`, `/scale` and `GET /v1/job/<id>/scale`
 *   (`command/agent/job_endpoint.go`, the RPCs in `nomad/job_endpoint.go`);
 * - `PUT`/`POST /v1/allocation/<id>/stop` (`alloc_endpoint.go`);
 * - `GET /v1/evaluation/<id>/allocations`, `GET /v1/evaluations/count` (`eval_endpoint.go`);
 * - `GET /v1/deployment/allocations/<id>` (`deployment_endpoint.go`).
 *
 * Each write checks, in the reference's order: its body (present, decodable, naming the job of
 * the path), the region, the token and its capability in the namespace, then the RPC's checks.
 *
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { compareStrings } from "../../go/order.js";
import { checkRegion } from "../base/errors.js";
import { namespaceAccess, type Caller } from "../domain/acl.js";
import { presentAllocationStub } from "../domain/present.js";
import { requireRegistrationsAllowed } from "../domain/operator.js";
import { boolParameter, evaluationsEndpoint } from "../list/endpoints.js";
import { blockingRead, expiryOf, targetFor } from "../list/pipeline.js";
import { parseQueryOptions, type QueryOptions } from "../list/query.js";
import type { Allocation, JsonObject } from "../state/model.js";
import { CostBudget } from "../../evaluator/cost.js";
import { badRequest, notFound } from "./errors.js";
import { objectRoute, requireReadJob } from "./read-routes.js";
import { bodyText, byMethod, clientGone, objectBody, param, queryOf, type Result, type RouteContext } from "./route.js";

/** The fields `structs.WriteRequest` embeds in every write's request struct. */
const WRITE_REQUEST_FIELDS = { Region: "string", Namespace: "string", AuthToken: "string", IdempotencyToken: "string" } as const;

/** `structs.JobRevertRequest`. */
const JOB_REVERT_REQUEST = {
  kind: "object",
  typeName: "structs.JobRevertRequest",
  fields: { JobID: "string", JobVersion: "uint", EnforcePriorVersion: "uint", ConsulToken: "string", VaultToken: "string", ...WRITE_REQUEST_FIELDS },
} as const;

/** `structs.JobStabilityRequest`. */
const JOB_STABILITY_REQUEST = { kind: "object", typeName: "structs.JobStabilityRequest", fields: { JobID: "string", JobVersion: "uint", Stable: "bool", ...WRITE_REQUEST_FIELDS } } as const;

/** `structs.JobEvaluateRequest`. */
const JOB_EVALUATE_REQUEST = {
  kind: "object",
  typeName: "structs.JobEvaluateRequest",
  fields: { JobID: "string", EvalOptions: { kind: "object", typeName: "structs.EvalOptions", fields: { ForceReschedule: "bool" } }, ...WRITE_REQUEST_FIELDS },
} as const;

/** `api.ScalingRequest`, which embeds `api.WriteRequest`. */
const SCALING_REQUEST = {
  kind: "object",
  typeName: "api.ScalingRequest",
  fields: {
    Count: "int",
    Target: { kind: "map", values: "string" },
    Error: "bool",
    Message: "string",
    Meta: { kind: "map", values: "any" },
    PolicyOverride: "bool",
    JobModifyIndex: "uint",
    Region: "string",
    Namespace: "string",
    SecretID: "string",
  },
} as const;

/**
 * The largest count a scaling action may ask for: the reference's `TaskGroup.Count` is a Go
 * `int`; a JavaScript number counts exactly up to 2^53, and no simulated group gets near either.
 */
export const MAX_SCALING_COUNT = Number.MAX_SAFE_INTEGER;

/** A string field of a decoded body ("" when absent). */
function stringField(body: JsonObject, name: string): string {
  const value = body[name];
  return typeof value === "string" ? value : "";
}

/** A `uint64` field of a decoded body (0 when absent; one past every version when too large for a number). */
function versionField(body: JsonObject, name: string): number | undefined {
  const value = body[name];
  if (typeof value === "bigint") return Number.MAX_SAFE_INTEGER;
  return typeof value === "number" ? value : undefined;
}

/** What a write's request resolves to: its query options, namespace and caller, after the region and the token were checked. */
export interface WriteTarget {
  readonly options: QueryOptions;
  readonly namespace: string;
  readonly caller: Caller;
}

/**
 * The reference's `parseWriteRequest` over a decoded body: `?region` beats the body's `Region`,
 * `?namespace` its `Namespace` (`default` when neither), the token header its `AuthToken`; then
 * the region is checked and the caller authenticated.
 */
export function writeTarget(context: RouteContext, request: FastifyRequest, body: JsonObject): WriteTarget {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  checkRegion(query.get("region") || stringField(body, "Region") || context.settings.region, context.settings.region);
  const namespace = query.get("namespace") || stringField(body, "Namespace") || "default";
  const caller = context.acl.authenticate(options.token || stringField(body, "AuthToken"));
  return { options, namespace, caller };
}

/** A job action's body: decoded, with a `JobID` that names the path's job (the reference's 400s otherwise). */
function jobActionBody(request: FastifyRequest, schema: typeof JOB_REVERT_REQUEST | typeof JOB_STABILITY_REQUEST): JsonObject {
  // The reference's decodeBody refuses a request without a body before it decodes.
  if (bodyText(request) === "") throw badRequest("Request body is empty");
  const body = objectBody(request, schema, schema.typeName);
  const jobId = stringField(body, "JobID");
  if (jobId === "") throw badRequest("JobID must be specified");
  if (jobId !== param(request, "id")) throw badRequest("Job ID does not match");
  return body;
}

/** `PUT /v1/job/<id>/revert`: `submit-job` or `revert-job`; answered as a registration. */
async function revert(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const body = jobActionBody(request, JOB_REVERT_REQUEST);
  const { namespace, caller } = writeTarget(context, request, body);
  namespaceAccess(caller, namespace, ["submit-job", "revert-job"]);
  // The reference's revert registers the old version (`doRegister`): refused as a registration is.
  requireRegistrationsAllowed(caller, context.store.tables);
  const enforce = versionField(body, "EnforcePriorVersion");
  const response = await context.cluster.revertJob(namespace, param(request, "id"), { version: versionField(body, "JobVersion") ?? 0, ...(enforce === undefined ? {} : { enforcePriorVersion: enforce }) });
  return { body: response, index: response.Index };
}

/** `PUT /v1/job/<id>/stable`: `submit-job` or `stable-job`; answers the write's index (`JobStabilityResponse`). */
async function stable(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const body = jobActionBody(request, JOB_STABILITY_REQUEST);
  const { namespace, caller } = writeTarget(context, request, body);
  namespaceAccess(caller, namespace, ["submit-job", "stable-job"]);
  const index = await context.cluster.markJobStability(namespace, param(request, "id"), versionField(body, "JobVersion") ?? 0, body.Stable === true);
  return { body: { Index: index }, index };
}

/**
 * `PUT /v1/job/<id>/evaluate`: `submit-job` or `evaluate-job`. A request without a body evaluates
 * the path's job, as the reference still allows; a body must name it.
 */
async function evaluate(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const id = param(request, "id");
  let body: JsonObject = {};
  if (bodyText(request) !== "") {
    body = objectBody(request, JOB_EVALUATE_REQUEST, JOB_EVALUATE_REQUEST.typeName);
    const jobId = stringField(body, "JobID");
    if (jobId === "") throw badRequest("Job ID must be specified");
    if (id !== "" && jobId !== id) throw badRequest("JobID not same as job name");
  }
  const { namespace, caller } = writeTarget(context, request, body);
  namespaceAccess(caller, namespace, ["submit-job", "evaluate-job"]);
  const options = body.EvalOptions as JsonObject | null | undefined;
  const response = await context.cluster.evaluateJob(namespace, id, options?.ForceReschedule === true);
  return { body: response, index: response.Index };
}

/**
 * `PUT /v1/job/<id>/scale`: `scale-job` or `submit-job`. The body is `api.ScalingRequest`; its
 * `Target` names the group (and may name the job and namespace, which must be the request's), as
 * the reference's handler and `JobScaleRequest.Validate` check it, each a 400.
 */
async function scale(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const id = param(request, "id");
  const body = objectBody(request, SCALING_REQUEST, SCALING_REQUEST.typeName);
  const target = (body.Target ?? {}) as Record<string, string>;
  if ((target.Job ?? "") !== "" && target.Job !== id) throw badRequest("job ID in payload did not match URL");
  // The reference parses the write request's options from the request alone: the body's `api.WriteRequest` fields are not read.
  const { namespace, caller } = writeTarget(context, request, {});
  namespaceAccess(caller, namespace, ["scale-job", "submit-job"]);
  requireRegistrationsAllowed(caller, context.store.tables);
  if ((target.Namespace ?? "") !== "" && target.Namespace !== namespace) throw badRequest("namespace in payload did not match header");
  const group = target.Group ?? "";
  if (group === "") throw badRequest("missing task group name for scaling action");
  // `/v1/job//scale`: the reference's client gets a 400 here (its own test says so); no job has the empty ID.
  if (id === "") throw badRequest("missing job ID for scaling action");
  const count = body.Count as number | bigint | null | undefined;
  if (count !== null && count !== undefined) {
    if (count < 0) throw badRequest("scaling action count can't be negative");
    if (body.Error === true) throw badRequest("scaling action should not contain count if error is true");
    if (typeof count === "bigint" || count > MAX_SCALING_COUNT) throw badRequest(`new scaling count is too large for TaskGroup.Count (int): ${count}`);
  }
  const response = await context.cluster.scaleJob(namespace, id, {
    group,
    ...(count === null || count === undefined ? {} : { count: Number(count) }),
    message: stringField(body, "Message"),
    error: body.Error === true,
    meta: (body.Meta as JsonObject | null | undefined) ?? null,
    jobModifyIndex: versionField(body, "JobModifyIndex") ?? 0,
  });
  return { body: response, index: response.Index };
}

/**
 * `PUT /v1/allocation/<id>/stop`: `alloc-lifecycle` in the allocation's namespace. The query's
 * `no_shutdown_delay` and `reschedule` are bools (a 400 otherwise); an unknown allocation is a 404.
 */
async function stopAlloc(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const query = queryOf(request);
  const noShutdownDelay = boolParameter(query, "no_shutdown_delay", false);
  const reschedule = boolParameter(query, "reschedule", false);
  const { caller } = writeTarget(context, request, {});
  const alloc = context.store.tables.allocs.get(param(request, "id"));
  if (alloc === undefined) throw notFound("alloc not found");
  namespaceAccess(caller, alloc.Namespace, ["alloc-lifecycle"]);
  const response = await context.cluster.stopAllocation(alloc, { noShutdownDelay, reschedule });
  return { body: response, index: response.Index };
}

/** Allocation stubs in ID order, or a 403 when the caller may not read their namespace (they are of one job, so of one namespace). */
function allocationStubs(caller: Caller, options: QueryOptions, allocs: readonly Allocation[]): JsonObject[] {
  const first = allocs[0];
  if (first !== undefined && first.Namespace !== options.namespace) requireReadJob(caller, first.Namespace);
  return [...allocs].sort((a, b) => compareStrings(a.ID, b.ID)).map((alloc) => presentAllocationStub(alloc));
}

/**
 * `GET /v1/evaluations/count`: how many evaluations the caller may read in the namespace (`*`:
 * every one it may), with `prefix` or `filter` as the evaluation list takes them
 * (`EvalCountResponse`). A blocking query on the evaluations.
 */
async function countEvaluations(context: RouteContext, request: FastifyRequest, reply: FastifyReply): Promise<Result> {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  const first = context.acl.authenticate(options.token);
  evaluationsEndpoint.access(first, options.namespace);
  const schema = evaluationsEndpoint.schema;
  const filter = options.filter === "" || schema === undefined ? undefined : context.lists.filters.get(options.filter, { name: evaluationsEndpoint.name, schema });
  const counted = await blockingRead(context.lists, ["evals"], options, clientGone(reply), expiryOf(context.acl, first), async (caller) => {
    const permitted = evaluationsEndpoint.access(caller, options.namespace);
    const page = await context.store.page(evaluationsEndpoint, {
      perPage: 0,
      nextToken: "",
      reverse: false,
      namespace: options.namespace,
      prefix: options.prefix,
      filter,
      budget: new CostBudget(context.lists.filterCostPerRequest),
      schema,
      permitted,
      filterTarget: targetFor(evaluationsEndpoint, filter),
      stale: options.allowStale,
    });
    return { index: page.index, count: page.rows.length };
  });
  return { body: { Count: counted.count, Index: counted.index, LastContact: 0, KnownLeader: context.peers.knownLeader, NextToken: "" }, index: counted.index, read: true };
}

/** Registers the actions and lists of this module. */
export function actionRoutes(app: FastifyInstance, context: RouteContext): void {
  const { store } = context;
  const write = (action: (context: RouteContext, request: FastifyRequest) => Promise<Result>) => {
    const handler = (request: FastifyRequest) => action(context, request);
    return byMethod({ PUT: handler, POST: handler });
  };
  app.all("/v1/job/:id/revert", write(revert));
  app.all("/v1/job/:id/stable", write(stable));
  app.all("/v1/job/:id/evaluate", write(evaluate));
  const scaleAction = (request: FastifyRequest) => scale(context, request);
  app.all(
    "/v1/job/:id/scale",
    byMethod({
      PUT: scaleAction,
      POST: scaleAction,
      // `read-job` or `read-job-scaling`; a job that does not exist is a 404 with the state's index.
      GET: objectRoute(context, {
        tables: ["jobs", "allocs", "scaling_event"],
        read: (caller, { id, options }) => {
          namespaceAccess(caller, options.namespace, ["read-job", "read-job-scaling"]);
          return context.cluster.scaleStatus(options.namespace, id) ?? { index: store.tableIndex("jobs", "allocs", "scaling_event"), missing: "job not found" };
        },
      }),
    }),
  );
  app.all("/v1/allocation/:id/stop", write(stopAlloc));
  app.all(
    "/v1/evaluation/:id/allocations",
    byMethod({
      GET: objectRoute(context, {
        tables: ["allocs"],
        read: (caller, { id, options }) => {
          requireReadJob(caller, options.namespace);
          const allocs = [...store.tables.allocs.values()].filter((alloc) => alloc.EvalID === id);
          return { index: store.tableIndex("allocs"), body: allocationStubs(caller, options, allocs) };
        },
      }),
    }),
  );
  app.all(
    "/v1/deployment/allocations/:id",
    byMethod({
      GET: objectRoute(context, {
        tables: ["allocs"],
        read: (caller, { id, options }) => {
          requireReadJob(caller, options.namespace);
          const allocs = id === "" ? [] : [...store.tables.allocs.values()].filter((alloc) => alloc.DeploymentID === id);
          return { index: store.tableIndex("allocs"), body: allocationStubs(caller, options, allocs) };
        },
      }),
    }),
  );
  app.all("/v1/evaluations/count", byMethod({ GET: (request, reply) => countEvaluations(context, request, reply) }));
}
