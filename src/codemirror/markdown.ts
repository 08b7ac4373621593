/**
 * The little Markdown that `hover` writes, read into blocks and written into a tooltip as DOM
 * nodes holding text: paragraphs, bullet lists, fenced code blocks (a filter example, coloured
 * as the editor colours filters), and inline `code` and **bold** (which may hold code). Anything
 * else is text as it stands; nothing is ever parsed as HTML, so a field name or value quoted in a
 * hover (which comes from the filter being typed) cannot inject markup.
 *
 * @module
 */

/** A run of inline text. */
export interface Inline {
  /** The characters shown. */
  readonly text: string;
  /** Shown as code (monospace). */
  readonly code: boolean;
  /** Shown in bold. */
  readonly bold: boolean;
}

/** A block of a hover. */
export type Block =
  | { readonly kind: "paragraph"; readonly inlines: readonly Inline[] }
  | { readonly kind: "list"; readonly items: readonly (readonly Inline[])[] }
  | { readonly kind: "code"; readonly language: string; readonly text: string };

const FENCE = /^\s*```\s*([\w-]*)/;
const BULLET = /^\s*[-*]\s+/;

/** Reads Markdown into blocks; any input gives blocks, whatever it holds. */
export function parseMarkdown(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  let paragraph: string[] = [];
  let items: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: "paragraph", inlines: parseInlines(paragraph.join(" ")) });
    if (items.length > 0) blocks.push({ kind: "list", items: items.map(parseInlines) });
    paragraph = [];
    items = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence !== null) {
      flush();
      const code: string[] = [];
      // An unclosed fence runs to the end, as in CommonMark.
      while (++i < lines.length && !FENCE.test(lines[i]!)) code.push(lines[i]!);
      blocks.push({ kind: "code", language: fence[1]!, text: code.join("\n") });
    } else if (line.trim() === "") flush();
    else if (BULLET.test(line)) {
      if (paragraph.length > 0) flush();
      items.push(line.replace(BULLET, ""));
    } else {
      if (items.length > 0) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return blocks;
}

/** A piece of inline Markdown before `**` pairs are matched. */
type Piece = { readonly kind: "text" | "code"; readonly text: string } | { readonly kind: "strong" };

/**
 * Reads inline Markdown: code spans first, as CommonMark does (a span opened by n backticks is
 * closed by n, and nothing inside it is read), then `**` marks, paired in order (an unpaired
 * last one is text).
 */
export function parseInlines(text: string): Inline[] {
  const pieces: Piece[] = [];
  let plain = "";
  const flushText = () => {
    if (plain !== "") pieces.push({ kind: "text", text: plain });
    plain = "";
  };
  for (let i = 0; i < text.length; ) {
    if (text[i] === "`") {
      const run = /^`+/.exec(text.slice(i))![0];
      const close = findClosingRun(text, i + run.length, run.length);
      if (close === undefined) {
        plain += run;
        i += run.length;
        continue;
      }
      flushText();
      const inner = text.slice(i + run.length, close);
      // One space each side lets a span start or end with a backtick; it is not shown.
      pieces.push({ kind: "code", text: inner.length > 2 && inner.startsWith(" ") && inner.endsWith(" ") && inner.trim() !== "" ? inner.slice(1, -1) : inner });
      i = close + run.length;
    } else if (text.startsWith("**", i)) {
      flushText();
      pieces.push({ kind: "strong" });
      i += 2;
    } else plain += text[i++];
  }
  flushText();
  const marks = pieces.filter((piece) => piece.kind === "strong").length;
  const inlines: Inline[] = [];
  let bold = false;
  let seen = 0;
  const push = (part: string, code: boolean) => {
    const last = inlines.at(-1);
    if (last !== undefined && !code && !last.code && last.bold === bold) inlines[inlines.length - 1] = { ...last, text: last.text + part };
    else inlines.push({ text: part, code, bold });
  };
  for (const piece of pieces) {
    if (piece.kind !== "strong") push(piece.text, piece.kind === "code");
    else if (++seen === marks && marks % 2 === 1) push("**", false);
    else bold = !bold;
  }
  return inlines;
}

/** The offset of the first run of exactly `length` backticks from `from`, if any. */
function findClosingRun(text: string, from: number, length: number): number | undefined {
  for (const match of text.slice(from).matchAll(/`+/g)) if (match[0].length === length) return from + match.index;
  return undefined;
}

/**
 * The part of the DOM the renderer uses, so that it states what it needs (and never asks for
 * `innerHTML`); a browser's `document` is one.
 */
export interface MarkdownDocument<Element extends MarkdownElement = MarkdownElement> {
  /** Creates an element. */
  createElement(tag: string): Element;
}

/** An element as the renderer uses it. */
export interface MarkdownElement {
  /** Sets the element's content to plain text. */
  textContent: string | null;
  /** The element's class attribute. */
  className: string;
  /** Appends children (strings become text nodes): elements of the same document. */
  append(...nodes: (this | string)[]): void;
}

/** A piece of a code block and the classes that colour it ("" for none). */
export interface HighlightedText {
  /** The text. */
  readonly text: string;
  /** Space-separated class names. */
  readonly classes: string;
}

/** The class of the tooltip's root element, for styling. */
export const HOVER_CLASS = "cm-bexpr-hover";

/**
 * Renders blocks into a `div` of class {@link HOVER_CLASS}: elements and text nodes only, no
 * HTML parsed. `highlight` colours the code blocks (given their language); without it they are
 * plain text. The `div` is an element of `document` (a browser's: an `HTMLElement`).
 */
export function renderMarkdown<Element extends MarkdownElement>(
  document: MarkdownDocument<Element>,
  blocks: readonly Block[],
  highlight?: (text: string, language: string) => readonly HighlightedText[],
): Element {
  const element = (tag: string, className = "") => {
    const created = document.createElement(tag);
    if (className !== "") created.className = className;
    return created;
  };
  const inline = (parts: readonly Inline[]) =>
    parts.map((part) => {
      let node: Element | string = part.text;
      if (part.code) {
        const code = element("code");
        code.textContent = part.text;
        node = code;
      }
      if (!part.bold) return node;
      const strong = element("strong");
      strong.append(node);
      return strong;
    });
  const root = element("div", HOVER_CLASS);
  for (const block of blocks) {
    switch (block.kind) {
      case "paragraph": {
        const p = element("p");
        p.append(...inline(block.inlines));
        root.append(p);
        break;
      }
      case "list": {
        const ul = element("ul");
        for (const item of block.items) {
          const li = element("li");
          li.append(...inline(item));
          ul.append(li);
        }
        root.append(ul);
        break;
      }
      case "code": {
        const pre = element("pre");
        const code = element("code");
        const pieces = highlight?.(block.text, block.language) ?? [{ text: block.text, classes: "" }];
        code.append(
          ...pieces.map(({ text, classes }) => {
            if (classes === "") return text;
            const span = element("span", classes);
            span.textContent = text;
            return span;
          }),
        );
        pre.append(code);
        root.append(pre);
        break;
      }
      default: {
        const unknown: never = block;
        throw new Error(`unknown block ${JSON.stringify(unknown)}`);
      }
    }
  }
  return root;
}
