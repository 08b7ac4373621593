/**
 * The page's side of the agent's HTTP API: list URLs, the token, JSON read without losing int64
 * values, and a list followed live through blocking queries.
 *
 * @module
 */
import { parseJson } from "../json.js";
import { HEADER_NAMES, HEADER_STYLES } from "../server/base/header-names.js";

/** The lists the page shows. */
export type ListName = "jobs" | "deployments";

/** A row of either list: both have an ID and a namespace; the rest is shown as it comes. */
export interface ListRow {
  readonly ID: string;
  readonly Namespace: string;
  readonly [field: string]: unknown;
}

/** Where the token is kept: for this tab only, gone when it closes. */
export const TOKEN_STORAGE_KEY = "bexpr.ui.token";

/**
 * How long one blocking query waits for a change (a Go duration, as `?wait` takes it). Shorter
 * than the agent's 5-minute default so that a connection a proxy dropped silently is noticed.
 */
export const BLOCKING_WAIT = "60s";

/** The pause before asking again after a network failure or a 5xx. */
export const RETRY_DELAY_MS = 2_000;

/** A refusal from the agent (4xx, 5xx), with its plain-text reason. */
export class AgentError extends Error {
  override readonly name = "AgentError";

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whether the agent answers `ACL token not found` for this token's own details
 * (`GET /v1/acl/token/self`, 404 as the reference's): the lists answer a bare `Permission denied` for an unknown token as
 * for a token without the capability, as the reference's do. A network failure counts as known.
 */
export async function unknownToken(token: string, signal: AbortSignal): Promise<boolean> {
  try {
    await getJson("/v1/acl/token/self", token, signal);
    return false;
  } catch (error) {
    return error instanceof AgentError && (error.status === 403 || error.status === 404) && error.message.startsWith("ACL token not found");
  }
}

/** The token of this tab ("" when there is none). */
export function loadToken(): string {
  return sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? "";
}

/** Keeps (or with "" forgets) the token of this tab. */
export function saveToken(token: string): void {
  if (token === "") sessionStorage.removeItem(TOKEN_STORAGE_KEY);
  else sessionStorage.setItem(TOKEN_STORAGE_KEY, token);
}

/** JSON text of a value that may hold bigints (written as their digits), for display and comparison. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item)) ?? "";
}

/** The path and query of a list request. */
export function listPath(list: ListName, namespace: string, filter: string, index = 0): string {
  const query = new URLSearchParams({ namespace });
  if (filter.trim() !== "") query.set("filter", filter);
  if (index > 0) {
    query.set("index", String(index));
    query.set("wait", BLOCKING_WAIT);
  }
  return `/v1/${list}?${query}`;
}

/**
 * The index of an answer, from the index header of whichever header style the agent that served
 * the page answers in (`X-Svc-Index`, `X-Nomad-Index`); 0 when there is none.
 */
export function answerIndex(headers: Headers): number {
  for (const style of HEADER_STYLES) {
    const value = headers.get(HEADER_NAMES[style].index);
    if (value !== null) return Number(value);
  }
  return 0;
}

/**
 * One GET of the agent: the parsed JSON and its index; a refusal is an {@link AgentError} with the
 * agent's text. The token goes as `Authorization: Bearer`, which the agent reads in either header
 * style, as the reference does.
 */
export async function getJson(path: string, token: string, signal: AbortSignal): Promise<{ body: unknown; index: number }> {
  const response = await fetch(path, { headers: token === "" ? {} : { Authorization: `Bearer ${token}` }, signal, cache: "no-store" });
  const text = await response.text();
  if (!response.ok) throw new AgentError(response.status, text.trim() || response.statusText);
  return { body: parseJson(text), index: answerIndex(response.headers) };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** What a followed list reports. */
export interface ListListener {
  /** The rows at `index` (the first answer, then each change). */
  rows(rows: readonly ListRow[], index: number): void;
  /** The agent refused the request (a 4xx): following stops, since asking again would get the same answer. */
  refused(error: AgentError): void;
  /** A network failure or a 5xx: the list is asked again after {@link RETRY_DELAY_MS}. */
  failed(error: Error): void;
}

/**
 * Follows a list: the first request answers at once; each next one is a blocking query that the
 * agent answers when the list's index passes the last one seen (or after {@link BLOCKING_WAIT}
 * with the same rows, which are then not reported again). Runs until `signal` aborts or the agent
 * refuses.
 */
export async function followList(list: ListName, namespace: string, filter: string, token: string, signal: AbortSignal, listener: ListListener): Promise<void> {
  let index = 0;
  while (!signal.aborted) {
    try {
      const answer = await getJson(listPath(list, namespace, filter, index), token, signal);
      if (signal.aborted) return;
      // The same index again means the wait ran out with nothing new. Another index is news, even
      // a lower one (an agent restarted on a fresh store), which the next request then waits past.
      if (answer.index !== index || index === 0) listener.rows(answer.body as ListRow[], answer.index);
      index = answer.index > 0 ? answer.index : 0;
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof AgentError && error.status >= 400 && error.status < 500) {
        listener.refused(error);
        return;
      }
      listener.failed(error instanceof Error ? error : new Error(String(error)));
      index = 0;
      await pause(RETRY_DELAY_MS, signal);
    }
  }
}
