/**
 * The reference's `api/jobs_test.go`, ported: each test sends what the Go client sends and decodes
 * the answers into the client's types (`go-client.ts`), on a fresh agent configured as the
 * reference's test server (a server without client nodes, unless the test asks for `DevMode`).
 */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { clientSide, notServed, PORTED, runGoTests, skipped } from "./ported.js";
import {
  assertQueryMeta,
  assertWriteMeta,
  expectIndexOfEmptyTable,
  expectUUID,
  goTestServers,
  len,
  addDatacenter,
  addTaskGroup,
  newBatchJob,
  newTask,
  setConfig,
  testGroup,
  testJob,
  testPeriodicJob,
} from "./support.js";

/** Every test of api/jobs_test.go (reference commit aa026cc99cfb), in its order. */
export const JOBS_TESTS = {
  TestJobs_Register: PORTED,
  TestJobs_Register_PreserveCounts: PORTED,
  TestJobs_Register_NoPreserveCounts: PORTED,
  TestJobs_Register_PreserveResources: PORTED,
  TestJobs_Register_NoPreserveResources: PORTED,
  TestJobs_Register_EvalPriority: PORTED,
  TestJobs_Register_NoEvalPriority: PORTED,
  TestJobs_Validate: PORTED,
  TestJobs_Canonicalize: clientSide("Job.Canonicalize"),
  TestJobs_EnforceRegister: PORTED,
  TestJobs_Revert: PORTED,
  TestJobs_Info: PORTED,
  TestJobs_ScaleInvalidAction: PORTED,
  TestJobs_Versions: PORTED,
  TestJobs_JobSubmission_Canonicalize: clientSide("JobSubmission.Canonicalize"),
  TestJobs_JobSubmission_Copy: clientSide("JobSubmission.Copy"),
  TestJobs_Submission_versions: PORTED,
  TestJobs_Submission_namespaces: PORTED,
  TestJobs_Submission_delete: PORTED,
  TestJobs_PrefixList: PORTED,
  TestJobs_List: PORTED,
  TestJobs_Allocations: PORTED,
  TestJobs_Evaluations: PORTED,
  TestJobs_Deregister: PORTED,
  TestJobs_Deregister_EvalPriority: PORTED,
  TestJobs_Deregister_NoEvalPriority: PORTED,
  TestJobs_ForceEvaluate: PORTED,
  TestJobs_PeriodicForce: PORTED,
  TestJobs_Plan: PORTED,
  TestJobs_JobSummary: PORTED,
  TestJobs_NewBatchJob: clientSide("NewBatchJob"),
  TestJobs_NewServiceJob: clientSide("NewServiceJob"),
  TestJobs_NewSystemJob: clientSide("NewSystemJob"),
  TestJobs_NewSysbatchJob: clientSide("NewSysbatchJob"),
  TestJobs_SetMeta: clientSide("Job.SetMeta"),
  TestJobs_Constrain: clientSide("Job.Constrain"),
  TestJobs_AddAffinity: clientSide("Job.AddAffinity"),
  TestJobs_Sort: clientSide("JobIDSort"),
  TestJobs_AddSpread: clientSide("Job.AddSpread"),
  TestJobs_ScaleAction: PORTED,
  TestJobs_ScaleAction_Error: PORTED,
  TestJobs_ScaleAction_Noop: PORTED,
  TestJobs_ScaleStatus: PORTED,
  TestJobs_Services: skipped("no-body", "a TODO"),
  TestJobs_Parse: PORTED,
} as const;

/** A job ID with every character a path must escape, as the reference's tests use. */
const TROUBLESOME_ID = "job-id/with\\troublesome:characters\n?&字";

describe.each(HEADER_STYLES)("api/jobs_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  /** The job of the PreserveResources tests: one `exec` task without resources, in `job`. */
  const preserveResourcesJob = () => {
    const task = setConfig(newTask("task", "exec"), "command", "/bin/echo");
    task.LogConfig = { MaxFiles: 1, MaxFileSizeMB: 2 };
    const job = addTaskGroup(addDatacenter(newBatchJob("job", "redis", "global", 1), "dc1"), testGroup("group1", 1, task));
    return { job, task };
  };

  /** `testJobWithScalingPolicy`: `testJob` whose group scales between 1 and 5, under the troublesome ID. */
  const scalingJob = () => {
    const job = testJob();
    job.ID = TROUBLESOME_ID;
    const group = job.TaskGroups![0]!;
    group.Scaling = { Policy: {}, Min: 1, Max: 5, Enabled: true };
    return { job, group: group.Name as string, count: group.Count as number };
  };

  /** The PreserveCounts tests: a batch job of groups of 1 and 2, registered again with group1's count unset, group2's 0, and a group3 of 3. */
  const preserveCounts = async (preserve: boolean) => {
    const { client } = await makeClient();
    expect(len((await client.jobs.list())[0])).toBe(0);
    const task = setConfig(newTask("task", "exec"), "command", "/bin/sleep");
    task.Resources = { CPU: 100, MemoryMB: 256 };
    task.LogConfig = { MaxFiles: 1, MaxFileSizeMB: 2 };
    const group1 = testGroup("group1", 1, task);
    const group2 = testGroup("group2", 2, task);
    const job = addTaskGroup(addTaskGroup(addDatacenter(newBatchJob("job", "redis", "global", 1), "dc1"), group1), group2);
    const [resp2, wm] = await client.jobs.register(job);
    expectUUID(resp2.EvalID);
    assertWriteMeta(wm);

    delete group1.Count;
    group2.Count = 0;
    addTaskGroup(job, testGroup("group3", 3, task));
    await client.jobs.registerOpts(job, { PreserveCounts: preserve });
    const [status] = await client.jobs.scaleStatus(job.ID as string);
    return status.TaskGroups;
  };

  /** A submission as the reference's tests send it. */
  const submissionOf = (Source: string, extra: { VariableFlags?: Record<string, string> | null; Variables?: string } = {}) => ({ Source, Format: "hcl2", ...extra });

  runGoTests(JOBS_TESTS, {
    async TestJobs_Submission_versions() {
      const { client } = await makeClient({ devMode: true });
      const job = testJob();
      const jobID = job.ID as string;
      job.TaskGroups![0]!.Count = 0; // no need to actually run

      // Trying to retrieve a version before the job is submitted returns a Not Found.
      await expect(client.jobs.submission(jobID, 0)).rejects.toThrow("job source not found");

      const flags = { X: "x", Y: "42", Z: "true" };
      job.Meta = { v: "0" };
      const [, wm] = await client.jobs.registerOpts(job, { Submission: submissionOf("the job source v0", { VariableFlags: flags, Variables: "var file content" }) });
      assertWriteMeta(wm);

      const expectSubmission = (sub: Record<string, unknown>, format: string, source: string, vars: string, variableFlags: Record<string, string> | null) => {
        expect(sub).not.toBeNull();
        expect({ Format: sub.Format, Source: sub.Source, Variables: sub.Variables, VariableFlags: sub.VariableFlags ?? null }).toEqual({ Format: format, Source: source, Variables: vars, VariableFlags: variableFlags });
      };
      expectSubmission((await client.jobs.submission(jobID, 0))[0], "hcl2", "the job source v0", "var file content", flags);

      job.Meta = { v: "1" };
      const [, wm1] = await client.jobs.registerOpts(job, { Submission: submissionOf("the job source v1", { VariableFlags: null, Variables: "different var content" }) });
      assertWriteMeta(wm1);
      expectSubmission((await client.jobs.submission(jobID, 1))[0], "hcl2", "the job source v1", "different var content", null);
      // Version 0's is still there.
      expectSubmission((await client.jobs.submission(jobID, 0))[0], "hcl2", "the job source v0", "var file content", flags);

      // Deregistered and purged, both are gone.
      await client.jobs.deregister(jobID, true, { Namespace: "default" });
      await expect(client.jobs.submission(jobID, 0)).rejects.toThrow("job source not found");
      await expect(client.jobs.submission(jobID, 1)).rejects.toThrow("job source not found");
    },

    async TestJobs_Submission_namespaces() {
      const { client } = await makeClient({ devMode: true });
      assertWriteMeta(await client.namespaces.register({ Name: "first", Description: "first namespace" }));
      assertWriteMeta(await client.namespaces.register({ Name: "second", Description: "second namespace" }));
      // The same job ID in two namespaces.
      const commonJobID = "common";
      const job = testJob();
      job.ID = commonJobID;
      job.TaskGroups![0]!.Count = 0;
      const [, wm] = await client.jobs.registerOpts(job, { Submission: submissionOf("the job source") }, { Namespace: "first" });
      assertWriteMeta(wm);

      await expect(client.jobs.submission(commonJobID, 0)).rejects.toThrow("not found");
      expect((await client.jobs.submission(commonJobID, 0, { Namespace: "first" }))[0].Source).toBe("the job source");
      await expect(client.jobs.submission(commonJobID, 0, { Namespace: "second" })).rejects.toThrow("not found");

      const job2 = testJob();
      job2.ID = commonJobID;
      const [, wm2] = await client.jobs.registerOpts(job2, { Submission: submissionOf("second job source") }, { Namespace: "second" });
      assertWriteMeta(wm2);

      await expect(client.jobs.submission(commonJobID, 0)).rejects.toThrow("not found");
      expect((await client.jobs.submission(commonJobID, 0, { Namespace: "first" }))[0].Source).toBe("the job source");
      expect((await client.jobs.submission(commonJobID, 0, { Namespace: "second" }))[0].Source).toBe("second job source");
      await expect(client.jobs.submission(commonJobID, 1, { Namespace: "first" })).rejects.toThrow("not found");
      await expect(client.jobs.submission(commonJobID, 1, { Namespace: "second" })).rejects.toThrow("not found");
    },

    async TestJobs_Submission_delete() {
      const { client } = await makeClient({ devMode: true });
      assertWriteMeta(await client.namespaces.register({ Name: "first", Description: "first namespace" }));
      const job = testJob();
      const jobID = job.ID as string;
      job.TaskGroups![0]!.Count = 0;
      job.Meta = { version: "0" };
      const [, wm] = await client.jobs.registerOpts(job, { Submission: submissionOf("the job source v0") }, { Namespace: "first" });
      assertWriteMeta(wm);
      job.Meta = { version: "1" };
      const [, wm1] = await client.jobs.registerOpts(job, { Submission: submissionOf("the job source v1") }, { Namespace: "first" });
      assertWriteMeta(wm1);

      expect((await client.jobs.submission(jobID, 0, { Namespace: "first" }))[0].Source).toBe("the job source v0");
      expect((await client.jobs.submission(jobID, 1, { Namespace: "first" }))[0].Source).toBe("the job source v1");

      await client.jobs.deregister(jobID, true, { Namespace: "first" });
      await expect(client.jobs.submission(jobID, 0, { Namespace: "first" })).rejects.toThrow("job source not found");
      await expect(client.jobs.submission(jobID, 1, { Namespace: "first" })).rejects.toThrow("job source not found");
    },

    async TestJobs_Plan() {
      const { client } = await makeClient();
      const job = testJob();
      const [resp, wm] = await client.jobs.register(job);
      expectUUID(resp.EvalID);
      assertWriteMeta(wm);

      // A nil job, and a job without an ID, fail.
      await expect(client.jobs.plan(null, true)).rejects.toThrow();
      const invalidJob = testJob();
      delete invalidJob.ID;
      await expect(client.jobs.plan(invalidJob, true)).rejects.toThrow();

      // With the diff: the server has no client nodes, so the plan's placements fail, and it would make a blocked evaluation.
      const [planResp, wm2] = await client.jobs.plan(job, true);
      expect(planResp.JobModifyIndex).toBeGreaterThan(0);
      expect(planResp.Diff).not.toBeNull();
      expect(planResp.Annotations).not.toBeNull();
      expect(len(planResp.CreatedEvals)).toBeGreaterThan(0);
      assertWriteMeta(wm2);

      // Without the diff.
      const [planResp2, wm3] = await client.jobs.plan(job, false);
      assertWriteMeta(wm3);
      expect(planResp2.JobModifyIndex).toBeGreaterThan(0);
      expect(planResp2.Diff).toBeNull();
      expect(planResp2.Annotations).not.toBeNull();
      expect(len(planResp2.CreatedEvals)).toBeGreaterThan(0);
    },

    async TestJobs_Register_PreserveCounts() {
      const groups = await preserveCounts(true);
      expect(groups?.group1?.Desired).toBe(1); // present and nil => preserved
      expect(groups?.group2?.Desired).toBe(2); // present and specified => preserved
      expect(groups?.group3?.Desired).toBe(3); // new => as specified in the job spec
    },

    async TestJobs_Register_NoPreserveCounts() {
      const groups = await preserveCounts(false);
      expect(groups?.group1?.Desired).toBe(1); // present and nil => default
      expect(groups?.group2?.Desired).toBe(0); // present and specified => specified
      expect(groups?.group3?.Desired).toBe(3); // new => as specified in the job spec
    },

    async TestJobs_Validate() {
      const { client } = await makeClient();
      // Create a job and attempt to register it
      const job = testJob();
      const [resp] = await client.jobs.validate(job);
      expect(len(resp.ValidationErrors)).toBe(0);

      job.ID = null;
      const [resp1] = await client.jobs.validate(job);
      expect(len(resp1.ValidationErrors)).toBeGreaterThan(0);
    },

    async TestJobs_Parse() {
      const jobspec = 'job "example" {}';

      // ParseHCL fails when no agent answers: the parsing is done by the agent, not the client.
      // (The Go test's client names the failed "Put"; this one's error is Node's.)
      {
        const { client, server } = await makeClient();
        await server.stop();
        await expect(client.jobs.parseHCL(jobspec, false)).rejects.toThrow();
      }

      const { client } = await makeClient();

      // Test ParseHCL
      const job1 = await client.jobs.parseHCL(jobspec, false);
      expect(job1.Name).toBe("example");
      expect(job1.Namespace).toBeNull();

      const job1Canonicalized = await client.jobs.parseHCL(jobspec, true);
      expect(job1Canonicalized.Name).toBe("example");
      expect(job1Canonicalized.Namespace).toBe("default");
      expect(job1Canonicalized).not.toEqual(job1);

      // Test ParseHCLOpts
      const job2 = await client.jobs.parseHCLOpts({ JobHCL: jobspec, Canonicalize: false });
      expect(job2).toEqual(job1);

      // Test ParseHCLOpts with Canonicalize=true
      const job2Canonicalized = await client.jobs.parseHCLOpts({ JobHCL: jobspec, Canonicalize: true });
      expect(job2Canonicalized).toEqual(job1Canonicalized);
    },

    async TestJobs_ScaleInvalidAction() {
      const { client } = await makeClient();
      for (const [jobID, group, want] of [
        ["", "", "400"],
        ["i-dont-exist", "", "400"],
        ["", "i-dont-exist", "400"],
        ["i-dont-exist", "me-neither", "404"],
      ] as const) {
        await expect(client.jobs.scale(jobID, group, 1, "reason", false, null)).rejects.toThrow(want);
      }
      const job = testJob();
      job.ID = "TestJobs_Scale";
      const [, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);
      await expect(client.jobs.scale(job.ID, "incorrect-group-name", 2, "because", false, null)).rejects.toThrow("does not exist");
    },

    async TestJobs_ScaleAction() {
      const { client } = await makeClient();
      const { job, group, count } = scalingJob();
      const newCount = count + 1;
      // Scaling a job before it exists fails.
      await expect(client.jobs.scale(TROUBLESOME_ID, "missing", newCount, "this won't work", false, null)).rejects.toThrow("not found");

      const [regResp, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);
      const [scalingResp, wm2] = await client.jobs.scale(TROUBLESOME_ID, group, newCount, "need more instances", false, { meta: "data" });
      expectUUID(scalingResp.EvalID);
      expect(scalingResp.EvalCreateIndex).toBeGreaterThan(0);
      expect(scalingResp.JobModifyIndex).toBeGreaterThan(regResp.JobModifyIndex);
      assertWriteMeta(wm2);

      const [resp] = await client.jobs.info(TROUBLESOME_ID);
      expect(resp.TaskGroups?.[0]?.Count).toBe(newCount);

      const [status] = await client.jobs.scaleStatus(TROUBLESOME_ID);
      const events = status.TaskGroups?.[group]?.Events;
      expect(len(events)).toBe(1);
      const event = events![0]!;
      expect(event.Error).toBe(false);
      expect(event.Message).toBe("need more instances");
      expect(event.Meta).toEqual({ meta: "data" });
      expect(Number(event.Time)).toBeGreaterThan(0);
      expectUUID(event.EvalID as string);
      expect(event.EvalID).toBe(scalingResp.EvalID);
      expect(event.PreviousCount).toBe(count);
    },

    async TestJobs_ScaleAction_Error() {
      const { client } = await makeClient();
      const { job, group, count } = scalingJob();
      const [regResp, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);
      const [scaleResp, wm2] = await client.jobs.scale(TROUBLESOME_ID, group, null, "something bad happened", true, { meta: "data" });
      expect(scaleResp.EvalID).toBe("");
      expect(scaleResp.EvalCreateIndex).toBe(0);
      assertWriteMeta(wm2);

      const [resp] = await client.jobs.info(TROUBLESOME_ID);
      expect(resp.TaskGroups?.[0]?.Count).toBe(count);
      expect(scaleResp.JobModifyIndex).toBe(regResp.JobModifyIndex);

      const [status] = await client.jobs.scaleStatus(TROUBLESOME_ID);
      const events = status.TaskGroups?.[group]?.Events;
      expect(len(events)).toBe(1);
      const event = events![0]!;
      expect(event.Error).toBe(true);
      expect(event.Message).toBe("something bad happened");
      expect(event.Meta).toEqual({ meta: "data" });
      expect(Number(event.Time)).toBeGreaterThan(0);
      expect(event.EvalID).toBeNull();
    },

    async TestJobs_ScaleAction_Noop() {
      const { client } = await makeClient();
      const { job, group, count } = scalingJob();
      const [regResp, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);
      const [scaleResp, wm2] = await client.jobs.scale(TROUBLESOME_ID, group, null, "no count, just informative", false, { meta: "data" });
      expect(scaleResp.EvalID).toBe("");
      expect(scaleResp.EvalCreateIndex).toBe(0);
      assertWriteMeta(wm2);

      const [resp] = await client.jobs.info(TROUBLESOME_ID);
      expect(resp.TaskGroups?.[0]?.Count).toBe(count);
      expect(scaleResp.JobModifyIndex).toBe(regResp.JobModifyIndex);

      const [status] = await client.jobs.scaleStatus(TROUBLESOME_ID);
      const events = status.TaskGroups?.[group]?.Events;
      expect(len(events)).toBe(1);
      const event = events![0]!;
      expect(event.Error).toBe(false);
      expect(event.Message).toBe("no count, just informative");
      expect(event.Meta).toEqual({ meta: "data" });
      expect(Number(event.Time)).toBeGreaterThan(0);
      expect(event.EvalID).toBeNull();
    },

    async TestJobs_ScaleStatus() {
      const { client } = await makeClient();
      await expect(client.jobs.scaleStatus(TROUBLESOME_ID)).rejects.toThrow("not found");
      const job = testJob();
      job.ID = TROUBLESOME_ID;
      const group = job.TaskGroups![0]!;
      const [, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);
      const [result, qm] = await client.jobs.scaleStatus(TROUBLESOME_ID);
      assertQueryMeta(qm);
      expect(result.TaskGroups?.[group.Name as string]?.Desired).toBe(group.Count);
    },

    async TestJobs_Register() {
      const { client } = await makeClient();
      const [resp] = await client.jobs.list();
      expect(len(resp)).toBe(0);

      const job = testJob();
      const [resp2, wm] = await client.jobs.register(job);
      expect(resp2).not.toBeNull();
      expectUUID(resp2.EvalID);
      assertWriteMeta(wm);

      const [list, qm] = await client.jobs.list();
      assertQueryMeta(qm);
      expect(len(list)).toBe(1);
      expect(list?.[0]?.ID).toBe(job.ID);
    },

    async TestJobs_Register_PreserveResources() {
      const { client } = await makeClient();
      expect(len((await client.jobs.list())[0])).toBe(0);
      const { job, task } = preserveResourcesJob();
      const [resp2, wm] = await client.jobs.register(job);
      expectUUID(resp2.EvalID);
      assertWriteMeta(wm);

      task.Resources = { CPU: 50, MemoryMB: 128 };
      await client.jobs.registerOpts(job, { PreserveResources: true });

      const [registered] = await client.jobs.info(job.ID as string);
      const resources = registered.TaskGroups?.[0]?.Tasks?.[0]?.Resources;
      // Go dereferences Resources.CPU: a nil Resources panics the test.
      if (resources === null || resources === undefined) throw new Error("nil pointer dereference: Resources is nil");
      expect(resources.CPU).toBe(100); // preserved
      expect(resources.MemoryMB).toBe(300); // preserved
    },

    async TestJobs_Register_NoPreserveResources() {
      const { client } = await makeClient();
      expect(len((await client.jobs.list())[0])).toBe(0);
      const { job, task } = preserveResourcesJob();
      const [resp2, wm] = await client.jobs.register(job);
      expectUUID(resp2.EvalID);
      assertWriteMeta(wm);

      task.Resources = { CPU: 50, MemoryMB: 128 };
      await client.jobs.registerOpts(job, { PreserveResources: false });

      const [registered] = await client.jobs.info(job.ID as string);
      const resources = registered.TaskGroups?.[0]?.Tasks?.[0]?.Resources;
      if (resources === null || resources === undefined) throw new Error("nil pointer dereference: Resources is nil");
      expect(resources.CPU).toBe(50); // updated
      expect(resources.MemoryMB).toBe(128); // updated
    },

    async TestJobs_Register_EvalPriority() {
      const { client } = await makeClient();
      expect(len((await client.jobs.list())[0])).toBe(0);
      const [registerResp, wm] = await client.jobs.registerOpts(testJob(), { EvalPriority: 99 });
      expectUUID(registerResp.EvalID);
      assertWriteMeta(wm);

      const [evalInfo] = await client.evaluations.info(registerResp.EvalID);
      expect(evalInfo.Priority).toBe(99);
    },

    async TestJobs_Register_NoEvalPriority() {
      const { client } = await makeClient();
      expect(len((await client.jobs.list())[0])).toBe(0);
      const job = testJob();
      const [registerResp, wm] = await client.jobs.registerOpts(job, undefined);
      expectUUID(registerResp.EvalID);
      assertWriteMeta(wm);

      const [evalInfo] = await client.evaluations.info(registerResp.EvalID);
      expect(evalInfo.Priority).toBe(job.Priority);
    },

    async TestJobs_EnforceRegister() {
      const { client } = await makeClient();
      expect(len((await client.jobs.list())[0])).toBe(0);

      // Registering with an incorrect index fails.
      const job = testJob();
      await expect(client.jobs.enforceRegister(job, 10)).rejects.toThrow("Enforcing job modify index");

      const [resp2, wm] = await client.jobs.enforceRegister(job, 0);
      expectUUID(resp2.EvalID);
      assertWriteMeta(wm);

      const [list, qm] = await client.jobs.list();
      expect(len(list)).toBe(1);
      expect(list?.[0]?.ID).toBe(job.ID);
      assertQueryMeta(qm);

      const curIndex = list?.[0]?.JobModifyIndex ?? 0;
      await expect(client.jobs.enforceRegister(job, 123456)).rejects.toThrow("Enforcing job modify index");

      const [resp3, wm3] = await client.jobs.enforceRegister(job, curIndex);
      expectUUID(resp3.EvalID);
      assertWriteMeta(wm3);
    },

    async TestJobs_Info() {
      const { client } = await makeClient();
      await expect(client.jobs.info(TROUBLESOME_ID)).rejects.toThrow("not found");

      const job = testJob();
      job.ID = TROUBLESOME_ID;
      const [, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);

      const [result, qm] = await client.jobs.info(TROUBLESOME_ID);
      assertQueryMeta(qm);
      expect(result.ID).toBe(job.ID);
    },

    async TestJobs_Versions() {
      const { client } = await makeClient();
      await expect(client.jobs.versions("job1", false)).rejects.toThrow("not found");

      const job = testJob();
      const [, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);

      const [result, , qm] = await client.jobs.versions("job1", false);
      assertQueryMeta(qm);
      expect(result?.[0]?.ID).toBe(job.ID);
    },

    async TestJobs_PrefixList() {
      const { client } = await makeClient();
      expect(len((await client.jobs.prefixList("dummy"))[0])).toBe(0);

      const job = testJob();
      const [, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);

      const [results] = await client.jobs.prefixList((job.ID as string).slice(0, 1));
      expect(len(results)).toBe(1);
      expect(results?.[0]?.ID).toBe(job.ID);
    },

    async TestJobs_List() {
      const { client } = await makeClient();
      expect(len((await client.jobs.list())[0])).toBe(0);

      const job = testJob();
      const [, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);

      const [results] = await client.jobs.list();
      expect(len(results)).toBe(1);
      expect(results?.[0]?.ID).toBe(job.ID);
    },

    async TestJobs_Allocations() {
      const { client } = await makeClient();
      const [allocs, qm] = await client.jobs.allocations("job1", true);
      expectIndexOfEmptyTable(qm); // the reference: must.Zero(t, qm.LastIndex)
      expect(len(allocs)).toBe(0);
    },

    async TestJobs_Evaluations() {
      const { client } = await makeClient();
      const [evals, qm] = await client.jobs.evaluations("job1");
      expectIndexOfEmptyTable(qm); // the reference: must.Zero(t, qm.LastIndex)
      expect(len(evals)).toBe(0);

      const job = testJob();
      const [resp, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);

      const [evals2, qm2] = await client.jobs.evaluations("job1");
      assertQueryMeta(qm2);
      // Newest first: the last is the registration's.
      expect(len(evals2)).toBeGreaterThan(0);
      expect(evals2?.[len(evals2) - 1]?.ID).toBe(resp.EvalID);
    },

    async TestJobs_Revert() {
      const { client } = await makeClient();
      const job = testJob();
      const [resp, wm] = await client.jobs.register(job);
      expectUUID(resp.EvalID);
      assertWriteMeta(wm);

      job.Meta = { foo: "new" };
      const [resp2, wm2] = await client.jobs.register(job);
      expectUUID(resp2.EvalID);
      assertWriteMeta(wm2);

      // Fails at an incorrect enforced version.
      await expect(client.jobs.revert(job.ID as string, 0, 10)).rejects.toThrow("enforcing version");

      // Works at the correct one.
      const [revertResp, wm3] = await client.jobs.revert(job.ID as string, 0, 1);
      expectUUID(revertResp.EvalID);
      expect(revertResp.EvalCreateIndex).toBeGreaterThan(0);
      expect(revertResp.JobModifyIndex).toBeGreaterThan(0);
      assertWriteMeta(wm3);
    },

    async TestJobs_ForceEvaluate() {
      const { client } = await makeClient();
      // Force-evaluating a job that does not exist fails.
      await expect(client.jobs.forceEvaluate("job1")).rejects.toThrow("not found");

      const [, wm] = await client.jobs.register(testJob());
      assertWriteMeta(wm);

      const [evalID, wm2] = await client.jobs.forceEvaluate("job1");
      assertWriteMeta(wm2);

      const [evals, qm] = await client.jobs.evaluations("job1");
      assertQueryMeta(qm);
      expect((evals ?? []).map((evaluation) => evaluation?.ID)).toContain(evalID);
    },

    async TestJobs_Deregister() {
      const { client } = await makeClient();
      const [, wm] = await client.jobs.register(testJob());
      assertWriteMeta(wm);

      // Deregistering a job that does not exist is no error.
      await client.jobs.deregister("nope", false);

      const [evalID, wm3] = await client.jobs.deregister("job1", false);
      assertWriteMeta(wm3);
      expectUUID(evalID);

      const [out, qm1] = await client.jobs.info("job1");
      assertQueryMeta(qm1);
      expect(out).not.toBeNull();

      const [evalID2, wm4] = await client.jobs.deregister("job1", true);
      assertWriteMeta(wm4);
      expectUUID(evalID2);

      const [result, qm] = await client.jobs.list();
      assertQueryMeta(qm);
      expect(len(result)).toBe(0);
    },

    async TestJobs_Deregister_EvalPriority() {
      const { client } = await makeClient();
      expect(len((await client.jobs.list())[0])).toBe(0);
      const job = testJob();
      const [registerResp, wm] = await client.jobs.register(job);
      expectUUID(registerResp.EvalID);
      assertWriteMeta(wm);

      const [evalID] = await client.jobs.deregisterOpts(job.ID as string, { EvalPriority: 97 });
      expectUUID(evalID);
      const [evalInfo] = await client.evaluations.info(evalID);
      expect(evalInfo.Priority).toBe(97);
    },

    async TestJobs_Deregister_NoEvalPriority() {
      const { client } = await makeClient();
      expect(len((await client.jobs.list())[0])).toBe(0);
      const job = testJob();
      const [registerResp, wm] = await client.jobs.register(job);
      expectUUID(registerResp.EvalID);
      assertWriteMeta(wm);

      const [evalID] = await client.jobs.deregisterOpts(job.ID as string, {});
      expectUUID(evalID);
      const [evalInfo] = await client.evaluations.info(evalID);
      expect(evalInfo.Priority).toBe(job.Priority);
    },

    async TestJobs_PeriodicForce() {
      const { client } = await makeClient();
      // Force-launching a job that does not exist fails.
      await expect(client.jobs.periodicForce("job1")).rejects.toThrow("not found");

      const job = testPeriodicJob();
      await client.jobs.register(job);
      const [out] = await client.jobs.info(job.ID as string);
      expect(out.ID).toBe(job.ID);

      const [evalID, wm] = await client.jobs.periodicForce(job.ID as string);
      assertWriteMeta(wm);
      expect(evalID).not.toBe("");

      const [evaluation, qm] = await client.evaluations.info(evalID);
      assertQueryMeta(qm);
      expect(evaluation.ID).toBe(evalID);
    },

    async TestJobs_JobSummary() {
      const { client } = await makeClient();
      await expect(client.jobs.summary("job1")).rejects.toThrow("not found");

      const job = testJob();
      const taskName = job.TaskGroups?.[0]?.Name as string;
      const [, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);

      const [result, qm] = await client.jobs.summary("job1");
      assertQueryMeta(qm);
      expect(result.JobID).toBe(job.ID);
      expect(Object.keys(result.Summary ?? {})).toContain(taskName);
    },
  });
});
