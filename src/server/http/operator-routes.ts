/**
 * The operator's and the system's routes (`command/agent/operator_endpoint.go`,
 * `system_endpoint.go`, `eval_endpoint.go`'s delete):
 *
 * - `GET`/`PUT`/`POST /v1/operator/scheduler/configuration` (`operator:read`, `operator:write`),
 *   the write with check-and-set through `?cas=<index>`;
 * - `GET /v1/evaluations` (the list) and `DELETE /v1/evaluations` (management), by `EvalIDs` or by `Filter`, while the eval broker is paused;
 * - `PUT /v1/system/gc` and `PUT /v1/system/reconcile/summaries` (management).
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { checkRegion, invalid } from "../base/errors.js";
import { requireManagement, type Caller } from "../domain/acl.js";
import { presentSchedulerConfig, SCHEDULER_CONFIG_BODY, schedulerConfigUpdate } from "../domain/operator.js";
import { evaluationsEndpoint } from "../list/endpoints.js";
import { parseQueryOptions } from "../list/query.js";
import { schedulerConfigOf } from "../state/operator.js";
import type { Evaluation } from "../state/model.js";
import { CostBudget } from "../../evaluator/cost.js";
import { decodeBody } from "../../go/json.js";
import { FilterEvaluationError } from "../../errors.js";
import { MAX_EVAL_IDS_PER_DELETE } from "./constants.js";
import { badRequest, permissionDenied } from "./errors.js";
import { objectRoute } from "./read-routes.js";
import { bodyText, byMethod, listRoute, queryOf, type Result, type RouteContext } from "./route.js";

/** `structs.EvalDeleteRequest`. */
const EVAL_DELETE_REQUEST = {
  kind: "object",
  typeName: "structs.EvalDeleteRequest",
  fields: { EvalIDs: { kind: "array", items: "string" }, Filter: "string", Region: "string", Namespace: "string", AuthToken: "string", IdempotencyToken: "string" },
} as const;

/** The largest `uint64`, which `?cas` may name. */
const UINT64_MAX = 2n ** 64n - 1n;

/** `strconv.ParseUint(value, 10, 64)` of `?cas`, as a number the indexes compare with (a 400 with Go's words otherwise). */
export function casIndex(value: string): number {
  const quoted = JSON.stringify(value);
  if (!/^[0-9]+$/.test(value)) throw badRequest(`Error parsing cas value: strconv.ParseUint: parsing ${quoted}: invalid syntax`);
  const parsed = BigInt(value);
  if (parsed > UINT64_MAX) throw badRequest(`Error parsing cas value: strconv.ParseUint: parsing ${quoted}: value out of range`);
  // Past 2^53 no index of the agent's can be meant: compared as the nearest number, it matches none.
  return Number(parsed);
}

/** The caller of a write: the region checked, the token authenticated (the reference's `parseWriteRequest`, then `ResolveACL`). */
function writeCaller(context: RouteContext, request: FastifyRequest): Caller {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  return context.acl.authenticate(options.token);
}

/** `PUT /v1/operator/scheduler/configuration`: decoded and checked, then `operator:write`; answers `Updated` and the write's index. */
async function setSchedulerConfig(context: RouteContext, request: FastifyRequest): Promise<Result> {
  let body;
  try {
    body = decodeBody(bodyText(request), SCHEDULER_CONFIG_BODY as typeof SCHEDULER_CONFIG_BODY & { kind: "object" }, "api.SchedulerConfiguration");
  } catch (error) {
    throw badRequest(`Error parsing scheduler config: ${(error as Error).message}`);
  }
  const update = schedulerConfigUpdate(body);
  const query = queryOf(request);
  const cas = query.has("cas") ? casIndex(query.get("cas") ?? "") : undefined;
  const caller = writeCaller(context, request);
  if (!caller.management && !caller.permissions.operatorWrite) throw permissionDenied();
  const response = await context.cluster.setSchedulerConfig(update, cas);
  return { body: response, index: response.Index };
}

/**
 * `DELETE /v1/evaluations`: the body's checks (the reference's handler: one of `EvalIDs` and
 * `Filter`, at most {@link MAX_EVAL_IDS_PER_DELETE} IDs), a management token, then the delete
 * (refused while the eval broker runs).
 */
async function deleteEvaluations(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const body = decodeBody(bodyText(request), EVAL_DELETE_REQUEST, EVAL_DELETE_REQUEST.typeName);
  const ids = (body.EvalIDs as string[] | null | undefined) ?? [];
  const filterText = typeof body.Filter === "string" ? body.Filter : "";
  if (filterText !== "" && ids.length > 0) throw badRequest("evals cannot be deleted by both ID and filter");
  if (filterText === "" && ids.length === 0) throw badRequest("evals must be deleted by either ID or filter");
  if (ids.length > MAX_EVAL_IDS_PER_DELETE) throw badRequest(`request includes ${ids.length} evaluation IDs, must be ${MAX_EVAL_IDS_PER_DELETE} or fewer`);
  requireManagement(writeCaller(context, request));
  if (filterText === "") {
    const response = await context.cluster.deleteEvaluations({ ids });
    return { body: response, index: response.Index };
  }
  const schema = evaluationsEndpoint.schema!;
  const filter = context.lists.filters.get(filterText, { name: evaluationsEndpoint.name, schema });
  const budget = new CostBudget(context.lists.filterCostPerRequest);
  const view = { tables: context.store.tables };
  // The reference skips an evaluation its filter cannot be evaluated on; the request's cost budget still bounds the work.
  const matches = (evaluation: Evaluation): boolean => {
    try {
      return filter.test(evaluationsEndpoint.filterTarget(evaluation, view), budget);
    } catch (error) {
      // Thrown inside the store's write: a refusal (a 400, as the list's), never the raw error (a 500).
      if (error instanceof FilterEvaluationError && error.code === "cost_exceeded") throw invalid(`failed to evaluate filter: ${error.reason}`);
      return false;
    }
  };
  const response = await context.cluster.deleteEvaluations({ matches });
  return { body: response, index: response.Index };
}

/** Registers the operator's and the system's routes. */
export function operatorRoutes(app: FastifyInstance, context: RouteContext): void {
  const { store, cluster } = context;
  const set = (request: FastifyRequest) => setSchedulerConfig(context, request);
  app.all(
    "/v1/operator/scheduler/configuration",
    byMethod({
      GET: objectRoute(context, {
        tables: ["scheduler_config"],
        read: (caller) => {
          if (!caller.management && !caller.permissions.operatorRead) throw permissionDenied();
          const index = store.tableIndex("scheduler_config");
          return { index, body: { SchedulerConfig: presentSchedulerConfig(schedulerConfigOf(store.tables)), Index: index, LastContact: 0, KnownLeader: context.peers.knownLeader, NextToken: "" } };
        },
      }),
      PUT: set,
      POST: set,
    }),
  );
  // The evaluation list, and its delete.
  app.all("/v1/evaluations", byMethod({ GET: listRoute(context, evaluationsEndpoint), DELETE: (request) => deleteEvaluations(context, request) }));
  const gc = async (request: FastifyRequest): Promise<Result> => {
    requireManagement(writeCaller(context, request));
    await cluster.collectGarbage();
    return {};
  };
  app.all("/v1/system/gc", byMethod({ PUT: gc }));
  const reconcile = async (request: FastifyRequest): Promise<Result> => {
    requireManagement(writeCaller(context, request));
    await cluster.reconcileSummaries();
    return {};
  };
  app.all("/v1/system/reconcile/summaries", byMethod({ PUT: reconcile }));
}
