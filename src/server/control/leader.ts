/**
 * The leader-loss switch: while it is off, the agent acts as a server of a cluster that has lost
 * its leader, as the reference does (`nomad/rpc.go`, `forward` and `getLeaderForRPC`):
 *
 * - every request the reference forwards to the leader fails with `500 No cluster leader`
 *   (`structs.ErrNoLeader`): writes, and reads without `?stale`;
 * - `?stale` reads are answered from the agent's state, with `X-Svc-KnownLeader: false` and
 *   `X-Svc-LastContact` (or the `X-Nomad-*` ones, in the agent's header style) the milliseconds
 *   since the leader was lost (`setQueryMeta` on a follower);
 * - what a server answers on its own is unaffected: the agent endpoints (`/v1/agent/…`),
 *   `/v1/metrics`, `/v1/regions` (`Region.List` does not forward) and the event stream (served
 *   from the server's own event broker), and everything outside `/v1/`.
 *
 * The reference checks the query (its 400s come first) and forwards a request for another region
 * before it looks for a leader, so those answers are unchanged here too.
 *
 * @module
 */
import { Refusal } from "../base/errors.js";
import { parseQueryOptions, type QuerySettings } from "../list/query.js";

/** The reference's `structs.ErrNoLeader` text. */
export const NO_LEADER = "No cluster leader";

/** Paths (exact, or prefixes ending in `/`) a server answers without its leader. */
export const LEADERLESS_PATHS: readonly string[] = ["/v1/agent/", "/v1/metrics", "/v1/regions", "/v1/event/stream", "/v1/operator/license", "/v1/operator/utilization"];

/** Whether `path` (or a route's pattern) is one a server answers without its leader ({@link LEADERLESS_PATHS}). */
export function answeredWithoutLeader(path: string): boolean {
  return LEADERLESS_PATHS.some((local) => (local.endsWith("/") ? path.startsWith(local) : path === local));
}

/** Whether the reference forwards a request for `path` (or a route's pattern) to the leader, unless it is a stale read. */
export function forwardedToLeader(path: string): boolean {
  return path.startsWith("/v1/") && !answeredWithoutLeader(path);
}

/** The request facts the switch decides on. */
export interface LeaderRequest {
  readonly method: string;
  /** The pattern of the route the request reached (`/v1/job/:id`). */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Whether the agent has a leader, as a test sets it (see the module's description). */
export class LeaderSwitch {
  #lostAt: number | undefined;

  /**
   * @param agent - the agent's region (requests for another are not the leader's to answer) and
   *   header names, to parse a request's query as every route does.
   * @param now - the real time in milliseconds (the last-contact header measures real time, as Raft's).
   * @param onChange - told when the leader is lost (`false`) or back (`true`): the scheduler stops meanwhile.
   */
  constructor(
    private readonly agent: QuerySettings,
    private readonly now: () => number = Date.now,
    private readonly onChange?: (known: boolean) => void,
  ) {}

  /** Whether the leader is lost. */
  get lost(): boolean {
    return this.#lostAt !== undefined;
  }

  /** Loses the leader (`false`) or gets it back (`true`); setting the current state again changes nothing. */
  set(known: boolean): void {
    if (typeof known !== "boolean") throw new TypeError(`the leader switch takes true or false, got ${String(known)}`);
    if (known === !this.lost) return;
    this.#lostAt = known ? undefined : this.now();
    this.onChange?.(known);
  }

  /** The last-contact header (`X-Svc-LastContact`) of a read while the leader is lost: milliseconds since it was. */
  lastContactMs(): number {
    return this.#lostAt === undefined ? 0 : Math.max(0, this.now() - this.#lostAt);
  }

  /**
   * Refuses a request the leader would have to answer while it is lost: `500 No cluster leader`.
   *
   * @throws Refusal (`unreachable`, the reference's 500) for writes and consistent reads of the
   *   scheduler's API; the 400 of a malformed query first, as the reference parses it first.
   */
  requireLeader(request: LeaderRequest): void {
    if (this.#lostAt === undefined || !forwardedToLeader(request.path)) return;
    const region = request.query.get("region");
    if (region !== null && region !== "" && region !== this.agent.region) return;
    if (request.method === "GET" && parseQueryOptions(request.query, request.headers, this.agent).allowStale) return;
    throw new Refusal("unreachable", NO_LEADER);
  }
}
