/**
 * The agent's clock: what "now" is for its timestamps (`SubmitTime`, `CreateTime`, token expiry)
 * and when its simulated scheduler's steps are due. The real clock follows the machine's; a manual
 * clock stands still until a test moves it with {@link ManualClock.advance}, which runs every step
 * that falls due on the way, in order.
 *
 * Blocking queries and request timeouts stay on real time whatever the clock: they bound how long
 * a client's connection is held, which no test wants frozen (a test that advanced the clock by an
 * hour should not see its blocking query answered early, nor one wait for ever on a clock nobody
 * moves).
 *
 * @module
 */
import { parseGoDuration } from "../../go/duration.js";

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
    this.#timers.set(
      timer,
      setTimeout(() => {
        this.#timers.delete(timer);
        void callback();
      }, delayMs),
    );
    return timer;
  }

  clearTimer(timer: ClockTimer): void {
    clearTimeout(this.#timers.get(timer));
    this.#timers.delete(timer);
  }
}

/** A step of the manual clock. */
interface ManualTimer extends ClockTimer {
  readonly sequence: number;
  readonly callback: ClockCallback;
}

/**
 * A clock that moves only when told. Steps due now (a delay of 0: an evaluation to process) run
 * at once, as on the real clock; later ones wait for {@link ManualClock.advance}.
 */
export class ManualClock implements Clock {
  readonly kind = "manual";
  #now: number;
  #sequence = 0;
  readonly #timers = new Set<ManualTimer>();
  /** Steps due now that are running or about to (awaited by `advance` and `settle`). */
  readonly #running = new Set<Promise<void>>();

  /** @param startMs - the clock's time at first, in epoch milliseconds (now by default). */
  constructor(startMs: number = Date.now()) {
    this.#now = Math.floor(startMs);
  }

  nowMs(): number {
    return this.#now;
  }

  nowNs(): bigint {
    return BigInt(this.#now) * 1_000_000n;
  }

  setTimer(delayMs: number, callback: ClockCallback): ClockTimer {
    const timer: ManualTimer = { dueAt: this.#now + Math.max(0, delayMs), sequence: this.#sequence++, callback };
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
   * Moves the clock `ms` forward, running every step that falls due on the way in the order they
   * fall due (and those they schedule, if due before the end), each at its own time; resolves once
   * they all ran.
   */
  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`the clock only moves forward, by a finite time: ${ms}`);
    const target = this.#now + ms;
    for (;;) {
      await this.settle();
      const next = [...this.#timers].filter((timer) => timer.dueAt <= target).sort(byDue)[0];
      if (next === undefined) break;
      this.#now = Math.max(this.#now, next.dueAt);
      await this.#fire(next);
    }
    this.#now = target;
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
  return a.dueAt - b.dueAt || (a as ManualTimer).sequence - (b as ManualTimer).sequence;
}

/**
 * A duration as tests write it: a number of milliseconds, or Go's duration syntax (`"10m"`,
 * `"1h30m"`, `"250ms"`, `"1.5s"`).
 *
 * @throws RangeError for anything else, or a negative duration.
 */
export function parseDuration(duration: number | string): number {
  const ms = typeof duration === "number" ? duration : parseGoDuration(duration);
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`${JSON.stringify(duration)} is not a duration: give milliseconds, or write it as 10m, 1h30m, 250ms or 1.5s`);
  }
  return ms;
}
