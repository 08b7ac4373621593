/**
 * Scaling policies (`command/agent/scaling_endpoint.go`, `nomad/scaling_endpoint.go`): `GET
 * /v1/scaling/policies` (stubs, by ID; `?job`, `?type` and an ID `prefix` select) and `GET
 * /v1/scaling/policy/<id>`. Both read the policies the jobs' groups declare (see
 * `domain/scaling-policies.ts`) and wake when a job is written.
 *
 * @module
 */
import type { FastifyInstance } from "fastify";
import type { Caller } from "../domain/acl.js";
import { scalingPolicies, scalingPolicyStub } from "../domain/scaling-policies.js";
import { ALL_NAMESPACES, type RowRange } from "../state/store.js";
import { permissionDenied } from "./errors.js";
import { objectRoute } from "./read-routes.js";
import { byMethod, type RouteContext } from "./route.js";

/** The rows of a range, in order. */
function* rowsOf<Row>(range: RowRange<Row>): Iterable<Row> {
  for (let position = 0; position < range.size; position++) yield range.at(position);
}

/** `list-scaling-policies`, or both `list-jobs` and `read-job`, in the namespace (the reference's test). */
function mayList(caller: Caller, namespace: string): boolean {
  const { permissions } = caller;
  return caller.management || permissions.allows(namespace, "list-scaling-policies") || (permissions.allows(namespace, "list-jobs") && permissions.allows(namespace, "read-job"));
}

/** `read-scaling-policy`, or both `list-jobs` and `read-job`, in the namespace. */
function mayRead(caller: Caller, namespace: string): boolean {
  const { permissions } = caller;
  return caller.management || permissions.allows(namespace, "read-scaling-policy") || (permissions.allows(namespace, "list-jobs") && permissions.allows(namespace, "read-job"));
}

/** Registers the scaling policy routes. */
export function scalingRoutes(app: FastifyInstance, context: RouteContext): void {
  const { store } = context;
  app.all(
    "/v1/scaling/policies",
    byMethod({
      GET: objectRoute(context, {
        tables: ["jobs"],
        read: (caller, { options, query }) => {
          const namespace = options.namespace;
          // A named namespace needs the right there; `*` lists the namespaces that grant it.
          if (namespace !== ALL_NAMESPACES && !mayList(caller, namespace)) throw permissionDenied();
          const job = query.get("job") ?? "";
          const type = query.get("type") ?? "";
          const jobs = namespace === ALL_NAMESPACES ? store.tables.jobs.values() : rowsOf(store.queries.jobs(namespace, ""));
          const policies = scalingPolicies(jobs, (policy) =>
            mayList(caller, policy.Target.Namespace) &&
            policy.ID.startsWith(options.prefix) &&
            (job === "" || policy.Target.Job === job) &&
            policy.Type.startsWith(type));
          return { index: store.tableIndex("jobs"), body: policies.map(scalingPolicyStub) };
        },
      }),
    }),
  );
  app.all(
    "/v1/scaling/policy/:id",
    byMethod({
      GET: objectRoute(context, {
        tables: ["jobs"],
        read: (caller, { id, options }) => {
          if (options.namespace !== ALL_NAMESPACES && !mayRead(caller, options.namespace)) throw permissionDenied();
          // A policy of a namespace the caller may not read is not found, as one that does not exist.
          const [policy] = scalingPolicies(store.tables.jobs.values(), (each) => each.ID === id && mayRead(caller, each.Target.Namespace) && (options.namespace === ALL_NAMESPACES || each.Target.Namespace === options.namespace));
          if (policy === undefined) return { index: store.tableIndex("jobs"), missing: "policy not found" };
          return { index: policy.ModifyIndex, body: policy };
        },
      }),
    }),
  );
}
