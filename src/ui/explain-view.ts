/**
 * An explanation (what `GET /_bexpr/explain` answers) drawn as a tree: one item per clause with
 * its text, its outcome (true, false, skipped, error), what its selector found or that it was
 * missing, and the elements `any`/`all` visited, each with its body; the clauses that decided the
 * result are highlighted.
 *
 * @module
 */
import type { ClauseOutcome, ExplainedClause, Explanation, Found } from "../editor/explain.js";
import { MAX_PREVIEW_LENGTH, preview } from "../editor/explain.js";
import type { Span } from "../ast.js";
import { element, type Child } from "./dom.js";

/** Called when a clause's text is clicked: where it is in the filter. */
export type SpanHandler = (span: Span) => void;

const MARKS: Readonly<Record<string, string>> = { true: "✓", false: "✗", skipped: "·", error: "!" };

/** The outcome as a word, for the class and the label. */
function outcomeName(outcome: ClauseOutcome): string {
  return String(outcome);
}

/**
 * A value, cut to {@link MAX_PREVIEW_LENGTH} characters of JSON. A value the agent already cut
 * (`truncated`: too large to send) is its preview text.
 */
function shown(holder: { readonly value: unknown; readonly truncated?: boolean }): string {
  if (holder.truncated !== true) return preview(holder.value, MAX_PREVIEW_LENGTH);
  const text = String(holder.value);
  return text.length > MAX_PREVIEW_LENGTH ? `${text.slice(0, MAX_PREVIEW_LENGTH - 1)}…` : text;
}

/** `Status is "running"`, `Meta.tier is missing`. */
function foundText(selector: string, found: Found | undefined): Child {
  if (found === undefined) return null;
  const what = "missing" in found ? "missing" : shown(found);
  return element("span", { className: `found${"missing" in found ? " missing" : ""}` }, `${selector} is `, element("code", {}, what));
}

/** The head of a clause's item: mark, text (clickable), found value, outcome label. */
function clauseHead(clause: ExplainedClause, label: string, text: string, onSpan: SpanHandler, ...extra: Child[]): HTMLElement {
  const outcome = outcomeName(clause.outcome);
  const source = element("button", { type: "button", className: "clause-text", title: `${clause.text}\n(click to select it in the filter)` }, element("code", {}, text));
  source.addEventListener("click", () => onSpan(clause.span));
  return element(
    "div",
    { className: "clause-head" },
    element("span", { className: "mark", "aria-hidden": "true" }, MARKS[outcome] ?? "?"),
    label === "" ? null : element("span", { className: "element-key" }, label),
    source,
    ...extra,
    element("span", { className: `outcome ${outcome}` }, outcome),
    clause.decided ? element("span", { className: "decided-label" }, "decided") : null,
  );
}

/** A clause and what it holds, as a list item. */
function clauseItem(clause: ExplainedClause, onSpan: SpanHandler, label = ""): HTMLLIElement {
  const item = element("li", { className: `clause ${outcomeName(clause.outcome)}${clause.decided ? " decided" : ""}`, "data-kind": clause.kind });
  switch (clause.kind) {
    case "And":
    case "Or":
      item.append(
        clauseHead(clause, label, clause.kind === "And" ? "and" : "or", onSpan),
        element("ul", {}, ...clause.operands.map((operand) => clauseItem(operand, onSpan))),
      );
      break;
    case "Not":
      item.append(clauseHead(clause, label, "not", onSpan), element("ul", {}, clauseItem(clause.operand, onSpan)));
      break;
    case "Match":
      item.append(clauseHead(clause, label, clause.text, onSpan, foundText(clause.selector, clause.found)));
      break;
    case "Collection": {
      const visited = clause.elements.length + clause.omitted;
      const count = clause.outcome === "skipped" ? null : element("span", { className: "visited" }, `${visited} element${visited === 1 ? "" : "s"} visited`);
      const elements = clause.elements.map((visit) => {
        const key = typeof visit.key === "number" ? `[${visit.key}]` : `[${JSON.stringify(visit.key)}]`;
        const body = clauseItem(visit.body, onSpan, `${key} = ${shown(visit)}`);
        if (visit.decided) body.classList.add("deciding-element");
        return body;
      });
      item.append(
        clauseHead(clause, label, `${clause.quantifier === "Any" ? "any" : "all"} ${clause.selector}`, onSpan, foundText(clause.selector, clause.found), count),
        element("ul", {}, ...elements, clause.omitted > 0 ? element("li", { className: "omitted" }, `… ${clause.omitted} more not shown`) : null),
      );
      break;
    }
  }
  return item;
}

/**
 * The explanation of one row, as a verdict line and a tree of clauses.
 *
 * @param title what was explained (`job default/web`)
 * @param onSpan called when a clause is clicked, with its place in the filter
 */
export function renderExplanation(explanation: Explanation, title: string, onSpan: SpanHandler): HTMLElement {
  const verdict =
    explanation.error !== undefined
      ? element("p", { className: "verdict error" }, `${title}: the filter fails on it (${explanation.error.code}): `, element("code", {}, explanation.error.message))
      : element("p", { className: `verdict ${explanation.matched ? "match" : "no-match"}` }, `${title} ${explanation.matched ? "matches" : "does not match"}`);
  return element(
    "div",
    { className: "explanation", "data-matched": String(explanation.matched) },
    verdict,
    element("ul", { className: "tree" }, clauseItem(explanation.root, onSpan)),
  );
}
