/**
 * `/v1/jobs`, `/v1/deployments` and `/v1/agent/members`.
 *
 * @module
 */
import { gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { FilterEvaluationError, FilterSyntaxError } from "../errors.js";
import { compileFilter } from "../filter.js";
import type { Filter } from "../evaluator/compile.js";
import { CostBudget } from "../evaluator/cost.js";
import { stringifyJson } from "../json.js";
import { namespaceAccess } from "./acl.js";
import { BoundedCache } from "./bounded-cache.js";
import { deploymentsEndpoint, jobsEndpoint, type ListEndpoint } from "./endpoints.js";
import { badRequest, HttpError, permissionDenied } from "./http-errors.js";
import { blockingRead, bodyText, byMethod, queryOf, wantsPretty, type Result, type RouteContext } from "./http.js";
import { membersResponse } from "./members.js";
import { METRICS, type Metrics } from "./metrics/index.js";
import { cutPage } from "./pagination.js";
import { parseQueryOptions } from "./query.js";
import { decodeRegisterRequest } from "./register.js";


/** The agent serves its own region only; others have no servers to forward to (as the reference, a 500). */
export function checkRegion(region: string, context: RouteContext): void {
  if (region !== context.settings.region) throw new HttpError(500, "No path to region");
}

/**
 * Compiled filters by endpoint and text, most recently used last, bounded by the memory they hold
 * (`Filter.memoryEstimate`), not by their number: a filter of a thousand large patterns weighs as
 * much as thousands of simple ones. A filter larger than the whole cache is compiled for each
 * request and never kept. Compilations are counted.
 */
export class FilterCache {
  readonly #entries: BoundedCache<Filter>;

  constructor(
    readonly metrics: Metrics,
    readonly maxBytes: number,
  ) {
    this.#entries = new BoundedCache(maxBytes);
    metrics.onCollect(() => this.#report());
  }

  #report(): void {
    this.metrics.gauge(METRICS.filterCacheBytes, this.#entries.bytes);
    this.metrics.gauge(METRICS.filterCacheEntries, this.#entries.size);
  }

  /** The memory the cached filters hold (estimated). */
  get bytes(): number {
    return this.#entries.bytes;
  }

  /** How many filters are cached. */
  get size(): number {
    return this.#entries.size;
  }

  get(source: string, endpoint: Pick<ListEndpoint<unknown>, "name" | "schema">): Filter {
    const key = `${endpoint.name}\u0000${source}`;
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    let filter: Filter;
    try {
      filter = compileFilter(source, { schema: endpoint.schema });
    } catch (error) {
      if (error instanceof FilterSyntaxError) {
        this.metrics.counter(METRICS.filterCompileErrors, { endpoint: endpoint.name });
        throw badRequest(`failed to create result paginator: failed to read filter expression: ${error.message}`);
      }
      throw error;
    }
    this.metrics.counter(METRICS.filterCompiled, { endpoint: endpoint.name });
    this.#entries.set(key, filter, filter.memoryEstimate);
    this.#report();
    return filter;
  }
}

/** The reference's wording first (clients match on it), then where in the filter it happened. */
function describeEvaluationError(error: FilterEvaluationError): string {
  return [error.reason, ...error.message.split("\n").slice(1)].join("\n");
}

/** An answer's gzip is kept when at most 1/GZIP_SHARE of its body (JSON lists compress to about a twentieth). */
const GZIP_SHARE = 4;

/** A list's answer at one index of its tables: its body (compact or pretty, as asked), its next token. */
interface CachedAnswer {
  readonly index: number;
  readonly nextToken: string;
  readonly body: Buffer;
  /** The body gzipped, made for the first client that asks for it. */
  gzip?: Buffer;
}

/**
 * The gzip of an answer's body, kept with it when it is at most a quarter of the body: the answer
 * cache counts each entry as its body and that quarter, so its bound holds.
 */
function keepGzip(answer: CachedAnswer): Buffer {
  const gzipped = gzipSync(answer.body);
  if (gzipped.length <= answer.body.length / GZIP_SHARE) answer.gzip = gzipped;
  return gzipped;
}

/** The shared list pipeline: options, region, ACL, filter, blocking, page. */
async function list<Row>(
  context: RouteContext,
  endpoint: ListEndpoint<Row>,
  filters: FilterCache,
  responses: BoundedCache<CachedAnswer>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Result> {
  const { cluster, metrics } = context;
  const query = queryOf(request);
  const options = parseQueryOptions(query, request.headers, context.settings.region);
  const itemOptions = endpoint.itemOptions(query);
  checkRegion(options.region, context);
  // Refused before the filter is read; checked again by every run of the query below.
  namespaceAccess(context.acl.authenticate(options.token), options.namespace, [endpoint.capability]);
  if (options.filter !== "" && options.prefix !== "") throw badRequest("Filter expression cannot be used with other filter parameters");
  const filter = options.filter === "" ? undefined : filters.get(options.filter, endpoint);
  // The answer depends on the data, the caller's rights (the ACL tables' index and the token)
  // and the request: the same key at the same indexes is the same bytes.
  const pretty = wantsPretty(query);
  const requestKey = JSON.stringify([endpoint.name, options.token, options.namespace, options.prefix, options.filter, options.perPage, options.nextToken, options.reverse, itemOptions.meta, pretty]);

  const labels = { endpoint: endpoint.name };
  const answer = await blockingRead(context, reply, endpoint.tables, options, (caller): { index: number; cached: CachedAnswer } => {
    const permitted = namespaceAccess(caller, options.namespace, [endpoint.capability]);
    const index = cluster.store.tableIndex(...endpoint.tables);
    const key = `${index} ${cluster.store.tableIndex("acl_token", "acl_policy")} ${requestKey}`;
    const known = responses.get(key);
    if (known !== undefined) return { index, cached: known };
    // One request's filtering is bounded, whatever the rows: each run of the query has a budget.
    const budget = new CostBudget(context.settings.limits.filterCostPerRequest);
    try {
      const page = cutPage(
        {
          rows: endpoint.rows(cluster, options.namespace, options.prefix),
          token: (row) => endpoint.token(row, options.prefix),
          compare: (token, next) => endpoint.compare(token, next, options.prefix),
          filterTarget: (row) => endpoint.filterTarget(row, cluster),
          permitted: (row) => permitted(endpoint.namespaceOf(row)),
        },
        { perPage: options.perPage, nextToken: options.nextToken, reverse: options.reverse, filter, budget },
      );
      if (filter !== undefined) metrics.counter(METRICS.filterEvaluations, labels, page.evaluated);
      // Compact lists join the JSON of their items, each written once per version of its row.
      const text = pretty
        ? stringifyJson(page.rows.map((row) => endpoint.item(row, cluster, itemOptions)), true)
        : `[${page.rows.map((row) => endpoint.itemJson(row, cluster, itemOptions)).join(",")}]`;
      const body = Buffer.from(text);
      const cached: CachedAnswer = { index, nextToken: page.nextToken, body };
      responses.set(key, cached, body.length + Math.ceil(body.length / GZIP_SHARE) + key.length);
      return { index, cached };
    } catch (error) {
      if (error instanceof FilterEvaluationError) {
        metrics.counter(METRICS.filterEvaluationErrors, labels);
        throw badRequest(`failed to read result page: ${describeEvaluationError(error)}`);
      }
      throw error;
    }
  });
  const { cached } = answer;
  const { body, nextToken } = cached;
  return {
    json: body,
    gzip: () => cached.gzip ?? keepGzip(cached),
    index: answer.index,
    nextToken,
    read: true,
  };
}

/** `PUT /v1/jobs`: decode, region, ACL (`submit-job` or `register-job`), register. */
async function register(context: RouteContext, request: FastifyRequest): Promise<Result> {
  const query = queryOf(request);
  // Malformed query options are refused before the body is read, as the reference parses first.
  const options = parseQueryOptions(query, request.headers, context.settings.region);
  const registration = decodeRegisterRequest(bodyText(request));
  const { job } = registration;
  const namespace = query.get("namespace") || registration.namespace || (typeof job.Namespace === "string" && job.Namespace) || "default";
  let region = query.get("region") || registration.region || (typeof job.Region === "string" ? job.Region : "");
  if (region === "" || region === "global") region = context.settings.region;
  checkRegion(region, context);
  // A token in the header beats the request's SecretID.
  const caller = context.acl.authenticate(options.token || registration.secretId);
  namespaceAccess(caller, namespace, ["submit-job", "register-job"]);
  const response = context.cluster.register(registration, namespace, region);
  return { body: response, index: response.Index };
}

/** Registers the routes of jobs, deployments and members. */
export function jobRoutes(app: FastifyInstance, context: RouteContext, filters: FilterCache): void {
  // The answers to list requests at the current indexes (see AgentLimits.responseCacheBytes).
  const responses = new BoundedCache<CachedAnswer>(context.settings.limits.responseCacheBytes);
  const listOf =
    <Row>(endpoint: ListEndpoint<Row>) =>
    (request: FastifyRequest, reply: FastifyReply) =>
      context.metrics.time(endpoint.timer, () => list(context, endpoint, filters, responses, request, reply));
  const registerJob = (request: FastifyRequest) => context.metrics.time(METRICS.jobRegister, () => register(context, request));
  app.all(
    "/v1/jobs",
    byMethod({
      GET: listOf(jobsEndpoint),
      PUT: registerJob,
      POST: registerJob,
    }),
  );
  app.all("/v1/deployments", byMethod({ GET: listOf(deploymentsEndpoint) }));
  app.all(
    "/v1/agent/members",
    byMethod({
      GET: async (request) => {
        // Members ignores the region (the reference does not forward it), but needs node:read.
        const options = parseQueryOptions(queryOf(request), request.headers, context.settings.region);
        const caller = context.acl.authenticate(options.token);
        if (!caller.management && !caller.permissions.nodeRead) throw permissionDenied();
        return { body: membersResponse(context.settings) };
      },
    }),
  );
}
