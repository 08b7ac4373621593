/**
 * Blocking queries (long polling): with `?index=N`, a list request waits until the state it reads
 * passes index N, or until its wait time is over, then answers with the current state.
 *
 * @module
 */
import type { StateStore, TableName } from "./store.js";

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

/**
 * Runs `query` once, or, when `minIndex` is above 0, until the index it reports passes
 * `minIndex`, the wait is over, the client goes away (`signal`), or the store closes. A timeout is
 * not an error: the current answer is returned, as the reference does.
 */
export async function blockingQuery<A extends Answer>(
  store: StateStore,
  tables: readonly TableName[],
  minIndex: number,
  waitMs: number | undefined,
  signal: AbortSignal,
  query: () => A,
  random: () => number = Math.random,
): Promise<A> {
  let answer = query();
  if (minIndex <= 0 || answer.index > minIndex) return answer;
  const expiry = new AbortController();
  const timer = setTimeout(() => expiry.abort(), blockingWait(waitMs, random));
  const stop = AbortSignal.any([signal, expiry.signal]);
  try {
    while (answer.index <= minIndex && !stop.aborted && !store.closed) {
      await store.waitForChange(tables, minIndex, stop);
      answer = query();
    }
    return answer;
  } finally {
    clearTimeout(timer);
  }
}
