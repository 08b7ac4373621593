/**
 * A jobspec read and a job checked without registering them (`command/agent/job_endpoint.go`,
 * `JobsParseRequest` and `ValidateJobRequest`; `Job.Validate` in `nomad/job_endpoint.go`):
 *
 * - `PUT`/`POST /v1/jobs/parse`: an HCL2 jobspec to the reference's `api.Job` JSON
 *   (`domain/jobspec.ts`), canonicalised on request; `parse-job` or `submit-job` in the
 *   `?namespace` (the token is checked before the body is read, as the reference does);
 * - `PUT`/`POST /v1/validate/job`: the job canonicalised as a registration canonicalises it and
 *   checked by the registration's own validation (`validateJob`), answered 200 with the errors in
 *   `ValidationErrors` and `Error`, as the reference answers; `read-job` in the job's namespace.
 *
 * @module
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { formatErrors } from "../../go/multierror.js";
import { checkRegion } from "../base/errors.js";
import { namespaceAccess } from "../domain/acl.js";
import { JobspecError, parseJobspec } from "../domain/jobspec.js";
import { parseQueryOptions } from "../list/query.js";
import { API_JOB, canonicalizeJob, validateJobIn } from "../scheduler/job-spec.js";
import type { JsonObject } from "../state/model.js";
import { badRequest } from "./errors.js";
import { bodyText, byMethod, objectBody, queryOf, type Result, type RouteContext } from "./route.js";

/** `api.JobsParseRequest`. The pinned reference's has no `HCLv1` (it parses HCL2 only): an `HCLv1` is ignored, as any unknown field. */
const JOBS_PARSE_REQUEST = {
  kind: "object",
  typeName: "api.JobsParseRequest",
  fields: { JobHCL: "string", Variables: "string", Canonicalize: "bool" },
} as const;

/** `api.JobValidateRequest`: the job and the fields of `api.WriteRequest`. */
const JOB_VALIDATE_REQUEST = {
  kind: "object",
  typeName: "api.JobValidateRequest",
  fields: { Job: API_JOB, Region: "string", Namespace: "string", SecretID: "string", IdempotencyToken: "string" },
} as const;

/** The reference's `decodeBody`: no body is `Request body is empty`, then Go's JSON decoding into the request struct. */
function requestBody(request: FastifyRequest, schema: typeof JOBS_PARSE_REQUEST | typeof JOB_VALIDATE_REQUEST): JsonObject {
  if (bodyText(request) === "") throw badRequest("Request body is empty");
  return objectBody(request, schema, schema.typeName);
}

/** A string field of a decoded body ("" when absent). */
function text(body: JsonObject, name: string): string {
  const value = body[name];
  return typeof value === "string" ? value : "";
}

/** `PUT /v1/jobs/parse`: namespace, token, ACL, then the body and the jobspec. */
async function parse(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
  const caller = context.acl.authenticate(options.token);
  namespaceAccess(caller, options.namespace, ["parse-job", "submit-job"]);
  const body = requestBody(request, JOBS_PARSE_REQUEST);
  const hcl = text(body, "JobHCL");
  if (hcl === "") throw badRequest("Job spec is empty");
  let job: JsonObject;
  try {
    job = (await parseJobspec(hcl, text(body, "Variables"))) as JsonObject;
  } catch (error) {
    if (error instanceof JobspecError) throw badRequest(`Failed to parse job: ${error.message}`);
    throw error;
  }
  if (body.Canonicalize !== true) return { body: job };
  // The API's Canonicalize: the default namespace and the global region when the jobspec names none.
  const namespace = typeof job.Namespace === "string" ? job.Namespace : "default";
  const region = typeof job.Region === "string" ? job.Region : "global";
  return { body: canonicalizeJob(job, namespace, region) };
}

/** `PUT /v1/validate/job`: the body, the region, the job's namespace and `read-job` there, then the registration's validation. */
async function validate(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings);
  const body = requestBody(request, JOB_VALIDATE_REQUEST);
  const job = body.Job as JsonObject | null | undefined;
  if (job === null || job === undefined) throw badRequest("Job must be specified");
  // `ApiJobToStructJob` canonicalises the job (its namespace `default`, its region `global`), and the RPC
  // runs in the job's namespace, whatever the query says.
  const namespace = text(job, "Namespace") || "default";
  checkRegion(query.get("region") || text(body, "Region") || context.settings.region, context.settings.region);
  const caller = context.acl.authenticate(options.token || text(body, "SecretID"));
  namespaceAccess(caller, namespace, ["read-job"]);
  const region = text(job, "Region");
  const spec = canonicalizeJob(job, namespace, region === "" || region === "global" ? context.settings.region : region);
  const errors = validateJobIn(context.store.tables, spec);
  return {
    body: {
      DriverConfigValidated: true,
      ValidationErrors: errors.length === 0 ? null : errors,
      Error: errors.length === 0 ? "" : formatErrors(errors),
      Warnings: "",
    },
  };
}

/** Registers `/v1/jobs/parse` and `/v1/validate/job`. */
export function jobspecRoutes(app: FastifyInstance, context: RouteContext): void {
  const parseJob = (request: FastifyRequest) => parse(context, request);
  app.all("/v1/jobs/parse", byMethod({ PUT: parseJob, POST: parseJob }));
  const validateJobRequest = (request: FastifyRequest) => validate(context, request);
  app.all("/v1/validate/job", byMethod({ PUT: validateJobRequest, POST: validateJobRequest }));
}
