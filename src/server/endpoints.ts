/**
 * The list endpoints, declared as data: the tables that give their index, the ACL capability
 * they need, the schema their filter is compiled against, their rows in order, the pagination
 * token, the value the filter sees, and the item they return. The shared pipeline does the rest.
 *
 * @module
 */
import type { ObjectSchema } from "../evaluator/schema.js";
import { parseGoBool } from "../evaluator/strconv.js";
import { stringifyJson } from "../json.js";
import { deployment as deploymentSchema, jobFilterTarget } from "../schemas.js";
import { namespacedKey, type Cluster } from "./cluster.js";
import { badRequest } from "./http-errors.js";
import { METRICS, type MetricDefinition } from "./metrics/catalogue.js";
import type { Deployment, Job, JobSummary } from "./model.js";
import { ALL_NAMESPACES } from "./query.js";
import { compareStrings, lowerBound, type TableName } from "./store.js";

/** One list endpoint. */
export interface ListEndpoint<Row> {
  /** The endpoint's name in metric labels (`job`, `deployment`). */
  readonly name: string;
  /** The timer of a list request. */
  readonly timer: MetricDefinition;
  /** The tables whose latest index is the list's index (and whose writes wake blocking queries). */
  readonly tables: readonly TableName[];
  /** The namespace capability a token needs to list. */
  readonly capability: string;
  /** The filter's schema (the agent evaluates filters in typed mode, as the reference's server does). */
  readonly schema: ObjectSchema;
  /** The rows of a namespace (`*`: all) whose ID starts with `prefix`, in the endpoint's order. */
  rows(cluster: Cluster, namespace: string, prefix: string): readonly Row[];
  /** The row's pagination token. */
  token(row: Row, prefix: string): string;
  /** Orders a row's token against the requested next token. */
  compare(token: string, nextToken: string, prefix: string): number;
  /** The row's namespace. */
  namespaceOf(row: Row): string;
  /** What the filter is evaluated on. */
  filterTarget(row: Row, cluster: Cluster): unknown;
  /** Reads the endpoint's own query parameters (after the common ones); throws a 400 when malformed. */
  itemOptions(query: URLSearchParams): ItemOptions;
  /** The list item returned for the row. */
  item(row: Row, cluster: Cluster, options: ItemOptions): unknown;
  /** The item's compact JSON (written once per version of what it is made of). */
  itemJson(row: Row, cluster: Cluster, options: ItemOptions): string;
}

/**
 * Values derived from a row and kept as long as the row and a second object it depends on (a
 * job's summary) are the same objects: stored rows are never changed in place, but replaced, so
 * a new version is a new object and the old entry goes with the old row.
 */
class DerivedCache<Row extends object, Part, Value> {
  readonly #entries = new WeakMap<Row, { readonly part: Part; readonly value: Value }>();

  constructor(private readonly derive: (row: Row, part: Part) => Value) {}

  get(row: Row, part: Part): Value {
    const entry = this.#entries.get(row);
    if (entry !== undefined && entry.part === part) return entry.value;
    const value = this.derive(row, part);
    this.#entries.set(row, { part, value });
    return value;
  }
}

/** Options of the list items: `meta=true` adds the job's Meta. */
export interface ItemOptions {
  readonly meta: boolean;
}

function inNamespace<Row extends { readonly Namespace: string }>(rows: readonly Row[], namespace: string): readonly Row[] {
  return namespace === ALL_NAMESPACES ? rows : rows.filter((row) => row.Namespace === namespace);
}

/**
 * The jobs of a namespace (`*`: all) whose ID starts with `prefix`: a contiguous range of the jobs
 * table, which is sorted by namespace then ID, found by binary search rather than a scan.
 */
function jobsOf(jobs: readonly Job[], namespace: string, prefix: string): readonly Job[] {
  if (namespace === ALL_NAMESPACES) return prefix === "" ? jobs : jobs.filter((job) => job.ID.startsWith(prefix));
  const start = lowerBound(jobs, (job) => compareStrings(job.Namespace, namespace) || compareStrings(job.ID, prefix));
  let end = start;
  while (end < jobs.length && jobs[end]!.Namespace === namespace && jobs[end]!.ID.startsWith(prefix)) end++;
  return jobs.slice(start, end);
}

const EMPTY_SUMMARY = (job: Job): JobSummary => ({
  JobID: job.ID,
  Namespace: job.Namespace,
  Summary: {},
  Children: { Pending: 0, Running: 0, Dead: 0 },
  CreateIndex: job.CreateIndex,
  ModifyIndex: job.CreateIndex,
});

function summaryOf(job: Job, cluster: Cluster): JobSummary {
  return cluster.summaries.get(namespacedKey(job.Namespace, job.ID)) ?? EMPTY_SUMMARY(job);
}

/** `?meta=`: the reference's parseBool; its error is a 400 here (the reference answers 500). */
function wantsMeta(query: URLSearchParams): boolean {
  const text = query.get("meta");
  if (text === null || text === "") return false;
  const parsed = parseGoBool(text);
  if (!parsed.ok) throw badRequest(`Failed to parse value of "meta" (${text}) as a bool: ${parsed.error}`);
  return parsed.value;
}

/** The job list item (spec 2.2), in the reference's field order. */
export function jobListItem(job: Job, summary: JobSummary, meta: boolean): Record<string, unknown> {
  return {
    ID: job.ID,
    ParentID: job.ParentID,
    Name: job.Name,
    Namespace: job.Namespace,
    Datacenters: job.Datacenters,
    Multiregion: job.Multiregion,
    Type: job.Type,
    Priority: job.Priority,
    Periodic: job.Periodic !== null,
    ParameterizedJob: job.ParameterizedJob !== null && !job.Dispatched,
    Stop: job.Stop,
    Status: job.Status,
    StatusDescription: job.StatusDescription,
    JobSummary: summary,
    CreateIndex: job.CreateIndex,
    ModifyIndex: job.ModifyIndex,
    JobModifyIndex: job.JobModifyIndex,
    SubmitTime: job.SubmitTime,
    ...(meta && job.Meta !== null ? { Meta: job.Meta } : {}),
  };
}

/** What the filter sees of a job: the stored job with its list item's fields laid over it (decisions table). */
const jobTargets = new DerivedCache<Job, JobSummary, unknown>((job, summary) => ({ ...job, ...jobListItem(job, summary, false) }));
/** The JSON of a job's list item, without and with `Meta`. */
const jobItemJson = new DerivedCache<Job, JobSummary, string>((job, summary) => stringifyJson(jobListItem(job, summary, false)));
const jobItemMetaJson = new DerivedCache<Job, JobSummary, string>((job, summary) => stringifyJson(jobListItem(job, summary, true)));
const deploymentJson = new DerivedCache<Deployment, undefined, string>((deployment) => stringifyJson(deployment));

/** `GET /v1/jobs`: by namespace then ID; token `<namespace>.<id>`. */
export const jobsEndpoint: ListEndpoint<Job> = {
  name: "job",
  timer: METRICS.jobList,
  tables: ["jobs", "job_summary"],
  capability: "list-jobs",
  schema: jobFilterTarget,
  rows: (cluster, namespace, prefix) => jobsOf(cluster.jobs.sorted(), namespace, prefix),
  token: (job) => `${job.Namespace}.${job.ID}`,
  compare: compareStrings,
  namespaceOf: (job) => job.Namespace,
  filterTarget: (job, cluster) => jobTargets.get(job, summaryOf(job, cluster)),
  itemOptions: (query) => ({ meta: wantsMeta(query) }),
  item: (job, cluster, options) => jobListItem(job, summaryOf(job, cluster), options.meta),
  itemJson: (job, cluster, options) => (options.meta ? jobItemMetaJson : jobItemJson).get(job, summaryOf(job, cluster)),
};

/** The reference's UUID prefix index: hex digits (dashes aside), an even number of them. */
function checkIdPrefix(prefix: string): void {
  const hex = prefix.replace(/-/g, "");
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) {
    throw badRequest(`Invalid ID prefix ${JSON.stringify(prefix)}: a prefix must have an even number of hexadecimal characters`);
  }
}

/**
 * Orders `<CreateIndex>.<ID>` tokens as the reference does: by index numerically, then by ID; a
 * requested token that does not parse is compared as text.
 */
function compareCreateIndexTokens(token: string, nextToken: string): number {
  const dot = nextToken.indexOf(".");
  const wantedIndex = dot === -1 ? Number.NaN : Number(nextToken.slice(0, dot));
  if (dot === -1 || !/^[+-]?[0-9]+$/.test(nextToken.slice(0, dot)) || !Number.isSafeInteger(wantedIndex)) return compareStrings(token, nextToken);
  const tokenDot = token.indexOf(".");
  return Number(token.slice(0, tokenDot)) - wantedIndex || compareStrings(token.slice(tokenDot + 1), nextToken.slice(dot + 1));
}

/** `GET /v1/deployments`: oldest first, token `<CreateIndex>.<ID>`; with `prefix`, by ID with the bare ID as token. */
export const deploymentsEndpoint: ListEndpoint<Deployment> = {
  name: "deployment",
  timer: METRICS.deploymentList,
  tables: ["deployment"],
  capability: "read-job",
  schema: deploymentSchema,
  rows: (cluster, namespace, prefix) => {
    const rows = inNamespace(cluster.deployments.sorted(), namespace);
    if (prefix === "") return rows;
    checkIdPrefix(prefix);
    return rows.filter((deployment) => deployment.ID.startsWith(prefix.toLowerCase())).sort((a, b) => compareStrings(a.ID, b.ID));
  },
  token: (deployment, prefix) => (prefix === "" ? `${deployment.CreateIndex}.${deployment.ID}` : deployment.ID),
  compare: (token, nextToken, prefix) => (prefix === "" ? compareCreateIndexTokens(token, nextToken) : compareStrings(token, nextToken)),
  namespaceOf: (deployment) => deployment.Namespace,
  filterTarget: (deployment) => deployment,
  itemOptions: () => ({ meta: false }),
  item: (deployment) => deployment,
  itemJson: (deployment) => deploymentJson.get(deployment, undefined),
};
