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
 * Patterns that V8's backtracking engine provably matches in linear time (no repetition of
 * something that may match in several ways, each choice decided by the next character: see
 * {@link runsInLinearTime}) run on V8's `RegExp`, written from the pattern's syntax tree with Go's
 * meaning spelled out (see {@link nativeProgram}): `^(web|api)-[0-9]+$` does, `^(a+)+$` does not.
 * re2js matches every other pattern, and texts over {@link NATIVE_MAX_TEXT_LENGTH} characters.
 *
 * Every pattern not plain text has a size: the instructions of its compiled program, plus one for every 8
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
import { classMembers, goErrorText, isAlnum, translatePattern, type Assertion, type PatternNode, type Translation } from "./go-regexp.js";
import { complement, MAX_RUNE, rangeSet, type RangeSet } from "./unicode-15.js";

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
 * The longest text a pattern runs over on V8; a longer one is matched by the pattern's re2js
 * program (compiled then). V8's backtracking keeps an entry on its stack for each round of a
 * repeated group, and throws a RangeError past some millions; here it holds at most this many.
 */
export const NATIVE_MAX_TEXT_LENGTH = 100_000;

/**
 * For a pattern run on V8 that is not anchored at the start: the most characters a match may hold
 * outside its unbounded repetitions (`*`, `+`, `{n,}`). V8 tries the pattern at each position of
 * the text; {@link runsInLinearTime} shows that each character is then read by at most this many
 * attempts plus one, so that matching stays linear (`[0-9a-f]{12}` may run there, `.{1000}` not).
 */
export const NATIVE_MAX_OVERLAP = 16;

/**
 * The largest pattern (its size bound, in instructions) run on V8: deciding whether V8 runs a pattern
 * in linear time takes time quadratic in its size at worst; larger patterns go to re2js.
 */
export const NATIVE_MAX_SIZE = 2_000;

/**
 * The tallest syntax tree run on V8 (groups, alternations, concatenations and repetitions each a
 * level); a taller one goes to re2js, whose verdict past 1,000 levels is Go's `expression nests too deeply`.
 */
export const NATIVE_MAX_HEIGHT = 100;

/**
 * A JavaScript `RegExp` with exactly the matches of `source` (read as Go reads it: `translation`
 * is its reading), for the patterns V8 matches in linear time (see {@link runsInLinearTime}):
 * V8's engine backtracks, and is an order of magnitude faster than re2js on them. It is written
 * from the pattern's syntax tree, where Go's meaning is settled: every character and class as
 * the explicit code points it matches (`(?i)` folded, `\d` ASCII, `.` without `\n` unless `(?s)`),
 * `$` as the end of the text, `(?m)`'s `^` and `$` at `\n` only, no flags but `u`. Undefined for
 * a pattern left to re2js, or one Go rejects.
 *
 * @example
 * ```ts
 * nativeProgram("^(web|api)-[0-9]+$")?.test("api-12"); // true
 * nativeProgram("^(a+)+$"); // undefined: a repetition of a repetition backtracks exponentially
 * ```
 */
export function nativeProgram(source: string, translation: Translation = translatePattern(source)): RegExp | undefined {
  return translation.ok && runsNatively(translation) ? writeProgram(translation.tree) : undefined;
}

/** Whether V8's engine may run the pattern `translation` read (see {@link nativeProgram}), without writing its program yet. */
function runsNatively(translation: Translation & { readonly ok: true }): boolean {
  if (translation.bound > NATIVE_MAX_SIZE || translation.height > NATIVE_MAX_HEIGHT) return false;
  return !contains(translation.tree, holdsInsidePairs) && runsInLinearTime(translation.tree, translation.bound);
}

/** The `RegExp` of a tree that runs natively, or undefined where V8 refuses it. */
function writeProgram(tree: PatternNode): RegExp | undefined {
  try {
    return new RegExp(writeNative(tree), "u");
  } catch {
    // V8's own limits (a program too large for it): re2js runs it.
    return undefined;
  }
}

/**
 * Whether V8's backtracking engine runs `tree` in time linear in the text (for each character,
 * work proportional to the pattern's size `bound`), by one of two sufficient conditions:
 *
 * - no repetition at all, and at most `bound` steps for the paths through its alternations
 *   (`^web|^api`, `(dc1|dc2)-(a|b)`): each attempt tries each path once;
 * - or deterministic: at each choice (an alternation, a repetition's next round or its end) the
 *   next character of the text chooses, at most one alternative matching the empty string and no
 *   repetition of something that may (`^(a+)+$`, `(a|ab)*c`, `(\w+\s?)*$` are not). An attempt
 *   then follows one path, backtracking out of each other alternative within a character. Anchored
 *   at the start (`^`, which V8 sees too), there is one attempt. Otherwise V8 makes one at each
 *   position: an attempt holds at most {@link NATIVE_MAX_OVERLAP} characters outside unbounded
 *   repetitions, and no character a match may start with is inside one (`-[0-9]+$` runs, `[a-z]+x`
 *   not), so an attempt can only start inside another at one of its few characters outside them.
 */
export function runsInLinearTime(tree: PatternNode, bound: number): boolean {
  if (!contains(tree, isRepeat) && backtrackingSteps(tree).steps <= bound) return true;
  const shapes = new Map<PatternNode, Shape>();
  if (!isDeterministic(tree, [], shapes)) return false;
  if (anchoredAtStart(tree)) return true;
  return lengthOutsideLoops(tree) <= NATIVE_MAX_OVERLAP && !overlaps(shapeOf(tree, shapes).first, loopChars(tree, false));
}

/** What a part of a pattern may match: whether the empty string (its assertions aside), and the characters a longer match may start with. */
interface Shape {
  readonly empty: boolean;
  readonly first: RangeSet;
}

function shapeOf(node: PatternNode, shapes: Map<PatternNode, Shape>): Shape {
  let shape = shapes.get(node);
  if (shape !== undefined) return shape;
  switch (node.kind) {
    case "chars":
      shape = { empty: false, first: node.set() };
      break;
    case "assert":
      shape = { empty: true, first: [] };
      break;
    case "group":
      shape = shapeOf(node.body, shapes);
      break;
    case "concat": {
      let first: RangeSet = [];
      let empty = true;
      for (const item of node.items) {
        const itemShape = shapeOf(item, shapes);
        first = union(first, itemShape.first);
        if (!itemShape.empty) {
          empty = false;
          break;
        }
      }
      shape = { empty, first };
      break;
    }
    case "alternate": {
      const branches = node.branches.map((branch) => shapeOf(branch, shapes));
      shape = { empty: branches.some((b) => b.empty), first: rangeSet(branches.flatMap((b) => b.first)) };
      break;
    }
    case "repeat": {
      const body = shapeOf(node.body, shapes);
      shape = node.max === 0 ? { empty: true, first: [] } : { empty: node.min === 0 || body.empty, first: body.first };
      break;
    }
  }
  shapes.set(node, shape);
  return shape;
}

/** Whether the next character decides every choice of `node`, followed by what may start with `follow`. */
function isDeterministic(node: PatternNode, follow: RangeSet, shapes: Map<PatternNode, Shape>): boolean {
  switch (node.kind) {
    case "chars":
    case "assert":
      return true;
    case "group":
      return isDeterministic(node.body, follow, shapes);
    case "concat": {
      let next = follow;
      for (let i = node.items.length - 1; i >= 0; i--) {
        const item = node.items[i]!;
        if (!isDeterministic(item, next, shapes)) return false;
        const shape = shapeOf(item, shapes);
        next = shape.empty ? union(shape.first, next) : shape.first;
      }
      return true;
    }
    case "alternate": {
      // What each branch may start with, all in one list: a range overlapping another is another branch's.
      const starts: number[] = [];
      let empties = 0;
      for (const branch of node.branches) {
        const shape = shapeOf(branch, shapes);
        for (const bound of shape.first) starts.push(bound);
        if (shape.empty && ++empties > 1) return false;
        if (shape.empty) for (const bound of follow) starts.push(bound);
        if (!isDeterministic(branch, follow, shapes)) return false;
      }
      return disjoint(starts);
    }
    case "repeat": {
      if (node.max === 0) return true;
      const body = shapeOf(node.body, shapes);
      // Rounds that may match nothing can be taken in many ways.
      if (body.empty) return false;
      // Another round or the rest: unless the count is fixed, the next character must tell.
      if (node.max !== node.min && overlaps(body.first, follow)) return false;
      return isDeterministic(node.body, node.max === 1 ? follow : union(body.first, follow), shapes);
    }
  }
}

/** Whether `node` or a part of it passes `test`. */
function contains(node: PatternNode, test: (node: PatternNode) => boolean): boolean {
  if (test(node)) return true;
  switch (node.kind) {
    case "chars":
    case "assert":
      return false;
    case "group":
    case "repeat":
      return contains(node.body, test);
    case "concat":
      return node.items.some((item) => contains(item, test));
    case "alternate":
      return node.branches.some((branch) => contains(branch, test));
  }
}

const isRepeat = (node: PatternNode) => node.kind === "repeat";
/**
 * V8 also tries a match between the two halves of a surrogate pair (`u` flag or not), where RE2
 * never does: there, `\B` holds (neither half is a word character) and a negative lookaround
 * would too, so a pattern with `\B` stays on re2js (`\B` on `a🚀b` is false).
 */
const holdsInsidePairs = (node: PatternNode) => node.kind === "assert" && node.assertion === "not-word-boundary";

/**
 * For a pattern without repetition: the steps of an attempt that tries every path (`steps`), and
 * the number of paths (each counted up to 2^40, which no budget reaches).
 */
function backtrackingSteps(node: PatternNode): { steps: number; paths: number } {
  const cap = (n: number) => Math.min(n, 2 ** 40);
  switch (node.kind) {
    case "group":
      return backtrackingSteps(node.body);
    case "concat": {
      let steps = 0;
      let paths = 1;
      for (const item of node.items) {
        const part = backtrackingSteps(item);
        steps = cap(steps + paths * part.steps);
        paths = cap(paths * part.paths);
      }
      return { steps, paths };
    }
    case "alternate": {
      let steps = 0;
      let paths = 0;
      for (const branch of node.branches) {
        const part = backtrackingSteps(branch);
        steps = cap(steps + part.steps);
        paths = cap(paths + part.paths);
      }
      return { steps, paths };
    }
    default:
      return { steps: 1, paths: 1 };
  }
}

/** Whether V8 sees `node` anchored at the start, by its own rule (`IsAnchoredAtStart` in regexp-ast.cc). */
function anchoredAtStart(node: PatternNode): boolean {
  switch (node.kind) {
    case "assert":
      return node.assertion === "begin-text";
    case "group":
      return anchoredAtStart(node.body);
    case "concat":
      for (const item of node.items) {
        if (anchoredAtStart(item)) return true;
        if (consumes(item)) return false;
      }
      return false;
    case "alternate":
      return node.branches.every(anchoredAtStart);
    default:
      return false;
  }
}

/** Whether `node` may match a character (V8's `max_match() > 0`). */
function consumes(node: PatternNode): boolean {
  switch (node.kind) {
    case "chars":
      return true;
    case "assert":
      return false;
    case "group":
      return consumes(node.body);
    case "concat":
      return node.items.some(consumes);
    case "alternate":
      return node.branches.some(consumes);
    case "repeat":
      return node.max !== 0 && consumes(node.body);
  }
}

/** The most characters a match of `node` holds outside its unbounded repetitions. */
function lengthOutsideLoops(node: PatternNode): number {
  switch (node.kind) {
    case "chars":
      return 1;
    case "assert":
      return 0;
    case "group":
      return lengthOutsideLoops(node.body);
    case "concat":
      return node.items.reduce((sum, item) => sum + lengthOutsideLoops(item), 0);
    case "alternate":
      return node.branches.reduce((most, branch) => Math.max(most, lengthOutsideLoops(branch)), 0);
    case "repeat":
      return node.max < 0 ? 0 : node.max * lengthOutsideLoops(node.body);
  }
}

/** The characters an unbounded repetition of `node` may match (`inLoop`: `node` is inside one). */
function loopChars(node: PatternNode, inLoop: boolean): RangeSet {
  switch (node.kind) {
    case "chars":
      return inLoop ? node.set() : [];
    case "assert":
      return [];
    case "group":
      return loopChars(node.body, inLoop);
    case "concat":
      return rangeSet(node.items.flatMap((item) => loopChars(item, inLoop)));
    case "alternate":
      return rangeSet(node.branches.flatMap((branch) => loopChars(branch, inLoop)));
    case "repeat":
      return node.max === 0 ? [] : loopChars(node.body, inLoop || node.max < 0);
  }
}

/** The union of two sets, merged in one pass. */
function union(a: RangeSet, b: RangeSet): RangeSet {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let lo: number;
    let hi: number;
    if (j >= b.length || (i < a.length && a[i]! <= b[j]!)) {
      lo = a[i]!;
      hi = a[i + 1]!;
      i += 2;
    } else {
      lo = b[j]!;
      hi = b[j + 1]!;
      j += 2;
    }
    if (out.length > 0 && lo <= out[out.length - 1]! + 1) out[out.length - 1] = Math.max(out[out.length - 1]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

/** Whether the ranges `[lo, hi, …]` (in any order) are pairwise disjoint. */
function disjoint(pairs: readonly number[]): boolean {
  const order: number[] = [];
  for (let k = 0; k < pairs.length; k += 2) order.push(k);
  order.sort((a, b) => pairs[a]! - pairs[b]!);
  let end = -1;
  for (const k of order) {
    if (pairs[k]! <= end) return false;
    end = pairs[k + 1]!;
  }
  return true;
}

/** Whether two sets share a code point. */
function overlaps(a: RangeSet, b: RangeSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i + 1]! < b[j]!) i += 2;
    else if (b[j + 1]! < a[i]!) j += 2;
    else return true;
  }
  return false;
}

/**
 * `(?m)`'s `^` and `$`: at the ends or next to `\n`, not at `\r`, U+2028 or U+2029 as JavaScript's
 * `m` flag would; positive lookarounds, which fail between the halves of a surrogate pair.
 */
const NATIVE_ASSERTIONS: Readonly<Record<Assertion, string>> = {
  "begin-text": "^",
  "end-text": "$",
  "begin-line": "(?:^|(?<=\\n))",
  "end-line": "(?:$|(?=\\n))",
  "word-boundary": "\\b",
  "not-word-boundary": "\\B",
};

/** The pattern V8 compiles (with the `u` flag only) for `node`. */
function writeNative(node: PatternNode): string {
  switch (node.kind) {
    case "chars":
      return writeSet(node.set());
    case "assert":
      return NATIVE_ASSERTIONS[node.assertion];
    case "group":
      return `(?:${writeNative(node.body)})`;
    case "concat":
      return node.items.map((item) => (item.kind === "alternate" ? `(?:${writeNative(item)})` : writeNative(item))).join("");
    case "alternate":
      return node.branches.map(writeNative).join("|");
    case "repeat": {
      const body = node.body.kind === "chars" || node.body.kind === "group" ? writeNative(node.body) : `(?:${writeNative(node.body)})`;
      const { min, max } = node;
      const count = max < 0 ? (min === 0 ? "*" : min === 1 ? "+" : `{${min},}`) : min === 0 && max === 1 ? "?" : min === max ? `{${min}}` : `{${min},${max}}`;
      return `${body}${count}${node.greedy ? "" : "?"}`;
    }
  }
}

/** A set as a JavaScript class (`[^]` for every code point, `[]` for none), or one escaped character. */
function writeSet(set: RangeSet): string {
  if (set.length === 2 && set[0] === set[1]) return nativeChar(set[0]!);
  const negated = set.length > 0 && set[0] === 0 && set[set.length - 1] === MAX_RUNE;
  const ranges = negated ? complement(set) : set;
  return `${negated ? "[^" : "["}${classMembers(ranges, nativeChar)}]`;
}

/** A code point in a JavaScript pattern: ASCII letters and digits as they are, anything else as `\u{…}`. */
function nativeChar(c: number): string {
  return isAlnum(c) ? String.fromCharCode(c) : `\\u{${c.toString(16)}}`;
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
  if (runsNatively(translation)) {
    // V8 runs it, and re2js compiles it only for a text too long for V8: its size (and cost) is the
    // bound read from its text, never below the program re2js would build.
    budget.work -= bound;
    if (bound > budget.size) return { ok: false, tooLarge: true, reason: `the regular expression compiles to up to ${bound} instructions; the filter's patterns may hold ${budget.size} more` };
    budget.size -= bound;
    let re: RE2JS | undefined;
    const longText = (text: string) => {
      if (re === undefined) {
        re = RE2JS.compile(translation.pattern());
        capDfa(re, dfaBytesFor(bound));
      }
      return re.test(text);
    };
    // Its program is written on first use (a third of compiling the pattern, which a filter
    // compiled and never run does not need). Should V8 refuse it, re2js runs it: the same matches.
    // It then replaces the pattern's test, so that later matches check nothing more than before.
    const tree = translation.tree;
    const pattern: Pattern = {
      size: bound,
      test(text) {
        const native = writeProgram(tree);
        pattern.test = native === undefined ? longText : (text) => (text.length <= NATIVE_MAX_TEXT_LENGTH ? native.test(text) : longText(text));
        return pattern.test(text);
      },
    };
    return { ok: true, pattern };
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
