/**
 * `explain`: why a value matches a filter or not. The filter is evaluated once, by the same
 * compiled code as `Filter.test` (quirks included), with a trace of every clause it reached.
 *
 * @module
 */
import type { CollectionExpression, Expression, MatchExpression, Span } from "../ast.js";
import { FilterEvaluationError, type EvaluationErrorCode } from "../errors.js";
import { compileExpression, type EvaluationTrace } from "../evaluator/compile.js";
import { NOT_PRESENT } from "../evaluator/resolve.js";
import type { FieldSchema } from "../evaluator/schema.js";
import type { Limits } from "../limits.js";
import type { MatchOperator } from "../operators.js";
import { parse, requireSource } from "../parser/parse.js";

/**
 * The most clauses one explanation records (each visit of an `any`/`all` body counts its
 * clauses again). Past it the elements of collections are counted, not recorded: an explanation
 * stays small whatever the value, as the evaluation's cost budget keeps its work bounded.
 */
export const MAX_EXPLAINED_CLAUSES = 2_000;

/** Options of {@link explain}. */
export interface ExplainOptions {
  /** The schema of the value (typed mode), as for `compileFilter`. */
  readonly schema?: FieldSchema;
  /** Overrides of the limits (length, nesting, cost), as for `compileFilter`. */
  readonly limits?: Partial<Limits>;
}

/**
 * What became of a clause: its truth, `"skipped"` when the clauses before it decided its group
 * (`and` stops at the first false operand, `or` at the first true one), or `"error"` when the
 * evaluation failed in it.
 */
export type ClauseOutcome = boolean | "skipped" | "error";

/** What every explained clause has. */
interface ExplainedBase {
  /** The clause's text in the filter. */
  readonly text: string;
  /** Where the clause is in the filter. */
  readonly span: Span;
  /** Its truth, or why it has none. */
  readonly outcome: ClauseOutcome;
  /**
   * The clause decided the result of the clause holding it (and so on up to the whole filter):
   * the first false operand of a false `and`, the first true one of a true `or`, every operand
   * of a true `and` or a false `or`, the element that decided an `any`/`all`.
   */
  readonly decided: boolean;
}

/** `a and b`, `a or b`: the operands in order. */
export interface ExplainedGroup extends ExplainedBase {
  /** Which group. */
  readonly kind: "And" | "Or";
  /** The operands, in order; those after the deciding one are `"skipped"`. */
  readonly operands: readonly ExplainedClause[];
}

/** `not e`. */
export interface ExplainedNot extends ExplainedBase {
  /** Always `"Not"`. */
  readonly kind: "Not";
  /** The negated clause. */
  readonly operand: ExplainedClause;
}

/** What a selector found: a value, or that the key was missing (the operator's missing-key result applies). */
export type Found =
  | {
      /** The value the operator was applied to (a typed field's zero value where the object lacks it). */
      readonly value: unknown;
    }
  | {
      /** The key was missing: the operator's missing-key result applied. */
      readonly missing: true;
    };

/** A match clause (`Status == "running"`, `"dc1" in Datacenters`, `Meta is empty`). */
export interface ExplainedMatch extends ExplainedBase {
  /** Always `"Match"`. */
  readonly kind: "Match";
  /** The operator applied. */
  readonly operator: MatchOperator;
  /** The selector as written. */
  readonly selector: string;
  /** What the selector found, when the clause was evaluated and the lookup did not fail. */
  readonly found?: Found;
}

/** One element of a list or map visited by `any`/`all`. */
export interface ExplainedElement {
  /** The list index or the map key. */
  readonly key: number | string;
  /** The element. */
  readonly value: unknown;
  /** The body's truth for this element, or `"error"`. */
  readonly outcome: boolean | "error";
  /** This element decided the `any`/`all` (the first true one of `any`, the first false one of `all`). */
  readonly decided: boolean;
  /** The body, evaluated with this element bound. */
  readonly body: ExplainedClause;
}

/** `any X as x { … }`, `all X as x { … }`. */
export interface ExplainedCollection extends ExplainedBase {
  /** Always `"Collection"`. */
  readonly kind: "Collection";
  /** Which quantifier. */
  readonly quantifier: "Any" | "All";
  /** The selector as written. */
  readonly selector: string;
  /** What the selector found, when the clause was evaluated and the lookup did not fail. */
  readonly found?: Found;
  /** The elements visited, in order (the loop stops at the deciding one). */
  readonly elements: readonly ExplainedElement[];
  /** Elements visited but not recorded, past {@link MAX_EXPLAINED_CLAUSES}. */
  readonly omitted: number;
}

/** One clause of an {@link Explanation}. */
export type ExplainedClause = ExplainedGroup | ExplainedNot | ExplainedMatch | ExplainedCollection;

/** Why a value matches a filter or not: what {@link explain} returns. */
export interface Explanation {
  /** The filter explained. */
  readonly source: string;
  /** The filter accepts the value (false when the evaluation failed). */
  readonly matched: boolean;
  /** The evaluation error, when the filter fails on this value as `Filter.test` would throw it. */
  readonly error?: {
    /** The error's stable code (`missing_key`, `invalid_literal`…). */
    readonly code: EvaluationErrorCode;
    /** Its reason, as the reference words it. */
    readonly message: string;
    /** The clause it came from. */
    readonly span: Span;
  };
  /** The whole filter, clause by clause. */
  readonly root: ExplainedClause;
}

/**
 * Evaluates a filter on one value and tells why it matches or not: the truth of every clause
 * reached (and of the body for every element `any`/`all` visited), what each selector found or
 * that its key was missing, and which clauses decided. It runs the code `Filter.test` runs, so the
 * result is always `compileFilter(source, options).test(value)`; an evaluation error (a missing
 * top-level field, a literal that cannot convert) is reported with the clause it came from.
 *
 * @throws {@link FilterSyntaxError} when the filter is not valid (see `validate` for every problem).
 * @example
 * ```ts
 * const why = explain('Status == "running" and "dc1" in Datacenters', { Status: "running", Datacenters: ["dc2"] });
 * why.matched; // false
 * formatExplanation(why);
 * // no match: Status == "running" and "dc1" in Datacenters
 * // ✗ and
 * //   ✓ Status == "running"  (Status is "running")
 * //   ✗ "dc1" in Datacenters  (Datacenters is ["dc2"])  ← decided
 * ```
 */
export function explain(source: string, value: unknown, options: ExplainOptions = {}): Explanation {
  requireSource(source);
  const expression = parse(source, options.limits === undefined ? {} : { limits: options.limits });
  const recorder = new Recorder();
  const filter = compileExpression(expression, { schema: options.schema, limits: options.limits, source, trace: recorder });
  let matched = false;
  let error: Explanation["error"];
  try {
    matched = filter.test(value);
  } catch (thrown) {
    if (!(thrown instanceof FilterEvaluationError)) throw thrown;
    error = { code: thrown.code, message: thrown.reason, span: thrown.span };
  }
  // A filter whose fixed cost is over its budget fails before its first clause.
  const rootFrame = recorder.root ?? { node: expression, outcome: "error", attached: true, recording: true, children: [], elements: [], omitted: 0 };
  const root = finish(source, expression, rootFrame, error === undefined);
  return error === undefined ? { source, matched, root } : { source, matched, error, root };
}

/** A clause while the evaluation runs. */
interface Frame {
  readonly node: Expression;
  /** Set when the clause returns; a clause left by an error keeps `"error"`. */
  outcome: ClauseOutcome;
  /** The frame is in the tree (false past {@link MAX_EXPLAINED_CLAUSES}). */
  readonly attached: boolean;
  /** The clauses entered now are put in the tree (for a collection: the current element is recorded). */
  recording: boolean;
  /** Evaluated clauses, in order (for a group: its operands evaluated; for `not`: its operand). */
  readonly children: Frame[];
  found?: Found;
  readonly elements: ElementFrame[];
  omitted: number;
}

interface ElementFrame {
  readonly key: number | string;
  readonly value: unknown;
  outcome: boolean | "error";
  body?: Frame;
}

/** Builds the tree of frames from the evaluation's trace. */
class Recorder implements EvaluationTrace {
  /** The top-level clause's frame, once entered. */
  root: Frame | undefined;
  readonly #stack: Frame[] = [];
  #recorded = 0;

  enter(node: Expression): void {
    const parent = this.#stack.at(-1);
    const attached = parent === undefined || parent.recording;
    const frame: Frame = { node, outcome: "error", attached, recording: attached, children: [], elements: [], omitted: 0 };
    if (parent === undefined) this.root = frame;
    else if (attached) {
      if (parent.node.kind === "Collection") parent.elements.at(-1)!.body = frame;
      else parent.children.push(frame);
    }
    if (attached) this.#recorded++;
    this.#stack.push(frame);
  }

  found(_node: MatchExpression | CollectionExpression, value: unknown): void {
    this.#stack.at(-1)!.found = value === NOT_PRESENT ? { missing: true } : { value };
  }

  element(_node: CollectionExpression, key: number | string, value: unknown): void {
    const frame = this.#stack.at(-1)!;
    frame.recording = frame.attached && this.#recorded < MAX_EXPLAINED_CLAUSES;
    if (frame.recording) frame.elements.push({ key, value, outcome: "error" });
    else frame.omitted++;
  }

  exit(_node: Expression, result: boolean): void {
    const frame = this.#stack.pop()!;
    frame.outcome = result;
    const element = this.#stack.at(-1)?.elements.at(-1);
    if (element !== undefined && element.body === frame) element.outcome = result;
  }
}

/** The explained clause of `node`: from its frame when it was evaluated, else `"skipped"`. */
function finish(source: string, node: Expression, frame: Frame | undefined, decided: boolean): ExplainedClause {
  const base = { text: source.slice(node.span.start, node.span.end), span: node.span };
  const outcome: ClauseOutcome = frame === undefined ? "skipped" : frame.outcome;
  const isDecided = decided && typeof outcome === "boolean";
  switch (node.kind) {
    case "And":
    case "Or": {
      // `and` is decided by its first false operand, or by all when true; `or` the other way round.
      const stopsOn = node.kind === "Or";
      const evaluated = frame?.children ?? [];
      const operands = node.operands.map((operand, i) => {
        const child = evaluated[i];
        const deciding = isDecided && child !== undefined && (outcome === stopsOn ? i === evaluated.length - 1 : true);
        return finish(source, operand, child, deciding);
      });
      return { kind: node.kind, ...base, outcome, decided: isDecided, operands };
    }
    case "Not":
      return { kind: "Not", ...base, outcome, decided: isDecided, operand: finish(source, node.operand, frame?.children[0], isDecided) };
    case "Match":
      return {
        kind: "Match",
        ...base,
        outcome,
        decided: isDecided,
        operator: node.operator,
        selector: source.slice(node.selector.span.start, node.selector.span.end),
        ...(frame?.found === undefined ? {} : { found: frame.found }),
      };
    case "Collection": {
      // `any` is decided by its first true element, or by all when false; `all` the other way round.
      const stopsOn = node.quantifier === "Any";
      const visited = frame?.elements ?? [];
      const elements = visited.map((element, i): ExplainedElement => {
        const deciding = isDecided && (outcome === stopsOn ? i === visited.length - 1 : true);
        return {
          key: element.key,
          value: element.value,
          outcome: element.outcome,
          decided: deciding,
          body: finish(source, node.body, element.body, deciding),
        };
      });
      return {
        kind: "Collection",
        ...base,
        outcome,
        decided: isDecided,
        quantifier: node.quantifier,
        selector: source.slice(node.selector.span.start, node.selector.span.end),
        ...(frame?.found === undefined ? {} : { found: frame.found }),
        elements,
        omitted: frame?.omitted ?? 0,
      };
    }
    default:
      return unreachable(node);
  }
}

function unreachable(value: never): never {
  throw new TypeError(`not a filter expression: ${JSON.stringify(value)}`);
}

/** The longest preview of a value in {@link formatExplanation}, in characters; longer ones end in `…`. */
export const MAX_PREVIEW_LENGTH = 60;

/**
 * An explanation as an indented tree, one clause per line: `✓` true, `✗` false, `·` skipped, `!`
 * the error; each match with what its selector found, each `any`/`all` with the elements it visited,
 * and `← decided` on the clauses that decided the result. What `bexpr explain` prints.
 */
export function formatExplanation(explanation: Explanation): string {
  const lines = [
    explanation.error !== undefined
      ? `error [${explanation.error.code}]: ${explanation.error.message}`
      : `${explanation.matched ? "match" : "no match"}: ${explanation.source}`,
  ];
  const write = (clause: ExplainedClause, indent: string, label = ""): void => {
    const head = `${indent}${mark(clause.outcome)} ${label}`;
    const decided = clause.decided ? "  ← decided" : "";
    switch (clause.kind) {
      case "And":
      case "Or":
        lines.push(`${head}${clause.kind === "And" ? "and" : "or"}${decided}`);
        for (const operand of clause.operands) write(operand, `${indent}  `);
        return;
      case "Not":
        lines.push(`${head}not${decided}`);
        write(clause.operand, `${indent}  `);
        return;
      case "Match":
        lines.push(`${head}${oneLine(clause.text)}${foundText(clause.selector, clause.found)}${decided}`);
        return;
      case "Collection": {
        const count = clause.elements.length + clause.omitted;
        const visited = clause.outcome === "skipped" ? "" : `, ${count} element${count === 1 ? "" : "s"} visited`;
        lines.push(`${head}${clause.quantifier === "Any" ? "any" : "all"} ${oneLine(clause.selector)}${foundText(clause.selector, clause.found)}${visited}${decided}`);
        for (const element of clause.elements) write(element.body, `${indent}  `, `[${typeof element.key === "number" ? element.key : JSON.stringify(element.key)}] `);
        if (clause.omitted > 0) lines.push(`${indent}  … ${clause.omitted} more not shown`);
        return;
      }
      default:
        return unreachable(clause);
    }
  };
  write(explanation.root, "");
  return `${lines.join("\n")}\n`;
}

function mark(outcome: ClauseOutcome): string {
  return outcome === true ? "✓" : outcome === false ? "✗" : outcome === "skipped" ? "·" : "!";
}

function foundText(selector: string, found: Found | undefined): string {
  if (found === undefined) return "";
  return "missing" in found ? `  (${oneLine(selector)} is missing)` : `  (${oneLine(selector)} is ${preview(found.value, MAX_PREVIEW_LENGTH)})`;
}

/** A clause's text on one line (a filter may span lines). */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

/**
 * Compact JSON of a value, cut at `max` characters: it stops walking the value once it has
 * enough, so a preview of a huge value costs no more than a short one.
 */
export function preview(value: unknown, max: number): string {
  let out = "";
  const put = (text: string): boolean => {
    out += text;
    return out.length <= max;
  };
  const walk = (item: unknown): boolean => {
    if (item === null || item === undefined) return put("null");
    if (typeof item === "string") return put(JSON.stringify(item.length > max ? item.slice(0, max + 1) : item));
    if (typeof item === "number" || typeof item === "boolean" || typeof item === "bigint") return put(String(item));
    if (Array.isArray(item)) {
      if (!put("[")) return false;
      for (let i = 0; i < item.length; i++) if ((i > 0 && !put(",")) || !walk(item[i])) return false;
      return put("]");
    }
    if (typeof item === "object") {
      if (!put("{")) return false;
      let first = true;
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        if ((!first && !put(",")) || !put(`${JSON.stringify(key.length > max ? key.slice(0, max + 1) : key)}:`) || !walk((item as Record<string, unknown>)[key])) return false;
        first = false;
      }
      return put("}");
    }
    return put(String(item));
  };
  return walk(value) ? out : `${out.slice(0, max - 1)}…`;
}
