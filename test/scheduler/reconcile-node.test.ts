/**
 * The reference's tests of its node reconciler (`scheduler/reconciler/reconcile_node_test.go` and
 * the properties of `reconcile_node_prop_test.go`), ported as tables against the agent's pure
 * node reconciler (`src/server/scheduler/reconcile-node.ts`). The table below says what became
 * of each Go test function: ported, failing for a named gap of the agent's model (`it.fails`),
 * or skipped for a reason, as `test/nomad-api/ported.ts` does for the API's tests.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ClientStatus, Deployment, DeploymentState, DesiredStatus, Node, TaskGroup } from "../../src/server/state/model.js";
import { SHOW_GAPS_VARIABLE } from "../nomad-api/ported.js";
import { reconcileNode, reconcileNodes, requiredAllocs, type NodeAlloc, type NodeJob, type NodeReady, type NodeReconcileInput, type NodeReconcileResult } from "../../src/server/scheduler/reconcile-node.js";

/** The places the agent's model does not (yet) have what a reference test needs. */
const KNOWN_GAPS = {
  disconnect: "disconnected clients are not modelled: no AllocStates, no disconnect block, so no Disconnecting, Reconnecting or expired unknown allocations",
} as const;

/** Why a Go test is not ported. */
const SKIP_REASONS = {} as const;

type Entry = { readonly kind: "ported" } | { readonly kind: "fails"; readonly cause: keyof typeof KNOWN_GAPS } | { readonly kind: "skipped"; readonly reason: keyof typeof SKIP_REASONS; readonly detail: string };
const PORTED: Entry = { kind: "ported" };
const fails = (cause: keyof typeof KNOWN_GAPS): Entry => ({ kind: "fails", cause });

/** Every test function of the two Go files, and its fate. */
const FATES = {
  TestDiffSystemAllocsForNode_Sysbatch_terminal: PORTED,
  TestDiffSystemAllocsForNode_Placements: PORTED,
  TestDiffSystemAllocsForNode_Stops: PORTED,
  TestDiffSystemAllocsForNode_IneligibleNode: PORTED,
  TestDiffSystemAllocsForNode_DrainingNode: PORTED,
  TestDiffSystemAllocsForNode_LostNode: PORTED,
  TestDiffSystemAllocsForNode_DisconnectedNode: fails("disconnect"),
  TestDiffSystemAllocs: PORTED,
  TestNodeDeployments: PORTED,
  TestNodeReconciler_PropTest: PORTED,
} as const satisfies Readonly<Record<string, Entry>>;

/** Registers a Go test from the table: `it`, `it.fails` for a known gap (a plain `it` with `NOMAD_API_SHOW_GAPS=1`, to see how it fails), `it.skip` with its reason. */
function goTest(name: keyof typeof FATES, test: () => void): void {
  const entry: Entry = FATES[name];
  if (entry.kind === "skipped") it.skip(`${name}: ${entry.detail}`, () => {});
  else if (entry.kind === "fails" && process.env[SHOW_GAPS_VARIABLE] !== "1") it.fails(`${name} (known gap: ${entry.cause})`, test);
  else it(name, test);
}

// The reference's mocks (`nomad/mock`), as far as the node reconciler reads them.

const group = (name: string, count = 1): TaskGroup => ({ Name: name, Count: count });
/** What `mock.SystemJob` sets that the reconciler reads beyond the test's fields (its groups have no update block). */
const JOB_DEFAULTS = { Namespace: "default", Priority: 100, CreateIndex: 1, JobModifyIndex: 1, Update: null } as const;
const systemJob = (fields: Partial<NodeJob> = {}): NodeJob => ({ ...JOB_DEFAULTS, ID: "my-job", Name: "my-job", Type: "system", Version: 3, Stop: false, TaskGroups: [group("web")], ...fields });
const sysbatchJob = (): NodeJob => ({ ...JOB_DEFAULTS, ID: "my-sysbatch", Name: "my-sysbatch", Type: "sysbatch", Version: 3, Stop: false, TaskGroups: [group("pinger")] });
let allocs = 0;
/** An allocation of `job` (of its version less `older`) on a node, running unless told otherwise. */
const alloc = (job: NodeJob, nodeId: string, name: string, fields: Partial<NodeAlloc> & { readonly older?: number } = {}): NodeAlloc => {
  const { older = 0, ...rest } = fields;
  return { ID: `alloc-${++allocs}`, NodeID: nodeId, Name: name, TaskGroup: name.slice(name.indexOf(".") + 1, name.indexOf("[")), JobType: job.Type, JobVersion: job.Version - older, ClientStatus: "running", DesiredStatus: "run", ...rest };
};
const ready = { Status: "ready" } as const;
const down = { Status: "down" } as const;
const terminalOn = (nodeId: string, ...allocs: NodeAlloc[]) => new Map([[nodeId, new Map(allocs.map((each) => [each.Name, each]))]]);

/** The counts of a diff (`diffResultCount`); the kinds the agent does not model count 0. */
type Counts = Partial<Record<"place" | "update" | "migrate" | "stop" | "ignore" | "lost" | "disconnecting" | "reconnecting", number>>;
function countsOf(diff: NodeReconcileResult): Required<Counts> {
  const modelled = diff as NodeReconcileResult & { readonly disconnecting?: unknown[]; readonly reconnecting?: unknown[] };
  return {
    place: diff.place.length,
    update: diff.update.length,
    migrate: diff.migrate.length,
    stop: diff.stop.length,
    ignore: diff.ignore.length,
    lost: diff.lost.length,
    disconnecting: modelled.disconnecting?.length ?? 0,
    reconnecting: modelled.reconnecting?.length ?? 0,
  };
}
/** `assertDiffCount`: every count as expected, those not named 0. */
const expectCounts = (diff: NodeReconcileResult, expected: Counts) =>
  expect(countsOf(diff)).toEqual({ place: 0, update: 0, migrate: 0, stop: 0, ignore: 0, lost: 0, disconnecting: 0, reconnecting: 0, ...expected });

/** `computeForNode` on one node. */
function forNode(job: NodeJob, nodeId: string, input: { eligible?: string[]; notReady?: string[]; tainted?: Map<string, Pick<Node, "Status"> | undefined>; live?: NodeAlloc[]; terminal?: NodeReconcileInput["terminal"] }): NodeReconcileResult {
  return reconcileNode(
    { job, notReadyNodes: new Set(input.notReady ?? []), taintedNodes: input.tainted ?? new Map(), terminal: input.terminal ?? new Map() },
    nodeId,
    new Set(input.eligible ?? []),
    requiredAllocs(job),
    input.live ?? [],
  );
}

describe("reconcile_node_test.go", () => {
  goTest("TestDiffSystemAllocsForNode_Sysbatch_terminal", () => {
    // A finished sysbatch allocation is not placed again unless the job changed.
    const job = { ...sysbatchJob(), TaskGroups: [group("pinger", 2)] };
    const current = alloc(job, "node1", "my-sysbatch.pinger[0]", { ClientStatus: "complete" });
    const diff = forNode(job, "node1", { eligible: ["node1"], terminal: terminalOn("node1", current) });
    expectCounts(diff, { ignore: 1, place: 1 });
    expect(diff.ignore[0]!.alloc).toBe(current);
    const outdated = alloc(job, "node1", "my-sysbatch.pinger[0]", { ClientStatus: "complete", older: 1 });
    expectCounts(forNode(job, "node1", { eligible: ["node1"], terminal: terminalOn("node1", outdated) }), { update: 1, place: 1 });
  });

  goTest("TestDiffSystemAllocsForNode_Placements", () => {
    // Only nodes that need a placement get one: not one outside the eligible set, down, or draining.
    const job = systemJob();
    const tainted = new Map<string, Pick<Node, "Status">>([["dead", down], ["drain", ready]]);
    const cases: [string, Counts][] = [
      ["good", { place: 1 }],
      ["unused", {}],
      ["dead", {}],
      ["drain", {}],
    ];
    for (const [nodeId, expected] of cases) expectCounts(forNode(job, nodeId, { eligible: ["good"], tainted }), expected);
  });

  goTest("TestDiffSystemAllocsForNode_Stops", () => {
    const job = systemJob();
    const live = [
      // An allocation of an older version is updated.
      alloc(job, "node", "my-job.web[0]", { older: 1 }),
      // The current one is left alone.
      alloc(job, "node", "my-job.web[0]"),
      // One of a group the job no longer has is stopped.
      alloc(job, "node", "my-job.something-else[0]"),
    ];
    const diff = forNode(job, "node", { eligible: ["node"], live });
    expectCounts(diff, { ignore: 1, stop: 1, update: 1 });
    expect(diff.update[0]!.alloc).toBe(live[0]);
    expect(diff.ignore[0]!.alloc).toBe(live[1]);
    expect(diff.stop[0]!.alloc).toBe(live[2]);
  });

  goTest("TestDiffSystemAllocsForNode_IneligibleNode", () => {
    const job = systemJob();
    const terminal = terminalOn("ineligible", alloc(job, "ineligible", "my-job.web[0]", { ClientStatus: "complete" }));
    // A live allocation on an ineligible node is kept; on a node outside the eligible set, stopped.
    const cases: [string, Counts][] = [
      ["ineligible", { ignore: 1 }],
      ["elsewhere", { stop: 1 }],
    ];
    for (const [nodeId, expected] of cases) {
      expectCounts(forNode(job, nodeId, { notReady: ["ineligible"], terminal, live: [alloc(job, nodeId, "my-job.web[0]")] }), expected);
    }
  });

  goTest("TestDiffSystemAllocsForNode_DrainingNode", () => {
    const job = systemJob();
    const live = [
      // Marked for migration off the draining node.
      alloc(job, "drain", "my-job.web[0]", { older: 1, DesiredTransition: { Migrate: true, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null } }),
      // Not marked: left alone.
      alloc(job, "drain", "my-job.web[0]"),
    ];
    const terminal = terminalOn("drain", alloc(job, "drain", "my-job.web[0]", { ClientStatus: "complete" }));
    const diff = forNode(job, "drain", { tainted: new Map([["drain", ready]]), live, terminal });
    expectCounts(diff, { migrate: 1, ignore: 1 });
    expect(diff.migrate[0]!.alloc).toBe(live[0]);
  });

  goTest("TestDiffSystemAllocsForNode_LostNode", () => {
    // Allocations on a node that is down are lost, of whatever version.
    const job = systemJob();
    const live = [alloc(job, "dead", "my-job.web[0]"), alloc(job, "dead", "my-job.web[0]", { older: 1 })];
    const diff = forNode(job, "dead", { tainted: new Map([["dead", down]]), live, terminal: terminalOn("dead", live[0]!) });
    expectCounts(diff, { lost: 2 });
  });

  goTest("TestDiffSystemAllocsForNode_DisconnectedNode", () => {
    const job = systemJob();
    const tainted = new Map<string, Pick<Node, "Status">>([["disconnected", { Status: "disconnected" }]]);
    // AllocStates are the reference's record of client status changes; the agent's allocations have none.
    const states = (...changes: [ClientStatus, number][]) => ({ AllocStates: changes.map(([Value, agoMs]) => ({ Field: "ClientStatus", Value, Time: Date.now() - agoMs })) });
    const cases: [string, string, Partial<NodeAlloc> & Record<string, unknown>, Counts][] = [
      ["alloc in disconnected client is marked as unknown", "disconnected", { ClientStatus: "running" }, { disconnecting: 1 }],
      ["disconnected alloc reconnects", "ready", { ClientStatus: "running", ...states(["unknown", 60_000]) }, { reconnecting: 1 }],
      ["alloc not reconnecting after it reconnects", "ready", { ClientStatus: "running", ...states(["unknown", 60_000], ["running", 0]) }, { ignore: 1 }],
      ["disconnected alloc is lost after it expires", "disconnected", { ClientStatus: "unknown", ...states(["unknown", 36_000_000]) }, { lost: 1 }],
      ["disconnected allocs are ignored", "disconnected", { ClientStatus: "unknown", ...states(["unknown", 0]) }, { ignore: 1 }],
    ];
    for (const [, nodeId, fields, expected] of cases) {
      expectCounts(forNode(job, nodeId, { eligible: ["ready"], tainted, live: [alloc(job, nodeId, "my-job.web[0]", fields)] }), expected);
    }
  });

  goTest("TestDiffSystemAllocs", () => {
    // Diffs across nodes: one node's update, another's ignore, a migration, a loss, and placements wherever a group is missing.
    const job = systemJob({ TaskGroups: [group("web"), group("other")] });
    const live = [
      alloc(job, "baz", "my-job.web[0]", { older: 1 }),
      alloc(job, "bar", "my-job.web[0]"),
      alloc(job, "drain", "my-job.web[0]", { older: 1, DesiredTransition: { Migrate: true, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null } }),
      alloc(job, "dead", "my-job.web[0]", { older: 1 }),
    ];
    const ended = alloc(job, "has-term", "my-job.web[0]", { ClientStatus: "complete" });
    const diff = reconcileNodes({
      job,
      readyNodes: ["foo", "bar", "baz", "has-term", "drain", "dead"].map((ID) => ({ ID })),
      notReadyNodes: new Set(),
      taintedNodes: new Map<string, Pick<Node, "Status">>([["dead", down], ["drain", ready]]),
      live,
      terminal: terminalOn("has-term", ended),
    });
    expectCounts(diff, { update: 1, ignore: 1, migrate: 1, lost: 1, place: 6 });
    expect(diff.update[0]!.alloc).toBe(live[0]);
    expect(diff.ignore[0]!.alloc).toBe(live[1]);
    expect(diff.migrate[0]!.alloc).toBe(live[2]);
    expect(diff.lost[0]!.alloc).toBe(live[3]);
    // The placement replacing a terminal allocation on its node names it.
    expect(diff.place.find((tuple) => tuple.nodeId === "has-term" && tuple.name === "my-job.web[0]")?.alloc).toBe(ended);
  });

  goTest("TestNodeDeployments", () => {
    // Two groups, the second with the default update block; three nodes, the last one's client older than 1.11.
    const job = systemJob({ Version: 0, TaskGroups: [group("web"), { ...group("other"), Update: { MaxParallel: 1, HealthCheck: "checks", MinHealthyTime: 10e9, HealthyDeadline: 300e9, ProgressDeadline: 600e9, AutoRevert: false, AutoPromote: false, Canary: 0, Stagger: 30e9 } }] });
    const nodes: NodeReady[] = [{ ID: "foo" }, { ID: "bar" }, { ID: "baz", Attributes: { "nomad.version": "1.8.20+ent" } }];
    const stoppedJob: NodeJob = { ...job, Stop: true };
    const allocs = nodes.map((node) => alloc(job, node.ID, "my-job.web[0]"));
    const newJobWithNoAllocs: NodeJob = { ...job, ID: "new-job", Version: 100, CreateIndex: 1000 };
    const deployment = (fields: Partial<Deployment>): Deployment => ({
      ID: "d",
      Namespace: "default",
      JobID: job.ID,
      JobVersion: job.Version,
      JobModifyIndex: 1,
      JobSpecModifyIndex: 1,
      JobCreateIndex: job.CreateIndex,
      IsMultiregion: false,
      TaskGroups: {},
      Status: "running",
      StatusDescription: "",
      EvalPriority: 50,
      CreateIndex: 1,
      ModifyIndex: 1,
      CreateTime: 0n,
      ModifyTime: 0n,
      ...fields,
    });
    const groupState = (fields: Partial<DeploymentState>): DeploymentState => ({ AutoRevert: false, AutoPromote: false, ProgressDeadline: 0, RequireProgressBy: null, Promoted: false, PlacedCanaries: null, DesiredCanaries: 0, DesiredTotal: 0, PlacedAllocs: 0, HealthyAllocs: 0, UnhealthyAllocs: 0, ...fields });
    const running = deployment({ StatusDescription: "Deployment is running", TaskGroups: { web: groupState({ AutoRevert: true, ProgressDeadline: 60e9 }), other: groupState({ AutoPromote: true }) } });
    const cases: readonly { name: string; job: NodeJob; live: NodeAlloc[]; terminal?: Map<string, Map<string, NodeAlloc>>; nodes: NodeReady[]; existing?: Deployment; current?: "new" | "existing" | "none"; status?: string; description?: string }[] = [
      // The Go test asserts nothing of this case; the reference's code sets the successful deployment aside, and creates none for the version it rolled out.
      { name: "existing successful deployment for the current job version should not return a deployment", job, live: allocs, nodes: nodes.slice(0, 1), existing: deployment({ Status: "successful" }), current: "none" },
      { name: "existing running deployment should remain untouched", job, live: allocs, nodes, existing: running, current: "existing" },
      { name: "existing running deployment for a stopped job should be cancelled", job: stoppedJob, live: allocs, nodes: nodes.slice(0, 1), existing: deployment({}), status: "cancelled", description: "Cancelled because job is stopped" },
      { name: "no existing deployment for a new job that needs one should result in a new deployment", job: newJobWithNoAllocs, live: allocs, nodes: nodes.slice(0, 1), current: "new", status: "running", description: "Deployment is running" },
      // The Go test asserts nothing of this case either (its terminal map is keyed by allocation ID, so the reconciler never finds the allocation).
      { name: "terminal allocs due to reschedule, shouldn't result in a deployment", job: newJobWithNoAllocs, live: [], terminal: terminalOn("foo", allocs[0]!), nodes: nodes.slice(0, 1) },
      // Asserted here beyond the Go test: an eligible node older than 1.11 keeps the deployment off.
      { name: "new job with old node should have no deployment", job: newJobWithNoAllocs, live: allocs, nodes, current: "none" },
    ];
    for (const each of cases) {
      const { deployments } = reconcileNodes({ job: each.job, readyNodes: each.nodes, notReadyNodes: new Set(), taintedNodes: new Map(), live: each.live, terminal: each.terminal ?? new Map(), deployment: each.existing });
      if (each.current === "new") expect(deployments.current?.Status, each.name).toBe(each.status);
      if (each.current === "new") expect(deployments.created, each.name).toBe(true);
      if (each.current === "existing") expect(deployments.current, each.name).toBe(each.existing);
      if (each.current === "existing" || each.current === "none") expect(deployments.updates, each.name).toEqual([]);
      if (each.current === "none") expect(deployments.current, each.name).toBeUndefined();
      if (each.description !== undefined) expect(deployments.updates, each.name).toContainEqual(expect.objectContaining({ Status: each.status, StatusDescription: each.description }));
    }
  });
});

// The properties (`reconcile_node_prop_test.go`): inputs as the reference's generator draws them.

const CLIENT_STATUSES: readonly ClientStatus[] = ["pending", "running", "complete", "failed", "lost", "unknown"];
const DESIRED_STATUSES: readonly DesiredStatus[] = ["run", "run", "run", "stop", "evict"];
const NODE_STATUSES: readonly Node["Status"][] = ["ready", "ready", "ready", "down", "disconnected", "initializing"];

const arbitraryNode = fc.record({ Status: fc.constantFrom(...NODE_STATUSES), eligible: fc.boolean(), drain: fc.boolean() });

/** `genNodeReconciler`: nodes, some with an allocation each (some of an older version, some terminal), and a job. */
function arbitraryInput(type: "system" | "sysbatch") {
  return fc
    .record({
      groups: fc.uniqueArray(fc.constantFrom("web", "api", "db"), { minLength: 1, maxLength: 3 }).chain((names) => fc.tuple(...names.map((name) => fc.integer({ min: 0, max: 2 }).map((count) => group(name, count))))),
      // One job in ten stopped.
      stopped: fc.integer({ min: 0, max: 9 }).map((draw) => draw === 0),
      nodes: fc.array(fc.record({ node: arbitraryNode, old: fc.boolean(), wrongDc: fc.boolean(), client: fc.constantFrom(...CLIENT_STATUSES), desired: fc.constantFrom(...DESIRED_STATUSES), group: fc.constantFrom("web", "api", "db"), migrate: fc.boolean() }), { maxLength: 30 }),
      empty: fc.array(arbitraryNode, { maxLength: 5 }),
    })
    .map(({ groups, stopped, nodes, empty }) => {
      const job: NodeJob = { ...JOB_DEFAULTS, ID: "job", Name: "job", Type: type, Version: 2, Stop: stopped, TaskGroups: groups };
      const readyNodes: { ID: string }[] = [];
      const notReadyNodes = new Set<string>();
      const taintedNodes = new Map<string, Pick<Node, "Status">>();
      const live: NodeAlloc[] = [];
      const terminal = new Map<string, Map<string, NodeAlloc>>();
      const isReady = (node: { Status: string; eligible: boolean; drain: boolean }) => node.Status === "ready" && node.eligible && !node.drain;
      nodes.forEach((each, i) => {
        const nodeId = `node-${i}`;
        let existing = alloc(job, nodeId, `job.${each.group}[0]`, { older: each.old ? 1 : 0, ClientStatus: each.client, DesiredStatus: each.desired });
        if (each.old && each.wrongDc) notReadyNodes.add(nodeId);
        else if (isReady(each.node)) readyNodes.push({ ID: nodeId });
        else {
          notReadyNodes.add(nodeId);
          if (each.node.Status === "down" || each.node.drain || each.node.Status === "disconnected") {
            taintedNodes.set(nodeId, { Status: each.node.Status });
            if (each.migrate) existing = { ...existing, DesiredTransition: { Migrate: true, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null } };
          }
        }
        const ended = existing.DesiredStatus !== "run" || ["complete", "failed", "lost"].includes(existing.ClientStatus);
        if (ended) terminal.set(nodeId, new Map([[existing.Name, existing]]));
        else live.push(existing);
      });
      empty.forEach((node, i) => (isReady(node) ? readyNodes.push({ ID: `empty-${i}` }) : notReadyNodes.add(`empty-${i}`)));
      return { job, readyNodes, notReadyNodes, taintedNodes, live, terminal } satisfies NodeReconcileInput;
    });
}

/** Per task group, what it wants, what it has (live and terminal), and how many of each kind the diff holds (`collectExpectedAndResults`). */
function countsPerGroup(input: NodeReconcileInput, diff: NodeReconcileResult): Map<string, Record<string, number>> {
  const groups = new Map<string, Record<string, number>>(input.job.TaskGroups.map((each) => [each.Name, { expect_count: each.Count }]));
  const bump = (name: string, label: string) => {
    const counts = groups.get(name) ?? groups.set(name, { expect_count: 0 }).get(name)!;
    counts[label] = (counts[label] ?? 0) + 1;
  };
  for (const each of [...input.live, ...[...input.terminal.values()].flatMap((byName) => [...byName.values()])]) bump(each.TaskGroup, "exist_total");
  for (const kind of ["place", "update", "migrate", "stop", "ignore", "lost"] as const) for (const tuple of diff[kind]) bump(tuple.group?.Name ?? tuple.alloc!.TaskGroup, kind);
  return groups;
}

describe("reconcile_node_prop_test.go", () => {
  describe.each(["system", "sysbatch"] as const)("TestNodeReconciler_PropTest: %s jobs", (type) => {
    const property = (check: (input: NodeReconcileInput, diff: NodeReconcileResult) => void) => () =>
      fc.assert(
        fc.property(arbitraryInput(type), (input) => check(input, reconcileNodes(input))),
        { numRuns: 300 },
      );

    if (FATES.TestNodeReconciler_PropTest.kind !== "ported") return;

    // `sharedSafetyProperties`, each bound the way round its message says (the Go test passes them the other way, and counts placements under a label it does not check).
    it(
      "never places more of a group than its count on every ready node, nor migrates, ignores, stops or updates more than the group has",
      property((input, diff) => {
        for (const [name, counts] of countsPerGroup(input, diff)) {
          const has = counts.exist_total ?? 0;
          expect(counts.place ?? 0, name).toBeLessThanOrEqual(counts.expect_count! * input.readyNodes.length);
          for (const kind of ["migrate", "ignore", "stop", "update"]) expect(counts[kind] ?? 0, `${name} ${kind}`).toBeLessThanOrEqual(has);
        }
      }),
    );

    // Beyond the reference's: what finding 1 of issue 37 asked, held for every input.
    it(
      "puts every live allocation in exactly one of stop, migrate, lost, ignore and update",
      property((input, diff) => {
        const seen = ["stop", "migrate", "lost", "ignore", "update"].flatMap((kind) => diff[kind as keyof NodeReconcileResult].map((tuple) => tuple.alloc)).filter((each) => each !== undefined && input.live.includes(each));
        expect(seen).toHaveLength(input.live.length);
        expect(new Set(seen).size).toBe(input.live.length);
      }),
    );

    it(
      "places only on ready nodes that are not tainted, each required allocation once a node, and nothing for a stopped job",
      property((input, diff) => {
        const readyIds = new Set(input.readyNodes.map((node) => node.ID));
        const places = diff.place.map((tuple) => `${tuple.nodeId} ${tuple.name}`);
        expect(new Set(places).size).toBe(places.length);
        for (const tuple of diff.place) {
          expect(readyIds.has(tuple.nodeId) && !input.taintedNodes.has(tuple.nodeId)).toBe(true);
          expect(tuple.name).toMatch(/\[\d+\]$/);
        }
        if (input.job.Stop) expect(diff.place).toEqual([]);
      }),
    );
  });
});
