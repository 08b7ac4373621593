/**
 * The variables API (`command/agent/variable_endpoint.go`): `GET /v1/vars` (the list pipeline),
 * and `GET`, `PUT`/`POST` and `DELETE /v1/var/<path>`, with `?cas=<index>` for a check-and-set
 * and `?lock-acquire`, `?lock-renew`, `?lock-release` for a variable's lock.
 *
 * Each write checks, in the reference's order: the lock operation and `cas` parameters, its body,
 * the token's capability on the path (`write`, or `destroy` to delete: the namespace's
 * `variables` rules), then the request (`canonicalizeAndValidate`), then the state. A conflict is
 * a 409 whose body is the variable in the way (its items only for a caller that may read it).
 *
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Caller } from "../domain/acl.js";
import { presentVariable } from "../domain/variables.js";
import { variablesEndpoint } from "../list/endpoints.js";
import { blockingRead, expiryOf } from "../list/pipeline.js";
import { parseQueryOptions } from "../list/query.js";
import { parseGoDurationNs, GoDurationError } from "../../go/duration.js";
import { checkRegion } from "../base/errors.js";
import { checkRequest, type ApplyOutcome, type LockInput, type VariableInput, type VarOp } from "../scheduler/variables.js";
import type { JsonObject, Variable } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { writeTarget } from "./action-routes.js";
import { badRequest, notFound, permissionDenied } from "./errors.js";
import { bodyText, byMethod, clientGone, listRoute, objectBody, param, queryOf, setReadMeta, type Result, type RouteContext } from "./route.js";

/** `structs.VariableDecrypted`, as a write's body is decoded; a lock's durations are Go durations or nanoseconds. */
const VARIABLE_BODY = {
  kind: "object",
  typeName: "structs.VariableDecrypted",
  fields: {
    Namespace: "string",
    Path: "string",
    Lock: { kind: "object", typeName: "structs.VariableLock", fields: { ID: "string", TTL: "any", LockDelay: "any" } },
    CreateIndex: "uint",
    CreateTime: "int",
    ModifyIndex: "uint",
    ModifyTime: "int",
    Items: { kind: "map", values: "string" },
  },
} as const;

/** The lock operations a query names (`getLockOperation`). */
const LOCK_OPERATIONS = ["lock-renew", "lock-acquire", "lock-release"] as const;
type LockOperation = (typeof LOCK_OPERATIONS)[number];

/** The one lock operation the query names, "" for none; two or more are the reference's 400. */
function lockOperation(query: URLSearchParams): LockOperation | "" {
  const named = LOCK_OPERATIONS.filter((operation) => query.has(operation));
  if (named.length > 1) throw badRequest("multiple lock operations");
  return named[0] ?? "";
}

/** The largest `uint64`, the most `cas` can say. */
const MAX_UINT64 = 2n ** 64n - 1n;

/** `?cas=<index>` (`parseCAS`): undefined without it; Go's `strconv.ParseUint` words in the 400. */
function casIndex(query: URLSearchParams): number | undefined {
  const text = query.get("cas") ?? "";
  if (text === "") return undefined;
  if (!/^[0-9]+$/.test(text)) throw badRequest(`can not parse cas: strconv.ParseUint: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value > MAX_UINT64) throw badRequest(`can not parse cas: strconv.ParseUint: parsing ${JSON.stringify(text)}: value out of range`);
  // No index of the agent's comes near 2^53: a larger one conflicts as any other index it does not have.
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** A lock's duration as the reference's `VariableLock.UnmarshalJSON` reads it: a Go duration, or nanoseconds; anything else is none. */
function lockDuration(value: unknown): number {
  if (typeof value === "string") {
    if (value === "") return 0;
    try {
      return Number(parseGoDurationNs(value));
    } catch (error) {
      if (error instanceof GoDurationError) throw badRequest(error.message);
      throw error;
    }
  }
  if (typeof value === "bigint") return Number(value);
  return typeof value === "number" ? Math.trunc(value) : 0;
}

/** The body of a variable write, decoded (an empty body is an empty variable, as Go's decoder of the reference's sees it). */
function variableBody(request: FastifyRequest): JsonObject {
  return bodyText(request) === "" ? {} : objectBody(request, VARIABLE_BODY, VARIABLE_BODY.typeName);
}

/** The variable a write asks for: the body's, at the URL's path, in the body's namespace or else the request's. */
function variableInput(body: JsonObject, path: string, namespace: string, modifyIndex: number): VariableInput {
  const lock = body.Lock as JsonObject | null | undefined;
  const lockInput: LockInput | null = lock === null || lock === undefined ? null : { ID: typeof lock.ID === "string" ? lock.ID : "", TTL: lockDuration(lock.TTL), LockDelay: lockDuration(lock.LockDelay) };
  const items = body.Items as Record<string, string> | null | undefined;
  return {
    Namespace: typeof body.Namespace === "string" && body.Namespace !== "" ? body.Namespace : namespace,
    Path: path,
    Items: items ?? null,
    Lock: lockInput,
    ModifyIndex: modifyIndex,
  };
}

/** The capability each operation needs on the path (`hasOperationPermissions`). */
const OPERATION_CAPABILITY: Readonly<Record<VarOp, string>> = {
  set: "write",
  cas: "write",
  "lock-acquire": "write",
  "lock-release": "write",
  delete: "destroy",
  "delete-cas": "destroy",
};

/** Whether the caller has `capability` on the variable at `path` (a management token, or ACLs off, has all). */
function mayOnVariable(caller: Caller, namespace: string, path: string, capability: string): boolean {
  return caller.management || caller.permissions.allowsVariable(namespace, path, capability);
}

/**
 * The answer of an applied write (`makeVariablesApplyResponse`): the variable written, its lock
 * shown to its holder and to management; a conflict's variable as a 409, its items only for a
 * caller that may read it; a deletion's 204.
 */
function applyAnswer(caller: Caller, op: VarOp, input: VariableInput, outcome: ApplyOutcome, isLockOperation: boolean): Result {
  if (outcome.result === "conflict") {
    const found = outcome.conflict;
    const items = mayOnVariable(caller, input.Namespace, input.Path, "read");
    // The reference sets the conflict's index, but for the lock operations, whose answers carry the write's.
    return { status: 409, body: presentVariable(found, { items, lock: items && caller.management }), index: isLockOperation ? outcome.index : found.ModifyIndex };
  }
  const written = outcome.written;
  if (op === "delete" || op === "delete-cas") return { status: 204, index: outcome.index };
  if (written === undefined) return { body: null, index: outcome.index };
  const holder = input.Lock !== null && written.Lock !== null && input.Lock.ID === written.Lock.ID;
  // The writer reads back its own write: the items it sent.
  const shown: Variable = { ...written, Items: input.Items ?? {} };
  return { body: presentVariable(shown, { items: true, lock: holder || caller.management }), index: outcome.index };
}

/** `PUT /v1/var/<path>`, with `cas` or a lock operation. */
async function write(context: RouteContext, request: FastifyRequest, path: string): Promise<Result> {
  const query = queryOf(request);
  const operation = lockOperation(query);
  if (query.get("cas") && operation !== "") throw badRequest("CAS can't be used with lock operations");
  const body = variableBody(request);
  if (operation === "lock-renew") return renew(context, request, path, body);
  if (operation === "") {
    const items = body.Items as Record<string, string> | null | undefined;
    if (items === null || items === undefined || Object.keys(items).length === 0) throw badRequest("variable missing required Items object");
  }
  const { namespace, caller } = writeTarget(context, request, {});
  const cas = operation === "" ? casIndex(query) : undefined;
  const op: VarOp = operation !== "" ? operation : cas === undefined ? "set" : "cas";
  return apply(context, caller, op, variableInput(body, path, namespace, cas ?? 0), operation !== "");
}

/** Checks the caller's capability and the request, then writes (`Variables.Apply`). */
async function apply(context: RouteContext, caller: Caller, op: VarOp, given: VariableInput, isLockOperation: boolean): Promise<Result> {
  if (!mayOnVariable(caller, given.Namespace, given.Path, OPERATION_CAPABILITY[op])) throw permissionDenied();
  const input = checkRequest(op, given);
  const outcome = await context.cluster.applyVariable(op, input);
  return applyAnswer(caller, op, input, outcome, isLockOperation);
}

/**
 * `PUT /v1/var/<path>?lock-renew` (`Variables.RenewLock`): the lock's ID from the body, in the
 * request's namespace; answers the variable's metadata, its lock included, without an index.
 */
async function renew(context: RouteContext, request: FastifyRequest, path: string, body: JsonObject): Promise<Result> {
  const { namespace, caller } = writeTarget(context, request, {});
  if (!mayOnVariable(caller, namespace, path, "write")) throw permissionDenied();
  const lock = body.Lock as JsonObject | null | undefined;
  const lockId = typeof lock?.ID === "string" ? lock.ID : "";
  if (lockId === "") throw badRequest("1 error occurred:\n\t* missing lock ID\n\n");
  const variable = context.cluster.renewLock(namespace, path, lockId);
  return { body: presentVariable(variable, { items: false, lock: true }) };
}

/** `DELETE /v1/var/<path>`, with `cas`. */
async function remove(context: RouteContext, request: FastifyRequest, path: string): Promise<Result> {
  const { namespace, caller } = writeTarget(context, request, {});
  const cas = casIndex(queryOf(request));
  const op: VarOp = cas === undefined ? "delete" : "delete-cas";
  return apply(context, caller, op, { Namespace: namespace, Path: path, Items: null, Lock: null, ModifyIndex: cas ?? 0 }, false);
}

/**
 * `GET /v1/var/<path>` (`Variables.Read`): `read` on the path in the request's namespace, a
 * blocking query on the variables; the lock shown to management only; a 404 `variable not found`
 * with the table's index.
 */
async function read(context: RouteContext, request: FastifyRequest, reply: FastifyReply, path: string): Promise<Result> {
  const options = parseQueryOptions(queryOf(request), request.headers, context.settings);
  checkRegion(options.region, context.settings.region);
  const first = context.acl.authenticate(options.token);
  const found = await blockingRead(context.lists, ["variables"], options, clientGone(reply), expiryOf(context.acl, first), (caller) => {
    if (!mayOnVariable(caller, options.namespace, path, "read")) throw permissionDenied();
    const variable = context.store.tables.variables.get(namespacedKey(options.namespace, path));
    return variable === undefined
      ? { index: context.store.tableIndex("variables"), body: undefined }
      : { index: variable.ModifyIndex, body: presentVariable(variable, { items: true, lock: caller.management }) };
  });
  if (found.body === undefined) {
    setReadMeta(request, reply, found.index);
    throw notFound("variable not found");
  }
  return { body: found.body, index: found.index, read: true };
}

/** Registers the variable routes. */
export function variableRoutes(app: FastifyInstance, context: RouteContext): void {
  app.all("/v1/vars", byMethod({ GET: listRoute(context, variablesEndpoint) }));
  // The path is the rest of the URL's (decoded) path, slashes included.
  const pathOf = (request: FastifyRequest) => {
    const path = param(request, "*");
    if (path === "") throw badRequest("missing variable path");
    return path;
  };
  const put = (request: FastifyRequest) => write(context, request, pathOf(request));
  // Any other method is the reference's 400 here, not its usual 405.
  const otherMethod = async (): Promise<Result> => {
    throw badRequest("Invalid method");
  };
  app.all(
    "/v1/var/*",
    byMethod({
      GET: (request, reply) => read(context, request, reply, pathOf(request)),
      PUT: put,
      POST: put,
      DELETE: (request) => remove(context, request, pathOf(request)),
      PATCH: otherMethod,
      HEAD: otherMethod,
      OPTIONS: otherMethod,
    }),
  );
}
