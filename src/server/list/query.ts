/**
 * Every request's query string and auth headers, parsed once into {@link QueryOptions}, in the
 * reference's order so that the first failing parameter decides the 400 (stale, then per_page,
 * then wait, then index). Unknown parameters are ignored, as the reference ignores them.
 *
 * @module
 */
import { parseGoBool } from "../../go/strconv.js";
import { parseGoDuration } from "../../go/duration.js";
import { invalid } from "../base/errors.js";
import type { HeaderNames } from "../base/header-names.js";

/** The namespace value that selects every namespace (the stores' queries read it so). */
export { ALL_NAMESPACES } from "../state/store.js";

/** The namespace used when none is given. */
export const DEFAULT_NAMESPACE = "default";

/** The options of one request. */
export interface QueryOptions {
  /** `?region`, or the agent's own region. */
  readonly region: string;
  /** The secret from the style's token header (`X-Svc-Token`, `X-Nomad-Token`) or `Authorization: Bearer …`; empty when there is none. */
  readonly token: string;
  /** `?stale` (present and empty, or a true bool word). */
  readonly allowStale: boolean;
  /** `?prefix` (empty when absent). */
  readonly prefix: string;
  /** `?namespace`, or `default`; `*` selects all. */
  readonly namespace: string;
  /** `?per_page`: page size, 0 for no paging. */
  readonly perPage: number;
  /** `?next_token`: the token of the first item of the page (empty when absent). */
  readonly nextToken: string;
  /** `?filter` (empty when absent). */
  readonly filter: string;
  /** `?reverse=true` (only that exact value reverses). */
  readonly reverse: boolean;
  /** `?index`: the blocking query's index, 0 for no blocking. */
  readonly minQueryIndex: number;
  /** `?wait` in milliseconds, when given. */
  readonly maxQueryTime: number | undefined;
  /** `?pretty` (any value but `0`). */
  readonly pretty: boolean;
}

/** Request headers, lower-cased as Node gives them. */
export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** What the agent's settings give to the parsing of a request. */
export interface QuerySettings {
  /** The agent's region: a request without `?region` is for it. */
  readonly region: string;
  /** The agent's header style: which header holds the token. */
  readonly headerNames: HeaderNames;
}

const PER_PAGE = /^[+-]?[0-9]+$/;
const INT32_MAX = 2 ** 31 - 1;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The token of a request, as the reference's `parseToken` reads it: the style's token header
 * (`X-Svc-Token`, or `X-Nomad-Token` in the nomad style; trimmed) wins; otherwise
 * `Authorization: Bearer <t>`, with the scheme in any case and the first word of its value. The
 * other style's token header is not read.
 */
export function parseToken(headers: Headers, names: HeaderNames): string {
  const direct = header(headers, names.token)?.trim();
  if (direct) return direct;
  const authorization = header(headers, "authorization")?.trim();
  if (authorization === undefined) return "";
  const [scheme, value] = authorization.split(/\s+/, 2);
  return scheme?.toLowerCase() === "bearer" && value !== undefined ? value : "";
}

/** `pretty` as the reference reads it: present, with a first value other than `0`. */
function parsePretty(query: URLSearchParams): boolean {
  return query.has("pretty") && query.get("pretty") !== "0";
}

/** `?stale`: present and empty, or a true bool word; a malformed value is the reference's 400. */
export function parseStale(query: URLSearchParams): boolean {
  if (!query.has("stale")) return false;
  const stale = query.get("stale")!;
  if (stale === "") return true;
  const parsed = parseGoBool(stale);
  if (!parsed.ok) throw invalid("Expect `true` or `false` for `stale` query string parameter");
  return parsed.value;
}

/**
 * Parses the query options of a request.
 *
 * @throws a 400 refusal with the reference's text for a malformed `stale`, `per_page`,
 * `wait` or `index`.
 */
export function parseQueryOptions(query: URLSearchParams, headers: Headers, agent: QuerySettings): QueryOptions {
  const region = query.get("region") || agent.region;
  const token = parseToken(headers, agent.headerNames);

  const allowStale = parseStale(query);

  const prefix = query.get("prefix") ?? "";
  const namespace = query.get("namespace") || DEFAULT_NAMESPACE;

  let perPage = 0;
  const perPageText = query.get("per_page");
  if (perPageText !== null && perPageText !== "") {
    // Go's ParseInt(v, 10, 32); negative sizes are refused too (the reference accepts them oddly).
    const value = PER_PAGE.test(perPageText) ? Number(perPageText) : Number.NaN;
    if (!Number.isInteger(value) || value < 0 || value > INT32_MAX) {
      throw invalid("Expect a number for `per_page` query string parameter");
    }
    perPage = value;
  }
  const nextToken = query.get("next_token") ?? "";
  const filter = query.get("filter") ?? "";
  const reverse = query.get("reverse") === "true";

  let maxQueryTime: number | undefined;
  const wait = query.get("wait");
  if (wait !== null && wait !== "") {
    maxQueryTime = parseGoDuration(wait);
    if (maxQueryTime === undefined) throw invalid("Invalid wait time");
  }
  let minQueryIndex = 0;
  const index = query.get("index");
  if (index !== null && index !== "") {
    if (!/^[0-9]+$/.test(index) || BigInt(index) > 2n ** 64n - 1n) throw invalid("Invalid index");
    minQueryIndex = Number(index);
  }

  return {
    region,
    token,
    allowStale,
    prefix,
    namespace,
    perPage,
    nextToken,
    filter,
    reverse,
    minQueryIndex,
    maxQueryTime,
    pretty: parsePretty(query),
  };
}
