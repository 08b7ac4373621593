/**
 * `structs.Node` and `structs.NodeListStub` of the reference (1.9). The node's JSON ends with the
 * `Drain` its `MarshalJSON` adds; the stub leaves out `Attributes`, `NodeResources` and
 * `ReservedResources` when empty.
 *
 * @module
 */
import { field, map, ptr, slice, struct, untyped } from "./declare.js";
import { NODE_RESERVED_RESOURCES, NODE_RESOURCES } from "./resources.js";
import { CLIENT_HOST_VOLUME_CONFIG } from "./host-volume.js";

/** A node's statuses in the agent. */
export const NODE_STATUSES = ["initializing", "ready", "down", "disconnected"] as const;
/** Whether a node takes new allocations. */
export const NODE_ELIGIBILITIES = ["eligible", "ineligible"] as const;

const ADDRESS = field("Address", "string", "the node's address", { row: "kept" });
const VERSION = field("Version", "string", "its agent's version", { row: "kept" });

/** `structs.NodeListStub`: the item of `GET /v1/nodes`. */
export const NODE_LIST_STUB = struct("structs.NodeListStub", "A node as the node list shows it.", [
  ADDRESS,
  field("ID", "string", "the node's ID"),
  field("Attributes", map("string"), "its OS name (with ?os=true)", { omitempty: true }),
  field("Datacenter", "string", "its datacenter"),
  field("Name", "string", "its name"),
  field("NodePool", "string", "its node pool"),
  field("NodeClass", "string", "its class"),
  VERSION,
  field("Drain", "bool", "it is draining"),
  field("SchedulingEligibility", "string", "eligible or ineligible for new allocations"),
  field("Status", "string", "initializing, ready, down or disconnected"),
  field("StatusDescription", "string", "why it has its status"),
  field("Drivers", map(untyped("*DriverInfo")), "its task drivers"),
  field("HostVolumes", untyped("map[string]*ClientHostVolumeConfig"), "its host volumes"),
  field("NodeResources", ptr(NODE_RESOURCES), "what it offers (with ?resources=true)", { omitempty: true }),
  field("ReservedResources", ptr(NODE_RESERVED_RESOURCES), "what it keeps back (with ?resources=true)", { omitempty: true }),
  field("LastDrain", untyped("*DrainMetadata"), "its last drain"),
  field("CreateIndex", "index", "the index it was created at"),
  field("ModifyIndex", "index", "the index it last changed at"),
]);

/** `structs.Node`, sanitized as the reference sends it, with the trailing `Drain` of its JSON. */
export const NODE = struct(
  "structs.Node",
  "A client node that runs allocations.",
  [
    field("ID", "string", "the node's ID", { row: "kept" }),
    field("SecretID", "string", "its secret (always empty when read)"),
    field("Datacenter", "string", "its datacenter", { row: "kept" }),
    field("Name", "string", "its name", { row: "kept" }),
    field("CgroupParent", "string", "the cgroup its tasks run under"),
    field("HTTPAddr", "string", "its agent's HTTP address"),
    field("TLSEnabled", "bool", "its agent serves TLS"),
    field("Attributes", map("string"), "what it found of its machine: kernel, CPU, drivers…", { row: "kept" }),
    field("NodeResources", ptr(NODE_RESOURCES), "what it offers, as its client fingerprinted it", { row: "optional" }),
    field("ReservedResources", ptr(NODE_RESERVED_RESOURCES), "what it keeps back from tasks", { row: "optional" }),
    field("Resources", untyped("*Resources"), "deprecated: NodeResources"),
    field("Reserved", untyped("*Resources"), "deprecated: ReservedResources"),
    field("Links", map("string"), "links to other systems' records of it"),
    field("Meta", map("string"), "its metadata", { row: "kept" }),
    field("NodeClass", "string", "its class", { row: "kept" }),
    field("NodePool", "string", "its node pool", { row: "kept" }),
    field("ComputedClass", "string", "the class its attributes compute to"),
    field("DrainStrategy", untyped("*DrainStrategy"), "its drain, while it drains", { row: "optional" }),
    field("SchedulingEligibility", "string", "eligible or ineligible for new allocations", { row: "kept", oneOf: NODE_ELIGIBILITIES }),
    field("Status", "string", "initializing, ready, down or disconnected", { row: "kept", oneOf: NODE_STATUSES }),
    field("StatusDescription", "string", "why it has its status", { row: "kept" }),
    field("StatusUpdatedAt", "int", "when its status last changed, in seconds since the epoch", { row: "optional" }),
    field("Events", slice(untyped("*NodeEvent")), "what happened to it: its registration first", { row: "optional" }),
    field("Drivers", map(untyped("*DriverInfo")), "its task drivers: whether each is detected and healthy", { row: "optional" }),
    field("CSIControllerPlugins", untyped("map[string]*CSIInfo"), "its CSI controller plugins"),
    field("CSINodePlugins", untyped("map[string]*CSIInfo"), "its CSI node plugins"),
    field("HostVolumes", map(ptr(CLIENT_HOST_VOLUME_CONFIG)), "its host volumes by name: static ones, and dynamic ones once ready", { row: "optional" }),
    field("HostNetworks", untyped("map[string]*ClientHostNetworkConfig"), "its host networks"),
    field("LastDrain", untyped("*DrainMetadata"), "its last drain", { row: "optional" }),
    field("LastMissedHeartbeatIndex", "index", "the index it last missed a heartbeat at"),
    field("LastAllocUpdateIndex", "index", "the index its allocations were last updated at"),
    field("CreateIndex", "index", "the index it was created at", { row: "kept" }),
    field("ModifyIndex", "index", "the index it last changed at", { row: "kept" }),
    field("Drain", "bool", "it is draining (added by its JSON)", { row: "kept" }),
  ],
  {
    agentFields: [
      ADDRESS,
      VERSION,
      field("MetaStatic", map("string"), "the metadata its client was configured with, once dynamic metadata was applied", { row: "optional" }),
      field("MetaDynamic", map(untyped("*string")), "the dynamic metadata applied through /v1/client/metadata (null removes a key)", { row: "optional" }),
    ],
  },
);
