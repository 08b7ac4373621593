/**
 * The agent's web UI (`/ui/`): a filter editor (CodeMirror with the `bexpr` extension), the rows
 * of the jobs or deployments list that match it, kept current by blocking queries, and for a
 * clicked row the explanation of why it matches or not, from the agent's own evaluation.
 *
 * Everything the page decides about a filter comes from the engine (validate, via the editor
 * extension and directly to know whether to send it) and the agent (the rows, the explanation):
 * the page itself only wires them together.
 *
 * @module
 */
import "./style.css";
import { defaultKeymap, history as undoHistory, historyKeymap, indentWithTab } from "@codemirror/commands";
import { lintGutter, lintKeymap } from "@codemirror/lint";
import { completionKeymap } from "@codemirror/autocomplete";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, placeholder } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import type { BinaryMatchOperator } from "../ast.js";
import { bexpr, setBexprContext, type ValuesRequest } from "../codemirror/index.js";
import type { Explanation } from "../editor/explain.js";
import { format } from "../editor/format.js";
import { fixAll, validate } from "../editor/validate.js";
import type { FieldSchema } from "../evaluator/schema.js";
import { schemas } from "../schemas.js";
import { AgentError, followList, getJson, listPath, loadToken, saveToken, toJson, unknownToken, type ListName, type ListRow } from "./api.js";
import { byId, element } from "./dom.js";
import { renderExplanation } from "./explain-view.js";

/** Quiet time after the last keystroke before the filter is sent (the editor's own checks run meanwhile). */
const FILTER_DEBOUNCE_MS = 300;

/** Quiet time after the namespace field changes before the lists are asked again. */
const NAMESPACE_DEBOUNCE_MS = 400;

/** How long the unfiltered rows fetched for value completion are reused. */
const VALUES_CACHE_MS = 5_000;

/** The most distinct values offered for one field (the extension keeps at most 100 completions anyway). */
const MAX_LIVE_VALUES = 100;

/** How many recent filters the page remembers (in the browser's local storage). */
const MAX_RECENT_FILTERS = 10;

/** The local storage key of the recent filters. */
const RECENT_STORAGE_KEY = "bexpr.recentFilters";

/**
 * The editor's look; the page's style sheet does not reach into its shadow root, but its custom
 * properties do: the editor takes the page's colours, light or dark as the system prefers.
 */
const EDITOR_THEME = EditorView.theme({
  "&": { minHeight: "64px", fontSize: "14px", color: "var(--text)", backgroundColor: "var(--panel)", borderRadius: "6px" },
  "&.cm-focused": { outline: "2px solid var(--accent)" },
  ".cm-content": { caretColor: "var(--text)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--text)" },
  ".cm-content, .cm-tooltip": { fontFamily: 'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace' },
  ".cm-scroller": { minHeight: "64px" },
  ".cm-gutters": { backgroundColor: "var(--page)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-tooltip": { maxWidth: "520px", backgroundColor: "var(--panel)", color: "var(--text)", border: "1px solid var(--line)" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "var(--selected-bg)", color: "var(--text)" },
  ".cm-placeholder": { color: "var(--skip)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--selected-bg)" },
});

/** The filter's colours, from the page's custom properties (style.css), so that they follow its theme. */
const EDITOR_HIGHLIGHT = HighlightStyle.define([
  { tag: [tags.operatorKeyword, tags.controlKeyword, tags.definitionKeyword], color: "var(--syntax-keyword)" },
  { tag: [tags.string], color: "var(--syntax-string)" },
  { tag: [tags.number, tags.atom, tags.null, tags.bool], color: "var(--syntax-literal)" },
  { tag: [tags.propertyName, tags.variableName], color: "var(--syntax-field)" },
  { tag: [tags.compareOperator, tags.operator], color: "var(--syntax-operator)" },
]);

/** One column of the rows table. */
interface Column {
  readonly header: string;
  /** The cell's text. */
  cell(row: ListRow): string;
  /** Prose that wraps (a description), so the table fits its card instead of cutting it off. */
  readonly prose?: true;
}

/** A list the page shows: its filter schema (exactly what the agent filters on), its columns, what its rows are called. */
interface ListView {
  readonly schema: FieldSchema;
  readonly noun: string;
  readonly columns: readonly Column[];
}

/** A field as text: strings as they are, lists joined, the rest as JSON. */
function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(text).join(", ");
  if (typeof value === "object") return toJson(value);
  return String(value);
}

const field =
  (name: string, header = name): Column =>
  ({ header, cell: (row) => text(row[name]) });

const LISTS: Readonly<Record<ListName, ListView>> = {
  jobs: {
    schema: schemas.job,
    noun: "job",
    columns: [field("ID"), field("Namespace"), field("Type"), field("Status"), field("Priority"), field("Datacenters")],
  },
  deployments: {
    schema: schemas.deployment,
    noun: "deployment",
    columns: [
      // A UUID's first block is enough to tell deployments apart on screen.
      { header: "ID", cell: (row) => row.ID.slice(0, 8) },
      field("Namespace"),
      field("JobID", "Job"),
      field("JobVersion", "Version"),
      field("Status"),
      { ...field("StatusDescription", "Description"), prose: true },
    ],
  },
};

/** A row's identity across answers: namespace and ID. */
function rowKey(row: ListRow): string {
  return `${row.Namespace}/${row.ID}`;
}

/** The filter as sent: blank is no filter. */
function sendable(filter: string): string {
  return filter.trim() === "" ? "" : filter;
}

/**
 * The distinct scalar values at `path` in `rows` (for `in`/`contains`, the elements of a list
 * and the keys of a map there), as text, for value completion.
 */
function valuesAt(rows: readonly unknown[], path: readonly string[], operator: BinaryMatchOperator): string[] {
  const seen = new Set<string>();
  const collect = (value: unknown, nested: boolean): void => {
    if (typeof value === "string" || typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") seen.add(String(value));
    else if (nested || (operator !== "In" && operator !== "NotIn") || value === null || typeof value !== "object") return;
    else if (Array.isArray(value)) for (const item of value) collect(item, true);
    else for (const key of Object.keys(value)) seen.add(key);
  };
  for (const row of rows) {
    let value: unknown = row;
    for (const key of path) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
    collect(value, false);
    if (seen.size >= MAX_LIVE_VALUES) break;
  }
  return [...seen].slice(0, MAX_LIVE_VALUES).sort();
}

/** The page: its state, and what each change does. */
class Page {
  list: ListName = "jobs";
  namespace = "default";
  token = loadToken();
  showAll = false;
  /** The filter text of each list, so that switching lists and back keeps each one's filter. */
  readonly filters: Record<ListName, string> = { jobs: "", deployments: "" };
  /** The filter the rows follow ("" for none); undefined while the editor's text has errors. */
  sent: string | undefined = "";
  /** The rows listed (every row with "show all", else the matching ones), and when they arrived. */
  rows: readonly ListRow[] = [];
  rowsIndex = 0;
  /** With "show all" and a filter: the keys of the matching rows (undefined until the first answer). */
  matched: ReadonlySet<string> | undefined;
  selected: string | undefined;
  /** What the explanation shown was made of, so that it is asked again only when that changes. */
  explained = "";
  following = new AbortController();
  explaining = new AbortController();
  valuesCache: { key: string; at: number; rows: Promise<readonly ListRow[]> } | undefined;
  filterTimer: ReturnType<typeof setTimeout> | undefined;
  namespaceTimer: ReturnType<typeof setTimeout> | undefined;

  readonly view: EditorView;
  readonly status = byId<HTMLParagraphElement>("filter-status");
  readonly rowsTable = byId<HTMLTableElement>("rows");
  readonly rowsMeta = byId<HTMLSpanElement>("rows-meta");
  readonly rowsError = byId<HTMLParagraphElement>("rows-error");
  readonly explainBox = byId<HTMLDivElement>("explain");
  readonly namespaceInput = byId<HTMLInputElement>("namespace");
  readonly tokenDialog = byId<HTMLDivElement>("token-dialog");
  readonly tokenInput = byId<HTMLInputElement>("token-input");
  readonly recentSelect = byId<HTMLSelectElement>("recent");
  readonly curlBox = byId<HTMLParagraphElement>("curl");
  /** A note for the status line, shown once with the next status (a list switch that kept a filter aside). */
  note = "";

  constructor() {
    // The address keeps the list, namespace and filter, so a view can be shared or reloaded.
    const query = new URLSearchParams(location.search);
    if (query.get("list") === "deployments") this.list = "deployments";
    this.namespace = query.get("namespace") || "default";
    this.filters[this.list] = query.get("filter") ?? "";
    this.showAll = query.get("all") === "1";
    this.namespaceInput.value = this.namespace;
    byId<HTMLInputElement>("show-all").checked = this.showAll;
    for (const radio of Array.from(document.querySelectorAll<HTMLInputElement>('input[name="list"]'))) radio.checked = radio.value === this.list;

    // The editor lives in a shadow root: CodeMirror's styles then go into a constructed style
    // sheet, which the page's Content-Security-Policy allows, instead of a <style> element, which
    // it refuses (style-src 'self', no nonce: the page is the same bytes for every request).
    const root = byId("editor").attachShadow({ mode: "open" });
    this.view = new EditorView({
      parent: root,
      root,
      state: EditorState.create({
        doc: this.filters[this.list],
        extensions: [
          undoHistory(),
          lintGutter(),
          bexpr({ schema: LISTS[this.list].schema, values: (request) => this.liveValues(request) }),
          placeholder('Status == "running"'),
          EditorView.lineWrapping,
          EDITOR_THEME,
          syntaxHighlighting(EDITOR_HIGHLIGHT),
          keymap.of([...completionKeymap, ...lintKeymap, ...historyKeymap, ...defaultKeymap, indentWithTab]),
          EditorView.contentAttributes.of({ "aria-label": "Filter expression" }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) this.filterChanged();
          }),
        ],
      }),
    });
    this.wire();
    this.renderRecent();
    this.restart();
  }

  /** The listeners of the page's controls. */
  wire(): void {
    for (const radio of Array.from(document.querySelectorAll<HTMLInputElement>('input[name="list"]'))) {
      radio.addEventListener("change", () => radio.checked && this.switchList(radio.value as ListName));
    }
    this.namespaceInput.addEventListener("input", () => {
      clearTimeout(this.namespaceTimer);
      this.namespaceTimer = setTimeout(() => {
        this.namespace = this.namespaceInput.value.trim() || "default";
        this.selected = undefined;
        this.restart();
      }, NAMESPACE_DEBOUNCE_MS);
    });
    byId<HTMLInputElement>("show-all").addEventListener("change", (event) => {
      this.showAll = (event.target as HTMLInputElement).checked;
      this.restart();
    });
    byId("token-button").addEventListener("click", () => this.askToken(this.token === "" ? "Enter a token to act with its rights." : "This tab uses a token. Replace it, or forget it to act as the anonymous token."));
    byId("token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.useToken(this.tokenInput.value.trim());
    });
    byId("token-clear").addEventListener("click", () => this.useToken(""));
    byId("token-cancel").addEventListener("click", () => (this.tokenDialog.hidden = true));
    this.tokenDialog.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.tokenDialog.hidden = true;
    });
    byId("format-button").addEventListener("click", () => this.formatFilter());
    byId("fix-all-button").addEventListener("click", () => this.fixAllFilter());
    byId("curl-button").addEventListener("click", () => void this.copyCurl());
    this.recentSelect.addEventListener("change", () => {
      const chosen = this.recentSelect.value;
      this.recentSelect.value = "";
      if (chosen !== "") this.replaceFilter(chosen);
    });
  }

  /** Replaces the editor's text (one undoable change), and follows the new filter at once. */
  replaceFilter(text: string): void {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
    clearTimeout(this.filterTimer);
    this.restart();
    this.view.focus();
  }

  /** The Format button: the canonical form of a valid filter (the editor's text stays when it has errors). */
  formatFilter(): void {
    if (sendable(this.filter) === "") return;
    try {
      this.replaceFilter(format(this.filter));
      this.setStatus("valid", "Formatted. The rows below follow this filter live.");
    } catch {
      this.setStatus("invalid", "The filter has errors (marked in the editor): fix them before formatting.");
    }
  }

  /** The Fix all button: every quick fix the editor offers, applied as one change. */
  fixAllFilter(): void {
    const fixed = fixAll(this.filter, { schema: LISTS[this.list].schema });
    if (fixed.applied.length === 0) {
      this.setStatus(this.sent === undefined ? "invalid" : "valid", fixed.diagnostics.length === 0 ? "Nothing to fix." : "No quick fix applies to the problems left: they are marked in the editor.");
      return;
    }
    this.note = `Applied ${fixed.applied.length} fix${fixed.applied.length === 1 ? "" : "es"}: ${fixed.applied.map((fix) => fix.title).join("; ")}.`;
    this.replaceFilter(fixed.source);
  }

  /** The curl command of the rows shown: the list request with the filter, the token (if any) from $BEXPR_TOKEN. */
  curlCommand(): string {
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    const url = `${location.origin}${listPath(this.list, this.namespace, this.sent ?? "")}`;
    return ["curl", "-sS", ...(this.token === "" ? [] : ["-H", '"Authorization: Bearer $BEXPR_TOKEN"']), quote(url)].join(" ");
  }

  /** The Copy as curl button: to the clipboard, and shown under the status line (to copy by hand where the clipboard is refused). */
  async copyCurl(): Promise<void> {
    const command = this.curlCommand();
    byId("curl-text").textContent = command;
    this.curlBox.hidden = false;
    const secret = this.token === "" ? "" : " The token is read from $BEXPR_TOKEN, not written in it.";
    try {
      await navigator.clipboard.writeText(command);
      this.setStatus(this.sent === undefined ? "invalid" : "valid", `Copied the request as curl.${secret}`);
    } catch {
      this.setStatus(this.sent === undefined ? "invalid" : "valid", `The browser refused the clipboard: copy the command below.${secret}`);
    }
  }

  /** The recent filters, most recent first. */
  recent(): string[] {
    try {
      const stored = JSON.parse(localStorage.getItem(RECENT_STORAGE_KEY) ?? "[]") as unknown;
      return Array.isArray(stored) ? stored.filter((item): item is string => typeof item === "string").slice(0, MAX_RECENT_FILTERS) : [];
    } catch {
      return [];
    }
  }

  /** Remembers a filter the rows followed. */
  rememberFilter(filter: string): void {
    // A filter typed on from one remembered (a word added) takes its place rather than piling up.
    const recent = [filter, ...this.recent().filter((item) => item !== filter && !filter.startsWith(item))].slice(0, MAX_RECENT_FILTERS);
    try {
      localStorage.setItem(RECENT_STORAGE_KEY, JSON.stringify(recent));
    } catch {
      // Storage refused (a private window's quota): the list stays as it is.
    }
    this.renderRecent();
  }

  renderRecent(): void {
    const recent = this.recent();
    this.recentSelect.replaceChildren(element("option", { value: "" }, recent.length === 0 ? "none yet" : "—"), ...recent.map((filter) => element("option", { value: filter }, filter)));
    this.recentSelect.disabled = recent.length === 0;
  }

  /** The current editor text. */
  get filter(): string {
    return this.view.state.doc.toString();
  }

  filterChanged(): void {
    this.filters[this.list] = this.filter;
    clearTimeout(this.filterTimer);
    this.filterTimer = setTimeout(() => this.restart(), FILTER_DEBOUNCE_MS);
  }

  switchList(list: ListName): void {
    const from = this.list;
    this.filters[from] = this.filter;
    // A filter the other list can use too goes with it when that list has none of its own;
    // otherwise each list keeps its own, and the status line says where the other one went.
    const carried = this.filters[list] === "" && sendable(this.filter) !== "" && validate(this.filter, { schema: LISTS[list].schema }).every((diagnostic) => diagnostic.severity !== "error");
    if (carried) this.filters[list] = this.filter;
    else if (sendable(this.filter) !== "") this.note = `The ${from} filter is kept for the ${from} list (it does not apply to ${list}): switch back to get it.`;
    this.list = list;
    this.selected = undefined;
    this.view.dispatch({
      changes: { from: 0, to: this.view.state.doc.length, insert: this.filters[list] },
      effects: setBexprContext({ schema: LISTS[list].schema }),
    });
    // The replaced text scheduled a restart of its own: this one is at once.
    clearTimeout(this.filterTimer);
    this.restart();
  }

  /** Keeps the list, namespace and filter in the address (without a new history entry). */
  remember(): void {
    const query = new URLSearchParams({ list: this.list, namespace: this.namespace });
    if (this.filter.trim() !== "") query.set("filter", this.filter);
    if (this.showAll) query.set("all", "1");
    window.history.replaceState(null, "", `?${query}`);
  }

  /**
   * Follows the lists again for the current list, namespace, filter and token: the filter is sent
   * only when the engine finds no error in it (warnings do not stop it).
   */
  restart(): void {
    this.following.abort();
    this.following = new AbortController();
    this.remember();
    const filter = this.filter;
    const errors = validate(filter, { schema: LISTS[this.list].schema }).filter((diagnostic) => diagnostic.severity === "error");
    if (sendable(filter) !== "" && errors.length > 0) {
      this.sent = undefined;
      this.setStatus("invalid", `${errors.length} problem${errors.length === 1 ? "" : "s"} in the filter (marked in the editor): it is sent once they are fixed.`);
      this.rowsTable.classList.add("stale");
      this.showExplanation();
      return;
    }
    this.sent = sendable(filter);
    this.curlBox.hidden = true;
    this.setStatus("valid", this.sent === "" ? "No filter: every row is listed." : "The rows below follow this filter live.");
    if (this.sent !== "") this.rememberFilter(this.sent);
    this.rowsError.hidden = true;
    const { signal } = this.following;
    const listener = {
      refused: (error: AgentError) => this.refused(error),
      failed: (error: Error) => this.showRowsError(`The agent did not answer (${error.message}); asking again shortly.`),
    };
    this.matched = undefined;
    if (this.showAll && this.sent !== "") {
      void followList(this.list, this.namespace, "", this.token, signal, { ...listener, rows: (rows, index) => this.showRows(rows, index) });
      void followList(this.list, this.namespace, this.sent, this.token, signal, {
        ...listener,
        rows: (rows) => {
          this.matched = new Set(rows.map(rowKey));
          this.renderRows();
        },
      });
    } else {
      void followList(this.list, this.namespace, this.sent, this.token, signal, { ...listener, rows: (rows, index) => this.showRows(rows, index) });
    }
    this.showExplanation();
  }

  setStatus(kind: "valid" | "invalid", message: string): void {
    this.status.className = `status ${kind}`;
    this.status.textContent = this.note === "" ? message : `${this.note} ${message}`;
    this.note = "";
  }

  showRows(rows: readonly ListRow[], index: number): void {
    this.rows = rows;
    this.rowsIndex = index;
    this.rowsError.hidden = true;
    this.renderRows();
    this.showExplanation();
  }

  /**
   * A 4xx from the agent: shown as its text; a 403 also asks for a token. The lists answer every
   * refusal with the reference's bare `Permission denied`, an unknown token as well; so with a token
   * set, the page asks the agent about the token itself (`/v1/acl/token/self`, which answers
   * `ACL token not found` for a secret it does not know) and says which of the two it was.
   */
  refused(error: AgentError): void {
    this.rowsTable.classList.add("stale");
    if (error.status !== 403) {
      this.showRowsError(`${error.status}: ${error.message}`);
      return;
    }
    const where = `the ${this.list} list in namespace ${this.namespace}`;
    const needs = `${where} needs ${this.list === "jobs" ? "list-jobs" : "read-job"}`;
    if (this.token === "") {
      const who = "Without a token, the agent's ACLs refuse this";
      this.showRowsError(`403 ${error.message}: ${who} (${where}).`);
      this.askToken(`${who}: ${needs}.`);
      return;
    }
    const token = this.token;
    const { signal } = this.following;
    void unknownToken(token, signal).then((unknown) => {
      if (signal.aborted || token !== this.token) return;
      if (unknown) {
        this.showRowsError(`403 ${error.message}: the agent does not know this token (ACL token not found).`);
        this.askToken("The agent does not know this token (ACL token not found): check it, or forget it to act as the anonymous token.");
      } else {
        const who = "The agent's ACLs refuse this token";
        this.showRowsError(`403 ${error.message}: ${who} (${where}).`);
        this.askToken(`${who}: ${needs}.`);
      }
    });
  }

  showRowsError(message: string): void {
    this.rowsError.textContent = message;
    this.rowsError.hidden = false;
  }

  renderRows(): void {
    const { columns, noun } = LISTS[this.list];
    const marking = this.showAll && this.sent !== "" && this.sent !== undefined;
    const head = element("tr", {}, marking ? element("th", {}, "Match") : null, ...columns.map((column) => element("th", {}, column.header)));
    const body = this.rows.map((row) => {
      const key = rowKey(row);
      const matched = marking ? this.matched?.has(key) : true;
      const mark = matched === undefined ? "…" : matched ? "✓" : "✗";
      const tr = element(
        "tr",
        { className: `${matched === false ? "no-match" : "match"}${key === this.selected ? " selected" : ""}`, "data-key": key, tabindex: "0", title: `Why does this ${noun} match or not?` },
        marking ? element("td", { className: "mark" }, mark) : null,
        ...columns.map((column) => element("td", column.prose ? { className: "prose" } : {}, column.cell(row))),
      );
      const select = () => this.select(key);
      tr.addEventListener("click", select);
      tr.addEventListener("keydown", (event) => event.key === "Enter" && select());
      return tr;
    });
    this.rowsTable.tHead!.replaceChildren(head);
    this.rowsTable.tBodies[0]!.replaceChildren(...body);
    this.rowsTable.classList.remove("stale");
    const count = this.rows.length;
    const matching = marking && this.matched !== undefined ? `${this.rows.filter((row) => this.matched!.has(rowKey(row))).length} of ${count} match` : `${count} ${noun}${count === 1 ? "" : "s"}`;
    this.rowsMeta.textContent = `${matching} · index ${this.rowsIndex} · ${new Date().toLocaleTimeString()}`;
  }

  select(key: string): void {
    this.selected = key;
    for (const tr of Array.from(this.rowsTable.tBodies[0]!.rows)) tr.classList.toggle("selected", tr.dataset.key === key);
    this.explained = "";
    this.showExplanation();
  }

  /**
   * Shows why the selected row matches: asked of the agent, which evaluates the filter on what
   * the list filters (for jobs, the whole stored job), and asked again when the filter or the
   * row changes.
   */
  showExplanation(): void {
    const row = this.rows.find((candidate) => rowKey(candidate) === this.selected);
    const noun = LISTS[this.list].noun;
    const hint = (message: string) => {
      this.explaining.abort();
      this.explained = "";
      this.explainBox.replaceChildren(element("p", { className: "hint" }, message));
    };
    if (this.selected === undefined) return hint("Click a row to see why it matches the filter or not.");
    if (row === undefined) return hint(`The ${noun} ${this.selected} is no longer listed.`);
    if (this.sent === undefined) return hint("Fix the filter's problems to see why this row matches it or not.");
    if (this.sent === "") return hint(`No filter: every ${noun} is listed. Type a filter to see why this one matches it or not.`);
    const what = toJson([this.list, this.sent, row, this.token]);
    if (what === this.explained) return;
    this.explained = what;
    this.explaining.abort();
    this.explaining = new AbortController();
    const { signal } = this.explaining;
    const query = new URLSearchParams({ list: this.list, namespace: row.Namespace, id: row.ID, filter: this.sent });
    const source = this.sent;
    const title = `The ${noun} ${row.Namespace}/${this.list === "jobs" ? row.ID : row.ID.slice(0, 8)}`;
    getJson(`/_bexpr/explain?${query}`, this.token, signal).then(
      ({ body }) => {
        if (signal.aborted) return;
        this.explainBox.replaceChildren(
          renderExplanation(body as Explanation, title, (span) => {
            // The clause is selected in the editor when the filter there is still the one explained.
            if (this.filter === source) this.view.dispatch({ selection: { anchor: span.start, head: span.end }, scrollIntoView: true });
            this.view.focus();
          }),
        );
      },
      (error: unknown) => {
        if (signal.aborted) return;
        this.explained = "";
        const message = error instanceof AgentError ? `${error.status}: ${error.message}` : `The agent did not answer: ${String(error)}`;
        this.explainBox.replaceChildren(element("p", { className: "error-text" }, message));
        if (error instanceof AgentError && error.status === 403) this.askToken("The agent's ACLs refuse to explain this row with the current token.");
      },
    );
  }

  /**
   * Live values for completion: those of the field in the list's rows as the agent has them now,
   * without the filter (a filter being written should not hide the values it could pick).
   */
  async liveValues(request: ValuesRequest): Promise<readonly string[]> {
    const key = JSON.stringify([this.list, this.namespace, this.token]);
    if (this.valuesCache === undefined || this.valuesCache.key !== key || Date.now() - this.valuesCache.at > VALUES_CACHE_MS) {
      // Not stopped with the completion that asked: the next completions share this read.
      const rows = getJson(listPath(this.list, this.namespace, ""), this.token, new AbortController().signal).then(({ body }) => body as ListRow[]);
      this.valuesCache = { key, at: Date.now(), rows };
      // A failed read is not kept: the next completion asks again.
      rows.catch(() => (this.valuesCache = undefined));
    }
    return valuesAt(await this.valuesCache.rows, request.selector.path, request.operator);
  }

  askToken(reason: string): void {
    byId("token-reason").textContent = reason;
    this.tokenInput.value = this.token;
    this.tokenDialog.hidden = false;
    this.tokenInput.focus();
  }

  useToken(token: string): void {
    this.token = token;
    saveToken(token);
    this.tokenDialog.hidden = true;
    this.valuesCache = undefined;
    this.explained = "";
    this.restart();
  }
}

new Page();
