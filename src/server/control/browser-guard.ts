/**
 * What a web page in a developer's browser can make the agent do. With ACLs off (the default)
 * anything that reaches the agent may use it, and a browser can be made to reach it in two ways:
 *
 * - **DNS rebinding**: a page of `attacker.example` has its name resolve to 127.0.0.1, and its
 *   requests, same-origin in the browser's eyes, arrive with `Host: attacker.example`; the page
 *   can read every answer. Refused by the Host check: the agent answers to loopback names, IP
 *   addresses, the name it is bound to, and the names of `allowedHosts`, as Vite's
 *   `server.allowedHosts` and `kubectl proxy --accept-hosts` do. An IP address is always
 *   accepted: rebinding needs a name (a page at an address is that address's own origin).
 * - **Cross-site writes**: a page of another origin sends a request the browser does not ask the
 *   server about first (a "simple" request: a form, or `fetch` with a text body), and cannot
 *   read the answer but has its effect. Browsers send `Origin` with every request that is not a
 *   GET or HEAD (`null` where the origin is hidden), and clients that are not browsers (the
 *   reference's Go client, curl, Node's `fetch`) send none, so a write that carries one is a
 *   page's: it is refused unless it comes from the agent's own origin (its `/ui/`) or a host of
 *   `allowedHosts`, and unless it is JSON, a type the browser would have asked about first (the
 *   agent answers no such question, so even a page an allowed name covers, on another port or
 *   subdomain, cannot write without it). A write without an Origin is taken whatever its type:
 *   `curl -d` sends a form's, Node's `fetch` `text/plain`, the Go client none.
 *
 * Reads are not checked for their Origin: the agent sends no CORS headers, so a page of another
 * origin never sees their answers. Requests without a Host (HTTP/1.0) pass: no browser sends one.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";
import { isIPv4, isIPv6 } from "node:net";

/** The `allowedHosts` option: host names (`.example.com` for it and its subdomains), or `true` for any. */
export type AllowedHosts = readonly string[] | true;

/** The entry of `allowedHosts` (and the `--allowed-hosts` value) that accepts any host. */
export const ANY_HOST = "*";

/**
 * The media types a page may send without the browser asking the server first (the Fetch
 * standard's CORS-safelisted `Content-Type` values); a request without one is as simple.
 */
const SIMPLE_CONTENT_TYPES: ReadonlySet<string> = new Set(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]);

/** The most characters of a header quoted back in a refusal (a header may be 1 MiB long). */
const QUOTED_LENGTH = 100;

/** `host[:port]` as RFC 9110 has it, with the names browsers send (letters, digits, `-`, `.`, and `_`). */
const AUTHORITY = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_.-]+))(?::([0-9]{1,5}))?$/;

/** An entry of `allowedHosts`: a host name (a leading dot for its subdomains), an IP address, or `"*"` for any host. */
const HOST_ENTRY = /^\.?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?$/;

/** Why the guard refused a request: a stable code, its status, and the plain-text reason. */
export interface BrowserRefusal {
  /**
   * `host_not_allowed`: the Host names no host the agent serves (421); `origin_not_allowed`: a
   * write from a page of another origin (403); `simple_content_type`: a page's write that is not
   * JSON (403).
   */
  readonly code: "host_not_allowed" | "origin_not_allowed" | "simple_content_type";
  readonly status: 421 | 403;
  readonly message: string;
}

/** A Host header's (or an origin's) host, lower-case, without a final dot; IPv6 in brackets, as URLs write it. */
interface Authority {
  readonly hostname: string;
  /** The port as written, "" when there is none. */
  readonly port: string;
  readonly ip: boolean;
}

/** `[::1]`: the one spelling the WHATWG URL parser gives every spelling of an IPv6 address. */
function canonicalIPv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname;
}

/** A name without its final dot (`localhost.` is `localhost`), lower-case. */
function normalName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** The host and port of a Host header, or undefined when it is not `host[:port]`. */
export function parseHostHeader(value: string): Authority | undefined {
  const match = AUTHORITY.exec(value);
  if (match === null) return undefined;
  const [, v6, name, port = ""] = match;
  if (v6 !== undefined) return isIPv6(v6) ? { hostname: canonicalIPv6(v6), port, ip: true } : undefined;
  const hostname = normalName(name!);
  return hostname === "" ? undefined : { hostname, port, ip: isIPv4(hostname) };
}

/** Whether `entry` may be given in `allowedHosts`: a host name, `.name` for it and its subdomains, an IP address, or `*`. */
export function isAllowedHostEntry(entry: unknown): boolean {
  if (typeof entry !== "string") return false;
  const unbracketed = entry.startsWith("[") && entry.endsWith("]") ? entry.slice(1, -1) : entry;
  return entry === ANY_HOST || HOST_ENTRY.test(entry) || isIPv6(unbracketed);
}

/** The value of `--allowed-hosts` (comma-separated; `*` or `true` for any host) as the option takes it. */
export function parseAllowedHosts(values: readonly string[]): AllowedHosts {
  const entries = values.flatMap((value) => value.split(",")).map((entry) => entry.trim()).filter((entry) => entry !== "");
  return entries.includes(ANY_HOST) || entries.includes("true") ? true : entries;
}

/** The names of `allowedHosts`: exact ones, and those of a `.name` entry (the name and its subdomains). */
class HostNames {
  readonly #exact = new Set<string>();
  /** `.example.com`: the name with its dot, so that `badexample.com` does not end with it. */
  readonly #suffixes: string[] = [];

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      if (entry === ANY_HOST) continue;
      const unbracketed = entry.startsWith("[") && entry.endsWith("]") ? entry.slice(1, -1) : entry;
      if (isIPv6(unbracketed)) this.#exact.add(canonicalIPv6(unbracketed));
      else if (entry.startsWith(".")) {
        const name = normalName(entry);
        this.#exact.add(name.slice(1));
        this.#suffixes.push(name);
      } else this.#exact.add(normalName(entry));
    }
  }

  matches(hostname: string): boolean {
    return this.#exact.has(hostname) || this.#suffixes.some((suffix) => hostname.endsWith(suffix));
  }
}

/** The default port of an origin's scheme, for comparing it with a Host header that names none. */
function defaultPort(protocol: string): string {
  return protocol === "https:" ? "443" : "80";
}

/** A header's value as quoted in a refusal: JSON-quoted, cut at {@link QUOTED_LENGTH} characters. */
function quote(value: string): string {
  return JSON.stringify(value.length > QUOTED_LENGTH ? `${value.slice(0, QUOTED_LENGTH)}…` : value);
}

/** The essence of a Content-Type (`text/plain` of `Text/Plain; charset=utf-8`), as the browser's CORS check reads it. */
function essence(contentType: string): string {
  const semicolon = contentType.indexOf(";");
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** Options of {@link BrowserGuard}: the agent's `bind` and `allowedHosts`. */
export interface BrowserGuardOptions {
  /** The address or name the agent listens on; a name is one it answers to. */
  readonly bind: string;
  readonly allowedHosts: AllowedHosts;
}

/**
 * Decides, from its headers alone and before anything else, whether a request may reach the
 * agent (see the module's description).
 *
 * @example
 * ```ts
 * const guard = new BrowserGuard({ bind: "127.0.0.1", allowedHosts: [".corp.example"] });
 * guard.refusal(request); // undefined for Host: localhost:4646 or agent.corp.example; a 421 for Host: attacker.example
 * ```
 */
export class BrowserGuard {
  /** `allowedHosts` is `true` or holds `*`: any Host is accepted. */
  readonly #anyHost: boolean;
  readonly #listed: HostNames;
  /** The name the agent is bound to, when `bind` is a name rather than an address. */
  readonly #bindName: string | undefined;
  /**
   * The last Host header seen and its parse: a client sends the same Host with every request, so
   * that the pattern runs once per Host rather than once per request (the lane of repeated lists
   * answers in a few microseconds, and this check comes first on every request).
   */
  #lastHost = "";
  #lastAuthority: Authority | undefined = undefined;

  constructor(options: BrowserGuardOptions) {
    const entries = options.allowedHosts === true ? [] : options.allowedHosts;
    this.#anyHost = options.allowedHosts === true || entries.includes(ANY_HOST);
    this.#listed = new HostNames(entries);
    const bound = parseHostHeader(options.bind);
    this.#bindName = bound === undefined || bound.ip ? undefined : bound.hostname;
  }

  /** Whether the agent answers to `authority`'s host: an IP address, a loopback name, its bound name, or an allowed host. */
  #serves({ hostname, ip }: Authority): boolean {
    return ip || hostname === "localhost" || hostname.endsWith(".localhost") || hostname === this.#bindName || this.#anyHost || this.#listed.matches(hostname);
  }

  /**
   * Whether a write may come from a page of `origin`: the agent's own origin (the same host and
   * port as the request's Host, as its `/ui/` sends), or a host listed in `allowedHosts` (for a
   * proxy that rewrites the Host). `*` does not count here: it opens the Host check only.
   */
  #admitsOrigin(origin: string, host: Authority | undefined): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    const hostname = normalName(url.hostname);
    if (this.#listed.matches(hostname)) return true;
    const port = url.port || defaultPort(url.protocol);
    return host !== undefined && host.hostname === hostname && (host.port || defaultPort(url.protocol)) === port;
  }

  /** The parse of a non-empty Host header ({@link parseHostHeader}), the last one's kept. */
  #authorityOf(host: string): Authority | undefined {
    if (host !== this.#lastHost) {
      this.#lastAuthority = parseHostHeader(host);
      this.#lastHost = host;
    }
    return this.#lastAuthority;
  }

  /** Why `request` is refused, or undefined when it may go on. */
  refusal(request: IncomingMessage): BrowserRefusal | undefined {
    const { host, origin } = request.headers;
    // No Host (or an empty one): HTTP/1.0, which no browser speaks.
    const authority = host === undefined || host === "" ? undefined : this.#authorityOf(host);
    if (host !== undefined && host !== "" && (authority === undefined || !this.#serves(authority))) return hostRefusal(host, authority);
    if (request.method === "GET" || request.method === "HEAD" || origin === undefined) return undefined;
    if (!this.#admitsOrigin(origin, authority)) return originRefusal(origin);
    const contentType = request.headers["content-type"];
    if (contentType === undefined || SIMPLE_CONTENT_TYPES.has(essence(contentType))) return contentTypeRefusal(contentType);
    return undefined;
  }
}

function hostRefusal(host: string, authority: Authority | undefined): BrowserRefusal {
  const message =
    authority === undefined
      ? `Blocked request: the Host header ${quote(host)} is not a host name with an optional port`
      : `Blocked request: this agent does not answer to the host "${authority.hostname}" (another name pointed at it is how a web page reaches it by DNS rebinding). ` +
        `To allow it, start the agent with --allowed-hosts ${authority.hostname} (config key allowedHosts).`;
  return { code: "host_not_allowed", status: 421, message };
}

function originRefusal(origin: string): BrowserRefusal {
  let hostname: string | undefined;
  try {
    hostname = normalName(new URL(origin).hostname) || undefined;
  } catch {
    hostname = undefined;
  }
  const advice = hostname === undefined ? "" : ` To allow it, start the agent with --allowed-hosts ${hostname} (config key allowedHosts).`;
  return {
    code: "origin_not_allowed",
    status: 403,
    message: `Blocked request: a web page of ${quote(origin)} may not write to this agent; only the agent's own pages and those of its allowed hosts may.${advice}`,
  };
}

function contentTypeRefusal(contentType: string | undefined): BrowserRefusal {
  const sent = contentType === undefined ? "none" : quote(contentType);
  return {
    code: "simple_content_type",
    status: 403,
    message: `Blocked request: a write from a web page must be sent with Content-Type: application/json (the types a page of another site can send without the browser asking first are refused); this one has ${sent}`,
  };
}
