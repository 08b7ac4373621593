/**
 * The agent's data model: the rows of its state store. Field order follows the reference's Go
 * structs, because JSON output keeps it. The structs are declared once in `src/structs/` (their
 * fields, Go kinds, zero values, `omitempty` and the rules by which rows keep them); the types here
 * are the agent's rows of them, and `test/agent/structs.test.ts` holds each to its declaration.
 *
 * @module
 */
import type { StructValue } from "../../structs/declare.js";
import type { SERVICE_REGISTRATION } from "../../structs/service.js";
import type { CLIENT_HOST_VOLUME_CONFIG, HOST_VOLUME, TASK_GROUP_HOST_VOLUME_CLAIM } from "../../structs/host-volume.js";
import type { ALLOC_NETWORK_STATUS, ALLOCATED_RESOURCES, NODE_RESERVED_RESOURCES, NODE_RESOURCES } from "../../structs/resources.js";

/** A decoded JSON object. */
export type JsonObject = { [key: string]: unknown };

/**
 * A task group of a job, as the job was registered and canonicalised: every field of
 * `structs.TaskGroup` (see `src/structs/job.ts`), its tasks likewise.
 */
export interface TaskGroup extends JsonObject {
  readonly Name: string;
  readonly Count: number;
}

/** A job's spec as registered, canonicalised as the reference does (`structs.Job`'s fields and order, without those the server sets). */
export interface JobSpec {
  readonly Stop: boolean;
  readonly Region: string;
  readonly Namespace: string;
  readonly ID: string;
  readonly ParentID: string;
  readonly Name: string;
  readonly Type: string;
  readonly Priority: number;
  readonly AllAtOnce: boolean;
  readonly Datacenters: readonly string[];
  readonly NodePool: string;
  readonly Constraints: unknown;
  readonly Affinities: unknown;
  readonly Spreads: unknown;
  readonly TaskGroups: readonly TaskGroup[];
  readonly Update: JsonObject | null;
  readonly Multiregion: JsonObject | null;
  readonly Periodic: JsonObject | null;
  readonly ParameterizedJob: JsonObject | null;
  readonly Dispatched: boolean;
  readonly DispatchIdempotencyToken: string;
  readonly Payload: unknown;
  readonly Meta: { readonly [key: string]: string } | null;
  readonly ConsulToken: string;
  readonly ConsulNamespace: string;
  readonly VaultToken: string;
  readonly VaultNamespace: string;
  readonly NomadTokenID: string;
  /** The web UI's description and links, as sent (after the server's fields in the struct). */
  readonly UI: JsonObject | null;
  /** The version's tag, as sent (after the server's fields in the struct). */
  readonly VersionTag: JsonObject | null;
}

/** A registered job: the spec plus the fields the server manages. */
export interface Job extends JobSpec {
  readonly Status: string;
  readonly StatusDescription: string;
  readonly Stable: boolean;
  readonly Version: number;
  /** Nanoseconds since the epoch; above 2^53, so a bigint. */
  readonly SubmitTime: bigint;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly JobModifyIndex: number;
}

/** The counts of one task group's allocations by state. */
export interface TaskGroupSummary {
  readonly Queued: number;
  readonly Complete: number;
  readonly Failed: number;
  readonly Running: number;
  readonly Starting: number;
  readonly Lost: number;
  /** Allocations on clients that lost contact (never, in the mini-agent; the reference reports it). */
  readonly Unknown: number;
}

/** A job's allocation counts per task group, and its children's by state. */
export interface JobSummary {
  readonly JobID: string;
  readonly Namespace: string;
  readonly Summary: { readonly [taskGroup: string]: TaskGroupSummary };
  readonly Children: { readonly Pending: number; readonly Running: number; readonly Dead: number };
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** The state of one task group in a deployment (spec 2.3). */
export interface DeploymentState {
  readonly AutoRevert: boolean;
  readonly AutoPromote: boolean;
  /** Nanoseconds. */
  readonly ProgressDeadline: number;
  /** RFC 3339 time, or null before the first placement. */
  readonly RequireProgressBy: string | null;
  readonly Promoted: boolean;
  readonly PlacedCanaries: readonly string[] | null;
  readonly DesiredCanaries: number;
  readonly DesiredTotal: number;
  readonly PlacedAllocs: number;
  readonly HealthyAllocs: number;
  readonly UnhealthyAllocs: number;
}

/** A deployment (spec 2.3): the rollout of one version of a service job. */
export interface Deployment {
  readonly ID: string;
  readonly Namespace: string;
  readonly JobID: string;
  readonly JobVersion: number;
  readonly JobModifyIndex: number;
  readonly JobSpecModifyIndex: number;
  readonly JobCreateIndex: number;
  readonly IsMultiregion: boolean;
  readonly TaskGroups: { readonly [taskGroup: string]: DeploymentState };
  readonly Status: string;
  readonly StatusDescription: string;
  readonly EvalPriority: number;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  /** Nanoseconds since the epoch, a bigint (as the reference's `CreateTime`). */
  readonly CreateTime: bigint;
  /** Nanoseconds since the epoch of the last change. */
  readonly ModifyTime: bigint;
}

/** An evaluation: the scheduler's work item for a job change. */
export interface Evaluation {
  readonly ID: string;
  readonly Namespace: string;
  readonly Priority: number;
  readonly Type: string;
  /** `job-register`, `job-deregister`, `deployment-watcher`, `alloc-failure`… (the reference's triggers). */
  readonly TriggeredBy: string;
  readonly JobID: string;
  readonly JobModifyIndex: number;
  /** Set when the scheduler made a deployment for it. */
  readonly DeploymentID?: string;
  /** `pending` until the scheduler processes it, then `complete` (`failed`, `canceled` and `blocked` exist in the reference). */
  readonly Status: "pending" | "complete" | "failed" | "canceled" | "blocked";
  readonly StatusDescription?: string;
  /** The allocations left to place per task group, once processed. */
  readonly QueuedAllocations?: { readonly [group: string]: number };
  /** Why the task groups it could not place were not placed (`structs.AllocMetric` per group). */
  readonly FailedTGAllocs?: { readonly [group: string]: JsonObject };
  /** The evaluation made to place what it could not (status `blocked` until a node can take it). */
  readonly BlockedEval?: string;
  /** The evaluation that made this one (a blocked evaluation's, a follow-up's). */
  readonly PreviousEval?: string;
  /** The follow-up evaluation this one made (to reschedule failed allocations later). */
  readonly NextEval?: string;
  /** Not processed before this time (RFC 3339, as Go writes it): a follow-up evaluation's. */
  readonly WaitUntil?: string;
  /** The node whose change made it (a `node-update` evaluation's), and that node's index then. */
  readonly NodeID?: string;
  readonly NodeModifyIndex?: number;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  /** Nanoseconds since the epoch. */
  readonly CreateTime?: bigint;
  readonly ModifyTime?: bigint;
}

/** What the server wants of an allocation. */
export type DesiredStatus = "run" | "stop" | "evict";
/** What the client reports of an allocation; `complete`, `failed` and `lost` are terminal. */
export type ClientStatus = "pending" | "running" | "complete" | "failed" | "lost" | "unknown";

/** A placement of one task group instance on a node. */
export interface Allocation {
  readonly ID: string;
  readonly Namespace: string;
  /** The evaluation that placed it. */
  readonly EvalID: string;
  /** `<job>.<group>[<index>]`. */
  readonly Name: string;
  /** The node it runs on (`""` before the agent had nodes). */
  readonly NodeID: string;
  readonly NodeName: string;
  readonly JobID: string;
  /** The job's type and version when it was placed. */
  readonly JobType: string;
  readonly JobVersion: number;
  readonly TaskGroup: string;
  readonly DeploymentID: string;
  readonly DesiredStatus: DesiredStatus;
  readonly DesiredDescription: string;
  readonly ClientStatus: ClientStatus;
  readonly ClientDescription: string;
  /** A deployment's view of it: healthy or not, and whether it is a canary (null outside a deployment). */
  readonly DeploymentStatus: { readonly Healthy: boolean | null; readonly Timestamp: string; readonly Canary: boolean; readonly ModifyIndex: number } | null;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  /** Nanoseconds since the epoch (bigints, as the reference's); the scheduler's timeline counts from `CreateTime`. */
  readonly CreateTime: bigint;
  readonly ModifyTime: bigint;
  /** What the simulated client did with its tasks, shown as the reference's `TaskStates` (absent on rows a data file gave without it). */
  readonly TaskRun?: TaskRun;
  /** The lost allocation this one replaces. */
  readonly PreviousAllocation?: string;
  /** The allocation that replaced this one once it was lost or rescheduled. */
  readonly NextAllocation?: string;
  /** The reschedules that led to this allocation (`structs.RescheduleTracker`). */
  readonly RescheduleTracker?: RescheduleTracker;
  /** The evaluation that will reschedule this failed allocation once its delay has passed. */
  readonly FollowupEvalID?: string;
  /** What the server asks of the allocation besides its desired status (`structs.DesiredTransition`). */
  readonly DesiredTransition?: DesiredTransition;
  /** What the scheduler gave it on its node (absent on rows written before the agent kept it). */
  readonly AllocatedResources?: AllocatedResources;
  /** Its network, as its client reports it with every update (absent until its client first reported it). */
  readonly NetworkStatus?: AllocNetworkStatus;
}

/** `structs.AllocatedResources`: each task's CPU and memory, and what the group's tasks share (disk, network, ports). */
export type AllocatedResources = StructValue<typeof ALLOCATED_RESOURCES>;

/** `structs.AllocNetworkStatus`: the interface and address of an allocation's network namespace, and its DNS configuration. */
export type AllocNetworkStatus = StructValue<typeof ALLOC_NETWORK_STATUS>;

/** `structs.RescheduleTracker`: an allocation's earlier reschedules, and whether the last one was placed. */
export interface RescheduleTracker {
  readonly Events: readonly RescheduleEvent[];
  /** `ok`, or `no placement` when the last attempt found no node. */
  readonly LastReschedule: string;
}

/** `structs.RescheduleEvent`: one reschedule. */
export interface RescheduleEvent {
  /** Nanoseconds since the epoch (a bigint, as the reference's int64). */
  readonly RescheduleTime: bigint;
  readonly PrevAllocID: string;
  readonly PrevNodeID: string;
  /** Nanoseconds. */
  readonly Delay: number;
}

/** `structs.DesiredTransition`: null fields are unset. */
export interface DesiredTransition {
  readonly Migrate: boolean | null;
  readonly Reschedule: boolean | null;
  readonly ForceReschedule: boolean | null;
  readonly NoShutdownDelay: boolean | null;
  /** Set by the drainer on a batch job's allocation: it is stopped, and no replacement placed (absent on rows written before the agent kept it). */
  readonly MigrateDisablePlacement?: boolean | null;
}

/**
 * The agent's record of an allocation's tasks, from which its `TaskStates` are shown: every task
 * of the group shares the allocation's life in the simulation. Times are milliseconds since the
 * epoch on the agent's clock (plain numbers, so that a stored row is read back by `JSON.parse`).
 */
export interface TaskRun {
  /** The names of the task group's tasks. */
  readonly Tasks: readonly string[];
  /** When the tasks started; null before. */
  readonly StartedAt: number | null;
  /** When they ended; null before. */
  readonly FinishedAt: number | null;
  /** Their exit code when they ended on their own; null when they were killed or have not ended. */
  readonly ExitCode: number | null;
  /** The number of the signal that ended them, when a user's signal did (absent otherwise). */
  readonly Signal?: number;
  /** What users asked of the running tasks (restarts, signals), oldest first: the last few of each task (absent before the first). */
  readonly Actions?: readonly TaskAction[];
  /** How many times each task was restarted, and when last (absent before the first restart). */
  readonly Restarts?: { readonly [task: string]: TaskRestarts };
}

/**
 * A user's action on a running task, which its events show (`Restart Signaled`…`Started`, or
 * `Signaling`): the simulated task takes it at once, on the agent's clock.
 */
export interface TaskAction {
  readonly Task: string;
  readonly Kind: "restart" | "signal";
  /** Milliseconds since the epoch, on the agent's clock. */
  readonly At: number;
  /** A restart's reason, or the signal's name. */
  readonly Text: string;
}

/** A task's restarts: how many, and the last one's time (milliseconds since the epoch). */
export interface TaskRestarts {
  readonly Count: number;
  readonly Last: number;
}

/** A variable's lock (`structs.VariableLock`): its holder's ID, and its durations in nanoseconds. */
export interface VariableLock {
  readonly ID: string;
  /** How long the holder has to renew it (the lock is lost after twice that, as the reference's leader times it). */
  readonly TTL: number;
  /** How long a lost lock stays held before it is free. */
  readonly LockDelay: number;
}

/**
 * A variable (`structs.VariableDecrypted`), with its items in the clear: the reference encrypts
 * them at rest with its keyring; the double keeps them as they were written.
 */
export interface Variable {
  readonly Namespace: string;
  readonly Path: string;
  readonly Lock: VariableLock | null;
  readonly Items: { readonly [key: string]: string };
  readonly CreateIndex: number;
  /** Nanoseconds since the epoch, on the agent's clock. */
  readonly CreateTime: bigint;
  readonly ModifyIndex: number;
  readonly ModifyTime: bigint;
}

/**
 * The source a job's version was registered with (`structs.JobSubmission`, `GET
 * /v1/job/<id>/submission`): kept as the client sent it, its `VariableFlags` values escaped as
 * the reference's client escapes them.
 */
export interface JobSubmission {
  readonly Source: string;
  /** `hcl2` or `json`, as the client says. */
  readonly Format: string;
  readonly VariableFlags: { readonly [name: string]: string } | null;
  readonly Variables: string;
  readonly Namespace: string;
  readonly JobID: string;
  readonly Version: number;
  /** The index of the registration that wrote it. */
  readonly JobModifyIndex: number;
}

/** One scaling event of a task group (`structs.ScalingEvent`), as kept: its time in agent milliseconds. */
export interface ScalingEventRow {
  readonly TimeMs: number;
  /** The count asked for; null for an event that changed no count (an error, a message). */
  readonly Count: number | null;
  readonly PreviousCount: number;
  readonly Error: boolean;
  readonly Message: string;
  readonly Meta: JsonObject | null;
  /** The evaluation the scaling wrote; null when it wrote none. */
  readonly EvalID: string | null;
  readonly CreateIndex: number;
}

/** A job's scaling events (`structs.JobScalingEvents`): the newest first, by task group. */
export interface JobScalingEvents {
  readonly Namespace: string;
  readonly JobID: string;
  readonly ScalingEvents: { readonly [group: string]: readonly ScalingEventRow[] };
  readonly ModifyIndex: number;
}

/** `structs.ServiceRegistration`: one instance of a native service (`GET /v1/service/<name>`). */
export type ServiceRegistration = StructValue<typeof SERVICE_REGISTRATION>;

/** `structs.HostVolume`: a dynamic host volume (`scheduler/host-volumes.ts`); the `Allocations` of a read are not kept. */
export type HostVolume = Omit<StructValue<typeof HOST_VOLUME>, "Allocations">;

/** `structs.ClientHostVolumeConfig`: a node's host volume, static (from its fixture) or dynamic (its `ID` set). */
export type ClientHostVolumeConfig = StructValue<typeof CLIENT_HOST_VOLUME_CONFIG>;

/** `structs.TaskGroupHostVolumeClaim`: a task group's claim of a sticky host volume. */
export type HostVolumeClaim = StructValue<typeof TASK_GROUP_HOST_VOLUME_CLAIM>;

/** One version of a job, as it was written (`GET /v1/job/<id>/versions`). */
export interface JobVersion {
  readonly Namespace: string;
  /** The job's ID. */
  readonly ID: string;
  readonly Version: number;
  /** The job as stored at that version (`Stable` follows its deployment). */
  readonly Job: Job;
}

/** A simulated client node of the agent's datacenters. */
export interface Node {
  readonly ID: string;
  readonly Name: string;
  readonly Datacenter: string;
  readonly NodePool: string;
  readonly NodeClass: string;
  readonly Address: string;
  readonly Status: "initializing" | "ready" | "down" | "disconnected";
  readonly StatusDescription: string;
  readonly SchedulingEligibility: "eligible" | "ineligible";
  readonly Drain: boolean;
  /** How it drains, while it drains (absent or null otherwise; `node-update.ts`). */
  readonly DrainStrategy?: DrainStrategy | null;
  /** Its last drain, once it drained (absent before). */
  readonly LastDrain?: DrainMetadata | null;
  readonly Version: string;
  readonly Attributes: { readonly [name: string]: string };
  /** What its client fingerprinted of its machine (absent on rows written before the agent kept it). */
  readonly NodeResources?: NodeResources;
  /** What its client's configuration keeps back from tasks (absent likewise). */
  readonly ReservedResources?: NodeReservedResources;
  readonly Meta: { readonly [name: string]: string };
  /**
   * Its task drivers as its client fingerprinted them, once a test changed one (absent before:
   * derived from `Attributes`, see `state/drivers.ts`).
   */
  readonly Drivers?: { readonly [name: string]: DriverInfo };
  /** The metadata its client was configured with, once dynamic metadata was applied (absent before: `Meta`). */
  readonly MetaStatic?: { readonly [name: string]: string };
  /** The dynamic metadata applied through `/v1/client/metadata` (null: a static key removed), absent before any. */
  readonly MetaDynamic?: { readonly [name: string]: string | null };
  /** When its status last changed, in seconds since the epoch (absent on rows written before the agent kept it). */
  readonly StatusUpdatedAt?: number;
  /** What happened to it, oldest first (the reference keeps the last 10). */
  readonly Events?: readonly NodeEvent[] | null;
  /** Its host volumes by name: static ones its fixture declares, dynamic ones once ready (absent: none). */
  readonly HostVolumes?: { readonly [name: string]: ClientHostVolumeConfig } | null;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** `structs.NodeResources`: what a node offers. */
export type NodeResources = StructValue<typeof NODE_RESOURCES>;

/** `structs.NodeReservedResources`: what a node keeps back from tasks. */
export type NodeReservedResources = StructValue<typeof NODE_RESERVED_RESOURCES>;

/** `structs.DrainStrategy`: how a node drains, as the reference's JSON writes it. */
export interface DrainStrategy {
  /** Nanoseconds the drain may take before what is left is stopped; 0 for no deadline, below 0 to stop everything now. */
  readonly Deadline: number;
  /** The system jobs' allocations stay on the node. */
  readonly IgnoreSystemJobs: boolean;
  /** When the deadline passes (RFC 3339; Go's zero time without a deadline). */
  readonly ForceDeadline: string;
  /** When the drain started (RFC 3339). */
  readonly StartedAt: string;
}

/** `structs.DrainMetadata`: a node's last drain. */
export interface DrainMetadata {
  /** RFC 3339, to the second. */
  readonly StartedAt: string;
  /** RFC 3339, to the second. */
  readonly UpdatedAt: string;
  /** `draining`, `complete` or `canceled`. */
  readonly Status: "draining" | "complete" | "canceled";
  /** The accessor of the token that asked for it (empty: the agent does not record it). */
  readonly AccessorID: string;
  readonly Meta: { readonly [key: string]: string } | null;
}

/** `structs.DriverInfo`: what a node's client found of one task driver. */
export interface DriverInfo {
  /** The driver's own attributes (`driver.docker`: `true`, `driver.docker.version`…). */
  readonly Attributes: { readonly [name: string]: string } | null;
  readonly Detected: boolean;
  readonly Healthy: boolean;
  readonly HealthDescription: string;
  /** RFC 3339. */
  readonly UpdateTime: string;
}

/** `structs.NodeEvent`: something that happened to a node. */
export interface NodeEvent {
  readonly Message: string;
  readonly Subsystem: string;
  readonly Details: { readonly [key: string]: string } | null;
  /** RFC 3339, as Go writes a `time.Time`. */
  readonly Timestamp: string;
  readonly CreateIndex: number;
}

/** A namespace. */
export interface Namespace {
  readonly Name: string;
  readonly Description: string;
  readonly Quota: string;
  readonly Meta: { readonly [key: string]: string } | null;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** `structs.PreemptionConfig`: which schedulers may evict lower-priority allocations (kept and answered; the double never preempts). */
export interface PreemptionConfig {
  readonly SystemSchedulerEnabled: boolean;
  readonly SysBatchSchedulerEnabled: boolean;
  readonly BatchSchedulerEnabled: boolean;
  readonly ServiceSchedulerEnabled: boolean;
}

/** The scheduler's algorithms (`structs.SchedulerAlgorithm`): pack nodes full, or spread allocations over them. */
export type SchedulerAlgorithm = "binpack" | "spread";

/**
 * The cluster's scheduler configuration (`structs.SchedulerConfiguration`), one row keyed by
 * `Name` (always {@link SCHEDULER_CONFIG_NAME}, which the API never shows).
 */
export interface SchedulerConfiguration {
  readonly Name: typeof SCHEDULER_CONFIG_NAME;
  readonly SchedulerAlgorithm: SchedulerAlgorithm;
  readonly PreemptionConfig: PreemptionConfig;
  readonly MemoryOversubscriptionEnabled: boolean;
  readonly RejectJobRegistration: boolean;
  readonly PauseEvalBroker: boolean;
  readonly NodeLimitForFeasibilityChecks: number;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** The key of the one row of the `scheduler_config` table. */
export const SCHEDULER_CONFIG_NAME = "scheduler";

/**
 * The cluster's autopilot configuration (`structs.AutopilotConfig`), one row keyed by `Name`
 * (always {@link AUTOPILOT_CONFIG_NAME}, which the API never shows); durations in nanoseconds.
 */
export interface AutopilotConfig {
  readonly Name: typeof AUTOPILOT_CONFIG_NAME;
  readonly CleanupDeadServers: boolean;
  readonly ServerStabilizationTime: number;
  readonly LastContactThreshold: number;
  readonly MaxTrailingLogs: number;
  readonly MinQuorum: number;
  readonly EnableRedundancyZones: boolean;
  readonly DisableUpgradeMigration: boolean;
  readonly EnableCustomUpgrades: boolean;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** The key of the one row of the `autopilot_config` table. */
export const AUTOPILOT_CONFIG_NAME = "autopilot";

/** A node pool's own scheduler settings (`structs.NodePoolSchedulerConfiguration`), laid over the cluster's. */
export interface NodePoolSchedulerConfiguration {
  /** `""`: the cluster's algorithm. */
  readonly SchedulerAlgorithm: SchedulerAlgorithm | "";
  /** null: the cluster's setting. */
  readonly MemoryOversubscriptionEnabled: boolean | null;
}

/** A node pool (`structs.NodePool`). */
export interface NodePool {
  readonly Name: string;
  readonly Description: string;
  readonly Meta: { readonly [key: string]: string } | null;
  readonly SchedulerConfiguration: NodePoolSchedulerConfiguration | null;
  /** How long its nodes' identities live, in nanoseconds as decimal text (exact past 2^53); absent in rows written before it was kept: 24 h. */
  readonly NodeIdentityTTL?: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** The rules of one namespace block, with its capabilities expanded. */
export interface NamespaceRule {
  readonly Name: string;
  readonly Policy: string;
  readonly Capabilities: readonly string[];
  /** The block's `variables` rules (`acl.VariablesPolicy`), null without one. */
  readonly Variables: { readonly Paths: readonly VariablePathRule[] } | null;
}

/** The rules of one `node_pool` block (`acl.NodePoolPolicy`), by pool glob, with its capabilities expanded. */
export interface NodePoolRule {
  readonly Name: string;
  readonly Policy: string;
  readonly Capabilities: readonly string[];
}

/** One `path` of a namespace's `variables` block: a path or glob, with its capabilities expanded (`read` adds `list`). */
export interface VariablePathRule {
  readonly PathSpec: string;
  readonly Capabilities: readonly string[];
}

/** A parsed policy, shaped like the reference's `RulesJSON`. */
export interface ParsedPolicy {
  readonly Namespaces: readonly NamespaceRule[] | null;
  /** The `node_pool` blocks, by pool glob, with their capabilities expanded (`read`, `write`, `delete`, `deny`). */
  readonly NodePools: readonly NodePoolRule[] | null;
  readonly Agent: { readonly Policy: string } | null;
  readonly Node: { readonly Policy: string } | null;
  readonly Operator: { readonly Policy: string } | null;
  readonly Quota: { readonly Policy: string } | null;
  readonly Plugin: { readonly Policy: string } | null;
  readonly Raw: string;
}

/** A stored policy. */
export interface AclPolicy {
  readonly Name: string;
  readonly Description: string;
  readonly Rules: string;
  readonly parsed: ParsedPolicy;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** A stored token. `secretHash` is what secrets are compared with. */
export interface AclToken {
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly Name: string;
  readonly Type: "client" | "management";
  readonly Policies: readonly string[];
  readonly Global: boolean;
  readonly CreateTime: string;
  readonly ExpirationTime: string | null;
  /** Nanoseconds; 0 when the token has no TTL. */
  readonly ExpirationTTL: number;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly secretHash: Buffer;
  /**
   * The IDs of the roles the token links to, as the reference stores its `ACLTokenRoleLink`s (the
   * ID only: a role's name is looked up when the token is read). Absent on tokens stored before
   * roles were served: none.
   */
  readonly Roles?: readonly string[];
}

/** A policy an ACL role links to (`structs.ACLRolePolicyLink`). */
export interface AclRolePolicyLink {
  readonly Name: string;
}

/** A stored ACL role (`structs.ACLRole`): a named set of policies that tokens link to. */
export interface AclRole {
  /** A UUID the agent draws; it never changes. */
  readonly ID: string;
  /** Unique among the roles; it may change on update. */
  readonly Name: string;
  readonly Description: string;
  readonly Policies: readonly AclRolePolicyLink[];
  /** The role's BLAKE2b-256 of its name, description and policy names, base64 (Go's `[]byte` in JSON). */
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** A one-time token (`structs.OneTimeToken`): a secret that is exchanged, once, for the ACL token that asked for it. */
export interface OneTimeToken {
  readonly OneTimeSecretID: string;
  /** The ACL token it stands for (one one-time token per ACL token: a new one replaces it). */
  readonly AccessorID: string;
  /** RFC 3339, on the agent's clock. */
  readonly ExpiresAt: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}
