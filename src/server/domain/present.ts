/**
 * The reference's JSON of the agent's rows: the full job, allocations (`AllocListStub` and the
 * full `Allocation`), evaluations (`EvaluationStub` and the full `Evaluation`) and nodes
 * (`NodeListStub` and the full `Node`), each written by its struct's declaration
 * (`src/structs/`): the fields in declaration order, nested structs likewise. Routes, list items,
 * filter targets and the event stream all present rows through this module, so a row reads the
 * same everywhere.
 *
 * Rows keep what the simulated scheduler knows; a field of the reference's struct that a row does
 * not have is written as the reference's zero value for it (`""`, `0`, `false`, `null`). A job is
 * stored whole and canonicalised at registration, defaults included. A field a row gains later
 * (the scheduler learning task states, say) is written as the row has it, with no change here.
 *
 * `structs.Allocation` and `structs.Evaluation` carry `_struct bool \`codec:",omitempty"\``,
 * which makes every one of their fields `omitempty` in the reference's encoder: empty strings,
 * zeros, `false`, nil pointers, empty maps and slices and all-zero structs are left out of the
 * full objects. Their stubs, and every other struct, print every field but those their
 * declarations mark `omitempty`.
 *
 * Presenting is pure: it reads the rows it is given and nothing else.
 *
 * @module
 */
import { ALLOC_LIST_STUB, ALLOCATION, TASK_EVENT } from "../../structs/allocation.js";
import { present } from "../../structs/derive.js";
import { EVALUATION, EVALUATION_STUB } from "../../structs/evaluation.js";
import { JOB } from "../../structs/job.js";
import { RESOURCES } from "../../structs/job-blocks.js";
import { NODE, NODE_LIST_STUB } from "../../structs/node.js";
import { NETWORK_RESOURCE } from "../../structs/resources.js";
import type { AllocatedResources, Allocation, Evaluation, Job, JsonObject, Node, TaskAction, TaskRun } from "../state/model.js";
import { goTime } from "../../go/time.js";
import { driversOf } from "../state/drivers.js";

/** The reference's HTTP port, in a node's `HTTPAddr` (the simulated clients all listen on it). */
export const CLIENT_HTTP_PORT = 4646;

/**
 * A field of the reference's struct that `row` may lack: the row's value when it has one, else
 * `fallback` (a value the agent derives, where the reference's server would have set one).
 */
function fieldOr(row: object, name: string, fallback: unknown): unknown {
  const value = Object.hasOwn(row, name) ? (row as JsonObject)[name] : undefined;
  return value === undefined ? fallback : value;
}

// ---------------------------------------------------------------------------------------------
// Jobs

/**
 * The full job (`GET /v1/job/<id>`, an allocation's `Job`), as the reference prints `structs.Job`:
 * the stored job, which registration keeps whole and canonical, in the struct's order.
 */
export function presentJob(job: Job): JsonObject {
  return present(JOB, job);
}

// ---------------------------------------------------------------------------------------------
// Allocations

/** Go's zero `time.Time`, as its JSON writes it. */
const ZERO_GO_TIME = "0001-01-01T00:00:00Z";


/** `structs.TaskEvent` with every field at its zero value: an event sets the fields it has. */
const ZERO_TASK_EVENT: JsonObject = Object.freeze(present(TASK_EVENT, {}));

/** A task event at `ms` with the reference client's texts: `structs.TaskEvent` with the fields it sets, the others at their zero values. */
function taskEvent(type: string, ms: number, displayMessage: string, fields: JsonObject = {}): JsonObject {
  return { ...ZERO_TASK_EVENT, Type: type, Time: BigInt(ms) * 1_000_000n, DisplayMessage: displayMessage, Details: {}, ...fields };
}

/** The reference client's kill timeout (`kill_timeout`'s default, 5s), in nanoseconds. */
const KILL_TIMEOUT_NS = 5_000_000_000;

/** The task events the reference's client keeps of each task (`defaultMaxEvents`): the oldest go first. */
export const MAX_TASK_EVENTS = 10;

/** The event a user's action on a running task brings, in the order the reference's task runner writes them. */
function actionEvents(action: TaskAction): JsonObject[] {
  if (action.Kind === "signal") {
    const message = action.Text === "" ? "Task being sent a signal" : `Task being sent signal ${action.Text}`;
    return [taskEvent("Signaling", action.At, message, { TaskSignal: action.Text })];
  }
  // A restart (`restartImpl`): the signal, the killed task's exit, the restart tracker's
  // decision (no delay for a restart asked for), and the task started again.
  return [
    taskEvent("Restart Signaled", action.At, action.Text, { RestartReason: action.Text }),
    taskEvent("Terminated", action.At, "Exit Code: 0", { ExitCode: 0, Details: { exit_code: "0", signal: "0", oom_killed: "false" } }),
    taskEvent("Restarting", action.At, "Task restarting in 0s", { StartDelay: 0 }),
    taskEvent("Started", action.At, "Task started by client"),
  ];
}

/** The `Terminated` event of tasks that ended with `code` (and `signal`, when one ended them). */
function terminated(atMs: number, code: number, signal: number): JsonObject {
  const message = signal === 0 ? `Exit Code: ${code}` : `Exit Code: ${code}, Signal: ${signal}`;
  return taskEvent("Terminated", atMs, message, { ExitCode: code, Signal: signal, Details: { exit_code: String(code), signal: String(signal), oom_killed: "false" } });
}

/**
 * `structs.TaskState` of each of the allocation's tasks, from the agent's record of them: pending
 * (received, its directory built), running (started) or dead (terminated with an exit code, or
 * killed when the server stopped it), with the events the reference's client records on the way,
 * a user's restarts and signals among them (the last {@link MAX_TASK_EVENTS} of each task).
 */
export function presentTaskStates(alloc: Pick<Allocation, "CreateTime" | "ClientStatus">, run: TaskRun): JsonObject {
  const placedMs = Number(alloc.CreateTime / 1_000_000n);
  const events = [taskEvent("Received", placedMs, "Task received by client"), taskEvent("Task Setup", placedMs, "Building Task Directory", { Message: "Building Task Directory" })];
  if (run.StartedAt !== null) events.push(taskEvent("Started", run.StartedAt, "Task started by client"));
  const failed = run.FinishedAt !== null && (alloc.ClientStatus === "failed" || (run.ExitCode ?? 0) !== 0);
  const ending: JsonObject[] = [];
  if (run.FinishedAt !== null && run.ExitCode === null) {
    ending.push(taskEvent("Killing", run.FinishedAt, `Sent interrupt. Waiting ${KILL_TIMEOUT_NS / 1e9}s before force killing`, { KillTimeout: KILL_TIMEOUT_NS }));
    ending.push(taskEvent("Killed", run.FinishedAt, "Task successfully killed"));
  } else if (run.FinishedAt !== null) {
    ending.push(terminated(run.FinishedAt, run.ExitCode ?? 0, run.Signal ?? 0));
    if (failed) ending.push(taskEvent("Not Restarting", run.FinishedAt, "Policy allows no restarts", { FailsTask: true, Details: { fails_task: "true", restart_reason: "Policy allows no restarts" } }));
  }
  const state = (task: string): JsonObject => {
    const own = (run.Actions ?? []).filter((action) => action.Task === task);
    const restarts = run.Restarts?.[task];
    const all = own.length === 0 ? [...events, ...ending] : [...events, ...own.flatMap(actionEvents), ...ending];
    return {
      State: run.FinishedAt !== null ? "dead" : run.StartedAt !== null ? "running" : "pending",
      Failed: failed,
      Restarts: restarts?.Count ?? 0,
      LastRestart: restarts === undefined ? ZERO_GO_TIME : goTime(restarts.Last),
      // A restarted task started again (`updateStateImpl`).
      StartedAt: run.StartedAt === null ? ZERO_GO_TIME : goTime(Math.max(run.StartedAt, restarts?.Last ?? 0)),
      FinishedAt: run.FinishedAt === null ? ZERO_GO_TIME : goTime(run.FinishedAt),
      Events: all.length > MAX_TASK_EVENTS ? all.slice(-MAX_TASK_EVENTS) : all,
      TaskHandle: null,
      Paused: "",
    };
  };
  // Tasks no user acted on share one state, as they share the allocation's life.
  const shared = run.Actions === undefined && run.Restarts === undefined ? state("") : undefined;
  return Object.fromEntries(run.Tasks.map((task) => [task, shared ?? state(task)]));
}

/** The allocation's `TaskStates`: its own (a data file's row may give them), else from the agent's record, else null. */
function taskStates(alloc: Allocation): unknown {
  const own = fieldOr(alloc, "TaskStates", null);
  if (own !== null || alloc.TaskRun === undefined || alloc.TaskRun.Tasks.length === 0) return own;
  return presentTaskStates(alloc, alloc.TaskRun);
}

/** How an allocation stub is written (the list's `task_states` and `resources` parameters). */
export interface AllocationStubOptions {
  /** Whether `TaskStates` is written (else null); the reference's default is true. */
  readonly taskStates: boolean;
  /** Whether `AllocatedResources` is written (when the allocation has them). */
  readonly resources: boolean;
}

/** The stub options of the lists that take none (a job's allocations). */
export const DEFAULT_STUB_OPTIONS: AllocationStubOptions = Object.freeze({ taskStates: true, resources: false });

/** `structs.AllocListStub`: the item of the allocation lists. */
export function presentAllocationStub(alloc: Allocation, options: AllocationStubOptions = DEFAULT_STUB_OPTIONS): JsonObject {
  return present(ALLOC_LIST_STUB, alloc, {
    // omitempty in the stub: written only when asked for and present.
    AllocatedResources: options.resources ? fieldOr(alloc, "AllocatedResources", null) : null,
    TaskStates: options.taskStates ? taskStates(alloc) : null,
  });
}

/** `structs.Resources` as the deprecated fields of an allocation hold it, its counts summed as `Resources.Add` sums them. */
interface OldResources {
  CPU: number;
  Cores: number;
  MemoryMB: number;
  MemoryMaxMB: number;
  DiskMB: number;
  Networks: JsonObject[] | null;
}

/** Adds `delta` to `total` (`Resources.Add`): a network on a device `total` has gains its ports and bandwidth (`NetworkResource.Add`), another is appended. */
function addResources(total: OldResources, delta: OldResources): void {
  total.CPU += delta.CPU;
  total.Cores += delta.Cores;
  total.MemoryMB += delta.MemoryMB;
  total.MemoryMaxMB += delta.MemoryMaxMB > 0 ? delta.MemoryMaxMB : delta.MemoryMB;
  total.DiskMB += delta.DiskMB;
  for (const network of delta.Networks ?? []) {
    const networks = (total.Networks ??= []);
    const at = networks.findIndex((each) => each.Device === network.Device);
    if (at === -1) {
      networks.push({ ...network });
      continue;
    }
    const into = networks[at]!;
    const ports = (name: string, from: JsonObject) => (Array.isArray(from[name]) ? (from[name] as unknown[]) : []);
    const reserved = [...ports("ReservedPorts", into), ...ports("ReservedPorts", network)];
    const dynamic = [...ports("DynamicPorts", into), ...ports("DynamicPorts", network)];
    networks[at] = { ...into, MBits: Number(into.MBits ?? 0) + Number(network.MBits ?? 0), ReservedPorts: reserved.length === 0 ? null : reserved, DynamicPorts: dynamic.length === 0 ? null : dynamic };
  }
}

/**
 * The deprecated resource fields the reference still writes on an allocation it places, from its
 * `AllocatedResources`: `TaskResources` (`AllocatedResources.OldTaskResources`), `SharedResources`
 * (the group's disk and network, as `computePlacements` sets it) and `Resources`, their sum (the
 * state store's `addComputedAllocAttrs`). The agent keeps only `AllocatedResources` and derives
 * the three when it writes the allocation.
 */
export function deprecatedResources(allocated: AllocatedResources): { readonly Resources: JsonObject; readonly SharedResources: JsonObject; readonly TaskResources: JsonObject } {
  const networks = (list: readonly object[] | null): JsonObject[] | null => (list === null || list.length === 0 ? null : list.map((network) => present(NETWORK_RESOURCE, network)));
  const tasks = Object.entries(allocated.Tasks ?? {}).map(([name, task]): [string, OldResources] => [
    name,
    { CPU: task.Cpu.CpuShares, Cores: task.Cpu.ReservedCores?.length ?? 0, MemoryMB: task.Memory.MemoryMB, MemoryMaxMB: task.Memory.MemoryMaxMB, DiskMB: 0, Networks: networks(task.Networks) },
  ]);
  const shared: OldResources = { CPU: 0, Cores: 0, MemoryMB: 0, MemoryMaxMB: 0, DiskMB: allocated.Shared.DiskMB, Networks: networks(allocated.Shared.Networks) };
  const total: OldResources = { CPU: 0, Cores: 0, MemoryMB: 0, MemoryMaxMB: 0, DiskMB: 0, Networks: null };
  for (const [, task] of tasks) addResources(total, task);
  addResources(total, shared);
  return {
    Resources: present(RESOURCES, total),
    SharedResources: present(RESOURCES, shared),
    TaskResources: Object.fromEntries(tasks.map(([name, task]) => [name, present(RESOURCES, task)])),
  };
}

/**
 * `structs.Allocation` (`GET /v1/allocation/<id>`, what `/v1/allocations?filter=` sees), with the
 * reference's `omitempty`. `job` is the allocation's job at its version (null when it is gone;
 * the job as it is now once that version is no longer kept). An allocation the scheduler gave
 * resources also has the deprecated fields derived from them ({@link deprecatedResources}).
 */
export function presentAllocation(alloc: Allocation, job: Job | null): JsonObject {
  return present(ALLOCATION, alloc, {
    Job: job,
    ...(alloc.AllocatedResources === undefined ? {} : deprecatedResources(alloc.AllocatedResources)),
    TaskStates: taskStates(alloc),
    // Moved by the server's changes only; the rows do not tell those apart, so it is the
    // allocation's creation (the reference's first server-side write) unless a row says otherwise.
    AllocModifyIndex: fieldOr(alloc, "AllocModifyIndex", alloc.CreateIndex),
  });
}

// ---------------------------------------------------------------------------------------------
// Evaluations

/**
 * `structs.Evaluation` (`GET /v1/evaluation/<id>`, the items of the evaluation lists), with the
 * reference's `omitempty`; `related` are the stubs of `?related=true` (left out when empty).
 */
export function presentEvaluation(evaluation: Evaluation, related?: readonly JsonObject[]): JsonObject {
  return present(EVALUATION, evaluation, related === undefined ? undefined : { RelatedEvals: related });
}

/** `structs.EvaluationStub`: an evaluation's related evaluations. */
export function presentEvaluationStub(evaluation: Evaluation): JsonObject {
  return present(EVALUATION_STUB, evaluation);
}

/** The links between evaluations (`NextEval`, `PreviousEval`, `BlockedEval`) an evaluation has. */
export function linkedEvaluations(evaluation: Evaluation): string[] {
  return ["NextEval", "PreviousEval", "BlockedEval"].map((name) => fieldOr(evaluation, name, "")).filter((id): id is string => typeof id === "string" && id !== "");
}

// ---------------------------------------------------------------------------------------------
// Nodes

/** A node's attributes as the reference keeps them: `nomad.version` among them, sorted as Go writes a map. */
function nodeAttributes(node: Node): { readonly [name: string]: string } {
  const attributes = { "nomad.version": node.Version, ...node.Attributes };
  return Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `structs.DrainStrategy` of a draining node (a pointer: null when it is not draining). */
function drainStrategy(node: Node): unknown {
  return fieldOr(node, "DrainStrategy", node.Drain ? { Deadline: 0, IgnoreSystemJobs: false, ForceDeadline: null, StartedAt: null } : null);
}

/** How a node stub is written (the node list's `os` and `resources` parameters). */
export interface NodeStubOptions {
  /** `Attributes` with the OS name only. */
  readonly os: boolean;
  /** `NodeResources` and `ReservedResources`, when the node has them. */
  readonly resources: boolean;
}

/** `structs.NodeListStub`: the item of `GET /v1/nodes`. */
export function presentNodeStub(node: Node, options: NodeStubOptions): JsonObject {
  return present(NODE_LIST_STUB, node, {
    Drivers: driversOf(node),
    // omitempty, as the two resources fields below.
    Attributes: options.os ? { "os.name": node.Attributes["os.name"] ?? "" } : null,
    NodeResources: options.resources ? fieldOr(node, "NodeResources", null) : null,
    ReservedResources: options.resources ? fieldOr(node, "ReservedResources", null) : null,
  });
}

/**
 * `structs.Node` (`GET /v1/node/<id>`, what `/v1/nodes?filter=` sees), sanitized as the reference
 * sends it (`SecretID` empty), with the trailing `Drain` its JSON extension adds.
 */
export function presentNode(node: Node): JsonObject {
  return present(NODE, node, {
    SecretID: "",
    HTTPAddr: fieldOr(node, "HTTPAddr", `${node.Address}:${CLIENT_HTTP_PORT}`),
    Attributes: nodeAttributes(node),
    DrainStrategy: drainStrategy(node),
    Drivers: driversOf(node),
    // The simulated clients run no CSI plugin: empty maps, as a client without one reports.
    CSIControllerPlugins: {},
    CSINodePlugins: {},
  });
}
