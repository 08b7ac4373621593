/**
 * A few lines to build DOM nodes: the page has no framework, and text always goes in as text
 * (never as HTML), so nothing from the agent or the filter can become markup.
 *
 * @module
 */

/** A child of {@link element}: a node, text, or nothing. */
export type Child = Node | string | false | null | undefined;

/**
 * Creates an element with classes (a space-separated `className`), attributes and children.
 *
 * @example element("li", { className: "clause decided", title: "true" }, "Status == ", code)
 */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: { readonly className?: string; readonly [name: string]: string | undefined } = {},
  ...children: readonly Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    if (name === "className") node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child !== false && child !== null && child !== undefined) node.append(child);
  return node;
}

/** The element with `id`, which the page's HTML must have. */
export function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`the page has no #${id}`);
  return node as T;
}
