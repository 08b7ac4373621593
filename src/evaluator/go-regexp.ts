/**
 * Go 1.23's `regexp/syntax` parser (`parse.go`), as far as the verdict on a pattern goes: it
 * reads a `matches` pattern as Go does, in one linear pass, and gives Go's exact error for a
 * pattern Go rejects, or a pattern for re2js with the same matches that does not depend on
 * re2js's own dialect or tables: `\p{…}` and `(?i)` spelled out from Go's Unicode 15.0.0 tables
 * (`unicode-15.ts`), every class as explicit ranges, named groups as plain groups. It also gives
 * the pattern's syntax tree with Go's meaning settled (flags applied, classes as code points), from
 * which `regex.ts` decides whether V8's engine may run it and writes it for V8.
 *
 * @module
 */
import { complement, foldClosure, foldOrbit, foldPointsWithin, isUnicodeClassName, MAX_RUNE, rangeSet, unicodeTable, type RangeSet } from "./unicode-15.js";

/** `\a \f \n \r \t \v`: the letter's code point and the control character it stands for. */
const NAMED_ESCAPES: ReadonlyMap<number, number> = new Map([
  [0x61, 0x07],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
  [0x76, 0x0b],
]);

/**
 * A pattern read as Go 1.23 reads it: Go's error, or the pattern re2js compiles to the same
 * matches (built on demand, once its size is known to fit), the bound of its size, and its
 * syntax tree.
 */
export type Translation =
  | { readonly ok: true; readonly bound: number; pattern(): string; readonly tree: PatternNode; readonly height: number }
  | { readonly ok: false; readonly reason: string };

/**
 * A zero-width assertion, its flags applied: `^`, `\A` (`begin-text`) and `$`, `\z` (`end-text`)
 * without `(?m)`; `^` and `$` under `(?m)` (`begin-line`, `end-line`: at `\n` only); `\b`, `\B` (ASCII words).
 */
export type Assertion = "begin-text" | "end-text" | "begin-line" | "end-line" | "word-boundary" | "not-word-boundary";

/**
 * A pattern's syntax tree as Go reads it, its flags applied: every character or class is the set of
 * code points it matches (`(?i)` folded, `.` with or without `\n` as `(?s)` says), group names and
 * flags are gone. Greediness (`*?`, `(?U)`) is kept though a match's yes or no does not depend on it.
 */
export type PatternNode =
  | { readonly kind: "chars"; set(): RangeSet }
  | { readonly kind: "assert"; readonly assertion: Assertion }
  | { readonly kind: "concat"; readonly items: readonly PatternNode[] }
  | { readonly kind: "alternate"; readonly branches: readonly PatternNode[] }
  | { readonly kind: "group"; readonly body: PatternNode }
  /** `max` is -1 for an unbounded repetition. */
  | { readonly kind: "repeat"; readonly min: number; readonly max: number; readonly greedy: boolean; readonly body: PatternNode };

/**
 * Reads `source` as Go 1.23's `regexp.Compile` does (Perl flags): Go's error message for a pattern
 * it rejects, else a pattern for re2js with the same matches and the bound of its size.
 * Linear in the length of `source`; writing out the translated pattern is bounded by `bound`.
 *
 * @example
 * ```ts
 * translatePattern("(?P<n>a)(?P<n>b)").ok; // true: Go allows a name twice
 * translatePattern("(?<=a)b"); // { ok: false, reason: "error parsing regexp: invalid named capture: `(?<=a)b`" }
 * const folded = translatePattern("(?i)k");
 * if (folded.ok) folded.pattern(); // the text (?-s)[Kk\x{212a}]: K, k and the Kelvin sign, without the i flag
 * ```
 */
export function translatePattern(source: string): Translation {
  const reader = new GoPatternReader(source);
  try {
    reader.read();
  } catch (error) {
    if (error instanceof GoSyntaxError) return { ok: false, reason: goErrorText(error.code, error.expr) };
    throw error;
  }
  const parts = reader.parts;
  return { ok: true, bound: reader.bound(), pattern: () => parts.map((part) => (typeof part === "string" ? part : classPattern(part))).join(""), tree: reader.tree(), height: reader.height() };
}

/**
 * Go's `ErrorCode`s a pattern can meet here (`parse.go`). Go declares `invalid character class`
 * too but never returns it; `expression too large` is the pattern budget's business.
 */
type GoErrorCode =
  | "invalid character class range"
  | "invalid escape sequence"
  | "invalid named capture"
  | "invalid or unsupported Perl syntax"
  | "invalid nested repetition operator"
  | "invalid repeat count"
  | "invalid UTF-8"
  | "missing closing ]"
  | "missing closing )"
  | "missing argument to repetition operator"
  | "trailing backslash at end of expression"
  | "unexpected )"
  | "expression nests too deeply";

/** Go's `*syntax.Error`: why a pattern is rejected, and the part of it Go quotes. */
class GoSyntaxError extends Error {
  constructor(
    readonly code: GoErrorCode,
    readonly expr: string,
  ) {
    super(goErrorText(code, expr));
  }
}

/**
 * Go's `(*syntax.Error).Error()`: "error parsing regexp: CODE: `EXPR`". Go quotes the pattern's
 * bytes as they are; a byte that is not UTF-8 (held here as U+DC80–U+DCFF, see `strings.ts`)
 * cannot be written in a JavaScript string, and is written `\xff`.
 */
export function goErrorText(code: GoErrorCode, expr: string): string {
  return `error parsing regexp: ${code}: \`${showBytes(expr)}\``;
}

/** `text` with each escaped byte written `\xHH`, and any other lone surrogate as the three bytes Go would hold for it. */
function showBytes(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        out += text.slice(i, i + 2);
        i++;
        continue;
      }
    }
    if (unit >= 0xdc80 && unit <= 0xdcff) out += `\\x${(unit - 0xdc00).toString(16)}`;
    else if (unit >= 0xd800 && unit <= 0xdfff) out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `\\x${b.toString(16)}`).join("");
    else out += text.charAt(i);
  }
  return out;
}

/** Go's parse flags that change what a pattern means (`parse.go`, `Flags`); Perl mode sets OneLine. */
const FOLD_CASE = 1;
const DOT_NL = 2;
const ONE_LINE = 4;
const NON_GREEDY = 8;
const FLAG_LETTERS: Readonly<Record<string, number>> = { i: FOLD_CASE, s: DOT_NL, m: ONE_LINE, U: NON_GREEDY };

/** `\A`, `\z`, `\b`, `\B`. */
const BACKSLASH_ASSERTIONS: Readonly<Record<string, Assertion>> = { A: "begin-text", z: "end-text", b: "word-boundary", B: "not-word-boundary" };

/** The largest count of a repetition, and of nested repetitions multiplied (`maxRepeat`). */
const MAX_REPEAT = 1000;


/** A group being read: what `)` restores, and what the size bound and Go's checks need of it. */
interface Frame {
  readonly capture: boolean;
  /** The flags in force before the group, restored at its `)`. */
  readonly flags: number;
  /** Size bound: the completed alternatives with their bars, the completed atoms of the current one, the latest atom. */
  alternatives: number;
  sum: number;
  last: number;
  /** Whether Go's parse stack has an operand on top (a repetition needs one): false after `(` and `|`. */
  operand: boolean;
  /** The product of nested repetition counts (Go's `repeatIsValid`) of the completed operands, and of the one on top. */
  product: number;
  lastProduct: number;
  /** The syntax tree: the completed alternatives, and the operands of the current one. */
  readonly branches: PatternNode[];
  items: PatternNode[];
  /** The height of the tallest operand so far, and of the one on top (a repetition raises it). */
  height: number;
  lastHeight: number;
}

/** The tree of a group's (or the whole pattern's) alternatives. */
function frameNode(frame: Frame): PatternNode {
  return frame.branches.length === 0 ? concatNode(frame.items) : { kind: "alternate", branches: [...frame.branches, concatNode(frame.items)] };
}

/** The tree of one alternative. */
function concatNode(items: readonly PatternNode[]): PatternNode {
  return items.length === 1 ? items[0]! : { kind: "concat", items };
}

/** A set of characters, computed once when first asked for. */
function charsNode(compute: () => RangeSet): PatternNode {
  let set: RangeSet | undefined;
  return { kind: "chars", set: () => (set ??= compute()) };
}

/** `.`: any character, or any but `\n`. */
const ANY_CHAR: RangeSet = [0, MAX_RUNE];
const ANY_CHAR_NOT_NL: RangeSet = complement([0x0a, 0x0a]);

/** The bound of the current alternative of a group: an empty one compiles to a no-op instruction. */
function alternativeSize(frame: Frame): number {
  return Math.max(1, frame.sum + frame.last);
}

/** The bound of a whole group: its alternatives, their bars, and a capture's two instructions. */
function frameSize(frame: Frame): number {
  return frame.alternatives + alternativeSize(frame) + (frame.capture ? 2 : 0);
}

/** One part of a class: a range, a Perl or POSIX class (`\d`, `[:alpha:]`), or a Unicode table (`\pL`). */
type ClassItem =
  | { readonly kind: "range"; readonly lo: number; readonly hi: number }
  | { readonly kind: "group"; readonly set: RangeSet; readonly negated: boolean }
  | { readonly kind: "table"; readonly name: string; readonly negated: boolean };

/** A class to write out as explicit ranges once the pattern is known to fit its budget. */
interface ClassSpec {
  readonly items: readonly ClassItem[];
  readonly negated: boolean;
  readonly fold: boolean;
}

/** Go's Perl classes (`perl_groups.go`). */
const PERL_GROUPS: Readonly<Record<string, RangeSet>> = {
  d: [0x30, 0x39],
  s: [0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20],
  w: [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a],
};

/** Go's POSIX classes (`perl_groups.go`), each also negated as `[:^name:]`. */
const POSIX_GROUPS: Readonly<Record<string, RangeSet>> = {
  alnum: [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a],
  alpha: [0x41, 0x5a, 0x61, 0x7a],
  ascii: [0x00, 0x7f],
  blank: [0x09, 0x09, 0x20, 0x20],
  cntrl: [0x00, 0x1f, 0x7f, 0x7f],
  digit: [0x30, 0x39],
  graph: [0x21, 0x7e],
  lower: [0x61, 0x7a],
  print: [0x20, 0x7e],
  punct: [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e],
  space: [0x09, 0x0d, 0x20, 0x20],
  upper: [0x41, 0x5a],
  word: [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a],
  xdigit: [0x30, 0x39, 0x41, 0x46, 0x61, 0x66],
};

/**
 * Reads a pattern token by token as Go's `parse` loop does, raising Go's first error, and writes
 * the pattern re2js compiles. What it keeps of Go's parse stack is what Go's errors depend on:
 * the open groups, whether an operand is on top, the product of nested repetition counts.
 */
class GoPatternReader {
  /** The translated pattern: text, and classes to write out later. */
  readonly parts: (string | ClassSpec)[] = [];
  private readonly frames: Frame[];
  private flags = ONE_LINE;

  constructor(private readonly source: string) {
    this.frames = [this.frame(false, this.flags)];
  }

  private frame(capture: boolean, flags: number): Frame {
    return { capture, flags, alternatives: 0, sum: 0, last: 0, operand: false, product: 0, lastProduct: 0, branches: [], items: [], height: 0, lastHeight: 0 };
  }

  private get top(): Frame {
    return this.frames[this.frames.length - 1]!;
  }

  private get fold(): boolean {
    return (this.flags & FOLD_CASE) !== 0;
  }

  /** The syntax tree of the pattern read (call it once {@link read} has returned). */
  tree(): PatternNode {
    return frameNode(this.frames[0]!);
  }

  /** A bound of the height of {@link tree}, a leaf being 1 (counted as it is read: the tree may be too deep to recurse over). */
  height(): number {
    return this.frames[0]!.height + 2;
  }

  /** The bound of the translated program's size (see {@link patternSizeBound}). */
  bound(): number {
    let size = 0;
    for (const frame of this.frames) size += frameSize(frame);
    // The program's FAIL and MATCH instructions, and the loop of an unanchored search.
    return size + 4;
  }

  /** Go's `parse` loop (`parse.go`). */
  read(): void {
    const s = this.source;
    /** Where the repetition operator just read starts, or -1 (Go's `lastRepeat`). */
    let lastRepeat = -1;
    let i = 0;
    while (i < s.length) {
      let repeat = -1;
      switch (s.charAt(i)) {
        case "(":
          if (s.charAt(i + 1) === "?") {
            i = this.readPerlFlags(i);
          } else {
            this.openGroup(true);
            this.parts.push("(");
            i++;
          }
          break;
        case "|":
          this.alternate();
          i++;
          break;
        case ")":
          this.closeGroup();
          i++;
          break;
        case "^":
        case "$":
        case ".":
          this.flagAtom(s.charAt(i));
          i++;
          break;
        case "[":
          i = this.readClass(i);
          break;
        case "*":
        case "+":
        case "?":
          repeat = i;
          i = this.repeat(i, i + 1, 0, 1, false, lastRepeat);
          break;
        case "{": {
          const counts = this.readRepeatCounts(i);
          if (counts === undefined) {
            // `{` not followed by a valid count is a literal.
            this.literal(0x7b, "{");
            i++;
            break;
          }
          const { min, max, after } = counts;
          if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) throw new GoSyntaxError("invalid repeat count", s.slice(i, after));
          repeat = i;
          i = this.repeat(i, after, min, max, true, lastRepeat);
          break;
        }
        case "\\":
          i = this.readBackslash(i);
          break;
        default: {
          const c = this.runeAt(i);
          const next = i + runeWidth(c);
          this.literal(c, s.slice(i, next));
          i = next;
        }
      }
      lastRepeat = repeat;
    }
    if (this.frames.length > 1) throw new GoSyntaxError("missing closing )", s);
  }

  /**
   * The code point at `i`, or Go's `invalid UTF-8` quoting `source[i:end]`: a byte that is not
   * UTF-8 (an escaped byte, see `strings.ts`) or a lone surrogate, which has no UTF-8 form.
   */
  private runeAt(i: number, end = this.source.length): number {
    const c = this.source.codePointAt(i)!;
    if (c >= 0xd800 && c <= 0xdfff) throw new GoSyntaxError("invalid UTF-8", this.source.slice(i, end));
    return c;
  }

  /** Go's `checkUTF8` on `source[from:to]`. */
  private checkUTF8(from: number, to: number): void {
    for (let i = from; i < to; i += runeWidth(this.runeAt(i, to)));
  }

  /** An operand on Go's parse stack, `size` in the size bound. */
  private operand(node: PatternNode, size: number, product = 1, height = 1): void {
    const frame = this.top;
    frame.items.push(node);
    frame.lastHeight = height;
    frame.height = Math.max(frame.height, height);
    frame.sum += frame.last;
    frame.last = size;
    frame.product = Math.max(frame.product, frame.lastProduct);
    frame.lastProduct = product;
    frame.operand = true;
  }

  /** An operator that re2js reads as Go does (`^`, `\b`, `.` under the flags in force): kept as written; `node` is its meaning. */
  private atom(text: string, node: PatternNode): void {
    this.operand(node, 1);
    this.parts.push(text);
  }

  /** `^`, `$` or `.`, which the flags in force give their meaning. */
  private flagAtom(ch: string): void {
    const oneLine = (this.flags & ONE_LINE) !== 0;
    const dotNL = (this.flags & DOT_NL) !== 0;
    const node: PatternNode =
      ch === "^"
        ? { kind: "assert", assertion: oneLine ? "begin-text" : "begin-line" }
        : ch === "$"
          ? { kind: "assert", assertion: oneLine ? "end-text" : "end-line" }
          : charsNode(() => (dotNL ? ANY_CHAR : ANY_CHAR_NOT_NL));
    this.atom(ch, node);
  }

  /** A literal code point, `text` as written; under `(?i)`, the set of its case folding orbit. */
  private literal(c: number, text: string): void {
    const fold = this.fold;
    this.operand(
      charsNode(() => (fold ? (foldOrbit(c) ?? [c, c]) : [c, c])),
      1,
    );
    this.parts.push(fold ? this.folded(c, text) : text);
  }

  /** The orbits written so far (`(?i)` patterns repeat letters). */
  private readonly orbitPatterns = new Map<number, string>();

  /** A literal under `(?i)`: the set of its case folding orbit, or `text` when it folds to nothing else. */
  private folded(c: number, text: string): string {
    let pattern = this.orbitPatterns.get(c);
    if (pattern === undefined) {
      const orbit = foldOrbit(c);
      if (orbit === undefined) return text;
      pattern = setPattern(orbit);
      this.orbitPatterns.set(c, pattern);
    }
    return pattern;
  }

  /** A class (`[…]`, `\pL`, or `\d` under `(?i)`), written out later; it counts its Unicode ranges in the bound. */
  private classOperand(items: readonly ClassItem[], negated: boolean): void {
    const spec: ClassSpec = { items, negated, fold: this.fold };
    this.operand(
      charsNode(() => classSet(spec)),
      1 + Math.ceil(classRangesBound(spec) / 8),
    );
    this.parts.push(spec);
  }

  private openGroup(capture: boolean, flags = this.flags): void {
    this.frames.push(this.frame(capture, flags));
  }

  /** `)`: Go's `parseRightParen`. */
  private closeGroup(): void {
    if (this.frames.length === 1) throw new GoSyntaxError("unexpected )", this.source);
    const frame = this.frames.pop()!;
    this.flags = frame.flags;
    // An empty group is Go's empty match, an operand all the same.
    // The group, its alternation and their concatenations: two levels over its operands.
    this.operand({ kind: "group", body: frameNode(frame) }, frameSize(frame), Math.max(1, frame.product, frame.lastProduct), frame.height + 2);
    this.parts.push(")");
  }

  /** `|`: Go's `parseVerticalBar` leaves the bar, not an operand, on top. */
  private alternate(): void {
    const frame = this.top;
    frame.alternatives += alternativeSize(frame) + 1;
    frame.branches.push(concatNode(frame.items));
    frame.items = [];
    frame.sum = 0;
    frame.last = 0;
    frame.product = Math.max(frame.product, frame.lastProduct);
    frame.lastProduct = 0;
    frame.operand = false;
    this.parts.push("|");
  }

  /**
   * A repetition operator from `before` to `after` (Go's `repeat`): `*`, `+`, `?` (counted as
   * `{0,1}` in the bound), or `{min,max}` (`max` -1 when open). Returns where it ends, past a `?`.
   */
  private repeat(before: number, after: number, min: number, max: number, counted: boolean, lastRepeat: number): number {
    const s = this.source;
    const lazy = s.charAt(after) === "?";
    if (lazy) after++;
    if (lastRepeat >= 0) throw new GoSyntaxError("invalid nested repetition operator", s.slice(lastRepeat, after));
    const frame = this.top;
    if (!frame.operand) throw new GoSyntaxError("missing argument to repetition operator", s.slice(before, after));
    if (counted) {
      // Go's repeatIsValid: x{0} hides what it repeats; x{n,} counts n.
      const count = max < 0 ? min : max;
      frame.lastProduct = max === 0 ? 1 : Math.min(MAX_REPEAT + 1, Math.max(1, count) * frame.lastProduct);
      if ((min >= 2 || max >= 2) && frame.lastProduct > MAX_REPEAT) throw new GoSyntaxError("invalid repeat count", s.slice(before, after));
    }
    // As RE2 expands them: `x{n}` is n copies, `x{n,m}` m copies of which m - n optional, `x{n,}`
    // n + 1 copies and a loop. A loop or an option adds an instruction, and up to two more when `x`
    // can match the empty string (the compiler then guards the loop).
    const op = s.charAt(before);
    const [least, most] = counted ? [min, max] : op === "*" ? [0, -1] : op === "+" ? [1, -1] : [0, 1];
    // `(?U)` swaps what `?` after the operator means.
    const greedy = lazy === ((this.flags & NON_GREEDY) !== 0);
    frame.items.push({ kind: "repeat", min: least, max: most, greedy, body: frame.items.pop()! });
    frame.height = Math.max(frame.height, ++frame.lastHeight);
    const size = frame.last;
    frame.last = counted && max < 0 ? (min + 1) * size + 3 : counted ? Math.max(min, max) * size + 3 * Math.max(0, max - min) : size + 3;
    this.parts.push(s.slice(before, after));
    return after;
  }

  /**
   * Go's `parseRepeat`: `{min}`, `{min,}` (max -1) or `{min,max}`; undefined when the text is not
   * of that form (then `{` is a literal); a count of more than 8 digits is -1 (Go's "too big").
   */
  private readRepeatCounts(i: number): { min: number; max: number; after: number } | undefined {
    const s = this.source;
    const first = this.readInt(i + 1);
    if (first === undefined || first.next >= s.length) return undefined;
    let min = first.value;
    let max: number;
    let j = first.next;
    if (s.charAt(j) !== ",") {
      max = min;
    } else {
      j++;
      if (j >= s.length) return undefined;
      if (s.charAt(j) === "}") {
        max = -1;
      } else {
        const second = this.readInt(j);
        if (second === undefined) return undefined;
        max = second.value;
        j = second.next;
        if (max < 0) min = -1;
      }
    }
    if (s.charAt(j) !== "}") return undefined;
    return { min, max, after: j + 1 };
  }

  /** Go's `parseInt`: decimal digits without a leading zero; -1 once the value reaches 10^8. */
  private readInt(i: number): { value: number; next: number } | undefined {
    const s = this.source;
    let j = i;
    while (j < s.length && s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x39) j++;
    if (j === i || (j - i >= 2 && s.charAt(i) === "0")) return undefined;
    let value = 0;
    for (let k = i; k < j; k++) {
      if (value >= 1e8) return { value: -1, next: j };
      value = value * 10 + s.charCodeAt(k) - 0x30;
    }
    return { value, next: j };
  }

  /**
   * `(?`: Go's `parsePerlFlags`, for a named group (`(?P<name>`, `(?<name>`), a non-capturing
   * group with flags (`(?i:`), or flags alone (`(?i)`). Returns where it ends.
   */
  private readPerlFlags(i: number): number {
    const s = this.source;
    const startsWithP = s.length - i > 4 && s.charAt(i + 2) === "P" && s.charAt(i + 3) === "<";
    const startsWithName = s.length - i > 3 && s.charAt(i + 2) === "<";
    if (startsWithP || startsWithName) {
      const nameStart = i + (startsWithP ? 4 : 3);
      const end = s.indexOf(">", i);
      if (end < 0) {
        this.checkUTF8(i, s.length);
        throw new GoSyntaxError("invalid named capture", s.slice(i));
      }
      this.checkUTF8(nameStart, end);
      if (!/^[A-Za-z0-9_]+$/.test(s.slice(nameStart, end))) throw new GoSyntaxError("invalid named capture", s.slice(i, end + 1));
      // The name is dropped: a match never reports groups, and Go allows a name twice.
      this.openGroup(true);
      this.parts.push("(");
      return end + 1;
    }
    let flags = this.flags;
    let sign = 1;
    let sawFlag = false;
    let set = "";
    let cleared = "";
    let j = i + 2;
    while (j < s.length) {
      const c = this.runeAt(j);
      j += runeWidth(c);
      const letter = String.fromCodePoint(c);
      const bit = FLAG_LETTERS[letter];
      if (bit !== undefined) {
        // `m` clears OneLine; after `-`, every flag is reversed.
        flags = (sign > 0) === (bit !== ONE_LINE) ? flags | bit : flags & ~bit;
        sawFlag = true;
        // `i` is applied here, not by re2js: it is not passed on.
        if (letter !== "i") {
          if (sign > 0) set += letter;
          else cleared += letter;
        }
        continue;
      }
      if (letter === "-") {
        if (sign < 0) break;
        sign = -1;
        sawFlag = false;
        continue;
      }
      if (letter === ":" || letter === ")") {
        if (sign < 0 && !sawFlag) break;
        const written = set + (cleared === "" ? "" : `-${cleared}`);
        if (letter === ":") {
          this.openGroup(false);
          this.parts.push(`(?${written}:`);
        } else {
          // Flags alone push nothing, but end a run of repetitions (`a*(?i)*` is valid): an
          // unchanged `s` flag keeps that for re2js.
          this.parts.push(written !== "" ? `(?${written})` : (flags & DOT_NL) !== 0 ? "(?s)" : "(?-s)");
        }
        this.flags = flags;
        return j;
      }
      break;
    }
    throw new GoSyntaxError("invalid or unsupported Perl syntax", s.slice(i, j));
  }

  /** `\` outside a class: an assertion, `\Q…\E`, `\pL`, `\d` or an escaped literal. Returns where it ends. */
  private readBackslash(i: number): number {
    const s = this.source;
    switch (s.charAt(i + 1)) {
      case "A":
      case "b":
      case "B":
      case "z":
        this.atom(s.slice(i, i + 2), { kind: "assert", assertion: BACKSLASH_ASSERTIONS[s.charAt(i + 1)]! });
        return i + 2;
      case "C":
        // Any byte: not supported by Go.
        throw new GoSyntaxError("invalid escape sequence", "\\C");
      case "Q": {
        // Everything up to `\E` (or the end) is literal.
        const close = s.indexOf("\\E", i + 2);
        const end = close < 0 ? s.length : close;
        const next = close < 0 ? s.length : close + 2;
        for (let j = i + 2; j < end; ) {
          const c = this.runeAt(j, end);
          const width = runeWidth(c);
          const fold = this.fold;
          this.operand(
            charsNode(() => (fold ? (foldOrbit(c) ?? [c, c]) : [c, c])),
            1,
          );
          if (this.fold) this.parts.push(this.folded(c, setPattern([c, c])));
          j += width;
        }
        if (!this.fold || end === i + 2) this.parts.push(s.slice(i, next));
        return next;
      }
      case "p":
      case "P": {
        const { item, next } = this.readUnicodeClass(i);
        this.classOperand([item], false);
        return next;
      }
      case "d":
      case "D":
      case "s":
      case "S":
      case "w":
      case "W":
        if (this.fold) this.classOperand([perlItem(s.charAt(i + 1))], false);
        else this.atom(s.slice(i, i + 2), charsNode(() => classSet({ items: [perlItem(s.charAt(i + 1))], negated: false, fold: false })));
        return i + 2;
    }
    const { rune, next } = this.readEscape(i);
    this.literal(rune, s.slice(i, next));
    return next;
  }

  /** Go's `parseEscape` at the `\` at `i`: the code point an escape stands for. */
  private readEscape(i: number): { rune: number; next: number } {
    const s = this.source;
    let j = i + 1;
    if (j >= s.length) throw new GoSyntaxError("trailing backslash at end of expression", "");
    let c = this.runeAt(j);
    j += runeWidth(c);
    const invalid = () => new GoSyntaxError("invalid escape sequence", s.slice(i, j));
    const isOctal = (k: number) => k < s.length && s.charCodeAt(k) >= 0x30 && s.charCodeAt(k) <= 0x37;
    if (c >= 0x31 && c <= 0x37 && !isOctal(j)) throw invalid(); // `\1` alone would be a backreference
    if (c >= 0x30 && c <= 0x37) {
      // Up to three octal digits.
      let rune = c - 0x30;
      for (let n = 1; n < 3 && isOctal(j); n++, j++) rune = rune * 8 + s.charCodeAt(j) - 0x30;
      return { rune, next: j };
    }
    switch (c) {
      case 0x78: {
        // x: two hex digits, or any number in braces.
        if (j >= s.length) throw invalid();
        c = this.runeAt(j);
        j += runeWidth(c);
        if (c === 0x7b) {
          let rune = 0;
          let digits = 0;
          for (;;) {
            if (j >= s.length) throw invalid();
            c = this.runeAt(j);
            j += runeWidth(c);
            if (c === 0x7d) break;
            const v = unhex(c);
            if (v < 0) throw invalid();
            rune = rune * 16 + v;
            if (rune > MAX_RUNE) throw invalid();
            digits++;
          }
          if (digits === 0) throw invalid();
          return { rune, next: j };
        }
        const x = unhex(c);
        if (j >= s.length) throw invalid();
        c = this.runeAt(j);
        j += runeWidth(c);
        const y = unhex(c);
        if (x < 0 || y < 0) throw invalid();
        return { rune: x * 16 + y, next: j };
      }
    }
    const named = NAMED_ESCAPES.get(c);
    if (named !== undefined) return { rune: named, next: j };
    // Escaped punctuation is itself; `\q`, `\é` and the like are errors (`\_` is allowed).
    if (c < 0x80 && !isAlnum(c)) return { rune: c, next: j };
    throw invalid();
  }

  /**
   * Go's `parseUnicodeClass` at the `\p` or `\P` at `i`: `\pL`, `\p{Greek}`, `\p{^Greek}`. The names
   * are Go 1.23's: `Any`, then `unicode.Categories` and `unicode.Scripts` (Unicode 15.0.0).
   */
  private readUnicodeClass(i: number): { item: ClassItem; next: number } {
    const s = this.source;
    let negated = s.charAt(i + 1) === "P";
    let name: string;
    let next: number;
    // At the end, Go reads U+FFFD: `\p` alone is an unknown one-letter name.
    const c = i + 2 < s.length ? this.runeAt(i + 2) : 0xfffd;
    if (c !== 0x7b) {
      next = Math.min(s.length, i + 2 + runeWidth(c));
      name = s.slice(i + 2, next);
    } else {
      const close = s.indexOf("}", i);
      if (close < 0) {
        this.checkUTF8(i, s.length);
        throw new GoSyntaxError("invalid character class range", s.slice(i));
      }
      this.checkUTF8(i + 3, close);
      name = s.slice(i + 3, close);
      next = close + 1;
    }
    if (name.startsWith("^")) {
      negated = !negated;
      name = name.slice(1);
    }
    if (!isUnicodeClassName(name)) throw new GoSyntaxError("invalid character class range", s.slice(i, next));
    return { item: { kind: "table", name, negated }, next };
  }

  /** Go's `parseClass` at the `[` at `i`. Returns where the class ends. */
  private readClass(i: number): number {
    const s = this.source;
    const items: ClassItem[] = [];
    let j = i + 1;
    const negated = s.charAt(j) === "^";
    if (negated) j++;
    // `]` first in the class is a literal.
    let first = true;
    while (j >= s.length || s.charAt(j) !== "]" || first) {
      first = false;
      // POSIX `[:alnum:]`; Go looks for `:]` anywhere after it.
      if (s.length - j > 2 && s.startsWith("[:", j)) {
        const close = s.indexOf(":]", j + 2);
        if (close >= 0) {
          const name = s.slice(j, close + 2);
          const negatedGroup = name.startsWith("[:^");
          const key = name.slice(negatedGroup ? 3 : 2, -2);
          const group = Object.hasOwn(POSIX_GROUPS, key) ? POSIX_GROUPS[key] : undefined;
          if (group === undefined) throw new GoSyntaxError("invalid character class range", name);
          items.push({ kind: "group", set: group, negated: negatedGroup });
          j = close + 2;
          continue;
        }
      }
      if (s.charAt(j) === "\\" && (s.charAt(j + 1) === "p" || s.charAt(j + 1) === "P")) {
        const { item, next } = this.readUnicodeClass(j);
        items.push(item);
        j = next;
        continue;
      }
      if (s.charAt(j) === "\\" && j + 1 < s.length && "dDsSwW".includes(s.charAt(j + 1))) {
        items.push(perlItem(s.charAt(j + 1)));
        j += 2;
        continue;
      }
      // A character or a range; `-` before `]` is a literal.
      const start = j;
      const lo = this.readClassChar(j, i);
      let hi = lo.rune;
      j = lo.next;
      if (s.length - j >= 2 && s.charAt(j) === "-" && s.charAt(j + 1) !== "]") {
        const end = this.readClassChar(j + 1, i);
        hi = end.rune;
        j = end.next;
        if (hi < lo.rune) throw new GoSyntaxError("invalid character class range", s.slice(start, j));
      }
      items.push({ kind: "range", lo: lo.rune, hi });
    }
    this.classOperand(items, negated);
    return j + 1;
  }

  /** Go's `parseClassChar`: a character or an escape inside the class opened at `open`. */
  private readClassChar(j: number, open: number): { rune: number; next: number } {
    const s = this.source;
    if (j >= s.length) throw new GoSyntaxError("missing closing ]", s.slice(open));
    if (s.charAt(j) === "\\") return this.readEscape(j);
    const rune = this.runeAt(j);
    return { rune, next: j + runeWidth(rune) };
  }
}

function perlItem(letter: string): ClassItem {
  return { kind: "group", set: PERL_GROUPS[letter.toLowerCase()]!, negated: letter !== letter.toLowerCase() };
}

function runeWidth(c: number): number {
  return c > 0xffff ? 2 : 1;
}

/** Whether `c` is an ASCII letter or digit (which a pattern may hold as it is, in a class or out). */
export function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Classes as sets of code points, written out for re2js
// ---------------------------------------------------------------------------------------------

/** The code points of a class, as Go's `parseClass` builds them (folding each part first under `(?i)`). */
function classSet(spec: ClassSpec): RangeSet {
  const pairs: number[] = [];
  for (const item of spec.items) {
    let part: RangeSet;
    switch (item.kind) {
      case "range":
        part = spec.fold ? foldClosure([item.lo, item.hi]) : [item.lo, item.hi];
        break;
      case "group":
        part = spec.fold ? foldClosure(item.set) : item.set;
        if (item.negated) part = complement(part);
        break;
      case "table":
        part = unicodeTable(item.name, spec.fold);
        if (item.negated) part = complement(part);
        break;
    }
    pairs.push(...part);
  }
  const set = rangeSet(pairs);
  return spec.negated ? complement(set) : set;
}

/**
 * An upper bound on the ranges a class adds to the translated pattern beyond its own text: those
 * of its Unicode tables, and those folding adds to its ranges.
 */
function classRangesBound(spec: ClassSpec): number {
  let ranges = 0;
  for (const item of spec.items) {
    if (item.kind === "table") ranges += unicodeTable(item.name, spec.fold).length / 2 + 1;
    else if (item.kind === "range" && spec.fold) ranges += foldPointsWithin(item.lo, item.hi);
  }
  return ranges;
}

function classPattern(spec: ClassSpec): string {
  return setPattern(classSet(spec));
}

/** A set as an RE2 class of explicit ranges (`[^\x{0}-\x{10ffff}]` when empty: it matches nothing). */
function setPattern(set: RangeSet): string {
  if (set.length === 0) return "[^\\x{0}-\\x{10ffff}]";
  return `[${classMembers(set, classChar)}]`;
}

/**
 * The members of a class matching `set`: each range as `lo-hi`, a single code point alone, each
 * written by `char` (RE2's `\x{…}` here, JavaScript's `\u{…}` in `regex.ts`).
 */
export function classMembers(set: RangeSet, char: (c: number) => string): string {
  let out = "";
  for (let k = 0; k < set.length; k += 2) {
    const lo = set[k]!;
    const hi = set[k + 1]!;
    out += lo === hi ? char(lo) : `${char(lo)}-${char(hi)}`;
  }
  return out;
}

/** A code point in a class: ASCII letters and digits as they are, anything else as `\x{…}`. */
function classChar(c: number): string {
  return isAlnum(c) ? String.fromCharCode(c) : `\\x{${c.toString(16)}}`;
}
