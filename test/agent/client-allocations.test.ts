/**
 * A client's allocation actions, as the reference's Go client calls them (`Allocations().Restart`,
 * `RestartAllTasks`, `Signal`, `Stats`, `Checks`, `GC`, `Nodes().Stats`, `Nodes().GC`): task
 * events and restart counts, a signal that ends a task, usage within the task's and node's
 * resources moving on the manual clock, check results the job scripts, collection, the
 * reference's errors and ACL capabilities, over real sockets.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "../../src/json.js";
import { job, send, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

const UNKNOWN = "00000000-0000-4000-8000-00000000dead";
const MB = 1024 * 1024;

/** A service job of one group `g` with tasks `web` and `side`, each with its own resources. */
const twoTasks = (id: string, meta: Record<string, string> = {}) =>
  job(id, {
    Meta: meta,
    TaskGroups: [
      {
        Name: "g",
        Count: 1,
        Tasks: [
          { Name: "web", Driver: "docker", Resources: { CPU: 500, MemoryMB: 256 } },
          { Name: "side", Driver: "docker", Resources: { CPU: 100, MemoryMB: 64 } },
        ],
      },
    ],
  });

/** The helpers of one agent: its job's running allocation, an allocation read back. */
function helpers(agent: TestAgent) {
  const read = async (path: string) => (await agent.get(path)).json<Item>();
  const running = async (id: string, meta: Record<string, string> = {}, spec = twoTasks(id, meta)) => {
    await agent.register(spec);
    await agent.agent.clock.advance("1s");
    const [alloc] = (await agent.get(`/v1/job/${id}/allocations`)).json<Item[]>();
    expect(alloc).toMatchObject({ ClientStatus: "running" });
    return alloc!.ID as string;
  };
  return { read, running };
}

describe("restarting an allocation's tasks", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  const { read, running } = helpers(agent);

  it("restarts one task: its events and restart count, the other task left alone", async () => {
    const id = await running("restart-one");
    await agent.agent.clock.advance("5s");
    const response = await agent.put(`/v1/client/allocation/${id}/restart`, { TaskName: "web" });
    expect({ status: response.status, body: response.json() }).toEqual({ status: 200, body: { Index: 0 } });
    const { TaskStates } = await read(`/v1/allocation/${id}`);
    expect(TaskStates.web.Restarts).toBe(1);
    expect(TaskStates.web.State).toBe("running");
    expect(TaskStates.web.LastRestart).toBe(TaskStates.web.StartedAt);
    expect(TaskStates.web.Events.map((event: Item) => event.Type)).toEqual(["Received", "Task Setup", "Started", "Restart Signaled", "Terminated", "Restarting", "Started"]);
    expect(TaskStates.web.Events[3]).toMatchObject({ RestartReason: "User requested task to restart", DisplayMessage: "User requested task to restart" });
    expect(TaskStates.web.Events[5]).toMatchObject({ DisplayMessage: "Task restarting in 0s", StartDelay: 0 });
    expect(TaskStates.side).toMatchObject({ Restarts: 0, LastRestart: "0001-01-01T00:00:00Z" });
    expect(TaskStates.side.Events.map((event: Item) => event.Type)).toEqual(["Received", "Task Setup", "Started"]);
  });

  it.each([
    ["no body: the running tasks", "", "User requested running tasks to restart"],
    ["AllTasks", JSON.stringify({ AllTasks: true }), "User requested all tasks to restart"],
  ])("restarts every task with %s", async (_name, body, reason) => {
    const id = await running(`restart-all-${reason.length}`);
    const response = await agent.put(`/v1/client/allocation/${id}/restart`, body);
    expect(response.status, response.text).toBe(200);
    const { TaskStates } = await read(`/v1/allocation/${id}`);
    for (const task of ["web", "side"]) {
      expect(TaskStates[task].Restarts).toBe(1);
      expect(TaskStates[task].Events.find((event: Item) => event.Type === "Restart Signaled")).toMatchObject({ RestartReason: reason });
    }
  });

  it("counts restarts and keeps the reference client's last 10 events of a task", async () => {
    const id = await running("restart-many");
    for (let i = 0; i < 4; i++) {
      await agent.agent.clock.advance("1s");
      expect((await agent.put(`/v1/client/allocation/${id}/restart`, { TaskName: "web" })).status).toBe(200);
    }
    const { TaskStates } = await read(`/v1/allocation/${id}`);
    expect(TaskStates.web.Restarts).toBe(4);
    expect(TaskStates.web.Events).toHaveLength(10);
    expect(TaskStates.web.Events.at(-1).Type).toBe("Started");
    expect(TaskStates.web.Events[0].Type).not.toBe("Received");
  });

  it("keeps restarts and signals through a snapshot's text and restore", async () => {
    const id = await running("snapshotted");
    await agent.put(`/v1/client/allocation/${id}/restart`, { TaskName: "web" });
    await agent.put(`/v1/client/allocation/${id}/signal`, { Task: "side", Signal: "SIGUSR2" });
    const before = (await agent.get(`/v1/allocation/${id}`)).text;
    const snapshot = parseJson(stringifyJson(await agent.agent.snapshot())) as Awaited<ReturnType<typeof agent.agent.snapshot>>;
    await agent.put(`/v1/client/allocation/${id}/restart`, { TaskName: "web" });
    await agent.agent.restore(snapshot);
    expect((await agent.get(`/v1/allocation/${id}`)).text).toBe(before);
    expect(JSON.parse(before).TaskStates).toMatchObject({ web: { Restarts: 1 }, side: { Restarts: 0 } });
  });

  it("moves the allocation's index: a blocking reader of the allocation wakes", async () => {
    const id = await running("restart-index");
    const before = (await agent.get(`/v1/allocation/${id}`)).headers["x-svc-index"];
    await agent.put(`/v1/client/allocation/${id}/restart`, "");
    const after = (await agent.get(`/v1/allocation/${id}`)).headers["x-svc-index"];
    expect(Number(after)).toBeGreaterThan(Number(before));
  });

  it.each<[string, (id: string) => string, unknown, number, string]>([
    ["an unknown allocation", () => `/v1/client/allocation/${UNKNOWN}/restart`, "", 404, `Unknown allocation "${UNKNOWN}"`],
    ["an unknown task", (id) => `/v1/client/allocation/${id}/restart`, { TaskName: "nope" }, 404, "Could not find task runner for task: nope"],
    ["a task name with AllTasks", (id) => `/v1/client/allocation/${id}/restart`, { TaskName: "web", AllTasks: true }, 400, "task name cannot be set when restarting all tasks"],
    ["a body that is not the request", (id) => `/v1/client/allocation/${id}/restart`, { TaskName: 7 }, 400, "json: cannot unmarshal number into Go struct field .TaskName of type string"],
  ])("refuses %s", async (_name, path, body, status, text) => {
    const id = await running(`refused-${status}-${text.length}`);
    const response = await agent.put(path(id), body);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });

  it("refuses to restart a task, or the tasks, of an allocation that no longer runs", async () => {
    const id = await running("stopped");
    await agent.put(`/v1/allocation/${id}/stop`, "");
    await agent.agent.clock.advance("1s");
    expect((await read(`/v1/allocation/${id}`)).ClientStatus).toBe("complete");
    const one = await agent.put(`/v1/client/allocation/${id}/restart`, { TaskName: "web" });
    expect({ status: one.status, text: one.text }).toEqual({ status: 409, text: "Task not running" });
    const all = await agent.put(`/v1/client/allocation/${id}/restart`, "");
    expect({ status: all.status, text: all.text }).toEqual({ status: 409, text: "restart of an alloc that should not run" });
  });
});

describe("signalling an allocation's tasks", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  const { read, running } = helpers(agent);

  it("writes a Signaling event on the signalled task, which keeps running", async () => {
    const id = await running("hup");
    const response = await agent.put(`/v1/client/allocation/${id}/signal`, { Task: "web", Signal: "SIGHUP" });
    expect({ status: response.status, body: response.json() }).toEqual({ status: 200, body: { Index: 0 } });
    const alloc = await read(`/v1/allocation/${id}`);
    expect(alloc.ClientStatus).toBe("running");
    expect(alloc.TaskStates.web.Events.at(-1)).toMatchObject({ Type: "Signaling", TaskSignal: "SIGHUP", DisplayMessage: "Task being sent signal SIGHUP" });
    expect(alloc.TaskStates.side.Events.at(-1).Type).toBe("Started");
  });

  it("signals every task when none is named", async () => {
    const id = await running("usr1");
    expect((await agent.put(`/v1/client/allocation/${id}/signal`, { Signal: "SIGUSR1" })).status).toBe(200);
    const { TaskStates } = await read(`/v1/allocation/${id}`);
    for (const task of ["web", "side"]) expect(TaskStates[task].Events.at(-1)).toMatchObject({ Type: "Signaling", TaskSignal: "SIGUSR1" });
  });

  it.each<[string, Record<string, string>, string, boolean]>([
    ["SIGTERM ends the tasks by default", {}, "SIGTERM", true],
    ["SIGHUP does not by default", {}, "SIGHUP", false],
    ["a job that lists SIGHUP in bexpr.signal_exits ends on it", { "bexpr.signal_exits": "SIGHUP" }, "SIGHUP", true],
    ["a job that lists no signal never ends on one", { "bexpr.signal_exits": "" }, "SIGKILL", false],
  ])("%s", async (_name, meta, signal, ends) => {
    const id = await running(`ends-${signal}-${Object.keys(meta).length}-${meta["bexpr.signal_exits"] ?? "x"}`.toLowerCase(), meta);
    expect((await agent.put(`/v1/client/allocation/${id}/signal`, { Task: "web", Signal: signal })).status).toBe(200);
    const alloc = await read(`/v1/allocation/${id}`);
    expect(alloc.ClientStatus).toBe(ends ? "failed" : "running");
    if (ends) {
      const number = signal === "SIGTERM" ? 15 : signal === "SIGHUP" ? 1 : 9;
      expect(alloc.TaskStates.web).toMatchObject({ State: "dead", Failed: true });
      const events = alloc.TaskStates.web.Events.map((event: Item) => event.Type);
      expect(events.slice(-3)).toEqual(["Signaling", "Terminated", "Not Restarting"]);
      expect(alloc.TaskStates.web.Events.at(-2)).toMatchObject({ ExitCode: 128 + number, Signal: number, DisplayMessage: `Exit Code: ${128 + number}, Signal: ${number}` });
    }
  });

  it.each<[string, (id: string) => string, string, unknown, number, string]>([
    ["GET", (id) => `/v1/client/allocation/${id}/signal`, "GET", undefined, 405, "Invalid method"],
    ["an empty body", (id) => `/v1/client/allocation/${id}/signal`, "PUT", "", 400, "Failed to decode body: Request body is empty"],
    ["an unknown task", (id) => `/v1/client/allocation/${id}/signal`, "PUT", { Task: "nope", Signal: "SIGHUP" }, 404, "Task not found"],
    ["an unknown signal", (id) => `/v1/client/allocation/${id}/signal`, "POST", { Signal: "SIGNOPE" }, 400, 'invalid signal "SIGNOPE"'],
    ["an unknown allocation", () => `/v1/client/allocation/${UNKNOWN}/signal`, "PUT", { Signal: "SIGHUP" }, 404, `Unknown allocation "${UNKNOWN}"`],
  ])("refuses %s", async (_name, path, method, body, status, text) => {
    const id = await running(`signal-refused-${status}-${text.length}`);
    const response = await send(agent.url + path(id), { method, ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }) });
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });

  it("refuses to signal tasks that do not run, each named as the reference's multierror does", async () => {
    const id = await running("ended");
    await agent.put(`/v1/allocation/${id}/stop`, "");
    await agent.agent.clock.advance("1s");
    const response = await agent.put(`/v1/client/allocation/${id}/signal`, { Signal: "SIGHUP" });
    expect({ status: response.status, text: response.text }).toEqual({
      status: 409,
      text: "2 errors occurred:\n\t* Failed to signal task: web, err: Task not running\n\t* Failed to signal task: side, err: Task not running\n\n",
    });
  });
});

describe("an allocation's and a node's resource usage", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  const { read, running } = helpers(agent);

  it("reports each running task's use within its resources, and their sum, at the last whole second", async () => {
    const id = await running("usage");
    await agent.agent.clock.advance("10.5s");
    const response = await agent.get(`/v1/client/allocation/${id}/stats`);
    expect(response.status).toBe(200);
    expect(response.headers["x-svc-index"]).toBeUndefined();
    const usage = response.json<Item>();
    expect(Object.keys(usage)).toEqual(["ResourceUsage", "Tasks", "Timestamp"]);
    expect(Object.keys(usage.Tasks).sort()).toEqual(["side", "web"]);
    const nowNs = BigInt(Date.parse((await agent.get("/_bexpr/clock")).json<Item>().Now)) * 1_000_000n;
    expect(BigInt(usage.Timestamp)).toBe(nowNs - (nowNs % 1_000_000_000n));
    for (const [task, memoryMb, cpu] of [["web", 256, 500], ["side", 64, 100]] as const) {
      const { MemoryStats, CpuStats } = usage.Tasks[task].ResourceUsage;
      expect(MemoryStats.RSS).toBeGreaterThanOrEqual(0.3 * memoryMb * MB - 1);
      expect(MemoryStats.RSS).toBeLessThanOrEqual(0.6 * memoryMb * MB + 1);
      expect(MemoryStats.Usage).toBe(MemoryStats.RSS + MemoryStats.Cache);
      expect(MemoryStats.MaxUsage).toBeGreaterThanOrEqual(MemoryStats.Usage);
      expect(CpuStats.TotalTicks).toBeGreaterThanOrEqual(0.1 * cpu - 1e-9);
      expect(CpuStats.TotalTicks).toBeLessThanOrEqual(0.5 * cpu + 1e-9);
      expect(CpuStats.Percent).toBeCloseTo((CpuStats.TotalTicks / 2500) * 100, 9);
    }
    const sum = usage.ResourceUsage;
    expect(sum.MemoryStats.RSS).toBe(usage.Tasks.web.ResourceUsage.MemoryStats.RSS + usage.Tasks.side.ResourceUsage.MemoryStats.RSS);
    expect(sum.CpuStats.TotalTicks).toBeCloseTo(usage.Tasks.web.ResourceUsage.CpuStats.TotalTicks + usage.Tasks.side.ResourceUsage.CpuStats.TotalTicks, 9);
  });

  it("moves with the agent's clock, and reads the same within one second", async () => {
    const id = await running("moving");
    const rss = async () => (await agent.get(`/v1/client/allocation/${id}/stats?task=web`)).json<Item>().Tasks.web.ResourceUsage.MemoryStats.RSS as number;
    const first = await rss();
    expect(await rss()).toBe(first);
    await agent.agent.clock.advance("7s");
    expect(await rss()).not.toBe(first);
  });

  it("names only the task asked for, and none for a task the allocation does not have", async () => {
    const id = await running("filtered");
    expect(Object.keys((await agent.get(`/v1/client/allocation/${id}/stats?task=side`)).json<Item>().Tasks)).toEqual(["side"]);
    const none = (await agent.get(`/v1/client/allocation/${id}/stats?task=nope`)).json<Item>();
    expect(none).toMatchObject({ Tasks: {}, Timestamp: 0, ResourceUsage: { MemoryStats: { RSS: 0 }, CpuStats: { TotalTicks: 0 } } });
  });

  it("reports the node's memory, cores and disk with its running allocations' use", async () => {
    const id = await running("host");
    const alloc = await read(`/v1/allocation/${id}`);
    const usage = (await agent.get(`/v1/client/allocation/${id}/stats`)).json<Item>();
    const response = await agent.get(`/v1/client/stats?node_id=${alloc.NodeID}`);
    expect(response.status).toBe(200);
    const host = response.json<Item>();
    expect(Object.keys(host)).toEqual(["Memory", "CPU", "DiskStats", "AllocDirStats", "DeviceStats", "Uptime", "Timestamp", "CPUTicksConsumed"]);
    expect(host.Memory.Total).toBe(16_384 * MB);
    expect(host.Memory.Used).toBeGreaterThanOrEqual(usage.ResourceUsage.MemoryStats.Usage);
    expect(host.Memory.Used + host.Memory.Free).toBe(host.Memory.Total);
    expect(host.CPU.map((core: Item) => core.CPU)).toEqual(["cpu0", "cpu1", "cpu2", "cpu3"]);
    expect(host.CPU[0].User + host.CPU[0].System + host.CPU[0].Idle).toBeCloseTo(100, 9);
    expect(host.CPUTicksConsumed).toBeGreaterThan(usage.ResourceUsage.CpuStats.TotalTicks);
    expect(host.DiskStats[0]).toMatchObject({ Mountpoint: "/", Size: 102_400 * MB });
    expect(host.Uptime).toBeGreaterThan(0);
  });

  it.each([
    ["no node_id", "/v1/client/stats", 400, "No local Node and node_id not provided"],
    ["an unknown node", `/v1/client/stats?node_id=${UNKNOWN}`, 404, `Unknown node ${UNKNOWN}`],
    ["an unknown allocation", `/v1/client/allocation/${UNKNOWN}/stats`, 404, `Unknown allocation "${UNKNOWN}"`],
    ["a path without an action", `/v1/client/allocation/${UNKNOWN}`, 404, "resource not found"],
    ["an action the reference does not have", `/v1/client/allocation/${UNKNOWN}/nope`, 404, "resource not found"],
    ["exec, which is not simulated", `/v1/client/allocation/${UNKNOWN}/exec?task=web&command=%5B%22sh%22%5D`, 404, "the mini-agent does not simulate GET /v1/client/allocation/:id/exec"],
  ])("answers %s", async (_name, path, status, text) => {
    const response = await agent.get(path);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
  });
});

describe("an allocation's service checks", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  const { running } = helpers(agent);
  const NS = 1_000_000_000;
  const checked = (id: string, meta: Record<string, string> = {}) =>
    job(id, {
      Meta: meta,
      TaskGroups: [
        {
          Name: "g",
          Networks: [{ DynamicPorts: [{ Label: "http" }] }],
          Services: [{ Name: "api", Provider: "nomad", PortLabel: "http", Checks: [{ Name: "alive", Type: "http", Path: "/health", Interval: 10 * NS, Timeout: 2 * NS }] }],
          Tasks: [{ Name: "web", Driver: "docker", Services: [{ Name: "metrics", Provider: "nomad", PortLabel: "http", Checks: [{ Name: "port", Type: "tcp", Interval: 5 * NS, Timeout: NS, OnUpdate: "ignore" }] }] }],
        },
      ],
    });

  it("answers {} for a running allocation without checks, on both routes", async () => {
    const id = await running("unchecked", {}, job("unchecked"));
    for (const path of [`/v1/client/allocation/${id}/checks`, `/v1/allocation/${id}/checks`]) {
      const response = await agent.get(path);
      expect({ status: response.status, body: response.json() }).toEqual({ status: 200, body: {} });
    }
  });

  it.each<[string, Record<string, string>, string, string, string, number | undefined]>([
    ["succeed by default", {}, "success", "nomad: http ok", "nomad: tcp ok", 200],
    ["fail when the job says so", { "bexpr.check_status": "failure" }, "failure", "Internal Server Error", "dial tcp: connect: connection refused", 500],
    ["are pending when the job says so", { "bexpr.check_status": "pending" }, "pending", "nomad: waiting to run", "nomad: waiting to run", undefined],
  ])("the checks of the group's and the task's nomad services %s", async (_name, meta, status, httpOutput, tcpOutput, code) => {
    const id = await running(`checked-${status}`, meta, checked(`checked-${status}`, meta));
    const results = Object.values((await agent.get(`/v1/allocation/${id}/checks`)).json<Record<string, Item>>());
    const alive = results.find((each) => each.Check === "alive")!;
    const port = results.find((each) => each.Check === "port")!;
    expect(results).toHaveLength(2);
    expect(alive).toMatchObject({ Mode: "healthiness", Status: status, Output: httpOutput, Group: "g", Service: "api" });
    expect(alive.StatusCode).toBe(code);
    expect(alive.Task).toBeUndefined();
    expect(port).toMatchObject({ Mode: "readiness", Status: status, Output: tcpOutput, Group: "g", Task: "web", Service: "metrics" });
    expect(alive.ID).toMatch(/^[0-9a-f]{64}$/);
    expect(await agent.get(`/v1/client/allocation/${id}/checks`).then((response) => response.json())).toEqual(await agent.get(`/v1/allocation/${id}/checks`).then((response) => response.json()));
  });
});

describe("collecting allocations on their client", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  const { read, running } = helpers(agent);

  const NOT_ELIGIBLE = { status: 409, text: "No such allocation on client, or allocation not eligible for GC" };

  it("refuses a running allocation, collects a stopped one once, whose reads still answer", async () => {
    const id = await running("collected");
    const refused = await agent.get(`/v1/client/allocation/${id}/gc`);
    expect({ status: refused.status, text: refused.text }).toEqual(NOT_ELIGIBLE);
    await agent.put(`/v1/allocation/${id}/stop`, "");
    await agent.agent.clock.advance("1s");
    const collected = await agent.get(`/v1/client/allocation/${id}/gc`);
    expect({ status: collected.status, text: collected.text }).toEqual({ status: 200, text: "" });
    const again = await agent.put(`/v1/client/allocation/${id}/gc`, "");
    expect({ status: again.status, text: again.text }).toEqual(NOT_ELIGIBLE);
    expect((await agent.get(`/v1/client/allocation/${id}/stats`)).json()).toMatchObject({ Tasks: {}, Timestamp: 0 });
    expect((await read(`/v1/allocation/${id}`)).ID).toBe(id);
  });

  it("collects every terminal allocation of a node, leaving those that run", async () => {
    const stopped = await running("node-gc-stopped");
    const kept = await running("node-gc-kept");
    await agent.put(`/v1/allocation/${stopped}/stop`, "");
    await agent.agent.clock.advance("1s");
    const { NodeID } = await read(`/v1/allocation/${stopped}`);
    const response = await agent.get(`/v1/client/gc?node_id=${NodeID}`);
    expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: "" });
    // Collected with the node's: collecting it again is refused; the running one is not collected.
    const again = await agent.get(`/v1/client/allocation/${stopped}/gc`);
    expect({ status: again.status, text: again.text }).toEqual(NOT_ELIGIBLE);
    expect((await read(`/v1/allocation/${kept}`)).ClientStatus).toBe("running");
    const missing = await agent.get("/v1/client/gc");
    expect({ status: missing.status, text: missing.text }).toEqual({ status: 400, text: "No local Node and node_id not provided" });
  });

  it("answers No path to node while the allocation's node is down", async () => {
    const id = await running("away");
    const { NodeID } = await read(`/v1/allocation/${id}`);
    agent.agent.scenarios.add({ on: "node", select: `ID == "${NodeID}"`, set: { Status: "down" } });
    await agent.agent.clock.advance("100ms");
    const response = await agent.get(`/v1/client/allocation/${id}/stats`);
    expect({ status: response.status, text: response.text }).toEqual({ status: 404, text: "No path to node" });
  });
});

describe("the capabilities each action needs", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000a0";
  const READER = "00000000-0000-4000-8000-0000000000a1";
  const LIFECYCLE = "00000000-0000-4000-8000-0000000000a2";
  const NODE_READER = "00000000-0000-4000-8000-0000000000a3";
  const NODE_WRITER = "00000000-0000-4000-8000-0000000000a4";
  const agent = useAgent({
    clock: "manual",
    placementDelayMs: 1000,
    nodes: 1,
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [
        { Name: "reader", Rules: 'namespace "default" { policy = "read" }' },
        { Name: "lifecycle", Rules: 'namespace "default" { capabilities = ["alloc-lifecycle"] }' },
        { Name: "node-read", Rules: 'node { policy = "read" }' },
        { Name: "node-write", Rules: 'node { policy = "write" }' },
      ],
      tokens: [
        { SecretID: READER, Name: "reader", Type: "client", Policies: ["reader"] },
        { SecretID: LIFECYCLE, Name: "lifecycle", Type: "client", Policies: ["lifecycle"] },
        { SecretID: NODE_READER, Name: "node reader", Type: "client", Policies: ["node-read"] },
        { SecretID: NODE_WRITER, Name: "node writer", Type: "client", Policies: ["node-write"] },
      ],
    },
  });
  let allocId = "";
  let nodeId = "";
  const as = (token: string, method: string, path: string, body?: unknown) =>
    send(agent.url + path, { method, headers: { "x-svc-token": token }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  it("places an allocation to act on", async () => {
    const registered = await as(ROOT, "PUT", "/v1/jobs", { Job: twoTasks("guarded") });
    expect(registered.status, registered.text).toBe(200);
    await agent.agent.clock.advance("1s");
    const [alloc] = (await as(ROOT, "GET", "/v1/job/guarded/allocations")).json<Item[]>();
    allocId = alloc!.ID;
    nodeId = alloc!.NodeID;
    expect(alloc!.ClientStatus).toBe("running");
  });

  it.each<[string, string, string, unknown, Record<string, number>]>([
    ["restart", "PUT", "restart", {}, { reader: 403, lifecycle: 200, none: 403 }],
    ["signal", "PUT", "signal", { Signal: "SIGHUP" }, { reader: 403, lifecycle: 200, none: 403 }],
    ["stats", "GET", "stats", undefined, { reader: 200, lifecycle: 403, none: 403 }],
    ["checks", "GET", "checks", undefined, { reader: 200, lifecycle: 403, none: 403 }],
    ["gc", "GET", "gc", undefined, { reader: 403, lifecycle: 403, none: 403 }],
  ])("%s", async (_name, method, action, body, expected) => {
    const tokens: Record<string, string> = { reader: READER, lifecycle: LIFECYCLE, none: NODE_WRITER };
    for (const [who, status] of Object.entries(expected)) {
      const response = await as(tokens[who]!, method, `/v1/client/allocation/${allocId}/${action}`, body);
      expect({ who, status: response.status }).toEqual({ who, status });
    }
    // An unknown allocation is a 404 before the capability is asked, as the reference's RPC finds the allocation first.
    expect((await as(NODE_READER, method, `/v1/client/allocation/${UNKNOWN}/${action}`, body)).status).toBe(404);
    // A token that is not valid is refused before anything is looked up.
    expect((await as("00000000-0000-4000-8000-0000000000ff", method, `/v1/client/allocation/${UNKNOWN}/${action}`, body)).status).toBe(403);
  });

  it.each([
    ["/v1/client/stats", NODE_READER, READER],
    ["/v1/client/gc", NODE_WRITER, NODE_READER],
  ])("%s needs the node policy", async (path, allowed, refused) => {
    expect((await as(allowed, "GET", `${path}?node_id=${nodeId}`)).status).toBe(200);
    expect((await as(refused, "GET", `${path}?node_id=${nodeId}`)).status).toBe(403);
  });
});

describe("in the reference's header style", () => {
  const ROOT = "00000000-0000-4000-8000-0000000000b0";
  const LIFECYCLE = "00000000-0000-4000-8000-0000000000b1";
  const agent = useAgent({
    clock: "manual",
    placementDelayMs: 1000,
    nodes: 1,
    headers: "nomad",
    acl: {
      enabled: true,
      bootstrapToken: ROOT,
      policies: [{ Name: "lifecycle", Rules: 'namespace "default" { capabilities = ["alloc-lifecycle", "read-job"] }' }],
      tokens: [{ SecretID: LIFECYCLE, Name: "lifecycle", Type: "client", Policies: ["lifecycle"] }],
    },
  });

  it("reads the token from X-Nomad-Token, never from the other style's header", async () => {
    const registered = await send(`${agent.url}/v1/jobs`, { method: "PUT", headers: { "X-Nomad-Token": ROOT }, body: JSON.stringify({ Job: twoTasks("styled") }) });
    expect(registered.status, registered.text).toBe(200);
    await agent.agent.clock.advance("1s");
    const [alloc] = (await agent.get("/v1/job/styled/allocations", { headers: { "X-Nomad-Token": ROOT } })).json<Item[]>();
    const restart = (headers: Record<string, string>) => send(`${agent.url}/v1/client/allocation/${alloc!.ID}/restart`, { method: "PUT", headers, body: JSON.stringify({ TaskName: "web" }) });
    expect((await restart({ "X-Svc-Token": LIFECYCLE })).status).toBe(403);
    expect((await restart({ "X-Nomad-Token": LIFECYCLE })).status).toBe(200);
    const stats = await send(`${agent.url}/v1/client/allocation/${alloc!.ID}/stats`, { headers: { "X-Nomad-Token": LIFECYCLE } });
    expect(stats.status).toBe(200);
    expect(stats.headers["x-nomad-index"]).toBeUndefined();
    expect(Object.keys(stats.json<Item>().Tasks).sort()).toEqual(["side", "web"]);
  });
});

describe("hostile requests", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 1 });
  const { running } = helpers(agent);
  const value = fc.oneof(fc.constantFrom("null", "true", "1e400", "-1", '""', '"web"', '"side"', '"SIGTERM"', '"sighup"', "[]", "{}"), fc.string().map((s) => JSON.stringify(s)));
  const body = fc.oneof(
    fc.string(),
    fc.array(fc.tuple(fc.constantFrom("TaskName", "AllTasks", "Task", "Signal", "AllocID", "x"), value), { maxLength: 4 }).map((entries) => `{${entries.map(([key, each]) => `${JSON.stringify(key)}:${each}`).join(",")}}`),
  );

  it("never answers a 5xx to any body, method or query on an allocation's actions", async () => {
    const id = await running("hostile", { "bexpr.signal_exits": "" });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("restart", "signal", "stats", "checks", "gc", "exec", "pause", "x/y"), fc.constantFrom("GET", "PUT", "POST", "DELETE"), body, fc.string(), async (action, method, text, query) => {
        const path = `/v1/client/allocation/${id}/${action}?task=${encodeURIComponent(query)}&node_id=${encodeURIComponent(query)}`;
        const response = await send(agent.url + path, { method, ...(method === "GET" || method === "DELETE" ? {} : { body: text }) });
        expect(response.status, `${method} ${path} ${text} → ${response.status} ${response.text}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    for (const path of ["/v1/client/stats", "/v1/client/gc"]) {
      await fc.assert(
        fc.asyncProperty(fc.string(), async (node) => {
          expect((await agent.get(`${path}?node_id=${encodeURIComponent(node)}`)).status).toBeLessThan(500);
        }),
        { numRuns: 30 },
      );
    }
  });
});
