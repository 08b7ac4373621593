/**
 * What the simulated clients do when a user acts on an allocation they run, as the reference's
 * client does it (`client/alloc_endpoint.go`, `client/client.go`, `client/allocrunner/`), reached
 * through the server's `ClientAllocations` RPCs (`nomad/client_alloc_endpoint.go`):
 *
 * - **restart** one task, the running ones, or all (`RestartTask`, `RestartRunning`,
 *   `RestartAll`): each restarted task writes `Restart Signaled`, `Terminated`, `Restarting` and
 *   `Started` at once (the simulated task stops as soon as it is told, and a restart a user asked
 *   for has no delay: `RestartTracker.GetState`), and its `Restarts` count goes up;
 * - **signal** one task or all (`allocRunner.Signal`): a `Signaling` event; a signal the job says
 *   ends its tasks ({@link META_SIGNAL_EXITS}) ends the allocation, failed with the exit code a
 *   process killed by that signal has (128 + its number);
 * - **garbage collect** a terminal allocation (`AllocGarbageCollector.Collect`): its client
 *   destroys what is left of it, once (the allocation runner stays known until the server
 *   removes the allocation, so its reads still answer).
 *
 * The allocation and its node are found as the server's RPC finds them (`getAlloc`,
 * `getNodeForRpc`, the node's connection), in {@link clientAllocation} and {@link reachNode}.
 *
 * @module
 */
import { conflict, invalid, missing } from "../base/errors.js";
import type { Allocation, Job, Node, TaskAction, TaskRun } from "../state/model.js";
import { namespacedKey } from "../state/store.js";
import { networkStatusOf } from "./client.js";
import { isTerminal, putJob, updateAlloc, type SchedulerContext } from "./state.js";

/**
 * The job `Meta` key listing the signals that end its tasks (comma-separated names, `""` for
 * none): a signal a program does not handle ends it, one it handles (a reload on `SIGHUP`) does
 * not, and the job says which its program is.
 */
export const META_SIGNAL_EXITS = "bexpr.signal_exits";

/** The signals that end a task when its job does not say ({@link META_SIGNAL_EXITS}): those a program rarely handles but to exit. */
export const DEFAULT_SIGNAL_EXITS: readonly string[] = ["SIGKILL", "SIGTERM", "SIGINT", "SIGQUIT"];

/** Linux's signals by name, with their numbers (what a killed task's `Signal` and exit code say). */
export const SIGNALS: Readonly<Record<string, number>> = Object.freeze({
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGTRAP: 5, SIGABRT: 6, SIGIOT: 6, SIGBUS: 7, SIGFPE: 8, SIGKILL: 9, SIGUSR1: 10,
  SIGSEGV: 11, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15, SIGSTKFLT: 16, SIGCHLD: 17, SIGCONT: 18, SIGSTOP: 19, SIGTSTP: 20,
  SIGTTIN: 21, SIGTTOU: 22, SIGURG: 23, SIGXCPU: 24, SIGXFSZ: 25, SIGVTALRM: 26, SIGPROF: 27, SIGWINCH: 28, SIGIO: 29, SIGPOLL: 29,
  SIGPWR: 30, SIGSYS: 31,
});

/**
 * The actions kept of each task: what its last {@link MAX_ACTIONS_PER_TASK} actions write is more
 * than the events the reference's client keeps of a task (10), so older ones would not show.
 */
export const MAX_ACTIONS_PER_TASK = 10;

/** The reference's `allocRunner.RestartTask` for a task the allocation does not have. */
const unknownTask = (task: string) => missing(`Could not find task runner for task: ${task}`);

/** The reference's `ErrTaskNotRunning`. */
const TASK_NOT_RUNNING = "Task not running";

/** The errors of several tasks, as go-multierror writes them (`allocRunner.Signal` for every task). */
function multiError(errors: readonly string[]): string {
  return `${errors.length} error${errors.length === 1 ? "" : "s"} occurred:\n${errors.map((each) => `\t* ${each}`).join("\n")}\n\n`;
}

/**
 * The allocation a client endpoint names (`getAlloc`): `Missing allocation ID` for none, `Unknown
 * allocation "<id>"` (a 404) for one the state does not hold.
 */
export function clientAllocation(tables: SchedulerContext["store"]["tables"], id: string): Allocation {
  if (id === "") throw invalid("Missing allocation ID");
  const alloc = tables.allocs.get(id);
  if (alloc === undefined) throw missing(`Unknown allocation "${id}"`);
  return alloc;
}

/**
 * The node a client RPC goes to (`getNodeForRpc`, then its connection): `Unknown node <id>` when
 * the state does not hold it, `No path to node` when its client is away (down or disconnected),
 * both 404s as the reference's handlers answer them.
 */
export function reachNode(tables: SchedulerContext["store"]["tables"], nodeId: string): Node {
  const node = tables.nodes.get(nodeId);
  if (node === undefined) throw missing(`Unknown node ${nodeId}`);
  if (node.Status === "down" || node.Status === "disconnected") throw missing("No path to node");
  return node;
}

/** Whether the allocation's tasks run now: started, not ended. */
export function tasksRunning(run: TaskRun | undefined): run is TaskRun {
  return run !== undefined && run.StartedAt !== null && run.FinishedAt === null;
}

/** The run with `tasks` acted on at `atMs`: the actions appended (the last few of each task kept), restarts counted. */
function withActions(run: TaskRun, tasks: readonly string[], kind: TaskAction["Kind"], text: string, atMs: number): TaskRun {
  const actions = [...(run.Actions ?? []), ...tasks.map((task) => ({ Task: task, Kind: kind, At: atMs, Text: text }))];
  // Keep the newest MAX_ACTIONS_PER_TASK of each task (one pass from the newest end).
  const seen = new Map<string, number>();
  const kept: TaskAction[] = [];
  for (let i = actions.length - 1; i >= 0; i--) {
    const action = actions[i]!;
    const count = seen.get(action.Task) ?? 0;
    if (count >= MAX_ACTIONS_PER_TASK) continue;
    seen.set(action.Task, count + 1);
    kept.push(action);
  }
  kept.reverse();
  if (kind !== "restart") return { ...run, Actions: kept };
  const restarts = { ...run.Restarts };
  for (const task of tasks) restarts[task] = { Count: (restarts[task]?.Count ?? 0) + 1, Last: atMs };
  return { ...run, Actions: kept, Restarts: restarts };
}

/** What `restart` asks: one task, or all tasks, or (neither) the running ones. */
export interface RestartRequest {
  readonly taskName: string;
  readonly allTasks: boolean;
}

/** What `signal` asks: one task (or every one, `""`), and the signal's name. */
export interface SignalRequest {
  readonly task: string;
  readonly signal: string;
}

/** The signals that end the job's tasks ({@link META_SIGNAL_EXITS}). */
function signalExits(job: Job | undefined): ReadonlySet<string> {
  const listed = job?.Meta?.[META_SIGNAL_EXITS];
  if (listed === undefined) return new Set(DEFAULT_SIGNAL_EXITS);
  return new Set(listed.split(",").map((name) => name.trim().toUpperCase()).filter((name) => name !== ""));
}

/**
 * The simulated clients' answers to the allocation actions of the module's description. Holds
 * the allocations their clients collected: the agent's memory, as a client's is its own.
 */
export class SimulatedClients {
  readonly #context: SchedulerContext;
  /** Allocations whose client collected them, oldest first (bounded: the oldest are forgotten first). */
  readonly #collected = new Set<string>();

  /** The most collected allocations remembered: past it the oldest are forgotten (and may be collected again). */
  static readonly MAX_COLLECTED = 10_000;

  /** The clients of the scheduler's state (`context`: its store and clock). */
  constructor(context: SchedulerContext) {
    this.#context = context;
  }

  /**
   * Restarts tasks of a running allocation (`Client.RestartAllocation`): a named task (refused
   * when the allocation has no such task, or it does not run), every task (`AllTasks`) or the
   * running ones, which for a terminal allocation is refused (`restart of an alloc that should
   * not run`). Tasks that do not run are passed over, as the reference's `ErrTaskNotRunning`.
   */
  async restart(alloc: Allocation, request: RestartRequest): Promise<void> {
    if (request.allTasks && request.taskName !== "") throw invalid("task name cannot be set when restarting all tasks");
    const run = alloc.TaskRun;
    let tasks: readonly string[];
    let reason: string;
    if (request.taskName !== "") {
      if (!(run?.Tasks ?? []).includes(request.taskName)) throw unknownTask(request.taskName);
      if (!tasksRunning(run)) throw conflict(TASK_NOT_RUNNING);
      tasks = [request.taskName];
      reason = "User requested task to restart";
    } else {
      if (isTerminal(alloc)) throw conflict("restart of an alloc that should not run");
      tasks = tasksRunning(run) ? run.Tasks : [];
      reason = request.allTasks ? "User requested all tasks to restart" : "User requested running tasks to restart";
    }
    if (tasks.length === 0) return;
    await this.#actOn(alloc.ID, (current) => (tasksRunning(current.TaskRun) ? withActions(current.TaskRun, tasks, "restart", reason, this.#context.clock.nowMs()) : undefined));
  }

  /**
   * Signals a task, or every task (`allocRunner.Signal`): a `Signaling` event on each; refused
   * for a task the allocation does not have (`Task not found`), a signal Linux does not have, and
   * tasks that do not run. A signal the job lists in {@link META_SIGNAL_EXITS} then ends the
   * allocation: failed, its tasks `Terminated` with exit code 128 + the signal's number.
   */
  async signal(alloc: Allocation, request: SignalRequest): Promise<void> {
    const run = alloc.TaskRun;
    const tasks = request.task === "" ? (run?.Tasks ?? []) : [request.task];
    if (request.task !== "" && !(run?.Tasks ?? []).includes(request.task)) throw missing("Task not found");
    const name = request.signal.toUpperCase();
    if (request.signal !== "" && SIGNALS[name] === undefined) throw invalid(`invalid signal "${request.signal}"`);
    if (!tasksRunning(run)) {
      // One task's error is its own; every task's, each named (an allocation of a data file without a task record has none to name).
      throw conflict(request.task !== "" || tasks.length === 0 ? TASK_NOT_RUNNING : multiError(tasks.map((task) => `Failed to signal task: ${task}, err: ${TASK_NOT_RUNNING}`)));
    }
    const job = this.#context.store.tables.jobs.get(namespacedKey(alloc.Namespace, alloc.JobID));
    const ends = request.signal !== "" && signalExits(job).has(name);
    const atMs = this.#context.clock.nowMs();
    if (!ends) {
      await this.#actOn(alloc.ID, (current) => (tasksRunning(current.TaskRun) ? withActions(current.TaskRun, tasks, "signal", request.signal, atMs) : undefined));
      return;
    }
    const number = SIGNALS[name]!;
    // The signalled tasks end: the allocation fails, in one client write, as the `finish` step's.
    await this.#context.store.write(["allocs", "job_summary", "jobs", "deployment", "evals", "service_registrations"], (state) => {
      const current = state.allocs.get(alloc.ID);
      if (current === undefined || isTerminal(current) || !tasksRunning(current.TaskRun)) return;
      const key = namespacedKey(current.Namespace, current.JobID);
      const owner = state.jobs.get(key);
      const signalled = { ...current, TaskRun: withActions(current.TaskRun, tasks, "signal", request.signal, atMs) };
      updateAlloc(this.#context, state, owner, signalled, { ClientStatus: "failed", NetworkStatus: networkStatusOf(current) }, 128 + number);
      const ended = state.allocs.get(alloc.ID)!;
      state.allocs.put({ ...ended, TaskRun: { ...ended.TaskRun!, Signal: number } });
      if (owner !== undefined) putJob(this.#context, state, owner);
    }, "AllocClientUpdate");
  }

  /**
   * Collects a terminal allocation on its client (`AllocGarbageCollector.Collect`); refused for
   * one that still runs or was collected already, as the reference's client refuses it.
   */
  collect(alloc: Allocation): void {
    if (!isTerminal(alloc) || this.#collected.has(alloc.ID)) throw conflict("No such allocation on client, or allocation not eligible for GC");
    this.#remember(alloc.ID);
  }

  /** Collects every terminal allocation of the node (`AllocGarbageCollector.CollectAll`); how many. */
  collectAll(nodeId: string): number {
    let collected = 0;
    for (const alloc of this.#context.store.tables.allocs.values()) {
      if (alloc.NodeID !== nodeId || !isTerminal(alloc) || this.#collected.has(alloc.ID)) continue;
      this.#remember(alloc.ID);
      collected++;
    }
    return collected;
  }

  /** Notes a collected allocation, forgetting the oldest past {@link SimulatedClients.MAX_COLLECTED}. */
  #remember(id: string): void {
    this.#collected.add(id);
    if (this.#collected.size > SimulatedClients.MAX_COLLECTED) this.#collected.delete(this.#collected.values().next().value!);
  }

  /** One client write of the allocation's task record, when `change` gives a new one (undefined: the tasks no longer run, nothing is written). */
  async #actOn(id: string, change: (alloc: Allocation) => TaskRun | undefined): Promise<void> {
    await this.#context.store.write(["allocs"], (state) => {
      const current = state.allocs.get(id);
      if (current === undefined) return;
      const run = change(current);
      if (run === undefined) return;
      state.allocs.put({ ...current, TaskRun: run, ModifyIndex: state.index, ModifyTime: this.#context.clock.nowNs() });
    }, "AllocClientUpdate");
  }
}
