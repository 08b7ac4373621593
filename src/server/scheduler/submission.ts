/**
 * The source a job's version was registered with (`structs.JobSubmission`), as the reference
 * keeps it (`nomad/state/state_store.go`, `updateJobSubmission`, `pruneJobSubmissions`,
 * `deleteJobSubmission`; `nomad/job_endpoint_hooks.go`, `submissionController`): written with the
 * version a registration makes, once a version; as many of a job kept as of its versions;
 * deleted with the job when it is purged; dropped, with a warning, when larger than
 * {@link MAX_JOB_SOURCE_BYTES}.
 *
 * @module
 */
import { humanBytes } from "../../go/humanize.js";
import type { Job, JobSubmission, JsonObject } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";

/**
 * The largest source (its text, its variables file and its variable flags' names and values, in
 * bytes) kept with a job: the reference's `job_max_source_size` default (`"1M"`, which go-humanize
 * reads as 1,000,000 bytes). A larger one is dropped and the registration answers a warning.
 */
export const MAX_JOB_SOURCE_BYTES = 1_000_000;

/** A submission as a registration carries it (`api.JobSubmission`, decoded): what is kept of it. */
export type SubmittedSource = Pick<JobSubmission, "Source" | "Format" | "VariableFlags" | "Variables">;

/** `api.JobSubmission`, for decoding a registration's `Submission`. */
export const API_JOB_SUBMISSION = {
  kind: "object",
  typeName: "JobSubmission",
  fields: { Source: "string", Format: "string", VariableFlags: { kind: "map", values: "string" }, Variables: "string" },
} as const;

/**
 * A registration's decoded `Submission` as it is kept (undefined for none), or the warning that
 * it is too large to keep (`submissionController`).
 */
export function submittedSource(decoded: JsonObject | null | undefined): { readonly source?: SubmittedSource; readonly warning?: string } {
  if (decoded === null || decoded === undefined) return {};
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const flags = (decoded.VariableFlags ?? null) as Record<string, string> | null;
  const source: SubmittedSource = {
    Source: text(decoded.Source),
    Format: text(decoded.Format),
    // An empty map is none (`Canonicalize`).
    VariableFlags: flags === null || Object.keys(flags).length === 0 ? null : flags,
    Variables: text(decoded.Variables),
  };
  let size = Buffer.byteLength(source.Source) + Buffer.byteLength(source.Variables);
  for (const [name, value] of Object.entries(source.VariableFlags ?? {})) size += Buffer.byteLength(name) + Buffer.byteLength(value);
  if (size > MAX_JOB_SOURCE_BYTES) return { warning: `job source size of ${humanBytes(size)} exceeds maximum of ${humanBytes(MAX_JOB_SOURCE_BYTES)} and will be discarded` };
  return { source };
}

/** The key of a job's submission at `version`. */
export function submissionKey(namespace: string, jobId: string, version: number): string {
  return `${namespacedKey(namespace, jobId)}\u0000${version}`;
}

/**
 * Keeps `source` as the submission of `job`'s version, written at `index` (`updateJobSubmission`):
 * a version that has one keeps it; then the job's newest `keep` are kept (as many as of its
 * versions: the reference counts both by `JobTrackedVersions`).
 */
export function putSubmission(state: Transaction<"job_submission">, job: Job, source: SubmittedSource, index: number, keep: number): void {
  if (state.job_submission.get(submissionKey(job.Namespace, job.ID, job.Version)) !== undefined) return;
  state.job_submission.put({ ...source, Namespace: job.Namespace, JobID: job.ID, Version: job.Version, JobModifyIndex: index });
  const kept = [...state.job_submission.group(namespacedKey(job.Namespace, job.ID)).values()].sort((a, b) => b.JobModifyIndex - a.JobModifyIndex);
  for (const old of kept.slice(keep)) state.job_submission.delete(submissionKey(old.Namespace, old.JobID, old.Version));
}

/** Deletes every submission of the job (`deleteJobSubmission`, when the job is purged). */
export function deleteSubmissions(state: Transaction<"job_submission">, namespace: string, jobId: string): void {
  for (const old of [...state.job_submission.group(namespacedKey(namespace, jobId)).values()]) state.job_submission.delete(submissionKey(old.Namespace, old.JobID, old.Version));
}
