/**
 * The agent's cluster: its state, job registration, and a simulated scheduler that turns each
 * evaluation into placements and, for service jobs, a deployment that completes once its allocations are healthy.
 * The work itself is in functions along the reference's seams, each of (transaction, context):
 * `register.ts` (the job endpoint), `generic-sched.ts`, `reconciler.ts`, `reschedule.ts`,
 * `alloc-names.ts`, `placement.ts` and `plan.ts` (the scheduler), `blocked.ts` (blocked
 * evaluations, nodes down), `deployment-watcher.ts`, `client.ts` (the simulated clients),
 * `rules.ts` (scenario rules), `periodic.ts` and `dispatch.ts` (periodic and parameterized jobs'
 * children) and `state.ts` (the state store's rules); this class decides when each runs.
 *
 * Timeline of a service job registered at index N (delay D, an agent option), one write each:
 * - N: the job (pending) and a pending evaluation;
 * - right after: the plan (allocations placed, summary `Starting`, a deployment `running` that
 *   counts them placed, an older version's active deployment cancelled; the job `running`), then
 *   the evaluation complete;
 * - D/2: allocations run (summary `Running`);
 * - D/2 + the group's `MinHealthyTime` (10 s by default): the allocations are healthy, then the
 *   deployment is `successful` (or the next `MaxParallel` allocations of an update are placed,
 *   and so on). An allocation not healthy by its `HealthyDeadline` (from its placement) is
 *   unhealthy, and a deployment that has not made progress by its `RequireProgressBy` fails; a
 *   failed deployment whose groups say `AutoRevert` reverts its job (`deployment-watcher.ts`).
 *
 * The placement delay only says when allocations run; their health is the update block's, as the
 * reference's client health tracker finds it.
 *
 * Only the leader runs the scheduler (see {@link Cluster.lead}): an evaluation written by any agent
 * of a shared store reaches it through the store's change feed, and a new leader takes up the
 * work in flight from the state, so nothing depends on the timers of an agent that died.
 *
 * @module
 */
import { newUuid } from "../base/ids.js";
import { conflict, invalid, missing } from "../base/errors.js";
import type { Allocation, Deployment, Evaluation, HostVolume, Job, JsonObject, Namespace, Node, Variable } from "../state/model.js";
import { RealClock, type Clock } from "../base/clock.js";
import { changeStep, defaultLifecycle, RulePass, RULES_COST_PER_WRITE, SCENARIO_TABLES, stepTakes, type LifecycleStep, type LifecycleStepName, type LifecycleStepState, type ScenarioRuleState } from "./scenarios.js";
import type { RegisterRequest } from "./job-spec.js";
import { namespacedKey, type AppliedWrite, type Store } from "../state/store.js";
import { deregister, register, type DeregisterResponse, type RegisterResponse } from "./register.js";
import { allowReplacements, completeDeployment, nextHealthMs, passProgressDeadline, progressCutoffMs, updateDeployment, WATCHER_BATCH_MS, type DeploymentAction, type DeploymentUpdateResponse } from "./deployment-watcher.js";
import { processEvaluation } from "./generic-sched.js";
import { nodesDown, nodesReady, unblockable } from "./blocked.js";
import { fateOf, finishAllocations, runAllocations, stopAllocations } from "./client.js";
import { SimulatedClients } from "./client-actions.js";
import { ACTIVE_DEPLOYMENT, isTerminal, registered } from "./state.js";
import { fingerprint, registrationTime, SIMULATED_ATTRIBUTES, SIMULATED_NOMAD_VERSION } from "./fingerprint.js";
import { RULE_STEP_PREFIX, ScenarioRules } from "./rules.js";
import { StepQueue } from "./timers.js";
import { launchPeriodic, PERIODIC_STEP_PREFIX, PeriodicDispatch } from "./periodic.js";
import { dispatch, type DispatchRequest, type DispatchResponse } from "./dispatch.js";
import { evaluateJob, markJobStability, revertJob, scaleJob, scaleStatus, stopAllocation, type AllocStopResponse, type RevertRequest, type ScaleRequest } from "./job-actions.js";
import { deleteServiceRegistration, servicesStale, syncServices } from "./services.js";
import type { SchedulerContext } from "./state.js";
import { applyVariable, isLockStep, VariableLocks, type ApplyOutcome, type VariableInput, type VarOp } from "./variables.js";
import { planJob, type JobPlan } from "./plan-job.js";
import { drainDeadlineMs, drainNodes } from "./drainer.js";
import { evaluateNode, purgeNode, updateDrain, updateEligibility, type DrainRequest, type NodeUpdateResponse } from "./node-update.js";
import { collectGarbage, deleteEvaluations, deleteNodePool, reconcileSummaries, setSchedulerConfig, upsertNodePool, type EvalDeleteResponse, type GarbageCollected, type SchedulerSetConfigurationResponse } from "./operator.js";
import { schedulerConfigOf } from "../state/operator.js";
import { deleteHostVolume, deleteHostVolumeClaim, HOST_VOLUME_READY_MS, readyHostVolumes, writeHostVolume, type HostVolumeInput, type HostVolumeWriteKind, type HostVolumeWriteResponse } from "./host-volumes.js";
import { applyNodeMeta, setNodeDriver, type DriverChange, type NodeMetaView } from "./node-client.js";
import type { DriverInfo, NodePool, SchedulerConfiguration } from "../state/model.js";

export { CLIENT_DESCRIPTIONS, DEPLOYMENT_DESCRIPTIONS, isTerminal } from "./state.js";
export { META_EXIT_CODE, META_RUN_FOR } from "./client.js";
export { META_FAIL_DEPLOYMENT, type DeploymentUpdateResponse } from "./deployment-watcher.js";
export { MAX_JOB_VERSIONS, type DeregisterResponse, type RegisterResponse } from "./register.js";
export { matchesGlob } from "./placement.js";

/** How long the scheduler waits before it reads the state again after a step failed (its database was away). */
const RETRY_MS = 1000;

/** Options of a {@link Cluster}. */
export interface ClusterOptions {
  readonly region: string;
  /** Milliseconds from placement until allocations run, twice over (they run at half of it); health follows the update block. */
  readonly placementDelayMs: number;
  /** Told of a scheduler step that failed (a shared store's database went away, say); the leader takes the work up again a second later. */
  readonly onError?: (error: unknown) => void;
  /** The clock of timestamps and of the scheduler's steps (the machine's by default). */
  readonly clock?: Clock;
  /** The cost units the steps' and the rules' filters may spend on one write's rows or one scan of the state (default {@link RULES_COST_PER_WRITE}). */
  readonly rulesCostPerWrite?: number;
}

/** Milliseconds until `afterMs` past a row's creation (`createdNs`, the clock's nanoseconds) when it is `nowMs`; 0 when that is past. */
function dueInMs(createdNs: bigint, afterMs: number, nowMs: number): number {
  return Math.max(0, Number(createdNs / 1_000_000n) + afterMs - nowMs);
}

/** The cluster state and its simulated scheduler. */
export class Cluster {
  /** The scheduled steps, by name (one of each). */
  readonly #steps: StepQueue;
  readonly #rules: ScenarioRules;
  /** The periodic jobs' launches (see `periodic.ts`). */
  readonly #periodic: PeriodicDispatch;
  /** The variables' lock timers (see `variables.ts`). */
  readonly #locks: VariableLocks;
  /** The built-in lifecycle's steps, as a test left them. */
  #lifecycle = defaultLifecycle();
  #leading = false;
  /** True while the cluster has lost its leader (a test's switch): nothing of the scheduler runs. */
  #suspended = false;
  readonly #unsubscribe: () => void;
  /** What the scheduler's functions read besides their transaction. */
  readonly #context: SchedulerContext;
  /** The nodes seen draining (from the rows of the writes observed): while there are any, allocations' changes wake the drainer. */
  readonly #draining = new Set<string>();

  /** The clock of timestamps and of the scheduler's steps. */
  readonly clock: Clock;
  /** The simulated clients' answers to a user's actions on the allocations they run (see `client-actions.ts`). */
  readonly clients: SimulatedClients;

  constructor(
    readonly store: Store,
    readonly options: ClusterOptions,
  ) {
    this.clock = options.clock ?? new RealClock();
    this.#context = { store, clock: this.clock, placementDelayMs: options.placementDelayMs, evaluating: new Map() };
    this.#steps = new StepQueue(this.clock, (error) => {
      this.options.onError?.(error);
      // The state still says what is left to do: the leader reads it again a little later.
      this.#steps.defer("reconcile", RETRY_MS, async () => {
        if (this.#active) this.#scheduleAll(this.#pass());
      });
    });
    this.#rules = new ScenarioRules(this.#context, this.#steps);
    this.#periodic = new PeriodicDispatch(this.#context, this.#steps);
    this.#locks = new VariableLocks(this.#context, this.#steps);
    this.clients = new SimulatedClients(this.#context);
    this.#unsubscribe = store.subscribe((write) => this.#observe(write));
  }

  /**
   * Puts the state of a new cluster into a new store (nothing on a store that already has state):
   * the `default` namespace, and `nodes` simulated client nodes in `datacenter`, ready, each with
   * what its client fingerprinted and registered a second later (see `fingerprint.ts`).
   */
  async seed(nodes = 0, datacenter = "dc1"): Promise<void> {
    const registeredAt = registrationTime(this.clock.nowMs());
    await this.store.seed(["namespaces", "nodes"], (state) => {
      state.namespaces.put({ Name: "default", Description: "Default shared namespace", Quota: "", Meta: null, CreateIndex: 1, ModifyIndex: 1 });
      for (let i = 1; i <= nodes; i++) {
        const address = `127.0.0.${i % 250 + 1}`;
        state.nodes.put({
          ID: newUuid(),
          Name: `client-${i}`,
          Datacenter: datacenter,
          NodePool: "default",
          NodeClass: "",
          Address: address,
          Status: "ready",
          StatusDescription: "",
          SchedulingEligibility: "eligible",
          Drain: false,
          Version: SIMULATED_NOMAD_VERSION,
          Attributes: { ...SIMULATED_ATTRIBUTES },
          ...fingerprint({ Address: address }),
          Meta: {},
          ...registered(registeredAt, 1),
          CreateIndex: 1,
          ModifyIndex: 1,
        });
      }
    });
  }

  /** Registers a job (`PUT /v1/jobs`), with the namespace and region already resolved (see `register.ts`). */
  register(request: RegisterRequest, namespace: string, region: string): Promise<RegisterResponse> {
    return register(this.#context, request, namespace, region);
  }

  /** Stops or purges a job (`DELETE /v1/job/<id>`; see `register.ts`). */
  deregister(namespace: string, id: string, options: { readonly purge: boolean; readonly evalPriority?: number }): Promise<DeregisterResponse> {
    return deregister(this.#context, namespace, id, options);
  }

  /** Dispatches a parameterized job (`PUT /v1/job/<id>/dispatch`; see `dispatch.ts`). */
  dispatch(namespace: string, request: DispatchRequest): Promise<DispatchResponse> {
    return dispatch(this.#context, namespace, request);
  }

  /**
   * Launches a periodic job now (`PUT /v1/job/<id>/periodic/force`; see `periodic.ts`), whatever
   * its overlap rule, as the reference's `ForceEval` does.
   *
   * @throws a `not_found` refusal for a job that does not exist, an `invalid` one with the
   *   reference's text for a job that is not periodic or not launched (disabled, stopped).
   */
  async forcePeriodic(namespace: string, id: string): Promise<{ readonly EvalID: string; readonly EvalCreateIndex: number; readonly Index: number }> {
    const launched = await launchPeriodic(this.#context, namespacedKey(namespace, id), this.clock.nowMs(), true);
    if (launched === "not found") throw missing("job not found");
    if (launched === "not periodic") throw invalid("can't force launch non-periodic job");
    if (launched === "not tracked" || launched === undefined) throw invalid(`force launch for job ${JSON.stringify(id)} failed: can't force run non-tracked job ${JSON.stringify(id)} (${namespace})`);
    return { EvalID: launched.evaluation.ID, EvalCreateIndex: launched.index, Index: launched.index };
  }

  /** Reverts a job to an older version (`PUT /v1/job/<id>/revert`; see `job-actions.ts`). */
  revertJob(namespace: string, id: string, request: RevertRequest): Promise<RegisterResponse> {
    return revertJob(this.#context, namespace, id, request);
  }

  /** Marks a version of a job stable or not (`PUT /v1/job/<id>/stable`); the index of the write. */
  markJobStability(namespace: string, id: string, version: number, stable: boolean): Promise<number> {
    return markJobStability(this.#context, namespace, id, version, stable);
  }

  /** Evaluates a job again, failed allocations forced to reschedule when asked (`PUT /v1/job/<id>/evaluate`). */
  evaluateJob(namespace: string, id: string, forceReschedule: boolean): Promise<RegisterResponse> {
    return evaluateJob(this.#context, namespace, id, forceReschedule);
  }

  /** Plans a job on the state as it is now, writing nothing (`PUT /v1/job/<id>/plan`). */
  planJob(job: JsonObject, namespace: string, region: string): JobPlan {
    return planJob(this.#context, job, namespace, region);
  }

  /** Scales a task group, keeping the scaling event (`PUT /v1/job/<id>/scale`). */
  scaleJob(namespace: string, id: string, request: ScaleRequest): Promise<RegisterResponse> {
    return scaleJob(this.#context, namespace, id, request);
  }

  /** A job's scale status (`GET /v1/job/<id>/scale`) at the state as it is now; undefined for a job that does not exist. */
  scaleStatus(namespace: string, id: string): ReturnType<typeof scaleStatus> {
    return scaleStatus(this.#context, namespace, id);
  }

  /** Applies a checked variable write (`Variables.Apply`); a released lock's timers stop. */
  async applyVariable(op: VarOp, input: VariableInput): Promise<ApplyOutcome> {
    const outcome = await applyVariable(this.#context, op, input);
    if (op === "lock-release" && outcome.result === "ok" && input.Lock !== null) this.#locks.forget([{ Namespace: input.Namespace, Path: input.Path, ID: input.Lock.ID }]);
    return outcome;
  }

  /**
   * Renews a variable's lock (`Variables.RenewLock`): 404 without the variable, 409 when it holds
   * no lock, another's, or one lost (its timer ended). An agent that does not lead keeps no
   * timers: it renews a lock the state says is held, and the leader's timer goes on.
   */
  renewLock(namespace: string, path: string, lockId: string): Variable {
    const variable = this.store.tables.variables.get(namespacedKey(namespace, path));
    if (variable === undefined) throw missing("variable doesn't exist");
    const lock = variable.Lock;
    if (lock === null) throw conflict("variable doesn't hold a lock");
    if (lock.ID !== lockId) throw conflict("attempting to modify locked variable");
    if (this.#active && !this.#locks.renew({ ...variable, Lock: lock })) throw conflict("attempting to modify locked variable");
    return variable;
  }

  /** Removes a native service registration (`DELETE /v1/service/<name>/<id>`): the write's index, or undefined when there is none of that ID in the namespace. */
  deleteServiceRegistration(namespace: string, id: string): Promise<number | undefined> {
    return deleteServiceRegistration(this.#context, namespace, id);
  }

  /** Stops an allocation, which is replaced (`PUT /v1/allocation/<id>/stop`). */
  stopAllocation(alloc: Allocation, options: { readonly noShutdownDelay: boolean; readonly reschedule: boolean }): Promise<AllocStopResponse> {
    return stopAllocation(this.#context, alloc, options);
  }

  /** A deployment action: fail, pause or resume, promote (see `deployment-watcher.ts`). */
  updateDeployment(id: string, action: DeploymentAction): Promise<DeploymentUpdateResponse> {
    return updateDeployment(this.#context, id, action);
  }

  /** Marks a node eligible or ineligible (`PUT /v1/node/<id>/eligibility`; see `node-update.ts`). */
  updateNodeEligibility(id: string, eligibility: string): Promise<NodeUpdateResponse> {
    return updateEligibility(this.#context, id, eligibility);
  }

  /** Sets or removes a node's drain strategy (`PUT /v1/node/<id>/drain`; see `node-update.ts` and `drainer.ts`). */
  updateNodeDrain(id: string, request: DrainRequest): Promise<NodeUpdateResponse> {
    return updateDrain(this.#context, id, request);
  }

  /** Removes a node (`POST /v1/node/<id>/purge`) and evaluates the jobs it had allocations of. */
  purgeNode(id: string): Promise<NodeUpdateResponse> {
    return purgeNode(this.#context, id);
  }

  /** Evaluates a node's jobs (`POST /v1/node/<id>/evaluate`). */
  evaluateNode(id: string): Promise<NodeUpdateResponse> {
    return evaluateNode(this.#context, id);
  }

  /** Writes the scheduler configuration, with check-and-set when `cas` is given (see `operator.ts`); unpausing the eval broker lets the pending evaluations run. */
  setSchedulerConfig(update: Omit<SchedulerConfiguration, "Name" | "CreateIndex" | "ModifyIndex">, cas: number | undefined): Promise<SchedulerSetConfigurationResponse> {
    return setSchedulerConfig(this.#context, update, cas);
  }

  /** Sets a node's task driver detected or not, healthy or not, as its client would report it (see `node-client.ts`). */
  setNodeDriver(nodeId: string, name: string, change: DriverChange): Promise<{ readonly drivers: Readonly<Record<string, DriverInfo>>; readonly index: number }> {
    return setNodeDriver(this.#context, nodeId, name, change);
  }

  /** Applies dynamic metadata to a node, as its client's `NodeMeta.Apply` (see `node-client.ts`). */
  applyNodeMeta(nodeId: string, meta: Readonly<Record<string, string | null>>): Promise<NodeMetaView> {
    return applyNodeMeta(this.#context, nodeId, meta);
  }

  /** Creates or replaces a node pool (not a built-in one). */
  upsertNodePool(pool: Omit<NodePool, "CreateIndex" | "ModifyIndex">): Promise<number> {
    return upsertNodePool(this.#context, pool);
  }

  /** Deletes a node pool that no node and no live job is in. */
  deleteNodePool(name: string): Promise<number> {
    return deleteNodePool(this.#context, name, this.options.region);
  }

  /** Deletes evaluations by ID or by a test, while the eval broker is paused (`DELETE /v1/evaluations`). */
  deleteEvaluations(selection: Parameters<typeof deleteEvaluations>[1]): Promise<EvalDeleteResponse> {
    return deleteEvaluations(this.#context, selection);
  }

  /** Collects the state's garbage now (`PUT /v1/system/gc`). */
  collectGarbage(): Promise<GarbageCollected> {
    return collectGarbage(this.#context);
  }

  /** Counts every job's summary again (`PUT /v1/system/reconcile/summaries`); the write's index. */
  reconcileSummaries(): Promise<number> {
    return reconcileSummaries(this.#context);
  }

  /** Creates or updates a namespace. */
  async putNamespace(namespace: Omit<Namespace, "CreateIndex" | "ModifyIndex">): Promise<number> {
    const { index } = await this.store.write(["namespaces"], (state) => {
      const previous = state.namespaces.get(namespace.Name);
      state.namespaces.put({ ...namespace, CreateIndex: previous?.CreateIndex ?? state.index, ModifyIndex: state.index });
    }, "NamespaceUpsert");
    return index;
  }

  /**
   * Deletes a namespace; `default` and namespaces with jobs that have not finished cannot be
   * deleted (400, where the reference answers 500).
   */
  async deleteNamespace(name: string): Promise<number> {
    if (name === "default") throw invalid("default namespace can not be deleted");
    const { index } = await this.store.write(["namespaces"], (state) => {
      if (state.namespaces.get(name) === undefined) throw invalid("namespace not found");
      const jobs = this.store.queries.jobs(name, "");
      let running: Job | undefined;
      for (let i = 0; i < jobs.size && running === undefined; i++) if (jobs.at(i).Status !== "dead") running = jobs.at(i);
      if (running !== undefined) {
        throw invalid(`namespace ${JSON.stringify(name)} contains at least one non-terminal job ${JSON.stringify(running.ID)}. All jobs must be terminal in namespace before it can be deleted`);
      }
      state.namespaces.delete(name);
    }, "NamespaceDelete");
    return index;
  }

  /** True while this agent runs the simulated scheduler (always, on a store of its own; the leader's, on a shared one). */
  get leading(): boolean {
    return this.#leading;
  }

  /**
   * Makes this agent the one that runs the simulated scheduler: it takes up the work in flight
   * from the state (pending evaluations now, pending allocations and running deployments when
   * their time comes, counted from when they were created), then the work of every write from
   * now on, this agent's or another's.
   */
  lead(): void {
    if (this.#leading) return;
    this.#leading = true;
    this.#takeUp();
  }

  /** True while the scheduler runs here: this agent leads, and the cluster has not lost its leader. */
  get #active(): boolean {
    return this.#leading && !this.#suspended;
  }

  /** Schedules the work in flight from the state as it is now, and lets each rule consider every row of its kind (a row it acted on is skipped). */
  #takeUp(): void {
    if (!this.#active) return;
    const pass = this.#pass();
    // A new leader launches what fell due while nobody led, then tracks every periodic job.
    this.#periodic.restore(this.store.tables.jobs.values());
    // As the reference's new leader restores its lock timers: each held lock gets a full TTL.
    this.#locks.track(this.store.tables.variables.values());
    this.#scheduleAll(pass);
    this.#rules.considerAll(pass, (kind) => this.store.tables[SCENARIO_TABLES[kind]].values());
  }

  /** A pass of the steps' and the rules' filters, with its cost budget: over one write's rows (at `index`), or over the whole state. */
  #pass(index?: number): RulePass {
    return new RulePass(this.options.rulesCostPerWrite ?? RULES_COST_PER_WRITE, index === undefined ? "a scan of the state" : `the write at index ${index}`);
  }

  /**
   * Stops the scheduler while the cluster has lost its leader (`true`), as the reference's servers
   * stop scheduling: no evaluation is processed and no client's update is written, so the state
   * stands still; its steps are dropped. Given the leader back (`false`), the leader takes the work
   * up again from the state, and steps that fell due meanwhile run at once.
   */
  suspend(suspended: boolean): void {
    if (this.#suspended === suspended) return;
    this.#suspended = suspended;
    if (suspended) this.#steps.drop();
    else this.#takeUp();
  }

  /** The built-in lifecycle's steps, in the order they act on a job. */
  get lifecycle(): readonly LifecycleStep[] {
    return [...this.#lifecycle.values()].map((state) => (state.lastError === undefined ? state.step : Object.freeze({ ...state.step, lastError: state.lastError })));
  }

  /**
   * Changes a step of the built-in lifecycle (its `select`, `after` or `enabled`) and plans the
   * work in flight again with it. Throws `ScenarioRuleError` for a change that cannot be used.
   */
  changeLifecycle(name: string, change: unknown): LifecycleStep {
    const state = changeStep(this.#lifecycle, name, change);
    this.#lifecycle.set(state.step.name, state);
    this.#replan();
    return state.step;
  }

  /** Puts the built-in lifecycle back as the agent started with it. */
  resetLifecycle(): void {
    this.#lifecycle = defaultLifecycle();
    this.#replan();
  }

  /** The simulated clients report each pending host volume {@link HOST_VOLUME_READY_MS} after it was written (see `host-volumes.ts`). */
  #readyVolumes(volumes: Iterable<HostVolume>): void {
    const nowMs = this.clock.nowMs();
    for (const volume of volumes) {
      if (volume.State !== "pending") continue;
      const key = namespacedKey(volume.Namespace, volume.ID);
      const dueMs = Number(volume.ModifyTime / 1_000_000n) + HOST_VOLUME_READY_MS;
      this.#steps.defer(`host-volume ${key} ${volume.ModifyIndex}`, Math.max(0, dueMs - nowMs), () => readyHostVolumes(this.#context, [key]));
    }
  }

  /** Creates or registers a dynamic host volume (`PUT /v1/volume/host/create`, `/register`), in the namespace the input names. */
  writeHostVolume(kind: HostVolumeWriteKind, input: HostVolumeInput): Promise<HostVolumeWriteResponse> {
    return writeHostVolume(this.#context, kind, input);
  }

  /** Deletes a dynamic host volume (`DELETE /v1/volume/host/<id>`); the write's index. */
  deleteHostVolume(namespace: string, id: string): Promise<number> {
    return deleteHostVolume(this.#context, namespace, id);
  }

  /** Deletes a sticky volume claim (`DELETE /v1/volumes/claim/<id>`); the write's index. */
  deleteHostVolumeClaim(namespace: string, id: string): Promise<number> {
    return deleteHostVolumeClaim(this.#context, namespace, id);
  }

  /** Drops the lifecycle's scheduled steps (not the rules') and schedules them again from the state. */
  #replan(): void {
    // The locks' timers are not the lifecycle's: a lock keeps its time.
    this.#steps.drop((name) => !name.startsWith(RULE_STEP_PREFIX) && !isLockStep(name));
    if (this.#active) this.#scheduleAll(this.#pass());
  }

  /** Stops running the scheduler (another agent leads now); the work in flight is left to the leader. */
  follow(): void {
    this.#leading = false;
    this.#steps.drop();
  }

  /**
   * Takes the work up again from the state as it is now, after a snapshot was restored or the
   * state reset: drops every scheduled step, forgets which rows the scenario rules acted on (a
   * row put back is acted on again), and, when leading, schedules from the tables as `lead` does
   * and lets each rule consider every row of its kind.
   */
  resync(): void {
    this.#steps.drop();
    this.#rules.forget();
    this.#takeUp();
  }

  /** The leader's part in every write: the work its rows start (the scheduler's steps follow from the state alone). */
  #observe(write: AppliedWrite): void {
    if (!this.#active) return;
    const rows = <Row>(changes: ReadonlyMap<string, Row | undefined> | undefined) => [...(changes?.values() ?? [])].filter((row): row is Row => row !== undefined);
    const { evals, allocs, deployment, nodes, jobs, scheduler_config: config, variables } = write.changes;
    // The eval broker unpaused: the evaluations it held are processed now.
    if (config !== undefined && !schedulerConfigOf(this.store.tables).PauseEvalBroker) this.#scheduleAll(this.#pass(write.index));
    this.#periodic.track(rows(jobs));
    this.#locks.track(rows(variables));
    this.#readyVolumes(rows(write.changes.host_volumes));
    // One budget for the write's rows: the steps first, then the rules in the order added.
    const pass = this.#pass(write.index);
    this.#schedule(pass, rows(evals), rows(allocs), rows(deployment), rows(nodes));
    this.#rules.considerAll(pass, (kind) => rows<unknown>(write.changes[SCENARIO_TABLES[kind]] as ReadonlyMap<string, unknown> | undefined));
  }

  /**
   * Adds a scenario rule (see `scenarios.ts`); it considers the rows there are now, then every
   * row a write changes. Throws `ScenarioRuleError` for a rule that cannot be used.
   */
  addRule(rule: unknown): ScenarioRuleState {
    const state = this.#rules.add(rule);
    if (this.#active) this.#rules.consider(this.#pass(), state, this.store.tables[SCENARIO_TABLES[state.rule.on]].values());
    return state;
  }

  /** Removes a scenario rule (and its steps not yet run); false when there is none of that ID. */
  removeRule(id: string): boolean {
    return this.#rules.remove(id);
  }

  /** The scenario rules, in the order added. */
  get rules(): readonly ScenarioRuleState[] {
    return this.#rules.all;
  }

  /**
   * Processes the evaluations of `evals` whose status is `status` (a step each): pending ones as
   * they are written, blocked ones when they are unblocked (see {@link Cluster.#reprocess}).
   */
  #process(pass: RulePass, evals: Iterable<Evaluation>, status: "pending" | "blocked"): void {
    const context = this.#context;
    const { evaluate } = this.#lifecycleSteps();
    const nowMs = this.clock.nowMs();
    // A paused eval broker hands out no evaluation (`PauseEvalBroker`); unpausing schedules them all again.
    const paused = () => schedulerConfigOf(this.store.tables).PauseEvalBroker;
    for (const evaluation of paused() ? [] : evals) {
      // An unblocked evaluation is handed to the step as the broker hands it out: pending (its status in the state stays blocked).
      if (evaluation.Status !== status || !stepTakes(evaluate, status === "pending" ? evaluation : { ...evaluation, Status: "pending" }, pass)) continue;
      // A follow-up evaluation waits for its time, as the reference's eval broker holds it.
      const waitUntil = evaluation.WaitUntil === undefined ? Number.NaN : Date.parse(evaluation.WaitUntil);
      const waiting = Number.isNaN(waitUntil) ? 0 : Math.max(0, waitUntil - nowMs);
      const own = evaluate.afterMs === undefined ? 0 : dueInMs(evaluation.CreateTime ?? this.clock.nowNs(), evaluate.afterMs, nowMs);
      this.#steps.defer(`process ${evaluation.ID}`, Math.max(waiting, own), async () => {
        if (!paused()) await processEvaluation(context, evaluation.ID);
      });
    }
  }

  /**
   * Blocked evaluations that a node or freed room may let place are processed again, as the
   * reference's blocked-evaluation tracker hands them to its eval broker (`BlockedEvals.Unblock`):
   * in memory, their status still `blocked` in the state, so that unblocking writes nothing; their
   * processing writes what it places, and the evaluation only when that changes it (`ReblockEval`).
   */
  #reprocess(evals: readonly Evaluation[]): void {
    if (evals.length > 0) this.#process(this.#pass(), evals, "blocked");
  }

  /** Schedules what every row of the state waits for (see {@link Cluster.#schedule}). */
  #scheduleAll(pass: RulePass): void {
    const { tables } = this.store;
    this.#periodic.track(tables.jobs.values());
    this.#readyVolumes(tables.host_volumes.values());
    this.#schedule(pass, tables.evals.values(), tables.allocs.values(), tables.deployment.values(), tables.nodes.values());
  }

  /**
   * Schedules the lifecycle's steps these rows wait for (see `LIFECYCLE_DEFAULTS`): a pending
   * evaluation is processed at once (a follow-up evaluation at its `WaitUntil`); pending
   * allocations run at half the placement delay after they were placed (those placed together,
   * together); a running allocation whose work ends finishes that long after it started; a
   * running deployment's allocations are found healthy or unhealthy when their time comes (see
   * `healthDue`), looked at again when one of them starts running, and the deployment's progress
   * deadline is watched. A step a test switched off or whose filter leaves a row out is not scheduled for it,
   * and a step's `after` replaces its own timing. Each step is scheduled once, and each checks
   * the state again when it runs. The steps' filters spend the pass's budget.
   *
   * The simulated clients and the deployment watcher act too: allocations the server stopped are
   * killed at once, and allocations found unhealthy in a deployment still going are looked at by
   * its watcher a moment later.
   */
  #schedule(pass: RulePass, evals: Iterable<Evaluation>, allocs: Iterable<Allocation>, deployments: Iterable<Deployment>, nodes: Iterable<Node> = []): void {
    const context = this.#context;
    const delay = this.options.placementDelayMs;
    for (const node of nodes) {
      // A node that can take allocations may unblock the blocked evaluations of jobs in its datacenter.
      if (node.Status === "ready" && node.SchedulingEligibility === "eligible") {
        this.#steps.defer("unblock", 0, async () => this.#reprocess(unblockable(context)));
        // And its system jobs run there too.
        this.#steps.defer("nodes-ready", 0, () => nodesReady(context));
      }
      // A node that is down loses its allocations: each of their jobs is evaluated again.
      if (node.Status === "down") this.#steps.defer("nodes-down", 0, () => nodesDown(context));
      // A draining node: the drainer looks at it now, and again at its deadline.
      if (node.DrainStrategy != null) {
        this.#draining.add(node.ID);
        const deadline = drainDeadlineMs(node, this.clock.nowMs());
        if (deadline !== undefined) this.#steps.defer(`drain-deadline ${node.ID} ${deadline}`, Math.max(0, deadline - this.clock.nowMs()), async () => void (await drainNodes(context)));
      } else this.#draining.delete(node.ID);
    }
    const { run, finish, complete } = this.#lifecycleSteps();
    const nowMs = this.clock.nowMs();
    const dueIn = (createdNs: bigint, after: number) => dueInMs(createdNs, after, nowMs);
    this.#process(pass, evals, "pending");
    const placed = new Map<string, Allocation[]>();
    const starting = new Set<string>();
    // While a node drains, every change of an allocation (a replacement healthy, one stopped) may let the drainer go on.
    const draining = this.#draining.size > 0;
    if (draining) {
      this.#steps.defer("drain", 0, async () => {
        // None left (a draining node purged, say): the drainer sleeps until a node drains again.
        if ((await drainNodes(context)) === 0) this.#draining.clear();
      });
    }
    for (const alloc of allocs) {
      const jobKey = namespacedKey(alloc.Namespace, alloc.JobID);
      // An allocation that stopped running frees room on its node, which a blocked evaluation may be waiting for.
      if (isTerminal(alloc)) this.#steps.defer("unblock-capacity", 0, async () => this.#reprocess(unblockable(context, "capacity")));
      if (alloc.DesiredStatus !== "run") {
        if (alloc.ClientStatus === "pending" || alloc.ClientStatus === "running") this.#steps.defer(`stop ${jobKey}`, 0, () => stopAllocations(context, jobKey));
        continue;
      }
      if (alloc.DeploymentStatus?.Healthy === false && alloc.DesiredTransition?.Reschedule !== true && alloc.DeploymentID !== "") {
        const deploymentId = alloc.DeploymentID;
        if (ACTIVE_DEPLOYMENT.has(this.store.tables.deployment.get(deploymentId)?.Status ?? "")) this.#steps.defer(`watch ${deploymentId}`, WATCHER_BATCH_MS, () => allowReplacements(context, deploymentId));
      }
      if (alloc.ClientStatus === "running" && alloc.DeploymentID !== "" && (alloc.DeploymentStatus?.Healthy ?? null) === null) starting.add(alloc.DeploymentID);
      // A running allocation updated in place, or a canary promoted: its client updates its native services.
      if (servicesStale(this.store.tables, alloc)) this.#steps.deferBatch("services", 0, alloc.ID, (ids) => syncServices(context, ids));
      if (alloc.ClientStatus === "pending" && stepTakes(run, alloc, pass)) {
        const batch = `run ${alloc.DeploymentID} ${jobKey} ${alloc.CreateIndex}`;
        placed.set(batch, [...(placed.get(batch) ?? []), alloc]);
      }
      // Allocations whose work ends (batch jobs, or any job with a run_for) finish that long after they started.
      if (alloc.ClientStatus === "running" && stepTakes(finish, alloc, pass)) {
        const runForMs = fateOf(context, alloc, finish.afterMs).runForMs;
        if (runForMs === undefined) continue;
        const startedMs = alloc.TaskRun?.StartedAt ?? Number(alloc.ModifyTime / 1_000_000n);
        // Those that end at the same time end in one write, as the reference's server batches its clients' updates.
        const endsAt = startedMs + runForMs;
        this.#steps.deferBatch(`finish @${endsAt}`, Math.max(0, endsAt - nowMs), alloc.ID, (ids) => finishAllocations(context, ids, this.#lifecycle.get("finish")!.afterMs));
      }
    }
    for (const [batch, batchAllocs] of placed) {
      const { CreateTime: created } = batchAllocs[0]!;
      this.#steps.defer(batch, dueIn(created, run.afterMs ?? delay / 2), () => runAllocations(context, batchAllocs.map((alloc) => alloc.ID)));
    }
    // A deployment is looked at again when one of its allocations starts (its health is counted from then).
    const watched = new Map<string, Deployment>([...deployments].map((deployment) => [deployment.ID, deployment]));
    for (const id of starting) {
      const deployment = this.store.tables.deployment.get(id);
      if (deployment !== undefined && !watched.has(id)) watched.set(id, deployment);
    }
    for (const deployment of watched.values()) {
      if (deployment.Status !== "running" || !stepTakes(complete, deployment, pass)) continue;
      // Its allocations are found healthy or not when their time comes (the update block's, or the step's own `after`); none placed (no node could take them), none waits.
      const healthMs = nextHealthMs(context, deployment, complete.afterMs);
      if (healthMs !== undefined) this.#steps.defer(`complete ${deployment.ID} ${healthMs}`, Math.max(0, healthMs - nowMs), () => completeDeployment(context, deployment.ID, this.#lifecycle.get("complete")!.afterMs, healthMs));
      // The watcher's deadline timer: a deployment that has not made progress by then fails.
      const cutoffMs = progressCutoffMs(context, deployment);
      if (cutoffMs !== undefined) this.#steps.defer(`deadline ${deployment.ID} ${cutoffMs}`, Math.max(0, cutoffMs - nowMs), () => passProgressDeadline(context, deployment.ID, this.#lifecycle.get("complete")!.afterMs, cutoffMs));
    }
  }

  /** The lifecycle's steps by name. */
  #lifecycleSteps(): { readonly [Name in LifecycleStepName]: LifecycleStepState } {
    const step = (name: LifecycleStepName) => this.#lifecycle.get(name)!;
    return { evaluate: step("evaluate"), run: step("run"), finish: step("finish"), complete: step("complete") };
  }

  /**
   * Runs the pending steps of the simulated scheduler now, in order (for the demo data): all of
   * the deployment lifecycle's, or with `immediateOnly` only the evaluations, leaving placements to
   * their timers. Allocations' ends (`bexpr.run_for`), scenario rules and periodic launches keep their times.
   */
  settle(immediateOnly = false): Promise<void> {
    // A periodic launch schedules the next one: settling them would never end.
    return this.#steps.settle((name) => !name.startsWith("finish ") && !name.startsWith(RULE_STEP_PREFIX) && !name.startsWith(PERIODIC_STEP_PREFIX) && !isLockStep(name), immediateOnly);
  }

  /** Stops the scheduler and wakes every waiting blocking query. */
  close(): void {
    this.#leading = false;
    this.#unsubscribe();
    this.#steps.drop();
    this.store.close();
  }
}
