/**
 * Blocking queries (long polling): with `?index=N`, a list request waits until the state it reads
 * passes index N, or until its wait time is over, then answers with the current state.
 *
 * @module
 */
import type { BlockingObserver } from "../metrics/index.js";
import type { Store, TableName } from "../state/store.js";

/** The wait when `?wait` is absent, zero or negative (spec 4.5: 5 minutes). */
export const DEFAULT_WAIT_MS = 5 * 60_000;

/** The longest wait a client may ask for (spec 4.5 and 8: 10 minutes). */
export const MAX_WAIT_MS = 10 * 60_000;

/** The extra random wait is up to wait / JITTER_FRACTION (spec 4.5). */
export const JITTER_FRACTION = 16;

/** How long a blocking query waits: the requested time, defaulted and capped, plus jitter in [0, wait/16). */
export function blockingWait(requestedMs: number | undefined, random: () => number = Math.random): number {
  const wait = requestedMs === undefined || requestedMs <= 0 ? DEFAULT_WAIT_MS : Math.min(requestedMs, MAX_WAIT_MS);
  return wait + Math.floor(random() * (wait / JITTER_FRACTION));
}

/** What a query answers: its result and the index of the state it read. */
export interface Answer {
  readonly index: number;
}

/** A blocking read: what it watches and how long it may wait. */
export interface BlockingRequest {
  readonly store: Store;
  /** The tables whose writes wake it (to run the query again). */
  readonly tables: readonly TableName[];
  /** `?index`: wait until the answer's index passes it (0: answer at once). */
  readonly minIndex: number;
  /** `?wait` in milliseconds (undefined: the default). */
  readonly waitMs: number | undefined;
  /** Fires when the client goes away. */
  readonly signal: AbortSignal;
  readonly observer?: BlockingObserver;
  /** The jitter's random source (for tests). */
  readonly random?: () => number;
  /**
   * Arms a wake, before the wait is over, when the caller's token expires (on the agent's clock,
   * which a test may drive), and returns what disarms it.
   */
  readonly atExpiry?: (wake: () => void) => () => void;
}

/** A blocking read whose query is given, on each run, what `input` makes afresh for it (the caller, authenticated again). */
export interface BlockingRequestWith<I> extends BlockingRequest {
  readonly input: () => I;
}

/**
 * Runs `query` once, or, when `minIndex` is above 0, until the index it reports passes
 * `minIndex`, the wait is over, the client goes away, or the store closes. A timeout is not an
 * error: the current answer is returned, as the reference does. The query runs again after every
 * wake, timeouts included, so what it checks (the caller's token) is checked again before anything
 * is answered; it wakes on any write to `tables` after the state it last read, so writes that
 * leave its index where it was (an ACL change) make it check again and go back to waiting. Each
 * run is given what the request's `input` makes then ({@link BlockingRequestWith}).
 */
export function blockingQuery<A extends Answer>(request: BlockingRequest, query: () => A | Promise<A>): Promise<A>;
export function blockingQuery<A extends Answer, I>(request: BlockingRequestWith<I>, query: (input: I) => A | Promise<A>): Promise<A>;
export async function blockingQuery<A extends Answer>(request: BlockingRequest & { readonly input?: () => unknown }, query: (input?: unknown) => A | Promise<A>): Promise<A> {
  const { store, tables, minIndex, signal, observer, input } = request;
  // Each run is counted, and remembers the index it read (the wait is for a write after it).
  let seen = store.index;
  observer?.pass();
  // A query that answers at once (from memory) is not held back a turn.
  const first = query(input?.());
  let answer = first instanceof Promise ? await first : first;
  if (minIndex <= 0 || answer.index > minIndex) return answer;
  // One controller stops the wait, on the client's leaving or the timer (AbortSignal.any would
  // keep a composite signal and weak references per waiting query).
  const stopping = new AbortController();
  const stop = stopping.signal;
  const abort = () => stopping.abort();
  const waitMs = blockingWait(request.waitMs, request.random);
  const timer = setTimeout(abort, waitMs);
  const disarm = request.atExpiry?.(abort);
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  observer?.parked();
  let failed = true;
  try {
    while (answer.index <= minIndex && !stop.aborted && !store.closed) {
      await store.waitForChange(tables, seen, stop);
      seen = store.index;
      observer?.pass();
      answer = await query(input?.());
    }
    failed = false;
    return answer;
  } finally {
    clearTimeout(timer);
    disarm?.();
    signal.removeEventListener("abort", abort);
    // A query that failed after waking was woken by a change.
    const reason = failed || answer.index > minIndex ? "change" : store.closed ? "shutdown" : signal.aborted ? "disconnect" : "timeout";
    observer?.woken(reason);
  }
}
