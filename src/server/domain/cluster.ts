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
 * @module
 */
import { randomUUID } from "node:crypto";
import { invalid } from "./errors.js";
import type { Allocation, Deployment, DeploymentState, Evaluation, Job, JobSpec, JobSummary, JsonObject, Namespace, TaskGroupSummary } from "../state/model.js";
import { canonicalizeJob, formatErrors, specChanged, validateJob, type RegisterRequest } from "./register.js";
import { namespacedKey, type Store, type Tables, type Transaction } from "../state/store.js";

/** The texts of deployment states (the reference's constants). */
export const DEPLOYMENT_DESCRIPTIONS = {
  running: "Deployment is running",
  successful: "Deployment completed successfully",
  newerJob: "Cancelled due to newer version of job",
  stoppedJob: "Cancelled because job is stopped",
} as const;

const ACTIVE_DEPLOYMENT = new Set(["running", "paused", "blocked", "unblocking", "initializing", "pending"]);
const EMPTY_GROUP_SUMMARY: TaskGroupSummary = { Queued: 0, Complete: 0, Failed: 0, Running: 0, Starting: 0, Lost: 0, Unknown: 0 };

/** Nanoseconds since the epoch, as a bigint (above 2^53, like the reference's `SubmitTime`). */
function nowNanoseconds(): bigint {
  return BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
}

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
  readonly run: () => void;
  readonly timer: NodeJS.Timeout;
  readonly delayMs: number;
  /** When the timer fires (epoch milliseconds); settling runs tasks in this order. */
  readonly dueAt: number;
}

/** Options of a {@link Cluster}. */
export interface ClusterOptions {
  readonly region: string;
  /** Milliseconds from registration until a deployment is healthy (allocations run at half of it). */
  readonly placementDelayMs: number;
}

/** The cluster state and its simulated scheduler. */
export class Cluster {
  readonly #tasks = new Set<Task>();

  /** The tables, to read (writes go through the store's transactions). */
  get #tables(): Tables {
    return this.store.tables;
  }

  constructor(
    readonly store: Store,
    readonly options: ClusterOptions,
  ) {
    store.seed(["namespaces"], (state) => {
      state.namespaces.put({ Name: "default", Description: "Default shared namespace", Quota: "", Meta: null, CreateIndex: 1, ModifyIndex: 1 });
    });
  }

  /** Registers a job (`PUT /v1/jobs`), with the namespace and region already resolved. */
  register(request: RegisterRequest, namespace: string, region: string): RegisterResponse {
    const spec = canonicalizeJob(request.job, namespace, region);
    const errors = validateJob(spec, this.#tables.namespaces.get(spec.Namespace) !== undefined);
    // Invalid jobs are client mistakes: 400, where the reference answers 500 (decisions table).
    if (errors.length > 0) throw invalid(formatErrors(errors));
    const key = namespacedKey(spec.Namespace, spec.ID);
    const previous = this.#tables.jobs.get(key);
    if (request.enforceIndex) this.#enforceIndex(previous, request.jobModifyIndex);
    if (previous !== undefined && previous.Type !== spec.Type) {
      throw invalid(`cannot update job from type ${JSON.stringify(previous.Type)} to ${JSON.stringify(spec.Type)}`);
    }
    const changed = previous === undefined || specChanged(previous, spec);
    const needsEval = spec.Periodic === null && spec.ParameterizedJob === null;
    if (!changed && !needsEval) {
      return registerResponse("", 0, previous.JobModifyIndex, previous.ModifyIndex);
    }

    const { index, result: evaluation } = this.store.write(["jobs", "job_summary", "evals"], (state) => {
      const { index } = state;
      let job = previous;
      if (changed) {
        job = {
          ...spec,
          Status: "pending",
          StatusDescription: "",
          Stable: false,
          Version: previous === undefined ? 0 : previous.Version + 1,
          SubmitTime: nowNanoseconds(),
          CreateIndex: previous?.CreateIndex ?? index,
          ModifyIndex: index,
          JobModifyIndex: index,
        };
        this.#putSummary(state, job);
      }
      const evaluation: Evaluation | undefined = needsEval
        ? {
            ID: randomUUID(),
            Namespace: spec.Namespace,
            Priority: request.evalPriority || spec.Priority,
            Type: spec.Type,
            TriggeredBy: "job-register",
            JobID: spec.ID,
            JobModifyIndex: job!.JobModifyIndex,
            Status: "pending",
            CreateIndex: index,
            ModifyIndex: index,
          }
        : undefined;
      if (evaluation !== undefined) state.evals.put(evaluation);
      this.#putJob(state, job!);
      return evaluation;
    });
    if (evaluation !== undefined) this.#defer(0, () => this.#process(evaluation.ID));
    const jobModifyIndex = changed ? index : previous!.JobModifyIndex;
    return registerResponse(evaluation?.ID ?? "", evaluation === undefined ? 0 : index, jobModifyIndex, index);
  }

  #enforceIndex(previous: Job | undefined, expected: number): void {
    const prefix = `Enforcing job modify index ${expected}`;
    if (expected === 0 && previous !== undefined) throw invalid(`${prefix}: job already exists`);
    if (expected !== 0 && previous === undefined) throw invalid(`${prefix}: job does not exist`);
    if (previous !== undefined && expected !== 0 && previous.JobModifyIndex !== expected) {
      throw invalid(`${prefix}: job exists with conflicting job modify index: ${previous.JobModifyIndex}`);
    }
  }

  /** Stores a job with its status as the reference computes it. */
  #putJob(state: Transaction<"jobs">, job: Job): void {
    const status = this.#jobStatus(job);
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
  #jobStatus(job: JobSpec): string {
    if (job.Type === "system" || job.Periodic !== null || job.ParameterizedJob !== null) return job.Stop ? "dead" : "running";
    const key = namespacedKey(job.Namespace, job.ID);
    const deployments = [...this.#tables.deployment.group(key).values()];
    const allocs = [...this.#tables.allocs.group(key).values()];
    const evals = [...this.#tables.evals.group(key).values()];
    if (deployments.some((d) => ACTIVE_DEPLOYMENT.has(d.Status))) return "running";
    if (allocs.some((a) => a.ClientStatus !== "complete")) return "running";
    if (evals.some((e) => e.Status === "pending")) return "pending";
    if (evals.length > 0 || allocs.length > 0 || job.Stop) return "dead";
    return "pending";
  }

  /** The scheduler's work for an evaluation: placements, a deployment, cancellations. */
  #process(evalId: string): void {
    const evaluation = this.#tables.evals.get(evalId);
    if (evaluation === undefined || evaluation.Status !== "pending") return;
    const jobKey = namespacedKey(evaluation.Namespace, evaluation.JobID);
    let placedDeployment: string | undefined;
    let placedAllocs: string[] = [];
    this.store.write(["evals", "allocs", "deployment", "jobs", "job_summary"], (state) => {
      const { index } = state;
      state.evals.put({ ...evaluation, Status: "complete", ModifyIndex: index });
      const job = state.jobs.get(jobKey);
      if (job === undefined) return;
      const current = [...state.allocs.group(jobKey).values()].filter((a) => a.ClientStatus !== "complete");
      const obsolete = job.Stop ? current : current.filter((a) => a.JobVersion !== job.Version);
      for (const alloc of obsolete) {
        state.allocs.put({ ...alloc, ClientStatus: "complete", ModifyIndex: index });
        this.#count(state, job, alloc.TaskGroup, alloc.ClientStatus === "running" ? { Running: -1, Complete: 1 } : { Starting: -1, Complete: 1 });
      }
      for (const deployment of [...state.deployment.group(jobKey).values()]) {
        if (!ACTIVE_DEPLOYMENT.has(deployment.Status)) continue;
        if (job.Stop || deployment.JobVersion < job.Version) {
          const description = job.Stop ? DEPLOYMENT_DESCRIPTIONS.stoppedJob : DEPLOYMENT_DESCRIPTIONS.newerJob;
          state.deployment.put({ ...deployment, Status: "cancelled", StatusDescription: description, ModifyIndex: index, ModifyTime: nowNanoseconds() });
        }
      }
      if (!job.Stop && !current.some((a) => a.JobVersion === job.Version)) {
        placedDeployment = this.#startDeployment(state, job, evaluation);
        placedAllocs = this.#place(state, job, placedDeployment ?? "");
      }
      this.#putJob(state, job);
    });
    if (placedAllocs.length > 0) this.#defer(this.options.placementDelayMs / 2, () => this.#run(placedAllocs, placedDeployment));
    if (placedDeployment !== undefined) this.#defer(this.options.placementDelayMs, () => this.#complete(placedDeployment!));
  }

  /** Creates the job's allocations: `Count` per task group (one per group for system jobs). */
  #place(state: Transaction<"allocs" | "job_summary">, job: Job, deploymentId: string): string[] {
    const { index } = state;
    const ids: string[] = [];
    for (const group of job.TaskGroups) {
      const count = job.Type === "system" ? Math.min(group.Count, 1) : group.Count;
      for (let i = 0; i < count; i++) {
        const alloc: Allocation = {
          ID: randomUUID(),
          Namespace: job.Namespace,
          JobID: job.ID,
          JobVersion: job.Version,
          TaskGroup: group.Name,
          DeploymentID: deploymentId,
          ClientStatus: "pending",
          CreateIndex: index,
          ModifyIndex: index,
        };
        state.allocs.put(alloc);
        this.#count(state, job, group.Name, { Starting: 1 });
        ids.push(alloc.ID);
      }
    }
    return ids;
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
      const update = { ...(job.Update ?? {}), ...((group.Update as JsonObject | null | undefined) ?? {}) };
      if (Number(update.MaxParallel ?? 0) <= 0 || group.Count <= 0) continue;
      const deadline = Number(update.ProgressDeadline ?? 0);
      groups[group.Name] = {
        AutoRevert: update.AutoRevert === true,
        AutoPromote: update.AutoPromote === true,
        ProgressDeadline: deadline,
        RequireProgressBy: deadline > 0 ? new Date(Date.now() + deadline / 1e6).toISOString() : null,
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
    const now = nowNanoseconds();
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
  #run(allocIds: readonly string[], deploymentId: string | undefined): void {
    this.store.write(["allocs", "job_summary", "deployment", "jobs"], (state) => {
      for (const id of allocIds) {
        const alloc = state.allocs.get(id);
        const job = alloc && state.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
        if (alloc === undefined || job === undefined || alloc.ClientStatus !== "pending") continue;
        state.allocs.put({ ...alloc, ClientStatus: "running", ModifyIndex: state.index });
        this.#count(state, job, alloc.TaskGroup, { Starting: -1, Running: 1 });
      }
      this.#updateDeployment(state, deploymentId, (state) => ({ ...state, PlacedAllocs: state.DesiredTotal }));
    });
  }

  /** The deployment's allocations are healthy: it completes successfully. */
  #complete(deploymentId: string): void {
    this.store.write(["deployment", "jobs"], (state) => {
      this.#updateDeployment(state, deploymentId, (state) => ({ ...state, PlacedAllocs: state.DesiredTotal, HealthyAllocs: state.DesiredTotal }), {
        Status: "successful",
        StatusDescription: DEPLOYMENT_DESCRIPTIONS.successful,
      });
      const deployment = state.deployment.get(deploymentId);
      const job = deployment && state.jobs.get(namespacedKey(deployment.Namespace, deployment.JobID));
      if (job !== undefined && deployment?.Status === "successful" && job.Version === deployment.JobVersion) {
        this.#putJob(state, { ...job, Stable: true, ModifyIndex: state.index });
      }
    });
  }

  /** Updates an active deployment's task groups (and status); cancelled ones stay as they are. */
  #updateDeployment(
    state: Transaction<"deployment">,
    deploymentId: string | undefined,
    change: (state: DeploymentState) => DeploymentState,
    status?: Pick<Deployment, "Status" | "StatusDescription">,
  ): void {
    const deployment = deploymentId === undefined ? undefined : state.deployment.get(deploymentId);
    if (deployment === undefined || !ACTIVE_DEPLOYMENT.has(deployment.Status)) return;
    const groups = Object.fromEntries(Object.entries(deployment.TaskGroups).map(([name, state]) => [name, change(state)]));
    state.deployment.put({ ...deployment, ...status, TaskGroups: groups, ModifyIndex: state.index, ModifyTime: nowNanoseconds() });
  }

  /** Creates or updates a namespace. */
  putNamespace(namespace: Omit<Namespace, "CreateIndex" | "ModifyIndex">): number {
    return this.store.write(["namespaces"], (state) => {
      const previous = state.namespaces.get(namespace.Name);
      state.namespaces.put({ ...namespace, CreateIndex: previous?.CreateIndex ?? state.index, ModifyIndex: state.index });
    }).index;
  }

  /**
   * Deletes a namespace; `default` and namespaces with jobs that have not finished cannot be
   * deleted (400, where the reference answers 500).
   */
  deleteNamespace(name: string): number {
    if (name === "default") throw invalid("default namespace can not be deleted");
    if (this.#tables.namespaces.get(name) === undefined) throw invalid("namespace not found");
    const jobs = this.store.queries.jobs(name, "");
    let running: Job | undefined;
    for (let i = 0; i < jobs.size && running === undefined; i++) if (jobs.at(i).Status !== "dead") running = jobs.at(i);
    if (running !== undefined) {
      throw invalid(`namespace ${JSON.stringify(name)} contains at least one non-terminal job ${JSON.stringify(running.ID)}. All jobs must be terminal in namespace before it can be deleted`);
    }
    return this.store.write(["namespaces"], (state) => {
      state.namespaces.delete(name);
    }).index;
  }

  #defer(delayMs: number, run: () => void): void {
    const task: Task = {
      run,
      delayMs,
      dueAt: Date.now() + delayMs,
      timer: setTimeout(() => {
        this.#tasks.delete(task);
        run();
      }, delayMs),
    };
    this.#tasks.add(task);
  }

  /**
   * Runs the pending steps of the simulated scheduler now, in order (for the demo data): all of
   * them, or with `immediateOnly` only the evaluations, leaving placements to their timers.
   */
  settle(immediateOnly = false): void {
    for (;;) {
      const due = [...this.#tasks].filter((candidate) => !immediateOnly || candidate.delayMs === 0);
      const task = due.reduce<Task | undefined>((first, candidate) => (first === undefined || candidate.dueAt < first.dueAt ? candidate : first), undefined);
      if (task === undefined) return;
      this.#tasks.delete(task);
      clearTimeout(task.timer);
      task.run();
    }
  }

  /** Stops the scheduler and wakes every waiting blocking query. */
  close(): void {
    for (const task of this.#tasks) clearTimeout(task.timer);
    this.#tasks.clear();
    this.store.close();
  }
}

function registerResponse(evalId: string, evalCreateIndex: number, jobModifyIndex: number, index: number): RegisterResponse {
  return { EvalID: evalId, EvalCreateIndex: evalCreateIndex, JobModifyIndex: jobModifyIndex, Warnings: "", Index: index, LastContact: 0, KnownLeader: false, NextToken: "" };
}

