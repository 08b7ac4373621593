/**
 * The reads of single things, over a real socket: a job and its summary, allocations, evaluations
 * and deployments; an allocation, an evaluation, a deployment and a node by ID; the status
 * endpoints. Each answers the reference's shape (its fields in the reference's order, `omitempty`
 * where the reference's struct has it), as a blocking query with the meta headers, its index taken
 * where the reference takes it; a 404 carries the meta headers too; client mistakes are 400s.
 * The scheduler moves on the manual clock only.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, job, useAgent, type Response } from "./support.js";

const DELAY_MS = 1000;
const agent = useAgent({ clock: "manual", placementDelayMs: DELAY_MS, nodes: 2, namespaces: [{ Name: "prod" }] });

type Item = Record<string, unknown>;
const body = <T = Item>(response: Response): T => {
  expect(response.status, response.text).toBe(200);
  return response.json<T>();
};

/** `structs.Job`'s fields, in the reference's order. */
const JOB_FIELDS = ["Stop", "Region", "Namespace", "ID", "ParentID", "Name", "Type", "Priority", "AllAtOnce", "Datacenters", "NodePool", "Constraints", "Affinities", "Spreads", "TaskGroups", "Update", "Multiregion", "Periodic", "ParameterizedJob", "Dispatched", "DispatchIdempotencyToken", "Payload", "Meta", "ConsulToken", "ConsulNamespace", "VaultToken", "VaultNamespace", "NomadTokenID", "Status", "StatusDescription", "Stable", "Version", "SubmitTime", "CreateIndex", "ModifyIndex", "JobModifyIndex", "UI", "VersionTag"];
const TASK_GROUP_FIELDS = ["Name", "Count", "Update", "Migrate", "Constraints", "Scaling", "RestartPolicy", "Disconnect", "Tasks", "EphemeralDisk", "Meta", "ReschedulePolicy", "Affinities", "Spreads", "Networks", "Consul", "Services", "Volumes", "ShutdownDelay", "StopAfterClientDisconnect", "MaxClientDisconnect", "PreventRescheduleOnLost"];
const TASK_FIELDS = ["Name", "Driver", "User", "Config", "Env", "Services", "Vault", "Consul", "Templates", "Constraints", "Affinities", "Resources", "RestartPolicy", "DispatchPayload", "Lifecycle", "Meta", "KillTimeout", "LogConfig", "Artifacts", "Leader", "ShutdownDelay", "VolumeMounts", "ScalingPolicies", "KillSignal", "Kind", "CSIPluginConfig", "Identity", "Identities", "Actions", "Schedule"];
const ALLOC_STUB_FIELDS = ["ID", "EvalID", "Name", "Namespace", "NodeID", "NodeName", "JobID", "JobType", "JobVersion", "TaskGroup", "DesiredStatus", "DesiredDescription", "ClientStatus", "ClientDescription", "DesiredTransition", "TaskStates", "DeploymentStatus", "FollowupEvalID", "NextAllocation", "RescheduleTracker", "PreemptedAllocations", "PreemptedByAllocation", "CreateIndex", "ModifyIndex", "CreateTime", "ModifyTime"];
const ALLOCATION_FIELDS = ["ID", "Namespace", "EvalID", "Name", "NodeID", "NodeName", "JobID", "Job", "TaskGroup", "Resources", "SharedResources", "TaskResources", "AllocatedResources", "Metrics", "DesiredStatus", "DesiredDescription", "DesiredTransition", "ClientStatus", "ClientDescription", "TaskStates", "AllocStates", "PreviousAllocation", "NextAllocation", "DeploymentID", "DeploymentStatus", "RescheduleTracker", "NetworkStatus", "FollowupEvalID", "PreemptedAllocations", "PreemptedByAllocation", "SigningKeyID", "CreateIndex", "ModifyIndex", "AllocModifyIndex", "CreateTime", "ModifyTime"];
const EVALUATION_FIELDS = ["ID", "Namespace", "Priority", "Type", "TriggeredBy", "JobID", "JobModifyIndex", "NodeID", "NodeModifyIndex", "DeploymentID", "Status", "StatusDescription", "Wait", "WaitUntil", "NextEval", "PreviousEval", "BlockedEval", "RelatedEvals", "FailedTGAllocs", "ClassEligibility", "QuotaLimitReached", "EscapedComputedClass", "AnnotatePlan", "QueuedAllocations", "LeaderACL", "SnapshotIndex", "CreateIndex", "ModifyIndex", "CreateTime", "ModifyTime"];
const NODE_FIELDS = ["ID", "SecretID", "Datacenter", "Name", "CgroupParent", "HTTPAddr", "TLSEnabled", "Attributes", "NodeResources", "ReservedResources", "Resources", "Reserved", "Links", "Meta", "NodeClass", "NodePool", "ComputedClass", "DrainStrategy", "SchedulingEligibility", "Status", "StatusDescription", "StatusUpdatedAt", "Events", "Drivers", "CSIControllerPlugins", "CSINodePlugins", "HostVolumes", "HostNetworks", "LastDrain", "LastMissedHeartbeatIndex", "LastAllocUpdateIndex", "CreateIndex", "ModifyIndex", "Drain"];
const NODE_STUB_FIELDS = ["Address", "ID", "Datacenter", "Name", "NodePool", "NodeClass", "Version", "Drain", "SchedulingEligibility", "Status", "StatusDescription", "Drivers", "HostVolumes", "LastDrain", "CreateIndex", "ModifyIndex"];

/** The fields of `all` an object of an `omitempty` struct has, in `all`'s order: its keys must be these, in this order. */
const inOrder = (all: readonly string[], object: Item) => all.filter((name) => Object.hasOwn(object, name));

/** The meta headers of a read: an index, a known leader, no staleness. */
function expectReadMeta(response: Response, index?: number): void {
  expect(response.headers["x-svc-index"]).toMatch(/^[1-9][0-9]*$/);
  if (index !== undefined) expect(response.headers["x-svc-index"]).toBe(String(index));
  expect(response.headers["x-svc-knownleader"]).toBe("true");
  expect(response.headers["x-svc-lastcontact"]).toBe("0");
}

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  await agent.register(job("web", { Meta: { owner: "team-a" }, TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
  await agent.register(job("report", { Type: "batch" }));
  await agent.agent.clock.advance(0);
});

describe("GET /v1/job/<id>", () => {
  it("answers the full stored job in the reference's field order, with its defaults, at the job's ModifyIndex", async () => {
    const response = await agent.get("/v1/job/web");
    const web = body(response);
    expect(Object.keys(web)).toEqual(JOB_FIELDS);
    expect(web).toMatchObject({ ID: "web", Namespace: "default", Type: "service", Status: "running", Meta: { owner: "team-a" }, Version: 0, UI: null, VersionTag: null });
    const [group] = web.TaskGroups as Item[];
    expect(Object.keys(group!)).toEqual(TASK_GROUP_FIELDS);
    expect(group).toMatchObject({
      Count: 2,
      RestartPolicy: { Attempts: 2, Interval: 1_800_000_000_000, Delay: 15_000_000_000, Mode: "fail" },
      ReschedulePolicy: { Delay: 30_000_000_000, DelayFunction: "exponential", MaxDelay: 3_600_000_000_000, Unlimited: true },
      Update: { MaxParallel: 1, ProgressDeadline: 600_000_000_000 },
    });
    expect(Object.keys((group!.Tasks as Item[])[0]!)).toEqual(TASK_FIELDS);
    expectReadMeta(response, web.ModifyIndex as number);
    const report = body(await agent.get("/v1/job/report"));
    expect((report.TaskGroups as Item[])[0]).toMatchObject({ RestartPolicy: { Attempts: 3, Interval: 86_400_000_000_000 }, ReschedulePolicy: { Attempts: 1, DelayFunction: "constant" } });
  });

  it("answers 404 `job not found` with the meta headers, and looks in the request's namespace only", async () => {
    const missing = await agent.get("/v1/job/nope");
    expect([missing.status, missing.text, missing.headers["content-type"]]).toEqual([404, "job not found", "text/plain; charset=utf-8"]);
    expectReadMeta(missing);
    expect((await agent.get("/v1/job/web?namespace=prod")).status).toBe(404);
    expect((await agent.get("/v1/job/web?namespace=*")).status).toBe(404);
    expect([(await agent.get("/v1/job/web?region=mars")).status, (await agent.get("/v1/job/web?region=mars")).text]).toEqual([500, "No path to region"]);
    expect((await agent.get("/v1/job/web?stale=maybe")).status).toBe(400);
  });

  it("answers the summary at its ModifyIndex, for any method (the reference's summary route reads on every verb)", async () => {
    const response = await agent.get("/v1/job/web/summary");
    const summary = body(response);
    expect(Object.keys(summary)).toEqual(["JobID", "Namespace", "Summary", "Children", "CreateIndex", "ModifyIndex"]);
    expect(summary.Summary).toEqual({ g: { Queued: 0, Complete: 0, Failed: 0, Running: 0, Starting: 2, Lost: 0, Unknown: 0 } });
    expectReadMeta(response, summary.ModifyIndex as number);
    expect(body(await agent.get("/v1/job/web/summary", { method: "POST" }))).toEqual(summary);
    expect([(await agent.get("/v1/job/nope/summary")).status, (await agent.get("/v1/job/nope/summary")).text]).toEqual([404, "job not found"]);
  });

  it("lists a job's allocations as stubs by ID, at the allocations table's index", async () => {
    const response = await agent.get("/v1/job/web/allocations");
    const stubs = body<Item[]>(response);
    expect(stubs).toHaveLength(2);
    expect(stubs.map((stub) => stub.ID)).toEqual(stubs.map((stub) => stub.ID as string).sort());
    for (const stub of stubs) expect(Object.keys(stub)).toEqual(ALLOC_STUB_FIELDS);
    expect(stubs[0]).toMatchObject({ JobID: "web", JobType: "service", JobVersion: 0, TaskGroup: "g", DesiredStatus: "run", ClientStatus: "pending", DesiredTransition: { Migrate: null }, DeploymentStatus: { Healthy: null, Timestamp: null, Canary: false } });
    // The index is the table's: the batch job's allocations, placed after web's, moved it.
    const every = body<Item[]>(await agent.get("/v1/allocations"));
    expectReadMeta(response, Math.max(...every.map((alloc) => alloc.ModifyIndex as number)));
    expect(every.some((alloc) => alloc.JobID === "report" && (alloc.ModifyIndex as number) > (stubs[0]!.ModifyIndex as number))).toBe(true);
    expect(body(await agent.get("/v1/job/nope/allocations"))).toEqual([]);
    expect(body(await agent.get("/v1/job/web/allocations?all=true"))).toEqual(stubs);
    const bad = await agent.get("/v1/job/web/allocations?all=maybe");
    expect([bad.status, bad.text]).toEqual([400, 'Failed to parse value of "all" (maybe) as a bool: strconv.ParseBool: parsing "maybe": invalid syntax']);
  });

  it("lists a job's evaluations in full, by status then ID, without their empty fields", async () => {
    await agent.register(job("web", { Meta: { owner: "team-b" }, TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    await agent.agent.clock.advance(0);
    const response = await agent.get("/v1/job/web/evaluations");
    const evals = body<Item[]>(response);
    expect(evals).toHaveLength(2);
    const order = (a: Item, b: Item) => ((a.Status as string) < (b.Status as string) ? -1 : a.Status !== b.Status ? 1 : (a.ID as string) < (b.ID as string) ? -1 : 1);
    expect(evals).toEqual([...evals].sort(order));
    for (const evaluation of evals) expect(Object.keys(evaluation)).toEqual(inOrder(EVALUATION_FIELDS, evaluation));
    expect(evals[0]).toMatchObject({ JobID: "web", TriggeredBy: "job-register", Type: "service", Priority: 50, Status: "complete" });
    expect(new Set(evals.map((evaluation) => evaluation.JobModifyIndex)).size).toBe(2);
    // omitempty: no node, no blocked evaluation, no wait.
    for (const field of ["NodeID", "NodeModifyIndex", "BlockedEval", "Wait", "WaitUntil", "RelatedEvals"]) expect(evals[0]).not.toHaveProperty(field);
    // The evaluations table's index.
    expectReadMeta(response, Math.max(...body<Item[]>(await agent.get("/v1/evaluations?namespace=*")).map((evaluation) => evaluation.ModifyIndex as number)));
    expect(body(await agent.get("/v1/job/nope/evaluations"))).toEqual([]);
  });

  it("lists a job's deployments by ID and answers the latest, or null for a job without one", async () => {
    const deployments = body<Item[]>(await agent.get("/v1/job/web/deployments"));
    expect(deployments).toHaveLength(2);
    expect(deployments.map((deployment) => deployment.ID)).toEqual(deployments.map((deployment) => deployment.ID as string).sort());
    const newest = [...deployments].sort((a, b) => (b.CreateIndex as number) - (a.CreateIndex as number))[0]!;
    expect(newest).toMatchObject({ JobVersion: 1, Status: "running" });
    const latest = await agent.get("/v1/job/web/deployment");
    expect(body(latest)).toEqual(newest);
    expectReadMeta(latest);
    const all = body<Item[]>(await agent.get("/v1/deployments"));
    expect(deployments).toEqual(all.filter((deployment) => deployment.JobID === "web").sort((a, b) => ((a.ID as string) < (b.ID as string) ? -1 : 1)));
    const none = await agent.get("/v1/job/report/deployment");
    expect([none.status, none.text]).toEqual([200, "null"]);
    expect(body(await agent.get("/v1/job/report/deployments"))).toEqual([]);
  });

  it("answers a blocking query on a job's allocations when the scheduler changes them", async () => {
    // Every earlier job's steps run first: the only allocation write to come is this job's.
    await agent.agent.clock.advance(DELAY_MS * 2);
    await agent.register(job("blocky"));
    await agent.agent.clock.advance(0);
    const placed = await agent.get("/v1/job/blocky/allocations");
    expect(body<Item[]>(placed).map((alloc) => alloc.ClientStatus)).toEqual(["pending"]);
    const index = Number(placed.headers["x-svc-index"]);
    const waiting = agent.get(`/v1/job/blocky/allocations?index=${index}&wait=30s`);
    await eventually(async () => (agent.agent.blockingQueries > 0 ? true : undefined));
    const started = Date.now();
    // Half the placement delay: the allocations run.
    await agent.agent.clock.advance(DELAY_MS / 2);
    const woken = await waiting;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(Number(woken.headers["x-svc-index"])).toBeGreaterThan(index);
    expect(body<Item[]>(woken).map((alloc) => alloc.ClientStatus)).toEqual(["running"]);
  });

  it("keeps a blocking query on one job waiting through writes to another (its index is the job's)", async () => {
    const response = await agent.get("/v1/job/report");
    const index = Number(response.headers["x-svc-index"]);
    const waiting = agent.get(`/v1/job/report?index=${index}&wait=400ms`);
    await eventually(async () => (agent.agent.blockingQueries > 0 ? true : undefined));
    await agent.register(job("other"));
    const answered = await waiting;
    expect(answered.headers["x-svc-index"]).toBe(String(index));
    expect(agent.agent.blockingQueries).toBe(0);
  });
});

describe("GET /v1/allocation/<id>", () => {
  it("answers the full allocation, its job included and its empty fields left out, at its ModifyIndex", async () => {
    const stub = body<Item[]>(await agent.get("/v1/job/web/allocations")).find((alloc) => alloc.DesiredStatus === "run");
    const response = await agent.get(`/v1/allocation/${stub!.ID}`);
    const alloc = body(response);
    expect(Object.keys(alloc)).toEqual(inOrder(ALLOCATION_FIELDS, alloc));
    expect(alloc).toMatchObject({ ID: stub!.ID, Namespace: "default", JobID: "web", TaskGroup: "g", DesiredStatus: "run", AllocModifyIndex: stub!.CreateIndex });
    expect(Object.keys(alloc.Job as Item)).toEqual(JOB_FIELDS);
    expect(alloc.DeploymentID).toMatch(/^[0-9a-f-]{36}$/);
    // omitempty: an all-zero DesiredTransition, empty strings and nil maps are not written.
    for (const field of ["DesiredTransition", "NextAllocation", "Metrics", "SigningKeyID", "DesiredDescription"]) expect(alloc).not.toHaveProperty(field);
    // An update's allocation names the one of the older version it replaced, as the reference's destructive updates do.
    if (alloc.PreviousAllocation !== undefined) expect(body(await agent.get(`/v1/allocation/${alloc.PreviousAllocation as string}`))).toMatchObject({ DesiredStatus: "stop", NextAllocation: alloc.ID });
    // Its task's state follows its client status, as the reference's client reports it.
    const task = (alloc.TaskStates as Record<string, Item>).t!;
    expect(task.State).toBe(alloc.ClientStatus === "pending" ? "pending" : "running");
    expect((task.Events as Item[]).slice(0, 2).map((event) => event.Type)).toEqual(["Received", "Task Setup"]);
    expectReadMeta(response, alloc.ModifyIndex as number);
    // The reference's UUID index reads the hex digits: upper case finds it too.
    expect(body(await agent.get(`/v1/allocation/${(stub!.ID as string).toUpperCase()}`))).toEqual(alloc);
  });

  it.each([
    ["abc", "alloc lookup failed: index error: UUID must be 36 characters"],
    ["zzzzzzzz-0000-4000-8000-000000000000", "alloc lookup failed: index error: Invalid UUID: encoding/hex: invalid byte: U+007A 'z'"],
    ["0-0-0-0-0-00000000000000000000000000", 'alloc lookup failed: index error: UUID should have maximum of 4 "-"; got 5'],
  ])("answers 400 for the malformed ID %s, in the reference's words", async (id, text) => {
    const response = await agent.get(`/v1/allocation/${id}`);
    expect([response.status, response.text]).toEqual([400, text]);
  });

  it("answers 404 `alloc not found` with the allocations table's index", async () => {
    const response = await agent.get(`/v1/allocation/${UNKNOWN_ID}`);
    expect([response.status, response.text]).toEqual([404, "alloc not found"]);
    expectReadMeta(response);
    expect(response.headers["x-svc-index"]).toBe((await agent.get("/v1/job/web/allocations")).headers["x-svc-index"]);
  });
});

describe("GET /v1/evaluation/<id>", () => {
  it("answers the full evaluation at its ModifyIndex; related=true adds no empty RelatedEvals", async () => {
    const [listed] = body<Item[]>(await agent.get("/v1/job/report/evaluations"));
    const response = await agent.get(`/v1/evaluation/${listed!.ID}`);
    expect(body(response)).toEqual(listed);
    expectReadMeta(response, listed!.ModifyIndex as number);
    expect(body(await agent.get(`/v1/evaluation/${listed!.ID}?related=true`))).toEqual(listed);
  });

  it("answers 404 `eval not found`, and 400 for a malformed ID", async () => {
    const missing = await agent.get(`/v1/evaluation/${UNKNOWN_ID}`);
    expect([missing.status, missing.text]).toEqual([404, "eval not found"]);
    expectReadMeta(missing);
    const bad = await agent.get("/v1/evaluation/123");
    expect([bad.status, bad.text]).toEqual([400, "failed to lookup eval: eval lookup failed: index error: UUID must be 36 characters"]);
  });
});

describe("GET /v1/deployment/<id>", () => {
  it("answers the deployment as the list shows it, at its ModifyIndex", async () => {
    const [listed] = body<Item[]>(await agent.get("/v1/job/web/deployments"));
    const response = await agent.get(`/v1/deployment/${listed!.ID}`);
    expect(body(response)).toEqual(listed);
    expectReadMeta(response, listed!.ModifyIndex as number);
  });

  it("answers 404 `deployment not found` with the meta headers, and 400 for a missing or malformed ID", async () => {
    const missing = await agent.get(`/v1/deployment/${UNKNOWN_ID}`);
    expect([missing.status, missing.text]).toEqual([404, "deployment not found"]);
    expectReadMeta(missing);
    expect([(await agent.get("/v1/deployment/")).status, (await agent.get("/v1/deployment/")).text]).toEqual([400, "missing deployment ID"]);
    expect((await agent.get("/v1/deployment/abc")).text).toBe("deployment lookup failed: index error: UUID must be 36 characters");
    expect((await agent.get("/v1/deployment/abc", { method: "DELETE" })).status).toBe(405);
  });
});

describe("GET /v1/nodes and /v1/node/<id>", () => {
  it("lists the nodes by ID as stubs; os=true adds the OS name", async () => {
    const response = await agent.get("/v1/nodes");
    const nodes = body<Item[]>(response);
    expect(nodes).toHaveLength(2);
    expect(nodes.map((node) => node.ID)).toEqual(nodes.map((node) => node.ID as string).sort());
    for (const node of nodes) expect(Object.keys(node)).toEqual(NODE_STUB_FIELDS);
    expect(nodes[0]).toMatchObject({ Datacenter: "dc1", NodePool: "default", Status: "ready", Drain: false, SchedulingEligibility: "eligible" });
    expectReadMeta(response);
    const withOs = body<Item[]>(await agent.get("/v1/nodes?os=true"));
    expect(withOs[0]!.Attributes).toEqual({ "os.name": "debian" });
    expect(Object.keys(withOs[0]!)).toEqual(["Address", "ID", "Attributes", ...NODE_STUB_FIELDS.slice(2)]);
  });

  it("pages by bare node ID, ignores reverse as the reference does, and selects by ID prefix", async () => {
    const ids = body<Item[]>(await agent.get("/v1/nodes")).map((node) => node.ID as string);
    const first = await agent.get("/v1/nodes?per_page=1");
    expect(body<Item[]>(first).map((node) => node.ID)).toEqual([ids[0]]);
    expect(first.headers["x-svc-nexttoken"]).toBe(ids[1]);
    expect(body<Item[]>(await agent.get(`/v1/nodes?next_token=${ids[1]}`)).map((node) => node.ID)).toEqual([ids[1]]);
    expect(body<Item[]>(await agent.get("/v1/nodes?reverse=true")).map((node) => node.ID)).toEqual(ids);
    expect(body<Item[]>(await agent.get(`/v1/nodes?prefix=${ids[1]!.slice(0, 8)}`)).map((node) => node.ID)).toEqual([ids[1]]);
  });

  it("filters on the full node, and on the fields its stub shows", async () => {
    const filtered = async (filter: string) => body<Item[]>(await agent.get(`/v1/nodes?filter=${encodeURIComponent(filter)}`)).map((node) => node.Name as string).sort();
    expect(await filtered('Attributes["os.name"] == "debian" and HTTPAddr matches ":4646$"')).toEqual(["client-1", "client-2"]);
    expect(await filtered('Attributes["nomad.version"] == "2.0.6" and Name == "client-2"')).toEqual(["client-2"]);
    expect(await filtered('Address == "127.0.0.2" and Drain == false')).toEqual(["client-1"]);
    const unknown = await agent.get(`/v1/nodes?filter=${encodeURIComponent("Nope == 1")}`);
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/^failed to read result page: /);
  });

  it("answers one node in full, sanitized, with the trailing Drain", async () => {
    const [stub] = body<Item[]>(await agent.get("/v1/nodes"));
    const response = await agent.get(`/v1/node/${stub!.ID}`);
    const node = body(response);
    expect(Object.keys(node)).toEqual(NODE_FIELDS);
    expect(node).toMatchObject({ ID: stub!.ID, SecretID: "", HTTPAddr: `${stub!.Address}:4646`, Name: stub!.Name, DrainStrategy: null, Drain: false });
    expect(node.Attributes).toMatchObject({ "os.name": "debian", "nomad.version": "2.0.6" });
    expectReadMeta(response, node.ModifyIndex as number);
    // Registered as the reference's state store registers a node: its status's time, and its first event.
    const registeredAt = node.StatusUpdatedAt as number;
    expect(registeredAt).toBeGreaterThan(1_600_000_000);
    expect(node.Events).toEqual([{ Message: "Node registered", Subsystem: "Cluster", Details: null, Timestamp: new Date(registeredAt * 1000).toISOString().replace(".000Z", "Z"), CreateIndex: node.CreateIndex }]);
  });

  it.each([
    ["/v1/node/" + UNKNOWN_ID, 404, "node not found"],
    ["/v1/node/", 400, "missing node ID"],
    ["/v1/node/xyz", 400, "node lookup failed: index error: UUID must be 36 characters"],
    ["/v1/nodes?prefix=abc", 400, 'Invalid ID prefix "abc": a prefix must have an even number of hexadecimal characters'],
    ["/v1/nodes?os=maybe", 400, 'Failed to parse node list fields: Failed to parse value of "os" (maybe) as a bool: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ["/v1/nodes?resources=2", 400, 'Failed to parse node list fields: Failed to parse value of "resources" (2) as a bool: strconv.ParseBool: parsing "2": invalid syntax'],
  ])("%s answers %i %s", async (path, status, text) => {
    const response = await agent.get(path);
    expect([response.status, response.text]).toEqual([status, text]);
  });
});

describe("GET /v1/status/leader, /v1/status/peers and /v1/regions", () => {
  it("answer this agent's server address and region as plain JSON, without meta headers", async () => {
    const leader = await agent.get("/v1/status/leader");
    expect([leader.status, leader.text]).toEqual([200, '"127.0.0.1:4647"']);
    expect(leader.headers["x-svc-index"]).toBeUndefined();
    expect(body(await agent.get("/v1/status/peers"))).toEqual(["127.0.0.1:4647"]);
    const regions = await agent.get("/v1/regions");
    expect(body(regions)).toEqual(["global"]);
    expect(regions.headers["x-svc-knownleader"]).toBeUndefined();
  });

  it("forward the region (another is `No path to region`), except the region list; other methods are 405", async () => {
    for (const path of ["/v1/status/leader", "/v1/status/peers"]) expect([(await agent.get(`${path}?region=mars`)).status, (await agent.get(`${path}?region=mars`)).text]).toEqual([500, "No path to region"]);
    expect(body(await agent.get("/v1/regions?region=mars"))).toEqual(["global"]);
    expect((await agent.get("/v1/status/leader", { method: "PUT" })).status).toBe(405);
    expect((await agent.get("/v1/regions?stale=maybe")).status).toBe(400);
  });
});
