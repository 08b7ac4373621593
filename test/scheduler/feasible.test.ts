/**
 * The feasibility checks and the stack, as pure functions, with the tables of the reference's own
 * tests (`scheduler/feasible/feasible_test.go`: `TestResolveConstraintTarget`, `TestCheckConstraint`,
 * `TestCheckOrder`, `TestCheckVersionConstraint`, `TestCheckSemverConstraint`,
 * `TestCheckRegexpConstraint`, `TestSetContainsAny`, `TestConstraintChecker`,
 * `TestDriverChecker_Compatibility`, the distinct-hosts and distinct-property iterators), and the
 * stack's choice and metrics on a few nodes.
 */
import { describe, expect, it } from "vitest";
import { checkConstraint, checkOrder, checkVersionMatch, ConstraintCache, constraintsOf, distinctHosts, hasDrivers, meetsConstraint, PropertySet, resolveTarget, type ConstraintValue } from "../../src/server/scheduler/feasible.js";
import { fingerprint } from "../../src/server/scheduler/fingerprint.js";
import { NodeUsageIndex } from "../../src/server/scheduler/resources.js";
import { nodesFor } from "../../src/server/scheduler/placement.js";
import { feasibleOn, Stack } from "../../src/server/scheduler/stack.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import type { Allocation, Job, Node, TaskGroup } from "../../src/server/state/model.js";

/** `mock.Node()`: what the reference's tests check against. */
function mockNode(fields: Partial<Node> = {}): Node {
  return {
    ID: "00000000-0000-0000-0000-000000000001",
    Name: "foobar",
    Datacenter: "dc1",
    NodePool: "default",
    NodeClass: "linux-medium-pci",
    Address: "192.168.0.100",
    Status: "ready",
    StatusDescription: "",
    SchedulingEligibility: "eligible",
    Drain: false,
    Version: "1.9.4",
    Attributes: { "kernel.name": "linux", arch: "x86", "nomad.version": "0.5.0", "driver.exec": "1", "driver.mock_driver": "1" },
    Meta: { "pci-dss": "true", database: "mysql", version: "5.6" },
    ...fingerprint({ Address: "192.168.0.100" }),
    CreateIndex: 1,
    ModifyIndex: 1,
    ...fields,
  };
}

describe("resolveTarget (TestResolveConstraintTarget)", () => {
  const node = mockNode();
  it.each([
    ["${node.unique.id}", node.ID, true],
    ["${node.datacenter}", node.Datacenter, true],
    ["${node.unique.name}", node.Name, true],
    ["${node.class}", node.NodeClass, true],
    ["${node.pool}", node.NodePool, true],
    ["${node.foo}", "", false],
    ["${attr.kernel.name}", "linux", true],
    ["${attr.rand}", "", false],
    ["${meta.pci-dss}", "true", true],
    ["${meta.rand}", "", false],
    ["literal", "literal", true],
  ])("resolves %s to %j (found: %s)", (target, value, found) => {
    expect(resolveTarget(target, node)).toEqual({ value, found });
  });
});

describe("checkConstraint (TestCheckConstraint)", () => {
  it.each<[string, ConstraintValue, ConstraintValue, boolean]>([
    ["=", "foo", "foo", true],
    ["is", "foo", "foo", true],
    ["==", "foo", "foo", true],
    ["==", "foo", null, false],
    ["==", null, "foo", false],
    ["==", null, null, false],
    ["!=", "foo", "foo", false],
    ["!=", "foo", "bar", true],
    ["!=", null, "foo", true],
    ["!=", "foo", null, true],
    ["!=", null, null, false],
    ["not", "foo", "bar", true],
    ["version", "1.2.3", "~> 1.0", true],
    ["version", null, "~> 1.0", false],
    ["regexp", "foobarbaz", "[\\w]+", true],
    ["regexp", null, "[\\w]+", false],
    ["<", "foo", "bar", false],
    ["<", null, "bar", false],
    ["set_contains", "foo,bar,baz", "foo,  bar  ", true],
    ["set_contains", "foo,bar,baz", "foo,bam", false],
    ["set_contains_all", "foo,bar,baz", "foo,bar", true],
    ["set_contains_any", "foo,bar,baz", "bam,baz", true],
    ["set_contains_any", "foo,bar,baz", "bam", false],
    ["is_set", "foo", null, true],
    ["is_set", null, null, false],
    ["is_not_set", null, null, true],
    ["is_not_set", "foo", null, false],
    ["distinct_hosts", null, null, true],
    ["distinct_property", null, null, true],
    ["no_such_operand", "foo", "foo", false],
  ])("%s with %j and %j holds: %s", (operand, left, right, result) => {
    expect(checkConstraint(operand, left, right, left !== null, right !== null)).toBe(result);
  });
});

describe("checkOrder (TestCheckOrder)", () => {
  it.each<["<" | "<=" | ">" | ">=", string, string, boolean]>([
    ["<", "bar", "foo", true],
    ["<=", "foo", "foo", true],
    [">", "bar", "foo", false],
    [">=", "bar", "bar", true],
    [">", "1", "foo", false],
    ["<", "10", "1", false],
    ["<", "1", "10", true],
    ["<", "10.5", "1.5", false],
    ["<", "1.5", "10.5", true],
  ])("%s %s %s: %s", (operand, left, right, result) => {
    expect(checkOrder(operand, left, right)).toBe(result);
  });
});

describe("version constraints (TestCheckVersionConstraint)", () => {
  it.each<[ConstraintValue, string, boolean]>([
    ["1.2.3", "~> 1.0", true],
    ["1.2.3", ">= 1.0, < 1.4", true],
    ["2.0.1", "~> 1.0", false],
    ["1.4", ">= 1.0, < 1.4", false],
    [1, "~> 1.0", true],
    // Prereleases are never > final releases.
    ["1.3.0-beta1", ">= 0.6.1", false],
    // Prerelease X.Y.Z must match.
    ["1.7.0-alpha1", ">= 1.6.0-beta1", false],
    // Meta is ignored.
    ["1.3.0-beta1+ent", "= 1.3.0-beta1", true],
    // A malformed constraint is unmet.
    ["1.2.3", ">= banana", false],
    ["banana", ">= 1.0", false],
  ])("%j against %s: %s", (left, right, result) => {
    expect(checkVersionMatch("version", left, right)).toBe(result);
  });
});

describe("semver constraints (TestCheckSemverConstraint)", () => {
  it.each<[string, ConstraintValue, string, boolean]>([
    ["pessimistic operator always fails 1", "1.2.3", "~> 1.0", false],
    ["1.2.3 does satisfy >= 1.0, < 1.4", "1.2.3", ">= 1.0, < 1.4", true],
    ["pessimistic operator always fails 2", "2.0.1", "~> 1.0", false],
    ["1.4 does not satisfy >= 1.0, < 1.4", "1.4", ">= 1.0, < 1.4", false],
    ["pessimistic operator always fails 3", 1, "~> 1.0", false],
    ["prereleases are handled according to semver 1", "1.3.0-beta1", ">= 0.6.1", true],
    ["prereleases are handled according to semver 2", "1.7.0-alpha1", ">= 1.6.0-beta1", true],
    ["prereleases of same version handled according to semver", "1.7.0-beta", ">= 1.7.0", false],
    ["prereleases constraints allow GA version according to semver", "1.7.0", ">= 1.7.0-dev", true],
    ["prereleases constraints allow beta according to semver", "1.7.0-beta.1", ">= 1.7.0-a", true],
    ["prereleases constraints allow RC version according to semver", "1.7.0-rc.1", ">= 1.7.0-dev", true],
    ["meta is ignored according to semver", "1.3.0-beta1+ent", "= 1.3.0-beta1", true],
  ])("%s", (_name, left, right, result) => {
    expect(checkVersionMatch("semver", left, right)).toBe(result);
  });
});

describe("regexp constraints (TestCheckRegexpConstraint)", () => {
  it.each<[ConstraintValue, string, boolean]>([
    ["foobar", "bar", true],
    ["foobar", "^foo", true],
    ["foobar", "^bar", false],
    ["zipzap", "foo", false],
    [1, "foo", false],
    // A pattern that does not compile is unmet, as Go's regexp.Compile error is.
    ["foobar", "(", false],
  ])("%j matches %s: %s", (left, right, result) => {
    expect(checkConstraint("regexp", left, right, true, true, new ConstraintCache())).toBe(result);
  });
});

describe("set_contains_any (TestSetContainsAny)", () => {
  it.each([
    ["a", "a", true],
    ["a,b", "a", true],
    ["  a,b  ", "a ", true],
    ["b", "a", false],
  ])("%j contains any of %j: %s", (left, right, result) => {
    expect(checkConstraint("set_contains_any", left, right, true, true)).toBe(result);
  });
});

describe("a node's constraints (TestConstraintChecker)", () => {
  const constraints = constraintsOf([
    { Operand: "=", LTarget: "${node.datacenter}", RTarget: "dc1" },
    { Operand: "is", LTarget: "${attr.kernel.name}", RTarget: "linux" },
    { Operand: "!=", LTarget: "${node.class}", RTarget: "linux-medium-pci" },
    { Operand: "!=", LTarget: "${node.pool}", RTarget: "prod" },
    { Operand: "is_set", LTarget: "${attr.foo}" },
  ]);
  const base = mockNode();
  it.each<[string, Node, boolean]>([
    ["kernel freebsd", mockNode({ Attributes: { ...base.Attributes, "kernel.name": "freebsd" } }), false],
    ["datacenter dc2", mockNode({ Datacenter: "dc2" }), false],
    ["class large with attr.foo", mockNode({ NodeClass: "large", Attributes: { ...base.Attributes, foo: "bar" } }), true],
    ["pool prod", mockNode({ NodePool: "prod" }), false],
  ])("a node with %s meets them: %s", (_name, node, result) => {
    const cache = new ConstraintCache();
    expect(constraints.every((constraint) => meetsConstraint(constraint, node, cache))).toBe(result);
  });
});

describe("drivers (TestDriverChecker_Compatibility)", () => {
  it.each([
    ["1", true],
    ["0", false],
    ["true", true],
    ["False", false],
    ["yes", false],
  ])("driver.foo = %j gives the exec and foo drivers: %s", (value, result) => {
    const node = mockNode({ Attributes: { ...mockNode().Attributes, "driver.foo": value } });
    expect(hasDrivers(node, ["exec", "foo"])).toBe(result);
  });
});

/** An allocation of a job's group on a node, as the distinct checks read it. */
function alloc(fields: Partial<Allocation>): Allocation {
  return { ID: "a", Namespace: "default", JobID: "foo", TaskGroup: "g", NodeID: "n1", DesiredStatus: "run", ClientStatus: "running", ...fields } as Allocation;
}

describe("distinct_hosts (TestDistinctHostsIterator_JobDistinctHosts)", () => {
  const job = { ID: "foo", Namespace: "default" };
  it.each<[string, Allocation[], { job: boolean; group: boolean }, boolean]>([
    ["no constraint, the job there", [alloc({})], { job: false, group: false }, true],
    ["job level, the job there (another group)", [alloc({ TaskGroup: "other" })], { job: true, group: false }, false],
    ["group level, another group of the job there", [alloc({ TaskGroup: "other" })], { job: false, group: true }, true],
    ["group level, the group there", [alloc({})], { job: false, group: true }, false],
    ["job level, another job there", [alloc({ JobID: "bar" })], { job: true, group: false }, true],
    ["job level, the same job ID in another namespace", [alloc({ Namespace: "other" })], { job: true, group: false }, true],
  ])("%s: feasible %s", (_name, proposed, level, result) => {
    expect(distinctHosts(proposed, job, "g", level)).toBe(result);
  });
});

describe("distinct_property (TestDistinctPropertyIterator_JobDistinctProperty)", () => {
  const nodes = [mockNode({ ID: "n1", Meta: { rack: "1" } }), mockNode({ ID: "n2", Meta: { rack: "1" } }), mockNode({ ID: "n3", Meta: { rack: "2" } }), mockNode({ ID: "n4", Meta: {} })];
  const nodeOf = (id: string) => nodes.find((node) => node.ID === id);
  it.each<[string, string, Allocation[], string, string | undefined]>([
    ["a free rack", "", [alloc({ NodeID: "n1" })], "n3", undefined],
    ["a rack used once, one allowed", "", [alloc({ NodeID: "n1" })], "n2", "distinct_property: ${meta.rack}=1 used by 1 allocs"],
    ["a rack used once, two allowed", "2", [alloc({ NodeID: "n1" })], "n2", undefined],
    ["a node without the property", "", [], "n4", 'missing property "${meta.rack}"'],
    ["an allowed count that is not a number", "two", [], "n3", 'failed to convert RTarget "two" to uint64: strconv.ParseUint: parsing "two": invalid syntax'],
  ])("%s", (_name, allowed, allocs, nodeId, reason) => {
    const set = new PropertySet("${meta.rack}", undefined, allowed);
    expect(set.satisfies(nodeOf(nodeId)!, set.used(allocs, nodeOf))).toBe(reason);
  });
});

/** What an allocation of one main task `t` was given. */
function given(cpu: number, memory: number): Allocation["AllocatedResources"] {
  return { Tasks: { t: { Cpu: { CpuShares: cpu, ReservedCores: null }, Memory: { MemoryMB: memory, MemoryMaxMB: 0 }, Networks: null, Devices: null } }, TaskLifecycles: {}, Shared: { DiskMB: 300, Networks: null, Ports: null } };
}

describe("the stack", () => {
  const job = (fields: Partial<Job> = {}) => ({ ID: "web", Namespace: "default", NodePool: "default", Constraints: null, Affinities: null, Spreads: null, ...fields }) as Job;
  const group = (fields: Record<string, unknown> = {}): TaskGroup => ({ Name: "g", Count: 3, Tasks: [{ Name: "t", Driver: "exec", Resources: { CPU: 100, MemoryMB: 256 } }], EphemeralDisk: { SizeMB: 300 }, ...fields });
  const nodes = [1, 2, 3].map((i) => mockNode({ ID: `n${i}`, Name: `client-${i}`, NodeClass: "" }));

  it("places a group where its constraint holds, and fills the metrics of a group that fits nowhere", () => {
    const usage = new NodeUsageIndex(() => []);
    const stack = new Stack({ job: job({ Constraints: [{ LTarget: "${node.unique.name}", RTarget: "client-2", Operand: "=" }] }), nodes, usage });
    const chosen = stack.select(group());
    expect(chosen.ok && chosen.node.Name).toBe("client-2");
    const big = new Stack({ job: job(), nodes, usage }).select(group({ Tasks: [{ Name: "t", Driver: "exec", Resources: { CPU: 100, MemoryMB: 20_000 } }] }));
    expect(big.ok).toBe(false);
    if (big.ok) return;
    big.metric.exhaustResources(group({ Tasks: [{ Name: "t", Resources: { CPU: 100, MemoryMB: 20_000 } }] }));
    expect(big.metric.toJSON()).toMatchObject({ NodesEvaluated: 3, NodesFiltered: 0, NodesInPool: 3, NodesAvailable: { dc1: 3 }, NodesExhausted: 3, DimensionExhausted: { memory: 3 }, ResourcesExhausted: { t: { CPU: 0, MemoryMB: 20_000 } } });
  });

  it("judges nodes of one computed class once, unless the constraint reads something unique", () => {
    const usage = new NodeUsageIndex(() => []);
    const windows = new Stack({ job: job({ Constraints: [{ LTarget: "${attr.kernel.name}", RTarget: "windows", Operand: "=" }] }), nodes, usage }).select(group());
    expect(!windows.ok && windows.metric.toJSON()).toMatchObject({ NodesFiltered: 3, ConstraintFiltered: { "${attr.kernel.name} = windows": 1, "computed class ineligible": 2 } });
    const named = new Stack({ job: job({ Constraints: [{ LTarget: "${node.unique.name}", RTarget: "client-9", Operand: "=" }] }), nodes, usage }).select(group());
    expect(!named.ok && named.metric.toJSON()).toMatchObject({ NodesFiltered: 3, ConstraintFiltered: { "${node.unique.name} = client-9": 3 } });
  });

  it("spreads a group over the nodes (job anti-affinity), and packs another job beside it (bin packing)", () => {
    const usage = new NodeUsageIndex(() => []);
    const stack = new Stack({ job: job(), nodes, usage });
    const chosen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const selection = stack.select(group());
      if (!selection.ok) throw new Error("not placed");
      chosen.push(selection.node.ID);
      usage.record(alloc({ ID: `web-${i}`, JobID: "web", NodeID: selection.node.ID, AllocatedResources: given(100, 256) }));
    }
    expect(chosen).toEqual(["n1", "n2", "n3"]);
    usage.record(alloc({ ID: "big", JobID: "other", NodeID: "n2", AllocatedResources: given(4000, 8000) }));
    const packed = new Stack({ job: job({ ID: "api" }), nodes, usage }).select(group());
    expect(packed.ok && packed.node.ID).toBe("n2");
  });

  it.each([
    ["binpack", "n2"],
    ["spread", "n1"],
  ] as const)("with the %s algorithm, puts another job's allocation on %s (ScoreFitBinPack, ScoreFitSpread)", (algorithm, expected) => {
    const usage = new NodeUsageIndex(() => []);
    // n2 is half full; n1 (and n3) empty: bin packing prefers the fuller node, spreading the emptier.
    usage.record(alloc({ ID: "big", JobID: "other", NodeID: "n2", AllocatedResources: given(2000, 4000) }));
    const chosen = new Stack({ job: job({ ID: "api" }), nodes, usage, algorithm }).select(group());
    expect(chosen.ok && chosen.node.ID).toBe(expected);
  });

  it("ranks nodes by affinity", () => {
    const usage = new NodeUsageIndex(() => []);
    const stack = new Stack({ job: job({ Affinities: [{ LTarget: "${node.unique.name}", RTarget: "client-3", Operand: "=", Weight: 50 }] }), nodes, usage });
    const chosen = stack.select(group());
    expect(chosen.ok && chosen.node.ID).toBe("n3");
  });

  it.each<[string, Record<string, unknown>, boolean, Record<string, unknown>]>([
    ["a node it fits", {}, true, {}],
    ["a node it does not fit", { Tasks: [{ Name: "t", Driver: "exec", Resources: { CPU: 100, MemoryMB: 20_000 } }] }, false, { NodesEvaluated: 1, NodesInPool: 3, NodesExhausted: 1, DimensionExhausted: { memory: 1 } }],
    ["a node without its driver", { Tasks: [{ Name: "t", Driver: "podman" }] }, false, { NodesEvaluated: 1, NodesFiltered: 1, ConstraintFiltered: { "missing drivers": 1 } }],
  ])("tells a system scheduler whether %s can take a group (feasibleOn)", (_name, fields, ok, metric) => {
    const selection = feasibleOn(nodes[1]!, job({ Type: "system" }), group(fields), new NodeUsageIndex(() => []), nodes);
    expect(selection.ok).toBe(ok);
    if (selection.ok) expect(selection.node.ID).toBe("n2");
    else expect(selection.metric.toJSON()).toMatchObject(metric);
  });

  it("spreads a group evenly over a property's values", () => {
    const racks = [mockNode({ ID: "n1", NodeClass: "", Meta: { rack: "r1" } }), mockNode({ ID: "n2", NodeClass: "", Meta: { rack: "r1" } }), mockNode({ ID: "n3", NodeClass: "", Meta: { rack: "r2" } })];
    const usage = new NodeUsageIndex(() => []);
    const stack = new Stack({ job: job(), nodes: racks, usage });
    const chosen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const selection = stack.select(group({ Count: 2, Spreads: [{ Attribute: "${meta.rack}", Weight: 50 }] }));
      if (!selection.ok) throw new Error("not placed");
      chosen.push(selection.node.ID);
      usage.record(alloc({ ID: `web-${i}`, JobID: "web", NodeID: selection.node.ID, AllocatedResources: given(100, 256) }));
    }
    // The second goes to the rack not used yet, though the other node of the first rack is as empty.
    expect(chosen).toEqual(["n1", "n3"]);
  });
});

describe("the nodes a job can take (readyNodesInDCsAndPool)", () => {
  it.each<[string, Partial<Node>, Partial<Job>, boolean]>([
    ["a ready, eligible node of its datacenter and pool", {}, {}, true],
    ["a node down", { Status: "down" }, {}, false],
    ["an ineligible node", { SchedulingEligibility: "ineligible" }, {}, false],
    ["a draining node", { Drain: true }, {}, false],
    ["a node of another datacenter", { Datacenter: "dc2" }, {}, false],
    ["a node of a datacenter the job's glob matches", { Datacenter: "eu-1" }, { Datacenters: ["eu-*"] }, true],
    ["a node of another pool", { NodePool: "gpu" }, {}, false],
    ["a node of the job's pool", { NodePool: "gpu" }, { NodePool: "gpu" }, true],
    ["a node of any pool, for the pool all", { NodePool: "gpu" }, { NodePool: "all" }, true],
  ])("%s: %s", async (_name, node, job, taken) => {
    const store = new MemoryStore();
    await store.seed(["nodes"], (state) => state.nodes.put(mockNode(node)));
    const spec = { ID: "web", Namespace: "default", Datacenters: ["dc1"], NodePool: "default", ...job } as Job;
    expect(nodesFor(store.tables, spec).length === 1).toBe(taken);
  });
});
