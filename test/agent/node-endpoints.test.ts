/**
 * A node's endpoints besides the drain: its allocations (a blocking query, filtered by namespace
 * with ACLs on), its eligibility (refused while it drains), its purge (its allocations lost and
 * replaced elsewhere) and its evaluation, with their errors, ACL capabilities and the write
 * messages' events. On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, useAgent } from "./support.js";

type Item = Record<string, unknown>;
type Node = Item & { ID: string; Name: string; SchedulingEligibility: string; Events: { Message: string; Subsystem: string }[] };
type Alloc = Item & { ID: string; NodeID: string; Namespace: string; ClientStatus: string };

const UNKNOWN_NODE = "00000000-0000-4000-8000-000000000000";

describe("a node's endpoints", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const post = (path: string, body = "") => send(agent.url + path, { method: "POST", body });

  it("lists a node's allocations, whole, and wakes a blocking query when one of them changes", async () => {
    await agent.register(job("tenant", { TaskGroups: [{ Name: "g", Count: 3, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance(0);
    const stubs = await read<Alloc[]>("/v1/job/tenant/allocations");
    const nodeId = stubs[0]!.NodeID;
    const response = await agent.get(`/v1/node/${nodeId}/allocations`);
    expect(response.status).toBe(200);
    const allocs = response.json<Alloc[]>();
    expect(allocs.map((alloc) => alloc.ID)).toEqual(stubs.filter((stub) => stub.NodeID === nodeId).map((stub) => stub.ID).sort());
    // Whole allocations, with their job, as the reference's Node.GetAllocs.
    expect(allocs[0]).toHaveProperty("Job.ID", "tenant");
    const index = Number(response.headers["x-svc-index"]);
    expect(index).toBe(Math.max(...allocs.map((alloc) => alloc.ModifyIndex as number)));
    const waiting = agent.get(`/v1/node/${nodeId}/allocations?index=${index}&wait=30s`);
    await agent.agent.clock.advance("1s");
    const woken = await waiting;
    expect(Number(woken.headers["x-svc-index"])).toBeGreaterThan(index);
    expect(woken.json<Alloc[]>().every((alloc) => alloc.ClientStatus === "running")).toBe(true);
    expect((await agent.get(`/v1/node/${UNKNOWN_NODE}/allocations`)).json()).toEqual([]);
  });

  it("marks a node ineligible and eligible again, with its events, answering zeros when nothing changes", async () => {
    const [node] = await read<Node[]>("/v1/nodes");
    const off = await agent.put(`/v1/node/${node!.ID}/eligibility`, { Eligibility: "ineligible" });
    expect(off.status, off.text).toBe(200);
    const offAnswer = off.json<Item>();
    expect(offAnswer).toMatchObject({ EvalIDs: null, EvalCreateIndex: 0 });
    expect(offAnswer.NodeModifyIndex).toBe(offAnswer.Index);
    const ineligible = await read<Node>(`/v1/node/${node!.ID}`);
    expect(ineligible).toMatchObject({ SchedulingEligibility: "ineligible", ModifyIndex: offAnswer.Index });
    expect(ineligible.Events.at(-1)).toMatchObject({ Message: "Node marked as ineligible for scheduling", Subsystem: "Cluster" });
    // Again: nothing to do, nothing written.
    expect((await agent.put(`/v1/node/${node!.ID}/eligibility`, { Eligibility: "ineligible" })).json()).toEqual({ NodeModifyIndex: 0, EvalIDs: null, EvalCreateIndex: 0, Index: 0 });
    const on = await agent.put(`/v1/node/${node!.ID}/eligibility`, { Eligibility: "eligible" });
    expect(on.status).toBe(200);
    expect((await read<Node>(`/v1/node/${node!.ID}`)).Events.at(-1)).toMatchObject({ Message: "Node marked as eligible for scheduling" });
  });

  it("evaluates a node's jobs", async () => {
    const stubs = await read<Alloc[]>("/v1/job/tenant/allocations");
    const response = await post(`/v1/node/${stubs[0]!.NodeID}/evaluate`);
    expect(response.status, response.text).toBe(200);
    const answer = response.json<{ EvalIDs: string[]; EvalCreateIndex: number; Index: number }>();
    expect(answer.EvalIDs).toHaveLength(1);
    expect(answer.Index).toBe(answer.EvalCreateIndex);
    expect(await read(`/v1/evaluation/${answer.EvalIDs[0]!}`)).toMatchObject({ JobID: "tenant", TriggeredBy: "node-update", NodeID: stubs[0]!.NodeID });
  });

  it("purges a node: gone from the state, its allocations lost and replaced on the others", async () => {
    const stubs = await read<Alloc[]>("/v1/job/tenant/allocations");
    const nodeId = stubs[0]!.NodeID;
    const onIt = stubs.filter((stub) => stub.NodeID === nodeId).length;
    const response = await post(`/v1/node/${nodeId}/purge`);
    expect(response.status, response.text).toBe(200);
    expect(response.json<{ EvalIDs: string[] }>().EvalIDs).toHaveLength(1);
    expect((await agent.get(`/v1/node/${nodeId}`)).status).toBe(404);
    await agent.agent.clock.advance("1s");
    const after = await read<Alloc[]>("/v1/job/tenant/allocations");
    expect(after.filter((alloc) => alloc.NodeID === nodeId).map((alloc) => alloc.ClientStatus)).toEqual(Array(onIt).fill("lost"));
    expect(after.filter((alloc) => alloc.ClientStatus === "running" && alloc.NodeID !== nodeId)).toHaveLength(3);
  });

  it("refuses to make a draining node eligible", async () => {
    const [node] = await read<Node[]>("/v1/nodes");
    expect((await agent.put(`/v1/node/${node!.ID}/drain`, { DrainSpec: { Deadline: 0 } })).status).toBe(200);
    const response = await agent.put(`/v1/node/${node!.ID}/eligibility`, { Eligibility: "eligible" });
    expect([response.status, response.text]).toEqual([400, "can not set node's scheduling eligibility to eligible while it is draining"]);
    expect((await agent.put(`/v1/node/${node!.ID}/drain`, { DrainSpec: null, MarkEligible: true })).status).toBe(200);
    expect((await read<Node>(`/v1/node/${node!.ID}`)).Events.at(-1)).toMatchObject({ Message: "Node drain disabled", Subsystem: "Drain" });
  });

  it.each([
    ["an eligibility it does not know", "PUT", "eligibility", '{"Eligibility":"maybe"}', true, 400, 'invalid scheduling eligibility "maybe"'],
    ["an eligibility of the wrong type", "PUT", "eligibility", '{"Eligibility":1}', true, 400, "json: cannot unmarshal number into Go struct field NodeUpdateEligibilityRequest.Eligibility of type string"],
    ["an unknown node's eligibility", "PUT", "eligibility", '{"Eligibility":"eligible"}', false, 404, "node not found"],
    ["an unknown node's drain", "POST", "drain", '{"DrainSpec":{"Deadline":0}}', false, 404, "node not found"],
    ["an unknown node's purge", "POST", "purge", "", false, 404, "node not found"],
    ["an unknown node's evaluation", "PUT", "evaluate", "", false, 404, "node not found"],
    ["a GET of the drain", "GET", "drain", "", true, 405, "Invalid method"],
    ["a PUT of the allocations", "PUT", "allocations", "", true, 405, "Invalid method"],
  ])("refuses %s", async (_, method, action, body, known, status, text) => {
    const [node] = await read<Node[]>("/v1/nodes");
    const response = await send(`${agent.url}/v1/node/${known ? node!.ID : UNKNOWN_NODE}/${action}`, { method, ...(body === "" ? {} : { body }) });
    expect([response.status, response.text]).toEqual([status, text]);
  });

  it("writes each change with the reference's message, whose events the stream names", async () => {
    const [node] = await read<Node[]>("/v1/nodes");
    const from = (await agent.put(`/v1/node/${node!.ID}/eligibility`, { Eligibility: "ineligible" })).json<{ Index: number }>().Index;
    await agent.put(`/v1/node/${node!.ID}/drain`, { DrainSpec: { Deadline: 0 } });
    await agent.put(`/v1/node/${node!.ID}/drain`, { DrainSpec: null, MarkEligible: true });
    const controller = new AbortController();
    const stream = await fetch(`${agent.url}/v1/event/stream?topic=Node&index=${from}`, { signal: controller.signal });
    const reader = stream.body!.getReader();
    let text = "";
    while (!(text.includes('"NodeEligibility"') && text.match(/"NodeDrain"/g)?.length === 2)) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toContain('"Type":"NodeEligibility"');
  });
});

describe("a node's endpoints with ACLs on", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000b0";
  const NODE_READER = "00000000-0000-4000-8000-0000000000b1";
  const A_AND_NODE_READER = "00000000-0000-4000-8000-0000000000b2";
  const agent = useAgent({
    clock: "manual",
    placementDelayMs: 1000,
    nodes: 1,
    namespaces: [{ Name: "a" }, { Name: "b" }],
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "node-read", Rules: 'node { policy = "read" }' },
        { Name: "a-read", Rules: 'namespace "a" { policy = "read" }' },
      ],
      tokens: [
        { SecretID: NODE_READER, Name: "node reader", Type: "client", Policies: ["node-read"] },
        { SecretID: A_AND_NODE_READER, Name: "a and node reader", Type: "client", Policies: ["node-read", "a-read"] },
      ],
    },
  });
  const as = (token: string, path: string, method = "GET", body?: string) => send(agent.url + path, { method, headers: { "x-svc-token": token }, ...(body === undefined ? {} : { body }) });

  it("needs node:read for the allocations, and lists only the namespaces the token may read", async () => {
    for (const namespace of ["a", "b"]) expect((await as(ROOT, `/v1/jobs?namespace=${namespace}`, "PUT", JSON.stringify({ Job: job(`job-${namespace}`) }))).status).toBe(200);
    await agent.agent.clock.advance(0);
    const [node] = (await as(ROOT, "/v1/nodes")).json<Node[]>();
    const path = `/v1/node/${node!.ID}/allocations`;
    expect((await as(ROOT, path)).json<Alloc[]>().map((alloc) => alloc.Namespace).sort()).toEqual(["a", "b"]);
    expect((await as(A_AND_NODE_READER, path)).json<Alloc[]>().map((alloc) => alloc.Namespace)).toEqual(["a"]);
    expect((await as(NODE_READER, path)).json()).toEqual([]);
    expect((await agent.get(path)).status).toBe(403);
  });

  it.each([
    ["eligibility", '{"Eligibility":"ineligible"}'],
    ["drain", '{"DrainSpec":null}'],
    ["purge", ""],
    ["evaluate", ""],
  ])("needs node:write to write %s", async (action, body) => {
    const [node] = (await as(ROOT, "/v1/nodes")).json<Node[]>();
    const response = await as(NODE_READER, `/v1/node/${node!.ID}/${action}`, "PUT", body);
    expect([response.status, response.text]).toEqual([403, "Permission denied"]);
  });
});
