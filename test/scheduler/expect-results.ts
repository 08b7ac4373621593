/**
 * The reference's `assertResults` for our reconciler's results: the counts of each kind of
 * decision, the deployment created and the deployment updates, and the per-group summary the
 * reference reports as `DesiredTGUpdates`, which our reconciler does not keep and is computed
 * from its results as the agent's plans count it (`annotate.ts`).
 *
 * @module
 */
import { expect } from "vitest";
import { allocIndex } from "../../src/server/scheduler/alloc-names.js";
import { desiredUpdates, noDesiredUpdates, type DesiredUpdates } from "../../src/server/scheduler/annotate.js";
import type { ReconcileInput, ReconcileResults } from "../../src/server/scheduler/reconciler.js";
import type { DeploymentStatusUpdate } from "../../src/server/scheduler/plan.js";
import type { Deployment, DeploymentState } from "../../src/server/state/model.js";

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

/** Checks the results as the reference's `assertResults` does. */
export function expectResults(input: ReconcileInput, results: ReconcileResults, expected: ResultExpectation): void {
  const counts = {
    place: results.place.length,
    destructive: results.destructive.length,
    inplace: results.inplaceUpdate.length,
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
    const zero: DesiredUpdates = noDesiredUpdates();
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

export { desiredUpdates, type DesiredUpdates };
