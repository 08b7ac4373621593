/**
 * Search (`nomad/search_endpoint.go`): `PUT /v1/search`, the IDs of each context that start with a
 * prefix, and `PUT /v1/search/fuzzy`, the names of each context that hold a text.
 *
 * - **Prefix.** Each context (`all`: every one) is looked up by ID prefix (a namespace by name) in
 *   the request's namespace, in ID order; the first {@link SEARCH_TRUNCATE_LIMIT} rows are read, a
 *   row more marks the context truncated. A prefix that cannot be a UUID's (not hex) leaves the
 *   UUID-keyed contexts out of the answer, as the reference's silenced index errors do; a prefix of
 *   an odd number of hex digits is looked up without its last one (`roundUUIDDownIfOdd`) and the
 *   IDs then kept are those with the whole prefix.
 * - **Fuzzy.** The first {@link SEARCH_LIMIT_QUERY} jobs, allocations, nodes and namespaces are
 *   looked at (`limit_query`): a job's name, its groups, services, tasks, and its tasks' docker
 *   images, exec commands and java classes; an allocation's, a node's and a namespace's name; each
 *   match with its scope (namespace, job, group, task), ordered by where the text is found, then by
 *   length, then by name, at most {@link SEARCH_LIMIT_RESULTS} a context (`limit_results`).
 *   Evaluations and deployments are matched by ID prefix among their first rows, as the reference.
 *   The text must be {@link SEARCH_MIN_TERM_LENGTH} bytes or more (`min_term_length`).
 *
 * Node pools are looked up by name (the built-in `all` and `default` among them), scaling policies
 * by ID in the namespace, variables by path in every namespace, only the paths the token may list
 * (the reference's `GetVariablesByPrefix` walks the whole table); a fuzzy search does not look at them. The agent
 * has no CSI plugins or volumes or host volumes to search: those contexts are answered empty
 * (`null` matches, not truncated). A token sees a context only with the capability the reference
 * asks (`read-job` for jobs, allocations, evaluations and deployments, `list-scaling-policies` or
 * `read-job` for scaling policies, `node:read` for nodes, a node pool rule that does not deny for
 * node pools and only the pools it sees, a variables rule of the namespace for variables, any
 * capability in a namespace for it); with `namespace=*` each row is kept only when the token may
 * read its namespace.
 *
 * @module
 */
import { compareStrings } from "../../go/order.js";
import { denied, invalid } from "../base/errors.js";
import type { Allocation, Deployment, Evaluation, Job, JsonObject, Namespace, Node, NodePool, Variable } from "../state/model.js";
import { BUILT_IN_NODE_POOLS } from "../state/operator.js";
import { scalingPoliciesOf, type ScalingPolicy } from "./scaling-policies.js";
import type { Tables } from "../state/store.js";
import type { Caller } from "./acl.js";

/** The most IDs a prefix search answers a context with (the reference's `truncateLimit`). */
export const SEARCH_TRUNCATE_LIMIT = 20;

/** The rows of each context a fuzzy search looks at (the reference's `search.limit_query` default). */
export const SEARCH_LIMIT_QUERY = 20;

/** The most matches a fuzzy search answers a context with (the reference's `search.limit_results` default). */
export const SEARCH_LIMIT_RESULTS = 100;

/** The shortest text a fuzzy search takes, in bytes (the reference's `search.min_term_length` default). */
export const SEARCH_MIN_TERM_LENGTH = 2;

/** The contexts of `all`, in the reference's order (`ossContexts`). */
export const SEARCH_CONTEXTS = ["allocs", "jobs", "nodes", "node_pools", "evals", "deployment", "plugins", "volumes", "scaling_policy", "vars", "namespaces", "host_volumes"] as const;

/** A context of a search (`structs.Context`). */
export type SearchContext = (typeof SEARCH_CONTEXTS)[number];

/** One fuzzy match (`structs.FuzzyMatch`): the name found, and where (namespace, job, group, task; `omitempty`: absent for a namespace or an ID). */
export interface FuzzyMatch {
  readonly ID: string;
  readonly Scope?: readonly string[];
}

/** A match as Go writes it: `Scope` left out when empty. */
function fuzzyMatchOf(id: string, scope: readonly string[] | null): FuzzyMatch {
  return scope === null || scope.length === 0 ? { ID: id } : { ID: id, Scope: scope };
}

/** What a search answers, by context, before the query's meta is added. */
export interface SearchResult<Match> {
  readonly Matches: Record<string, Match[] | null>;
  readonly Truncations: Record<string, boolean>;
  /** The highest index of the searched contexts' tables. */
  readonly index: number;
}

/** The state a search reads: the tables, and each table's index. */
export interface SearchState {
  readonly tables: Tables;
  tableIndex(...tables: SearchTable[]): number;
}

/** The tables behind the contexts the agent keeps. */
type SearchTable = "jobs" | "allocs" | "evals" | "deployment" | "nodes" | "namespaces" | "node_pool" | "variables";

/** The table behind a context the agent keeps (undefined: none, the context is always empty). */
const CONTEXT_TABLES: Partial<Record<SearchContext, SearchTable>> = {
  allocs: "allocs",
  node_pools: "node_pool",
  scaling_policy: "jobs",
  vars: "variables",
  jobs: "jobs",
  nodes: "nodes",
  evals: "evals",
  deployment: "deployment",
  namespaces: "namespaces",
};

/** The contexts a request names (`expandContext`). */
function expandContext(context: string): SearchContext[] {
  if (context === "all") return [...SEARCH_CONTEXTS];
  if ((SEARCH_CONTEXTS as readonly string[]).includes(context)) return [context as SearchContext];
  throw invalid(`context must be one of [${SEARCH_CONTEXTS.join(" ")}] or 'all' for all contexts; got ${JSON.stringify(context)}`);
}

/** Whether the caller may read `namespace`'s jobs and their allocations, evaluations and deployments. */
function readsJobs(caller: Caller, namespace: string): boolean {
  return caller.management || (namespace === "*" ? caller.permissions.allowsAnywhere("read-job") : caller.permissions.allows(namespace, "read-job"));
}

/** Whether the caller may search context `context` in `namespace` (`filteredSearchContexts`). */
function maySearch(caller: Caller, namespace: string, context: SearchContext): boolean {
  if (caller.management) return true;
  switch (context) {
    case "allocs":
    case "jobs":
    case "evals":
    case "deployment":
      return readsJobs(caller, namespace);
    case "nodes":
      return caller.permissions.nodeRead;
    case "namespaces":
      return namespace === "*" || caller.permissions.seesNamespace(namespace);
    case "scaling_policy":
      return readsJobs(caller, namespace) || (namespace === "*" ? caller.permissions.allowsAnywhere("list-scaling-policies") : caller.permissions.allows(namespace, "list-scaling-policies"));
    case "node_pools":
      return caller.permissions.searchesNodePools;
    case "vars":
      return caller.permissions.searchesVariables(namespace);
    default:
      // Contexts the agent keeps nothing of: searched, and empty.
      return true;
  }
}

/** The smallest `count` of `rows` in `order` (one pass, a sorted run of at most `count` kept: bounded memory whatever the table's size). */
function smallest<Row>(rows: Iterable<Row>, count: number, order: (a: Row, b: Row) => number): Row[] {
  const kept: Row[] = [];
  for (const row of rows) {
    if (kept.length === count && order(row, kept[count - 1]!) >= 0) continue;
    let at = kept.length;
    while (at > 0 && order(row, kept[at - 1]!) < 0) at--;
    kept.splice(at, 0, row);
    if (kept.length > count) kept.pop();
  }
  return kept;
}

/** The rows of a context in the request's namespace the caller may read, in the reference's index order; `keep` selects by ID or name. */
function contextRows(state: SearchState, caller: Caller, namespace: string, context: SearchContext, keep: (id: string) => boolean, count: number): { readonly ids: string[]; readonly rows: readonly unknown[] } {
  const { tables } = state;
  const inNamespace = (row: { readonly Namespace: string }) => (namespace === "*" ? caller.management || caller.permissions.allows(row.Namespace, "read-job") : row.Namespace === namespace);
  const byId = (a: { readonly ID: string }, b: { readonly ID: string }) => compareStrings(a.ID, b.ID);
  const pick = <Row>(rows: Iterable<Row>, select: (row: Row) => boolean, idOf: (row: Row) => string, order: (a: Row, b: Row) => number) => {
    const chosen = smallest(filterRows(rows, (row) => select(row) && keep(idOf(row))), count, order);
    return { ids: chosen.map(idOf), rows: chosen };
  };
  switch (context) {
    case "jobs":
      return pick<Job>(tables.jobs.values(), inNamespace, (job) => job.ID, (a, b) => compareStrings(a.Namespace, b.Namespace) || byId(a, b));
    case "allocs":
      return pick<Allocation>(tables.allocs.values(), inNamespace, (alloc) => alloc.ID, byId);
    case "evals":
      return pick<Evaluation>(tables.evals.values(), inNamespace, (evaluation) => evaluation.ID, byId);
    case "deployment":
      return pick<Deployment>(tables.deployment.values(), inNamespace, (deployment) => deployment.ID, byId);
    case "nodes":
      return pick<Node>(tables.nodes.values(), () => true, (node) => node.ID, byId);
    case "namespaces":
      return pick<Namespace>(tables.namespaces.values(), (row) => caller.management || caller.permissions.seesNamespace(row.Name), (row) => row.Name, (a, b) => compareStrings(a.Name, b.Name));
    case "node_pools":
      return pick<NodePool>([...BUILT_IN_NODE_POOLS.values(), ...tables.node_pool.values()], (pool) => caller.management || caller.permissions.seesNodePool(pool.Name), (pool) => pool.Name, (a, b) => compareStrings(a.Name, b.Name));
    case "scaling_policy":
      return pick<ScalingPolicy>(scalingPoliciesIn(tables.jobs.values()), (policy) => inNamespace(policy.Target), (policy) => policy.ID, byId);
    case "vars":
      // Every namespace (the reference walks the whole table by path); only the paths the token may
      // list, as `/v1/vars` shows them (the reference keeps any path of a namespace the token sees).
      return pick<Variable>(tables.variables.values(), (row) => caller.management || caller.permissions.allowsVariable(row.Namespace, row.Path, "list"), (row) => row.Path, (a, b) => compareStrings(a.Path, b.Path) || compareStrings(a.Namespace, b.Namespace));
    default:
      return { ids: [], rows: [] };
  }
}

function* scalingPoliciesIn(jobs: Iterable<Job>): Iterable<ScalingPolicy> {
  for (const job of jobs) yield* scalingPoliciesOf(job);
}

function* filterRows<Row>(rows: Iterable<Row>, keep: (row: Row) => boolean): Iterable<Row> {
  for (const row of rows) if (keep(row)) yield row;
}

/** Whether a prefix can be looked up in a UUID index (hex digits and dashes, at most 4 dashes). */
function uuidPrefixOk(prefix: string): boolean {
  return /^[0-9a-fA-F-]*$/.test(prefix) && prefix.split("-").length - 1 <= 4;
}

/** `roundUUIDDownIfOdd`: without its last character when it has an odd number of digits (but for a search of jobs alone). */
function roundDown(prefix: string, context: string): string {
  if (context === "jobs") return prefix;
  const digits = prefix.length - (prefix.split("-").length - 1);
  return digits % 2 === 0 ? prefix : prefix.slice(0, -1);
}

/** The contexts keyed by UUID, whose lookup fails (and is left out) for a prefix no UUID can have. */
const UUID_CONTEXTS: ReadonlySet<SearchContext> = new Set(["allocs", "evals", "deployment", "nodes"]);

/** Reads up to {@link SEARCH_TRUNCATE_LIMIT} IDs of a context starting with `lookup`, kept when they start with `prefix` (`getPrefixMatches`). */
function prefixMatches(state: SearchState, caller: Caller, namespace: string, context: SearchContext, lookup: string, prefix: string): { readonly matches: string[] | null; readonly truncated: boolean } {
  const lower = UUID_CONTEXTS.has(context) ? lookup.toLowerCase() : lookup;
  const { ids } = contextRows(state, caller, namespace, context, (id) => id.startsWith(lower), SEARCH_TRUNCATE_LIMIT + 1);
  const read = ids.slice(0, SEARCH_TRUNCATE_LIMIT).filter((id) => id.startsWith(prefix));
  return { matches: read.length === 0 ? null : read, truncated: ids.length > SEARCH_TRUNCATE_LIMIT };
}

/** The highest index of the contexts' tables. */
function indexOf(state: SearchState, contexts: readonly SearchContext[]): number {
  const tables = contexts.flatMap((context) => CONTEXT_TABLES[context] ?? []);
  return tables.length === 0 ? state.tableIndex() : state.tableIndex(...tables);
}

/**
 * A prefix search (`Search.PrefixSearch`).
 *
 * @throws a 400 for an unknown context; a 403 when the caller may search none of it in the namespace.
 */
export function prefixSearch(state: SearchState, caller: Caller, namespace: string, prefix: string, context: string): SearchResult<string> {
  const desired = expandContext(context);
  if (context !== "all" && !maySearch(caller, namespace, desired[0]!)) throw denied();
  const contexts = desired.filter((each) => maySearch(caller, namespace, each));
  const Matches: Record<string, string[] | null> = {};
  const Truncations: Record<string, boolean> = {};
  const lookup = roundDown(prefix, context);
  for (const each of contexts) {
    // A lookup a UUID index refuses is silenced: the context is left out.
    if (UUID_CONTEXTS.has(each) && !uuidPrefixOk(lookup)) continue;
    const { matches, truncated } = prefixMatches(state, caller, namespace, each, lookup, prefix);
    Matches[each] = matches;
    Truncations[each] = truncated;
  }
  return { Matches: sortedKeys(Matches), Truncations: sortedKeys(Truncations), index: indexOf(state, contexts) };
}

/** A fuzzy match before it is answered: where in the name the text is (its score). */
interface Scored {
  readonly id: string;
  readonly scope: readonly string[] | null;
  readonly score: number;
}

/** The reference's order of fuzzy matches (`sortSet`): by score, then the name's length, then the name. */
function byScore(a: Scored, b: Scored): number {
  return a.score - b.score || a.id.length - b.id.length || compareStrings(a.id, b.id);
}

/** Where `text` (lower case) is in `name`, ignoring case (-1: nowhere). */
function fuzzyIndex(name: string, text: string): number {
  return name.toLowerCase().indexOf(text);
}

const textOf = (value: unknown): string => (typeof value === "string" ? value : "");
const objectsOf = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter((each): each is JsonObject => typeof each === "object" && each !== null) : []);

/** The config parameters a task's driver is searched by (`fuzzyMatchesJob`). */
const DRIVER_PARAMETERS: Readonly<Record<string, readonly ["images" | "commands" | "classes", string]>> = {
  docker: ["images", "image"],
  exec: ["commands", "command"],
  raw_exec: ["commands", "command"],
  java: ["classes", "class"],
};

/** A job's fuzzy matches, by context (`fuzzyMatchesJob`). */
function jobMatches(job: Job, text: string): Map<string, Scored[]> {
  const found = new Map<string, Scored[]>();
  const add = (context: string, name: string, ...scope: string[]) => {
    const at = fuzzyIndex(name, text);
    if (at >= 0) found.set(context, [...(found.get(context) ?? []), { id: name, score: at, scope: [job.Namespace, ...scope] }]);
  };
  add("jobs", job.Name, job.ID);
  for (const group of job.TaskGroups) {
    add("groups", group.Name, job.ID);
    for (const service of objectsOf(group.Services)) add("services", textOf(service.Name), job.ID, group.Name);
    for (const task of objectsOf(group.Tasks)) {
      const taskName = textOf(task.Name);
      add("tasks", taskName, job.ID, group.Name);
      for (const service of objectsOf(task.Services)) add("services", textOf(service.Name), job.ID, group.Name, taskName);
      const parameter = DRIVER_PARAMETERS[textOf(task.Driver)];
      const config = typeof task.Config === "object" && task.Config !== null ? (task.Config as JsonObject) : {};
      if (parameter !== undefined) add(parameter[0], textOf(config[parameter[1]]), job.ID, group.Name, taskName);
    }
  }
  return found;
}

/** One row's fuzzy match of a context other than jobs (`fuzzyMatchSingle`). */
function singleMatch(context: SearchContext, row: unknown, text: string): Scored | undefined {
  let name: string;
  let scope: readonly string[] | null;
  switch (context) {
    case "nodes":
      name = (row as Node).Name;
      scope = [(row as Node).ID];
      break;
    case "allocs":
      name = (row as Allocation).Name;
      scope = [(row as Allocation).Namespace, (row as Allocation).ID];
      break;
    case "namespaces":
      name = (row as Namespace).Name;
      scope = null;
      break;
    default:
      return undefined;
  }
  const at = fuzzyIndex(name, text);
  return at >= 0 ? { id: name, score: at, scope } : undefined;
}

/** The contexts fuzzy search matches by name (the others by ID prefix, or not at all). */
const FUZZY_CONTEXTS: ReadonlySet<SearchContext> = new Set(["jobs", "allocs", "nodes", "namespaces"]);

/**
 * A fuzzy search (`Search.FuzzySearch`); `queryPrefix` is the request's `?prefix`, which the
 * reference reads evaluations and deployments from.
 *
 * @throws a 400 for an unknown context or a text shorter than {@link SEARCH_MIN_TERM_LENGTH}; a 403
 * when the caller may search none of the context in the namespace.
 */
export function fuzzySearch(state: SearchState, caller: Caller, namespace: string, text: string, context: string, queryPrefix = ""): SearchResult<FuzzyMatch> {
  const desired = expandContext(context);
  const wildcard = namespace === "*";
  if (!wildcard && context !== "all" && !maySearch(caller, namespace, desired[0]!)) throw denied();
  const length = Buffer.byteLength(text);
  if (length < SEARCH_MIN_TERM_LENGTH) throw invalid(`fuzzy search query must be at least ${SEARCH_MIN_TERM_LENGTH} characters, got ${length}`);
  const lowered = text.toLowerCase();
  const prefixContexts = desired.filter((each) => maySearch(caller, namespace, each));
  const fuzzyContexts = wildcard ? desired : prefixContexts;
  const Matches: Record<string, FuzzyMatch[] | null> = {};
  const Truncations: Record<string, boolean> = {};
  for (const each of prefixContexts) {
    if (each !== "evals" && each !== "deployment") continue;
    const lookup = roundDown(queryPrefix, context);
    if (!uuidPrefixOk(lookup)) continue;
    const { matches, truncated } = prefixMatches(state, caller, namespace, each, lookup, text);
    Matches[each] = (matches ?? []).map((id) => fuzzyMatchOf(id, null));
    Truncations[each] = truncated;
  }
  for (const each of fuzzyContexts) {
    if (!FUZZY_CONTEXTS.has(each)) continue;
    Truncations[each] = false;
    // The first rows of the context the caller may read (`limit_query`), and whether there are more.
    const { rows } = contextRows(state, caller, namespace, each, () => true, SEARCH_LIMIT_QUERY + 1);
    const limited = rows.length > SEARCH_LIMIT_QUERY;
    const found = new Map<string, Scored[]>();
    const accumulate = (target: string, match: Scored, last: boolean): boolean => {
      const list = found.get(target) ?? [];
      found.set(target, list);
      if (list.length >= SEARCH_LIMIT_RESULTS) {
        Truncations[target] = true;
        return false;
      }
      list.push(match);
      if (last) {
        Truncations[target] = true;
        return false;
      }
      return true;
    };
    rows.slice(0, SEARCH_LIMIT_QUERY).forEach((row, position) => {
      const last = limited && position === SEARCH_LIMIT_QUERY - 1;
      if (each === "jobs") {
        for (const [target, matches] of jobMatches(row as Job, lowered)) {
          for (const match of matches) if (!accumulate(target, match, last)) break;
        }
        return;
      }
      const match = singleMatch(each, row, lowered);
      if (match !== undefined) accumulate(each, match, last);
    });
    for (const [target, matches] of found) if (matches.length > 0) Matches[target] = matches.sort(byScore).map((match) => fuzzyMatchOf(match.id, match.scope));
  }
  return { Matches: sortedKeys(Matches), Truncations: sortedKeys(Truncations), index: indexOf(state, fuzzyContexts) };
}

/** A map as Go writes it: its keys sorted. */
function sortedKeys<Value>(map: Record<string, Value>): Record<string, Value> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => compareStrings(a, b)));
}
