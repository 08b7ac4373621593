/**
 * Whether a node can run a job's task group, as the reference's feasibility checkers decide it
 * (`scheduler/feasible/feasible.go`): its constraints (every operator, with `${node.*}`,
 * `${attr.*}` and `${meta.*}` targets resolved on the node), its tasks' drivers, `distinct_hosts`
 * and `distinct_property`; and the computed class that lets the reference skip the checks of a
 * node like one it already judged (`structs.Node.ComputeClass`, `EscapedConstraints`).
 *
 * The order in which the checks run, the metrics they fill and the ranking of the nodes that pass
 * them are in `stack.ts`.
 *
 * @module
 */
import { compilePattern, patternBudget, type Pattern } from "../../evaluator/regex.js";
import { compareStrings } from "../../go/order.js";
import { parseGoBool, parseGoFloat } from "../../go/strconv.js";
import { parseConstraints, parseVersion, type VersionConstraints, type VersionGrammar } from "../../go/version.js";
import type { Allocation, Job, JsonObject, Node, TaskGroup } from "../state/model.js";

/** `structs.Constraint`: `LTarget Operand RTarget`. */
export interface Constraint {
  readonly LTarget: string;
  readonly RTarget: string;
  readonly Operand: string;
}

/** `structs.Affinity`: a constraint with a weight (-100 to 100). */
export interface Affinity extends Constraint {
  readonly Weight: number;
}

/** `structs.Spread`: an attribute to spread a group's allocations over, with optional targets. */
export interface Spread {
  readonly Attribute: string;
  readonly Weight: number;
  readonly SpreadTarget: readonly { readonly Value: string; readonly Percent: number }[];
}

/** The operands with a name (`structs.Constraint*`). */
export const OPERANDS = Object.freeze({
  distinctHosts: "distinct_hosts",
  distinctProperty: "distinct_property",
  regex: "regexp",
  version: "version",
  semver: "semver",
  setContains: "set_contains",
  setContainsAll: "set_contains_all",
  setContainsAny: "set_contains_any",
  isSet: "is_set",
  isNotSet: "is_not_set",
});

/** What the reference counts a node filtered for when its drivers are missing (`FilterConstraintDrivers`). */
export const FILTER_DRIVERS = "missing drivers";

/** What it counts a node filtered for when a node of its computed class was judged infeasible already. */
export const FILTER_CLASS_INELIGIBLE = "computed class ineligible";

/**
 * The largest regular expression a `regexp` constraint compiles (in RE2 program instructions): a
 * job's pattern is matched against every node, and a pattern past this is counted unmet, as one
 * Go fails to compile is.
 */
export const MAX_CONSTRAINT_PATTERN_SIZE = 10_000;

/** A field read as text ("" for anything else). */
function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A list of blocks of a job, as registered (anything else: none). */
function blocks(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter((each): each is JsonObject => typeof each === "object" && each !== null && !Array.isArray(each)) : [];
}

/** The constraints of a block's `Constraints` field. */
export function constraintsOf(value: unknown): Constraint[] {
  return blocks(value).map((each) => ({ LTarget: text(each.LTarget), RTarget: text(each.RTarget), Operand: text(each.Operand) }));
}

/** The affinities of a block's `Affinities` field. */
export function affinitiesOf(value: unknown): Affinity[] {
  return blocks(value).map((each) => ({ LTarget: text(each.LTarget), RTarget: text(each.RTarget), Operand: text(each.Operand), Weight: typeof each.Weight === "number" ? each.Weight : 0 }));
}

/** The spreads of a block's `Spreads` field. */
export function spreadsOf(value: unknown): Spread[] {
  return blocks(value).map((each) => ({
    Attribute: text(each.Attribute),
    Weight: typeof each.Weight === "number" ? each.Weight : 0,
    SpreadTarget: blocks(each.SpreadTarget).map((target) => ({ Value: text(target.Value), Percent: typeof target.Percent === "number" ? target.Percent : 0 })),
  }));
}

/** How the reference names a constraint in `ConstraintFiltered` (`Constraint.String`). */
export function constraintName(constraint: Constraint): string {
  return `${constraint.LTarget} ${constraint.Operand} ${constraint.RTarget}`;
}

/** A resolved target: its value, and whether the node has it (a missing one is compared as ""). */
export interface Target {
  readonly value: string;
  readonly found: boolean;
}

/**
 * Resolves a constraint's target on a node (`resolveTarget`): a literal unless it starts with
 * `${`; `${node.unique.id}`, `${node.unique.name}`, `${node.datacenter}`, `${node.class}`,
 * `${node.pool}`, `${attr.<name>}` and `${meta.<name>}`; anything else is missing.
 */
export function resolveTarget(target: string, node: Pick<Node, "ID" | "Name" | "Datacenter" | "NodeClass" | "NodePool" | "Attributes" | "Meta" | "Version">): Target {
  if (!target.startsWith("${")) return { value: target, found: true };
  switch (target) {
    case "${node.unique.id}":
      return { value: node.ID, found: true };
    case "${node.datacenter}":
      return { value: node.Datacenter, found: true };
    case "${node.unique.name}":
      return { value: node.Name, found: true };
    case "${node.class}":
      return { value: node.NodeClass, found: true };
    case "${node.pool}":
      return { value: node.NodePool, found: true };
  }
  // Only a trailing `}` is trimmed, as `strings.TrimSuffix` does.
  const name = (prefix: string) => target.slice(prefix.length, target.endsWith("}") ? -1 : undefined);
  if (target.startsWith("${attr.")) {
    const attribute = name("${attr.");
    // The client fingerprints its own version as an attribute; the agent keeps it as the node's `Version`.
    if (attribute === "nomad.version" && !Object.hasOwn(node.Attributes, attribute)) return { value: node.Version, found: true };
    return lookup(node.Attributes, attribute);
  }
  if (target.startsWith("${meta.")) return lookup(node.Meta, name("${meta."));
  return { value: "", found: false };
}

/** A key of a node's string map. */
function lookup(map: { readonly [key: string]: string } | null | undefined, key: string): Target {
  const value = map !== null && map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
  return value === undefined ? { value: "", found: false } : { value, found: true };
}

/**
 * What the checks of one evaluation compile once and reuse across its nodes (the reference's
 * `RegexpCache` and `VersionConstraintCache`): keyed by the job's own constraint text, so bounded
 * by the job's size.
 */
export class ConstraintCache {
  readonly #patterns = new Map<string, Pattern | null>();
  readonly #versions = new Map<string, VersionConstraints | null>();

  /** The compiled pattern, or null when it does not compile (or is past {@link MAX_CONSTRAINT_PATTERN_SIZE}). */
  pattern(source: string): Pattern | null {
    let pattern = this.#patterns.get(source);
    if (pattern === undefined) {
      const compiled = compilePattern(source, patternBudget(MAX_CONSTRAINT_PATTERN_SIZE));
      pattern = compiled.ok ? compiled.pattern : null;
      this.#patterns.set(source, pattern);
    }
    return pattern;
  }

  /** The parsed constraints, or null when they are malformed. */
  versions(source: string, grammar: VersionGrammar): VersionConstraints | null {
    const key = `${grammar}:${source}`;
    let parsed = this.#versions.get(key);
    if (parsed === undefined) {
      parsed = parseConstraints(source, grammar) ?? null;
      this.#versions.set(key, parsed);
    }
    return parsed;
  }
}

/** A value a constraint compares, as Go's `any`: a string (what targets resolve to), an integer, or nil. */
export type ConstraintValue = string | number | null;

/**
 * Whether a constraint holds (`checkConstraint`), each operand with its rule and what a missing
 * target gives. `distinct_hosts` and `distinct_property` hold here: they are checked against the
 * allocations (see {@link distinctHosts}, {@link PropertySet}).
 */
export function checkConstraint(operand: string, left: ConstraintValue, right: ConstraintValue, leftFound: boolean, rightFound: boolean, cache: ConstraintCache = new ConstraintCache()): boolean {
  switch (operand) {
    case OPERANDS.distinctHosts:
    case OPERANDS.distinctProperty:
      return true;
    // Equal values, both present.
    case "=":
    case "==":
    case "is":
      return leftFound && rightFound && left === right;
    // Different values; two missing targets are equal (both nil), one missing is different.
    case "!=":
    case "not":
      return left !== right;
    // Ordered as integers, else floats, else text; both present.
    case "<":
    case "<=":
    case ">":
    case ">=":
      return leftFound && rightFound && checkOrder(operand, left, right);
    // The left target is present.
    case OPERANDS.isSet:
      return leftFound;
    // The left target is missing.
    case OPERANDS.isNotSet:
      return !leftFound;
    // A version on the left meets the constraints on the right; both present.
    case OPERANDS.version:
    case OPERANDS.semver:
      return leftFound && rightFound && checkVersionMatch(operand, left, right, cache);
    // The right pattern matches somewhere in the left text; both present.
    case OPERANDS.regex:
      return leftFound && rightFound && typeof left === "string" && typeof right === "string" && (cache.pattern(right)?.test(left) ?? false);
    // Every comma-separated item on the right is in the left list; both present.
    case OPERANDS.setContains:
    case OPERANDS.setContainsAll:
      return leftFound && rightFound && checkSetContains(left, right, "all");
    // Some item on the right is in the left list; both present.
    case OPERANDS.setContainsAny:
      return leftFound && rightFound && checkSetContains(left, right, "any");
    // An unknown operand never holds.
    default:
      return false;
  }
}

/** A base-10 int64 (`strconv.ParseInt(s, 10, 64)`), or undefined. */
function parseInt64(value: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(value)) return undefined;
  const parsed = BigInt(value);
  return parsed >= -(2n ** 63n) && parsed < 2n ** 63n ? parsed : undefined;
}

/** `left op right` for an ordering operator. */
function compareOrder(operand: "<" | "<=" | ">" | ">=", compared: number): boolean {
  switch (operand) {
    case "<":
      return compared < 0;
    case "<=":
      return compared <= 0;
    case ">":
      return compared > 0;
    case ">=":
      return compared >= 0;
    default: {
      const unknown: never = operand;
      return unknown;
    }
  }
}

/** `left op right` (`checkOrder`): as integers when both are, else as floats when both are, else as text (by bytes). */
export function checkOrder(operand: "<" | "<=" | ">" | ">=", left: ConstraintValue, right: ConstraintValue): boolean {
  if (typeof left !== "string" || typeof right !== "string") return false;
  const leftInt = parseInt64(left);
  const rightInt = parseInt64(right);
  if (leftInt !== undefined && rightInt !== undefined) return compareOrder(operand, leftInt < rightInt ? -1 : leftInt > rightInt ? 1 : 0);
  const leftFloat = parseGoFloat(left);
  const rightFloat = parseGoFloat(right);
  if (leftFloat.ok && rightFloat.ok) {
    // Go's comparisons with NaN are all false, as JavaScript's are.
    const [a, b] = [leftFloat.value, rightFloat.value];
    return operand === "<" ? a < b : operand === "<=" ? a <= b : operand === ">" ? a > b : a >= b;
  }
  return compareOrder(operand, compareStrings(left, right));
}

/** A version on the left (text, or an integer written in decimal) meets the constraints on the right (`checkVersionMatch`). */
export function checkVersionMatch(grammar: VersionGrammar, left: ConstraintValue, right: ConstraintValue, cache: ConstraintCache = new ConstraintCache()): boolean {
  const written = typeof left === "string" ? left : typeof left === "number" && Number.isInteger(left) ? String(left) : undefined;
  if (written === undefined || typeof right !== "string") return false;
  // The left side is always read with the loose grammar (`version.NewVersion`).
  const version = parseVersion(written);
  if (version === undefined) return false;
  const constraints = cache.versions(right, grammar);
  return constraints !== null && constraints(version);
}

/** `set_contains_all` / `set_contains_any`: the comma-separated items (trimmed) of the right in those of the left. */
function checkSetContains(left: ConstraintValue, right: ConstraintValue, mode: "all" | "any"): boolean {
  if (typeof left !== "string" || typeof right !== "string") return false;
  const have = new Set(left.split(",").map((each) => each.trim()));
  const wanted = right.split(",").map((each) => each.trim());
  return mode === "all" ? wanted.every((each) => have.has(each)) : wanted.some((each) => have.has(each));
}

/** Whether a constraint holds on a node (`ConstraintChecker.meetsConstraint`). */
export function meetsConstraint(constraint: Constraint, node: Node, cache: ConstraintCache): boolean {
  const left = resolveTarget(constraint.LTarget, node);
  const right = resolveTarget(constraint.RTarget, node);
  return checkConstraint(constraint.Operand, left.value, right.value, left.found, right.found, cache);
}

/** The first of the constraints a node does not meet, or undefined when it meets them all. */
export function unmetConstraint(constraints: readonly Constraint[], node: Node, cache: ConstraintCache): Constraint | undefined {
  return constraints.find((constraint) => !meetsConstraint(constraint, node, cache));
}

/** What a task group asks of a node's features (`TaskGroupConstraints`): its constraints and its tasks', and its tasks' drivers. */
export interface GroupConstraints {
  readonly constraints: readonly Constraint[];
  readonly drivers: readonly string[];
}

/** A task group's own constraints, then each task's, and the drivers its tasks use. */
export function groupConstraints(group: TaskGroup): GroupConstraints {
  const constraints = constraintsOf(group.Constraints);
  const drivers = new Set<string>();
  for (const task of blocks(group.Tasks)) {
    constraints.push(...constraintsOf(task.Constraints));
    if (typeof task.Driver === "string" && task.Driver !== "") drivers.add(task.Driver);
  }
  return { constraints, drivers: [...drivers] };
}

/**
 * Whether the node has every driver (`DriverChecker.hasDrivers`): its `DriverInfo` detected and
 * healthy, or for a driver it has none of (every driver of a node no test changed: see
 * `state/drivers.ts`, whose derived drivers say the same), its `driver.<name>` attribute a true boolean.
 */
export function hasDrivers(node: Node, drivers: readonly string[]): boolean {
  return drivers.every((driver) => {
    const info = node.Drivers != null && Object.hasOwn(node.Drivers, driver) ? node.Drivers[driver] : undefined;
    if (info !== undefined) return info.Detected && info.Healthy;
    const value = node.Attributes[`driver.${driver}`];
    if (value === undefined) return false;
    const enabled = parseGoBool(value);
    return enabled.ok && enabled.value;
  });
}

/** Whether constraints carry a `distinct_hosts` that is on (`hasDistinctHostsConstraint`: empty or unparsable counts as on). */
export function wantsDistinctHosts(constraints: readonly Constraint[]): boolean {
  const constraint = constraints.find((each) => each.Operand === OPERANDS.distinctHosts);
  if (constraint === undefined) return false;
  if (constraint.RTarget === "") return true;
  const enabled = parseGoBool(constraint.RTarget);
  return !enabled.ok || enabled.value;
}

/**
 * Whether a node is free of the job's allocations as `distinct_hosts` asks (`satisfiesDistinctHosts`):
 * at the job level no allocation of the job there; at the group level none of the same group.
 */
export function distinctHosts(proposed: Iterable<Allocation>, job: Pick<Job, "ID" | "Namespace">, group: string, level: { readonly job: boolean; readonly group: boolean }): boolean {
  if (!level.job && !level.group) return true;
  for (const alloc of proposed) {
    const jobCollision = alloc.JobID === job.ID && alloc.Namespace === job.Namespace;
    if ((level.job && jobCollision) || (jobCollision && alloc.TaskGroup === group)) return false;
  }
  return true;
}

/** The target a spread or `distinct_property` counts by, resolved on a node (`getProperty`): missing for no node or an empty target. */
export function propertyOf(node: Node | undefined, property: string): Target {
  if (node === undefined || property === "") return { value: "", found: false };
  return resolveTarget(property, node);
}

/**
 * The values of a property the job's allocations use (`propertySet`): for a `distinct_property`
 * constraint or a spread, at the job level (all the job's allocations) or a group's (that group's
 * only), counting the allocations the state holds (less those the plan stops) and the plan's own.
 * With targets (a spread's), a value outside them counts as the implicit target `*`.
 */
export class PropertySet {
  /** Why the set could not be built (an allowed count that is not a number), which filters every node. */
  readonly error: string | undefined;
  readonly allowed: number;

  constructor(
    readonly property: string,
    readonly group: string | undefined,
    allowed: string | number,
    private readonly targets: ReadonlySet<string> = new Set(),
  ) {
    if (typeof allowed === "number") {
      this.allowed = allowed;
      this.error = undefined;
    } else if (allowed === "") {
      this.allowed = 1;
      this.error = undefined;
    } else if (/^[0-9]+$/.test(allowed)) {
      this.allowed = Number(allowed);
      this.error = undefined;
    } else {
      this.allowed = 0;
      this.error = `failed to convert RTarget ${JSON.stringify(allowed)} to uint64: strconv.ParseUint: parsing ${JSON.stringify(allowed)}: invalid syntax`;
    }
  }

  /** A value as counted: itself, or `*` when it is not one of the targets. */
  targeted(value: string): string {
    return this.targets.size === 0 || this.targets.has(value) ? value : "*";
  }

  /** How many of the job's live and planned allocations (those of the set's group, for a group's set) use each value (`GetCombinedUseMap`). */
  used(jobAllocs: Iterable<Allocation>, nodeOf: (id: string) => Node | undefined): Map<string, number> {
    const counts = new Map<string, number>();
    for (const alloc of jobAllocs) {
      if (this.group !== undefined && alloc.TaskGroup !== this.group) continue;
      const value = propertyOf(nodeOf(alloc.NodeID), this.property);
      if (!value.found) continue;
      const key = this.targeted(value.value);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  /** Whether one more allocation may use the node's value (`SatisfiesDistinctProperties`), or why not. */
  satisfies(node: Node, used: ReadonlyMap<string, number>): string | undefined {
    if (this.error !== undefined) return this.error;
    const value = propertyOf(node, this.property);
    if (!value.found) return `missing property ${JSON.stringify(this.property)}`;
    const key = this.targeted(value.value);
    const count = used.get(key) ?? 0;
    return count < this.allowed ? undefined : `distinct_property: ${this.property}=${key} used by ${count} allocs`;
  }
}

/** Whether a constraint target escapes the computed class (`constraintTargetEscapes`): it reads something unique to a node. */
function escapes(target: string): boolean {
  return ["${unique.", "${node.unique.", "${attr.unique.", "${meta.unique."].some((prefix) => target.startsWith(prefix));
}

/** Whether any of the constraints escapes the computed class (`EscapedConstraints`), so that every node must be checked on its own. */
export function escapesClass(constraints: readonly Constraint[]): boolean {
  return constraints.some((constraint) => escapes(constraint.LTarget) || escapes(constraint.RTarget));
}

/** The computed class of each node, kept beside the node rows (which are immutable: a changed node is a new row). */
const COMPUTED_CLASSES = new WeakMap<Node, string>();

/**
 * A node's computed class (`Node.ComputeClass`): nodes alike in what feasibility reads (datacenter,
 * pool, class, attributes and meta but their `unique.` keys, devices) share it, so one verdict
 * serves them all. The agent writes it as the text of those fields, where the reference hashes them.
 */
export function computedClass(node: Node): string {
  let computed = COMPUTED_CLASSES.get(node);
  if (computed === undefined) {
    const shared = (map: { readonly [key: string]: string } | null | undefined) =>
      Object.entries(map ?? {})
        .filter(([key]) => !key.startsWith("unique."))
        .sort(([a], [b]) => compareStrings(a, b));
    computed = JSON.stringify([node.Datacenter, node.NodePool, node.NodeClass, shared(node.Attributes), shared(node.Meta), node.NodeResources?.Devices ?? null]);
    COMPUTED_CLASSES.set(node, computed);
  }
  return computed;
}
