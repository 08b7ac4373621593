/**
 * The fate of every test function of the reference's `scheduler/reconciler/reconcile_cluster_test.go`
 * in our port (`reconcile-cluster.test.ts`): ported and passing, ported and failing for a named
 * gap of our reconciler (`it.fails`, so the suite stays green and the gap stays visible: when the
 * gap closes, the test passes, `it.fails` fails, and the entry becomes {@link PORTED}), skipped
 * because our model cannot mean it, or not ported yet. {@link GO_TEST_FUNCTIONS} is the Go file's
 * list of test functions at the pinned commit, which the suite checks the table against.
 *
 * @module
 */
import { it } from "vitest";

/** Every `func Test…` of `scheduler/reconciler/reconcile_cluster_test.go` at the pinned commit, in file order. */
export const GO_TEST_FUNCTIONS = [
  "TestReconciler_Place_NoExisting",
  "TestReconciler_Place_Existing",
  "TestReconciler_ScaleDown_Partial",
  "TestReconciler_ScaleDown_Zero",
  "TestReconciler_ScaleDown_Zero_DuplicateNames",
  "TestReconciler_Inplace",
  "TestReconciler_Inplace_ScaleUp",
  "TestReconciler_Inplace_ScaleDown",
  "TestReconciler_Inplace_Rollback",
  "TestReconciler_Destructive",
  "TestReconciler_DestructiveMaxParallel",
  "TestReconciler_Destructive_ScaleUp",
  "TestReconciler_Destructive_ScaleDown",
  "TestReconciler_LostNode",
  "TestReconciler_LostNode_ScaleUp",
  "TestReconciler_LostNode_ScaleDown",
  "TestReconciler_DrainNode",
  "TestReconciler_MigrateBatchAllocs",
  "TestReconciler_MigrateDisablePlacementBatchAllocs",
  "TestReconciler_MigrateDisablePlacementBatchAllocs_StillRunningAfterStop",
  "TestReconciler_MigrateRescheduleBatchAllocs",
  "TestReconciler_DrainNode_ScaleUp",
  "TestReconciler_DrainNode_ScaleDown",
  "TestReconciler_RemovedTG",
  "TestReconciler_JobStopped",
  "TestReconciler_JobStopped_TerminalAllocs",
  "TestReconciler_MultiTG",
  "TestReconciler_MultiTG_SingleUpdateBlock",
  "TestReconciler_RescheduleLater_Batch",
  "TestReconciler_RescheduleLaterWithBatchedEvals_Batch",
  "TestReconciler_RescheduleNow_Batch",
  "TestReconciler_RescheduleLater_Service",
  "TestReconciler_Service_ClientStatusComplete",
  "TestReconciler_Service_DesiredStop_ClientStatusComplete",
  "TestReconciler_RescheduleNow_Service",
  "TestReconciler_RescheduleNow_WithinAllowedTimeWindow",
  "TestReconciler_RescheduleNow_EvalIDMatch",
  "TestReconciler_RescheduleNow_Service_WithCanaries",
  "TestReconciler_RescheduleNow_Service_Canaries",
  "TestReconciler_RescheduleNow_Service_Canaries_Limit",
  "TestReconciler_DontReschedule_PreviouslyRescheduled",
  "TestReconciler_CancelDeployment_JobStop",
  "TestReconciler_CancelDeployment_JobUpdate",
  "TestReconciler_CreateDeployment_RollingUpgrade_Destructive",
  "TestReconciler_CreateDeployment_RollingUpgrade_Inplace",
  "TestReconciler_CreateDeployment_NewerCreateIndex",
  "TestReconciler_DontCreateDeployment_NoChanges",
  "TestReconciler_PausedOrFailedDeployment_NoMoreCanaries",
  "TestReconciler_PausedOrFailedDeployment_NoMorePlacements",
  "TestReconciler_PausedOrFailedDeployment_NoMoreDestructiveUpdates",
  "TestReconciler_DrainNode_Canary",
  "TestReconciler_LostNode_Canary",
  "TestReconciler_StopOldCanaries",
  "TestReconciler_NewCanaries",
  "TestReconciler_NewCanaries_CountGreater",
  "TestReconciler_NewCanaries_MultiTG",
  "TestReconciler_NewCanaries_ScaleUp",
  "TestReconciler_NewCanaries_ScaleDown",
  "TestReconciler_NewCanaries_FillNames",
  "TestReconciler_PromoteCanaries_Unblock",
  "TestReconciler_PromoteCanaries_CanariesEqualCount",
  "TestReconciler_DeploymentLimit_HealthAccounting",
  "TestReconciler_TaintedNode_RollingUpgrade",
  "TestReconciler_FailedDeployment_TaintedNodes",
  "TestReconciler_CompleteDeployment",
  "TestReconciler_MarkDeploymentComplete_FailedAllocations",
  "TestReconciler_FailedDeployment_CancelCanaries",
  "TestReconciler_FailedDeployment_NewJob",
  "TestReconciler_MarkDeploymentComplete",
  "TestReconciler_JobChange_ScaleUp_SecondEval",
  "TestReconciler_RollingUpgrade_MissingAllocs",
  "TestReconciler_Batch_Rerun",
  "TestReconciler_FailedDeployment_DontReschedule",
  "TestReconciler_DeploymentWithFailedAllocs_DontReschedule",
  "TestReconciler_FailedDeployment_AutoRevert_CancelCanaries",
  "TestReconciler_SuccessfulDeploymentWithFailedAllocs_Reschedule",
  "TestReconciler_ForceReschedule_Service",
  "TestReconciler_RescheduleNot_Service",
  "TestReconciler_Disconnected_Client",
  "TestReconciler_RescheduleNot_Batch",
  "TestReconciler_Node_Disconnect_Updates_Alloc_To_Unknown",
  "TestReconciler_Disconnect_UpdateJobAfterReconnect",
  "TestReconciler_Client_Disconnect_Canaries",
  "TestReconciler_ComputeDeploymentPaused",
  "TestReconciler_ScaleDown_ClientTerminal_Batch",
  "TestReconciler_ScaleDown_ClientTerminal_Service",
  "TestReconciler_ScaleDown_ClientTerminal_Service_ActiveDeployment",
] as const;

/** A Go test function's name. */
export type GoTestName = (typeof GO_TEST_FUNCTIONS)[number];

/**
 * Where our reconciler does not do what the reference's does: each test marked with one fails
 * for that cause (run with {@link SHOW_GAPS_VARIABLE} to see how).
 */
export const GAPS = {
  migration:
    "allocations marked to migrate are stopped and replaced (`computeMigrations`), but they do not go through the rescheduling rules (`filterByRescheduleable`): the reference reschedules a batch allocation marked to migrate and to reschedule",
  "job create index":
    "an allocation keeps its job's version but not the job's CreateIndex, so allocations of an earlier job of the same ID and version count as the new job's: the reference makes a deployment for the new job and re-runs a batch job's finished allocations, ours does neither (not reachable over HTTP today: a purge deletes the job's allocations, in the agent as in the reference's DeleteJobTxn)",
} as const;

/** A cause of {@link GAPS}. */
export type Gap = keyof typeof GAPS;

/** Why a Go test is not ported. */
export const SKIP_REASONS = {
  "disconnected clients":
    "the agent's reconciler has no disconnected clients: no group Disconnect block (max_client_disconnect, lost_after, reconcile), no unknown allocations, no reconnecting",
  multiregion: "the agent has no multiregion jobs or deployments (a multiregion job's deployment waits, initializing, for its peers)",
} as const;

/** A reason of {@link SKIP_REASONS}. */
export type SkipReason = keyof typeof SKIP_REASONS;

/** What became of one Go test. */
export type Fate =
  | { readonly kind: "ported"; readonly note?: string }
  | { readonly kind: "gap"; readonly gap: Gap; readonly note?: string }
  | { readonly kind: "skipped"; readonly reason: SkipReason; readonly note?: string }
  | { readonly kind: "not yet ported" };

/** Ported, and passing. */
export const PORTED: Fate = { kind: "ported" };

/** Ported and passing, with what differs from the Go test (a case left out, an assertion our results cannot make). */
export function portedWith(note: string): Fate {
  return { kind: "ported", note };
}

/** Ported, and failing for `gap` until our reconciler closes it. */
export function gap(cause: Gap, note?: string): Fate {
  return note === undefined ? { kind: "gap", gap: cause } : { kind: "gap", gap: cause, note };
}

/** Not ported, for `reason`. */
export function skipped(reason: SkipReason, note?: string): Fate {
  return note === undefined ? { kind: "skipped", reason } : { kind: "skipped", reason, note };
}

/** Not ported yet (no reason but time). */
export const NOT_YET: Fate = { kind: "not yet ported" };

/** A ported Go test: it throws when the reconciler does not do what the reference's test expects. */
export type GoTests = Partial<Record<GoTestName, () => void>>;

/** Runs the tests of known gaps as plain tests, to see how each fails today (`RECONCILER_SHOW_GAPS=1 npx vitest run test/scheduler/`). */
export const SHOW_GAPS_VARIABLE = "RECONCILER_SHOW_GAPS";

/** Registers the ported tests in the table's order: `it` when ported, `it.fails` for a gap, `it.skip` named with the reason otherwise. */
export function registerGoTests(fates: Readonly<Record<GoTestName, Fate>>, tests: GoTests): void {
  const showGaps = process.env[SHOW_GAPS_VARIABLE] === "1";
  for (const name of GO_TEST_FUNCTIONS) {
    const fate = fates[name];
    const test = tests[name];
    if (fate.kind === "skipped") it.skip(`${name} (skipped: ${SKIP_REASONS[fate.reason]})`, () => {});
    else if (fate.kind === "not yet ported" || test === undefined) it.skip(`${name} (not yet ported)`, () => {});
    else if (fate.kind === "gap" && !showGaps) it.fails(`${name} (gap: ${fate.gap})`, test);
    else it(name, test);
  }
}

/** The fate of each Go test function, in the Go file's order. */
export const FATES: Readonly<Record<GoTestName, Fate>> = {
  TestReconciler_Place_NoExisting: PORTED,
  TestReconciler_Place_Existing: PORTED,
  TestReconciler_ScaleDown_Partial: PORTED,
  TestReconciler_ScaleDown_Zero: PORTED,
  TestReconciler_ScaleDown_Zero_DuplicateNames: PORTED,
  TestReconciler_Inplace: PORTED,
  TestReconciler_Inplace_ScaleUp: PORTED,
  TestReconciler_Inplace_ScaleDown: PORTED,
  TestReconciler_Inplace_Rollback: PORTED,
  TestReconciler_Destructive: PORTED,
  TestReconciler_DestructiveMaxParallel: PORTED,
  TestReconciler_Destructive_ScaleUp: PORTED,
  TestReconciler_Destructive_ScaleDown: PORTED,
  TestReconciler_LostNode: PORTED,
  TestReconciler_LostNode_ScaleUp: PORTED,
  TestReconciler_LostNode_ScaleDown: PORTED,
  TestReconciler_DrainNode: PORTED,
  TestReconciler_MigrateBatchAllocs: PORTED,
  TestReconciler_MigrateDisablePlacementBatchAllocs: PORTED,
  TestReconciler_MigrateDisablePlacementBatchAllocs_StillRunningAfterStop: PORTED,
  TestReconciler_MigrateRescheduleBatchAllocs: gap("migration", "batch allocations marked to migrate and to reschedule: the reference stops two of them and places nothing; ours leaves them to the rescheduling and stops none"),
  TestReconciler_DrainNode_ScaleUp: PORTED,
  TestReconciler_DrainNode_ScaleDown: PORTED,
  TestReconciler_RemovedTG: PORTED,
  TestReconciler_JobStopped: portedWith("its case of a nil job (a job purged) has no counterpart: our reconciler is always given a job"),
  TestReconciler_JobStopped_TerminalAllocs: portedWith("its case of a nil job has no counterpart"),
  TestReconciler_MultiTG: PORTED,
  TestReconciler_MultiTG_SingleUpdateBlock: PORTED,
  TestReconciler_RescheduleLater_Batch: PORTED,
  TestReconciler_RescheduleLaterWithBatchedEvals_Batch: PORTED,
  TestReconciler_RescheduleNow_Batch: PORTED,
  TestReconciler_RescheduleLater_Service: PORTED,
  TestReconciler_Service_ClientStatusComplete: PORTED,
  TestReconciler_Service_DesiredStop_ClientStatusComplete: PORTED,
  TestReconciler_RescheduleNow_Service: PORTED,
  TestReconciler_RescheduleNow_WithinAllowedTimeWindow: PORTED,
  TestReconciler_RescheduleNow_EvalIDMatch: PORTED,
  TestReconciler_RescheduleNow_Service_WithCanaries: PORTED,
  TestReconciler_RescheduleNow_Service_Canaries: PORTED,
  TestReconciler_RescheduleNow_Service_Canaries_Limit: PORTED,
  TestReconciler_DontReschedule_PreviouslyRescheduled: portedWith("the Go test gives two allocations one ID; the reference keeps the later by its map, and so does the port"),
  TestReconciler_CancelDeployment_JobStop: portedWith("its two cases of a nil job have no counterpart"),
  TestReconciler_CancelDeployment_JobUpdate: PORTED,
  TestReconciler_CreateDeployment_RollingUpgrade_Destructive: PORTED,
  TestReconciler_CreateDeployment_RollingUpgrade_Inplace: PORTED,
  TestReconciler_CreateDeployment_NewerCreateIndex: gap("job create index"),
  TestReconciler_DontCreateDeployment_NoChanges: PORTED,
  TestReconciler_PausedOrFailedDeployment_NoMoreCanaries: PORTED,
  TestReconciler_PausedOrFailedDeployment_NoMorePlacements: PORTED,
  TestReconciler_PausedOrFailedDeployment_NoMoreDestructiveUpdates: PORTED,
  TestReconciler_DrainNode_Canary: PORTED,
  TestReconciler_LostNode_Canary: PORTED,
  TestReconciler_StopOldCanaries: PORTED,
  TestReconciler_NewCanaries: PORTED,
  TestReconciler_NewCanaries_CountGreater: portedWith("without DesiredTGUpdates: the reference reports Canary 7 and Place 3 for the three canaries it keeps of seven, which our results do not tell apart"),
  TestReconciler_NewCanaries_MultiTG: PORTED,
  TestReconciler_NewCanaries_ScaleUp: PORTED,
  TestReconciler_NewCanaries_ScaleDown: PORTED,
  TestReconciler_NewCanaries_FillNames: PORTED,
  TestReconciler_PromoteCanaries_Unblock: PORTED,
  TestReconciler_PromoteCanaries_CanariesEqualCount: PORTED,
  TestReconciler_DeploymentLimit_HealthAccounting: PORTED,
  TestReconciler_TaintedNode_RollingUpgrade: PORTED,
  TestReconciler_FailedDeployment_TaintedNodes: PORTED,
  TestReconciler_CompleteDeployment: PORTED,
  TestReconciler_MarkDeploymentComplete_FailedAllocations: PORTED,
  TestReconciler_FailedDeployment_CancelCanaries: PORTED,
  TestReconciler_FailedDeployment_NewJob: PORTED,
  TestReconciler_MarkDeploymentComplete: PORTED,
  TestReconciler_JobChange_ScaleUp_SecondEval: PORTED,
  TestReconciler_RollingUpgrade_MissingAllocs: PORTED,
  TestReconciler_Batch_Rerun: gap("job create index"),
  TestReconciler_FailedDeployment_DontReschedule: portedWith("without DesiredTGUpdates (see the test)"),
  TestReconciler_DeploymentWithFailedAllocs_DontReschedule: PORTED,
  TestReconciler_FailedDeployment_AutoRevert_CancelCanaries: PORTED,
  TestReconciler_SuccessfulDeploymentWithFailedAllocs_Reschedule: PORTED,
  TestReconciler_ForceReschedule_Service: PORTED,
  TestReconciler_RescheduleNot_Service: PORTED,
  TestReconciler_Disconnected_Client: skipped("disconnected clients"),
  TestReconciler_RescheduleNot_Batch: PORTED,
  TestReconciler_Node_Disconnect_Updates_Alloc_To_Unknown: skipped("disconnected clients"),
  TestReconciler_Disconnect_UpdateJobAfterReconnect: skipped("disconnected clients"),
  TestReconciler_Client_Disconnect_Canaries: skipped("disconnected clients"),
  TestReconciler_ComputeDeploymentPaused: skipped("multiregion"),
  TestReconciler_ScaleDown_ClientTerminal_Batch: PORTED,
  TestReconciler_ScaleDown_ClientTerminal_Service: PORTED,
  TestReconciler_ScaleDown_ClientTerminal_Service_ActiveDeployment: PORTED,
};

/** Every `func Test…` of `scheduler/reconciler/reconcile_cluster_prop_test.go` at the pinned commit, in file order. */
export const PROP_TEST_FUNCTIONS = ["TestAllocReconciler_PropTest", "TestAllocReconciler_cancelUnneededCanaries", "TestAllocReconciler_ReconnectingProps"] as const;

/** The fate of each property test of the Go file, ported in `reconcile-cluster-properties.test.ts`. */
export const PROP_FATES: Readonly<Record<(typeof PROP_TEST_FUNCTIONS)[number], Fate>> = {
  TestAllocReconciler_PropTest: portedWith("tainted nodes are down (the only ones our scheduler passes), no unknown allocations or disconnect blocks, one deployment (old or current) where the reference is given both"),
  TestAllocReconciler_cancelUnneededCanaries: portedWith("through reconcile(): the reference calls its unexported method; the port checks that the canaries it would stop that still run are stopped"),
  TestAllocReconciler_ReconnectingProps: skipped("disconnected clients"),
};
