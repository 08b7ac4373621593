/**
 * One set of fields: `schemas.job` and `schemas.deployment` are exactly what the agent filters
 * `/v1/jobs` and `/v1/deployments` on. Every field of every row the agent filters is described by
 * the schema with its kind, and every field the schema describes is met in those rows; the CLI's
 * `--schema job` accepts what the agent accepts.
 */
import { MemoryStore } from "../../src/server/state/memory.js";
import type { RowRange } from "../../src/server/state/store.js";
import { describe, expect, it } from "vitest";
import { compileFilter, schemas, type FieldSchema } from "../../src/index.js";
import { Cluster } from "../../src/server/scheduler/cluster.js";
import { loadDemo } from "../../src/server/control/demo.js";
import { deploymentsEndpoint, jobsEndpoint } from "../../src/server/list/endpoints.js";
import { decodeRegisterRequest } from "../../src/server/scheduler/job-spec.js";
import { useAgent } from "./support.js";
import { mismatches } from "../support/schema-shape.js";

/** A job using every block the agent models: update, migrate, multiregion, scaling, the disk, tasks with env, meta, resources and logs. */
const fullJob = {
  ID: "full",
  Type: "service",
  Priority: 60,
  AllAtOnce: true,
  Datacenters: ["dc1"],
  NodePool: "gpu",
  Constraints: [{ LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "=" }],
  Affinities: [{ LTarget: "${node.class}", RTarget: "fast", Operand: "=", Weight: 50 }],
  Spreads: [{ Attribute: "${node.datacenter}", Weight: 100 }],
  Update: { MaxParallel: 2, HealthCheck: "checks", MinHealthyTime: 1, HealthyDeadline: 2, ProgressDeadline: 3, Stagger: 4, Canary: 1, AutoRevert: true, AutoPromote: false },
  Multiregion: { Strategy: { MaxParallel: 1, OnFailure: "fail_all" }, Regions: [{ Name: "global", Count: 1, Datacenters: ["dc1"], NodePool: "gpu", Meta: { a: "b" } }] },
  Meta: { owner: "team-c" },
  ConsulToken: "c",
  ConsulNamespace: "cn",
  VaultToken: "v",
  VaultNamespace: "vn",
  NomadTokenID: "n",
  DispatchIdempotencyToken: "d",
  TaskGroups: [
    {
      Name: "g",
      Count: 2,
      Meta: { k: "v" },
      Scaling: { ID: "s", Type: "horizontal", Min: 1, Max: 3, Enabled: true, Policy: { cooldown: "1m" }, Target: { Group: "g" }, CreateIndex: 0, ModifyIndex: 0 },
      Update: { MaxParallel: 1, HealthCheck: "task_states", MinHealthyTime: 5, HealthyDeadline: 6, ProgressDeadline: 7, Stagger: 8, Canary: 0, AutoRevert: false, AutoPromote: true },
      Migrate: { MaxParallel: 2 },
      EphemeralDisk: { SizeMB: 25 },
      Tasks: [
        {
          Name: "t",
          Driver: "docker",
          User: "root",
          Config: { image: "x" },
          Env: { A: "1" },
          Meta: { m: "n" },
          Leader: true,
          Resources: { CPU: 500, MemoryMB: 256, NUMA: { Affinity: "prefer" } },
          LogConfig: { MaxFiles: 3 },
          KillTimeout: 10_000_000_000,
        },
      ],
    },
  ],
};
const periodicJob = { ID: "cron", Type: "batch", Periodic: { Spec: "* * * * *" }, Payload: "aGk=", TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "exec" }] }] };
const parameterizedJob = { ID: "param", Type: "batch", ParameterizedJob: { Payload: "optional" }, TaskGroups: [{ Name: "g", Tasks: [{ Name: "t", Driver: "exec" }] }] };

/** The rows the agent filters, from a cluster holding the demo data and the jobs above. */
async function filterTargets(): Promise<{ jobs: unknown[]; deployments: unknown[] }> {
  const store = new MemoryStore();
  const cluster = new Cluster(store, { region: "global", placementDelayMs: 0 });
  // Nodes to place on: without them every job would be blocked, with no allocations or deployments.
  await cluster.seed(3);
  cluster.lead();
  await loadDemo(cluster);
  // The full job's pool: a job in a pool that does not exist is refused.
  await cluster.upsertNodePool({ Name: "gpu", Description: "", Meta: null, SchedulerConfiguration: null });
  for (const job of [fullJob, periodicJob, parameterizedJob]) {
    await cluster.register(decodeRegisterRequest(JSON.stringify({ Job: job })), "default", "global");
  }
  await cluster.settle();
  const rowsOf = <Row>(range: RowRange<Row>): Row[] => Array.from({ length: range.size }, (_, i) => range.at(i));
  const jobs = rowsOf(jobsEndpoint.rows(store, "*", "")).map((job) => jobsEndpoint.filterTarget(job, store));
  const deployments = rowsOf(deploymentsEndpoint.rows(store, "*", "")).map((deployment) => deploymentsEndpoint.filterTarget(deployment, store));
  cluster.close();
  return { jobs, deployments };
}

/**
 * The paths a schema describes (lists as `[]`, map values as `[*]`); the elements of a list or map
 * of scalars are not required to be met (a list the agent never fills, as `PlacedCanaries`).
 */
function described(schema: FieldSchema, path: string): string[] {
  if (typeof schema === "string") return [path];
  if (schema.kind === "array") return typeof schema.items === "string" ? [path] : [path, ...described(schema.items, `${path}[]`)];
  if (schema.kind === "map") return typeof schema.values === "string" ? [path] : [path, ...described(schema.values, `${path}[*]`)];
  return [path, ...Object.entries(schema.fields).flatMap(([name, field]) => described(field, `${path}.${name}`))];
}

describe.each([
  ["job", jobsEndpoint, schemas.job, "jobs"],
  ["deployment", deploymentsEndpoint, schemas.deployment, "deployments"],
] as const)("schemas.%s", (_name, endpoint, schema, rows) => {
  it("is the schema the agent compiles its filters with", () => {
    expect(endpoint.schema).toBe(schema);
  });

  it("describes every field of every row the agent filters, with its kind, and nothing else", async () => {
    const seen = new Set<string>();
    const targets = (await filterTargets())[rows];
    expect(targets.length).toBeGreaterThan(3);
    expect(targets.flatMap((target) => mismatches(schema, target, "", seen)).join("\n")).toBe("");
    // Every path the schema describes is met in some row (a null value counts as met).
    expect(described(schema, "").filter((path) => !seen.has(path)).join("\n")).toBe("");
  });
});

describe("the command and the agent accept the same filters", () => {
  const agent = useAgent({ demo: true, placementDelayMs: 60_000 });

  it.each(["Version == 0", "any TaskGroups as g { g.Count == 1 }", 'TaskGroups.0.Tasks.0.Driver == "docker"', "Stable == false", 'Type == "service" and Update.HealthCheck == "checks"', "JobSummary.Children.Running == 0", "Periodic == true"])(
    "%s",
    async (filter) => {
      expect(() => compileFilter(filter, { schema: schemas.job, strict: true })).not.toThrow();
      const response = await agent.get(`/v1/jobs?filter=${encodeURIComponent(filter)}`);
      expect(response.status, response.text).toBe(200);
    },
  );
});
