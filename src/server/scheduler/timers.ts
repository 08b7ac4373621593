/**
 * The scheduler's deferred steps: each has a name (one of each is scheduled at a time) and runs
 * on the agent's clock, or at once, in order, when a caller settles the queue (the demo data, a
 * test). The reference's scheduler runs its workers and its client's timers instead; the steps
 * here are what the simulation needs of them.
 *
 * @module
 */
import type { Clock, ClockTimer } from "../base/clock.js";

/** A deferred step, run by its timer, or at once with {@link StepQueue.settle}. */
interface Step {
  readonly run: () => Promise<void>;
  readonly timer: ClockTimer;
  readonly delayMs: number;
  /** When the timer fires (epoch milliseconds); settling runs steps in this order. */
  readonly dueAt: number;
}

/** The scheduler's steps, by name. */
export class StepQueue {
  readonly #steps = new Map<string, Step>();
  /** The keys each batched step (see {@link StepQueue.deferBatch}) runs with, by its name. */
  readonly #batches = new Map<string, Set<string>>();
  /** The steps their timers started that have not finished (a write on a shared store takes a while). */
  readonly #running = new Set<Promise<void>>();

  /**
   * @param clock - the clock the steps' timers run on.
   * @param onError - told of a step that failed (its promise rejected).
   */
  constructor(
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Whether a step of that name is scheduled. */
  has(name: string): boolean {
    return this.#steps.has(name);
  }

  /** Whether `key` is in the batch of the scheduled step `name` (see {@link StepQueue.deferBatch}). */
  hasBatched(name: string, key: string): boolean {
    return this.#steps.has(name) && this.#batches.get(name)?.has(key) === true;
  }

  /** Runs `run` in `delayMs`, unless a step of the same name is already scheduled. */
  defer(name: string, delayMs: number, run: () => Promise<void>): void {
    if (this.#steps.has(name)) return;
    const timer = this.clock.setTimer(delayMs, async () => {
      if (this.#steps.get(name)?.timer !== timer) return;
      this.#steps.delete(name);
      const running = run().catch((error: unknown) => this.onError(error));
      // Settling waits for the steps its timers started, as for those it runs itself.
      this.#running.add(running);
      try {
        await running;
      } finally {
        this.#running.delete(running);
      }
    });
    this.#steps.set(name, { run, delayMs, dueAt: timer.dueAt, timer });
  }

  /**
   * Adds `key` to the batch of the step `name`, scheduled in `delayMs` when it is not already:
   * the step runs `run` once with every key added until it runs (the writes of one instant made
   * one, as the reference's server batches the updates its clients send within a moment).
   */
  deferBatch(name: string, delayMs: number, key: string, run: (keys: readonly string[]) => Promise<void>): void {
    let batch = this.#batches.get(name);
    if (batch === undefined || !this.#steps.has(name)) {
      batch = new Set();
      this.#batches.set(name, batch);
    }
    batch.add(key);
    const keys = batch;
    this.defer(name, delayMs, () => {
      if (this.#batches.get(name) === keys) this.#batches.delete(name);
      return run([...keys]);
    });
  }

  /** Drops the scheduled steps whose names `which` selects (all of them without it). */
  drop(which: (name: string) => boolean = () => true): void {
    for (const [name, step] of this.#steps) {
      if (!which(name)) continue;
      this.clock.clearTimer(step.timer);
      this.#steps.delete(name);
      this.#batches.delete(name);
    }
  }

  /**
   * Runs the scheduled steps `which` selects now, in the order they fall due, and those they
   * schedule in turn, until none is left (with `immediateOnly`, only steps due at once); waits for
   * the steps their timers started.
   */
  async settle(which: (name: string) => boolean, immediateOnly = false): Promise<void> {
    for (;;) {
      // A step a timer started may still be writing: what it schedules counts too.
      if (this.#running.size > 0) {
        await Promise.all([...this.#running]);
        continue;
      }
      let next: [string, Step] | undefined;
      for (const candidate of this.#steps) {
        if ((immediateOnly && candidate[1].delayMs !== 0) || !which(candidate[0])) continue;
        if (next === undefined || candidate[1].dueAt < next[1].dueAt) next = candidate;
      }
      if (next === undefined) return;
      const [name, step] = next;
      this.#steps.delete(name);
      this.clock.clearTimer(step.timer);
      await step.run();
    }
  }
}
