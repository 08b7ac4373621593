/**
 * Dynamic host volumes, as the reference's server and client make them
 * (`nomad/host_volume_endpoint.go`, `nomad/structs/host_volumes.go`,
 * `client/hostvolumemanager/`): a volume created (`HostVolume.Create`: placed on a node by
 * {@link placeHostVolume}, then made by the node's plugin) or registered (`HostVolume.Register`: a
 * path that exists on a named node) is written `pending`; the simulated client then reports it in
 * its node's `HostVolumes` and the volume is `ready` ({@link HOST_VOLUME_READY_MS} later, on the
 * agent's clock: {@link readyHostVolumes}). A volume in use by an allocation is not deleted.
 *
 * The volumes a group's `volume` blocks ask for decide where its allocations go
 * ({@link HostVolumeChecker}, the reference's `scheduler/feasible` `HostVolumeChecker`), and a
 * sticky volume's claim by the group is kept across its allocations ({@link claimStickyVolumes}).
 *
 * @module
 */
import { compareStrings } from "../../go/order.js";
import { conflict, invalid, missing } from "../base/errors.js";
import { newUuid } from "../base/ids.js";
import type { Allocation, ClientHostVolumeConfig, HostVolume, HostVolumeClaim, Job, JsonObject, Node, TaskGroup } from "../state/model.js";
import { nodePoolOf } from "../state/operator.js";
import { namespacedKey, type Tables, type Transaction } from "../state/store.js";
import { ConstraintCache, constraintsOf, meetsConstraint, OPERANDS, type Constraint } from "./feasible.js";
import type { SchedulerContext } from "./state.js";

/** The plugin a created volume names when it names none (`structs.DefaultHostVolumePlugin`). */
export const DEFAULT_HOST_VOLUME_PLUGIN = "default";

/** The plugin every client has built in (`hostvolumemanager.HostVolumePluginMkdirID`), fingerprinted as `plugins.host_volume.mkdir.version`. */
export const MKDIR_PLUGIN = "mkdir";

/** The built-in plugin's version (`HostVolumePluginMkdirVersion`). */
export const MKDIR_PLUGIN_VERSION = "0.0.1";

/** Where a simulated client's plugins make volumes: `<data_dir>/host_volumes`, the reference client's default, with the data directory of its packages. */
export const HOST_VOLUMES_DIR = "/opt/nomad/data/host_volumes";

/**
 * How long after a volume is written its client reports it in its node's fingerprint, making it
 * `ready`: the reference's client updates its node in a batch after the plugin ran.
 */
export const HOST_VOLUME_READY_MS = 1000;

/** What a node is filtered for when it lacks a group's host volumes (`FilterConstraintHostVolumes`). */
export const FILTER_HOST_VOLUMES = "missing compatible host volumes";

/** The attachment modes (`HostVolumeAttachmentMode*`). */
const ATTACHMENT_MODES = new Set(["block-device", "file-system"]);
/** The access modes (`HostVolumeAccessMode*`). */
const ACCESS_MODES = new Set(["single-node-reader-only", "single-node-writer", "single-node-single-writer", "single-node-multi-writer"]);

/** A UUID as `helper.IsUUID` reads it. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** What a volume's writer asks for: create (a plugin makes it) or register (it exists on a named node). */
export type HostVolumeWriteKind = "create" | "register";

/** A host volume as a request's body gives it (`api.HostVolume`, decoded). */
export interface HostVolumeInput {
  readonly Namespace: string;
  readonly ID: string;
  readonly Name: string;
  readonly PluginID: string;
  readonly NodePool: string;
  readonly NodeID: string;
  readonly Constraints: readonly Constraint[];
  readonly RequestedCapacityMinBytes: number;
  readonly RequestedCapacityMaxBytes: number;
  readonly CapacityBytes: number;
  readonly RequestedCapabilities: readonly { readonly AttachmentMode: string; readonly AccessMode: string }[];
  readonly Parameters: { readonly [key: string]: string } | null;
  readonly HostPath: string;
}

/** What a create or register answers (`HostVolumeCreateResponse`, `HostVolumeRegisterResponse`). */
export interface HostVolumeWriteResponse {
  readonly Volume: HostVolume;
  readonly Warnings: string;
  readonly Index: number;
}

/** `HostVolume.Validate`: each mistake of the volume, in the reference's words. */
function validationErrors(volume: HostVolumeInput): string[] {
  const errors: string[] = [];
  if (volume.ID !== "" && !UUID.test(volume.ID)) errors.push(`invalid ID ${JSON.stringify(volume.ID)}`);
  if (volume.Name === "") errors.push("missing name");
  if (volume.RequestedCapacityMaxBytes < volume.RequestedCapacityMinBytes) {
    errors.push(`capacity_max (${volume.RequestedCapacityMaxBytes}) must be larger than capacity_min (${volume.RequestedCapacityMinBytes})`);
  }
  for (const capability of volume.RequestedCapabilities) {
    if (!ATTACHMENT_MODES.has(capability.AttachmentMode)) errors.push(`invalid attachment mode: ${JSON.stringify(capability.AttachmentMode)}`);
    else if (!ACCESS_MODES.has(capability.AccessMode)) errors.push(`invalid access mode: ${JSON.stringify(capability.AccessMode)}`);
  }
  for (const constraint of volume.Constraints) {
    if (constraint.Operand === OPERANDS.distinctHosts || constraint.Operand === OPERANDS.distinctProperty) {
      errors.push(`invalid constraint ${constraint.Operand}: host volumes of the same name are always on distinct hosts`);
    }
  }
  return errors;
}

/** `helper.FlattenMultierror`: one error as itself, several as go-multierror lists them. */
function flatten(errors: readonly string[]): string {
  if (errors.length === 1) return errors[0]!;
  return `${errors.length} errors occurred:\n${errors.map((each) => `\t* ${each}`).join("\n")}\n\n`;
}

/** The volume's node: an infeasible node, or none, is the reference's error (`placeHostVolume`). */
function placementConstraints(volume: HostVolumeInput, pluginId: string): Constraint[] {
  // The node must have the plugin (`${attr.plugins.host_volume.<id>.version}` is set), and meet the volume's constraints.
  return [{ LTarget: `\${attr.plugins.host_volume.${pluginId}.version}`, RTarget: "", Operand: OPERANDS.isSet }, ...volume.Constraints];
}

/**
 * Whether a node has a host volume of that name, static or dynamic (`NodeHasHostVolume`), counting
 * the dynamic volumes not yet ready: the nodes of the name's dynamic volumes are found in one scan,
 * so that placing is linear in the nodes and the volumes, not their product.
 */
function nodesWithVolume(tables: Pick<Tables, "host_volumes">, name: string): (node: Node) => boolean {
  const dynamic = new Set<string>();
  for (const volume of tables.host_volumes.values()) if (volume.Name === name) dynamic.add(volume.NodeID);
  return (node) => node.HostVolumes?.[name] !== undefined || dynamic.has(node.ID);
}

/**
 * `placeHostVolume`: the named node when the volume names one (it must meet the constraints), or
 * else the first node (by ID) of the volume's pool, or of any pool, that has no volume of that
 * name and meets them; the reference's error when none does.
 */
export function placeHostVolume(tables: Pick<Tables, "nodes" | "host_volumes">, volume: HostVolumeInput, pluginId: string): Node {
  const cache = new ConstraintCache();
  const constraints = placementConstraints(volume, pluginId);
  const feasible = (node: Node) => constraints.every((constraint) => meetsConstraint(constraint, node, cache));
  if (volume.NodeID !== "") {
    const node = tables.nodes.get(volume.NodeID);
    if (node === undefined) throw invalid(`could not place volume ${JSON.stringify(volume.Name)}: no such node ${volume.NodeID}`);
    if (!feasible(node)) throw invalid(`could not place volume ${JSON.stringify(volume.Name)}: node ${volume.NodeID} is not feasible for volume`);
    return node;
  }
  const hasVolume = nodesWithVolume(tables, volume.Name);
  let existing = 0;
  let infeasible = 0;
  const nodes = [...tables.nodes.values()].sort((a, b) => compareStrings(a.ID, b.ID));
  for (const node of nodes) {
    if (volume.NodePool !== "" && node.NodePool !== volume.NodePool) continue;
    if (hasVolume(node)) {
      existing++;
      continue;
    }
    if (!feasible(node)) {
      infeasible++;
      continue;
    }
    return node;
  }
  throw invalid(`could not place volume ${JSON.stringify(volume.Name)}: no node meets constraints: ${existing} nodes had existing volume, 0 nodes filtered by node pool governance, ${infeasible} nodes were infeasible`);
}

/** The allocations that use the volume: live on its node, their group asking for it (`HostVolumeByID` with its allocations). */
export function allocationsUsing(tables: Pick<Tables, "allocs" | "jobs" | "job_versions">, volume: HostVolume): Allocation[] {
  const using: Allocation[] = [];
  for (const alloc of tables.allocs.values()) {
    if (alloc.NodeID !== volume.NodeID || clientTerminal(alloc)) continue;
    const group = groupOf(tables, alloc);
    if (group !== undefined && volumeRequests(group).some((request) => matchesRequestSource(volume, request, alloc.Name))) using.push(alloc);
  }
  return using.sort((a, b) => a.CreateIndex - b.CreateIndex || compareStrings(a.ID, b.ID));
}

/** Whether the client has finished with the allocation (`ClientTerminalStatus`). */
function clientTerminal(alloc: Allocation): boolean {
  return alloc.ClientStatus === "complete" || alloc.ClientStatus === "failed" || alloc.ClientStatus === "lost";
}

/** Whether the server or the client has finished with the allocation (`TerminalStatus`). */
function terminal(alloc: Allocation): boolean {
  return alloc.DesiredStatus === "stop" || alloc.DesiredStatus === "evict" || clientTerminal(alloc);
}

/** The task group of an allocation, from its job's version. */
function groupOf(tables: Pick<Tables, "jobs" | "job_versions">, alloc: Allocation): TaskGroup | undefined {
  const key = namespacedKey(alloc.Namespace, alloc.JobID);
  const job = tables.job_versions.get(`${key}\u0000${alloc.JobVersion}`)?.Job ?? tables.jobs.get(key);
  return (job?.TaskGroups as TaskGroup[] | undefined)?.find((group) => group.Name === alloc.TaskGroup);
}

/** A group's `volume` block (`structs.VolumeRequest`), as the checker reads it. */
export interface VolumeRequest {
  readonly Type: string;
  readonly Source: string;
  readonly ReadOnly: boolean;
  readonly Sticky: boolean;
  readonly PerAlloc: boolean;
  readonly AccessMode: string;
  readonly AttachmentMode: string;
}

/** The host volume requests of a group's `Volumes`, by name (CSI ones left out). */
export function volumeRequests(group: TaskGroup): VolumeRequest[] {
  const volumes = (group as JsonObject).Volumes;
  if (typeof volumes !== "object" || volumes === null || Array.isArray(volumes)) return [];
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return Object.keys(volumes as JsonObject)
    .sort(compareStrings)
    .map((name) => (volumes as Record<string, JsonObject | null>)[name])
    .filter((request): request is JsonObject => typeof request === "object" && request !== null && request.Type === "host")
    .map((request) => ({
      Type: "host",
      Source: text(request.Source),
      ReadOnly: request.ReadOnly === true,
      Sticky: request.Sticky === true,
      PerAlloc: request.PerAlloc === true,
      AccessMode: text(request.AccessMode),
      AttachmentMode: text(request.AttachmentMode),
    }));
}

/** `AllocSuffix`: the `[<index>]` of an allocation's name. */
function allocSuffix(name: string): string {
  const at = name.lastIndexOf("[");
  return at === -1 ? "" : name.slice(at);
}

/** The volume name a request asks of an allocation: its source, with the allocation's index for `per_alloc`. */
function sourceFor(request: VolumeRequest, allocName: string | undefined): string {
  return request.PerAlloc && allocName !== undefined ? `${request.Source}${allocSuffix(allocName)}` : request.Source;
}

/** `HostVolume.MatchesRequestSource`. */
function matchesRequestSource(volume: Pick<HostVolume, "Name">, request: VolumeRequest, allocName: string | undefined): boolean {
  return request.Type === "host" && volume.Name === sourceFor(request, allocName);
}

/** What the checker reads of the state besides the node. */
export interface HostVolumeView {
  /** A dynamic volume by namespace and ID. */
  volume(namespace: string, id: string): HostVolume | undefined;
  /** The sticky claims of a job. */
  claims(namespace: string, jobId: string): readonly HostVolumeClaim[];
  /** An allocation by ID. */
  alloc(id: string): Allocation | undefined;
  /** The task group an allocation runs. */
  group(alloc: Allocation): TaskGroup | undefined;
}

/** The {@link HostVolumeView} of the state's tables. */
export function hostVolumeView(tables: Pick<Tables, "host_volumes" | "host_volume_claims" | "allocs" | "jobs" | "job_versions">): HostVolumeView {
  return {
    volume: (namespace, id) => tables.host_volumes.get(namespacedKey(namespace, id)),
    claims: (namespace, jobId) => [...tables.host_volume_claims.group(namespacedKey(namespace, jobId)).values()],
    alloc: (id) => tables.allocs.get(id),
    group: (alloc) => groupOf(tables, alloc),
  };
}

/**
 * The reference's `HostVolumeChecker` for one allocation of a group: a node is feasible when it
 * has every host volume the group asks for (`per_alloc` sources suffixed with the allocation's
 * index); a dynamic one must be ready, in the job's namespace, offer the asked capability and
 * still be free for its access mode; a sticky one must be the volume the group claimed, while a
 * claim is unmet; a static one is never sticky, and read-only only for read-only requests.
 */
export class HostVolumeChecker {
  readonly #requests: readonly VolumeRequest[];
  #unmetClaims: HostVolumeClaim[];

  /**
   * @param proposed - the allocations on a node, the plan's own placements among them (`ProposedAllocs`).
   */
  constructor(
    private readonly view: HostVolumeView,
    private readonly job: Pick<Job, "Namespace" | "ID">,
    group: TaskGroup,
    allocName: string | undefined,
    private readonly proposed: (nodeId: string) => readonly Allocation[],
  ) {
    this.#requests = volumeRequests(group).map((request) => ({ ...request, Source: sourceFor(request, allocName), PerAlloc: false }));
    // The job's sticky claims not yet met by an allocation there (`SetVolumes`).
    this.#unmetClaims = this.#requests.length === 0 ? [] : view.claims(job.Namespace, job.ID).filter((claim) => {
      const alloc = view.alloc(claim.AllocID);
      const volume = view.volume(job.Namespace, claim.VolumeID);
      if (alloc === undefined || volume === undefined) return false;
      return !proposed(volume.NodeID).some((each) => !terminal(each) && (each.ID === claim.AllocID || (each.Namespace === claim.Namespace && each.JobID === claim.JobID && each.TaskGroup === claim.TaskGroupName && each.NodeID === alloc.NodeID && volume.ID === claim.VolumeID)));
    });
  }

  /** Whether the group asks for no host volume (the fast path). */
  get empty(): boolean {
    return this.#requests.length === 0;
  }

  /** Whether the node has the volumes (`hasVolumes`). */
  feasible(node: Node): boolean {
    return this.#requests.every((request) => this.#feasibleFor(node, request));
  }

  /** `nodeIsFeasibleForRequest`. */
  #feasibleFor(node: Node, request: VolumeRequest): boolean {
    const config: ClientHostVolumeConfig | undefined = node.HostVolumes?.[request.Source];
    if (config === undefined) return false;
    if (config.ID === "") {
      // A static volume: never sticky; one configured read-only takes only read-only requests.
      if (request.Sticky) return false;
      return request.ReadOnly || !config.ReadOnly;
    }
    const volume = this.view.volume(this.job.Namespace, config.ID);
    if (volume === undefined || !this.#available(volume, request, node)) return false;
    if (!request.Sticky || this.#unmetClaims.length === 0) return true;
    if (!this.#unmetClaims.some((claim) => claim.VolumeID === volume.ID)) return false;
    // The claim is met here: scaling up may place more of the group on this node.
    this.#unmetClaims = this.#unmetClaims.filter((claim) => claim.VolumeID !== volume.ID);
    return true;
  }

  /** `hostVolumeIsAvailable`: ready, with the asked capability, free for its access mode. */
  #available(volume: HostVolume, request: VolumeRequest, node: Node): boolean {
    if (volume.State !== "ready") return false;
    // The default capability follows the read-only flag, decided here as the reference's scheduler does.
    const access = request.AccessMode !== "" ? request.AccessMode : request.ReadOnly ? "single-node-reader-only" : "single-node-writer";
    const attachment = request.AttachmentMode !== "" ? request.AttachmentMode : "file-system";
    if (!(volume.RequestedCapabilities ?? []).some((capability) => capability.AccessMode === access && capability.AttachmentMode === attachment)) return false;
    switch (access) {
      case "single-node-reader-only":
        return request.ReadOnly;
      case "single-node-writer":
        return !request.ReadOnly;
      case "single-node-single-writer": {
        // No other group on the node may write to it.
        const seen = new Set<string>();
        for (const alloc of this.proposed(node.ID)) {
          const key = `${alloc.Namespace}\u0000${alloc.JobID}\u0000${alloc.TaskGroup}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const group = this.view.group(alloc);
          if (group === undefined) return false;
          if (volumeRequests(group).some((each) => matchesRequestSource(volume, each, alloc.Name) && !each.ReadOnly)) return false;
        }
        return true;
      }
      default:
        return true;
    }
  }
}

/**
 * Writes the sticky claims of newly placed allocations (`updateStickyVolumeClaimsFromAlloc`): for
 * each sticky request, a claim of the node's volume of that name, unless the group has one for it
 * already; a claim whose allocation ended is taken over by its replacement.
 */
export function claimStickyVolumes(state: Transaction<"host_volume_claims"> & { readonly allocs: Pick<Tables["allocs"], "get"> }, tables: Pick<Tables, "nodes">, job: Job, allocs: readonly Allocation[]): void {
  const groups = new Map((job.TaskGroups as TaskGroup[]).map((group) => [group.Name, group]));
  for (const alloc of allocs) {
    const group = groups.get(alloc.TaskGroup);
    if (group === undefined) continue;
    const sticky = volumeRequests(group).filter((request) => request.Sticky);
    if (sticky.length === 0) continue;
    const node = tables.nodes.get(alloc.NodeID);
    for (const request of sticky) {
      const config = node?.HostVolumes?.[request.Source];
      if (config === undefined || config.ID === "") continue;
      const existing = [...state.host_volume_claims.group(namespacedKey(alloc.Namespace, alloc.JobID)).values()].find((claim) => claim.TaskGroupName === alloc.TaskGroup && claim.VolumeID === config.ID);
      if (existing?.AllocID === alloc.ID) continue;
      const previous = existing === undefined ? undefined : state.allocs.get(existing.AllocID);
      // A claim whose allocation still runs stays its own; one whose allocation ended passes to the replacement.
      if (existing !== undefined && previous !== undefined && !terminal(previous)) continue;
      state.host_volume_claims.put({
        ID: existing?.ID ?? newUuid(),
        Namespace: alloc.Namespace,
        JobID: alloc.JobID,
        TaskGroupName: alloc.TaskGroup,
        AllocID: alloc.ID,
        VolumeID: config.ID,
        VolumeName: request.Source,
        CreateIndex: existing?.CreateIndex ?? state.index,
        ModifyIndex: state.index,
      });
    }
  }
}

/**
 * Creates or registers a volume (`HostVolume.Create`, `HostVolume.Register`) in `namespace` (the
 * volume's own, or the request's): checked (`Validate`, the namespace, an update's volume,
 * `ValidateUpdate`), given its defaults (`CanonicalizeForCreate`, `…ForRegister`), checked
 * against the state (its node and pool), placed (create), then written `pending`.
 */
export async function writeHostVolume(context: SchedulerContext, kind: HostVolumeWriteKind, input: HostVolumeInput): Promise<HostVolumeWriteResponse> {
  if (kind === "register") {
    if (input.NodeID === "") throw invalid("cannot register volume: node ID is required");
    if (input.HostPath === "") throw invalid("cannot register volume: host path is required");
  }
  const errors = validationErrors(input);
  if (errors.length > 0) throw invalid(`volume validation failed: ${flatten(errors)}`);
  const { store, clock } = context;
  const { index, result } = await store.write(["host_volumes"], (state) => {
    const tables = store.tables;
    if (tables.namespaces.get(input.Namespace) === undefined) throw invalid(`volume validation failed: no such namespace ${JSON.stringify(input.Namespace)}`);
    let existing: HostVolume | undefined;
    if (input.ID !== "") {
      existing = state.host_volumes.get(namespacedKey(input.Namespace, input.ID));
      if (existing === undefined) throw missing(`cannot update volume ${JSON.stringify(input.ID)}: volume does not exist`);
      const update = updateErrors(tables, input, existing);
      if (update.length > 0) throw conflict(`validating volume ${JSON.stringify(input.ID)} update failed: ${flatten(update)}`);
    }
    const now = clock.nowNs();
    const pluginId = input.PluginID !== "" ? input.PluginID : (existing?.PluginID ?? (kind === "create" ? DEFAULT_HOST_VOLUME_PLUGIN : ""));
    const capabilities = input.RequestedCapabilities.length > 0 || existing !== undefined ? input.RequestedCapabilities : [{ AttachmentMode: "file-system", AccessMode: "single-node-writer" }];
    let nodeId = existing?.NodeID ?? input.NodeID;
    let nodePool = input.NodePool !== "" ? input.NodePool : (existing?.NodePool ?? "");
    // `validateVolumeForState`: the node and the pool exist, and the node is in the pool.
    if (nodeId !== "") {
      const node = tables.nodes.get(nodeId);
      if (node === undefined) throw invalid(`validating volume ${JSON.stringify(kind === "create" ? input.Name : input.ID)} against state failed: node ${JSON.stringify(nodeId)} does not exist`);
      if (nodePool !== "" && nodePoolOf(tables, nodePool) !== undefined && node.NodePool !== nodePool) {
        throw invalid(`validating volume ${JSON.stringify(kind === "create" ? input.Name : input.ID)} against state failed: node ID ${JSON.stringify(nodeId)} is not in pool ${JSON.stringify(nodePool)}`);
      }
    }
    if (nodePool !== "" && nodePoolOf(tables, nodePool) === undefined) throw invalid(`validating volume ${JSON.stringify(kind === "create" ? input.Name : input.ID)} against state failed: node pool ${JSON.stringify(nodePool)} does not exist`);
    if (kind === "create" && existing === undefined) {
      const node = placeHostVolume({ nodes: tables.nodes, host_volumes: state.host_volumes }, { ...input, NodePool: nodePool }, pluginId);
      nodeId = node.ID;
    }
    const node = tables.nodes.get(nodeId);
    nodePool = node?.NodePool ?? nodePool;
    const id = existing?.ID ?? newUuid();
    // The simulated plugin makes a directory named by the volume's ID (`HostVolumePluginMkdir.Create`), of no set size.
    const hostPath = kind === "register" ? input.HostPath : (existing?.HostPath ?? `${HOST_VOLUMES_DIR}/${id}`);
    const volume: HostVolume = {
      Namespace: input.Namespace,
      ID: id,
      Name: input.Name,
      PluginID: pluginId,
      NodePool: nodePool,
      NodeID: nodeId,
      Constraints: existing?.Constraints ?? (input.Constraints.length === 0 ? null : input.Constraints),
      RequestedCapacityMinBytes: input.RequestedCapacityMinBytes,
      RequestedCapacityMaxBytes: input.RequestedCapacityMaxBytes,
      CapacityBytes: kind === "register" ? input.CapacityBytes : (existing?.CapacityBytes ?? 0),
      RequestedCapabilities: capabilities.map((capability) => ({ AttachmentMode: capability.AttachmentMode, AccessMode: capability.AccessMode })),
      Parameters: input.Parameters,
      HostPath: hostPath,
      // Reset on any change: the client reports it ready again.
      State: "pending",
      CreateIndex: existing?.CreateIndex ?? state.index,
      CreateTime: existing?.CreateTime ?? now,
      ModifyIndex: state.index,
      ModifyTime: now,
    };
    state.host_volumes.put(volume);
    return volume;
  }, "HostVolumeRegister");
  return { Volume: result, Warnings: "", Index: index };
}

/** `HostVolume.ValidateUpdate`: what an update of an existing volume may not change. */
function updateErrors(tables: Pick<Tables, "allocs" | "jobs" | "job_versions">, input: HostVolumeInput, existing: HostVolume): string[] {
  const errors: string[] = [];
  const using = allocationsUsing(tables, existing);
  if (using.length > 0) errors.push(`cannot update a volume in use: claimed by allocs (${using.map((alloc) => alloc.ID).join(", ")})`);
  if (input.NodeID !== "" && input.NodeID !== existing.NodeID) errors.push("node ID cannot be updated");
  if (input.NodePool !== "" && input.NodePool !== existing.NodePool) errors.push("node pool cannot be updated");
  if (input.RequestedCapacityMaxBytes > 0 && input.RequestedCapacityMaxBytes < existing.CapacityBytes) {
    errors.push(`capacity_max (${input.RequestedCapacityMaxBytes}) cannot be less than existing provisioned capacity (${existing.CapacityBytes})`);
  }
  return errors;
}

/**
 * Deletes a volume (`HostVolume.Delete`): refused while an allocation uses it; its node forgets
 * it in the same write (the reference's client removes it from its fingerprint).
 */
export async function deleteHostVolume(context: SchedulerContext, namespace: string, id: string): Promise<number> {
  const { store } = context;
  const { index } = await store.write(["host_volumes", "nodes"], (state) => {
    const volume = state.host_volumes.get(namespacedKey(namespace, id));
    if (volume === undefined) throw missing(`no such volume: ${id}`);
    const using = allocationsUsing(store.tables, volume);
    if (using.length > 0) throw conflict(`volume ${id} in use by allocations: [${using.map((alloc) => alloc.ID).join(" ")}]`);
    state.host_volumes.delete(namespacedKey(namespace, id));
    const node = state.nodes.get(volume.NodeID);
    if (node?.HostVolumes?.[volume.Name]?.ID === volume.ID) {
      const { [volume.Name]: _gone, ...rest } = node.HostVolumes;
      state.nodes.put({ ...node, HostVolumes: Object.keys(rest).length === 0 ? null : rest, ModifyIndex: state.index });
    }
  }, "HostVolumeDelete");
  return index;
}

/**
 * The simulated clients report the pending volumes `keys` (`<namespace>\0<id>`): each node's
 * `HostVolumes` gains the volume (`genVolConfig`), and the volume is `ready` (`UpsertHostVolume`
 * on the node's update).
 */
export async function readyHostVolumes(context: SchedulerContext, keys: readonly string[]): Promise<void> {
  const { store } = context;
  if (!keys.some((key) => store.tables.host_volumes.get(key)?.State === "pending")) return;
  await store.write(["host_volumes", "nodes"], (state) => {
    for (const key of keys) {
      const volume = state.host_volumes.get(key);
      if (volume === undefined || volume.State !== "pending") continue;
      const node = state.nodes.get(volume.NodeID);
      if (node === undefined) continue;
      const config: ClientHostVolumeConfig = { Name: volume.Name, Path: volume.HostPath, ReadOnly: false, ID: volume.ID };
      state.nodes.put({ ...node, HostVolumes: { ...(node.HostVolumes ?? {}), [volume.Name]: config }, ModifyIndex: state.index });
      state.host_volumes.put({ ...volume, State: "ready", ModifyIndex: state.index });
    }
  }, "NodeRegister");
}

/** Deletes a sticky claim (`TaskGroupHostVolumeClaim.Delete`) in `namespace`. */
export async function deleteHostVolumeClaim(context: SchedulerContext, namespace: string, id: string): Promise<number> {
  const { index } = await context.store.write(["host_volume_claims"], (state) => {
    const key = namespacedKey(namespace, id);
    if (state.host_volume_claims.get(key) === undefined) throw missing("task group volume claim does not exist");
    state.host_volume_claims.delete(key);
  }, "TaskGroupHostVolumeClaimDelete");
  return index;
}
