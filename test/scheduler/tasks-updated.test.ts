/**
 * The reference's tests of `tasksUpdated` and its helpers (`scheduler/util_test.go`:
 * `TestTasksUpdated`, `TestTasksUpdated_connectServiceUpdated`, `TestNetworkUpdated`,
 * `TestUtil_connectUpdated`, `TestUtil_connectSidecarServiceUpdated`, `TestTasksUpdated_Identity`,
 * `TestTasksUpdated_NUMA`, `TestTaskGroupUpdated_Restart`) as tables, on the agent's JSON jobs:
 * the reference's `mock.Job()` registered as the API would send it, canonicalised as the agent
 * stores it, and each case's change applied to a copy.
 */
import { describe, expect, it } from "vitest";
import { canonicalizeJob } from "../../src/server/scheduler/canonicalize.js";
import { connectServiceUpdated, connectUpdated, networkUpdated, tasksUpdated } from "../../src/server/scheduler/tasks-updated.js";
import type { JobSpec } from "../../src/server/state/model.js";

type Json = Record<string, any>;

/** The reference's `mock.Job()`, as its API would send it (the fields `tasksUpdated` reads, and a few it does not). */
function mockJob(): JobSpec {
  return canonicalizeJob(
    {
      ID: "mock-service",
      Name: "my-job",
      Type: "service",
      Datacenters: ["dc1"],
      Constraints: [{ LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "=" }],
      TaskGroups: [
        {
          Name: "web",
          Count: 10,
          EphemeralDisk: { SizeMB: 150 },
          RestartPolicy: { Attempts: 3, Interval: 600_000_000_000, Delay: 60_000_000_000, Mode: "delay", RenderTemplates: false },
          Networks: [{ Mode: "host", DynamicPorts: [{ Label: "http" }, { Label: "admin" }] }],
          Tasks: [
            {
              Name: "web",
              Driver: "exec",
              Config: { command: "/bin/date" },
              Env: { FOO: "bar" },
              Services: [
                { Name: "${TASK}-frontend", PortLabel: "http", Tags: ["pci:${meta.pci-dss}"], Cluster: "default" },
                { Name: "${TASK}-admin", PortLabel: "admin", Cluster: "default" },
              ],
              Resources: { CPU: 500, MemoryMB: 256 },
              Meta: { foo: "bar" },
            },
          ],
          Meta: { elb_check_type: "http", elb_check_interval: "30s", elb_check_min: "3" },
        },
      ],
      Meta: { owner: "armon" },
    },
    "default",
    "global",
  );
}

/** A copy of `job` changed by `change` (on its JSON: the first group is `group`, its first task `task`). */
function changed(job: JobSpec, change: (job: Json, group: Json, task: Json) => void): JobSpec {
  const copy = structuredClone(job) as Json;
  const group = copy.TaskGroups[0];
  change(copy, group, group.Tasks[0]);
  return copy as JobSpec;
}

/** The mock job with a change; the same change on both sides of a case gives two equal jobs. */
const mock = (change: (job: Json, group: Json, task: Json) => void = () => {}) => changed(mockJob(), change);

describe("tasksUpdated (TestTasksUpdated and its neighbours)", () => {
  it.each<{ name: string; a?: (job: Json, group: Json, task: Json) => void; b: (job: Json, group: Json, task: Json) => void; modified: boolean }>([
    { name: "j1/j2: two mock jobs", b: () => {}, modified: false },
    { name: "j2: a task's config", b: (_, __, task) => (task.Config.command = "/bin/other"), modified: true },
    { name: "j3: a task renamed (deleted)", b: (_, __, task) => (task.Name = "foo"), modified: true },
    { name: "j4: a task's driver", b: (_, __, task) => (task.Driver = "foo"), modified: true },
    { name: "j5: one more task", b: (_, group, task) => group.Tasks.push(structuredClone(task)), modified: true },
    { name: "j6: the group network's dynamic ports", b: (_, group) => (group.Networks[0].DynamicPorts = [{ Label: "http" }, { Label: "https" }, { Label: "admin" }]), modified: true },
    { name: "j7: a task's env", b: (_, __, task) => (task.Env.NEW_ENV = "NEW_VALUE"), modified: true },
    { name: "j8: a task's user", b: (_, __, task) => (task.User = "foo"), modified: true },
    { name: "j9: a task's artifacts", b: (_, __, task) => (task.Artifacts = [{ GetterSource: "http://foo.com/bar" }]), modified: true },
    { name: "j10: a task's meta", b: (_, __, task) => (task.Meta.baz = "boom"), modified: true },
    { name: "j11: a task's CPU", b: (_, __, task) => (task.Resources.CPU = 1337), modified: true },
    {
      name: "j11d1/j11d2: a task's device count",
      a: (_, __, task) => (task.Resources.Devices = [{ Name: "gpu", Count: 1 }]),
      b: (_, __, task) => (task.Resources.Devices = [{ Name: "gpu", Count: 2 }]),
      modified: true,
    },
    { name: "j13: a dynamic port's label", b: (_, group) => (group.Networks[0].DynamicPorts[0].Label = "foobar"), modified: true },
    { name: "j14: a reserved port", b: (_, group) => (group.Networks[0].ReservedPorts = [{ Label: "foo", Value: 1312 }]), modified: true },
    { name: "j16: a sticky ephemeral disk", b: (_, group) => (group.EphemeralDisk.Sticky = true), modified: true },
    { name: "j17: the group's meta", b: (_, group) => (group.Meta.j17_test = "roll_baby_roll"), modified: true },
    { name: "j18: the job's meta", b: (job) => (job.Meta.j18_test = "roll_baby_roll"), modified: true },
    { name: "j19: the network mode", b: (_, group) => (group.Networks[0].Mode = "bridge"), modified: true },
    {
      name: "j20/j21: a task's cores",
      a: (_, __, task) => Object.assign(task.Resources, { CPU: 0, Cores: 2 }),
      b: (_, __, task) => Object.assign(task.Resources, { CPU: 0, Cores: 4 }),
      modified: true,
    },
    {
      name: "j22/j23: identical template wait configs",
      a: (_, __, task) => (task.Templates = [{ Wait: { Min: 5_000_000_000, Max: 5_000_000_000 } }]),
      b: (_, __, task) => (task.Templates = [{ Wait: { Min: 5_000_000_000, Max: 5_000_000_000 } }]),
      modified: false,
    },
    {
      name: "j22/j23: a changed template wait config",
      a: (_, __, task) => (task.Templates = [{ Wait: { Min: 5_000_000_000, Max: 5_000_000_000 } }]),
      b: (_, __, task) => (task.Templates = [{ Wait: { Min: 5_000_000_000, Max: 10_000_000_000 } }]),
      modified: true,
    },
    { name: "j24/j25: a volume added", b: (_, group) => (group.Volumes = { myvolume: { Name: "myvolume", Type: "csi", Source: "test-volume[0]" } }), modified: true },
    {
      name: "j25/j26: a volume altered",
      a: (_, group) => (group.Volumes = { myvolume: { Name: "myvolume", Type: "csi", Source: "test-volume[0]" } }),
      b: (_, group) => (group.Volumes = { myvolume: { Name: "myvolume", Type: "csi", Source: "test-volume[0]", ReadOnly: true } }),
      modified: true,
    },
    {
      name: "j27/j28: a CSI plugin altered",
      a: (_, __, task) => (task.CSIPluginConfig = { ID: "myplugin", Type: "node" }),
      b: (_, __, task) => (task.CSIPluginConfig = { ID: "myplugin", Type: "monolith" }),
      modified: true,
    },
    { name: "j29/j30: identical template ErrMissingKey", a: (_, __, task) => (task.Templates = [{ ErrMissingKey: false }]), b: (_, __, task) => (task.Templates = [{ ErrMissingKey: false }]), modified: false },
    { name: "j29/j30: a changed template ErrMissingKey", a: (_, __, task) => (task.Templates = [{ ErrMissingKey: false }]), b: (_, __, task) => (task.Templates = [{ ErrMissingKey: true }]), modified: true },
    {
      name: "j31/j32: a volume mount's SELinux label",
      a: (_, __, task) => (task.VolumeMounts = [{ Volume: "myvolume", SELinuxLabel: "z" }]),
      b: (_, __, task) => (task.VolumeMounts = [{ Volume: "myvolume", SELinuxLabel: "" }]),
      modified: true,
    },
    { name: "j31/j32: a volume mount removed", a: (_, __, task) => (task.VolumeMounts = [{ Volume: "myvolume", SELinuxLabel: "z" }]), b: (_, __, task) => (task.VolumeMounts = null), modified: true },
    { name: "j32/j33: a task secret added", b: (_, __, task) => (task.Secrets = [{ Name: "mysecret", Provider: "nomad", Path: "/my/path" }]), modified: true },
    { name: "Identity: none on both", a: (_, __, task) => (task.Identity = null), b: (_, __, task) => (task.Identity = null), modified: false },
    { name: "Identity: set on one side", a: (_, __, task) => (task.Identity = {}), b: (_, __, task) => (task.Identity = null), modified: true },
    { name: "NUMA: the same affinity", a: (_, __, task) => (task.Resources.NUMA = { Affinity: "none" }), b: (_, __, task) => (task.Resources.NUMA = { Affinity: "none" }), modified: false },
    { name: "NUMA: another affinity", a: (_, __, task) => (task.Resources.NUMA = { Affinity: "none" }), b: (_, __, task) => (task.Resources.NUMA = { Affinity: "require" }), modified: true },
    { name: "Restart: the group's render_templates", b: (_, group) => (group.RestartPolicy.RenderTemplates = true), modified: true },
    { name: "Restart: a task's render_templates", b: (_, __, task) => (task.RestartPolicy.RenderTemplates = true), modified: true },
    // What the reference takes in place (none of tasksUpdated's checks reads it).
    { name: "in place: the group's count", b: (_, group) => (group.Count = 4), modified: false },
    { name: "in place: the job's priority", b: (job) => (job.Priority = 70), modified: false },
    { name: "in place: the update block", b: (_, group) => (group.Update = { ...group.Update, MaxParallel: 3 }), modified: false },
    { name: "in place: a constraint", b: (_, group) => (group.Constraints = [{ LTarget: "${node.class}", RTarget: "large", Operand: "=" }]), modified: false },
    { name: "in place: a service's tags (not Connect)", b: (_, __, task) => (task.Services[0].Tags = ["other"]), modified: false },
    { name: "in place: a task's log file count (not Disabled)", b: (_, __, task) => (task.LogConfig.MaxFiles = 3), modified: false },
    { name: "a task's log collection switched off", b: (_, __, task) => (task.LogConfig.Disabled = true), modified: true },
  ])("$name: modified $modified", ({ a, b, modified }) => {
    expect(tasksUpdated(mock(a), mock(b), "web").modified).toBe(modified);
  });

  it("names the first difference in the reference's words, with both sides", () => {
    expect(tasksUpdated(mockJob(), mock((_, __, task) => (task.Config.command = "/bin/other")), "web")).toEqual({
      modified: true,
      label: "task config",
      before: { command: "/bin/date" },
      after: { command: "/bin/other" },
    });
  });
});

describe("connectServiceUpdated (TestTasksUpdated_connectServiceUpdated)", () => {
  const servicesA = [{ Name: "service1", PortLabel: "1111", Connect: { SidecarService: { Tags: ["a"] } } }];
  it.each([
    { name: "service not updated", b: [{ Name: "service0" }, { Name: "service1", PortLabel: "1111", Connect: { SidecarService: { Tags: ["a"] } } }, { Name: "service2" }], updated: false },
    { name: "service connect tags updated (in place)", b: [{ Name: "service0" }, { Name: "service1", PortLabel: "1111", Connect: { SidecarService: { Tags: ["b"] } } }], updated: false },
    { name: "service connect port updated", b: [{ Name: "service0" }, { Name: "service1", PortLabel: "1111", Connect: { SidecarService: { Tags: ["a"], Port: "2222" } } }], updated: true },
    { name: "service port label updated", b: [{ Name: "service0" }, { Name: "service1", PortLabel: "1112", Connect: { SidecarService: { Tags: ["1"] } } }], updated: true },
  ])("$name: $updated", ({ b, updated }) => {
    expect(connectServiceUpdated(servicesA, b).modified).toBe(updated);
  });
});

describe("networkUpdated (TestNetworkUpdated)", () => {
  it.each([
    { name: "mode updated", a: [{ Mode: "host" }], b: [{ Mode: "bridge" }], updated: true },
    { name: "host_network updated", a: [{ DynamicPorts: [{ Label: "http", To: 8080 }] }], b: [{ DynamicPorts: [{ Label: "http", To: 8080, HostNetwork: "public" }] }], updated: true },
    { name: "port.To updated", a: [{ DynamicPorts: [{ Label: "http", To: 8080 }] }], b: [{ DynamicPorts: [{ Label: "http", To: 8088 }] }], updated: true },
    { name: "hostname updated", a: [{ Hostname: "foo" }], b: [{ Hostname: "bar" }], updated: true },
    // Not in the reference's table: a dynamic port's value is the scheduler's, not the job's.
    { name: "a dynamic port's value", a: [{ DynamicPorts: [{ Label: "http", Value: 20000 }] }], b: [{ DynamicPorts: [{ Label: "http", Value: 20001 }] }], updated: false },
  ])("$name: $updated", ({ a, b, updated }) => {
    expect(networkUpdated(a, b).modified).toBe(updated);
  });
});

describe("connectUpdated (TestUtil_connectUpdated, TestUtil_connectSidecarServiceUpdated)", () => {
  it.each([
    { name: "both nil", a: null, b: null, updated: false },
    { name: "one nil", a: null, b: {}, updated: true },
    { name: "native differ", a: { Native: true }, b: { Native: false }, updated: true },
    { name: "gateway differ", a: { Gateway: { Ingress: {} } }, b: { Gateway: { Terminating: {} } }, updated: true },
    { name: "sidecar task differ", a: { SidecarTask: { Driver: "exec" } }, b: { SidecarTask: { Driver: "docker" } }, updated: true },
    { name: "sidecar service differ", a: { SidecarService: { Port: "1111" } }, b: { SidecarService: { Port: "2222" } }, updated: true },
    { name: "same", a: {}, b: {}, updated: false },
    { name: "sidecar service: one nil", a: {}, b: { SidecarService: {} }, updated: true },
    { name: "sidecar service: same", a: { SidecarService: { Port: "1111" } }, b: { SidecarService: { Port: "1111" } }, updated: false },
  ])("$name: $updated", ({ a, b, updated }) => {
    expect(connectUpdated(a, b).modified).toBe(updated);
  });
});
