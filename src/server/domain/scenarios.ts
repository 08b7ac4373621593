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
 * act on top of it, each at most once for each row it selects.
 *
 * @module
 */
import { FilterSyntaxError } from "../../errors.js";
import { compileFilter } from "../../filter.js";
import type { Filter } from "../../evaluator/compile.js";
import type { ClientStatus, DesiredStatus } from "../state/model.js";
import type { TableName } from "../state/store.js";
import { parseDuration } from "./clock.js";

/** The most rules an agent holds at once. */
export const MAX_SCENARIO_RULES = 100;

/** The kind of row a rule selects. */
export type ScenarioKind = "allocation" | "deployment" | "evaluation" | "node";

/** The table each kind of row lives in. */
export const SCENARIO_TABLES: { readonly [Kind in ScenarioKind]: TableName & ("allocs" | "deployment" | "evals" | "nodes") } = {
  allocation: "allocs",
  deployment: "deployment",
  evaluation: "evals",
  node: "nodes",
};

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
    try {
      filter = compileFilter(select);
    } catch (error) {
      if (error instanceof FilterSyntaxError) throw new ScenarioRuleError(`"select" is not a valid filter: ${error.message}`);
      throw error;
    }
  }
  let afterMs = 0;
  if (after !== undefined) {
    if (typeof after !== "number" && typeof after !== "string") throw new ScenarioRuleError('"after" must be milliseconds or a duration such as "30s"');
    try {
      afterMs = parseDuration(after);
    } catch (error) {
      throw new ScenarioRuleError(`"after": ${(error as Error).message}`);
    }
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

/** Whether a rule selects a row: its filter accepts it (a row the filter fails on is not selected). */
export function selects(rule: ScenarioRuleState, row: unknown): boolean {
  if (rule.filter === undefined) return true;
  try {
    return rule.filter.test(row);
  } catch {
    return false;
  }
}

/** The fields of `row` a rule would change: empty when the row already has the rule's values. */
export function changesOf(rule: ScenarioRuleState, row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(rule.rule.set)) if (row[field] !== value) changes[field] = value;
  return changes;
}
