/**
 * Regular expressions for `matches`: the dialect of Go 1.23's `regexp` (RE2 syntax and semantics:
 * leftmost-first, unanchored, code-point based, no lookaround or backreferences), matched in
 * linear time by re2js.
 *
 * re2js accepts a slightly different language than Go 1.23 does (it follows later Go releases and
 * Unicode 17), so a pattern never reaches it as written. {@link translatePattern} first reads it as
 * Go's `regexp/syntax` parser does (`parse.go`), which gives Go's verdict and, for an invalid
 * pattern, Go's exact error; it then rewrites it into a form whose meaning does not depend on
 * re2js's dialect or tables:
 *
 * - `\p{…}` classes become explicit ranges from Go's Unicode 15.0.0 tables (`unicode.Categories`
 *   and `unicode.Scripts`, plus `Any`), and case-insensitive (`(?i)`) literals and classes become
 *   explicit sets folded with Go's simple case folding orbits, the `i` flag being dropped;
 * - every bracketed class becomes its explicit ranges;
 * - named groups `(?P<name>…)` and `(?<name>…)` become plain groups (names are never used, and Go
 *   allows a name twice).
 *
 * Patterns that are plain text, optionally anchored (`^web`, `-api$`, `\.example\.com$`), are
 * answered with string operations instead and never compiled: for them RE2's answer is exactly
 * `startsWith`, `endsWith`, `includes` or equality, at a fraction of the cost.
 *
 * Every other pattern has a size: the instructions of its compiled program, plus one for every 8
 * character ranges its classes hold. The size bounds what compiling it takes (time and memory),
 * what matching it costs per character of text (see `cost.ts`), and the memory of the lazy DFA
 * re2js builds while matching (see {@link DFA_BYTES_PER_INSTRUCTION}).
 *
 * Two of Go's limits are not reproduced to the instruction: Go's `expression too large` (over
 * 3,355,443 instructions or 33,554,432 class runes) is far above the filter's pattern budget, which
 * refuses such patterns first (`pattern_too_large`); `expression nests too deeply` (a parse tree
 * over 1,000 levels) is re2js's verdict on the translated pattern, whose tree has the same height.
 *
 * @module
 */
import { RE2JS, RE2JSSyntaxException } from "re2js";
import { goErrorText, translatePattern } from "./go-regexp.js";

/** A compiled pattern. */
export interface Pattern {
  /** True when the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** The pattern's size (0 for a literal pattern answered by string operations). */
  readonly size: number;
}

/** A compiled pattern, or why it cannot be used (worded as Go's `regexp` words it, or our size limit). */
export type CompiledPattern =
  | { readonly ok: true; readonly pattern: Pattern }
  | { readonly ok: false; readonly reason: string; readonly tooLarge: boolean };

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

/** ASCII punctuation, which `\\` makes literal in Go. */
const PUNCTUATION = /^[!-/:-@[-`{-~]$/;
/** ASCII characters that stand for themselves outside a class. */
const PLAIN = /^[ -~]$/;

/**
 * A JavaScript `RegExp` with exactly the matches of `source` (read as Go reads it), for the
 * patterns V8 matches an order of magnitude faster than re2js while staying linear: no repetition
 * and no group, so backtracking tries each alternative once per starting position (time at most
 * the text's length times the pattern's). Allowed: `^`, `$`, `|`, `.` (any character but a
 * newline, as in Go), printable ASCII, escaped punctuation, and classes of ASCII characters and
 * ranges. Anything else (flags, repetition, groups, `\d`, negated classes, non-ASCII) is
 * undefined and left to re2js. Call it only on a pattern Go accepts.
 *
 * @example
 * ```ts
 * nativeProgram("^dc[12]$")?.test("dc1"); // true
 * nativeProgram("^dc[0-9]+$"); // undefined: a repetition
 * ```
 */
export function nativeProgram(source: string): RegExp | undefined {
  const literal = (ch: string) => `\\u{${ch.charCodeAt(0).toString(16)}}`;
  let out = "";
  for (let i = 0; i < source.length; i++) {
    const ch = source.charAt(i);
    if (ch === "^" || ch === "$" || ch === "|") out += ch;
    else if (ch === ".") out += "[^\\n]";
    else if (ch === "\\") {
      const next = source.charAt(++i);
      if (!PUNCTUATION.test(next)) return undefined;
      out += literal(next);
    } else if (ch === "[") {
      const end = source.indexOf("]", i + 2);
      if (end < 0) return undefined;
      const members = source.slice(i + 1, end);
      // `[]a]`, `[^a]`, `[-a]`, `[a-]`, `[[:alpha:]]`, escapes: left to re2js.
      if (!/^[A-Za-z0-9](?:-[A-Za-z0-9])?(?:[A-Za-z0-9](?:-[A-Za-z0-9])?)*$/.test(members)) return undefined;
      out += `[${members.replace(/[A-Za-z0-9]/g, literal)}]`;
      i = end;
    } else if (PLAIN.test(ch) && !META.has(ch)) out += literal(ch);
    else return undefined;
  }
  return new RegExp(out, "u");
}

/**
 * How much lazy-DFA memory (bytes, as re2js counts them) a pattern may use per unit of its size.
 * re2js allows 8 MiB per pattern; a filter may hold thousands of small patterns, so their DFAs
 * are held to a share proportional to their size (a DFA that fills its share starts over, or
 * falls back to the NFA, which is slower but still linear).
 */
export const DFA_BYTES_PER_INSTRUCTION = 1024;

/** The least DFA memory a pattern is given, whatever its size. */
const MIN_DFA_BYTES = 16 * 1024;

/**
 * How many instructions a filter may compile, as a multiple of what its patterns may hold: the
 * patterns refused for their size were compiled too, before their size was known. Past it, every
 * pattern is refused without being compiled, so compiling a filter stays proportional to the limit.
 */
const COMPILE_WORK_FACTOR = 2;

/** What a filter's patterns may still hold, and how much compiling they may still do (instructions). */
export interface PatternBudget {
  /** Instructions the filter's accepted patterns may still hold. */
  size: number;
  /** Instructions that may still be compiled, patterns refused afterwards included. */
  work: number;
}

/** The budget of a filter whose patterns may hold `maxSize` instructions. */
export function patternBudget(maxSize: number): PatternBudget {
  return { size: maxSize, work: COMPILE_WORK_FACTOR * maxSize };
}

/** The re2js internals read to size a program and to hold its DFA to its share (checked by a test). */
interface Re2Internals {
  readonly prog: { readonly inst: readonly { readonly runes?: ArrayLike<number> | null }[] };
  readonly dfa: { stateBudget: number; memBudget: number };
}

function internalsOf(re: RE2JS): Re2Internals | undefined {
  // Declared by re2js's typings (its program untyped): checked all the same, in case a version moves them.
  const re2: Partial<Re2Internals> | undefined = re.re2Input;
  return re2 !== undefined && Array.isArray(re2.prog?.inst) ? (re2 as Re2Internals) : undefined;
}

/** A compiled program's size: its instructions, plus one for every 8 ranges of its character classes. */
export function programSize(re: RE2JS): number {
  const internals = internalsOf(re);
  if (internals === undefined) return re.programSize();
  let ranges = 0;
  for (const inst of internals.prog.inst) ranges += (inst.runes?.length ?? 0) >> 1;
  return internals.prog.inst.length + Math.ceil(ranges / 8);
}

/**
 * Compiles `source` with Go 1.23's rules, within what is left of the filter's pattern `budget`
 * (which it charges): a pattern Go rejects gets Go's error; a pattern whose size is above
 * `budget.size` is refused, and so is, without being compiled, one whose size read from its text
 * is above what may still be compiled.
 *
 * @example
 * ```ts
 * compilePattern("\\p{Cn}"); // { ok: false, reason: "error parsing regexp: invalid character class range: `\\p{Cn}`", tooLarge: false }
 * ```
 */
export function compilePattern(source: string, budget: PatternBudget = patternBudget(Infinity)): CompiledPattern {
  const translation = translatePattern(source);
  if (!translation.ok) return { ok: false, reason: translation.reason, tooLarge: false };
  const literal = literalPattern(source);
  if (literal !== undefined) return { ok: true, pattern: literalMatcher(literal) };

  const bound = translation.bound;
  if (bound > budget.work) {
    const reason =
      bound > COMPILE_WORK_FACTOR * budget.size
        ? `the regular expression compiles to up to ${bound} instructions; the filter's patterns may hold ${budget.size} more`
        : "the filter's regular expressions are too large: compiling them stopped at twice what they may hold";
    return { ok: false, tooLarge: true, reason };
  }
  const native = nativeProgram(source);
  if (native !== undefined) {
    // V8 runs it, and re2js never compiles it: its size (and cost) is the bound read from its text,
    // never below the program re2js would build.
    budget.work -= bound;
    if (bound > budget.size) return { ok: false, tooLarge: true, reason: `the regular expression compiles to up to ${bound} instructions; the filter's patterns may hold ${budget.size} more` };
    budget.size -= bound;
    return { ok: true, pattern: { size: bound, test: (text) => native.test(text) } };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(translation.pattern());
  } catch (error) {
    return re2jsRefusal(source, error);
  }
  const size = programSize(re);
  budget.work -= size;
  if (size > budget.size) return { ok: false, tooLarge: true, reason: `the regular expression compiles to ${size} instructions; the filter's patterns may hold ${budget.size} more` };
  budget.size -= size;
  let capped = false;
  return {
    ok: true,
    pattern: {
      size,
      test: (text) => {
        // The DFA is built on first use; it gets its share of memory then.
        if (!capped) capped = capDfa(re, dfaBytesFor(size));
        return re.test(text);
      },
    },
  };
}

/**
 * Why re2js refused a translated pattern that Go's grammar accepts: a tree over 1,000 levels (Go's
 * own `expression nests too deeply`, worded as Go words it), or a program over re2js's size limit
 * (1,398,101 instructions, below Go's 3,355,443: only reachable with a raised pattern budget).
 */
function re2jsRefusal(source: string, error: unknown): CompiledPattern {
  if (error instanceof RE2JSSyntaxException && error.error === "expression nests too deeply") {
    return { ok: false, reason: goErrorText("expression nests too deeply", source), tooLarge: false };
  }
  const detail = error instanceof Error ? error.message : String(error);
  return { ok: false, tooLarge: true, reason: `the regular expression is too large to compile (${detail})` };
}

/** The lazy-DFA memory a pattern of `size` may use. */
export function dfaBytesFor(size: number): number {
  return Math.max(MIN_DFA_BYTES, size * DFA_BYTES_PER_INSTRUCTION);
}

/**
 * Holds the lazy DFA of `re` to `bytes` (building it now); false when re2js's internals are not
 * where this version of it keeps them (a test checks they are).
 */
export function capDfa(re: RE2JS, bytes: number): boolean {
  const dfa = internalsOf(re)?.dfa;
  if (dfa === undefined || typeof dfa.stateBudget !== "number") return false;
  if (dfa.stateBudget > bytes) dfa.stateBudget = dfa.memBudget = bytes;
  return true;
}

function literalMatcher({ text: wanted, start, end }: { text: string; start: boolean; end: boolean }): Pattern {
  const test =
    start && end
      ? (text: string) => text === wanted
      : start
        ? (text: string) => text.startsWith(wanted)
        : end
          ? (text: string) => text.endsWith(wanted)
          : (text: string) => text.includes(wanted);
  return { size: 0, test };
}

/**
 * An upper bound on the number of instructions RE2 compiles `source` to, read from its syntax
 * without compiling it: every atom is one instruction, a capturing group two more, each `|`, `*`,
 * `+` or `?` one more, and a counted repetition as many copies as RE2 expands it to. A class that
 * the translation spells out from Unicode tables (`\pL`, or a class under `(?i)`) counts one more
 * for every 8 ranges it may hold. It exists so that `\pL{1000}` written a thousand times is refused
 * before a million instructions are built, or its ranges written out. Infinity for a pattern Go
 * rejects.
 */
export function patternSizeBound(source: string): number {
  const translation = translatePattern(source);
  return translation.ok ? translation.bound : Infinity;
}
