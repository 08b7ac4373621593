/**
 * The reference's reads of single things and of the allocation, evaluation and node lists:
 *
 * - `GET /v1/job/<id>`, `/summary`, `/allocations`, `/evaluations`, `/deployments`, `/deployment`;
 * - `GET /v1/allocations`, `/v1/allocation/<id>`, `/v1/evaluations`, `/v1/evaluation/<id>`,
 *   `/v1/deployment/<id>`, `/v1/nodes`, `/v1/node/<id>`;
 * - `GET /v1/status/leader`, `/v1/status/peers`, `/v1/regions`.
 *
 * The lists are endpoints of the one list pipeline (`list/endpoints.ts`). Every other read here
 * is a blocking query through the pipeline's {@link blockingRead}: its query options parsed once,
 * the region, then the caller's rights checked on every run, the index of what it read (the
 * thing's `ModifyIndex`, or its table's when it is not there) and the reference's meta headers,
 * which a 404 carries too (the reference sets them before it looks at the result). What is
 * written is `domain/present.ts`'s.
 *
 * A thing of a namespace the caller may not read is answered as one that does not exist, with
 * the index of its table, so that nothing of another namespace shows through an answer.
 *
 * @module
 */
import type { FastifyInstance } from "fastify";
import { METHODS } from "node:http";
import { compareStrings } from "../../go/order.js";
import { namespaceAccess, type Caller } from "../domain/acl.js";
import { checkRegion } from "../base/errors.js";
import { diffJobs } from "../domain/job-diff.js";
import { linkedEvaluations, presentAllocation, presentAllocationStub, presentEvaluation, presentEvaluationStub, presentJob, presentNode } from "../domain/present.js";
import { allocationJob, allocationsEndpoint, boolParameter, nodesEndpoint } from "../list/endpoints.js";
import { blockingRead, expiryOf } from "../list/pipeline.js";
import { parseQueryOptions, type QueryOptions } from "../list/query.js";
import type { Deployment, Evaluation, JsonObject } from "../state/model.js";
import { namespacedKey, type TableName } from "../state/store.js";
import { badRequest, notFound, permissionDenied } from "./errors.js";
import { byMethod, clientGone, listRoute, param, queryOf, setReadMeta, type Handler, type Result, type RouteContext } from "./route.js";
import { goRune } from "../../go/strings.js";

/** The port of the reference's servers' RPC (and Raft) traffic, which the status endpoints name (as `/v1/agent/members` does). */
export const SERVER_RPC_PORT = 4647;

/**
 * The most evaluations `?related=true` walks through (the reference walks every link): an
 * evaluation's chain of follow-ups is a handful long, and a bound keeps one request's work bounded
 * whatever the state holds.
 */
export const MAX_RELATED_EVALUATIONS = 1_000;

/** What one read found at one state: the body, or the reference's 404 text; and the index to answer with. */
export type Found = { readonly index: number; readonly body: unknown } | { readonly index: number; readonly missing: string };

/** The parts of a request a read's query needs. */
export interface ReadRequest {
  /** The path's ID (`/v1/job/<id>`), decoded. */
  readonly id: string;
  readonly options: QueryOptions;
  readonly query: URLSearchParams;
}

/** One route's read: the tables whose writes wake it, and what the caller finds there. */
export interface ObjectRead {
  readonly tables: readonly TableName[];
  /** The route's own query parameters, checked before anything is read (a 400 when malformed). */
  readonly checkParameters?: (query: URLSearchParams) => void;
  /** Checks the caller's rights (a 403) and reads; run again whenever the blocking query wakes. */
  read(caller: Caller, request: ReadRequest): Found;
}

/** The handler of one read: query options, the route's parameters, region, then the blocking query. */
export function objectRoute(context: RouteContext, definition: ObjectRead): Handler {
  return async (request, reply) => {
    const query = queryOf(request);
    const options = parseQueryOptions(query, request.headers, context.settings);
    definition.checkParameters?.(query);
    checkRegion(options.region, context.settings.region);
    const expiresAt = expiryOf(context.acl, context.acl.authenticate(options.token));
    const read: ReadRequest = { id: param(request, "id"), options, query };
    const found = await blockingRead(context.lists, definition.tables, options, clientGone(reply), expiresAt, (caller) => definition.read(caller, read));
    if ("missing" in found) {
      // The reference sets the meta headers before it looks at the result: a 404 carries them too.
      setReadMeta(request, reply, found.index);
      throw notFound(found.missing);
    }
    return { body: found.body, index: found.index, read: true };
  };
}

/**
 * `read-job` in the request's namespace (`?namespace`, `default` when absent), or a 403: what
 * reading a job, or a deployment, evaluation or allocation of the namespace, needs (and so what
 * `GET /_bexpr/explain` needs to explain a job or a deployment).
 */
export function requireReadJob(caller: Caller, namespace: string): void {
  namespaceAccess(caller, namespace, ["read-job"]);
}

/** Whether the caller may read the things of `namespace` (the test each row of a namespace passes). */
function mayReadJob(caller: Caller, namespace: string): boolean {
  return caller.management || caller.permissions.allows(namespace, "read-job");
}

/** `node:read`, or a 403. */
function requireNodeRead(caller: Caller): void {
  if (!caller.management && !caller.permissions.nodeRead) throw permissionDenied();
}

/**
 * The reference's lookup of an exact ID in a UUID index (go-memdb's `UUIDFieldIndex`): the key it
 * finds (lower-case, canonical dashes; undefined for an ID of the right form that no row can
 * have), or a 400 with the reference's words after `what` (it answers 500: the decisions table).
 */
export function uuidKey(id: string, what: string): string | undefined {
  const refuse = (reason: string) => badRequest(`${what}: index error: ${reason}`);
  if (Buffer.byteLength(id) !== 36) throw refuse("UUID must be 36 characters");
  const dashes = id.split("-").length - 1;
  if (dashes > 4) throw refuse(`UUID should have maximum of 4 "-"; got ${dashes}`);
  const hex = Buffer.from(id.replaceAll("-", ""));
  if (hex.length % 2 !== 0) throw refuse("Input (without hyphens) must be even length");
  const bad = hex.findIndex((byte) => !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)));
  if (bad !== -1) throw refuse(`Invalid UUID: encoding/hex: invalid byte: ${goRune(hex[bad]!)}`);
  if (hex.length !== 32) return undefined;
  const digits = hex.toString("latin1").toLowerCase();
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${digits.slice(20)}`;
}


/** The order of a job's evaluations in the reference: its index on (namespace, job, status), so by status, then ID. */
function byStatusThenId(a: Evaluation, b: Evaluation): number {
  return compareStrings(a.Status, b.Status) || compareStrings(a.ID, b.ID);
}

/** A job's deployments by ID; without `all`, only those of the job as it exists now (not of an older job of the same ID). */
function jobDeployments(context: RouteContext, { id, options }: ReadRequest, all: boolean): Deployment[] {
  const key = namespacedKey(options.namespace, id);
  const job = context.store.tables.jobs.get(key);
  return [...context.store.tables.deployment.group(key).values()].filter((deployment) => all || job === undefined || deployment.JobCreateIndex === job.CreateIndex).sort((a, b) => compareStrings(a.ID, b.ID));
}

/**
 * An evaluation's related evaluations (`?related=true`): every evaluation its `NextEval`,
 * `PreviousEval` and `BlockedEval` links reach, and theirs, itself left out, as stubs.
 */
function relatedEvaluations(context: RouteContext, caller: Caller, evaluation: Evaluation): JsonObject[] {
  const seen = new Set([evaluation.ID]);
  const queue = linkedEvaluations(evaluation);
  const related: JsonObject[] = [];
  while (queue.length > 0 && seen.size <= MAX_RELATED_EVALUATIONS) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const linked = context.store.tables.evals.get(id);
    if (linked === undefined || !mayReadJob(caller, linked.Namespace)) continue;
    related.push(presentEvaluationStub(linked));
    queue.push(...linkedEvaluations(linked));
  }
  return related;
}

/** Methods other modules answer on a path of this one (the job's `DELETE`, which stops it). */
export interface ReadRouteMethods {
  /** More methods of `/v1/job/<id>`. */
  readonly job?: Readonly<Record<string, Handler>>;
}

/** Registers the reads (see the module's description); `methods` adds other modules' methods to their paths. */
export function readRoutes(app: FastifyInstance, context: RouteContext, methods: ReadRouteMethods = {}): void {
  const { store } = context;
  const get = (path: string, definition: ObjectRead) => app.all(path, byMethod({ GET: objectRoute(context, definition) }));

  // Jobs: looked up in the request's namespace.
  app.all(
    "/v1/job/:id",
    byMethod({
      GET: objectRoute(context, {
        tables: ["jobs"],
        read: (caller, { id, options }) => {
          requireReadJob(caller, options.namespace);
          const job = store.tables.jobs.get(namespacedKey(options.namespace, id));
          return job === undefined ? { index: store.tableIndex("jobs"), missing: "job not found" } : { index: job.ModifyIndex, body: presentJob(job) };
        },
      }),
      ...methods.job,
    }),
  );
  // The reference's summary route does not look at the method: every method reads.
  const summary = objectRoute(context, {
    tables: ["job_summary"],
    read: (caller, { id, options }) => {
      requireReadJob(caller, options.namespace);
      const found = store.tables.job_summary.get(namespacedKey(options.namespace, id));
      return found === undefined ? { index: store.tableIndex("job_summary"), missing: "job not found" } : { index: found.ModifyIndex, body: found };
    },
  });
  app.all("/v1/job/:id/summary", byMethod(Object.fromEntries(METHODS.map((method) => [method, summary]))));
  // A job's lists: the reference takes no filter or paging here (they are ignored), and answers `[]` for a job it does not know.
  get("/v1/job/:id/allocations", {
    tables: ["allocs"],
    // `all` also lists the allocations of an older job of the same ID; purging a job removes its allocations, so none are left here.
    checkParameters: (query) => void boolParameter(query, "all", false),
    read: (caller, { id, options }) => {
      requireReadJob(caller, options.namespace);
      const allocs = [...store.tables.allocs.group(namespacedKey(options.namespace, id)).values()].sort((a, b) => compareStrings(a.ID, b.ID));
      return { index: store.tableIndex("allocs"), body: allocs.map((alloc) => presentAllocationStub(alloc)) };
    },
  });
  get("/v1/job/:id/evaluations", {
    tables: ["evals"],
    read: (caller, { id, options }) => {
      requireReadJob(caller, options.namespace);
      const evals = [...store.tables.evals.group(namespacedKey(options.namespace, id)).values()].sort(byStatusThenId);
      return { index: store.tableIndex("evals"), body: evals.map((evaluation) => presentEvaluation(evaluation)) };
    },
  });
  get("/v1/job/:id/deployments", {
    tables: ["deployment"],
    checkParameters: (query) => void boolParameter(query, "all", false),
    read: (caller, request) => {
      requireReadJob(caller, request.options.namespace);
      return { index: store.tableIndex("deployment"), body: jobDeployments(context, request, boolParameter(request.query, "all", false)) };
    },
  });
  get("/v1/job/:id/deployment", {
    tables: ["deployment"],
    read: (caller, request) => {
      requireReadJob(caller, request.options.namespace);
      const latest = jobDeployments(context, request, false).reduce<Deployment | null>((newest, deployment) => (newest === null || deployment.CreateIndex > newest.CreateIndex ? deployment : newest), null);
      return { index: store.tableIndex("deployment"), body: latest };
    },
  });

  // Versions: newest first, with the query's meta inlined as the reference's JobVersionsResponse;
  // with diffs=true, each version's diff from the one before it (contextual, as the reference's).
  get("/v1/job/:id/versions", {
    tables: ["job_versions"],
    read: (caller, { id, options, query }) => {
      requireReadJob(caller, options.namespace);
      const diffs = boolParameter(query, "diffs", false);
      const versions = [...store.tables.job_versions.group(namespacedKey(options.namespace, id)).values()].sort((a, b) => b.Version - a.Version);
      if (versions.length === 0) return { index: store.tableIndex("job_versions"), missing: "job versions not found" };
      const index = Math.max(...versions.map((version) => version.Job.ModifyIndex));
      const changes = diffs && versions.length > 1 ? versions.slice(0, -1).map((version, i) => diffJobs(versions[i + 1]!.Job, version.Job, true)) : null;
      const body = { Versions: versions.map((version) => presentJob(version.Job)), Diffs: changes, Index: index, LastContact: 0, KnownLeader: context.peers.knownLeader, NextToken: "" };
      return { index, body };
    },
  });

  // Allocations: the list, and one by ID, whatever the request's namespace (as the reference).
  app.all("/v1/allocations", byMethod({ GET: listRoute(context, allocationsEndpoint) }));
  get("/v1/allocation/:id", {
    tables: ["allocs"],
    read: (caller, { id }) => {
      const key = uuidKey(id, "alloc lookup failed");
      const alloc = key === undefined ? undefined : store.tables.allocs.get(key);
      // One of a namespace the caller may not read is not there for it (the reference answers 500 `Unknown allocation`).
      if (alloc === undefined || !mayReadJob(caller, alloc.Namespace)) return { index: store.tableIndex("allocs"), missing: "alloc not found" };
      return { index: alloc.ModifyIndex, body: presentAllocation(alloc, allocationJob(alloc, store)) };
    },
  });

  // Evaluations: the caller needs read-job in the request's namespace, then in the evaluation's
  // (the list, with its delete, is in `operator-routes.ts`).
  get("/v1/evaluation/:id", {
    tables: ["evals"],
    read: (caller, { id, options, query }) => {
      requireReadJob(caller, options.namespace);
      const key = uuidKey(id, "failed to lookup eval: eval lookup failed");
      const evaluation = key === undefined ? undefined : store.tables.evals.get(key);
      // The reference answers 403 for one of a namespace the caller may not read, which tells that it exists.
      if (evaluation === undefined || !mayReadJob(caller, evaluation.Namespace)) return { index: store.tableIndex("evals"), missing: "eval not found" };
      // Only the literal `true`, as the reference reads it.
      const related = query.get("related") === "true" ? relatedEvaluations(context, caller, evaluation) : undefined;
      return { index: evaluation.ModifyIndex, body: presentEvaluation(evaluation, related) };
    },
  });

  get("/v1/deployment/:id", {
    tables: ["deployment"],
    read: (caller, { id, options }) => {
      requireReadJob(caller, options.namespace);
      if (id === "") throw badRequest("missing deployment ID");
      const key = uuidKey(id, "deployment lookup failed");
      const deployment = key === undefined ? undefined : store.tables.deployment.get(key);
      if (deployment === undefined || !mayReadJob(caller, deployment.Namespace)) return { index: store.tableIndex("deployment"), missing: "deployment not found" };
      return { index: deployment.ModifyIndex, body: deployment };
    },
  });

  // Nodes: `node:read`, no namespaces.
  app.all("/v1/nodes", byMethod({ GET: listRoute(context, nodesEndpoint) }));
  get("/v1/node/:id", {
    tables: ["nodes"],
    read: (caller, { id }) => {
      requireNodeRead(caller);
      if (id === "") throw badRequest("missing node ID");
      const key = uuidKey(id, "node lookup failed");
      const node = key === undefined ? undefined : store.tables.nodes.get(key);
      return node === undefined ? { index: store.tableIndex("nodes"), missing: "node not found" } : { index: node.ModifyIndex, body: presentNode(node) };
    },
  });

  // Status and regions: no ACL, no meta headers, no blocking (the query is still checked, as the reference parses it).
  const serverAddress = (address: string) => `${address}:${SERVER_RPC_PORT}`;
  const status = (answer: () => Promise<unknown>, forwarded: boolean): Handler => async (request) => {
    const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
    if (forwarded) checkRegion(options.region, context.settings.region);
    return { body: await answer() } satisfies Result;
  };
  app.all(
    "/v1/status/leader",
    byMethod({
      GET: status(async () => {
        const { peers } = context;
        if (!peers.knownLeader) return "";
        if (context.cluster.leading) return serverAddress(context.settings.advertiseAddress);
        // Another agent of the shared state leads: its address, when the peers name it.
        const member = (await peers.members()).find((candidate) => candidate.name === peers.leader);
        return member === undefined ? "" : serverAddress(member.address);
      }, true),
    }),
  );
  app.all(
    "/v1/status/peers",
    byMethod({
      GET: status(async () => (await context.peers.members()).filter((member) => member.status !== "left").map((member) => serverAddress(member.address)), true),
    }),
  );
  // The reference answers its own regions without forwarding: `?region` is not looked at.
  app.all("/v1/regions", byMethod({ GET: status(async () => [context.settings.region], false) }));
}
