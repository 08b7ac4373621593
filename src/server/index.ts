/**
 * `bexpr/server`: the mini-agent, for test suites and `bexpr agent`.
 *
 * ```ts
 * import { startAgent } from "bexpr/server";
 * const agent = await startAgent({ port: 0, demo: false, logLevel: "silent" });
 * await fetch(`${agent.url}/v1/jobs`);
 * await agent.close();
 * ```
 *
 * @packageDocumentation
 * @module bexpr/server
 */
export {
  DEFAULT_LIMITS,
  DEFAULT_OPTIONS,
  FILTER_CACHE_BYTES,
  FILTER_COST_PER_REQUEST,
  LOG_FORMATS,
  LOG_LEVELS,
  MAX_METRICS_INTERVALS,
  MAX_NODES,
  MIN_METRICS_INTERVAL_MS,
  OptionsError,
  readConfigFile,
  REQUEST_TIMEOUT_MS,
  RESPONSE_CACHE_BYTES,
  type AgentLimits,
  type AgentOptions,
  type LogFormat,
  type LogLevel,
  type PostgresStoreConfig,
} from "./options.js";
export type { PgliteLike, PgliteResults } from "./state/postgres/database.js";
export { HEARTBEAT_MS, LEADER_LEASE_MS, MEMBER_FAILED_AFTER_MS } from "./state/postgres/membership.js";
export { DEFAULT_SCHEMA, SCHEMA_VERSION } from "./state/postgres/store.js";
export { DEFAULT_METRICS_OPTIONS, METRICS, RUNTIME_STATS_INTERVAL_MS, type MetricDefinition, type MetricsOptions, type MetricsSummary } from "./metrics/index.js";
export { DEFAULT_WAIT_MS, MAX_WAIT_MS } from "./list/blocking.js";
export { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_PATH_PARAM_LENGTH } from "./http/constants.js";
export { LIST_LANE_BYTES } from "./http/constants.js";
export { MAX_JSON_DEPTH } from "../go/json.js";
export { MAX_JOB_ALLOCATIONS, MAX_JOB_PLACEMENT_RULES } from "./scheduler/job-spec.js";
export { MAX_JOB_SOURCE_BYTES } from "./scheduler/submission.js";
export { META_EXIT_CODE, META_FAIL_DEPLOYMENT, META_RUN_FOR } from "./scheduler/cluster.js";
export {
  LIFECYCLE_DEFAULTS,
  LIFECYCLE_STEPS,
  MAX_SCENARIO_RULES,
  RULES_COST_PER_WRITE,
  ScenarioRuleError,
  SETTABLE,
  type LifecycleChange,
  type LifecycleStep,
  type LifecycleStepName,
  type ScenarioKind,
  type ScenarioRule,
} from "./scheduler/scenarios.js";
export type { ClientStatus, DesiredStatus } from "./state/model.js";
export { MAX_POLICY_RULES_BYTES } from "./domain/acl-policy.js";
export { MAX_JOBSPEC_BYTES, MAX_JOBSPEC_DEPTH, MAX_JOBSPEC_EXPANSION } from "./domain/jobspec.js";
export { MAX_HCL_DEPTH } from "./domain/hcl.js";
export { EVENT_BUFFER_BYTES, EVENT_BUFFER_WRITES, EVENT_HEARTBEAT_MS, EVENT_QUEUE_BYTES, EVENT_STREAMS_MAX } from "./domain/events.js";
export { STATE_HEAP_FRACTION } from "./state/heap-limit.js";
export {
  CONNECTION_LIFETIME_MS,
  DATABASE_HOLD_MS,
  DatabaseUnavailableError,
  LIST_CONNECTION_WAIT_MS,
  LIST_POOL_SIZE,
  LIST_STATEMENT_TIMEOUT_MS,
  POOL_SIZE,
  RECONNECT_MAX_DELAY_MS,
  RECONNECT_MIN_DELAY_MS,
  STATEMENT_TIMEOUT_MS,
} from "./state/postgres/database.js";
export { LEADERSHIP_LOST } from "./http/errors.js";
export { PUSHDOWN_MAX_COST, PUSHDOWN_MAX_SQL_BYTES } from "./state/postgres/pages.js";
export { CONTROL_PREFIX } from "./control/access.js";
export type { AllowedHosts } from "./control/browser-guard.js";
export { HEADER_NAMES, HEADER_STYLES, type HeaderNames, type HeaderStyle } from "./base/header-names.js";
export { JOURNAL_BYTES, JOURNAL_ENTRY_OVERHEAD_BYTES, journalEntryBytes, MAX_JOURNAL_ENTRIES, REDACTED, SECRET_HEADERS, type JournalEntry, type JournalRequest } from "./control/journal.js";
export { FaultRuleError, MAX_FAULT_BODY_BYTES, MAX_FAULT_LATENCY_MS, MAX_FAULT_SEED, MAX_FAULTS, type Fault, type FaultRule } from "./control/faults.js";
export { LEADERLESS_PATHS, NO_LEADER } from "./control/leader.js";
export { JOURNAL_DROPPED_HEADER } from "./http/constants.js";
export type { AclOptions, AclPolicyConfig, AclTokenConfig } from "./domain/acl.js";
export type { ResolvedOptions } from "./options.js";
export { AgentDataError, MAX_RESTORE_INDEX_GAP, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type AgentDataErrorCode, type AgentSnapshot, type SnapshotRow, type SnapshotTables } from "./control/snapshot.js";
export { FIXTURE_DEPLOYMENT_STATUSES, FIXTURE_JOB_STATUSES, MAX_FIXTURE_ENTRIES, type AgentFixture, type FixtureAcl, type FixtureDeployment, type FixtureJob, type FixtureJobStatus, type FixtureNamespace, type FixtureNode } from "./control/fixture.js";
export { MAX_DATA_FILE_BYTES, MAX_NAMED_SNAPSHOTS, NAMED_SNAPSHOTS_BYTES, SNAPSHOT_NAME, type AgentDataSource, type NamedSnapshotInfo } from "./control/state-control.js";
export { TEST_AGENT_DEFAULTS, testAgent, type UseFixture } from "./test-fixture.js";
export { MissingPackageError, OPTIONAL_PACKAGES, type OptionalPart } from "../optional-packages.js";
export type { MetricType } from "./metrics/catalogue.js";
export type { GaugeValue, SampledValue } from "./metrics/sink.js";
export { CLOSE_GRACE_MS, startAgent, type Agent, type AgentClock, type AgentFaults, type AgentScenarios, type ScenarioRuleListing } from "./agent.js";
