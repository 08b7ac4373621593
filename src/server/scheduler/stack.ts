/**
 * Choosing a node for an allocation, as the reference's scheduling stacks do
 * (`scheduler/feasible/stack.go`, `GenericStack.Select` and `SystemStack.Select`), with the
 * metrics a failed placement reports (`structs.AllocMetric`):
 *
 * 1. the nodes: ready, eligible, not draining, in one of the job's datacenters and its node pool
 *    (`nodesFor`; counted as `NodesInPool` and, by datacenter, `NodesAvailable`); each is
 *    `NodesEvaluated`;
 * 2. feasibility (`FeasibilityWrapper`): the job's constraints, then the group's drivers and
 *    constraints (its own and its tasks'); a node whose computed class was already judged
 *    infeasible is filtered as `computed class ineligible` unless a constraint reads something
 *    unique to a node; then `distinct_hosts` (not for system jobs) and `distinct_property`. Each
 *    node filtered counts in `NodesFiltered`, `ClassFiltered` and `ConstraintFiltered`;
 * 3. bin packing (`BinPackIterator`): the group's reserved cores among the node's free ones, then
 *    its CPU, memory and disk (`AllocsFit`, in that order) against the node's resources less what
 *    it keeps back and what its allocations (live and planned) hold; a node without room counts
 *    in `NodesExhausted`, `ClassExhausted` and `DimensionExhausted` (`cores`, `cpu`, `memory`,
 *    `disk`); the fit is scored (`ScoreFitBinPack`, over 18);
 * 4. ranking (generic jobs): job anti-affinity (`-(collisions+1)/count` where the group already
 *    runs), the rescheduling penalty (-1 on the nodes a replaced allocation failed on), node
 *    affinities (the weights of those met, over the sum of their magnitudes) and spreads (the
 *    reference's boost toward each target's share, or toward the least used value); the score is
 *    their average (`ScoreNormalizationIterator`);
 * 5. the choice (`LimitIterator`, `MaxScoreIterator`): the first few nodes that rank (2, or log2
 *    of the nodes for a service job; at least 100 with affinities or spreads), passing over up to
 *    3 that score 0 or less while later ones come, and the best of them, the first on a tie. A
 *    system job's stack takes its one node if it fits.
 *
 * Where the agent differs, so that a placement is the same on every run: the reference shuffles
 * the nodes first (`ShuffleNodes`); the agent takes them in the order of the node table. A failed
 * placement's counts are the reference's, since it evaluates every node in both.
 *
 * @module
 */
import type { Job, JsonObject, Node, SchedulerAlgorithm, TaskGroup } from "../state/model.js";
import { affinitiesOf, computedClass, ConstraintCache, constraintName, constraintsOf, distinctHosts, escapesClass, FILTER_CLASS_INELIGIBLE, FILTER_DRIVERS, groupConstraints, hasDrivers, meetsConstraint, OPERANDS, propertyOf, PropertySet, spreadsOf, unmetConstraint, wantsDistinctHosts, type Constraint } from "./feasible.js";
import { fingerprintResources } from "./fingerprint.js";
import { FILTER_HOST_VOLUMES, HostVolumeChecker, type HostVolumeView } from "./host-volumes.js";
import { integer } from "./canonicalize.js";
import { allocateResources, comparableResources, freeCores, type ComparableResources, type NodeUsageIndex } from "./resources.js";

/** The best fit's score (`binPackingMaxFitScore`): both CPU and memory full. */
const BIN_PACKING_MAX_FIT_SCORE = 18;

/** What a failed placement reports (`structs.AllocMetric`), filled as the reference's iterators fill it. */
export class AllocMetric {
  /** Nodes taken from the stack's list (`NodesEvaluated`). */
  nodesEvaluated = 0;
  /** Nodes a feasibility check filtered out (`NodesFiltered`). */
  nodesFiltered = 0;
  /** Nodes without room (`NodesExhausted`). */
  nodesExhausted = 0;
  /** The group's further placements in the evaluation, not tried once one failed (`CoalescedFailures`). */
  coalescedFailures = 0;
  /** Nodes filtered, by node class (`ClassFiltered`). */
  readonly classFiltered = new Map<string, number>();
  /** Nodes filtered, by the check's reason (`ConstraintFiltered`). */
  readonly constraintFiltered = new Map<string, number>();
  /** Nodes without room, by node class (`ClassExhausted`). */
  readonly classExhausted = new Map<string, number>();
  /** Nodes without room, by the dimension that ran out (`DimensionExhausted`). */
  readonly dimensionExhausted = new Map<string, number>();
  /** Per task, what the group asked of an exhausted dimension, summed over its failed placements (`ResourcesExhausted`). */
  readonly resourcesExhausted = new Map<string, { cpu: number; memory: number }>();

  constructor(
    readonly nodePool: string,
    readonly nodesInPool: number,
    readonly nodesAvailable: Readonly<Record<string, number>>,
  ) {}

  /** A node filtered out by a feasibility check (`FilterNode`). */
  filter(node: Node, reason: string): void {
    this.nodesFiltered++;
    if (node.NodeClass !== "") bump(this.classFiltered, node.NodeClass);
    if (reason !== "") bump(this.constraintFiltered, reason);
  }

  /** A node without room (`ExhaustedNode`). */
  exhaust(node: Node, dimension: string): void {
    this.nodesExhausted++;
    if (node.NodeClass !== "") bump(this.classExhausted, node.NodeClass);
    if (dimension !== "") bump(this.dimensionExhausted, dimension);
  }

  /** Adds what the group's tasks ask of the exhausted dimensions (`ExhaustResources`), once per failed placement. */
  exhaustResources(group: TaskGroup): void {
    if (this.dimensionExhausted.size === 0) return;
    for (const task of Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]) : []) {
      const name = typeof task.Name === "string" ? task.Name : "";
      const resources = (typeof task.Resources === "object" && task.Resources !== null ? task.Resources : {}) as JsonObject;
      const exhausted = this.resourcesExhausted.get(name) ?? { cpu: 0, memory: 0 };
      if ((this.dimensionExhausted.get("memory") ?? 0) > 0) exhausted.memory += integer(resources.MemoryMB) ?? 0;
      if ((this.dimensionExhausted.get("cpu") ?? 0) > 0) exhausted.cpu += integer(resources.CPU) ?? 0;
      this.resourcesExhausted.set(name, exhausted);
    }
  }

  /** The metric as the reference writes it, in its field order (a nil map is null). */
  toJSON(): JsonObject {
    const map = (counts: ReadonlyMap<string, number>) => (counts.size === 0 ? null : Object.fromEntries(counts));
    return {
      NodesEvaluated: this.nodesEvaluated,
      NodesFiltered: this.nodesFiltered,
      NodesInPool: this.nodesInPool,
      NodePool: this.nodePool,
      NodesAvailable: this.nodesAvailable,
      ClassFiltered: map(this.classFiltered),
      ConstraintFiltered: map(this.constraintFiltered),
      NodesExhausted: this.nodesExhausted,
      ClassExhausted: map(this.classExhausted),
      DimensionExhausted: map(this.dimensionExhausted),
      QuotaExhausted: null,
      ResourcesExhausted:
        this.resourcesExhausted.size === 0
          ? null
          : Object.fromEntries(
              [...this.resourcesExhausted].map(([task, asked]) => [task, { CPU: asked.cpu, Cores: 0, MemoryMB: asked.memory, MemoryMaxMB: 0, DiskMB: 0, IOPS: 0, Networks: null, Devices: null, NUMA: null, SecretsMB: 0 }]),
            ),
      Scores: null,
      ScoreMetaData: null,
      AllocationTime: 0,
      CoalescedFailures: this.coalescedFailures,
    };
  }
}

/** Adds one to a count. */
function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** A node that passed the checks and has room, with its final score. */
interface RankedNode {
  readonly node: Node;
  readonly score: number;
}

/** The reference's default `NodeLimitForFeasibilityChecks`: how many fitting nodes a group with affinities or spreads ranks at least. */
const NODE_LIMIT_FOR_FEASIBILITY_CHECKS = 100;

/** A score at or below which the limit passes a node over while it can (`skipScoreThreshold`). */
const SKIP_SCORE_THRESHOLD = 0;

/** How many nodes at or below that score the limit passes over (`maxSkip`). */
const MAX_SKIP = 3;

/**
 * The first `limit` ranked nodes (`LimitIterator.Next`): up to {@link MAX_SKIP} nodes scoring at
 * or below {@link SKIP_SCORE_THRESHOLD} are passed over for later ones, and offered only once the
 * nodes run out.
 */
function* limited(source: Iterator<RankedNode>, limit: number): Generator<RankedNode> {
  const skipped: RankedNode[] = [];
  let skippedIndex = 0;
  const fromSource = () => {
    const next = source.next();
    return next.done === true ? undefined : next.value;
  };
  // The source's next node, or a skipped one once the source is exhausted.
  const nextOption = () => fromSource() ?? (skippedIndex < skipped.length ? skipped[skippedIndex++] : undefined);
  for (let seen = 0; seen < limit; ) {
    let option = nextOption();
    if (option === undefined) return;
    while (option !== undefined && option.score <= SKIP_SCORE_THRESHOLD && skipped.length < MAX_SKIP) {
      skipped.push(option);
      option = fromSource();
    }
    seen++;
    option ??= nextOption();
    if (option === undefined) return;
    yield option;
  }
}

/** What a stack chooses among. */
export interface StackInput {
  readonly job: Job;
  /** The nodes that can take the job: ready, eligible, in its datacenters and pool (`nodesFor`). */
  readonly nodes: readonly Node[];
  /** What the nodes' allocations hold; each allocation placed must be recorded in it (`record`) for the next choice to count it. */
  readonly usage: NodeUsageIndex;
  /** A node by ID, for the allocations `distinct_property` and spreads count (default: among `nodes`). */
  readonly nodeOf?: (id: string) => Node | undefined;
  /** A system or sysbatch job's stack: no `distinct_hosts`, no ranking (`SystemStack`). */
  readonly system?: boolean;
  /** How a node's fit is scored: `binpack` (the default) prefers the fullest node, `spread` the emptiest (`ScoreFitSpread`). */
  readonly algorithm?: SchedulerAlgorithm;
  /** The dynamic host volumes and sticky claims the groups' `volume` blocks are checked against (default: none, static volumes only). */
  readonly hostVolumes?: HostVolumeView;
}

/** A state without dynamic host volumes or claims. */
const NO_HOST_VOLUMES: HostVolumeView = { volume: () => undefined, claims: () => [], alloc: () => undefined, group: () => undefined };

/** What one choice takes into account (`SelectOptions`). */
export interface SelectOptions {
  /** The nodes the allocation being replaced (and its predecessors) failed on (`PenaltyNodeIDs`). */
  readonly penaltyNodeIds?: ReadonlySet<string>;
  /** Choose among these nodes instead of the stack's (a system job's one node). */
  readonly nodes?: readonly Node[];
  /** The name of the allocation placed (`AllocName`), for the `per_alloc` volumes it asks for. */
  readonly allocName?: string;
}

/** A node chosen, or the metric of the failed choice. */
export type Selection = { readonly ok: true; readonly node: Node; readonly score: number } | { readonly ok: false; readonly metric: AllocMetric };

/** The ready nodes of the stack counted by datacenter (`readyNodesInDCsAndPool`'s `byDC`). */
function byDatacenter(nodes: readonly Node[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const node of nodes) counts[node.Datacenter] = (counts[node.Datacenter] ?? 0) + 1;
  return counts;
}

/**
 * A job's scheduling stack for one evaluation: {@link Stack.select} chooses a node for an
 * allocation of a group. Verdicts on computed classes last as long as the stack (the reference's
 * `EvalEligibility`), so one stack serves one evaluation.
 *
 * A system scheduler places on each node in turn with a stack made with `system: true` and
 * `select(group, { nodes: [node] })` (`SystemStack`: no `distinct_hosts`, no ranking), and records
 * each allocation it places in the usage index (`usage.record`).
 */
export class Stack {
  readonly #cache = new ConstraintCache();
  readonly #jobConstraints: readonly Constraint[];
  readonly #jobEscapes: boolean;
  /** Per computed class, whether the job's constraints hold (`EvalEligibility.job`). */
  readonly #jobClasses = new Map<string, boolean>();
  /** Per group and computed class, whether the group's checks hold. */
  readonly #groupClasses = new Map<string, Map<string, boolean>>();
  /**
   * Per node, why the job's constraints fail there (undefined: they hold), and per group and node
   * why the group's checks do: a node's verdict stands for the stack's evaluation, so each
   * constraint is checked once per node however many allocations are placed (a constraint that
   * escapes the computed class, `${node.unique.name}` say, was checked again for every one).
   */
  readonly #jobVerdicts = new Map<string, string | undefined>();
  readonly #groupVerdicts = new Map<string, Map<string, string | undefined>>();
  readonly #nodesAvailable: Record<string, number>;
  /** How many fitting nodes a choice ranks (`GenericStack.SetNodes`): 2, or log2 of the nodes for a service job; raised for affinities and spreads, and kept raised. */
  #limit: number;

  constructor(private readonly input: StackInput) {
    this.#jobConstraints = constraintsOf(input.job.Constraints);
    this.#jobEscapes = escapesClass(this.#jobConstraints);
    this.#nodesAvailable = byDatacenter(input.nodes);
    const count = input.nodes.length;
    this.#limit = input.job.Type !== "batch" && count > 0 ? Math.max(2, Math.ceil(Math.log2(count))) : 2;
  }

  /** A node by ID. */
  #nodeOf(id: string): Node | undefined {
    return this.input.nodeOf?.(id) ?? this.input.nodes.find((node) => node.ID === id);
  }

  /**
   * Chooses a node for one allocation of `group`: the best-ranked node that passes every check
   * and has room, or the metric of why none did.
   */
  select(group: TaskGroup, options: SelectOptions = {}): Selection {
    const { job, usage, system = false } = this.input;
    const nodes = options.nodes ?? this.input.nodes;
    const metric = new AllocMetric(job.NodePool, this.input.nodes.length, this.#nodesAvailable);
    // A system job's stack judges each node afresh (`SystemStack.Select` resets the eligibility).
    if (system) {
      this.#jobClasses.clear();
      this.#groupClasses.clear();
    }
    const asked = groupConstraints(group);
    const groupEscapes = escapesClass(asked.constraints);
    let groupClasses = this.#groupClasses.get(group.Name);
    if (groupClasses === undefined) this.#groupClasses.set(group.Name, (groupClasses = new Map()));
    const jobLevel = constraintsOf(job.Constraints);
    const distinct = { job: !system && wantsDistinctHosts(jobLevel), group: !system && wantsDistinctHosts(constraintsOf(group.Constraints)) };
    const propertySets = [
      ...jobLevel.filter((each) => each.Operand === OPERANDS.distinctProperty).map((each) => new PropertySet(each.LTarget, undefined, each.RTarget)),
      ...constraintsOf(group.Constraints)
        .filter((each) => each.Operand === OPERANDS.distinctProperty)
        .map((each) => new PropertySet(each.LTarget, group.Name, each.RTarget)),
    ];
    const jobAllocs = propertySets.length === 0 ? [] : [...usage.jobAllocs(job.Namespace, job.ID)];
    const propertyUse = propertySets.map((set) => set.used(jobAllocs, (id) => this.#nodeOf(id)));
    const ranking = system ? undefined : this.#ranking(group);
    // What the group weighs is the same on every node, unless it reserves cores (whose speed is the node's).
    const wantedCores = (Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]) : []).reduce((sum, task) => sum + (integer((task.Resources as JsonObject | undefined)?.Cores) ?? 0), 0);
    let sameAsk: ComparableResources | undefined;
    // The host volumes are checked on every node, past the computed class (the reference's "available" checks).
    const volumes = new HostVolumeChecker(this.input.hostVolumes ?? NO_HOST_VOLUMES, job, group, options.allocName, (id) => usage.of(id).allocs);
    const askOn = (node: Node) => (wantedCores > 0 ? comparableResources(allocateResources(group, node, usage, undefined, false)) : (sameAsk ??= comparableResources(allocateResources(group, node, usage, undefined, false))));

    // The nodes that pass the checks and have room, ranked, one at a time as the limit asks for them.
    const ranked = function* (this: Stack): Generator<RankedNode> {
      for (const node of nodes) {
        metric.nodesEvaluated++;
        const infeasible = this.#infeasible(node, group.Name, asked, groupEscapes, groupClasses);
        if (infeasible !== undefined) {
          metric.filter(node, infeasible);
          continue;
        }
        if (!volumes.empty && !volumes.feasible(node)) {
          metric.filter(node, FILTER_HOST_VOLUMES);
          continue;
        }
        if (!distinctHosts(usage.of(node.ID).allocs, job, group.Name, distinct)) {
          metric.filter(node, OPERANDS.distinctHosts);
          continue;
        }
        const unmetProperty = propertySets.map((set, i) => set.satisfies(node, propertyUse[i]!)).find((reason) => reason !== undefined);
        if (unmetProperty !== undefined) {
          metric.filter(node, unmetProperty);
          continue;
        }
        const fit = this.#fit(node, wantedCores, askOn);
        if (!fit.ok) {
          metric.exhaust(node, fit.dimension);
          continue;
        }
        const scores = [fit.score, ...(ranking?.(node, options.penaltyNodeIds) ?? [])];
        yield { node, score: scores.reduce((sum, each) => sum + each, 0) / scores.length };
      }
    }.call(this);
    // A system job's one node is taken if it fits; a generic job's best among the first few (`LimitIterator`, `MaxScoreIterator`).
    if (!system && (ranking?.hasAffinitiesOrSpreads ?? false)) this.#limit = Math.max(this.#limit, group.Count < NODE_LIMIT_FOR_FEASIBILITY_CHECKS ? NODE_LIMIT_FOR_FEASIBILITY_CHECKS : group.Count);
    let best: RankedNode | undefined;
    for (const option of system ? ranked : limited(ranked, this.#limit)) if (best === undefined || option.score > best.score) best = option;
    return best === undefined ? { ok: false, metric } : { ok: true, ...best };
  }

  /** Why a node fails the job's and the group's checks (`FeasibilityWrapper.Next`), through its computed class when nothing escapes it; undefined when it passes. */
  #infeasible(node: Node, group: string, asked: { readonly constraints: readonly Constraint[]; readonly drivers: readonly string[] }, groupEscapes: boolean, groupClasses: Map<string, boolean>): string | undefined {
    const computed = computedClass(node);
    if (!this.#jobEscapes && this.#jobClasses.get(computed) === false) return FILTER_CLASS_INELIGIBLE;
    let unmet: string | undefined;
    if (this.#jobVerdicts.has(node.ID)) unmet = this.#jobVerdicts.get(node.ID);
    else {
      const constraint = unmetConstraint(this.#jobConstraints, node, this.#cache);
      unmet = constraint === undefined ? undefined : constraintName(constraint);
      this.#jobVerdicts.set(node.ID, unmet);
    }
    if (!this.#jobEscapes) this.#jobClasses.set(computed, unmet === undefined);
    if (unmet !== undefined) return unmet;
    if (!groupEscapes) {
      const known = groupClasses.get(computed);
      if (known === false) return FILTER_CLASS_INELIGIBLE;
      if (known === true) return undefined;
    }
    let verdicts = this.#groupVerdicts.get(group);
    if (verdicts === undefined) this.#groupVerdicts.set(group, (verdicts = new Map()));
    let reason: string | undefined;
    if (verdicts.has(node.ID)) reason = verdicts.get(node.ID);
    else {
      if (!hasDrivers(node, asked.drivers)) reason = FILTER_DRIVERS;
      else {
        const failed = asked.constraints.find((constraint) => !meetsConstraint(constraint, node, this.#cache));
        if (failed !== undefined) reason = constraintName(failed);
      }
      verdicts.set(node.ID, reason);
    }
    if (!groupEscapes) groupClasses.set(computed, reason === undefined);
    return reason;
  }

  /** Whether the group (asking `wantedCores` cores, and what `askOn` says it weighs on a node) fits on the node beside its proposed allocations (`BinPackIterator`, `AllocsFit`), and how well (`ScoreFitBinPack`, normalised). */
  #fit(node: Node, wantedCores: number, askOn: (node: Node) => ComparableResources): { readonly ok: true; readonly score: number } | { readonly ok: false; readonly dimension: string } {
    const { usage } = this.input;
    if (wantedCores > 0 && freeCores(node, usage) < wantedCores) return { ok: false, dimension: "cores" };
    const held = usage.of(node.ID).used;
    const ask = askOn(node);
    const used = { cpu: held.cpu + ask.cpu, memory: held.memory + ask.memory, disk: held.disk + ask.disk };
    // Rows written before the agent kept a node's resources stand for the simulated machine.
    const offered = node.NodeResources ?? fingerprintResources(node.Address);
    const reserved = node.ReservedResources;
    const available = {
      cpu: offered.Cpu.CpuShares - (reserved?.Cpu.CpuShares ?? 0),
      memory: offered.Memory.MemoryMB - (reserved?.Memory.MemoryMB ?? 0),
      disk: offered.Disk.DiskMB - (reserved?.Disk.DiskMB ?? 0),
    };
    if (available.cpu < used.cpu) return { ok: false, dimension: "cpu" };
    if (available.memory < used.memory) return { ok: false, dimension: "memory" };
    if (available.disk < used.disk) return { ok: false, dimension: "disk" };
    const total = 10 ** (1 - used.cpu / available.cpu) + 10 ** (1 - used.memory / available.memory);
    // Bin packing scores a full node best (20 - total), spreading an empty one (total - 2); both in [0, 18].
    const raw = this.input.algorithm === "spread" ? total - 2 : 20 - total;
    const fitness = Math.min(BIN_PACKING_MAX_FIT_SCORE, Math.max(0, raw));
    return { ok: true, score: fitness / BIN_PACKING_MAX_FIT_SCORE };
  }

  /** The generic stack's scorers after bin packing, for one group: each returns the scores it appends for a node (none when it does not apply). */
  #ranking(group: TaskGroup): ((node: Node, penalty: ReadonlySet<string> | undefined) => number[]) & { readonly hasAffinitiesOrSpreads: boolean } {
    const { job, usage } = this.input;
    const affinities = [...affinitiesOf(job.Affinities), ...affinitiesOf(group.Affinities), ...(Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]).flatMap((task) => affinitiesOf(task.Affinities)) : [])];
    const affinityWeight = affinities.reduce((sum, affinity) => sum + Math.abs(affinity.Weight), 0);
    const spread = this.#spreadScorer(group);
    const score = (node: Node, penalty: ReadonlySet<string> | undefined): number[] => {
      const scores: number[] = [];
      // Job anti-affinity: the group's allocations already there.
      const collisions = usage.of(node.ID).allocs.filter((alloc) => alloc.JobID === job.ID && alloc.TaskGroup === group.Name).length;
      if (collisions > 0) scores.push(-(collisions + 1) / group.Count);
      if (penalty?.has(node.ID)) scores.push(-1);
      if (affinities.length > 0 && affinityWeight > 0) {
        const met = affinities.filter((affinity) => meetsConstraint(affinity, node, this.#cache)).reduce((sum, affinity) => sum + affinity.Weight, 0);
        scores.push(met / affinityWeight);
      }
      const spreadScore = spread?.(node) ?? 0;
      if (spreadScore !== 0) scores.push(spreadScore);
      return scores;
    };
    return Object.assign(score, { hasAffinitiesOrSpreads: affinities.length > 0 || spread !== undefined });
  }

  /** The spread score of a node for one group (`SpreadIterator.Next`), or undefined when the job and group have no spread. */
  #spreadScorer(group: TaskGroup): ((node: Node) => number) | undefined {
    const { job, usage } = this.input;
    const spreads = [...spreadsOf(group.Spreads), ...spreadsOf(job.Spreads)];
    if (spreads.length === 0) return undefined;
    const sumWeights = spreads.reduce((sum, spread) => sum + spread.Weight, 0);
    // One entry per attribute, the last spread of an attribute winning, as the reference's map does.
    const details = new Map<string, { weight: number; desired: Map<string, number> }>();
    for (const spread of spreads) {
      const desired = new Map<string, number>();
      let sum = 0;
      for (const target of spread.SpreadTarget) {
        const count = (target.Percent / 100) * group.Count;
        desired.set(target.Value, count);
        sum += count;
      }
      if (sum > 0 && sum < group.Count) desired.set("*", group.Count - sum);
      details.set(spread.Attribute, { weight: spread.Weight, desired });
    }
    const sets = spreads.map((spread) => new PropertySet(spread.Attribute, group.Name, 0, new Set(spread.SpreadTarget.map((target) => target.Value))));
    // The values in use are counted once for the choice, not once for each node ranked.
    const jobAllocs = [...usage.jobAllocs(job.Namespace, job.ID)];
    const uses = sets.map((set) => set.used(jobAllocs, (id) => this.#nodeOf(id)));
    let lowestBoost = -1;
    return (node) => {
      let total = 0;
      for (const [i, set] of sets.entries()) {
        const use = uses[i]!;
        const value = propertyOf(node, set.property);
        if (!value.found) {
          total -= 1;
          continue;
        }
        const key = set.targeted(value.value);
        const used = (use.get(key) ?? 0) + 1;
        const detail = details.get(set.property)!;
        if (detail.desired.size === 0) {
          total += evenSpreadBoost(use, key);
          continue;
        }
        const desired = detail.desired.get(key) ?? detail.desired.get("*");
        if (desired === undefined) {
          total -= 1;
          continue;
        }
        if (desired === 0) {
          total += lowestBoost;
          continue;
        }
        const boost = ((desired - used) / desired) * (detail.weight / sumWeights);
        total += boost;
        if (boost < lowestBoost) lowestBoost = boost;
      }
      return total;
    };
  }
}

/** A spread without targets (`evenSpreadScoreBoost`): toward the values used least. */
function evenSpreadBoost(use: ReadonlyMap<string, number>, value: string): number {
  if (use.size === 0) return 0;
  const current = use.get(value) ?? 0;
  const counts = [...use.values()];
  const min = Math.min(...counts);
  const max = Math.max(...counts);
  const delta = min === 0 ? -1 : (min - current) / min;
  if (current !== min) return delta;
  if (min === max) return -1;
  if (min === 0) return 1;
  return (max - min) / min;
}

/**
 * Whether one node can take an allocation of a system or sysbatch job's group, and why not
 * (`SystemStack.Select` on that node): the same checks and room as any placement, without
 * `distinct_hosts` or ranking. `nodes` are all the nodes the job can take, for the metric's
 * `NodesInPool` and `NodesAvailable`; record each allocation placed in `usage` (`usage.record`)
 * for the next node's room and `distinct_property` counts. A system scheduler placing on many
 * nodes in one evaluation may rather keep one `Stack` with `system: true` and call
 * `select(group, { nodes: [node] })` for each.
 */
export function feasibleOn(node: Node, job: Job, group: TaskGroup, usage: NodeUsageIndex, nodes: readonly Node[] = [node]): Selection {
  return new Stack({ job, nodes, usage, system: true }).select(group, { nodes: [node] });
}
