/**
 * What the CodeMirror extension shows, mapped from what `validate`, `complete` and `hover` say:
 * pure functions of their results, so that tests run them in Node and the editor adds no rule of
 * its own. The one thing worked out here is where a value is being typed, for the `values`
 * source, and it is the parser that decides it (see {@link findValueSlot}).
 *
 * @module
 */
import { insertCompletionText, pickedCompletion, type Completion as CodeMirrorCompletion, type CompletionResult } from "@codemirror/autocomplete";
import type { Diagnostic as LintDiagnostic } from "@codemirror/lint";
import type { ChangeSpec } from "@codemirror/state";
import type { BinaryMatchOperator, Selector, Span } from "../ast.js";
import { forEachClause } from "../ast-walk.js";
import { MAX_VALUE_COMPLETIONS, type Completion, type CompletionKind } from "../editor/complete.js";
import type { Diagnostic, Fix } from "../errors.js";
import { quoteDouble } from "../go/strings.js";
import type { Limits } from "../limits.js";
import { analysisOf } from "../parser/analysis.js";
import { analyze } from "../parser/parse.js";

/** The `source` of every lint diagnostic, with the diagnostic's code: `bexpr(unknown_field)`. */
export const LINT_SOURCE = "bexpr";

/**
 * CodeMirror's completion type for each kind (the icon shown beside it). A type may hold several
 * names; the first is for themes that know operators, the second gives the default icon.
 */
export const COMPLETION_TYPES: Readonly<Record<CompletionKind, string>> = {
  field: "property",
  key: "property",
  value: "constant",
  variable: "variable",
  operator: "operator keyword",
  keyword: "keyword",
};

/** What shows after the label of a value from the `values` source. */
export const LIVE_VALUE_DETAIL = "live value";

/**
 * The lint diagnostics of `validate`'s: one each, with its range, severity and message (the
 * suggestion after it on a line of its own, `hint: …`, as the language server writes it), and
 * each fix as an action.
 */
export function toLintDiagnostics(diagnostics: readonly Diagnostic[]): LintDiagnostic[] {
  return diagnostics.map(toLintDiagnostic);
}

/** One lint diagnostic; see {@link toLintDiagnostics}. */
export function toLintDiagnostic(diagnostic: Diagnostic): LintDiagnostic {
  const { span, suggestion, fixes = [] } = diagnostic;
  return {
    from: span.start,
    to: span.end,
    severity: diagnostic.severity,
    message: suggestion === undefined ? diagnostic.message : `${diagnostic.message}\nhint: ${suggestion}`,
    source: `${LINT_SOURCE}(${diagnostic.code})`,
    actions: fixes.map((fix) => ({
      name: fix.title,
      // The diagnostic may have moved since the filter was checked (CodeMirror maps it through
      // edits); its edits move with it.
      apply: (view, from) => view.dispatch({ changes: fixChanges(fix, from - span.start) }),
    })),
  };
}

/** A fix's edits as CodeMirror changes, moved by `shift` characters. */
export function fixChanges(fix: Fix, shift = 0): ChangeSpec[] {
  return fix.edits.map(({ span, text }) => ({ from: span.start + shift, to: span.end + shift, insert: text }));
}

/**
 * A CodeMirror completion result from `complete`'s completions, in their order. `complete` has
 * already kept only what matches the word typed, so CodeMirror does not filter again (its fuzzy
 * match would compare `"ru` with the label `running`). Completions share one range except a
 * map key written `["web-api"]`, which replaces the `.` before it too: such a completion applies
 * its own range.
 */
export function toCompletionResult(completions: readonly Completion[]): CompletionResult | null {
  if (completions.length === 0) return null;
  const from = Math.min(...completions.map((c) => c.range.start));
  const to = Math.max(...completions.map((c) => c.range.end));
  return { from, to, filter: false, options: completions.map((completion) => toCodeMirrorCompletion(completion, from, to)) };
}

function toCodeMirrorCompletion(completion: Completion, from: number, to: number): CodeMirrorCompletion {
  const { range, text } = completion;
  const own = range.start !== from || range.end !== to;
  return {
    label: completion.label,
    type: COMPLETION_TYPES[completion.kind],
    ...(completion.detail === undefined ? {} : { detail: completion.detail }),
    apply: own
      ? (view, picked, start, end) =>
          view.dispatch({
            ...insertCompletionText(view.state, text, start + (range.start - from), end + (range.end - to)),
            annotations: pickedCompletion.of(picked),
          })
      : text,
  };
}

/** Where a value is being typed, and what it is compared with. */
export interface ValueSlot {
  /** The field the value is compared with, as written (its head may be a name bound by `any`/`all`). */
  readonly selector: Selector;
  /** The comparison (`contains` arrives as `In`, as in the AST). */
  readonly operator: BinaryMatchOperator;
  /** The text a value completion replaces: the string or word at the cursor, or the cursor itself. */
  readonly range: Span;
  /** What has been typed of the value, before the cursor (without the opening quote). */
  readonly typed: string;
}

/** A stand-in value for the parser: an empty string is a value wherever one can stand. */
const PLACEHOLDER = '""';

/** The closer of each opener, to close what is open before the cursor. */
const CLOSERS = { "(": ")", "{": "}", "[": "]" } as const;

/**
 * Whether the cursor is where a value goes (`Status == |`, `Status == "ru|`, `"|" in
 * Datacenters`), and if so which selector and operator it belongs to. The word or string at the
 * cursor is replaced by an empty string and the result parsed (with recovery): the cursor is at a
 * value when the parser reads the stand-in as the value of a match. So the answer is the
 * grammar's, not a second reading of it. When the rest of the filter is unfinished (a group
 * still open, a clause half written), the filter up to the stand-in is parsed again with the
 * groups open there closed, since a value's selector and operator come before it (but for
 * `"v" in X`, which the first parse finds).
 */
export function findValueSlot(source: string, cursor: number, limits?: Partial<Limits>): ValueSlot | undefined {
  const analysis = analysisOf(source, limits);
  const { range, typed } = analysis.valueTokenAt(cursor);
  const head = source.slice(0, range.start) + PLACEHOLDER;
  const closers = analysis
    .openBrackets(range.start, ["(", "{", "["])
    .reverse()
    .map(({ bracket }) => CLOSERS[bracket])
    .join(" ");
  for (const probe of [head + source.slice(range.end), `${head} ${closers}`]) {
    const { expression } = analyze(probe, { recover: true, ...(limits === undefined ? {} : { limits }) });
    if (expression === undefined) continue;
    let slot: ValueSlot | undefined;
    forEachClause(expression, (clause) => {
      if (clause.kind === "Match" && "value" in clause && clause.value.span.start === range.start && clause.value.span.end === range.start + PLACEHOLDER.length) {
        slot = { selector: clause.selector, operator: clause.operator, range, typed };
      }
    });
    if (slot !== undefined) return slot;
  }
  return undefined;
}

/**
 * The values a `values` source gave for a slot, as completions like `complete`'s own values:
 * quoted, filtered by what has been typed (case-insensitively, by prefix), without those
 * already offered, and at most {@link MAX_VALUE_COMPLETIONS} in all.
 */
export function liveValueCompletions(values: readonly string[], slot: ValueSlot, offered: readonly Completion[]): Completion[] {
  const typed = slot.typed.toLowerCase();
  const texts = new Set(offered.map((completion) => completion.text));
  const room = Math.max(0, MAX_VALUE_COMPLETIONS - offered.length);
  const completions: Completion[] = [];
  for (const value of values) {
    if (completions.length >= room) break;
    if (typeof value !== "string" || !value.toLowerCase().startsWith(typed)) continue;
    const text = quoteDouble(value);
    if (texts.has(text)) continue;
    texts.add(text);
    completions.push({ label: value, kind: "value", text, range: slot.range, detail: LIVE_VALUE_DETAIL });
  }
  return completions;
}

/**
 * The character under the pointer, from what CodeMirror's hover source gets: the position nearest
 * the pointer and the side of it the pointer is on (-1: the character before it).
 */
export function pointedOffset(pos: number, side: -1 | 1): number {
  return side < 0 ? pos - 1 : pos;
}
