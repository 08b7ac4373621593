/**
 * Host volumes (issue 42, item 3), over real sockets on the manual clock: dynamic volumes created
 * (placed as the reference's `placeHostVolume` places them) or registered, `pending` until their
 * simulated client reports them a second later, then `ready` and in their node's `HostVolumes`;
 * listed, read and deleted with the reference's conventions and words; static volumes from a
 * fixture's nodes; a group's `volume` blocks placing its allocations only where the volumes are
 * (the reference's `HostVolumeChecker`), sticky claims listed; CSI answered as a cluster without
 * CSI plugins; the host volume capabilities of ACL policies.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, job, send, settled, useAgent, type Response } from "./support.js";

type Item = Record<string, unknown>;

const NODES = [
  { Name: "vol-1", Meta: { rack: "r1" } },
  { Name: "vol-2", Meta: { rack: "r2" } },
  { Name: "static-1", HostVolumes: { shared: { Path: "/srv/shared" }, logs: { Path: "/var/log", ReadOnly: true } } },
  { Name: "gpu-1", NodePool: "gpu" },
  // A node whose attributes leave out the built-in plugin: no dynamic volume is placed there.
  { Name: "bare-1", NodePool: "bare", Attributes: { "kernel.name": "linux", "driver.mock": "1" } },
];

describe("dynamic and static host volumes", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, data: { Nodes: NODES } });
  const read = async <T = Item>(path: string): Promise<T> => {
    const response = await agent.get(path);
    expect(response.status, response.text).toBe(200);
    return response.json<T>();
  };
  const nodeIds: Record<string, string> = {};
  const create = (volume: Item, action = "create") => agent.put(`/v1/volume/host/${action}`, { Volume: volume });
  const created = async (volume: Item, action = "create"): Promise<Item> => {
    const response = await create(volume, action);
    expect(response.status, response.text).toBe(200);
    return response.json<{ Volume: Item }>().Volume;
  };
  const advance = async (ms: number) => {
    await agent.agent.clock.advance(ms);
    await settled(agent.url);
  };

  beforeAll(async () => {
    for (const node of await read<Item[]>("/v1/nodes")) nodeIds[String(node.Name)] = String(node.ID);
  });

  it("creates a volume pending on a node with the plugin, ready a second later in its node's HostVolumes", async () => {
    const response = await create({ Name: "first", PluginID: "mkdir", Constraints: [{ LTarget: "${meta.rack}", RTarget: "r1", Operand: "=" }] });
    expect(response.status, response.text).toBe(200);
    const body = response.json<{ Volume: Item; Warnings: string; Index: number }>();
    expect(response.headers["x-svc-index"]).toBe(String(body.Index));
    expect(body.Warnings).toBe("");
    const volume = body.Volume;
    expect(volume).toMatchObject({ Namespace: "default", Name: "first", PluginID: "mkdir", NodeID: nodeIds["vol-1"], NodePool: "default", State: "pending", CapacityBytes: 0, HostPath: `/opt/nomad/data/host_volumes/${String(volume.ID)}` });
    expect(volume.RequestedCapabilities).toEqual([{ AttachmentMode: "file-system", AccessMode: "single-node-writer" }]);
    expect(Object.keys(volume)).toEqual(["Namespace", "ID", "Name", "PluginID", "NodePool", "NodeID", "Constraints", "RequestedCapacityMinBytes", "RequestedCapacityMaxBytes", "CapacityBytes", "RequestedCapabilities", "HostPath", "State", "CreateIndex", "CreateTime", "ModifyIndex", "ModifyTime"]);
    expect((await read<Item>(`/v1/volume/host/${String(volume.ID)}`)).State).toBe("pending");
    await advance(999);
    expect((await read<Item>(`/v1/volume/host/${String(volume.ID)}`)).State).toBe("pending");
    await advance(1);
    const ready = await eventually(async () => {
      const now = await read<Item>(`/v1/volume/host/${String(volume.ID)}`);
      return now.State === "ready" ? now : undefined;
    });
    expect(ready.ModifyIndex).toBeGreaterThan(volume.ModifyIndex as number);
    const node = await read<Item>(`/v1/node/${nodeIds["vol-1"]!}`);
    expect(node.HostVolumes).toEqual({ first: { Name: "first", Path: volume.HostPath, ReadOnly: false, ID: volume.ID } });
  });

  it.each<[string, Item, string]>([
    ["the pool named", { Name: "in-gpu", PluginID: "mkdir", NodePool: "gpu" }, "gpu-1"],
    ["the node named", { Name: "on-vol-2", PluginID: "mkdir", NodeID: "vol-2" }, "vol-2"],
    ["the node meeting its constraint", { Name: "rack-2", PluginID: "mkdir", Constraints: [{ LTarget: "${meta.rack}", RTarget: "r2", Operand: "=" }] }, "vol-2"],
  ])("places a created volume on %s", async (_name, volume, nodeName) => {
    const named = typeof volume.NodeID === "string" ? { ...volume, NodeID: nodeIds[volume.NodeID] } : volume;
    expect((await created(named)).NodeID).toBe(nodeIds[nodeName]);
  });

  it.each<[string, Item, string, number]>([
    ["a volume without a name", { PluginID: "mkdir" }, "volume validation failed: missing name", 400],
    ["capacities the wrong way round", { Name: "c", PluginID: "mkdir", RequestedCapacityMinBytes: 10, RequestedCapacityMaxBytes: 5 }, "volume validation failed: capacity_max (5) must be larger than capacity_min (10)", 400],
    ["an unknown access mode", { Name: "c", PluginID: "mkdir", RequestedCapabilities: [{ AttachmentMode: "file-system", AccessMode: "anyone" }] }, 'volume validation failed: invalid access mode: "anyone"', 400],
    ["a distinct_hosts constraint", { Name: "c", PluginID: "mkdir", Constraints: [{ Operand: "distinct_hosts" }] }, "volume validation failed: invalid constraint distinct_hosts: host volumes of the same name are always on distinct hosts", 400],
    ["a namespace that does not exist", { Name: "c", PluginID: "mkdir", Namespace: "nowhere" }, 'volume validation failed: no such namespace "nowhere"', 400],
    ["an ID of no volume", { ID: "00000000-0000-4000-8000-0000000000ff", Name: "c", PluginID: "mkdir" }, 'cannot update volume "00000000-0000-4000-8000-0000000000ff": volume does not exist', 404],
    ["a pool that does not exist", { Name: "c", PluginID: "mkdir", NodePool: "nowhere" }, 'validating volume "c" against state failed: node pool "nowhere" does not exist', 400],
    ["a plugin no node has (the default one)", { Name: "c" }, 'could not place volume "c": no node meets constraints: 0 nodes had existing volume, 0 nodes filtered by node pool governance, 5 nodes were infeasible', 400],
    ["a pool whose nodes lack the plugin", { Name: "c", PluginID: "mkdir", NodePool: "bare" }, 'could not place volume "c": no node meets constraints: 0 nodes had existing volume, 0 nodes filtered by node pool governance, 1 nodes were infeasible', 400],
  ])("refuses to create %s with the reference's words", async (_name, volume, message, status) => {
    const response = await create(volume);
    expect([response.status, response.text]).toEqual([status, message]);
  });

  it("does not place a second volume of a name on a node that has one", async () => {
    await created({ Name: "twice", PluginID: "mkdir", NodePool: "gpu" });
    const response = await create({ Name: "twice", PluginID: "mkdir", NodePool: "gpu" });
    expect([response.status, response.text]).toEqual([400, 'could not place volume "twice": no node meets constraints: 1 nodes had existing volume, 0 nodes filtered by node pool governance, 0 nodes were infeasible']);
  });

  it.each<[string, Item, string]>([
    ["without a node", { Name: "r", HostPath: "/srv/r" }, "cannot register volume: node ID is required"],
    ["without a host path", { Name: "r", NodeID: "00000000-0000-4000-8000-0000000000aa" }, "cannot register volume: host path is required"],
    ["on a node that does not exist", { Name: "r", HostPath: "/srv/r", NodeID: "00000000-0000-4000-8000-0000000000aa" }, 'validating volume "" against state failed: node "00000000-0000-4000-8000-0000000000aa" does not exist'],
  ])("refuses to register a volume %s", async (_name, volume, message) => {
    const response = await create(volume, "register");
    expect([response.status, response.text]).toEqual([400, message]);
  });

  it("registers an existing path on a node, keeping its path and capacity", async () => {
    const volume = await created({ Name: "registered", NodeID: nodeIds["vol-2"], HostPath: "/srv/data", CapacityBytes: 1024 }, "register");
    expect(volume).toMatchObject({ NodeID: nodeIds["vol-2"], HostPath: "/srv/data", CapacityBytes: 1024, State: "pending", PluginID: "" });
  });

  it("lists the stubs by namespace then ID, by name or ID prefix, node, pool and filter, a page at a time", async () => {
    const all = await read<Item[]>("/v1/volumes?type=host");
    expect(all.length).toBeGreaterThanOrEqual(6);
    expect(Object.keys(all[0]!)).toEqual(["Namespace", "ID", "Name", "PluginID", "NodePool", "NodeID", "CapacityBytes", "State", "CreateIndex", "CreateTime", "ModifyIndex", "ModifyTime"]);
    expect(all.map((each) => each.ID)).toEqual([...all.map((each) => String(each.ID))].sort());
    expect((await read<Item[]>("/v1/volumes?type=host&prefix=rack")).map((each) => each.Name)).toEqual(["rack-2"]);
    const id = String(all[0]!.ID);
    expect((await read<Item[]>(`/v1/volumes?type=host&prefix=${id.slice(0, 6)}`)).map((each) => each.ID)).toContain(id);
    expect((await read<Item[]>(`/v1/volumes?type=host&node_pool=gpu`)).map((each) => each.Name).sort()).toEqual(["in-gpu", "twice"]);
    expect((await read<Item[]>(`/v1/volumes?type=host&node_id=${nodeIds["vol-2"]!}`)).map((each) => each.Name).sort()).toEqual(["on-vol-2", "rack-2", "registered"]);
    expect((await read<Item[]>(`/v1/volumes?type=host&node_id=${nodeIds["vol-2"]!}&filter=${encodeURIComponent("CapacityBytes == 1024")}`)).map((each) => each.Name)).toEqual(["registered"]);
    const first = await agent.get("/v1/volumes?type=host&per_page=2");
    expect(first.json<Item[]>().map((each) => each.ID)).toEqual(all.slice(0, 2).map((each) => each.ID));
    expect(first.headers["x-svc-nexttoken"]).toBe(`default.${String(all[2]!.ID)}`);
    const second = await read<Item[]>(`/v1/volumes?type=host&per_page=2&next_token=${String(first.headers["x-svc-nexttoken"])}`);
    expect(second.map((each) => each.ID)).toEqual(all.slice(2, 4).map((each) => each.ID));
  });

  it.each<[string, number, string]>([
    ["/v1/volumes", 200, "[]"],
    ["/v1/volumes?type=csi", 200, "[]"],
    ["/v1/volumes?type=other", 404, "resource not found"],
    ["/v1/volume/csi/database", 404, "volume not found"],
    ["/v1/plugins", 200, "[]"],
    ["/v1/plugins?type=csi", 200, "[]"],
    ["/v1/plugin/csi/hostpath", 404, "plugin not found"],
    ["/v1/volume/host/00000000-0000-4000-8000-0000000000ff", 404, "volume not found"],
    ["/v1/volume/host/", 404, "resource not found"],
  ])("answers GET %s as a cluster without CSI plugins: %d %s", async (path, status, text) => {
    const response = await agent.get(path);
    expect([response.status, response.text]).toEqual([status, text]);
  });

  it("places a group asking for a static volume on its node only, and refuses write access to a read-only one", async () => {
    const volumeJob = (id: string, source: string, readOnly: boolean) => job(id, { TaskGroups: [{ Name: "g", Count: 2, Volumes: { v: { Name: "v", Type: "host", Source: source, ReadOnly: readOnly } }, Tasks: [{ Name: "t", Driver: "mock" }] }] });
    await agent.register(volumeJob("uses-shared", "shared", false));
    await agent.register(volumeJob("reads-logs", "logs", true));
    await agent.register(volumeJob("writes-logs", "logs", false));
    await settled(agent.url);
    const nodesOf = async (id: string) => (await read<Item[]>(`/v1/job/${id}/allocations`)).map((alloc) => alloc.NodeName);
    expect(await nodesOf("uses-shared")).toEqual(["static-1", "static-1"]);
    expect(await nodesOf("reads-logs")).toEqual(["static-1", "static-1"]);
    expect(await nodesOf("writes-logs")).toEqual([]);
    const evaluation = (await read<Item[]>("/v1/job/writes-logs/evaluations")).find((each) => each.TriggeredBy === "job-register")!;
    const metric = (evaluation.FailedTGAllocs as Record<string, Item>).g!;
    expect(metric.ConstraintFiltered).toEqual({ "missing compatible host volumes": 3 });
    expect(metric.NodesFiltered).toBe(3);
  });

  it("places a group on its ready dynamic volume, per allocation with per_alloc, claims a sticky one, and keeps a used volume from deletion", async () => {
    const onOne = await created({ Name: "pa[0]", PluginID: "mkdir", NodeID: nodeIds["vol-1"] });
    const onTwo = await created({ Name: "pa[1]", PluginID: "mkdir", NodeID: nodeIds["vol-2"] });
    const sticky = await created({ Name: "db", PluginID: "mkdir", NodeID: nodeIds["vol-2"] });
    // Not ready yet: no node has them.
    const perAlloc = job("per-alloc", { TaskGroups: [{ Name: "g", Count: 2, Volumes: { v: { Name: "v", Type: "host", Source: "pa", PerAlloc: true } }, Tasks: [{ Name: "t", Driver: "mock" }] }] });
    await agent.register(perAlloc);
    await settled(agent.url);
    expect(await read<Item[]>("/v1/job/per-alloc/allocations")).toEqual([]);
    await advance(1000);
    // Ready volumes unblock the job's blocked evaluation.
    const placed = await eventually(async () => {
      const allocs = await read<Item[]>("/v1/job/per-alloc/allocations");
      return allocs.length === 2 ? allocs : undefined;
    });
    expect(Object.fromEntries(placed.map((alloc) => [alloc.Name, alloc.NodeID]))).toEqual({ "per-alloc.g[0]": onOne.NodeID, "per-alloc.g[1]": onTwo.NodeID });
    await agent.register(job("sticky", { TaskGroups: [{ Name: "g", Count: 1, Volumes: { v: { Name: "v", Type: "host", Source: "db", Sticky: true } }, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await settled(agent.url);
    const [alloc] = await read<Item[]>("/v1/job/sticky/allocations");
    expect(alloc!.NodeID).toBe(sticky.NodeID);
    const claims = await read<Item[]>("/v1/volumes/claims?job_id=sticky");
    expect(claims).toEqual([{ ID: claims[0]!.ID, Namespace: "default", JobID: "sticky", TaskGroupName: "g", AllocID: alloc!.ID, VolumeID: sticky.ID, VolumeName: "db", CreateIndex: claims[0]!.CreateIndex, ModifyIndex: claims[0]!.CreateIndex }]);
    expect(await read<Item[]>("/v1/volumes/claims?job_id=other")).toEqual([]);
    // In use: read with its allocation, not deleted.
    const used = await read<Item>(`/v1/volume/host/${String(sticky.ID)}`);
    expect((used.Allocations as Item[]).map((each) => each.ID)).toEqual([alloc!.ID]);
    const refused = await send(`${agent.url}/v1/volume/host/${String(sticky.ID)}`, { method: "DELETE" });
    expect([refused.status, refused.text]).toEqual([409, `volume ${String(sticky.ID)} in use by allocations: [${String(alloc!.ID)}]`]);
  });

  it("deletes a volume: gone from the list, the read and its node's HostVolumes", async () => {
    const volume = await created({ Name: "doomed", PluginID: "mkdir", NodeID: nodeIds["gpu-1"] });
    await advance(1000);
    await eventually(async () => ((await read<Item>(`/v1/node/${nodeIds["gpu-1"]!}`)).HostVolumes as Item | null)?.doomed);
    const deleted = await send(`${agent.url}/v1/volume/host/${String(volume.ID)}`, { method: "DELETE" });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json<Item>()).toEqual({ Index: Number(deleted.headers["x-svc-index"]) });
    expect((await agent.get(`/v1/volume/host/${String(volume.ID)}`)).status).toBe(404);
    expect(((await read<Item>(`/v1/node/${nodeIds["gpu-1"]!}`)).HostVolumes as Item | null)?.doomed).toBeUndefined();
    const again = await send(`${agent.url}/v1/volume/host/${String(volume.ID)}`, { method: "DELETE" });
    expect([again.status, again.text]).toEqual([404, `no such volume: ${String(volume.ID)}`]);
    const badForce = await send(`${agent.url}/v1/volume/host/${String(volume.ID)}?force=maybe`, { method: "DELETE" });
    expect([badForce.status, badForce.text]).toEqual([400, "invalid force value"]);
  });
});

describe("host volumes with ACLs", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000b0";
  const READER = "00000000-0000-4000-8000-0000000000b1";
  const CREATOR = "00000000-0000-4000-8000-0000000000b2";
  const agent = useAgent({
    clock: "manual",
    nodes: 2,
    namespaces: [{ Name: "a" }, { Name: "b" }],
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "a-read", Rules: 'namespace "a" { capabilities = ["host-volume-read"] }' },
        { Name: "a-create", Rules: 'namespace "a" { capabilities = ["host-volume-create"] }\nplugin { policy = "list" }' },
      ],
      tokens: [
        { SecretID: READER, Name: "reader", Type: "client", Policies: ["a-read"] },
        { SecretID: CREATOR, Name: "creator", Type: "client", Policies: ["a-create"] },
      ],
    },
  });
  const as = (token: string, path: string, method = "GET", body?: unknown): Promise<Response> =>
    send(`${agent.url}${path}`, { method, headers: { "x-svc-token": token }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  beforeAll(async () => {
    for (const namespace of ["a", "b"]) {
      const response = await as(ROOT, `/v1/volume/host/create?namespace=${namespace}`, "PUT", { Volume: { Name: `in-${namespace}`, PluginID: "mkdir" } });
      expect(response.status, response.text).toBe(200);
    }
  });

  it.each<[string, string, string, string, unknown, number]>([
    ["the reader creates", READER, "PUT", "/v1/volume/host/create?namespace=a", { Volume: { Name: "x", PluginID: "mkdir" } }, 403],
    ["the creator creates in a", CREATOR, "PUT", "/v1/volume/host/create?namespace=a", { Volume: { Name: "x", PluginID: "mkdir" } }, 200],
    ["the creator creates in b", CREATOR, "PUT", "/v1/volume/host/create?namespace=b", { Volume: { Name: "x", PluginID: "mkdir" } }, 403],
    ["the creator registers in a (register is above create)", CREATOR, "PUT", "/v1/volume/host/register?namespace=a", { Volume: { Name: "y", NodeID: "00000000-0000-4000-8000-0000000000aa", HostPath: "/y" } }, 403],
    ["the creator lists plugins", CREATOR, "GET", "/v1/plugins?type=csi", undefined, 200],
    ["the reader lists plugins", READER, "GET", "/v1/plugins?type=csi", undefined, 403],
    ["the reader deletes a claim", READER, "DELETE", "/v1/volumes/claim/00000000-0000-4000-8000-0000000000ff?namespace=a", undefined, 403],
  ])("%s: %s", async (_name, token, method, path, body, status) => {
    const response = await as(token, path, method, body);
    expect(response.status, response.text).toBe(status);
  });

  it("lists for the reader the volumes of a only, and nothing of b", async () => {
    const names = async (path: string) => (await as(READER, path)).json<Item[]>().map((each) => each.Name);
    expect(await names("/v1/volumes?type=host&namespace=a")).toContain("in-a");
    expect(await names("/v1/volumes?type=host&namespace=b")).toEqual([]);
    expect(await names("/v1/volumes?type=host&namespace=*")).not.toContain("in-b");
    const [inB] = (await as(ROOT, "/v1/volumes?type=host&namespace=b")).json<Item[]>();
    const read = await as(READER, `/v1/volume/host/${String(inB!.ID)}?namespace=b`);
    expect([read.status, read.text]).toEqual([403, "Permission denied"]);
    // Read in its own namespace, b's volume is an unknown ID.
    expect((await as(READER, `/v1/volume/host/${String(inB!.ID)}?namespace=a`)).status).toBe(404);
  });
});

describe("host volumes kept and answered as the reference's", () => {
  const agent = useAgent({ clock: "manual", nodes: 1, headers: "nomad" });

  it("answers a create with the nomad style's index header, and a snapshot keeps the volumes and claims tables", async () => {
    const response = await agent.put("/v1/volume/host/create", { Volume: { Name: "kept", PluginID: "mkdir" } });
    expect(response.status, response.text).toBe(200);
    const { Volume: volume, Index: index } = response.json<{ Volume: Item; Index: number }>();
    expect(response.headers["x-nomad-index"]).toBe(String(index));
    expect(response.headers["x-svc-index"]).toBeUndefined();
    const snapshot = await agent.agent.snapshot();
    expect(snapshot.Tables.host_volumes.map((row) => row.ID)).toEqual([volume.ID]);
    expect(snapshot.Tables.host_volume_claims).toEqual([]);
    await agent.agent.reset();
    expect((await agent.get(`/v1/volume/host/${String(volume.ID)}`)).status).toBe(404);
    await agent.agent.restore(snapshot);
    const restored = await agent.get(`/v1/volume/host/${String(volume.ID)}`);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.json<Item>()).toMatchObject({ Name: "kept", State: "pending", CreateTime: volume.CreateTime });
    // Still pending after the restore: its client reports it a second later.
    await agent.agent.clock.advance(1000);
    const ready = await eventually(async () => {
      const now = (await agent.get(`/v1/volume/host/${String(volume.ID)}`)).json<Item>();
      return now.State === "ready" ? now : undefined;
    });
    expect(ready.NodeID).toBe(volume.NodeID);
  });
});
