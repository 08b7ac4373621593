/**
 * Two schedulers processing one evaluation at once (agents of a shared store around a change of
 * leader: the agent that loaded the demo data, and the leader the membership chose) make one
 * plan between them: a plan made on a state whose job allocations or deployments were written
 * before it is refused, and the evaluation processed again on the new state, as the reference's
 * plan applier sends a scheduler back to refresh its snapshot. Before, each wrote its plan: two
 * deployments of one job version, twice the allocations. On PostgreSQL (PGlite), where a write
 * waits for the database, so that both schedulers read the state before either writes.
 */
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/server/base/clock.js";
import { Cluster } from "../../src/server/scheduler/cluster.js";
import { processEvaluation } from "../../src/server/scheduler/generic-sched.js";
import { decodeRegisterRequest } from "../../src/server/scheduler/job-spec.js";
import { PGlite } from "@electric-sql/pglite";
import { fromPglite } from "../../src/server/state/postgres/database.js";
import { PostgresStore } from "../../src/server/state/postgres/store.js";

describe("two schedulers on one evaluation", () => {
  it("make one deployment and one set of allocations", async () => {
    const database = await PGlite.create();
    const store = await PostgresStore.open(fromPglite(database), { schema: "stale_plan" });
    const clock = new ManualClock();
    // A follower: the registration's evaluation stays pending for the schedulers below.
    const cluster = new Cluster(store, { region: "global", placementDelayMs: 1_000, clock });
    await cluster.seed(3);
    cluster.follow();
    const { EvalID } = await cluster.register(decodeRegisterRequest(JSON.stringify({ Job: { ID: "web", TaskGroups: [{ Name: "g", Count: 2, Tasks: [{ Name: "t", Driver: "exec" }] }] } })), "default", "global");
    const scheduler = () => ({ store, clock, placementDelayMs: 1_000, evaluating: new Map<string, Promise<void>>() });
    await Promise.all([processEvaluation(scheduler(), EvalID), processEvaluation(scheduler(), EvalID)]);
    const deployments = [...store.tables.deployment.values()].filter((deployment) => deployment.JobID === "web");
    const allocations = [...store.tables.allocs.values()].filter((alloc) => alloc.JobID === "web");
    expect(deployments).toHaveLength(1);
    expect(allocations).toHaveLength(2);
    expect(store.tables.evals.get(EvalID)?.Status).toBe("complete");
    cluster.close();
    store.close();
    await database.close();
  }, 60_000);
});
