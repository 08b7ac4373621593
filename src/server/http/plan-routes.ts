/**
 * A job's plan and its submitted source (`command/agent/job_endpoint.go`, `jobPlan` and
 * `jobSubmissionCRUD`; the RPCs `Job.Plan` and `Job.GetJobSubmission` in `nomad/job_endpoint.go`):
 *
 * - `PUT`/`POST /v1/job/<id>/plan`: `api.JobPlanRequest` (`Job`, `Diff`, `PolicyOverride`) →
 *   `structs.JobPlanResponse`, the scheduler's decisions on the state as it is, nothing written;
 * - `GET /v1/job/<id>/submission?version=N`: the source the job's version was registered with.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { decodeBody } from "../../go/json.js";
import { checkRegion } from "../base/errors.js";
import { namespaceAccess } from "../domain/acl.js";
import { annotateDiff } from "../domain/job-diff-annotate.js";
import { diffJobs } from "../domain/job-diff.js";
import { presentEvaluation } from "../domain/present.js";
import { parseQueryOptions } from "../list/query.js";
import { API_JOB } from "../scheduler/job-spec.js";
import type { JsonObject } from "../state/model.js";
import { badRequest } from "./errors.js";
import { bodyText, byMethod, param, queryOf, type Result, type RouteContext } from "./route.js";

/** `api.JobPlanRequest`, which embeds `api.WriteRequest`. */
const JOB_PLAN_REQUEST = {
  kind: "object",
  typeName: "JobPlanRequest",
  fields: { Job: API_JOB, Diff: "bool", PolicyOverride: "bool", Region: "string", Namespace: "string", SecretID: "string", IdempotencyToken: "string" },
} as const;

/**
 * `PUT /v1/job/<id>/plan`: the body (a job whose ID is the path's), the namespace and region as a
 * registration resolves them, `submit-job` or `plan-job` in the namespace (and, with
 * `PolicyOverride`, `sentinel-override`), then the plan; with `Diff`, the job's diff from the
 * version it has, annotated with the plan's counts. The index is the job's `JobModifyIndex`.
 */
async function planJob(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  const body = decodeBody(bodyText(request), JOB_PLAN_REQUEST, "api.JobPlanRequest") as JsonObject;
  const job = body.Job as JsonObject | null | undefined;
  if (job === null || job === undefined) throw badRequest("Job must be specified");
  if (typeof job.ID !== "string") throw badRequest("Job must have a valid ID");
  const id = param(request, "id");
  if (id !== "" && job.ID !== id) throw badRequest("Job ID does not match");
  const namespace = query.get("namespace") || (typeof body.Namespace === "string" && body.Namespace) || (typeof job.Namespace === "string" && job.Namespace) || "default";
  let region = query.get("region") || (typeof body.Region === "string" ? body.Region : "") || (typeof job.Region === "string" ? job.Region : "");
  if (region === "" || region === "global") region = context.settings.region;
  checkRegion(region, context.settings.region);
  const caller = context.acl.authenticate(options.token || (typeof body.SecretID === "string" ? body.SecretID : ""));
  namespaceAccess(caller, namespace, ["submit-job", "plan-job"]);
  if (body.PolicyOverride === true) namespaceAccess(caller, namespace, ["sentinel-override"]);
  const plan = context.cluster.planJob(job, namespace, region);
  const annotations = { DesiredTGUpdates: plan.desiredTGUpdates, PreemptedAllocs: null };
  const diff = body.Diff === true ? annotateDiff(diffJobs(plan.previous, plan.planned, true), plan.desiredTGUpdates) : null;
  return {
    body: {
      Annotations: annotations,
      FailedTGAllocs: plan.failedTGAllocs,
      JobModifyIndex: plan.jobModifyIndex,
      CreatedEvals: plan.createdEvals?.map((evaluation) => presentEvaluation(evaluation)) ?? null,
      Diff: diff,
      NextPeriodicLaunch: plan.nextPeriodicLaunch,
      Warnings: "",
      Index: plan.jobModifyIndex,
    },
    index: plan.jobModifyIndex,
  };
}

/** Registers the plan and submission routes. */
export function planRoutes(app: FastifyInstance, context: RouteContext): void {
  const plan = (request: FastifyRequest) => planJob(context, request);
  app.all("/v1/job/:id/plan", byMethod({ PUT: plan, POST: plan }));
}
