/**
 * When the language server checks a document: once the client has stopped changing it for
 * {@link DIAGNOSTICS_DEBOUNCE_MS}, and then its latest version only. A burst of changes costs one
 * check, not one per version, and the requests that arrive during the burst (hover, completion)
 * are answered at once instead of waiting behind a queue of checks of versions nobody will see.
 *
 * @module
 */

/**
 * How long a document must stay unchanged before it is checked and its diagnostics published, in
 * milliseconds.
 *
 * Checking is the costly part of a change: `validate` of a 113 KB filter takes about 50 ms warm
 * and up to 200 ms cold on a 2-core machine. Checked at every version, a burst of 300
 * one-character edits kept the server busy for 15 s, with no hover answered in between. Checked
 * after a pause, the burst costs one check. 200 ms is short enough that the marks appear as soon
 * as typing stops, long enough that a steady typist's keystrokes fall within it.
 */
export const DIAGNOSTICS_DEBOUNCE_MS = 200;

/**
 * The documents waiting to be checked. A document is due once it has been left unchanged for the
 * delay; the due ones are checked one per turn of the event loop, so that requests read in
 * between (the connection reads one message a turn) are answered between two checks, however many
 * documents fall due at once.
 */
export class DiagnosticsSchedule {
  /** The documents changed lately, each with the timer that makes it due. */
  readonly #waiting = new Map<string, NodeJS.Timeout>();
  /** The documents due for a check, in the order they fell due. */
  readonly #due = new Set<string>();
  #draining = false;

  /** `check` is called with a document's URI when it is due; it reads the document's latest version itself. */
  constructor(
    private readonly check: (uri: string) => void,
    private readonly delay: number = DIAGNOSTICS_DEBOUNCE_MS,
  ) {}

  /** The document changed: it is checked once it has stayed unchanged for the delay (a check already due waits again). */
  schedule(uri: string): void {
    this.cancel(uri);
    const timer = setTimeout(() => {
      this.#waiting.delete(uri);
      this.#due.add(uri);
      this.#drain();
    }, this.delay);
    // A check nobody will read must not keep the process alive once the client is gone.
    timer.unref();
    this.#waiting.set(uri, timer);
  }

  /** The document was closed: it is not checked (its diagnostics would reappear after being cleared). */
  cancel(uri: string): void {
    clearTimeout(this.#waiting.get(uri));
    this.#waiting.delete(uri);
    this.#due.delete(uri);
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    setImmediate(() => {
      this.#draining = false;
      const [uri] = this.#due;
      if (uri === undefined) return;
      this.#due.delete(uri);
      // The next turn is booked before the check, so a check that throws does not stall the others.
      if (this.#due.size > 0) this.#drain();
      this.check(uri);
    });
  }
}
