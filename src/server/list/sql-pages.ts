/**
 * Pages cut by PostgreSQL, for the consistent reads of agents that share their state there: the
 * filter is pushed down with `bexpr/sql` (typed mode, the endpoint's schema) over the rows' search
 * documents, and the page is found by keyset pagination on the endpoint's order, as `page.ts` cuts
 * it in memory:
 *
 * - the page starts at the first row, in the list's order, whose token is not before `next_token`
 *   (in reverse, not after it): a keyset bound where the tokens grow with the order, the first such
 *   row found by the database otherwise;
 * - rows the caller may not see are dropped before the filter sees them;
 * - when the translation is not `exact`, every row the database selects is checked again with the
 *   compiled filter, which also raises the reference's evaluation errors, in the list's order;
 * - the rows are read in batches in one snapshot (`REPEATABLE READ`), with the index of the list's
 *   tables, until the page and the row after it are found.
 *
 * @module
 */
import type { Filter } from "../../evaluator/compile.js";
import type { CostBudget } from "../../evaluator/cost.js";
import { toSql, type SqlFilter } from "../../sql/index.js";
import { decodeRow, type SearchDocuments } from "../state/postgres/rows.js";
import type { PostgresStore } from "../state/postgres/store.js";
import { namespacedKey, type Rows, type Store, type TableName } from "../state/store.js";
import { aclTokensEndpoint, deploymentsEndpoint, jobsEndpoint, type ListEndpoint } from "./endpoints.js";
import { ALL_NAMESPACES } from "./query.js";

/** The order of a list's rows, as the columns of the rows table. */
export type SqlOrder = "namespace" | "creation" | "id";

/** How a list endpoint's rows are found in the database (see `ListEndpoint.sql`). */
export interface SqlListing {
  /** The table the rows are of. */
  readonly table: TableName;
  /** The rows' order for a request with `prefix`. */
  order(prefix: string): SqlOrder;
  /** The ID prefix as the rows' IDs start with it (a UUID prefix checked and lower-cased; a 400 when malformed). */
  idPrefix(prefix: string): string;
  /** Whether the rows are in namespaces (`?namespace` selects them). */
  readonly namespaced: boolean;
  /** Whether a row's item and document need its job's summary. */
  readonly summaries?: boolean;
}

/**
 * The search documents of the listed tables: what each list's filter sees of a row, kept in jsonb
 * beside the row for the pushed-down filters (a job's holds its summary, and follows it).
 */
export const SEARCH_DOCUMENTS: SearchDocuments = {
  jobs: {
    document: (job, tables) => jobsEndpoint.filterTarget(job, { tables } as Store),
    follows: { table: "job_summary", key: (summary: Rows["job_summary"]) => namespacedKey(summary.Namespace, summary.JobID) },
  },
  deployment: { document: (deployment) => deploymentsEndpoint.filterTarget(deployment, undefined as never) },
  acl_token: { document: (token) => aclTokensEndpoint.filterTarget(token, undefined as never) },
};

/** The rows read per query when the page has to look past rows dropped by the caller's rights or the re-check. */
const BATCH_ROWS = 256;

/** The columns of each order, and the token each order's rows have, as SQL over the rows table `r`. */
const ORDERS: { readonly [Order in SqlOrder]: { readonly columns: readonly string[]; readonly token: string } } = {
  namespace: { columns: ["ns", "id"], token: `r.ns || '.' || r.id` },
  creation: { columns: ["create_index", "id"], token: `r.create_index::text || '.' || r.id` },
  id: { columns: ["id"], token: "r.id" },
};

/** The translation of each compiled filter (over `r.document`, its placeholders first), made once. */
const translations = new WeakMap<Filter, SqlFilter>();

function translation(filter: Filter, schema: ListEndpoint<unknown>["schema"]): SqlFilter {
  let translated = translations.get(filter);
  if (translated === undefined) {
    const { sql, params, exact } = toSql(filter, { column: "document", schema });
    // Keys and literals are all parameters: the quoted column is the only identifier in the SQL.
    translated = { sql: sql.replaceAll('"document"', "r.document"), params, exact };
    translations.set(filter, translated);
  }
  return translated;
}

/** One list request, as the pipeline has read it. */
export interface SqlPageRequest<Row> {
  readonly namespace: string;
  readonly prefix: string;
  readonly perPage: number;
  readonly nextToken: string;
  readonly reverse: boolean;
  readonly filter: Filter | undefined;
  readonly budget: CostBudget;
  readonly permitted: (row: Row) => boolean;
}

/** A page read from the database: its rows, the state their items are made from, the next token, the index, and how many rows the filter saw. */
export interface SqlPage<Row> {
  readonly index: number;
  readonly rows: readonly Row[];
  /** The state the items are made from: the summaries of the page's jobs. */
  readonly view: Store;
  readonly nextToken: string;
  readonly evaluated: number;
}

/** The `<CreateIndex>.<ID>` token's parts when the reference parses it as an index (as `endpoints.ts` does). */
function creationToken(nextToken: string): [string, string] | undefined {
  const dot = nextToken.indexOf(".");
  if (dot === -1 || !/^[+-]?[0-9]+$/.test(nextToken.slice(0, dot))) return undefined;
  const index = Number(nextToken.slice(0, dot));
  return Number.isSafeInteger(index) ? [String(index), nextToken.slice(dot + 1)] : undefined;
}

/** Reads one page of `endpoint` from the database, in one snapshot. */
export async function sqlPage<Row>(store: PostgresStore, endpoint: ListEndpoint<Row>, listing: SqlListing, request: SqlPageRequest<Row>): Promise<SqlPage<Row>> {
  const s = store.sqlSchema;
  const order = listing.order(request.prefix);
  const { columns, token } = ORDERS[order];
  const idPrefix = listing.idPrefix(request.prefix);
  const translated = request.filter === undefined ? undefined : translation(request.filter, endpoint.schema);
  const recheck = translated?.exact === false;
  const direction = request.reverse ? "DESC" : "ASC";
  const after = request.reverse ? "<" : ">";
  const orderBy = columns.map((column) => `r.${column} ${direction}`).join(", ");
  const keys = `(${columns.map((column) => `r.${column}`).join(", ")})`;
  const typed = (column: string, placeholder: string) => (column === "create_index" ? `${placeholder}::bigint` : placeholder);

  /** A statement's parameters: the filter's first (its placeholders are $1…$n), then the statement's own. */
  const parameters = () => {
    const values: unknown[] = [...(translated?.params ?? [])];
    return { values, add: (value: unknown) => `$${values.push(value)}` };
  };
  type Parameters = ReturnType<typeof parameters>;
  /** The rows of the list, before paging: table, namespace, prefix (the filter apart). */
  const base = (params: Parameters): string => {
    const conditions = [`r.tbl = '${listing.table}'`, "r.doc IS NOT NULL"];
    if (listing.namespaced && request.namespace !== ALL_NAMESPACES) conditions.push(`r.ns = ${params.add(request.namespace)}`);
    if (idPrefix !== "") conditions.push(`starts_with(r.id, ${params.add(idPrefix)})`);
    return conditions.join(" AND ");
  };
  /** Where the page starts: the first row, in order, whose token is not before the next token (not after it, in reverse). */
  const start = (params: Parameters): string => {
    const { nextToken } = request;
    if (nextToken === "") return "";
    if (order === "id") return ` AND r.id ${after}= ${params.add(nextToken)}`;
    const creation = order === "creation" ? creationToken(nextToken) : undefined;
    if (creation !== undefined) return ` AND ${keys} ${after}= (${params.add(creation[0])}::bigint, ${params.add(creation[1])})`;
    // Tokens that do not grow with the order (jobs across namespaces, a token compared as text): the database finds the first such row.
    const first = `SELECT ${columns.map((column) => `r.${column}`).join(", ")} FROM ${s}.rows AS r WHERE ${base(params)} AND ${token} ${after}= ${params.add(nextToken)} ORDER BY ${orderBy} LIMIT 1`;
    return ` AND ${keys} ${after}= (${first})`;
  };
  const summary = listing.summaries === true ? `, (SELECT sm.doc FROM ${s}.rows AS sm WHERE sm.tbl = 'job_summary' AND sm.key = r.key) AS summary` : "";

  return store.database.transaction(async (session) => {
    await session.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
    // The index, and whether any row of the list has no document (rare: see MAX_DOCUMENT_DEPTH); only
    // then does the filter need its `document IS NULL OR`, which would keep PostgreSQL off the GIN index.
    const [indexRow] = await session.query(
      `SELECT coalesce(max(index), 1)::text AS index,
         (EXISTS (SELECT 1 FROM ${s}.rows WHERE tbl = '${listing.table}' AND doc IS NOT NULL AND document IS NULL))::text AS undocumented
       FROM ${s}.table_index WHERE tbl = ANY($1::text[])`,
      [[...endpoint.tables]],
    );
    const index = Number(indexRow!.index);
    const filterCondition = translated === undefined ? "" : indexRow!.undocumented === "true" ? ` AND (r.document IS NULL OR (${translated.sql}))` : ` AND (${translated.sql})`;
    const page: Row[] = [];
    const summaries = new Map<string, Rows["job_summary"]>();
    const view = viewOf(summaries);
    let evaluated = 0;
    let nextToken = "";
    let last: readonly string[] | undefined;
    for (;;) {
      // The page and the row after it; past rows the caller's rights or the re-check drop, a batch at a time.
      const wanted = request.perPage > 0 ? request.perPage + 1 - page.length : 0;
      const limit = wanted === 0 ? 0 : last === undefined ? wanted : Math.max(wanted, BATCH_ROWS);
      const params = parameters();
      const from = last === undefined ? start(params) : ` AND ${keys} ${after} (${last.map((value, i) => typed(columns[i]!, params.add(value))).join(", ")})`;
      // A row whose document jsonb cannot hold has none: every filter selects it, for the re-check.
      const where = `${base(params)}${filterCondition}${from}`;
      const rows = await session.query(
        `SELECT r.doc, (r.document IS NULL)::text AS undocumented, ${columns.map((column) => `r.${column}::text AS ${column}`).join(", ")}${summary} FROM ${s}.rows AS r WHERE ${where} ORDER BY ${orderBy}${limit === 0 ? "" : ` LIMIT ${limit}`}`,
        params.values,
      );
      for (const stored of rows) {
        const row = decodeRow(listing.table, stored.doc!) as Row;
        if (typeof stored.summary === "string") {
          const job = row as unknown as Rows["jobs"];
          summaries.set(namespacedKey(job.Namespace, job.ID), decodeRow("job_summary", stored.summary));
        }
        if (!request.permitted(row)) continue;
        if (translated !== undefined && (recheck || stored.undocumented === "true")) {
          evaluated++;
          if (!request.filter!.test(endpoint.filterTarget(row, view), request.budget)) continue;
        }
        if (request.perPage > 0 && page.length === request.perPage) {
          nextToken = endpoint.token(row, request.prefix);
          break;
        }
        page.push(row);
      }
      if (nextToken !== "" || limit === 0 || rows.length < limit) return { index, rows: page, view, nextToken, evaluated };
      last = columns.map((column) => rows[rows.length - 1]![column]!);
    }
  });
}

/** A view of the state that holds the summaries read with a page (what job items and documents are made of). */
function viewOf(summaries: ReadonlyMap<string, Rows["job_summary"]>): Store {
  return { tables: { job_summary: { get: (key: string) => summaries.get(key) } } } as unknown as Store;
}
