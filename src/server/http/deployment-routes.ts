/**
 * The deployment actions: `POST /v1/deployment/fail/<id>`, `/pause/<id>` and `/promote/<id>`
 * (`PUT` too, as the reference's mux takes both).
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { namespaceAccess } from "../domain/acl.js";
import { checkRegion } from "../domain/errors.js";
import { parseQueryOptions } from "../list/query.js";
import { badRequest, notFound } from "./errors.js";
import { bodyText, byMethod, objectBody, param, queryOf, type Result, type RouteContext } from "./route.js";

/** `structs.DeploymentPauseRequest`, as its body is decoded. */
const PAUSE_BODY: ObjectSchema = { kind: "object", typeName: "structs.DeploymentPauseRequest", fields: { DeploymentID: "string", Pause: "bool" } };
/** `structs.DeploymentPromoteRequest`, as its body is decoded. */
const PROMOTE_BODY: ObjectSchema = {
  kind: "object",
  typeName: "structs.DeploymentPromoteRequest",
  fields: { DeploymentID: "string", All: "bool", Groups: { kind: "array", items: "string" } },
};

type Action = "fail" | "pause" | "promote";

/**
 * One action on one deployment. The caller needs `submit-job` in the deployment's namespace; a
 * deployment of a namespace it may not act in is answered as one that does not exist, so nothing
 * of another namespace shows (the reference looks the deployment up first and answers 500 for an
 * unknown one: the decisions table).
 */
async function act(context: RouteContext, request: FastifyRequest, action: Action): Promise<Result> {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings.region);
  checkRegion(options.region, context.settings.region);
  const id = param(request, "id");
  const caller = context.acl.authenticate(options.token);
  // Rights in some namespace, or nothing can be acted on (403, as the reference's check).
  const mayAct = namespaceAccess(caller, "*", ["submit-job"]);
  const deployment = context.store.tables.deployment.get(id);
  if (deployment === undefined || !mayAct(deployment.Namespace)) throw notFound("deployment not found");
  let response;
  switch (action) {
    case "fail":
      response = await context.cluster.updateDeployment(id, { kind: "fail" });
      break;
    case "pause": {
      const body = requestBody(request, PAUSE_BODY, "structs.DeploymentPauseRequest", id);
      response = await context.cluster.updateDeployment(id, { kind: "pause", pause: body.Pause === true });
      break;
    }
    case "promote": {
      const body = requestBody(request, PROMOTE_BODY, "structs.DeploymentPromoteRequest", id);
      const groups = body.All === true ? undefined : ((body.Groups as string[] | null | undefined) ?? []);
      if (groups !== undefined && groups.length === 0) throw badRequest("must promote all task groups or name the groups to promote");
      response = await context.cluster.updateDeployment(id, { kind: "promote", ...(groups === undefined ? {} : { groups }) });
      break;
    }
  }
  return { body: response, index: response.Index };
}

/** A pause or promote body: present, and naming the deployment of the path (400s, as the reference's). */
function requestBody(request: FastifyRequest, schema: ObjectSchema, typeName: string, id: string): Record<string, unknown> {
  if (bodyText(request).trim() === "") throw badRequest("Request body is empty");
  const body = objectBody(request, schema, typeName);
  if (body.DeploymentID !== id) throw badRequest("Deployment ID does not match");
  return body;
}

/** Registers the deployment actions. */
export function deploymentRoutes(app: FastifyInstance, context: RouteContext): void {
  for (const action of ["fail", "pause", "promote"] as const) {
    const handler = (request: FastifyRequest) => act(context, request, action);
    app.all(`/v1/deployment/${action}/:id`, byMethod({ POST: handler, PUT: handler }));
  }
}
