/**
 * bexpr's editor results in the Language Server Protocol's terms: spans become ranges (UTF-16
 * offsets both sides, through the document's `positionAt`/`offsetAt`), diagnostics keep their
 * `code`, fixes become workspace edits, completions replace their range.
 *
 * @module
 */
import {
  CodeActionKind,
  CompletionItemKind,
  DiagnosticSeverity,
  TextEdit as LspTextEdit,
  type CodeAction,
  type CompletionItem,
  type Diagnostic as LspDiagnostic,
  type Range,
} from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Span } from "../ast.js";
import type { Completion, CompletionKind } from "../editor/complete.js";
import type { Diagnostic, Fix, TextEdit } from "../errors.js";

/** What the server's diagnostics name as their source. */
export const DIAGNOSTIC_SOURCE = "bexpr";

/** The kind of the "fix all" source action (`source.fixAll.bexpr`, for `editor.codeActionsOnSave`). */
export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.bexpr`;

/** How each kind of completion is shown. */
const COMPLETION_KINDS = {
  field: CompletionItemKind.Field,
  key: CompletionItemKind.Property,
  value: CompletionItemKind.Value,
  variable: CompletionItemKind.Variable,
  operator: CompletionItemKind.Operator,
  keyword: CompletionItemKind.Keyword,
} as const satisfies Record<CompletionKind, CompletionItemKind>;

/** The digits of a completion's sort text: enough for every completion `complete` returns. */
const SORT_DIGITS = 5;

/** The range of a span of `document`. */
export function rangeOf(document: TextDocument, span: Span): Range {
  return { start: document.positionAt(span.start), end: document.positionAt(span.end) };
}

/** The whole of `document`. */
export function wholeDocument(document: TextDocument): Range {
  return rangeOf(document, { start: 0, end: document.getText().length });
}

/** Where the error codes are explained online, one section per code (docs/errors.md of the repository). */
export const ERROR_CODES_URL = "https://github.com/bexpr/bexpr/blob/main/docs/errors.md";

/**
 * The error reference a user can open offline: docs/errors.md of the installed package (its
 * `files` ship it), found from this module up (dist/, dist/chunks/ or src/lsp/), as a `file:` URL;
 * the repository's page where it is missing.
 */
export const ERROR_CODES_HREF: string = (() => {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 4; level++) {
    const reference = join(directory, "docs/errors.md");
    if (existsSync(reference)) return pathToFileURL(reference).href;
    directory = dirname(directory);
  }
  return ERROR_CODES_URL;
})();

/** A diagnostic of `validate` as the protocol's: its code kept and linked to its section of the error reference ({@link ERROR_CODES_HREF}), its hint after its message. */
export function toLspDiagnostic(document: TextDocument, diagnostic: Diagnostic): LspDiagnostic {
  return {
    range: rangeOf(document, diagnostic.span),
    severity: diagnostic.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: diagnostic.code,
    codeDescription: { href: `${ERROR_CODES_HREF}#${diagnostic.code}` },
    source: DIAGNOSTIC_SOURCE,
    message: diagnostic.suggestion === undefined ? diagnostic.message : `${diagnostic.message}\nhint: ${diagnostic.suggestion}`,
  };
}

/** The edits of a fix as the protocol's. */
export function toLspEdits(document: TextDocument, edits: readonly TextEdit[]): LspTextEdit[] {
  return edits.map((edit) => LspTextEdit.replace(rangeOf(document, edit.span), edit.text));
}

/** A quick fix of a diagnostic: the fix's edits, as a workspace edit of the document. */
export function toQuickFix(document: TextDocument, diagnostic: Diagnostic, fix: Fix, preferred: boolean): CodeAction {
  return {
    title: fix.title,
    kind: CodeActionKind.QuickFix,
    diagnostics: [toLspDiagnostic(document, diagnostic)],
    isPreferred: preferred,
    edit: { changes: { [document.uri]: toLspEdits(document, fix.edits) } },
  };
}

/**
 * A completion as the protocol's: it replaces its range. Its `filterText` starts as the text it
 * replaces does (the opening quote of a value, the `.` that `["key"]` replaces), so that the
 * client's own filtering, which compares the two, keeps what `complete` offered.
 */
export function toCompletionItem(document: TextDocument, completion: Completion, index: number): CompletionItem {
  const replaced = document.getText(rangeOf(document, completion.range));
  return {
    label: completion.label,
    kind: COMPLETION_KINDS[completion.kind],
    ...(completion.detail === undefined ? {} : { detail: completion.detail }),
    textEdit: LspTextEdit.replace(rangeOf(document, completion.range), completion.text),
    filterText: filterTextOf(replaced, completion),
    // `complete` orders its completions (fields in schema order, then keywords): keep that order.
    sortText: String(index).padStart(SORT_DIGITS, "0"),
    // What `completionItem/resolve` needs to document the item: the edit, on this version.
    data: { uri: document.uri, version: document.version, start: completion.range.start, end: completion.range.end, text: completion.text } satisfies CompletionData,
  };
}

/** The data a completion item carries for `completionItem/resolve`. */
export interface CompletionData {
  readonly uri: string;
  readonly version: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

function filterTextOf(replaced: string, completion: Completion): string {
  if (replaced === "") return completion.label;
  if (completion.text.startsWith(replaced.charAt(0))) return completion.text;
  if (replaced.startsWith(".")) return `.${completion.label}`;
  return completion.label;
}

/**
 * Markdown as plain text, for a client that shows hover text as it is (Emacs 28's Eglot without
 * markdown-mode lists only `plaintext`): emphasis and code marks dropped, a fenced block indented.
 * Only the Markdown the hover texts use is read: `**bold**`, `` `code` ``, fences and lists.
 */
export function markdownToPlainText(markdown: string): string {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) {
      fenced = !fenced;
      continue;
    }
    lines.push(fenced ? `    ${line}` : line.replace(/\*\*(.*?)\*\*/g, "$1").replace(/`([^`]*)`/g, "$1"));
  }
  return lines.join("\n");
}
