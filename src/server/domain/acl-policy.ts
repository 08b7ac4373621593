/**
 * ACL policy rules, in the reference's HCL syntax or its JSON form:
 *
 * ```hcl
 * namespace "prod" { policy = "read" }
 * namespace "dev-*" { capabilities = ["submit-job", "list-jobs"] }
 * node { policy = "read" }
 * ```
 *
 * HCL is read by `@cdktf/hcl2json` (HashiCorp's HCL parser, compiled to WebAssembly); the
 * checks, the expansion of `policy` into capabilities and the error texts are the reference's.
 *
 * @module
 */
import { parseHclText } from "./hcl.js";
import type { NamespaceRule, NodePoolRule, ParsedPolicy, VariablePathRule } from "../state/model.js";

/** The capabilities of a namespace `policy` value, as the reference expands them. */
export const NAMESPACE_POLICY_CAPABILITIES: Readonly<Record<string, readonly string[]>> = (() => {
  const read = ["list-jobs", "parse-job", "read-job", "csi-list-volume", "csi-read-volume", "read-job-scaling", "list-scaling-policies", "read-scaling-policy", "host-volume-read"];
  const write = [
    ...read,
    "scale-job",
    "submit-job",
    "dispatch-job",
    "read-logs",
    "read-fs",
    "alloc-exec",
    "alloc-lifecycle",
    "csi-mount-volume",
    "csi-write-volume",
    "submit-recommendation",
    "host-volume-create",
  ];
  const scale = ["list-scaling-policies", "read-scaling-policy", "read-job-scaling", "scale-job", "read-job", "submit-recommendation"];
  return { deny: ["deny"], read, write, scale };
})();

const NAMESPACE_CAPABILITIES = new Set([
  "deny",
  "parse-job",
  "list-jobs",
  "read-job",
  "submit-job",
  "register-job",
  "revert-job",
  "deregister-job",
  "purge-job",
  "evaluate-job",
  "plan-job",
  "stable-job",
  "set-alloc-health-deployment",
  "dispatch-job",
  "force-periodic-job",
  "delete-service-registration",
  "read-logs",
  "read-fs",
  "alloc-exec",
  "alloc-node-exec",
  "alloc-lifecycle",
  "csi-write-volume",
  "csi-mount-volume",
  "csi-list-volume",
  "csi-read-volume",
  "csi-register-plugin",
  "list-scaling-policies",
  "read-scaling-policy",
  "read-job-scaling",
  "scale-job",
  "submit-recommendation",
  "sentinel-override",
  "host-volume-read",
  "host-volume-write",
  "host-volume-register",
  "host-volume-create",
  "host-volume-delete",
]);

/** Capabilities that imply others. */
const IMPLIED: Readonly<Record<string, readonly string[]>> = {
  "host-volume-write": ["host-volume-register", "host-volume-create", "host-volume-delete", "host-volume-read"],
  "host-volume-register": ["host-volume-create", "host-volume-read"],
  "host-volume-create": ["host-volume-read"],
};

/** The capabilities of a `variables` path rule (`acl.isPathCapabilityValid`). */
export const VARIABLE_CAPABILITIES: ReadonlySet<string> = new Set(["list", "read", "write", "destroy", "deny"]);

const POLICY_VALUES = new Set(["deny", "read", "write", "scale"]);
const NAMESPACE_NAME = /^[a-zA-Z0-9-*]{1,128}$/;
/** `validNodePool` of the reference's policies: a pool name or a glob of them. */
const NODE_POOL_GLOB = /^[a-zA-Z0-9-_*]{1,128}$/;
/** The node pool capabilities (`NodePoolCapability*`). */
const NODE_POOL_CAPABILITIES = new Set(["delete", "read", "write", "deny"]);
/** What a node pool block's `policy` grants (`expandNodePoolPolicy`; `scale` grants nothing there). */
const NODE_POOL_POLICY_CAPABILITIES: Readonly<Record<string, readonly string[]>> = { deny: ["deny"], read: ["read"], write: ["delete", "read", "write"] };
const COARSE_BLOCKS = ["agent", "node", "operator", "quota", "plugin"] as const;
const KNOWN_BLOCKS = new Set(["namespace", "node_pool", "host_volume", ...COARSE_BLOCKS]);

/**
 * The longest policy rules accepted, in bytes. The HCL parser (WebAssembly) takes about 1 ms per
 * KiB and holds the event loop meanwhile: 2.6 MB of rules stopped every other request for 10 s.
 * Real policies are a few hundred bytes.
 */
export const MAX_POLICY_RULES_BYTES = 16 * 1024;

/** Rules that do not parse or validate; the message is the reference's. */
export class PolicyError extends Error {
  override readonly name = "PolicyError";
}

/** Go's `%#v` of a namespace block, which the reference puts in its messages. */
function describeNamespace(name: string, policy: string, capabilities: readonly string[] | undefined): string {
  const list = capabilities === undefined ? "[]string(nil)" : `[]string{${capabilities.map((c) => JSON.stringify(c)).join(", ")}}`;
  return `&acl.NamespacePolicy{Name:${JSON.stringify(name)}, Policy:${JSON.stringify(policy)}, Capabilities:${list}, Variables:(*acl.VariablesPolicy)(nil)}`;
}

/** Blocks may come as one object or as a list of them (HCL gives lists). */
function blocks(value: unknown): Record<string, unknown>[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((entry): entry is Record<string, unknown> => typeof entry === "object" && entry !== null && !Array.isArray(entry));
}

async function decode(rules: string): Promise<Record<string, unknown>> {
  const trimmed = rules.trim();
  try {
    if (trimmed.startsWith("{")) return JSON.parse(trimmed) as Record<string, unknown>;
    // Loaded with the first HCL text (an agent without ACLs or with JSON policies never needs it);
    // text nested too deep is refused before the parser sees it.
    return (await parseHclText("policy.hcl", rules)) as Record<string, unknown>;
  } catch (error) {
    throw new PolicyError(`Failed to parse ACL Policy: ${(error as Error).message}`);
  }
}

/**
 * The `path` rules of a namespace's `variables` block, checked and expanded as the reference's
 * `Parse` does: at least one path, each named, none starting with `/`, each capability known;
 * `deny` alone replaces the others, and `read` brings `list`.
 */
function variablePaths(namespace: string, value: unknown): VariablePathRule[] {
  const paths: VariablePathRule[] = [];
  for (const variables of blocks(value)) {
    for (const byPath of blocks(variables.path)) {
      // A `path` block without its label: HCL gives its body in place of the labelled bodies.
      const labelled: [string, unknown][] = Array.isArray(byPath.capabilities) ? [["", byPath]] : Object.entries(byPath);
      for (const [spec, rules] of labelled) {
        for (const rule of blocks(rules)) {
          if (spec === "") throw new PolicyError(`Invalid missing variable path in namespace ${namespace}`);
          if (spec.startsWith("/")) throw new PolicyError(`Invalid variable path ${JSON.stringify(spec)} in namespace ${namespace}: cannot start with a leading '/'\``);
          const capabilities = Array.isArray(rule.capabilities) ? rule.capabilities.map(String) : [];
          for (const capability of capabilities) {
            if (!VARIABLE_CAPABILITIES.has(capability)) throw new PolicyError(`Invalid variable capability '${capability}' in namespace ${namespace}`);
          }
          paths.push({ PathSpec: spec, Capabilities: expandVariableCapabilities(capabilities) });
        }
      }
    }
  }
  if (paths.length === 0) throw new PolicyError(`Invalid variable policy: no variable paths in namespace ${namespace}`);
  return paths;
}

/** `deny` alone when listed; `read` brings `list` (`acl.expandVariablesCapabilities`). */
function expandVariableCapabilities(capabilities: readonly string[]): string[] {
  if (capabilities.includes("deny")) return ["deny"];
  return capabilities.includes("read") && !capabilities.includes("list") ? [...capabilities, "list"] : [...capabilities];
}

/**
 * Parses and validates policy rules.
 *
 * @throws PolicyError with the reference's text (`Failed to parse ACL Policy: …`,
 * `Invalid namespace policy: …`, `Invalid node policy: …`).
 */
export async function parsePolicy(rules: string): Promise<ParsedPolicy> {
  if (rules.trim() === "") return { Namespaces: null, NodePools: null, Agent: null, Node: null, Operator: null, Quota: null, Plugin: null, Raw: rules };
  const bytes = Buffer.byteLength(rules);
  if (bytes > MAX_POLICY_RULES_BYTES) throw new PolicyError(`the rules are ${bytes} bytes long; the limit is ${MAX_POLICY_RULES_BYTES}`);
  const document = await decode(rules);
  if (typeof document !== "object" || document === null || Array.isArray(document) || !Object.keys(document).some((key) => KNOWN_BLOCKS.has(key))) {
    throw new PolicyError(`Invalid policy: ${JSON.stringify(rules)}`);
  }

  const namespaces: NamespaceRule[] = [];
  const byName = document.namespace;
  const labelled: [string, unknown][] = typeof byName === "object" && byName !== null && !Array.isArray(byName) ? Object.entries(byName) : [];
  for (const [name, value] of labelled) {
    for (const block of blocks(value)) {
      const policy = typeof block.policy === "string" ? block.policy : "";
      const listed = Array.isArray(block.capabilities) ? block.capabilities.map(String) : undefined;
      if (!NAMESPACE_NAME.test(name)) throw new PolicyError(`Invalid namespace name: ${describeNamespace(name, policy, listed)}`);
      if (policy !== "" && !POLICY_VALUES.has(policy)) throw new PolicyError(`Invalid namespace policy: ${describeNamespace(name, policy, listed)}`);
      for (const capability of listed ?? []) {
        if (!NAMESPACE_CAPABILITIES.has(capability)) {
          throw new PolicyError(`Invalid namespace capability '${capability}': ${describeNamespace(name, policy, listed)}`);
        }
      }
      const expanded = new Set([...(NAMESPACE_POLICY_CAPABILITIES[policy] ?? []), ...(listed ?? [])]);
      for (const capability of [...expanded]) for (const implied of IMPLIED[capability] ?? []) expanded.add(implied);
      const variables = block.variables === undefined ? null : { Paths: variablePaths(name, block.variables) };
      namespaces.push({ Name: name, Policy: policy, Capabilities: [...expanded], Variables: variables });
    }
  }

  const nodePools: NodePoolRule[] = [];
  const byPool = document.node_pool;
  const pools: [string, unknown][] = typeof byPool === "object" && byPool !== null && !Array.isArray(byPool) ? Object.entries(byPool) : [];
  for (const [name, value] of pools) {
    for (const block of blocks(value)) {
      const policy = typeof block.policy === "string" ? block.policy : "";
      const listed = Array.isArray(block.capabilities) ? block.capabilities.map(String) : [];
      if (!NODE_POOL_GLOB.test(name)) throw new PolicyError(`Invalid node pool name '${name}'`);
      if (policy !== "" && !POLICY_VALUES.has(policy)) throw new PolicyError(`Invalid node pool policy '${policy}' for '${name}'`);
      for (const capability of listed) if (!NODE_POOL_CAPABILITIES.has(capability)) throw new PolicyError(`Invalid node pool capability '${capability}' for '${name}'`);
      nodePools.push({ Name: name, Policy: policy, Capabilities: [...listed, ...(NODE_POOL_POLICY_CAPABILITIES[policy] ?? [])] });
    }
  }

  const coarse = (block: (typeof COARSE_BLOCKS)[number], label: string, valid: ReadonlySet<string>) => {
    const [first] = blocks(document[block]);
    if (first === undefined) return null;
    const policy = typeof first.policy === "string" ? first.policy : "";
    if (!valid.has(policy)) throw new PolicyError(`Invalid ${label} policy: &acl.${label[0]!.toUpperCase()}${label.slice(1)}Policy{Policy:${JSON.stringify(policy)}}`);
    return { Policy: policy };
  };
  return {
    Namespaces: namespaces.length === 0 ? null : namespaces,
    NodePools: nodePools.length === 0 ? null : nodePools,
    Agent: coarse("agent", "agent", POLICY_VALUES),
    Node: coarse("node", "node", POLICY_VALUES),
    Operator: coarse("operator", "operator", POLICY_VALUES),
    Quota: coarse("quota", "quota", POLICY_VALUES),
    Plugin: coarse("plugin", "plugin", new Set(["deny", "read", "list", "write"])),
    Raw: rules,
  };
}

/**
 * The glob of a namespace rule matches a name (`*` is any run of characters), as the reference's
 * go-glob does it: the first part must start the name and the last end it, and each part between
 * is found at its leftmost place after the previous one. Taking the leftmost place never loses a
 * match, so this is one pass over the name, whatever the glob: no backtracking.
 */
export function globMatches(glob: string, name: string): boolean {
  const parts = glob.split("*");
  if (parts.length === 1) return glob === name;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const found = name.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * What a set of policies allows: capabilities per namespace (merged, `deny` winning), and the
 * coarse node and agent policies.
 */
export class Permissions {
  readonly #namespaces = new Map<string, Set<string>>();
  /** Variable capabilities by `<namespace>\0<path>`, exact (neither part a glob), and by glob. */
  readonly #variables = new Map<string, Set<string>>();
  readonly #variableGlobs = new Map<string, Set<string>>();
  /** The globs of {@link Permissions.#variableGlobs} in name order (the reference walks its radix tree so). */
  readonly #variableGlobOrder: readonly (readonly [string, ReadonlySet<string>])[];
  readonly #nodePools = new Map<string, Set<string>>();
  readonly #node: string | undefined;
  readonly #agent: string | undefined;
  readonly #operator: string | undefined;
  readonly #plugin: string | undefined;

  constructor(policies: readonly ParsedPolicy[]) {
    let plugin: string | undefined;
    let node: string | undefined;
    let agent: string | undefined;
    let operator: string | undefined;
    for (const policy of policies) {
      for (const rule of policy.Namespaces ?? []) {
        const current = this.#namespaces.get(rule.Name) ?? new Set<string>();
        // A deny is final; a policy that denies replaces whatever was granted.
        if (current.has("deny")) continue;
        if (rule.Capabilities.includes("deny")) this.#namespaces.set(rule.Name, new Set(["deny"]));
        else this.#namespaces.set(rule.Name, new Set([...current, ...rule.Capabilities]));
      }
      for (const rule of policy.Namespaces ?? []) {
        for (const path of rule.Variables?.Paths ?? []) {
          const key = `${rule.Name}\u0000${path.PathSpec}`;
          // The reference merges the capabilities of one key across policies, deny beside the others.
          const table = key.includes("*") ? this.#variableGlobs : this.#variables;
          table.set(key, new Set([...(table.get(key) ?? []), ...path.Capabilities]));
        }
      }
      for (const rule of policy.NodePools ?? []) {
        const current = this.#nodePools.get(rule.Name) ?? new Set<string>();
        if (current.has("deny")) continue;
        this.#nodePools.set(rule.Name, rule.Capabilities.includes("deny") ? new Set(["deny"]) : new Set([...current, ...rule.Capabilities]));
      }
      node = strongestCoarse(node, policy.Node?.Policy);
      agent = strongestCoarse(agent, policy.Agent?.Policy);
      operator = strongestCoarse(operator, policy.Operator?.Policy);
      plugin = strongestCoarse(plugin, policy.Plugin?.Policy);
    }
    this.#node = node;
    this.#agent = agent;
    this.#variableGlobOrder = [...this.#variableGlobs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.#operator = operator;
    this.#plugin = plugin;
  }

  /**
   * The capabilities for a namespace: an exact rule, or else the closest matching glob (the one
   * with the fewest characters left for its `*` to match).
   */
  #capabilities(namespace: string, rules: ReadonlyMap<string, ReadonlySet<string>> = this.#namespaces): ReadonlySet<string> {
    const exact = rules.get(namespace);
    if (exact !== undefined) return exact;
    let best: { difference: number; glob: string } | undefined;
    for (const glob of [...rules.keys()].sort()) {
      if (!glob.includes("*") || !globMatches(glob, namespace)) continue;
      const difference = namespace.length - glob.length + (glob.split("*").length - 1);
      if (best === undefined || difference <= best.difference) best = { difference, glob };
    }
    return best === undefined ? new Set() : rules.get(best.glob)!;
  }

  /** The node pool's rules (exact, else the closest glob) grant `capability` and do not deny (`AllowNodePoolOperation`). */
  allowsNodePool(pool: string, capability: "read" | "write" | "delete"): boolean {
    const granted = this.#capabilities(pool, this.#nodePools);
    return !granted.has("deny") && granted.has(capability);
  }

  /** The node pool's rules grant anything and do not deny (`AllowNodePool`: the pool is listed). */
  seesNodePool(pool: string): boolean {
    const granted = this.#capabilities(pool, this.#nodePools);
    return granted.size > 0 && !granted.has("deny");
  }

  /** Some node pool rule grants anything and does not deny (`AllowNodePoolSearch`). */
  get searchesNodePools(): boolean {
    for (const granted of this.#nodePools.values()) if (!granted.has("deny")) return true;
    return false;
  }

  /**
   * Some variables rule applies to `namespace`, by its name or a glob matching it (`*`: any rule at
   * all); `AllowVariableSearch`, whose lookup of the name as a bare prefix of `<namespace>\0<path>`
   * would let a rule of `ab` count for `a`: here a rule counts for its own namespaces only.
   */
  searchesVariables(namespace: string): boolean {
    for (const key of [...this.#variables.keys(), ...this.#variableGlobs.keys()]) {
      const ruleNamespace = key.slice(0, key.indexOf("\u0000"));
      if (namespace === "*" || ruleNamespace === namespace || (ruleNamespace.includes("*") && globMatches(ruleNamespace, namespace))) return true;
    }
    return false;
  }

  /** The namespace grants one of `capabilities` (and does not deny). */
  allows(namespace: string, ...capabilities: string[]): boolean {
    const granted = this.#capabilities(namespace);
    return !granted.has("deny") && capabilities.some((capability) => granted.has(capability));
  }

  /** Any namespace rule grants one of `capabilities` (`namespace=*`). */
  allowsAnywhere(...capabilities: string[]): boolean {
    for (const granted of this.#namespaces.values()) {
      if (!granted.has("deny") && capabilities.some((capability) => granted.has(capability))) return true;
    }
    return false;
  }

  /**
   * The rules grant `capability` (`list`, `read`, `write`, `destroy`) on the variable at `path` in
   * `namespace`, as the reference's `AllowVariableOperation` finds them: the rule of that exact
   * namespace and path, or else the closest matching glob over `<namespace>\0<path>` (the fewest
   * characters left to its `*`s; the first in name order of equally close ones). A token's
   * workload identity (a task reading `nomad/jobs/<job>`) is not simulated.
   */
  allowsVariable(namespace: string, path: string, capability: string): boolean {
    const name = `${namespace}\u0000${path}`;
    const exact = this.#variables.get(name);
    if (exact !== undefined) return exact.has(capability);
    let best: { difference: number; granted: ReadonlySet<string> } | undefined;
    for (const [glob, granted] of this.#variableGlobOrder) {
      if (!globMatches(glob, name)) continue;
      const difference = name.length - glob.length + (glob.split("*").length - 1);
      if (best === undefined || difference < best.difference) best = { difference, granted };
    }
    return best?.granted.has(capability) ?? false;
  }

  /** The namespace grants anything at all (it is visible). */
  seesNamespace(namespace: string): boolean {
    const granted = this.#capabilities(namespace);
    return granted.size > 0 && !granted.has("deny");
  }

  /** The node policy allows reading (`node:read`). */
  get nodeRead(): boolean {
    return this.#node === "read" || this.#node === "write";
  }

  /** The agent policy allows reading (`agent:read`, the reference's `AllowAgentRead`). */
  get agentRead(): boolean {
    return this.#agent === "read" || this.#agent === "write";
  }

  /** The operator policy allows reading (`operator:read`, the reference's `AllowOperatorRead`: the scheduler configuration). */
  get operatorRead(): boolean {
    return this.#operator === "read" || this.#operator === "write";
  }

  /** The operator policy allows writing (`operator:write`, `AllowOperatorWrite`). */
  get operatorWrite(): boolean {
    return this.#operator === "write";
  }

  /** The plugin policy allows listing (`plugin:list`, or read or write: `AllowPluginList`). */
  get pluginList(): boolean {
    return this.#plugin === "list" || this.#plugin === "read" || this.#plugin === "write";
  }

  /** The plugin policy allows reading (`plugin:read` or write: `AllowPluginRead`). */
  get pluginRead(): boolean {
    return this.#plugin === "read" || this.#plugin === "write";
  }

  /** The node policy allows writing (`node:write`: eligibility, drains, purges). */
  get nodeWrite(): boolean {
    return this.#node === "write";
  }
}

const COARSE_ORDER = ["read", "write"];

/** The stronger of two coarse policies; `deny` wins over everything. */
function strongestCoarse(a: string | undefined, b: string | undefined): string | undefined {
  if (a === "deny" || b === "deny") return "deny";
  if (a === undefined) return b;
  if (b === undefined) return a;
  return COARSE_ORDER.indexOf(a) >= COARSE_ORDER.indexOf(b) ? a : b;
}
