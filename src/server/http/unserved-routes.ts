/**
 * What the agent answers for a path no route of its own takes: the reference's routes it does not
 * simulate are named as such, so that a client or a test suite stopped by one learns why (a plain
 * `404 the mini-agent does not simulate GET /v1/agent/keyring/*`, in the reference's error shape);
 * the reference's enterprise routes answer what the reference's community edition answers
 * (`501 Nomad Enterprise only endpoint`); any other path keeps the reference's own answer, the
 * empty `404` of its mux's fallthrough (`handleRootFallthrough`).
 *
 * {@link REFERENCE_ROUTES} lists every route of the reference's HTTP server
 * (`command/agent/http.go`, `registerHandlers`, and the paths its handlers take apart). A route
 * the agent serves never gets here (fastify matches it first), so the table holds them all:
 * serving one more takes no change here.
 *
 * @module
 */
import { HttpError } from "./errors.js";

/**
 * The reference's routes, as patterns: `:name` is one path segment, a final `*` the rest of the
 * path. Grouped as the reference's handlers are; served ones included (see the module's description).
 */
export const REFERENCE_ROUTES: readonly string[] = [
  // Jobs (`job_endpoint.go`, `JobSpecificRequest`: the suffixes of /v1/job/<id>).
  "/v1/jobs",
  "/v1/jobs/parse",
  "/v1/jobs/statuses",
  "/v1/job/:id",
  ...["evaluate", "allocations", "evaluations", "periodic/force", "plan", "summary", "dispatch", "versions", "revert", "deployments", "deployment", "stable", "scale", "services", "submission", "actions", "action"].map((suffix) => `/v1/job/:id/${suffix}`),
  "/v1/job/:id/versions/:version/tag",
  "/v1/validate/job",
  // Nodes and node pools.
  "/v1/nodes",
  "/v1/node/:id",
  ...["evaluate", "allocations", "drain", "eligibility", "purge"].map((suffix) => `/v1/node/:id/${suffix}`),
  "/v1/node/pools",
  "/v1/node/pool/:name",
  "/v1/node/pool/:name/nodes",
  "/v1/node/pool/:name/jobs",
  // Allocations, evaluations, deployments.
  "/v1/allocations",
  "/v1/allocation/:id",
  "/v1/allocation/:id/checks",
  "/v1/allocation/:id/stop",
  "/v1/allocation/:id/services",
  "/v1/evaluations",
  "/v1/evaluations/count",
  "/v1/evaluation/:id",
  "/v1/evaluation/:id/allocations",
  "/v1/deployments",
  "/v1/deployment/:id",
  ...["allocations", "fail", "pause", "promote", "allocation-health", "unblock"].map((action) => `/v1/deployment/${action}/:id`),
  // Volumes and plugins.
  "/v1/volumes",
  "/v1/volumes/external",
  "/v1/volumes/snapshot",
  "/v1/volumes/claims",
  "/v1/volumes/claim/*",
  "/v1/volume/csi/*",
  "/v1/volume/host/*",
  "/v1/plugins",
  "/v1/plugin/csi/*",
  // ACLs.
  "/v1/acl/policies",
  "/v1/acl/policy/:name",
  "/v1/acl/token/onetime",
  "/v1/acl/token/onetime/exchange",
  "/v1/acl/bootstrap",
  "/v1/acl/tokens",
  "/v1/acl/token",
  "/v1/acl/token/:accessor",
  "/v1/acl/roles",
  "/v1/acl/role",
  "/v1/acl/role/*",
  "/v1/acl/auth-methods",
  "/v1/acl/auth-method",
  "/v1/acl/auth-method/*",
  "/v1/acl/binding-rules",
  "/v1/acl/binding-rule",
  "/v1/acl/binding-rule/*",
  "/v1/acl/oidc/auth-url",
  "/v1/acl/oidc/complete-auth",
  "/v1/acl/login",
  "/v1/acl/identity/client-introduction-token",
  // A client agent's own endpoints: files, logs, exec, stats (the agent has no client agent).
  "/v1/client/fs/*",
  "/v1/client/gc",
  "/v1/client/stats",
  "/v1/client/allocation/*",
  "/v1/client/metadata",
  "/v1/client/identity",
  "/v1/client/identity/renew",
  // The agent itself.
  "/v1/agent/self",
  "/v1/agent/join",
  "/v1/agent/members",
  "/v1/agent/force-leave",
  "/v1/agent/servers",
  "/v1/agent/schedulers",
  "/v1/agent/schedulers/config",
  "/v1/agent/keyring/*",
  "/v1/agent/health",
  "/v1/agent/host",
  "/v1/agent/reload",
  "/v1/agent/monitor",
  "/v1/agent/monitor/export",
  "/v1/agent/pprof/*",
  // Native services, variables, namespaces.
  "/v1/services",
  "/v1/service/*",
  "/v1/vars",
  "/v1/var/*",
  "/v1/namespaces",
  "/v1/namespace",
  "/v1/namespace/:name",
  // Cluster-wide reads and operator endpoints.
  "/v1/metrics",
  "/v1/regions",
  "/v1/status/leader",
  "/v1/status/peers",
  "/v1/scaling/policies",
  "/v1/scaling/policy/*",
  "/v1/search",
  "/v1/search/fuzzy",
  "/v1/event/stream",
  "/v1/operator/license",
  "/v1/operator/raft/*",
  "/v1/operator/keyring/*",
  "/v1/operator/autopilot/configuration",
  "/v1/operator/autopilot/health",
  "/v1/operator/snapshot",
  "/v1/operator/upgrade-check/*",
  "/v1/operator/utilization",
  "/v1/operator/scheduler/configuration",
  "/v1/system/gc",
  "/v1/system/reconcile/summaries",
  // Workload identity.
  "/.well-known/jwks.json",
  "/.well-known/openid-configuration",
];

/**
 * The reference's enterprise routes (`http_ce.go`, `registerEnterpriseHandlers`), which its
 * community edition answers `501 Nomad Enterprise only endpoint`, as the agent does.
 */
export const ENTERPRISE_ROUTES: readonly string[] = [
  "/v1/sentinel/policies",
  "/v1/sentinel/policy/*",
  "/v1/quotas",
  "/v1/quota-usages",
  "/v1/quota",
  "/v1/quota/*",
  "/v1/recommendation",
  "/v1/recommendations",
  "/v1/recommendations/apply",
  "/v1/recommendation/*",
];

/** The reference's `ErrEntOnly`. */
export const ENTERPRISE_ONLY = "Nomad Enterprise only endpoint";

/** A pattern of the tables above as a regular expression over a path (`:name` one non-empty segment, `*` the rest). */
function compilePattern(pattern: string): RegExp {
  const source = pattern
    .split("/")
    .map((segment) => (segment === "*" ? ".*" : segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}$`);
}

/** The patterns compiled once; a path is matched against each in order (about 150 anchored expressions, none backtracking). */
const COMPILED = {
  reference: REFERENCE_ROUTES.map((pattern) => ({ pattern, regexp: compilePattern(pattern) })),
  enterprise: ENTERPRISE_ROUTES.map((pattern) => ({ pattern, regexp: compilePattern(pattern) })),
};

/**
 * The reference's route pattern that `path` falls under, if any: the first of the specific
 * patterns, so that `/v1/job/a/plan` names `/v1/job/:id/plan`.
 */
export function referenceRouteOf(path: string): string | undefined {
  return COMPILED.reference.find(({ regexp }) => regexp.test(path))?.pattern;
}

/** Whether `path` is one of the reference's enterprise routes. */
export function isEnterpriseRoute(path: string): boolean {
  return COMPILED.enterprise.some(({ regexp }) => regexp.test(path));
}

/** The 404 of a reference route the agent does not simulate, naming it: `the mini-agent does not simulate GET /v1/agent/keyring/*`. */
export function notSimulated(method: string, pattern: string): HttpError {
  return new HttpError(404, `the mini-agent does not simulate ${method} ${pattern}`);
}

/** A route pattern with its parameters' names left out (`/v1/job/:`), to compare the agent's patterns with the table's. */
function shapeOf(pattern: string): string {
  return pattern.replace(/\/:[^/]+/g, "/:");
}

/**
 * The agent's answer to the requests no route of its own took. It is told every route the agent
 * registers ({@link UnservedRoutes.served}), so that a path of a served route that the router did
 * not take (a name past the router's length limit) keeps the empty 404 rather than be called not
 * simulated.
 */
export class UnservedRoutes {
  readonly #served = new Set<string>();

  /** Notes a route pattern the agent serves (fastify's `onRoute`). */
  served(pattern: string): void {
    this.#served.add(shapeOf(pattern));
  }

  /**
   * The answer to a request for `path` that no route of the agent took, as an error to throw (see
   * the module's description), or undefined for the reference's empty 404.
   */
  answer(method: string, path: string): HttpError | undefined {
    if (isEnterpriseRoute(path)) return new HttpError(501, ENTERPRISE_ONLY);
    const pattern = referenceRouteOf(path);
    return pattern === undefined || this.#served.has(shapeOf(pattern)) ? undefined : notSimulated(method, pattern);
  }
}
