/**
 * fast-check arbitraries of the reconciler's input, as the reference's `reconcile_cluster_prop_test.go`
 * generates them with rapid (`genJob`, `genTaskGroup`, `genUpdateBlock`, `genClusterState`,
 * `genReconcilerState`, `genDeployment`, `genExistingAlloc`), made to what our model holds:
 *
 * - tainted nodes are down: our scheduler gives the reconciler only the nodes that are down
 *   (`generic-sched.ts` `reconcileInput`), and the agent has no draining or disconnected nodes
 *   for it; so allocations are never `unknown` and groups have no disconnect block;
 * - the reference hands its reconciler an old and a current deployment; ours is given the job's
 *   latest, so an input has one or the other (or none);
 * - the reference's update function, drawn among destructive, ignore and in place, is in our
 *   model the allocation's version: the job's (nothing to change) or the one before (replaced).
 *
 * @module
 */
import fc from "fast-check";
import type { ReconcileInput } from "../../src/server/scheduler/reconciler.js";
import type { Allocation, ClientStatus, Deployment, DesiredStatus, Job, Node, TaskGroup } from "../../src/server/state/model.js";
import { groupState, mockDeployment, mockJob, mockNode, NOW_MS } from "./mock.js";

const MINUTE_MS = 60_000;
const SECOND_NS = 1_000_000_000;
const HOUR_NS = 3600 * SECOND_NS;

/** The most allocations a group wants (`maxAllocs`). */
const MAX_ALLOCS = 30;

/** The client statuses the agent writes (the reference's `unknown` only comes with disconnected nodes). */
const CLIENT_STATUSES: readonly ClientStatus[] = ["pending", "running", "complete", "failed", "lost"];
const DESIRED_STATUSES: readonly DesiredStatus[] = ["run", "evict", "stop"];
const DEPLOYMENT_STATUSES = ["running", "pending", "initializing", "paused", "failed", "successful"] as const;

/** `weightedBool`: true about `truePct` times in a hundred. */
const weightedBool = (truePct: number) => fc.integer({ min: 0, max: 100 }).map((i) => i <= truePct);

/** `genUpdateBlock`: MaxParallel up to the count, canaries up to MaxParallel. */
function updateBlock(count: number) {
  return fc
    .integer({ min: 0, max: count })
    .chain((maxParallel) => fc.record({ MaxParallel: fc.constant(maxParallel), Canary: fc.integer({ min: 0, max: maxParallel }), AutoRevert: fc.boolean(), AutoPromote: fc.boolean() }))
    .map((fields) => ({ Stagger: 0, HealthCheck: "", MinHealthyTime: 0, HealthyDeadline: 0, ProgressDeadline: 0, ...fields }));
}

/** `genTaskGroup`, named `name`: a count, an update block, a reschedule policy of 3 attempts an hour, unlimited or not. */
function taskGroup(name: string) {
  return fc.integer({ min: 0, max: MAX_ALLOCS }).chain((count) =>
    fc.record({ update: updateBlock(count), unlimited: fc.boolean() }).map(
      ({ update, unlimited }): TaskGroup => ({
        Name: name,
        Count: count,
        Update: update,
        ReschedulePolicy: { Attempts: 3, Interval: HOUR_NS, Delay: 90 * SECOND_NS, DelayFunction: "constant", MaxDelay: HOUR_NS, Unlimited: unlimited },
        Tasks: [{ Name: "task" }],
      }),
    ),
  );
}

/** `genJob`: one to three groups, version 3, stopped about a third of the time. */
export function jobArbitrary(type: "service" | "batch"): fc.Arbitrary<Job> {
  return fc
    .record({ groups: fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => taskGroup(`name-${i + 1}`)))), stop: weightedBool(30) })
    .map(({ groups, stop }) => mockJob({ ID: "jobID", Name: "jobID", Type: type, TaskGroups: groups, Version: 3, Stop: stop, CreateIndex: 1000, JobModifyIndex: 1000, ModifyIndex: 1000 }));
}

/** What each drawn allocation is, before it is given its IDs. */
interface AllocDraw {
  readonly group: number;
  readonly clientStatus: ClientStatus;
  readonly desiredStatus: DesiredStatus;
  readonly onTainted: number | null;
  readonly rescheduleEvents: number;
}

const allocDraw = fc.record({
  group: fc.nat(2),
  clientStatus: fc.constantFrom(...CLIENT_STATUSES),
  desiredStatus: fc.constantFrom(...DESIRED_STATUSES),
  onTainted: fc.option(fc.nat(4), { nil: null }),
  rescheduleEvents: fc.integer({ min: 0, max: 3 }),
});

/** What a drawn deployment is. */
interface DeploymentDraw {
  readonly of: "old" | "current" | null;
  readonly status: (typeof DEPLOYMENT_STATUSES)[number];
  readonly promoted: readonly boolean[];
}

const deploymentDraw = fc.record({
  of: fc.constantFrom<"old" | "current" | null>("old", "current", null),
  status: fc.constantFrom(...DEPLOYMENT_STATUSES),
  promoted: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
});

/** `genDeployment`: the groups' states of `job`, the allocations given consumed as canaries first. */
function deploymentOf(job: Job, allocs: readonly Allocation[], draw: DeploymentDraw, id: string): Deployment {
  const states = Object.fromEntries(
    job.TaskGroups.map((group, i) => {
      const update = group.Update as { Canary: number; AutoRevert: boolean; AutoPromote: boolean };
      const mine = allocs.filter((alloc) => alloc.TaskGroup === group.Name);
      const terminal = (alloc: Allocation) => ["complete", "failed", "lost"].includes(alloc.ClientStatus);
      return [
        group.Name,
        groupState({
          AutoRevert: update.AutoRevert,
          AutoPromote: update.AutoPromote,
          Promoted: draw.promoted[i] ?? false,
          PlacedCanaries: mine.slice(0, update.Canary).map((alloc) => alloc.ID),
          DesiredCanaries: update.Canary,
          DesiredTotal: group.Count,
          PlacedAllocs: mine.length,
          UnhealthyAllocs: mine.filter(terminal).length,
          HealthyAllocs: mine.filter((alloc) => alloc.ClientStatus === "running").length,
        }),
      ];
    }),
  );
  return mockDeployment(job, { ID: id, TaskGroups: states, Status: draw.status, StatusDescription: "", EvalPriority: 0, JobModifyIndex: 0, JobSpecModifyIndex: 0, CreateIndex: job.CreateIndex });
}

/** The reconciler's input, drawn as `genAllocReconciler` draws it, for a job of `type`. */
export function reconcileInputArbitrary(type: "service" | "batch"): fc.Arbitrary<ReconcileInput> {
  return fc
    .record({
      job: jobArbitrary(type),
      taintedCount: fc.integer({ min: 0, max: 5 }),
      current: fc.array(allocDraw, { maxLength: 15 }),
      old: fc.array(allocDraw, { maxLength: 15 }),
      deployment: deploymentDraw,
    })
    .map(({ job, taintedCount, current, old, deployment }) => {
      // IDs and names from a counter, as the reference's idGenerator: not a dimension to shrink.
      let index = 0;
      const nextId = () => `00000000-0000-0000-0000-${(++index).toString(16).padStart(12, "0")}`;
      const tainted = new Map<string, Node>();
      for (let i = 0; i < taintedCount; i++) {
        const id = nextId();
        tainted.set(id, mockNode(id, "down"));
      }
      const taintedIds = [...tainted.keys()];
      const oldJob: Job = { ...job, Version: job.Version - 1, JobModifyIndex: 100, CreateIndex: 100 };
      const allocOf = (of: Job, draw: AllocDraw): Allocation => {
        const group = of.TaskGroups[draw.group % of.TaskGroups.length]!.Name;
        const id = nextId();
        const nodeId = draw.onTainted !== null && taintedIds.length > 0 ? taintedIds[draw.onTainted % taintedIds.length]! : nextId();
        const clientTerminal = ["complete", "failed", "lost"].includes(draw.clientStatus);
        const events = clientTerminal ? draw.rescheduleEvents : 0;
        return {
          ID: id,
          Namespace: of.Namespace,
          EvalID: nextId(),
          Name: `${of.ID}.${group}[${++index}]`,
          NodeID: nodeId,
          NodeName: "",
          JobID: of.ID,
          JobType: of.Type,
          JobVersion: of.Version,
          TaskGroup: group,
          DeploymentID: "",
          DesiredStatus: draw.desiredStatus,
          DesiredDescription: "",
          ClientStatus: draw.clientStatus,
          ClientDescription: "",
          DeploymentStatus: null,
          CreateIndex: 1,
          ModifyIndex: 1,
          CreateTime: 0n,
          ModifyTime: 0n,
          ...(events === 0
            ? {}
            : { RescheduleTracker: { Events: Array.from({ length: events }, (_, i) => ({ RescheduleTime: BigInt(NOW_MS - i * MINUTE_MS) * 1_000_000n, PrevAllocID: nextId(), PrevNodeID: nextId(), Delay: 0 })), LastReschedule: "" } }),
        };
      };
      const currentAllocs = current.map((draw) => allocOf(job, draw));
      // A subset tied together, as the reference's test does to exercise its replacements.
      let previous = "";
      for (const [i, alloc] of currentAllocs.entries()) {
        if (i % 3 === 0) currentAllocs[i] = { ...alloc, NextAllocation: previous };
        else previous = alloc.ID;
      }
      const oldAllocs = old.map((draw) => allocOf(oldJob, draw));
      const latest = deployment.of === "old" ? deploymentOf(oldJob, oldAllocs, deployment, nextId()) : deployment.of === "current" ? deploymentOf(job, currentAllocs, deployment, nextId()) : undefined;
      const input: ReconcileInput = {
        job,
        allocs: [...currentAllocs, ...oldAllocs],
        deployment: latest,
        taintedNodes: tainted,
        evaluation: { ID: nextId(), Priority: 50 },
        nowNs: BigInt(NOW_MS) * 1_000_000n,
      };
      return input;
    });
}
