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

/** Returns the 1-based line and code-point column of a UTF-16 offset (clamped to the source). */
export function locate(source: string, offset: number): SourcePosition {
  const end = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf("\n"); i !== -1 && i < end; i = source.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: countCodePoints(source, lineStart, end) + 1 };
}

function countCodePoints(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < to) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
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
