/**
 * Positions in filter source text: offsets to lines and columns, and the caret excerpt that
 * error messages show under the spot.
 *
 * @module
 */
import type { Span } from "./ast.js";

/** A 1-based line and column. Columns count Unicode code points, as the reference's do. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** How many code points of a long line are shown on each side of the spot in an excerpt. */
const EXCERPT_CONTEXT = 60;

/** Where the lines of a source start, and how many surrogate pairs come before each offset. */
interface LineIndex {
  readonly source: string;
  readonly lineStarts: readonly number[];
  /** `pairsBefore[i]`: surrogate pairs wholly before offset `i` (each is one code point of two units). */
  readonly pairsBefore: Int32Array;
}

/**
 * The index of the source last located in. Diagnostics of one source are located one after the
 * other, so remembering one index makes each lookup a binary search instead of a scan of the
 * source (thousands of diagnostics on a long filter would otherwise take quadratic time).
 */
let lastIndex: LineIndex | undefined;

function indexOf(source: string): LineIndex {
  if (lastIndex?.source === source) return lastIndex;
  const lineStarts = [0];
  const pairsBefore = new Int32Array(source.length + 1);
  let pairs = 0;
  for (let i = 0; i < source.length; i++) {
    const unit = source.charCodeAt(i);
    if (unit === 0x0a) lineStarts.push(i + 1);
    pairsBefore[i] = pairs;
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < source.length) {
      const next = source.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairsBefore[i + 1] = pairs;
        pairs++;
        i++;
      }
    }
  }
  pairsBefore[source.length] = pairs;
  lastIndex = { source, lineStarts, pairsBefore };
  return lastIndex;
}

/** Returns the 1-based line and code-point column of a UTF-16 offset (clamped to the source). */
export function locate(source: string, offset: number): SourcePosition {
  const end = Math.max(0, Math.min(offset, source.length));
  const { lineStarts, pairsBefore } = indexOf(source);
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lineStarts[middle]! <= end) low = middle;
    else high = middle - 1;
  }
  const lineStart = lineStarts[low]!;
  return { line: low + 1, column: end - lineStart - (pairsBefore[end]! - pairsBefore[lineStart]!) + 1 };
}

/**
 * Renders the source line holding `span.start` with carets under the span, for error messages:
 *
 * ```text
 *     Status == "running" AND Stop == false
 *                         ^^^
 * ```
 *
 * Long lines are cut around the spot, tabs are kept so the carets line up, and a span that runs
 * past the end of the line is underlined to the line's end.
 */
export function renderExcerpt(source: string, span: Span, indent = "    "): string {
  const start = Math.max(0, Math.min(span.start, source.length));
  const lineStart = source.lastIndexOf("\n", start - 1) + 1;
  const newline = source.indexOf("\n", start);
  const lineEnd = newline === -1 ? source.length : newline;
  const spanEnd = Math.max(start + 1, Math.min(span.end, lineEnd));

  const before = Array.from(source.slice(lineStart, start));
  const marked = Array.from(source.slice(start, spanEnd));
  const after = Array.from(source.slice(spanEnd, lineEnd));
  const shownBefore = before.length > EXCERPT_CONTEXT ? ["…", ...before.slice(-EXCERPT_CONTEXT)] : before;
  const shownMarked = marked.length > EXCERPT_CONTEXT ? [...marked.slice(0, EXCERPT_CONTEXT), "…"] : marked;
  const shownAfter = after.length > EXCERPT_CONTEXT ? [...after.slice(0, EXCERPT_CONTEXT), "…"] : after;

  const text = [...shownBefore, ...shownMarked, ...shownAfter].join("").replace(/\r/g, " ");
  const pad = shownBefore.map((ch) => (ch === "\t" ? "\t" : " ")).join("");
  const carets = "^".repeat(Math.max(1, shownMarked.length));
  return `${indent}${text}\n${indent}${pad}${carets}`;
}
