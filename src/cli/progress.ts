/**
 * The progress line of `eval` and `explain` on a terminal: shown on standard error once the input
 * has taken a second, so a quick run prints nothing more, and cleared before output and at the end.
 *
 * @module
 */

/** A run shorter than this shows no progress. */
const SHOW_AFTER_MS = 1_000;
/** How often the line is redrawn: often enough to look alive, rarely enough to cost nothing. */
const REDRAW_MS = 200;
const CLEAR_LINE = "\r\u001b[K";

/** What the line reports. */
export interface ProgressCounts {
  bytes: number;
  values: number;
  /** Undefined where the command does not select (`explain`). */
  matches: number | undefined;
}

/** The progress of one command; inert unless its stream is a terminal. */
export class Progress {
  /** What the command has done so far; it updates the fields, the line reads them. */
  readonly counts: ProgressCounts = { bytes: 0, values: 0, matches: undefined };
  readonly #stream: NodeJS.WriteStream;
  readonly #label: string;
  readonly #total: number | undefined;
  readonly #timer: NodeJS.Timeout | undefined;
  #shown = false;
  #drawn = "";

  /** `total` is the input's size in bytes when known (a file). */
  constructor(stream: NodeJS.WriteStream, label: string, total: number | undefined) {
    this.#stream = stream;
    this.#label = label;
    this.#total = total;
    if (stream.isTTY !== true) return;
    const started = Date.now();
    this.#timer = setInterval(() => {
      if (Date.now() - started >= SHOW_AFTER_MS) this.#draw();
    }, REDRAW_MS);
    // The line never keeps the process alive.
    this.#timer.unref();
  }

  /** Takes the line away before other output goes to the terminal (redrawn on the next tick). */
  clear(): void {
    if (!this.#shown) return;
    this.#stream.write(CLEAR_LINE);
    this.#shown = false;
  }

  /** The command is done: the line goes, and is not drawn again. */
  stop(): void {
    clearInterval(this.#timer);
    this.clear();
  }

  #draw(): void {
    const { bytes, values, matches } = this.counts;
    const read = this.#total === undefined ? `${megabytes(bytes)} MB read` : `${megabytes(bytes)} of ${megabytes(this.#total)} MB read (${Math.floor((100 * bytes) / Math.max(this.#total, 1))}%)`;
    const selected = matches === undefined ? "" : `, ${matches.toLocaleString("en")} ${matches === 1 ? "match" : "matches"}`;
    const line = `bexpr ${this.#label}: ${read}, ${values.toLocaleString("en")} ${values === 1 ? "value" : "values"}${selected}`;
    if (this.#shown && line === this.#drawn) return;
    this.#stream.write(CLEAR_LINE + line);
    [this.#shown, this.#drawn] = [true, line];
  }
}

function megabytes(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}
