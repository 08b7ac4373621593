/**
 * Regular expressions for `matches`: RE2 syntax and semantics (leftmost-first, unanchored,
 * code-point based, no lookaround or backreferences), in linear time, through re2js.
 *
 * @module
 */
import { RE2JS } from "re2js";

/** A compiled pattern. */
export interface Pattern {
  /** True when the pattern matches anywhere in `text`. */
  test(text: string): boolean;
}

/** A compiled pattern, or the reason RE2 rejects it (worded as Go's `regexp` words it). */
export type CompiledPattern = { readonly ok: true; readonly pattern: Pattern } | { readonly ok: false; readonly reason: string };

/** Compiles `source` with RE2 rules. */
export function compilePattern(source: string): CompiledPattern {
  try {
    const re = RE2JS.compile(source);
    return { ok: true, pattern: { test: (text) => re.test(text) } };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
