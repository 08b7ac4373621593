/**
 * The deployment actions: `POST /v1/deployment/fail/<id>`, `/pause/<id>`, `/promote/<id>` and
 * `/allocation-health/<id>` (`PUT` too, as the reference's mux takes both). The reference's
 * `unblock` action is not served (no deployment here is multiregion).
 *
 * Checks, in the reference's order (`command/agent/deployment_endpoint.go`, then the RPC in
 * `nomad/deployment_endpoint.go`): the body of `pause` and `promote` (present, decodable, naming
 * the deployment of the path), the region, the token, the deployment, its state.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { namespaceAccess } from "../domain/acl.js";
import type { Cluster } from "../scheduler/cluster.js";
import { checkRegion } from "../base/errors.js";
import { parseQueryOptions } from "../list/query.js";
import type { JsonObject } from "../state/model.js";
import { badRequest, notFound } from "./errors.js";
import { bodyText, byMethod, objectBody, param, queryOf, type Result, type RouteContext } from "./route.js";

/** What an action asks of the cluster. */
type DeploymentChange = Parameters<Cluster["updateDeployment"]>[1];

/**
 * The fields `structs.WriteRequest` embeds in every action's request struct: the body may name
 * the region and the token, which the query and the token header override.
 */
const WRITE_REQUEST_FIELDS = { Region: "string", Namespace: "string", AuthToken: "string", IdempotencyToken: "string", Forwarded: "bool" } as const;

/** One deployment action: the request struct its body is decoded into (none: the path says all), and the change it asks for. */
interface DeploymentAction {
  readonly body?: ObjectSchema & { readonly typeName: string };
  /** The capabilities that allow it, one of them in the deployment's namespace (`submit-job` when not said). */
  readonly capabilities?: readonly string[];
  readonly change: (body: JsonObject) => DeploymentChange;
}

/** The actions served, each as data: `fail` names its deployment in the path only; the others in their body too. */
const ACTIONS = {
  fail: { change: () => ({ kind: "fail" }) },
  pause: {
    body: { kind: "object", typeName: "structs.DeploymentPauseRequest", fields: { DeploymentID: "string", Pause: "bool", ...WRITE_REQUEST_FIELDS } },
    change: (body) => ({ kind: "pause", pause: body.Pause === true }),
  },
  promote: {
    body: {
      kind: "object",
      typeName: "structs.DeploymentPromoteRequest",
      fields: { DeploymentID: "string", All: "bool", Groups: { kind: "array", items: "string" }, PromotedAt: "int", ...WRITE_REQUEST_FIELDS },
    },
    change: (body) => {
      const groups = body.All === true ? undefined : ((body.Groups as string[] | null | undefined) ?? []);
      // The reference promotes nothing then, and says so nowhere: the agent refuses (after the lookup, as a check of the RPC).
      if (groups !== undefined && groups.length === 0) throw badRequest("must promote all task groups or name the groups to promote");
      return { kind: "promote", ...(groups === undefined ? {} : { groups }) };
    },
  },
  "allocation-health": {
    body: {
      kind: "object",
      typeName: "structs.DeploymentAllocHealthRequest",
      fields: { DeploymentID: "string", HealthyAllocationIDs: { kind: "array", items: "string" }, UnhealthyAllocationIDs: { kind: "array", items: "string" }, ...WRITE_REQUEST_FIELDS },
    },
    capabilities: ["submit-job", "set-alloc-health-deployment"],
    change: (body) => ({ kind: "health", healthy: (body.HealthyAllocationIDs as string[] | null | undefined) ?? [], unhealthy: (body.UnhealthyAllocationIDs as string[] | null | undefined) ?? [] }),
  },
} as const satisfies Record<string, DeploymentAction>;

type ActionName = keyof typeof ACTIONS;

/**
 * Whether the reference's Go server would hand the handler `http.NoBody`: no `Transfer-Encoding`,
 * and no `Content-Length` or a zero one. Only then is the body "empty" in its words; a chunked
 * body with nothing in it reaches the JSON decoder, which says `EOF`.
 */
function sentNoBody(request: FastifyRequest): boolean {
  const { headers } = request;
  if (headers["transfer-encoding"] !== undefined) return false;
  const length = headers["content-length"];
  return length === undefined || Number(length) === 0;
}

/**
 * The body of an action, checked as the reference's HTTP handler checks it, each a 400: `Request
 * body is empty`; the decoder's error (`EOF` for a body of nothing or only spaces, Go's syntax and
 * type errors); `DeploymentID must be specified`; `Deployment ID does not match` (the path's ID,
 * compared exactly).
 */
function decodeActionBody(request: FastifyRequest, schema: ObjectSchema & { readonly typeName: string }, id: string): JsonObject {
  if (sentNoBody(request)) throw badRequest("Request body is empty");
  // A chunked body with no bytes: Go's decoder reads io.EOF at once (spaces alone give the same, from the decoder below).
  if (bodyText(request) === "") throw badRequest("EOF");
  const body = objectBody(request, schema, schema.typeName);
  const deploymentId = typeof body.DeploymentID === "string" ? body.DeploymentID : "";
  if (deploymentId === "") throw badRequest("DeploymentID must be specified");
  if (deploymentId !== id) throw badRequest("Deployment ID does not match");
  return body;
}

/** A string field of a decoded body ("" when absent). */
function stringField(body: JsonObject, name: string): string {
  const value = body[name];
  return typeof value === "string" ? value : "";
}

/**
 * One action on one deployment. The caller needs the action's capability (`submit-job`, or
 * `set-alloc-health-deployment` for `allocation-health`) in the deployment's namespace; a
 * deployment of a namespace it may not act in is answered as one that does not exist, so nothing
 * of another namespace shows (the reference looks the deployment up first and answers 500 for an
 * unknown one, 403 for another namespace's: the decisions table).
 */
async function act(context: RouteContext, request: FastifyRequest, name: ActionName): Promise<Result> {
  const action: DeploymentAction = ACTIONS[name];
  const id = param(request, "id");
  // The body first: the reference's handler checks it before the request goes anywhere.
  const body = action.body === undefined ? {} : decodeActionBody(request, action.body, id);
  const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
  // `?region` beats the body's `Region`, and the token header the body's `AuthToken` (the reference's parseWriteRequest).
  checkRegion(queryOf(request).get("region") || stringField(body, "Region") || context.settings.region, context.settings.region);
  const caller = context.acl.authenticate(options.token || stringField(body, "AuthToken"));
  // Rights in some namespace, or nothing can be acted on (403, as the reference's check).
  const mayAct = namespaceAccess(caller, "*", action.capabilities ?? ["submit-job"]);
  // Only `fail` can get here without an ID (the others' bodies must name the path's); the reference's RPC says this, with a 500.
  if (id === "") throw badRequest("missing deployment ID");
  const deployment = context.store.tables.deployment.get(id);
  if (deployment === undefined || !mayAct(deployment.Namespace)) throw notFound("deployment not found");
  const response = await context.cluster.updateDeployment(id, action.change(body));
  return { body: response, index: response.Index };
}

/** Registers the deployment actions. */
export function deploymentRoutes(app: FastifyInstance, context: RouteContext): void {
  for (const name of Object.keys(ACTIONS) as ActionName[]) {
    const handler = (request: FastifyRequest) => act(context, request, name);
    // `/v1/deployment/fail/` is the reference's action on the empty ID, not a path it does not know.
    for (const path of [`/v1/deployment/${name}/:id`, `/v1/deployment/${name}/`]) app.all(path, byMethod({ POST: handler, PUT: handler }));
  }
}
