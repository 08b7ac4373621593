/**
 * The seam between the agent and its state: the {@link Store} interface. Everything the agent
 * keeps (jobs, their summaries, deployments, evaluations, allocations, namespaces, ACL policies and
 * tokens) lives in its tables; every change happens in a write transaction at the next index, typed
 * by the tables it names, so a write cannot change a table it did not name (a compile error, and a
 * runtime error for code that casts its way around the types), and the blocking queries watching
 * the named tables wake.
 *
 * Lists are read a page at a time ({@link Store.page}): every store feeds the one paginator
 * (`page.ts`) the candidate rows of a page, in the list's order from `next_token`, and it decides
 * which are kept.
 *
 * The in-memory implementation is {@link MemoryStore} (`memory.ts`); the table definitions below
 * (key, order, group) are what any implementation indexes.
 *
 * @module
 */
import type { Filter } from "../../evaluator/compile.js";
import type { CostBudget } from "../../evaluator/cost.js";
import type { ObjectSchema } from "../../evaluator/schema.js";
import { compareStrings } from "../../go/order.js";
import type { AclPolicy, AclRole, AclToken, Allocation, AutopilotConfig, Deployment, Evaluation, HostVolume, HostVolumeClaim, Job, JobScalingEvents, JobSubmission, JobSummary, JobVersion, Namespace, Node, NodePool, OneTimeToken, SchedulerConfiguration, ServiceRegistration, Variable } from "./model.js";

/** The row type of each table. */
export interface Rows {
  readonly jobs: Job;
  readonly job_summary: JobSummary;
  readonly job_versions: JobVersion;
  readonly scaling_event: JobScalingEvents;
  readonly variables: Variable;
  readonly job_submission: JobSubmission;
  readonly service_registrations: ServiceRegistration;
  readonly deployment: Deployment;
  readonly evals: Evaluation;
  readonly allocs: Allocation;
  readonly nodes: Node;
  readonly namespaces: Namespace;
  readonly acl_policy: AclPolicy;
  readonly acl_token: AclToken;
  readonly acl_role: AclRole;
  readonly one_time_token: OneTimeToken;
  readonly scheduler_config: SchedulerConfiguration;
  readonly node_pool: NodePool;
  readonly host_volumes: HostVolume;
  readonly host_volume_claims: HostVolumeClaim;
  readonly autopilot_config: AutopilotConfig;
}

/** The tables of the state store. */
export type TableName = keyof Rows;

/** How a table is keyed, ordered and grouped: the indexes its queries need. */
export interface TableDefinition<Row> {
  /** The row's primary key. */
  readonly key: (row: Row) => string;
  /** The table's order (that of its list endpoint); it must be total. */
  readonly order: (a: Row, b: Row) => number;
  /** The row's group, when rows are looked up by group (the deployments of one job). */
  readonly group?: (row: Row) => string;
}

/** The namespace value that selects every namespace (`?namespace=*`). */
export const ALL_NAMESPACES = "*";

/** The key of a namespaced row (a job, a job's summary, the group of a job's other rows). */
export function namespacedKey(namespace: string, id: string): string {
  return `${namespace}\u0000${id}`;
}

/** The order of deployments, evaluations and allocations: creation, then ID. */
function byCreation(a: { CreateIndex: number; ID: string }, b: { CreateIndex: number; ID: string }): number {
  return a.CreateIndex - b.CreateIndex || compareStrings(a.ID, b.ID);
}

/** The job a deployment, evaluation or allocation belongs to. */
function jobGroup(row: { Namespace: string; JobID: string }): string {
  return namespacedKey(row.Namespace, row.JobID);
}

/** Every table's definition. */
export const TABLES: { readonly [Name in TableName]: TableDefinition<Rows[Name]> } = {
  jobs: { key: (job) => namespacedKey(job.Namespace, job.ID), order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.ID, b.ID) },
  job_summary: { key: (summary) => namespacedKey(summary.Namespace, summary.JobID), order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.JobID, b.JobID) },
  // A job's versions, newest first, found through the job's group.
  job_versions: {
    key: (row) => `${namespacedKey(row.Namespace, row.ID)}\u0000${row.Version}`,
    order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.ID, b.ID) || b.Version - a.Version,
    group: (row) => namespacedKey(row.Namespace, row.ID),
  },
  scaling_event: { key: (row) => namespacedKey(row.Namespace, row.JobID), order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.JobID, b.JobID) },
  // Variables by namespace then path: a namespace's variables under a path prefix are one run.
  variables: { key: (row) => namespacedKey(row.Namespace, row.Path), order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.Path, b.Path) },
  // A job's sources by version, found through its group (pruned with its versions, deleted with it).
  job_submission: {
    key: (row) => `${namespacedKey(row.Namespace, row.JobID)}\u0000${row.Version}`,
    order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.JobID, b.JobID) || b.Version - a.Version,
    group: (row) => namespacedKey(row.Namespace, row.JobID),
  },
  // Native services by namespace, name and ID (a service's instances are one run of the table, as
  // the reference's `service_name` index), found by allocation through the group (an allocation's
  // services go when it stops).
  service_registrations: {
    key: (row) => namespacedKey(row.Namespace, row.ID),
    order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.ServiceName, b.ServiceName) || compareStrings(a.ID, b.ID),
    group: (row) => row.AllocID,
  },
  // A job's deployments, evaluations and allocations are found through its group: no write scans a table.
  deployment: { key: (row) => row.ID, order: byCreation, group: jobGroup },
  evals: { key: (row) => row.ID, order: byCreation, group: jobGroup },
  allocs: { key: (row) => row.ID, order: byCreation, group: jobGroup },
  nodes: { key: (row) => row.ID, order: (a, b) => compareStrings(a.ID, b.ID) },
  namespaces: { key: (row) => row.Name, order: (a, b) => compareStrings(a.Name, b.Name) },
  acl_policy: { key: (row) => row.Name, order: (a, b) => compareStrings(a.Name, b.Name) },
  acl_token: { key: (row) => row.AccessorID, order: (a, b) => a.CreateIndex - b.CreateIndex || compareStrings(a.AccessorID, b.AccessorID) },
  // Roles by ID (the reference's `id` index, which its list walks); found by name through their group.
  acl_role: { key: (row) => row.ID, order: (a, b) => compareStrings(a.ID, b.ID), group: (row) => row.Name },
  // One per ACL token; found by its secret (a UUID, in either case, as the reference's UUID index reads it) through its group.
  one_time_token: { key: (row) => row.AccessorID, order: (a, b) => compareStrings(a.AccessorID, b.AccessorID), group: (row) => row.OneTimeSecretID.toLowerCase() },
  scheduler_config: { key: (row) => row.Name, order: (a, b) => compareStrings(a.Name, b.Name) },
  node_pool: { key: (row) => row.Name, order: (a, b) => compareStrings(a.Name, b.Name) },
  // Dynamic host volumes by namespace then ID (the reference's list order, `<Namespace>.<ID>` tokens).
  host_volumes: { key: (row) => namespacedKey(row.Namespace, row.ID), order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.ID, b.ID) },
  // Sticky volume claims by namespace then ID, found by job through their group (the scheduler reads a job's claims).
  host_volume_claims: {
    key: (row) => namespacedKey(row.Namespace, row.ID),
    order: (a, b) => compareStrings(a.Namespace, b.Namespace) || compareStrings(a.ID, b.ID),
    group: (row) => namespacedKey(row.Namespace, row.JobID),
  },
  autopilot_config: { key: (row) => row.Name, order: (a, b) => compareStrings(a.Name, b.Name) },
};

/** The names of every table. */
export const TABLE_NAMES = Object.keys(TABLES) as readonly TableName[];

/**
 * A contiguous run of a table's rows in the table's order (the result of a named query), read
 * without copying. `segments` are the positions where a new run of the query's pagination tokens
 * starts: within a segment, the tokens grow with the position (the jobs of one namespace), so a
 * `next_token` is found there by binary search.
 */
export interface RowRange<Row> {
  readonly size: number;
  /** The row at `position` (0 ≤ position < size). */
  at(position: number): Row;
  /** The start of each segment after the first, ascending (empty: one segment). */
  readonly segments: readonly number[];
}

/** Reads of one table. */
export interface ReadTable<Row> {
  get(key: string): Row | undefined;
  readonly size: number;
  /** Every row in the table's order. */
  all(): RowRange<Row>;
  /** Every row, in no particular order. */
  values(): IterableIterator<Row>;
  /** The rows of one group (see {@link TableDefinition.group}), by key. */
  group(group: string): ReadonlyMap<string, Row>;
}

/** Reads and changes of one table, inside a write transaction that names it. */
export interface WriteTable<Row> extends ReadTable<Row> {
  /** Inserts or replaces the row with the row's key. */
  put(row: Row): void;
  delete(key: string): boolean;
}

/** Every table, to read. */
export type Tables = { readonly [Name in TableName]: ReadTable<Rows[Name]> };

/** A write transaction: the index it writes at, and the tables it named, to change. */
export type Transaction<Names extends TableName> = { readonly index: number } & { readonly [Name in Names]: WriteTable<Rows[Name]> };

/**
 * The named queries of the list endpoints: each is a {@link RowRange} of one table, found through
 * the table's order (a binary search in memory, an index in a database).
 */
export interface Queries {
  /** The jobs of a namespace (`*`: all) whose ID starts with `prefix`, by namespace then ID; a segment per namespace. */
  jobs(namespace: string, prefix: string): RowRange<Job>;
  /** The rows of a table whose key (a name, an accessor ID) starts with `prefix`, in the table's order. */
  byKeyPrefix<Name extends "namespaces" | "acl_policy" | "node_pool">(table: Name, prefix: string): RowRange<Rows[Name]>;
}

/** The rows by key: what list items and filter targets are made of. */
export type RowLookup = { readonly [Name in TableName]: Pick<ReadTable<Rows[Name]>, "get"> };

/**
 * The state a page's items and filter targets are made from: the store's tables, or, for a page a
 * database read, the rows read with it in its snapshot (a job's summary).
 */
export interface StateView {
  readonly tables: RowLookup;
}

/**
 * The orders of the lists, each with its pagination token: by namespace then ID
 * (`<Namespace>.<ID>`), by creation (`<CreateIndex>.<ID>`), or by ID (the bare ID).
 */
export type ListOrder = "namespace" | "creation" | "id";

/**
 * A list as a keyset: the table, order and selection of its rows, for a store that keeps its rows
 * indexed by namespace, creation and ID and reads a page by keyset (PostgreSQL).
 */
export interface Keyset {
  /** The table the rows are of. */
  readonly table: TableName;
  /** The rows' order for a request with `prefix`. */
  order(prefix: string): ListOrder;
  /** The ID prefix as the rows' IDs start with it (a UUID prefix checked and lower-cased; a 400 when malformed). */
  idPrefix(prefix: string): string;
  /** Whether the rows are in namespaces (`?namespace` selects them). */
  readonly namespaced: boolean;
  /** Whether a row's item and filter target need its job's summary (read with the page). */
  readonly summaries?: boolean;
}

/** What a list is, as a store pages it (a list endpoint declares it, `list/endpoints.ts`). */
export interface Listing<Row> {
  /** The tables whose latest index is the list's index. */
  readonly tables: readonly TableName[];
  /** Tables the filter's target of a row is made of besides {@link Listing.tables} (an allocation's job at its version): a change of one changes the targets. */
  readonly targetTables?: readonly TableName[];
  /** The rows of a namespace (`*`: all) whose ID starts with `prefix`, in the list's order. */
  rows(store: Store, namespace: string, prefix: string): RowRange<Row>;
  /** The row's pagination token. */
  token(row: Row, prefix: string): string;
  /** Orders a row's token against the requested next token (negative: the row comes before it). */
  compare(token: string, nextToken: string, prefix: string): number;
  /** Whether {@link Listing.compare} orders `nextToken` against the tokens as the rows are ordered, in each segment of the rows. */
  seekable(nextToken: string, prefix: string): boolean;
  /** The list as a keyset (undefined: a store that reads pages by keyset pages it from its copy of the rows). */
  readonly keyset?: Keyset;
}

/** How a page is cut: its size, where it starts, its direction, and the filter with its budget. */
export interface PageRequest {
  /** `per_page` (0: every row). */
  readonly perPage: number;
  readonly nextToken: string;
  readonly reverse: boolean;
  readonly filter: Filter | undefined;
  /** The cost budget of all the filter's evaluations for this page. */
  readonly budget?: CostBudget;
}

/** One page: its rows, the token of the next page ("" on the last page), and how many rows the filter saw. */
export interface Page<Row> {
  readonly rows: Row[];
  readonly nextToken: string;
  readonly evaluated: number;
}

/** One list request, as the list pipeline has read it. */
export interface ListPageRequest<Row> extends PageRequest {
  /** The namespace of the rows (`*`: every namespace). */
  readonly namespace: string;
  readonly prefix: string;
  /** The filter's schema (typed mode), for a store that decides the filter itself. */
  readonly schema: ObjectSchema | undefined;
  /** Whether the caller may see the row (its rights, the endpoint's own selection): rows it may not are dropped before the filter. */
  readonly permitted: (row: Row) => boolean;
  /** What the filter is evaluated on. */
  readonly filterTarget: (row: Row, view: StateView) => unknown;
  /** `?stale`: the page may come from the agent's copy of a shared state. */
  readonly stale: boolean;
}

/** A list's page: its rows, the state their items are made from, and the index it was read at. */
export interface ListPage<Row> extends Page<Row> {
  readonly index: number;
  readonly view: StateView;
}

/**
 * The search documents of the listed tables, for a store that decides filters itself (PostgreSQL
 * keeps them in jsonb beside the rows): for each, the value a list filter sees for a row (read with
 * the other rows of the same state), and the rows of other tables it is made of too (a job's
 * document holds its summary), so that a change of those rewrites it.
 *
 * A document is given whole (`document`), or as the fields laid over the row's own stored JSON
 * (`overlay`: a job's is the job with its summary and two flags of its list item; a deployment's is
 * the deployment itself, an empty overlay). PostgreSQL then makes the document from the row's text,
 * so that a row's JSON is written and sent once, not twice.
 */
export type SearchDocuments = {
  readonly [Name in TableName]?: SearchDocument<Rows[Name]>;
};

/** How the search document of a table's rows is made (see {@link SearchDocuments}). */
export type SearchDocument<Row> = (
  | { readonly document: (row: Row, tables: Tables) => unknown; readonly overlay?: undefined }
  | { readonly overlay: (row: Row, tables: Tables) => Readonly<Record<string, unknown>>; readonly document?: undefined }
) & {
  /** A table whose rows are part of this table's documents, and the key of the row of this table each one is part of. */
  readonly follows?: { readonly table: TableName; readonly key: (row: never) => string };
};

/**
 * A store that could not read a page now, for want of resources every page shares (a database's
 * connections for list pages): the same request may succeed later.
 */
export class StoreBusyError extends Error {
  override readonly name: string = "StoreBusyError";
}

/** A write's changes, by table (each key once, with its last value; undefined for a deletion). */
export type Changes = { readonly [Name in TableName]?: ReadonlyMap<string, Rows[Name] | undefined> };

/**
 * What a write is, in the reference's words: the Raft message type its servers apply it as
 * (`structs.MessageType`, without `RequestType`). The event stream gives each event of a write the
 * type the reference gives that message (`nomad/state/events.go`, `MsgTypeEvents`), and a write
 * whose message has none makes no event. `SnapshotRestore` is the state a test control puts back
 * (the reference's FSM restore, which publishes no events).
 */
export type WriteMessage =
  | "NodeRegister"
  | "NodeDeregister"
  | "NodeUpdateStatus"
  | "NodeUpdateEligibility"
  | "NodeUpdateDrain"
  | "JobRegister"
  | "JobDeregister"
  | "JobBatchDeregister"
  | "JobStability"
  | "ScalingEventRegister"
  | "ServiceRegistrationUpsert"
  | "ServiceRegistrationDeleteByID"
  | "PeriodicLaunch"
  | "EvalUpdate"
  | "EvalDelete"
  | "ReconcileJobSummaries"
  | "DeploymentDelete"
  | "SchedulerConfig"
  | "Autopilot"
  | "NodePoolUpsert"
  | "NodePoolDelete"
  | "AllocClientUpdate"
  | "AllocUpdateDesiredTransition"
  | "ApplyPlanResults"
  | "DeploymentStatusUpdate"
  | "DeploymentPromote"
  | "DeploymentAllocHealth"
  | "NamespaceUpsert"
  | "NamespaceDelete"
  | "ACLPolicyUpsert"
  | "ACLPolicyDelete"
  | "ACLTokenUpsert"
  | "ACLTokenDelete"
  | "ACLTokenBootstrap"
  | "VarApplyState"
  | "ACLRolesUpsert"
  | "ACLRolesDeleteByID"
  | "OneTimeTokenUpsert"
  | "OneTimeTokenDelete"
  | "OneTimeTokenExpire"
  | "HostVolumeRegister"
  | "HostVolumeDelete"
  | "TaskGroupHostVolumeClaimDelete"
  | "SnapshotRestore";

/** A write as the store applied it (its own, or one replicated from another agent): the index, and the rows it put or deleted. */
export interface AppliedWrite {
  readonly index: number;
  readonly changes: Changes;
  /**
   * The message of each write it holds, by index: one for a write of its own; for writes of other
   * agents caught up with at once, each row's (by its `ModifyIndex`, a deletion's by
   * {@link AppliedWrite.deletedAt}). An index it does not name was written with no message.
   */
  readonly messages: ReadonlyMap<number, WriteMessage>;
  /** The index each deleted row was deleted at (`<table> <key>`), where it is not the write's own index (writes caught up with at once). */
  readonly deletedAt?: ReadonlyMap<string, number>;
}

/** The agent's state. */
export interface Store {
  /** The index of the latest write (1 on a new store). */
  readonly index: number;
  /** The tables, to read. */
  readonly tables: Tables;
  /** The named queries of the list endpoints. */
  readonly queries: Queries;
  /** The index of the last write to any of `tables`, at least 1 (an untouched table answers 1). */
  tableIndex(...tables: readonly TableName[]): number;
  /**
   * One page of a list, cut by the one paginator (`page.ts`) from the rows the store finds: at
   * once from memory, or a promise for a page read elsewhere (a database).
   *
   * @throws {@link StoreBusyError} when the page cannot be read now (the promise rejects with it).
   * @throws the filter's evaluation errors (FilterEvaluationError, `cost_exceeded`), as the reference fails the request on them.
   */
  page<Row>(listing: Listing<Row>, request: ListPageRequest<Row>): ListPage<Row> | Promise<ListPage<Row>>;
  /**
   * Fills tables of a new store before its first write (the agent's initial state), without
   * moving the index; on a store that already holds state (a database that survived a restart,
   * or that another agent created), does nothing.
   */
  seed<Names extends TableName>(tables: readonly Names[], apply: (transaction: Transaction<Names>) => void): Promise<void>;
  /**
   * Claims `name` once in the store's life: true for the first claim (the agent that loads the
   * demo data into a new store), false for every later one, by this agent or another.
   */
  claim(name: string): Promise<boolean>;
  /**
   * Runs one write at the next index: `apply` changes the tables it names, and only those; the
   * index moves, the tables remember it, and the blocking queries watching them wake. The write
   * is atomic: when `apply` throws, nothing changes and the promise rejects with what it threw.
   * `apply` sees the latest state (a shared store first catches up with the other agents' writes).
   * `apply` may run more than once (a shared store applies a write again when another agent wrote
   * first): it must change nothing but its transaction, or only what may be done twice. `message`
   * says what the write is, as the reference's Raft log does (its events' type follows from it).
   */
  write<Names extends TableName, T>(tables: readonly Names[], apply: (transaction: Transaction<Names>) => T, message: WriteMessage): Promise<{ index: number; result: T }>;
  /**
   * Calls `listener` after every write the store applies, its own and, for a shared store, those
   * of other agents, in index order; returns the function that stops it.
   */
  subscribe(listener: (write: AppliedWrite) => void): () => void;
  /**
   * Resolves once a write to one of `tables` passes `afterIndex`, the signal aborts, or the store
   * closes; whichever comes first. Never rejects.
   */
  waitForChange(tables: readonly TableName[], afterIndex: number, signal: AbortSignal): Promise<void>;
  /** True once the store has been closed. */
  readonly closed: boolean;
  /** How many blocking queries are waiting (for metrics and tests). */
  readonly waiting: number;
  /** Wakes every waiter and refuses to wait from now on (the agent is stopping). */
  close(): void;
}
