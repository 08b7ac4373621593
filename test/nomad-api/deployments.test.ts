/**
 * The reference's `api/deployments_test.go`, ported (see `jobs.test.ts` for how). Its tests run
 * a server without client nodes: the reference still makes the service job's deployment (its
 * reconciler does, whether or not the placements succeed), which the tests then read and act on.
 */
import { describe, expect } from "vitest";
import { HEADER_STYLES, type GoClient } from "./go-client.js";
import { PORTED, runGoTests } from "./ported.js";
import { assertQueryMeta, assertWriteMeta, expectUUID, goTestServers, len, MustError, testServiceJob, waitFor } from "./support.js";

/** Every test of api/deployments_test.go (reference commit aa026cc99cfb), in its order. */
export const DEPLOYMENTS_TESTS = {
  TestDeployments_List: PORTED,
  TestDeployments_PrefixList: PORTED,
  TestDeployments_Info: PORTED,
  TestDeployments_Allocations: PORTED,
  TestDeployments_Fail: PORTED,
  TestDeployments_Pause: PORTED,
  TestDeployments_Unpause: PORTED,
} as const;

/** The start every test shares: `testServiceJob` registered, and listed back. */
async function registerServiceJob(client: GoClient) {
  const [resp, wm] = await client.jobs.register(testServiceJob());
  expectUUID(resp.EvalID);
  assertWriteMeta(wm);
  const [jobs, qm] = await client.jobs.list();
  assertQueryMeta(qm);
  expect(len(jobs)).toBe(1);
  return jobs?.[0] as NonNullable<NonNullable<typeof jobs>[number]>;
}

/** The deployment of the job, as the tests look it up (`Jobs.Deployments` with `all`); exactly one. */
async function onlyDeployment(client: GoClient, jobID: string) {
  const [deployments] = await client.jobs.deployments(jobID, true);
  if (len(deployments) !== 1) throw new Error(`expected 1 deployment, found ${len(deployments)}`);
  return deployments?.[0] as NonNullable<NonNullable<typeof deployments>[number]>;
}

describe.each(HEADER_STYLES)("api/deployments_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(DEPLOYMENTS_TESTS, {
    async TestDeployments_List() {
      const { client } = await makeClient();
      const [resp0] = await client.deployments.list();
      expect(len(resp0)).toBe(0);
      await registerServiceJob(client);
      await waitFor(async () => {
        const [resp3] = await client.deployments.list();
        if (len(resp3) !== 1) throw new Error(`expected 1 deployment, found ${len(resp3)}`);
      });
    },

    async TestDeployments_PrefixList() {
      const { client } = await makeClient();
      const [resp] = await client.deployments.prefixList("b1");
      expect(len(resp)).toBe(0);
      const job = await registerServiceJob(client);
      await waitFor(async () => {
        const deployment = await onlyDeployment(client, job.ID);
        const [resp5] = await client.deployments.prefixList(deployment.ID);
        if (len(resp5) !== 1) throw new Error(`expected 1 deployment, found ${len(resp5)}`);
      });
    },

    async TestDeployments_Info() {
      const { client } = await makeClient();
      const job = await registerServiceJob(client);
      await waitFor(async () => {
        const deployment = await onlyDeployment(client, job.ID);
        const [resp4] = await client.deployments.info(deployment.ID);
        if (resp4.JobID !== job.ID) throw new Error(`expected job id: ${resp4.JobID}, found ${job.ID}`);
        if (resp4.Namespace !== job.Namespace) throw new Error(`expected deployment namespace: ${resp4.Namespace}, found ${job.Namespace}`);
      });
    },

    async TestDeployments_Allocations() {
      const { client } = await makeClient();
      const job = await registerServiceJob(client);
      await waitFor(async () => {
        const deployment = await onlyDeployment(client, job.ID);
        const [resp4] = await client.deployments.list();
        if (len(resp4) !== 1) throw new Error(`expected 1 deployment, found ${len(resp4)}`);
        // No client node: the deployment has no allocations.
        const [resp5] = await client.deployments.allocations(deployment.ID);
        if (len(resp5) !== 0) throw new Error(`expected 0 Allocations, found ${len(resp5)}`);
      });
    },

    async TestDeployments_Fail() {
      const { client } = await makeClient();
      const job = await registerServiceJob(client);
      await waitFor(async () => {
        const deployment = await onlyDeployment(client, job.ID);
        await client.deployments.fail(deployment.ID);
        const [resp4] = await client.deployments.info(deployment.ID);
        if (resp4.Status !== "failed") throw new Error(`expected failed status, got ${resp4.Status}`);
      });
    },

    async TestDeployments_Pause() {
      const { client } = await makeClient();
      const job = await registerServiceJob(client);
      await waitFor(async () => {
        const deployment = await onlyDeployment(client, job.ID);
        await client.deployments.pause(deployment.ID, true);
        const [resp4] = await client.deployments.info(deployment.ID);
        if (resp4.Status !== "paused") throw new Error(`expected paused status, got ${resp4.Status}`);
      });
    },

    async TestDeployments_Unpause() {
      const { client } = await makeClient();
      const job = await registerServiceJob(client);
      await waitFor(async () => {
        const deployment = await onlyDeployment(client, job.ID);
        await client.deployments.pause(deployment.ID, true);
        const [resp4] = await client.deployments.info(deployment.ID);
        if (resp4.Status !== "paused") throw new Error(`expected paused status, got ${resp4.Status}`);
        // The reference asserts the resume with must.NoError inside the retried function: a failure there fails the test at once.
        await client.deployments.pause(deployment.ID, false).catch((error: unknown) => {
          throw new MustError(`must.NoError: ${String(error)}`);
        });
        const [resp5] = await client.deployments.info(deployment.ID);
        if (resp5.Status !== "running") throw new Error(`expected running status, got ${resp5.Status}`);
      });
    },
  });
});
