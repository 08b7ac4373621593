/**
 * The fault suite: agents (real processes, the built CLI) sharing a real PostgreSQL server of the
 * suite's own (scripts/postgres-server.ts), which each test takes away under load, as an operator
 * or a crash would: stopped for 1, 2, 5 and 30 s, restarted fast and smart, the agents' backends
 * terminated, every connection slot taken. For each, with one agent or two written through:
 *
 * - no agent process ends;
 * - each agent's descriptors stay within {@link FD_MARGIN} of what it had before the fault, and
 *   its connections within the pools' sizes (+2: the listening one and its reconnect attempt);
 * - every request is answered within {@link ANSWER_BOUND_MS}: 200, or `500 No cluster leader`
 *   (nothing was written), or, for a write whose commit was cut, `500 leadership lost while
 *   committing log` (written or not); never another error, never a broken connection;
 * - every acknowledged write is there afterwards, and no write refused with `No cluster leader` is;
 * - once the server is back, each agent answers a consistent read within {@link RECOVERY_BOUND_MS}.
 *
 * Each test prints its figures (descriptors, connections, answers, the slowest, recovery) in one
 * line. The bounds are loose on purpose (a loaded 2-core machine); the figures are what to read.
 *
 * Needs Debian's PostgreSQL binaries (`.ci/run` installs them and sets
 * `BEXPR_TEST_REQUIRE_POSTGRES=1`, so that their absence fails there); without them the file is
 * skipped with one line saying so.
 */
import { readdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_HOLD_MS, LEADERSHIP_LOST, LIST_POOL_SIZE, NO_LEADER, POOL_SIZE } from "../../src/server/index.js";
import { postgresBinDir, ThrowawayPostgres, type ShutdownMode } from "../../scripts/postgres-server.js";
import { job, send } from "../agent/support.js";
import { eventually, killAll, startAgentProcess, type AgentProcess } from "../cluster/agent-processes.js";

/** Set by .ci/run: a machine without PostgreSQL's binaries fails this suite instead of skipping it. */
const REQUIRE_VARIABLE = "BEXPR_TEST_REQUIRE_POSTGRES";
const required = process.env[REQUIRE_VARIABLE] === "1";
const BIN = postgresBinDir();
if (BIN === undefined && !required) {
  console.warn(`test/faults skipped: there is no /usr/lib/postgresql/*/bin/pg_ctl (apt-get install postgresql); set ${REQUIRE_VARIABLE}=1 to make that a failure`);
}

/** The descriptors an agent may hold beyond those it had before the fault (its connections are at most 14). */
const FD_MARGIN = 24;

/** The connections one agent may hold at once: both pools, the listening one, and its reconnect loop's attempt. */
const CONNECTIONS_PER_AGENT = POOL_SIZE + LIST_POOL_SIZE + 2;

/** The longest any request may take: the hold, and room for a loaded machine. */
const ANSWER_BOUND_MS = DATABASE_HOLD_MS + 15_000;

/** How soon after the server is back each agent must answer a consistent read (about a second when quiet). */
const RECOVERY_BOUND_MS = 15_000;

/** The server's connection slots: enough for two agents and the suite's own connection, few enough to fill quickly. */
const MAX_CONNECTIONS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Load: writers and readers, and what each answer was

/** What the readers ask, in turn: a consistent read, then what an agent answers without the database. */
const READS = ["/v1/jobs?per_page=1", "/v1/jobs?per_page=1&stale", "/v1/agent/members", "/v1/regions", "/v1/metrics"];

/** What the clients saw during one test. */
class Load {
  /** Jobs whose registration was answered 200. */
  readonly acknowledged = new Set<string>();
  /** Jobs refused with `No cluster leader`: never written. */
  readonly refused = new Set<string>();
  /** Jobs answered `leadership lost while committing log`: written or not. */
  readonly cut = new Set<string>();
  /** Any other answer (a failure of the suite). */
  readonly unexpected: string[] = [];
  readonly counts = { writes: 0, reads: 0, readsRefused: 0 };
  slowestMs = 0;
  #stopped = false;
  readonly #loops: Promise<void>[] = [];

  constructor(
    private readonly agents: readonly AgentProcess[],
    private readonly tag: string,
  ) {}

  /** Starts `writers` writers, each registering jobs through the agents in turn, and a reader per agent (consistent and `?stale` lists in turn). */
  start(writers: number): void {
    for (let w = 0; w < writers; w++) this.#loops.push(this.#writer(w));
    for (const agent of this.agents) this.#loops.push(this.#reader(agent));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#loops);
  }

  async #timed<T>(what: string, request: () => Promise<T>): Promise<T | undefined> {
    const started = performance.now();
    try {
      return await request();
    } catch (error) {
      this.unexpected.push(`${what}: ${(error as Error).message}`);
      return undefined;
    } finally {
      this.slowestMs = Math.max(this.slowestMs, performance.now() - started);
    }
  }

  async #writer(writer: number): Promise<void> {
    for (let n = 0; !this.#stopped; n++) {
      const id = `${this.tag}-w${writer}-${n}`;
      const agent = this.agents[(writer + n) % this.agents.length]!;
      this.counts.writes++;
      const response = await this.#timed(`PUT ${id} through ${agent.name}`, () => send(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(id) }) }));
      if (response === undefined) continue;
      if (response.status === 200) this.acknowledged.add(id);
      else if (response.status === 500 && response.text === NO_LEADER) this.refused.add(id);
      else if (response.status === 500 && response.text === LEADERSHIP_LOST) this.cut.add(id);
      else this.unexpected.push(`PUT ${id} through ${agent.name}: ${response.status} ${response.text}`);
      await sleep(20);
    }
  }

  async #reader(agent: AgentProcess): Promise<void> {
    for (let n = 0; !this.#stopped; n++) {
      const path = READS[n % READS.length]!;
      this.counts.reads++;
      const response = await this.#timed(`GET ${path} on ${agent.name}`, () => agent.get(path));
      if (response === undefined) continue;
      // Only a consistent read needs the database; the rest is the agent's own to answer.
      if (response.status === 500 && response.text === NO_LEADER && path === READS[0]) this.counts.readsRefused++;
      else if (response.status !== 200) this.unexpected.push(`GET ${path} on ${agent.name}: ${response.status} ${response.text}`);
      await sleep(50);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Watching the agents: descriptors (from /proc) and connections (from the server)

/** The open descriptors of a process, or undefined when it is gone. */
function descriptors(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

/** Samples each agent's descriptors, and its connections as the server counts them (by application name), every 100 ms. */
class Watch {
  readonly fds = new Map<string, number>();
  readonly connections = new Map<string, number>();
  #stopped = false;
  #loop: Promise<void> | undefined;

  constructor(
    private readonly server: ThrowawayPostgres,
    private readonly agents: readonly AgentProcess[],
  ) {}

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      for (const agent of this.agents) {
        const count = descriptors(agent.child.pid!);
        if (count !== undefined) this.fds.set(agent.name, Math.max(this.fds.get(agent.name) ?? 0, count));
      }
      try {
        // A connection per sample: one kept open would hold up a smart shutdown.
        const rows = await admin<{ name: string; count: string }>(
          this.server,
          "SELECT application_name AS name, count(*)::text AS count FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1",
        );
        for (const { name, count } of rows) this.connections.set(name, Math.max(this.connections.get(name) ?? 0, Number(count)));
      } catch {
        // The server is away (or full): the descriptors are still counted.
      }
      await sleep(100);
    }
  }
}

// ---------------------------------------------------------------------------------------------

interface Scenario {
  /** How many agents share the schema (each written through in turn). */
  readonly agents: 1 | 2;
  /** How many clients register jobs meanwhile. */
  readonly writers: number;
  /** The fault: resolves once it is over (the server back, the slots free). */
  readonly fault: (server: ThrowawayPostgres) => Promise<void>;
}

/** Stops the server (`mode`), keeps it down for `ms`, and starts it again. */
function outage(mode: ShutdownMode, ms: number): Scenario["fault"] {
  return async (server) => {
    const stopped = await server.stop(mode);
    expect(stopped.status, stopped.output).toBe(0);
    await sleep(ms);
    const started = await server.start();
    expect(started.status, `${started.output}\n${server.logTail()}`).toBe(0);
  };
}

/** Runs `statement` on a connection of the suite's own. */
async function admin<T extends pg.QueryResultRow>(server: ThrowawayPostgres, statement: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.url(), application_name: "fault-suite", connectionTimeoutMillis: 2000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query<T>(statement)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

describe.skipIf(BIN === undefined && !required)("agents while their PostgreSQL server fails (real processes, a server of the suite's own)", () => {
  let server: ThrowawayPostgres;
  const figures: string[] = [];

  beforeAll(async () => {
    server = await ThrowawayPostgres.start({ max_connections: String(MAX_CONNECTIONS) });
  });

  afterEach(async () => {
    await killAll();
    // A test that failed half-way may have left the server stopped.
    if (!server.running) await server.start();
  });

  afterAll(() => {
    server?.remove();
    if (figures.length > 0) console.log(`the fault suite's figures:\n${figures.join("\n")}`);
  });

  /**
   * Starts the agents on a fresh schema, loads them, runs the fault, waits until each answers a
   * consistent read again, loads them a second more, and checks everything the module promises.
   */
  async function survive(name: string, scenario: Scenario): Promise<void> {
    const schema = `faults_${randomBytes(5).toString("hex")}`;
    const agents: AgentProcess[] = [];
    for (const node of ["alpha", "beta"].slice(0, scenario.agents)) {
      // The application name tells the agents' connections apart in pg_stat_activity.
      agents.push(await startAgentProcess(`${server.url()}?application_name=${node}`, node, schema, ["--no-demo", "--placement-delay", "100"]));
    }
    const before = new Map(agents.map((agent) => [agent.name, descriptors(agent.child.pid!)!]));
    const watch = new Watch(server, agents);
    const load = new Load(agents, name.replace(/[^a-z0-9]+/gi, "-"));
    watch.start();
    load.start(scenario.writers);
    await sleep(1000);
    const faultStarted = performance.now();
    await scenario.fault(server);
    const faultEnded = performance.now();
    const recovery: number[] = [];
    for (const agent of agents) {
      const exited = () => agent.child.exitCode !== null || agent.child.signalCode !== null;
      await eventually(`${agent.name} answers a consistent read`, RECOVERY_BOUND_MS, async () => (exited() || (await agent.get("/v1/jobs?per_page=1")).status === 200 ? true : undefined));
      expect(exited(), `${agent.name} exited:\n${agent.output().slice(-3000)}`).toBe(false);
      recovery.push(performance.now() - faultEnded);
    }
    await sleep(1000);
    await load.stop();
    await watch.stop();

    // Every acknowledged write is there; none refused with No cluster leader is.
    const listed = await agents[0]!.get("/v1/jobs");
    expect(listed.status, listed.text).toBe(200);
    const ids = new Set(listed.json<{ ID: string }[]>().map((stub) => stub.ID));
    const line =
      `${name}: fault ${Math.round(faultEnded - faultStarted)} ms; ` +
      agents.map((agent) => `${agent.name} fds ${before.get(agent.name)}→max ${watch.fds.get(agent.name)}, connections max ${watch.connections.get(agent.name) ?? 0}`).join("; ") +
      `; writes ${load.counts.writes} (200: ${load.acknowledged.size}, No cluster leader: ${load.refused.size}, leadership lost: ${load.cut.size}), ` +
      `reads ${load.counts.reads} (No cluster leader: ${load.counts.readsRefused}); slowest answer ${Math.round(load.slowestMs)} ms; ` +
      `consistent reads again ${recovery.map((ms) => `${Math.round(ms)} ms`).join(", ")} after the fault`;
    figures.push(line);

    for (const agent of agents) expect(agent.child.exitCode, `${agent.name} exited:\n${agent.output().slice(-3000)}`).toBeNull();
    for (const agent of agents) expect(agent.child.signalCode, agent.output().slice(-3000)).toBeNull();
    expect(load.unexpected.slice(0, 20), line).toEqual([]);
    expect(load.slowestMs, line).toBeLessThan(ANSWER_BOUND_MS);
    for (const agent of agents) {
      expect(watch.fds.get(agent.name)!, line).toBeLessThanOrEqual(before.get(agent.name)! + FD_MARGIN);
      expect(watch.connections.get(agent.name) ?? 0, line).toBeLessThanOrEqual(CONNECTIONS_PER_AGENT);
    }
    if (scenario.writers > 0) expect(load.acknowledged.size, line).toBeGreaterThan(0);
    expect([...load.acknowledged].filter((id) => !ids.has(id)), line).toEqual([]);
    expect([...load.refused].filter((id) => ids.has(id)), line).toEqual([]);
  }

  it.each([
    { seconds: 1, agents: 2 as const, writers: 4 },
    { seconds: 2, agents: 1 as const, writers: 0 },
    { seconds: 2, agents: 2 as const, writers: 4 },
    { seconds: 5, agents: 2 as const, writers: 4 },
    { seconds: 30, agents: 1 as const, writers: 2 },
  ])("outlives a fast stop of $seconds s with $agents agent(s) and $writers writer(s)", async ({ seconds, agents, writers }) => {
    await survive(`stop ${seconds} s, ${agents} agent(s), ${writers} writer(s)`, { agents, writers, fault: outage("fast", seconds * 1000) });
  }, 180_000);

  it.each(["fast", "smart"] as const)("outlives a %s restart under two agents taking writes", async (mode) => {
    await survive(`restart ${mode}`, { agents: 2, writers: 4, fault: outage(mode, 0) });
  }, 180_000);

  it("outlives the termination of every backend of the agents, mid-transaction included", async () => {
    await survive("every backend terminated", {
      agents: 2,
      writers: 4,
      fault: async (server) => {
        // Often, so that some connections die as they are handed out (see terminated-connection.test.ts).
        for (let round = 0; round < 15; round++) {
          await admin(server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name IN ('alpha', 'beta')");
          await sleep(150);
        }
      },
    });
  }, 180_000);

  it("outlives the termination of the listening connections", async () => {
    await survive("listening connections terminated", {
      agents: 2,
      writers: 4,
      fault: async (server) => {
        for (let round = 0; round < 5; round++) {
          await admin(server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'");
          await sleep(300);
        }
      },
    });
  }, 180_000);

  it("outlives every connection slot taken for 5 s", async () => {
    await survive("max_connections filled", {
      agents: 2,
      writers: 4,
      fault: async (server) => {
        const hogs: pg.Client[] = [];
        try {
          for (;;) {
            const client = new pg.Client({ connectionString: server.url(), application_name: "hog" });
            client.on("error", () => {});
            try {
              await client.connect();
            } catch {
              break;
            }
            hogs.push(client);
          }
          expect(hogs.length).toBeGreaterThan(0);
          await sleep(5000);
        } finally {
          await Promise.all(hogs.map((client) => client.end().catch(() => {})));
        }
      },
    });
  }, 180_000);
});
