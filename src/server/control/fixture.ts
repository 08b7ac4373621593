/**
 * Fixtures: the state a test suite starts an agent from (`--data FILE`, `startAgent({ data })`),
 * written the way a person writes it rather than as the rows a snapshot holds:
 *
 * ```json
 * {
 *   "Namespaces": [{ "Name": "prod" }],
 *   "Nodes": [{ "Name": "client-1" }, { "Name": "client-2", "Status": "down" }],
 *   "Jobs": [{ "ID": "web", "TaskGroups": [{ "Name": "web", "Count": 2, "Tasks": [{ "Name": "nginx", "Driver": "docker" }] }] },
 *            { "ID": "report", "Type": "batch", "Status": "running", "TaskGroups": [ … ] }],
 *   "Deployments": [{ "JobID": "web", "Status": "failed" }],
 *   "ACL": { "Policies": [{ "Name": "readonly", "Rules": "namespace \"*\" { policy = \"read\" }" }],
 *            "Tokens": [{ "SecretID": "…", "Type": "client", "Policies": ["readonly"] }] }
 * }
 * ```
 *
 * Every job is registered through the same code as `PUT /v1/jobs` (its checks, its errors) and the
 * simulated scheduler does its work, so indexes, evaluations, allocations and deployments are the
 * agent's own. A job's `Status` says how far the scheduler takes it while the agent starts:
 * nowhere given, through every step that does not wait for the job's run time (allocations
 * running, a deployment done; a batch job's allocations then finish on the agent's clock, after
 * the placement delay or their `bexpr.run_for`); `"running"`, placed only, the rest left to the
 * agent's clock; `"dead"`, as far as without a status, then stopped unless it is dead already.
 * A document that cannot be used is an {@link AgentDataError} naming the place in it.
 *
 * Reading the document's fields is in `fixture-fields.ts`, its nodes' checks and rows in
 * `fixture-nodes.ts`; this module checks the rest and loads it.
 *
 * @module
 */
import { stringifyJson } from "../../json.js";
import { AccessControl, type AclPolicyConfig, type AclTokenConfig } from "../domain/acl.js";
import type { Cluster } from "../scheduler/cluster.js";
import { validateNamespace } from "../domain/namespaces.js";
import { decodeRegisterRequest, type RegisterRequest } from "../scheduler/job-spec.js";
import { registrationTime } from "../scheduler/fingerprint.js";
import { AgentDataError, describeRefused, isObject } from "./snapshot.js";
import { distinct, invalidFixture, knownFields, listAt, oneOf, refusalMessage, stringAt, stringMapAt, UUID } from "./fixture-fields.js";
import { checkNodes, fixtureNodeRow, type FixtureNode } from "./fixture-nodes.js";
import { createNodePoolFor } from "../state/operator.js";
import type { Namespace } from "../state/model.js";
import { namespacedKey, type Store } from "../state/store.js";

export type { FixtureNode } from "./fixture-nodes.js";

export { MAX_FIXTURE_ENTRIES } from "./fixture-fields.js";

/** A namespace of a fixture (besides `default`, which always exists). */
export interface FixtureNamespace {
  /** 1 to 128 letters, digits or `-`. */
  readonly Name: string;
  /** Free text of at most 256 characters. */
  readonly Description?: string;
  /** String metadata. */
  readonly Meta?: Readonly<Record<string, string>>;
}


/**
 * A job of a fixture: a job spec as `PUT /v1/jobs` takes it (its `Job`), in the namespace it names
 * (default `default`), and optionally the `Status` the job is taken to. A job listed twice is
 * registered twice: its first entry becomes version 0, the next version 1.
 */
export type FixtureJob = {
  /** The job's ID. */
  readonly ID: string;
  /** The job's namespace (default `default`). */
  readonly Namespace?: string;
  /**
   * How far the simulated scheduler takes the job while the agent starts: absent, through every
   * step that does not wait for the job's run time (allocations running, its deployment done);
   * `running`, placed only, the rest left to the agent's clock; `dead`, as far as absent, then
   * stopped unless dead already.
   * Only a job's last entry may have one.
   */
  readonly Status?: FixtureJobStatus;
} & { readonly [field: string]: unknown };

/** The statuses a fixture's job may be given. */
export const FIXTURE_JOB_STATUSES = ["running", "dead"] as const;

/** A status a fixture's job may be given. */
export type FixtureJobStatus = (typeof FIXTURE_JOB_STATUSES)[number];

/** The statuses a fixture may give a job's deployment. */
export const FIXTURE_DEPLOYMENT_STATUSES = ["running", "successful", "failed", "paused"] as const;

/** The state of the deployment of a fixture's job (its last version's). */
export interface FixtureDeployment {
  /** The job, one of the fixture's. */
  readonly JobID: string;
  /** The job's namespace (default `default`). */
  readonly Namespace?: string;
  /**
   * `successful` (a service job's deployment at the end of its work), `running` (left running: the
   * job is left to the agent's clock), `failed` (marked failed, as `POST /v1/deployment/fail`) or
   * `paused`.
   */
  readonly Status: (typeof FIXTURE_DEPLOYMENT_STATUSES)[number];
}

/** The ACL state of a fixture (whether ACLs are enforced is the agent's `acl.enabled` option). */
export interface FixtureAcl {
  /** Policies, as the `acl.policies` option. */
  readonly Policies?: readonly AclPolicyConfig[];
  /** Tokens, as the `acl.tokens` option (a `SecretID` to present them with). */
  readonly Tokens?: readonly AclTokenConfig[];
  /** The secret of the bootstrap management token (bootstrap is then done). */
  readonly BootstrapToken?: string;
}

/** A fixture document (see the module's description). */
export interface AgentFixture {
  /** Namespaces to create. */
  readonly Namespaces?: readonly FixtureNamespace[];
  /** The agent's client nodes (replacing those of the `nodes` option). */
  readonly Nodes?: readonly FixtureNode[];
  /** Jobs to register, in order. */
  readonly Jobs?: readonly FixtureJob[];
  /** The states of jobs' deployments. */
  readonly Deployments?: readonly FixtureDeployment[];
  /** Policies and tokens. */
  readonly ACL?: FixtureAcl;
}

/** The fields of a fixture document. */
const FIXTURE_FIELDS = ["Namespaces", "Nodes", "Jobs", "Deployments", "ACL"];

/** A job of a checked fixture: its registration, decoded, and what to do with it. */
interface PlannedJob {
  readonly path: string;
  readonly namespace: string;
  readonly id: string;
  readonly request: RegisterRequest;
  readonly status: FixtureJobStatus | undefined;
  /** Whether it is the job's last entry (the one a status or a deployment applies to). */
  last: boolean;
  deployment?: { readonly path: string; readonly status: FixtureDeployment["Status"] };
}

/** A fixture read and checked, ready to load. */
export interface CheckedFixture {
  readonly namespaces: readonly { readonly path: string; readonly namespace: Omit<Namespace, "CreateIndex" | "ModifyIndex"> }[];
  readonly nodes: readonly FixtureNode[] | undefined;
  readonly jobs: readonly PlannedJob[];
  readonly policies: readonly AclPolicyConfig[];
  readonly tokens: readonly AclTokenConfig[];
  readonly bootstrapToken: string | undefined;
}


function checkJobs(value: unknown, region: string): PlannedJob[] {
  const jobs: PlannedJob[] = [];
  const lastOf = new Map<string, PlannedJob>();
  listAt(value, "Jobs", "jobs").forEach((entry, i) => {
    const path = `Jobs[${i}]`;
    const { Status: status, ...spec } = entry;
    const id = stringAt(entry, "ID", path, true)!;
    const namespace = stringAt(entry, "Namespace", path) ?? "default";
    if (status !== undefined && !(FIXTURE_JOB_STATUSES as readonly unknown[]).includes(status)) {
      throw invalidFixture(`${path}.Status`, `expected ${FIXTURE_JOB_STATUSES.join(" or ")} (or no Status: the end of the scheduler's work), got ${describeRefused(status)}`);
    }
    if (status === "running" && spec.Stop === true) throw invalidFixture(`${path}.Status`, "a job with Stop set cannot be left running");
    const jobRegion = entry.Region;
    if (jobRegion !== undefined && jobRegion !== "" && jobRegion !== region) throw invalidFixture(`${path}.Region`, `the agent serves region ${JSON.stringify(region)} only, got ${describeRefused(jobRegion)}`);
    let request: RegisterRequest;
    try {
      request = decodeRegisterRequest(stringifyJson({ Job: spec }));
    } catch (error) {
      const message = refusalMessage(error);
      if (message === undefined) throw error;
      throw invalidFixture(path, message);
    }
    const key = namespacedKey(namespace, id);
    const previous = lastOf.get(key);
    if (previous !== undefined) {
      if (previous.status !== undefined) throw invalidFixture(`${previous.path}.Status`, `only a job's last entry may have a Status, and ${path} registers ${JSON.stringify(id)} again`);
      previous.last = false;
    }
    const planned: PlannedJob = { path, namespace, id, request, status: status as FixtureJobStatus | undefined, last: true };
    lastOf.set(key, planned);
    jobs.push(planned);
  });
  return jobs;
}

function checkDeployments(value: unknown, jobs: readonly PlannedJob[]): void {
  const last = new Map(jobs.filter((job) => job.last).map((job) => [namespacedKey(job.namespace, job.id), job]));
  listAt(value, "Deployments", "deployments").forEach((entry, i) => {
    const path = `Deployments[${i}]`;
    knownFields(entry, ["JobID", "Namespace", "Status"], path);
    const id = stringAt(entry, "JobID", path, true)!;
    const namespace = stringAt(entry, "Namespace", path) ?? "default";
    const status = oneOf(entry, "Status", FIXTURE_DEPLOYMENT_STATUSES, path);
    if (status === undefined) throw invalidFixture(`${path}.Status`, `expected one of ${FIXTURE_DEPLOYMENT_STATUSES.join(", ")}, got nothing`);
    const job = last.get(namespacedKey(namespace, id));
    if (job === undefined) throw invalidFixture(`${path}.JobID`, `no job ${JSON.stringify(id)} in namespace ${JSON.stringify(namespace)} among Jobs`);
    if (job.deployment !== undefined) throw invalidFixture(path, `a second state for the deployment of job ${JSON.stringify(id)} (${job.deployment.path})`);
    if (status === "running" && job.status === "dead") throw invalidFixture(`${path}.Status`, `job ${JSON.stringify(id)} is to be dead (${job.path}.Status): its deployment cannot be left running`);
    job.deployment = { path, status };
  });
}

function checkAcl(value: unknown): Pick<CheckedFixture, "policies" | "tokens" | "bootstrapToken"> {
  if (value === undefined) return { policies: [], tokens: [], bootstrapToken: undefined };
  if (!isObject(value)) throw invalidFixture("ACL", `expected an object such as {"Policies": [...], "Tokens": [...]}, got ${describeRefused(value)}`);
  knownFields(value, ["Policies", "Tokens", "BootstrapToken"], "ACL");
  const policyNames = new Map<string, string>();
  const policies = listAt(value.Policies, "ACL.Policies", "policies").map((policy, i) => {
    const path = `ACL.Policies[${i}]`;
    knownFields(policy, ["Name", "Description", "Rules"], path);
    const name = stringAt(policy, "Name", path, true)!;
    distinct(policyNames, name, path, "Name", (first) => `a second policy named ${JSON.stringify(name)} (${first})`);
    const description = stringAt(policy, "Description", path);
    const rules = stringAt(policy, "Rules", path, true)!;
    return { Name: name, Description: description, Rules: rules };
  });
  const bootstrapToken = stringAt(value, "BootstrapToken", "ACL");
  if (bootstrapToken !== undefined && !UUID.test(bootstrapToken)) throw invalidFixture("ACL.BootstrapToken", `expected a UUID, got ${describeRefused(bootstrapToken)}`);
  // A request's token is found by its secret, a token by its accessor: neither may be another's.
  // (The value is not written: a secret stays out of the message.)
  const ids: Readonly<Record<"AccessorID" | "SecretID", Map<string, string>>> = {
    AccessorID: new Map(),
    SecretID: new Map(bootstrapToken === undefined ? [] : [[bootstrapToken, "ACL.BootstrapToken"]]),
  };
  const tokens = listAt(value.Tokens, "ACL.Tokens", "tokens").map((token, i) => {
    const path = `ACL.Tokens[${i}]`;
    knownFields(token, ["AccessorID", "SecretID", "Name", "Type", "Policies", "ExpirationTime"], path);
    const given: { AccessorID?: string; SecretID?: string } = {};
    for (const field of ["AccessorID", "SecretID"] as const) {
      const id = stringAt(token, field, path);
      if (id === undefined) continue;
      if (!UUID.test(id)) throw invalidFixture(`${path}.${field}`, `expected a UUID, got ${describeRefused(id)}`);
      distinct(ids[field], id, path, field, (first) => `the ${field} of ${first}`);
      given[field] = id;
    }
    const name = stringAt(token, "Name", path);
    const type = oneOf(token, "Type", ["client", "management"], path);
    const policyNames = token.Policies;
    if (policyNames !== undefined && !(Array.isArray(policyNames) && policyNames.every((each): each is string => typeof each === "string"))) {
      throw invalidFixture(`${path}.Policies`, `expected a list of policy names, got ${describeRefused(policyNames)}`);
    }
    const expiration = stringAt(token, "ExpirationTime", path);
    if (expiration !== undefined && Number.isNaN(Date.parse(expiration))) throw invalidFixture(`${path}.ExpirationTime`, `expected an RFC 3339 time, got ${describeRefused(expiration)}`);
    return { ...given, Name: name, Type: type, Policies: policyNames, ExpirationTime: expiration };
  });
  return { policies, tokens, bootstrapToken };
}

/**
 * Reads a fixture document and checks it (each job decoded as `PUT /v1/jobs` decodes it); nothing
 * is written. `region` is the agent's.
 *
 * @throws AgentDataError (`invalid_fixture`) naming what is wrong and where.
 */
export function readFixture(document: unknown, region: string): CheckedFixture {
  if (!isObject(document)) throw invalidFixture("", `expected a fixture: an object of ${FIXTURE_FIELDS.join(", ")}, got ${describeRefused(document)}`);
  knownFields(document, FIXTURE_FIELDS, "");
  const names = new Map<string, string>();
  const namespaces = listAt(document.Namespaces, "Namespaces", "namespaces").map((entry, i) => {
    const path = `Namespaces[${i}]`;
    knownFields(entry, ["Name", "Description", "Meta"], path);
    stringMapAt(entry, "Meta", path);
    stringAt(entry, "Description", path);
    const name = stringAt(entry, "Name", path, true)!;
    distinct(names, name, path, "Name", (first) => `a second namespace named ${JSON.stringify(name)} (${first})`);
    try {
      return { path, namespace: validateNamespace({ ...entry, Name: name }) };
    } catch (error) {
      const message = refusalMessage(error);
      if (message === undefined) throw error;
      throw invalidFixture(path, message);
    }
  });
  const nodes = checkNodes(document.Nodes);
  const jobs = checkJobs(document.Jobs, region);
  checkDeployments(document.Deployments, jobs);
  return { namespaces, nodes, jobs, ...checkAcl(document.ACL) };
}

/** What loading a fixture writes to. */
export interface FixtureTarget {
  readonly cluster: Cluster;
  readonly store: Store;
  /** The agent's datacenter, of nodes that name none. */
  readonly datacenter: string;
  /** Epoch milliseconds on the agent's clock. */
  readonly now: () => number;
}

/** Runs `step`, turning the domain's refusal into an error at `path` of the fixture. */
async function at<T>(path: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const message = refusalMessage(error);
    if (message === undefined) throw error;
    throw invalidFixture(path, message);
  }
}

/** The latest deployment of a job (undefined when it has none). */
function latestDeployment(store: Store, namespace: string, id: string) {
  let latest: { ID: string; Status: string; CreateIndex: number } | undefined;
  for (const deployment of store.tables.deployment.group(namespacedKey(namespace, id)).values()) {
    if (latest === undefined || deployment.CreateIndex > latest.CreateIndex) latest = deployment;
  }
  return latest;
}

/**
 * Loads a checked fixture into an agent whose cluster leads (it runs the scheduler's steps on the
 * way): namespaces, nodes, ACL policies and tokens, then the jobs. Jobs that are to end their
 * work are registered in the fixture's order, each taken as far as the scheduler goes before the next;
 * jobs left running come after them, so that no later step finishes their work. Then each job
 * and deployment given a status is checked to have it.
 *
 * @throws AgentDataError (`invalid_fixture` for what the agent refuses, as a registration's
 *   errors; `fixture_failed` when a job or deployment did not end in the status asked).
 */
export async function loadFixture(fixture: CheckedFixture, target: FixtureTarget): Promise<void> {
  const { cluster, store } = target;
  for (const { path, namespace } of fixture.namespaces) await at(path, () => cluster.putNamespace(namespace));
  if (fixture.nodes !== undefined) {
    const nodes = fixture.nodes;
    // The simulated clients register once they have fingerprinted their machines.
    const registeredAt = registrationTime(cluster.clock.nowMs());
    await store.write(["nodes", "node_pool"], (state) => {
      for (const node of [...state.nodes.values()]) state.nodes.delete(node.ID);
      nodes.forEach((node, i) => {
        const row = fixtureNodeRow(node, i, target.datacenter, registeredAt, state.index);
        state.nodes.put(row);
        createNodePoolFor(state, row.NodePool, state.index);
      });
    }, "NodeRegister");
  }
  // Policies and tokens as the `acl` option makes them (its checks, its errors), one at a time to name the one refused.
  const acl = (path: string, options: Parameters<typeof AccessControl.fromOptions>[1]) => at(path, () => AccessControl.fromOptions(store, { enabled: true, ...options }, target.now));
  for (const [i, policy] of fixture.policies.entries()) await acl(`ACL.Policies[${i}]`, { policies: [policy] });
  if (fixture.bootstrapToken !== undefined) await acl("ACL.BootstrapToken", { bootstrapToken: fixture.bootstrapToken });
  const isNew = newTokenCheck(store);
  for (const [i, token] of fixture.tokens.entries()) {
    isNew(token, `ACL.Tokens[${i}]`);
    await acl(`ACL.Tokens[${i}]`, { tokens: [token] });
  }

  const leftRunning = (job: PlannedJob) => job.last && (job.status === "running" || job.deployment?.status === "running");
  const place = async (job: PlannedJob) => {
    await at(job.path, () => cluster.register(job.request, job.namespace, cluster.options.region));
    // The evaluation is processed: allocations placed, a deployment started.
    await cluster.settle(true);
    const wanted = job.deployment?.status;
    if (wanted !== "failed" && wanted !== "paused") return;
    const deployment = latestDeployment(store, job.namespace, job.id);
    if (deployment === undefined) throw noDeployment(job);
    await at(job.deployment!.path, () => cluster.updateDeployment(deployment.ID, wanted === "failed" ? { kind: "fail" } : { kind: "pause", pause: true }));
    await cluster.settle(true);
  };
  for (const job of fixture.jobs.filter((candidate) => !leftRunning(candidate))) {
    await place(job);
    await cluster.settle();
    if (job.last && job.status === "dead" && store.tables.jobs.get(namespacedKey(job.namespace, job.id))?.Status !== "dead") {
      await cluster.deregister(job.namespace, job.id, { purge: false });
      await cluster.settle();
    }
  }
  for (const job of fixture.jobs.filter(leftRunning)) await place(job);

  for (const job of fixture.jobs) {
    if (!job.last) continue;
    const stored = store.tables.jobs.get(namespacedKey(job.namespace, job.id));
    if (job.status !== undefined && stored?.Status !== job.status) {
      throw new AgentDataError("fixture_failed", `${job.path}.Status`, `job ${JSON.stringify(job.id)} ended ${stored?.Status ?? "missing"}, not ${job.status}`);
    }
    if (job.deployment === undefined) continue;
    const deployment = latestDeployment(store, job.namespace, job.id);
    if (deployment === undefined) throw noDeployment(job);
    if (deployment.Status !== job.deployment.status) {
      throw new AgentDataError("fixture_failed", `${job.deployment.path}.Status`, `the deployment of job ${JSON.stringify(job.id)} ended ${deployment.Status}, not ${job.deployment.status}`);
    }
  }
}

/**
 * A check that refuses a fixture's token whose secret or accessor a token stored now has (one of
 * the agent's `acl` option, or the fixture's bootstrap token): the `acl` option's code keeps a
 * stored token of the same secret and drops the new one, and replaces one of the same accessor,
 * so one of the two would silently win. The fixture's tokens are told apart from each other when
 * it is read, so the tokens stored now are all there is to compare with.
 */
function newTokenCheck(store: Store): (token: AclTokenConfig, path: string) => void {
  const stored = { AccessorID: new Set<string>(), SecretID: new Set<string>() };
  for (const token of store.tables.acl_token.values()) {
    stored.AccessorID.add(token.AccessorID);
    stored.SecretID.add(token.SecretID);
  }
  return (token, path) => {
    for (const field of ["AccessorID", "SecretID"] as const) {
      const id = token[field];
      if (id !== undefined && stored[field].has(id)) throw invalidFixture(`${path}.${field}`, `the ${field} of a token the agent has already (of its acl option)`);
    }
  };
}

function noDeployment(job: PlannedJob): AgentDataError {
  return new AgentDataError(
    "fixture_failed",
    job.deployment?.path ?? job.path,
    `job ${JSON.stringify(job.id)} has no deployment: only service jobs whose task groups have an update block with MaxParallel above 0 (the default) get one`,
  );
}
