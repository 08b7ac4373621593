/**
 * What a simulated client reports of its machine when it registers its node, as a reference
 * `-dev` agent's client does (`client/client.go`, `setupNode`; the fingerprinters of
 * `client/fingerprint/`; the reserved resources of `command/agent/agent.go`), and when it does.
 *
 * Every simulated client stands for the same machine: four cores of 2500 MHz on one socket and
 * NUMA node (`cpu.go`: `Processors.Topology`, and the pre-1.7 `Cpu` its `Compatibility` derives
 * from it), 16 GiB of memory (`memory.go`), 100 GiB free for the allocations' directory
 * (`storage.go`), and the loopback interface a dev agent binds, at the node's address, at the
 * default 1000 Mbit/s (`network.go`; no bridge, whose kernel module a test host may lack). Its
 * dynamic ports are the client's defaults, 20000 to 32000. It keeps back nothing but the ports its
 * plugins use (`reservePortsForClient`: the client's ports, 14000 to 14512).
 *
 * A client registers once it has fingerprinted its machine, which takes a dev agent's client a
 * second or more: a simulated client registers {@link FINGERPRINT_MS} after it started, so its
 * node's `StatusUpdatedAt` and `Node registered` event are a second after the agent's start (the
 * node is in the state from the start, and shows that time ahead while the second runs).
 *
 * @module
 */
import type { Node, NodeReservedResources, NodeResources } from "../state/model.js";
import { MKDIR_PLUGIN, MKDIR_PLUGIN_VERSION } from "./host-volumes.js";

/**
 * The attributes a simulated client fingerprints (`Node.Attributes`): a Linux amd64 machine and
 * its task drivers, which the scheduler's driver check reads (`driver.<name>`): docker and exec,
 * raw_exec (a dev agent enables it), and `mock`, the agent's own name for a simulated task (the
 * reference's test builds call theirs `mock_driver`). Every task of every driver is simulated
 * alike; a job asking for another driver finds no node, as on the reference.
 */
export const SIMULATED_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({
  "kernel.name": "linux",
  "cpu.arch": "amd64",
  "os.name": "debian",
  "driver.docker": "1",
  "driver.exec": "1",
  "driver.raw_exec": "1",
  "driver.mock": "1",
  // The built-in host volume plugin every client has (`client/fingerprint/dynamic_host_volumes.go`): dynamic volumes are placed on nodes with their plugin.
  [`plugins.host_volume.${MKDIR_PLUGIN}.version`]: MKDIR_PLUGIN_VERSION,
});

/**
 * The Nomad version the simulated clients report (their `Version`, and the `nomad.version`
 * attribute the reference's client fingerprints): the pinned reference's (`version/version.go`:
 * 2.0.6), so the agent's nodes take part in what the reference gates on its clients' version
 * (system deployments from 1.11). Without its `dev` pre-release marker, as a released client
 * reports it: a `version` constraint without a pre-release never matches a pre-release version
 * (go-version), so `${attr.nomad.version} version ">= 1.11"` would find no node.
 */
export const SIMULATED_NOMAD_VERSION = "2.0.6";

/**
 * The Nomad version a node's client reports: its `nomad.version` attribute, which the agent's
 * nodes keep as their `Version` (a fixture's node may set the attribute itself).
 */
export function nomadVersionOf(node: Partial<Pick<Node, "Version" | "Attributes">>): string {
  return node.Attributes?.["nomad.version"] ?? node.Version ?? "";
}

/** How long a simulated client fingerprints its machine before it registers its node. */
export const FINGERPRINT_MS = 1000;

/** The simulated machine's cores, all usable by tasks. */
const CORES = 4;
/** Each core's speed, in MHz (its `BaseSpeed`). */
const CORE_MHZ = 2500;
/** Its memory, in MB. */
const MEMORY_MB = 16_384;
/** The free space of its allocations' directory, in MB. */
const DISK_MB = 102_400;
/** The interface a dev agent's client fingerprints (the loopback one), and its speed when none is detected (`defaultNetworkSpeed`). */
const INTERFACE = "lo";
const INTERFACE_MBITS = 1000;

/** The client's dynamic port range (`MinDynamicPort`, `MaxDynamicPort` of its configuration). */
export const DYNAMIC_PORTS = Object.freeze({ min: 20_000, max: 32_000 });

/** The ports the client keeps for its plugins (`ClientMinPort`-`ClientMaxPort`), reserved on every interface. */
const CLIENT_PORTS = "14000-14512";

/**
 * The processors' topology as the reference writes `numalib.Topology`: one NUMA node and socket
 * (Go writes its `[]uint8` fields, `Nodes` and each row of `Distances`, in base64: `[0]` and
 * `[[10]]`), and each core with its speed.
 */
function topology(): Record<string, unknown> {
  const cores = Array.from({ length: CORES }, (_, id) => ({ SocketID: 0, NodeID: 0, ID: id, Grade: true, Disable: false, BaseSpeed: CORE_MHZ, MaxSpeed: CORE_MHZ, GuessSpeed: 0 }));
  return { Nodes: "AA==", Distances: ["Cg=="], Cores: cores, BusAssociativity: null, OverrideTotalCompute: 0, OverrideWitholdCompute: 0 };
}

/** What a simulated client at `address` finds of its machine (`structs.NodeResources`). */
export function fingerprintResources(address: string): NodeResources {
  const ipv6 = address.includes(":");
  const cores = Array.from({ length: CORES }, (_, id) => id);
  return {
    Cpu: { CpuShares: CORES * CORE_MHZ, TotalCpuCores: CORES, ReservableCpuCores: cores },
    Processors: { Topology: topology() },
    Memory: { MemoryMB: MEMORY_MB },
    Disk: { DiskMB: DISK_MB },
    Devices: null,
    NodeNetworks: [{ Mode: "host", Device: INTERFACE, MacAddress: "", Speed: INTERFACE_MBITS, Addresses: [{ Family: ipv6 ? "ipv6" : "ipv4", Alias: "default", Address: address, ReservedPorts: "", Gateway: "" }] }],
    Networks: [{ Mode: "host", Device: INTERFACE, CIDR: `${address}/${ipv6 ? 128 : 32}`, IP: address, Hostname: "", MBits: INTERFACE_MBITS, DNS: null, ReservedPorts: null, DynamicPorts: null, CNI: null }],
    MinDynamicPort: DYNAMIC_PORTS.min,
    MaxDynamicPort: DYNAMIC_PORTS.max,
  };
}

/** What a simulated client keeps back from tasks (`structs.NodeReservedResources`): the ports of its plugins. */
export function reservedResources(): NodeReservedResources {
  return { Cpu: { CpuShares: 0, ReservedCpuCores: null }, Memory: { MemoryMB: 0 }, Disk: { DiskMB: 0 }, Networks: { ReservedHostPorts: CLIENT_PORTS } };
}

/** When a simulated client started now registers its node: once it has fingerprinted its machine, in epoch milliseconds. */
export function registrationTime(nowMs: number): number {
  return nowMs + FINGERPRINT_MS;
}

/** The resources a simulated client at the node's address registers it with. */
export function fingerprint(node: Pick<Node, "Address">): Required<Pick<Node, "NodeResources" | "ReservedResources">> {
  return { NodeResources: fingerprintResources(node.Address), ReservedResources: reservedResources() };
}
