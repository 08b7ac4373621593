/**
 * The topics of the event stream: how the rows of each store table become events of one topic
 * ({@link TOPICS}), the `topic` and `index` parameters a stream is opened with, and which topics a
 * selection and a caller's ACL let through.
 *
 * @module
 */
import type { JsonObject } from "../state/model.js";
import type { Rows, WriteMessage } from "../state/store.js";
import type { Caller } from "./acl.js";
import { invalid } from "../base/errors.js";
import { presentAllocation, presentEvaluation, presentJob, presentNode } from "./present.js";
import { present } from "../../structs/derive.js";
import { SERVICE_REGISTRATION } from "../../structs/service.js";

/** The topics the agent sends events of, in the order of a frame's events. */
export type EventTopic = "Job" | "Evaluation" | "Allocation" | "Deployment" | "Node" | "Service";

/**
 * Topics the reference has and the agent never sends events of: accepted in `topic`, they select
 * nothing (a stream of them sends only heartbeats).
 */
export const SILENT_TOPICS = ["NodePool", "ACLPolicy", "ACLToken", "ACLRole", "ACLAuthMethod", "ACLBindingRule", "Variable"] as const;

/** The topic value that selects every topic, and the key value that selects every key. */
export const ALL = "*";

/** What an event shows of a deleted row (its key fields), or a payload, as JSON. */
export type Row = JsonObject;

/** The tables whose rows are the topics' events. */
export type TopicTable = "jobs" | "evals" | "allocs" | "deployment" | "nodes" | "service_registrations";

/**
 * The event `Type` of every event of a write, by the write's message, as the reference's
 * `MsgTypeEvents` (`nomad/state/events.go`): a job registration's evaluation is `JobRegistered`,
 * the allocations and deployment of a plan are `PlanResult`. A message not named here (a
 * namespace, a job's stability, an ACL bootstrap, a periodic launch's record, a snapshot put back)
 * makes no event, as in the reference.
 */
export const EVENT_TYPES: { readonly [Message in WriteMessage]?: string } = {
  NodeRegister: "NodeRegistration",
  NodeDeregister: "NodeDeregistration",
  NodeUpdateStatus: "NodeStreamEvent",
  NodeUpdateEligibility: "NodeEligibility",
  NodeUpdateDrain: "NodeDrain",
  EvalUpdate: "EvaluationUpdated",
  AllocClientUpdate: "AllocationUpdated",
  JobRegister: "JobRegistered",
  JobDeregister: "JobDeregistered",
  JobBatchDeregister: "JobBatchDeregistered",
  AllocUpdateDesiredTransition: "AllocationUpdateDesiredStatus",
  DeploymentStatusUpdate: "DeploymentStatusUpdate",
  DeploymentPromote: "DeploymentPromotion",
  DeploymentAllocHealth: "DeploymentAllocHealth",
  ApplyPlanResults: "PlanResult",
  ACLTokenDelete: "ACLTokenDeleted",
  ACLTokenUpsert: "ACLTokenUpserted",
  ACLPolicyDelete: "ACLPolicyDeleted",
  ACLPolicyUpsert: "ACLPolicyUpserted",
  VarApplyState: "VariableUpdated",
  ACLRolesUpsert: "ACLRoleUpserted",
  ACLRolesDeleteByID: "ACLRoleDeleted",
  ServiceRegistrationUpsert: "ServiceRegistration",
  ServiceRegistrationDeleteByID: "ServiceDeregistration",
};

/** How the rows of one table become events of one topic. */
export interface TopicDefinition<Table extends TopicTable = TopicTable> {
  readonly topic: EventTopic;
  /** The store table whose changed rows are this topic's events. */
  readonly table: Table;
  /** Whether a row deleted makes an event (as the reference: jobs and nodes; evaluations, allocations and deployments go without). */
  readonly deletions: boolean;
  /** Whether the events belong to a namespace (and need `read-job` there); otherwise `node:read`. */
  readonly namespaced: boolean;
  /** The event's `Key`. */
  key(row: Rows[Table]): string;
  /** The event's `FilterKeys`: more values a `topic=<Topic>:<key>` matches (the reference's). */
  filterKeys(row: Rows[Table]): readonly string[] | null;
  /**
   * What the payload shows of a deleted row, from its table key (the row itself is gone): its `ID`
   * is the event's key, its `Namespace` a namespaced event's namespace.
   */
  deleted(tableKey: string): Row;
  /** The row as the payload shows it: as the agent's read endpoints present it (`present.ts`). */
  present(row: Rows[Table]): unknown;
}

/** A topic's definition, its functions given the rows of its table (the events are made of that table's changes). */
function defineTopic<Table extends TopicTable>(definition: TopicDefinition<Table>): TopicDefinition {
  return definition;
}

/** A row's field as text: `""` when it is missing or not a string. */
export const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** A job's (and a service registration's) table key is `<namespace>\0<ID>`. */
function jobOfKey(tableKey: string): Row {
  const at = tableKey.indexOf("\u0000");
  return { ID: tableKey.slice(at + 1), Namespace: tableKey.slice(0, at) };
}

/** Every topic the agent sends, in a frame's order; the Payload key is the topic's name. */
export const TOPICS: readonly TopicDefinition[] = [
  defineTopic({
    topic: "Job",
    table: "jobs",
    deletions: true,
    namespaced: true,
    key: (job) => job.ID,
    filterKeys: () => null,
    deleted: jobOfKey,
    present: (job) => presentJob(job),
  }),
  defineTopic({
    topic: "Evaluation",
    table: "evals",
    deletions: false,
    namespaced: true,
    key: (evaluation) => evaluation.ID,
    filterKeys: (evaluation) => [evaluation.JobID, evaluation.DeploymentID ?? ""],
    deleted: (key) => ({ ID: key }),
    present: (evaluation) => presentEvaluation(evaluation),
  }),
  defineTopic({
    topic: "Allocation",
    table: "allocs",
    deletions: false,
    namespaced: true,
    key: (alloc) => alloc.ID,
    filterKeys: (alloc) => [alloc.JobID, alloc.DeploymentID],
    deleted: (key) => ({ ID: key }),
    // The reference sends the allocation without its copy of the job.
    present: (alloc) => presentAllocation(alloc, null),
  }),
  defineTopic({
    topic: "Deployment",
    table: "deployment",
    deletions: false,
    namespaced: true,
    key: (deployment) => deployment.ID,
    filterKeys: (deployment) => [deployment.JobID],
    deleted: (key) => ({ ID: key }),
    // As stored, as the deployment endpoints write it.
    present: publicFields,
  }),
  defineTopic({
    topic: "Node",
    table: "nodes",
    deletions: true,
    namespaced: false,
    key: (node) => node.ID,
    filterKeys: () => null,
    deleted: (key) => ({ ID: key }),
    // Sanitized as the reference sends it (no secret).
    present: (node) => presentNode(node),
  }),
  defineTopic({
    topic: "Service",
    table: "service_registrations",
    // A deregistration is an event too (its payload the registration's ID and namespace: the row is gone).
    deletions: true,
    namespaced: true,
    key: (registration) => registration.ID,
    filterKeys: (registration) => [registration.JobID, registration.ServiceName],
    deleted: jobOfKey,
    present: (registration) => present(SERVICE_REGISTRATION, registration),
  }),
];

/** The names `topic` accepts: the agent's topics, the reference's silent ones, and `*`. */
const KNOWN_TOPICS: ReadonlySet<string> = new Set([ALL, ...TOPICS.map((definition) => definition.topic), ...SILENT_TOPICS]);

/** The topics and keys a stream asked for: topic (or `*`) → keys (a key `*` selects all). */
export type TopicSelection = ReadonlyMap<string, readonly string[]>;

/**
 * Reads the `topic` parameters (`Topic` or `Topic:Key`, repeated): none selects every topic. A
 * value with more than one `:` is the reference's 400; a topic name neither the agent nor the
 * reference knows is a 400 too (the reference accepts it and sends only heartbeats).
 *
 * @throws a 400 refusal naming the value.
 */
export function parseEventTopics(values: readonly string[]): TopicSelection {
  if (values.length === 0) return new Map([[ALL, [ALL]]]);
  const topics = new Map<string, string[]>();
  for (const value of values) {
    const parts = value.split(":");
    if (parts.length > 2) throw invalid(`Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: ${value}`);
    const [topic, key = ALL] = parts as [string, string?];
    if (!KNOWN_TOPICS.has(topic)) {
      throw invalid(`Invalid topic query: unknown topic ${JSON.stringify(topic)}; topics are ${[...KNOWN_TOPICS].join(", ")}, each alone or as Topic:Key`);
    }
    topics.set(topic, [...(topics.get(topic) ?? []), key]);
  }
  return topics;
}

const ATOI = /^[+-]?[0-9]+$/;
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Reads `index`: absent or empty gives undefined (only new writes); otherwise an integer as Go's
 * `strconv.Atoi` reads it, not negative.
 *
 * @throws a 400 refusal with the reference's text.
 */
export function parseEventIndex(value: string | null): number | undefined {
  if (value === null || value === "") return undefined;
  const quoted = JSON.stringify(value);
  if (!ATOI.test(value)) throw invalid(`Unable to parse index: strconv.Atoi: parsing ${quoted}: invalid syntax`);
  const index = BigInt(value);
  if (index > INT64_MAX || index < -INT64_MAX - 1n) throw invalid(`Unable to parse index: strconv.Atoi: parsing ${quoted}: value out of range`);
  if (index < 0n) throw invalid("Invalid index");
  return Number(index);
}

/** A payload without the fields a row has for the agent's own use (named in lower case: `secretHash`, `parsed`). */
export function publicFields(row: object): Row {
  // Read as JSON: the fields are told apart by their names.
  const fields = row as Row;
  const keys = Object.keys(fields);
  if (keys.every((key) => key.charCodeAt(0) >= 65 && key.charCodeAt(0) <= 90)) return fields;
  return Object.fromEntries(keys.filter((key) => key.charCodeAt(0) >= 65 && key.charCodeAt(0) <= 90).map((key) => [key, fields[key]]));
}

/** Whether `topics` selects any key of `topic`. */
export function selects(topics: TopicSelection, topic: EventTopic): boolean {
  return topics.has(ALL) || topics.has(topic);
}

/** Whether the caller may read some events of a topic in `namespace` (`*`: in some namespace). */
export function mayReadSomewhere(caller: Caller, definition: TopicDefinition, namespace: string): boolean {
  if (!definition.namespaced) return caller.permissions.nodeRead;
  return namespace === ALL ? caller.permissions.allowsAnywhere("read-job") : caller.permissions.allows(namespace, "read-job");
}
