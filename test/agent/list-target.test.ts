/**
 * A job list's filter sees the stored job with its list item laid over it; the two differ only in
 * `Periodic`, `ParameterizedJob` and `JobSummary`. A filter that reads none of them is evaluated
 * on the stored row itself, with no summary looked up and no target built per row; one that reads
 * any of them (anywhere, a collection's body included) sees the whole target. The answers are the
 * same either way.
 */
import { describe, expect, it } from "vitest";
import { compileFilter } from "../../src/filter.js";
import { jobFilterTarget } from "../../src/schemas.js";
import { jobsEndpoint } from "../../src/server/list/endpoints.js";
import { targetFor } from "../../src/server/list/pipeline.js";
import type { Store } from "../../src/server/state/store.js";
import { send, useAgent } from "./support.js";

const row = { ID: "web", Namespace: "default", Meta: { owner: "a" } };

describe("the target a job list's filter is evaluated on", () => {
  it.each([
    ['Meta.owner == "a"', true],
    ['ID == "web" and "dc1" in Datacenters', true],
    ['any TaskGroups as g { g.Name == "web" }', true],
    ["Periodic == true", false],
    ["ParameterizedJob == false", false],
    ["JobSummary.Summary.web.Running == 0", false],
    ['"/JobSummary/JobID" == "web"', false],
    ['Meta.owner == "a" or Periodic == true', false],
    ["any TaskGroups as g { JobSummary.Children.Pending == 0 }", false],
  ])("%s: the stored row itself: %s", (source, itself) => {
    const filter = compileFilter(source, { schema: jobFilterTarget });
    let built = 0;
    const endpoint = { ...jobsEndpoint, filterTarget: () => ++built };
    const target = targetFor(endpoint, filter)(row as never, {} as Store);
    expect(target === row).toBe(itself);
    expect(built).toBe(itself ? 0 : 1);
  });

  describe("answers alike on the agent", () => {
    const agent = useAgent({ demo: false, nodes: 0 });
    it("whether the filter reads a list-only field or not", async () => {
      const job = (id: string, fields: Record<string, unknown>) => ({ ID: id, Type: "batch", Meta: { owner: id }, TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "exec" }] }], ...fields });
      for (const spec of [job("plain", {}), job("cron", { Periodic: { Enabled: true, Spec: "* * * * *", SpecType: "cron" } }), job("param", { ParameterizedJob: {} })]) {
        expect((await agent.put("/v1/jobs", { Job: spec })).status).toBe(200);
      }
      const ids = async (filter: string) => (await send(`${agent.url}/v1/jobs?filter=${encodeURIComponent(filter)}`)).json<{ ID: string }[]>().map((item) => item.ID);
      expect(await ids('Meta.owner == "cron"')).toEqual(["cron"]);
      expect(await ids("Periodic == true")).toEqual(["cron"]);
      expect(await ids("ParameterizedJob == true")).toEqual(["param"]);
      expect(await ids('Meta.owner != "x" and Periodic == false and ParameterizedJob == false')).toEqual(["plain"]);
      expect(await ids('JobSummary.JobID == "plain"')).toEqual(["plain"]);
    });
  });
});
