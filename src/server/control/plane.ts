/**
 * The control plane of one agent: its request journal, its fault rules and its leader switch, and
 * the waits that faults add, which end when the agent closes. The HTTP adapter
 * (`http/control-routes.ts`) serves it under `/_bexpr/` through the gate (`access.ts`); the
 * agent's programmatic API (`startAgent()`'s result) calls it directly.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";
import { pathOf } from "./access.js";
import { Faults, type FaultAction } from "./faults.js";
import { describeRequest, Journal, keptHeaders, withoutFragment } from "./journal.js";
import { LeaderSwitch } from "./leader.js";
import type { HeaderNames } from "../base/header-names.js";

/** Options of a {@link ControlPlane}. */
export interface ControlPlaneOptions {
  /** Whether the control routes are served over HTTP (the agent's `control` option, resolved). */
  readonly http: boolean;
  /** The agent's region. */
  readonly region: string;
  /** The agent's header names: the journal reads an answer's index header by them, the leader switch a request's query. */
  readonly headerNames: HeaderNames;
  /** The agent's clock, in milliseconds since the epoch (the journal's times). */
  readonly now: () => number;
  /** The cost budget of one request's filters (the agent's `limits.filterCostPerRequest`). */
  readonly filterCostPerRequest: number;
  /** Told when a test loses the cluster's leader (`false`) or gives it back (`true`). */
  readonly onLeaderChange?: (known: boolean) => void;
}

/** The journal, the faults and the leader switch of one agent. */
export class ControlPlane {
  /** Whether the control routes are served over HTTP. */
  readonly http: boolean;
  /** The request journal. */
  readonly journal: Journal;
  /** The fault rules. */
  readonly faults: Faults;
  /** The leader-loss switch. */
  readonly leader: LeaderSwitch;
  readonly #now: () => number;
  /** The latency waits under way, each with the function that ends it. */
  readonly #waits = new Set<() => void>();
  #closed = false;

  constructor(options: ControlPlaneOptions) {
    this.http = options.http;
    this.#now = options.now;
    this.journal = new Journal({ now: options.now, filterCostPerQuery: options.filterCostPerRequest, indexHeader: options.headerNames.index });
    this.faults = new Faults(options.filterCostPerRequest);
    this.leader = new LeaderSwitch({ region: options.region, headerNames: options.headerNames }, Date.now, options.onLeaderChange);
  }

  /**
   * Whether the lane of repeated list requests may answer before the router: not while a fault
   * may fire (the router's hook applies them) or while the leader is lost (the lane's headers say
   * it is known).
   */
  get laneOpen(): boolean {
    return this.faults.active === 0 && !this.leader.lost;
  }

  /** How many requests a fault is delaying right now. */
  get waiting(): number {
    return this.#waits.size;
  }

  /**
   * The fault that fires on a request (counted, and noted in the journal), or undefined. The
   * router asks for every request but those of the control routes, which are never faulted.
   */
  fault(request: IncomingMessage): FaultAction | undefined {
    if (this.faults.active === 0) return undefined;
    const url = withoutFragment(request.url ?? "");
    const path = pathOf(url);
    const method = request.method ?? "";
    const action = this.faults.fire({ method, path, describe: () => describeRequest(method, url, keptHeaders(request.headers), this.#now()) });
    if (action !== undefined) this.journal.markFault(request, action.id);
    return action;
  }

  /** Waits `ms` milliseconds of real time, or less if the agent closes meanwhile. */
  delay(ms: number): Promise<void> {
    if (this.#closed || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.#waits.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.#waits.add(end);
    });
  }

  /** Ends every latency wait at once (the requests go on to be answered) and adds no more. */
  close(): void {
    this.#closed = true;
    for (const end of [...this.#waits]) end();
  }
}
