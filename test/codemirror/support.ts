/** Helpers of the CodeMirror tests: real editor states, and a stand-in for the view where an action needs one. */
import { EditorState, type TransactionSpec } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import { bexpr, type BexprOptions } from "../../src/codemirror/index.js";

/** An editor state holding `doc`, with the extension. */
export function stateOf(doc: string, options: BexprOptions = {}): EditorState {
  return EditorState.create({ doc, extensions: [bexpr(options)] });
}

/**
 * The part of an `EditorView` that lint actions and completion `apply` functions use (its state
 * and `dispatch`), over a real `EditorState`: no DOM is needed to run them.
 */
export class StateView {
  constructor(public state: EditorState) {}

  dispatch(...specs: TransactionSpec[]): void {
    this.state = this.state.update(...specs).state;
  }

  /** This object as the view CodeMirror's callbacks expect. */
  get view(): EditorView {
    return this as unknown as EditorView;
  }
}

/** `source` without its `|`, and the offset of the `|` (the end when there is none). */
export function cursorIn(source: string): { doc: string; pos: number } {
  const pos = source.indexOf("|");
  return pos < 0 ? { doc: source, pos: source.length } : { doc: source.replace("|", ""), pos };
}
