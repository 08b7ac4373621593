/**
 * `structs.ServiceRegistration` of the reference (`nomad/structs/service_registration.go`): one
 * instance of a native (`provider = "nomad"`) service, as an allocation's client registers it.
 * The agent's rows are this struct, written as it is (no JSON tags: Go's field names).
 *
 * @module
 */
import { field, slice, struct } from "./declare.js";

/** `structs.ServiceRegistration`. */
export const SERVICE_REGISTRATION = struct("structs.ServiceRegistration", "One instance of a native service, as an allocation's client registered it.", [
  field("ID", "string", "`_nomad-task-<alloc>-<task or group-<group>>-<service>-<port label>`", { row: "kept" }),
  field("ServiceName", "string", "the service's name", { row: "kept" }),
  field("Namespace", "string", "the namespace of its job", { row: "kept" }),
  field("NodeID", "string", "the node its allocation runs on", { row: "kept" }),
  field("Datacenter", "string", "that node's datacenter", { row: "kept" }),
  field("JobID", "string", "its job's ID", { row: "kept" }),
  field("AllocID", "string", "its allocation's ID", { row: "kept" }),
  field("Tags", slice("string"), "its tags (its canary tags while its allocation is a canary)", { row: "nullable" }),
  field("Address", "string", "the address it is reached at", { row: "kept" }),
  field("Port", "int", "the port it is reached at (0: none)", { row: "kept" }),
  field("CreateIndex", "index", "the index it was registered at", { row: "kept" }),
  field("ModifyIndex", "index", "the index it last changed at", { row: "kept" }),
]);
