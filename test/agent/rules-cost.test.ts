/**
 * The cost budget the lifecycle's steps and the scenario rules share on one write's rows and on
 * one scan of the state (`limits.rulesCostPerWrite`): the rules it does not reach are stopped, in
 * order, with the reason in their `lastError`, and the write still succeeds. Cost-based, on the
 * manual clock: nothing here depends on how fast the machine is.
 */
import { describe, expect, it } from "vitest";
import { Cluster } from "../../src/server/scheduler/cluster.js";
import { ManualClock, parseDuration } from "../../src/server/base/clock.js";
import { decodeRegisterRequest } from "../../src/server/scheduler/job-spec.js";
import { RULES_COST_PER_WRITE, type ScenarioRule } from "../../src/server/scheduler/scenarios.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import { DEFAULT_LIMITS, OptionsError, resolveOptions } from "../../src/server/options.js";

/** The budget of these tests: far above what the steps and a plain rule spend on ten rows, far below one evaluation of {@link COSTLY}. */
const BUDGET = 1000;
/** Twenty small tasks, so that each allocation's `TaskRun.Tasks` holds twenty names (and all ten allocations fit the one node: at the default 300 MB a task, two would fill it). */
const TASKS = Array.from({ length: 20 }, (_, i) => ({ Name: `task-${i}`, Driver: "mock", Resources: { CPU: 20, MemoryMB: 32 } }));
/** A filter of about 20 × 20 × 5 = 2,000 units on each of those allocations, and that selects none. */
const COSTLY = 'any TaskRun.Tasks as a { any TaskRun.Tasks as b { a == b and a == "none" } }';

/** A cluster on the manual clock with one ready node, and the given budget (the default without one). */
async function startCluster(rulesCostPerWrite?: number): Promise<{ cluster: Cluster; clock: { advance(by: string | number): Promise<void> }; store: MemoryStore }> {
  const store = new MemoryStore();
  const clock = new ManualClock();
  const cluster = new Cluster(store, { region: "global", placementDelayMs: 1000, clock, ...(rulesCostPerWrite === undefined ? {} : { rulesCostPerWrite }) });
  await cluster.seed(1);
  cluster.lead();
  return { cluster, clock: { advance: (by) => clock.advance(parseDuration(by)) }, store };
}

/** Registers a service job `id` of ten allocations, each with {@link TASKS}. */
async function registerJob(cluster: Cluster, id: string): Promise<void> {
  await cluster.register(decodeRegisterRequest(JSON.stringify({ Job: { ID: id, TaskGroups: [{ Name: "g", Count: 10, Tasks: TASKS }] } })), "default", "global");
}

/** A plain rule, one costly rule, another plain rule: in this order. */
const RULES: readonly ScenarioRule[] = [
  { on: "allocation", select: 'JobID == "web"', after: "1m", set: { ClientStatus: "failed" } },
  { on: "allocation", select: COSTLY, set: { ClientStatus: "lost" } },
  { on: "allocation", select: 'JobID == "web"', after: "1m", set: { DesiredDescription: "reached" }, name: "after the costly one" },
];

const stopped = (rule: string, scope: string) =>
  new RegExp(`^${rule} stopped: the rules' filters exceeded their cost budget of ${BUDGET} units for ${scope} \\(limits\\.rulesCostPerWrite\\); the rows it had not reached were not selected$`);

describe("the rules' cost budget of one write", () => {
  it("stops the rules past the budget of a write, in order, while the write succeeds and a rule within it fires", async () => {
    const { cluster, clock, store } = await startCluster(BUDGET);
    for (const rule of RULES) cluster.addRule(rule);
    await registerJob(cluster, "web");
    await clock.advance(0);
    // The write placed the job's allocations, whatever the rules spent.
    expect([...store.tables.allocs.values()].filter((alloc) => alloc.JobID === "web")).toHaveLength(10);
    const [plain, costly, after] = cluster.rules;
    expect(plain!.lastError).toBeUndefined();
    expect(costly!.lastError).toMatch(stopped('rule "rule-2"', "the write at index \\d+"));
    expect(after!.lastError).toMatch(stopped('rule "rule-3" \\("after the costly one"\\)', "the write at index \\d+"));
    await clock.advance("1m");
    expect(plain!.fired).toBe(10);
    expect([...store.tables.allocs.values()].map((alloc) => alloc.ClientStatus)).toEqual(Array(10).fill("failed"));
    // The budget never reached it: it selected nothing.
    expect(after!.fired).toBe(0);
    cluster.close();
  });

  it("shares one budget over a scan of the state when the leader is back", async () => {
    const { cluster, clock, store } = await startCluster(BUDGET);
    await registerJob(cluster, "web");
    await clock.advance("1s");
    cluster.suspend(true);
    for (const rule of RULES) cluster.addRule(rule);
    cluster.suspend(false);
    const [plain, costly, after] = cluster.rules;
    expect(plain!.lastError).toBeUndefined();
    expect(costly!.lastError).toMatch(stopped('rule "rule-2"', "a scan of the state"));
    expect(after!.lastError).toMatch(stopped('rule "rule-3" \\("after the costly one"\\)', "a scan of the state"));
    await clock.advance("1m");
    expect(plain!.fired).toBe(10);
    expect(after!.fired).toBe(0);
    expect([...store.tables.allocs.values()].map((alloc) => alloc.ClientStatus)).toEqual(Array(10).fill("failed"));
    cluster.close();
  });

  it("stops a lifecycle step whose filter runs out of the budget, shows why in the lifecycle, and a change clears it", async () => {
    const { cluster, clock, store } = await startCluster(BUDGET);
    cluster.changeLifecycle("run", { select: `ClientStatus == "pending" and not (${COSTLY})` });
    await registerJob(cluster, "web");
    await clock.advance("10s");
    const statuses = () => [...store.tables.allocs.values()].map((alloc) => alloc.ClientStatus);
    expect(statuses()).toEqual(Array(10).fill("pending"));
    const run = () => cluster.lifecycle.find((step) => step.name === "run")!;
    expect(run().lastError).toMatch(stopped('lifecycle step "run"', "the write at index \\d+"));
    expect(Object.isFrozen(run())).toBe(true);
    cluster.changeLifecycle("run", { select: 'ClientStatus == "pending"' });
    expect(run().lastError).toBeUndefined();
    await clock.advance("10s");
    expect(statuses()).toEqual(Array(10).fill("running"));
    cluster.close();
  });

  it("puts the steps before the rules: costly rules never hold the built-in lifecycle back", async () => {
    const { cluster, clock, store } = await startCluster(BUDGET);
    cluster.addRule({ on: "allocation", select: COSTLY, set: { ClientStatus: "lost" } });
    await registerJob(cluster, "web");
    await clock.advance("10s");
    expect(cluster.rules[0]!.lastError).toMatch(stopped('rule "rule-1"', "the write at index \\d+"));
    expect(cluster.lifecycle.every((step) => step.lastError === undefined)).toBe(true);
    expect([...store.tables.allocs.values()].map((alloc) => alloc.ClientStatus)).toEqual(Array(10).fill("running"));
    cluster.close();
  });

  it("stops no rule within the default budget", async () => {
    const { cluster, clock } = await startCluster();
    for (const rule of RULES) cluster.addRule(rule);
    await registerJob(cluster, "web");
    await clock.advance("1m");
    expect(cluster.rules.map((rule) => [rule.lastError, rule.fired])).toEqual([
      [undefined, 10],
      [undefined, 0],
      [undefined, 10],
    ]);
    cluster.close();
  });

  it("is an agent limit, 20,000,000 units by default, and a positive whole number", () => {
    expect(RULES_COST_PER_WRITE).toBe(20_000_000);
    expect(DEFAULT_LIMITS.rulesCostPerWrite).toBe(RULES_COST_PER_WRITE);
    expect(resolveOptions({ limits: { rulesCostPerWrite: 5000 } }).limits.rulesCostPerWrite).toBe(5000);
    for (const invalid of [0, -1, 1.5, "many"]) expect(() => resolveOptions({ limits: { rulesCostPerWrite: invalid as number } })).toThrow(OptionsError);
  });
});
