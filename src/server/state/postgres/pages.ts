/**
 * Pages cut by PostgreSQL, for the consistent reads of agents that share their state there (the
 * store's side of the list pipeline: `PostgresStore.page`): the filter is pushed down with
 * `bexpr/sql` (typed mode, the list's schema) over the rows' search documents, and the page is
 * found by keyset pagination on the list's order, as `list/page.ts` cuts it in memory. What a
 * list is (its table, order, token, filter target) comes with the request: this module knows the
 * rows table, not the lists.
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
 * A filter comes from a client, and PostgreSQL's time per row grows with its clauses (faster than
 * linearly: 100 clauses took 0.4 s on 2,000 jobs, 1,600 took 37 s, and from about 1,700 the
 * server refused the query). So a filter is pushed down only when it costs at most
 * {@link PUSHDOWN_MAX_COST} units and its SQL is at most {@link PUSHDOWN_MAX_SQL_BYTES}; otherwise,
 * or when the server cancels the page's statement (its `statement_timeout`) or refuses it as too
 * complex, the rows are read without it and the agent decides the filter, within the request's
 * cost budget, as the memory store does. A client's filter never makes a page fail.
 *
 * @module
 */
import { forEachClause } from "../../../ast-walk.js";
import type { Filter } from "../../../evaluator/compile.js";
import { clauseCost, type CostBudget } from "../../../evaluator/cost.js";
import type { ObjectSchema } from "../../../evaluator/schema.js";
import { toSql, type SqlFilter } from "../../../sql/index.js";
import { namespacedKey, type Rows, type Store, type TableName } from "../store.js";
import { STATEMENT_TIMEOUT_MS, type Database, type DatabaseBusyError } from "./database.js";
import { decodeRow } from "./rows.js";

/** The order of a list's rows, as the columns of the rows table. */
export type SqlOrder = "namespace" | "creation" | "id";

/** How a list's rows are found in the database (a list endpoint's `sql`, in `list/endpoints.ts`). */
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

/** The rows read per query when the page has to look past rows dropped by the caller's rights or the re-check. */
const BATCH_ROWS = 256;

/** The columns of each order, and the token each order's rows have, as SQL over the rows table `r`. */
const ORDERS: { readonly [Order in SqlOrder]: { readonly columns: readonly string[]; readonly token: string } } = {
  namespace: { columns: ["ns", "id"], token: `r.ns || '.' || r.id` },
  creation: { columns: ["create_index", "id"], token: `r.create_index::text || '.' || r.id` },
  id: { columns: ["id"], token: "r.id" },
};

/**
 * The most a filter may cost to be pushed down, in the engine's units: each clause's lookup and
 * comparison (1 + its selector's segments), the clauses of collection bodies counted once. 256
 * units is about 80 clauses of two-segment selectors, which PostgreSQL 15 runs on 2,000 jobs in
 * about 1.5 s at worst (an `or` of them, which no index narrows); the SQL of that many clauses
 * nests far below the depth at which the server refuses a query.
 */
export const PUSHDOWN_MAX_COST = 256;

/** The longest SQL of a pushed-down filter (its translation grows with its selectors and literals). */
export const PUSHDOWN_MAX_SQL_BYTES = 64 * 1024;

/**
 * The row's document as a pushed-down filter reads it: unpacked once per row. A document of a
 * kilobyte or more is stored compressed, and PostgreSQL unpacks the stored value again for every
 * `->` of the filter (several per clause): a copy made once (`||` returns a fresh, uncompressed
 * value; `OFFSET 0` keeps it from being folded back into the filter) made a 10-clause filter on
 * 2,000 jobs 7 times faster (337 → 49 ms), and a 100-clause one too (3.6 → 0.5 s).
 */
const DOCUMENT = `CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(r.document) = 'object' THEN r.document || '{}'::jsonb ELSE r.document END AS document OFFSET 0) AS d`;

/** The translation of each compiled filter (over `r.document` and `d.document`, its placeholders first), made once; null: not pushed down. */
const translations = new WeakMap<Filter, SqlFilter | null>();

/** A filter's cost as {@link PUSHDOWN_MAX_COST} counts it. */
export function pushdownCost(filter: Filter): number {
  let cost = 0;
  forEachClause(filter.expression, (clause) => (cost += clauseCost(clause)));
  return cost;
}

/** The filter's translation, or undefined when it is over the bounds: the agent decides it then. */
function pushedDown(filter: Filter, schema: ObjectSchema | undefined): SqlFilter | undefined {
  let translated = translations.get(filter);
  if (translated === undefined) {
    translated = null;
    // Measured before translating, so that no work grows with a filter over the bound.
    if (pushdownCost(filter) <= PUSHDOWN_MAX_COST) {
      const { sql, params, exact } = toSql(filter, { column: "document", schema });
      // Keys and literals are all parameters: the quoted column is the only identifier in the SQL.
      // The containments test the stored column, which the GIN index answers; the rest reads the
      // row's document as the page's query unpacks it once (see DOCUMENT).
      if (sql.length <= PUSHDOWN_MAX_SQL_BYTES) translated = { sql: sql.replaceAll('"document" @>', "r.document @>").replaceAll('"document"', "d.document"), params, exact };
    }
    translations.set(filter, translated);
  }
  return translated ?? undefined;
}

/**
 * The SQLSTATEs with which the server gives up on a statement because of what it asks: cancelled
 * by the `statement_timeout` (57014), out of memory or other resources (class 53), too complex or
 * over a limit (class 54), or too deeply nested for its parser (42601, "memory exhausted").
 */
function isTooCostly(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code === "57014" || code === "42601" || code.startsWith("53") || code.startsWith("54"));
}

/** One list request, as the pipeline has read it, with what the list is. */
export interface SqlPageRequest<Row> {
  /** The tables whose index is the list's. */
  readonly tables: readonly TableName[];
  /** The list's filter schema (typed mode). */
  readonly schema: ObjectSchema | undefined;
  /** The namespace of the rows; undefined: every namespace. */
  readonly namespace: string | undefined;
  readonly prefix: string;
  readonly perPage: number;
  readonly nextToken: string;
  readonly reverse: boolean;
  readonly filter: Filter | undefined;
  readonly budget: CostBudget;
  readonly permitted: (row: Row) => boolean;
  /** The row's `next_token`. */
  readonly token: (row: Row) => string;
  /** What the filter sees of the row, with `view` holding the summaries read with the page. */
  readonly filterTarget: (row: Row, view: Store) => unknown;
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

/** The `<CreateIndex>.<ID>` token's parts when the reference parses it as an index (as the lists' tokens are parsed, `list/endpoints.ts`). */
function creationToken(nextToken: string): [string, string] | undefined {
  const dot = nextToken.indexOf(".");
  if (dot === -1 || !/^[+-]?[0-9]+$/.test(nextToken.slice(0, dot))) return undefined;
  const index = Number(nextToken.slice(0, dot));
  return Number.isSafeInteger(index) ? [String(index), nextToken.slice(dot + 1)] : undefined;
}

/**
 * Reads one page of a list from the database, in one snapshot, with its filter pushed down
 * when it is within the bounds, and decided by the agent when not, or when the server gives up
 * on it.
 *
 * @throws {@link DatabaseBusyError} when no connection for list pages came free in time.
 */
export async function sqlPage<Row>(database: Database, schemaName: string, listing: SqlListing, request: SqlPageRequest<Row>): Promise<SqlPage<Row>> {
  const translated = request.filter === undefined ? undefined : pushedDown(request.filter, request.schema);
  try {
    return await readPage(database, schemaName, listing, request, translated);
  } catch (error) {
    if (translated === undefined || !isTooCostly(error)) throw error;
    return await readPage(database, schemaName, listing, request, undefined);
  }
}

/** Reads one page, with `translated` as the SQL of its filter (undefined: the agent decides the filter, if any). */
async function readPage<Row>(database: Database, s: string, listing: SqlListing, request: SqlPageRequest<Row>, translated: SqlFilter | undefined): Promise<SqlPage<Row>> {
  const order = listing.order(request.prefix);
  const { columns, token } = ORDERS[order];
  const idPrefix = listing.idPrefix(request.prefix);
  const recheck = request.filter !== undefined && (translated === undefined || !translated.exact);
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
    if (listing.namespaced && request.namespace !== undefined) conditions.push(`r.ns = ${params.add(request.namespace)}`);
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

  return database.listTransaction(async (session) => {
    await session.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
    // Without a filter pushed down the statements are the agent's own (batches of rows in order):
    // the timeout of the agent's statements, not the one that stops a client's filter.
    if (translated === undefined) await session.query(`SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
    // The index, and whether any row of the list has no document (rare: see MAX_DOCUMENT_DEPTH); only
    // then does the filter need its `document IS NULL OR`, which would keep PostgreSQL off the GIN index.
    const [indexRow] = await session.query(
      `SELECT coalesce(max(index), 1)::text AS index,
         (EXISTS (SELECT 1 FROM ${s}.rows WHERE tbl = '${listing.table}' AND doc IS NOT NULL AND document IS NULL))::text AS undocumented
       FROM ${s}.table_index WHERE tbl = ANY($1::text[])`,
      [[...request.tables]],
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
        `SELECT r.doc, (r.document IS NULL)::text AS undocumented, ${columns.map((column) => `r.${column}::text AS ${column}`).join(", ")}${summary} FROM ${s}.rows AS r${translated === undefined ? "" : ` ${DOCUMENT}`} WHERE ${where} ORDER BY ${orderBy}${limit === 0 ? "" : ` LIMIT ${limit}`}`,
        params.values,
      );
      for (const stored of rows) {
        const row = decodeRow(listing.table, stored.doc!) as Row;
        if (typeof stored.summary === "string") {
          const job = row as unknown as Rows["jobs"];
          summaries.set(namespacedKey(job.Namespace, job.ID), decodeRow("job_summary", stored.summary));
        }
        if (!request.permitted(row)) continue;
        if (request.filter !== undefined && (recheck || stored.undocumented === "true")) {
          evaluated++;
          if (!request.filter!.test(request.filterTarget(row, view), request.budget)) continue;
        }
        if (request.perPage > 0 && page.length === request.perPage) {
          nextToken = request.token(row);
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
