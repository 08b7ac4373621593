/**
 * Schemas of the objects the scheduler's API filters, for typed-mode evaluation and editor
 * support, with the Go kinds of the reference's structs (`uint64` indexes, pointer structs,
 * `time.Time`). They derive from the structs' declarations (`src/structs/`), which the agent
 * also stores, writes and checks its rows by: the agent filters `/v1/jobs` and `/v1/deployments`
 * on exactly {@link schemas}`.job` and `.deployment`; a test holds the schemas and the agent's rows
 * together.
 *
 * @module
 */
import type { FieldSchema, ObjectSchema } from "./evaluator/schema.js";
import { schemaOf } from "./structs/derive.js";
import { DEPLOYMENT } from "./structs/deployment.js";
import { JOB } from "./structs/job.js";
import { JOB_LIST_STUB } from "./structs/job-list.js";

/**
 * An element of the job list as the reference's `JobListStub` types it (spec 2.2). `Meta` is
 * present with `?meta=true`; `NodePool` is the reference's (the spec's table leaves it out). The
 * golden scenarios' typed mode uses it; the agent filters on {@link jobFilterTarget}.
 */
export const jobListItem: ObjectSchema = schemaOf(JOB_LIST_STUB);

/** An element of the deployment list (spec 2.3, the reference's `Deployment`). */
export const deployment: ObjectSchema = schemaOf(DEPLOYMENT);

/**
 * What the agent filters `/v1/jobs` on, shipped as `schemas.job`: the stored job (the reference's
 * `structs.Job`, as registered and canonicalised) with the list item's fields laid over it
 * (`Periodic` and `ParameterizedJob` become booleans, `JobSummary` is added), so every field a
 * user sees in the list, and every field of the job, can be filtered.
 */
export const jobFilterTarget: ObjectSchema = {
  kind: "object",
  typeName: "structs.Job",
  // The list's fields first, in its order (editors offer fields in schema order), then the job's.
  fields: {
    ...jobListItem.fields,
    ...Object.fromEntries(Object.entries(schemaOf(JOB).fields).filter(([name]) => !Object.hasOwn(jobListItem.fields, name))),
  } satisfies { readonly [name: string]: FieldSchema },
  // The job's own description of a field, or the list item's for the fields only it has (`JobSummary`).
  docs: { ...jobListItem.docs, ...schemaOf(JOB).docs },
};

/**
 * The shipped schemas, for `compileFilter(source, { schema: schemas.job })`: exactly what the
 * agent filters on. Fields the job list does not show (`Version`, `TaskGroups`…) are zero values
 * when the list's JSON is filtered on the client (`curl …/v1/jobs | bexpr eval --schema job …`).
 */
export const schemas = Object.freeze({
  /** What `GET /v1/jobs?filter=` is evaluated on: the stored job with the list item's fields laid over it. */
  job: jobFilterTarget,
  /** What `GET /v1/deployments?filter=` is evaluated on: the deployment (`structs.Deployment`). */
  deployment,
});
