/**
 * Snapshots of the agent's state: the whole state as one versioned JSON document, and the one
 * write that puts such a document back.
 *
 * - **The document** holds every table's rows as the store keeps them, in the table's order, so
 *   that a restore gives lists byte for byte what they were: int64 values exact (bigints, written
 *   by `stringifyJson` as JSON integers), an ACL token's secret hash as hex (as the PostgreSQL
 *   store keeps it), and a policy without its parsed rules, which are derived from `Rules` and
 *   parsed again when the document is read (a hand-edited document cannot grant what its rules
 *   do not say).
 * - **Reading** a document checks it before anything is written: the format and version, each
 *   table and each row's fields the agent relies on (keys, indexes, times, statuses), a job as
 *   registration validates it, no row with an index above the snapshot's, no two rows of one key
 *   (nor two tokens of one secret). A document that is not a snapshot is an
 *   {@link AgentDataError} naming the place (`Tables.jobs[3].SubmitTime`) and what is expected
 *   there.
 * - **Restoring** is one write that names every table: the rows the snapshot does not hold are
 *   deleted, its rows are put with their own `CreateIndex` and `ModifyIndex`. The store's index
 *   keeps growing (a restore is a write at the next index, so blocking queries wake); when the
 *   snapshot comes from a store further ahead, the index is first moved past the snapshot's with
 *   empty writes, so that every index handed out afterwards is above the restored rows'.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { parsePolicy, PolicyError } from "../domain/acl-policy.js";
import { formatErrors } from "../../go/multierror.js";
import { validateJob } from "../scheduler/job-spec.js";
import type { AclPolicy, AclToken, JobSpec, ParsedPolicy } from "../state/model.js";
import { TABLE_NAMES, TABLES, type Rows, type Store, type TableName, type Tables, type WriteTable } from "../state/store.js";
import { ALLOCATION } from "../../structs/allocation.js";
import { DEPLOYMENT } from "../../structs/deployment.js";
import { rowChecks, type RowCheck } from "../../structs/derive.js";
import { EVALUATION } from "../../structs/evaluation.js";
import { JOB } from "../../structs/job.js";
import { JOB_SUMMARY } from "../../structs/job-list.js";
import { NODE } from "../../structs/node.js";
import { SERVICE_REGISTRATION } from "../../structs/service.js";
import { HOST_VOLUME, TASK_GROUP_HOST_VOLUME_CLAIM } from "../../structs/host-volume.js";

/** The `Format` of a snapshot document: how a restore (and `--data`) tells one from a fixture. */
export const SNAPSHOT_FORMAT = "bexpr-snapshot";

/** The version of the snapshot document this agent writes, and the only one it reads. */
export const SNAPSHOT_VERSION = 1;

/**
 * How far past the agent's index a restored snapshot's `Index` may be. The index is moved past it
 * with empty writes (about a microsecond each in memory, committed 256 to a transaction on
 * PostgreSQL), so a document claiming an index of 10^15 would otherwise hold the agent for ever.
 */
export const MAX_RESTORE_INDEX_GAP = 1_000_000;

/** Empty writes queued at once while the index is moved (bounds the promises held). */
const INDEX_STEP_BATCH = 10_000;

/**
 * A row as a snapshot holds it: the fields of the stored row, in the order the API writes them
 * (an ACL token's secret hash as hex in `secretHash`; a policy without its parsed rules).
 */
export type SnapshotRow = { readonly [field: string]: unknown };

/** The tables of a snapshot, each a list of rows in the table's order. */
export interface SnapshotTables {
  /** Jobs (`GET /v1/job/<id>`'s fields, and the server's: `Version`, `SubmitTime`…). */
  readonly jobs: readonly SnapshotRow[];
  /** Each job's allocation counts per task group. */
  readonly job_summary: readonly SnapshotRow[];
  /** The versions of each job, as they were written. */
  readonly job_versions: readonly SnapshotRow[];
  /** Deployments. */
  readonly deployment: readonly SnapshotRow[];
  /** Evaluations. */
  readonly evals: readonly SnapshotRow[];
  /** Allocations. */
  readonly allocs: readonly SnapshotRow[];
  /** The simulated client nodes. */
  readonly nodes: readonly SnapshotRow[];
  /** Namespaces, `default` included. */
  readonly namespaces: readonly SnapshotRow[];
  /** ACL policies (their rules are parsed again on restore). */
  readonly acl_policy: readonly SnapshotRow[];
  /** ACL tokens, each with `secretHash`, the SHA-256 of its secret in hex. */
  readonly acl_token: readonly SnapshotRow[];
  /** Each job's scaling events, by task group (absent from a snapshot taken before they were kept: none). */
  readonly scaling_event: readonly SnapshotRow[];
  /** Variables, their items in the clear (absent from a snapshot taken before they were kept: none). */
  readonly variables: readonly SnapshotRow[];
  /** The sources jobs' versions were registered with (absent from a snapshot taken before they were kept: none). */
  readonly job_submission: readonly SnapshotRow[];
  /** ACL roles (absent from a snapshot taken before roles were kept: none). */
  readonly acl_role: readonly SnapshotRow[];
  /** One-time tokens, each its secret in clear, as the reference keeps them (absent from an older snapshot: none). */
  readonly one_time_token: readonly SnapshotRow[];
  /** The native services registered (absent from a snapshot taken before they were kept: none). */
  readonly service_registrations: readonly SnapshotRow[];
  /** The scheduler configuration, once written (absent from older snapshots, and empty until then: the defaults). */
  readonly scheduler_config: readonly SnapshotRow[];
  /** The node pools written through the API (absent from older snapshots: none; the built-in `all` and `default` are never stored). */
  readonly node_pool: readonly SnapshotRow[];
  /** Dynamic host volumes (absent from older snapshots: none). */
  readonly host_volumes: readonly SnapshotRow[];
  /** Sticky host volume claims (absent from older snapshots: none). */
  readonly host_volume_claims: readonly SnapshotRow[];
  /** The autopilot configuration, once written (absent from older snapshots, and empty until then: the defaults). */
  readonly autopilot_config: readonly SnapshotRow[];
}

/** Tables added after snapshots were first written: a snapshot without one restores it empty. */
const LATER_TABLES: ReadonlySet<TableName> = new Set(["scaling_event", "variables", "job_submission", "acl_role", "one_time_token", "service_registrations", "scheduler_config", "node_pool", "host_volumes", "host_volume_claims", "autopilot_config"]);

/**
 * The agent's whole state as a JSON-able document (`agent.snapshot()`, `GET
 * /_bexpr/snapshots/<name>`). Times in nanoseconds are bigints: write the document with
 * `stringifyJson` (or take it over HTTP, which does) to keep them exact.
 */
export interface AgentSnapshot {
  /** Always {@link SNAPSHOT_FORMAT}. */
  readonly Format: typeof SNAPSHOT_FORMAT;
  /** Always {@link SNAPSHOT_VERSION}. */
  readonly Version: typeof SNAPSHOT_VERSION;
  /** The store's index when it was taken; no row's index is above it. */
  readonly Index: number;
  /** When it was taken, on the agent's clock (RFC 3339). A restore does not move the clock. */
  readonly Time: string;
  /** Every table's rows, in the table's order (the store's table names). */
  readonly Tables: SnapshotTables;
}

/** What a document that cannot be used is: not a snapshot, not a fixture, or one whose content the agent refuses. */
export type AgentDataErrorCode = "invalid_snapshot" | "invalid_fixture" | "fixture_failed";

/**
 * A snapshot or fixture document that cannot be used: `path` is the place in it (`Tables.jobs[3]`,
 * `Jobs[0].TaskGroups`; empty for the whole document), the message says what is expected there.
 */
export class AgentDataError extends Error {
  /** Always `"AgentDataError"`. */
  override readonly name = "AgentDataError";

  constructor(
    /** `invalid_snapshot`, `invalid_fixture`, or `fixture_failed` (the agent refused what a valid fixture asked). */
    readonly code: AgentDataErrorCode,
    /** Where in the document, as `Jobs[2].Status`; empty for the document itself. */
    readonly path: string,
    /** What is wrong, or what is expected there. */
    readonly reason: string,
  ) {
    super(path === "" ? reason : `${path}: ${reason}`);
  }
}

/** A snapshot read and checked: the rows to put, each table's in no particular order, and the snapshot's index. */
export interface SnapshotState {
  readonly index: number;
  readonly rows: { readonly [Name in TableName]: readonly Rows[Name][] };
}

/** The SHA-256 of a secret, as `AccessControl` compares secrets (and the PostgreSQL store writes hashes). */
function secretHashOf(secret: string): Buffer {
  return createHash("sha256").update(secret).digest();
}

/** A deep copy of a row (bigints and nested objects included), so that the caller's document is its own. */
function copyRow<Name extends TableName>(table: Name, row: Rows[Name]): SnapshotRow {
  if (table === "acl_token") {
    const { secretHash, ...token } = row as AclToken;
    return { ...structuredClone(token), secretHash: secretHash.toString("hex") };
  }
  if (table === "acl_policy") {
    const { parsed: _parsed, ...policy } = row as AclPolicy;
    return structuredClone(policy);
  }
  // The cast: a row's model type is an interface, which TypeScript does not read as an object of fields by name (a SnapshotRow).
  return structuredClone(row) as unknown as SnapshotRow;
}

/** The snapshot of `tables` at `index`, taken at `nowMs` (the agent's clock). */
export function takeSnapshot(tables: Tables, index: number, nowMs: number): AgentSnapshot {
  const copied: Partial<Record<TableName, SnapshotRow[]>> = {};
  for (const name of TABLE_NAMES) {
    const range = tables[name].all();
    const rows: SnapshotRow[] = [];
    for (let i = 0; i < range.size; i++) rows.push(copyRow(name, range.at(i) as never));
    copied[name] = rows;
  }
  // The cast: the loop above filled every table of TABLE_NAMES, which TypeScript does not follow.
  return { Format: SNAPSHOT_FORMAT, Version: SNAPSHOT_VERSION, Index: index, Time: new Date(nowMs).toISOString(), Tables: copied as unknown as SnapshotTables };
}

// ---------------------------------------------------------------------------------------------
// Reading a document

/**
 * What a field holds: a JSON kind, `index` (a whole number from 0 to the snapshot's index),
 * `nanoseconds` (a whole number, read as a bigint), or one of the listed strings; `?` after the
 * kind: the field may be absent; `|null`: it may be null.
 */
type FieldSpec = RowCheck;

/**
 * The fields each table's rows must have, the ones the store, the lists and the scheduler rely on
 * (keys, groups, orders, indexes, times, statuses): for the reference's structs, the fields their
 * declarations give a row rule (`src/structs/`); for the agent's own tables (a job's versions,
 * namespaces, ACL policies and tokens), listed here. Other fields are kept as they are.
 */
const ROW_FIELDS: { readonly [Name in TableName]: Readonly<Record<string, FieldSpec>> } = {
  jobs: rowChecks(JOB),
  job_summary: rowChecks(JOB_SUMMARY),
  deployment: rowChecks(DEPLOYMENT),
  evals: rowChecks(EVALUATION),
  allocs: rowChecks(ALLOCATION),
  job_versions: { Namespace: "string", ID: "string", Version: "integer", Job: "object" },
  scaling_event: { Namespace: "string", JobID: "string", ScalingEvents: "object", ModifyIndex: "index" },
  variables: { Namespace: "string", Path: "string", Items: "object", Lock: "object|null", CreateIndex: "index", ModifyIndex: "index" },
  job_submission: { Source: "string", Format: "string", VariableFlags: "object|null", Variables: "string", Namespace: "string", JobID: "string", Version: "integer", JobModifyIndex: "index" },
  service_registrations: rowChecks(SERVICE_REGISTRATION),
  nodes: rowChecks(NODE),
  namespaces: { Name: "string", Description: "string", Quota: "string", Meta: "object|null", CreateIndex: "index", ModifyIndex: "index" },
  acl_policy: { Name: "string", Description: "string", Rules: "string", CreateIndex: "index", ModifyIndex: "index" },
  scheduler_config: {
    Name: ["scheduler"],
    SchedulerAlgorithm: ["binpack", "spread"],
    PreemptionConfig: "object",
    MemoryOversubscriptionEnabled: "boolean",
    RejectJobRegistration: "boolean",
    PauseEvalBroker: "boolean",
    NodeLimitForFeasibilityChecks: "integer",
    CreateIndex: "index",
    ModifyIndex: "index",
  },
  node_pool: { Name: "string", Description: "string", Meta: "object|null", SchedulerConfiguration: "object|null", CreateIndex: "index", ModifyIndex: "index" },
  host_volumes: rowChecks(HOST_VOLUME),
  host_volume_claims: rowChecks(TASK_GROUP_HOST_VOLUME_CLAIM),
  autopilot_config: {
    Name: ["autopilot"],
    CleanupDeadServers: "boolean",
    ServerStabilizationTime: "integer",
    LastContactThreshold: "integer",
    MaxTrailingLogs: "integer",
    MinQuorum: "integer",
    EnableRedundancyZones: "boolean",
    DisableUpgradeMigration: "boolean",
    EnableCustomUpgrades: "boolean",
    CreateIndex: "index",
    ModifyIndex: "index",
  },
  acl_token: {
    AccessorID: "string",
    SecretID: "string",
    Name: "string",
    Type: ["client", "management"],
    Policies: "strings",
    Global: "boolean",
    CreateTime: "string",
    ExpirationTime: "string|null",
    ExpirationTTL: "integer",
    CreateIndex: "index",
    ModifyIndex: "index",
    secretHash: "string",
    Roles: "strings?",
  },
  acl_role: { ID: "string", Name: "string", Description: "string", Policies: "array", Hash: "string", CreateIndex: "index", ModifyIndex: "index" },
  one_time_token: { OneTimeSecretID: "string", AccessorID: "string", ExpiresAt: "string", CreateIndex: "index", ModifyIndex: "index" },
};

/**
 * Fields besides the key that no two rows of a table may share, because the agent finds a row by
 * them: a request's token by its secret. Two tokens of one secret would make the secret read as
 * whichever the table lists last (a bootstrap secret as a client token, every control route then
 * refused, the restore that could undo it included). The keys (a token's `AccessorID`, a
 * namespace's or a policy's `Name`) are unique already: see {@link readSnapshot}.
 */
const UNIQUE_FIELDS: { readonly [Name in TableName]?: readonly string[] } = {
  acl_token: ["SecretID"],
  acl_role: ["Name"],
  one_time_token: ["OneTimeSecretID"],
};

/** What each kind of field is said to expect in messages. */
const EXPECTS: Readonly<Record<string, string>> = {
  string: "a string",
  strings: "a list of strings",
  boolean: "true or false",
  integer: "a whole number",
  index: "an index: a whole number from 0 to the snapshot's Index",
  nanoseconds: "nanoseconds since the epoch: a whole number",
  object: "an object",
  array: "a list",
  null: "null",
};

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short rendering of a refused value for messages (a data file's too). */
export function describeRefused(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return "a list";
  if (isObject(value)) return "an object";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Whether `value` is of the (non-optional) `kind`, as read from `spec`. */
function hasKind(kind: string, value: unknown, maxIndex: number): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "strings":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return Number.isSafeInteger(value);
    case "index":
      return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= maxIndex;
    case "nanoseconds":
      return typeof value === "bigint" || Number.isSafeInteger(value);
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "null":
      return value === null;
    default:
      throw new TypeError(`no such kind of field: ${kind}`);
  }
}

/**
 * Checks the fields of `row` (at `path`) against `fields`, and returns the row as the store keeps
 * it: nanosecond times as bigints (a small one is read as a number), the rest as given.
 */
function checkRow(fields: Readonly<Record<string, FieldSpec>>, row: unknown, path: string, maxIndex: number): Record<string, unknown> {
  if (!isObject(row)) throw new AgentDataError("invalid_snapshot", path, `expected a row (an object), got ${describeRefused(row)}`);
  const checked: Record<string, unknown> = { ...row };
  for (const [field, spec] of Object.entries(fields)) {
    const value = row[field];
    const at = `${path}.${field}`;
    if (typeof spec !== "string") {
      if (typeof value !== "string" || !spec.includes(value)) throw new AgentDataError("invalid_snapshot", at, `expected one of ${spec.join(", ")}, got ${describeRefused(value)}`);
      continue;
    }
    const optional = spec.endsWith("?");
    const kinds = (optional ? spec.slice(0, -1) : spec).split("|");
    if (value === undefined && optional) continue;
    if (!kinds.some((kind) => hasKind(kind, value, maxIndex))) {
      const above = kinds.includes("index") && Number.isSafeInteger(value) && (value as number) > maxIndex ? ` (${describeRefused(value)} is above it)` : `, got ${describeRefused(value)}`;
      throw new AgentDataError("invalid_snapshot", at, `expected ${kinds.map((kind) => EXPECTS[kind]).join(" or ")}${above}`);
    }
    if (kinds.includes("nanoseconds") && typeof value === "number") checked[field] = BigInt(value);
  }
  return checked;
}

/** An allocation's record of its tasks, when it has one, must be as the agent writes it: task names, and times and an exit code that are whole numbers or null. */
function checkTaskRun(alloc: Record<string, unknown>, path: string): void {
  const run = alloc.TaskRun as Record<string, unknown> | undefined;
  if (run === undefined) return;
  const at = `${path}.TaskRun`;
  const { Tasks: tasks, StartedAt, FinishedAt, ExitCode, Signal, Actions, Restarts, ...rest } = run;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new AgentDataError("invalid_snapshot", `${at}.${unknown}`, "unknown field: a task run holds Tasks, StartedAt, FinishedAt, ExitCode, Signal, Actions and Restarts");
  if (!Array.isArray(tasks) || !tasks.every((task) => typeof task === "string")) throw new AgentDataError("invalid_snapshot", `${at}.Tasks`, `expected a list of strings, got ${describeRefused(tasks)}`);
  for (const [field, value] of Object.entries({ StartedAt, FinishedAt, ExitCode })) {
    if (value !== null && !Number.isSafeInteger(value)) throw new AgentDataError("invalid_snapshot", `${at}.${field}`, `expected a whole number or null, got ${describeRefused(value)}`);
  }
  if (Signal !== undefined && !Number.isSafeInteger(Signal)) throw new AgentDataError("invalid_snapshot", `${at}.Signal`, `expected a whole number, got ${describeRefused(Signal)}`);
  // A user's restarts and signals (`scheduler/client-actions.ts`): what the task states are written from.
  const action = (each: unknown) => isObject(each) && typeof each.Task === "string" && (each.Kind === "restart" || each.Kind === "signal") && Number.isSafeInteger(each.At) && typeof each.Text === "string";
  if (Actions !== undefined && !(Array.isArray(Actions) && Actions.every(action))) throw new AgentDataError("invalid_snapshot", `${at}.Actions`, `expected a list of {Task, Kind, At, Text}, got ${describeRefused(Actions)}`);
  const restarts = (each: unknown) => isObject(each) && Number.isSafeInteger(each.Count) && Number.isSafeInteger(each.Last);
  if (Restarts !== undefined && !(isObject(Restarts) && Object.values(Restarts).every(restarts))) throw new AgentDataError("invalid_snapshot", `${at}.Restarts`, `expected an object of {Count, Last} by task, got ${describeRefused(Restarts)}`);
}

/** A job's task groups must be objects with a `Name` and a `Count` before registration's checks can read them. */
function checkTaskGroups(job: Record<string, unknown>, path: string): void {
  (job.TaskGroups as unknown[]).forEach((group, i) => {
    const at = `${path}.TaskGroups[${i}]`;
    if (!isObject(group)) throw new AgentDataError("invalid_snapshot", at, `expected a task group (an object), got ${describeRefused(group)}`);
    if (typeof group.Name !== "string") throw new AgentDataError("invalid_snapshot", `${at}.Name`, `expected a string, got ${describeRefused(group.Name)}`);
    if (!Number.isSafeInteger(group.Count)) throw new AgentDataError("invalid_snapshot", `${at}.Count`, `expected a whole number, got ${describeRefused(group.Count)}`);
    const tasks = group.Tasks;
    if (tasks !== undefined && tasks !== null && !(Array.isArray(tasks) && tasks.every(isObject))) {
      throw new AgentDataError("invalid_snapshot", `${at}.Tasks`, `expected a list of tasks (objects), got ${describeRefused(tasks)}`);
    }
  });
}

/** A policy's parsed rules: those of the same rules already stored (parsing HCL costs), or parsed now. */
async function parsedRules(policy: Record<string, unknown>, path: string, current: Tables | undefined): Promise<ParsedPolicy> {
  const rules = policy.Rules as string;
  const stored = current?.acl_policy.get(policy.Name as string);
  if (stored !== undefined && stored.Rules === rules) return stored.parsed;
  try {
    return await parsePolicy(rules);
  } catch (error) {
    if (error instanceof PolicyError) throw new AgentDataError("invalid_snapshot", `${path}.Rules`, `the rules do not parse: ${error.message}`);
    throw error;
  }
}

/**
 * Reads a snapshot document (as {@link takeSnapshot} made it, or as `parseJson` read it from
 * text) and checks it; nothing is written. `current` is the state it will replace: policies whose
 * rules it already holds keep their parsed rules.
 *
 * @throws AgentDataError (`invalid_snapshot`) naming what is wrong and where.
 */
export async function readSnapshot(given: unknown, current?: Tables): Promise<SnapshotState> {
  const fail = (path: string, reason: string) => new AgentDataError("invalid_snapshot", path, reason);
  let document: unknown;
  try {
    // The rows become the store's: a copy, so that the caller changing its document later changes nothing here.
    document = structuredClone(given);
  } catch (error) {
    throw fail("", `expected JSON data, which can be copied: ${(error as Error).message}`);
  }
  if (!isObject(document)) throw fail("", `expected a snapshot: an object with "Format": "${SNAPSHOT_FORMAT}", got ${describeRefused(document)}`);
  if (document.Format !== SNAPSHOT_FORMAT) throw fail("Format", `expected "${SNAPSHOT_FORMAT}", got ${describeRefused(document.Format)}: this is not a snapshot`);
  if (document.Version !== SNAPSHOT_VERSION) throw fail("Version", `expected ${SNAPSHOT_VERSION}, the version this agent reads, got ${describeRefused(document.Version)}`);
  const index = document.Index;
  if (!Number.isSafeInteger(index) || (index as number) < 1) throw fail("Index", `expected the index the snapshot was taken at, a whole number from 1, got ${describeRefused(index)}`);
  if (typeof document.Time !== "string" || Number.isNaN(Date.parse(document.Time))) throw fail("Time", `expected an RFC 3339 time, got ${describeRefused(document.Time)}`);
  const unknownField = Object.keys(document).find((key) => !["Format", "Version", "Index", "Time", "Tables"].includes(key));
  if (unknownField !== undefined) throw fail(unknownField, "unknown field: a snapshot holds Format, Version, Index, Time and Tables");
  const tables = document.Tables;
  if (!isObject(tables)) throw fail("Tables", `expected an object of every table's rows, got ${describeRefused(tables)}`);
  const unknownTable = Object.keys(tables).find((name) => !(TABLE_NAMES as readonly string[]).includes(name));
  if (unknownTable !== undefined) throw fail(`Tables.${unknownTable}`, `unknown table: the tables are ${TABLE_NAMES.join(", ")}`);

  const rows: Partial<Record<TableName, unknown[]>> = {};
  for (const name of TABLE_NAMES) {
    const listed = tables[name] ?? (LATER_TABLES.has(name) ? [] : undefined);
    if (!Array.isArray(listed)) throw fail(`Tables.${name}`, `expected the table's rows (a list), got ${describeRefused(listed)}`);
    const keyOf = TABLES[name].key as (row: unknown) => string;
    const seen = new Map<string, number>();
    const unique = (UNIQUE_FIELDS[name] ?? []).map((field) => ({ field, seen: new Map<unknown, number>() }));
    rows[name] = listed.map((row, i) => {
      const path = `Tables.${name}[${i}]`;
      const checked = checkRow(ROW_FIELDS[name], row, path, index as number);
      const key = keyOf(checked);
      const previous = seen.get(key);
      if (previous !== undefined) throw fail(path, `a second row with the key of Tables.${name}[${previous}]`);
      seen.set(key, i);
      for (const { field, seen: values } of unique) {
        const first = values.get(checked[field]);
        // The value is not written: a secret stays out of the message (and the logs it may reach).
        if (first !== undefined) throw fail(`${path}.${field}`, `a second row with the ${field} of Tables.${name}[${first}]`);
        values.set(checked[field], i);
      }
      return checked;
    });
  }

  const namespaces = new Set((rows.namespaces as { Name: string }[]).map((namespace) => namespace.Name));
  if (!namespaces.has("default")) throw fail("Tables.namespaces", "expected the default namespace, which always exists");
  (rows.jobs as Record<string, unknown>[]).forEach((job, i) => {
    const path = `Tables.jobs[${i}]`;
    checkTaskGroups(job, path);
    // The cast is the JSON boundary: the fields validateJob reads were checked above (checkRow, checkTaskGroups).
    // A job keeps its pool: snapshots written before pools were kept name pools no row holds.
    const errors = validateJob(job as unknown as JobSpec, namespaces.has(job.Namespace as string), true);
    if (errors.length > 0) throw fail(path, `the job is not valid: ${formatErrors(errors).trimEnd()}`);
  });
  (rows.allocs as Record<string, unknown>[]).forEach((alloc, i) => checkTaskRun(alloc, `Tables.allocs[${i}]`));
  const tokens = rows.acl_token as Record<string, unknown>[];
  rows.acl_token = tokens.map((token, i) => {
    const hash = Buffer.from(token.secretHash as string, "hex");
    if (!hash.equals(secretHashOf(token.SecretID as string))) throw fail(`Tables.acl_token[${i}].secretHash`, "expected the SHA-256 of the token's SecretID, in hex");
    return { ...token, secretHash: hash };
  });
  const policies = rows.acl_policy as Record<string, unknown>[];
  rows.acl_policy = await Promise.all(
    policies.map(async (policy, i) => {
      const { parsed: _ignored, ...fields } = policy;
      return { ...fields, parsed: await parsedRules(policy, `Tables.acl_policy[${i}]`, current) };
    }),
  );
  // The cast is the JSON boundary: each table's rows, checked above against its struct's row fields.
  return { index: index as number, rows: rows as unknown as SnapshotState["rows"] };
}

/**
 * Puts a snapshot back: moves the store's index past the snapshot's when it is behind (empty
 * writes, which name no table and wake nothing), then makes one write that names every table,
 * deleting the rows the snapshot does not hold and putting its rows as they are. Returns the
 * index of that write.
 *
 * @throws AgentDataError when the snapshot's index is more than {@link MAX_RESTORE_INDEX_GAP} ahead of the store's.
 */
export async function restoreSnapshot(store: Store, state: SnapshotState): Promise<number> {
  const behind = state.index - store.index;
  if (behind > MAX_RESTORE_INDEX_GAP) {
    throw new AgentDataError("invalid_snapshot", "Index", `the snapshot's index ${state.index} is more than ${MAX_RESTORE_INDEX_GAP} ahead of the agent's (${store.index})`);
  }
  for (let left = behind; left > 0; left -= INDEX_STEP_BATCH) {
    await Promise.all(Array.from({ length: Math.min(left, INDEX_STEP_BATCH) }, () => store.write([], () => undefined, "SnapshotRestore")));
  }
  const { index } = await store.write(TABLE_NAMES, (transaction) => {
    for (const name of TABLE_NAMES) restoreTable(transaction, name, state.rows[name]);
  }, "SnapshotRestore");
  return index;
}

/** Puts a table back: deletes the rows `given` does not hold, and puts those it holds as they are. */
function restoreTable<Name extends TableName>(transaction: { readonly [Table in Name]: WriteTable<Rows[Table]> }, name: Name, given: readonly Rows[Name][]): void {
  const table: WriteTable<Rows[Name]> = transaction[name];
  const keyOf = TABLES[name].key;
  const kept = new Set(given.map(keyOf));
  const gone = [...table.values()].map(keyOf).filter((key) => !kept.has(key));
  for (const key of gone) table.delete(key);
  for (const row of given) table.put(row);
}
