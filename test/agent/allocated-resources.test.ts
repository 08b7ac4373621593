/**
 * What the scheduler gives each allocation it places (`AllocatedResources`: the tasks' CPU, memory
 * and cores, the group's disk, network and ports) and the deprecated fields the reference derives
 * from it, and the network status the simulated client reports once an allocation runs. One node,
 * so that the ports and cores the allocations take on it are predictable; on the manual clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, settled, useAgent } from "./support.js";

type Item = Record<string, unknown>;
type Port = { Label: string; Value: number; To?: number; HostIP?: string };
type Allocated = {
  Tasks: Record<string, { Cpu: { CpuShares: number; ReservedCores: number[] | null }; Memory: { MemoryMB: number; MemoryMaxMB: number } }>;
  TaskLifecycles: Record<string, unknown>;
  Shared: { DiskMB: number; Networks: Item[] | null; Ports: Port[] | null };
};

/** The simulated node's address (the first node of `Cluster.seed`). */
const NODE_ADDRESS = "127.0.0.2";

/** A group of two tasks: one with CPU and memory (and a secrets directory, and a memory limit), one pinned to a core (two allocations fit the node's four cores of 2500 MHz). */
const web = job("web", {
  TaskGroups: [
    {
      Name: "g",
      Count: 2,
      EphemeralDisk: { SizeMB: 500 },
      Networks: [{ Mode: "host", DynamicPorts: [{ Label: "http", To: -1 }, { Label: "grpc" }] }],
      Tasks: [
        { Name: "server", Driver: "mock", Resources: { CPU: 250, MemoryMB: 128, MemoryMaxMB: 512, SecretsMB: 4 } },
        { Name: "pinned", Driver: "mock", Resources: { Cores: 1, MemoryMB: 64 }, Lifecycle: { Hook: "prestart", Sidecar: true } },
      ],
    },
  ],
});

describe("the resources the scheduler gives an allocation", () => {
  const agent = useAgent({ clock: "manual", nodes: 1 });
  afterEach(() => agent.agent.scenarios.resetLifecycle());

  const stubs = async (id: string) => parseJson((await agent.get(`/v1/allocations?resources=true&filter=${encodeURIComponent(`JobID == "${id}"`)}`)).text) as Item[];
  const full = async (allocId: string) => parseJson((await agent.get(`/v1/allocation/${allocId}`)).text) as Item;
  const allocated = (stub: Item) => stub.AllocatedResources as Allocated;

  it("gives each task its CPU, memory and cores, and the group its disk and dynamic ports in the node's range", async () => {
    await agent.register(web);
    await settled(agent.url);
    const [first, second] = (await stubs("web")).sort((a, b) => String(a.Name).localeCompare(String(b.Name)));
    expect([first, second].map((stub) => stub?.Name)).toEqual(["web.g[0]", "web.g[1]"]);
    const resources = [first!, second!].map(allocated);
    for (const each of resources) {
      // Memory with the secrets directory; no memory limit without memory oversubscription (off by default in the reference).
      expect(each.Tasks.server).toEqual({ Cpu: { CpuShares: 250, ReservedCores: null }, Memory: { MemoryMB: 132, MemoryMaxMB: 0 }, Networks: null, Devices: null });
      // One core of 2500 MHz.
      expect(each.Tasks.pinned?.Cpu.CpuShares).toBe(2500);
      expect(each.Tasks.pinned?.Memory).toEqual({ MemoryMB: 64, MemoryMaxMB: 0 });
      expect(each.TaskLifecycles).toEqual({ server: null, pinned: { Hook: "prestart", Sidecar: true } });
      expect(each.Shared.DiskMB).toBe(500);
    }
    // The node's lowest free cores and ports, each taken once on the node.
    expect(resources.map((each) => each.Tasks.pinned?.Cpu.ReservedCores).sort()).toEqual([[0], [1]]);
    const ports = resources.map((each) => each.Shared.Ports ?? []);
    expect(ports.flat().map((port) => port.Value).sort()).toEqual([20000, 20001, 20002, 20003]);
    for (const [http, grpc] of ports) {
      // `To: -1` maps to the port given; no `To`, none.
      expect(http).toEqual({ Label: "http", Value: http!.Value, To: http!.Value, HostIP: NODE_ADDRESS });
      expect(grpc).toEqual({ Label: "grpc", Value: grpc!.Value, HostIP: NODE_ADDRESS });
    }
    // The group's network, as the ask with its ports given and the node's address.
    expect(resources[0]!.Shared.Networks).toEqual([
      {
        Mode: "host",
        IP: NODE_ADDRESS,
        DynamicPorts: [
          { Label: "http", Value: ports[0]![0]!.Value, To: ports[0]![0]!.Value, HostNetwork: "default" },
          { Label: "grpc", Value: ports[0]![1]!.Value, HostNetwork: "default" },
        ],
      },
    ]);
  });

  it("lets filters on the allocation list select by them", async () => {
    const selected = parseJson((await agent.get(`/v1/allocations?filter=${encodeURIComponent("AllocatedResources.Shared.DiskMB == 500")}`)).text) as Item[];
    expect(selected.map((stub) => stub.Name).sort()).toEqual(["web.g[0]", "web.g[1]"]);
  });

  it("writes them on the full allocation, with the deprecated Resources, SharedResources and TaskResources derived from them", async () => {
    const [stub] = await stubs("web");
    const alloc = await full(String(stub!.ID));
    expect(alloc.AllocatedResources).toEqual(stub!.AllocatedResources);
    const network = allocated(stub!).Shared.Networks![0];
    expect(alloc.TaskResources).toEqual({
      server: { CPU: 250, Cores: 0, MemoryMB: 132, MemoryMaxMB: 0, DiskMB: 0, IOPS: 0, Networks: null, Devices: null, NUMA: null, SecretsMB: 0 },
      pinned: { CPU: 2500, Cores: 1, MemoryMB: 64, MemoryMaxMB: 0, DiskMB: 0, IOPS: 0, Networks: null, Devices: null, NUMA: null, SecretsMB: 0 },
    });
    expect(alloc.SharedResources).toEqual({ CPU: 0, Cores: 0, MemoryMB: 0, MemoryMaxMB: 0, DiskMB: 500, IOPS: 0, Networks: [network], Devices: null, NUMA: null, SecretsMB: 0 });
    // The sum (`Resources.Add`): a task without a memory limit adds its memory to the limit.
    expect(alloc.Resources).toEqual({ CPU: 2750, Cores: 1, MemoryMB: 196, MemoryMaxMB: 196, DiskMB: 500, IOPS: 0, Networks: [network], Devices: null, NUMA: null, SecretsMB: 0 });
  });

  it("gives static ports as asked, and dynamic ones past those the node's live allocations hold", async () => {
    await agent.register(job("admin", { TaskGroups: [{ Name: "g", Networks: [{ ReservedPorts: [{ Label: "admin", Value: 8080 }], DynamicPorts: [{ Label: "metrics" }] }], Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await settled(agent.url);
    const [stub] = await stubs("admin");
    expect(allocated(stub!).Shared.Ports).toEqual([
      { Label: "admin", Value: 8080, HostIP: NODE_ADDRESS },
      { Label: "metrics", Value: 20004, HostIP: NODE_ADDRESS },
    ]);
    // A group without a network has no ports; the default ephemeral disk is 300 MB.
    await agent.register(job("plain"));
    await settled(agent.url);
    const [plain] = await stubs("plain");
    expect(allocated(plain!).Shared).toEqual({ Networks: null, DiskMB: 300, Ports: null });
    expect(allocated(plain!).Tasks.t?.Cpu.CpuShares).toBe(100);
  });

  it("frees what a stopped allocation held for the next placement", async () => {
    expect((await send(`${agent.url}/v1/job/web`, { method: "DELETE" })).status).toBe(200);
    await settled(agent.url);
    await agent.agent.clock.advance("1m");
    await settled(agent.url);
    await agent.register(job("again", { TaskGroups: [{ Name: "g", Networks: [{ DynamicPorts: [{ Label: "http" }] }], Tasks: [{ Name: "t", Driver: "mock", Resources: { Cores: 2 } }] }] }));
    await settled(agent.url);
    const [stub] = await stubs("again");
    expect(allocated(stub!).Shared.Ports?.map((port) => port.Value)).toEqual([20000]);
    expect(allocated(stub!).Tasks.t?.Cpu.ReservedCores).toEqual([0, 1]);
  });
});

describe("the network status the client reports", () => {
  const agent = useAgent({ clock: "manual", nodes: 1 });
  afterEach(() => agent.agent.scenarios.resetLifecycle());

  const alloc = async (id: string) => {
    const [stub] = parseJson((await agent.get(`/v1/job/${id}/allocations`)).text) as Item[];
    return parseJson((await agent.get(`/v1/allocation/${String(stub!.ID)}`)).text) as Item;
  };

  it("is absent until the client reports the allocation, then what a host-mode network reports: no interface, no address", async () => {
    agent.agent.scenarios.changeStep("run", { enabled: false });
    await agent.register(job("held"));
    await settled(agent.url);
    await agent.agent.clock.advance("1m");
    const pending = await alloc("held");
    expect(pending.ClientStatus).toBe("pending");
    expect(pending).not.toHaveProperty("NetworkStatus");
    agent.agent.scenarios.changeStep("run", { enabled: true });
    await agent.agent.clock.advance(0);
    const running = await alloc("held");
    expect(running.ClientStatus).toBe("running");
    expect(running.NetworkStatus).toEqual({ InterfaceName: "", Address: "", AddressIPv6: "", DNS: null });
  });

  it("carries the DNS configuration of the group's network, and keeps it when the allocation ends", async () => {
    const dns = { Servers: ["1.1.1.1"], Searches: ["internal"], Options: ["ndots:2"] };
    await agent.register(job("named", { Type: "batch", Meta: { "bexpr.run_for": "5s" }, TaskGroups: [{ Name: "g", Networks: [{ Mode: "host", DNS: dns }], Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await settled(agent.url);
    await agent.agent.clock.advance("1s");
    const running = await alloc("named");
    expect(running.ClientStatus).toBe("running");
    expect(running.NetworkStatus).toEqual({ InterfaceName: "", Address: "", AddressIPv6: "", DNS: dns });
    await agent.agent.clock.advance("10s");
    const complete = await alloc("named");
    expect(complete.ClientStatus).toBe("complete");
    expect(complete.NetworkStatus).toEqual({ InterfaceName: "", Address: "", AddressIPv6: "", DNS: dns });
  });
});
