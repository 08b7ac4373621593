/**
 * Nodes as the reference's clients fingerprint them (issue 42, item 5): `Drivers`, a `DriverInfo`
 * per driver consistent with `Attributes`, empty CSI plugin maps; the control that makes a driver
 * unhealthy or undetected, with the node event the reference's client writes, which feasibility
 * honours (`DriverChecker`); and `/v1/client/metadata`, dynamic node metadata read and applied
 * (`NodeMeta.Read`, `Apply`), which constraints read. On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { job, send, settled, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, unknown>;
type NodeBody = Item & { ID: string; Name: string; Attributes: Record<string, string>; Drivers: Record<string, Item>; Events: Item[] };

const SIMULATED_DRIVERS = ["docker", "exec", "mock", "raw_exec"];

/** The nodes by name. */
async function nodesOf(agent: TestAgent): Promise<Map<string, NodeBody>> {
  const stubs = (await agent.get("/v1/nodes")).json<Item[]>();
  const nodes = await Promise.all(stubs.map(async (stub) => (await agent.get(`/v1/node/${String(stub.ID)}`)).json<NodeBody>()));
  return new Map(nodes.map((node) => [node.Name, node]));
}

const setDriver = (agent: TestAgent, node: string, driver: string, body: unknown) => agent.put(`/_bexpr/nodes/${node}/drivers/${driver}`, body);

/** Registers a job of one allocation of a task of `driver`, with the group's constraints; answers where it was placed once the scheduler settled. */
async function placeWith(agent: TestAgent, id: string, driver: string, constraints: Item[] = []): Promise<string[]> {
  await agent.register(job(id, { TaskGroups: [{ Name: "g", Count: 1, Constraints: constraints, Tasks: [{ Name: "t", Driver: driver }] }] }));
  await settled(agent.url);
  return (await agent.get(`/v1/job/${id}/allocations`)).json<Item[]>().map((alloc) => String(alloc.NodeName)).sort();
}

describe("a node's drivers as its client fingerprints them", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });

  it("answers a DriverInfo per driver its attributes name, detected and healthy since it registered, and empty CSI maps", async () => {
    for (const node of (await nodesOf(agent)).values()) {
      expect(Object.keys(node.Drivers)).toEqual(SIMULATED_DRIVERS);
      for (const name of SIMULATED_DRIVERS) {
        expect(node.Attributes[`driver.${name}`]).toBe("1");
        expect(node.Drivers[name]).toEqual({ Attributes: { [`driver.${name}`]: "true" }, Detected: true, Healthy: true, HealthDescription: "Healthy", UpdateTime: node.Events[0]!.Timestamp });
      }
      expect(node.CSIControllerPlugins).toEqual({});
      expect(node.CSINodePlugins).toEqual({});
    }
  });

  it("answers the same drivers in the node list's stubs", async () => {
    const nodes = await nodesOf(agent);
    for (const stub of (await agent.get("/v1/nodes")).json<(Item & { Name: string })[]>()) expect(stub.Drivers).toEqual(nodes.get(stub.Name)!.Drivers);
  });

  it("makes a driver unhealthy: its DriverInfo, the node event, and no placement of its tasks there", async () => {
    const client1 = (await nodesOf(agent)).get("client-1")!;
    const response = await setDriver(agent, client1.ID, "docker", { Healthy: false });
    expect(response.status, response.text).toBe(200);
    const node = (await agent.get(`/v1/node/${client1.ID}`)).json<NodeBody>();
    expect(node.Drivers.docker).toMatchObject({ Detected: true, Healthy: false, HealthDescription: "Driver docker is unhealthy", Attributes: { "driver.docker": "true" } });
    expect(node.Attributes["driver.docker"]).toBe("1");
    expect(node.Events.at(-1)).toMatchObject({ Subsystem: "Driver", Message: "Driver docker is unhealthy", Details: { driver: "docker" } });
    expect(response.json<{ Drivers: Item; Index: number }>()).toEqual({ Drivers: node.Drivers, Index: node.ModifyIndex });
    expect(await placeWith(agent, "on-docker", "docker", [{ LTarget: "${node.unique.name}", RTarget: "client-1", Operand: "=" }])).toEqual([]);
    // The other drivers of the node still take tasks.
    expect(await placeWith(agent, "on-exec", "exec", [{ LTarget: "${node.unique.name}", RTarget: "client-1", Operand: "=" }])).toEqual(["client-1"]);
  });

  it("places the blocked job once the driver is healthy again, with an event saying so", async () => {
    const client1 = (await nodesOf(agent)).get("client-1")!;
    expect((await setDriver(agent, client1.ID, "docker", { healthy: true })).status).toBe(200);
    await settled(agent.url);
    const node = (await agent.get(`/v1/node/${client1.ID}`)).json<NodeBody>();
    expect(node.Drivers.docker).toMatchObject({ Detected: true, Healthy: true, HealthDescription: "Healthy" });
    expect(node.Events.at(-1)).toMatchObject({ Subsystem: "Driver", Message: "Healthy", Details: { driver: "docker" } });
    expect((await agent.get("/v1/job/on-docker/allocations")).json<Item[]>().map((alloc) => alloc.NodeName)).toEqual(["client-1"]);
  });

  it("makes a driver undetected: its attribute goes, and the scheduler places its tasks on the other node", async () => {
    const client2 = (await nodesOf(agent)).get("client-2")!;
    const response = await setDriver(agent, client2.ID, "raw_exec", { Detected: false, HealthDescription: "disabled" });
    expect(response.status, response.text).toBe(200);
    const node = (await agent.get(`/v1/node/${client2.ID}`)).json<NodeBody>();
    expect(node.Drivers.raw_exec).toMatchObject({ Detected: false, Healthy: false, HealthDescription: "disabled" });
    expect(node.Attributes).not.toHaveProperty("driver.raw_exec");
    expect(await placeWith(agent, "raw-1", "raw_exec")).toEqual(["client-1"]);
    expect((await agent.get(`/v1/nodes?filter=${encodeURIComponent("Drivers.raw_exec.Detected == false")}`)).json<Item[]>().map((stub) => stub.Name)).toEqual(["client-2"]);
  });

  it("adds a driver the node did not have, detected and healthy", async () => {
    const client2 = (await nodesOf(agent)).get("client-2")!;
    expect((await setDriver(agent, client2.ID, "java", {})).status).toBe(200);
    const node = (await agent.get(`/v1/node/${client2.ID}`)).json<NodeBody>();
    expect(node.Drivers.java).toMatchObject({ Detected: true, Healthy: true, HealthDescription: "Healthy", Attributes: { "driver.java": "true" } });
    expect(node.Attributes["driver.java"]).toBe("1");
    expect(await placeWith(agent, "java-1", "java")).toEqual(["client-2"]);
  });

  it("keeps at most 64 drivers on a node", async () => {
    const client1 = (await nodesOf(agent)).get("client-1")!;
    let status = 200;
    let added = 0;
    for (let i = 0; status === 200 && i < 70; i++) {
      const response = await setDriver(agent, client1.ID, `extra${i}`, {});
      status = response.status;
      if (status === 200) added++;
      else expect(response.text).toBe("a node has at most 64 drivers");
    }
    expect(status).toBe(400);
    expect(Object.keys((await agent.get(`/v1/node/${client1.ID}`)).json<NodeBody>().Drivers)).toHaveLength(64);
    expect(added).toBe(64 - SIMULATED_DRIVERS.length);
  });

  it.each([
    ["an unknown node", "00000000-0000-4000-8000-000000000000", "docker", { Healthy: false }, 404, "node not found"],
    ["a healthy driver that is not detected", "", "docker", { Detected: false, Healthy: true }, 400, "a driver that is not detected cannot be healthy"],
    ["a driver name with a dot", "", "a.b", { Healthy: false }, 400, 'invalid driver name "a.b": letters, digits, "_" and "-", at most 64'],
    ["an unknown field", "", "docker", { Health: false }, 400, 'unknown field "Health": the body holds Detected, Healthy and HealthDescription'],
    ["a flag that is not a boolean", "", "docker", { Healthy: "no" }, 400, "Healthy must be true or false"],
    ["an empty body", "", "docker", "", 400, "Request body is empty"],
    ["a description past 1024 characters", "", "docker", { HealthDescription: "x".repeat(1025) }, 400, "HealthDescription is longer than 1024 characters"],
  ])("refuses %s", async (_what, nodeId, driver, body, status, message) => {
    const id = nodeId || (await nodesOf(agent)).get("client-1")!.ID;
    const response = await setDriver(agent, id, driver, body);
    expect([response.status, response.text]).toEqual([status, message]);
  });
});

describe.each(["svc", "nomad"] as const)("dynamic node metadata, in the %s header style", (headers) => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, headers, data: { Nodes: [{ Name: "n1", Meta: { rack: "r0", zone: "a" } }, { Name: "n2" }] } });
  const META = "/v1/client/metadata";
  const idOf = async (name: string) => (await nodesOf(agent)).get(name)!.ID;
  const apply = (body: unknown, query = "") => send(`${agent.url}${META}${query}`, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });

  it("reads a node's metadata: merged, dynamic and static", async () => {
    const response = await agent.get(`${META}?node_id=${await idOf("n1")}`);
    expect(response.status, response.text).toBe(200);
    expect(response.json()).toEqual({ Meta: { rack: "r0", zone: "a" }, Dynamic: {}, Static: { rack: "r0", zone: "a" } });
  });

  it("applies metadata: set, replaced, a static key removed with null (kept as null), a dynamic one forgotten", async () => {
    const id = await idOf("n1");
    expect((await apply({ NodeID: id, Meta: { rack: "r1", "team.name": "web" } })).json()).toEqual({
      Meta: { rack: "r1", "team.name": "web", zone: "a" },
      Dynamic: { rack: "r1", "team.name": "web" },
      Static: { rack: "r0", zone: "a" },
    });
    const removed = await apply({ NodeID: id, Meta: { zone: null, "team.name": null } });
    expect(removed.json()).toEqual({ Meta: { rack: "r1" }, Dynamic: { rack: "r1", zone: null }, Static: { rack: "r0", zone: "a" } });
    const node = (await agent.get(`/v1/node/${id}`)).json<NodeBody>();
    expect(node.Meta).toEqual({ rack: "r1" });
    expect(node).not.toHaveProperty("MetaDynamic");
    expect((await agent.get(`${META}?node_id=${id}`)).json()).toEqual(removed.json());
  });

  it("places by a constraint on the metadata applied", async () => {
    const n2 = await idOf("n2");
    expect((await apply({ Meta: { pool: "gold" } }, `?node_id=${n2}`)).status).toBe(200);
    expect(await placeWith(agent, `gold-${headers}`, "mock", [{ LTarget: "${meta.pool}", RTarget: "gold", Operand: "=" }])).toEqual(["n2"]);
    expect(await placeWith(agent, `rack-${headers}`, "mock", [{ LTarget: "${meta.rack}", RTarget: "r1", Operand: "=" }])).toEqual(["n1"]);
  });

  it.each([
    ["GET without node_id", "GET", "", undefined, 400, "No local Node and node_id not provided"],
    ["GET of an unknown node", "GET", "?node_id=00000000-0000-4000-8000-000000000000", undefined, 404, "Unknown node 00000000-0000-4000-8000-000000000000"],
    ["an apply without Meta", "POST", "?node_id=NODE", { NodeID: "" }, 400, "missing required Meta object"],
    ["an apply with an empty Meta", "POST", "?node_id=NODE", { Meta: {} }, 400, "missing required Meta object"],
    ["a key that is not a dotted identifier", "POST", "?node_id=NODE", { Meta: { "a b": "x" } }, 400, '"a b" is invalid; metadata keys must be valid dotted hcl identifiers'],
    ["an empty key", "POST", "?node_id=NODE", { Meta: { "": "x" } }, 400, "metadata keys must not be empty"],
    ["a value that is not a string", "POST", "?node_id=NODE", { Meta: { a: 1 } }, 400, "json: cannot unmarshal number into Go struct field NodeMetaApplyRequest.Meta of type string"],
    ["a body that is not the struct", "POST", "?node_id=NODE", "[1]", 400, "json: cannot unmarshal array into Go value of type structs.NodeMetaApplyRequest"],
    ["another method", "PUT", "", {}, 405, "Invalid method"],
    ["more than 1024 keys at once", "POST", "?node_id=NODE", { Meta: Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [`k${i}`, "v"])) }, 400, "at most 1024 metadata keys may be applied at once"],
  ])("refuses %s", async (_what, method, query, body, status, message) => {
    const path = `${agent.url}${META}${query.replace("NODE", await idOf("n1"))}`;
    const response = await send(path, { method, ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }) });
    expect([response.status, response.text]).toEqual([status, message]);
  });
});

describe("dynamic node metadata with ACLs", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000c0";
  const NODE_READER = "00000000-0000-4000-8000-0000000000c1";
  const NODE_WRITER = "00000000-0000-4000-8000-0000000000c2";
  const agent = useAgent({
    nodes: 1,
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "node-read", Rules: 'node { policy = "read" }' },
        { Name: "node-write", Rules: 'node { policy = "write" }' },
      ],
      tokens: [
        { SecretID: NODE_READER, Type: "client", Policies: ["node-read"] },
        { SecretID: NODE_WRITER, Type: "client", Policies: ["node-write"] },
      ],
    },
  });

  it.each([
    ["reads with node:read", NODE_READER, "GET", 200],
    ["refuses to read without a token", "", "GET", 403],
    ["refuses to apply with node:read", NODE_READER, "POST", 403],
    ["applies with node:write", NODE_WRITER, "POST", 200],
  ])("%s", async (_what, token, method, status) => {
    const id = (await send(`${agent.url}/v1/nodes`, { headers: { "x-svc-token": ROOT } })).json<Item[]>()[0]!.ID as string;
    const response = await send(`${agent.url}/v1/client/metadata?node_id=${id}`, { method, headers: token === "" ? {} : { "x-svc-token": token }, ...(method === "POST" ? { body: JSON.stringify({ Meta: { a: "b" } }) } : {}) });
    expect(response.status, response.text).toBe(status);
  });
});

describe("a snapshot of changed drivers, dynamic metadata and the autopilot configuration", () => {
  const agent = useAgent({ clock: "manual", nodes: 1 });

  it("puts them back as they were when it was taken", async () => {
    const [node] = (await nodesOf(agent)).values();
    expect((await setDriver(agent, node!.ID, "docker", { Healthy: false })).status).toBe(200);
    expect((await send(`${agent.url}/v1/client/metadata?node_id=${node!.ID}`, { method: "POST", body: JSON.stringify({ Meta: { rack: "r1" } }) })).status).toBe(200);
    expect((await agent.put("/v1/operator/autopilot/configuration", { CleanupDeadServers: false, LastContactThreshold: "1s" })).text).toBe("true");
    const read = async () => ({
      node: (await agent.get(`/v1/node/${node!.ID}`)).text,
      meta: (await agent.get(`/v1/client/metadata?node_id=${node!.ID}`)).text,
      autopilot: (await agent.get("/v1/operator/autopilot/configuration")).text,
    });
    const before = await read();
    const snapshot = await agent.agent.snapshot();
    expect((await setDriver(agent, node!.ID, "docker", { Healthy: true })).status).toBe(200);
    expect((await send(`${agent.url}/v1/client/metadata?node_id=${node!.ID}`, { method: "POST", body: JSON.stringify({ Meta: { rack: null } }) })).status).toBe(200);
    expect((await agent.put("/v1/operator/autopilot/configuration", { CleanupDeadServers: true })).text).toBe("true");
    expect(await read()).not.toEqual(before);
    await agent.agent.restore(snapshot);
    expect(await read()).toEqual(before);
    expect(JSON.parse(before.node).Drivers.docker).toMatchObject({ Healthy: false });
    expect(JSON.parse(before.meta)).toMatchObject({ Dynamic: { rack: "r1" } });
  });
});
