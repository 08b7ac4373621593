/**
 * Dispatching a parameterized job, as the reference's job endpoint does (`Job.Dispatch` in
 * `nomad/job_endpoint.go`): the job must exist, be parameterized and not stopped; the request
 * must meet its parameterized block (`parameterized.ts`); a request whose idempotency token a
 * child of the job already carries answers that child; otherwise a child
 * `<id>/dispatch-<unix seconds>-<8 hex>` (`structs.DispatchedID`) is registered with the parent's
 * spec, `ParentID`, `Dispatched`, the token, the priority, the request's meta merged over the
 * parent's and its payload, and an evaluation (none when the child is periodic itself: the
 * periodic dispatcher launches it).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { decodeBody, GoJsonError } from "../../go/json.js";
import { invalid, missing } from "../base/errors.js";
import type { Job, JobSpec } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { dispatchRefusal } from "./parameterized.js";
import { registerChild, specOf } from "./periodic.js";
import { isParameterized, type SchedulerContext } from "./state.js";

/** What a dispatched child's ID adds to its parent's (`structs.DispatchLaunchSuffix`). */
export const DISPATCH_LAUNCH_SUFFIX = "/dispatch-";

/** A dispatch request, decoded (`structs.JobDispatchRequest`). */
export interface DispatchRequest {
  readonly jobId: string;
  readonly payload: Buffer;
  readonly meta: Readonly<Record<string, string>>;
  /** The request's idempotency token (`?idempotency_token`, or the body's); empty for none. */
  readonly idempotencyToken: string;
  /** Put between the suffix and the time in the child's ID (`IdPrefixTemplate`); empty for none. */
  readonly idPrefixTemplate: string;
  /** The child's priority; 0 takes the parent's. */
  readonly priority: number;
}

/** What `PUT /v1/job/<id>/dispatch` answers (`structs.JobDispatchResponse`). */
export interface DispatchResponse {
  readonly DispatchedJobID: string;
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobCreateIndex: number;
  readonly Index: number;
}

/** The reference's `structs.JobDispatchRequest`, as its HTTP handler decodes the body (`Payload` is Go's base64 `[]byte`). */
const DISPATCH_REQUEST: ObjectSchema = {
  kind: "object",
  typeName: "JobDispatchRequest",
  fields: {
    JobID: "string",
    Payload: "any",
    Meta: { kind: "map", values: "string" },
    IdPrefixTemplate: "string",
    Priority: "int",
    Region: "string",
    Namespace: "string",
    AuthToken: "string",
    IdempotencyToken: "string",
  },
};

/** Go's `[]byte` from JSON: a base64 string (padded, newlines ignored), an array of bytes, or null. */
function decodeBytes(value: unknown): Buffer {
  if (value === null || value === undefined) return Buffer.alloc(0);
  const refuse = () => new GoJsonError(`json: cannot unmarshal ${Array.isArray(value) ? "array" : typeof value} into Go struct field JobDispatchRequest.Payload of type []uint8`);
  if (Array.isArray(value)) {
    const bytes = value.map((each) => Number(each));
    if (bytes.some((byte) => !Number.isInteger(byte) || byte < 0 || byte > 255)) throw refuse();
    return Buffer.from(bytes);
  }
  if (typeof value !== "string") throw refuse();
  const text = value.replace(/[\r\n]/g, "");
  const illegal = (at: number) => new GoJsonError(`illegal base64 data at input byte ${at}`);
  const bad = text.search(/[^A-Za-z0-9+/=]/);
  if (bad !== -1) throw illegal(bad);
  const padding = text.indexOf("=");
  if (padding !== -1 && (padding < text.length - 2 || /[^=]/.test(text.slice(padding)))) throw illegal(padding);
  if (text.length % 4 !== 0) throw illegal(text.length - (text.length % 4));
  return Buffer.from(text, "base64");
}

/**
 * Decodes the body of `PUT /v1/job/<id>/dispatch` for the job of the path, as the reference's
 * handler does: a body naming another job is `Job ID does not match`; the query's
 * `idempotency_token` beats the body's.
 *
 * @throws a `GoJsonError` or an `invalid` refusal (400s) with the reference's texts.
 */
export function decodeDispatchRequest(body: string, jobId: string, queryToken: string): DispatchRequest {
  const request = decodeBody(body, DISPATCH_REQUEST, "structs.JobDispatchRequest");
  const bodyJobId = typeof request.JobID === "string" ? request.JobID : "";
  if (bodyJobId !== "" && bodyJobId !== jobId) throw invalid("Job ID does not match");
  const priority = typeof request.Priority === "number" ? request.Priority : typeof request.Priority === "bigint" ? Number(request.Priority) : 0;
  return {
    jobId,
    payload: decodeBytes(request.Payload),
    meta: (request.Meta ?? {}) as Record<string, string>,
    idempotencyToken: queryToken || (typeof request.IdempotencyToken === "string" ? request.IdempotencyToken : ""),
    idPrefixTemplate: typeof request.IdPrefixTemplate === "string" ? request.IdPrefixTemplate : "",
    priority,
  };
}

/** Thrown inside the dispatch's write when the parent changed since it was checked (another agent's write): the dispatch starts over. */
const STALE_PARENT = Symbol("the parameterized job changed since the dispatch was checked");

/** The child's ID (`structs.DispatchedID`): the parent's, the suffix, the template, Unix seconds and 8 hex digits. */
function dispatchedId(parentId: string, idPrefixTemplate: string, nowMs: number): string {
  const template = idPrefixTemplate === "" ? "" : `${idPrefixTemplate}-`;
  return `${parentId}${DISPATCH_LAUNCH_SUFFIX}${template}${Math.floor(nowMs / 1000)}-${randomUUID().slice(0, 8)}`;
}

/** The parameterized job's child that carries the token (`CheckIdempotencyToken`). */
function childWithToken(context: SchedulerContext, parent: Job, token: string): Job | undefined {
  const range = context.store.queries.jobs(parent.Namespace, parent.ID);
  for (let i = 0; i < range.size; i++) {
    const job = range.at(i);
    if (job.ParentID === parent.ID && job.DispatchIdempotencyToken === token) return job;
  }
  return undefined;
}

/**
 * Dispatches the parameterized job `request.jobId` of `namespace` (see the module's description).
 *
 * @throws a `not_found` refusal for a job that does not exist, an `invalid` one with the
 *   reference's text for a request it refuses (the reference answers 500 for both).
 */
export async function dispatch(context: SchedulerContext, namespace: string, request: DispatchRequest): Promise<DispatchResponse> {
  const { store } = context;
  if (request.jobId === "") throw invalid("missing parameterized job ID");
  const key = namespacedKey(namespace, request.jobId);
  const parent = store.tables.jobs.get(key);
  if (parent === undefined) throw missing("parameterized job not found");
  if (!isParameterized(parent) || parent.ParameterizedJob === null) throw invalid(`Specified job ${JSON.stringify(request.jobId)} is not a parameterized job`);
  if (parent.Stop) throw invalid(`Specified job ${JSON.stringify(request.jobId)} is stopped`);
  const priority = request.priority === 0 ? parent.Priority : request.priority;
  const refusal = dispatchRefusal({ payload: request.payload, meta: request.meta, priority }, parent.ParameterizedJob);
  if (refusal !== undefined) throw invalid(refusal);
  // A retried request answers the child its first attempt made (checked before the write, as the reference does).
  const existing = request.idempotencyToken === "" ? undefined : childWithToken(context, parent, request.idempotencyToken);
  if (existing !== undefined) return { DispatchedJobID: existing.ID, EvalID: "", EvalCreateIndex: 0, JobCreateIndex: existing.CreateIndex, Index: existing.ModifyIndex };
  let written;
  try {
    written = await writeDispatch(context, key, parent, request, priority);
  } catch (error) {
    // The parent changed between the checks and the write (another agent's): the checks again.
    if (error === STALE_PARENT) return dispatch(context, namespace, request);
    throw error;
  }
  const { index, result: { job, evaluation } } = written;
  return { DispatchedJobID: job.ID, EvalID: evaluation?.ID ?? "", EvalCreateIndex: evaluation === undefined ? 0 : index, JobCreateIndex: index, Index: index };
}

/** The dispatch's write: the child and its evaluation. */
function writeDispatch(context: SchedulerContext, key: string, parent: Job, request: DispatchRequest, priority: number) {
  const { store, clock } = context;
  return store.write(["jobs", "job_summary", "evals", "job_versions"], (state) => {
    if (state.jobs.get(key) !== parent) throw STALE_PARENT;
    const id = dispatchedId(parent.ID, request.idPrefixTemplate, clock.nowMs());
    const meta = Object.keys(request.meta).length === 0 ? parent.Meta : { ...parent.Meta, ...request.meta };
    const child: JobSpec = {
      ...specOf(parent),
      ID: id,
      Name: id,
      ParentID: parent.ID,
      Dispatched: true,
      DispatchIdempotencyToken: request.idempotencyToken,
      Priority: priority,
      Meta: meta,
      Payload: request.payload.length === 0 ? null : request.payload.toString("base64"),
    };
    return registerChild(context, state, child, "job-register");
  }, "JobRegister");
}
