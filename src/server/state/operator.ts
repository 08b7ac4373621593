/**
 * The cluster-wide settings the state keeps beside the reference's five nouns: the scheduler
 * configuration (`structs.SchedulerConfiguration`, one row) and the node pools
 * (`structs.NodePool`), with the defaults and built-ins the reference's leader writes when it
 * first takes office. Both the scheduler and the API read them through these functions, so that a
 * store that never had them written (a new one, an older snapshot put back) answers the defaults.
 *
 * @module
 */
import type { NodePool, SchedulerAlgorithm, SchedulerConfiguration } from "./model.js";
import { SCHEDULER_CONFIG_NAME } from "./model.js";
import type { ReadTable } from "./store.js";

/**
 * The scheduler configuration of a cluster that never had one written: the reference's server
 * defaults (`binpack`, preemption for system jobs only), at index 1, where the agent's state begins.
 */
export const DEFAULT_SCHEDULER_CONFIG: SchedulerConfiguration = {
  Name: SCHEDULER_CONFIG_NAME,
  SchedulerAlgorithm: "binpack",
  PreemptionConfig: { SystemSchedulerEnabled: true, SysBatchSchedulerEnabled: false, BatchSchedulerEnabled: false, ServiceSchedulerEnabled: false },
  MemoryOversubscriptionEnabled: false,
  RejectJobRegistration: false,
  PauseEvalBroker: false,
  NodeLimitForFeasibilityChecks: 0,
  CreateIndex: 1,
  ModifyIndex: 1,
};

/** The scheduler configuration now: the stored row, or the defaults. */
export function schedulerConfigOf(tables: { readonly scheduler_config: Pick<ReadTable<SchedulerConfiguration>, "get"> }): SchedulerConfiguration {
  return tables.scheduler_config.get(SCHEDULER_CONFIG_NAME) ?? DEFAULT_SCHEDULER_CONFIG;
}

/** `structs.NodePoolAll`: the pool of every node; a job in it may run on any node. */
export const NODE_POOL_ALL = "all";

/** `structs.NodePoolDefault`: the pool of nodes and jobs that name none. */
export const NODE_POOL_DEFAULT = "default";

/** The built-in pools, by name, as the reference's leader creates them (`Node pool with all nodes in the cluster.`). */
export const BUILT_IN_NODE_POOLS: ReadonlyMap<string, NodePool> = new Map(
  [
    { Name: NODE_POOL_ALL, Description: "Node pool with all nodes in the cluster." },
    { Name: NODE_POOL_DEFAULT, Description: "Default node pool." },
  ].map(({ Name, Description }) => [Name, { Name, Description, Meta: null, SchedulerConfiguration: null, CreateIndex: 1, ModifyIndex: 1 }]),
);

/** A node pool by name: a built-in one, a stored one, or undefined. */
export function nodePoolOf(tables: { readonly node_pool: Pick<ReadTable<NodePool>, "get"> }, name: string): NodePool | undefined {
  return BUILT_IN_NODE_POOLS.get(name) ?? tables.node_pool.get(name);
}

/**
 * Creates the pool a registered node names when there is none (`fetchOrCreateNodePoolTxn`, as the
 * reference's node upsert does): a node in pool `gpu` brings the pool `gpu`, kept when the node goes.
 */
export function createNodePoolFor(state: { readonly node_pool: { get(name: string): NodePool | undefined; put(row: NodePool): void } }, pool: string, index: number): void {
  if (pool === "" || BUILT_IN_NODE_POOLS.has(pool) || state.node_pool.get(pool) !== undefined) return;
  state.node_pool.put({ Name: pool, Description: "", Meta: null, SchedulerConfiguration: null, CreateIndex: index, ModifyIndex: index });
}

/**
 * The algorithm the scheduler ranks a job's nodes by: its node pool's, when the pool sets one
 * (`SchedulerConfiguration.WithNodePool`), else the cluster's.
 */
export function algorithmFor(
  tables: { readonly scheduler_config: Pick<ReadTable<SchedulerConfiguration>, "get">; readonly node_pool: Pick<ReadTable<NodePool>, "get"> },
  pool: string,
): SchedulerAlgorithm {
  const own = nodePoolOf(tables, pool)?.SchedulerConfiguration?.SchedulerAlgorithm ?? "";
  return own === "" ? schedulerConfigOf(tables).SchedulerAlgorithm : own;
}
