/**
 * Native services (`command/agent/service_registration_endpoint.go`,
 * `nomad/service_registration_endpoint.go`), registered as the simulated clients run allocations
 * (`scheduler/services.ts`):
 *
 * - `GET /v1/services`: per namespace, the names of its services with the union of their tags
 *   (`ServiceRegistrationListStub`); with `namespace=*`, of every namespace the caller may
 *   `read-job` in (none: `[]`). Not paged and not filtered, as the reference's;
 * - `GET /v1/service/<name>`: the service's instances, whole, through the list pipeline (filter,
 *   `per_page`, `next_token`), then `?choose=<n>|<key>`: the first `n` by rendezvous hashing of
 *   each instance with the key, as the reference's `choose`;
 * - `DELETE /v1/service/<name>/<id>`: `submit-job` or `delete-service-registration` in the
 *   namespace; an ID the namespace has not is a 404 `service registration not found` (the
 *   reference answers 500 with those words);
 * - `GET /v1/job/<id>/services`, `GET /v1/allocation/<id>/services`: their instances; a job or
 *   allocation the namespace has not is a 404 (`job not found`, `allocation not found`).
 *
 * Reads need `read-job` in the request's namespace. The reference also lets a workload identity
 * read services; the agent issues none, so only tokens read them. Every read is a blocking query
 * on the registrations, answering with their table's index.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { compareStrings } from "../../go/order.js";
import { checkRegion } from "../base/errors.js";
import { serviceRegistrationsEndpoint } from "../list/endpoints.js";
import { runList } from "../list/pipeline.js";
import { ALL_NAMESPACES, parseQueryOptions } from "../list/query.js";
import type { ServiceRegistration } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { present } from "../../structs/derive.js";
import { SERVICE_REGISTRATION } from "../../structs/service.js";
import { badRequest, notFound, permissionDenied } from "./errors.js";
import { objectRoute, requireReadJob, uuidKey } from "./read-routes.js";
import { byMethod, clientGone, param, queryOf, type Handler, type Result, type RouteContext } from "./route.js";

/** The reference's words for a malformed `choose` (`ErrMalformedChooseParameter`). */
const MALFORMED_CHOOSE = "Parameter for choose must be in form '<number>|<key>'";

/** One namespace's services as `/v1/services` lists them (`ServiceRegistrationListStub`). */
interface ServiceListStub {
  readonly Namespace: string;
  readonly Services: { readonly ServiceName: string; readonly Tags: string[] }[];
}

/** The services of the namespaces `readable` lets through, by namespace then name, each with the union of its instances' tags (sorted). */
function serviceStubs(registrations: Iterable<ServiceRegistration>, readable: (namespace: string) => boolean): ServiceListStub[] {
  const byNamespace = new Map<string, Map<string, Set<string>>>();
  for (const registration of registrations) {
    if (!readable(registration.Namespace)) continue;
    let services = byNamespace.get(registration.Namespace);
    if (services === undefined) byNamespace.set(registration.Namespace, (services = new Map()));
    let tags = services.get(registration.ServiceName);
    if (tags === undefined) services.set(registration.ServiceName, (tags = new Set()));
    for (const tag of registration.Tags ?? []) tags.add(tag);
  }
  return [...byNamespace]
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([namespace, services]) => ({
      Namespace: namespace,
      Services: [...services].sort(([a], [b]) => compareStrings(a, b)).map(([name, tags]) => ({ ServiceName: name, Tags: [...tags].sort(compareStrings) })),
    }));
}

/** An instance's priority for a key (`ServiceRegistration.HashWith`): SHA-256 of its port, alloc, ID, namespace, address, name, tags and the key, in hex. */
function hashWith(registration: ServiceRegistration, key: string): string {
  const port = Buffer.alloc(8);
  port.writeBigUInt64BE(BigInt.asUintN(64, BigInt(registration.Port)));
  const hash = createHash("sha256").update(port);
  for (const part of [registration.AllocID, registration.ID, registration.Namespace, registration.Address, registration.ServiceName, ...(registration.Tags ?? []), key]) hash.update(part);
  return hash.digest("hex");
}

/**
 * `?choose=<n>|<key>` (`ServiceRegistration.choose`): the `n` instances (all, when fewer) whose
 * hash with the key is lowest, in that order.
 *
 * @throws a 400 with the reference's words for a malformed parameter.
 */
export function chooseServices(registrations: readonly ServiceRegistration[], parameter: string): ServiceRegistration[] {
  const bar = parameter.indexOf("|");
  const count = bar === -1 ? "" : parameter.slice(0, bar);
  const key = bar === -1 ? "" : parameter.slice(bar + 1);
  // Go's strconv.Atoi: an optional sign and decimal digits.
  if (!/^[+-]?[0-9]+$/.test(count) || key === "") throw badRequest(`failed to choose services: ${MALFORMED_CHOOSE}`);
  const n = Math.min(Number(count), registrations.length);
  const ranked = registrations.map((registration) => ({ registration, hash: hashWith(registration, key) })).sort((a, b) => compareStrings(a.hash, b.hash));
  return ranked.slice(0, Math.max(0, n)).map((each) => each.registration);
}

/** Registers the service endpoints of the module's description. */
export function serviceRoutes(app: FastifyInstance, context: RouteContext): void {
  const { store, cluster } = context;
  const whole = (registrations: readonly ServiceRegistration[]) => registrations.map((registration) => present(SERVICE_REGISTRATION, registration));

  app.all(
    "/v1/services",
    byMethod({
      GET: objectRoute(context, {
        tables: ["service_registrations"],
        read: (caller, { options }) => {
          const index = store.tableIndex("service_registrations");
          if (options.namespace === ALL_NAMESPACES) {
            // A caller that may read no namespace gets an empty list, not a 403 (`allowedNSes`).
            const readable = caller.management ? () => true : (namespace: string) => caller.permissions.allows(namespace, "read-job");
            return { index, body: serviceStubs(store.tables.service_registrations.values(), readable) };
          }
          requireReadJob(caller, options.namespace);
          return { index, body: serviceStubs(store.tables.service_registrations.values(), (namespace) => namespace === options.namespace) };
        },
      }),
    }),
  );

  const getService: Handler = async (request, reply) => {
    const name = param(request, "name");
    const query = queryOf(request);
    const options = parseQueryOptions(query, request.headers, context.settings);
    const choose = query.get("choose") ?? "";
    // The name travels as the listing's prefix (the reference takes no prefix here).
    const listed = await runList(context.lists, serviceRegistrationsEndpoint, { options: { ...options, prefix: name }, query, signal: clientGone(reply) });
    const { answer } = listed;
    if (choose === "") return { json: answer.body, index: answer.index, nextToken: answer.nextToken, read: true };
    const page = JSON.parse(answer.body.toString("utf8")) as ServiceRegistration[];
    return { body: whole(chooseServices(page, choose)), index: answer.index, nextToken: answer.nextToken, read: true };
  };
  const deleteService: Handler = async (request) => {
    const query = queryOf(request);
    const options = parseQueryOptions(query, request.headers, context.settings);
    checkRegion(options.region, context.settings.region);
    const caller = context.acl.authenticate(options.token);
    if (!caller.management && !caller.permissions.allows(options.namespace, "submit-job") && !caller.permissions.allows(options.namespace, "delete-service-registration")) throw permissionDenied();
    const id = param(request, "id");
    const index = await cluster.deleteServiceRegistration(options.namespace, id);
    if (index === undefined) throw notFound("service registration not found");
    return { index } satisfies Result;
  };
  const refuse = (message: string): Handler => async () => {
    throw badRequest(message);
  };
  app.all("/v1/service/", byMethod({ GET: refuse("missing service name") }));
  app.all("/v1/service/:name", byMethod({ GET: getService }));
  app.all("/v1/service/:name/", byMethod({ DELETE: refuse("missing service id") }));
  app.all("/v1/service/:name/:id", byMethod({ DELETE: deleteService }));
  app.all("/v1/service/:name/:id/*", byMethod({ GET: refuse("invalid URI"), DELETE: refuse("invalid URI") }));

  app.all(
    "/v1/job/:id/services",
    byMethod({
      GET: objectRoute(context, {
        tables: ["service_registrations", "jobs"],
        read: (caller, { id, options }) => {
          requireReadJob(caller, options.namespace);
          const index = store.tableIndex("service_registrations");
          if (store.tables.jobs.get(namespacedKey(options.namespace, id)) === undefined) return { index, missing: "job not found" };
          const registrations: ServiceRegistration[] = [];
          for (const alloc of store.tables.allocs.group(namespacedKey(options.namespace, id)).values()) registrations.push(...store.tables.service_registrations.group(alloc.ID).values());
          return { index, body: whole(registrations.sort((a, b) => compareStrings(a.ID, b.ID))) };
        },
      }),
    }),
  );
  app.all(
    "/v1/allocation/:id/services",
    byMethod({
      GET: objectRoute(context, {
        tables: ["service_registrations", "allocs"],
        read: (caller, { id, options }) => {
          requireReadJob(caller, options.namespace);
          const index = store.tableIndex("service_registrations");
          const key = uuidKey(id, "alloc lookup failed");
          const alloc = key === undefined ? undefined : store.tables.allocs.get(key);
          // One of another namespace than the request's is not found (as the reference).
          if (alloc === undefined || alloc.Namespace !== options.namespace) return { index, missing: "allocation not found" };
          return { index, body: whole([...store.tables.service_registrations.group(alloc.ID).values()].sort((a, b) => compareStrings(a.ID, b.ID))) };
        },
      }),
    }),
  );
}
