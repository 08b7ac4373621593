/**
 * The benchmarks' data, in the reference's shapes: job list items (`structs.JobListStub`, what
 * `GET /v1/jobs?meta=true` answers) for the engine, and job specifications (`api.Job`, what
 * `PUT /v1/jobs` takes) for the agent. Both come from one seeded generator, so that a seed gives
 * the same data on every run and on every machine, and the `i`-th job is the same whatever order
 * the jobs are made or registered in (each is drawn from a generator seeded by the seed and `i`).
 *
 * What makes the data realistic, against the sequential `bench-00001` of before: random IDs (a
 * service word and eight hex digits, so that rows arrive in no order of their key), four
 * namespaces of unequal size, one to three task groups of one to three tasks, one to five `Meta`
 * keys of a larger set with values of few and of many distinct values (a commit, a build
 * number), `service` and `batch` jobs, several datacenters.
 */

/** The seed of every benchmark unless one is given. */
export const DEFAULT_SEED = 42;

/** A generator of numbers in [0, 1): mulberry32, small, fast and well spread for benchmark data. */
export type Random = () => number;

/** mulberry32 seeded by `seed`. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The generator of the `index`-th item of `seed`: independent of the order items are made in. */
export function itemRandom(seed: number, index: number): Random {
  return seededRandom(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
}

/** One of `values`, uniformly. */
export const pick = <T>(next: Random, values: readonly T[]): T => values[Math.floor(next() * values.length)]!;

/** `digits` random lower-case hex digits. */
export function hex(next: Random, digits: number): string {
  let out = "";
  for (let i = 0; i < digits; i++) out += Math.floor(next() * 16).toString(16);
  return out;
}

/** The namespaces, each with its share of the jobs (the agent's `default` and three more). */
export const NAMESPACES = ["default", "prod", "staging", "dev"] as const;
const NAMESPACE_WEIGHTS = [0.4, 0.3, 0.2, 0.1];

/** The datacenters a job may run in (the benchmark agents have client nodes in each). */
export const DATACENTER_SETS: readonly (readonly string[])[] = [["dc1"], ["dc1", "dc2"], ["dc2"], ["dc3"], ["dc1", "dc2", "dc3"]];
const SERVICES = ["web", "api", "cache", "worker", "ingest", "billing", "search", "auth", "report", "etl"];
const GROUP_NAMES = ["app", "web", "api", "worker", "sidecar", "db", "proxy", "cron"];
const TASK_NAMES = ["main", "server", "envoy", "log-shipper", "migrate", "exporter"];
const DRIVERS = ["docker", "docker", "docker", "exec", "raw_exec", "java"];
const PRIORITIES = [50, 50, 50, 70, 30, 10, 90];
const STATUSES = ["running", "running", "running", "pending", "dead"];
/** `Meta` keys, each with the values it takes; a function for the keys of many distinct values. */
const META: readonly (readonly [string, readonly string[] | ((next: Random) => string)])[] = [
  ["owner", ["team-a", "team-b", "team-c", "team-d", "platform", "data"]],
  ["tier", ["gold", "silver", "bronze", ""]],
  ["version", (next) => `${1 + Math.floor(next() * 4)}.${Math.floor(next() * 20)}.${Math.floor(next() * 10)}`],
  ["commit", (next) => hex(next, 12)],
  ["build", (next) => String(1000 + Math.floor(next() * 90_000))],
  ["cost-center", ["cc-100", "cc-200", "cc-300", "cc-400"]],
  ["on-call", ["alice", "bob", "carol", "dave", "erin"]],
  ["region", ["eu-west", "us-east", "ap-south"]],
];

/** A namespace by the weights above. */
function namespaceOf(next: Random): string {
  let r = next();
  for (const [i, weight] of NAMESPACE_WEIGHTS.entries()) {
    if ((r -= weight) < 0) return NAMESPACES[i]!;
  }
  return NAMESPACES[0];
}

/** One to five `Meta` keys of the set, in the set's order, with their values. */
function metaOf(next: Random): Record<string, string> {
  const count = 1 + Math.floor(next() * 5);
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(Math.floor(next() * META.length));
  const meta: Record<string, string> = {};
  for (const i of [...chosen].sort((a, b) => a - b)) {
    const [key, values] = META[i]!;
    meta[key] = typeof values === "function" ? values(next) : pick(next, values);
  }
  return meta;
}

/** What a job list item and a job specification share: the job as its owner wrote it. */
export interface JobDraft {
  readonly ID: string;
  readonly Namespace: string;
  readonly Type: "service" | "batch";
  readonly Priority: number;
  readonly Datacenters: readonly string[];
  readonly Stop: boolean;
  readonly Meta: Record<string, string>;
  readonly Groups: readonly { readonly Name: string; readonly Count: number; readonly Tasks: readonly { readonly Name: string; readonly Driver: string }[] }[];
}

/** The `index`-th job of `seed`. */
export function jobDraft(index: number, seed = DEFAULT_SEED): JobDraft {
  const next = itemRandom(seed, index);
  const service = pick(next, SERVICES);
  const groupCount = 1 + Math.floor(next() * 3);
  const groupNames = new Set<string>();
  while (groupNames.size < groupCount) groupNames.add(pick(next, GROUP_NAMES));
  return {
    ID: `${service}-${hex(next, 8)}`,
    Namespace: namespaceOf(next),
    Type: next() < 0.7 ? "service" : "batch",
    Priority: pick(next, PRIORITIES),
    Datacenters: pick(next, DATACENTER_SETS),
    Stop: next() < 0.08,
    Meta: metaOf(next),
    Groups: [...groupNames].map((name) => {
      const taskCount = 1 + Math.floor(next() * 3);
      const tasks = new Set<string>();
      while (tasks.size < taskCount) tasks.add(pick(next, TASK_NAMES));
      return { Name: name, Count: 1 + Math.floor(next() * 3), Tasks: [...tasks].map((task) => ({ Name: task, Driver: pick(next, DRIVERS) })) };
    }),
  };
}

/** A task group's allocations by state (`structs.TaskGroupSummary`). */
export interface TaskGroupSummary {
  Queued: number;
  Complete: number;
  Failed: number;
  Running: number;
  Starting: number;
  Lost: number;
  Unknown: number;
}

/** The `index`-th job list item of `seed` (`structs.JobListStub` with its `Meta`), as the agent lists it once placed. */
export function jobListItem(index: number, seed = DEFAULT_SEED) {
  const draft = jobDraft(index, seed);
  const next = itemRandom(seed ^ 0x5bd1e995, index);
  const status = draft.Stop ? "dead" : pick(next, STATUSES);
  const createIndex = 10 + Math.floor(next() * 100_000);
  const modifyIndex = createIndex + Math.floor(next() * 1_000);
  const summary: Record<string, TaskGroupSummary> = {};
  for (const group of draft.Groups) {
    const running = status === "running" ? group.Count : 0;
    summary[group.Name] = { Queued: status === "pending" ? group.Count : 0, Complete: Math.floor(next() * 3), Failed: next() < 0.1 ? 1 : 0, Running: running, Starting: 0, Lost: 0, Unknown: 0 };
  }
  return {
    ID: draft.ID,
    ParentID: "",
    Name: draft.ID,
    Namespace: draft.Namespace,
    Datacenters: [...draft.Datacenters],
    NodePool: "default",
    Multiregion: null,
    Type: draft.Type as string,
    Priority: draft.Priority,
    Periodic: false,
    ParameterizedJob: false,
    Stop: draft.Stop,
    Status: status,
    StatusDescription: "",
    JobSummary: {
      JobID: draft.ID,
      Namespace: draft.Namespace,
      Summary: summary,
      Children: { Pending: 0, Running: 0, Dead: 0 },
      CreateIndex: createIndex,
      ModifyIndex: modifyIndex,
    },
    CreateIndex: createIndex,
    ModifyIndex: modifyIndex,
    JobModifyIndex: createIndex,
    SubmitTime: 1_717_000_000_000_000_000n + BigInt(createIndex) * 1_000_000n,
    Meta: draft.Meta,
  };
}

/** `count` job list items of `seed`. */
export function jobListItems(count: number, seed = DEFAULT_SEED) {
  return Array.from({ length: count }, (_, i) => jobListItem(i, seed));
}

/** The `index`-th job specification of `seed` (an `api.Job`, for `PUT /v1/jobs`); `id` replaces its ID. */
export function jobSpec(index: number, seed = DEFAULT_SEED, id?: string): Record<string, unknown> {
  const draft = jobDraft(index, seed);
  const jobId = id ?? draft.ID;
  return {
    ID: jobId,
    Name: jobId,
    Namespace: draft.Namespace,
    Type: draft.Type,
    Priority: draft.Priority,
    Datacenters: draft.Datacenters,
    Stop: draft.Stop,
    Meta: draft.Meta,
    TaskGroups: draft.Groups.map((group) => ({
      Name: group.Name,
      Count: group.Count,
      Tasks: group.Tasks.map((task) => ({
        Name: task.Name,
        Driver: task.Driver,
        Config: task.Driver === "docker" ? { image: `registry.example/${jobId.split("-")[0]}/${task.Name}:${draft.Meta["version"] ?? "1.0.0"}` } : { command: `/usr/local/bin/${task.Name}` },
        Resources: { CPU: 100 * (1 + (task.Name.length % 5)), MemoryMB: 128 * (1 + (group.Name.length % 4)) },
      })),
    })),
  };
}

/**
 * Filters no cache can answer: the `n`-th of `seed`, each with a clause of its own (a random
 * `Meta.commit` prefix, a random ID prefix, a random build number) beside common clauses, as a
 * user types a filter once. `matching` of them are written to match some jobs, the others rarely.
 */
export function newFilter(n: number, seed = DEFAULT_SEED): string {
  const next = itemRandom(seed ^ 0x27d4eb2f, n);
  switch (n % 4) {
    case 0:
      return `Meta.commit matches "^${hex(next, 2)}" and Status == "running"`;
    case 1:
      return `ID matches "^${pick(next, SERVICES)}-${hex(next, 1)}" and Type == "service"`;
    case 2:
      return `"dc1" in Datacenters and Meta.owner == "${pick(next, ["team-a", "team-b", "platform"])}" and Meta.build != "${1000 + Math.floor(next() * 90_000)}"`;
    default:
      return `Priority == ${pick(next, [30, 50, 70])} and Meta.tier == "gold" and Name contains "${hex(next, 2)}"`;
  }
}

/**
 * The hand-written JavaScript of {@link newFilter}'s `n`-th filter, over job list items: the
 * limit a filter language can approach.
 */
export function newFilterPredicate(n: number, seed = DEFAULT_SEED): (job: ReturnType<typeof jobListItem>) => boolean {
  const source = newFilter(n, seed);
  const quoted = [...source.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  const number = Number(/Priority == (\d+)/.exec(source)?.[1]);
  switch (n % 4) {
    case 0: {
      const prefix = quoted[0]!.slice(1);
      return (job) => job.Meta["commit"]?.startsWith(prefix) === true && job.Status === "running";
    }
    case 1: {
      const prefix = quoted[0]!.slice(1);
      return (job) => job.ID.startsWith(prefix) && job.Type === "service";
    }
    case 2: {
      const [, owner, build] = quoted;
      return (job) => job.Datacenters.includes("dc1") && job.Meta["owner"] === owner && job.Meta["build"] !== build;
    }
    default: {
      const part = quoted[1]!;
      return (job) => job.Priority === number && job.Meta["tier"] === "gold" && job.Name.includes(part);
    }
  }
}

/**
 * What the benchmarks' agents start from: the four namespaces, the three client nodes an agent
 * has by default (in `dc1`), and one in each other datacenter of the benchmark jobs, so that
 * every job is placed (a job no node can take would be blocked, with no allocation or deployment:
 * less work than a real one). A data file's nodes are the agent's nodes.
 */
export const BENCH_AGENT_DATA = {
  Namespaces: NAMESPACES.filter((name) => name !== "default").map((Name) => ({ Name })),
  Nodes: [
    { Name: "client-1", Datacenter: "dc1" },
    { Name: "client-2", Datacenter: "dc1" },
    { Name: "client-3", Datacenter: "dc1" },
    { Name: "client-dc2", Datacenter: "dc2" },
    { Name: "client-dc3", Datacenter: "dc3" },
  ],
};
