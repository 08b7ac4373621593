/**
 * A job's plan (`PUT /v1/job/<id>/plan`), as the reference's `Job.Plan` (`nomad/job_endpoint.go`)
 * makes it: the job is checked as a registration checks it, upserted into a snapshot of the state
 * (as its next version when its spec changed, else the job as it is), and one evaluation of it is
 * processed there by the scheduler with a planner that records instead of applying.
 *
 * Here the snapshot is a view of the store in which the job (and its version) are the planned
 * version and every write is refused; the scheduler's own decision (`computeEvaluation`: the
 * reconciler, feasibility and bin packing) runs on it, so a plan costs one evaluation's work and
 * changes nothing: no index, evaluation, allocation or event.
 *
 * @module
 */
import { goTime } from "../../go/time.js";
import { formatErrors } from "../../go/multierror.js";
import { invalid } from "../base/errors.js";
import type { Evaluation, Job, JobSpec, JsonObject } from "../state/model.js";
import { namespacedKey, TABLES, type ReadTable, type Rows, type Store, type TableName, type Tables } from "../state/store.js";
import type { DesiredUpdates } from "./annotate.js";
import { blockedEvalFields } from "./blocked.js";
import { nextLaunchMs } from "./cron.js";
import { computeEvaluation } from "./generic-sched.js";
import { canonicalizeJob, specChanged, validateJobIn } from "./job-spec.js";
import { periodicActive } from "./periodic.js";
import { nextVersion } from "./register.js";
import { newEvaluation, type SchedulerContext } from "./state.js";

/** Go's zero `time.Time`, as its JSON writes it: a job that is not periodic has no next launch. */
const GO_ZERO_TIME = "0001-01-01T00:00:00Z";

/** What a job's plan finds (`structs.JobPlanResponse`, less the diff, which the caller makes from `previous` and `planned`). */
export interface JobPlan {
  /** The job as it is, undefined when it does not exist. */
  readonly previous: Job | undefined;
  /** The job the scheduler planned: its next version, or the job as it is when the spec did not change. */
  readonly planned: Job;
  /** The current job's `JobModifyIndex` (0 for a new job): a registration enforcing it succeeds while the job does not change. */
  readonly jobModifyIndex: number;
  /** Per task group, the counts of the scheduler's decisions (`Annotations.DesiredTGUpdates`). */
  readonly desiredTGUpdates: Record<string, DesiredUpdates>;
  /** Per task group, why its placements failed; null when all would be placed. */
  readonly failedTGAllocs: Record<string, JsonObject> | null;
  /** The evaluations the scheduler would make: a blocked one for what it could not place, follow-ups that reschedule later. */
  readonly createdEvals: Evaluation[] | null;
  /** The next launch of a periodic job (Go's zero time otherwise). */
  readonly nextPeriodicLaunch: string;
}

/**
 * Plans `request`'s job in `namespace` and `region` on the state as it is now, writing nothing.
 *
 * @throws a Refusal (invalid) for a job that does not validate, as registration does.
 */
export function planJob(context: SchedulerContext, requested: JsonObject, namespace: string, region: string): JobPlan {
  const { store, clock } = context;
  const spec = canonicalizeJob(requested, namespace, region);
  const errors = validateJobIn(store.tables, spec);
  if (errors.length > 0) throw invalid(formatErrors(errors));
  const key = namespacedKey(spec.Namespace, spec.ID);
  const previous = store.tables.jobs.get(key);
  // The reference upserts the job only when its spec changed, at an index after the state's.
  const index = store.index + 1;
  const planned = previous !== undefined && !specChanged(previous, spec) ? previous : nextVersion(context, spec, previous, index, "pending");
  const evaluation = newEvaluation(clock, index, {
    Namespace: spec.Namespace,
    Priority: spec.Priority,
    Type: spec.Type,
    TriggeredBy: "job-register",
    JobID: spec.ID,
    JobModifyIndex: planned === previous ? 0 : index,
  });
  const view: SchedulerContext = { ...context, store: readOnlyStore(store, plannedTables(store.tables, planned)) };
  const decided = computeEvaluation(view, planned, evaluation);
  const failed = Object.keys(decided.failedTGAllocs).length > 0;
  const created: Evaluation[] = decided.followupEvals.map((fields) => newEvaluation(clock, index, { ...fields, PreviousEval: evaluation.ID }));
  // What it could not place waits in a blocked evaluation (`CreateBlockedEval`), unless a follow-up will reschedule it.
  if (failed && !decided.system && decided.followupEvals.length === 0) {
    created.unshift(newEvaluation(clock, index, blockedEvalFields(evaluation, decided.failedTGAllocs)));
  }
  return {
    previous,
    planned,
    jobModifyIndex: previous?.JobModifyIndex ?? 0,
    desiredTGUpdates: decided.desiredTGUpdates,
    failedTGAllocs: failed ? decided.failedTGAllocs : null,
    createdEvals: created.length > 0 ? created : null,
    nextPeriodicLaunch: nextLaunch(spec, clock.nowMs()),
  };
}

/** The next launch of an enabled periodic job after `nowMs` (`Periodic.Next`), as Go writes the time. */
function nextLaunch(spec: JobSpec, nowMs: number): string {
  if (!periodicActive(spec)) return GO_ZERO_TIME;
  const next = nextLaunchMs(spec.Periodic, nowMs);
  return next === undefined ? GO_ZERO_TIME : goTime(next);
}

/** The tables with the planned job as the job, and as its version: what the scheduler reads of them. */
function plannedTables(tables: Tables, planned: Job): Tables {
  return {
    ...tables,
    jobs: withRow(tables.jobs, "jobs", planned),
    job_versions: withRow(tables.job_versions, "job_versions", { Namespace: planned.Namespace, ID: planned.ID, Version: planned.Version, Job: planned }),
  };
}

/** A table in which `row` is written over the row of its key (or added), for reads. */
function withRow<Name extends TableName>(table: ReadTable<Rows[Name]>, name: Name, row: Rows[Name]): ReadTable<Rows[Name]> {
  const definition = TABLES[name];
  const keyOf = definition.key as (row: Rows[Name]) => string;
  const key = keyOf(row);
  const groupOf = (definition as { readonly group?: (row: Rows[Name]) => string }).group;
  return {
    get: (wanted) => (wanted === key ? row : table.get(wanted)),
    get size() {
      return table.size + (table.get(key) === undefined ? 1 : 0);
    },
    // The table's order is the store's: a plan's scheduler reads rows by key and group only.
    all: () => table.all(),
    values: function* () {
      for (const each of table.values()) if (keyOf(each) !== key) yield each;
      yield row;
    },
    group: (wanted) => (groupOf !== undefined && groupOf(row) === wanted ? new Map(table.group(wanted)).set(key, row) : table.group(wanted)),
  };
}

/** The store with `tables` to read, and every write refused: a plan writes nothing. */
function readOnlyStore(store: Store, tables: Tables): Store {
  const refuse = () => {
    throw new Error("a job's plan writes nothing");
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === "tables") return tables;
      if (property === "write" || property === "seed") return refuse;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
