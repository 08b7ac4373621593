/**
 * The expressions of a jobspec that `@cdktf/hcl2json` leaves as text (`"${var.image}"`), evaluated
 * as the reference's `jobspec2` evaluates the ones jobspec users write:
 *
 * - `var.<name>` and `local.<name>` (with `.field` and `[n]` after them) are the variable's value;
 *   alone in a string they keep its type (`count = var.n` is a number);
 * - any other reference (`${attr.kernel.name}`, `${NOMAD_ALLOC_ID}`, `${node.unique.id}`,
 *   `${meta.x}`) is kept verbatim, as `jobspec2`'s `UndefinedVariable` keeps it for the client to
 *   interpolate at run time;
 * - `$${` and `%%{` are the escapes of `${` and `%{`;
 * - everything else (functions, arithmetic, conditionals, `for` expressions, `%{ }` directives)
 *   is a {@link JobspecError} naming the expression and where it is.
 *
 * @module
 */
import { Refusal } from "../base/errors.js";

/** Why a jobspec was refused: a stable code, the reason, and where in the HCL when known. */
export type JobspecErrorCode = "syntax" | "unsupported_expression" | "invalid_value" | "unexpected_field" | "missing_job" | "variable" | "too_large";

/** A jobspec that cannot be decoded; the HTTP layer answers it 400 with `Failed to parse job: ` before its message. */
export class JobspecError extends Refusal {

  constructor(
    readonly code: JobspecErrorCode,
    message: string,
  ) {
    super("invalid", message);
  }
}

/**
 * The most characters the evaluation of a jobspec's expressions may produce (strings built by
 * interpolation, and the JSON size of list and map values put in place of a reference). A local
 * that doubles another (`a = "${local.b}${local.b}"`) thirty times over would otherwise build a
 * gigabyte from a few lines.
 */
export const MAX_JOBSPEC_EXPANSION = 4 * 1024 * 1024;

/** A declared variable or a local, and the value it has. */
export type Scope = {
  readonly var: ReadonlyMap<string, unknown>;
  /** A local's value, evaluated the first time it is read. */
  readonly local: (name: string) => unknown;
};

/** Where a piece of text (or a pattern's first match) is in the HCL, as `input.hcl:3,5`, or "" when it is not found. */
export type Locate = (text: string | RegExp) => string;

/** A reference the jobspec leaves for run time, or a variable's: a root and a path of `.name` and `[n]` steps. */
const TRAVERSAL = /^([A-Za-z_][\w-]*)((?:\.[A-Za-z_][\w-]*|\.\d+|\[\d+\]|\["[^"\\]*"\])*)$/;
const STEP = /\.([A-Za-z_][\w-]*|\d+)|\[(\d+)\]|\["([^"\\]*)"\]/g;

/** The budget of characters an evaluation may still produce; shared by a whole jobspec. */
export class ExpansionBudget {
  private left = MAX_JOBSPEC_EXPANSION;

  /** Takes `count` characters from the budget; a {@link JobspecError} when it is spent. */
  charge(count: number): void {
    this.left -= count;
    if (this.left < 0) throw new JobspecError("too_large", `the job's expressions expand to more than ${MAX_JOBSPEC_EXPANSION} characters`);
  }
}

/** Follows `.name` and `[n]` steps into a value; a {@link JobspecError} when one is missing. */
function follow(value: unknown, path: string, expression: string, where: (text: string) => string): unknown {
  let current = value;
  for (const step of path.matchAll(STEP)) {
    const key = step[1] ?? step[2] ?? step[3] ?? "";
    const next = current !== null && typeof current === "object" ? (current as Record<string, unknown>)[key] : undefined;
    if (next === undefined || !Object.hasOwn(current as object, key)) {
      throw new JobspecError("invalid_value", `${where(expression)}Unsupported attribute; ${JSON.stringify(expression)} refers to ${JSON.stringify(key)}, which the value does not have.`);
    }
    current = next;
  }
  return current;
}

/** Where the expression is, as `input.hcl:3,5: ` (the prefix of the reference's diagnostics), or "" when not found. */
function at(locate: Locate, text: string): string {
  const where = locate(text);
  return where === "" ? "" : `${where}: `;
}

/**
 * The value of one `${…}` expression (its inner text): a variable's value, the text kept verbatim
 * for run time, or a {@link JobspecError}.
 */
function evaluateExpression(inner: string, whole: string, scope: Scope, locate: Locate): unknown {
  const expression = inner.trim();
  // HCL allows spaces around a traversal's dots and brackets (`${ root. field[ "a"] }`).
  const traversal = TRAVERSAL.exec(expression.replace(/\s*([.[\]])\s*/g, "$1"));
  if (traversal === null) {
    throw new JobspecError(
      "unsupported_expression",
      `${at(locate, whole) || at(locate, expression)}Unsupported expression; the agent evaluates var.<name> and local.<name> references and keeps run-time references such as \${attr.kernel.name}; ${JSON.stringify(expression)} is not one of them (functions, operators, conditionals and for expressions are not evaluated).`,
    );
  }
  const [, root, path = ""] = traversal;
  if (root === "var" || root === "local") {
    const first = /^\.([A-Za-z_][\w-]*)/.exec(path);
    if (first === null) throw new JobspecError("unsupported_expression", `${at(locate, whole)}Unsupported expression; ${JSON.stringify(whole)} must name a ${root === "var" ? "variable" : "local"}.`);
    const name = first[1]!;
    let value: unknown;
    if (root === "var") {
      if (!scope.var.has(name)) {
        throw new JobspecError("variable", `${at(locate, whole)}Unsupported attribute; This object does not have an attribute named ${JSON.stringify(name)}.`);
      }
      value = scope.var.get(name);
    } else {
      value = scope.local(name);
    }
    return follow(value, path.slice(first[0].length), expression, (text) => at(locate, text));
  }
  // A reference the client interpolates when it runs the task: kept as it was written.
  return whole;
}

/** The position of the `}` that closes the `${` at `start` (quotes and nested braces skipped), or -1. */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = start + 2; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === "{") depth++;
    else if (char === "}") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Text as the value hcl2json gave it: its `${…}` parts evaluated, its escapes undone. */
export function evaluateTemplate(text: string, scope: Scope, locate: Locate, budget: ExpansionBudget): unknown {
  if (!text.includes("${") && !text.includes("%{")) return text;
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("$${", i) || text.startsWith("%%{", i)) {
      out += `${text[i]}{`;
      i += 3;
    } else if (text.startsWith("%{", i)) {
      const end = closingBrace(text, i);
      const directive = text.slice(i, end === -1 ? undefined : end + 1);
      throw new JobspecError("unsupported_expression", `${at(locate, directive)}Unsupported expression; template directives (${JSON.stringify(directive)}) are not evaluated by the agent.`);
    } else if (text.startsWith("${", i)) {
      const end = closingBrace(text, i);
      if (end === -1) return text;
      const whole = text.slice(i, end + 1);
      const value = evaluateExpression(text.slice(i + 2, end), whole, scope, locate);
      // Alone in the string, the expression keeps its value's type (a number, a list).
      if (i === 0 && end === text.length - 1) {
        if (typeof value !== "string") budget.charge(JSON.stringify(value ?? null).length);
        else budget.charge(value.length);
        return value;
      }
      if (value !== null && typeof value === "object") {
        throw new JobspecError("invalid_value", `${at(locate, whole)}Invalid template interpolation value; Cannot include the given value in a string template: string required.`);
      }
      const piece = String(value);
      budget.charge(piece.length);
      out += piece;
      i = end + 1;
    } else {
      const next = text.slice(i + 1).search(/[$%]\{|[$%][$%]\{/);
      const stop = next === -1 ? text.length : i + 1 + next;
      out += text.slice(i, stop);
      i = stop;
    }
  }
  budget.charge(out.length);
  return out;
}

/** A value of hcl2json's output with every string in it evaluated by {@link evaluateTemplate}. */
export function evaluateValue(value: unknown, scope: Scope, locate: Locate, budget: ExpansionBudget, depth: number): unknown {
  if (depth > MAX_DECODING_DEPTH) throw new JobspecError("too_large", `the job nests deeper than ${MAX_JOBSPEC_DEPTH} levels of brackets`);
  if (typeof value === "string") return evaluateTemplate(value, scope, locate, budget);
  if (Array.isArray(value)) return value.map((each) => evaluateValue(each, scope, locate, budget, depth + 1));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, evaluateValue(each, scope, locate, budget, depth + 1)]));
  }
  return value;
}

/**
 * The deepest nesting of brackets (`{`, `[`, `(`, counted in the text, strings and comments
 * included) a jobspec may have. Real jobs nest about ten deep (job, group, task, service, check,
 * header, an interpolation); the HCL parser recurses once a level: 500 nested lists held it
 * 3 s, 2,000 overflowed its stack, and 15,000 nested blocks crashed its Go runtime for good
 * (`fatal error: malloc deadlock`), so the text is measured before it is parsed.
 */
export const MAX_JOBSPEC_DEPTH = 32;

/**
 * The decoding's own bound on its recursion: a block is two levels of hcl2json's output (a list
 * of bodies, a body), so text within {@link MAX_JOBSPEC_DEPTH} never reaches it; a defence in depth.
 */
export const MAX_DECODING_DEPTH = 2 * MAX_JOBSPEC_DEPTH + 8;

/** Refuses text whose brackets nest deeper than {@link MAX_JOBSPEC_DEPTH}, in one pass, before any parser sees it. */
export function checkNesting(text: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // { [ (
    if (code === 0x7b || code === 0x5b || code === 0x28) {
      if (++depth > MAX_JOBSPEC_DEPTH) throw new JobspecError("too_large", `the job nests deeper than ${MAX_JOBSPEC_DEPTH} levels of brackets`);
    } else if ((code === 0x7d || code === 0x5d || code === 0x29) && depth > 0) depth--;
  }
}
