/**
 * The operator's settings as the API reads and writes them: the scheduler configuration
 * (`api.SchedulerConfiguration`, `structs.SchedulerConfiguration.Validate`) and node pools
 * (`structs.NodePool`, its `Validate`), with the refusal of job registrations while the
 * configuration rejects them (`registrationsAreAllowed`).
 *
 * @module
 */
import type { ObjectSchema } from "../../evaluator/schema.js";
import { parseGoDurationNs } from "../../go/duration.js";
import { formatErrors } from "../../go/multierror.js";
import { invalid, Refusal } from "../base/errors.js";
import type { JsonObject, NodePool, NodePoolSchedulerConfiguration, SchedulerAlgorithm, SchedulerConfiguration } from "../state/model.js";
import { SCHEDULER_CONFIG_NAME } from "../state/model.js";
import { schedulerConfigOf } from "../state/operator.js";
import type { ReadTable } from "../state/store.js";
import type { Caller } from "./acl.js";

/** `api.PreemptionConfig`. */
const PREEMPTION_CONFIG = {
  kind: "object",
  typeName: "api.PreemptionConfig",
  fields: { SystemSchedulerEnabled: "bool", SysBatchSchedulerEnabled: "bool", BatchSchedulerEnabled: "bool", ServiceSchedulerEnabled: "bool" },
} as const;

/** `api.SchedulerConfiguration`, the body of `PUT /v1/operator/scheduler/configuration`. */
export const SCHEDULER_CONFIG_BODY: ObjectSchema = {
  kind: "object",
  typeName: "api.SchedulerConfiguration",
  fields: {
    SchedulerAlgorithm: "string",
    PreemptionConfig: PREEMPTION_CONFIG,
    MemoryOversubscriptionEnabled: "bool",
    RejectJobRegistration: "bool",
    PauseEvalBroker: "bool",
    NodeLimitForFeasibilityChecks: "uint",
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

/**
 * The largest `NodeLimitForFeasibilityChecks` kept: the reference's `uint`; a JavaScript number
 * counts exactly up to 2^53, far past any cluster's node count.
 */
export const MAX_NODE_LIMIT_FOR_FEASIBILITY_CHECKS = Number.MAX_SAFE_INTEGER;

/** What a scheduler configuration write sets (the indexes are the write's). */
export type SchedulerConfigUpdate = Omit<SchedulerConfiguration, "Name" | "CreateIndex" | "ModifyIndex">;

/** The algorithms `Validate` accepts; `""` is the default (binpack, `Canonicalize`). */
function algorithmOf(value: unknown, problem: (text: string) => Refusal): SchedulerAlgorithm | "" {
  const text = typeof value === "string" ? value : "";
  if (text === "" || text === "binpack" || text === "spread") return text;
  throw problem(`invalid scheduler algorithm: ${text}`);
}

/** A decoded `api.SchedulerConfiguration` checked as the reference's handler and `Validate` check it (a 400 with its words). */
export function schedulerConfigUpdate(body: JsonObject): SchedulerConfigUpdate {
  const preemption = (body.PreemptionConfig ?? {}) as JsonObject;
  const limit = body.NodeLimitForFeasibilityChecks;
  if (typeof limit === "bigint" || (typeof limit === "number" && limit > MAX_NODE_LIMIT_FOR_FEASIBILITY_CHECKS)) throw invalid(`NodeLimitForFeasibilityChecks is too large: ${String(limit)}`);
  return {
    // The reference stores "" as sent and reads it as binpack (`EffectiveSchedulerAlgorithm`); the agent stores what it means.
    SchedulerAlgorithm: algorithmOf(body.SchedulerAlgorithm, invalid) || "binpack",
    PreemptionConfig: {
      SystemSchedulerEnabled: preemption.SystemSchedulerEnabled === true,
      SysBatchSchedulerEnabled: preemption.SysBatchSchedulerEnabled === true,
      BatchSchedulerEnabled: preemption.BatchSchedulerEnabled === true,
      ServiceSchedulerEnabled: preemption.ServiceSchedulerEnabled === true,
    },
    MemoryOversubscriptionEnabled: body.MemoryOversubscriptionEnabled === true,
    RejectJobRegistration: body.RejectJobRegistration === true,
    PauseEvalBroker: body.PauseEvalBroker === true,
    NodeLimitForFeasibilityChecks: typeof limit === "number" ? limit : 0,
  };
}

/** The configuration as the API shows it (`structs.SchedulerConfiguration`'s fields and order). */
export function presentSchedulerConfig(config: SchedulerConfiguration): JsonObject {
  const { Name: _name, ...shown } = config;
  return shown;
}

/** The error the reference gives a registration, dispatch or scaling that the configuration rejects (`ErrJobRegistrationDisabled`, a 403 by its text). */
export const REGISTRATION_DISABLED = "Job registration, dispatch, and scale are disabled by the scheduler configuration";

/**
 * Refuses a job registration, dispatch or scaling while the scheduler configuration rejects them,
 * unless the caller holds a management token (`registrationsAreAllowed`; with ACLs disabled every
 * caller does).
 */
export function requireRegistrationsAllowed(caller: Caller, tables: { readonly scheduler_config: Pick<ReadTable<SchedulerConfiguration>, "get"> }): void {
  if (schedulerConfigOf(tables).RejectJobRegistration && !caller.management) throw new Refusal("denied", REGISTRATION_DISABLED);
}

/** `api.NodePoolSchedulerConfiguration`. */
const NODE_POOL_SCHEDULER_CONFIGURATION = {
  kind: "object",
  typeName: "api.NodePoolSchedulerConfiguration",
  fields: { SchedulerAlgorithm: "string", MemoryOversubscriptionEnabled: "any" },
} as const;

/** `api.NodePool`, the body of `PUT /v1/node/pools`. */
export const NODE_POOL_BODY: ObjectSchema = {
  kind: "object",
  typeName: "api.NodePool",
  fields: {
    Name: "string",
    Description: "string",
    Meta: { kind: "map", values: "string" },
    SchedulerConfiguration: NODE_POOL_SCHEDULER_CONFIGURATION,
    // A Go duration as text (what the reference's client sends) or nanoseconds; the agent answers 24 h whatever was sent.
    NodeIdentityTTL: "any",
    CreateIndex: "uint",
    ModifyIndex: "uint",
  },
};

/** `validNodePoolName`. */
const NODE_POOL_NAME = /^[a-zA-Z0-9-_]{1,128}$/;

/** `maxNodePoolDescriptionLength`. */
export const MAX_NODE_POOL_DESCRIPTION = 256;

/** A node pool's `NodeIdentityTTL` when none is set (`DefaultNodePoolNodeIdentityTTL`, 24 h), in nanoseconds as Go's `time.Duration`. */
const DEFAULT_NODE_IDENTITY_TTL_NS = 24n * 3600n * 1_000_000_000n;

/** What a node pool write sets. */
export type NodePoolUpdate = Omit<NodePool, "CreateIndex" | "ModifyIndex">;

/** A decoded `api.NodePool` checked as `NodePool.Validate` checks it (one 400 listing every problem, the reference's words). */
export function nodePoolUpdate(body: JsonObject): NodePoolUpdate {
  const name = typeof body.Name === "string" ? body.Name : "";
  const description = typeof body.Description === "string" ? body.Description : "";
  const problems: string[] = [];
  if (!NODE_POOL_NAME.test(name)) problems.push(`invalid name ${JSON.stringify(name)}, must match regex ^[a-zA-Z0-9-_]{1,128}$`);
  if (description.length > MAX_NODE_POOL_DESCRIPTION) problems.push(`description longer than ${MAX_NODE_POOL_DESCRIPTION}`);
  let scheduler: NodePoolSchedulerConfiguration | null = null;
  const given = body.SchedulerConfiguration as JsonObject | null | undefined;
  if (given !== null && given !== undefined) {
    let algorithm: SchedulerAlgorithm | "" = "";
    try {
      algorithm = algorithmOf(given.SchedulerAlgorithm, invalid);
    } catch (error) {
      problems.push((error as Error).message);
    }
    const oversubscription = given.MemoryOversubscriptionEnabled;
    if (oversubscription !== null && oversubscription !== undefined && typeof oversubscription !== "boolean") {
      throw invalid(`json: cannot unmarshal ${typeof oversubscription} into Go struct field NodePoolSchedulerConfiguration.SchedulerConfiguration.MemoryOversubscriptionEnabled of type bool`);
    }
    scheduler = { SchedulerAlgorithm: algorithm, MemoryOversubscriptionEnabled: typeof oversubscription === "boolean" ? oversubscription : null };
  }
  if (problems.length > 0) throw invalid(`invalid node pool ${JSON.stringify(name)}: ${formatErrors(problems)}`);
  const meta = body.Meta !== null && typeof body.Meta === "object" && !Array.isArray(body.Meta) ? (body.Meta as Record<string, string>) : null;
  const ttl = nodeIdentityTtlNs(body.NodeIdentityTTL);
  return { Name: name, Description: description, Meta: meta, SchedulerConfiguration: scheduler, NodeIdentityTTL: String(ttl === 0n ? DEFAULT_NODE_IDENTITY_TTL_NS : ttl) };
}

/** `NodeIdentityTTL` as the reference's `NodePool.UnmarshalJSON` reads it: Go duration text or nanoseconds; 0 when absent. */
function nodeIdentityTtlNs(value: unknown): bigint {
  if (value === null || value === undefined || value === "") return 0n;
  if (typeof value === "string") {
    try {
      return parseGoDurationNs(value);
    } catch (error) {
      throw invalid((error as Error).message);
    }
  }
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  throw invalid(`json: cannot unmarshal ${typeof value} into Go struct field NodePool.NodeIdentityTTL of type time.Duration`);
}

/** A node pool as the API shows it (`structs.NodePool`'s fields and order; `Hash`, which only the reference's replication reads, is null). */
export function presentNodePool(pool: NodePool): JsonObject {
  const scheduler = pool.SchedulerConfiguration;
  return {
    Name: pool.Name,
    Description: pool.Description,
    Meta: pool.Meta,
    SchedulerConfiguration: scheduler === null ? null : { SchedulerAlgorithm: scheduler.SchedulerAlgorithm, MemoryOversubscriptionEnabled: scheduler.MemoryOversubscriptionEnabled },
    NodeIdentityTTL: pool.NodeIdentityTTL === undefined ? DEFAULT_NODE_IDENTITY_TTL_NS : BigInt(pool.NodeIdentityTTL),
    Hash: null,
    CreateIndex: pool.CreateIndex,
    ModifyIndex: pool.ModifyIndex,
  };
}

/** The key of the scheduler configuration's row (for a write that puts it). */
export { SCHEDULER_CONFIG_NAME };
