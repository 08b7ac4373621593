/**
 * An allocation's `Job` is its job at the allocation's version, as the reference's allocation
 * carries the job it was placed (or last updated in place) with: during a rolling update the
 * allocations not yet replaced show the older version, in `GET /v1/allocation/<id>` and to the
 * allocation list's filter. On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { useAgent } from "./support.js";

type Item = Record<string, any>;

const service = (image: string) => ({
  ID: "rolling",
  Update: { MaxParallel: 1 },
  TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "docker", Config: { image } }] }],
});

describe("an allocation's job during a rolling update", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;

  it("is the job at the allocation's version, not the newest", async () => {
    await agent.register(service("web:1"));
    await agent.agent.clock.advance("11s");
    await agent.register(service("web:2"));
    await agent.agent.clock.advance(0);
    // MaxParallel 1: one allocation replaced, the other still at version 0 until the replacement is healthy.
    const running = (await read<Item[]>("/v1/job/rolling/allocations")).filter((alloc) => alloc.DesiredStatus === "run");
    expect(running.map((alloc) => alloc.JobVersion).sort()).toEqual([0, 1]);
    for (const stub of running) {
      const alloc = await read(`/v1/allocation/${stub.ID}`);
      expect([alloc.Job.Version, alloc.Job.TaskGroups[0].Tasks[0].Config.image]).toEqual([stub.JobVersion, stub.JobVersion === 0 ? "web:1" : "web:2"]);
    }
    const old = await read<Item[]>(`/v1/allocations?filter=${encodeURIComponent('Job.Version == 0 and DesiredStatus == "run"')}`);
    expect(old.map((alloc) => alloc.JobVersion)).toEqual([0]);
  });
});
