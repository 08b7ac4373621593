/**
 * String literals as the reference reads and writes them: Go's `strconv.Unquote` rules for
 * double-quoted and raw strings, and the JSON-pointer form of double-quoted strings.
 *
 * Go strings are bytes, and `\xHH` or `\ooo` escapes can write bytes that are not UTF-8. Such a
 * byte is kept in the decoded text as the lone surrogate U+DC80–U+DCFF (U+DC00 plus the byte, the
 * technique Python calls "surrogateescape"), so the exact bytes can be recovered where the
 * reference compares bytes ({@link escapedBytes}).
 *
 * @module
 */

/** The result of decoding a string literal. */
export type UnquoteResult =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly message: string; readonly offset: number; readonly length: number };

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
  "\\": 0x5c,
};

const utf8Encoder = new TextEncoder();

/** The first code unit of an escaped byte: byte `b` (0x80–0xFF) is kept as U+DC00 + b. */
const ESCAPED_BYTE_BASE = 0xdc00;

/**
 * Decodes the content of a double-quoted literal (without its quotes) as Go's `strconv.Unquote`
 * does: `\a \b \f \n \r \t \v \\`, `\xHH` and `\ooo` (raw bytes), `\uHHHH` and `\UHHHHHHHH`
 * (code points). A raw newline, `\'`, an unknown escape or a short one is an error. Byte escapes
 * are assembled as UTF-8, so `"\xc3\xa9"` is `"é"`; a byte that is not part of valid UTF-8 is kept
 * as an escaped byte (see the module comment).
 * `offset` in an error is relative to the start of `content`.
 */
export function unquoteDouble(content: string): UnquoteResult {
  const newline = content.indexOf("\n");
  if (newline !== -1) {
    return { ok: false, message: "a double-quoted string cannot contain a line break; use \\n or a backtick string", offset: newline, length: 1 };
  }
  if (!content.includes("\\")) return { ok: true, value: content };

  let text = "";
  let bytes: number[] = [];
  let i = 0;
  while (i < content.length) {
    const ch = content.charAt(i);
    if (ch !== "\\") {
      const codePoint = content.codePointAt(i)!;
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
        // A lone surrogate has no UTF-8 form: it is kept as it is, as on the fast path above.
        text += decodeUtf8(bytes) + ch;
        bytes = [];
        i++;
        continue;
      }
      pushUtf8(bytes, codePoint);
      i += codePoint > 0xffff ? 2 : 1;
      continue;
    }
    const escape = content.charAt(i + 1);
    const simple = SIMPLE_ESCAPES[escape];
    if (simple !== undefined) {
      bytes.push(simple);
      i += 2;
      continue;
    }
    const invalid = (length: number, why: string): UnquoteResult => ({
      ok: false,
      message: `invalid escape ${JSON.stringify(content.slice(i, i + length))}: ${why}`,
      offset: i,
      length,
    });
    switch (escape) {
      case "x": {
        const hex = content.slice(i + 2, i + 4);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) return invalid(2 + hex.length, "\\x needs exactly two hex digits");
        bytes.push(parseInt(hex, 16));
        i += 4;
        break;
      }
      case "u":
      case "U": {
        const digits = escape === "u" ? 4 : 8;
        const hex = content.slice(i + 2, i + 2 + digits);
        if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) {
          return invalid(2 + hex.length, `\\${escape} needs exactly ${digits} hex digits`);
        }
        const codePoint = parseInt(hex, 16);
        if (codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
          return invalid(2 + digits, "not a valid Unicode code point");
        }
        pushUtf8(bytes, codePoint);
        i += 2 + digits;
        break;
      }
      default: {
        if (escape >= "0" && escape <= "7") {
          const octal = content.slice(i + 1, i + 4);
          if (!/^[0-7]{3}$/.test(octal)) return invalid(1 + octal.length, "an octal escape needs exactly three digits");
          const value = parseInt(octal, 8);
          if (value > 0xff) return invalid(4, "an octal escape cannot exceed \\377");
          bytes.push(value);
          i += 4;
          break;
        }
        // The string ends at the first quote, so a trailing backslash is always an attempted \".
        if (escape === "") return invalid(1, 'an escaped quote \\" cannot be written: the string ends at the quote; use \\x22 or a backtick string');
        return invalid(2, "Go string escapes are \\a \\b \\f \\n \\r \\t \\v \\\\ \\xHH \\ooo \\uHHHH \\UHHHHHHHH");
      }
    }
  }
  return { ok: true, value: text + decodeUtf8(bytes) };
}

/** UTF-8 to text as Go reads it rune by rune: each byte of an invalid sequence on its own. */
function decodeUtf8(bytes: readonly number[]): string {
  let text = "";
  let i = 0;
  while (i < bytes.length) {
    const first = bytes[i]!;
    if (first < 0x80) {
      text += String.fromCharCode(first);
      i++;
      continue;
    }
    const [length, initial, minimum] = first >= 0xc2 && first <= 0xdf ? [2, first & 0x1f, 0x80] : first >= 0xe0 && first <= 0xef ? [3, first & 0x0f, 0x800] : first >= 0xf0 && first <= 0xf4 ? [4, first & 0x07, 0x10000] : [0, 0, 0];
    let codePoint = initial;
    let valid = length > 0 && i + length <= bytes.length;
    for (let k = 1; valid && k < length; k++) {
      const next = bytes[i + k]!;
      if (next < 0x80 || next > 0xbf) valid = false;
      else codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (valid && codePoint >= minimum && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff)) {
      text += String.fromCodePoint(codePoint);
      i += length;
    } else {
      text += String.fromCharCode(ESCAPED_BYTE_BASE + first);
      i++;
    }
  }
  return text;
}

/**
 * The bytes the reference holds for a decoded literal: UTF-8, with escaped bytes restored.
 * Undefined when the text has no escaped bytes (then its UTF-8 encoding is its bytes).
 */
export function escapedBytes(text: string): Uint8Array | undefined {
  // Most texts hold no escaped byte: without a code unit that could be one, there is nothing to build.
  let candidate = false;
  for (let i = 0; i < text.length && !candidate; i++) {
    const unit = text.charCodeAt(i);
    candidate = unit >= 0xdc80 && unit <= 0xdcff;
  }
  if (!candidate) return undefined;
  let found = false;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const previous = i > 0 ? text.charCodeAt(i - 1) : 0;
    const isLowSurrogateAlone = unit >= 0xdc80 && unit <= 0xdcff && !(previous >= 0xd800 && previous <= 0xdbff);
    if (isLowSurrogateAlone) {
      bytes.push(unit - ESCAPED_BYTE_BASE);
      found = true;
    } else {
      const codePoint = text.codePointAt(i)!;
      if (codePoint > 0xffff) i++;
      pushUtf8(bytes, codePoint);
    }
  }
  return found ? Uint8Array.from(bytes) : undefined;
}

function pushUtf8(bytes: number[], codePoint: number): void {
  if (codePoint < 0x80) {
    bytes.push(codePoint);
  } else {
    // Lone surrogates (possible in JS strings, never in Go) encode as U+FFFD, as Go would decode them.
    for (const byte of utf8Encoder.encode(String.fromCodePoint(codePoint))) bytes.push(byte);
  }
}

/** Decodes the content of a backtick literal: no escapes; Go's Unquote drops carriage returns. */
export function unquoteRaw(content: string): string {
  return content.includes("\r") ? content.replace(/\r/g, "") : content;
}

/** A JSON-pointer segment of the reference: letters, numbers and `- _ . ~ : |`. */
const POINTER_LITERAL = /^"(?:\/[\p{L}\p{N}\-_.~:|]+)*"$/u;
const POINTER_SEGMENT = /^[\p{L}\p{N}\-_.~:|]+$/u;

/**
 * True when a double-quoted literal (with its quotes) has the JSON-pointer form `"/a/b"` and is
 * therefore read as a selector, as the reference does. `""` also qualifies (zero segments).
 */
export function isPointerLiteral(image: string): boolean {
  return POINTER_LITERAL.test(image);
}

/**
 * The path of a JSON-pointer literal: segments with `~1` → `/` and then `~0` → `~` unescaped.
 * `""` has the single empty segment `[""]`, as the reference's pointer library parses `"/"`.
 */
export function decodePointerLiteral(image: string): string[] {
  const content = image.slice(1, -1);
  if (content === "") return [""];
  return content
    .slice(1)
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Encodes a path as a JSON-pointer literal, or returns undefined when a segment cannot be written. */
export function encodePointerLiteral(path: readonly string[]): string | undefined {
  if (path.length === 1 && path[0] === "") return '""';
  const segments: string[] = [];
  for (const segment of path) {
    const escaped = segment.replace(/~/g, "~0").replace(/\//g, "~1");
    if (!POINTER_SEGMENT.test(escaped)) return undefined;
    segments.push(escaped);
  }
  return `"/${segments.join("/")}"`;
}

const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
};

/**
 * Escapes text for a Go double-quoted literal; `quote` is how `"` is written. A lone surrogate
 * other than an escaped byte has no Go spelling: `loneSurrogates` says whether it is kept as it
 * is (filter source, which reads it back unchanged) or written as U+FFFD (messages, as Go would
 * hold it).
 */
function escapeGo(value: string, quote: string, loneSurrogates: "keep" | "replace"): string {
  let out = "";
  for (const ch of value) {
    const codePoint = ch.codePointAt(0)!;
    const named = NAMED_ESCAPES[ch];
    if (ch === '"') out += quote;
    else if (named !== undefined) out += named;
    else if (codePoint < 0x20 || codePoint === 0x7f) out += `\\x${codePoint.toString(16).padStart(2, "0")}`;
    else if (codePoint >= 0xdc80 && codePoint <= 0xdcff) out += `\\x${(codePoint - ESCAPED_BYTE_BASE).toString(16)}`;
    else if (codePoint >= 0xd800 && codePoint <= 0xdfff) out += loneSurrogates === "keep" ? ch : "\\ufffd";
    else if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/u.test(ch) || (/\p{Zs}/u.test(ch) && ch !== " ")) {
      out += codePoint > 0xffff ? `\\U${codePoint.toString(16).padStart(8, "0")}` : `\\u${codePoint.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return out;
}

/**
 * Writes `value` as a double-quoted literal that {@link unquoteDouble} reads back exactly and
 * that never has the JSON-pointer form (a leading `/` is written `\x2f`). A quote is written
 * `\x22`, since the language cannot read `\"`.
 */
export function quoteDouble(value: string): string {
  const out = escapeGo(value, "\\x22", "keep");
  const quoted = `"${out}"`;
  // `""` reads back as "" either way; any other pointer-shaped text would be read as a path.
  return out !== "" && isPointerLiteral(quoted) ? `"\\x2f${out.slice(1)}"` : quoted;
}

/** Quotes text as Go's `strconv.Quote` does, for messages worded like the reference's. */
export function goQuote(value: string): string {
  return `"${escapeGo(value, '\\"', "replace")}"`;
}

/** A byte as Go's `%#U` prints it (`U+0067 'g'`; the code alone for a character Go does not print). */
export function goRune(byte: number): string {
  const code = `U+${byte.toString(16).toUpperCase().padStart(4, "0")}`;
  const char = String.fromCharCode(byte);
  return char === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(char) ? `${code} '${char}'` : code;
}
