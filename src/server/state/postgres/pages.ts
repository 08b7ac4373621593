/**
 * Pages read from PostgreSQL, for the consistent reads of agents that share their state there (the
 * PostgreSQL store's {@link Store.page}): the rows are found by keyset pagination on the list's
 * order, in batches, in one snapshot, and offered to the one paginator (`../page.ts`), which cuts
 * the page as it cuts pages in memory. The filter is pushed down with `bexpr/sql` (typed mode, the
 * list's schema) over the rows' search documents. What a list is (its keyset, token, filter
 * target) comes with the request: this module knows the rows table, not the lists.
 *
 * - the page starts at the first row, in the list's order, whose token is not before `next_token`
 *   (in reverse, not after it): a keyset bound where the tokens grow with the order, the first such
 *   row found by the database otherwise;
 * - a row the database decided the filter for exactly is offered as decided; every other row (the
 *   translation not `exact`, or the row without a document) is checked again by the paginator
 *   with the compiled filter, which also raises the reference's evaluation errors, in the list's order;
 * - the rows are read in batches in one snapshot (`REPEATABLE READ`), with the index of the list's
 *   tables and the summaries their items need, until the paginator has the page and the row after it.
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
import { clauseCost } from "../../../evaluator/cost.js";
import type { ObjectSchema } from "../../../evaluator/schema.js";
import { toSql, type SqlFilter } from "../../../sql/index.js";
import { creationToken, PageCut } from "../page.js";
import { ALL_NAMESPACES, type Keyset, type ListOrder, type ListPage, type ListPageRequest, type Listing, type Rows, type StateView, type StoreBusyError, type Tables } from "../store.js";
import { STATEMENT_TIMEOUT_MS, type Database, type TextRow } from "./database.js";
import { decodeRow } from "./rows.js";

/** The rows read per query when the page has to look past rows dropped by the caller's rights or the re-check. */
const BATCH_ROWS = 256;

/** The columns of each order, and the token each order's rows have, as SQL over the rows table `r`. */
const ORDERS: { readonly [Order in ListOrder]: { readonly columns: readonly string[]; readonly token: string } } = {
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

/**
 * Reads one page of a list from the database, in one snapshot, with its filter pushed down
 * when it is within the bounds, and decided by the agent when not, or when the server gives up
 * on it. `keyset` is the listing's; `copy` is the agent's copy of the state, where the rows the
 * items need and the page does not read are looked up.
 *
 * @throws DatabaseBusyError (a {@link StoreBusyError}) when no connection for list pages came free in time.
 */
export async function sqlPage<Row>(database: Database, schemaName: string, copy: AgentCopy, listing: Listing<Row>, keyset: Keyset, request: ListPageRequest<Row>): Promise<ListPage<Row>> {
  const translated = request.filter === undefined ? undefined : pushedDown(request.filter, request.schema);
  try {
    return await readPage(database, schemaName, copy, listing, keyset, request, translated);
  } catch (error) {
    if (translated === undefined || !isTooCostly(error)) throw error;
    return await readPage(database, schemaName, copy, listing, keyset, request, undefined);
  }
}

/** Reads one page, with `translated` as the SQL of its filter (undefined: the agent decides the filter, if any). */
async function readPage<Row>(
  database: Database,
  s: string,
  copy: AgentCopy,
  listing: Listing<Row>,
  keyset: Keyset,
  request: ListPageRequest<Row>,
  translated: SqlFilter | undefined,
): Promise<ListPage<Row>> {
  const { prefix } = request;
  const order = keyset.order(prefix);
  const { columns, token } = ORDERS[order];
  const idPrefix = keyset.idPrefix(prefix);
  const namespace = request.namespace === ALL_NAMESPACES ? undefined : request.namespace;
  // Rows the database decided the filter for exactly are offered as decided; the others are checked again.
  const exact = translated?.exact === true;
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
    const conditions = [`r.tbl = '${keyset.table}'`, "r.doc IS NOT NULL"];
    if (keyset.namespaced && namespace !== undefined) conditions.push(`r.ns = ${params.add(namespace)}`);
    if (idPrefix !== "") conditions.push(`starts_with(r.id, ${params.add(idPrefix)})`);
    return conditions.join(" AND ");
  };
  /** Where the page starts: the first row, in order, whose token is not before the next token (not after it, in reverse). */
  const start = (params: Parameters): string => {
    const { nextToken } = request;
    if (nextToken === "") return "";
    if (order === "id") return ` AND r.id ${after}= ${params.add(nextToken)}`;
    const creation = order === "creation" ? creationToken(nextToken) : undefined;
    if (creation !== undefined) return ` AND ${keys} ${after}= (${params.add(String(creation.index))}::bigint, ${params.add(creation.id)})`;
    // Tokens that do not grow with the order (jobs across namespaces, a token compared as text): the database finds the first such row.
    const first = `SELECT ${columns.map((column) => `r.${column}`).join(", ")} FROM ${s}.rows AS r WHERE ${base(params)} AND ${token} ${after}= ${params.add(nextToken)} ORDER BY ${orderBy} LIMIT 1`;
    return ` AND ${keys} ${after}= (${first})`;
  };
  /**
   * The snapshot's figures, as text: the list's index (the last index of its tables, `tables` the
   * placeholder of their names), the state's index, and whether any row of the list has no
   * document (rare: see MAX_DOCUMENT_DEPTH).
   */
  const snapshotColumns = (tables: string) =>
    `(SELECT coalesce(max(ti.index), 1)::text FROM ${s}.table_index AS ti WHERE ti.tbl = ANY(${tables}::text[])) AS list_index, (SELECT st.index::text FROM ${s}.state AS st) AS state_index, ` +
    `(EXISTS (SELECT 1 FROM ${s}.rows AS u WHERE u.tbl = '${keyset.table}' AND u.doc IS NOT NULL AND u.document IS NULL))::text AS list_undocumented`;
  /** A stored row's text, unless the snapshot's index is `copyIndex` (then the agent's copy holds the row, and takes its own). */
  const textUnlessAt = (column: string, copyIndex: string) => `CASE WHEN (SELECT st.index FROM ${s}.state AS st) = ${copyIndex}::bigint THEN NULL ELSE ${column} END`;
  const summary = (copyIndex: string) => (keyset.summaries === true ? `, ${textUnlessAt(`(SELECT sm.doc FROM ${s}.rows AS sm WHERE sm.tbl = 'job_summary' AND sm.key = r.key)`, copyIndex)} AS summary` : "");

  // Without a filter pushed down the statements are the agent's own (batches of rows in order):
  // the timeout of the agent's statements, not the one that stops a client's filter.
  return database.listTransaction(async (session) => {
    /** The snapshot's list index and state index, and whether the list has undocumented rows: read with the first batch. */
    let snapshot: { readonly index: number; readonly stateIndex: number; readonly undocumented: boolean } | undefined;
    // Rows without a document need `document IS NULL OR` before the filter, which would keep PostgreSQL off the GIN index:
    // the first batch is read without it, and again with it in the rare snapshot that has such rows.
    let withUndocumented = false;
    const summaries = new Map<string, Rows["job_summary"]>();
    const view = pageView(copy.tables, summaries);
    const { filterTarget } = request;
    const cut = new PageCut(request, { permitted: request.permitted, filterTarget: (row: Row) => filterTarget(row, view), token: (row: Row) => listing.token(row, prefix) });
    let last: readonly string[] | undefined;
    /**
     * One batch: its rows, each with its text unless the agent's copy is at the snapshot's index
     * (`withText` asks for the text whatever the copy's index).
     */
    const readBatch = async (limit: number, withText: boolean): Promise<TextRow[]> => {
      const params = parameters();
      const filterCondition = translated === undefined ? "" : withUndocumented ? ` AND (r.document IS NULL OR (${translated.sql}))` : ` AND (${translated.sql})`;
      const from = last === undefined ? start(params) : ` AND ${keys} ${after} (${last.map((value, i) => typed(columns[i]!, params.add(value))).join(", ")})`;
      // A row whose document jsonb cannot hold has none: every filter selects it, for the re-check.
      const where = `${base(params)}${filterCondition}${from}`;
      const copyIndex = params.add(withText ? "-1" : String(copy.index));
      const info = snapshot === undefined ? `, ${snapshotColumns(params.add([...listing.tables]))}` : "";
      return session.query(
        `SELECT r.key, ${textUnlessAt("r.doc", copyIndex)} AS doc, (r.document IS NULL)::text AS undocumented, ${columns.map((column) => `r.${column}::text AS ${column}`).join(", ")}${summary(copyIndex)}${info} ` +
          `FROM ${s}.rows AS r${translated === undefined ? "" : ` ${DOCUMENT}`} WHERE ${where} ORDER BY ${orderBy}${limit === 0 ? "" : ` LIMIT ${limit}`}`,
        params.values,
      );
    };
    for (;;) {
      // The page and the row after it; past rows the caller's rights or the re-check drop, a batch at a time.
      const { wanted } = cut;
      const limit = wanted === Infinity ? 0 : last === undefined ? wanted : Math.max(wanted, BATCH_ROWS);
      const sentAt = copy.index;
      let rows = await readBatch(limit, false);
      if (snapshot === undefined) {
        // An empty first batch brings no snapshot figures: they are read on their own.
        const [first] = rows.length > 0 ? rows : await session.query(`SELECT ${snapshotColumns("$1")}`, [[...listing.tables]]);
        snapshot = { index: Number(first!.list_index), stateIndex: Number(first!.state_index), undocumented: first!.list_undocumented === "true" };
        if (snapshot.undocumented && translated !== undefined) {
          withUndocumented = true;
          rows = await readBatch(limit, false);
        }
      }
      const { index, stateIndex } = snapshot;
      // The rows came without their text when the copy was at the snapshot's index as the batch was
      // sent; its catch-up runs on its own turns, and may have moved it meanwhile: then they are read again, with it.
      if (sentAt === stateIndex && copy.index !== stateIndex) rows = await readBatch(limit, true);
      // A copy at the snapshot's index holds every row of it as the snapshot does: its own objects
      // are taken (no decoding, and the items and filter targets made for them are found again).
      for (const stored of rows) {
        const key = JSON.parse(stored.key!) as string;
        const fromCopy = stored.doc === null;
        const row = (fromCopy ? copy.tables[keyset.table].get(key) : decodeRow(keyset.table, stored.doc!)) as Row;
        // A job without a summary has none, in the copy as in the snapshot.
        const summary = keyset.summaries !== true ? undefined : fromCopy ? copy.tables.job_summary.get(key) : typeof stored.summary === "string" ? decodeRow("job_summary", stored.summary) : undefined;
        if (summary !== undefined) summaries.set(key, summary);
        if (cut.offer(row, exact && stored.undocumented !== "true")) return { ...cut.page(), index, view };
      }
      if (limit === 0 || rows.length < limit) return { ...cut.page(), index, view };
      last = columns.map((column) => rows[rows.length - 1]![column]!);
    }
  }, translated === undefined ? STATEMENT_TIMEOUT_MS : undefined);
}

/** The agent's copy of the state, which a page takes its rows from when it is at the page's index. */
export interface AgentCopy {
  readonly tables: Tables;
  readonly index: number;
}

/**
 * The state a page's items and filter targets are made from: the summaries read with the page,
 * in its snapshot (a job without one has none), and the agent's copy for the other tables.
 */
function pageView(copy: Tables, summaries: ReadonlyMap<string, Rows["job_summary"]>): StateView {
  return { tables: { ...copy, job_summary: { get: (key: string) => summaries.get(key) } } };
}
