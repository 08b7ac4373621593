/**
 * The JSON input of `eval` and `explain`, read as it arrives, one value at a time: a top-level
 * array element by element, JSON lines line by line. Each element or line is parsed on its own by
 * `parseJson`, so big integers stay exact as they do for a whole document.
 *
 * @module
 */
import { StringDecoder } from "node:string_decoder";
import { MAX_JSON_DEPTH, parseJson } from "../json.js";
import { CommandError } from "./terminal.js";

/**
 * The longest JSON value read, in UTF-16 code units (256 MiB of ASCII): a line of JSON lines, an
 * element of an array, or a document over several lines. Each is held whole while it is parsed,
 * as its text and then as its value (about three times its size at the peak); V8 makes no string
 * longer than about 512 Mi characters, so a longer value would stop on the engine's own error.
 */
export const MAX_JSON_VALUE_LENGTH = 256 * 1024 * 1024;

/** How the input was written: the matches are printed the same way. */
export type InputForm = "array" | "lines";

/** The values read from one piece of the input. */
export interface InputBatch {
  readonly form: InputForm;
  readonly values: readonly unknown[];
  /** The line each value starts on (JSON lines and a single value; not array elements). */
  readonly lines: readonly number[] | undefined;
}

/** A place in the input, 1-based, the column in code points (as `locate` counts). */
interface Place {
  readonly line: number;
  readonly column: number;
}

const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COLON = 0x3a;

/** JSON's whitespace, as lossless-json reads it. */
const isWhitespace = (code: number) => code === SPACE || code === NEWLINE || code === TAB || code === RETURN;
/** Where a number or `true`/`false`/`null` ends (what follows it, or a mistake the parser reports). */
const endsScalar = (code: number) => isWhitespace(code) || code === COMMA || code === CLOSE_BRACKET || code === CLOSE_BRACE || code === OPEN_BRACKET || code === OPEN_BRACE || code === QUOTE || code === COLON;
/** The characters a JSON value can start with. */
const startsValue = (code: number) => code === QUOTE || code === OPEN_BRACE || code === OPEN_BRACKET || code === 0x2d || (code >= 0x30 && code <= 0x39) || code === 0x74 || code === 0x66 || code === 0x6e;

/** lossless-json's `… at position N`: the message, and the offset it names. */
function splitPosition(error: unknown): { readonly message: string; readonly position: number | undefined } {
  const message = (error as Error).message;
  const at = /^(.*) at position (\d+)$/s.exec(message);
  return at === null ? { message, position: undefined } : { message: at[1]!, position: Number(at[2]) };
}

/**
 * The place `offset` characters into `text`, which starts at `start`: counted up to the offset,
 * with no index of the text (a value can be hundreds of megabytes).
 */
function placeIn(text: string, offset: number, start: Place): Place {
  const counter = new PlaceCounter();
  counter.next(text);
  const { line, column } = counter.to(Math.max(0, Math.min(offset, text.length)));
  return line === 1 ? { line: start.line, column: start.column + column - 1 } : { line: start.line + line - 1, column };
}

/** Why the input is not JSON: one line, with the line and column of the mistake. */
function notJson(name: string, what: string, message: string, place: Place | undefined, hint = ""): CommandError {
  return new CommandError(`${name} is not valid ${what}: ${message}${place === undefined ? "" : ` at line ${place.line}, column ${place.column}`}${hint}`);
}

/** Why the input is not read: `what` (a line, the value from a line, an array element) is longer than `most` characters. */
function tooLong(name: string, what: string, most: number): CommandError {
  const bound = most % 2 ** 20 === 0 ? `${most / 2 ** 20} MiB` : `${most} characters`;
  return new CommandError(`${name}: ${what} is longer than ${bound}, the most bexpr reads as one JSON value`);
}

const SEVERAL_VALUES = "; write several values one per line (JSON lines, as jq -c does)";

/** Counts lines and columns (in code points, as `locate` counts them) through the input, forwards only. */
class PlaceCounter {
  #line = 1;
  /** Code points since the line started. */
  #column = 0;
  /** Whether the last character counted is the high half of a surrogate pair (its low half adds no column). */
  #high = false;
  #text = "";
  #index = 0;

  /** Starts counting through the next piece of the input (the rest of the last one counted first). */
  next(text: string): void {
    this.to(this.#text.length);
    this.#text = text;
    this.#index = 0;
  }

  /** The place of character `index` of the current piece (not before the last asked for). */
  to(index: number): Place {
    const text = this.#text;
    for (let i = this.#index; i < index; i++) {
      const code = text.charCodeAt(i);
      if (code === NEWLINE) [this.#line, this.#column, this.#high] = [this.#line + 1, 0, false];
      else if (this.#high && code >= 0xdc00 && code <= 0xdfff) this.#high = false;
      else [this.#column, this.#high] = [this.#column + 1, code >= 0xd800 && code <= 0xdbff];
    }
    this.#index = Math.max(this.#index, index);
    return { line: this.#line, column: this.#column + 1 };
  }
}

/**
 * Splits JSON text, given in pieces, into values. The first character other than whitespace
 * decides the form: `[` starts an array, read element by element; anything else JSON lines, one
 * value per line. A first line that is not a value on its own starts one document over several
 * lines (pretty-printed), read whole as `parseJson` reads it; a mistake in it is reported as the
 * one document it does not make. A leading byte-order mark is skipped.
 *
 * Not a general streaming parser: each element or line is found by scanning for where it ends,
 * then parsed by `parseJson`; only the array's own commas and brackets are checked here, with
 * the messages lossless-json gives for them. Memory holds one element or line at a time.
 */
export class JsonValueSplitter {
  readonly #name: string;
  readonly #most: number;
  #form: InputForm | "document" | undefined;
  #values: unknown[] = [];
  #lines: number[] = [];
  #started = false;
  /** The whitespace before the first value, while the form is not known. */
  #head = "";
  // JSON lines: the line not ended yet and its number; the blank lines before the first value (a
  // document over several lines is parsed from the input's start, so positions stay right).
  #partial = "";
  #line = 1;
  #blank = "";
  #valuesSeen = 0;
  #document = "";
  /** The line the document over several lines starts on. */
  #documentLine = 1;
  // An array: where the scan is, the element read so far, where it started, and its nesting.
  #state: "start" | "open" | "item" | "value" | "after" | "closed" = "start";
  #places = new PlaceCounter();
  #element = "";
  #elementPlace: Place = { line: 1, column: 1 };
  #depth = 0;
  #inString = false;
  #escaped = false;
  #scalar = false;

  /**
   * `name` is how messages call the input (`stdin`, or the file's path); `most` the longest value
   * read, in UTF-16 code units.
   */
  constructor(name: string, most = MAX_JSON_VALUE_LENGTH) {
    this.#name = name;
    this.#most = most;
  }

  /** Refuses to hold `length` characters of one value, `what`, when that is more than the most read. */
  #hold(length: number, what: () => string): void {
    if (length > this.#most) throw tooLong(this.#name, what(), this.#most);
  }

  /** The values completed since the last call, with their lines (not for array elements). */
  take(): InputBatch {
    const form = this.#form === "array" ? "array" : "lines";
    const batch: InputBatch = { form, values: this.#values, lines: form === "array" ? undefined : this.#lines };
    this.#values = [];
    this.#lines = [];
    return batch;
  }

  /** Reads the next piece of the input. @throws {@link CommandError} when it is not JSON. */
  push(text: string): void {
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#form === undefined) {
      const first = firstNonWhitespace(text);
      if (first === -1) {
        this.#hold(this.#head.length + text.length, () => "the whitespace before the first value");
        this.#head += text;
        return;
      }
      this.#form = text.charCodeAt(first) === OPEN_BRACKET ? "array" : "lines";
      text = this.#head + text;
      this.#head = "";
    }
    if (this.#form === "array") this.#scanArray(text);
    else this.#splitLines(text);
  }

  /** The input has ended. @throws {@link CommandError} when it stopped short of a value. */
  end(): void {
    if (this.#form === "array") this.#endArray();
    else if (this.#form !== undefined) {
      this.#takeLine(this.#partial, false);
      this.#partial = "";
      if (this.#form === "document") this.#endDocument();
    }
  }

  #splitLines(text: string): void {
    let from = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", from)) {
      this.#hold(this.#partial.length + newline - from, () => `line ${this.#line}`);
      const line = this.#partial + text.slice(from, newline);
      this.#partial = "";
      this.#takeLine(line, true);
      this.#line++;
      from = newline + 1;
    }
    // Refused as it comes, before more of it is read.
    this.#hold(this.#partial.length + text.length - from, () => `line ${this.#line}`);
    this.#partial += text.slice(from);
  }

  /** One line of JSON lines (or of a document over several lines), with its newline or, the last, without. */
  #takeLine(line: string, newline: boolean): void {
    const ending = newline ? "\n" : "";
    if (this.#form === "document") {
      this.#hold(this.#document.length + line.length + ending.length, () => `the JSON value from line ${this.#documentLine}`);
      this.#document += line + ending;
      return;
    }
    if (line.trim() === "") {
      if (this.#valuesSeen > 0) return;
      this.#hold(this.#blank.length + line.length + ending.length, () => "the whitespace before the first value");
      this.#blank += line + ending;
      return;
    }
    try {
      this.#values.push(parseJson(line));
      this.#lines.push(this.#line);
      this.#valuesSeen++;
    } catch (error) {
      if (this.#valuesSeen > 0) {
        const { message, position } = splitPosition(error);
        throw notJson(this.#name, "JSON lines", message, position === undefined ? undefined : placeIn(line, position, { line: this.#line, column: 1 }));
      }
      // The first line is not a value on its own: a document over several lines, or a mistake.
      this.#form = "document";
      this.#documentLine = this.#line;
      this.#hold(this.#blank.length + line.length + ending.length, () => `the JSON value from line ${this.#line}`);
      this.#document = this.#blank + line + ending;
      this.#blank = "";
    }
  }

  #endDocument(): void {
    const source = this.#document;
    try {
      this.#values.push(parseJson(source));
      this.#lines.push(placeIn(source, firstNonWhitespace(source), { line: 1, column: 1 }).line);
    } catch (error) {
      const { message, position } = splitPosition(error);
      throw notJson(this.#name, "JSON", message, position === undefined ? undefined : placeIn(source, position, { line: 1, column: 1 }), message.startsWith("Expected end of input") ? SEVERAL_VALUES : "");
    }
  }

  /** A mistake in the array's own structure, at character `index` of the current piece. */
  #arrayError(message: string, index: number, hint = ""): CommandError {
    return notJson(this.#name, "JSON", message, this.#places.to(index), hint);
  }

  #scanArray(text: string): void {
    this.#places.next(text);
    const length = text.length;
    // Where the element being read starts in this piece (0 when it began in an earlier one).
    let from = 0;
    let backslash = -1;
    let i = 0;
    while (i < length) {
      const code = text.charCodeAt(i);
      if (this.#state === "value") {
        if (this.#inString) {
          // Most of the input is inside strings: jump to the next quote, past any escape before it.
          if (this.#escaped) {
            this.#escaped = false;
            i++;
            continue;
          }
          let quote = text.indexOf('"', i);
          if (quote === -1) quote = length;
          if (backslash < i) {
            backslash = text.indexOf("\\", i);
            if (backslash === -1) backslash = length;
          }
          if (backslash < quote) {
            this.#escaped = true;
            i = backslash + 1;
            continue;
          }
          // The string goes on in the next piece.
          if (quote === length) break;
          this.#inString = false;
          i = quote + 1;
          if (this.#depth === 0) this.#finishElement(text, from, i);
          continue;
        }
        if (this.#scalar) {
          if (endsScalar(code)) this.#finishElement(text, from, i);
          else i++;
          continue;
        }
        if (code === QUOTE) this.#inString = true;
        else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
          // The array itself is one level.
          if (++this.#depth + 1 > MAX_JSON_DEPTH) throw this.#arrayError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`, i);
        } else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --this.#depth === 0) {
          this.#finishElement(text, from, i + 1);
        }
        i++;
        continue;
      }
      if (!isWhitespace(code)) {
        switch (this.#state) {
          case "start":
            // The opening bracket (the form was chosen on it).
            this.#state = "open";
            break;
          case "open":
          case "item":
            if (code === CLOSE_BRACKET && this.#state === "open") {
              this.#state = "closed";
              break;
            }
            if (!startsValue(code)) throw this.#arrayError(`Array item expected but got '${text[i]}'`, i);
            this.#state = "value";
            this.#element = "";
            this.#elementPlace = this.#places.to(i);
            from = i;
            this.#depth = 0;
            this.#scalar = false;
            if (code === QUOTE) this.#inString = true;
            else if (code === OPEN_BRACE || code === OPEN_BRACKET) this.#depth = 1;
            else this.#scalar = true;
            if (this.#depth + 1 > MAX_JSON_DEPTH) throw this.#arrayError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`, i);
            break;
          case "after":
            if (code === COMMA) this.#state = "item";
            else if (code === CLOSE_BRACKET) this.#state = "closed";
            else throw this.#arrayError(`Comma ',' expected after value but got '${text[i]}'`, i);
            break;
          case "closed":
            throw this.#arrayError(`Expected end of input but got '${text[i]}'`, i, SEVERAL_VALUES);
        }
      }
      i++;
    }
    if (this.#state === "value") {
      this.#holdElement(this.#element.length + length - from);
      this.#element += text.slice(from);
    }
  }

  /** Refuses to hold `length` characters of the array element being read, when that is more than the most read. */
  #holdElement(length: number): void {
    this.#hold(length, () => `the array element at line ${this.#elementPlace.line}, column ${this.#elementPlace.column}`);
  }

  /** An element ends at `end` of `text`: parse it alone, and report a mistake at its place. */
  #finishElement(text: string, from: number, end: number): void {
    this.#holdElement(this.#element.length + end - from);
    const element = this.#element + text.slice(from, end);
    this.#element = "";
    this.#state = "after";
    try {
      this.#values.push(parseJson(element));
    } catch (error) {
      // Not true, false or null: in the array, lossless-json finds no item there.
      if (/^[a-z]/.test(element)) throw notJson(this.#name, "JSON", `Array item expected but got '${element[0]}'`, this.#elementPlace);
      const { message, position } = splitPosition(error);
      throw notJson(this.#name, "JSON", message, position === undefined ? undefined : placeIn(element, position, this.#elementPlace));
    }
  }

  #endArray(): void {
    this.#places.next("");
    if (this.#state === "closed") return;
    // Cut short in an element: its own parse says what is missing.
    if (this.#state === "value") this.#finishElement("", 0, 0);
    const message = this.#state === "item" ? "Array item expected" : "Array item or end of array ']' expected";
    throw this.#arrayError(`${message} but reached end of input`, 0);
  }
}

/** The index of the first character of `text` that is not JSON whitespace, or -1. */
function firstNonWhitespace(text: string): number {
  for (let i = 0; i < text.length; i++) if (!isWhitespace(text.charCodeAt(i))) return i;
  return -1;
}

/**
 * The values of the input as it arrives: one batch for each piece read (possibly empty), so that
 * a consumer prints as it goes and holds one piece at a time.
 */
export async function* readJsonValues(chunks: AsyncIterable<Buffer>, name: string): AsyncGenerator<InputBatch> {
  const splitter = new JsonValueSplitter(name);
  // UTF-8 decoded across the pieces' boundaries, which may split a character.
  const decoder = new StringDecoder("utf8");
  for await (const chunk of chunks) {
    splitter.push(decoder.write(chunk));
    yield splitter.take();
  }
  splitter.push(decoder.end());
  splitter.end();
  yield splitter.take();
}
