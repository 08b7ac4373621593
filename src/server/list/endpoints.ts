/**
 * The list endpoints, declared as data: the tables that give their index, the ACL capability
 * they need, the schema their filter is compiled against, their rows in order (and as a keyset,
 * for a store that reads pages by keyset), the pagination token, the value the filter sees, and
 * the item they return. The shared pipeline does the rest; the store pages them.
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import { compareStrings } from "../../go/order.js";
import { parseGoBool } from "../../go/strconv.js";
import { stringifyJson } from "../../json.js";
import { deployment as deploymentSchema, jobFilterTarget } from "../../schemas.js";
import { present, schemaOf } from "../../structs/derive.js";
import { JOB_LIST_STUB } from "../../structs/job-list.js";
import { heldPolicies, namespaceAccess, requireManagement, type Caller } from "../domain/acl.js";
import { ACL_TOKEN_FILTER, policyStub, roleStub, tokenFilterTarget, tokenStub } from "../domain/acl-api.js";
import { namespaceResponse } from "../domain/namespaces.js";
import { presentNodePool } from "../domain/operator.js";
import { BUILT_IN_NODE_POOLS, NODE_POOL_ALL } from "../state/operator.js";
import { denied, invalid } from "../base/errors.js";
import { presentAllocation, presentAllocationStub, presentEvaluation, presentNode, presentNodeStub, type AllocationStubOptions, type NodeStubOptions } from "../domain/present.js";
import { METRICS, type MetricDefinition } from "../metrics/catalogue.js";
import type { AclPolicy, AclRole, AclToken, Allocation, Deployment, Evaluation, Job, JobSummary, Namespace, Node, NodePool, ServiceRegistration, Variable } from "../state/model.js";
import { presentVariable, VARIABLE_METADATA } from "../domain/variables.js";
import { lowerBound } from "../state/sorted-rows.js";
import { SERVICE_REGISTRATION } from "../../structs/service.js";
import { allocationFilterTarget, evaluationFilterTarget, nodeFilterTarget } from "./filter-schemas.js";
import { ALL_NAMESPACES } from "./query.js";
import { creationToken, EVERY_ROW } from "../state/page.js";
import { namespacedKey, type Listing, type RowRange, type Rows, type SearchDocuments, type StateView } from "../state/store.js";

/**
 * One list endpoint: the list as the store pages it ({@link Listing}: its tables, whose writes
 * also wake its blocking queries, its rows, tokens and keyset), and what the pipeline adds.
 */
export interface ListEndpoint<Row> extends Listing<Row> {
  /** The endpoint's name in metric labels (`job`, `deployment`). */
  readonly name: string;
  /** The timer of a list request (where the reference has one). */
  readonly timer?: MetricDefinition;
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
  /** What the filter is evaluated on. */
  filterTarget(row: Row, view: StateView): unknown;
  /**
   * The root fields in which {@link ListEndpoint.filterTarget} differs from the stored row, when it
   * differs in no other: a filter that reads none of them is evaluated on the row itself, with no
   * target to find or build per row (a filter a user types once, on 10,000 jobs).
   */
  readonly targetOnlyFields?: ReadonlySet<string>;
  /** Reads the endpoint's own query parameters (after the common ones); throws a 400 when malformed. */
  itemOptions(query: URLSearchParams): ItemOptions;
  /**
   * The rows the endpoint's own filtering parameters select (the evaluation list's legacy `job` and
   * `status`), undefined when the request gives none. They apply before paging, as the caller's
   * rights do; with `filter` they are the reference's 400.
   */
  select?(options: ItemOptions): ((row: Row) => boolean) | undefined;
  /**
   * The route puts a name from the path in the request's `prefix` (`/v1/service/<name>`: the
   * instances of one service): the rows are that name's, and `filter` goes with it.
   */
  readonly prefixIsName?: boolean;
  /** The reference takes `filter` beside the prefix and the list's own selections (`/v1/volumes?type=host`): no 400 for both. */
  readonly filterWithSelections?: boolean;
  /** False where the reference's list has no reverse order (`/v1/nodes`): `reverse` is then ignored. */
  readonly reversible?: boolean;
  /** The list item returned for the row. */
  item(row: Row, view: StateView, options: ItemOptions): unknown;
  /** The item's compact JSON (written once per version of what it is made of). */
  itemJson(row: Row, view: StateView, options: ItemOptions): string;
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

/** The endpoint's own query parameters: how its items are written, and the rows its own filtering parameters select. */
export interface ItemOptions {
  /** `/v1/jobs?meta=true`: the job's Meta in its item. */
  readonly meta: boolean;
  /** `/v1/allocations?task_states=false`: stubs without their task states (written by default). */
  readonly taskStates?: boolean;
  /** `/v1/allocations` and `/v1/nodes` `?resources=true`: the stubs' resources. */
  readonly resources?: boolean;
  /** `/v1/nodes?os=true`: the stubs' `Attributes`, with the OS name. */
  readonly os?: boolean;
  /** `/v1/evaluations?job=`: that job's evaluations only (`""`: every job's). */
  readonly job?: string;
  /** `/v1/evaluations?status=`: evaluations of that status only (`""`: any). */
  readonly status?: string;
  /** The caller holds a management token (or ACLs are off): `/v1/vars` shows the variables' locks. */
  readonly management?: boolean;
  /** `/v1/node/pool/<name>/jobs` and `/nodes`: the path's pool (a part of the answer's key). */
  readonly pool?: string;
  /** The list's own exact selections by field (`/v1/volumes?type=host&node_id=`: `NodeID`), "" values left out. */
  readonly fields?: Readonly<Record<string, string>>;
}

const EMPTY_SUMMARY = (job: Job): JobSummary => ({
  JobID: job.ID,
  Namespace: job.Namespace,
  Summary: {},
  Children: { Pending: 0, Running: 0, Dead: 0 },
  CreateIndex: job.CreateIndex,
  ModifyIndex: job.CreateIndex,
});

function summaryOf(job: Job, view: StateView): JobSummary {
  return view.tables.job_summary.get(namespacedKey(job.Namespace, job.ID)) ?? EMPTY_SUMMARY(job);
}

/**
 * A bool query parameter as the reference's `parseBool` reads it (absent or empty: `fallback`).
 * Its error is a 400 here, where the reference answers 500 on most endpoints (the decisions
 * table); `context` words it as the endpoint does (`Failed to parse node list fields: `).
 */
export function boolParameter(query: URLSearchParams, name: string, fallback: boolean, context = ""): boolean {
  const text = query.get(name);
  if (text === null || text === "") return fallback;
  const parsed = parseGoBool(text);
  if (!parsed.ok) throw invalid(`${context}Failed to parse value of ${JSON.stringify(name)} (${text}) as a bool: ${parsed.error}`);
  return parsed.value;
}

/** `?meta=`: the reference's parseBool. */
function wantsMeta(query: URLSearchParams): boolean {
  return boolParameter(query, "meta", false);
}

/**
 * The fields of a job's list item whose values are not the stored job's own (the reference's
 * `Job.Stub`): the flags `Periodic` and `ParameterizedJob` (a dispatched child is not
 * parameterized) and the job's summary. The filter's target is the stored job with these laid
 * over it, and a filter that reads none of them sees the job as stored.
 */
export function jobTargetOverlay(job: Job, summary: JobSummary): { readonly Periodic: boolean; readonly ParameterizedJob: boolean; readonly JobSummary: JobSummary } {
  return { Periodic: job.Periodic !== null, ParameterizedJob: job.ParameterizedJob !== null && !job.Dispatched, JobSummary: summary };
}

/** The fields of {@link jobTargetOverlay}. */
const JOB_TARGET_ONLY_FIELDS: ReadonlySet<string> = new Set(["Periodic", "ParameterizedJob", "JobSummary"]);

/**
 * The job list item: `structs.JobListStub` as its declaration writes it (`src/structs/job-list.ts`),
 * from the stored job with its {@link jobTargetOverlay}; `Meta` only with `?meta=true` (and, being
 * `omitempty`, not when empty).
 */
export function jobListItem(job: Job, summary: JobSummary, meta: boolean): Record<string, unknown> {
  return present(JOB_LIST_STUB, job, { ...jobTargetOverlay(job, summary), Meta: meta ? job.Meta : null });
}

/** What the filter sees of a job: the stored job with its list item's fields laid over it (decisions table). */
const jobTargets = new DerivedCache<Job, JobSummary, unknown>((job, summary) => ({ ...job, ...jobTargetOverlay(job, summary) }));
/** The JSON of a job's list item, without and with `Meta`. */
const jobItemJson = new DerivedCache<Job, JobSummary, string>((job, summary) => stringifyJson(jobListItem(job, summary, false)));
const jobItemMetaJson = new DerivedCache<Job, JobSummary, string>((job, summary) => stringifyJson(jobListItem(job, summary, true)));
const deploymentJson = new DerivedCache<Deployment, undefined, string>((deployment) => stringifyJson(deployment));

/** The list capability `capability` in the requested namespace, tested per row with `*`. */
function namespaceCapability<Row extends { readonly Namespace: string }>(capability: string) {
  return (caller: Caller, namespace: string): ((row: Row) => boolean) => {
    const permitted = namespaceAccess(caller, namespace, [capability]);
    // A caller who sees every row is told so, and a page does not read each row's namespace.
    return permitted === EVERY_ROW ? EVERY_ROW : (row) => permitted(row.Namespace);
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
  filterTarget: (job, view) => jobTargets.get(job, summaryOf(job, view)),
  targetOnlyFields: JOB_TARGET_ONLY_FIELDS,
  itemOptions: (query) => ({ meta: wantsMeta(query) }),
  item: (job, view, options) => jobListItem(job, summaryOf(job, view), options.meta),
  itemJson: (job, view, options) => (options.meta ? jobItemMetaJson : jobItemJson).get(job, summaryOf(job, view)),
  keyset: { table: "jobs", order: () => "namespace", idPrefix: (prefix) => prefix, namespaced: true, summaries: true },
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
  return creationToken(nextToken)?.index;
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

/**
 * The rows of a table of namespaced rows kept in creation order: one namespace's (`*`: every
 * namespace's) in that order, or with a UUID `prefix` those whose ID starts with it, by ID.
 */
function namespacedRows<Row extends { readonly Namespace: string; readonly ID: string }>(all: RowRange<Row>, namespace: string, prefix: string): RowRange<Row> {
  return byUuidPrefix(all, prefix, (row) => row.ID, namespace === ALL_NAMESPACES ? undefined : (row) => row.Namespace === namespace);
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
  rows: (store, namespace, prefix) => namespacedRows(store.tables.deployment.all(), namespace, prefix),
  ...creationTokens((deployment) => deployment.ID),
  filterTarget: (deployment) => deployment,
  itemOptions: () => ({ meta: false }),
  item: (deployment) => deployment,
  itemJson: (deployment) => deploymentJson.get(deployment, undefined),
  keyset: { table: "deployment", order: (prefix) => (prefix === "" ? "creation" : "id"), idPrefix: uuidPrefix, namespaced: true },
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
    const held = heldPolicies(caller);
    return (policy) => held.has(policy.Name);
  },
  rows: (store, _namespace, prefix) => store.queries.byKeyPrefix("acl_policy", prefix),
  filterTarget: (policy) => policy,
  item: (policy) => policyStub(policy),
  itemJson: (policy) => policyStubJson.get(policy, undefined),
};

const roleStubJson = new DerivedCache<AclRole, undefined, string>((role) => stringifyJson(roleStub(role)));

/**
 * `GET /v1/acl/roles`: by ID, with an ID `prefix` (any text, as the reference's string index), as
 * stubs; a management token sees every role, another token the roles it links to, no token none
 * (`ACL.ListRoles`).
 */
export const aclRolesEndpoint: ListEndpoint<AclRole> = {
  ...UNPAGED,
  name: "acl_role",
  tables: ["acl_role"],
  needsAcl: true,
  access: (caller) => {
    if (caller.management) return () => true;
    const linked = new Set(caller.token?.Roles ?? []);
    return (role) => linked.has(role.ID);
  },
  rows: (store, _namespace, prefix) => {
    const all = store.tables.acl_role.all();
    if (prefix === "") return all;
    const rows: AclRole[] = [];
    for (let position = 0; position < all.size; position++) if (all.at(position).ID.startsWith(prefix)) rows.push(all.at(position));
    return rangeOf(rows);
  },
  filterTarget: (role) => roleStub(role),
  item: (role) => roleStub(role),
  itemJson: (role) => roleStubJson.get(role, undefined),
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
  keyset: { table: "acl_token", order: (prefix) => (prefix === "" ? "creation" : "id"), idPrefix: uuidPrefix, namespaced: false },
};

/** The job of an allocation at its version (null when the job is gone): what its full object shows as `Job`. */
export function allocationJob(alloc: Allocation, view: StateView): Job | null {
  const key = namespacedKey(alloc.Namespace, alloc.JobID);
  const job = view.tables.jobs.get(key) ?? null;
  if (job === null || job.Version === alloc.JobVersion) return job;
  // The job at the allocation's version, as the reference's allocation carries it; the job as it is now once that version is no longer kept.
  return view.tables.job_versions.get(`${key}\u0000${alloc.JobVersion}`)?.Job ?? job;
}

/** What the allocation list's filter sees: the full allocation, and the fields only its stub has. */
const allocationTargets = new DerivedCache<Allocation, Job | null, unknown>((alloc, job) => ({ ...presentAllocation(alloc, job), JobType: alloc.JobType, JobVersion: alloc.JobVersion }));
/** The stub's JSON with the list's default options (task states, no resources). */
const allocationStubJson = new DerivedCache<Allocation, undefined, string>((alloc) => stringifyJson(presentAllocationStub(alloc)));

function allocationStubOptions(options: ItemOptions): AllocationStubOptions {
  return { taskStates: options.taskStates !== false, resources: options.resources === true };
}

/**
 * `GET /v1/allocations`: oldest first, token `<CreateIndex>.<ID>` (compared by index, then ID); with
 * `prefix`, by ID with the bare ID as token. Items are `AllocListStub`s; the filter sees the full
 * allocation, its job included, so the list follows the jobs table as well as the allocations.
 */
export const allocationsEndpoint: ListEndpoint<Allocation> = {
  name: "allocation",
  tables: ["allocs", "jobs"],
  // The filter sees the allocation's job at its version (see allocationJob).
  targetTables: ["job_versions"],
  access: namespaceCapability("read-job"),
  schema: allocationFilterTarget,
  rows: (store, namespace, prefix) => namespacedRows(store.tables.allocs.all(), namespace, prefix),
  ...creationTokens((alloc) => alloc.ID),
  filterTarget: (alloc, view) => allocationTargets.get(alloc, allocationJob(alloc, view)),
  // The reference reads `resources`, then `task_states`.
  itemOptions: (query) => {
    const resources = boolParameter(query, "resources", false);
    return { meta: false, resources, taskStates: boolParameter(query, "task_states", true) };
  },
  item: (alloc, _view, options) => presentAllocationStub(alloc, allocationStubOptions(options)),
  itemJson: (alloc, _view, options) => {
    const stub = allocationStubOptions(options);
    return stub.taskStates && !stub.resources ? allocationStubJson.get(alloc, undefined) : stringifyJson(presentAllocationStub(alloc, stub));
  },
};

/** An evaluation as the lists write it and their filter sees it: the full `Evaluation`. */
const evaluationObjects = new DerivedCache<Evaluation, undefined, Record<string, unknown>>((evaluation) => presentEvaluation(evaluation));
const evaluationJson = new DerivedCache<Evaluation, undefined, string>((evaluation) => stringifyJson(evaluationObjects.get(evaluation, undefined)));

/**
 * `GET /v1/evaluations`: ordered and paged as the allocations; the legacy `job` and `status` select
 * by exact job ID and status before paging. Items and filter target are the full `Evaluation`.
 */
export const evaluationsEndpoint: ListEndpoint<Evaluation> = {
  name: "evaluation",
  tables: ["evals"],
  access: namespaceCapability("read-job"),
  schema: evaluationFilterTarget,
  rows: (store, namespace, prefix) => namespacedRows(store.tables.evals.all(), namespace, prefix),
  ...creationTokens((evaluation) => evaluation.ID),
  filterTarget: (evaluation) => evaluationObjects.get(evaluation, undefined),
  itemOptions: (query) => ({ meta: false, job: query.get("job") ?? "", status: query.get("status") ?? "" }),
  select: ({ job = "", status = "" }) =>
    job === "" && status === "" ? undefined : (evaluation) => (job === "" || evaluation.JobID === job) && (status === "" || evaluation.Status === status),
  item: (evaluation) => evaluationObjects.get(evaluation, undefined),
  itemJson: (evaluation) => evaluationJson.get(evaluation, undefined),
};

/** What the node list's filter sees: the full node, and the fields only its stub has. */
const nodeTargets = new DerivedCache<Node, undefined, unknown>((node) => ({ ...presentNode(node), Address: node.Address, Version: node.Version }));
const nodeStubJson = new DerivedCache<Node, undefined, string>((node) => stringifyJson(presentNodeStub(node, { os: false, resources: false })));

function nodeStubOptions(options: ItemOptions): NodeStubOptions {
  return { os: options.os === true, resources: options.resources === true };
}

/**
 * `GET /v1/nodes`, for callers with `node:read`: by ID, the bare ID as token, with a UUID `prefix`;
 * no reverse order (the reference's has none). Items are `NodeListStub`s; the filter sees the full
 * node.
 */
export const nodesEndpoint: ListEndpoint<Node> = {
  name: "node",
  tables: ["nodes"],
  access: (caller) => {
    if (!caller.management && !caller.permissions.nodeRead) throw denied();
    return () => true;
  },
  schema: nodeFilterTarget,
  reversible: false,
  rows: (store, _namespace, prefix) => byUuidPrefix(store.tables.nodes.all(), prefix, (node) => node.ID),
  token: (node) => node.ID,
  compare: compareStrings,
  seekable: () => true,
  filterTarget: (node) => nodeTargets.get(node, undefined),
  itemOptions: (query) => {
    const resources = boolParameter(query, "resources", false, "Failed to parse node list fields: ");
    return { meta: false, resources, os: boolParameter(query, "os", false, "Failed to parse node list fields: ") };
  },
  item: (node, _view, options) => presentNodeStub(node, nodeStubOptions(options)),
  itemJson: (node, _view, options) => (options.os === true || options.resources === true ? stringifyJson(presentNodeStub(node, nodeStubOptions(options))) : nodeStubJson.get(node, undefined)),
};

/**
 * The variables of a namespace whose path starts with `prefix`: one run of the table's order,
 * found by binary search. For every namespace (`*`), a scan, a segment per namespace.
 */
function variableRows(all: RowRange<Variable>, namespace: string, prefix: string): RowRange<Variable> {
  if (namespace === ALL_NAMESPACES) {
    const rows: Variable[] = [];
    const segments: number[] = [];
    for (let position = 0; position < all.size; position++) {
      const variable = all.at(position);
      if (!variable.Path.startsWith(prefix)) continue;
      if (rows.length > 0 && rows[rows.length - 1]!.Namespace !== variable.Namespace) segments.push(rows.length);
      rows.push(variable);
    }
    return { size: rows.length, at: (position) => rows[position]!, segments };
  }
  const start = lowerBound(all, all.size, (row) => compareStrings(row.Namespace, namespace) || compareStrings(row.Path, prefix));
  // The run ends at the first row of a later namespace, or of a later path outside the prefix.
  const end = lowerBound(all, all.size, (row) => compareStrings(row.Namespace, namespace) || (row.Path.startsWith(prefix) ? -1 : compareStrings(row.Path, prefix)));
  return { size: end - start, at: (position) => all.at(start + position), segments: [] };
}

/** A variable's metadata as the list writes it and its filter sees it (no items), with its lock for a management token. */
const variableStubs = new DerivedCache<Variable, boolean, Record<string, unknown>>((variable, lock) => presentVariable(variable, { items: false, lock }));
const variableStubJson = new DerivedCache<Variable, boolean, string>((variable, lock) => stringifyJson(variableStubs.get(variable, lock)));

/**
 * `GET /v1/vars`: variables' metadata by namespace then path, token `<namespace>.<path>`, with a
 * path `prefix`; the caller sees those whose path it may `list` (no 403: a list it may see none
 * of is empty, as the reference's).
 */
export const variablesEndpoint: ListEndpoint<Variable> = {
  name: "variable",
  tables: ["variables"],
  access: (caller) => (variable) => caller.management || caller.permissions.allowsVariable(variable.Namespace, variable.Path, "list"),
  schema: VARIABLE_METADATA,
  rows: (store, namespace, prefix) => variableRows(store.tables.variables.all(), namespace, prefix),
  token: (variable) => `${variable.Namespace}.${variable.Path}`,
  compare: compareStrings,
  // Within a namespace, `<namespace>.<path>` tokens grow with the path; each namespace is a segment.
  seekable: () => true,
  // The filter sees the lock whoever asks, as the reference's paginator filters before its stub hides it.
  filterTarget: (variable) => variableStubs.get(variable, true),
  itemOptions: () => ({ meta: false }),
  item: (variable, _view, options) => variableStubs.get(variable, options.management === true),
  itemJson: (variable, _view, options) => variableStubJson.get(variable, options.management === true),
};

/**
 * The instances of the service `name` in `namespace` (`*`: in every namespace, each a segment), by
 * namespace then ID: for each namespace, one run of the table (ordered by namespace, name, ID).
 */
function serviceInstances(store: { readonly tables: { readonly service_registrations: { all(): RowRange<ServiceRegistration> }; readonly namespaces: { values(): IterableIterator<Namespace> } } }, namespace: string, name: string): RowRange<ServiceRegistration> {
  const all = store.tables.service_registrations.all();
  const namespaces = namespace === ALL_NAMESPACES ? [...store.tables.namespaces.values()].map((each) => each.Name).sort(compareStrings) : [namespace];
  const rows: ServiceRegistration[] = [];
  const segments: number[] = [];
  for (const each of namespaces) {
    if (rows.length > 0) segments.push(rows.length);
    for (let position = lowerBound(all, all.size, (row) => compareStrings(row.Namespace, each) || compareStrings(row.ServiceName, name)); position < all.size; position++) {
      const row = all.at(position);
      if (row.Namespace !== each || row.ServiceName !== name) break;
      rows.push(row);
    }
  }
  return { size: rows.length, at: (position) => rows[position]!, segments };
}

/** The filter's schema of a service registration: the struct itself. */
const SERVICE_REGISTRATION_FILTER = schemaOf(SERVICE_REGISTRATION);
const serviceRegistrationJson = new DerivedCache<ServiceRegistration, undefined, string>((registration) => stringifyJson(present(SERVICE_REGISTRATION, registration)));

/**
 * `GET /v1/service/<name>`: the instances of one service (the name travels as the request's
 * prefix, see {@link ListEndpoint.prefixIsName}), by namespace then ID with `<Namespace>.<ID>`
 * tokens (`NamespaceIDTokenizer`), whole; `read-job` in the namespace.
 */
export const serviceRegistrationsEndpoint: ListEndpoint<ServiceRegistration> = {
  name: "service_registration",
  tables: ["service_registrations"],
  access: namespaceCapability("read-job"),
  schema: SERVICE_REGISTRATION_FILTER,
  prefixIsName: true,
  rows: (store, namespace, name) => serviceInstances(store, namespace, name),
  token: (registration) => `${registration.Namespace}.${registration.ID}`,
  compare: compareStrings,
  // Within a namespace, `<namespace>.<id>` tokens grow with the ID; each namespace is a segment.
  seekable: () => true,
  filterTarget: (registration) => registration,
  itemOptions: () => ({ meta: false }),
  item: (registration) => present(SERVICE_REGISTRATION, registration),
  itemJson: (registration) => serviceRegistrationJson.get(registration, undefined),
};

/**
 * The search documents of the lists with a keyset, for a store that decides filters itself: what
 * each list's filter sees of a row, kept beside the row for the pushed-down filters (a job's holds
 * its summary, and follows it).
 */
export const SEARCH_DOCUMENTS: SearchDocuments = {
  jobs: {
    overlay: (job, tables) => jobTargetOverlay(job, summaryOf(job, { tables })),
    follows: { table: "job_summary", key: (summary: Rows["job_summary"]) => namespacedKey(summary.Namespace, summary.JobID) },
  },
  // A deployment's filter target is the deployment itself.
  deployment: { overlay: () => ({}) },
  acl_token: { document: (token, tables) => aclTokensEndpoint.filterTarget(token, { tables }) },
};

/** What a node pool list's filter sees: the pool as the API shows it (`structs.NodePool`). */
const NODE_POOL_FILTER: ObjectSchema = {
  kind: "object",
  typeName: "NodePool",
  fields: {
    Name: "string",
    Description: "string",
    Meta: { kind: "map", values: "string" },
    SchedulerConfiguration: { kind: "object", typeName: "NodePoolSchedulerConfiguration", fields: { SchedulerAlgorithm: "string", MemoryOversubscriptionEnabled: "bool" } },
    NodeIdentityTTL: "int",
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

const nodePoolObjects = new DerivedCache<NodePool, undefined, unknown>((pool) => presentNodePool(pool));
const nodePoolJson = new DerivedCache<NodePool, undefined, string>((pool) => stringifyJson(presentNodePool(pool)));

/** The pools whose name starts with `prefix`, the built-in ones among the stored ones, by name. */
function nodePoolRows(store: { readonly queries: { byKeyPrefix(table: "node_pool", prefix: string): RowRange<NodePool> } }, prefix: string): RowRange<NodePool> {
  const stored = store.queries.byKeyPrefix("node_pool", prefix);
  const builtIn = [...BUILT_IN_NODE_POOLS.values()].filter((pool) => pool.Name.startsWith(prefix));
  if (builtIn.length === 0) return stored;
  const rows: NodePool[] = [...builtIn];
  for (let position = 0; position < stored.size; position++) rows.push(stored.at(position));
  return rangeOf(rows.sort((a, b) => compareStrings(a.Name, b.Name)));
}

/**
 * `GET /v1/node/pools`: by name, the name as token, the built-in `all` and `default` among them;
 * a client token sees the pools its `node_pool` rules grant anything in (`AllowNodePool`).
 */
export const nodePoolsEndpoint: ListEndpoint<NodePool> = {
  name: "node_pool",
  tables: ["node_pool"],
  access: (caller) => (pool) => caller.management || caller.permissions.seesNodePool(pool.Name),
  schema: NODE_POOL_FILTER,
  rows: (store, _namespace, prefix) => nodePoolRows(store, prefix),
  token: (pool) => pool.Name,
  compare: compareStrings,
  seekable: () => true,
  filterTarget: (pool) => nodePoolObjects.get(pool, undefined),
  itemOptions: () => ({ meta: false }),
  item: (pool) => nodePoolObjects.get(pool, undefined),
  itemJson: (pool) => nodePoolJson.get(pool, undefined),
};

/** Whether a pool's list takes a row of pool `rowPool`: `all` takes every one. */
function inPool(pool: string, rowPool: string): boolean {
  return pool === NODE_POOL_ALL || rowPool === pool;
}

/** `read` on the pool (`AllowNodePoolOperation`), or a 403. */
function requireNodePoolRead(caller: Caller, pool: string): void {
  if (!caller.management && !caller.permissions.allowsNodePool(pool, "read")) throw denied();
}

/**
 * `GET /v1/node/pool/<name>/jobs`: the job list (its order, tokens, filter and stubs) of the jobs
 * in the pool (every job for `all`), for a caller who may read the pool (checked by the route).
 */
export function nodePoolJobsEndpoint(pool: string): ListEndpoint<Job> {
  const { timer: _timer, ...jobs } = jobsEndpoint;
  return {
    ...jobs,
    name: "node_pool_jobs",
    access: (caller, namespace) => {
      requireNodePoolRead(caller, pool);
      const may = jobsEndpoint.access(caller, namespace);
      return (job) => inPool(pool, job.NodePool) && may(job);
    },
    itemOptions: (query) => ({ ...jobsEndpoint.itemOptions(query), pool }),
  };
}

/** `GET /v1/node/pool/<name>/nodes`: the node list of the nodes in the pool (every node for `all`). */
export function nodePoolNodesEndpoint(pool: string): ListEndpoint<Node> {
  const { timer: _timer, ...nodes } = nodesEndpoint;
  return {
    ...nodes,
    name: "node_pool_nodes",
    access: (caller, namespace) => {
      requireNodePoolRead(caller, pool);
      const may = nodesEndpoint.access(caller, namespace);
      return (node) => inPool(pool, node.NodePool) && may(node);
    },
    itemOptions: (query) => ({ ...nodesEndpoint.itemOptions(query), pool }),
  };
}
