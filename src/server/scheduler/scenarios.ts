/**
 * Scenario rules: lifecycle steps a test suite adds to the simulated scheduler, in the manner of
 * kwok's stages. A rule selects rows of one kind with a bexpr filter and, a while after a row is
 * selected, sets some of its fields:
 *
 * ```ts
 * { on: "allocation", select: 'JobID == "web" and TaskGroup == "api"', after: "30s", set: { ClientStatus: "failed" } }
 * ```
 *
 * The built-in lifecycle (placement, running, batch completion, deployments) still runs; rules
 * act on top of it, each at most once for each row it selects. Its steps are rules too
 * ({@link LIFECYCLE_DEFAULTS}): a test lists them, narrows their filters, retimes them or switches
 * them off.
 *
 * The steps' and the rules' filters share one cost budget for each write's rows and for each scan
 * of the state ({@link RulePass}), so that rules, each within the engine's budget for a row, cannot
 * multiply into seconds of work for one write.
 *
 * @module
 */
import { FilterEvaluationError, FilterSyntaxError } from "../../errors.js";
import { compileFilter } from "../../filter.js";
import type { Filter } from "../../evaluator/compile.js";
import { CostBudget } from "../../evaluator/cost.js";
import type { ClientStatus, DesiredStatus } from "../state/model.js";
import type { TableName } from "../state/store.js";
import { parseDuration } from "../base/clock.js";

/** The most rules an agent holds at once. */
export const MAX_SCENARIO_RULES = 100;

/**
 * The default of `AgentLimits.rulesCostPerWrite`: the cost units the filters of the lifecycle's
 * steps and of the scenario rules may spend together on one write's rows, or on one scan of the
 * state (the leader back, a rule added, a step changed). A list request's budget, for the same
 * reason: at most about 0.3 s of filtering on a 2-core machine. Without it, {@link MAX_SCENARIO_RULES}
 * rules each spending the engine's budget for a row (500,000 units) over 210 allocations held the
 * event loop 12 s for a job's placement and 176 s for the leader's return; 100 rules of ordinary
 * filters (a few units a row) over 10,000 rows spend about a quarter of it.
 */
export const RULES_COST_PER_WRITE = 20_000_000;

/** The kind of row a rule selects. */
export type ScenarioKind = "allocation" | "deployment" | "evaluation" | "node";

/** The table each kind of row lives in. */
export const SCENARIO_TABLES = {
  allocation: "allocs",
  deployment: "deployment",
  evaluation: "evals",
  node: "nodes",
} as const satisfies { readonly [Kind in ScenarioKind]: TableName };

/** A rule as a test writes it. */
export interface ScenarioRule {
  /** The kind of row it acts on. */
  readonly on: ScenarioKind;
  /** A bexpr filter over the row (its fields as the API shows them: `JobID`, `TaskGroup`, `ClientStatus`…); every row when absent. */
  readonly select?: string;
  /** How long after the row is first selected the fields are set: milliseconds, or a duration such as `"30s"` (default 0). */
  readonly after?: number | string;
  /** The fields to set; see {@link SETTABLE} for which, and their values. */
  readonly set: Readonly<Record<string, unknown>>;
  /** A name for messages and lists. */
  readonly name?: string;
}

/** A rule the agent holds: checked, its filter compiled, with its ID. */
export interface ScenarioRuleState {
  readonly id: string;
  readonly rule: ScenarioRule;
  readonly filter: Filter | undefined;
  readonly afterMs: number;
  /** How many rows it changed so far. */
  fired: number;
  /** Why it last stopped short of rows: the filters ran out of their cost budget (see {@link RulePass}). */
  lastError?: string;
}

const CLIENT_STATUSES: readonly ClientStatus[] = ["pending", "running", "complete", "failed", "lost", "unknown"];
const DESIRED_STATUSES: readonly DesiredStatus[] = ["run", "stop", "evict"];

/**
 * The fields a rule may set on each kind of row, and what each accepts: the ones the lifecycle
 * reads, so that the rest of the state follows (a summary's counts, a job's status).
 */
export const SETTABLE: { readonly [Kind in ScenarioKind]: Readonly<Record<string, readonly string[] | "text">> } = {
  allocation: { ClientStatus: CLIENT_STATUSES, DesiredStatus: DESIRED_STATUSES, ClientDescription: "text", DesiredDescription: "text" },
  deployment: { Status: ["running", "paused", "failed", "successful", "cancelled"], StatusDescription: "text" },
  evaluation: { Status: ["pending", "complete", "failed", "canceled", "blocked"], StatusDescription: "text" },
  node: { Status: ["initializing", "ready", "down", "disconnected"], SchedulingEligibility: ["eligible", "ineligible"], StatusDescription: "text" },
};

/** A rule that cannot be used, with the reason. */
export class ScenarioRuleError extends Error {}

/** A rule's or a step's `select`, compiled; a filter that does not parse is a {@link ScenarioRuleError}. */
function compileSelect(select: string): Filter {
  try {
    return compileFilter(select);
  } catch (error) {
    if (error instanceof FilterSyntaxError) throw new ScenarioRuleError(`"select" is not a valid filter: ${error.message}`);
    throw error;
  }
}

/** A rule's or a step's `after`, in milliseconds; one that is not a duration is a {@link ScenarioRuleError}. */
function readAfter(after: number | string): number {
  try {
    return parseDuration(after);
  } catch (error) {
    throw new ScenarioRuleError(`"after": ${(error as Error).message}`);
  }
}

/** Checks a rule and compiles its filter; throws {@link ScenarioRuleError} saying what is wrong. */
export function checkRule(rule: unknown, id: string): ScenarioRuleState {
  if (typeof rule !== "object" || rule === null || Array.isArray(rule)) throw new ScenarioRuleError('a rule is an object such as {"on": "allocation", "select": "JobID == \\"web\\"", "after": "30s", "set": {"ClientStatus": "failed"}}');
  const { on, select, after, set, name, ...rest } = rule as Record<string, unknown>;
  const unknownField = Object.keys(rest)[0];
  if (unknownField !== undefined) throw new ScenarioRuleError(`a rule has no field ${JSON.stringify(unknownField)}: it has on, select, after, set and name`);
  if (typeof on !== "string" || !Object.hasOwn(SCENARIO_TABLES, on)) throw new ScenarioRuleError(`"on" must be one of ${Object.keys(SCENARIO_TABLES).join(", ")}`);
  const kind = on as ScenarioKind;
  if (name !== undefined && typeof name !== "string") throw new ScenarioRuleError('"name" must be a string');
  let filter: Filter | undefined;
  if (select !== undefined) {
    if (typeof select !== "string") throw new ScenarioRuleError('"select" must be a filter, such as "JobID == \\"web\\""');
    filter = compileSelect(select);
  }
  let afterMs = 0;
  if (after !== undefined) {
    if (typeof after !== "number" && typeof after !== "string") throw new ScenarioRuleError('"after" must be milliseconds or a duration such as "30s"');
    afterMs = readAfter(after);
  }
  if (typeof set !== "object" || set === null || Array.isArray(set) || Object.keys(set).length === 0) throw new ScenarioRuleError('"set" must be an object naming the fields to set, such as {"ClientStatus": "failed"}');
  const allowed = SETTABLE[kind];
  for (const [field, value] of Object.entries(set)) {
    const accepts = Object.hasOwn(allowed, field) ? allowed[field] : undefined;
    if (accepts === undefined) throw new ScenarioRuleError(`a rule on ${kind}s can set ${Object.keys(allowed).join(", ")}, not ${JSON.stringify(field)}`);
    if (accepts === "text" ? typeof value !== "string" : !accepts.includes(value as string)) {
      throw new ScenarioRuleError(`${field} must be ${accepts === "text" ? "a string" : `one of ${accepts.join(", ")}`}, not ${JSON.stringify(value)}`);
    }
  }
  return { id, rule: { on: kind, ...(select === undefined ? {} : { select: select as string }), ...(after === undefined ? {} : { after: after as number | string }), set: { ...(set as Record<string, unknown>) }, ...(name === undefined ? {} : { name: name as string }) }, filter, afterMs, fired: 0 };
}

/** Whether `filter` accepts a row (every row without one; not a row the filter fails on). */
function accepts(filter: Filter | undefined, row: unknown): boolean {
  if (filter === undefined) return true;
  try {
    return filter.test(row);
  } catch {
    return false;
  }
}

/**
 * One pass of the steps' and the rules' filters over rows: a write's rows, or a scan of the whole
 * state. They share one cost budget (besides each row's own), spent in the order they are asked:
 * the lifecycle's steps, then the rules in the order added. Once it is spent, every filter asked
 * again in the pass is stopped, without being evaluated: its step or rule keeps the reason as its
 * `lastError`, and the rows it had not reached are not selected (they are considered again when a
 * write changes them, or at the next scan). A filter that fails on a row for another reason (a
 * missing field, its own budget for the row) only leaves that row out, as without a pass.
 */
export class RulePass {
  readonly #budget: CostBudget;
  /** The end of the reason a filter is stopped, the same for every filter of the pass. */
  readonly #reason: string;
  #spent = false;
  /** The steps and rules told they were stopped in this pass. */
  readonly #stopped = new Set<object>();

  /**
   * @param limit - the units the pass's filters may spend together (`limits.rulesCostPerWrite`).
   * @param scope - what the pass covers, for the reason: `the write at index 7`, `a scan of the state`.
   */
  constructor(limit: number, scope: string) {
    this.#budget = new CostBudget(limit);
    this.#reason = `the rules' filters exceeded their cost budget of ${limit} units for ${scope} (limits.rulesCostPerWrite); the rows it had not reached were not selected`;
  }

  /**
   * Whether `filter` accepts `row`, within the pass's budget; false for a row the filter fails on,
   * and, once the budget is spent, for every row (`holder`, as `name` calls it, then keeps why).
   */
  accepts(holder: { lastError?: string | undefined }, name: () => string, filter: Filter | undefined, row: unknown): boolean {
    // Without a filter there is nothing to spend.
    if (filter === undefined) return true;
    if (!this.#spent) {
      const remaining = this.#budget.remaining;
      try {
        return filter.test(row, this.#budget);
      } catch (error) {
        // The pass's budget was the evaluation's limit (what was left of it is less than a row's
        // own budget), and it ran out; anything else only leaves this row out.
        if (!(error instanceof FilterEvaluationError && error.code === "cost_exceeded" && remaining < filter.maxCost)) return false;
        this.#spent = true;
      }
    }
    if (!this.#stopped.has(holder)) {
      this.#stopped.add(holder);
      holder.lastError = `${name()} stopped: ${this.#reason}`;
    }
    return false;
  }
}

/** How messages name a rule: its ID, and its name when it has one. */
function ruleName(rule: ScenarioRuleState): string {
  return `rule ${JSON.stringify(rule.id)}${rule.rule.name === undefined ? "" : ` (${JSON.stringify(rule.rule.name)})`}`;
}

/**
 * Whether a rule selects a row: its filter accepts it (a row the filter fails on is not selected).
 * In a {@link RulePass}, within the pass's budget; without one (a rule's step checking its row
 * again when its time comes), within the row's own.
 */
export function selects(rule: ScenarioRuleState, row: unknown, pass?: RulePass): boolean {
  return pass === undefined ? accepts(rule.filter, row) : pass.accepts(rule, () => ruleName(rule), rule.filter, row);
}

/** The fields of `row` a rule would change: empty when the row already has the rule's values. */
export function changesOf(rule: ScenarioRuleState, row: object): Record<string, unknown> {
  // A rule names its fields as text: the row is read by name.
  const fields = row as Readonly<Record<string, unknown>>;
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(rule.rule.set)) if (fields[field] !== value) changes[field] = value;
  return changes;
}

/** The steps of the built-in lifecycle, in the order they act on a job. */
export const LIFECYCLE_STEPS = ["evaluate", "run", "finish", "complete"] as const;

/** The name of a step of the built-in lifecycle. */
export type LifecycleStepName = (typeof LIFECYCLE_STEPS)[number];

/**
 * A step of the built-in lifecycle: the simulated scheduler's and clients' own work, held as a
 * rule a test can list, narrow, retime or switch off (see {@link LIFECYCLE_DEFAULTS}). Unlike a
 * scenario rule, a step does more than set fields (it places allocations, counts a deployment's
 * healthy ones…), and it acts only on rows in the state it starts from (a pending evaluation, a
 * pending allocation…), whatever its `select` says.
 */
export interface LifecycleStep {
  /** Its name, to change it. */
  readonly name: LifecycleStepName;
  /** The kind of row it acts on. */
  readonly on: ScenarioKind;
  /** A bexpr filter over the rows it may act on (as scenario rules see them). */
  readonly select: string;
  /** When it acts: milliseconds or a duration, in place of its own timing; null for its own (see `timing`). */
  readonly after: number | string | null;
  /** Whether it acts at all (a step switched off leaves its rows as they are, for a test's rules to move). */
  readonly enabled: boolean;
  /** What it does. */
  readonly does: string;
  /** When it acts with `after` null, counted from what. */
  readonly timing: string;
  /** Why it last stopped short of rows: the filters ran out of their cost budget (`limits.rulesCostPerWrite`); a change clears it. */
  readonly lastError?: string;
}

/** A change to a lifecycle step: the fields given replace the step's. */
export interface LifecycleChange {
  /** A new filter over the rows it may act on. */
  readonly select?: string;
  /** A time in place of its own (milliseconds or a duration), or null for its own again. */
  readonly after?: number | string | null;
  /** Whether it acts at all. */
  readonly enabled?: boolean;
}

/** The built-in lifecycle as an agent starts with it: today's behaviour. */
export const LIFECYCLE_DEFAULTS: readonly LifecycleStep[] = Object.freeze(([
  {
    name: "evaluate",
    on: "evaluation",
    select: 'Status == "pending"',
    after: null,
    enabled: true,
    does: "processes the evaluation in the reference's writes: places the job's allocations on the ready, eligible nodes of its datacenters and starts a service or system job's deployment, whether or not a node can take them (what none can take waits behind a blocked evaluation); replaces an older version MaxParallel at a time, or places only its canaries; reschedules failed allocations, now or by a follow-up evaluation; stops the allocations and cancels the deployments the job no longer wants",
    timing: "at once; a follow-up evaluation at its WaitUntil",
  },
  {
    name: "run",
    on: "allocation",
    select: 'ClientStatus == "pending" and DesiredStatus == "run"',
    after: null,
    enabled: true,
    does: "the allocation's tasks start: it is running",
    timing: "half the placement delay after the allocation was placed",
  },
  {
    name: "finish",
    on: "allocation",
    select: 'ClientStatus == "running" and DesiredStatus == "run"',
    after: null,
    enabled: true,
    does: "the allocation's tasks end: it is complete, or failed when its job's bexpr.exit_code is not 0",
    timing: "its job's bexpr.run_for after its tasks started; for a batch or sysbatch job without it, the placement delay; never for other jobs without it",
  },
  {
    name: "complete",
    on: "deployment",
    select: 'Status == "running"',
    after: null,
    enabled: true,
    does: "its allocations are healthy, and it is successful (the job's version stable) or the update's next allocations are placed; canaries wait for their promotion; it fails when its job sets bexpr.fail_deployment",
    timing: "each allocation once it has run its group's MinHealthyTime (unhealthy at its HealthyDeadline when not healthy by then; none placed: it waits); it fails at its RequireProgressBy when it has made no progress",
  },
] satisfies LifecycleStep[]).map((step): LifecycleStep => Object.freeze(step)));

/** What is said of a step name that is not one. */
export function noSuchStep(name: string): string {
  return `no lifecycle step ${JSON.stringify(name)}: the steps are ${LIFECYCLE_STEPS.join(", ")}`;
}

/** A lifecycle step as the agent holds it: its filter compiled and its time read. */
export interface LifecycleStepState {
  readonly step: LifecycleStep;
  readonly filter: Filter;
  /** Its time in milliseconds, or undefined for its own timing. */
  readonly afterMs: number | undefined;
  /** Why it last stopped short of rows (see {@link RulePass}). */
  lastError?: string;
}

/** Compiles a step (a default one, or one changed by a test). */
function compileStep(step: LifecycleStep): LifecycleStepState {
  // Frozen: a step handed out cannot be changed behind the agent's back (its filter is compiled once).
  return { step: Object.freeze(step), filter: compileSelect(step.select), afterMs: step.after === null ? undefined : readAfter(step.after) };
}

/** The built-in lifecycle, compiled, by name. */
export function defaultLifecycle(): Map<LifecycleStepName, LifecycleStepState> {
  return new Map(LIFECYCLE_DEFAULTS.map((step) => [step.name, compileStep(step)]));
}

/**
 * Applies a change to a step; throws {@link ScenarioRuleError} saying what is wrong with one that
 * cannot be used (an unknown step or field, a filter that does not parse, a bad duration).
 */
export function changeStep(current: ReadonlyMap<LifecycleStepName, LifecycleStepState>, name: string, change: unknown): LifecycleStepState {
  const state = (LIFECYCLE_STEPS as readonly string[]).includes(name) ? current.get(name as LifecycleStepName) : undefined;
  if (state === undefined) throw new ScenarioRuleError(noSuchStep(name));
  if (typeof change !== "object" || change === null || Array.isArray(change)) throw new ScenarioRuleError('a change is an object such as {"after": "5m"} or {"enabled": false}');
  const { select, after, enabled, ...rest } = change as Record<string, unknown>;
  const unknownField = Object.keys(rest)[0];
  if (unknownField !== undefined) throw new ScenarioRuleError(`a lifecycle step has no field ${JSON.stringify(unknownField)} to change: it has select, after and enabled`);
  if (select !== undefined && typeof select !== "string") throw new ScenarioRuleError('"select" must be a filter, such as "ClientStatus == \\"pending\\" and JobID != \\"web\\""');
  if (after !== undefined && after !== null && typeof after !== "number" && typeof after !== "string") throw new ScenarioRuleError('"after" must be milliseconds, a duration such as "30s", or null for the step\'s own timing');
  if (enabled !== undefined && typeof enabled !== "boolean") throw new ScenarioRuleError('"enabled" must be true or false');
  const step: LifecycleStep = {
    ...state.step,
    ...(select === undefined ? {} : { select: select as string }),
    ...(after === undefined ? {} : { after: after as number | string | null }),
    ...(enabled === undefined ? {} : { enabled: enabled as boolean }),
  };
  return compileStep(step);
}

/** Whether a lifecycle step takes a row: it is on and its filter accepts the row, within the pass's budget. */
export function stepTakes(state: LifecycleStepState, row: unknown, pass: RulePass): boolean {
  return state.step.enabled && pass.accepts(state, () => `lifecycle step ${JSON.stringify(state.step.name)}`, state.filter, row);
}
