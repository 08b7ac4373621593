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
import { submissionKey } from "../scheduler/submission.js";
import type { JsonObject } from "../state/model.js";
import { badRequest } from "./errors.js";
import { objectRoute, requireReadJob } from "./read-routes.js";
import { bodyText, byMethod, param, queryOf, type Handler, type Result, type RouteContext } from "./route.js";

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

/** The `version` of `/submission`: a `uint64` as Go's `strconv.ParseUint` reads it (required), or the reference's 400. */
function submissionVersion(query: URLSearchParams): number {
  const text = query.get("version") ?? "";
  // One past every version a job can have when too large for a number (ParseUint takes up to 2^64-1).
  if (/^[0-9]{1,20}$/.test(text) && BigInt(text) < 2n ** 64n) return Math.min(Number(text), Number.MAX_SAFE_INTEGER);
  throw badRequest("Unable to parse job submission version parameter");
}

/** A variable flag's value as the reference answers it: unescaped (`url.QueryUnescape`), or as kept when it does not unescape. */
function queryUnescape(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    return value;
  }
}

/** `GET /v1/job/<id>/submission?version=N`: `read-job`; a version without a source is a 404 at index 0, as the reference. */
function readSubmission(context: RouteContext): Handler {
  return objectRoute(context, {
    tables: ["job_submission"],
    checkParameters: submissionVersion,
    read: (caller, { id, options, query }) => {
      requireReadJob(caller, options.namespace);
      const found = context.store.tables.job_submission.get(submissionKey(options.namespace, id, submissionVersion(query)));
      if (found === undefined) return { index: 0, missing: "job source not found" };
      const flags = found.VariableFlags === null ? null : Object.fromEntries(Object.entries(found.VariableFlags).map(([name, value]) => [name, queryUnescape(value)]));
      const body = { Source: found.Source, Format: found.Format, VariableFlags: flags, Variables: found.Variables, Namespace: found.Namespace, JobID: found.JobID, Version: found.Version, JobModifyIndex: found.JobModifyIndex };
      return { index: found.JobModifyIndex, body };
    },
  });
}

/** Registers the plan and submission routes. */
export function planRoutes(app: FastifyInstance, context: RouteContext): void {
  const plan = (request: FastifyRequest) => planJob(context, request);
  app.all("/v1/job/:id/plan", byMethod({ PUT: plan, POST: plan }));
  app.all("/v1/job/:id/submission", byMethod({ GET: readSubmission(context) }));
}
