/**
 * `bexpr/codemirror`: the filter language in a [CodeMirror 6](https://codemirror.net/) editor.
 * One extension gives highlighting that agrees with the lexer, every problem `validate` finds
 * with its quick fixes, completion from `complete` (plus live values from a source of your own),
 * hover help, and bracket matching and closing. What it shows is what the language server and
 * `bexpr check` say: it maps their results and decides nothing itself.
 *
 * The `@codemirror/*` and `@lezer/*` packages are peer dependencies: install them beside bexpr.
 *
 * ```ts
 * import { basicSetup, EditorView } from "codemirror";
 * import { schemas } from "bexpr";
 * import { bexpr } from "bexpr/codemirror";
 *
 * new EditorView({ parent: document.body, doc: 'Status == "running"', extensions: [basicSetup, bexpr({ schema: schemas.job })] });
 * ```
 *
 * @packageDocumentation
 * @module bexpr/codemirror
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, type CompletionContext, type CompletionResult, type CompletionSource } from "@codemirror/autocomplete";
import { bracketMatching, defaultHighlightStyle, highlightingFor, LanguageSupport, syntaxHighlighting } from "@codemirror/language";
import { linter, type Diagnostic as LintDiagnostic } from "@codemirror/lint";
import { StateEffect, StateField, type EditorState, type Extension } from "@codemirror/state";
import { EditorView, hoverTooltip, keymap, type Tooltip, type TooltipView } from "@codemirror/view";
import { highlightCode } from "@lezer/highlight";
import type { BinaryMatchOperator, Selector } from "../ast.js";
import { complete } from "../editor/complete.js";
import { hover } from "../editor/hover.js";
import { validate } from "../editor/validate.js";
import type { FieldSchema } from "../evaluator/schema.js";
import type { Limits } from "../limits.js";
import { bexprLanguage, buildFilterTree } from "./language.js";
import { HOVER_CLASS, parseMarkdown, renderMarkdown, type HighlightedText } from "./markdown.js";
import { findValueSlot, liveValueCompletions, pointedOffset, toCompletionResult, toLintDiagnostics } from "./mapping.js";

export { bexprLanguage } from "./language.js";

/** What is known of the objects being filtered; {@link setBexprContext} changes it in a running editor. */
export interface BexprContext {
  /** Their schema (`schemas.job`, `schemas.deployment` or your own): checks field names and types, completes fields. */
  readonly schema?: FieldSchema | undefined;
  /** Sample objects: fields without a schema, map keys, and values completed on the right of `==`. */
  readonly samples?: readonly unknown[] | undefined;
}

/** What a {@link BexprOptions.values} source is asked for: the values of one field, for completion. */
export interface ValuesRequest {
  /**
   * The field the value is compared with, as written (`Status`, `Meta.owner`, `"/Meta/owner"`):
   * its decoded `path` and its `span` in the filter. Inside an `any`/`all` body the path may start
   * with a name the body binds (`tg.Name` in `any TaskGroups as tg { tg.Name == … }`).
   */
  readonly selector: Selector;
  /** The comparison (`Equal`, `NotEqual`, `In` for `contains` and `in`, `Matches`…): a source may offer nothing for `Matches`. */
  readonly operator: BinaryMatchOperator;
  /** What has been typed of the value so far (without its opening quote); values are kept when they start with it, in any case. */
  readonly prefix: string;
  /** Aborted when the completion is no longer wanted (the user typed on, or closed it). */
  readonly signal: AbortSignal;
}

/** Options of {@link bexpr}. */
export interface BexprOptions extends BexprContext {
  /**
   * A source of live values for the field left of the cursor (the values in a cluster, say),
   * offered after `complete`'s own, as quoted strings. A failing source offers nothing; a slow one
   * holds back the completions of that position only.
   */
  readonly values?: (request: ValuesRequest) => Promise<readonly string[]>;
  /** Milliseconds of quiet before the filter is checked again (default {@link DEFAULT_LINT_DELAY}). */
  readonly lintDelay?: number;
  /** The limits of `parse` that `validate` and `complete` apply (length, nesting, clauses). */
  readonly limits?: Partial<Limits>;
  /**
   * Whether an empty (or blank) filter is marked as a mistake (`empty_expression`). Not by default:
   * in a filter box, as in the reference's API, no filter means every row.
   */
  readonly markEmpty?: boolean;
}

/**
 * The pause before checking, in milliseconds: checking a filter takes well under one, so the
 * pause is only there to let a word be typed before it is marked as a mistake.
 */
export const DEFAULT_LINT_DELAY = 300;

const setContext = StateEffect.define<BexprContext>();

/** The schema and samples in force, changed by {@link setBexprContext}. */
const contextField = StateField.define<BexprContext>({
  create: () => ({}),
  update(context, transaction) {
    for (const effect of transaction.effects) if (effect.is(setContext)) context = { ...context, ...effect.value };
    return context;
  },
});

/**
 * A state effect that changes the schema or the samples of a running editor (the fields it
 * names; pass `undefined` to drop one). The filter is checked again at once.
 *
 * @example
 * ```ts
 * view.dispatch({ effects: setBexprContext({ schema: schemas.deployment, samples: deployments }) });
 * ```
 */
export function setBexprContext(context: BexprContext): StateEffect<BexprContext> {
  return setContext.of(context);
}

/** The schema and samples in force in `state` (empty when the state has no {@link bexpr} extension). */
export function getBexprContext(state: EditorState): BexprContext {
  return state.field(contextField, false) ?? {};
}

/**
 * The filter language in a CodeMirror 6 editor: highlighting (standard tags, so any theme
 * colours it), the problems `validate` finds as lint diagnostics with their fixes as actions,
 * completion from `complete` merged with `options.values`, hover help, and matched and
 * auto-closed brackets. Add `basicSetup` (or your own keymaps and theme) beside it.
 *
 * `values`, `lintDelay` and `limits` are fixed for the extension's life; put it in a
 * `Compartment` to replace them. The schema and samples change with {@link setBexprContext}.
 *
 * @example
 * ```ts
 * new EditorView({
 *   parent: document.querySelector("#filter")!,
 *   extensions: [basicSetup, bexpr({ schema: schemas.job, values: async ({ selector }) => distinctValues(selector.path) })],
 * });
 * ```
 */
export function bexpr(options: BexprOptions = {}): Extension {
  const { schema, samples, limits } = options;
  return [
    new LanguageSupport(bexprLanguage, [bexprLanguage.data.of({ autocomplete: bexprCompletionSource(options) })]),
    contextField.init(() => ({ schema, samples })),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    linter((view) => (options.markEmpty !== true && view.state.doc.toString().trim() === "" ? [] : bexprDiagnostics(view.state, limits)), {
      delay: options.lintDelay ?? DEFAULT_LINT_DELAY,
      needsRefresh: (update) => update.startState.field(contextField, false) !== update.state.field(contextField, false),
    }),
    autocompletion(),
    hoverTooltip((view, pos, side) => bexprHoverTooltip(view.state, pointedOffset(pos, side), limits)),
    hoverTheme,
    bracketMatching(),
    closeBrackets(),
    keymap.of(closeBracketsKeymap),
  ];
}

/**
 * The lint diagnostics of the filter in `state`: one for each problem `validate` finds, with its
 * range, severity, message (and suggestion), and its fixes as actions. The {@link bexpr} linter.
 */
export function bexprDiagnostics(state: EditorState, limits?: Partial<Limits>): LintDiagnostic[] {
  const { schema } = getBexprContext(state);
  return toLintDiagnostics(validate(state.doc.toString(), { schema, ...(limits === undefined ? {} : { limits }) }));
}

/**
 * The completion source of {@link bexpr}: `complete` at the cursor, with the schema and samples
 * in force, then, where a value goes and `options.values` is given, the values it returns.
 */
export function bexprCompletionSource(options: Pick<BexprOptions, "values" | "limits"> = {}): CompletionSource {
  const { values, limits } = options;
  return (context: CompletionContext): CompletionResult | null | Promise<CompletionResult | null> => {
    const source = context.state.doc.toString();
    // Closing a string or a bracket finishes a token: no list pops up for what may follow (it would
    // cover what is below the editor while the user reads the filter); Ctrl-Space still asks.
    if (!context.explicit && justClosed(source, context.pos)) return null;
    const { schema, samples } = getBexprContext(context.state);
    const offered = complete(source, context.pos, { schema, samples, ...(limits === undefined ? {} : { limits }) });
    const slot = values === undefined ? undefined : findValueSlot(source, context.pos, limits);
    if (values === undefined || slot === undefined) return toCompletionResult(offered);
    const controller = new AbortController();
    context.addEventListener("abort", () => controller.abort(), { onDocChange: true });
    return values({ selector: slot.selector, operator: slot.operator, prefix: slot.typed, signal: controller.signal }).then(
      (live) => (context.aborted ? null : toCompletionResult([...offered, ...liveValueCompletions(live, slot, offered)])),
      // A source of live values that fails takes nothing away from the rest.
      () => (context.aborted ? null : toCompletionResult(offered)),
    );
  };
}

/** Whether the character before `pos` closed a string (`"…"`, `` `…` ``) or a bracket, rather than opened one. */
function justClosed(source: string, pos: number): boolean {
  const previous = source.charAt(pos - 1);
  if (previous === ")" || previous === "]" || previous === "}") return true;
  if (previous !== '"' && previous !== "`") return false;
  // Read the strings up to the quote: it closes one when a string of its kind was open.
  let open: string | undefined;
  for (let i = 0; i < pos - 1; i++) {
    const ch = source.charAt(i);
    if (open === undefined) {
      if (ch === '"' || ch === "`") open = ch;
    } else if (ch === "\\" && open === '"') {
      // An escaped quote just before the cursor is text inside the string.
      if (++i === pos - 1) return false;
    } else if (ch === open) open = undefined;
  }
  return open === previous;
}

/**
 * The hover tooltip for the character at `pos` in `state` (the one under the pointer), from
 * `hover` with the schema in force: over the range `hover` names, its Markdown rendered as text
 * (code examples coloured as the editor colours filters). Null where `hover` says nothing. The
 * {@link bexpr} hover source.
 */
export function bexprHoverTooltip(state: EditorState, pos: number, limits?: Partial<Limits>): Tooltip | null {
  const { schema } = getBexprContext(state);
  const info = hover(state.doc.toString(), pos, { schema, ...(limits === undefined ? {} : { limits }) });
  if (info === undefined) return null;
  const blocks = parseMarkdown(info.contents);
  return {
    pos: info.range.start,
    end: info.range.end,
    above: true,
    create: (view): TooltipView => ({
      dom: renderMarkdown(view.dom.ownerDocument, blocks, (text, language) => highlightExample(view.state, text, language)),
    }),
  };
}

/** The languages of the code blocks coloured as filters (`hover` marks its examples `bexpr`). */
const FILTER_LANGUAGES: ReadonlySet<string> = new Set(["bexpr", ""]);

/** A code block of a hover, coloured by the highlighters of the editor (its theme) when it is a filter. */
function highlightExample(state: EditorState, text: string, language: string): HighlightedText[] {
  if (!FILTER_LANGUAGES.has(language)) return [{ text, classes: "" }];
  const pieces: HighlightedText[] = [];
  highlightCode(
    text,
    buildFilterTree(text),
    { style: (tags) => highlightingFor(state, tags) },
    (piece, classes) => pieces.push({ text: piece, classes }),
    () => pieces.push({ text: "\n", classes: "" }),
  );
  return pieces;
}

/** The hover's layout; colours come from the editor's theme. */
const hoverTheme = EditorView.baseTheme({
  [`.${HOVER_CLASS}`]: { padding: "2px 8px", maxWidth: "36em" },
  [`.${HOVER_CLASS} p, .${HOVER_CLASS} ul, .${HOVER_CLASS} pre`]: { margin: "4px 0" },
  [`.${HOVER_CLASS} ul`]: { paddingLeft: "1.4em" },
  [`.${HOVER_CLASS} pre`]: { whiteSpace: "pre-wrap" },
});
