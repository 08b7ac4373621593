/**
 * Periodic jobs launched as the reference's leader launches them (`nomad/periodic.go`): the
 * parent places nothing and stays `running`; at each time of its cron spec, in its time zone, a
 * child `<id>/periodic-<unix seconds>` is registered with `ParentID` and no periodic block, with a
 * `periodic-job` evaluation; `ProhibitOverlap` skips a launch while a child runs; the parent's
 * summary counts its children; `PUT /v1/job/<id>/periodic/force` launches one now; a leader
 * that comes back launches what fell due meanwhile. The cron times themselves are tested as
 * the pure function `nextLaunchMs` (`PeriodicConfig.Next`). On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { MAX_CRON_SPECS, nextLaunchMs, validatePeriodic } from "../../src/server/scheduler/cron.js";
import { startAgent, type Agent } from "../../src/server/index.js";
import { eventually, job, ON_POSTGRES, send, settled, testStore, useAgent, type TestAgent } from "./support.js";

type Item = Record<string, any>;

const at = (iso: string) => Date.parse(iso);

describe("a periodic block's next launch (PeriodicConfig.Next)", () => {
  it.each([
    ["every 5 minutes", { Spec: "*/5 * * * *" }, "2026-01-01T00:01:00Z", "2026-01-01T00:05:00Z"],
    ["strictly after the time given", { Spec: "*/5 * * * *" }, "2026-01-01T00:05:00Z", "2026-01-01T00:10:00Z"],
    ["6 fields: a year after the day of week", { Spec: "0 0 1 1 * 2030" }, "2026-01-01T00:00:00Z", "2030-01-01T00:00:00Z"],
    ["7 fields: seconds first", { Spec: "30 0 0 * * * *" }, "2026-01-01T00:00:00Z", "2026-01-01T00:00:30Z"],
    ["a shorthand", { Spec: "@daily" }, "2026-01-01T10:00:00Z", "2026-01-02T00:00:00Z"],
    ["day of month or day of week, when both are given", { Spec: "0 0 15 * 1" }, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"],
    ["in the job's time zone", { Spec: "0 3 * * *", TimeZone: "America/New_York" }, "2026-01-01T00:00:00Z", "2026-01-01T08:00:00Z"],
    ["in the job's time zone, across a change to summer time", { Spec: "0 3 * * *", TimeZone: "America/New_York" }, "2026-03-07T09:00:00Z", "2026-03-08T07:00:00Z"],
    ["the earliest of several specs", { Specs: ["0 12 * * *", "0 6 * * *"] }, "2026-01-01T00:00:00Z", "2026-01-01T06:00:00Z"],
    ["the test spec type's Unix seconds", { SpecType: "test", Spec: "100,200" }, "1970-01-01T00:02:30Z", "1970-01-01T00:03:20Z"],
  ])("%s", (_name, block, from, expected) => {
    const periodic = { Enabled: true, SpecType: "cron", TimeZone: "UTC", ...block };
    expect(new Date(nextLaunchMs(periodic, at(from))!).toISOString()).toBe(new Date(at(expected)).toISOString());
  });

  it.each([
    ["a date that never comes", "0 0 30 2 *"],
    ["a year already past", "0 0 1 1 * 2020"],
  ])("is none for %s, found within cronexpr's years", (_name, spec) => {
    expect(nextLaunchMs({ Enabled: true, SpecType: "cron", TimeZone: "UTC", Spec: spec }, at("2026-01-01T00:00:00Z"))).toBeUndefined();
  });

  it.each([
    ["more specs than the agent reads", { Specs: Array.from({ length: MAX_CRON_SPECS + 1 }, () => "* * * * *") }, `the mini-agent reads at most ${MAX_CRON_SPECS} cron specs for one job`],
    ["an unreadable spec", { Spec: "*/5 * *" }, 'Invalid cron spec "*/5 * *": missing field(s)'],
    ["a value out of range", { Spec: "99 * * * *" }, 'Invalid cron spec "99 * * * *"'],
    // cronexpr reads the years 1970 to 2099: a later one would have the next launch searched for through every year up to it.
    ["a year past cronexpr's", { Spec: "0 0 31 4 * 1970-9999" }, 'Invalid cron spec "0 0 31 4 * 1970-9999": syntax error in year field'],
    ["a year before cronexpr's", { Spec: "0 0 1 1 * 1969" }, "syntax error in year field"],
    ["an unknown time zone", { Spec: "* * * * *", TimeZone: "Mars/Olympus" }, 'Invalid time zone "Mars/Olympus": unknown time zone Mars/Olympus'],
    ["both Spec and Specs", { Spec: "* * * * *", Specs: ["* * * * *"] }, "Only cron or crons may be used"],
    ["no spec", {}, "Must specify a spec"],
    ["an unknown spec type", { Spec: "* * * * *", SpecType: "at" }, 'Unknown periodic specification type "at"'],
  ])("refuses %s", (_name, block, message) => {
    const errors = validatePeriodic({ Enabled: true, SpecType: "cron", TimeZone: "UTC", ...block });
    expect(errors.join("\n")).toContain(message);
  });
});

function reader(agent: TestAgent) {
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  return {
    read,
    // Stale: answered while the leader is lost too.
    children: (id: string) => read<Item[]>(`/v1/jobs?stale&prefix=${encodeURIComponent(`${id}/periodic-`)}`),
    children_of: (id: string) => read<{ Children: Record<string, number> }>(`/v1/job/${encodeURIComponent(id)}/summary`).then((summary) => summary.Children),
  };
}

const batch = (id: string, periodic: Record<string, unknown>, fields: Record<string, unknown> = {}) => job(id, { Type: "batch", Periodic: periodic, ...fields });

describe("a periodic job", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { read, children, children_of } = reader(agent);
  const nowMs = () => agent.agent.clock.now().getTime();
  // A job launched every minute is stopped at the end of its test, so that later tests' hours pass quickly.
  const stop = async (id: string) => expect((await agent.put(`/v1/job/${id}`, "", { method: "DELETE" })).status).toBe(200);

  it("launches a child cron/periodic-<unix> at each cron time, and places nothing itself", async () => {
    const registered = await agent.register(batch("cron", { Spec: "*/5 * * * *" }));
    expect(registered.EvalID).toBe("");
    expect(await read("/v1/job/cron")).toMatchObject({ Status: "running", Periodic: { Spec: "*/5 * * * *", Enabled: true } });
    expect(await read<Item[]>("/v1/job/cron/allocations")).toEqual([]);
    const start = nowMs();

    // A minute past the first multiple of 5 minutes (at most 6 minutes on, wherever the clock started): one launch.
    const launchSeconds = Math.ceil((start + 1) / 300_000) * 300;
    await agent.agent.clock.advance(launchSeconds * 1000 + 60_000 - start);
    const launched = await children("cron");
    expect(launched).toHaveLength(1);
    expect(launched[0]).toMatchObject({ ID: `cron/periodic-${launchSeconds}`, ParentID: "cron", Type: "batch" });
    const child = await read(`/v1/job/${encodeURIComponent(launched[0]!.ID)}`);
    expect(child).toMatchObject({ Name: child.ID, ParentID: "cron", Periodic: null });
    const evals = await read<Item[]>(`/v1/job/${encodeURIComponent(child.ID)}/evaluations`);
    expect(evals).toMatchObject([{ TriggeredBy: "periodic-job", Status: "complete", Type: "batch" }]);
    expect(await read<Item[]>(`/v1/job/${encodeURIComponent(child.ID)}/allocations`)).toHaveLength(1);
    // Its batch allocation finished a second after it ran: the child is dead, and counted so.
    expect(child.Status).toBe("dead");
    expect(await children_of("cron")).toEqual({ Pending: 0, Running: 0, Dead: 1 });

    await agent.agent.clock.advance("5m");
    expect((await children("cron")).map((each) => each.ID)).toEqual([`cron/periodic-${launchSeconds}`, `cron/periodic-${launchSeconds + 300}`]);
  });

  it("counts a child pending, then running, then dead in its parent's summary", async () => {
    await agent.register(batch("counted", { Spec: "* * * * *" }, { Meta: { "bexpr.run_for": "90s" } }));
    const next = Math.ceil((nowMs() + 1) / 60_000) * 60_000;
    await agent.agent.clock.advance(next - nowMs());
    expect(await children_of("counted")).toEqual({ Pending: 0, Running: 1, Dead: 0 });
    await agent.agent.clock.advance("60s");
    expect(await children_of("counted")).toEqual({ Pending: 0, Running: 2, Dead: 0 });
    await agent.agent.clock.advance("45s");
    expect(await children_of("counted")).toEqual({ Pending: 0, Running: 1, Dead: 1 });
    await stop("counted");
  });

  it("skips a launch while a child runs when it prohibits overlap", async () => {
    await agent.register(batch("overlap", { Spec: "* * * * *", ProhibitOverlap: true }, { Meta: { "bexpr.run_for": "90s" } }));
    const first = Math.ceil((nowMs() + 1) / 60_000) * 60_000;
    await agent.agent.clock.advance(first - nowMs() + 60_000);
    // The second minute's launch found the first child running.
    expect((await children("overlap")).map((each) => each.ID)).toEqual([`overlap/periodic-${first / 1000}`]);
    await agent.agent.clock.advance("60s");
    expect((await children("overlap")).map((each) => each.ID)).toEqual([`overlap/periodic-${first / 1000}`, `overlap/periodic-${first / 1000 + 120}`]);
    await stop("overlap");
  });

  it("launches at the cron times of its time zone", async () => {
    // India is 5 h 30 min ahead of UTC all year: its full hours are UTC's half hours.
    await agent.register(batch("zoned", { Spec: "0 * * * *", TimeZone: "Asia/Kolkata" }));
    await agent.agent.clock.advance("61m");
    const [child] = await children("zoned");
    expect(Number(child!.ID.split("/periodic-")[1]) % 3600).toBe(1800);
  });

  it("is refused with a cron spec it cannot read, in the reference's nested multi-error", async () => {
    const response = await agent.put("/v1/jobs", { Job: batch("unreadable", { Spec: "*/5 * *" }) });
    expect({ status: response.status, text: response.text }).toEqual({
      status: 400,
      text: '1 error occurred:\n\t* 1 error occurred:\n\t* Invalid cron spec "*/5 * *": missing field(s)\n\n\n\n',
    });
  });

  it("is not launched once stopped", async () => {
    await agent.register(batch("stopped", { Spec: "* * * * *" }));
    await stop("stopped");
    expect(await read("/v1/job/stopped")).toMatchObject({ Status: "dead", Stop: true });
    await agent.agent.clock.advance("2m");
    expect(await children("stopped")).toEqual([]);
  });
});

describe("PUT /v1/job/<id>/periodic/force", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { read, children } = reader(agent);

  it("launches a child now and answers its evaluation", async () => {
    await agent.register(batch("forced", { Spec: "0 0 1 1 *" }));
    const response = await agent.put("/v1/job/forced/periodic/force", "");
    expect(response.status).toBe(200);
    const body = response.json<{ EvalID: string; EvalCreateIndex: number; Index: number }>();
    expect(Object.keys(body).sort()).toEqual(["EvalCreateIndex", "EvalID", "Index"]);
    expect(body.EvalCreateIndex).toBe(body.Index);
    const launched = await children("forced");
    expect(launched.map((each) => each.ID)).toEqual([`forced/periodic-${Math.floor(agent.agent.clock.now().getTime() / 1000)}`]);
    const evaluation = await read(`/v1/evaluation/${body.EvalID}`);
    expect(evaluation).toMatchObject({ JobID: launched[0]!.ID, TriggeredBy: "periodic-job", CreateIndex: body.Index });
  });

  it.each([
    ["a job that is not periodic", () => job("plain", { Type: "batch" }), "plain", 400, "can't force launch non-periodic job"],
    ["a disabled periodic job", () => batch("disabled", { Spec: "* * * * *", Enabled: false }), "disabled", 400, 'force launch for job "disabled" failed: can\'t force run non-tracked job "disabled" (default)'],
    ["a job that does not exist", undefined, "nothing", 404, "job not found"],
  ])("refuses %s", async (_name, spec, id, status, message) => {
    if (spec !== undefined) await agent.register(spec());
    const response = await agent.put(`/v1/job/${id}/periodic/force`, "");
    expect({ status: response.status, text: response.text }).toEqual({ status, text: message });
  });
});

describe("a periodic job after the leader was lost", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 3 });
  const { children } = reader(agent);

  it("is launched once as soon as the leader is back when a launch fell due meanwhile, then on its times", async () => {
    await agent.register(batch("missed", { Spec: "*/5 * * * *" }));
    agent.agent.setLeader(false);
    await agent.agent.clock.advance("11m");
    expect(await children("missed")).toEqual([]);
    agent.agent.setLeader(true);
    await agent.agent.clock.advance(0);
    const back = Math.floor(agent.agent.clock.now().getTime() / 1000);
    expect((await children("missed")).map((each) => each.ID)).toEqual([`missed/periodic-${back}`]);
  });
});

describe.runIf(ON_POSTGRES)("a periodic job on agents sharing one PostgreSQL schema", () => {
  it("is launched by the leader alone, and by the agent that leads after it", async () => {
    const { store, drop } = await testStore();
    const agents: Agent[] = [];
    try {
      for (const name of ["agent-0", "agent-1"]) agents.push(await startAgent({ port: 0, demo: false, logLevel: "silent", store, nodeName: name, clock: "manual", placementDelayMs: 1000 }));
      const [leader, follower] = agents[0]!.leading ? [agents[0]!, agents[1]!] : [agents[1]!, agents[0]!];
      const launched = async (agent: Agent) => (await send(`${agent.url}/v1/jobs?prefix=${encodeURIComponent("shared/periodic-")}`)).json<Item[]>().map((each) => each.ID as string);
      const registered = await send(`${follower.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: batch("shared", { Spec: "*/5 * * * *" }) }) });
      expect(registered.status).toBe(200);
      // The leader has the job (through the store's change feed) before its clock moves.
      await eventually(async () => ((await send(`${leader.url}/v1/job/shared`)).status === 200 ? true : undefined), 20_000);
      // The follower's clock passes a launch: it launches nothing.
      // Five minutes pass the next multiple of five on both clocks, and leave the one after it ahead of both.
      await follower.clock.advance("5m");
      await settled(leader.url);
      expect(await launched(leader)).toEqual([]);
      await leader.clock.advance("5m");
      const first = await eventually(async () => ((await launched(follower)).length === 1 ? await launched(follower) : undefined), 20_000);
      await leader.close();
      await eventually(async () => (follower.leading ? true : undefined), 20_000);
      await follower.clock.advance("5m");
      const seconds = Number(first[0]!.split("/periodic-")[1]);
      expect(await eventually(async () => ((await launched(follower)).length === 2 ? await launched(follower) : undefined), 20_000)).toEqual([first[0], `shared/periodic-${seconds + 300}`]);
    } finally {
      await Promise.all(agents.map((agent) => agent.close()));
      await drop();
    }
  });
});
