/**
 * The SQL clauses a translation is made of: each an SQL integer with three values (`1` true, `0`
 * false, `2` undecided: the row goes to the compiled filter, see `translate.ts`), the parameters
 * they bind, and the tests both the plain and the typed translations build them from.
 *
 * @module
 */
import { escapedBytes } from "../go/strings.js";

/** The three-valued result of a clause: its SQL, and whether it can be `2` (undecided or an error). */
export interface Clause {
  readonly sql: string;
  /** False when the clause is `0` or `1` on every row. */
  readonly undecided: boolean;
}

/**
 * Collects the parameters of one translation. A value bound twice is one parameter: a filter
 * repeats its keys and literals (`a.a.a`, a literal that `in` tests three ways), and PostgreSQL
 * takes at most 65,535 parameters in one statement.
 */
export class Parameters {
  readonly values: string[] = [];
  readonly #placeholders = new Map<string, string>();

  constructor(private readonly offset: number) {}

  /** A placeholder for `value`, bound as text. */
  text(value: string): string {
    let placeholder = this.#placeholders.get(value);
    if (placeholder === undefined) {
      this.values.push(value);
      placeholder = `$${this.offset + this.values.length}::text`;
      this.#placeholders.set(value, placeholder);
    }
    return placeholder;
  }

  /** How many values are bound so far: a mark to {@link rollBack} to. */
  get mark(): number {
    return this.values.length;
  }

  /** Unbinds the values bound since `mark`, for SQL that is not used: PostgreSQL refuses a parameter that no SQL reads (it cannot tell its type). */
  rollBack(mark: number): void {
    for (const value of this.values.splice(mark)) this.#placeholders.delete(value);
  }

  /** A placeholder for the list `keys`, bound as the text of a PostgreSQL array (`{"a","b"}`) and cast to `text[]`. */
  textArray(keys: readonly string[]): string {
    // In an array's text, a quoted element keeps every character but `"` and `\`, which are escaped.
    return `${this.text(`{${keys.map((key) => `"${key.replace(/["\\]/g, "\\$&")}"`).join(",")}}`)}::text[]`;
  }
}

/** The undecided value: the row goes to the compiled filter. */
export const UNDECIDED: Clause = { sql: "2", undecided: true };

/**
 * Text that no PostgreSQL text value or JSONB string can hold: NUL, and lone surrogates (half of a
 * character beyond U+FFFF, or a byte that is not UTF-8 written `\xff`; see `go/strings.ts`). A
 * literal holding one equals no stored string and cannot be bound as a parameter. The `u` flag
 * matters: without it the class also matches each half of a whole character such as `🚀`, and
 * every literal holding an emoji was taken for one that no row holds.
 */
export const UNSTORABLE = /[\u0000\ud800-\udfff]/u;

/**
 * The regular expressions whose meaning is plain text search, in Go's syntax: an optional `^`,
 * literal characters (letters, digits, spaces and punctuation that is not an operator, or an
 * operator escaped with `\`), and an optional `$`. Without flags, `^` and `$` are the start and the
 * end of the text (Go's `$` does not match before a final newline), so these are "contains",
 * "starts with", "ends with" and "equals", which SQL answers exactly. Every other pattern is left to
 * the re-check.
 */
const PLAIN_PATTERN = /^(\^?)((?:[^\\.+*?()|[\]{}^$\u0000\ud800-\udfff]|\\[\\.+*?()|[\]{}^$/-])*)(\$?)$/u;

/** The SQL test of `text` (an SQL text) against a plain pattern, or undefined when the pattern is not plain. */
export function plainMatch(text: string, pattern: string, parameters: Parameters): string | undefined {
  const plain = PLAIN_PATTERN.exec(pattern);
  if (plain === null) return undefined;
  const [, start, escaped, end] = plain;
  const literal = escaped!.replace(/\\(.)/g, "$1");
  const bound = parameters.text(literal);
  if (start && end) return `${text} = ${bound}`;
  if (start) return `starts_with(${text}, ${bound})`;
  if (end) return `right(${text}, char_length(${bound})) = ${bound}`;
  return `strpos(${text}, ${bound}) > 0`;
}

/** `1` when `condition` holds, else `0`. */
export const bit = (condition: string): string => `(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;

/** The negation of a three-valued SQL value: 1 and 0 swap, 2 stays. */
export const negate = (sql: string): string => `(CASE ${sql} WHEN 1 THEN 0 WHEN 0 THEN 1 ELSE 2 END)`;

/**
 * `1` when `condition` holds of the literal `raw` (bound as a parameter), else `0`; always `0` for
 * a literal no stored text can hold (see {@link UNSTORABLE}), which is not bound.
 */
export function literalTest(raw: string, parameters: Parameters, condition: (bound: string) => string): string {
  return UNSTORABLE.test(raw) ? "0" : bit(condition(parameters.text(raw)));
}

/**
 * `in` on a string (`text`, an SQL text): whether the literal `raw` is part of it, as the engine
 * decides. Three kinds of literal:
 *
 * - one that writes bytes that are not UTF-8 (`"\xa9"`, kept as lone surrogates) is searched as
 *   bytes in the text's UTF-8, as the engine does (Go compares bytes): `"\xa9"` is in `"é"`;
 * - one with another lone surrogate is searched as UTF-16, as JavaScript does, and may match half
 *   of a character beyond U+FFFF (`"\ud83d"` is in `"😀"`), which PostgreSQL's text cannot show:
 *   undecided (`2`) on the texts that hold the rest of the literal, `0` on the others, and `0`
 *   everywhere when a lone surrogate stands where no whole character can supply it;
 * - any other is a substring of the text's characters (strpos finds the empty string in every
 *   text, as Go's strings.Contains does).
 */
export function textContains(text: string, raw: string, parameters: Parameters): Clause {
  const bytes = escapedBytes(raw);
  if (bytes !== undefined) {
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    return { sql: bit(`position(decode(${parameters.text(hex)}, 'hex') in convert_to(${text}, 'UTF8')) > 0`), undecided: false };
  }
  if (!UNSTORABLE.test(raw)) return { sql: bit(`strpos(${text}, ${parameters.text(raw)}) > 0`), undecided: false };
  // Only a low surrogate at the start (the end of a character) and a high one at the end (the
  // start of one) can be halves of characters the text holds; the rest must be whole text.
  const start = isSurrogate(raw.charCodeAt(0), 0xdc00) ? 1 : 0;
  const end = raw.length > start && isSurrogate(raw.charCodeAt(raw.length - 1), 0xd800) ? raw.length - 1 : raw.length;
  const whole = raw.slice(start, end);
  if (UNSTORABLE.test(whole)) return { sql: "0", undecided: false };
  return { sql: `(CASE WHEN strpos(${text}, ${parameters.text(whole)}) > 0 THEN 2 ELSE 0 END)`, undecided: true };
}

/** Whether the UTF-16 unit is a surrogate of the half starting at `base` (0xd800 high, 0xdc00 low). */
const isSurrogate = (unit: number, base: number): boolean => unit >= base && unit <= base + 0x3ff;
