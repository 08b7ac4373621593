/**
 * Regular expressions for `matches`: RE2 syntax and semantics (leftmost-first, unanchored,
 * code-point based, no lookaround or backreferences), in linear time, through re2js.
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
 * @module
 */
import { RE2JS } from "re2js";
import { escapedBytes, goQuote } from "../strings.js";

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
  const re2 = (re as unknown as { re2Input?: Partial<Re2Internals> }).re2Input;
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
 * Compiles `source` with RE2 rules, within what is left of the filter's pattern `budget` (which it
 * charges): a pattern whose size is above `budget.size` is refused, and so is, without being
 * compiled, one whose size read from its text is above what may still be compiled.
 */
export function compilePattern(source: string, budget: PatternBudget = patternBudget(Infinity)): CompiledPattern {
  // Go's regexp reads patterns as UTF-8 and rejects bytes that are not.
  if (escapedBytes(source) !== undefined) return { ok: false, reason: `error parsing regexp: invalid UTF-8: ${goQuote(source)}`, tooLarge: false };
  const literal = literalPattern(source);
  if (literal !== undefined) return { ok: true, pattern: literalMatcher(literal) };

  const bound = patternSizeBound(source);
  if (bound > budget.work) {
    const reason =
      bound > COMPILE_WORK_FACTOR * budget.size
        ? `the regular expression compiles to up to ${bound} instructions; the filter's patterns may hold ${budget.size} more`
        : "the filter's regular expressions are too large: compiling them stopped at twice what they may hold";
    return { ok: false, tooLarge: true, reason };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error), tooLarge: false };
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

const REPEAT = /^\{([0-9]+)(,([0-9]*))?\}/;

/**
 * An upper bound on the number of instructions RE2 compiles `source` to, read from its syntax
 * without compiling it: every atom is one instruction, a capturing group two more, each `|`, `*`,
 * `+` or `?` one more, and a counted repetition as many copies as RE2 expands it to. It exists so
 * that `\pL{1000}` written a thousand times is refused before a million instructions are built.
 */
export function patternSizeBound(source: string): number {
  interface Frame {
    /** Completed alternatives and their bars. */
    alternatives: number;
    /** Completed atoms of the current alternative, `last` excepted. */
    sum: number;
    /** The latest atom (what a repetition applies to). */
    last: number;
    readonly capture: boolean;
  }
  const frames: Frame[] = [{ alternatives: 0, sum: 0, last: 0, capture: false }];
  const top = () => frames[frames.length - 1]!;
  const atom = (size: number) => {
    const frame = top();
    frame.sum += frame.last;
    frame.last = size;
  };
  // As RE2 expands them: `x{n}` is n copies, `x{n,m}` m copies of which m - n optional, `x{n,}`
  // n + 1 copies and a loop. A loop or an option adds an instruction, and up to two more when `x`
  // can match the empty string (the compiler then guards the loop).
  const repeat = (low: number, high: number | undefined) => {
    const frame = top();
    const size = frame.last;
    frame.last = high === undefined ? (low + 1) * size + 3 : Math.max(low, high) * size + 3 * Math.max(0, high - low);
  };
  let i = 0;
  while (i < source.length) {
    const ch = source.charAt(i);
    switch (ch) {
      case "\\": {
        const next = source.charAt(i + 1);
        if (next === "Q") {
          const end = source.indexOf("\\E", i + 2);
          const quoted = end === -1 ? source.length - i - 2 : end - i - 2;
          for (let k = 0; k < quoted; k++) atom(1);
          i = end === -1 ? source.length : end + 2;
          continue;
        }
        const braced = (next === "p" || next === "P" || next === "x") && source.charAt(i + 2) === "{";
        i = braced ? skipPast(source, i + 3, "}") : i + 2;
        atom(1);
        continue;
      }
      case "[":
        i = skipClass(source, i);
        atom(1);
        continue;
      case "(": {
        if (source.startsWith("(?", i) && !source.startsWith("(?P<", i) && !source.startsWith("(?<", i)) {
          const close = source.indexOf(")", i);
          const colon = source.indexOf(":", i);
          if (colon === -1 || (close !== -1 && close < colon)) {
            // `(?i)`: flags only, no group.
            i = close === -1 ? source.length : close + 1;
            continue;
          }
          frames.push({ alternatives: 0, sum: 0, last: 0, capture: false });
          i = colon + 1;
          continue;
        }
        frames.push({ alternatives: 0, sum: 0, last: 0, capture: true });
        i = source.startsWith("(?", i) ? skipPast(source, i, ">") : i + 1;
        continue;
      }
      case ")": {
        if (frames.length > 1) {
          const frame = frames.pop()!;
          atom(frame.alternatives + frame.sum + frame.last + (frame.capture ? 2 : 0));
        }
        i++;
        continue;
      }
      case "|": {
        const frame = top();
        frame.alternatives += frame.sum + frame.last + 1;
        frame.sum = 0;
        frame.last = 0;
        i++;
        continue;
      }
      case "*":
      case "+":
      case "?":
        repeat(0, 1);
        i += source.charAt(i + 1) === "?" ? 2 : 1;
        continue;
      case "{": {
        const match = REPEAT.exec(source.slice(i, i + 24));
        if (match === null) {
          atom(1);
          i++;
          continue;
        }
        const low = Number(match[1]);
        repeat(low, match[2] === undefined ? low : match[3] === "" ? undefined : Number(match[3]));
        i += match[0].length;
        if (source.charAt(i) === "?") i++;
        continue;
      }
      default:
        atom(1);
        i += source.codePointAt(i)! > 0xffff ? 2 : 1;
    }
  }
  let size = 0;
  while (frames.length > 0) {
    const frame = frames.pop()!;
    size += frame.alternatives + frame.sum + frame.last + (frame.capture ? 2 : 0);
  }
  // The program's FAIL and MATCH instructions, and the loop of an unanchored search.
  return size + 4;
}

/** The offset just past the next `close` at or after `from` (the end when there is none). */
function skipPast(source: string, from: number, close: string): number {
  const at = source.indexOf(close, from);
  return at === -1 ? source.length : at + 1;
}

/** The offset just past the character class opening at `start` (`[^]a-z[:alpha:]\]]`). */
function skipClass(source: string, start: number): number {
  let i = start + 1;
  if (source.charAt(i) === "^") i++;
  // A `]` first in the class is a literal.
  if (source.charAt(i) === "]") i++;
  while (i < source.length) {
    const ch = source.charAt(i);
    if (ch === "]") return i + 1;
    if (ch === "\\") {
      const next = source.charAt(i + 1);
      i = (next === "p" || next === "P" || next === "x") && source.charAt(i + 2) === "{" ? skipPast(source, i + 3, "}") : i + 2;
      continue;
    }
    if (source.startsWith("[:", i)) {
      const end = source.indexOf(":]", i + 2);
      i = end === -1 ? i + 2 : end + 2;
      continue;
    }
    i++;
  }
  return source.length;
}
