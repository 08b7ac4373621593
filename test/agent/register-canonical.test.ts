/**
 * A registered job is kept whole and canonicalised as the reference does (issue 26, findings 1
 * and 2), over a real socket: a task's resources, logs and kill timeout and a group's disk are
 * stored with the API's defaults filled in and read back as `GET /v1/job/<id>` writes them; a
 * change to any of them is a new version; `PreserveCounts` and `PreserveResources` keep what the
 * job had (`TestJobs_Register_PreserveResources` and its siblings in the reference's
 * `api/jobs_test.go`); a job's update block is filled with the defaults and merged into its
 * groups, so a service job with only a progress deadline gets a deployment.
 */
import { describe, expect, it } from "vitest";
import { eventually, useAgent } from "./support.js";

const agent = useAgent({ placementDelayMs: 60_000 });

type Item = Record<string, unknown>;
type JobItem = Item & { TaskGroups: (Item & { Tasks: Item[] })[] };

const SECOND_NS = 1_000_000_000;

async function readJob(id: string): Promise<JobItem> {
  const response = await agent.get(`/v1/job/${id}`);
  expect(response.status, response.text).toBe(200);
  return response.json<JobItem>();
}

async function register(job: Item, options: Item = {}): Promise<{ JobModifyIndex: number }> {
  const response = await agent.put("/v1/jobs", { Job: job, ...options });
  expect(response.status, response.text).toBe(200);
  return response.json();
}

/** The reference's `structs.Resources` with `fields` over its zero values, in its field order. */
function resources(fields: Item): Item {
  return { CPU: 0, Cores: 0, MemoryMB: 0, MemoryMaxMB: 0, DiskMB: 0, IOPS: 0, Networks: null, Devices: null, NUMA: null, SecretsMB: 0, ...fields };
}

/** The job of `TestJobs_Register_PreserveCounts`: an `exec` task with resources and logs, in groups of 25 MB disks. */
function countsJob(id: string, groups: readonly (readonly [name: string, count: number | undefined])[]): Item {
  const task = { Name: "task", Driver: "exec", Config: { command: "/bin/sleep" }, Resources: { CPU: 100, MemoryMB: 256 }, LogConfig: { MaxFiles: 1, MaxFileSizeMB: 2 } };
  return {
    ID: id,
    Type: "batch",
    Datacenters: ["dc1"],
    TaskGroups: groups.map(([name, count]) => ({ Name: name, ...(count === undefined ? {} : { Count: count }), EphemeralDisk: { SizeMB: 25 }, Tasks: [task] })),
  };
}

/** The job of `TestJobs_Register_PreserveResources`: an `exec` task with logs and no resources. */
function resourcesJob(id: string, taskResources?: Item): Item {
  const task = { Name: "task", Driver: "exec", Config: { command: "/bin/echo" }, LogConfig: { MaxFiles: 1, MaxFileSizeMB: 2 }, ...(taskResources === undefined ? {} : { Resources: taskResources }) };
  return { ID: id, Type: "batch", Datacenters: ["dc1"], TaskGroups: [{ Name: "group1", Count: 1, EphemeralDisk: { SizeMB: 25 }, Tasks: [task] }] };
}

describe("PUT /v1/jobs keeps the job whole", () => {
  it("stores a task's resources, logs and kill timeout and a group's disk, with the API's defaults, and reads them back", async () => {
    await register({
      ID: "whole",
      Type: "batch",
      TaskGroups: [
        {
          Name: "g",
          EphemeralDisk: { SizeMB: 25 },
          Tasks: [
            { Name: "given", Driver: "exec", Resources: { CPU: 250, MemoryMB: 256, MemoryMaxMB: 512, DiskMB: 40 }, LogConfig: { MaxFiles: 1, MaxFileSizeMB: 2 }, KillTimeout: 9 * SECOND_NS },
            { Name: "cores", Driver: "exec", Resources: { Cores: 2, NUMA: {} } },
            { Name: "bare", Driver: "exec" },
          ],
        },
      ],
    });
    const [group] = (await readJob("whole")).TaskGroups;
    expect(group!.EphemeralDisk).toEqual({ Sticky: false, SizeMB: 25, Migrate: false });
    const [given, cores, bare] = group!.Tasks;
    // DiskMB is not carried over: the group's ephemeral disk is the task's disk.
    expect(given!.Resources).toStrictEqual(resources({ CPU: 250, MemoryMB: 256, MemoryMaxMB: 512 }));
    expect(Object.keys(given!.Resources as Item)).toEqual(Object.keys(resources({})));
    expect(given!.LogConfig).toStrictEqual({ MaxFiles: 1, MaxFileSizeMB: 2, Disabled: false });
    expect(given!.KillTimeout).toBe(9 * SECOND_NS);
    // A task that asks for cores gets no CPU default.
    expect(cores!.Resources).toStrictEqual(resources({ Cores: 2, MemoryMB: 300, NUMA: { Affinity: "none", Devices: null } }));
    expect(bare!.Resources).toStrictEqual(resources({ CPU: 100, MemoryMB: 300 }));
    expect(bare!.LogConfig).toStrictEqual({ MaxFiles: 10, MaxFileSizeMB: 10, Disabled: false });
    expect(bare!.KillTimeout).toBe(5 * SECOND_NS);
    // The task's restart policy is its group's, the batch type's default.
    expect(bare!.RestartPolicy).toStrictEqual({ Attempts: 3, Interval: 86_400 * SECOND_NS, Delay: 15 * SECOND_NS, Mode: "fail", RenderTemplates: false });
  });

  it("merges a group's restart and reschedule policies over the type's, and a task's restart policy over its group's", async () => {
    await register({
      ID: "policies",
      TaskGroups: [{ Name: "g", RestartPolicy: { Attempts: 7 }, ReschedulePolicy: { Attempts: 4, Unlimited: false }, Tasks: [{ Name: "t", Driver: "exec", RestartPolicy: { Mode: "delay" } }] }],
    });
    const [group] = (await readJob("policies")).TaskGroups;
    expect(group!.RestartPolicy).toStrictEqual({ Attempts: 7, Interval: 1_800 * SECOND_NS, Delay: 15 * SECOND_NS, Mode: "fail", RenderTemplates: false });
    expect(group!.ReschedulePolicy).toStrictEqual({ Attempts: 4, Interval: 0, Delay: 30 * SECOND_NS, DelayFunction: "exponential", MaxDelay: 3_600 * SECOND_NS, Unlimited: false });
    expect(group!.Tasks[0]!.RestartPolicy).toStrictEqual({ Attempts: 7, Interval: 1_800 * SECOND_NS, Delay: 15 * SECOND_NS, Mode: "delay", RenderTemplates: false });
  });

  it("makes a new version when only a task's resources change, and none when nothing does", async () => {
    const first = await register(resourcesJob("versions", { CPU: 100, MemoryMB: 256 }));
    const same = await register(resourcesJob("versions", { CPU: 100, MemoryMB: 256 }));
    expect(same.JobModifyIndex).toBe(first.JobModifyIndex);
    const changed = await register(resourcesJob("versions", { CPU: 100, MemoryMB: 512 }));
    expect(changed.JobModifyIndex).toBeGreaterThan(first.JobModifyIndex);
    const job = await readJob("versions");
    expect(job.Version).toBe(1);
    expect(job.TaskGroups[0]!.Tasks[0]!.Resources).toMatchObject({ CPU: 100, MemoryMB: 512 });
    const versions = (await agent.get("/v1/job/versions/versions")).json<{ Versions: JobItem[] }>();
    expect(versions.Versions.map((version) => [version.Version, (version.TaskGroups[0]!.Tasks[0]!.Resources as Item).MemoryMB])).toEqual([
      [1, 512],
      [0, 256],
    ]);
  });
});

describe("PUT /v1/jobs with PreserveResources and PreserveCounts", () => {
  it("keeps the resources the job's tasks had with PreserveResources (TestJobs_Register_PreserveResources)", async () => {
    await register(resourcesJob("preserve-resources"));
    await register(resourcesJob("preserve-resources", { CPU: 50, MemoryMB: 128 }), { PreserveResources: true });
    const task = (await readJob("preserve-resources")).TaskGroups[0]!.Tasks[0]!;
    expect(task.Resources).toMatchObject({ CPU: 100, MemoryMB: 300 });
  });

  it("takes the new resources without it (TestJobs_Register_NoPreserveResources)", async () => {
    await register(resourcesJob("new-resources"));
    await register(resourcesJob("new-resources", { CPU: 50, MemoryMB: 128 }), { PreserveResources: false });
    const task = (await readJob("new-resources")).TaskGroups[0]!.Tasks[0]!;
    expect(task.Resources).toMatchObject({ CPU: 50, MemoryMB: 128 });
  });

  it("keeps the counts of the groups the job had with PreserveCounts, and gives new groups theirs (TestJobs_Register_PreserveCounts)", async () => {
    await register(countsJob("preserve-counts", [["group1", 1], ["group2", 2]]));
    await register(countsJob("preserve-counts", [["group1", undefined], ["group2", 0], ["group3", 3]]), { PreserveCounts: true });
    const counts = (await readJob("preserve-counts")).TaskGroups.map((group) => [group.Name, group.Count]);
    expect(counts).toEqual([
      ["group1", 1],
      ["group2", 2],
      ["group3", 3],
    ]);
  });

  it("takes the counts as sent without it, an absent count being 1 (TestJobs_Register_NoPreserveCounts)", async () => {
    await register(countsJob("new-counts", [["group1", 1], ["group2", 2]]));
    await register(countsJob("new-counts", [["group1", 0], ["group2", undefined], ["group3", 3]]));
    const job = await readJob("new-counts");
    expect(job.TaskGroups.map((group) => [group.Name, group.Count])).toEqual([
      ["group1", 0],
      ["group2", 1],
      ["group3", 3],
    ]);
    expect(job.TaskGroups[0]!.Tasks[0]!.Resources).toMatchObject({ CPU: 100, MemoryMB: 256 });
    expect(job.TaskGroups[0]!.Tasks[0]!.LogConfig).toStrictEqual({ MaxFiles: 1, MaxFileSizeMB: 2, Disabled: false });
  });
});

describe("PUT /v1/jobs with a job-level update block", () => {
  /** `DefaultUpdateStrategy` with `fields` over it, in the struct's order. */
  const strategy = (fields: Item): Item => ({
    Stagger: 30 * SECOND_NS,
    MaxParallel: 1,
    HealthCheck: "checks",
    MinHealthyTime: 10 * SECOND_NS,
    HealthyDeadline: 300 * SECOND_NS,
    ProgressDeadline: 600 * SECOND_NS,
    AutoRevert: false,
    AutoPromote: false,
    Canary: 0,
    ...fields,
  });

  it("fills its defaults and merges it into each group, under a group's own; the service job gets a deployment", async () => {
    await register({
      ID: "progress",
      Update: { ProgressDeadline: 300 * SECOND_NS },
      TaskGroups: [
        { Name: "a", Tasks: [{ Name: "t", Driver: "exec" }] },
        { Name: "b", Update: { Canary: 1, AutoPromote: true }, Tasks: [{ Name: "t", Driver: "exec" }] },
      ],
    });
    const job = await readJob("progress");
    expect(job.Update).toStrictEqual(strategy({ ProgressDeadline: 300 * SECOND_NS }));
    expect(job.TaskGroups.map((group) => group.Update)).toStrictEqual([strategy({ ProgressDeadline: 300 * SECOND_NS }), strategy({ ProgressDeadline: 300 * SECOND_NS, Canary: 1, AutoPromote: true })]);
    const deployment = await eventually(async () => {
      const deployments = (await agent.get("/v1/job/progress/deployments")).json<Item[]>();
      return deployments[0];
    });
    expect(deployment).toMatchObject({ JobID: "progress", JobVersion: 0, Status: "running" });
    const groups = deployment.TaskGroups as Record<string, Item>;
    expect(groups.a).toMatchObject({ ProgressDeadline: 300 * SECOND_NS, DesiredCanaries: 0, DesiredTotal: 1 });
    expect(groups.b).toMatchObject({ ProgressDeadline: 300 * SECOND_NS, AutoPromote: true });
  });
});
