/**
 * The host volumes of the reference (`nomad/structs/host_volumes.go`, `structs.go`): a dynamic
 * host volume (`structs.HostVolume`), its list stub, a node's host volume as its client reports it
 * (`structs.ClientHostVolumeConfig`, static or dynamic), and a sticky volume's claim by a task
 * group (`structs.TaskGroupHostVolumeClaim`). The agent's rows are these structs, written as they are.
 *
 * @module
 */
import { field, map, slice, struct, untyped } from "./declare.js";

/** The states of a dynamic host volume (`HostVolumeState`): the unknown `""` is never written. */
export const HOST_VOLUME_STATES = ["pending", "ready", "unavailable"] as const;

/** `structs.HostVolumeCapability`: one way the volume may be attached and accessed. */
export const HOST_VOLUME_CAPABILITY = struct("structs.HostVolumeCapability", "One way a host volume may be attached and accessed.", [
  field("AttachmentMode", "string", "file-system or block-device"),
  field("AccessMode", "string", "single-node-reader-only, single-node-writer, single-node-single-writer or single-node-multi-writer"),
]);

/** `structs.HostVolume`, without the `Allocations` the reference adds on a read (see `scheduler/host-volumes.ts`). */
export const HOST_VOLUME = struct("structs.HostVolume", "A dynamic host volume: created by a plugin, or registered, on one node.", [
  field("Namespace", "string", "its namespace", { row: "kept" }),
  field("ID", "string", "its ID (a UUID)", { row: "kept" }),
  field("Name", "string", "its name: a group's volume block names it as its source", { row: "kept" }),
  field("PluginID", "string", "the plugin that created it (`default` when not named)", { row: "kept" }),
  field("NodePool", "string", "the pool of its node", { row: "kept" }),
  field("NodeID", "string", "its node", { row: "kept" }),
  field("Constraints", slice(untyped("*Constraint")), "what its node must meet", { omitempty: true }),
  field("RequestedCapacityMinBytes", "int", "the least capacity asked for"),
  field("RequestedCapacityMaxBytes", "int", "the most capacity asked for"),
  field("CapacityBytes", "int", "the capacity its plugin provided"),
  field("RequestedCapabilities", slice(HOST_VOLUME_CAPABILITY), "the ways it may be attached and accessed"),
  field("Parameters", map("string"), "the plugin's parameters", { omitempty: true }),
  field("HostPath", "string", "where it is on its node"),
  field("State", "string", "pending, ready or unavailable", { row: "kept", oneOf: HOST_VOLUME_STATES }),
  field("CreateIndex", "index", "the index it was created at", { row: "kept" }),
  field("CreateTime", "nanotime", "when it was created, in nanoseconds since the epoch", { row: "kept" }),
  field("ModifyIndex", "index", "the index it last changed at", { row: "kept" }),
  field("ModifyTime", "nanotime", "when it last changed, in nanoseconds since the epoch", { row: "kept" }),
  field("Allocations", slice(untyped("*AllocListStub")), "the allocations that claim it (on a read)", { omitempty: true }),
]);

/** `structs.HostVolumeStub`: the item of `GET /v1/volumes?type=host`. */
export const HOST_VOLUME_STUB = struct("structs.HostVolumeStub", "A dynamic host volume as the volume list shows it.", [
  field("Namespace", "string", "its namespace"),
  field("ID", "string", "its ID"),
  field("Name", "string", "its name"),
  field("PluginID", "string", "the plugin that created it"),
  field("NodePool", "string", "the pool of its node"),
  field("NodeID", "string", "its node"),
  field("CapacityBytes", "int", "the capacity its plugin provided"),
  field("State", "string", "pending, ready or unavailable"),
  field("CreateIndex", "index", "the index it was created at"),
  field("CreateTime", "nanotime", "when it was created"),
  field("ModifyIndex", "index", "the index it last changed at"),
  field("ModifyTime", "nanotime", "when it last changed"),
]);

/** `structs.ClientHostVolumeConfig`: a host volume of a node, by name in its `HostVolumes` (`ID` empty for a static one). */
export const CLIENT_HOST_VOLUME_CONFIG = struct("structs.ClientHostVolumeConfig", "A host volume of a node, as its client reports it.", [
  field("Name", "string", "its name"),
  field("Path", "string", "where it is on the node"),
  field("ReadOnly", "bool", "it may only be mounted read-only"),
  field("ID", "string", "the dynamic volume's ID (empty for a static one)"),
]);

/** `structs.TaskGroupHostVolumeClaim`: a task group's claim of a sticky dynamic host volume, kept across its allocations' replacements. */
export const TASK_GROUP_HOST_VOLUME_CLAIM = struct("structs.TaskGroupHostVolumeClaim", "A task group's claim of a sticky host volume.", [
  field("ID", "string", "its ID", { row: "kept" }),
  field("Namespace", "string", "its job's namespace", { row: "kept" }),
  field("JobID", "string", "its job", { row: "kept" }),
  field("TaskGroupName", "string", "its task group", { row: "kept" }),
  field("AllocID", "string", "the allocation it was made for", { row: "kept" }),
  field("VolumeID", "string", "the volume claimed", { row: "kept" }),
  field("VolumeName", "string", "its name", { row: "kept" }),
  field("CreateIndex", "index", "the index it was made at", { row: "kept" }),
  field("ModifyIndex", "index", "the index it last changed at", { row: "kept" }),
]);
