/**
 * The gate of the control API: which paths are control routes, when control over HTTP is on, and
 * who may use it.
 *
 * Control routes live under the reserved prefix `/_bexpr/`, outside the scheduler's API, so that
 * no path of the reference can ever collide with them. `/_bexpr/explain` is under the prefix but
 * is not a control route: the web UI calls it, and it checks the caller's rights on the row it
 * explains as the list would.
 *
 * Control over HTTP can rewrite the agent's behaviour (faults, leader loss) and read every request
 * it served, so it is on by default only where no one else can reach it: an agent bound to a
 * loopback address. With ACLs on it needs a management token, as the reference's operator
 * endpoints do.
 *
 * @module
 */
import { isIPv4, isIPv6 } from "node:net";
import { requireManagement, type AccessControl } from "../domain/acl.js";
import { parseToken, type Headers } from "../list/query.js";
import type { HeaderNames } from "../base/header-names.js";

/** The prefix of the agent's own routes; every route under it but the web UI's (`/_bexpr/explain`) is a control route. */
export const CONTROL_PREFIX = "/_bexpr/";

/**
 * Paths under {@link CONTROL_PREFIX} that are not control routes: the web UI's own endpoint,
 * which is always served and checks ACLs itself (`http/ui-routes.ts` serves it).
 */
export const UI_OWN_PATHS: ReadonlySet<string> = new Set(["/_bexpr/explain"]);

/** Whether `path` (a request's path, without its query) is a control route's. */
export function isControlPath(path: string): boolean {
  return path.startsWith(CONTROL_PREFIX) && !UI_OWN_PATHS.has(path);
}

/** The path of a request target (`/v1/jobs?namespace=prod` gives `/v1/jobs`). */
export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Whether `bind` is a loopback address, reachable only from this machine: `localhost`, an IPv4
 * address in 127.0.0.0/8 (also IPv4-mapped, `::ffff:127.0.0.1`), or `::1`. The wildcard
 * addresses (`0.0.0.0`, `::`) and every other name are not.
 */
export function isLoopbackAddress(bind: string): boolean {
  const address = bind.startsWith("[") && bind.endsWith("]") ? bind.slice(1, -1) : bind;
  if (address.toLowerCase() === "localhost") return true;
  if (isIPv4(address)) return address.startsWith("127.");
  // A scoped address (`fe80::1%eth0`) is a link's, never the loopback.
  if (!isIPv6(address) || address.includes("%")) return false;
  // The WHATWG URL parser writes every spelling of an IPv6 address one way: `[::1]`, and an
  // IPv4-mapped 127.x.y.z as `[::ffff:7fxx:xxxx]`.
  const canonical = new URL(`http://[${address}]/`).hostname;
  return canonical === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

/**
 * Whether control over HTTP is on: as the `control` option says, or by default when the agent
 * listens on a loopback address only (see {@link isLoopbackAddress}).
 */
export function controlEnabled(option: boolean | undefined, bind: string): boolean {
  return option ?? isLoopbackAddress(bind);
}

/**
 * Checks that a request may use the control API: with ACLs on, its token (read as every request's,
 * from the token header of the agent's style `names`, or `Authorization: Bearer`) must be a
 * management token (any other, or none, is the agent's `403 Permission denied`); with ACLs off
 * anyone on the gate's side of it may.
 */
export function requireControlAccess(acl: AccessControl, headers: Headers, names: HeaderNames): void {
  requireManagement(acl.authenticate(parseToken(headers, names)));
}
