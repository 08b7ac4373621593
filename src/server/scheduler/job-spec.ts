/**
 * Job registration requests, read as the reference reads them: Go's JSON decoding into its API
 * structs (field names matched case-insensitively, unknown fields ignored, type errors worded as
 * Go words them), the API's defaults and the server's (`canonicalize.ts`), and the server's
 * validation with its multi-error text.
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import { schemaOf } from "../../structs/derive.js";
import { JOB } from "../../structs/job.js";
import { MIGRATE_STRATEGY, RESCHEDULE_POLICY } from "../../structs/job-blocks.js";
import { decodeBody } from "../../go/json.js";
import { invalid } from "../base/errors.js";
import type { JobSpec, JsonObject, Namespace, NodePool, TaskGroup } from "../state/model.js";
import { nodePoolOf } from "../state/operator.js";
import type { ReadTable } from "../state/store.js";
import { integer } from "./canonicalize.js";
import { formatErrors } from "../../go/multierror.js";
import { validatePeriodic } from "./cron.js";
import { validateParameterized } from "./parameterized.js";
import { API_JOB_SUBMISSION } from "./submission.js";

export { canonicalizeJob } from "./canonicalize.js";
export { DEFAULT_UPDATE_STRATEGY } from "../../structs/job-blocks.js";

/**
 * The most allocations the simulated scheduler places for one job (the sum of its task groups'
 * counts). The reference has no such limit; the mini-agent keeps every allocation in memory, so
 * a count of a billion must be a client mistake, not an hour of work.
 */
export const MAX_JOB_ALLOCATIONS = 10_000;

/**
 * The most placement rules (constraints, affinities and spreads, of the job, its groups and its
 * tasks together) one job may have. The reference has no such limit; each is checked on every
 * node an evaluation considers (once a node: `stack.ts`), so 40,000 regular expressions held the
 * agent for seconds an evaluation.
 */
export const MAX_JOB_PLACEMENT_RULES = 1_000;

/** How many placement rules a job has: its own, its groups' and their tasks'. */
function placementRules(job: JobSpec): number {
  const count = (block: JsonObject | JobSpec) => ["Constraints", "Affinities", "Spreads"].reduce((sum, field) => sum + (Array.isArray((block as JsonObject)[field]) ? ((block as JsonObject)[field] as unknown[]).length : 0), 0);
  let rules = count(job);
  for (const group of job.TaskGroups) {
    rules += count(group as unknown as JsonObject);
    for (const task of Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]) : []) rules += count(task);
  }
  return rules;
}

/**
 * The reference's `api.Job`, for decoding: `structs.Job`'s fields (the API's have the same names
 * and kinds) and the two blocks only the API's job has, merged into its groups at registration.
 */
export const API_JOB: ObjectSchema = {
  kind: "object",
  typeName: "Job",
  fields: { ...schemaOf(JOB).fields, Reschedule: schemaOf(RESCHEDULE_POLICY), Migrate: schemaOf(MIGRATE_STRATEGY) },
};

/** The reference's `api.JobRegisterRequest`. */
const REGISTER_REQUEST: ObjectSchema = {
  kind: "object",
  typeName: "JobRegisterRequest",
  fields: {
    Job: API_JOB,
    Submission: API_JOB_SUBMISSION,
    EnforceIndex: "bool",
    JobModifyIndex: "uint",
    PolicyOverride: "bool",
    PreserveCounts: "bool",
    PreserveResources: "bool",
    EvalPriority: "int",
    Region: "string",
    Namespace: "string",
    SecretID: "string",
  },
};

/** A register request, decoded. */
export interface RegisterRequest {
  readonly job: JsonObject;
  readonly enforceIndex: boolean;
  readonly jobModifyIndex: number;
  readonly evalPriority: number;
  readonly region: string;
  readonly namespace: string;
  readonly secretId: string;
  /** Keep the counts of the task groups the job has already (`PreserveCounts`). */
  readonly preserveCounts?: boolean;
  /** Keep the resources of the tasks the job has already (`PreserveResources`). */
  readonly preserveResources?: boolean;
  /** The source the job was written in (`Submission`, decoded), kept with the version it makes. */
  readonly submission?: JsonObject | null;
}

/**
 * Decodes the body of `PUT /v1/jobs` (its text) and makes the agent's checks, in the reference's order.
 *
 * @throws a 400 HttpError with the reference's text.
 */
export function decodeRegisterRequest(body: string): RegisterRequest {
  const request = decodeBody(body, REGISTER_REQUEST, "api.JobRegisterRequest") as JsonObject;
  const job = request.Job as JsonObject | null | undefined;
  if (job === null || job === undefined) throw invalid("Job must be specified");
  if (job.ID === null || job.ID === undefined) throw invalid("Job ID hasn't been provided");
  const groups = (job.TaskGroups ?? []) as (JsonObject | null)[];
  if (job.Type === "system" && groups.some((group) => group?.Scaling !== null && group?.Scaling !== undefined)) {
    throw invalid("Task groups with job type system do not support scaling blocks");
  }
  const evalPriority = integer(request.EvalPriority) ?? 0;
  if (evalPriority !== 0 && (evalPriority < 1 || evalPriority > 100)) {
    throw invalid("Eval priority must be between 1 and 100 inclusively");
  }
  return {
    job,
    enforceIndex: request.EnforceIndex === true,
    jobModifyIndex: Number(request.JobModifyIndex ?? 0),
    evalPriority,
    region: String(request.Region ?? ""),
    namespace: String(request.Namespace ?? ""),
    secretId: String(request.SecretID ?? ""),
    preserveCounts: request.PreserveCounts === true,
    preserveResources: request.PreserveResources === true,
    submission: (request.Submission ?? null) as JsonObject | null,
  };
}

const JOB_TYPES = new Set(["_core", "service", "batch", "system", "sysbatch"]);


function validateTaskGroup(group: TaskGroup): string[] {
  const errors: string[] = [];
  if (group.Name === "") errors.push("Missing task group name");
  else if (group.Name.includes("\0")) errors.push("Task group name contains null character");
  if (group.Count < 0) errors.push("Task group count can't be negative");
  const tasks = Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]) : [];
  if (tasks.length === 0) errors.push("Missing tasks for task group");
  const seen = new Map<string, number>();
  tasks.forEach((task, i) => {
    const name = typeof task.Name === "string" ? task.Name : "";
    if (name === "") errors.push(`Task ${i + 1} missing name`);
    else if (seen.has(name)) errors.push(`Task ${i + 1} redefines '${name}' from task ${seen.get(name)}`);
    else seen.set(name, i + 1);
  });
  if (tasks.filter((task) => task.Leader === true).length > 1) errors.push("Only one task may be marked as leader");
  for (const task of tasks) {
    const taskErrors: string[] = [];
    const name = typeof task.Name === "string" ? task.Name : "";
    if (name === "") taskErrors.push("Missing task name");
    if (/[/\\]/.test(name)) taskErrors.push("Task name cannot include slashes");
    else if (name.includes("\0")) taskErrors.push("Task name cannot include null characters");
    if (typeof task.Driver !== "string" || task.Driver === "") taskErrors.push("Missing task driver");
    if (taskErrors.length > 0) errors.push(`Task ${name} validation failed: ${formatErrors(taskErrors)}`);
  }
  return errors;
}

/**
 * The reference's validation of a canonical job (`Job.Validate`, then the server's hooks), as the
 * list of go-multierror items. `namespaceExists` and `nodePoolExists` tell whether the job's
 * namespace and node pool exist.
 */
export function validateJob(job: JobSpec, namespaceExists: boolean, nodePoolExists: boolean): string[] {
  const errors: string[] = [];
  if (job.Region === "" && job.Multiregion === null) errors.push("Missing job region");
  if (job.ID === "") errors.push("Missing job ID");
  else if (job.ID.includes(" ")) errors.push("Job ID contains a space");
  else if (job.ID.includes("\0")) errors.push("Job ID contains a null character");
  if (job.Name === "") errors.push("Missing job name");
  else if (job.Name.includes("\0")) errors.push("Job Name contains a null character");
  if (job.Namespace === "") errors.push("Job must be in a namespace");
  if (job.Type === "") errors.push("Missing job type");
  else if (!JOB_TYPES.has(job.Type)) errors.push(`Invalid job type: ${JSON.stringify(job.Type)}`);
  for (const datacenter of job.Datacenters) if (datacenter === "") errors.push("Job datacenter must be non-empty string");
  if (job.TaskGroups.length === 0) errors.push("Missing job task groups");
  const seen = new Map<string, number>();
  job.TaskGroups.forEach((group, i) => {
    if (group.Name === "") errors.push(`Job task group ${i + 1} missing name`);
    else if (seen.has(group.Name)) errors.push(`Job task group ${i + 1} redefines '${group.Name}' from group ${seen.get(group.Name)}`);
    else seen.set(group.Name, i + 1);
    if (job.Type === "system" && group.Count > 1) {
      errors.push(`Job task group ${group.Name} has count ${group.Count}. Count cannot exceed 1 with system scheduler`);
    }
  });
  for (const group of job.TaskGroups) {
    const groupErrors = validateTaskGroup(group);
    if (groupErrors.length > 0) errors.push(`Task group ${group.Name} validation failed: ${formatErrors(groupErrors)}`);
  }
  if (job.Periodic !== null && job.Periodic.Enabled !== false) {
    if (job.Type !== "batch" && job.Type !== "sysbatch") errors.push('Periodic can only be used with "batch" or "sysbatch" scheduler');
    // The block's own errors are one item: its multi-error's text.
    const periodicErrors = validatePeriodic(job.Periodic);
    if (periodicErrors.length > 0) errors.push(formatErrors(periodicErrors));
  }
  if (job.ParameterizedJob !== null && !job.Dispatched) {
    if (job.Type !== "batch" && job.Type !== "sysbatch") errors.push('Parameterized job can only be used with "batch" or "sysbatch" scheduler');
    const parameterizedErrors = validateParameterized(job.ParameterizedJob);
    if (parameterizedErrors.length > 0) errors.push(formatErrors(parameterizedErrors));
  }
  if (job.Type === "_core") errors.push("job type cannot be core");
  if (job.Priority < 1 || job.Priority > 100) errors.push("job priority must be between [1, 100]");
  const allocations = job.TaskGroups.reduce((sum, group) => sum + Math.max(0, group.Count), 0);
  if (allocations > MAX_JOB_ALLOCATIONS) {
    errors.push(`the task groups ask for ${allocations} allocations; the mini-agent places at most ${MAX_JOB_ALLOCATIONS} for one job`);
  }
  const rules = placementRules(job);
  if (rules > MAX_JOB_PLACEMENT_RULES) errors.push(`the job has ${rules} constraints, affinities and spreads; the mini-agent checks at most ${MAX_JOB_PLACEMENT_RULES} for one job`);
  if (!namespaceExists) errors.push(`job ${JSON.stringify(job.ID)} is in nonexistent namespace ${JSON.stringify(job.Namespace)}`);
  // The reference's admission hook (`jobNodePoolValidatingHook`); pools are made by writing one or by a node registered in it.
  if (!nodePoolExists) errors.push(`job ${JSON.stringify(job.ID)} is in nonexistent node pool ${JSON.stringify(job.NodePool)}`);
  return errors;
}

/** {@link validateJob} of a job about to be written to `tables`: its namespace and node pool looked up there. */
export function validateJobIn(tables: { readonly namespaces: Pick<ReadTable<Namespace>, "get">; readonly node_pool: Pick<ReadTable<NodePool>, "get"> }, job: JobSpec): string[] {
  return validateJob(job, tables.namespaces.get(job.Namespace) !== undefined, nodePoolOf(tables, job.NodePool) !== undefined);
}

/** Fields of a job that the server manages; they do not make a new version when they differ. */
const SERVER_FIELDS: ReadonlySet<string> = new Set(JOB.fields.filter((each) => each.server).map((each) => each.name));

/** Whether `next` changes the spec of `previous` (the reference's `Job.SpecChanged`). */
export function specChanged(previous: JobSpec, next: JobSpec): boolean {
  const strip = (job: JobSpec) => Object.fromEntries(Object.entries(job).filter(([key]) => !SERVER_FIELDS.has(key)));
  return !deepEqual(strip(previous), strip(next));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.hasOwn(b, key) && deepEqual((a as JsonObject)[key], (b as JsonObject)[key]));
}
