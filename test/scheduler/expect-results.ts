/**
 * The reference's `assertResults` for our reconciler's results: the counts of each kind of
 * decision, the deployment created and the deployment updates, and the per-group summary the
 * reference reports as `DesiredTGUpdates`, which our reconciler does not keep and is computed
 * here from its results (see {@link desiredUpdates}).
 *
 * @module
 */
import { expect } from "vitest";
import { allocIndex } from "../../src/server/scheduler/alloc-names.js";
import { STOP_DESCRIPTIONS, type ReconcileInput, type ReconcileResults } from "../../src/server/scheduler/reconciler.js";
import type { DeploymentStatusUpdate } from "../../src/server/scheduler/plan.js";
import type { Deployment, DeploymentState } from "../../src/server/state/model.js";

/** `structs.DesiredUpdates`, for the fields our results can tell. */
export interface DesiredUpdates {
  readonly Ignore: number;
  readonly Place: number;
  readonly Stop: number;
  readonly InPlaceUpdate: number;
  readonly DestructiveUpdate: number;
  readonly Canary: number;
  /** Allocations moved off a draining node: placed in their stead (their stops are not counted). */
  readonly Migrate: number;
  /** Allocations given a follow-up evaluation to reschedule them later (the results' attribute updates that carry one). */
  readonly RescheduleLater: number;
}

/** What a test expects (`resultExpectation`); a count left out is expected 0, `desiredTGUpdates` lists only the non-zero fields. */
export interface ResultExpectation {
  /** The deployment the reconciler creates, the fields that matter (a group's state as a subset); null or absent for none. */
  readonly createDeployment?: (Partial<Omit<Deployment, "TaskGroups">> & { readonly TaskGroups?: Readonly<Record<string, Partial<DeploymentState>>> }) | null;
  readonly deploymentUpdates?: readonly DeploymentStatusUpdate[];
  readonly place?: number;
  readonly destructive?: number;
  /** In-place updates: our reconciler has none yet, so any expected here fails (the gap "in-place updates"). */
  readonly inplace?: number;
  readonly stop?: number;
  readonly attributeUpdates?: number;
  readonly followupEvals?: number;
  readonly desiredTGUpdates?: Readonly<Record<string, Partial<DesiredUpdates>>>;
}

/**
 * The allocations the results change in place: none until the reconciler decides in-place updates
 * (issue 37, finding 7, whose results name them `inplaceUpdate`, the reference's `InplaceUpdate`);
 * read by name, so that these tests count them once that work is merged.
 */
function inplaceOf(results: ReconcileResults): readonly unknown[] {
  return (results as unknown as { readonly inplaceUpdate?: readonly unknown[] }).inplaceUpdate ?? [];
}

/**
 * The reference's `DesiredTGUpdates` of each group, from the results: what is placed (canaries
 * apart), stopped and replaced; `Ignore` is every allocation the reconciler considered (the
 * server still wants it run, and for a service job it has not completed or been lost, nor been
 * replaced already) that it left alone.
 */
export function desiredUpdates(input: ReconcileInput, results: ReconcileResults): Record<string, DesiredUpdates> {
  const groups = new Map<string, { -readonly [Field in keyof DesiredUpdates]: number }>();
  const of = (group: string) => {
    let updates = groups.get(group);
    if (updates === undefined) groups.set(group, (updates = { Ignore: 0, Place: 0, Stop: 0, InPlaceUpdate: 0, DestructiveUpdate: 0, Canary: 0, Migrate: 0, RescheduleLater: 0 }));
    return updates;
  };
  for (const group of input.job.TaskGroups) of(group.Name);
  for (const alloc of input.allocs) of(alloc.TaskGroup);
  const touched = new Set<string>();
  for (const place of results.place) {
    // A migration's placement is counted with its stop, below (`computeMigrations` counts each migrating allocation once, placed or not).
    const migrating = place.previous?.DesiredTransition?.Migrate === true && !place.reschedule;
    if (place.previous !== undefined) touched.add(place.previous.ID);
    if (migrating) continue;
    if (place.canary && place.previous === undefined) of(place.group.Name).Canary++;
    else of(place.group.Name).Place++;
  }
  // The current deployment's canaries lost with their node are stopped without being counted (`cancelUnneededCanaries`: transient, not the deployment's progress).
  const deployment = input.deployment;
  const current = deployment !== undefined && !input.job.Stop && deployment.JobVersion === input.job.Version && deployment.JobCreateIndex === input.job.CreateIndex;
  const canaries = new Set(current ? Object.values(deployment.TaskGroups).flatMap((group) => group.PlacedCanaries ?? []) : []);
  for (const { alloc, clientStatus, description } of results.stop) {
    // Migrations are counted as Migrate (`computeMigrations`); the current deployment's canaries
    // stopped as migrating are not counted (`cancelUnneededCanaries`); a migrating allocation
    // stopped for a scale-down is a Stop (`computeStop`).
    const migrating = description === STOP_DESCRIPTIONS.migrating;
    if (migrating && !canaries.has(alloc.ID)) of(alloc.TaskGroup).Migrate++;
    else if (!(clientStatus === "lost" && canaries.has(alloc.ID)) && !migrating) of(alloc.TaskGroup).Stop++;
    touched.add(alloc.ID);
  }
  for (const { stop } of results.destructive) {
    of(stop.TaskGroup).DestructiveUpdate++;
    touched.add(stop.ID);
  }
  for (const alloc of results.attributeUpdates) {
    // Still kept (the reference counts it in Ignore too), with a follow-up evaluation to replace it.
    if ((alloc.FollowupEvalID ?? "") !== "") of(alloc.TaskGroup).RescheduleLater++;
    else touched.add(alloc.ID);
  }
  for (const alloc of inplaceOf(results) as readonly { readonly ID: string; readonly TaskGroup: string }[]) {
    of(alloc.TaskGroup).InPlaceUpdate++;
    touched.add(alloc.ID);
  }
  const service = input.job.Type !== "batch";
  // A stopped job's groups, and a group removed or scaled to zero, only stop (`handleStop`, `filterAndStopAll`).
  const stopsOnly = (group: string) => input.job.Stop || (input.job.TaskGroups.find((each) => each.Name === group)?.Count ?? 0) === 0;
  for (const alloc of input.allocs) {
    // A batch job's allocations stopped by the server still count, unless marked to reschedule (`filterServerTerminalAllocs`).
    const considered = alloc.DesiredStatus === "run" || (!service && alloc.DesiredTransition?.Reschedule !== true);
    if (!considered || touched.has(alloc.ID) || stopsOnly(alloc.TaskGroup)) continue;
    if (service && (alloc.ClientStatus === "complete" || alloc.ClientStatus === "lost")) continue;
    if ((alloc.NextAllocation ?? "") !== "" && ["complete", "failed", "lost"].includes(alloc.ClientStatus)) continue;
    of(alloc.TaskGroup).Ignore++;
  }
  return Object.fromEntries(groups);
}

/** Checks the results as the reference's `assertResults` does. */
export function expectResults(input: ReconcileInput, results: ReconcileResults, expected: ResultExpectation): void {
  const counts = {
    place: results.place.length,
    destructive: results.destructive.length,
    inplace: inplaceOf(results).length,
    stop: results.stop.length,
    attributeUpdates: results.attributeUpdates.length,
    followupEvals: results.followupEvals.length,
  };
  expect(counts).toEqual({
    place: expected.place ?? 0,
    destructive: expected.destructive ?? 0,
    inplace: expected.inplace ?? 0,
    stop: expected.stop ?? 0,
    attributeUpdates: expected.attributeUpdates ?? 0,
    followupEvals: expected.followupEvals ?? counts.followupEvals,
  });
  if (expected.createDeployment === undefined || expected.createDeployment === null) expect(results.deployment, "no deployment created").toBeUndefined();
  else {
    expect(results.deployment, "a deployment created").toBeDefined();
    expect(results.deployment).toMatchObject(expected.createDeployment);
  }
  expect(results.deploymentUpdates).toEqual(expected.deploymentUpdates ?? []);
  if (expected.desiredTGUpdates !== undefined) {
    const zero: DesiredUpdates = { Ignore: 0, Place: 0, Stop: 0, InPlaceUpdate: 0, DestructiveUpdate: 0, Canary: 0, Migrate: 0, RescheduleLater: 0 };
    const wanted = Object.fromEntries(Object.entries(expected.desiredTGUpdates).map(([group, fields]) => [group, { ...zero, ...fields }]));
    expect(desiredUpdates(input, results)).toEqual(wanted);
  }
}

/** The indexes of allocation names, sorted (`assertNamesHaveIndexes` compares them as multisets). */
export function indexesOf(names: readonly string[]): number[] {
  return names.map((name) => allocIndex({ Name: name })).sort((a, b) => a - b);
}

/** `intRange(0, 1, 10, 14)`: the integers of each inclusive pair. */
export function intRange(...pairs: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) for (let n = pairs[i]!; n <= pairs[i + 1]!; n++) out.push(n);
  return out;
}

/** The names of the placements, destructive updates and stops of the results. */
export function namesOf(results: ReconcileResults): { readonly place: string[]; readonly destructive: string[]; readonly stop: string[]; readonly attributeUpdates: string[] } {
  return {
    place: results.place.map((each) => each.name),
    destructive: results.destructive.map((each) => each.name),
    stop: results.stop.map((each) => each.alloc.Name),
    attributeUpdates: results.attributeUpdates.map((each) => each.Name),
  };
}
