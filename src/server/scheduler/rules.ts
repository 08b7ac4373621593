/**
 * The scenario rules at work (their definitions and checks are in `scenarios.ts`): each rule
 * considers the rows a write changes (or every row, on a scan), schedules a step for each row it
 * selects, and when its time comes sets the row's fields, with what follows from them (a
 * summary's counts, the job's status). A rule acts once on a row.
 *
 * @module
 */
import type { Allocation, Deployment, Evaluation, Node } from "../state/model.js";
import { namespacedKey, TABLES, type Transaction, type WriteMessage } from "../state/store.js";
import { changesOf, checkRule, MAX_SCENARIO_RULES, SCENARIO_TABLES, ScenarioRuleError, selects, type RulePass, type ScenarioKind, type ScenarioRuleState } from "./scenarios.js";
import { networkStatusOf } from "./client.js";
import { putJob, updateAlloc, type SchedulerContext } from "./state.js";
import type { StepQueue } from "./timers.js";

/** The prefix of the names of the rules' steps in the queue. */
export const RULE_STEP_PREFIX = "rule ";

/** The scenario rules of one agent, and what each has done. */
export class ScenarioRules {
  /** The scenario rules, by ID, in the order added. */
  readonly #rules = new Map<string, ScenarioRuleState>();
  /** The rows each rule has acted on (`<rule> <row key>`): a rule acts once on a row. */
  readonly #fired = new Set<string>();
  /**
   * When each rule first selected each row it has not acted on yet (`<rule> <row key>`, agent's
   * milliseconds): its time counts from then, also when its step is scheduled again (the leader
   * back after a loss).
   */
  readonly #selectedAt = new Map<string, number>();
  #sequence = 0;

  constructor(
    private readonly context: SchedulerContext,
    private readonly steps: StepQueue,
  ) {}

  /** The rules, in the order added. */
  get all(): readonly ScenarioRuleState[] {
    return [...this.#rules.values()];
  }

  /** Adds a rule; throws {@link ScenarioRuleError} for one that cannot be used, or past {@link MAX_SCENARIO_RULES}. */
  add(rule: unknown): ScenarioRuleState {
    if (this.#rules.size >= MAX_SCENARIO_RULES) throw new ScenarioRuleError(`an agent holds at most ${MAX_SCENARIO_RULES} scenario rules: remove some first`);
    const state = checkRule(rule, `rule-${++this.#sequence}`);
    this.#rules.set(state.id, state);
    return state;
  }

  /** Removes a rule, its steps not yet run and what it remembered of rows; false when there is none of that ID. */
  remove(id: string): boolean {
    const removed = this.#rules.delete(id);
    const prefix = `${RULE_STEP_PREFIX}${id} `;
    this.steps.drop((name) => name.startsWith(prefix));
    for (const name of this.#selectedAt.keys()) if (name.startsWith(prefix)) this.#selectedAt.delete(name);
    for (const name of this.#fired) if (name.startsWith(prefix)) this.#fired.delete(name);
    return removed;
  }

  /** Forgets which rows the rules acted on and when they selected them (the state was put back: a row is acted on again). */
  forget(): void {
    this.#fired.clear();
    this.#selectedAt.clear();
  }

  /** Lets every rule consider `rowsOf` its kind (a write's changed rows, or a whole table), within the pass's budget. */
  considerAll(pass: RulePass, rowsOf: (kind: ScenarioKind) => Iterable<unknown>): void {
    for (const rule of this.#rules.values()) this.consider(pass, rule, rowsOf(rule.rule.on));
  }

  /**
   * Schedules the rule's step for each of `rows` it selects (within the pass's budget) and has not
   * acted on. The rows whose time comes at the same moment are acted on in one write, as the
   * reference's server writes the updates its clients send within a moment together.
   */
  consider(pass: RulePass, rule: ScenarioRuleState, rows: Iterable<unknown>): void {
    const table = SCENARIO_TABLES[rule.rule.on];
    const { clock } = this.context;
    for (const row of rows) {
      const key = TABLES[table].key(row as never);
      const name = `${RULE_STEP_PREFIX}${rule.id} ${key}`;
      const now = clock.nowMs();
      const since = this.#selectedAt.get(name) ?? now;
      const dueAt = since + rule.afterMs;
      const step = `${RULE_STEP_PREFIX}${rule.id} @${dueAt}`;
      if (this.#fired.has(name) || this.steps.hasBatched(step, key) || !selects(rule, row, pass)) continue;
      this.#selectedAt.set(name, since);
      this.steps.deferBatch(step, Math.max(0, dueAt - now), key, (keys) => this.#fire(rule, keys));
    }
  }

  /** A rule's time for rows has come: in one write, each it still selects has its fields set. */
  async #fire(rule: ScenarioRuleState, keys: readonly string[]): Promise<void> {
    if (!this.#rules.has(rule.id)) return;
    // What `apply` does besides its transaction may be done twice (a store may apply a write again): the sets are
    // idempotent, and the count of firings is taken from the result of the write that was stored.
    const { result: fired } = await this.context.store.write(["allocs", "job_summary", "jobs", "deployment", "evals", "nodes", "service_registrations"], (state) => {
      let count = 0;
      for (const key of keys) {
        const name = `${RULE_STEP_PREFIX}${rule.id} ${key}`;
        const target = ruleRowOf(state, rule.rule.on, key);
        // Not selected any more: its time starts again if it is selected again.
        this.#selectedAt.delete(name);
        if (target === undefined || !selects(rule, target.row)) continue;
        this.#fired.add(name);
        const changes = changesOf(rule, target.row);
        if (Object.keys(changes).length === 0) continue;
        applyRule(this.context, state, target, changes);
        count++;
      }
      return count;
    }, ruleMessage(rule));
    rule.fired += fired;
  }
}

/**
 * What a rule's write is, as the reference would have written the change (its events' type follows):
 * a client's report of an allocation, or the server's stop of one when the rule sets only what
 * the server decides; a deployment's or an evaluation's update; a node's status, or its
 * eligibility alone.
 */
function ruleMessage(rule: ScenarioRuleState): WriteMessage {
  const fields = Object.keys(rule.rule.set);
  switch (rule.rule.on) {
    case "allocation":
      return fields.every((field) => field.startsWith("Desired")) ? "ApplyPlanResults" : "AllocClientUpdate";
    case "deployment":
      return "DeploymentStatusUpdate";
    case "evaluation":
      return "EvalUpdate";
    case "node":
      return fields.every((field) => field === "SchedulingEligibility") ? "NodeUpdateEligibility" : "NodeUpdateStatus";
    default:
      return unreachableKind(rule.rule.on);
  }
}

/** The tables a rule's write names. */
type RuleTransaction = Transaction<"allocs" | "job_summary" | "jobs" | "deployment" | "evals" | "nodes" | "service_registrations">;

/** A row a rule acts on, with its kind. */
type RuleRow =
  | { readonly kind: "allocation"; readonly row: Allocation }
  | { readonly kind: "deployment"; readonly row: Deployment }
  | { readonly kind: "evaluation"; readonly row: Evaluation }
  | { readonly kind: "node"; readonly row: Node };

/** The row of `kind` stored under `key` in its table, or undefined. */
function ruleRowOf(state: RuleTransaction, kind: ScenarioKind, key: string): RuleRow | undefined {
  const tagged = <Row, Kind extends ScenarioKind>(kind: Kind, row: Row | undefined) => (row === undefined ? undefined : { kind, row });
  switch (kind) {
    case "allocation":
      return tagged(kind, state[SCENARIO_TABLES.allocation].get(key));
    case "deployment":
      return tagged(kind, state[SCENARIO_TABLES.deployment].get(key));
    case "evaluation":
      return tagged(kind, state[SCENARIO_TABLES.evaluation].get(key));
    case "node":
      return tagged(kind, state[SCENARIO_TABLES.node].get(key));
    default:
      return unreachableKind(kind);
  }
}

/** Writes a rule's changes to a row, and what follows from them: a summary's counts, the job's status. */
function applyRule(context: SchedulerContext, state: RuleTransaction, target: RuleRow, changes: Record<string, unknown>): void {
  const stamp = { ModifyIndex: state.index };
  const now = () => context.clock.nowNs();
  switch (target.kind) {
    case "allocation": {
      const alloc = target.row;
      const job = state.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
      // A client status set is the client's report, which carries the network status.
      const reported = "ClientStatus" in changes && !("NetworkStatus" in changes) ? { NetworkStatus: networkStatusOf(alloc) } : {};
      updateAlloc(context, state, job, alloc, { ...reported, ...changes } as Partial<Allocation>);
      if (job !== undefined) putJob(context, state, job);
      return;
    }
    case "deployment": {
      const deployment = target.row;
      state.deployment.put({ ...deployment, ...changes, ...stamp, ModifyTime: now() });
      const job = state.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
      if (job !== undefined) putJob(context, state, job);
      return;
    }
    case "evaluation": {
      const evaluation = target.row;
      state.evals.put({ ...evaluation, ...changes, ...stamp, ModifyTime: now() });
      const job = state.jobs.get(namespacedKey(evaluation.Namespace, evaluation.JobID));
      if (job !== undefined) putJob(context, state, job);
      return;
    }
    case "node":
      state.nodes.put({ ...target.row, ...changes, ...stamp });
      return;
    default:
      return unreachableKind(target);
  }
}

function unreachableKind(kind: never): never {
  throw new TypeError(`no such kind of row: ${String(kind)}`);
}
