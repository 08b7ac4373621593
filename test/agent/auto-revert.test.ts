/**
 * Auto-revert, as the reference's deployment watcher does it (`FailDeployment`, the deadline and
 * unhealthy-allocation failures, `latestStableJob`, `handleRollbackValidity`): a failed deployment
 * whose groups say `AutoRevert` registers the job's latest stable version again, as a new version,
 * and its description says so; with no stable version, or one with the job's own spec, there is
 * no revert. On the manual clock, over real sockets.
 */
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { job, send, useAgent } from "./support.js";

type Item = Record<string, any>;

const SECOND_NS = 1_000_000_000;

/** A job with one group of one task running `image`, its update block `update`, and `meta`. */
const spec = (id: string, image: string, update: Item, meta?: Record<string, string>) =>
  job(id, { Update: update, ...(meta === undefined ? {} : { Meta: meta }), TaskGroups: [{ Name: "g", Count: 1, Tasks: [{ Name: "t", Driver: "docker", Config: { image } }] }] });

describe("auto-revert", () => {
  const agent = useAgent({ clock: "manual", placementDelayMs: 1000, nodes: 2 });
  const read = async <T = Item>(path: string) => parseJson((await agent.get(path)).text) as T;
  const latest = (id: string) => read(`/v1/job/${id}/deployment`);
  const fail = async (deploymentId: string) => {
    const response = await send(`${agent.url}/v1/deployment/fail/${deploymentId}`, { method: "POST" });
    expect(response.status).toBe(200);
    return parseJson(response.text) as Item;
  };
  const imageOf = (stored: Item) => stored.TaskGroups[0].Tasks[0].Config.image;
  /** Registers v0 (image v0) and lets its deployment succeed: v0 is stable. */
  const stableV0 = async (id: string, update: Item = { MaxParallel: 1 }) => {
    await agent.register(spec(id, "v0", update));
    await agent.agent.clock.advance("15s");
    expect(await read(`/v1/job/${id}`)).toMatchObject({ Version: 0, Stable: true });
  };

  it("reverts a deployment a user fails to the latest stable version: a new version with its spec", async () => {
    await stableV0("web");
    await agent.register(spec("web", "v1", { MaxParallel: 1, AutoRevert: true }));
    await agent.agent.clock.advance(0);
    const deployment = await latest("web");
    expect(deployment).toMatchObject({ JobVersion: 1, Status: "running", TaskGroups: { g: { AutoRevert: true } } });

    const answer = await fail(deployment.ID);
    expect(answer.RevertedJobVersion).toBe(0);
    const failed = await read(`/v1/deployment/${deployment.ID}`);
    expect([failed.Status, failed.StatusDescription]).toEqual(["failed", "Deployment marked as failed - rolling back to job version 0"]);
    expect(failed.ModifyIndex).toBe(answer.DeploymentModifyIndex);

    // The stable version's job, registered again at the next version and the failure's index.
    const reverted = await read(`/v1/job/web`);
    const v0 = (await read<Item>(`/v1/job/web/versions`)).Versions.find((version: Item) => version.Version === 0);
    expect(reverted).toMatchObject({ Version: 2, JobModifyIndex: answer.Index, Update: v0.Update, TaskGroups: [{ Update: { AutoRevert: false } }] });
    expect(imageOf(reverted)).toBe("v0");
    expect((await read<Item>(`/v1/job/web/versions`)).Versions.map((version: Item) => version.Version)).toEqual([2, 1, 0]);
    // Its evaluation has the scheduler roll v2 out (processed at once: it names v2's deployment now).
    expect(await read(`/v1/evaluation/${answer.EvalID}`)).toMatchObject({ TriggeredBy: "deployment-watcher", CreateIndex: answer.EvalCreateIndex });

    // The scheduler rolls the reverted version out in a deployment of its own.
    await agent.agent.clock.advance("15s");
    expect(await latest("web")).toMatchObject({ JobVersion: 2, Status: "successful" });
    const running = (await read<Item[]>(`/v1/job/web/allocations`)).filter((alloc) => alloc.DesiredStatus === "run");
    expect(running.map((alloc) => alloc.JobVersion)).toEqual([2]);
  });

  it.each([
    {
      name: "the deployment's groups do not say AutoRevert",
      id: "plain",
      stable: true,
      update: { MaxParallel: 1 },
      description: "Deployment marked as failed",
    },
    {
      name: "no version of the job is stable",
      id: "unstable",
      stable: false,
      update: { MaxParallel: 1, AutoRevert: true },
      description: "Deployment marked as failed - no stable job version to auto revert to",
    },
  ])("does not revert when $name", async ({ id, stable, update, description }) => {
    if (stable) await stableV0(id);
    else await agent.register(spec(id, "v0", update));
    if (stable) await agent.register(spec(id, "v1", update));
    await agent.agent.clock.advance(0);
    const deployment = await latest(id);
    const answer = await fail(deployment.ID);
    expect(answer.RevertedJobVersion).toBeNull();
    expect((await read(`/v1/deployment/${deployment.ID}`)).StatusDescription).toBe(description);
    expect((await read(`/v1/job/${id}`)).Version).toBe(stable ? 1 : 0);
  });

  it("does not revert to a stable version with the job's own spec (the revert failing again)", async () => {
    await stableV0("loop", { MaxParallel: 1, AutoRevert: true });
    await agent.register(spec("loop", "v1", { MaxParallel: 1, AutoRevert: true }));
    await agent.agent.clock.advance(0);
    expect((await fail((await latest("loop")).ID)).RevertedJobVersion).toBe(0);
    // v2 is v0's job as it was kept, Stable included (the reference copies the version whole).
    expect(await read(`/v1/job/loop`)).toMatchObject({ Version: 2, Stable: true });
    await agent.agent.clock.advance(0);
    const again = await latest("loop");
    expect(again).toMatchObject({ JobVersion: 2, Status: "running" });
    const answer = await fail(again.ID);
    expect(answer.RevertedJobVersion).toBeNull();
    expect((await read(`/v1/deployment/${again.ID}`)).StatusDescription).toBe("Deployment marked as failed - not rolling back to stable job version 2 as current job has same specification");
    expect((await read(`/v1/job/loop`)).Version).toBe(2);
  });

  it.each([
    {
      name: "at its progress deadline",
      id: "deadline",
      update: { MaxParallel: 1, AutoRevert: true, HealthyDeadline: 20 * SECOND_NS, ProgressDeadline: 60 * SECOND_NS },
      // Placed at 0: unhealthy at 20 s (its healthy deadline), replaced, and the deployment fails at 60 s.
      before: "59s",
      description: "Failed due to progress deadline - rolling back to job version 0",
    },
    {
      name: "on an unhealthy allocation, without a progress deadline",
      id: "unhealthy",
      update: { MaxParallel: 1, AutoRevert: true, HealthyDeadline: 20 * SECOND_NS, ProgressDeadline: 0 },
      // Unhealthy at 20 s; the watcher fails the deployment a second later.
      before: "20s",
      description: "Failed due to unhealthy allocations - rolling back to job version 0",
    },
  ])("reverts a deployment that fails $name", async ({ id, update, before, description }) => {
    await stableV0(id);
    await agent.register(spec(id, "v1", update, { "bexpr.fail_deployment": "true" }));
    await agent.agent.clock.advance(0);
    const deployment = await latest(id);
    await agent.agent.clock.advance(before);
    expect((await read(`/v1/deployment/${deployment.ID}`)).Status).toBe("running");
    await agent.agent.clock.advance("2s");
    expect(await read(`/v1/deployment/${deployment.ID}`)).toMatchObject({ Status: "failed", StatusDescription: description });
    const reverted = await read(`/v1/job/${id}`);
    expect([reverted.Version, imageOf(reverted)]).toEqual([2, "v0"]);
  });
});
