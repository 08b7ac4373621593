/**
 * The node drainer, as the reference's `nomad/drainer/` moves allocations off draining nodes: one
 * pass reads the state and writes what changes.
 *
 * - A service job's group gives up its allocations on draining nodes a few at a time: as many as
 *   keep `Count - Migrate.MaxParallel` of its allocations healthy (`handleTaskGroup`). Each is
 *   marked `DesiredTransition.Migrate`, with an evaluation of its job (`node-drain`), in one
 *   `AllocUpdateDesiredTransition` write; the scheduler stops it and places its replacement
 *   (the reconciler's `computeMigrations`).
 * - Batch jobs' allocations are left to finish; those moved by the deadline are stopped without
 *   a replacement (`MigrateDisablePlacement`).
 * - A node is done when no allocation of a job other than a system job is left running there
 *   (`IsDone`): its system jobs' allocations (unless `IgnoreSystemJobs`) are marked to migrate,
 *   and its drain is complete: the strategy removed, the node left ineligible, the event
 *   `Node drain complete` (`NodesDrainComplete`).
 * - At its deadline (or at once for a negative one), everything left on the node is marked to
 *   migrate and its drain is complete, the event saying `deadline_reached` (`handleDeadlinedNodes`).
 *
 * The reference counts an allocation healthy once its client reported its health; the simulated
 * clients report it within a deployment, so an allocation that runs outside one counts as healthy.
 *
 * @module
 */
import type { Allocation, Evaluation, Job, Node } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { CLIENT_TERMINAL, GO_ZERO_TIME, lastDrainAfter, NODE_EVENT_MESSAGES, withNodeEvent } from "./node-update.js";
import { isTerminal, newEvaluation, putJob, type SchedulerContext } from "./state.js";

/** The `MaxParallel` of a group without a migrate block (the API's `DefaultMigrateStrategy`). */
const DEFAULT_MIGRATE_MAX_PARALLEL = 1;

/** The detail of a drain completed by its deadline (`NodeDrainEventDetailDeadlined`). */
export const DEADLINE_REACHED_DETAIL = "deadline_reached";

/** The nodes draining now. */
export function drainingNodes(context: SchedulerContext): Node[] {
  return [...context.store.tables.nodes.values()].filter((node) => node.DrainStrategy != null);
}

/** When the node's drain deadline passes, in milliseconds since the epoch: now for a negative deadline, undefined without one. */
export function drainDeadlineMs(node: Node, nowMs: number): number | undefined {
  const strategy = node.DrainStrategy;
  if (strategy == null) return undefined;
  if (strategy.Deadline < 0) return nowMs;
  if (strategy.Deadline === 0 || strategy.ForceDeadline === GO_ZERO_TIME) return undefined;
  return Date.parse(strategy.ForceDeadline);
}

/** An allocation the client still runs (or will): not stopped or finished on the client (`ClientTerminalStatus`). */
const clientRunning = (alloc: Allocation) => !CLIENT_TERMINAL.has(alloc.ClientStatus);

/** Whether the drainer counts the allocation healthy (see the module's description). */
function healthy(alloc: Allocation): boolean {
  if (isTerminal(alloc) || alloc.DesiredTransition?.Migrate === true) return false;
  if (alloc.DeploymentStatus?.Healthy != null) return alloc.DeploymentStatus.Healthy;
  return alloc.ClientStatus === "running" && alloc.DeploymentID === "";
}

/** The allocations of one group of a service job to mark now (`handleTaskGroup`). */
function groupDrain(group: Job["TaskGroups"][number], allocs: readonly Allocation[], draining: ReadonlySet<string>): Allocation[] {
  let healthyCount = 0;
  const drainable: Allocation[] = [];
  for (const alloc of allocs) {
    if (healthy(alloc)) healthyCount++;
    if (!draining.has(alloc.NodeID) || !clientRunning(alloc) || alloc.DesiredStatus !== "run") continue;
    if (alloc.DesiredTransition?.Migrate !== true) drainable.push(alloc);
  }
  const migrate = group.Migrate as { readonly MaxParallel?: number } | null | undefined;
  const maxParallel = migrate?.MaxParallel ?? DEFAULT_MIGRATE_MAX_PARALLEL;
  const count = Math.min(drainable.length, healthyCount - (group.Count - maxParallel));
  return count > 0 ? drainable.sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0)).slice(0, count) : [];
}

/** What one pass decided: the allocations to mark, and the nodes whose drain is complete (with whether by their deadline). */
interface DrainPass {
  readonly migrate: Allocation[];
  readonly complete: { readonly node: Node; readonly deadlined: boolean }[];
}

/** Decides the pass from the state now (see the module's description). */
function decide(context: SchedulerContext, nodes: readonly Node[]): DrainPass {
  const { tables } = context.store;
  const nowMs = context.clock.nowMs();
  const draining = new Set(nodes.map((node) => node.ID));
  const byNode = new Map<string, Allocation[]>(nodes.map((node) => [node.ID, []]));
  for (const alloc of tables.allocs.values()) byNode.get(alloc.NodeID)?.push(alloc);
  const pass: DrainPass = { migrate: [], complete: [] };
  const marked = new Set<string>();
  const mark = (alloc: Allocation) => {
    if (marked.has(alloc.ID) || alloc.DesiredTransition?.Migrate === true || isTerminal(alloc)) return;
    marked.add(alloc.ID);
    pass.migrate.push(alloc);
  };
  const jobs = new Set<string>();
  for (const node of nodes) {
    const allocs = byNode.get(node.ID)!;
    const ignoreSystem = node.DrainStrategy!.IgnoreSystemJobs;
    const remaining = allocs.filter((alloc) => !isTerminal(alloc) && !(ignoreSystem && alloc.JobType === "system"));
    const deadline = drainDeadlineMs(node, nowMs);
    if (deadline !== undefined && deadline <= nowMs) {
      for (const alloc of remaining) mark(alloc);
      pass.complete.push({ node, deadlined: true });
      continue;
    }
    if (allocs.every((alloc) => alloc.JobType === "system" || !clientRunning(alloc))) {
      for (const alloc of remaining) mark(alloc);
      pass.complete.push({ node, deadlined: false });
      continue;
    }
    for (const alloc of allocs) if (alloc.JobType === "service" && !isTerminal(alloc)) jobs.add(namespacedKey(alloc.Namespace, alloc.JobID));
  }
  for (const key of jobs) {
    const job = tables.jobs.get(key);
    if (job === undefined || job.Type !== "service") continue;
    const allocs = [...tables.allocs.group(key).values()];
    for (const group of job.TaskGroups) for (const alloc of groupDrain(group, allocs.filter((each) => each.TaskGroup === group.Name), draining)) mark(alloc);
  }
  return pass;
}

/**
 * One pass of the drainer over every draining node: marks the allocations to migrate, with an
 * evaluation of each of their jobs, in one write; then completes the drains that are done.
 * Returns how many nodes were draining.
 */
export async function drainNodes(context: SchedulerContext): Promise<number> {
  const nodes = drainingNodes(context);
  if (nodes.length === 0) return 0;
  const { store, clock } = context;
  const pass = decide(context, nodes);
  if (pass.migrate.length > 0) {
    await store.write(["allocs", "evals", "jobs"], (state) => {
      const jobs = new Map<string, Job>();
      for (const { ID } of pass.migrate) {
        const alloc = state.allocs.get(ID);
        if (alloc === undefined || isTerminal(alloc)) continue;
        // A batch job's allocation is stopped without a replacement: its work is not started over elsewhere.
        const transition = { Reschedule: null, ForceReschedule: null, NoShutdownDelay: null, ...alloc.DesiredTransition, Migrate: true, ...(alloc.JobType === "batch" ? { MigrateDisablePlacement: true } : {}) };
        state.allocs.put({ ...alloc, DesiredTransition: transition, ModifyIndex: state.index, ModifyTime: clock.nowNs() });
        const key = namespacedKey(alloc.Namespace, alloc.JobID);
        const job = state.jobs.get(key);
        if (job !== undefined) jobs.set(key, job);
      }
      for (const job of jobs.values()) {
        const evaluation: Evaluation = newEvaluation(clock, state.index, { Namespace: job.Namespace, Priority: job.Priority, Type: job.Type, TriggeredBy: "node-drain", JobID: job.ID, JobModifyIndex: job.ModifyIndex });
        state.evals.put(evaluation);
        putJob(context, state, job);
      }
    }, "AllocUpdateDesiredTransition");
  }
  if (pass.complete.length > 0) {
    await store.write(["nodes"], (state) => {
      for (const { node, deadlined } of pass.complete) {
        const current = state.nodes.get(node.ID);
        if (current?.DrainStrategy == null) continue;
        const details = deadlined ? { [DEADLINE_REACHED_DETAIL]: "true" } : null;
        state.nodes.put({ ...current, DrainStrategy: null, Drain: false, StatusUpdatedAt: Math.floor(clock.nowMs() / 1000), ...lastDrainAfter(current, null, clock.nowMs(), null, true), ...withNodeEvent(current, clock, state.index, "Drain", NODE_EVENT_MESSAGES.drainComplete, details), ModifyIndex: state.index });
      }
    }, "NodeUpdateDrain");
  }
  return nodes.length;
}
