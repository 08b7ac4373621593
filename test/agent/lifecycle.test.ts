/**
 * The built-in lifecycle as rules a test can list, narrow, retime and switch off; the task states
 * of allocations as the simulated client records them; and the scheduler standing still while a
 * test has the cluster's leader lost. All on the manual clock, over real sockets.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { LIFECYCLE_DEFAULTS, ScenarioRuleError, type LifecycleChange, type LifecycleStepName } from "../../src/server/index.js";
import { job, send, useAgent } from "./support.js";

type Item = Record<string, unknown>;
type TaskState = { State: string; Failed: boolean; StartedAt: string; FinishedAt: string; Events: { Type: string; Time: number; DisplayMessage: string; ExitCode: number }[] };

const PLACEMENT_MS = 1000;
const ZERO_TIME = "0001-01-01T00:00:00Z";

describe("the built-in lifecycle", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: PLACEMENT_MS });
  afterEach(() => agent.agent.scenarios.resetLifecycle());

  const allocations = async (id: string) => parseJson((await agent.get(`/v1/job/${id}/allocations`)).text) as Item[];
  const statuses = async (id: string) => (await allocations(id)).map((alloc) => alloc.ClientStatus);
  const deployment = async (id: string) => parseJson((await agent.get(`/v1/job/${id}/deployment`)).text) as Item;

  it("lists its four steps as rules with filters, as the defaults say", () => {
    const steps = agent.agent.scenarios.lifecycle();
    expect(steps.map((step) => [step.name, step.on, step.select, step.after, step.enabled])).toEqual([
      ["evaluate", "evaluation", 'Status == "pending"', null, true],
      ["run", "allocation", 'ClientStatus == "pending" and DesiredStatus == "run"', null, true],
      ["finish", "allocation", 'ClientStatus == "running" and DesiredStatus == "run"', null, true],
      ["complete", "deployment", 'Status == "running"', null, true],
    ]);
    expect(steps).toEqual(LIFECYCLE_DEFAULTS);
    for (const step of steps) expect(step.does.length + step.timing.length).toBeGreaterThan(20);
    // What it hands out cannot be changed behind its back (only through changeStep).
    expect(steps.every((step) => Object.isFrozen(step)) && LIFECYCLE_DEFAULTS.every((step) => Object.isFrozen(step))).toBe(true);
  });

  it("leaves allocations pending while its run step is off, for a test's own rule to move", async () => {
    agent.agent.scenarios.changeStep("run", { enabled: false });
    await agent.register(job("held", { Type: "batch" }));
    await agent.agent.clock.advance("1h");
    expect(await statuses("held")).toEqual(["pending"]);
    const rule = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "held"', after: "5s", set: { ClientStatus: "running" } });
    await agent.agent.clock.advance("5s");
    expect(await statuses("held")).toEqual(["running"]);
    agent.agent.scenarios.remove(rule);
  });

  it("picks the run step up again when it is switched back on, for allocations already overdue", async () => {
    agent.agent.scenarios.changeStep("run", { enabled: false });
    await agent.register(job("resumed", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance("10s");
    expect(await statuses("resumed")).toEqual(["pending"]);
    agent.agent.scenarios.changeStep("run", { enabled: true });
    await agent.agent.clock.advance(0);
    expect(await statuses("resumed")).toEqual(["running"]);
  });

  it("acts only on the rows a narrowed filter selects", async () => {
    agent.agent.scenarios.changeStep("run", { select: 'ClientStatus == "pending" and JobID != "stuck"' });
    await agent.register(job("stuck", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.register(job("moving", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance("1m");
    expect([await statuses("stuck"), await statuses("moving")]).toEqual([["pending"], ["running"]]);
  });

  it("completes deployments at a step's own time when a test sets one", async () => {
    agent.agent.scenarios.changeStep("complete", { after: "10m" });
    await agent.register(job("slow-deploy", { Update: { MaxParallel: 1 } }));
    await agent.agent.clock.advance("9m");
    expect(await deployment("slow-deploy")).toMatchObject({ Status: "running" });
    await agent.agent.clock.advance("1m");
    expect(await deployment("slow-deploy")).toMatchObject({ Status: "successful" });
  });

  it("finishes any job's allocations at the finish step's time, a job's own bexpr.run_for first", async () => {
    agent.agent.scenarios.changeStep("finish", { after: "2m" });
    await agent.register(job("service-ends"));
    await agent.register(job("own-time", { Meta: { "bexpr.run_for": "10m" } }));
    await agent.agent.clock.advance(PLACEMENT_MS / 2);
    await agent.agent.clock.advance("2m");
    expect([await statuses("service-ends"), await statuses("own-time")]).toEqual([["complete"], ["running"]]);
    await agent.agent.clock.advance("8m");
    expect(await statuses("own-time")).toEqual(["complete"]);
  });

  it("puts every step back as it was", () => {
    agent.agent.scenarios.changeStep("evaluate", { after: "1s", select: 'JobID == "x"', enabled: false });
    expect(agent.agent.scenarios.lifecycle()[0]).toMatchObject({ after: "1s", select: 'JobID == "x"', enabled: false });
    agent.agent.scenarios.resetLifecycle();
    expect(agent.agent.scenarios.lifecycle()).toEqual(LIFECYCLE_DEFAULTS);
  });

  it.each<[string, string, unknown, RegExp]>([
    ["an unknown step", "explode", { enabled: false }, /no lifecycle step "explode": the steps are evaluate, run, finish, complete/],
    ["a filter that does not parse", "run", { select: "JobID = web" }, /"select" is not a valid filter/],
    ["a duration that is not one", "complete", { after: "soon" }, /"after": "soon" is not a duration/],
    ["a field steps do not have", "run", { on: "node" }, /a lifecycle step has no field "on" to change: it has select, after and enabled/],
    ["a switch that is not a boolean", "run", { enabled: "no" }, /"enabled" must be true or false/],
    ["a change that is not an object", "run", [], /a change is an object/],
  ])("refuses %s", (_what, name, change, message) => {
    const attempt = () => agent.agent.scenarios.changeStep(name as LifecycleStepName, change as LifecycleChange);
    expect(attempt).toThrow(ScenarioRuleError);
    expect(attempt).toThrow(message);
    expect(agent.agent.scenarios.lifecycle()).toEqual(LIFECYCLE_DEFAULTS);
  });
});

describe("task states", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: PLACEMENT_MS });
  const task = async (id: string) => {
    const [stub] = parseJson((await agent.get(`/v1/job/${id}/allocations`)).text) as Item[];
    const full = parseJson((await agent.get(`/v1/allocation/${stub!.ID as string}`)).text) as Item;
    // The list's stub and the full allocation say the same.
    expect(full.TaskStates).toEqual(stub!.TaskStates);
    return (full.TaskStates as Record<string, TaskState>).t!;
  };
  const nowNs = () => BigInt(agent.agent.clock.now().getTime()) * 1_000_000n;

  it("follow a batch allocation from received to started to terminated, on the agent's clock", async () => {
    await agent.register(job("states", { Type: "batch", Meta: { "bexpr.run_for": "1m" } }));
    await agent.agent.clock.advance(0);
    const pending = await task("states");
    expect([pending.State, pending.StartedAt, pending.FinishedAt, pending.Events.map((event) => event.Type)]).toEqual(["pending", ZERO_TIME, ZERO_TIME, ["Received", "Task Setup"]]);

    await agent.agent.clock.advance(PLACEMENT_MS / 2);
    const started = agent.agent.clock.now();
    const running = await task("states");
    // Go's RFC 3339: the fraction without its trailing zeros.
    const goStarted = started.toISOString().replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits === "" ? "Z" : `.${digits}Z`));
    expect([running.State, running.StartedAt, running.Events.map((event) => event.Type)]).toEqual(["running", goStarted, ["Received", "Task Setup", "Started"]]);
    expect(BigInt(running.Events[2]!.Time)).toBe(nowNs());

    await agent.agent.clock.advance("1m");
    const dead = await task("states");
    expect([dead.State, dead.Failed, Date.parse(dead.FinishedAt) - Date.parse(dead.StartedAt)]).toEqual(["dead", false, 60_000]);
    expect(dead.Events.at(-1)).toMatchObject({ Type: "Terminated", DisplayMessage: "Exit Code: 0", ExitCode: 0 });
  });

  it("say a task failed with its job's exit code, and that it is not restarted", async () => {
    await agent.register(job("exits", { Type: "batch", Meta: { "bexpr.exit_code": "3" } }));
    await agent.agent.clock.advance(PLACEMENT_MS * 2);
    const failed = await task("exits");
    expect([failed.State, failed.Failed]).toEqual(["dead", true]);
    expect(failed.Events.slice(-2).map((event) => [event.Type, event.DisplayMessage])).toEqual([
      ["Terminated", "Exit Code: 3"],
      ["Not Restarting", "Policy allows no restarts"],
    ]);
  });

  it("say the task was killed when its job is stopped", async () => {
    await agent.register(job("killed", { Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance(PLACEMENT_MS);
    expect((await send(`${agent.url}/v1/job/killed`, { method: "DELETE" })).status).toBe(200);
    await agent.agent.clock.advance(0);
    const killed = await task("killed");
    expect([killed.State, killed.Failed, killed.Events.slice(-2).map((event) => event.Type)]).toEqual(["dead", false, ["Killing", "Killed"]]);
  });

  it("can be filtered on in the allocations list", async () => {
    await agent.register(job("filtered", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance(PLACEMENT_MS);
    const filter = encodeURIComponent('JobID == "filtered" and TaskStates.t.State == "running"');
    expect((parseJson((await agent.get(`/v1/allocations?filter=${filter}`)).text) as Item[]).length).toBe(1);
  });
});

describe("a lost leader", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: PLACEMENT_MS });
  const stale = async (id: string) => (parseJson((await agent.get(`/v1/job/${id}/allocations?stale`)).text) as Item[]).map((alloc) => alloc.ClientStatus);

  it("stops the scheduler and the scenario rules until it is back, then the overdue steps run", async () => {
    await agent.register(job("frozen", { Type: "batch", Meta: { "bexpr.run_for": "1m" } }));
    await agent.agent.clock.advance(0);
    const rule = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "frozen"', after: "30s", set: { ClientDescription: "seen by a rule" } });
    agent.agent.setLeader(false);
    await agent.agent.clock.advance("10m");
    expect(await stale("frozen")).toEqual(["pending"]);
    agent.agent.setLeader(true);
    await agent.agent.clock.advance(0);
    expect(await stale("frozen")).toEqual(["running"]);
    await agent.agent.clock.advance("1m");
    const [alloc] = parseJson((await agent.get("/v1/job/frozen/allocations")).text) as Item[];
    expect(alloc).toMatchObject({ ClientStatus: "complete" });
    expect(agent.agent.scenarios.list().find((each) => each.id === rule)?.fired).toBe(1);
    agent.agent.scenarios.remove(rule);
  });

  it("keeps a rule's time counted from when it first selected a row, across the loss", async () => {
    await agent.register(job("timed", { Type: "batch", Meta: { "bexpr.run_for": "1h" } }));
    await agent.agent.clock.advance("1s");
    const rule = agent.agent.scenarios.add({ on: "allocation", select: 'JobID == "timed"', after: "1m", set: { ClientStatus: "failed" } });
    await agent.agent.clock.advance("40s");
    agent.agent.setLeader(false);
    await agent.agent.clock.advance("10s");
    agent.agent.setLeader(true);
    // 50 s after it selected the allocation: 10 s to go, not a whole minute again.
    await agent.agent.clock.advance("10s");
    expect(await stale("timed")).toEqual(["failed"]);
    agent.agent.scenarios.remove(rule);
  });
});

describe("the lifecycle routes", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: PLACEMENT_MS });
  const patch = (name: string, body: unknown) => send(`${agent.url}/_bexpr/lifecycle/${name}`, { method: "PATCH", body: typeof body === "string" ? body : JSON.stringify(body) });

  /** A step as the routes write it: PascalCase, as the reference writes its fields. */
  const overHttp = (step: (typeof LIFECYCLE_DEFAULTS)[number]) => ({ Name: step.name, On: step.on, Select: step.select, After: step.after, Enabled: step.enabled, Does: step.does, Timing: step.timing });

  it("list, show, change and reset the steps", async () => {
    expect((await agent.get("/_bexpr/lifecycle")).json()).toEqual(LIFECYCLE_DEFAULTS.map(overHttp));
    expect((await agent.get("/_bexpr/lifecycle/finish")).json()).toEqual(overHttp(LIFECYCLE_DEFAULTS[2]!));
    const changed = await patch("run", { Enabled: false });
    expect([changed.status, (changed.json() as Item).Enabled]).toEqual([200, false]);
    // Fields are read in any case, as Go's encoding/json reads them.
    const after = await patch("finish", { after: "5m" });
    expect([after.status, (after.json() as Item).After]).toEqual([200, "5m"]);
    expect(agent.agent.scenarios.lifecycle()[2]).toMatchObject({ name: "finish", after: "5m" });
    await agent.register(job("routed", { Type: "batch" }));
    await send(`${agent.url}/_bexpr/clock/advance`, { method: "POST", body: JSON.stringify({ By: "1h" }) });
    const [alloc] = parseJson((await agent.get("/v1/job/routed/allocations")).text) as Item[];
    expect(alloc).toMatchObject({ ClientStatus: "pending" });
    const reset = await send(`${agent.url}/_bexpr/lifecycle`, { method: "DELETE" });
    expect([reset.status, reset.json()]).toEqual([200, LIFECYCLE_DEFAULTS.map(overHttp)]);
  });

  it.each([
    ["nope", { enabled: false }, 404, 'no lifecycle step "nope": the steps are evaluate, run, finish, complete'],
    ["run", "", 400, "Request body is empty"],
    ["run", { after: -1 }, 400, '"after": -1 is not a duration: give milliseconds, or write it as 10m, 1h30m, 250ms or 1.5s'],
    ["run", { select: "(" }, 400, /^"select" is not a valid filter: /],
  ])("answers a change of %s with %j: %i", async (name, body, status, message) => {
    const response = await patch(name, body);
    expect(response.status).toBe(status);
    expect(response.text).toMatch(message instanceof RegExp ? message : new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
  });
});
