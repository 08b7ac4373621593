/**
 * The agent's cluster: its tables, job registration, and a simulated scheduler that turns each
 * evaluation into placements and, for service jobs, a deployment that completes after a delay.
 *
 * Timeline of a service job registered at index N (delay D, an agent option):
 * - N: the job (pending) and a pending evaluation;
 * - right after: the evaluation completes, allocations start (summary `Starting`), a deployment
 *   starts (`running`), an older version's active deployment is cancelled; the job is `running`;
 * - D/2: allocations run (summary `Running`), the deployment counts them placed;
 * - D: the deployment counts them healthy and becomes `successful`.
 *
 * Only the leader runs the scheduler (see {@link Cluster.lead}): an evaluation written by any agent
 * of a shared store reaches it through the store's change feed, and a new leader takes up the
 * work in flight from the state, so nothing depends on the timers of an agent that died.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { invalid, missing } from "./errors.js";
import type { Allocation, ClientStatus, Deployment, DeploymentState, Evaluation, Job, JobSpec, JobSummary, JsonObject, Namespace, Node, TaskGroupSummary, TaskRun } from "../state/model.js";
import { RealClock, type Clock, type ClockTimer } from "./clock.js";
import {
  changeStep,
  changesOf,
  checkRule,
  defaultLifecycle,
  MAX_SCENARIO_RULES,
  RulePass,
  RULES_COST_PER_WRITE,
  SCENARIO_TABLES,
  ScenarioRuleError,
  selects,
  stepTakes,
  type LifecycleStep,
  type LifecycleStepName,
  type LifecycleStepState,
  type ScenarioKind,
  type ScenarioRuleState,
} from "./scenarios.js";
import { parseGoDuration } from "../../go/duration.js";
import { canonicalizeJob, formatErrors, specChanged, validateJob, type RegisterRequest } from "./register.js";
import { namespacedKey, TABLES, type AppliedWrite, type Store, type Tables, type Transaction } from "../state/store.js";

/** The texts of deployment states (the reference's constants). */
export const DEPLOYMENT_DESCRIPTIONS = {
  running: "Deployment is running",
  needsPromotion: "Deployment is running but requires manual promotion",
  paused: "Deployment is paused",
  resumed: "Deployment is running",
  successful: "Deployment completed successfully",
  markedFailed: "Deployment marked as failed",
  progressDeadline: "Failed due to progress deadline",
  unhealthy: "Failed due to unhealthy allocations",
  newerJob: "Cancelled due to newer version of job",
  stoppedJob: "Cancelled because job is stopped",
} as const;

/** The job `Meta` key that makes its deployments fail: their allocations never become healthy. */
export const META_FAIL_DEPLOYMENT = "bexpr.fail_deployment";

/** What `DELETE /v1/job/<id>` answers. */
export interface DeregisterResponse {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobModifyIndex: number;
  readonly VolumeEvalID: string;
  readonly VolumeEvalIndex: number;
  readonly Index: number;
  readonly LastContact: number;
  readonly KnownLeader: boolean;
  readonly NextToken: string;
}

/** What the deployment actions (`fail`, `pause`, `promote`) answer. */
export interface DeploymentUpdateResponse {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly DeploymentModifyIndex: number;
  readonly RevertedJobVersion: number | null;
  readonly Index: number;
}

const ACTIVE_DEPLOYMENT = new Set(["running", "paused", "blocked", "unblocking", "initializing", "pending"]);

/** What the client says of its allocation in each status (the reference's `getClientStatus` texts). */
export const CLIENT_DESCRIPTIONS: { readonly [Status in ClientStatus]: string } = {
  pending: "No tasks have started",
  running: "Tasks are running",
  complete: "All tasks have completed",
  failed: "Failed tasks",
  lost: "alloc is lost since its node is down",
  unknown: "alloc is unknown since its node is disconnected",
};

/** The reference's `TerminalStatus`: stopped or evicted by the server, or finished on the client. */
export function isTerminal(alloc: Allocation): boolean {
  return alloc.DesiredStatus !== "run" || alloc.ClientStatus === "complete" || alloc.ClientStatus === "failed" || alloc.ClientStatus === "lost";
}
const EMPTY_GROUP_SUMMARY: TaskGroupSummary = { Queued: 0, Complete: 0, Failed: 0, Running: 0, Starting: 0, Lost: 0, Unknown: 0 };


/** The job `Meta` key that makes its allocations finish that long after they start (a Go duration). */
export const META_RUN_FOR = "bexpr.run_for";
/** The job `Meta` key of the exit code its allocations finish with (not 0: they fail). */
export const META_EXIT_CODE = "bexpr.exit_code";

/** The versions of a job kept (the reference's `JobDefaultTrackedVersions`), and its newest stable one. */
export const MAX_JOB_VERSIONS = 6;

/** How long the scheduler waits before it reads the state again after a step failed (its database was away). */
const RETRY_MS = 1000;

/** Thrown inside a registration's write when the state it was planned on has moved (another agent's write): the registration plans again. */
const STALE_PLAN = Symbol("the job changed since the registration was planned");

/** What `PUT /v1/jobs` answers. */
export interface RegisterResponse {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobModifyIndex: number;
  readonly Warnings: string;
  readonly Index: number;
  readonly LastContact: number;
  readonly KnownLeader: boolean;
  readonly NextToken: string;
}

/** Deferred work of the simulated scheduler, run by timers, or at once with {@link Cluster.settle}. */
interface Task {
  readonly run: () => Promise<void>;
  readonly timer: ClockTimer;
  readonly delayMs: number;
  /** When the timer fires (epoch milliseconds); settling runs tasks in this order. */
  readonly dueAt: number;
}

/** Options of a {@link Cluster}. */
export interface ClusterOptions {
  readonly region: string;
  /** Milliseconds from registration until a deployment is healthy (allocations run at half of it). */
  readonly placementDelayMs: number;
  /** Told of a scheduler step that failed (a shared store's database went away, say); the leader takes the work up again a second later. */
  readonly onError?: (error: unknown) => void;
  /** The clock of timestamps and of the scheduler's steps (the machine's by default). */
  readonly clock?: Clock;
  /** The cost units the steps' and the rules' filters may spend on one write's rows or one scan of the state (default {@link RULES_COST_PER_WRITE}). */
  readonly rulesCostPerWrite?: number;
}

/** The cluster state and its simulated scheduler. */
export class Cluster {
  /** The scheduled steps, by name (one of each). */
  readonly #tasks = new Map<string, Task>();
  /** The steps their timers started that have not finished (a write on a shared store takes a while). */
  readonly #running = new Set<Promise<void>>();
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
  #ruleSequence = 0;
  /** The built-in lifecycle's steps, as a test left them. */
  #lifecycle = defaultLifecycle();
  #leading = false;
  /** True while the cluster has lost its leader (a test's switch): nothing of the scheduler runs. */
  #suspended = false;
  readonly #unsubscribe: () => void;

  /** The tables, to read (writes go through the store's transactions). */
  get #tables(): Tables {
    return this.store.tables;
  }

  /** The clock of timestamps and of the scheduler's steps. */
  readonly clock: Clock;

  constructor(
    readonly store: Store,
    readonly options: ClusterOptions,
  ) {
    this.clock = options.clock ?? new RealClock();
    this.#unsubscribe = store.subscribe((write) => this.#observe(write));
  }

  /**
   * Puts the state of a new cluster into a new store (nothing on a store that already has state):
   * the `default` namespace, and `nodes` simulated client nodes in `datacenter`, ready.
   */
  async seed(nodes = 0, datacenter = "dc1"): Promise<void> {
    await this.store.seed(["namespaces", "nodes"], (state) => {
      state.namespaces.put({ Name: "default", Description: "Default shared namespace", Quota: "", Meta: null, CreateIndex: 1, ModifyIndex: 1 });
      for (let i = 1; i <= nodes; i++) {
        state.nodes.put({
          ID: randomUUID(),
          Name: `client-${i}`,
          Datacenter: datacenter,
          NodePool: "default",
          NodeClass: "",
          Address: `127.0.0.${i % 250 + 1}`,
          Status: "ready",
          StatusDescription: "",
          SchedulingEligibility: "eligible",
          Drain: false,
          Version: "1.9.4",
          Attributes: { "kernel.name": "linux", "cpu.arch": "amd64", "os.name": "debian", "driver.docker": "1", "driver.exec": "1" },
          Meta: {},
          CreateIndex: 1,
          ModifyIndex: 1,
        });
      }
    });
  }

  /**
   * Registers a job (`PUT /v1/jobs`), with the namespace and region already resolved. The checks
   * are made again inside the write, on the latest state: when another agent of a shared store
   * changed the job in between, the registration starts over with the new state.
   */
  async register(request: RegisterRequest, namespace: string, region: string): Promise<RegisterResponse> {
    const spec = canonicalizeJob(request.job, namespace, region);
    const key = namespacedKey(spec.Namespace, spec.ID);
    for (;;) {
      const previous = this.#tables.jobs.get(key);
      const plan = this.#planRegistration(spec, request, previous);
      if (plan === undefined) return registerResponse("", 0, previous!.JobModifyIndex, previous!.ModifyIndex);
      try {
        const { index, result: evaluation } = await this.store.write(["jobs", "job_summary", "evals", "job_versions"], (state) => {
          // The state the plan was made on has moved: plan again.
          if (state.jobs.get(key) !== previous || (plan.changed && this.#tables.namespaces.get(spec.Namespace) === undefined)) throw STALE_PLAN;
          return this.#registerAt(state, spec, request, previous, plan);
        });
        const jobModifyIndex = plan.changed ? index : previous!.JobModifyIndex;
        return registerResponse(evaluation?.ID ?? "", evaluation === undefined ? 0 : index, jobModifyIndex, index);
      } catch (error) {
        if (error !== STALE_PLAN) throw error;
      }
    }
  }

  /** What registering `spec` over `previous` does; undefined when nothing (an unchanged periodic or parameterized job). */
  #planRegistration(spec: JobSpec, request: RegisterRequest, previous: Job | undefined): { changed: boolean; needsEval: boolean } | undefined {
    const errors = validateJob(spec, this.#tables.namespaces.get(spec.Namespace) !== undefined);
    // Invalid jobs are client mistakes: 400, where the reference answers 500 (decisions table).
    if (errors.length > 0) throw invalid(formatErrors(errors));
    if (request.enforceIndex) this.#enforceIndex(previous, request.jobModifyIndex);
    if (previous !== undefined && previous.Type !== spec.Type) {
      throw invalid(`cannot update job from type ${JSON.stringify(previous.Type)} to ${JSON.stringify(spec.Type)}`);
    }
    const changed = previous === undefined || specChanged(previous, spec);
    const needsEval = spec.Periodic === null && spec.ParameterizedJob === null;
    return changed || needsEval ? { changed, needsEval } : undefined;
  }

  /** The registration's write: the job (when changed), its summary, and its evaluation (when one is needed). */
  #registerAt(
    state: Transaction<"jobs" | "job_summary" | "evals" | "job_versions">,
    spec: JobSpec,
    request: RegisterRequest,
    previous: Job | undefined,
    plan: { changed: boolean; needsEval: boolean },
  ): Evaluation | undefined {
    const { index } = state;
    let job = previous;
    if (plan.changed) {
      job = {
        ...spec,
        Status: "pending",
        StatusDescription: "",
        Stable: false,
        Version: previous === undefined ? 0 : previous.Version + 1,
        SubmitTime: this.clock.nowNs(),
        CreateIndex: previous?.CreateIndex ?? index,
        ModifyIndex: index,
        JobModifyIndex: index,
      };
      this.#putSummary(state, job);
    }
    const evaluation = plan.needsEval
      ? this.#newEvaluation(index, { Namespace: spec.Namespace, Priority: request.evalPriority || spec.Priority, Type: spec.Type, TriggeredBy: "job-register", JobID: spec.ID, JobModifyIndex: job!.JobModifyIndex })
      : undefined;
    if (evaluation !== undefined) state.evals.put(evaluation);
    this.#putJob(state, job!);
    if (plan.changed) this.#putVersion(state, namespacedKey(spec.Namespace, spec.ID));
    return evaluation;
  }

  /**
   * Records the job as it is now as its version (`GET /v1/job/<id>/versions`), keeping the newest
   * {@link MAX_JOB_VERSIONS} and the newest stable one, as the reference prunes them.
   */
  #putVersion(state: Transaction<"jobs" | "job_versions">, key: string): void {
    const job = state.jobs.get(key);
    if (job === undefined) return;
    state.job_versions.put({ Namespace: job.Namespace, ID: job.ID, Version: job.Version, Job: job });
    const versions = [...state.job_versions.group(key).values()].sort((a, b) => b.Version - a.Version);
    const newestStable = versions.find((version) => version.Job.Stable);
    for (const version of versions.slice(MAX_JOB_VERSIONS)) if (version !== newestStable) state.job_versions.delete(`${key}\u0000${version.Version}`);
  }

  #enforceIndex(previous: Job | undefined, expected: number): void {
    const prefix = `Enforcing job modify index ${expected}`;
    if (expected === 0 && previous !== undefined) throw invalid(`${prefix}: job already exists`);
    if (expected !== 0 && previous === undefined) throw invalid(`${prefix}: job does not exist`);
    if (previous !== undefined && expected !== 0 && previous.JobModifyIndex !== expected) {
      throw invalid(`${prefix}: job exists with conflicting job modify index: ${previous.JobModifyIndex}`);
    }
  }

  /**
   * Stops a job (`DELETE /v1/job/<id>`): a new version with `Stop` set and a `job-deregister`
   * evaluation, which the scheduler turns into stopped allocations and cancelled deployments; with
   * `purge`, the job, its summary, allocations and deployments are removed and its pending
   * evaluations completed. A job that does not exist is answered with zeros, as the reference does.
   */
  async deregister(namespace: string, id: string, options: { readonly purge: boolean; readonly evalPriority?: number }): Promise<DeregisterResponse> {
    const key = namespacedKey(namespace, id);
    const zero: DeregisterResponse = { EvalID: "", EvalCreateIndex: 0, JobModifyIndex: 0, VolumeEvalID: "", VolumeEvalIndex: 0, Index: 0, LastContact: 0, KnownLeader: false, NextToken: "" };
    if (this.#tables.jobs.get(key) === undefined) return zero;
    const { index, result } = await this.store.write(["jobs", "job_summary", "evals", "allocs", "deployment", "job_versions"], (state) => {
      const job = state.jobs.get(key);
      if (job === undefined) return undefined;
      const now = this.clock.nowNs();
      const needsEval = job.Periodic === null && job.ParameterizedJob === null;
      if (options.purge) {
        state.jobs.delete(key);
        state.job_summary.delete(key);
        for (const alloc of [...state.allocs.group(key).values()]) state.allocs.delete(alloc.ID);
        for (const deployment of [...state.deployment.group(key).values()]) state.deployment.delete(deployment.ID);
        for (const version of [...state.job_versions.group(key).values()]) state.job_versions.delete(`${key}\u0000${version.Version}`);
        for (const evaluation of [...state.evals.group(key).values()]) {
          if (evaluation.Status === "pending") state.evals.put({ ...evaluation, Status: "complete", StatusDescription: `job ${id} deleted`, ModifyIndex: state.index, ModifyTime: now });
        }
      } else {
        this.#putJob(state, { ...job, Stop: true, Version: job.Version + 1, SubmitTime: now, ModifyIndex: state.index, JobModifyIndex: state.index });
        this.#putVersion(state, key);
      }
      // The reference writes "service" whatever the job's type.
      const evaluation = needsEval
        ? this.#newEvaluation(state.index, { Namespace: namespace, Priority: options.evalPriority || job.Priority || 50, Type: "service", TriggeredBy: "job-deregister", JobID: id, JobModifyIndex: state.index })
        : undefined;
      if (evaluation !== undefined) state.evals.put(evaluation);
      return evaluation;
    });
    return { ...zero, EvalID: result?.ID ?? "", EvalCreateIndex: index, JobModifyIndex: index, Index: index };
  }

  /**
   * A deployment action: `fail` marks it failed, `pause` pauses or resumes it, `promote` promotes
   * its canaries (every group, or those named). Each writes a `deployment-watcher` evaluation, as
   * the reference's deployment watcher does. An unknown deployment is a 404 and a finished one a
   * 400, where the reference answers 500 (the decisions table).
   */
  async updateDeployment(
    id: string,
    action: { readonly kind: "fail" } | { readonly kind: "pause"; readonly pause: boolean } | { readonly kind: "promote"; readonly groups?: readonly string[] },
  ): Promise<DeploymentUpdateResponse> {
    const verb = action.kind === "pause" ? (action.pause ? "pause" : "resume") : action.kind;
    const { index, result } = await this.store.write(["deployment", "evals", "jobs"], (state) => {
      const deployment = state.deployment.get(id);
      if (deployment === undefined) throw missing("deployment not found");
      if (!ACTIVE_DEPLOYMENT.has(deployment.Status)) throw invalid(`can't ${verb} terminal deployment`);
      const now = this.clock.nowNs();
      let change: Partial<Deployment>;
      switch (action.kind) {
        case "fail":
          change = { Status: "failed", StatusDescription: DEPLOYMENT_DESCRIPTIONS.markedFailed };
          break;
        case "pause":
          change = action.pause ? { Status: "paused", StatusDescription: DEPLOYMENT_DESCRIPTIONS.paused } : { Status: "running", StatusDescription: DEPLOYMENT_DESCRIPTIONS.resumed };
          break;
        case "promote": {
          const unknown = (action.groups ?? []).filter((group) => !Object.hasOwn(deployment.TaskGroups, group));
          if (unknown.length > 0) throw invalid(`deployment has no task group ${JSON.stringify(unknown[0])}`);
          const groups = Object.fromEntries(
            Object.entries(deployment.TaskGroups).map(([name, group]) => [name, action.groups === undefined || action.groups.includes(name) ? { ...group, Promoted: true } : group]),
          );
          change = { TaskGroups: groups, StatusDescription: deployment.Status === "running" ? DEPLOYMENT_DESCRIPTIONS.running : deployment.StatusDescription };
          break;
        }
      }
      state.deployment.put({ ...deployment, ...change, ModifyIndex: state.index, ModifyTime: now });
      const evaluation = this.#newEvaluation(state.index, {
        Namespace: deployment.Namespace,
        Priority: deployment.EvalPriority,
        Type: "service",
        TriggeredBy: "deployment-watcher",
        JobID: deployment.JobID,
        JobModifyIndex: deployment.JobModifyIndex,
        DeploymentID: deployment.ID,
      });
      state.evals.put(evaluation);
      const job = state.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
      if (job !== undefined) this.#putJob(state, job);
      return evaluation;
    });
    return { EvalID: result.ID, EvalCreateIndex: index, DeploymentModifyIndex: index, RevertedJobVersion: null, Index: index };
  }

  /**
   * A new evaluation written at `index`, now: `fields` say what it is for; it is pending unless
   * they say otherwise.
   */
  #newEvaluation(index: number, fields: Omit<Evaluation, "ID" | "Status" | "CreateIndex" | "ModifyIndex" | "CreateTime" | "ModifyTime"> & Partial<Pick<Evaluation, "Status">>): Evaluation {
    const now = this.clock.nowNs();
    return { ID: randomUUID(), Status: "pending", ...fields, CreateIndex: index, ModifyIndex: index, CreateTime: now, ModifyTime: now };
  }

  /** Stores a job with its status as the reference computes it. */
  #putJob(state: Transaction<"jobs"> & Partial<Transaction<"deployment" | "allocs" | "evals">>, job: Job): void {
    const status = this.#jobStatus(job, state);
    state.jobs.put(status === job.Status ? job : { ...job, Status: status, ModifyIndex: state.index });
  }

  #putSummary(state: Transaction<"job_summary">, job: JobSpec): void {
    const { index } = state;
    const previous = state.job_summary.get(namespacedKey(job.Namespace, job.ID));
    const summary: Record<string, TaskGroupSummary> = {};
    for (const group of job.TaskGroups) summary[group.Name] = previous?.Summary[group.Name] ?? EMPTY_GROUP_SUMMARY;
    state.job_summary.put({
      JobID: job.ID,
      Namespace: job.Namespace,
      Summary: summary,
      Children: previous?.Children ?? { Pending: 0, Running: 0, Dead: 0 },
      CreateIndex: previous?.CreateIndex ?? index,
      ModifyIndex: index,
    });
  }

  /**
   * Writes a change of an allocation: a new client status brings the client's description of it
   * (unless the change has its own) and moves the allocation from one count of the job's summary
   * to the other.
   */
  #updateAlloc(state: Transaction<"allocs" | "job_summary">, job: Job | undefined, alloc: Allocation, change: Partial<Allocation>, exitCode = 0): void {
    const status = change.ClientStatus ?? alloc.ClientStatus;
    const description = status !== alloc.ClientStatus && change.ClientDescription === undefined ? { ClientDescription: CLIENT_DESCRIPTIONS[status] } : {};
    const run = alloc.TaskRun === undefined || status === alloc.ClientStatus ? {} : { TaskRun: this.#taskRun(alloc.TaskRun, status, change.DesiredStatus ?? alloc.DesiredStatus, exitCode) };
    state.allocs.put({ ...alloc, ...description, ...change, ...run, ModifyIndex: state.index, ModifyTime: this.clock.nowNs() });
    if (job !== undefined && status !== alloc.ClientStatus) this.#count(state, job, alloc.TaskGroup, { [SUMMARY_FIELDS[alloc.ClientStatus]]: -1, [SUMMARY_FIELDS[status]]: 1 });
  }

  /**
   * The tasks' record after the allocation's client status became `status`: they start when it
   * runs, and end when it completes or fails (killed, with no exit code, when the server stopped
   * it; failed with `exitCode`, or 1, when it failed). A lost or unknown allocation's client is
   * away, so nothing is known of its tasks.
   */
  #taskRun(run: TaskRun, status: ClientStatus, desired: Allocation["DesiredStatus"], exitCode: number): TaskRun {
    const now = this.clock.nowMs();
    switch (status) {
      case "running":
        return { ...run, StartedAt: run.StartedAt ?? now };
      case "complete":
      case "failed": {
        if (run.FinishedAt !== null) return run;
        const code = desired !== "run" ? null : status === "failed" ? exitCode || 1 : exitCode;
        return { ...run, FinishedAt: now, ExitCode: code };
      }
      default:
        return run;
    }
  }

  /** Adds `change` to a task group's counts in the job's summary. */
  #count(state: Transaction<"job_summary">, job: Job, group: string, change: Partial<TaskGroupSummary>): void {
    const summary = state.job_summary.get(namespacedKey(job.Namespace, job.ID));
    if (summary === undefined) return;
    const counts = { ...(summary.Summary[group] ?? EMPTY_GROUP_SUMMARY) };
    for (const [field, delta] of Object.entries(change) as [keyof TaskGroupSummary, number][]) counts[field] = Math.max(0, counts[field] + delta);
    state.job_summary.put({ ...summary, Summary: { ...summary.Summary, [group]: counts }, ModifyIndex: state.index });
  }

  /**
   * The reference's job status: system, periodic and parameterized jobs run unless stopped; other
   * jobs run while a deployment is active or an allocation has not finished, are pending while an
   * evaluation is, dead once their work is done (or stopped), and pending before any.
   */
  #jobStatus(job: JobSpec, state: Partial<Transaction<"deployment" | "allocs" | "evals">>): string {
    if (job.Type === "system" || job.Periodic !== null || job.ParameterizedJob !== null) return job.Stop ? "dead" : "running";
    const key = namespacedKey(job.Namespace, job.ID);
    // The write's own changes first: the tables it names are read through its transaction.
    const deployments = [...(state.deployment ?? this.#tables.deployment).group(key).values()];
    const allocs = [...(state.allocs ?? this.#tables.allocs).group(key).values()];
    const evals = [...(state.evals ?? this.#tables.evals).group(key).values()];
    if (deployments.some((d) => ACTIVE_DEPLOYMENT.has(d.Status))) return "running";
    if (allocs.some((a) => !isTerminal(a))) return "running";
    if (evals.some((e) => e.Status === "pending" || e.Status === "blocked")) return "pending";
    if (evals.length > 0 || allocs.length > 0 || job.Stop) return "dead";
    return "pending";
  }

  /** The scheduler's work for an evaluation: placements, a deployment, cancellations. */
  async #process(evalId: string): Promise<void> {
    await this.store.write(["evals", "allocs", "deployment", "jobs", "job_summary"], (state) => {
      const { index } = state;
      const evaluation = state.evals.get(evalId);
      if (evaluation === undefined || evaluation.Status !== "pending") return;
      const jobKey = namespacedKey(evaluation.Namespace, evaluation.JobID);
      state.evals.put({ ...evaluation, Status: "complete", ModifyIndex: index, ModifyTime: this.clock.nowNs() });
      const job = state.jobs.get(jobKey);
      if (job === undefined) return;
      // Allocations on a node that is down are lost, as the reference's reconciler finds them; those of the job's version are replaced.
      const lost = [...state.allocs.group(jobKey).values()].filter((a) => !isTerminal(a) && this.#tables.nodes.get(a.NodeID)?.Status === "down");
      for (const alloc of lost) this.#updateAlloc(state, job, alloc, { DesiredStatus: "stop", DesiredDescription: LOST_DESCRIPTION, ClientStatus: "lost", ClientDescription: LOST_DESCRIPTION });
      const current = [...state.allocs.group(jobKey).values()].filter((a) => !isTerminal(a));
      const obsolete = job.Stop ? current : current.filter((a) => a.JobVersion !== job.Version);
      for (const alloc of obsolete) {
        this.#updateAlloc(state, job, alloc, { DesiredStatus: "stop", DesiredDescription: "alloc not needed due to job update", ClientStatus: "complete" });
      }
      for (const deployment of [...state.deployment.group(jobKey).values()]) {
        if (!ACTIVE_DEPLOYMENT.has(deployment.Status)) continue;
        if (job.Stop || deployment.JobVersion < job.Version) {
          const description = job.Stop ? DEPLOYMENT_DESCRIPTIONS.stoppedJob : DEPLOYMENT_DESCRIPTIONS.newerJob;
          state.deployment.put({ ...deployment, Status: "cancelled", StatusDescription: description, ModifyIndex: index, ModifyTime: this.clock.nowNs() });
        }
      }
      // A newer evaluation supersedes the job's blocked one; a stopped job queues nothing.
      for (const other of [...state.evals.group(jobKey).values()]) {
        if (other.Status === "blocked" && other.ID !== evalId) state.evals.put({ ...other, Status: "canceled", StatusDescription: BLOCKED_SUPERSEDED, ModifyIndex: index, ModifyTime: this.clock.nowNs() });
      }
      if (job.Stop) {
        for (const [group, counts] of Object.entries(state.job_summary.get(jobKey)?.Summary ?? {})) if (counts.Queued > 0) this.#count(state, job, group, { Queued: -counts.Queued });
      }
      const replaced = lost.filter((alloc) => alloc.JobVersion === job.Version);
      if (!job.Stop && (replaced.length > 0 || !current.some((a) => a.JobVersion === job.Version))) {
        const nodes = this.#nodesFor(job);
        const placements = replaced.length > 0 ? this.#replacements(job, replaced) : this.#placements(job);
        if (nodes.length === 0 && placements.length > 0) {
          this.#block(state, job, state.evals.get(evalId)!, placements);
        } else if (replaced.length > 0) {
          this.#place(state, job, evaluation, nodes, placements);
        } else {
          const deployment = this.#startDeployment(state, job, evaluation);
          this.#place(state, job, evaluation, nodes, deployment === undefined ? placements : this.#placements(job, deployment));
        }
      }
      this.#putJob(state, job);
    });
  }

  /**
   * The allocations a job wants: `Count` per task group (one per group for system jobs), named
   * `<job>.<group>[<i>]`; with a deployment, the first of each group are its canaries when the
   * group's update strategy asks for them.
   */
  #placements(job: Job, deploymentId = ""): Placement[] {
    const placements: Placement[] = [];
    for (const group of job.TaskGroups) {
      const count = job.Type === "system" ? Math.min(group.Count, 1) : group.Count;
      const canaries = deploymentId === "" ? 0 : Number(updateStrategy(job, group).Canary ?? 0);
      for (let i = 0; i < count; i++) placements.push({ group, name: `${job.ID}.${group.Name}[${i}]`, deploymentId, canary: i < canaries });
    }
    return placements;
  }

  /** One allocation in place of each lost one, of the same name, outside any deployment. */
  #replacements(job: Job, lost: readonly Allocation[]): Placement[] {
    return lost.flatMap((previous) => {
      const group = job.TaskGroups.find((each) => each.Name === previous.TaskGroup);
      return group === undefined ? [] : [{ group, name: previous.Name, deploymentId: "", canary: false, previous }];
    });
  }

  /**
   * Creates the allocations of `placements`, each on one of `nodes` (those that can take the job;
   * a job none can take is blocked instead) in turn; a replacement names the allocation it
   * replaces (`PreviousAllocation`), which names it back (`NextAllocation`). What a blocked
   * evaluation had queued is placed with them.
   */
  #place(state: Transaction<"allocs" | "job_summary">, job: Job, evaluation: Evaluation, nodes: readonly Node[], placements: readonly Placement[]): void {
    const { index } = state;
    const now = this.clock.nowNs();
    let placed = 0;
    for (const { group, name, deploymentId, canary, previous } of placements) {
      const node = nodes.length === 0 ? undefined : nodes[placed++ % nodes.length]!;
      const taskNames = Array.isArray(group.Tasks) ? (group.Tasks as JsonObject[]).map((task) => String(task.Name ?? "")) : [];
      const alloc: Allocation = {
        ID: randomUUID(),
        Namespace: job.Namespace,
        EvalID: evaluation.ID,
        Name: name,
        NodeID: node?.ID ?? "",
        NodeName: node?.Name ?? "",
        JobID: job.ID,
        JobType: job.Type,
        JobVersion: job.Version,
        TaskGroup: group.Name,
        DeploymentID: deploymentId,
        DesiredStatus: "run",
        DesiredDescription: "",
        ClientStatus: "pending",
        ClientDescription: CLIENT_DESCRIPTIONS.pending,
        DeploymentStatus: deploymentId === "" ? null : { Healthy: null, Timestamp: "", Canary: canary, ModifyIndex: index },
        CreateIndex: index,
        ModifyIndex: index,
        CreateTime: now,
        ModifyTime: now,
        TaskRun: { Tasks: taskNames, StartedAt: null, FinishedAt: null, ExitCode: null },
        ...(previous === undefined ? {} : { PreviousAllocation: previous.ID }),
      };
      state.allocs.put(alloc);
      if (previous !== undefined) state.allocs.put({ ...state.allocs.get(previous.ID)!, NextAllocation: alloc.ID, ModifyIndex: index });
      this.#count(state, job, group.Name, { Starting: 1 });
    }
    for (const group of new Set(placements.map((placement) => placement.group.Name))) {
      const queued = state.job_summary.get(namespacedKey(job.Namespace, job.ID))?.Summary[group]?.Queued ?? 0;
      if (queued > 0) this.#count(state, job, group, { Queued: -queued });
    }
  }

  /** The nodes that can take the job's allocations: ready, eligible, in one of its datacenters (`*` and other globs match as the reference's). */
  #nodesFor(job: JobSpec): Node[] {
    return [...this.#tables.nodes.values()].filter((node) => node.Status === "ready" && node.SchedulingEligibility === "eligible" && job.Datacenters.some((pattern) => matchesGlob(pattern, node.Datacenter)));
  }

  /**
   * No node can take the job (none ready and eligible in its datacenters): as the reference's
   * scheduler, the evaluation completes with the task groups it could not place
   * (`FailedTGAllocs`) and a `blocked` evaluation (`BlockedEval`) waits for a node; the summary
   * counts the allocations `Queued`, and the job stays pending.
   */
  #block(state: Transaction<"evals" | "job_summary">, job: Job, evaluation: Evaluation, placements: readonly Placement[]): void {
    const { index } = state;
    const now = this.clock.nowNs();
    const available = Object.fromEntries(job.Datacenters.filter((pattern) => !pattern.includes("*")).map((datacenter) => [datacenter, 0]));
    const failed: Record<string, JsonObject> = {};
    const queued: Record<string, number> = {};
    for (const { group } of placements) queued[group.Name] = (queued[group.Name] ?? 0) + 1;
    for (const [group, count] of Object.entries(queued)) {
      failed[group] = { ...ALLOC_METRIC, NodesAvailable: available, CoalescedFailures: count - 1 };
      const already = state.job_summary.get(namespacedKey(job.Namespace, job.ID))?.Summary[group]?.Queued ?? 0;
      this.#count(state, job, group, { Queued: count - already });
    }
    const blocked = this.#newEvaluation(index, {
      Namespace: job.Namespace,
      Priority: evaluation.Priority,
      Type: evaluation.Type,
      TriggeredBy: "queued-allocs",
      JobID: job.ID,
      JobModifyIndex: job.JobModifyIndex,
      Status: "blocked",
      StatusDescription: BLOCKED_DESCRIPTION,
      PreviousEval: evaluation.ID,
    });
    state.evals.put(blocked);
    state.evals.put({ ...evaluation, FailedTGAllocs: failed, QueuedAllocations: queued, BlockedEval: blocked.ID, ModifyIndex: index, ModifyTime: now });
  }

  /**
   * Nodes are down: a `node-update` evaluation for each job with allocations still on one of them,
   * which the `evaluate` step turns into lost allocations and their replacements (one scan of the
   * allocations for all the nodes down, made when a node goes down, which is rare).
   */
  async #nodesDown(): Promise<void> {
    const jobs = new Map<string, Node>();
    for (const alloc of this.#tables.allocs.values()) {
      if (isTerminal(alloc)) continue;
      const node = this.#tables.nodes.get(alloc.NodeID);
      if (node?.Status === "down") jobs.set(namespacedKey(alloc.Namespace, alloc.JobID), node);
    }
    if (jobs.size === 0) return;
    await this.store.write(["evals", "jobs"], (state) => {
      for (const [key, node] of jobs) {
        const job = state.jobs.get(key);
        // One waiting node-update evaluation a job is enough (the evaluate step may be off).
        if (job === undefined || [...state.evals.group(key).values()].some((e) => e.Status === "pending" && e.TriggeredBy === "node-update")) continue;
        state.evals.put(
          this.#newEvaluation(state.index, {
            Namespace: job.Namespace,
            Priority: job.Priority,
            Type: job.Type,
            TriggeredBy: "node-update",
            JobID: job.ID,
            JobModifyIndex: job.JobModifyIndex,
            NodeID: node.ID,
            NodeModifyIndex: node.ModifyIndex,
          }),
        );
        this.#putJob(state, job);
      }
    });
  }

  /**
   * A node can take allocations now: the blocked evaluations of jobs that a node can take are
   * pending again, for the `evaluate` step (a scan of the evaluations, made when a node becomes
   * ready or eligible, which is rare).
   */
  async #unblock(): Promise<void> {
    const unblocked = [...this.#tables.evals.values()].filter((evaluation) => {
      if (evaluation.Status !== "blocked") return false;
      const job = this.#tables.jobs.get(namespacedKey(evaluation.Namespace, evaluation.JobID));
      return job !== undefined && this.#nodesFor(job).length > 0;
    });
    if (unblocked.length === 0) return;
    await this.store.write(["evals"], (state) => {
      for (const { ID } of unblocked) {
        const evaluation = state.evals.get(ID);
        if (evaluation?.Status === "blocked") state.evals.put({ ...evaluation, Status: "pending", StatusDescription: "", ModifyIndex: state.index, ModifyTime: this.clock.nowNs() });
      }
    });
  }

  /**
   * Starts a deployment for a service job whose update strategy allows one (MaxParallel above 0)
   * and that wants at least one allocation; returns its ID.
   */
  #startDeployment(state: Transaction<"deployment">, job: Job, evaluation: Evaluation): string | undefined {
    const { index } = state;
    if (job.Type !== "service") return undefined;
    const groups: Record<string, DeploymentState> = {};
    for (const group of job.TaskGroups) {
      const update = updateStrategy(job, group);
      if (Number(update.MaxParallel ?? 0) <= 0 || group.Count <= 0) continue;
      const deadline = Number(update.ProgressDeadline ?? 0);
      groups[group.Name] = {
        AutoRevert: update.AutoRevert === true,
        AutoPromote: update.AutoPromote === true,
        ProgressDeadline: deadline,
        RequireProgressBy: deadline > 0 ? new Date(this.clock.nowMs() + deadline / 1e6).toISOString() : null,
        Promoted: false,
        PlacedCanaries: null,
        DesiredCanaries: Number(update.Canary ?? 0),
        DesiredTotal: group.Count,
        PlacedAllocs: 0,
        HealthyAllocs: 0,
        UnhealthyAllocs: 0,
      };
    }
    if (Object.keys(groups).length === 0) return undefined;
    const now = this.clock.nowNs();
    const deployment: Deployment = {
      ID: randomUUID(),
      Namespace: job.Namespace,
      JobID: job.ID,
      JobVersion: job.Version,
      JobModifyIndex: job.JobModifyIndex,
      JobSpecModifyIndex: job.JobModifyIndex,
      JobCreateIndex: job.CreateIndex,
      IsMultiregion: false,
      TaskGroups: groups,
      Status: "running",
      StatusDescription: DEPLOYMENT_DESCRIPTIONS.running,
      EvalPriority: evaluation.Priority,
      CreateIndex: index,
      ModifyIndex: index,
      CreateTime: now,
      ModifyTime: now,
    };
    state.deployment.put(deployment);
    return deployment.ID;
  }

  /** The allocations report running; their deployment counts them placed. */
  async #run(allocIds: readonly string[], deploymentId: string | undefined): Promise<void> {
    await this.store.write(["allocs", "job_summary", "deployment", "jobs"], (state) => {
      for (const id of allocIds) {
        const alloc = state.allocs.get(id);
        const job = alloc && state.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
        if (alloc === undefined || job === undefined || alloc.ClientStatus !== "pending" || alloc.DesiredStatus !== "run") continue;
        this.#updateAlloc(state, job, alloc, { ClientStatus: "running" });
      }
      this.#updateDeployment(state, deploymentId, (state) => ({ ...state, PlacedAllocs: state.DesiredTotal }));
    });
  }

  /**
   * The deployment's time is up. Its allocations are healthy and it completes, unless its job
   * scripts a failure (`bexpr.fail_deployment`: it fails, by its progress deadline when it has one)
   * or canaries wait for promotion (it says so, and completes once promoted). A paused or finished
   * deployment is left as it is.
   */
  async #complete(deploymentId: string): Promise<void> {
    const deployment = this.#tables.deployment.get(deploymentId);
    if (deployment === undefined || deployment.Status !== "running") return;
    const job = this.#tables.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
    const failing = job?.Meta?.[META_FAIL_DEPLOYMENT] === "true";
    const awaitingPromotion = !failing && Object.values(deployment.TaskGroups).some((group) => group.DesiredCanaries > 0 && !group.Promoted && !group.AutoPromote);
    // Nothing to write while it waits and already says so (a write would wake the scheduler again).
    if (awaitingPromotion && deployment.StatusDescription === DEPLOYMENT_DESCRIPTIONS.needsPromotion) return;
    await this.store.write(["deployment", "jobs", "allocs", "job_versions"], (state) => {
      const current = state.deployment.get(deploymentId);
      if (current === undefined || current.Status !== "running") return;
      const jobKey = namespacedKey(current.Namespace, current.JobID);
      const healthy = !failing;
      const timestamp = new Date(this.clock.nowMs()).toISOString();
      for (const alloc of [...state.allocs.group(jobKey).values()]) {
        if (alloc.DeploymentID !== deploymentId || alloc.DeploymentStatus?.Healthy === healthy) continue;
        state.allocs.put({ ...alloc, DeploymentStatus: { Healthy: healthy, Timestamp: timestamp, Canary: alloc.DeploymentStatus?.Canary ?? false, ModifyIndex: state.index }, ModifyIndex: state.index });
      }
      if (failing) {
        const description = Object.values(current.TaskGroups).some((group) => group.ProgressDeadline > 0) ? DEPLOYMENT_DESCRIPTIONS.progressDeadline : DEPLOYMENT_DESCRIPTIONS.unhealthy;
        this.#updateDeployment(state, deploymentId, (group) => ({ ...group, PlacedAllocs: group.DesiredTotal, HealthyAllocs: 0, UnhealthyAllocs: group.DesiredTotal }), { Status: "failed", StatusDescription: description });
      } else if (awaitingPromotion) {
        const canaries = [...state.allocs.group(jobKey).values()].filter((alloc) => alloc.DeploymentID === deploymentId && alloc.DeploymentStatus?.Canary === true);
        const placedCanaries = (name: string) => canaries.filter((alloc) => alloc.TaskGroup === name).map((alloc) => alloc.ID);
        this.#updateDeployment(state, deploymentId, (group, name) => ({ ...group, PlacedAllocs: group.DesiredTotal, HealthyAllocs: group.DesiredTotal, PlacedCanaries: placedCanaries(name) }), {
          Status: "running",
          StatusDescription: DEPLOYMENT_DESCRIPTIONS.needsPromotion,
        });
      } else {
        this.#updateDeployment(state, deploymentId, (group) => ({ ...group, PlacedAllocs: group.DesiredTotal, HealthyAllocs: group.DesiredTotal }), {
          Status: "successful",
          StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful,
        });
      }
      const after = state.deployment.get(deploymentId);
      const job = state.jobs.get(jobKey);
      if (job !== undefined && after?.Status === "successful" && job.Version === after.JobVersion) {
        this.#putJob(state, { ...job, Stable: true, ModifyIndex: state.index });
        // The version the deployment made stable says so too.
        const versionKey = `${jobKey}\u0000${job.Version}`;
        const version = state.job_versions.get(versionKey);
        if (version !== undefined) state.job_versions.put({ ...version, Job: { ...version.Job, Stable: true, ModifyIndex: state.index } });
      } else if (job !== undefined) this.#putJob(state, job);
    });
  }

  /**
   * What the job's `Meta` scripts for its allocations: `bexpr.run_for` (a duration: they finish
   * that long after they start; without it, the `finish` step's `after` when a test set one, and
   * the placement delay for batch jobs) and `bexpr.exit_code` (not 0: they fail when they finish).
   */
  #fate(alloc: Allocation): { readonly runForMs: number | undefined; readonly exitCode: number } {
    const job = this.#tables.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
    const meta = job?.Meta ?? {};
    const runFor = meta[META_RUN_FOR];
    const parsed = runFor === undefined ? undefined : parseGoDuration(runFor);
    const stepMs = this.#lifecycle.get("finish")!.afterMs;
    const runForMs = parsed !== undefined && parsed >= 0 ? parsed : (stepMs ?? (alloc.JobType === "batch" ? this.options.placementDelayMs : undefined));
    const exitCode = Number.parseInt(meta[META_EXIT_CODE] ?? "0", 10);
    return { runForMs, exitCode: Number.isNaN(exitCode) ? 0 : exitCode };
  }

  /** An allocation's tasks end: it is complete, or failed when its job scripts a non-zero exit code. */
  async #finish(allocId: string): Promise<void> {
    await this.store.write(["allocs", "job_summary", "jobs", "deployment", "evals"], (state) => {
      const alloc = state.allocs.get(allocId);
      const job = alloc && state.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
      if (alloc === undefined || job === undefined || isTerminal(alloc)) return;
      const { exitCode } = this.#fate(alloc);
      this.#updateAlloc(state, job, alloc, { ClientStatus: exitCode === 0 ? "complete" : "failed" }, exitCode);
      this.#putJob(state, job);
    });
  }

  /** Updates an active deployment's task groups (and status); cancelled ones stay as they are. */
  #updateDeployment(
    state: Transaction<"deployment">,
    deploymentId: string | undefined,
    change: (state: DeploymentState, name: string) => DeploymentState,
    status?: Pick<Deployment, "Status" | "StatusDescription">,
  ): void {
    const deployment = deploymentId === undefined ? undefined : state.deployment.get(deploymentId);
    if (deployment === undefined || !ACTIVE_DEPLOYMENT.has(deployment.Status)) return;
    const groups = Object.fromEntries(Object.entries(deployment.TaskGroups).map(([name, state]) => [name, change(state, name)]));
    state.deployment.put({ ...deployment, ...status, TaskGroups: groups, ModifyIndex: state.index, ModifyTime: this.clock.nowNs() });
  }

  /** Creates or updates a namespace. */
  async putNamespace(namespace: Omit<Namespace, "CreateIndex" | "ModifyIndex">): Promise<number> {
    const { index } = await this.store.write(["namespaces"], (state) => {
      const previous = state.namespaces.get(namespace.Name);
      state.namespaces.put({ ...namespace, CreateIndex: previous?.CreateIndex ?? state.index, ModifyIndex: state.index });
    });
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
    });
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
    this.#schedule(pass, this.#tables.evals.values(), this.#tables.allocs.values(), this.#tables.deployment.values(), this.#tables.nodes.values());
    for (const rule of this.#rules.values()) this.#consider(pass, rule, this.#tables[SCENARIO_TABLES[rule.rule.on]].values());
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
    if (suspended) this.#cancelTasks();
    else this.#takeUp();
  }

  /** The built-in lifecycle's steps, in the order they act on a job. */
  get lifecycle(): readonly LifecycleStep[] {
    return [...this.#lifecycle.values()].map((state) => (state.lastError === undefined ? state.step : Object.freeze({ ...state.step, lastError: state.lastError })));
  }

  /**
   * Changes a step of the built-in lifecycle (its `select`, `after` or `enabled`) and plans the
   * work in flight again with it. Throws {@link ScenarioRuleError} for a change that cannot be used.
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

  /** Drops the lifecycle's scheduled steps (not the rules') and schedules them again from the state. */
  #replan(): void {
    for (const [name, task] of this.#tasks) {
      if (name.startsWith("rule ")) continue;
      this.clock.clearTimer(task.timer);
      this.#tasks.delete(name);
    }
    if (this.#active) this.#schedule(this.#pass(), this.#tables.evals.values(), this.#tables.allocs.values(), this.#tables.deployment.values(), this.#tables.nodes.values());
  }

  /** Stops running the scheduler (another agent leads now); the work in flight is left to the leader. */
  follow(): void {
    this.#leading = false;
    this.#cancelTasks();
  }

  /**
   * Takes the work up again from the state as it is now, after a snapshot was restored or the
   * state reset: drops every scheduled step, forgets which rows the scenario rules acted on (a
   * row put back is acted on again), and, when leading, schedules from the tables as `lead` does
   * and lets each rule consider every row of its kind.
   */
  resync(): void {
    this.#cancelTasks();
    this.#fired.clear();
    this.#selectedAt.clear();
    this.#takeUp();
  }

  /** The leader's part in every write: the work its rows start (the scheduler's steps follow from the state alone). */
  #observe(write: AppliedWrite): void {
    if (!this.#active) return;
    const rows = <Row>(changes: ReadonlyMap<string, Row | undefined> | undefined) => [...(changes?.values() ?? [])].filter((row): row is Row => row !== undefined);
    const { evals, allocs, deployment, nodes } = write.changes;
    // One budget for the write's rows: the steps first, then the rules in the order added.
    const pass = this.#pass(write.index);
    this.#schedule(pass, rows(evals), rows(allocs), rows(deployment), rows(nodes));
    for (const rule of this.#rules.values()) this.#consider(pass, rule, rows<unknown>(write.changes[SCENARIO_TABLES[rule.rule.on]] as ReadonlyMap<string, unknown> | undefined));
  }

  /**
   * Adds a scenario rule (see `scenarios.ts`); it considers the rows there are now, then every
   * row a write changes. Throws {@link ScenarioRuleError} for a rule that cannot be used.
   */
  addRule(rule: unknown): ScenarioRuleState {
    if (this.#rules.size >= MAX_SCENARIO_RULES) throw new ScenarioRuleError(`an agent holds at most ${MAX_SCENARIO_RULES} scenario rules: remove some first`);
    const state = checkRule(rule, `rule-${++this.#ruleSequence}`);
    this.#rules.set(state.id, state);
    if (this.#active) this.#consider(this.#pass(), state, this.#tables[SCENARIO_TABLES[state.rule.on]].values());
    return state;
  }

  /** Removes a scenario rule (and its steps not yet run); false when there is none of that ID. */
  removeRule(id: string): boolean {
    const removed = this.#rules.delete(id);
    const prefix = `rule ${id} `;
    for (const [name, task] of this.#tasks) {
      if (!name.startsWith(prefix)) continue;
      this.clock.clearTimer(task.timer);
      this.#tasks.delete(name);
    }
    // What it remembered of rows goes with it.
    for (const name of this.#selectedAt.keys()) if (name.startsWith(prefix)) this.#selectedAt.delete(name);
    for (const name of this.#fired) if (name.startsWith(prefix)) this.#fired.delete(name);
    return removed;
  }

  /** The scenario rules, in the order added. */
  get rules(): readonly ScenarioRuleState[] {
    return [...this.#rules.values()];
  }

  /** Schedules the rule's step for each of `rows` it selects (within the pass's budget) and has not acted on. */
  #consider(pass: RulePass, rule: ScenarioRuleState, rows: Iterable<unknown>): void {
    const table = SCENARIO_TABLES[rule.rule.on];
    for (const row of rows) {
      const key = TABLES[table].key(row as never);
      const name = `rule ${rule.id} ${key}`;
      if (this.#fired.has(name) || this.#tasks.has(name) || !selects(rule, row, pass)) continue;
      const now = this.clock.nowMs();
      const since = this.#selectedAt.get(name) ?? now;
      this.#selectedAt.set(name, since);
      this.#defer(name, Math.max(0, since + rule.afterMs - now), () => this.#fire(rule, name, key));
    }
  }

  /** A rule's time for a row has come: if it still selects the row, its fields are set. */
  async #fire(rule: ScenarioRuleState, name: string, key: string): Promise<void> {
    if (!this.#rules.has(rule.id)) return;
    await this.store.write(["allocs", "job_summary", "jobs", "deployment", "evals", "nodes"], (state) => {
      const table = SCENARIO_TABLES[rule.rule.on];
      const row = state[table].get(key) as Readonly<Record<string, unknown>> | undefined;
      // Not selected any more: its time starts again if it is selected again.
      this.#selectedAt.delete(name);
      if (row === undefined || !selects(rule, row)) return;
      this.#fired.add(name);
      const changes = changesOf(rule, row);
      if (Object.keys(changes).length === 0) return;
      rule.fired++;
      this.#applyRule(state, rule.rule.on, row, changes);
    });
  }

  /** Writes a rule's changes to a row, and what follows from them: a summary's counts, the job's status. */
  #applyRule(state: Transaction<"allocs" | "job_summary" | "jobs" | "deployment" | "evals" | "nodes">, kind: ScenarioKind, row: Readonly<Record<string, unknown>>, changes: Record<string, unknown>): void {
    const stamp = { ModifyIndex: state.index };
    switch (kind) {
      case "allocation": {
        const alloc = row as unknown as Allocation;
        const job = state.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
        this.#updateAlloc(state, job, alloc, changes as Partial<Allocation>);
        if (job !== undefined) this.#putJob(state, job);
        return;
      }
      case "deployment": {
        const deployment = row as unknown as Deployment;
        state.deployment.put({ ...deployment, ...changes, ...stamp, ModifyTime: this.clock.nowNs() });
        const job = state.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
        if (job !== undefined) this.#putJob(state, job);
        return;
      }
      case "evaluation": {
        const evaluation = row as unknown as Evaluation;
        state.evals.put({ ...evaluation, ...changes, ...stamp, ModifyTime: this.clock.nowNs() });
        const job = state.jobs.get(namespacedKey(evaluation.Namespace, evaluation.JobID));
        if (job !== undefined) this.#putJob(state, job);
        return;
      }
      case "node":
        state.nodes.put({ ...(row as unknown as Node), ...changes, ...stamp });
        return;
      default:
        return unreachableKind(kind);
    }
  }

  /**
   * Schedules the lifecycle's steps these rows wait for (see `LIFECYCLE_DEFAULTS`): a pending
   * evaluation is processed at once; pending allocations run at half the placement delay after
   * they were placed (those placed together, together); a running allocation whose work ends
   * finishes that long after it started; a running deployment completes at the whole delay. A
   * step a test switched off or whose filter leaves a row out is not scheduled for it, and a
   * step's `after` replaces its own timing. Each step is scheduled once, and each checks the
   * state again when it runs. The steps' filters spend the pass's budget.
   */
  #schedule(pass: RulePass, evals: Iterable<Evaluation>, allocs: Iterable<Allocation>, deployments: Iterable<Deployment>, nodes: Iterable<Node> = []): void {
    const delay = this.options.placementDelayMs;
    for (const node of nodes) {
      // A node that can take allocations may unblock the blocked evaluations of jobs in its datacenter.
      if (node.Status === "ready" && node.SchedulingEligibility === "eligible") this.#defer("unblock", 0, () => this.#unblock());
      // A node that is down loses its allocations: each of their jobs is evaluated again.
      if (node.Status === "down") this.#defer("nodes-down", 0, () => this.#nodesDown());
    }
    const { evaluate, run, finish, complete } = this.#steps();
    const dueIn = (createdNs: bigint, after: number) => Math.max(0, Number(createdNs / 1_000_000n) + after - this.clock.nowMs());
    for (const evaluation of evals) {
      if (evaluation.Status !== "pending" || !stepTakes(evaluate, evaluation, pass)) continue;
      this.#defer(`process ${evaluation.ID}`, evaluate.afterMs === undefined ? 0 : dueIn(evaluation.CreateTime ?? this.clock.nowNs(), evaluate.afterMs), () => this.#process(evaluation.ID));
    }
    const placed = new Map<string, Allocation[]>();
    for (const alloc of allocs) {
      if (alloc.DesiredStatus !== "run") continue;
      if (alloc.ClientStatus === "pending" && stepTakes(run, alloc, pass)) {
        const batch = `run ${alloc.DeploymentID} ${namespacedKey(alloc.Namespace, alloc.JobID)} ${alloc.CreateIndex}`;
        placed.set(batch, [...(placed.get(batch) ?? []), alloc]);
      }
      // Allocations whose work ends (batch jobs, or any job with a run_for) finish that long after they started.
      if (alloc.ClientStatus === "running" && stepTakes(finish, alloc, pass)) {
        const runForMs = this.#fate(alloc).runForMs;
        if (runForMs === undefined) continue;
        const startedMs = alloc.TaskRun?.StartedAt ?? Number(alloc.ModifyTime / 1_000_000n);
        this.#defer(`finish ${alloc.ID}`, Math.max(0, startedMs + runForMs - this.clock.nowMs()), () => this.#finish(alloc.ID));
      }
    }
    for (const [batch, batchAllocs] of placed) {
      const { DeploymentID: deployment, CreateTime: created } = batchAllocs[0]!;
      this.#defer(batch, dueIn(created, run.afterMs ?? delay / 2), () => this.#run(batchAllocs.map((alloc) => alloc.ID), deployment === "" ? undefined : deployment));
    }
    for (const deployment of deployments) {
      if (deployment.Status !== "running" || !stepTakes(complete, deployment, pass)) continue;
      // A deployment scripted to fail fails at its progress deadline (nanoseconds), when it has one.
      const job = this.#tables.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
      const deadlineMs = Math.max(0, ...Object.values(deployment.TaskGroups).map((group) => group.ProgressDeadline / 1e6));
      const after = complete.afterMs ?? (job?.Meta?.[META_FAIL_DEPLOYMENT] === "true" && deadlineMs > 0 ? deadlineMs : delay);
      this.#defer(`complete ${deployment.ID}`, dueIn(deployment.CreateTime, after), () => this.#complete(deployment.ID));
    }
  }

  /** The lifecycle's steps by name. */
  #steps(): { readonly [Name in LifecycleStepName]: LifecycleStepState } {
    const step = (name: LifecycleStepName) => this.#lifecycle.get(name)!;
    return { evaluate: step("evaluate"), run: step("run"), finish: step("finish"), complete: step("complete") };
  }

  /** Runs `run` in `delayMs`, unless a task of the same name is already scheduled. */
  #defer(name: string, delayMs: number, run: () => Promise<void>): void {
    if (this.#tasks.has(name)) return;
    const timer = this.clock.setTimer(delayMs, async () => {
      if (this.#tasks.get(name)?.timer !== timer) return;
      this.#tasks.delete(name);
      const running = run().catch((error: unknown) => {
        this.options.onError?.(error);
        // The state still says what is left to do: the leader reads it again a little later.
        this.#defer("reconcile", RETRY_MS, async () => {
          if (this.#active) this.#schedule(this.#pass(), this.#tables.evals.values(), this.#tables.allocs.values(), this.#tables.deployment.values(), this.#tables.nodes.values());
        });
      });
      // Settling waits for the steps its timers started, as for those it runs itself.
      this.#running.add(running);
      try {
        await running;
      } finally {
        this.#running.delete(running);
      }
    });
    this.#tasks.set(name, { run, delayMs, dueAt: timer.dueAt, timer });
  }

  /**
   * Runs the pending steps of the simulated scheduler now, in order (for the demo data): all of
   * the deployment lifecycle's, or with `immediateOnly` only the evaluations, leaving placements to
   * their timers. Allocations' ends (`bexpr.run_for`) and scenario rules keep their times.
   */
  async settle(immediateOnly = false): Promise<void> {
    for (;;) {
      // A step a timer started may still be writing: what it schedules counts too.
      if (this.#running.size > 0) {
        await Promise.all([...this.#running]);
        continue;
      }
      const due = [...this.#tasks].filter(([name, candidate]) => (!immediateOnly || candidate.delayMs === 0) && !name.startsWith("finish ") && !name.startsWith("rule "));
      const next = due.reduce<[string, Task] | undefined>((first, candidate) => (first === undefined || candidate[1].dueAt < first[1].dueAt ? candidate : first), undefined);
      if (next === undefined) return;
      const [name, task] = next;
      this.#tasks.delete(name);
      this.clock.clearTimer(task.timer);
      await task.run();
    }
  }

  #cancelTasks(): void {
    for (const task of this.#tasks.values()) this.clock.clearTimer(task.timer);
    this.#tasks.clear();
  }

  /** Stops the scheduler and wakes every waiting blocking query. */
  close(): void {
    this.#leading = false;
    this.#unsubscribe();
    this.#cancelTasks();
    this.store.close();
  }
}

/** An allocation the scheduler is to create: its group and name, its deployment, and the lost allocation it replaces. */
interface Placement {
  readonly group: JobSpec["TaskGroups"][number];
  readonly name: string;
  readonly deploymentId: string;
  readonly canary: boolean;
  readonly previous?: Allocation;
}

/** The reference's words for an allocation lost with its node. */
const LOST_DESCRIPTION = "alloc is lost since its node is down";

/** What the reference writes on a blocked evaluation, and on one a newer evaluation superseded. */
const BLOCKED_DESCRIPTION = "created to place remaining allocations";
const BLOCKED_SUPERSEDED = "evaluation superseded by a newer one of the job";

/** `structs.AllocMetric` with every field at its zero value: what a task group that found no node reports. */
const ALLOC_METRIC: JsonObject = Object.freeze({
  NodesEvaluated: 0,
  NodesFiltered: 0,
  NodesInPool: 0,
  NodesAvailable: null,
  ClassFiltered: null,
  ConstraintFiltered: null,
  NodesExhausted: 0,
  ClassExhausted: null,
  DimensionExhausted: null,
  QuotaExhausted: null,
  ResourcesExhausted: null,
  ScoreMetaData: null,
  AllocationTime: 0,
  CoalescedFailures: 0,
});

/** Whether a job's datacenter pattern matches a node's datacenter: `*` stands for any run of characters, as the reference's glob. */
export function matchesGlob(pattern: string, datacenter: string): boolean {
  if (!pattern.includes("*")) return pattern === datacenter;
  const parts = pattern.split("*");
  if (!datacenter.startsWith(parts[0]!) || !datacenter.endsWith(parts[parts.length - 1]!)) return false;
  let at = parts[0]!.length;
  const end = datacenter.length - parts[parts.length - 1]!.length;
  if (end < at) return false;
  for (const part of parts.slice(1, -1)) {
    const found = datacenter.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** The summary count each client status is counted in. */
const SUMMARY_FIELDS: { readonly [Status in ClientStatus]: keyof TaskGroupSummary } = {
  pending: "Starting",
  running: "Running",
  complete: "Complete",
  failed: "Failed",
  lost: "Lost",
  unknown: "Unknown",
};

function unreachableKind(kind: never): never {
  throw new TypeError(`no such kind of row: ${String(kind)}`);
}

/** A task group's update strategy: the job's, with the group's own fields over it. */
function updateStrategy(job: JobSpec, group: JobSpec["TaskGroups"][number]): JsonObject {
  return { ...(job.Update ?? {}), ...((group.Update as JsonObject | null | undefined) ?? {}) };
}

function registerResponse(evalId: string, evalCreateIndex: number, jobModifyIndex: number, index: number): RegisterResponse {
  return { EvalID: evalId, EvalCreateIndex: evalCreateIndex, JobModifyIndex: jobModifyIndex, Warnings: "", Index: index, LastContact: 0, KnownLeader: false, NextToken: "" };
}

