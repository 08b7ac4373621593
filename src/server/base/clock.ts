/**
 * The agent's clock: what "now" is for its timestamps (`SubmitTime`, `CreateTime`, token expiry)
 * and when its simulated scheduler's steps are due. The real clock follows the machine's; a manual
 * clock stands still until a test moves it with {@link ManualClock.advance}, which runs every step
 * that falls due on the way, in order.
 *
 * Blocking queries and request timeouts stay on real time whatever the clock: they bound how long
 * a client's connection is held, which no test wants frozen (a test that advanced the clock by an
 * hour should not see its blocking query answered early, nor one wait for ever on a clock nobody
 * moves). One wake is on this clock: a blocking query's at its token's expiry, since the token
 * expires by this clock (the query then answers `403`).
 *
 * A manual clock keeps nanoseconds, as Go's `time.Time` does, and stays at or before
 * {@link LATEST_CLOCK_NS}: the reference writes `SubmitTime`, `CreateTime` and `ModifyTime` as
 * int64 nanoseconds since the epoch, which cannot say a later time.
 *
 * @module
 */
import { GoDurationError, MAX_GO_DURATION_NS, parseGoDurationNs } from "../../go/duration.js";

const NS_PER_MS = 1_000_000n;

/**
 * The latest time a manual clock reaches, 2262-04-11T23:47:16.854775807Z: 2^63-1 nanoseconds since
 * the epoch, the last instant whose `UnixNano()` the reference can write as int64 (`SubmitTime`,
 * `ModifyTime`); a Go client cannot decode a later one.
 */
export const LATEST_CLOCK_NS = 2n ** 63n - 1n;

/** The text of {@link LATEST_CLOCK_NS}. */
export const LATEST_CLOCK_TEXT = isoText(LATEST_CLOCK_NS);

/** Go's longest duration (`time.Duration` is int64 nanoseconds), as written in refusals. */
const LONGEST_DURATION_TEXT = `${MAX_GO_DURATION_NS}ns (2562047h47m16.854775807s)`;

/** A move of a manual clock that would take it past {@link LATEST_CLOCK_NS}; the clock stays where it was. */
export class ClockLimitError extends RangeError {
  override readonly name = "ClockLimitError";
  readonly code = "past_latest_time";

  /**
   * @param nowNs - the clock's time, in nanoseconds since the epoch.
   * @param byNs - the move refused, in nanoseconds.
   */
  constructor(
    readonly nowNs: bigint,
    readonly byNs: bigint,
  ) {
    super(
      `the clock cannot move past ${LATEST_CLOCK_TEXT} (${LATEST_CLOCK_NS} ns since the epoch, the latest time the reference writes as int64 nanoseconds): ` +
        `it is ${isoText(nowNs)}, so it moves by ${LATEST_CLOCK_NS - nowNs}ns at most, not ${byNs}ns`,
    );
  }
}

/** A step the clock runs when it falls due; the clock awaits what it returns. */
export type ClockCallback = () => void | Promise<void>;

/** A scheduled step, to cancel. */
export interface ClockTimer {
  /** When it is due, in the clock's milliseconds. */
  readonly dueAt: number;
}

/** What the agent reads the time from and schedules its steps on. */
export interface Clock {
  /** `"real"` or `"manual"`. */
  readonly kind: "real" | "manual";
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Nanoseconds since the epoch, as the reference's timestamps (above 2^53, so a bigint). */
  nowNs(): bigint;
  /** Runs `callback` once `delayMs` have passed on this clock. */
  setTimer(delayMs: number, callback: ClockCallback): ClockTimer;
  /** Cancels a step not yet run. */
  clearTimer(timer: ClockTimer): void;
}

/**
 * The longest delay Node's `setTimeout` keeps (about 24.8 days): it runs a longer one after 1 ms,
 * so the real clock waits for a longer step in turns of at most this long.
 */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

/** The machine's clock. */
export class RealClock implements Clock {
  readonly kind = "real";
  readonly #timers = new Map<ClockTimer, NodeJS.Timeout>();

  nowMs(): number {
    return Date.now();
  }

  nowNs(): bigint {
    // Milliseconds from the wall clock, the digits below them from the monotonic one, so that two
    // timestamps of one millisecond still differ.
    return BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  }

  setTimer(delayMs: number, callback: ClockCallback): ClockTimer {
    const timer: ClockTimer = { dueAt: Date.now() + delayMs };
    const wait = (ms: number) =>
      this.#timers.set(
        timer,
        setTimeout(() => {
          if (ms > LONGEST_TIMEOUT_MS) {
            wait(timer.dueAt - Date.now());
            return;
          }
          this.#timers.delete(timer);
          void callback();
        }, Math.min(ms, LONGEST_TIMEOUT_MS)),
      );
    wait(delayMs);
    return timer;
  }

  clearTimer(timer: ClockTimer): void {
    clearTimeout(this.#timers.get(timer));
    this.#timers.delete(timer);
  }
}

/** A step of the manual clock. */
interface ManualTimer extends ClockTimer {
  /** When it is due, in nanoseconds since the epoch. */
  readonly dueNs: bigint;
  readonly sequence: number;
  readonly callback: ClockCallback;
}

/**
 * A clock that moves only when told. Steps due now (a delay of 0: an evaluation to process) run
 * at once, as on the real clock; later ones wait for {@link ManualClock.advance}. It keeps
 * nanoseconds, so that moves of less than a millisecond add up, and it never passes
 * {@link LATEST_CLOCK_NS}: a step due after that never runs.
 */
export class ManualClock implements Clock {
  readonly kind = "manual";
  #nowNs: bigint;
  #sequence = 0;
  readonly #timers = new Set<ManualTimer>();
  /** Steps due now that are running or about to (awaited by `advance` and `settle`). */
  readonly #running = new Set<Promise<void>>();

  /**
   * @param startMs - the clock's time at first, in epoch milliseconds (now by default).
   * @throws RangeError for a start after {@link LATEST_CLOCK_NS}.
   */
  constructor(startMs: number = Date.now()) {
    const startNs = BigInt(Math.floor(startMs)) * NS_PER_MS;
    if (startNs > LATEST_CLOCK_NS) throw new RangeError(`a manual clock starts at ${LATEST_CLOCK_TEXT} at the latest`);
    this.#nowNs = startNs;
  }

  nowMs(): number {
    return Number(floorDiv(this.#nowNs, NS_PER_MS));
  }

  nowNs(): bigint {
    return this.#nowNs;
  }

  setTimer(delayMs: number, callback: ClockCallback): ClockTimer {
    // A delay that is not a number of milliseconds never falls due (as a step past the latest time).
    const dueNs = Number.isFinite(delayMs) ? this.#nowNs + nanosecondsOf(Math.max(0, delayMs)) : LATEST_CLOCK_NS + 1n;
    const timer: ManualTimer = { dueAt: Number(dueNs) / 1e6, dueNs, sequence: this.#sequence++, callback };
    this.#timers.add(timer);
    if (delayMs <= 0) {
      // Due now: run it on the next turn, as a timer of the real clock would.
      const run = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#fire(timer));
      this.#running.add(run);
      void run.finally(() => this.#running.delete(run));
    }
    return timer;
  }

  clearTimer(timer: ClockTimer): void {
    this.#timers.delete(timer as ManualTimer);
  }

  /** The steps not yet run, earliest first. */
  get pending(): readonly ClockTimer[] {
    return [...this.#timers].sort(byDue);
  }

  /**
   * Moves the clock `ms` forward (see {@link ManualClock.advanceNs}).
   *
   * @throws RangeError for a negative or infinite time; ClockLimitError past {@link LATEST_CLOCK_NS}.
   */
  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`the clock only moves forward, by a finite time: ${ms}`);
    await this.advanceNs(nanosecondsOf(ms));
  }

  /**
   * Moves the clock `ns` nanoseconds forward, running every step that falls due on the way in the
   * order they fall due (and those they schedule, if due before the end), each at its own time;
   * resolves once they all ran. A move past {@link LATEST_CLOCK_NS} is refused before anything
   * runs, and the clock stays where it was.
   *
   * @throws RangeError for a negative time; ClockLimitError past {@link LATEST_CLOCK_NS}.
   */
  async advanceNs(ns: bigint): Promise<void> {
    if (ns < 0n) throw new RangeError(`the clock only moves forward: ${ns}ns`);
    if (ns > LATEST_CLOCK_NS - this.#nowNs) throw new ClockLimitError(this.#nowNs, ns);
    const target = this.#nowNs + ns;
    for (;;) {
      await this.settle();
      const next = [...this.#timers].filter((timer) => timer.dueNs <= target).sort(byDue)[0];
      if (next === undefined) break;
      if (next.dueNs > this.#nowNs) this.#nowNs = next.dueNs;
      await this.#fire(next);
    }
    this.#nowNs = target;
    await this.settle();
  }

  /** Resolves once the steps due now have run (and those they started that are due now too). */
  async settle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }

  async #fire(timer: ManualTimer): Promise<void> {
    if (!this.#timers.delete(timer)) return;
    await timer.callback();
  }
}

function byDue(a: ClockTimer, b: ClockTimer): number {
  const [first, second] = [a as ManualTimer, b as ManualTimer];
  return first.dueNs < second.dueNs ? -1 : first.dueNs > second.dueNs ? 1 : first.sequence - second.sequence;
}

/** Milliseconds (finite, fractional) as whole nanoseconds. */
function nanosecondsOf(ms: number): bigint {
  return BigInt(Math.round(ms * 1e6));
}

/** `a / b` rounded down (bigint division rounds toward zero). */
function floorDiv(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return quotient * b > a ? quotient - 1n : quotient;
}

/** Nanoseconds since the epoch as an ISO 8601 time with all nine digits: `2262-04-11T23:47:16.854775807Z`. */
function isoText(ns: bigint): string {
  const ms = floorDiv(ns, NS_PER_MS);
  const below = (ns - ms * NS_PER_MS).toString().padStart(6, "0");
  return `${new Date(Number(ms)).toISOString().slice(0, -1)}${below}Z`;
}

/** How tests write a duration, for the refusals. */
const DURATION_HINT = "give milliseconds, or write it as 10m, 1h30m, 250ms or 1.5s";

/**
 * A duration as tests write it, in nanoseconds, exact: a number of milliseconds, or Go's duration
 * syntax (`"10m"`, `"1h30m"`, `"250ms"`, `"1.5s"`, `"1ns"`), at most Go's longest,
 * {@link MAX_GO_DURATION_NS}.
 *
 * @throws RangeError for anything else, a negative duration, or one longer than Go's longest.
 */
export function parseDurationNs(duration: number | string): bigint {
  let ns: bigint;
  if (typeof duration === "number") {
    if (!Number.isFinite(duration) || duration < 0) throw new RangeError(`${duration} is not a duration: ${DURATION_HINT}`);
    ns = nanosecondsOf(duration);
    if (ns > MAX_GO_DURATION_NS) throw new RangeError(`${duration} ms is longer than the longest duration, ${LONGEST_DURATION_TEXT}: Go's time.Duration is int64 nanoseconds`);
    return ns;
  }
  try {
    ns = parseGoDurationNs(duration);
  } catch (error) {
    if (!(error instanceof GoDurationError)) throw error;
    if (error.code === "out_of_range") throw new RangeError(`${error.message}: the longest duration is ${LONGEST_DURATION_TEXT}, Go's time.Duration being int64 nanoseconds`);
    throw new RangeError(`${JSON.stringify(duration)} is not a duration: ${DURATION_HINT}`);
  }
  if (ns < 0n) throw new RangeError(`${JSON.stringify(duration)} is not a duration: ${DURATION_HINT}`);
  return ns;
}

/**
 * A duration as tests write it (see {@link parseDurationNs}), in milliseconds (fractional).
 *
 * @throws RangeError for anything else, a negative duration, or one longer than Go's longest.
 */
export function parseDuration(duration: number | string): number {
  const ns = parseDurationNs(duration);
  return typeof duration === "number" ? duration : Number(ns) / 1e6;
}
