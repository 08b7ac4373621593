/**
 * What `eval` and `explain` print, written as it is made: in pieces of a useful size, and a JSON
 * array element by element in the layout `stringifyJson(values, true)` gives the whole array.
 *
 * @module
 */
import { once } from "node:events";
import { stringifyJson } from "../json.js";

/** Output is written once this much is pending (and after each piece of input). */
const FLUSH_CHARS = 64 * 1024;

/** A stream written in pieces, waiting when it asks to (a slow terminal or a full pipe). */
export class Output {
  readonly #stream: NodeJS.WritableStream;
  readonly #beforeWrite: () => void;
  #pending = "";

  /** `beforeWrite` runs before each write (the progress line clears itself there). */
  constructor(stream: NodeJS.WritableStream, beforeWrite: () => void = () => {}) {
    this.#stream = stream;
    this.#beforeWrite = beforeWrite;
  }

  write(text: string): void {
    this.#pending += text;
    if (this.#pending.length >= FLUSH_CHARS) this.#writePending();
  }

  /** Writes what is pending, and waits until the stream can take more. */
  async flush(): Promise<void> {
    this.#writePending();
    const stream = this.#stream as NodeJS.WritableStream & { writableNeedDrain?: boolean };
    if (stream.writableNeedDrain === true) await once(stream, "drain");
  }

  #writePending(): void {
    if (this.#pending === "") return;
    this.#beforeWrite();
    this.#stream.write(this.#pending);
    this.#pending = "";
  }
}

/**
 * A JSON array written element by element, byte for byte as `stringifyJson(elements, true)`:
 * `[]` when empty, else each element indented by 4 spaces.
 */
export class JsonArrayWriter {
  readonly #output: Output;
  #count = 0;

  constructor(output: Output) {
    this.#output = output;
  }

  add(value: unknown): void {
    // JSON strings hold no raw newline: every newline of the text is between lines of the layout.
    const text = stringifyJson(value, true).slice(0, -1).replaceAll("\n", "\n    ");
    this.#output.write(`${this.#count === 0 ? "[\n" : ",\n"}    ${text}`);
    this.#count++;
  }

  end(): void {
    this.#output.write(this.#count === 0 ? "[]\n" : "\n]\n");
  }
}
