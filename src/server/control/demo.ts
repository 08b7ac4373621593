/**
 * The demo data set of `bexpr agent`: service and batch jobs in the `default` and `prod`
 * namespaces, registered through the same code as `PUT /v1/jobs`, so that their indexes,
 * evaluations and deployments are what the agent would have produced. It includes a deployment
 * cancelled by a newer version, successful ones, and one still running when the agent starts.
 *
 * @module
 */
import type { Cluster } from "../scheduler/cluster.js";
import type { JsonObject } from "../state/model.js";

function serviceJob(id: string, image: string, count: number, meta: Record<string, string> | undefined, extra: JsonObject = {}): JsonObject {
  return {
    ID: id,
    Datacenters: ["dc1"],
    ...(meta === undefined ? {} : { Meta: meta }),
    TaskGroups: [{ Name: `${id}-api`, Count: count, Tasks: [{ Name: id, Driver: "docker", Config: { image } }] }],
    ...extra,
  };
}

async function register(cluster: Cluster, namespace: string, job: JsonObject): Promise<void> {
  await cluster.register({ job, enforceIndex: false, jobModifyIndex: 0, evalPriority: 0, region: "", namespace: "", secretId: "" }, namespace, cluster.options.region);
}

/** Loads the demo data into an empty cluster. */
export async function loadDemo(cluster: Cluster): Promise<void> {
  await cluster.putNamespace({ Name: "prod", Description: "Production workloads", Quota: "", Meta: { owner: "platform" } });

  await register(cluster, "default", serviceJob("web", "nginx:1.25", 3, { owner: "team-a", tier: "gold" }, { Datacenters: ["dc1", "dc2"] }));
  await cluster.settle();
  // A second version before the first finished: its deployment is cancelled by the newer one.
  await register(cluster, "default", serviceJob("api", "api:1.0", 2, { owner: "team-b" }));
  await cluster.settle(true);
  await register(cluster, "default", serviceJob("api", "api:1.1", 2, { owner: "team-b" }));
  await register(cluster, "default", serviceJob("cache", "redis:7", 1, undefined, { Priority: 70 }));
  await register(cluster, "default", {
    ID: "report",
    Type: "batch",
    Datacenters: ["dc1"],
    // A long report: it runs for a day once the agent is up.
    Meta: { "bexpr.run_for": "24h" },
    TaskGroups: [{ Name: "report", Count: 1, Tasks: [{ Name: "report", Driver: "exec", Config: { command: "/bin/report" } }] }],
  });
  await register(cluster, "prod", {
    ID: "nightly-backup",
    Type: "batch",
    Periodic: { Spec: "0 2 * * *" },
    Datacenters: ["dc1"],
    TaskGroups: [{ Name: "backup", Count: 1, Tasks: [{ Name: "backup", Driver: "exec", Config: { command: "/bin/backup" } }] }],
  });
  await cluster.settle();
  // Left to the live scheduler: this deployment runs when the agent starts and completes once its allocations have run their MinHealthyTime.
  await register(cluster, "prod", serviceJob("web", "nginx:1.25", 2, { owner: "team-a" }));
}
