/**
 * Compiles a filter to JavaScript source, run through `new Function`: one function per filter, so
 * that V8 optimises each filter on its own, and its `test` and `filter` are the filter's own
 * functions rather than shared ones whose call sites every filter of the process goes through.
 *
 * The source holds the filter's structure (`&&`, `||`, `!`), the loops of `any`/`all` with their
 * bodies, and, for the common clauses, the lookup of a path of object keys (from the root or from
 * a binding) and the comparison of a string, a number or a boolean: the same fast paths as the
 * closures of `compile.ts`, falling back to the same general code. Nothing from
 * the filter's text is ever written into the source: keys, literals and patterns are passed in as
 * data and read from arrays by index.
 *
 * Where `new Function` is forbidden (a Content-Security-Policy without `unsafe-eval`), or with the
 * option `codegen: false`, filters evaluate with the closures alone; the tests run every semantics
 * table on both.
 *
 * @module
 */
import type { CollectionExpression, Expression, MatchExpression } from "../ast.js";
import { FilterEvaluationError } from "../errors.js";
import { costExceeded, costExceededReason, KEY_LIST_COST, patternCost, textCost } from "./cost.js";
import type { Literal } from "./literal.js";
import type { Pattern } from "./regex.js";
import { MAP_LOOP, NOT_PRESENT, type PathStart, type PlainPath, type Site } from "./resolve.js";
import type { ValueType } from "./schema.js";

/** A predicate over one root value, with the environment of collection bindings and the budget. */
export type Predicate = (root: unknown, env: unknown[]) => boolean;

/**
 * A match clause whose fast path can be written as source: its path of object keys from the root
 * and the comparison its literal allows, with the closures it falls back to.
 */
export interface FastClause {
  readonly test: "equal" | "in" | "matches";
  readonly negated: boolean;
  /** Where the path starts (the root or a binding), its keys, and whether an absent key holds its zero value (null). */
  readonly start: PathStart;
  readonly keys: readonly string[];
  readonly absentIsZero: readonly boolean[];
  /** The literal, read as an integer or a boolean only when the code is written. */
  readonly literal: Literal;
  readonly pattern: Pattern | undefined;
  /** `in` may search a list of strings element by element (untyped lists, lists of strings). */
  readonly stringLists: boolean;
  /** The clause from the root with every rule: for anything off the fast path. */
  readonly general: Predicate;
  /** Everything after the lookup, for a value the fast path does not handle. */
  readonly decide: (value: unknown, env: unknown[]) => boolean;
  readonly site: Site;
}

/**
 * An `any`/`all` whose loop can be written as source: the same steps as its closure in
 * `compile.ts` (the container looked up, told a list from a map, each element's cost charged and
 * its binding set in the slots before the body runs), the body written inline.
 */
export interface CollectionPlan {
  readonly isAll: boolean;
  /** The container's lookup, and its path of object keys when it has one (looked up inline). */
  readonly resolve: (root: unknown, env: unknown[]) => unknown;
  readonly plainPath: PlainPath | undefined;
  /** The container's type under a schema; undefined for decoded JSON (arrays are lists, objects maps). */
  readonly typeOf: ((value: unknown) => ValueType) | undefined;
  readonly valueSlot: number;
  readonly keySlot: number;
  /** The slot marking a loop over a map, when a binding reads it (`as x` over untyped data). */
  readonly loopSlot: number | undefined;
  /** Units charged per list element and per map entry (its visit and the body's fixed cost). */
  readonly perElement: number;
  readonly perEntry: number;
  readonly site: Site;
}

/** What the generated functions need of the compiled filter. */
export interface CodegenInput {
  readonly expression: Expression;
  /** The fast clauses, by node. */
  readonly fast: ReadonlyMap<MatchExpression, FastClause>;
  /** The compiled predicate of every clause (for those without a fast path or a plan, and the errors of those with one). */
  readonly clauses: ReadonlyMap<Expression, Predicate>;
  /** The collections whose loops are written out, by node. */
  readonly collections: ReadonlyMap<CollectionExpression, CollectionPlan>;
  /** Whether evaluations are metered (the environment holds the budget in slot 0, the reason in slot 1). */
  readonly metered: boolean;
  /** The budget an evaluation starts with once its fixed cost is charged. */
  readonly startBudget: number;
  readonly reason: string;
  /** The cost charged before every evaluation (the clauses outside collections), and the most one evaluation may spend. */
  readonly fixedCost: number;
  readonly maxCost: number;
  /** The filter's own `cost_exceeded` error with `reason`: a shared budget cannot pay an evaluation's fixed cost. */
  readonly exceeded: (reason: string) => FilterEvaluationError;
}

/** The entry points of one filter, made for its `Filter` object. */
export interface Entry {
  readonly predicate: Predicate;
  readonly test: (value: unknown, budget?: unknown) => boolean;
  readonly filter: (values: unknown, budget?: unknown) => unknown[];
}

/** The shared environment of a metered filter, and the slow paths the generated code hands over to. */
export interface EntryRuntime {
  readonly env: { readonly slots: unknown[]; busy: boolean };
  readonly slowTest: (value: unknown, budget: unknown) => boolean;
  readonly slowFilter: (values: unknown, budget: unknown) => unknown[];
}

/** Builds the entry points of one filter from its runtime. */
export type EntryFactory = (runtime: EntryRuntime) => Entry;

/**
 * Evaluations a filter runs on its closures before its code is generated: writing and compiling
 * the source costs about what 200 evaluations of a medium filter do, which a filter evaluated a few
 * times never pays back. A `filter()` over a list at least this long generates it first.
 */
export const TIER_UP_EVALUATIONS = 500;

/**
 * Filters with more clauses are evaluated with closures: their source would take longer to
 * generate and for V8 to compile than the closures do, and they are rare.
 */
export const MAX_CODEGEN_CLAUSES = 256;

/**
 * Paths with more keys are looked up by the closures: a function that long would stay in V8's
 * interpreter (a 2,000-key path ran 9 times slower written out than walked by the closures).
 */
export const MAX_INLINE_KEYS = 16;

let available: boolean | undefined;

/** Whether `new Function` may be used here (a Content-Security-Policy may forbid it). */
export function codegenAvailable(): boolean {
  if (available === undefined) {
    try {
      available = new Function("return true")() === true;
    } catch {
      available = false;
    }
  }
  return available;
}

/** Throws `cost_exceeded` for clause `index` once its charge took the budget below zero. */
function overBudget(sites: readonly Site[]) {
  return (env: unknown[], index: number): never => {
    const site = sites[index]!;
    throw costExceeded(env[1] as string, site.span, site.source);
  };
}

function atIndex(error: unknown, index: number): unknown {
  return error instanceof FilterEvaluationError ? error.atIndex(index) : error;
}

/**
 * The maker of a filter's generated code; undefined when the filter has too many clauses or
 * `new Function` is not available. The source is written and compiled on the first call (see
 * {@link TIER_UP_EVALUATIONS}), and its result kept for the filters made with `parts` again.
 */
export function generateEntry(input: CodegenInput, clauseCount: number): EntryFactory | undefined {
  if (clauseCount > MAX_CODEGEN_CLAUSES || !codegenAvailable()) return undefined;
  let compiled: { readonly factory: (data: GeneratedData, runtime: EntryRuntime) => Entry; readonly data: GeneratedData } | undefined;
  return (runtime) => {
    if (compiled === undefined) {
      const writer = new SourceWriter(input);
      const expression = writer.expression(input.expression);
      const closures = writer.closures(input.expression);
      const source = [
        '"use strict";',
        ...writer.functions,
        // The written clauses read the root's keys without checking it is an object: the predicate checks it once.
        `const predicate = function predicate(root, env) { return typeof root === "object" && root !== null && !Array.isArray(root) ? ${expression} : ${closures}; };`,
        writer.entries(),
      ].join("\n");
      compiled = { factory: new Function("data", "runtime", source) as (data: GeneratedData, runtime: EntryRuntime) => Entry, data: writer.data };
    }
    return compiled.factory(compiled.data, runtime);
  };
}

/** Everything the generated source reads, by index. */
interface GeneratedData {
  /** Per fast clause: its keys. */
  readonly keys: (readonly string[])[];
  /** Per fast clause: its literal text, integer, boolean and pattern. */
  readonly raws: string[];
  readonly ints: (number | undefined)[];
  readonly bools: (boolean | undefined)[];
  readonly patterns: (Pattern | undefined)[];
  readonly generals: Predicate[];
  readonly decides: ((value: unknown, env: unknown[]) => boolean)[];
  /** The predicates of the clauses without a fast path. */
  readonly closures: Predicate[];
  /** Per collection: its container's lookup, keys and type. */
  readonly targets: ((root: unknown, env: unknown[]) => unknown)[];
  readonly targetKeys: (readonly string[])[];
  readonly types: (((value: unknown) => ValueType) | undefined)[];
  readonly notPresent: typeof NOT_PRESENT;
  readonly over: (env: unknown[], index: number) => never;
  /** Throws `cost_exceeded` at collection `index`. */
  readonly overLoop: (env: unknown[], index: number) => never;
  readonly textCost: (length: number) => number;
  readonly patternCost: (size: number, length: number) => number;
  readonly atIndex: (error: unknown, index: number) => unknown;
  readonly startBudget: number;
  readonly reason: string;
  readonly fixedCost: number;
  readonly maxCost: number;
  readonly exceeded: (reason: string) => FilterEvaluationError;
  readonly sharedReason: (limit: number, shared: boolean) => string;
}

class SourceWriter {
  readonly functions: string[] = [];
  readonly data: GeneratedData;
  readonly #input: CodegenInput;
  readonly #sites: Site[] = [];
  readonly #loopSites: Site[] = [];
  readonly #closureIndexes = new Map<Expression, number>();

  constructor(input: CodegenInput) {
    this.#input = input;
    this.data = {
      keys: [],
      raws: [],
      ints: [],
      bools: [],
      patterns: [],
      generals: [],
      decides: [],
      closures: [],
      targets: [],
      targetKeys: [],
      types: [],
      notPresent: NOT_PRESENT,
      over: overBudget(this.#sites),
      overLoop: overBudget(this.#loopSites),
      textCost,
      patternCost,
      atIndex,
      startBudget: input.startBudget,
      reason: input.reason,
      fixedCost: input.fixedCost,
      maxCost: input.maxCost,
      exceeded: input.exceeded,
      sharedReason: costExceededReason,
    };
    this.functions.push(
      "const { keys: K, raws: R, ints: I, bools: B, patterns: P, generals: G, decides: D, closures: C, targets: T, targetKeys: TK, types: Y, notPresent: NP, over: OVER, overLoop: OVERLOOP, textCost: TEXT, patternCost: PATTERN, atIndex: AT, startBudget: START, reason: REASON, fixedCost: FIXED, maxCost: MAX, exceeded: EXCEEDED, sharedReason: SHARED_REASON } = data;",
    );
  }

  /** The source of an expression over `root` and `env`: its clauses written out where they can be. */
  expression(node: Expression): string {
    return this.#structure(node, (clause) => {
      if (clause.kind === "Match") {
        const fast = this.#input.fast.get(clause);
        if (fast !== undefined && fast.keys.length <= MAX_INLINE_KEYS) return `m${this.#clause(fast)}(root, env)`;
      } else {
        const plan = this.#input.collections.get(clause);
        if (plan !== undefined && (plan.plainPath?.keys.length ?? 0) <= MAX_INLINE_KEYS) return `a${this.#collection(clause, plan)}(root, env)`;
      }
      return this.#closure(clause);
    });
  }

  /** The source of an expression whose clauses are all their closures: for a root that is not a plain object. */
  closures(node: Expression): string {
    return this.#structure(node, (clause) => this.#closure(clause));
  }

  /** The filter's structure (`||`, `&&`, `!`) as source, each clause written by `clause`. */
  #structure(node: Expression, clause: (node: MatchExpression | CollectionExpression) => string): string {
    switch (node.kind) {
      case "Or":
        return `(${node.operands.map((operand) => this.#structure(operand, clause)).join(" || ")})`;
      case "And":
        return `(${node.operands.map((operand) => this.#structure(operand, clause)).join(" && ")})`;
      case "Not":
        return `!${this.#structure(node.operand, clause)}`;
      case "Match":
      case "Collection":
        return clause(node);
    }
  }

  /** The source of the first value of a fast clause's path, into `v`; a return to `general` where it is not the one its closure would take. */
  #start(start: PathStart, keyCount: number, general: string): string {
    switch (start.from) {
      case "root":
        return "let v = root;";
      case "element":
      case "key":
        return `let v = env[${start.slot}];`;
      case "auto":
        // A path past the key of a map is an error: the general code reports it.
        if (keyCount > 0) return `if (env[${start.loopSlot}] === ${MAP_LOOP}) ${general} let v = env[${start.valueSlot}];`;
        return `let v = env[${start.loopSlot}] === ${MAP_LOOP} ? env[${start.keySlot}] : env[${start.valueSlot}];`;
    }
  }

  /**
   * The lines that walk a path of object keys from `v` (`k<prefix>_<j>` the keys), as `specialise`
   * in `resolve.ts` does: `fallback` on anything but a present value in a plain object.
   */
  #walk(prefix: string, absentIsZero: readonly boolean[], fallback: string, fromRoot: boolean): string[] {
    const lines: string[] = ["let w;"];
    absentIsZero.forEach((zero, j) => {
      // The root is a plain object: the predicate checked it (see generateEntry).
      if (!(fromRoot && j === 0)) lines.push(`if (typeof v !== "object" || v === null || Array.isArray(v)) ${fallback}`);
      lines.push(
        `w = v[k${prefix}_${j}];`,
        `if (w === undefined) { ${zero ? "v = null;" : fallback} }`,
        `else if (typeof w === "function") ${fallback}`,
        "else v = w;",
      );
    });
    return lines;
  }

  /** Writes the function of an `any`/`all`, its body inline; its index. */
  #collection(node: CollectionExpression, plan: CollectionPlan): number {
    const data = this.data;
    const i = data.targets.length;
    data.targets.push(plan.resolve);
    data.types.push(plan.typeOf);
    const closure = this.#closure(node);
    this.#loopSites.push(plan.site);
    const plain = plan.plainPath?.start.from === "root" ? plan.plainPath : undefined;
    data.targetKeys.push(plain?.keys ?? []);
    const constants = [`const t${i} = T[${i}], y${i} = Y[${i}];`];
    plain?.keys.forEach((_key, j) => constants.push(`const kt${i}_${j} = TK[${i}][${j}];`));
    this.functions.push(constants.join("\n"));
    const body = this.expression(node.body);
    const { isAll, valueSlot, keySlot, loopSlot } = plan;
    const lookup = `x = t${i}(root, env);`;
    const lines = [`function a${i}(root, env) {`, "let x;"];
    if (plain === undefined) {
      lines.push(lookup);
    } else {
      // The container's path of object keys, read inline; the closure's lookup for anything else.
      lines.push("x: {", "let v = root;", ...this.#walk(`t${i}`, plain.absentIsZero, `{ ${lookup} break x; }`, true), "x = v;", "}");
    }
    // A missing key under an existing map: `all` holds vacuously, `any` finds nothing.
    lines.push(`if (x === NP) return ${isAll};`);
    const spend = (units: string) => `if ((env[0] -= ${units}) < 0) OVERLOOP(env, ${i});`;
    const visit = `if (${isAll ? "!" : ""}${body}) return ${!isAll};`;
    const list = [
      "for (let i = 0; i < list.length; i++) {",
      spend(String(plan.perElement)),
      `env[${valueSlot}] = list[i]; env[${keySlot}] = i;${loopSlot === undefined ? "" : ` env[${loopSlot}] = 0;`}`,
      visit,
      "}",
      `return ${isAll};`,
    ];
    const map = [
      "const keys = Object.keys(map);",
      spend(`keys.length * ${KEY_LIST_COST}`),
      "for (let i = 0; i < keys.length; i++) {",
      "const key = keys[i];",
      spend(String(plan.perEntry)),
      `env[${valueSlot}] = map[key]; env[${keySlot}] = key;${loopSlot === undefined ? "" : ` env[${loopSlot}] = ${MAP_LOOP};`}`,
      visit,
      "}",
      `return ${isAll};`,
    ];
    if (plan.typeOf === undefined) {
      // Decoded JSON: arrays are lists, other objects maps; anything else is not a collection.
      lines.push("if (Array.isArray(x)) {", "const list = x;", ...list, "}");
      lines.push('if (typeof x === "object" && x !== null) {', "const map = x;", ...map, "}");
    } else {
      // Under a schema, a nil list or map is an empty one.
      lines.push(`const kind = y${i}(x).kind;`);
      lines.push('if (kind === "slice") {', "const list = x ?? [];", ...list, "}");
      lines.push('if (kind === "map") {', "const map = x ?? {};", ...map, "}");
    }
    // Not a list or a map: the closure reports it.
    lines.push(`return ${closure};`, "}");
    this.functions.push(lines.join("\n"));
    return i;
  }

  /** A call of a clause's compiled predicate; each predicate is passed once, however many places call it. */
  #closure(node: Expression): string {
    let index = this.#closureIndexes.get(node);
    if (index === undefined) {
      const predicate = this.#input.clauses.get(node);
      if (predicate === undefined) throw new Error("a clause was not compiled");
      index = this.data.closures.push(predicate) - 1;
      this.#closureIndexes.set(node, index);
    }
    return `C[${index}](root, env)`;
  }

  /** Writes the function of a fast clause; its index. */
  #clause(clause: FastClause): number {
    const data = this.data;
    const i = data.keys.length;
    data.keys.push(clause.keys);
    const { literal } = clause;
    // For ==: the literal as an integer (`safe` is undefined beyond 2^53, where no safe integer equals it) and as a boolean.
    const int = clause.test === "equal" && literal.int.ok ? literal.int.value : undefined;
    const bool = clause.test === "equal" && literal.bool.ok ? literal.bool.value : undefined;
    data.raws.push(literal.raw);
    data.ints.push(int?.safe);
    data.bools.push(bool);
    data.patterns.push(clause.pattern);
    data.generals.push(clause.general);
    data.decides.push(clause.decide);
    this.#sites.push(clause.site);
    // The clause's data as constants of the filter's scope (names made of indexes only), read
    // faster than through the arrays.
    const constants = [`const r${i} = R[${i}], n${i} = I[${i}], b${i} = B[${i}], p${i} = P[${i}], g${i} = G[${i}], d${i} = D[${i}];`];
    clause.keys.forEach((_key, j) => constants.push(`const k${i}_${j} = K[${i}][${j}];`));
    this.functions.push(constants.join("\n"));
    const general = `return g${i}(root, env);`;
    const lines = [`function m${i}(root, env) {`, this.#start(clause.start, clause.keys.length, general), ...this.#walk(String(i), clause.absentIsZero, general, clause.start.from === "root")];
    const is = clause.negated ? "!==" : "===";
    const spend = (units: string) => `if ((env[0] -= ${units}) < 0) OVER(env, ${i});`;
    switch (clause.test) {
      case "equal":
        lines.push(`if (typeof v === "string") return v ${is} r${i};`);
        if (int !== undefined) lines.push(`if (typeof v === "number" && Number.isSafeInteger(v)) return v ${is} n${i};`);
        if (bool !== undefined) lines.push(`if (typeof v === "boolean") return v ${is} b${i};`);
        break;
      case "in":
        lines.push(`if (typeof v === "string") { ${spend("TEXT(v.length)")} return v.includes(r${i}) ${is} true; }`);
        if (clause.stringLists) {
          lines.push(
            "if (Array.isArray(v)) {",
            "for (let k = 0; k < v.length; k++) {",
            "const e = v[k];",
            `if (typeof e !== "string") return d${i}(v, env);`,
            `if (e === r${i}) { ${spend("v.length")} return ${!clause.negated}; }`,
            "}",
            `${spend("v.length")} return ${clause.negated};`,
            "}",
          );
        }
        break;
      case "matches":
        lines.push(`if (typeof v === "string") { ${spend(`PATTERN(${clause.pattern?.size ?? 0}, v.length)`)} return p${i}.test(v) ${is} true; }`);
        break;
    }
    lines.push(`return d${i}(v, env);`, "}");
    this.functions.push(lines.join("\n"));
    return i;
  }

  /** `test` and `filter`: the common cases inline, the others handed to the `Filter`'s own methods. */
  entries(): string {
    const { metered } = this.#input;
    const oneTest = metered
      ? `if (budget === undefined && !shared.busy) {
           shared.busy = true;
           const env = shared.slots;
           env[0] = START; env[1] = REASON;
           try { return predicate(value, env); } finally { shared.busy = false; }
         }`
      : "if (budget === undefined) return predicate(value, NB);";
    const manyTests = metered
      ? `if (Array.isArray(values) && !shared.busy) {
           shared.busy = true;
           const env = shared.slots;
           const accepted = [];
           let i = 0;
           try {
             for (; i < values.length; i++) {
               const value = values[i];
               env[0] = START; env[1] = REASON;
               if (predicate(value, env)) accepted.push(value);
             }
           } catch (error) { throw AT(error, i); } finally { shared.busy = false; }
           return accepted;
         }`
      : `if (Array.isArray(values)) {
           const accepted = [];
           let i = 0;
           try {
             for (; i < values.length; i++) {
               const value = values[i];
               if (predicate(value, NB)) accepted.push(value);
             }
           } catch (error) { throw AT(error, i); }
           return accepted;
         }`;
    // With a shared budget (a request's), each value is charged as `Filter`'s own #evaluate charges
    // it, in the same order and with the same arithmetic, but in this filter's own loop (which V8
    // optimises with the predicate inlined) rather than through the shared slow path, whose call of
    // a new filter's predicate stays in the interpreter; the units left are kept in a local and
    // written back once (nothing else reads the budget meanwhile).
    const budgetedTests = metered
      ? `if (Array.isArray(values) && !shared.busy) {
           shared.busy = true;
           const env = shared.slots;
           const accepted = [];
           let i = 0;
           let left = budget.remaining;
           let sharedReason;
           try {
             for (; i < values.length; i++) {
               const value = values[i];
               const own = !(left < MAX);
               const limit = own ? MAX : left;
               const reason = own ? REASON : (sharedReason ??= SHARED_REASON(budget.limit, true));
               if (limit < FIXED) { left -= FIXED; throw EXCEEDED(reason); }
               env[0] = limit - FIXED; env[1] = reason;
               let ok;
               try { ok = predicate(value, env); } finally { left -= limit - env[0]; }
               if (ok) accepted.push(value);
             }
           } catch (error) { throw AT(error, i); } finally { shared.busy = false; budget.settle(left); }
           return accepted;
         }`
      : `if (Array.isArray(values)) {
           const accepted = [];
           let i = 0;
           let left = budget.remaining;
           try {
             for (; i < values.length; i++) {
               const value = values[i];
               if (left < FIXED) throw EXCEEDED(SHARED_REASON(budget.limit, true));
               left -= FIXED;
               if (predicate(value, NB)) accepted.push(value);
             }
           } catch (error) { throw AT(error, i); } finally { budget.settle(left); }
           return accepted;
         }`;
    // An unmetered filter has no bindings: its environment is the shared empty one.
    return `const shared = runtime.env;
const NB = shared.slots;
const slowTest = runtime.slowTest;
const slowFilter = runtime.slowFilter;
return {
  predicate,
  test: function test(value, budget) { ${oneTest} return slowTest(value, budget); },
  filter: function filter(values, budget) {
    if (budget === undefined) { ${manyTests} }
    else { ${budgetedTests} }
    return slowFilter(values, budget);
  },
};`;
  }
}
