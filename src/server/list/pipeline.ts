/**
 * The one list pipeline, for every list endpoint (declared as data in `endpoints.ts`): region →
 * token → namespaces → filter → blocking → page → items. It knows nothing of HTTP: it takes the
 * request's options and a signal that fires when the client goes away, and answers with the body's
 * bytes, the index and the next token, or throws a refusal. The page is the store's
 * ({@link Store.page}): whatever keeps the rows, the one paginator cuts it; the pipeline knows no
 * store but the interface.
 *
 * Answers are cached whole per (the list's index, the ACL's index, the token, the request) while
 * those indexes do not move: the blocking queries one write wakes, and clients polling the same
 * page, are answered from one computation and the same bytes.
 *
 * @module
 */
import { promisify } from "node:util";
import { gzip, gzipSync } from "node:zlib";
import { selectorRoots } from "../../ast-walk.js";
import { FilterEvaluationError } from "../../errors.js";
import type { Filter } from "../../evaluator/compile.js";
import { CostBudget } from "../../evaluator/cost.js";
import { stringifyJson } from "../../json.js";
import { ACL_TABLES, type AccessControl, type Caller } from "../domain/acl.js";
import { busy, checkRegion, invalid } from "../base/errors.js";
import { METRICS, type Metrics } from "../metrics/index.js";
import { StoreBusyError, type ListPage, type StateView, type Store, type TableName } from "../state/store.js";
import { blockingQuery, type BlockingRequestWith } from "./blocking.js";
import type { BoundedCache } from "./bounded-cache.js";
import type { ListEndpoint } from "./endpoints.js";
import type { FilterCache } from "./filter-cache.js";
import { jsonArrayBytes } from "./json-array.js";
import type { QueryOptions } from "./query.js";

/** What the pipeline needs of the agent. */
export interface ListContext {
  readonly store: Store;
  readonly acl: AccessControl;
  readonly metrics: Metrics;
  /** The agent's region: the only one it answers for. */
  readonly region: string;
  /** The cost budget of one request's filtering. */
  readonly filterCostPerRequest: number;
  readonly filters: FilterCache;
  /** The answers at the current indexes (see `AgentLimits.responseCacheBytes`). */
  readonly answers: BoundedCache<ListAnswer>;
  /**
   * Whether other agents share this agent's state: consistent reads then see their writes through
   * the store (`Store.page`), and answers carry the leader's headers, so the lane of repeated
   * requests answers none.
   */
  readonly shared: boolean;
  /** The answers being read by the store elsewhere (a database), by answer key (see {@link answerKey}): requests of the same key meanwhile share one. */
  readonly computing: Map<string, Promise<ListAnswer>>;
}

/** One list request: its parsed options, its query string (for the endpoint's own parameters), and when its client leaves. */
export interface ListRequest {
  readonly options: QueryOptions;
  readonly query: URLSearchParams;
  readonly signal: AbortSignal;
}

/** A list's answer at one index of its tables: its body (compact or pretty, as asked), its next token. */
export interface ListAnswer {
  readonly index: number;
  readonly nextToken: string;
  readonly body: Buffer;
  /** The body gzipped, made for the first client that asks for it (see {@link gzipOf}). */
  gzip?: Buffer;
  /** The gzip being made on the thread pool, for the clients that ask meanwhile. */
  gzipping?: Promise<Buffer>;
}

/** An answer's gzip is kept when at most 1/GZIP_SHARE of its body (JSON lists compress to about a twentieth). */
export const GZIP_SHARE = 4;

/**
 * Bodies from this size on are gzipped on libuv's thread pool rather than on the event loop: the
 * whole list of 10,000 jobs (6 MB) takes tens of milliseconds to compress, during which the agent
 * would answer nothing else.
 */
export const ASYNC_GZIP_BYTES = 64 * 1024;

const gzipAsync = promisify(gzip);

/** Keeps `gzipped` with the answer when it is at most 1/{@link GZIP_SHARE} of the body (so the answer cache's bound holds). */
function keepGzip(answer: ListAnswer, gzipped: Buffer): Buffer {
  if (gzipped.length <= answer.body.length / GZIP_SHARE) answer.gzip = gzipped;
  return gzipped;
}

/**
 * The gzip of an answer's body when it can be had at once: kept with the answer, or made now for
 * a body below {@link ASYNC_GZIP_BYTES}; undefined for a large body not compressed yet.
 */
export function gzipReady(answer: ListAnswer): Buffer | undefined {
  if (answer.gzip !== undefined) return answer.gzip;
  return answer.body.length < ASYNC_GZIP_BYTES ? keepGzip(answer, gzipSync(answer.body)) : undefined;
}

/**
 * The gzip of an answer's body (see {@link gzipReady}). Large bodies are compressed off the event
 * loop, once for all the clients that ask meanwhile.
 */
export async function gzipOf(answer: ListAnswer): Promise<Buffer> {
  const ready = gzipReady(answer);
  if (ready !== undefined) return ready;
  answer.gzipping ??= gzipAsync(answer.body)
    .then((gzipped) => keepGzip(answer, gzipped))
    .finally(() => delete answer.gzipping);
  return answer.gzipping;
}


/**
 * The answer cache's key of a request at the current state: the index of the list's tables, the
 * index of the ACL tables, and the request (see {@link runList}). The same key is the same bytes.
 */
export function answerKey(store: Store, endpoint: Pick<ListEndpoint<unknown>, "tables">, requestKey: string): string {
  return answerKeyAt(store.tableIndex(...endpoint.tables), aclIndex(store), requestKey);
}

/** The index of the ACL tables, the second part of {@link answerKey}. */
export function aclIndex(store: Store): number {
  return store.tableIndex(...ACL_TABLES);
}

/**
 * {@link answerKey} from its parts: the index of the list's tables, that of the ACL tables, and
 * the request's part (for a caller that keeps the key while the indexes stand still).
 */
export function answerKeyAt(listIndex: number, aclTablesIndex: number, requestKey: string): string {
  return `${listIndex} ${aclTablesIndex} ${requestKey}`;
}

/** What {@link runList} answers: the answer, and what a cache of requests needs to find it again. */
export interface Listed {
  readonly answer: ListAnswer;
  /** The request's part of the answer's key (see {@link answerKey}). */
  readonly requestKey: string;
  /** When the request's token expires (epoch milliseconds; Infinity when it does not). */
  readonly expiresAt: number;
}

/**
 * A read as the request's blocking query (`?index`, `?wait`): it wakes on writes to `tables`,
 * stops when the client goes away, and is counted by the agent's metrics.
 *
 * Each run of the query is given the request's caller, authenticated afresh: a blocking query
 * wakes when a token or policy changes and when its token expires (`expiresAt`, epoch
 * milliseconds, Infinity when it does not), and a token deleted, expired or stripped of its rights
 * while the query waited gets `403`, not the data written meanwhile.
 */
export function blockingRequest(
  context: Pick<ListContext, "store" | "acl" | "metrics">,
  tables: readonly TableName[],
  options: Pick<QueryOptions, "minQueryIndex" | "maxQueryTime" | "token">,
  signal: AbortSignal,
  expiresAt: number,
): BlockingRequestWith<Caller> {
  const { acl } = context;
  return {
    store: context.store,
    tables: acl.enabled ? [...tables, ...ACL_TABLES] : tables,
    minIndex: options.minQueryIndex,
    waitMs: options.maxQueryTime,
    signal,
    observer: context.metrics,
    ...(Number.isFinite(expiresAt) ? { atExpiry: (wake: () => void) => acl.atExpiry(expiresAt, wake) } : {}),
    input: () => acl.authenticate(options.token),
  };
}

/** Runs `query` as the request's blocking query (see {@link blockingRequest}), given the caller on every run. */
export function blockingRead<A extends { readonly index: number }>(
  context: Pick<ListContext, "store" | "acl" | "metrics">,
  tables: readonly TableName[],
  options: Pick<QueryOptions, "minQueryIndex" | "maxQueryTime" | "token">,
  signal: AbortSignal,
  expiresAt: number,
  query: (caller: Caller) => A | Promise<A>,
): Promise<A> {
  return blockingQuery(blockingRequest(context, tables, options, signal, expiresAt), query);
}

/** When a caller's token expires, for a blocking query to wake then (epoch milliseconds; Infinity when it does not, or ACLs are off). */
export function expiryOf(acl: AccessControl, caller: Caller): number {
  const expires = acl.enabled ? caller.token?.ExpirationTime : undefined;
  return typeof expires === "string" ? Date.parse(expires) : Infinity;
}

/** The reference's wording first (clients match on it), then where in the filter it happened. */
function describeEvaluationError(error: FilterEvaluationError): string {
  return [error.reason, ...error.message.split("\n").slice(1)].join("\n");
}

/** The root fields each compiled filter may read. */
const filterRoots = new WeakMap<Filter, ReadonlySet<string>>();

/** Whether `filter` may read any of the root `fields`. */
function readsAny(filter: Filter, fields: ReadonlySet<string>): boolean {
  let roots = filterRoots.get(filter);
  if (roots === undefined) filterRoots.set(filter, (roots = selectorRoots(filter.expression)));
  for (const root of roots) if (fields.has(root)) return true;
  return false;
}

/** What a filter is evaluated on for an endpoint: its target, or the row itself when the filter reads nothing in which they differ. */
export function targetFor<Row>(endpoint: ListEndpoint<Row>, filter: Filter | undefined): (row: Row, view: StateView) => unknown {
  const { targetOnlyFields } = endpoint;
  if (filter !== undefined && targetOnlyFields !== undefined && !readsAny(filter, targetOnlyFields)) return (row) => row;
  return endpoint.filterTarget.bind(endpoint);
}

/** Runs the pipeline for one request. */
export async function runList<Row>(context: ListContext, endpoint: ListEndpoint<Row>, request: ListRequest): Promise<Listed> {
  const { store, acl, metrics, filters, answers, computing } = context;
  const { options, query, signal } = request;
  if (endpoint.needsAcl === true) acl.requireEnabled();
  const ownOptions = endpoint.itemOptions(query);
  checkRegion(options.region, context.region);
  // Refused before the filter is read; checked again by every run of the query below.
  const caller = acl.authenticate(options.token);
  // The token is part of the answer's key: its items may show what only management sees.
  const itemOptions = caller.management ? { ...ownOptions, management: true } : ownOptions;
  endpoint.access(caller, options.namespace);
  const expiresAt = expiryOf(acl, caller);
  // Without a paginator (no schema), the reference ignores filter, per_page, next_token and reverse.
  const { schema } = endpoint;
  // Lists without a reverse order (the reference's node list) ignore `reverse`.
  const paging = schema === undefined ? { perPage: 0, nextToken: "", reverse: false, filter: "" } : { ...options, reverse: options.reverse && endpoint.reversible !== false };
  // The endpoint's own filtering parameters (the evaluation list's `job` and `status`), with the caller's rights before paging.
  const selected = endpoint.select?.(itemOptions);
  if (paging.filter !== "" && endpoint.filterWithSelections !== true && ((options.prefix !== "" && endpoint.prefixIsName !== true) || selected !== undefined)) throw invalid("Filter expression cannot be used with other filter parameters");
  const filter = paging.filter === "" || schema === undefined ? undefined : filters.get(paging.filter, { name: endpoint.name, schema });
  const filterTarget = targetFor(endpoint, filter);
  // The answer depends on the data, the caller's rights (the ACL tables' index and the token)
  // and the request: the same key at the same indexes is the same bytes.
  const { pretty } = options;
  const requestKey = JSON.stringify([endpoint.name, options.token, options.namespace, options.prefix, paging.filter, paging.perPage, paging.nextToken, paging.reverse, itemOptions, pretty]);
  const labels = { endpoint: endpoint.name };

  let source: "computed" | "cache" = "computed";
  const answer = await blockingQuery(blockingRequest(context, endpoint.tables, options, signal, expiresAt), (caller: Caller): ListAnswer | Promise<ListAnswer> => {
    const access = endpoint.access(caller, options.namespace);
    const permitted = selected === undefined ? access : (row: Row) => access(row) && selected(row);
    const key = answerKey(store, endpoint, requestKey);
    // A page being read elsewhere is shared by the requests of its key meanwhile (the blocking
    // queries one write wakes), a `?stale` one only with others: it need not wait for a database.
    const readKey = options.allowStale ? `stale ${key}` : key;
    const known = answers.get(key) ?? computing.get(readKey);
    source = known === undefined ? "computed" : "cache";
    if (known !== undefined) return known;
    const keep = (page: ListPage<Row>): ListAnswer => {
      const answer = listAnswer(page);
      answers.set(key, answer, answer.body.length + Math.ceil(answer.body.length / GZIP_SHARE) + key.length);
      return answer;
    };
    const request = {
      perPage: paging.perPage,
      nextToken: paging.nextToken,
      reverse: paging.reverse,
      namespace: options.namespace,
      prefix: options.prefix,
      filter,
      // One request's filtering is bounded, whatever the rows: each run of the query has a budget.
      budget: new CostBudget(context.filterCostPerRequest),
      schema,
      permitted,
      filterTarget,
      stale: options.allowStale,
    };
    let page: ListPage<Row> | Promise<ListPage<Row>>;
    try {
      page = store.page(endpoint, request);
    } catch (error) {
      return refuse(error);
    }
    if (!(page instanceof Promise)) return keep(page);
    const computed = page.then(keep, refuse).finally(() => computing.delete(readKey));
    computing.set(readKey, computed);
    return computed;
  });
  function listAnswer(page: ListPage<Row>): ListAnswer {
    const { rows, view } = page;
    if (filter !== undefined) metrics.counter(METRICS.filterEvaluations, labels, page.evaluated);
    // Compact lists are the JSON of their items, each written once per version of its row, put
    // together outside V8's heap.
    const body = pretty
      ? Buffer.from(
          stringifyJson(
            rows.map((row) => endpoint.item(row, view, itemOptions)),
            true,
          ),
        )
      : jsonArrayBytes(rows.map((row) => endpoint.itemJson(row, view, itemOptions)));
    return { index: page.index, nextToken: page.nextToken, body };
  }
  /** A filter's evaluation error is the reference's 400; a store that cannot read the page now is busy (the client may retry). */
  function refuse(error: unknown): never {
    if (error instanceof FilterEvaluationError) {
      metrics.counter(METRICS.filterEvaluationErrors, labels);
      throw invalid(`failed to read result page: ${describeEvaluationError(error)}`);
    }
    if (error instanceof StoreBusyError) throw busy(`The database is busy: ${error.message}; retry later`);
    throw error;
  }
  metrics.counter(METRICS.listAnswers, { endpoint: endpoint.name, source });
  return { answer, requestKey, expiresAt };
}
