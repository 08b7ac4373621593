/**
 * Several `bexpr agent` processes sharing one PostgreSQL schema behave as the servers of one
 * cluster. Each test starts real agents (`node dist/cli.js agent --store postgres://… --store-schema
 * cluster_<hex>`) and talks to them over real sockets, as a user would:
 *
 * 1. every write gets the next index of one counter, whichever agent takes it, and every agent
 *    lists what any agent wrote;
 * 2. a write through one agent wakes the blocking queries parked on the others within a second
 *    of its answer (LISTEN/NOTIFY: tens of milliseconds on an idle machine);
 * 3. exactly one agent leads (runs the simulated scheduler); when its process is killed, another
 *    takes the lease once it expires and finishes the work in flight (a running deployment), and
 *    the members list shows the dead agent `failed`;
 * 4. the state outlives every agent: restarted agents see the same jobs and indexes go on rising,
 *    and agents shut down cleanly are `left`;
 * 5. two agents started at once on an empty schema create its tables once and load the demo data
 *    once;
 * 6. a leader whose heartbeat hangs (its member row locked by another connection) stops leading
 *    before its lease can pass to another agent;
 * 7. agents whose listening connections the server cuts listen again, and notifications wake their
 *    blocking queries as before (agents in this process, so that the test can find their
 *    connections).
 *
 * A real PostgreSQL server is needed: the agents are separate processes, and PGlite lives inside
 * one process. The server is named by `BEXPR_TEST_POSTGRES_URL` (the suite's set-up starts one); without
 * it the whole file is skipped. Each test uses a fresh schema, dropped after it, and kills every
 * agent it started, whatever happened. The agents are the built CLI (`npm run build` first).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { HEARTBEAT_MS, LEADER_LEASE_MS, MEMBER_FAILED_AFTER_MS } from "../../src/server/index.js";
import { job as jobWithDeployment, send } from "../agent/support.js";
import { POSTGRES_URL_VARIABLE } from "../sql/databases.js";
import { eventually, holds, killAll, startAgentProcess, stop, type AgentProcess } from "./agent-processes.js";

const POSTGRES_URL = process.env[POSTGRES_URL_VARIABLE];

/**
 * A job whose allocations are healthy as soon as they run (`MinHealthyTime` 0, where the default
 * is 10 s): with no placement delay, the scheduler's every step for it follows its registration at once.
 */
const job = (id: string, fields: Record<string, unknown> = {}) => jobWithDeployment(id, { Update: { MaxParallel: 1, MinHealthyTime: 0 }, ...fields });

/** Starts an agent on `schema` of the test's server (see `startAgentProcess`). */
const startAgent = (name: string, schema: string, extra?: readonly string[]): Promise<AgentProcess> => startAgentProcess(POSTGRES_URL!, name, schema, extra);

interface JobStub {
  readonly ID: string;
  readonly Namespace: string;
  readonly CreateIndex: number;
  readonly JobModifyIndex: number;
  readonly ModifyIndex: number;
}

interface DeploymentStub {
  readonly ID: string;
  readonly JobID: string;
  readonly Status: string;
  readonly ModifyIndex: number;
}

interface Member {
  readonly Name: string;
  readonly Addr: string;
  readonly Status: string;
}

async function jobs(agent: AgentProcess, query = ""): Promise<{ index: number; jobs: JobStub[] }> {
  const response = await agent.get(`/v1/jobs${query}`);
  expect(response.status, response.text).toBe(200);
  return { index: Number(response.headers["x-svc-index"]), jobs: response.json<JobStub[]>() };
}

async function deployments(agent: AgentProcess): Promise<DeploymentStub[]> {
  const response = await agent.get("/v1/deployments");
  expect(response.status, response.text).toBe(200);
  return response.json<DeploymentStub[]>();
}

async function members(agent: AgentProcess): Promise<Member[]> {
  const response = await agent.get("/v1/agent/members");
  expect(response.status, response.text).toBe(200);
  return response.json<{ Members: Member[] }>().Members;
}

/** The statuses of the members, by name. */
async function memberStatuses(agent: AgentProcess): Promise<Record<string, string>> {
  return Object.fromEntries((await members(agent)).map((member) => [member.Name, member.Status]));
}

/** The agent's `svc.svc.blocking.waiting` gauge: how many blocking queries wait on it right now. */
async function blockingWaiting(agent: AgentProcess): Promise<number> {
  const response = await agent.get("/v1/metrics");
  const gauge = response.json<{ Gauges: { Name: string; Value: number }[] }>().Gauges.find((entry) => entry.Name === "svc.svc.blocking.waiting");
  return gauge?.Value ?? 0;
}

/**
 * Waits until the agent's jobs index stays put for `quietMs`: the scheduler's writes that follow a
 * registration are done, so a blocking query parked at that index waits for the next write.
 */
async function settled(agent: AgentProcess, quietMs = 300): Promise<number> {
  let last = (await jobs(agent, "?namespace=*")).index;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = (await jobs(agent, "?namespace=*")).index;
    if (now === last) return now;
    last = now;
  }
}

const LEADERSHIP_ACQUIRED = /cluster leadership acquired/;

// ---------------------------------------------------------------------------------------------

// Skipped without a PostgreSQL server: the agents are separate processes, which cannot share PGlite.
describe.skipIf(POSTGRES_URL === undefined || POSTGRES_URL === "")("several agents on one PostgreSQL schema (real processes)", () => {
  let schema = "";

  beforeEach(() => {
    // Random hex: a valid schema name that needs no quoting.
    schema = `cluster_${randomBytes(6).toString("hex")}`;
  });

  afterEach(async () => {
    await killAll();
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
  });

  afterAll(killAll);

  it("gives every write the next index of one counter, whichever agent takes it, and every agent lists every job", async () => {
    const agents = await Promise.all(["alpha", "beta", "gamma"].map((name) => startAgent(name, schema)));
    const registered: { id: string; through: string; index: number; jobModifyIndex: number }[] = [];
    for (let round = 0; round < 2; round++) {
      for (const agent of agents) {
        const id = `x-${round}-${agent.name}`;
        const { Index, JobModifyIndex } = await agent.register(job(id));
        registered.push({ id, through: agent.name, index: Index, jobModifyIndex: JobModifyIndex });
      }
    }
    const indexes = registered.map((entry) => entry.index);
    for (let i = 1; i < indexes.length; i++) expect(indexes[i], `index of ${registered[i]!.id} after ${registered[i - 1]!.id}: ${indexes.join(", ")}`).toBeGreaterThan(indexes[i - 1]!);
    for (const agent of agents) {
      const listed = (await jobs(agent)).jobs;
      const byId = new Map(listed.map((stub) => [stub.ID, stub]));
      expect(listed.length, `jobs listed by ${agent.name}`).toBe(registered.length);
      for (const entry of registered) {
        expect(byId.get(entry.id)?.JobModifyIndex, `${entry.id} (registered through ${entry.through}) as listed by ${agent.name}`).toBe(entry.jobModifyIndex);
      }
    }
  }, 30_000);

  it("wakes the blocking queries parked on the other agents within a second of a write through one", async () => {
    // No placement delay: the scheduler's every step for a job follows its registration at once (with
    // a delay, its allocations would run later and wake the parked queries before the write below).
    const [alpha, beta, gamma] = await Promise.all(["alpha", "beta", "gamma"].map((name) => startAgent(name, schema, ["--no-demo", "--placement-delay", "0"])));
    // A first job, so that the list's index is past the seed, and the scheduler's work on it done.
    await alpha!.register(job("before"));
    await settled(alpha!);
    const controller = new AbortController();
    const park = async (agent: AgentProcess) => {
      const { index } = await jobs(agent);
      const response = await agent.get(`/v1/jobs?index=${index}&wait=60s`, undefined, controller.signal);
      return { agent, parkedAt: index, response, answeredAt: Date.now() };
    };
    try {
      const parked = [park(beta!), park(gamma!)];
      let answered = 0;
      for (const query of parked) void query.then(() => answered++, () => answered++);
      // Parked: each agent counts one blocking query waiting, and neither has answered.
      // Parking takes milliseconds; 30 s because a CI run beside PostgreSQL-heavy tests once took more than 10.
      const parking = await eventually("both blocking queries waiting", 30_000, async () => {
        if (answered > 0) return "answered";
        return (await blockingWaiting(beta!)) >= 1 && (await blockingWaiting(gamma!)) >= 1 ? "parked" : undefined;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered === 0 ? parking : "answered", "a blocking query answered before any write").toBe("parked");

      const { Index } = await alpha!.register(job("wake-up"));
      const registeredAt = Date.now();
      for (const { agent, parkedAt, response, answeredAt } of await Promise.all(parked)) {
        expect(response.status, `${agent.name}: ${response.text}`).toBe(200);
        const index = Number(response.headers["x-svc-index"]);
        expect(index, `${agent.name}'s X-Svc-Index (parked at ${parkedAt})`).toBeGreaterThanOrEqual(Index);
        expect(response.json<JobStub[]>().map((stub) => stub.ID), agent.name).toContain("wake-up");
        // Loose for loaded machines: the catch-up of each agent's heartbeat (every HEARTBEAT_MS) alone
        // would often meet this bound; the notification answers in tens of milliseconds.
        expect(answeredAt - registeredAt, `${agent.name} answered ${answeredAt - registeredAt} ms after the registration's answer`).toBeLessThanOrEqual(1000);
      }
    } finally {
      controller.abort();
    }
  }, 90_000);

  it("has exactly one leader, and when its process is killed another takes over the work in flight", async () => {
    const agents = await Promise.all(["alpha", "beta", "gamma"].map((name) => startAgent(name, schema, ["--no-demo", "--placement-delay", "4000"])));
    const leaders = () => agents.filter((agent) => agent.count(LEADERSHIP_ACQUIRED) > 0);
    const leader = await eventually("a leader", 2 * HEARTBEAT_MS + 1000, () => (leaders().length > 0 ? leaders()[0] : undefined));
    // No second leader over two heartbeats of every agent.
    await holds(`exactly one leader: ${leaders().map((agent) => agent.name).join(", ")}`, 2 * HEARTBEAT_MS + 200, () => leaders().length === 1);
    expect(leader.count(LEADERSHIP_ACQUIRED)).toBe(1);
    const [follower, other] = agents.filter((agent) => agent !== leader) as [AgentProcess, AgentProcess];

    // A service job with a deployment, registered through a follower: the leader's scheduler starts it.
    // Running at 2 s, healthy 2 s later (MinHealthyTime): the deployment is still going when the leader dies.
    await follower.register(job("svc", { Type: "service", Update: { MaxParallel: 1, MinHealthyTime: 2_000_000_000 }, TaskGroups: [{ Name: "g", Count: 1, Tasks: [{ Name: "t", Driver: "mock" }] }] }));
    const deployment = await eventually("the deployment running", 5000, async () => (await deployments(follower)).find((d) => d.JobID === "svc" && d.Status === "running"));

    await stop(leader, "SIGKILL");
    const killedAt = Date.now();
    // The lease expires LEADER_LEASE_MS after its last renewal; a follower takes it at its next heartbeat.
    const successor = await eventually("a new leader", LEADER_LEASE_MS + 2 * HEARTBEAT_MS + 1000, () => [follower, other].find((agent) => agent.count(LEADERSHIP_ACQUIRED) > 0));
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThanOrEqual(8000);

    // The new leader completes the deployment the dead one started (its time is long past).
    const completed = await eventually("the deployment successful", 20_000, async () => (await deployments(successor)).find((d) => d.ID === deployment.ID && d.Status === "successful"));
    expect(completed.JobID).toBe("svc");
    // The other survivor sees the same.
    const survivor = successor === follower ? other : follower;
    expect((await deployments(survivor)).find((d) => d.ID === deployment.ID)?.Status).toBe("successful");

    // The dead agent's heartbeats stopped: failed after MEMBER_FAILED_AFTER_MS; the survivors alive.
    const statuses = await eventually("the killed agent failed", Math.max(0, killedAt + MEMBER_FAILED_AFTER_MS + 5000 - Date.now()), async () => {
      const now = await memberStatuses(survivor);
      return now[leader.member] === "failed" ? now : undefined;
    });
    expect(statuses).toEqual({ [leader.member]: "failed", [follower.member]: "alive", [other.member]: "alive" });
    const listed = await members(successor);
    expect(listed.map((member) => member.Name).sort()).toEqual(agents.map((agent) => agent.member).sort());
    for (const member of listed) expect(member.Addr).toBe("127.0.0.1");

    // Reads know the leader again: on the written-straight lane (identity) and through the router (deflate).
    for (const agent of [follower, other]) {
      for (const headers of [{}, { "Accept-Encoding": "deflate" }] as Record<string, string>[]) {
        const response = await agent.get("/v1/jobs", headers);
        expect(response.status).toBe(200);
        expect(response.headers["x-svc-knownleader"], `${agent.name} ${JSON.stringify(headers)}`).toBe("true");
      }
    }
    // One takeover: the survivor that did not take the lease never led.
    expect(successor.count(LEADERSHIP_ACQUIRED)).toBe(1);
    expect(survivor.count(LEADERSHIP_ACQUIRED), survivor.output()).toBe(0);
  }, 40_000);

  it("keeps the state when every agent stops, and shows the agents that shut down cleanly as left", async () => {
    // No placement delay: the scheduler is done with the jobs once the index stays put, before the agents stop.
    const [alpha, beta] = await Promise.all(["alpha", "beta"].map((name) => startAgent(name, schema, ["--no-demo", "--placement-delay", "0"])));
    const first = await alpha!.register(job("kept-1"));
    const second = await beta!.register(job("kept-2"));
    await settled(alpha!);
    const before = (await jobs(alpha!)).jobs;
    expect(before.map((stub) => stub.ID).sort()).toEqual(["kept-1", "kept-2"]);
    // The highest index seen anywhere: registrations, jobs (the scheduler's updates) and the list's own.
    const seen = Math.max(first.Index, second.Index, (await jobs(beta!, "?namespace=*")).index, ...before.map((stub) => stub.ModifyIndex));

    const exits = await Promise.all([stop(alpha!, "SIGTERM"), stop(beta!, "SIGTERM")]);
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);

    const again = await startAgent("alpha", schema, ["--no-demo", "--placement-delay", "0"]);
    const after = (await jobs(again)).jobs;
    const identity = ({ ID, Namespace, CreateIndex, JobModifyIndex }: JobStub) => ({ ID, Namespace, CreateIndex, JobModifyIndex });
    expect(after.map(identity)).toEqual(before.map(identity));
    const third = await again.register(job("after-restart"));
    expect(third.Index).toBeGreaterThan(seen);
    expect(await memberStatuses(again)).toEqual({ "alpha.global": "alive", "beta.global": "left" });
  }, 30_000);

  it("stops a leader whose heartbeat hangs before its lease can pass to another, so that two never lead at once", async () => {
    const alpha = await startAgent("alpha", schema);
    await eventually("alpha leads", 2 * HEARTBEAT_MS + 1000, () => (alpha.count(LEADERSHIP_ACQUIRED) > 0 ? true : undefined));
    const beta = await startAgent("beta", schema);
    // Another connection holds alpha's member row: its heartbeats wait (and time out) without renewing the lease.
    const blocker = new pg.Client({ connectionString: POSTGRES_URL });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(`SELECT 1 FROM "${schema}".members WHERE name = 'alpha.global' FOR UPDATE`);
      await eventually("beta leads", LEADER_LEASE_MS + 4 * HEARTBEAT_MS, () => (beta.count(LEADERSHIP_ACQUIRED) > 0 ? true : undefined));
      // By the time beta took the lease, alpha had stopped leading.
      expect(alpha.count(/cluster leadership lost/), alpha.output()).toBe(1);
    } finally {
      await blocker.query("ROLLBACK").catch(() => {});
      await blocker.end();
    }
  }, 30_000);

  it("creates the tables and loads the demo data once when two agents start at the same moment on an empty schema", async () => {
    const agents = await Promise.all(["alpha", "beta"].map((name) => startAgent(name, schema, [])));
    const expectedJobs = ["default/api", "default/cache", "default/report", "default/web", "prod/nightly-backup", "prod/web"];
    // The demo's deployments when loaded once (api's first version cancelled by its second); a
    // second load would register api again, as new versions with deployments of their own.
    const expectedDeployments = ["default/api@0", "default/api@1", "default/cache@0", "default/web@0", "prod/web@0"];
    const lists: string[][] = [];
    for (const agent of agents) {
      expect(agent.child.exitCode, agent.output()).toBeNull();
      expect(agent.output()).toMatch(/^bexpr agent listening on http:\/\/127\.0\.0\.1:\d+ \(.*state in PostgreSQL.*\)$/m);
      const listed = (await jobs(agent, "?namespace=*")).jobs;
      expect(listed.map((stub) => `${stub.Namespace}/${stub.ID}`).sort(), `jobs listed by ${agent.name}`).toEqual(expectedJobs);
      lists.push(listed.map((stub) => `${stub.Namespace}/${stub.ID}@${stub.JobModifyIndex}`).sort());
      const response = await agent.get("/v1/deployments?namespace=*");
      const listedDeployments = response.json<(DeploymentStub & { Namespace: string; JobVersion: number })[]>();
      expect(listedDeployments.map((d) => `${d.Namespace}/${d.JobID}@${d.JobVersion}`).sort(), `deployments listed by ${agent.name}`).toEqual(expectedDeployments);
    }
    // Both list the same jobs, at the same indexes.
    expect(lists[1]).toEqual(lists[0]);
    // Still both running.
    for (const agent of agents) expect(agent.child.exitCode, agent.output()).toBeNull();
  }, 30_000);
});

// In this process: the agent's connections are the test's to cut.
describe.skipIf(POSTGRES_URL === undefined || POSTGRES_URL === "")("an agent whose listening connection is cut", () => {
  it("listens again, and wakes its blocking queries on the other agents' writes as before", async () => {
    const { startAgent: start } = await import("../../src/server/index.js");
    const schema = `cluster_${randomBytes(6).toString("hex")}`;
    const store = { url: POSTGRES_URL!, schema };
    const alpha = await start({ port: 0, demo: false, logLevel: "silent", nodeName: "alpha", store, placementDelayMs: 0 });
    const beta = await start({ port: 0, demo: false, logLevel: "silent", nodeName: "beta", store, placementDelayMs: 0 });
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      const listeners = async () => (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query = $1", [`LISTEN "bexpr_${schema}"`])).rows.map((row) => row.pid);
      const before = await eventually("both agents listening", 5000, async () => ((await listeners()).length === 2 ? await listeners() : undefined));
      await admin.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [before]);
      // Both come back, on new connections.
      await eventually("both agents listening again", 10_000, async () => {
        const now = await listeners();
        return now.length === 2 && now.every((pid) => !before.includes(pid)) ? now : undefined;
      });
      const index = (await send(`${beta.url}/v1/jobs`)).headers["x-svc-index"];
      const waiting = send(`${beta.url}/v1/jobs?index=${index}&wait=20s`);
      await eventually("beta's query parked", 5000, () => (beta.blockingQueries > 0 ? true : undefined));
      const registered = await send(`${alpha.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("after-the-cut") }) });
      const answeredAt = Date.now();
      expect(registered.status).toBe(200);
      const woken = await waiting;
      // The notification again, not the heartbeat's catch-up (once a second).
      expect(Date.now() - answeredAt).toBeLessThan(300);
      expect(woken.json<JobStub[]>().map((stub) => stub.ID)).toContain("after-the-cut");
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
      await admin.end();
      await Promise.all([alpha.close(), beta.close()]);
    }
  }, 30_000);
});
