/**
 * Regular expressions for `matches`: RE2 syntax and semantics (leftmost-first, unanchored,
 * code-point based, no lookaround or backreferences), in linear time, through re2js.
 *
 * Patterns that are plain text, optionally anchored (`^web`, `-api$`, `\.example\.com$`), are
 * answered with string operations instead: for them RE2's answer is exactly `startsWith`,
 * `endsWith`, `includes` or equality, at a fraction of the cost.
 *
 * @module
 */
import { RE2JS } from "re2js";
import { escapedBytes, goQuote } from "../strings.js";

/** A compiled pattern. */
export interface Pattern {
  /** True when the pattern matches anywhere in `text`. */
  test(text: string): boolean;
}

/** A compiled pattern, or the reason RE2 rejects it (worded as Go's `regexp` words it). */
export type CompiledPattern = { readonly ok: true; readonly pattern: Pattern } | { readonly ok: false; readonly reason: string };

/** Characters with a meaning in RE2 syntax outside a character class. */
const META = new Set(["\\", ".", "+", "*", "?", "(", ")", "|", "[", "]", "{", "}", "^", "$"]);

/**
 * The text a pattern matches literally, with its anchors, or undefined when the pattern uses any
 * operator. An escaped punctuation character (`\.`) is that character, as in RE2.
 */
export function literalPattern(source: string): { text: string; start: boolean; end: boolean } | undefined {
  let body = source;
  const start = body.startsWith("^");
  if (start) body = body.slice(1);
  // A trailing `$` anchors unless it is escaped (`\$`), which the loop below would see.
  const end = body.endsWith("$") && !body.endsWith("\\$");
  if (end) body = body.slice(0, -1);
  let text = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body.charAt(i);
    if (ch === "\\") {
      const next = body.charAt(i + 1);
      if (!/^[!-/:-@[-`{-~]$/.test(next)) return undefined;
      text += next;
      i++;
    } else if (META.has(ch)) {
      return undefined;
    } else {
      text += ch;
    }
  }
  return { text, start, end };
}

/** Compiles `source` with RE2 rules. */
export function compilePattern(source: string): CompiledPattern {
  // Go's regexp reads patterns as UTF-8 and rejects bytes that are not.
  if (escapedBytes(source) !== undefined) return { ok: false, reason: `error parsing regexp: invalid UTF-8: ${goQuote(source)}` };
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  const literal = literalPattern(source);
  if (literal === undefined) return { ok: true, pattern: { test: (text) => re.test(text) } };
  const { text: wanted, start, end } = literal;
  const test =
    start && end
      ? (text: string) => text === wanted
      : start
        ? (text: string) => text.startsWith(wanted)
        : end
          ? (text: string) => text.endsWith(wanted)
          : (text: string) => text.includes(wanted);
  return { ok: true, pattern: { test } };
}
