/**
 * The node endpoint's writes, as the reference's `nomad/node_endpoint.go` makes them:
 * `UpdateEligibility`, `UpdateDrain`, `Deregister` (a purge) and `Evaluate`, with the node events
 * its state store appends and the `node-update` evaluations of `createNodeEvals`. The drain itself
 * (which allocations move, and when the drain is complete) is `drainer.ts`'s.
 *
 * @module
 */
import { goTime } from "../../go/time.js";
import { invalid, missing } from "../base/errors.js";
import type { Clock } from "../base/clock.js";
import type { DrainMetadata, DrainStrategy, Evaluation, Job, Node, NodeEvent } from "../state/model.js";
import { namespacedKey, type Transaction } from "../state/store.js";
import { isTerminal, newEvaluation, putJob, type SchedulerContext } from "./state.js";
import { targets } from "./placement.js";

/** The client statuses of an allocation that stopped running (`ClientTerminalStatus`). */
export const CLIENT_TERMINAL: ReadonlySet<string> = new Set(["complete", "failed", "lost"]);

/** The reference's node events of the drain and of eligibility (`nomad/node_endpoint.go`, `nomad/drainer/drainer.go`). */
export const NODE_EVENT_MESSAGES = {
  drainSet: "Node drain strategy set",
  drainUpdated: "Node drain strategy updated",
  drainDisabled: "Node drain disabled",
  drainComplete: "Node drain complete",
  eligible: "Node marked as eligible for scheduling",
  ineligible: "Node marked as ineligible for scheduling",
} as const;

/** How many events a node keeps, the oldest dropped first (the state store's `appendNodeEvents`). */
export const MAX_NODE_EVENTS = 10;

/**
 * The longest drain deadline taken, in nanoseconds (100 years): the reference takes any, but a
 * time past it cannot be written as an RFC 3339 `ForceDeadline`.
 */
export const MAX_DRAIN_DEADLINE_NS = 100 * 365 * 24 * 3600 * 1_000_000_000;

/** Go's zero `time.Time` as its JSON writes it: a drain without a deadline has it as `ForceDeadline`. */
export const GO_ZERO_TIME = "0001-01-01T00:00:00Z";

/** What the node endpoint's writes answer (`NodeDrainUpdateResponse`, `NodeEligibilityUpdateResponse`, `NodeUpdateResponse`). */
export interface NodeUpdateResponse {
  readonly NodeModifyIndex: number;
  readonly EvalIDs: readonly string[] | null;
  readonly EvalCreateIndex: number;
  readonly Index: number;
}

/** A drain request, decoded (`api.NodeUpdateDrainRequest`): the spec (null to stop draining), `MarkEligible`, the drain's meta. */
export interface DrainRequest {
  readonly spec: { readonly Deadline: number; readonly IgnoreSystemJobs: boolean } | null;
  readonly markEligible: boolean;
  readonly meta: Readonly<Record<string, string>> | null;
}

/** The node with `event` appended (at `index`), the oldest dropped past {@link MAX_NODE_EVENTS}. */
export function withNodeEvent(node: Node, clock: Clock, index: number, subsystem: string, message: string, details: Readonly<Record<string, string>> | null = null): Pick<Node, "Events"> {
  const event: NodeEvent = { Message: message, Subsystem: subsystem, Details: details === null ? null : { ...details }, Timestamp: goTime(clock.nowMs()), CreateIndex: index };
  return { Events: [...(node.Events ?? []), event].slice(-MAX_NODE_EVENTS) };
}

/**
 * The node's `LastDrain` after a change of its drain strategy to `strategy` at `nowMs`
 * (`updateNodeDrainImpl`): a new one when a drain starts, updated (its meta kept unless new meta
 * is given) otherwise; `complete` when the drainer finished it, `canceled` when it was removed
 * before. Unchanged when the node neither drained nor drains.
 */
export function lastDrainAfter(node: Node, strategy: DrainStrategy | null, nowMs: number, meta: Readonly<Record<string, string>> | null, completed: boolean): Pick<Node, "LastDrain"> {
  if (node.DrainStrategy == null && strategy === null) return {};
  // The reference keeps whole seconds here (`time.Unix(updatedAt, 0)`).
  const at = goTime(Math.floor(nowMs / 1000) * 1000);
  const started = node.DrainStrategy == null || node.LastDrain == null;
  const previous = started ? { StartedAt: at, Meta: meta === null ? null : { ...meta } } : node.LastDrain!;
  const status: DrainMetadata["Status"] = strategy !== null ? "draining" : completed ? "complete" : "canceled";
  const keptMeta = meta !== null && Object.keys(meta).length > 0 ? { ...meta } : previous.Meta;
  return { LastDrain: { StartedAt: previous.StartedAt, UpdatedAt: at, Status: status, AccessorID: "", Meta: keptMeta } };
}

/** The node of `id`, or a 404 with the reference's text (it answers 500: the decisions table). */
function nodeOf(context: SchedulerContext, id: string): Node {
  const node = context.store.tables.nodes.get(id);
  if (node === undefined) throw missing("node not found");
  return node;
}

/**
 * Marks a node eligible or ineligible for scheduling (`Node.UpdateEligibility`). A draining node
 * cannot be made eligible; a node already so is answered with zeros and nothing written, as the
 * reference. A node made eligible gets `node-update` evaluations for its jobs (`createNodeEvals`).
 */
export async function updateEligibility(context: SchedulerContext, id: string, eligibility: string): Promise<NodeUpdateResponse> {
  if (eligibility !== "eligible" && eligibility !== "ineligible") throw invalid(`invalid scheduling eligibility ${JSON.stringify(eligibility)}`);
  const node = nodeOf(context, id);
  if (node.DrainStrategy != null && eligibility === "eligible") throw invalid("can not set node's scheduling eligibility to eligible while it is draining");
  if (node.SchedulingEligibility === eligibility) return { NodeModifyIndex: 0, EvalIDs: null, EvalCreateIndex: 0, Index: 0 };
  const message = eligibility === "eligible" ? NODE_EVENT_MESSAGES.eligible : NODE_EVENT_MESSAGES.ineligible;
  const { index } = await context.store.write(["nodes"], (state) => {
    const current = state.nodes.get(id);
    if (current === undefined) throw missing("node not found");
    state.nodes.put({ ...current, SchedulingEligibility: eligibility, StatusUpdatedAt: Math.floor(context.clock.nowMs() / 1000), ...withNodeEvent(current, context.clock, state.index, "Cluster", message), ModifyIndex: state.index });
  }, "NodeUpdateEligibility");
  if (eligibility === "eligible") {
    const evals = await createNodeEvals(context, id, index);
    return { NodeModifyIndex: index, ...evals, Index: index };
  }
  return { NodeModifyIndex: index, EvalIDs: null, EvalCreateIndex: 0, Index: index };
}

/**
 * Sets, updates or removes a node's drain strategy (`Node.UpdateDrain`): the drain starts now (an
 * update keeps its start), its deadline counts from now, and the node is ineligible while it
 * drains; removing the strategy leaves it ineligible unless `MarkEligible`, which also evaluates
 * its jobs. The node event says which of the three it was.
 */
export async function updateDrain(context: SchedulerContext, id: string, request: DrainRequest): Promise<NodeUpdateResponse> {
  const { clock } = context;
  const node = nodeOf(context, id);
  const nowMs = clock.nowMs();
  let strategy: DrainStrategy | null = null;
  if (request.spec !== null) {
    const { Deadline, IgnoreSystemJobs } = request.spec;
    if (Deadline > MAX_DRAIN_DEADLINE_NS) throw invalid(`drain deadline must be at most ${MAX_DRAIN_DEADLINE_NS} nanoseconds`);
    strategy = {
      Deadline,
      IgnoreSystemJobs,
      ForceDeadline: Deadline > 0 ? goTime(nowMs + Math.floor(Deadline / 1_000_000)) : GO_ZERO_TIME,
      StartedAt: node.DrainStrategy?.StartedAt ?? goTime(nowMs),
    };
  }
  const message = node.DrainStrategy == null ? (strategy === null ? undefined : NODE_EVENT_MESSAGES.drainSet) : strategy === null ? NODE_EVENT_MESSAGES.drainDisabled : NODE_EVENT_MESSAGES.drainUpdated;
  const { index } = await context.store.write(["nodes"], (state) => {
    const current = state.nodes.get(id);
    if (current === undefined) throw missing("node not found");
    state.nodes.put({
      ...current,
      DrainStrategy: strategy,
      Drain: strategy !== null,
      SchedulingEligibility: strategy !== null ? "ineligible" : request.markEligible ? "eligible" : current.SchedulingEligibility,
      StatusUpdatedAt: Math.floor(nowMs / 1000),
      ...lastDrainAfter(current, strategy, nowMs, request.meta, false),
      ...(message === undefined ? {} : withNodeEvent(current, clock, state.index, "Drain", message)),
      ModifyIndex: state.index,
    });
  }, "NodeUpdateDrain");
  // A node made eligible again may take its system jobs' allocations.
  if (node.SchedulingEligibility === "ineligible" && request.markEligible && strategy === null) {
    const evals = await createNodeEvals(context, id, index);
    return { NodeModifyIndex: index, ...evals, Index: index };
  }
  return { NodeModifyIndex: index, EvalIDs: null, EvalCreateIndex: 0, Index: index };
}

/**
 * Removes a node from the state (`Node.Deregister`, `POST /v1/node/<id>/purge`), then evaluates
 * the jobs that had allocations there: the scheduler finds them lost and replaces them.
 */
export async function purgeNode(context: SchedulerContext, id: string): Promise<NodeUpdateResponse> {
  const node = nodeOf(context, id);
  const { index } = await context.store.write(["nodes"], (state) => {
    if (state.nodes.get(id) === undefined) throw missing("node not found");
    state.nodes.delete(id);
  }, "NodeDeregister");
  const evals = await createNodeEvals(context, id, index, node);
  return { NodeModifyIndex: index, EvalIDs: evals.EvalIDs ?? [], EvalCreateIndex: evals.EvalCreateIndex, Index: index };
}

/** Evaluates the node's jobs now (`Node.Evaluate`, `POST /v1/node/<id>/evaluate`); the reference leaves `NodeModifyIndex` 0 here. */
export async function evaluateNode(context: SchedulerContext, id: string): Promise<NodeUpdateResponse> {
  const node = nodeOf(context, id);
  const evals = await createNodeEvals(context, id, node.ModifyIndex);
  return { NodeModifyIndex: 0, EvalIDs: evals.EvalIDs, EvalCreateIndex: evals.EvalCreateIndex, Index: evals.EvalCreateIndex };
}

/**
 * A `node-update` evaluation for each service or batch job with an allocation on the node that is
 * not done with (`createNodeEvals`), and for each system job of the node's datacenters and pool
 * that is not stopped; none written when there are none (zeros answered). `known` is the node as
 * it was, for one already removed.
 */
export async function createNodeEvals(context: SchedulerContext, nodeId: string, nodeIndex: number, known?: Node): Promise<{ EvalIDs: string[] | null; EvalCreateIndex: number }> {
  const { store, clock } = context;
  const node = known ?? store.tables.nodes.get(nodeId);
  const jobs = new Map<string, Job>();
  // One scan of the allocations: a node's endpoint is called rarely.
  for (const alloc of store.tables.allocs.values()) {
    if (alloc.NodeID !== nodeId) continue;
    const key = namespacedKey(alloc.Namespace, alloc.JobID);
    const job = store.tables.jobs.get(key);
    if (job === undefined || jobs.has(key)) continue;
    const serverAndClientDone = alloc.DesiredStatus !== "run" && CLIENT_TERMINAL.has(alloc.ClientStatus);
    if ((job.Type === "service" && !serverAndClientDone) || (job.Type === "batch" && !isTerminal(alloc))) jobs.set(key, job);
  }
  if (node !== undefined) {
    for (const job of store.tables.jobs.values()) if (job.Type === "system" && !job.Stop && targets(job, node)) jobs.set(namespacedKey(job.Namespace, job.ID), job);
  }
  if (jobs.size === 0) return { EvalIDs: null, EvalCreateIndex: 0 };
  const { index, result } = await store.write(["evals", "jobs"], (state) => writeNodeEvals(context, state, [...jobs.values()], nodeId, nodeIndex, "node-update"), "EvalUpdate");
  return { EvalIDs: result.map((evaluation) => evaluation.ID), EvalCreateIndex: index };
}

/** Writes one evaluation of `triggeredBy` for each of `jobs`, naming the node, and the jobs' statuses with them. */
export function writeNodeEvals(context: SchedulerContext, state: Transaction<"evals" | "jobs">, jobs: readonly Job[], nodeId: string, nodeIndex: number, triggeredBy: string): Evaluation[] {
  return jobs.map((job) => {
    const evaluation = newEvaluation(context.clock, state.index, { Namespace: job.Namespace, Priority: job.Priority, Type: job.Type, TriggeredBy: triggeredBy, JobID: job.ID, JobModifyIndex: job.ModifyIndex, NodeID: nodeId, NodeModifyIndex: nodeIndex });
    state.evals.put(evaluation);
    putJob(context, state, job);
    return evaluation;
  });
}
