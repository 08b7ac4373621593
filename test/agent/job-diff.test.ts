/**
 * Job version diffs (`diffJobs`) as the reference's `Job.Diff` computes them: which fields and
 * objects show, their types, Old and New texts, order, and the contextual rule.
 */
import { describe, expect, it } from "vitest";
import { diffJobs, MAX_DIFF_DEPTH, type FieldDiff, type JobDiff, type ObjectDiff, type TaskGroupDiff } from "../../src/server/domain/job-diff.js";
import { DEFAULT_UPDATE_STRATEGY, canonicalizeJob } from "../../src/server/scheduler/job-spec.js";
import type { Job, JsonObject } from "../../src/server/state/model.js";

const TASK = { Name: "server", Driver: "docker", Config: { image: "nginx:1.25", ports: ["http"] } };
const GROUP = { Name: "web", Count: 1, Tasks: [TASK] };

/** A job as the agent stores it: `spec` over a one-group service job, defaulted, with the server's fields. */
function job(spec: JsonObject = {}, server: Partial<Job> = {}): Job {
  return {
    ...canonicalizeJob({ ID: "web", TaskGroups: [GROUP], ...spec }, "default", "global"),
    Status: "running",
    StatusDescription: "",
    Stable: false,
    Version: 0,
    SubmitTime: 1_700_000_000_000_000_000n,
    CreateIndex: 10,
    ModifyIndex: 10,
    JobModifyIndex: 10,
    ...server,
  };
}

/** The job with its one group changed by `group` (and its one task by `task`). */
function withGroup(group: JsonObject, task: JsonObject = {}): Job {
  return job({ TaskGroups: [{ ...GROUP, ...group, Tasks: [{ ...TASK, ...task }] }] });
}

function field(type: FieldDiff["Type"], name: string, old: string, next: string): FieldDiff {
  return { Type: type, Name: name, Old: old, New: next, Annotations: null };
}

function group(diff: JobDiff, name = "web"): TaskGroupDiff {
  const found = diff.TaskGroups?.find((candidate) => candidate.Name === name);
  if (found === undefined) throw new Error(`no diff of group ${name}`);
  return found;
}

function objectNamed(objects: readonly ObjectDiff[] | null, name: string): ObjectDiff | undefined {
  return objects?.find((object) => object.Name === name);
}

const UNCHANGED_GROUP: TaskGroupDiff = {
  Type: "None",
  Name: "web",
  Fields: null,
  Objects: null,
  Tasks: [{ Type: "None", Name: "server", Fields: null, Objects: null, Annotations: null }],
  Updates: null,
};

describe("diffJobs: an unchanged job", () => {
  it("is Type None, listing its groups and tasks as None, in the reference's field order", () => {
    const diff = diffJobs(job(), job(), true);
    expect(diff).toEqual({ Type: "None", ID: "web", Fields: null, Objects: null, TaskGroups: [UNCHANGED_GROUP] });
    expect(Object.keys(diff)).toEqual(["Type", "ID", "Fields", "Objects", "TaskGroups"]);
    expect(Object.keys(diff.TaskGroups![0]!)).toEqual(["Type", "Name", "Fields", "Objects", "Tasks", "Updates"]);
    expect(Object.keys(diff.TaskGroups![0]!.Tasks![0]!)).toEqual(["Type", "Name", "Fields", "Objects", "Annotations"]);
  });

  it.each<[string, Partial<Job>]>([
    ["Version", { Version: 4 }],
    ["SubmitTime", { SubmitTime: 1_800_000_000_000_000_000n }],
    ["ModifyIndex", { ModifyIndex: 99 }],
    ["JobModifyIndex", { JobModifyIndex: 99 }],
    ["CreateIndex", { CreateIndex: 99 }],
    ["Stable", { Stable: true }],
    ["Status", { Status: "dead" }],
    ["StatusDescription", { StatusDescription: "stopped by an operator" }],
    ["NomadTokenID", { NomadTokenID: "accessor" }],
    ["VaultToken", { VaultToken: "secret" }],
  ])("ignores a change of %s", (_name, server) => {
    expect(diffJobs(job(), job({}, server), true)).toEqual({ Type: "None", ID: "web", Fields: null, Objects: null, TaskGroups: [UNCHANGED_GROUP] });
  });

  it("ignores the job's Spreads, as the reference's diff has none", () => {
    const spreads = [{ Attribute: "${node.datacenter}", Weight: 50 }];
    expect(diffJobs(job(), job({ Spreads: spreads })).Type).toBe("None");
  });
});

describe("diffJobs: the job's fields", () => {
  it("shows a change of ParentID (from empty: Added), which the server sets (a registration's is dropped)", () => {
    const diff = diffJobs(job(), job({}, { ParentID: "batch-parent" }));
    expect(diff.Type).toBe("Edited");
    expect(diff.Fields).toEqual([field("Added", "ParentID", "", "batch-parent")]);
  });

  it.each<[string, JsonObject, FieldDiff]>([
    ["Priority", { Priority: 70 }, field("Edited", "Priority", "50", "70")],
    ["AllAtOnce", { AllAtOnce: true }, field("Edited", "AllAtOnce", "false", "true")],
    ["Stop", { Stop: true }, field("Edited", "Stop", "false", "true")],
    ["Name", { Name: "frontend" }, field("Edited", "Name", "web", "frontend")],
    ["NodePool", { NodePool: "gpu" }, field("Edited", "NodePool", "default", "gpu")],
    ["a Meta key added", { Meta: { team: "ops" } }, field("Added", "Meta[team]", "", "ops")],
  ])("shows a change of %s as a field with Old and New texts", (_name, spec, expected) => {
    const diff = diffJobs(job(), job(spec));
    expect(diff.Type).toBe("Edited");
    expect(diff.Fields).toEqual([expected]);
    expect(diff.Objects).toBeNull();
    expect(diff.TaskGroups).toEqual([UNCHANGED_GROUP]);
  });

  it.each<[string, JsonObject, JsonObject, FieldDiff[]]>([
    ["removed", { team: "ops", tier: "1" }, { team: "ops" }, [field("Deleted", "Meta[tier]", "1", "")]],
    ["edited", { team: "ops" }, { team: "dev" }, [field("Edited", "Meta[team]", "ops", "dev")]],
    ["all removed", { team: "ops" }, {}, [field("Deleted", "Meta[team]", "ops", "")]],
  ])("shows a Meta key %s", (_name, before, after, expected) => {
    expect(diffJobs(job({ Meta: before }), job({ Meta: after })).Fields).toEqual(expected);
  });

  it("sorts fields by name, in Go's string order", () => {
    const diff = diffJobs(job(), job({ Priority: 70, AllAtOnce: true, NodePool: "gpu", Meta: { b: "2", a: "1", Z: "0" } }));
    expect(diff.Fields!.map((change) => change.Name)).toEqual(["AllAtOnce", "Meta[Z]", "Meta[a]", "Meta[b]", "NodePool", "Priority"]);
  });

  it("shows no unchanged job fields, even when contextual", () => {
    expect(diffJobs(job(), job({ Priority: 70 }), true).Fields).toEqual([field("Edited", "Priority", "50", "70")]);
  });

  it("refuses jobs with different IDs, in the reference's words", () => {
    expect(() => diffJobs(job(), job({ ID: "api" }))).toThrow('can not diff jobs with different IDs: "web" and "api"');
  });
});

describe("diffJobs: Datacenters", () => {
  it.each<[string, string[], string[], boolean, ObjectDiff | undefined]>([
    ["one added", ["dc1"], ["dc1", "dc2"], false, { Type: "Added", Name: "Datacenters", Fields: [field("Added", "Datacenters", "", "dc2")], Objects: null }],
    [
      "one added, contextual",
      ["dc1"],
      ["dc1", "dc2"],
      true,
      { Type: "Added", Name: "Datacenters", Fields: [field("Added", "Datacenters", "", "dc2"), field("None", "Datacenters", "dc1", "dc1")], Objects: null },
    ],
    ["one removed", ["dc1", "dc2"], ["dc2"], false, { Type: "Deleted", Name: "Datacenters", Fields: [field("Deleted", "Datacenters", "dc1", "")], Objects: null }],
    [
      "one replaced",
      ["dc1"],
      ["dc2"],
      false,
      { Type: "Edited", Name: "Datacenters", Fields: [field("Added", "Datacenters", "", "dc2"), field("Deleted", "Datacenters", "dc1", "")], Objects: null },
    ],
    ["reordered (a set)", ["dc1", "dc2"], ["dc2", "dc1"], true, undefined],
  ])("%s", (_name, before, after, contextual, expected) => {
    const diff = diffJobs(job({ Datacenters: before }), job({ Datacenters: after }), contextual);
    expect(diff.Objects === null ? undefined : diff.Objects[0]).toEqual(expected);
    expect(diff.Type).toBe(expected === undefined ? "None" : "Edited");
  });
});

describe("diffJobs: the job's objects", () => {
  const kernel = (name: string) => ({ LTarget: "${attr.kernel.name}", RTarget: name, Operand: "=" });

  it("diffs constraints as a set: a changed one is Added and Deleted, sorted Added first", () => {
    const diff = diffJobs(job({ Constraints: [kernel("linux")] }), job({ Constraints: [kernel("darwin")] }));
    expect(diff.Objects).toEqual([
      { Type: "Added", Name: "Constraint", Fields: [field("Added", "LTarget", "", "${attr.kernel.name}"), field("Added", "Operand", "", "="), field("Added", "RTarget", "", "darwin")], Objects: null },
      { Type: "Deleted", Name: "Constraint", Fields: [field("Deleted", "LTarget", "${attr.kernel.name}", ""), field("Deleted", "Operand", "=", ""), field("Deleted", "RTarget", "linux", "")], Objects: null },
    ]);
  });

  it("matches reordered constraints (and different key orders) by content", () => {
    const [linux, darwin] = [kernel("linux"), kernel("darwin")];
    const reordered = { Operand: "=", RTarget: "darwin", LTarget: "${attr.kernel.name}" };
    expect(diffJobs(job({ Constraints: [linux, darwin] }), job({ Constraints: [reordered, linux] })).Type).toBe("None");
  });

  it("diffs Periodic by its fields, and its Specs as a set", () => {
    const batch = (periodic: JsonObject) => job({ Type: "batch", Periodic: periodic });
    const diff = diffJobs(batch({ Spec: "*/5 * * * *" }), batch({ Spec: "*/10 * * * *" }), true);
    expect(diff.Objects).toEqual([
      {
        Type: "Edited",
        Name: "Periodic",
        Fields: [
          field("None", "Enabled", "true", "true"),
          field("None", "ProhibitOverlap", "false", "false"),
          field("Edited", "Spec", "*/5 * * * *", "*/10 * * * *"),
          field("None", "SpecType", "cron", "cron"),
          field("None", "TimeZone", "UTC", "UTC"),
        ],
        Objects: null,
      },
    ]);
  });

  it("diffs ParameterizedJob with MetaRequired as a set", () => {
    const parameterized = (required: string[]) => job({ Type: "batch", ParameterizedJob: { Payload: "optional", MetaRequired: required } });
    expect(diffJobs(parameterized(["a"]), parameterized(["a", "b"])).Objects).toEqual([
      { Type: "Edited", Name: "ParameterizedJob", Fields: null, Objects: [{ Type: "Added", Name: "MetaRequired", Fields: [field("Added", "MetaRequired", "", "b")], Objects: null }] },
    ]);
  });
});

describe("diffJobs: task groups", () => {
  it("shows an edited Count", () => {
    const diff = diffJobs(job(), withGroup({ Count: 3 }));
    expect(diff.Type).toBe("Edited");
    expect(diff.Fields).toBeNull();
    expect(diff.TaskGroups).toEqual([{ ...UNCHANGED_GROUP, Type: "Edited", Fields: [field("Edited", "Count", "1", "3")] }]);
  });

  it.each<[string, Job, Job, TaskGroupDiff["Type"], FieldDiff]>([
    ["added", job(), job({ TaskGroups: [GROUP, { ...GROUP, Name: "api" }] }), "Added", field("Added", "Count", "", "1")],
    ["deleted", job({ TaskGroups: [GROUP, { ...GROUP, Name: "api" }] }), job(), "Deleted", field("Deleted", "Count", "1", "")],
  ])("shows a group %s with all its fields, objects and tasks", (_name, before, after, type, count) => {
    const diff = diffJobs(before, after);
    expect(diff.Type).toBe("Edited");
    expect(diff.TaskGroups!.map((change) => [change.Name, change.Type])).toEqual([
      ["api", type],
      ["web", "None"],
    ]);
    const api = group(diff, "api");
    expect(api.Fields).toContainEqual(count);
    expect(api.Objects!.map((object) => [object.Name, object.Type])).toEqual([
      ["RestartPolicy", type],
      ["ReschedulePolicy", type],
      ["EphemeralDisk", type],
      ["Update", type],
    ]);
    expect(api.Tasks!.map((task) => [task.Name, task.Type])).toEqual([["server", type]]);
    expect(objectNamed(api.Tasks![0]!.Objects, "Config")!.Fields).toContainEqual(
      type === "Added" ? field("Added", "image", "", "nginx:1.25") : field("Deleted", "image", "nginx:1.25", ""),
    );
  });

  it("sorts groups (and tasks) by name, in Go's string order", () => {
    const names = ["web", "Zeta", "api"];
    const diff = diffJobs(job({ TaskGroups: [GROUP] }), job({ TaskGroups: names.map((name) => ({ ...GROUP, Name: name, Tasks: [TASK, { ...TASK, Name: "b" }, { ...TASK, Name: "A" }] })) }));
    expect(diff.TaskGroups!.map((change) => change.Name)).toEqual(["Zeta", "api", "web"]);
    expect(group(diff).Tasks!.map((task) => [task.Name, task.Type])).toEqual([
      ["A", "Added"],
      ["b", "Added"],
      ["server", "None"],
    ]);
  });

  it("marks a group Edited by a change its diff does not show (Spreads)", () => {
    const diff = diffJobs(job(), withGroup({ Spreads: [{ Attribute: "${node.datacenter}", Weight: 50 }] }));
    expect(diff.Type).toBe("Edited");
    expect(diff.TaskGroups).toEqual([{ ...UNCHANGED_GROUP, Type: "Edited" }]);
  });

  it("adds the group's ShutdownDelay pointer as a field", () => {
    expect(group(diffJobs(withGroup({ ShutdownDelay: 5_000_000_000 }), withGroup({ ShutdownDelay: 10_000_000_000 }))).Fields).toEqual([
      field("Edited", "ShutdownDelay", "5000000000", "10000000000"),
    ]);
  });
});

describe("diffJobs: the update block", () => {
  const update = (changes: JsonObject) => ({ ...DEFAULT_UPDATE_STRATEGY, ...changes });

  it.each<[string, Job, Job]>([
    ["the job's (which each group inherits)", job({ Update: update({}) }), job({ Update: update({ MaxParallel: 2 }) })],
    ["the group's own", withGroup({ Update: update({}) }), withGroup({ Update: update({ MaxParallel: 2 }) })],
  ])("shows a change of %s in the group's Update object, not in the job's fields", (_name, before, after) => {
    const diff = diffJobs(before, after);
    expect(diff.Type).toBe("Edited");
    expect(diff.Fields).toBeNull();
    expect(group(diff).Objects).toEqual([{ Type: "Edited", Name: "Update", Fields: [field("Edited", "MaxParallel", "1", "2")], Objects: null }]);
  });

  it("lists the unchanged fields of a changed Update when contextual, without Stagger", () => {
    const diff = diffJobs(job({ Update: update({}) }), job({ Update: update({ Canary: 1 }) }), true);
    expect(group(diff).Objects).toEqual([
      {
        Type: "Edited",
        Name: "Update",
        Fields: [
          field("None", "AutoPromote", "false", "false"),
          field("None", "AutoRevert", "false", "false"),
          field("Edited", "Canary", "0", "1"),
          field("None", "HealthCheck", "checks", "checks"),
          field("None", "HealthyDeadline", "300000000000", "300000000000"),
          field("None", "MaxParallel", "1", "1"),
          field("None", "MinHealthyTime", "10000000000", "10000000000"),
          field("None", "ProgressDeadline", "600000000000", "600000000000"),
        ],
        Objects: null,
      },
    ]);
  });
});

describe("diffJobs: tasks", () => {
  function taskObjects(before: JsonObject, after: JsonObject, contextual = false): readonly ObjectDiff[] | null {
    const diff = diffJobs(withGroup({}, before), withGroup({}, after), contextual);
    expect(group(diff).Type).toBe("Edited");
    return group(diff).Tasks![0]!.Objects;
  }

  it("shows a changed image in the Config object", () => {
    const diff = diffJobs(job(), withGroup({}, { Config: { image: "nginx:1.27", ports: ["http"] } }));
    expect(diff.TaskGroups).toEqual([
      {
        ...UNCHANGED_GROUP,
        Type: "Edited",
        Tasks: [{ Type: "Edited", Name: "server", Fields: null, Objects: [{ Type: "Edited", Name: "Config", Fields: [field("Edited", "image", "nginx:1.25", "nginx:1.27")], Objects: null }], Annotations: null }],
      },
    ]);
  });

  it("lists the Config's unchanged keys when contextual", () => {
    expect(taskObjects({ Config: { image: "a", ports: ["http"] } }, { Config: { image: "b", ports: ["http"] } }, true)).toEqual([
      { Type: "Edited", Name: "Config", Fields: [field("Edited", "image", "a", "b"), field("None", "ports[0]", "http", "http")], Objects: null },
    ]);
  });

  it.each<[string, unknown, unknown, FieldDiff]>([
    ["an integer as a float64", 8080, 9090, field("Edited", "port", "8080", "9090")],
    ["a large float64 in exponent form", 1_000_000, 2_500_000, field("Edited", "port", "1e+06", "2.5e+06")],
    ["a fraction", 0.5, 0.25, field("Edited", "port", "0.5", "0.25")],
    ["a boolean", true, false, field("Edited", "port", "true", "false")],
    ["null as nil", null, "x", field("Edited", "port", "nil", "x")],
  ])("writes %s in Config as Go's %%v does", (_name, before, after, expected) => {
    expect(taskObjects({ Config: { port: before } }, { Config: { port: after } })![0]!.Fields).toEqual([expected]);
  });

  it("flattens nested Config values with [key] and [index]", () => {
    const objects = taskObjects({ Config: { auth: { username: "a" }, args: ["-v"] } }, { Config: { auth: { username: "b" }, args: ["-v", "-q"] } });
    expect(objects![0]!.Fields).toEqual([field("Added", "args[1]", "", "-q"), field("Edited", "auth[username]", "a", "b")]);
  });

  it("shows the task's primitive fields and Env keys", () => {
    const diff = diffJobs(withGroup({}, { User: "nobody" }), withGroup({}, { User: "root", Env: { PORT: "80" }, Leader: true }));
    expect(group(diff).Tasks![0]!.Fields).toEqual([field("Added", "Env[PORT]", "", "80"), field("Edited", "Leader", "false", "true"), field("Edited", "User", "nobody", "root")]);
  });

  it("matches services by name and diffs their tags as a set", () => {
    const service = (name: string, tags: string[]) => ({ Name: name, PortLabel: "http", Tags: tags });
    const objects = taskObjects({ Services: [service("a", ["x"]), service("b", ["y"])] }, { Services: [service("b", ["y"]), service("a", ["x", "z"])] });
    expect(objects).toEqual([{ Type: "Edited", Name: "Service", Fields: null, Objects: [{ Type: "Added", Name: "Tags", Fields: [field("Added", "Tags", "", "z")], Objects: null }] }]);
  });

  it("lists a changed service's unchanged fields and tags when contextual", () => {
    const service = (port: string) => ({ Name: "web", PortLabel: port, Tags: ["x"] });
    expect(taskObjects({ Services: [service("http")] }, { Services: [service("https")] }, true)).toEqual([
      {
        Type: "Edited",
        Name: "Service",
        Fields: [field("None", "Name", "web", "web"), field("Edited", "PortLabel", "http", "https")],
        Objects: [{ Type: "None", Name: "Tags", Fields: [field("None", "Tags", "x", "x")], Objects: null }],
      },
    ]);
  });

  it(`compares a value nested deeper than ${MAX_DIFF_DEPTH} levels whole, as JSON text`, () => {
    // MAX_DIFF_DEPTH + 2 levels of Inner around the leaf: the last three are past the limit.
    const nest = (leaf: string) => Array.from({ length: MAX_DIFF_DEPTH + 2 }).reduce<unknown>((inner) => ({ Inner: inner }), { Leaf: leaf });
    const whole = (leaf: string) => `${'{"Inner":'.repeat(3)}{"Leaf":"${leaf}"}${"}".repeat(3)}`;
    // Vault (a block the agent keeps as sent) is the first level, Deep the second: MAX_DIFF_DEPTH objects in all.
    let object = taskObjects({ Vault: { Role: "r", Deep: nest("a") } }, { Vault: { Role: "r", Deep: nest("b") } })![0]!;
    let levels = 1;
    while (object.Objects !== null) [object, levels] = [object.Objects[0]!, levels + 1];
    expect(levels).toBe(MAX_DIFF_DEPTH);
    expect(object.Fields).toEqual([field("Edited", "Inner", whole("a"), whole("b"))]);
    // In Config, the top-level key is the first level.
    const config = taskObjects({ Config: { deep: nest("a") } }, { Config: { deep: nest("b") } })![0]!;
    expect(config.Fields).toEqual([field("Edited", `deep${"[Inner]".repeat(MAX_DIFF_DEPTH)}`, whole("a").slice(9, -1), whole("b").slice(9, -1))]);
  });
});

describe("diffJobs: bounded work", () => {
  it("matches thousands of constraints by content, not pairwise", () => {
    const constraints = Array.from({ length: 20_000 }, (_, i) => ({ LTarget: "${meta.rack}", RTarget: `r${i}`, Operand: "!=" }));
    const reversed = [...constraints].reverse();
    reversed[0] = { LTarget: "${meta.rack}", RTarget: "new", Operand: "!=" };
    const started = performance.now();
    const diff = diffJobs(job({ Constraints: constraints }), job({ Constraints: reversed }));
    expect(diff.Objects!.map((object) => [object.Type, object.Fields!.find((change) => change.Name === "RTarget")])).toEqual([
      ["Added", field("Added", "RTarget", "", "new")],
      ["Deleted", field("Deleted", "RTarget", "r19999", "")],
    ]);
    // Pairwise matching would take minutes; matching through maps takes milliseconds.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
