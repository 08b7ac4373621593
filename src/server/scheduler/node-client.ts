/**
 * What a node's client reports to the servers besides its status, as the reference's client does
 * (`client/node_updater.go`, `client/meta_endpoint.go`) and its servers take it
 * (`Node.Register`, `shouldCreateNodeEval`): a task driver's detection and health changed, and
 * dynamic metadata applied. Each is one write of the node (the reference's client registers its
 * node again, `NodeRegister`), then `node-update` evaluations of its jobs, as a change of what
 * feasibility reads makes the reference's servers write.
 *
 * @module
 */
import { goTime } from "../../go/time.js";
import { invalid, missing } from "../base/errors.js";
import { DRIVER_HEALTHY, driversOf } from "../state/drivers.js";
import type { DriverInfo, Node } from "../state/model.js";
import { createNodeEvals, withNodeEvent } from "./node-update.js";
import type { SchedulerContext } from "./state.js";

/** A driver's name: what a plugin may be called (no dot: the attribute `driver.<name>.x` is the driver's own). */
const DRIVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The most drivers a node keeps (a test adding drivers to one never makes it unbounded). */
export const MAX_NODE_DRIVERS = 64;

/** A change of one driver: what is not given stays as it was. */
export interface DriverChange {
  readonly detected?: boolean;
  readonly healthy?: boolean;
  readonly healthDescription?: string;
}

/** The longest health description kept. */
const MAX_DESCRIPTION = 1024;

/** The node of `id`, or a 404 `node not found`. */
function nodeOf(nodes: { get(id: string): Node | undefined }, id: string): Node {
  const node = nodes.get(id);
  if (node === undefined) throw missing("node not found");
  return node;
}

/**
 * Sets a driver of a node detected or not, healthy or not (`applyNodeUpdatesFromDriver`): its
 * `DriverInfo` updated now, its `driver.<name>` attribute `1` while detected and gone otherwise,
 * and when its health or description changed to a non-empty one, the node event the reference's
 * client writes (subsystem `Driver`, the description as message, `driver` in the details). A
 * driver the node did not have is added (no event, as the reference's first fingerprint). The
 * description defaults to `Healthy`, `Driver <name> is unhealthy`, or `Driver <name> is not detected`.
 *
 * @returns the node's drivers after the write, and the write's index.
 */
export async function setNodeDriver(context: SchedulerContext, nodeId: string, name: string, change: DriverChange): Promise<{ readonly drivers: Readonly<Record<string, DriverInfo>>; readonly index: number }> {
  if (!DRIVER_NAME.test(name)) throw invalid(`invalid driver name ${JSON.stringify(name.slice(0, 80))}: letters, digits, "_" and "-", at most 64`);
  if (change.healthDescription !== undefined && change.healthDescription.length > MAX_DESCRIPTION) throw invalid(`HealthDescription is longer than ${MAX_DESCRIPTION} characters`);
  const { clock } = context;
  const { index, result } = await context.store.write(["nodes"], (state) => {
    const node = nodeOf(state.nodes, nodeId);
    const drivers = { ...driversOf(node) };
    const before = drivers[name];
    if (before === undefined && Object.keys(drivers).length >= MAX_NODE_DRIVERS) throw invalid(`a node has at most ${MAX_NODE_DRIVERS} drivers`);
    const detected = change.detected ?? before?.Detected ?? true;
    const healthy = change.healthy ?? (change.detected === false ? false : (before?.Healthy ?? true));
    if (healthy && !detected) throw invalid("a driver that is not detected cannot be healthy");
    const description = change.healthDescription ?? (healthy ? DRIVER_HEALTHY : detected ? `Driver ${name} is unhealthy` : `Driver ${name} is not detected`);
    const own = before?.Attributes ?? (detected ? { [`driver.${name}`]: "true" } : {});
    const info: DriverInfo = { Attributes: own, Detected: detected, Healthy: healthy, HealthDescription: description, UpdateTime: goTime(clock.nowMs()) };
    drivers[name] = info;
    const attributes: Record<string, string> = { ...node.Attributes };
    // The client's COMPAT attribute, which older schedulers read.
    if (detected) attributes[`driver.${name}`] = "1";
    else delete attributes[`driver.${name}`];
    const healthChanged = before !== undefined && (before.Healthy !== healthy || before.HealthDescription !== description);
    const events = healthChanged && description !== "" ? withNodeEvent(node, clock, state.index, "Driver", description, { driver: name }) : {};
    const sorted = Object.fromEntries(Object.entries(drivers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    state.nodes.put({ ...node, Attributes: attributes, Drivers: sorted, ...events, ModifyIndex: state.index });
    return sorted;
  }, "NodeRegister");
  await createNodeEvals(context, nodeId, index);
  return { drivers: result, index };
}

/** The metadata of a node as its client answers it (`structs.NodeMetaResponse`). */
export interface NodeMetaView {
  readonly Meta: Readonly<Record<string, string>>;
  readonly Dynamic: Readonly<Record<string, string | null>>;
  readonly Static: Readonly<Record<string, string>>;
}

/** A node's metadata: merged, dynamic and static (`NodeMeta.Read`). */
export function nodeMetaOf(node: Node): NodeMetaView {
  return { Meta: { ...node.Meta }, Dynamic: { ...(node.MetaDynamic ?? {}) }, Static: { ...(node.MetaStatic ?? node.Meta) } };
}

/** The most dynamic metadata keys a node keeps. */
export const MAX_DYNAMIC_META = 1024;

/**
 * Applies dynamic metadata to a node (`NodeMeta.Apply`): each key set, or with null removed (a
 * static key's removal kept as a null, a dynamic one's forgotten); the node's `Meta` is its static
 * metadata with the dynamic laid over. The keys were checked by the caller.
 */
export async function applyNodeMeta(context: SchedulerContext, nodeId: string, meta: Readonly<Record<string, string | null>>): Promise<NodeMetaView> {
  const { index, result } = await context.store.write(["nodes"], (state) => {
    const node = nodeOf(state.nodes, nodeId);
    const statics = node.MetaStatic ?? { ...node.Meta };
    const dynamic: Record<string, string | null> = { ...(node.MetaDynamic ?? {}) };
    for (const [key, value] of Object.entries(meta)) {
      if (value === null && !Object.hasOwn(statics, key)) delete dynamic[key];
      else dynamic[key] = value;
    }
    if (Object.keys(dynamic).length > MAX_DYNAMIC_META) throw invalid(`a node keeps at most ${MAX_DYNAMIC_META} dynamic metadata keys`);
    const merged: Record<string, string> = { ...statics };
    for (const [key, value] of Object.entries(dynamic)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    const updated: Node = { ...node, Meta: merged, MetaStatic: statics, MetaDynamic: dynamic, ModifyIndex: state.index };
    state.nodes.put(updated);
    return nodeMetaOf(updated);
  }, "NodeRegister");
  await createNodeEvals(context, nodeId, index);
  return result;
}
