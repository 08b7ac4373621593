/**
 * How `bexpr agent` keeps its heap dense: it compacts the heap once it is idle, and only when the
 * old generation holds many more bytes than it uses.
 *
 * The agent's state is long-lived objects (jobs, versions, allocations) written among
 * medium-lived ones that die in the old generation after seconds or minutes (the request
 * journal's entries, the event buffer's writes, evaluations on their way, a request's objects
 * kept across the placement delay). V8's full collections free those but compact only a few
 * fragmented pages each, so the old generation keeps about twice its live bytes in pages it
 * does not give back (measured: 169 MiB live in 457 MiB of old space at 30,000 jobs; docs/agent.md,
 * "Memory"). A full collection with V8's `--compact-on-every-full-gc` moves every live object
 * together and returns the emptied pages (170 MiB live in 173 MiB).
 *
 * The agent used to set that flag for good, and paid for it while busy (measured, `--trace-gc`,
 * 10,000 registrations: the same 5 full and ~235 young collections, but each full one copied the
 * whole old generation, a pause that grew with the state to 1.7 s, and the young ones cost four
 * times as much, since while every old page is an evacuation candidate each pointer the
 * scavenger promotes or the program writes into one is recorded for the move). So the flag is
 * now set only around one collection, asked for when {@link IdleHeapCompactor} sees that a full
 * collection left the old generation sparse ({@link isFragmented}) and the event loop then stayed
 * idle for {@link IDLE_WINDOW_MS} ({@link IDLE_UTILIZATION}). The copying is paid once, at rest
 * (0.8–1.1 s of CPU at 10,000 jobs, 7–8 s at 100,000), instead of at every full collection of a
 * registration burst. Measured on the loaded 2-core machine, three alternated rounds, the agent's
 * CPU a job (median): 10,000 jobs, 2.08 ms compacting when idle, 2.50 ms with the flag for good,
 * 1.85 ms without, and in a second run at a lower load 1.43, 2.23 and 2.30 ms (without the flag,
 * a spread of 1.56–2.50 ms over the six rounds: busy, the two collect alike); 30,000 jobs, 1.46
 * against 1.52 ms without. RSS at rest (the bench's reading): 145–159 MiB at 10,000 jobs, 274 MiB at 30,000, 720
 * MiB at 100,000 (without: 241–264, 583–610 and 1,387 MiB). An agent that is never idle keeps
 * V8's own compaction (its memory as without the flag).
 *
 * Nothing runs on a timer of its own: a timer is armed only after a full collection that left
 * the heap sparse (an idle agent makes none), it does not keep the event loop alive, and it is
 * re-armed only while a compaction is due and the agent busy (one check a window).
 *
 * It is the whole process's heap: the command line starts it, since the process is the agent's;
 * `startAgent` does not, since an embedding program's heap is its own (docs/agent.md says how to
 * do the same there).
 *
 * @module
 */
import { PerformanceObserver, constants as perfConstants, performance, type EventLoopUtilization } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** The V8 flag that makes every full collection compact the heap. */
export const COMPACTION_FLAG = "--compact-on-every-full-gc";

/** The flag's negation, to put V8 back to its own heuristics after an idle compaction. */
const NO_COMPACTION_FLAG = "--no-compact-on-every-full-gc";

/**
 * How long the event loop must have been (nearly) idle before the heap is compacted: longer than
 * the gaps of a client's burst of requests (a registration loop waits ~1 ms between two), short
 * enough that an agent at rest gives its memory back within seconds.
 */
export const IDLE_WINDOW_MS = 2000;

/**
 * The share of {@link IDLE_WINDOW_MS} the event loop may have been busy and still count as idle:
 * an idle agent's own work (its scheduler's timers, a few blocking queries answered) is about 1%,
 * a registration burst 60–100%.
 */
export const IDLE_UTILIZATION = 0.1;

/**
 * The old generation is worth compacting when it holds more than this many times its live bytes
 * (V8's own compaction keeps it under ~1.3; registrations leave it at ~2–2.7)…
 */
export const FRAGMENTATION_RATIO = 1.5;

/** …and more than this many bytes beyond them: below it, the copying would buy back little. */
export const FRAGMENTATION_MIN_BYTES = 32 * 1024 * 1024;

/** How an agent process compacts its heap: around idle-time collections, on every full collection, or never. */
export type HeapCompaction = "idle" | "always" | "never";

/**
 * What Node's command line chose about {@link COMPACTION_FLAG} (the last of the flag and its
 * negation, `_` or `-` alike): `"always"`, `"never"`, or undefined when it said nothing.
 */
export function compactionChosen(execArgv: readonly string[] = process.execArgv): Exclude<HeapCompaction, "idle"> | undefined {
  const chosen = execArgv.findLast((argument) => argument.replaceAll("_", "-").replace(/^--no-/, "--") === COMPACTION_FLAG);
  if (chosen === undefined) return undefined;
  return chosen.startsWith("--no-") ? "never" : "always";
}

/** The old generation's size: what V8 holds for it, and what its live objects take. */
export interface OldSpace {
  readonly sizeBytes: number;
  readonly usedBytes: number;
}

/** Whether an old generation is sparse enough to be worth compacting ({@link FRAGMENTATION_RATIO}, {@link FRAGMENTATION_MIN_BYTES}). */
export function isFragmented({ sizeBytes, usedBytes }: OldSpace): boolean {
  return sizeBytes > usedBytes * FRAGMENTATION_RATIO && sizeBytes - usedBytes > FRAGMENTATION_MIN_BYTES;
}

/** A timer that can be cancelled (what `setTimeout` returns). */
export interface IdleTimer {
  close(): void;
}

/**
 * What {@link IdleHeapCompactor} acts through: the process's by default ({@link processHeapHooks});
 * a test gives its own, to drive it without time or a real heap.
 */
export interface HeapHooks {
  /** Calls `listener` after each full (mark-compact) collection; returns what stops it. */
  onFullCollection(listener: () => void): () => void;
  /** Calls `callback` once after `ms`, without keeping the process alive. */
  setTimer(callback: () => void, ms: number): IdleTimer;
  /** The event loop's utilization so far, or since `since` (`performance.eventLoopUtilization`). */
  utilization(since?: EventLoopUtilization): EventLoopUtilization;
  /** The old generation's size now. */
  oldSpace(): OldSpace;
  /** Sets V8 flags (`v8.setFlagsFromString`). */
  setFlags(flags: string): void;
  /** Runs a full collection now. */
  collect(): void;
}

/** The old space's statistics (V8's `old_space`). */
function oldSpaceNow(): OldSpace {
  const old = getHeapSpaceStatistics().find((space) => space.space_name === "old_space");
  return { sizeBytes: old?.space_size ?? 0, usedBytes: old?.space_used_size ?? 0 };
}

/**
 * V8's `gc()`: the global one when Node was started with `--expose-gc`, else one taken from a new
 * context once the flag is set (it exposes `gc` to contexts made after it), made the first time it
 * is needed.
 */
function collector(): () => void {
  let gc = (globalThis as { gc?: () => void }).gc;
  return () => {
    if (gc === undefined) {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc") as () => void;
    }
    gc();
  };
}

/** The process's own heap, collections, timers and event loop. */
export function processHeapHooks(): HeapHooks {
  return {
    onFullCollection(listener) {
      const observer = new PerformanceObserver((list) => {
        if (list.getEntries().some((entry) => (entry as { readonly detail?: { readonly kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR)) listener();
      });
      observer.observe({ entryTypes: ["gc"] });
      return () => observer.disconnect();
    },
    setTimer(callback, ms) {
      const timer = setTimeout(callback, ms);
      // An agent being stopped must not wait for its heap's next check.
      timer.unref();
      return { close: () => clearTimeout(timer) };
    },
    utilization: (since) => (since === undefined ? performance.eventLoopUtilization() : performance.eventLoopUtilization(since)),
    oldSpace: oldSpaceNow,
    setFlags: setFlagsFromString,
    collect: collector(),
  };
}

/**
 * Compacts the heap at rest: after a full collection that left the old generation sparse
 * ({@link isFragmented}), it checks the event loop every {@link IDLE_WINDOW_MS}, and once a whole
 * window was idle ({@link IDLE_UTILIZATION}) runs one compacting collection ({@link compactNow});
 * a full collection meanwhile that leaves it dense cancels the check. Between a compaction and
 * the next sparse full collection it does nothing.
 */
export class IdleHeapCompactor {
  /** Compacting collections run so far (a second one, when the first left the heap sparse, counts too). */
  compactions = 0;
  /** Idle checks made so far (one a window while a compaction is due). */
  checks = 0;
  /** Checks that found the agent busy and waited another window. */
  busyChecks = 0;
  #timer: IdleTimer | undefined;
  #since: EventLoopUtilization | undefined;
  #stopObserving: (() => void) | undefined;
  readonly #hooks: HeapHooks;

  constructor(hooks: HeapHooks = processHeapHooks()) {
    this.#hooks = hooks;
  }

  /** Whether a compaction is due (a check is armed). */
  get pending(): boolean {
    return this.#timer !== undefined;
  }

  /** Starts watching full collections. */
  start(): this {
    this.#stopObserving ??= this.#hooks.onFullCollection(() => this.#afterFullCollection());
    return this;
  }

  /** Stops watching, and cancels a check that is armed. */
  stop(): void {
    this.#stopObserving?.();
    this.#stopObserving = undefined;
    this.#timer?.close();
    this.#timer = undefined;
  }

  /**
   * Compacts the heap now: sets {@link COMPACTION_FLAG}, collects, and puts V8 back to its own
   * heuristics. A collection that finishes an incremental marking started without the flag moves
   * only the pages V8 chose then, so a second one runs when the first left the heap sparse.
   */
  compactNow(): void {
    this.#hooks.setFlags(COMPACTION_FLAG);
    try {
      this.#hooks.collect();
      this.compactions++;
      if (isFragmented(this.#hooks.oldSpace())) {
        this.#hooks.collect();
        this.compactions++;
      }
    } finally {
      this.#hooks.setFlags(NO_COMPACTION_FLAG);
    }
  }

  #afterFullCollection(): void {
    if (this.#stopObserving === undefined) return;
    // Only just after a full collection does the old space's use count live bytes alone: later
    // it counts the objects promoted since, dead ones too, and a sparse heap fills up with garbage.
    if (!isFragmented(this.#hooks.oldSpace())) {
      // V8's own compaction, or our own, left it dense: nothing is due.
      this.#timer?.close();
      this.#timer = undefined;
      return;
    }
    // A check already armed covers this collection too.
    if (this.#timer === undefined) this.#arm();
  }

  #arm(): void {
    this.#since = this.#hooks.utilization();
    this.#timer = this.#hooks.setTimer(() => this.#check(), IDLE_WINDOW_MS);
  }

  #check(): void {
    this.#timer = undefined;
    this.checks++;
    if (this.#hooks.utilization(this.#since).utilization > IDLE_UTILIZATION) {
      this.busyChecks++;
      this.#arm();
      return;
    }
    this.compactNow();
  }
}

/**
 * Sets up the agent process's heap compaction: an {@link IdleHeapCompactor} started, unless Node's
 * command line chose (`node --compact-on-every-full-gc dist/cli.js agent`, or `--no-…`: the
 * user's choice stands). Returns the way chosen, and the compactor when it is `"idle"` (its
 * `stop()` ends it).
 */
export function compactHeapWhenIdle(
  execArgv: readonly string[] = process.execArgv,
  hooks?: HeapHooks,
): { readonly compaction: Exclude<HeapCompaction, "idle">; readonly compactor?: undefined } | { readonly compaction: "idle"; readonly compactor: IdleHeapCompactor } {
  const chosen = compactionChosen(execArgv);
  if (chosen !== undefined) return { compaction: chosen };
  return { compaction: "idle", compactor: new IdleHeapCompactor(hooks).start() };
}
