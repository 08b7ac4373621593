/**
 * Compiles an AST into a tree of closures, once: literals are pre-coerced to every kind, regular
 * expressions compiled, selectors planned against the schema, and each clause specialised for its
 * operator. Evaluating an object then only walks paths and compares.
 *
 * Evaluation is metered (see `cost.ts`): a filter whose cost depends on the data (collections,
 * `in`, `matches`) keeps its remaining budget in slot {@link BUDGET_SLOT} of the evaluation's
 * environment and charges it as it goes; the fixed cost of the other clauses is charged once.
 *
 * This module never parses: it takes an {@link Expression}.
 *
 * @module
 */
import { operator, spellingOf, type Test, type ValueKind as OperatorValueKind } from "../operators.js";
import type { CollectionExpression, Expression, MatchExpression, Selector, Span } from "../ast.js";
import { forEachClause } from "../ast-walk.js";
import { createDiagnostic, FilterEvaluationError, FilterSyntaxError, replaceFix, type Diagnostic } from "../errors.js";
import { DEFAULT_LIMITS, resolveLimits, type Limits } from "../limits.js";
import { goQuote } from "../go/strings.js";
import { suggestName } from "../suggest.js";
import { CostBudget, costExceeded, costExceededReason, fixedCost, KEY_LIST_COST, MAP_ENTRY_COST, patternCost, textCost, worstCaseCost, type ValueSizes } from "./cost.js";
import { createLiteral, equalsInteger, type Literal } from "./literal.js";
import { generateEntry, TIER_UP_EVALUATIONS, type CollectionPlan, type EntryFactory, type FastClause, type Predicate } from "./codegen.js";
import { explainConversion, OPERATORS, testEmpty, testEqual, testIn, testMatches, testNil } from "./operators.js";
import { compilePattern, dfaBytesFor, patternBudget, type Pattern, type PatternBudget } from "./regex.js";
import {
  compileSelector,
  fail,
  MAP_LOOP,
  NOT_PRESENT,
  selectorText,
  type Binding,
  type CompiledSelector,
  type Site,
} from "./resolve.js";
import { jsonTypeOf, viewOf, type FieldSchema, type ValueType } from "./schema.js";

/** Options of {@link compileExpression}. */
export interface EvaluatorOptions {
  /**
   * The schema of the evaluated objects. With one, evaluation follows the reference's typed
   * structs (absent fields are zero values, nil lists and maps are empty, …); without, it
   * follows decoded JSON.
   */
  readonly schema?: FieldSchema;
  /**
   * With a schema: reject selectors that name fields the schema lacks when compiling, instead of
   * failing on each object evaluated as the reference does.
   */
  readonly strict?: boolean;
  /** The source the expression's spans point into, for error excerpts. */
  readonly source?: string;
  /** Overrides of the limits; the compiler applies `maxPatternSize` and `maxCost`. */
  readonly limits?: Partial<Limits>;
  /**
   * Compile the filter to JavaScript with `new Function` (the default where the environment
   * allows it), or `false` to evaluate with closures only: for pages whose Content-Security-Policy
   * forbids `unsafe-eval` (detected by itself), or to compare the two. Both give the same results.
   */
  readonly codegen?: boolean;
  /** @internal Disable the fast paths, so tests can compare them with the general code. */
  readonly generalOnly?: boolean;
  /** @internal Evaluations before the code is generated (default {@link TIER_UP_EVALUATIONS}); 0 generates it at once, for tests. */
  readonly tierUpAfter?: number;
  /** @internal Build the closures when compiling rather than on first use, so tests can compare the two. */
  readonly eager?: boolean;
  /** @internal Receives the warnings found while compiling (`validate`); errors are thrown. */
  readonly warnings?: Diagnostic[];
  /** @internal Records each clause evaluated, for `explain`; the filter then runs its general code only. */
  readonly trace?: EvaluationTrace;
}

/**
 * Told of every step of an evaluation, in order, by a filter compiled with a `trace` (`explain`).
 * A clause that throws gets no `exit`: the error passes through the clauses still entered.
 */
export interface EvaluationTrace {
  /** A clause is evaluated. */
  enter(node: Expression): void;
  /** A match or collection clause's selector found `value` ({@link NOT_PRESENT}: a missing key). */
  found(node: MatchExpression | CollectionExpression, value: unknown): void;
  /** An `any`/`all` is at the element `value` of key or index `key`; its body is evaluated next. */
  element(node: CollectionExpression, key: number | string, value: unknown): void;
  /** The clause entered last is `result`. */
  exit(node: Expression, result: boolean): void;
}


const NO_BINDINGS: unknown[] = [];

/** Slot of a metered evaluation's environment holding the units left. */
export const BUDGET_SLOT = 0;
/** Slot holding the reason of the `cost_exceeded` error, should the budget run out. */
const REASON_SLOT = 1;
/** Slots reserved for metering before the collection bindings. */
const METER_SLOTS = 2;

/** The parts of a compiled filter (the constructor's argument). */
interface FilterParts {
  readonly expression: Expression;
  readonly predicate: Predicate;
  readonly slots: number;
  readonly metered: boolean;
  readonly fixedCost: number;
  readonly maxCost: number;
  readonly patternSizes: ReadonlyMap<MatchExpression, number>;
  readonly source: string | undefined;
  readonly memoryEstimate: number;
  /** The filter compiled to JavaScript, when it was (see `codegen.ts`). */
  readonly entry: EntryFactory | undefined;
  /** Evaluations before the generated code takes over. */
  readonly tierUpAfter: number;
  /** The reason of the `cost_exceeded` error when the filter's own budget runs out. */
  readonly reason: string;
}

/**
 * A filter compiled up to what can fail: parsed, its patterns compiled. The closures are built on
 * its first use (see {@link compileExpression}).
 */
interface PendingParts {
  readonly expression: Expression;
  readonly source: string | undefined;
  readonly maxCost: number;
  /** Whether generated code may take over: evaluations are counted from the start. */
  readonly counted: boolean;
  readonly build: () => FilterParts;
}

/**
 * A compiled filter: immutable, reusable, and safe to share. Create one with `compileFilter`.
 *
 * @typeParam T - the type of the values it is applied to.
 */
export class Filter<T = unknown> {
  // Its own name once bundled (scripts/bundle.mjs renames a class that names itself inside).
  static {
    Object.defineProperty(this, "name", { value: "Filter" });
  }

  readonly #source: string | undefined;
  readonly #expression: Expression;
  readonly #maxCost: number;
  // The fields below are set once, by #adopt: in the constructor, or on first use (#pending).
  #fixedCost!: number;
  #memoryEstimate!: number;

  /** The source the filter was compiled from, when known. */
  get source(): string | undefined {
    return this.#source;
  }

  /** The AST the filter was compiled from. */
  get expression(): Expression {
    return this.#expression;
  }

  /** The budget of one evaluation, in cost units (see {@link Limits.maxCost}). */
  get maxCost(): number {
    return this.#maxCost;
  }

  /** The cost every evaluation is charged before it starts: the clauses outside collections. */
  get fixedCost(): number {
    if (this.#pending !== undefined) this.#materialise();
    return this.#fixedCost;
  }

  /**
   * An estimate of the bytes the compiled filter holds, or may come to hold (its patterns' DFA
   * memory grows with use, to a bounded share): for caches of compiled filters bounded by memory.
   */
  get memoryEstimate(): number {
    if (this.#pending !== undefined) this.#materialise();
    return this.#memoryEstimate;
  }

  /** The closures' predicate, then the generated one once the filter has tiered up. */
  #predicate!: Predicate;
  #entry: EntryFactory | undefined;
  #slots!: number;
  #metered!: boolean;
  #reason!: string;
  /** What is left of the budget once the fixed cost is charged. */
  #startBudget!: number;
  #patternSizes!: ReadonlyMap<MatchExpression, number>;
  /** The environment of collection bindings, reused between evaluations that do not overlap. */
  #env!: { readonly slots: unknown[]; busy: boolean };
  /** Builds the closures, until the first use does (then undefined). */
  #pending: (() => FilterParts) | undefined;

  /** What `test` and `filter` run: closures that count evaluations, then the generated code (see #tierUp). */
  #test!: (value: T, budget?: CostBudget) => boolean;
  #filter!: <U extends T>(values: Iterable<U>, budget?: CostBudget) => U[];

  /** @hidden Use `compileFilter`. */
  constructor(parts: FilterParts | PendingParts) {
    this.#expression = parts.expression;
    this.#source = parts.source;
    this.#maxCost = parts.maxCost;
    let tierUpAfter: number | undefined;
    if ("build" in parts) {
      this.#pending = parts.build;
      tierUpAfter = parts.counted ? TIER_UP_EVALUATIONS : undefined;
    } else {
      this.#adopt(parts);
      tierUpAfter = parts.entry === undefined ? undefined : parts.tierUpAfter;
    }
    if (tierUpAfter === undefined) {
      this.#useClosures();
    } else if (tierUpAfter <= 0) {
      this.#tierUp();
    } else {
      let remaining = tierUpAfter;
      this.#test = (value, budget) => {
        if (--remaining === 0) this.#tierUp();
        return this.#testClosures(value, budget);
      };
      this.#filter = (values, budget) => {
        if (Array.isArray(values) && (remaining -= values.length) <= 0 && remaining + values.length > 0) return this.#tierUp().#filter(values, budget);
        return this.#filterClosures(values, budget);
      };
    }
    // Its fields are read-only (getters), and nothing can be added. Preventing extensions costs a
    // fraction of defining read-only own properties (about 500 ns for test and filter, most of
    // the time compiling a one-clause filter took), hence the getters below.
    Object.preventExtensions(this);
  }

  /** Takes the compiled parts. */
  #adopt(parts: FilterParts): void {
    this.#fixedCost = parts.fixedCost;
    this.#memoryEstimate = parts.memoryEstimate;
    this.#slots = parts.slots;
    this.#metered = parts.metered;
    this.#reason = parts.reason;
    this.#startBudget = parts.maxCost - parts.fixedCost;
    this.#patternSizes = parts.patternSizes;
    this.#env = { slots: parts.slots === 0 ? NO_BINDINGS : new Array<unknown>(parts.slots), busy: false };
    this.#entry = parts.entry;
    this.#predicate = parts.predicate;
  }

  /** The closures for good: no code is generated for this filter. */
  #useClosures(): void {
    this.#test = (value, budget) => this.#testClosures(value, budget);
    this.#filter = (values, budget) => this.#filterClosures(values, budget);
  }

  /**
   * Builds the closures of a filter compiled without them, on its first use. When no code can be
   * generated after all (too many clauses, a fixed cost over the budget, no `new Function`), the
   * closures stop counting evaluations.
   */
  #materialise(): void {
    const build = this.#pending;
    if (build === undefined) return;
    this.#adopt(build());
    this.#pending = undefined;
    if (this.#entry === undefined) this.#useClosures();
  }

  /**
   * Replaces test and filter with the filter's generated code: the common cases inline, the rest
   * through the closures. Each filter's own functions, so that a caller's loop calls this
   * filter's own code, which V8 optimises for it alone.
   */
  #tierUp(): this {
    this.#materialise();
    // (#materialise went back to the closures when there is no code to generate.)
    if (this.#entry === undefined) return this;
    const entry = this.#entry({
      env: this.#env,
      slowTest: (value, budget) => this.#testClosures(value as T, budget as CostBudget | undefined),
      slowFilter: (values, budget) => this.#filterClosures(values as Iterable<T>, budget as CostBudget | undefined),
    });
    this.#predicate = entry.predicate;
    this.#test = entry.test as Filter<T>["test"];
    this.#filter = entry.filter as Filter<T>["filter"];
    return this;
  }

  /**
   * The environment of one evaluation: the shared one, marked busy, or a fresh one if it is in use
   * (a value's getter evaluating this filter again). Give it back with {@link Filter.#release}.
   */
  #acquire(): unknown[] {
    const shared = this.#env;
    if (this.#slots === 0) return NO_BINDINGS;
    if (shared.busy) return this.#metered ? [0, this.#reason] : new Array<unknown>(this.#slots);
    shared.busy = true;
    return shared.slots;
  }

  #release(env: unknown[]): void {
    if (env === this.#env.slots) this.#env.busy = false;
  }

  /**
   * One evaluation with its budget: the filter's own, or what is left of a shared one if that is
   * less. Returns the result; the units spent are charged to `budget`.
   */
  #evaluate(value: unknown, env: unknown[], budget: CostBudget | undefined): boolean {
    const fixed = this.fixedCost;
    if (!this.#metered) {
      if (budget !== undefined) {
        if (budget.remaining < fixed) throw costExceeded(costExceededReason(budget.limit, true), this.expression.span, this.source);
        budget.charge(fixed);
      }
      return this.#predicate(value, env);
    }
    if (budget === undefined) {
      env[BUDGET_SLOT] = this.maxCost - fixed;
      env[REASON_SLOT] = this.#reason;
      return this.#predicate(value, env);
    }
    const shared = budget.remaining < this.maxCost;
    const limit = shared ? budget.remaining : this.maxCost;
    const reason = shared ? costExceededReason(budget.limit, true) : this.#reason;
    if (limit < fixed) {
      budget.charge(fixed);
      throw costExceeded(reason, this.expression.span, this.source);
    }
    env[BUDGET_SLOT] = limit - fixed;
    env[REASON_SLOT] = reason;
    try {
      return this.#predicate(value, env);
    } finally {
      budget.charge(limit - (env[BUDGET_SLOT] as number));
    }
  }

  /**
   * `test(value, budget?)` evaluates the filter on one value. `budget` is a budget shared with
   * other evaluations (a request's), charged with this one's cost.
   *
   * It throws a {@link FilterEvaluationError} where the reference reports an error for this value
   * (a missing top-level field, a literal that cannot be coerced, an operator the value's kind
   * does not support…), and `cost_exceeded` when the evaluation would spend more than its budget.
   * (A getter, not a method: each filter's `test` is its own function, generated for it once it
   * has been used enough.)
   */
  get test(): (value: T, budget?: CostBudget) => boolean {
    return this.#test;
  }

  /** {@link Filter.test} on the closures. */
  #testClosures(value: T, budget?: CostBudget): boolean {
    if (this.#pending !== undefined) this.#materialise();
    if (budget === undefined) {
      if (this.#slots === 0) return this.#predicate(value, NO_BINDINGS);
      // The common case, kept short: the shared environment, the filter's own budget.
      const shared = this.#env;
      if (!shared.busy) {
        shared.busy = true;
        const env = shared.slots;
        env[BUDGET_SLOT] = this.#startBudget;
        env[REASON_SLOT] = this.#reason;
        try {
          return this.#predicate(value, env);
        } finally {
          shared.busy = false;
        }
      }
    }
    const env = this.#acquire();
    try {
      return this.#evaluate(value, env, budget);
    } finally {
      this.#release(env);
    }
  }

  /**
   * `filter(values, budget?)` gives the values the filter accepts, in their order. `budget` is a
   * budget shared by all the evaluations (each value also has the filter's own).
   *
   * It throws a {@link FilterEvaluationError} for the first value that fails, with its `index`; as
   * in the reference, one failing value fails the whole list.
   */
  get filter(): <U extends T>(values: Iterable<U>, budget?: CostBudget) => U[] {
    return this.#filter;
  }

  /** {@link Filter.filter} on the closures. */
  #filterClosures<U extends T>(values: Iterable<U>, budget?: CostBudget): U[] {
    if (this.#pending !== undefined) this.#materialise();
    const predicate = this.#predicate;
    if (this.#slots === 0 && budget === undefined && Array.isArray(values)) return filterArray(values, predicate);
    const env = this.#acquire();
    const accepted: U[] = [];
    let index = 0;
    try {
      for (const value of values) {
        if (this.#evaluate(value, env, budget)) accepted.push(value);
        index++;
      }
    } catch (error) {
      throw error instanceof FilterEvaluationError ? error.atIndex(index) : error;
    } finally {
      this.#release(env);
    }
    return accepted;
  }

  /**
   * The cost units evaluating `value` charges, whatever the budget: to see what real filters cost
   * on real data, and choose a budget from it.
   *
   * @throws {@link FilterEvaluationError} as {@link Filter.test} does (except `cost_exceeded`).
   */
  cost(value: T): number {
    const budget = new CostBudget(Number.MAX_SAFE_INTEGER);
    const unbounded = new Filter<T>({ ...this.#parts(), maxCost: Number.MAX_SAFE_INTEGER, reason: ownBudgetReason(Number.MAX_SAFE_INTEGER) });
    unbounded.test(value, budget);
    return budget.spent;
  }

  /**
   * The most cost units one evaluation can charge on a value whose lists and maps hold at most
   * `sizes.length` elements and whose strings hold at most `sizes.textLength` characters: the
   * filter's worst case as a function of the sizes it meets.
   *
   * @example
   * ```ts
   * compileFilter('any Datacenters as d { d == "dc1" }').worstCaseCost({ length: 3, textLength: 10 }); // 2 + 3 × 3 = 11
   * ```
   */
  worstCaseCost(sizes: ValueSizes): number {
    if (this.#pending !== undefined) this.#materialise();
    return worstCaseCost(this.expression, sizes, (node) => this.#patternSizes.get(node) ?? 0);
  }

  #parts(): FilterParts {
    this.#materialise();
    return {
      expression: this.expression,
      predicate: this.#predicate,
      slots: this.#slots,
      metered: this.#metered,
      fixedCost: this.fixedCost,
      maxCost: this.maxCost,
      patternSizes: this.#patternSizes,
      source: this.source,
      memoryEstimate: this.memoryEstimate,
      entry: this.#entry,
      tierUpAfter: TIER_UP_EVALUATIONS,
      reason: this.#reason,
    };
  }
}

/** The common case of {@link Filter.filter}: an array, no collection bindings, no meter. */
function filterArray<U>(values: readonly U[], predicate: Predicate): U[] {
  const accepted: U[] = [];
  let index = 0;
  try {
    for (; index < values.length; index++) {
      const value = values[index]!;
      if (predicate(value, NO_BINDINGS)) accepted.push(value);
    }
  } catch (error) {
    throw error instanceof FilterEvaluationError ? error.atIndex(index) : error;
  }
  return accepted;
}

/** Charges `units` to the evaluation's budget; throws `cost_exceeded` when it runs out. */
function spend(env: unknown[], units: number, site: Site): void {
  const remaining = (env[BUDGET_SLOT] as number) - units;
  env[BUDGET_SLOT] = remaining;
  if (remaining < 0) throw costExceeded(env[REASON_SLOT] as string, site.span, site.source);
}

/** What the compiler needs to know of a tree before compiling it. */
interface Survey {
  /** Evaluating it costs more than its fixed cost on some data (collections, `in`, `matches`, `is empty`): it is metered. */
  readonly metered: boolean;
  /** Match and collection clauses. */
  readonly clauses: number;
  /** Selector segments, in all. */
  readonly segments: number;
}

function survey(expression: Expression): Survey {
  let metered = false;
  let clauses = 0;
  let segments = 0;
  forEachClause(expression, (clause) => {
    clauses++;
    segments += clause.selector.path.length;
    // Equality and nil tests cost the same whatever the data; the others are metered.
    if (clause.kind === "Collection" || !UNMETERED_TESTS.has(operator(clause.operator).test)) metered = true;
  });
  return { metered, clauses, segments };
}

/**
 * Bytes a compiled filter holds, measured on Node 20 (`npm run bench`): about 3 KB per clause
 * (closures, literals coerced to every kind), 64 per selector segment, and for each compiled
 * pattern about 16 KB, 160 per instruction and its share of DFA memory.
 */
const BYTES_PER_CLAUSE = 3_000;
const BYTES_PER_SEGMENT = 64;
const BYTES_PER_PATTERN = 16_384;
const BYTES_PER_INSTRUCTION = 160;

/** State shared while compiling one expression. */
interface CompileContext {
  readonly options: EvaluatorOptions;
  readonly diagnostics: Diagnostic[];
  slots: number;
  /** The filter's patterns by their text, each compiled once. */
  readonly patterns: Map<string, Pattern>;
  /** What is left of {@link Limits.maxPatternSize}, and of the compiling it allows. */
  readonly patternBudget: PatternBudget;
  /** The pattern size of each `matches` clause, for the worst-case cost. */
  readonly patternSizes: Map<MatchExpression, number>;
  /** For code generation: the clauses whose fast path it writes out, and the compiled predicate of every clause. */
  readonly fast: Map<MatchExpression, FastClause>;
  readonly clauses: Map<Expression, Predicate>;
  /** For code generation: what the loop of each `any`/`all` needs. */
  readonly collections: Map<CollectionExpression, CollectionPlan>;
}

/**
 * Compiles an AST into a {@link Filter}.
 *
 * What can fail is done here: the patterns are compiled (an invalid one is an error), and in
 * strict typed mode every selector is checked. Building the closures cannot fail, and costs more
 * than parsing (2–4× on the bench's filters): for the common options it waits for the filter's
 * first use, so a filter compiled and dropped (a request refused, a filter typed once and
 * checked) never pays for it. With a trace, warnings to collect or strict checks, it is done at once.
 *
 * @throws {@link FilterSyntaxError} when a `matches` pattern is not valid RE2, or, in strict
 * typed mode, when a selector names a field the schema lacks.
 */
export function compileExpression<T = unknown>(expression: Expression, options: EvaluatorOptions = {}): Filter<T> {
  const limits = resolveLimits(options.limits);
  const eager = options.eager === true || options.strict === true || options.trace !== undefined || options.warnings !== undefined || options.tierUpAfter !== undefined;
  if (eager) return new Filter<T>(buildParts(expression, createContext(options, limits), limits));
  // A filter without patterns has nothing that can fail left: its context waits too.
  const context = compilePatterns(expression, options, limits, undefined);
  if (context !== undefined) throwErrors(context);
  return new Filter<T>({
    expression,
    source: options.source,
    maxCost: limits.maxCost,
    counted: options.codegen !== false,
    build: () => buildParts(expression, context ?? createContext(options, limits), limits),
  });
}

function createContext(options: EvaluatorOptions, limits: Limits): CompileContext {
  return {
    options,
    diagnostics: [],
    slots: 0,
    patterns: new Map(),
    patternBudget: patternBudget(limits.maxPatternSize),
    patternSizes: new Map(),
    fast: new Map(),
    clauses: new Map(),
    collections: new Map(),
  };
}

/**
 * Compiles the patterns of every `matches` clause, in the order {@link compileNode} meets them
 * (which decides the one that exhausts the pattern budget), into `context.patterns`, where the
 * closures find them later. Returns the context, made at the first pattern (undefined if none).
 */
function compilePatterns(node: Expression, options: EvaluatorOptions, limits: Limits, context: CompileContext | undefined): CompileContext | undefined {
  switch (node.kind) {
    case "Or":
    case "And":
      for (const operand of node.operands) context = compilePatterns(operand, options, limits, context);
      return context;
    case "Not":
      return compilePatterns(node.operand, options, limits, context);
    case "Collection":
      return compilePatterns(node.body, options, limits, context);
    case "Match":
      if ("value" in node && OPERATORS[node.operator].test === "matches") {
        context ??= createContext(options, limits);
        compileMatchPattern(node.value.raw, node, context);
      }
      return context;
    default:
      return unreachable(node);
  }
}

/** Throws the errors found while compiling, all at once; hands the warnings to the caller. */
function throwErrors(context: CompileContext): void {
  const { diagnostics, options } = context;
  if (diagnostics.length === 0) return;
  diagnostics.sort((a, b) => a.span.start - b.span.start);
  if (diagnostics.some((diagnostic) => diagnostic.severity === "error")) throw new FilterSyntaxError(options.source, diagnostics);
  options.warnings?.push(...diagnostics);
  diagnostics.length = 0;
}

/** The closures of `expression`, its costs and its generated code to come: what a {@link Filter} runs. */
function buildParts(expression: Expression, context: CompileContext, limits: Limits): FilterParts {
  const { options } = context;
  const { metered, clauses, segments } = survey(expression);
  context.slots = metered ? METER_SLOTS : 0;
  const compiled = compileNode(expression, [], context);
  throwErrors(context);
  const fixed = fixedCost(expression);
  const reason = ownBudgetReason(limits.maxCost);
  // A filter whose fixed cost alone is over its budget can only fail.
  const predicate: Predicate =
    fixed > limits.maxCost
      ? () => {
          throw costExceeded(reason, expression.span, options.source);
        }
      : compiled;
  let memoryEstimate = 2 * (options.source?.length ?? 0) + BYTES_PER_CLAUSE * clauses + BYTES_PER_SEGMENT * segments;
  for (const pattern of context.patterns.values()) {
    if (pattern.size > 0) memoryEstimate += BYTES_PER_PATTERN + BYTES_PER_INSTRUCTION * pattern.size + dfaBytesFor(pattern.size);
  }
  const entry =
    options.codegen === false || options.trace !== undefined || fixed > limits.maxCost
      ? undefined
      : generateEntry(
          {
            expression,
            fast: context.fast,
            clauses: context.clauses,
            collections: context.collections,
            metered,
            startBudget: limits.maxCost - fixed,
            reason,
            fixedCost: fixed,
            maxCost: limits.maxCost,
            exceeded: (reason) => costExceeded(reason, expression.span, options.source),
          },
          clauses,
        );
  return {
    expression,
    predicate,
    slots: context.slots,
    metered,
    fixedCost: fixed,
    maxCost: limits.maxCost,
    patternSizes: context.patternSizes,
    source: options.source,
    memoryEstimate,
    entry,
    tierUpAfter: options.tierUpAfter ?? TIER_UP_EVALUATIONS,
    reason,
  };
}

/** The reason of the default budget running out, written once rather than for every filter compiled. */
const DEFAULT_BUDGET_REASON = costExceededReason(DEFAULT_LIMITS.maxCost, false);

/** The reason of the `cost_exceeded` error of a filter's own budget of `maxCost` units. */
function ownBudgetReason(maxCost: number): string {
  return maxCost === DEFAULT_LIMITS.maxCost ? DEFAULT_BUDGET_REASON : costExceededReason(maxCost, false);
}

function compileNode(node: Expression, scope: readonly Binding[], context: CompileContext): Predicate {
  const predicate = compileUntraced(node, scope, context);
  const trace = context.options.trace;
  if (trace === undefined) return predicate;
  return (root, env) => {
    trace.enter(node);
    const result = predicate(root, env);
    trace.exit(node, result);
    return result;
  };
}

function compileUntraced(node: Expression, scope: readonly Binding[], context: CompileContext): Predicate {
  switch (node.kind) {
    case "Or":
      return anyOf(node.operands.map((operand) => compileNode(operand, scope, context)));
    case "And":
      return allOf(node.operands.map((operand) => compileNode(operand, scope, context)));
    case "Not": {
      const operand = compileNode(node.operand, scope, context);
      return (root, env) => !operand(root, env);
    }
    case "Match": {
      const predicate = compileMatch(node, scope, context);
      context.clauses.set(node, predicate);
      return predicate;
    }
    case "Collection": {
      const predicate = compileCollection(node, scope, context);
      context.clauses.set(node, predicate);
      return predicate;
    }
    default:
      return unreachable(node);
  }
}

/** Left to right, stopping at the first true operand; errors propagate as they occur. */
function anyOf(operands: Predicate[]): Predicate {
  const [a, b, c] = operands;
  if (operands.length === 2) return (root, env) => a!(root, env) || b!(root, env);
  if (operands.length === 3) return (root, env) => a!(root, env) || b!(root, env) || c!(root, env);
  return (root, env) => {
    for (const operand of operands) if (operand(root, env)) return true;
    return false;
  };
}

/** Left to right, stopping at the first false operand; errors propagate as they occur. */
function allOf(operands: Predicate[]): Predicate {
  const [a, b, c] = operands;
  if (operands.length === 2) return (root, env) => a!(root, env) && b!(root, env);
  if (operands.length === 3) return (root, env) => a!(root, env) && b!(root, env) && c!(root, env);
  return (root, env) => {
    for (const operand of operands) if (!operand(root, env)) return false;
    return true;
  };
}

function siteOf(node: MatchExpression | CollectionExpression, context: CompileContext): Site {
  return new ClauseSite(node, context.options.source);
}

/** A clause's {@link Site}: its selector's text is only written for an error message, so only then. */
class ClauseSite implements Site {
  readonly span: Span;
  readonly #selector: Selector;

  constructor(
    node: MatchExpression | CollectionExpression,
    readonly source: string | undefined,
  ) {
    this.span = node.span;
    this.#selector = node.selector;
  }

  get selectorText(): string {
    return selectorText(this.#selector);
  }
}

function compileTarget(selector: Selector, scope: readonly Binding[], site: Site, context: CompileContext): CompiledSelector {
  const { schema, strict } = context.options;
  return compileSelector(selector, scope, schema, site, strict && schema !== undefined ? reportUnknownField(context) : undefined);
}

function reportUnknownField(context: CompileContext) {
  return (selector: Selector, segmentIndex: number, known: readonly string[], what: "field" | "key"): void => {
    const name = selector.path[segmentIndex]!;
    const nearest = suggestName(name, known);
    const parent = segmentIndex === 0 ? "the object" : `"${selector.path.slice(0, segmentIndex).join(".")}"`;
    const source = context.options.source;
    // The fix renames the field where the selector is written plainly (`Meta.Stauts`), its segments at known places.
    const plain = source !== undefined && source.slice(selector.span.start, selector.span.end) === selector.path.join(".");
    const at = selector.span.start + selector.path.slice(0, segmentIndex).reduce((length, segment) => length + segment.length + 1, 0);
    const fixes = nearest !== undefined && plain && /^[A-Za-z_][A-Za-z0-9_]*$/.test(nearest) ? [replaceFix(`replace "${name}" with "${nearest}"`, { start: at, end: at + name.length }, nearest)] : undefined;
    const suggestion = nearest === undefined ? undefined : `did you mean "${nearest}"?`;
    context.diagnostics.push(
      what === "field"
        ? createDiagnostic(source, "unknown_field", `${parent} has no field "${name}"`, selector.span, suggestion, "error", fixes)
        : // The map may hold keys its schema does not list: a warning, and the filter still compiles.
          createDiagnostic(source, "unknown_key", `"${name}" is not one of the keys the schema lists for ${parent}`, selector.span, suggestion, "warning", fixes),
    );
  };
}

/** One match clause: look the value up, then apply the operator's rule for the value's kind. */
function compileMatch(node: MatchExpression, scope: readonly Binding[], context: CompileContext): Predicate {
  const rule = OPERATORS[node.operator];
  const site = siteOf(node, context);
  const { resolve, schema, typeOf: untypedTypeOf = jsonTypeOf, plainPath } = compileTarget(node.selector, scope, site, context);
  const literal = "value" in node ? createLiteral(node.value.raw) : undefined;
  const pattern = rule.test === "matches" && literal !== undefined ? compileMatchPattern(literal.raw, node, context) : undefined;
  if (pattern !== undefined) context.patternSizes.set(node, pattern.size);

  const positive = positiveTest(rule.test, literal, pattern, site);
  const { negated, missing } = rule;
  if (context.options.strict && literal !== undefined && rule.test === "equal") checkLiteral(node, schema, literal, site, context);
  if (context.options.strict) checkOperatorKind(node, schema, site, context);
  const view = schema === undefined ? undefined : viewOf(schema);
  const typeOf: (value: unknown) => ValueType = view === undefined ? untypedTypeOf : view.typeOf;
  const zero = view === undefined ? undefined : view.zero;
  const dataCost = dataCostOf(rule.test, pattern);

  /** Everything after the lookup; the fast paths below fall back to it. */
  const decide = (value: unknown, env: unknown[]): boolean => {
    if (value === NOT_PRESENT) return missing;
    const present = zero !== undefined && (value === null || value === undefined) ? zero : value;
    if (dataCost !== undefined) spend(env, dataCost(present), site);
    return positive(typeOf(present), present, env) !== negated;
  };
  const trace = context.options.trace;
  if (trace !== undefined) {
    return (root, env) => {
      const value = resolve(root, env);
      trace.found(node, value === NOT_PRESENT || zero === undefined || (value !== null && value !== undefined) ? value : zero);
      return decide(value, env);
    };
  }
  const general: Predicate = (root, env) => decide(resolve(root, env), env);
  // Literals with raw bytes are compared byte-wise by the general code only.
  if (context.options.generalOnly || literal === undefined || literal.bytes !== undefined) return general;
  // A time field holds strings the reference sees as structs, and uint and float fields coerce
  // literals differently from the int rule the fast paths use; those always take the general path.
  if (schema === "time" || schema === "uint" || schema === "float") return general;
  // Only untyped lists (and typed lists of strings) compare their string elements as strings.
  const items = typeof schema === "object" && schema.kind === "array" ? schema.items : undefined;
  const stringLists = items === undefined || items === "string" || items === "any";
  const fast = specialiseMatch(rule.test, negated, literal, pattern, stringLists, resolve, decide, site);
  if (fast === undefined) return general;
  if (plainPath !== undefined && (rule.test === "equal" || rule.test === "in" || rule.test === "matches")) {
    // The same fast path, for the generated code to write out.
    context.fast.set(node, {
      test: rule.test,
      negated,
      ...plainPath,
      literal,
      pattern,
      stringLists,
      general,
      decide,
      site,
    });
  }
  return fast;
}

/**
 * Strict typed mode: a value compared with a number or bool field must convert to its kind, or
 * every object reaching the clause fails (the reference's `strconv` error); reported when compiling.
 */
function checkLiteral(node: MatchExpression, schema: FieldSchema | undefined, literal: Literal, site: Site, context: CompileContext): void {
  const parsed = schema === "int" ? literal.int : schema === "uint" ? literal.uint : schema === "float" ? literal.float : schema === "bool" ? literal.bool : undefined;
  if (parsed === undefined || parsed.ok) return;
  const kinds = { int: "integers", uint: "unsigned integers", float: "numbers", bool: "true or false" } as const;
  const span = "value" in node ? node.value.span : node.span;
  context.diagnostics.push(
    createDiagnostic(
      context.options.source,
      "invalid_literal",
      `${site.selectorText} holds ${kinds[schema as keyof typeof kinds]}, and ${JSON.stringify(literal.raw)} never converts to one: every object would fail here (${parsed.error})`,
      span,
      parsed.error.endsWith("value out of range") ? "the value is beyond what the field can hold" : explainConversion(parsed.error, site.selectorText)?.replace(/^.*?: /, ""),
    ),
  );
}

/** The kind of value the operators meet at a field of `schema` (undefined where the schema does not say). */
function kindOfSchema(schema: FieldSchema | undefined): OperatorValueKind | undefined {
  if (schema === undefined || schema === "any" || schema === "time") return undefined;
  if (schema === "string") return "string";
  if (schema === "int" || schema === "uint" || schema === "float") return "number";
  if (schema === "bool") return "bool";
  return schema.kind === "array" ? "list" : "map";
}

/**
 * Strict typed mode: an operator that never applies to its field's kind (`matches` on an integer,
 * `contains` on a bool) fails every object that reaches it, as the reference does; reported when
 * compiling, with `==` as the fix where the value converts to the field's kind.
 */
function checkOperatorKind(node: MatchExpression, schema: FieldSchema | undefined, site: Site, context: CompileContext): void {
  const kind = kindOfSchema(schema);
  const definition = operator(node.operator);
  if (kind === undefined || definition.kinds.includes(kind)) return;
  const source = context.options.source;
  const words = { number: "numbers", bool: "true or false", string: "text", list: "a list", map: "a map", null: "null" } as const;
  // `Priority contains "5"`: the comparison was meant; offered when the value converts.
  const literal = "value" in node ? createLiteral(node.value.raw) : undefined;
  const converts = literal !== undefined && (kind === "bool" ? literal.bool.ok : schema === "float" ? literal.float.ok : literal.int.ok);
  const at = source === undefined ? undefined : operatorSpan(source, node);
  const written = at === undefined ? spellingOf(node.operator, "in").text : source!.slice(at.start, at.end);
  const comparison = definition.negated ? "!=" : "==";
  const fixes = converts && at !== undefined ? [replaceFix(`compare with "${comparison}"`, at, comparison)] : undefined;
  context.diagnostics.push(
    createDiagnostic(source, "unsupported_operand", `${site.selectorText} holds ${words[kind]}, which "${written}" does not apply to: every object would fail here`, node.span, converts ? `compare with "${comparison}"` : undefined, "error", fixes),
  );
}

/** Where the operator's words are in a selector-first clause (`Priority matches "5"`), found between the selector and the value. */
function operatorSpan(source: string, node: MatchExpression): Span | undefined {
  if (!("value" in node) || node.selector.span.end > node.value.span.start) return undefined;
  const between = source.slice(node.selector.span.end, node.value.span.start);
  const words = /\S(.*\S)?/.exec(between);
  if (words === null) return undefined;
  const start = node.selector.span.end + words.index;
  return { start, end: start + words[0].length };
}

/** The tests whose cost does not depend on the data they meet. */
const UNMETERED_TESTS: ReadonlySet<Test> = new Set<Test>(["equal", "nil"]);

/** What the data costs an operator beyond its clause (see `cost.ts`): lists and texts searched, patterns run. */
function dataCostOf(test: Test, pattern: Pattern | undefined): ((value: unknown) => number) | undefined {
  switch (test) {
    case "in":
      return (value) => (typeof value === "string" ? textCost(value.length) : Array.isArray(value) ? value.length : 0);
    case "matches": {
      const size = pattern!.size;
      return (value) => (typeof value === "string" ? patternCost(size, value.length) : 0);
    }
    default:
      return undefined;
  }
}

/** A `matches` clause's pattern: compiled once per filter, within what is left of the pattern budget. */
function compileMatchPattern(raw: string, node: MatchExpression, context: CompileContext): Pattern {
  const known = context.patterns.get(raw);
  if (known !== undefined) return known;
  const compiled = compilePattern(raw, context.patternBudget);
  if (compiled.ok) {
    context.patterns.set(raw, compiled.pattern);
    return compiled.pattern;
  }
  const span = "value" in node ? node.value.span : node.span;
  context.diagnostics.push(
    compiled.tooLarge
      ? createDiagnostic(
          context.options.source,
          "pattern_too_large",
          compiled.reason,
          span,
          "simplify the pattern: a counted repetition such as .{1000} compiles to that many instructions",
        )
      : createDiagnostic(
          context.options.source,
          "invalid_regex",
          `failed to compile regular expression ${goQuote(raw)}: ${compiled.reason}`,
          span,
          "patterns use Go's regexp (RE2) syntax: no lookaround or backreferences; backtick strings avoid double escaping",
        ),
  );
  return { size: 0, test: () => false };
}

type PositiveTest = (type: ValueType, value: unknown, env: unknown[]) => boolean;

function positiveTest(test: Test, literal: Literal | undefined, pattern: Pattern | undefined, site: Site): PositiveTest {
  switch (test) {
    case "equal":
      return (type, value) => testEqual(type, value, literal!, site);
    case "in":
      return (type, value) => testIn(type, value, literal!, site);
    case "empty":
      return (type, value, env) => {
        if (type.kind !== "map" || value === null) return testEmpty(type, value, site);
        // Whether a map has keys is only known by listing them: counted once, and paid for.
        const keys = Object.keys(value as object).length;
        spend(env, keys * KEY_LIST_COST, site);
        return testEmpty(type, value, site, keys);
      };
    case "nil":
      return (type, value) => testNil(type, value, site);
    case "matches":
      return (type, value) => testMatches(type, value, pattern!, site);
    default:
      return unreachable(test);
  }
}

/**
 * Fast paths for the common cases: a string met by `==`, `in` or `matches`, an integer or a
 * boolean met by `==`, a list of strings met by `in`. Each returns exactly what
 * {@link testEqual} and friends return for that value; anything else goes through `decide`.
 */
function specialiseMatch(
  test: string,
  negated: boolean,
  literal: Literal,
  pattern: Pattern | undefined,
  stringLists: boolean,
  resolve: (root: unknown, env: unknown[]) => unknown,
  decide: (value: unknown, env: unknown[]) => boolean,
  site: Site,
): Predicate | undefined {
  const raw = literal.raw;
  const size = pattern?.size ?? 0;
  switch (test) {
    case "equal":
      // The literal is read as an integer or a boolean when a value of that kind first comes.
      return (root, env) => {
        const value = resolve(root, env);
        if (typeof value === "string") return (value === raw) !== negated;
        if (typeof value === "number" && Number.isSafeInteger(value)) {
          const int = literal.int;
          if (int.ok) return equalsInteger(value, int.value) !== negated;
        } else if (typeof value === "boolean") {
          const bool = literal.bool;
          if (bool.ok) return (value === bool.value) !== negated;
        }
        return decide(value, env);
      };
    case "in":
      return (root, env) => {
        const value = resolve(root, env);
        if (typeof value === "string") {
          spend(env, textCost(value.length), site);
          return value.includes(raw) !== negated;
        }
        if (stringLists && Array.isArray(value)) {
          // A list of strings; any other element sends the whole list through the general rule.
          for (let i = 0; i < value.length; i++) {
            const element: unknown = value[i];
            if (typeof element !== "string") return decide(value, env);
            if (element === raw) {
              spend(env, value.length, site);
              return !negated;
            }
          }
          spend(env, value.length, site);
          return negated;
        }
        return decide(value, env);
      };
    case "matches":
      return (root, env) => {
        const value = resolve(root, env);
        if (typeof value === "string") {
          spend(env, patternCost(size, value.length), site);
          return pattern!.test(value) !== negated;
        }
        return decide(value, env);
      };
    default:
      return undefined;
  }
}

/** `any`/`all`: evaluate the body once per element, with the bound names set, short-circuiting. */
function compileCollection(node: CollectionExpression, scope: readonly Binding[], context: CompileContext): Predicate {
  const site = siteOf(node, context);
  const target = compileTarget(node.selector, scope, site, context);
  const valueSlot = context.slots++;
  const keySlot = context.slots++;
  const loopSlot = context.slots++;
  const isAll = node.quantifier === "All";

  // A schema tells whether the target is a list or a map; untyped data is told apart per value.
  const targetSchema = target.schema;
  const typed = targetSchema !== undefined && targetSchema !== "any" && typeof targetSchema !== "string";
  const elementSchema = typed ? (targetSchema.kind === "array" ? targetSchema.items : targetSchema.kind === "map" ? targetSchema.values : undefined) : undefined;
  const keySchema: FieldSchema | undefined = typed ? (targetSchema.kind === "array" ? "int" : "string") : undefined;
  const defaultMode: Binding["mode"] = !typed ? "auto" : targetSchema.kind === "map" ? "key" : "alias";
  const elementPath = [...target.fullPath, { slot: keySlot }];
  const bind = (name: string, mode: Binding["mode"]): Binding => ({
    name,
    mode,
    valueSlot,
    keySlot,
    loopSlot,
    schema: elementSchema,
    keySchema,
    fullPath: elementPath,
  });
  const { binding } = node;
  const bindings: Binding[] = [];
  switch (binding.mode) {
    case "Default":
      bindings.push(bind(binding.name, defaultMode));
      break;
    case "Index":
      bindings.push(bind(binding.index, "key"));
      break;
    case "Value":
      bindings.push(bind(binding.value, "alias"));
      break;
    case "IndexAndValue":
      // With one name for both, the value (bound last) wins, as in the reference.
      bindings.push(bind(binding.index, "key"), bind(binding.value, "alias"));
      break;
  }
  const duplicate = binding.mode === "IndexAndValue" && binding.index === binding.value ? binding.index : undefined;
  const compiledBody = compileNode(node.body, [...scope, ...bindings], context);
  const trace = context.options.trace;
  // Traced (`explain`), each element is told before its body runs; untraced, the loop pays nothing for it.
  const body: Predicate =
    trace === undefined
      ? compiledBody
      : (root, env) => {
          trace.element(node, env[keySlot] as number | string, env[valueSlot]);
          return compiledBody(root, env);
        };
  const view = targetSchema === undefined ? undefined : viewOf(targetSchema);
  // Each element visited costs its visit and the fixed cost of the body.
  const bodyCost = fixedCost(node.body);
  const perElement = 1 + bodyCost;
  const perEntry = MAP_ENTRY_COST + bodyCost;

  // The same loop, for the generated code to write out (a duplicate name fails at each element: left to the closure).
  if (duplicate === undefined) {
    context.collections.set(node, {
      isAll,
      resolve: target.resolve,
      plainPath: target.plainPath,
      typeOf: view?.typeOf,
      valueSlot,
      keySlot,
      // Only an `auto` binding reads whether the loop is over a map.
      loopSlot: bindings.some((bound) => bound.mode === "auto") ? loopSlot : undefined,
      perElement,
      perEntry,
      site,
    });
  }
  const resolve =
    trace === undefined
      ? target.resolve
      : (root: unknown, env: unknown[]) => {
          const container = target.resolve(root, env);
          trace.found(node, container);
          return container;
        };
  return (root, env) => {
    const container = resolve(root, env);
    // A missing key under an existing map: `all` holds vacuously, `any` finds nothing.
    if (container === NOT_PRESENT) return isAll;
    const type = view === undefined ? jsonTypeOf(container) : view.typeOf(container);
    if (type.kind === "slice") {
      const list = (container ?? []) as readonly unknown[];
      for (let i = 0; i < list.length; i++) {
        if (duplicate !== undefined) failDuplicate(site, duplicate);
        spend(env, perElement, site);
        env[valueSlot] = list[i];
        env[keySlot] = i;
        env[loopSlot] = 0;
        if (body(root, env) !== isAll) return !isAll;
      }
      return isAll;
    }
    if (type.kind === "map") {
      const map = (container ?? {}) as Record<string, unknown>;
      const keys = Object.keys(map);
      spend(env, keys.length * KEY_LIST_COST, site);
      for (const key of keys) {
        if (duplicate !== undefined) failDuplicate(site, duplicate);
        spend(env, perEntry, site);
        env[valueSlot] = map[key];
        env[keySlot] = key;
        env[loopSlot] = MAP_LOOP;
        if (body(root, env) !== isAll) return !isAll;
      }
      return isAll;
    }
    return fail(site, "not_a_collection", `${site.selectorText} is not a list or a map`);
  };
}

function failDuplicate(site: Site, name: string): never {
  return fail(site, "duplicate_binding", `${JSON.stringify(name)} cannot be used as a placeholder for both the index and the value`);
}

function unreachable(value: never): never {
  throw new TypeError(`not a filter expression: ${JSON.stringify(value)}`);
}
