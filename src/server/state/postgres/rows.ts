/**
 * How the agent's rows are kept in PostgreSQL: each row as JSON text that gives the same row back
 * (int64 values exact, field order kept, an ACL token's secret hash as hex), the columns its
 * table's order and lookups need, and for listed tables a jsonb search document, the value list
 * filters see, which `bexpr/sql` translates filters against (see `SearchDocuments`, `../store.ts`).
 *
 * @module
 */
import { parseJson, stringifyJson } from "../../../json.js";
import type { AclToken } from "../model.js";
import type { Rows, TableName } from "../store.js";

/**
 * The fields of each table held as bigints (nanosecond times), by path: a field of the row, or of
 * an object the row holds last (a version's `Job`). A value that fits a number would be read back
 * as one otherwise.
 */
const BIGINT_FIELDS: { readonly [Name in TableName]?: readonly (readonly string[])[] } = {
  jobs: [["SubmitTime"]],
  job_versions: [["Job", "SubmitTime"]],
  deployment: [["CreateTime"], ["ModifyTime"]],
  allocs: [["CreateTime"], ["ModifyTime"]],
  evals: [["CreateTime"], ["ModifyTime"]],
  host_volumes: [["CreateTime"], ["ModifyTime"]],
};

/** The object holding the field at `path` (the row itself for a field of its own), or undefined. */
function holderOf(row: Record<string, unknown>, path: readonly string[]): Record<string, unknown> | undefined {
  let holder: unknown = row;
  for (const step of path.slice(0, -1)) holder = typeof holder === "object" && holder !== null ? (holder as Record<string, unknown>)[step] : undefined;
  return typeof holder === "object" && holder !== null && !Array.isArray(holder) ? (holder as Record<string, unknown>) : undefined;
}

/** A row as stored: JSON text that {@link decodeRow} turns back into an equal row. */
export function encodeRow<Name extends TableName>(table: Name, row: Rows[Name]): string {
  if (table === "acl_token") {
    const token = row as AclToken;
    return stringifyJson({ ...token, secretHash: token.secretHash.toString("hex") });
  }
  return stringifyJson(row);
}

/** The end of a job version's text without its job: the job is its last field (see {@link RowEncoder}). */
const VERSION_JOB_TAIL = `,"Job":null}`;

/**
 * Encodes the rows of one stored batch, each as {@link encodeRow} does, writing each job's text
 * once however many of the batch's rows hold that job: a registration stores a job and its version
 * (which holds the same job object, as its last field) together, and the job's text was twice over
 * the most of what the agent wrote for it. The texts are kept for the batch only: kept beside the
 * agent's rows, each job's several kilobytes would stay in its memory.
 */
export class RowEncoder {
  /** The text of each job encoded in the batch, by the job object (rows are never changed in place). */
  readonly #jobTexts = new Map<object, string>();

  /** The row's text, the same as {@link encodeRow} gives. */
  encode<Name extends TableName>(table: Name, row: Rows[Name]): string {
    if (table === "jobs") return this.#jobText(row as Rows["jobs"]);
    if (table === "job_versions") {
      const version = row as Rows["job_versions"];
      // The version's other fields with a placeholder in the job's place; a version whose job is not its last field is written whole.
      const head = stringifyJson({ ...version, Job: null });
      if (head.endsWith(VERSION_JOB_TAIL)) return `${head.slice(0, -"null}".length)}${this.#jobText(version.Job)}}`;
    }
    return encodeRow(table, row);
  }

  #jobText(job: Rows["jobs"]): string {
    let text = this.#jobTexts.get(job);
    if (text === undefined) this.#jobTexts.set(job, (text = stringifyJson(job)));
    return text;
  }
}

/** Runs of 16 digits or more: a number that may not fit a double exactly (or such digits in a string). */
const LONG_DIGITS = /\d{16,}/g;

/**
 * The row's JSON read with `JSON.parse` (about five times faster than the lossless reader) when
 * that is exact: the table's int64 fields are read from their own digits, and no other run of 16
 * digits or more is in the text (a user's number beyond 2^53, or digits in a string: then the
 * lossless reader reads it all). Undefined when it cannot be.
 */
function parseExactly(table: TableName, text: string): Record<string, unknown> | undefined {
  const paths = BIGINT_FIELDS[table] ?? [];
  const long = text.match(LONG_DIGITS)?.length ?? 0;
  const exact = new Map<readonly string[], bigint>();
  for (const path of paths) {
    const field = path[path.length - 1]!;
    // The field comes after any user content of the same name (the int64 fields are written last, and a version's job is its last field).
    const at = text.lastIndexOf(`"${field}":`);
    const digits = at === -1 ? null : /^-?\d+/.exec(text.slice(at + field.length + 3, at + field.length + 25));
    if (digits !== null) exact.set(path, BigInt(digits[0]));
  }
  const longFields = [...exact.values()].filter((value) => (value < 0n ? -value : value) >= 10n ** 15n).length;
  if (long !== longFields) return undefined;
  const row = JSON.parse(text) as Record<string, unknown>;
  for (const [path, value] of exact) {
    // The digits read are the field's only when the parsed field agrees with them.
    const holder = holderOf(row, path);
    const field = path[path.length - 1]!;
    if (holder === undefined || typeof holder[field] !== "number" || Number(value) !== holder[field]) return undefined;
    holder[field] = value;
  }
  return row;
}

/** The row `encodeRow` stored. */
export function decodeRow<Name extends TableName>(table: Name, text: string): Rows[Name] {
  const row = parseExactly(table, text) ?? (parseJson(text) as Record<string, unknown>);
  for (const path of BIGINT_FIELDS[table] ?? []) {
    const holder = holderOf(row, path);
    const field = path[path.length - 1]!;
    if (typeof holder?.[field] === "number") holder[field] = BigInt(holder[field] as number);
  }
  if (table === "acl_token") row.secretHash = Buffer.from(row.secretHash as string, "hex");
  // The cast: JSON the agent itself wrote from a row of this table (encodeRow), its int64s and bytes put back above.
  return row as unknown as Rows[Name];
}

/** The field each table's rows are ordered and found by. */
const ID_FIELDS: { readonly [Name in TableName]: string } = {
  jobs: "ID",
  job_summary: "JobID",
  job_versions: "ID",
  scaling_event: "JobID",
  variables: "Path",
  job_submission: "JobID",
  service_registrations: "ID",
  deployment: "ID",
  evals: "ID",
  allocs: "ID",
  nodes: "ID",
  namespaces: "Name",
  acl_policy: "Name",
  acl_token: "AccessorID",
  acl_role: "ID",
  one_time_token: "AccessorID",
  scheduler_config: "Name",
  node_pool: "Name",
  host_volumes: "ID",
  host_volume_claims: "ID",
  autopilot_config: "Name",
};

/** The columns of a row that orders and lookups use: its namespace, its ID (or name) and its creation index. */
export interface RowColumns {
  readonly namespace: string | null;
  readonly id: string;
  readonly createIndex: number | null;
}

/** The order and lookup columns of a row of `table`. */
export function rowColumns<Name extends TableName>(table: Name, row: Rows[Name]): RowColumns {
  // The cast: the column names below are fields of every listed table's rows, read by name.
  const fields = row as unknown as Record<string, unknown>;
  const id = fields[ID_FIELDS[table]] as string;
  const namespace = typeof fields.Namespace === "string" ? fields.Namespace : null;
  const createIndex = table === "jobs" || table === "job_summary" || table === "job_versions" || table === "scaling_event" || table === "job_submission" || table === "namespaces" || table === "acl_policy" || table === "nodes" || table === "scheduler_config" || table === "node_pool" || table === "autopilot_config" ? null : (fields.CreateIndex as number);
  return { namespace, id, createIndex };
}
