/**
 * What the reference's `api/` tests share (`api_test.go`, `util_test.go`, the test server of
 * `api/internal/testutil`), for their ports: `makeClient` starts an agent of its own for one
 * test, configured as the reference's test server is, and a client of the run's header style;
 * the `assert*Meta` helpers; and the test jobs, built as the Go builders build them.
 *
 * Every test gets a fresh agent, as every Go test gets a fresh server: the Go tests count from an
 * empty state (`Listing jobs before registering returns nothing`) and reuse IDs (`job1`).
 *
 * @module
 */
import { beforeAll, beforeEach, expect, onTestFinished } from "vitest";
import { startAgent, type Agent, type AgentOptions } from "../../src/server/index.js";
import { ON_POSTGRES, startTestAgent, testStore } from "../agent/support.js";
import { GoClient, type HeaderStyle, type QueryMeta, type WriteMeta } from "./go-client.js";
import type { GoStruct, GoStructInput } from "./go-types.js";

/** `testutil.TestServerConfig`, as far as the ported tests change it. */
export interface TestServerConfig {
  /**
   * `DevMode`: the agent runs `-dev`, a server with a client of its own, so there is one node
   * that takes jobs. Without it the test server is a server only: no node, and a job is blocked.
   */
  readonly devMode?: boolean;
  /** `ACL.Enabled`. */
  readonly acl?: boolean;
  /** The metrics interval (`Telemetry.collection_interval`, the in-memory sink's interval), when a test needs one shorter than 10 s. */
  readonly metricsIntervalMs?: number;
}

/** A running test server (`testutil.TestServer`): the agent, and `Stop`, which may be called more than once. */
export interface TestServer {
  readonly agent: Agent;
  stop(): Promise<void>;
}

/** Whether the agent takes each header style: `startAgent` refuses an option it does not know. */
const styleTaken = new Map<HeaderStyle, Promise<boolean>>();

/** The agent options that select a header style; the default style (`svc`) sets nothing. */
function styleOptions(style: HeaderStyle): AgentOptions {
  return style === "svc" ? {} : ({ headers: style } as AgentOptions);
}

function agentTakesStyle(style: HeaderStyle): Promise<boolean> {
  let taken = styleTaken.get(style);
  if (taken === undefined) {
    taken =
      style === "svc"
        ? Promise.resolve(true)
        : startAgent({ port: 0, demo: false, logLevel: "silent", nodes: 0, ...styleOptions(style) }).then(
            async (agent) => {
              await agent.close();
              return true;
            },
            (error: unknown) => {
              if (error instanceof Error && error.name === "OptionsError" && /\bheaders\b/.test(error.message)) return false;
              throw error;
            },
          );
    styleTaken.set(style, taken);
  }
  return taken;
}

/**
 * The ported tests of one header style. Each test of a style the agent does not take yet (it
 * refuses the `headers` option) is skipped, with the reason; the same tests run as soon as it
 * takes it.
 */
export function goTestServers(style: HeaderStyle): {
  /** `makeClient(t, nil, cb)`: a fresh agent for this test, stopped when it ends. */
  makeClient(config?: TestServerConfig): Promise<{ client: GoClient; server: TestServer }>;
  /** `makeACLClient`: ACLs on, bootstrapped, the client holding the management token. */
  makeACLClient(config?: TestServerConfig): Promise<{ client: GoClient; server: TestServer; root: GoStruct<"ACLToken"> }>;
} {
  // PGlite takes seconds to start, once per file: before the first test, not inside its time.
  beforeAll(async () => {
    if (ON_POSTGRES) await testStore();
  }, 120_000);
  beforeEach(async (context) => {
    if (!(await agentTakesStyle(style))) context.skip(`the agent does not take the "${style}" header style (startAgent refuses headers: "${style}")`);
  });
  const makeClient = async (config: TestServerConfig = {}) => {
    const agent = await startTestAgent({
      port: 0,
      demo: false,
      logLevel: "silent",
      nodes: config.devMode === true ? 1 : 0,
      ...(config.acl === true ? { acl: { enabled: true } } : {}),
      ...(config.metricsIntervalMs === undefined ? {} : { metrics: { intervalMs: config.metricsIntervalMs, retentionMs: 100 * config.metricsIntervalMs } }),
      ...styleOptions(style),
    });
    let stopped: Promise<void> | undefined;
    const server: TestServer = { agent, stop: () => (stopped ??= agent.close()) };
    onTestFinished(() => server.stop());
    return { client: new GoClient({ address: agent.url, headers: style }), server };
  };
  return {
    makeClient,
    async makeACLClient(config = {}) {
      const { client, server } = await makeClient({ ...config, acl: true });
      const [root] = await client.aclTokens.bootstrap();
      client.setSecretID(root.SecretID);
      return { client, server, root };
    },
  };
}

/** `assertQueryMeta`: an index, and a known leader. */
export function assertQueryMeta(meta: QueryMeta): void {
  expect(meta.LastIndex, "expected QueryMeta.LastIndex to be != 0").not.toBe(0);
  expect(meta.KnownLeader, "expected a known leader but gone none").toBe(true);
}

/** `assertWriteMeta`: an index above 0. */
export function assertWriteMeta(meta: WriteMeta): void {
  expect(meta.LastIndex, "expected WriteMeta.LastIndex to be > 0").toBeGreaterThan(0);
}

/** `must.UUIDv4`: the shape of a UUID (shoenig/test checks the hex digits and dashes only). */
export function expectUUID(id: string): void {
  expect(id).toMatch(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/);
}

/**
 * Where the agent answers a list's index as the spec says and not as the reference does: a table
 * never written answers index 1, not 0 (docs/agent.md, "Where the agent differs", spec 4.5.1).
 * The ported assertions `must.Zero(t, qm.LastIndex)` check this instead.
 */
export function expectIndexOfEmptyTable(meta: QueryMeta): void {
  expect(meta.LastIndex).toBeGreaterThanOrEqual(1);
}

/** A `must.*` that fails inside a function `must.Wait` retries: it fails the test at once, as `t.Fatal` does. */
export class MustError extends Error {
  override readonly name = "MustError";
}

/**
 * `must.Wait(t, wait.InitialSuccess(wait.ErrorFunc(f), wait.Timeout, wait.Gap))`: retries `f`
 * until it stops throwing, but for a {@link MustError}.
 */
export async function waitFor(check: () => Promise<void>, timeoutMs = 3_000, gapMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (error instanceof MustError || Date.now() + gapMs > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  }
}

/** Go's `len` of a slice that may be nil. */
export function len(list: readonly unknown[] | null | undefined): number {
  return (list ?? []).length;
}

/** `oneNodeFromNodeList`: waits (10 s, a try a second) for the node list to have nodes, and wants exactly one. */
export async function oneNodeFromNodeList(client: GoClient): Promise<GoStruct<"NodeListStub">> {
  let nodes = null as Awaited<ReturnType<GoClient["nodes"]["list"]>>[0];
  await waitFor(
    async () => {
      [nodes] = await client.nodes.list();
      if (len(nodes) === 0) throw new Error("no nodes yet");
    },
    10_000,
    1_000,
  );
  expect(len(nodes), "expected 1 node").toBe(1);
  const [node] = nodes ?? [];
  if (node === undefined || node === null) throw new MustError("expected 1 node");
  return node;
}

// ---------------------------------------------------------------------------------------------
// The Go builders (api/jobs.go, api/tasks.go) and the test jobs (api/util_test.go)

type Job = GoStructInput<"Job">;
type TaskGroup = GoStructInput<"TaskGroup">;
type Task = GoStructInput<"Task">;

/** `NewTask(name, driver)`. */
export function newTask(name: string, driver: string): Task {
  return { Name: name, Driver: driver };
}

/** `Task.SetConfig`. */
export function setConfig(task: Task, key: string, value: unknown): Task {
  task.Config = { ...task.Config, [key]: value };
  return task;
}

/** `NewTaskGroup(name, count)`. */
export function newTaskGroup(name: string, count: number): TaskGroup {
  return { Name: name, Count: count };
}

/** `TaskGroup.AddTask`. */
export function addTask(group: TaskGroup, task: Task): TaskGroup {
  group.Tasks = [...(group.Tasks ?? []), task];
  return group;
}

function newJob(id: string, name: string, region: string, type: string, priority: number): Job {
  return { Region: region, ID: id, Name: name, Type: type, Priority: priority };
}

/** `NewBatchJob`. */
export const newBatchJob = (id: string, name: string, region: string, priority: number) => newJob(id, name, region, "batch", priority);
/** `NewServiceJob`. */
export const newServiceJob = (id: string, name: string, region: string, priority: number) => newJob(id, name, region, "service", priority);

/** `Job.AddDatacenter`. */
export function addDatacenter(job: Job, datacenter: string): Job {
  job.Datacenters = [...(job.Datacenters ?? []), datacenter];
  return job;
}

/** `Job.AddTaskGroup`. */
export function addTaskGroup(job: Job, group: TaskGroup): Job {
  job.TaskGroups = [...(job.TaskGroups ?? []), group];
  return job;
}

/**
 * The task of `testJob`, its group's shape and the job around it: `NewTask("task1",
 * "raw_exec")` with a command, 100 MHz and 256 MB, and a log config of 1 file of 2 MB.
 */
export function testTask(name = "task1", driver = "raw_exec", command = "/bin/sleep"): Task {
  const task = setConfig(newTask(name, driver), "command", command);
  task.Resources = { CPU: 100, MemoryMB: 256 };
  task.LogConfig = { MaxFiles: 1, MaxFileSizeMB: 2 };
  return task;
}

/** `NewTaskGroup(name, count).AddTask(task).RequireDisk(&EphemeralDisk{SizeMB: 25})`. */
export function testGroup(name: string, count: number, task: Task): TaskGroup {
  const group = addTask(newTaskGroup(name, count), task);
  group.EphemeralDisk = { SizeMB: 25 };
  return group;
}

/** `testJob()`: batch job `job1` (`redis`, priority 1, `dc1`), one group `group1` of one `raw_exec` task. */
export function testJob(): Job {
  return addTaskGroup(addDatacenter(newBatchJob("job1", "redis", "global", 1), "dc1"), testGroup("group1", 1, testTask()));
}

/** `testServiceJob()`: service job `dummy-service`, priority 5, one group of one `exec` task, nothing more. */
export function testServiceJob(): Job {
  const task = setConfig(newTask("dummy-task", "exec"), "command", "/bin/sleep");
  return addTaskGroup(newServiceJob("dummy-service", "dummy-service", "global", 5), addTask(newTaskGroup("dummy-group", 1), task));
}

/** `testPeriodicJob()`: `testJob` run every 30 minutes. */
export function testPeriodicJob(): Job {
  const job = testJob();
  job.Periodic = { Enabled: true, Spec: "*/30 * * * *", SpecType: "cron" };
  return job;
}

/** `testNamespace()`. */
export function testNamespace(): GoStructInput<"Namespace"> {
  return { Name: "test-namespace", Description: "Testing namespaces" };
}
