import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { describe, expect, it } from "vitest";
import { bexpr, bexprHoverTooltip, setBexprContext } from "../../src/codemirror/index.js";
import { HOVER_CLASS, parseInlines, parseMarkdown, renderMarkdown, type MarkdownDocument, type MarkdownElement } from "../../src/codemirror/markdown.js";
import { hover, schemas } from "../../src/index.js";
import { pointedOffset } from "../../src/codemirror/mapping.js";
import { stateOf } from "./support.js";

/** An element of the stand-in document: what was created, with what class, holding what. */
class FakeElement implements MarkdownElement {
  className = "";
  readonly children: (FakeElement | string)[] = [];
  constructor(readonly tag: string) {}

  get textContent(): string {
    return this.children.map((child) => (typeof child === "string" ? child : child.textContent)).join("");
  }

  set textContent(text: string | null) {
    this.children.splice(0, this.children.length, text ?? "");
  }

  append(...nodes: (MarkdownElement | string)[]): void {
    this.children.push(...(nodes as (FakeElement | string)[]));
  }

  /** The element as compact markup, text escaped, for comparisons. */
  toString(): string {
    const inner = this.children.map((child) => (typeof child === "string" ? child.replace(/&/g, "&amp;").replace(/</g, "&lt;") : child.toString())).join("");
    return `<${this.tag}${this.className === "" ? "" : ` class="${this.className}"`}>${inner}</${this.tag}>`;
  }
}

const fakeDocument: MarkdownDocument = { createElement: (tag) => new FakeElement(tag) };

/** What the tooltip at `pos` shows, rendered into the stand-in document. */
function shown(state: EditorState, pos: number): { from: number; to: number | undefined; dom: FakeElement } | null {
  const tooltip = bexprHoverTooltip(state, pos);
  if (tooltip === null) return null;
  const view = { state, dom: { ownerDocument: fakeDocument } } as unknown as EditorView;
  return { from: tooltip.pos, to: tooltip.end, dom: tooltip.create(view).dom as unknown as FakeElement };
}

describe("hover tooltips", () => {
  it.each([
    ['Status == "running"', 2],
    ['"dc1" in Datacenters', 7],
    ["Meta.owner is not empty", 16],
    ["any TaskGroups as g { g.Count == 0 }", 23],
    ['Status == "running" and Priority == 50', 21],
  ])("show hover's answer for %j at %i, over its range, with the schema in force", (doc, pos) => {
    const expected = hover(doc, pos, { schema: schemas.job })!;
    expect(expected).toBeDefined();
    const tooltip = shown(stateOf(doc, { schema: schemas.job }), pos)!;
    expect({ from: tooltip.from, to: tooltip.to }).toEqual({ from: expected.range.start, to: expected.range.end });
    expect(tooltip.dom.className).toBe(HOVER_CLASS);
    // Every word of the Markdown is shown, without its marks.
    const words = expected.contents.replace(/```\w*|\*\*|`/g, " ").split(/\s+/).filter(Boolean);
    for (const word of words) expect(tooltip.dom.textContent).toContain(word);
  });

  it("show nothing where hover says nothing (whitespace, brackets)", () => {
    expect(hover("(Status == 1)", 0)).toBeUndefined();
    expect(bexprHoverTooltip(stateOf("(Status == 1)"), 0)).toBeNull();
  });

  it("are asked about the character under the pointer, on whichever side of CodeMirror's position it is", () => {
    const state = stateOf("(Status == 1)");
    // The pointer over "(" (the side before position 1): brackets have no hover.
    expect(bexprHoverTooltip(state, pointedOffset(1, -1))).toBeNull();
    // The pointer over "S" (the side after position 1).
    expect(bexprHoverTooltip(state, pointedOffset(1, 1))).toMatchObject({ pos: 1, end: 7 });
  });

  it("follow the schema set with setBexprContext", () => {
    const state = stateOf("Status == 1");
    const typed = state.update({ effects: setBexprContext({ schema: schemas.job }) }).state;
    expect(shown(state, 1)!.dom.textContent).toContain("No schema is set");
    expect(shown(typed, 1)!.dom.textContent).toBe("Status: stringA field of structs.Job: pending, running or dead.");
  });

  it("render text from the filter as text, never as markup", () => {
    const doc = 'Name == "<img src=x onerror=alert(1)><b>**bold?**</b>"';
    const tooltip = shown(stateOf(doc), 12)!;
    expect(tooltip.dom.textContent).toContain("<img src=x onerror=alert(1)><b>**bold?**</b>");
    const tags: string[] = [];
    const walk = (element: FakeElement) => {
      tags.push(element.tag);
      element.children.forEach((child) => typeof child !== "string" && walk(child));
    };
    walk(tooltip.dom);
    expect(new Set(tags)).toEqual(new Set(["div", "p", "strong", "code"]));
  });

  it("colour a filter example with the editor's highlighters", () => {
    const style = HighlightStyle.define([{ tag: tags.keyword, class: "kw" }, { tag: tags.string, class: "str" }]);
    const state = EditorState.create({ doc: "Status == 1 and Stop == false", extensions: [bexpr(), syntaxHighlighting(style)] });
    const pre = shown(state, 13)!.dom.children.find((child): child is FakeElement => typeof child !== "string" && child.tag === "pre")!;
    expect(pre.toString()).toBe('<pre><code>Status == <span class="str">"running"</span> <span class="kw">and</span> Stop == false</code></pre>');
  });
});

describe("the hover's Markdown", () => {
  it("reads paragraphs, lists and fenced code", () => {
    expect(parseMarkdown("**`in`** starts an operator:\n\n- `in`: one\n- `not in`: two\n\n```bexpr\na == 1\n```\nlast\nline")).toEqual([
      { kind: "paragraph", inlines: [{ text: "in", code: true, bold: true }, { text: " starts an operator:", code: false, bold: false }] },
      { kind: "list", items: [[{ text: "in", code: true, bold: false }, { text: ": one", code: false, bold: false }], [{ text: "not in", code: true, bold: false }, { text: ": two", code: false, bold: false }]] },
      { kind: "code", language: "bexpr", text: "a == 1" },
      { kind: "paragraph", inlines: [{ text: "last line", code: false, bold: false }] },
    ]);
  });

  it.each([
    ["``a`b``", [{ text: "a`b", code: true, bold: false }]],
    ["`a``b`", [{ text: "a``b", code: true, bold: false }]],
    ["`` `x` ``", [{ text: "`x`", code: true, bold: false }]],
    ["`**not bold**`", [{ text: "**not bold**", code: true, bold: false }]],
    ["a ** b", [{ text: "a ** b", code: false, bold: false }]],
    ["`open", [{ text: "`open", code: false, bold: false }]],
    ["**a** and **b**", [{ text: "a", code: false, bold: true }, { text: " and ", code: false, bold: false }, { text: "b", code: false, bold: true }]],
  ])("reads inline %j as CommonMark does", (markdown, inlines) => {
    expect(parseInlines(markdown)).toEqual(inlines);
  });

  it("renders blocks as elements holding text", () => {
    const dom = renderMarkdown(fakeDocument, parseMarkdown("**`a<b`**: x\n\n- y\n\n```\nz\n```")) as FakeElement;
    expect(dom.toString()).toBe(`<div class="${HOVER_CLASS}"><p><strong><code>a&lt;b</code></strong>: x</p><ul><li>y</li></ul><pre><code>z</code></pre></div>`);
  });
});
