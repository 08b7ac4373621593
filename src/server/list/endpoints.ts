/**
 * The list endpoints, declared as data: the tables that give their index, the ACL capability
 * they need, the schema their filter is compiled against, their rows in order, the pagination
 * token, the value the filter sees, and the item they return. The shared pipeline does the rest.
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import { compareStrings } from "../../go/order.js";
import { parseGoBool } from "../../go/strconv.js";
import { stringifyJson } from "../../json.js";
import { deployment as deploymentSchema, jobFilterTarget } from "../../schemas.js";
import { ACL_TOKEN_FILTER, namespaceAccess, policyStub, requireManagement, tokenFilterTarget, tokenStub, type Caller } from "../domain/acl.js";
import { namespaceResponse } from "../domain/namespaces.js";
import { invalid } from "../domain/errors.js";
import { METRICS, type MetricDefinition } from "../metrics/catalogue.js";
import type { AclPolicy, AclToken, Deployment, Job, JobSummary, Namespace } from "../state/model.js";
import { ALL_NAMESPACES } from "./query.js";
import { namespacedKey, type RowRange, type Store, type TableName } from "../state/store.js";
import type { SqlListing } from "./sql-pages.js";

/** One list endpoint. */
export interface ListEndpoint<Row> {
  /** The endpoint's name in metric labels (`job`, `deployment`). */
  readonly name: string;
  /** The timer of a list request (where the reference has one). */
  readonly timer?: MetricDefinition;
  /** The tables whose latest index is the list's index (and whose writes wake blocking queries). */
  readonly tables: readonly TableName[];
  /**
   * What the caller may list in `namespace`: a test of each row, or a refusal (thrown) when the
   * caller may list nothing there. Checked before the filter is read, and on every run of the query.
   */
  access(caller: Caller, namespace: string): (row: Row) => boolean;
  /**
   * The filter's schema (the agent evaluates filters in typed mode, as the reference's server
   * does); undefined where the reference has no paginator (namespaces, ACL policies): `filter`,
   * `per_page`, `next_token` and `reverse` are then ignored, as it ignores them.
   */
  readonly schema: ObjectSchema | undefined;
  /** The list exists only with ACLs enabled (`400 ACL support disabled` otherwise). */
  readonly needsAcl?: boolean;
  /** The rows of a namespace (`*`: all) whose ID starts with `prefix`, in the endpoint's order. */
  rows(store: Store, namespace: string, prefix: string): RowRange<Row>;
  /** The row's pagination token. */
  token(row: Row, prefix: string): string;
  /** Orders a row's token against the requested next token. */
  compare(token: string, nextToken: string, prefix: string): number;
  /** Whether {@link ListEndpoint.compare} orders `nextToken` against the tokens as the rows are ordered, in each segment of the rows. */
  seekable(nextToken: string, prefix: string): boolean;
  /** What the filter is evaluated on. */
  filterTarget(row: Row, store: Store): unknown;
  /** Reads the endpoint's own query parameters (after the common ones); throws a 400 when malformed. */
  itemOptions(query: URLSearchParams): ItemOptions;
  /** The list item returned for the row. */
  item(row: Row, store: Store, options: ItemOptions): unknown;
  /** The item's compact JSON (written once per version of what it is made of). */
  itemJson(row: Row, store: Store, options: ItemOptions): string;
  /** How the rows are found in PostgreSQL, for the consistent reads of agents that share their state there (undefined: from the agent's copy). */
  readonly sql?: SqlListing;
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

const EMPTY_SUMMARY = (job: Job): JobSummary => ({
  JobID: job.ID,
  Namespace: job.Namespace,
  Summary: {},
  Children: { Pending: 0, Running: 0, Dead: 0 },
  CreateIndex: job.CreateIndex,
  ModifyIndex: job.CreateIndex,
});

function summaryOf(job: Job, store: Store): JobSummary {
  return store.tables.job_summary.get(namespacedKey(job.Namespace, job.ID)) ?? EMPTY_SUMMARY(job);
}

/** `?meta=`: the reference's parseBool; its error is a 400 here (the reference answers 500). */
function wantsMeta(query: URLSearchParams): boolean {
  const text = query.get("meta");
  if (text === null || text === "") return false;
  const parsed = parseGoBool(text);
  if (!parsed.ok) throw invalid(`Failed to parse value of "meta" (${text}) as a bool: ${parsed.error}`);
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

/** The list capability `capability` in the requested namespace, tested per row with `*`. */
function namespaceCapability<Row extends { readonly Namespace: string }>(capability: string) {
  return (caller: Caller, namespace: string): ((row: Row) => boolean) => {
    const permitted = namespaceAccess(caller, namespace, [capability]);
    return (row) => permitted(row.Namespace);
  };
}

/** `GET /v1/jobs`: by namespace then ID; token `<namespace>.<id>`. */
export const jobsEndpoint: ListEndpoint<Job> = {
  name: "job",
  timer: METRICS.jobList,
  tables: ["jobs", "job_summary"],
  access: namespaceCapability("list-jobs"),
  schema: jobFilterTarget,
  rows: (store, namespace, prefix) => store.queries.jobs(namespace, prefix),
  token: (job) => `${job.Namespace}.${job.ID}`,
  compare: compareStrings,
  // Within a namespace, `<namespace>.<id>` tokens grow with the ID; each namespace is a segment.
  seekable: () => true,
  filterTarget: (job, store) => jobTargets.get(job, summaryOf(job, store)),
  itemOptions: (query) => ({ meta: wantsMeta(query) }),
  item: (job, store, options) => jobListItem(job, summaryOf(job, store), options.meta),
  itemJson: (job, store, options) => (options.meta ? jobItemMetaJson : jobItemJson).get(job, summaryOf(job, store)),
  sql: { table: "jobs", order: () => "namespace", idPrefix: (prefix) => prefix, namespaced: true, summaries: true },
};

/** The reference's UUID prefix index: hex digits (dashes aside), an even number of them. */
function checkIdPrefix(prefix: string): void {
  const hex = prefix.replace(/-/g, "");
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) {
    throw invalid(`Invalid ID prefix ${JSON.stringify(prefix)}: a prefix must have an even number of hexadecimal characters`);
  }
}

/** The `<CreateIndex>.<ID>` token's index, when `nextToken` has one the reference parses (else it compares as text). */
function tokenIndex(nextToken: string): number | undefined {
  const dot = nextToken.indexOf(".");
  if (dot === -1 || !/^[+-]?[0-9]+$/.test(nextToken.slice(0, dot))) return undefined;
  const index = Number(nextToken.slice(0, dot));
  return Number.isSafeInteger(index) ? index : undefined;
}

/**
 * Orders `<CreateIndex>.<ID>` tokens as the reference does: by index numerically, then by ID; a
 * requested token that does not parse is compared as text.
 */
function compareCreateIndexTokens(token: string, nextToken: string): number {
  const wantedIndex = tokenIndex(nextToken);
  if (wantedIndex === undefined) return compareStrings(token, nextToken);
  const tokenDot = token.indexOf(".");
  return Number(token.slice(0, tokenDot)) - wantedIndex || compareStrings(token.slice(tokenDot + 1), nextToken.slice(nextToken.indexOf(".") + 1));
}

/** A UUID prefix as the IDs start with it: checked, and lower-cased. */
function uuidPrefix(prefix: string): string {
  if (prefix !== "") checkIdPrefix(prefix);
  return prefix.toLowerCase();
}

/** Rows as a range of their own (the result of a scan). */
function rangeOf<Row>(rows: readonly Row[]): RowRange<Row> {
  return { size: rows.length, at: (position) => rows[position]!, segments: [] };
}

/**
 * The rows of a table in creation order (`all`), or with a UUID `prefix` those whose ID starts
 * with it, by ID (the reference's `id_prefix` index); `keep` selects one namespace's rows.
 */
function byUuidPrefix<Row>(all: RowRange<Row>, prefix: string, idOf: (row: Row) => string, keep?: (row: Row) => boolean): RowRange<Row> {
  if (prefix === "" && keep === undefined) return all;
  const wanted = uuidPrefix(prefix);
  const rows: Row[] = [];
  for (let position = 0; position < all.size; position++) {
    const row = all.at(position);
    if ((keep === undefined || keep(row)) && idOf(row).startsWith(wanted)) rows.push(row);
  }
  return rangeOf(prefix === "" ? rows : rows.sort((a, b) => compareStrings(idOf(a), idOf(b))));
}

/** Tokens `<CreateIndex>.<ID>` in creation order, or the bare ID with a prefix (rows then by ID). */
function creationTokens<Row extends { readonly CreateIndex: number }>(idOf: (row: Row) => string) {
  return {
    token: (row: Row, prefix: string) => (prefix === "" ? `${row.CreateIndex}.${idOf(row)}` : idOf(row)),
    compare: (token: string, nextToken: string, prefix: string) => (prefix === "" ? compareCreateIndexTokens(token, nextToken) : compareStrings(token, nextToken)),
    // Rows are by (CreateIndex, ID) or by ID, as their tokens compare, unless the token is compared as text.
    seekable: (nextToken: string, prefix: string) => prefix !== "" || tokenIndex(nextToken) !== undefined,
  };
}

/** `GET /v1/deployments`: oldest first, token `<CreateIndex>.<ID>`; with `prefix`, by ID with the bare ID as token. */
export const deploymentsEndpoint: ListEndpoint<Deployment> = {
  name: "deployment",
  timer: METRICS.deploymentList,
  tables: ["deployment"],
  access: namespaceCapability("read-job"),
  schema: deploymentSchema,
  rows: (store, namespace, prefix) =>
    byUuidPrefix(store.tables.deployment.all(), prefix, (deployment) => deployment.ID, namespace === ALL_NAMESPACES ? undefined : (deployment) => deployment.Namespace === namespace),
  ...creationTokens((deployment) => deployment.ID),
  filterTarget: (deployment) => deployment,
  itemOptions: () => ({ meta: false }),
  item: (deployment) => deployment,
  itemJson: (deployment) => deploymentJson.get(deployment, undefined),
  sql: { table: "deployment", order: (prefix) => (prefix === "" ? "creation" : "id"), idPrefix: uuidPrefix, namespaced: true },
};

/** Endpoints whose reference has no paginator: rows by name, with a prefix; no tokens to seek. */
const UNPAGED = {
  schema: undefined,
  token: () => "",
  compare: () => 0,
  seekable: () => false,
  itemOptions: () => ({ meta: false }),
} as const;

const namespaceJson = new DerivedCache<Namespace, undefined, string>((namespace) => stringifyJson(namespaceResponse(namespace)));

/** `GET /v1/namespaces`: by name, whole; a caller sees the namespaces it has any capability in. */
export const namespacesEndpoint: ListEndpoint<Namespace> = {
  ...UNPAGED,
  name: "namespace",
  tables: ["namespaces"],
  access: (caller) => (namespace) => caller.management || caller.permissions.seesNamespace(namespace.Name),
  rows: (store, _namespace, prefix) => store.queries.byKeyPrefix("namespaces", prefix),
  filterTarget: (namespace) => namespace,
  item: (namespace) => namespaceResponse(namespace),
  itemJson: (namespace) => namespaceJson.get(namespace, undefined),
};

const policyStubJson = new DerivedCache<AclPolicy, undefined, string>((policy) => stringifyJson(policyStub(policy)));

/** `GET /v1/acl/policies`: by name, as stubs; a client token sees the policies it holds (`anonymous` without a token). */
export const aclPoliciesEndpoint: ListEndpoint<AclPolicy> = {
  ...UNPAGED,
  name: "acl_policy",
  tables: ["acl_policy"],
  needsAcl: true,
  access: (caller) => {
    if (caller.management) return () => true;
    const held = new Set(caller.token?.Policies ?? ["anonymous"]);
    return (policy) => held.has(policy.Name);
  },
  rows: (store, _namespace, prefix) => store.queries.byKeyPrefix("acl_policy", prefix),
  filterTarget: (policy) => policy,
  item: (policy) => policyStub(policy),
  itemJson: (policy) => policyStubJson.get(policy, undefined),
};

const tokenStubJson = new DerivedCache<AclToken, undefined, string>((token) => stringifyJson(tokenStub(token)));
const tokenTargets = new DerivedCache<AclToken, undefined, unknown>((token) => tokenFilterTarget(token));

/**
 * `GET /v1/acl/tokens`, for management tokens only: by creation with `<CreateIndex>.<AccessorID>`
 * tokens, or with an accessor prefix by accessor with bare accessor tokens, as stubs; the filter
 * sees the whole token, as the reference's does.
 */
export const aclTokensEndpoint: ListEndpoint<AclToken> = {
  name: "acl_token",
  tables: ["acl_token"],
  needsAcl: true,
  access: (caller) => {
    requireManagement(caller);
    return () => true;
  },
  schema: ACL_TOKEN_FILTER,
  rows: (store, _namespace, prefix) => byUuidPrefix(store.tables.acl_token.all(), prefix, (token) => token.AccessorID),
  ...creationTokens((token) => token.AccessorID),
  filterTarget: (token) => tokenTargets.get(token, undefined),
  itemOptions: () => ({ meta: false }),
  item: (token) => tokenStub(token),
  itemJson: (token) => tokenStubJson.get(token, undefined),
  sql: { table: "acl_token", order: (prefix) => (prefix === "" ? "creation" : "id"), idPrefix: uuidPrefix, namespaced: false },
};
