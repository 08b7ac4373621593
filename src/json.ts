/**
 * JSON that keeps int64 values exact: integers beyond 2^53 (`SubmitTime` in nanoseconds) are
 * read as bigints and written back as JSON integers; every other number is a JS number.
 *
 * @module
 */
/** The digits of 2^53 − 1, the largest integer a double holds exactly with all below it. */
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
const isHex = (code: number) => isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
/** What may follow a backslash in a string besides `u`: `"`, `\`, `/`, `b`, `f`, `n`, `r`, `t`. */
const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

/**
 * The deepest nesting of arrays and objects read (the parser recurses once per level; Go's
 * decoder stops at 10,000, this well before the stack could run out).
 */
export const MAX_JSON_DEPTH = 1_000;

/** What one pass over JSON text finds outside its strings. */
interface Outline {
  /** The deepest nesting of arrays and objects, and where it was reached. */
  readonly depth: number;
  readonly position: number;
  /** Whether an integer is written that a double does not hold exactly (beyond ±(2^53 − 1)). */
  readonly bigIntegers: boolean;
}

/**
 * Where the string whose content starts at `from` ends: past its closing quote (one after an even
 * run of backslashes), or at the end of the text when it is not closed.
 */
function endOfString(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return text.length;
}

/**
 * Whether the number token `text[start, end)` is an integer beyond 2^53 − 1 (JSON writes no
 * leading zeros, so more digits than 2^53 − 1 has is beyond it; a malformed token may say yes).
 */
function isBigInteger(text: string, start: number, end: number): boolean {
  const digits = text.charCodeAt(start) === MINUS ? start + 1 : start;
  if (end - digits < MAX_SAFE_DIGITS.length) return false;
  for (let i = digits; i < end; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return end - digits > MAX_SAFE_DIGITS.length || text.slice(digits, end) > MAX_SAFE_DIGITS;
}

/**
 * One pass over JSON text, valid or not: how deep arrays and objects nest outside strings (the
 * pass stops at the first level deeper than `limit`), and whether an integer needs a bigint.
 */
function outline(text: string, limit: number): Outline {
  let depth = 0;
  let deepest = 0;
  let position = -1;
  let bigIntegers = false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // Most of a document's characters are in its strings: jump to the closing quote.
      i = endOfString(text, i + 1);
      continue;
    }
    if (code === MINUS || isDigit(code)) {
      const start = i;
      for (i++; i < length; i++) {
        const next = text.charCodeAt(i);
        if (!(isDigit(next) || next === DOT || next === 0x65 || next === 0x45 || next === PLUS || next === MINUS)) break;
      }
      if (!bigIntegers && isBigInteger(text, start, i)) bigIntegers = true;
      continue;
    }
    if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > deepest) [deepest, position] = [depth, i];
      if (depth > limit) break;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
    i++;
  }
  return { depth: deepest, position, bigIntegers };
}

/**
 * How deep arrays and objects nest in JSON text (counted outside strings): the deepest level, and
 * where it was reached; the scan stops at the first level deeper than `limit`.
 */
export function nestingDepth(text: string, limit = Infinity): { readonly depth: number; readonly position: number } {
  const { depth, position } = outline(text, limit);
  return { depth, position };
}

/** The longest string (quotes included) taken as a slice of the text: V8 copies slices shorter than 13 characters. */
const SHORT_SLICE = 12;

/**
 * The value of the JSON string `text[start, end)` (its quotes included, its content valid), as a
 * flat string of its own. A decoder that builds strings a character at a time leaves chains of
 * one-character pieces, about 32 bytes a character (a 4 MiB string kept 128 MiB); a long slice
 * would keep the whole text alive. So a short string without escapes is sliced (V8 copies it),
 * and any other is decoded by `JSON.parse`, which makes a flat copy.
 */
export function jsonStringAt(text: string, start: number, end: number, escaped: boolean): string {
  return escaped || end - start > SHORT_SLICE ? (JSON.parse(text.slice(start, end)) as string) : text.slice(start + 1, end - 1);
}

/**
 * Reads JSON text as lossless-json 4 does, with its messages (`Comma ',' expected after value but
 * got 'x' at position 12`), which the command line turns into lines and columns; strings are
 * decoded by {@link jsonStringAt}. It recurses once per level: the caller has checked the nesting
 * first. Written after lossless-json 4.3.3's `parse` (MIT, © Jos de Jong), whose reading and
 * messages it keeps, because that one builds each string a character at a time (see
 * {@link parseJson}) and takes no option to do otherwise.
 */
function readJson(text: string): unknown {
  const length = text.length;
  let i = 0;

  const position = () => `at position ${i}`;
  const gotAt = () => `${i < length ? `but got '${text[i]}'` : "but reached end of input"} ${position()}`;
  const skipWhitespace = () => {
    while (isWhitespace(text.charCodeAt(i))) i++;
  };
  const eat = (code: number, expected: string) => {
    if (text.charCodeAt(i) !== code) throw new SyntaxError(`${expected} ${gotAt()}`);
    i++;
  };
  const expectDigit = (start: number) => {
    if (!isDigit(text.charCodeAt(i))) throw new SyntaxError(`Invalid number '${text.slice(start, i)}', expecting a digit ${gotAt()}`);
  };
  const skipDigits = () => {
    while (isDigit(text.charCodeAt(i))) i++;
  };

  const string = (): string => {
    const start = i;
    let escaped = false;
    i++;
    while (i < length) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) break;
      if (code === BACKSLASH) {
        escaped = true;
        const escape = text.charAt(i + 1);
        if (escape === "u") {
          if (!(isHex(text.charCodeAt(i + 2)) && isHex(text.charCodeAt(i + 3)) && isHex(text.charCodeAt(i + 4)) && isHex(text.charCodeAt(i + 5)))) {
            throw new SyntaxError(`Invalid unicode character '${text.slice(i, i + 6)}' ${position()}`);
          }
          i += 5;
        } else if (SIMPLE_ESCAPES.has(escape)) i++;
        else throw new SyntaxError(`Invalid escape character '${text.slice(i, i + 2)}' ${position()}`);
      } else if (code < 0x20) {
        throw new SyntaxError(`Invalid character '${text[i]}' ${position()}`);
      }
      i++;
    }
    if (i >= length) throw new SyntaxError(`End of string '"' expected ${gotAt()}`);
    i++;
    return jsonStringAt(text, start, i, escaped);
  };

  const number = (): number | bigint => {
    const start = i;
    if (text.charCodeAt(i) === MINUS) {
      i++;
      expectDigit(start);
    }
    if (text.charCodeAt(i) === 0x30) i++;
    else skipDigits();
    if (text.charCodeAt(i) === DOT) {
      i++;
      expectDigit(start);
      skipDigits();
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === MINUS || sign === PLUS) i++;
      expectDigit(start);
      skipDigits();
    }
    // An integer beyond 2^53 − 1 as a bigint, every other number as JSON.parse reads it. (No regular
    // expression looks at the number: V8 keeps the last one's subject, and a slice holds the whole text.)
    return isBigInteger(text, start, i) ? BigInt(text.slice(start, i)) : Number(text.slice(start, i));
  };

  const object = (): Record<string, unknown> => {
    i++;
    skipWhitespace();
    const result: Record<string, unknown> = {};
    let first = true;
    while (i < length && text.charCodeAt(i) !== CLOSE_BRACE) {
      if (first) first = false;
      else {
        eat(COMMA, "Comma ',' expected after value");
        skipWhitespace();
      }
      if (text.charCodeAt(i) !== QUOTE) throw new SyntaxError(`Quoted object key expected ${gotAt()}`);
      const key = string();
      skipWhitespace();
      eat(COLON, "Colon ':' expected after property name");
      const element = value();
      if (element === undefined) throw new SyntaxError(`Object value expected after ':' ${position()}`);
      // Of duplicate keys the last wins; `__proto__` is a key like any other, as JSON.parse makes it.
      if (key === "__proto__") Object.defineProperty(result, key, { value: element, writable: true, enumerable: true, configurable: true });
      else result[key] = element;
    }
    if (text.charCodeAt(i) !== CLOSE_BRACE) throw new SyntaxError(`Quoted object key or end of object '}' expected ${gotAt()}`);
    i++;
    return result;
  };

  const array = (): unknown[] => {
    i++;
    skipWhitespace();
    const result: unknown[] = [];
    let first = true;
    while (i < length && text.charCodeAt(i) !== CLOSE_BRACKET) {
      if (first) first = false;
      else eat(COMMA, "Comma ',' expected after value");
      const element = value();
      if (element === undefined) throw new SyntaxError(`Array item expected ${gotAt()}`);
      result.push(element);
    }
    if (text.charCodeAt(i) !== CLOSE_BRACKET) throw new SyntaxError(`Array item or end of array ']' expected ${gotAt()}`);
    i++;
    return result;
  };

  const keyword = <T>(word: string, result: T): T | undefined => {
    if (!text.startsWith(word, i)) return undefined;
    i += word.length;
    return result;
  };

  /** A value and the whitespace around it, or undefined (nothing read) when none starts here. */
  const value = (): unknown => {
    skipWhitespace();
    const code = text.charCodeAt(i);
    let result: unknown;
    if (code === QUOTE) result = string();
    else if (code === MINUS || isDigit(code)) result = number();
    else if (code === OPEN_BRACE) result = object();
    else if (code === OPEN_BRACKET) result = array();
    else result = keyword("true", true) ?? keyword("false", false) ?? keyword("null", null);
    skipWhitespace();
    return result;
  };

  const result = value();
  if (result === undefined) throw new SyntaxError(`JSON value expected ${gotAt()}`);
  if (i < length) throw new SyntaxError(`Expected end of input ${gotAt()}`);
  return result;
}

/**
 * Parses JSON text; integers outside the safe range become bigints; of duplicate keys the last
 * wins, as with `JSON.parse` and Go; a `__proto__` key is data, never the object's prototype.
 *
 * Text whose integers all fit a double is read by `JSON.parse` (the same values, natively, each
 * string flat: memory about the text's size). Other text, and text that is not JSON, is read by
 * `readJson`, which keeps those integers exact, decodes each string as a flat copy too, and
 * words its errors as lossless-json did (`… at position N`). Neither builds a string a character
 * at a time, which kept about 32 bytes a character (a 64 MiB line took 2.2 GB).
 *
 * @example
 * ```ts
 * parseJson('{"SubmitTime":1717000000123456789,"Priority":50}'); // { SubmitTime: 1717000000123456789n, Priority: 50 }
 * ```
 * @throws SyntaxError for malformed JSON, or JSON nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function parseJson(text: string): unknown {
  const { depth, position, bigIntegers } = outline(text, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep at position ${position}`);
  if (!bigIntegers) {
    try {
      return JSON.parse(text);
    } catch (error) {
      // Not JSON: the reader below finds the mistake and words it.
      if (!(error instanceof SyntaxError)) throw error;
    }
  }
  return readJson(text);
}

/**
 * The mark of a number `JSON.stringify` cannot write itself (a bigint, or a number kept as its
 * text): it writes the string `"<mark><digits>"`, and the quotes and mark are then taken away.
 * The mark holds a random part chosen at start-up, so no string of the data can be taken for one
 * (from Web Crypto, which Node and browsers both have, so the engine bundles for either).
 */
const NUMBER_MARK = `bexpr-number-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("")}:`;
const MARKED_NUMBER = new RegExp(`"${NUMBER_MARK}(-?[0-9][0-9.eE+-]*)"`, "g");

/** A number kept as its text by lossless-json or go-json (`LosslessNumber`). */
function isNumberText(value: object): value is { value: string } {
  return (value as { isLosslessNumber?: unknown }).isLosslessNumber === true && typeof (value as { value?: unknown }).value === "string";
}

function markNumbers(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return `${NUMBER_MARK}${value}`;
  if (typeof value === "object" && value !== null && isNumberText(value)) return `${NUMBER_MARK}${value.value}`;
  return value;
}

/**
 * Writes a value as JSON, bigints (and numbers kept as text) as JSON numbers: compact, or with
 * `pretty` indented by 4 spaces with a final newline (as the reference agent's pretty output).
 * `JSON.stringify` does the work, about five times faster than lossless-json's own writer, with
 * the same bytes (a property test compares them).
 */
export function stringifyJson(value: unknown, pretty = false): string {
  const text = pretty ? JSON.stringify(value, markNumbers, 4) : JSON.stringify(value, markNumbers);
  if (text === undefined) throw new TypeError("the value cannot be written as JSON");
  const written = text.includes(NUMBER_MARK) ? text.replace(MARKED_NUMBER, "$1") : text;
  return pretty ? `${written}\n` : written;
}
