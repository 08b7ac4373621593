/**
 * The nodes of a fixture: each entry of its `Nodes` checked ({@link checkNodes}), and the node
 * row it becomes ({@link fixtureNodeRow}), with the defaults of the agent's own simulated nodes
 * for what it does not name.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { describeRefused } from "./snapshot.js";
import { distinct, invalidFixture, knownFields, MAX_FIXTURE_ENTRIES, listAt, oneOf, stringAt, stringMapAt, structAt, UUID } from "./fixture-fields.js";
import { registered } from "../scheduler/state.js";
import { fingerprintResources, reservedResources, SIMULATED_ATTRIBUTES, SIMULATED_NOMAD_VERSION } from "../scheduler/fingerprint.js";
import { overlay } from "../../structs/derive.js";
import { NODE_RESERVED_RESOURCES, NODE_RESOURCES } from "../../structs/resources.js";
import type { ClientHostVolumeConfig, Node, NodeReservedResources, NodeResources } from "../state/model.js";

/** A simulated client node of a fixture; the fixture's nodes replace those the `nodes` option makes. */
export interface FixtureNode {
  /** The node's name, unique in the fixture. */
  readonly Name: string;
  /** A UUID (default: one derived from the name, the same on every start). */
  readonly ID?: string;
  /** Default: the agent's datacenter. */
  readonly Datacenter?: string;
  /** Default `default`. */
  readonly NodePool?: string;
  /** Default empty. */
  readonly NodeClass?: string;
  /** Default `127.0.0.<position + 2>`. */
  readonly Address?: string;
  /** Default `ready`; only ready nodes are placed on. */
  readonly Status?: Node["Status"];
  /** Default empty. */
  readonly StatusDescription?: string;
  /** Default `eligible`. */
  readonly SchedulingEligibility?: Node["SchedulingEligibility"];
  /** Default false. */
  readonly Drain?: boolean;
  /** Default: those of the agent's own simulated nodes (a Linux amd64 node with the docker, exec, raw_exec and mock drivers); a job's tasks run only on nodes with their driver (`driver.<name>` true). */
  readonly Attributes?: Readonly<Record<string, string>>;
  /** Default none. */
  readonly Meta?: Readonly<Record<string, string>>;
  /**
   * What its client found of its machine (`structs.NodeResources`): each field given replaces
   * the simulated client's (see `scheduler/fingerprint.ts`: 4 cores of 2500 MHz, 16 GiB, dynamic
   * ports 20000 to 32000…), the others are the simulated client's.
   */
  readonly NodeResources?: Readonly<Record<string, unknown>>;
  /** What it keeps back from tasks (`structs.NodeReservedResources`), likewise over the simulated client's (the ports 14000 to 14512). */
  readonly ReservedResources?: Readonly<Record<string, unknown>>;
  /**
   * Its static host volumes, by name (the client configuration's `host_volume` blocks): each its
   * `Path` on the node and whether it is `ReadOnly` (default false). Default none.
   */
  readonly HostVolumes?: Readonly<
    Record<
      string,
      {
        /** Where the volume is on the node's file system. */
        readonly Path: string;
        /** Whether allocations may only read it (default false): a group's read-write volume block does not fit it. */
        readonly ReadOnly?: boolean;
      }
    >
  >;
}

/** The fields of a fixture's node. */
const NODE_FIELDS = ["Name", "ID", "Datacenter", "NodePool", "NodeClass", "Address", "Status", "StatusDescription", "SchedulingEligibility", "Drain", "Attributes", "Meta", "NodeResources", "ReservedResources", "HostVolumes"];
const NODE_STATUSES: readonly Node["Status"][] = ["initializing", "ready", "down", "disconnected"];
const ELIGIBILITIES: readonly Node["SchedulingEligibility"][] = ["eligible", "ineligible"];
/** The highest port. */
const MAX_PORT = 65_535;

/** What the agent's own simulated nodes report (`Cluster.seed`), given to a fixture's nodes that name no attributes. */
const DEFAULT_NODE_ATTRIBUTES: Readonly<Record<string, string>> = SIMULATED_ATTRIBUTES;

/** Checks the `Nodes` of a fixture: undefined when it has none (the agent keeps those of its `nodes` option). */
export function checkNodes(value: unknown): FixtureNode[] | undefined {
  if (value === undefined) return undefined;
  const names = new Map<string, string>();
  const ids = new Map<string, string>();
  return listAt(value, "Nodes", "nodes").map((node, i) => {
    const path = `Nodes[${i}]`;
    knownFields(node, NODE_FIELDS, path);
    const name = stringAt(node, "Name", path, true)!;
    distinct(names, name, path, "Name", (first) => `a second node named ${JSON.stringify(name)} (${first})`);
    const id = stringAt(node, "ID", path);
    if (id !== undefined && !UUID.test(id)) throw invalidFixture(`${path}.ID`, `expected a UUID, got ${describeRefused(id)}`);
    distinct(ids, (id ?? nodeId(name)).toLowerCase(), path, "ID", (first) => `the ID of ${first}`);
    for (const field of ["Datacenter", "NodePool", "NodeClass", "Address", "StatusDescription"]) stringAt(node, field, path);
    oneOf(node, "Status", NODE_STATUSES, path);
    oneOf(node, "SchedulingEligibility", ELIGIBILITIES, path);
    if (node.Drain !== undefined && typeof node.Drain !== "boolean") throw invalidFixture(`${path}.Drain`, `expected true or false, got ${describeRefused(node.Drain)}`);
    stringMapAt(node, "Attributes", path);
    stringMapAt(node, "Meta", path);
    structAt(node, "NodeResources", NODE_RESOURCES, path);
    structAt(node, "ReservedResources", NODE_RESERVED_RESOURCES, path);
    checkHostVolumes(node.HostVolumes, `${path}.HostVolumes`);
    // The cast is the JSON boundary: each field of the node checked above.
    const checked = node as unknown as FixtureNode;
    const { MinDynamicPort: min, MaxDynamicPort: max } = nodeResources(checked, "");
    if (!(min >= 1 && min <= max && max <= MAX_PORT)) {
      throw invalidFixture(`${path}.NodeResources.${min >= 1 && min <= MAX_PORT ? "MaxDynamicPort" : "MinDynamicPort"}`, `the dynamic ports run from MinDynamicPort to MaxDynamicPort, within 1 to ${MAX_PORT}: got ${min} to ${max}`);
    }
    return checked;
  });
}

/** The fields of a fixture node's static host volume. */
const HOST_VOLUME_FIELDS = ["Path", "ReadOnly"];

/** Checks a fixture node's `HostVolumes`: an object of volumes by name, each with a `Path` and an optional `ReadOnly`. */
function checkHostVolumes(value: unknown, path: string): void {
  if (value === undefined) return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidFixture(path, `expected an object of host volumes by name, got ${describeRefused(value)}`);
  const entries = Object.entries(value);
  if (entries.length > MAX_FIXTURE_ENTRIES) throw invalidFixture(path, `holds ${entries.length} entries; a fixture holds at most ${MAX_FIXTURE_ENTRIES} of each kind`);
  for (const [name, volume] of entries) {
    const at = `${path}.${name}`;
    if (name === "") throw invalidFixture(path, "a host volume's name is empty");
    if (typeof volume !== "object" || volume === null || Array.isArray(volume)) throw invalidFixture(at, `expected an object with Path and ReadOnly, got ${describeRefused(volume)}`);
    const entry = volume as Record<string, unknown>;
    knownFields(entry, HOST_VOLUME_FIELDS, at);
    stringAt(entry, "Path", at, true);
    if (entry.ReadOnly !== undefined && typeof entry.ReadOnly !== "boolean") throw invalidFixture(`${at}.ReadOnly`, `expected true or false, got ${describeRefused(entry.ReadOnly)}`);
  }
}

/** A node's `HostVolumes` from its fixture's static volumes (`ClientHostVolumeConfig`, no ID), or undefined for none. */
function staticHostVolumes(node: FixtureNode): Record<string, ClientHostVolumeConfig> | undefined {
  const volumes = Object.entries(node.HostVolumes ?? {});
  if (volumes.length === 0) return undefined;
  return Object.fromEntries(volumes.map(([name, volume]) => [name, { Name: name, Path: volume.Path, ReadOnly: volume.ReadOnly === true, ID: "" }]));
}

/** A fixture node's `NodeResources`: its own fields over those the simulated client at `address` finds. */
function nodeResources(node: FixtureNode, address: string): NodeResources {
  return overlay(NODE_RESOURCES, fingerprintResources(address), node.NodeResources) as NodeResources;
}

/** The ID of a fixture's node that names none: a UUID made from its name, the same on every start. */
function nodeId(name: string): string {
  const hex = createHash("sha256").update(`bexpr fixture node ${name}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The row of a fixture's node, the one at `position` in its list: what it names over the agent's
 * defaults (`datacenter`, the agent's), registered at `registeredAt` (epoch milliseconds) in the
 * write of `index`.
 */
export function fixtureNodeRow(node: FixtureNode, position: number, datacenter: string, registeredAt: number, index: number): Node {
  const address = node.Address ?? `127.0.0.${(position + 1) % 250 + 1}`;
  return {
    ID: node.ID ?? nodeId(node.Name),
    Name: node.Name,
    Datacenter: node.Datacenter ?? datacenter,
    NodePool: node.NodePool ?? "default",
    NodeClass: node.NodeClass ?? "",
    Address: address,
    Status: node.Status ?? "ready",
    StatusDescription: node.StatusDescription ?? "",
    SchedulingEligibility: node.SchedulingEligibility ?? "eligible",
    Drain: node.Drain ?? false,
    // A node whose attributes name its client's version reports it (as the reference's stub reads it from there).
    Version: node.Attributes?.["nomad.version"] ?? SIMULATED_NOMAD_VERSION,
    Attributes: { ...(node.Attributes ?? DEFAULT_NODE_ATTRIBUTES) },
    NodeResources: nodeResources(node, address),
    ReservedResources: overlay(NODE_RESERVED_RESOURCES, reservedResources(), node.ReservedResources) as NodeReservedResources,
    Meta: { ...(node.Meta ?? {}) },
    ...(staticHostVolumes(node) === undefined ? {} : { HostVolumes: staticHostVolumes(node) }),
    ...registered(registeredAt, index),
    CreateIndex: index,
    ModifyIndex: index,
  };
}
