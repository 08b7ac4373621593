/**
 * The reference's `api/evaluations_test.go`, ported (see `jobs.test.ts` for how). Its tests run a
 * server without client nodes, so a registered job's evaluation leaves a blocked one behind.
 */
import { describe, expect } from "vitest";
import { HEADER_STYLES } from "./go-client.js";
import { clientSide, PORTED, runGoTests } from "./ported.js";
import { assertQueryMeta, assertWriteMeta, expectIndexOfEmptyTable, goTestServers, len, testJob, waitFor } from "./support.js";

/** Every test of api/evaluations_test.go (reference commit aa026cc99cfb), in its order. */
export const EVALUATIONS_TESTS = {
  TestEvaluations_List: PORTED,
  TestEvaluations_PrefixList: PORTED,
  TestEvaluations_Info: PORTED,
  TestEvaluations_Delete: PORTED,
  TestEvaluations_Allocations: PORTED,
  TestEvaluations_Sort: clientSide("EvalIndexSort"),
} as const;

describe.each(HEADER_STYLES)("api/evaluations_test.go (%s headers)", (style) => {
  const { makeClient } = goTestServers(style);

  runGoTests(EVALUATIONS_TESTS, {
    async TestEvaluations_List() {
      const { client } = await makeClient();
      const [result, qm] = await client.evaluations.list();
      expectIndexOfEmptyTable(qm); // the reference: must.Eq(t, 0, qm.LastIndex)
      expect(len(result)).toBe(0);

      const [resp, wm] = await client.jobs.register(testJob());
      assertWriteMeta(wm);

      // Newest first: the registration's is the last (a blocked one may follow it).
      const [result2, qm2] = await client.evaluations.list();
      assertQueryMeta(qm2);
      expect(len(result2)).toBeGreaterThan(0);
      expect(result2?.[len(result2) - 1]?.ID).toBe(resp.EvalID);

      // wait.InitialSuccess's defaults: 3 s, a try every 250 ms.
      await waitFor(
        async () => {
          const [results] = await client.evaluations.list();
          if (len(results) < 2) throw new Error(`fewer than 2 results, got: ${len(results)}`);
        },
        3_000,
        250,
      );

      const [page1, qm3] = await client.evaluations.list({ PerPage: 1 });
      expect(len(page1)).toBe(1);

      const [page2] = await client.evaluations.list({ PerPage: 1, NextToken: qm3.NextToken });
      expect(len(page2)).toBe(1);

      // The reference lists with a filter and then checks the previous page again (`result`, not
      // `results`), without looking at the error: the same here.
      await client.evaluations.list({ Filter: `TriggeredBy == "job-register"` }).catch(() => undefined);
      expect(len(page2)).toBe(1);
    },

    async TestEvaluations_PrefixList() {
      const { client } = await makeClient();
      const [result, qm] = await client.evaluations.prefixList("abcdef");
      expectIndexOfEmptyTable(qm); // the reference: must.Eq(t, 0, qm.LastIndex)
      expect(len(result)).toBe(0);

      const [resp, wm] = await client.jobs.register(testJob());
      assertWriteMeta(wm);

      const [result2, qm2] = await client.evaluations.prefixList(resp.EvalID.slice(0, 4));
      assertQueryMeta(qm2);
      expect(len(result2)).toBe(1);
      expect(result2?.[0]?.ID).toBe(resp.EvalID);
    },

    async TestEvaluations_Delete() {
      const { client } = await makeClient();

      // Attempting to delete an evaluation when the eval broker is not paused should return an error.
      await expect(client.evaluations.delete(["8E231CF4-CA48-43FF-B694-5801E69E22FA"])).rejects.toThrow("eval broker is enabled");

      // Pause the eval broker, and try to delete an evaluation that does not exist.
      const [schedulerConfig] = await client.operator.schedulerGetConfiguration();
      expect(schedulerConfig.SchedulerConfig).not.toBeNull();
      schedulerConfig.SchedulerConfig!.PauseEvalBroker = true;
      const [schedulerConfigUpdated] = await client.operator.schedulerCASConfiguration(schedulerConfig.SchedulerConfig!);
      expect(schedulerConfigUpdated.Updated).toBe(true);

      await expect(client.evaluations.delete(["8E231CF4-CA48-43FF-B694-5801E69E22FA"])).rejects.toThrow("eval not found");
    },

    async TestEvaluations_Allocations() {
      const { client } = await makeClient();
      // Empty when there are no allocations.
      const [allocs, qm] = await client.evaluations.allocations("8E231CF4-CA48-43FF-B694-5801E69E22FA");
      expectIndexOfEmptyTable(qm); // the reference: must.Eq(t, 0, qm.LastIndex)
      expect(len(allocs)).toBe(0);
    },

    async TestEvaluations_Info() {
      const { client } = await makeClient();
      await expect(client.evaluations.info("8E231CF4-CA48-43FF-B694-5801E69E22FA")).rejects.toThrow();

      const job = testJob();
      const [resp, wm] = await client.jobs.register(job);
      assertWriteMeta(wm);

      const [result, qm] = await client.evaluations.info(resp.EvalID);
      assertQueryMeta(qm);
      expect(result).not.toBeNull();
      expect(result.ID).toBe(resp.EvalID);

      // Registered again: the reference does not look at the error.
      await client.jobs.register(job).catch(() => undefined);
      const [evals] = await client.evaluations.list();
      for (const evaluation of evals ?? []) {
        if (evaluation === null) continue;
        if (evaluation.NextEval !== "" || evaluation.PreviousEval !== "" || evaluation.BlockedEval !== "") {
          const [related, qm2] = await client.evaluations.info(evaluation.ID, { Params: { related: "true" } });
          assertQueryMeta(qm2);
          expect(related.RelatedEvals).not.toBeNull();
        }
      }
    },
  });
});
