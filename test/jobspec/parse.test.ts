/**
 * HCL2 jobspecs decoded into the reference's `api.Job` JSON, as `jobspec2` decodes them (cases
 * after its `parse_test.go` and `test-fixtures/`, with inputs of our own): a table of jobspecs and
 * the fields each gives, and a table of the refusals with their codes.
 */
import { describe, expect, it } from "vitest";
import { JobspecError, MAX_JOBSPEC_BYTES, MAX_JOBSPEC_DEPTH, MAX_JOBSPEC_EXPANSION, parseJobspec } from "../../src/server/domain/jobspec.js";

const S = 1_000_000_000;

describe("decoding a jobspec", () => {
  it.each<[string, string, string, Record<string, unknown>]>([
    ["the job's label as its ID and Name, every other field at its zero", 'job "example" {}', "", { ID: "example", Name: "example", Namespace: null, Region: null, TaskGroups: null, Priority: null }],
    ["an explicit name over the label", 'job "example" {\n  name = "other"\n  namespace = "prod"\n}', "", { ID: "example", Name: "other", Namespace: "prod" }],
    ["arguments as their Go types", 'job "j" {\n  type = "batch"\n  priority = 70\n  all_at_once = true\n  datacenters = ["dc1", "dc2"]\n}', "", { Type: "batch", Priority: 70, AllAtOnce: true, Datacenters: ["dc1", "dc2"] }],
    [
      "durations as nanoseconds",
      'job "j" {\n  update {\n    stagger = "30s"\n    min_healthy_time = "1m30s"\n    max_parallel = 2\n  }\n}',
      "",
      { Update: { Stagger: 30 * S, MinHealthyTime: 90 * S, MaxParallel: 2, HealthyDeadline: null } },
    ],
    [
      "groups and tasks named by their labels, config as a map with nested blocks as lists",
      'job "j" {\n  group "web" {\n    count = 3\n    task "nginx" {\n      driver = "docker"\n      config {\n        image = "nginx:1"\n        port_map {\n          http = 80\n        }\n      }\n    }\n  }\n}',
      "",
      { TaskGroups: [{ Name: "web", Count: 3, Tasks: [{ Name: "nginx", Driver: "docker", Config: { image: "nginx:1", port_map: [{ http: 80 }] } }] }] },
    ],
    [
      "meta and env as blocks or as map arguments",
      'job "j" {\n  meta {\n    team = "a"\n    n = 1\n  }\n  group "g" {\n    meta = { "dotted.key" = "v" }\n    task "t" {\n      env {\n        A = "b"\n      }\n    }\n  }\n}',
      "",
      { Meta: { team: "a", n: "1" }, TaskGroups: [{ Meta: { "dotted.key": "v" }, Tasks: [{ Env: { A: "b" } }] }] },
    ],
    [
      "constraints and affinities with their shortcuts",
      'job "j" {\n  constraint {\n    attribute = "${attr.kernel.name}"\n    value = "linux"\n  }\n  constraint {\n    distinct_hosts = true\n  }\n  constraint {\n    attribute = "${attr.nomad.version}"\n    version = ">= 1.0"\n  }\n  constraint {\n    distinct_property = "${meta.rack}"\n  }\n  affinity {\n    attribute = "${node.datacenter}"\n    value = "dc1"\n    weight = 50\n  }\n}',
      "",
      {
        Constraints: [
          { LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "=" },
          { LTarget: "", RTarget: "true", Operand: "distinct_hosts" },
          { LTarget: "${attr.nomad.version}", RTarget: ">= 1.0", Operand: "version" },
          { LTarget: "${meta.rack}", RTarget: "", Operand: "distinct_property" },
        ],
        Affinities: [{ LTarget: "${node.datacenter}", RTarget: "dc1", Operand: "=", Weight: 50 }],
      },
    ],
    [
      "ports with a static value reserved, the others dynamic",
      'job "j" {\n  group "g" {\n    network {\n      mode = "bridge"\n      port "http" {\n        static = 8080\n        to = 80\n      }\n      port "metrics" {}\n    }\n  }\n}',
      "",
      { TaskGroups: [{ Networks: [{ Mode: "bridge", ReservedPorts: [{ Label: "http", Value: 8080, To: 80 }], DynamicPorts: [{ Label: "metrics", Value: 0 }] }] }] },
    ],
    [
      "variables with defaults, the request's values over them, and locals",
      'variable "image" {\n  type = string\n  default = "nginx"\n}\nvariable "n" {\n  type = number\n}\nlocals {\n  tag = "${var.image}:1"\n  full = "registry/${local.tag}"\n}\njob "j" {\n  group "g" {\n    count = var.n\n    task "t" {\n      config {\n        image = local.full\n        args = ["--id", "${NOMAD_ALLOC_ID}"]\n      }\n    }\n  }\n}',
      'n = "2"',
      { TaskGroups: [{ Count: 2, Tasks: [{ Config: { image: "registry/nginx:1", args: ["--id", "${NOMAD_ALLOC_ID}"] } }] }] },
    ],
    [
      "a variables block's defaults, the request's values over them, and undeclared values ignored",
      'variables {\n  region_var = "default"\n}\njob "example" {\n  region = var.region_var\n  meta {\n    known_var = "${var.region_var}"\n    unknown_var = "${UNKNOWN}"\n  }\n}',
      'region_var = "aug"\nnobody = 1',
      { Region: "aug", Meta: { known_var: "aug", unknown_var: "${UNKNOWN}" } },
    ],
    ["an unquoted run-time reference as its interpolation", 'job "example" {\n  region = meta.mytest\n}', "", { Region: "${meta.mytest}" }],
    ["an empty env map", 'job "j" {\n  group "g" {\n    task "t" {\n      env = {}\n    }\n  }\n}', "", { TaskGroups: [{ Tasks: [{ Env: {} }] }] }],
    [
      "escapes of interpolations kept as text, once",
      'job "j" {\n  meta {\n    a = "$${literal} %%{x}"\n  }\n  group "g" {\n    task "t" {\n      template {\n        data = "%%{ if x }"\n      }\n    }\n  }\n}',
      "",
      { Meta: { a: "${literal} %{x}" }, TaskGroups: [{ Tasks: [{ Templates: [{ EmbeddedTmpl: "%{ if x }" }] }] }] },
    ],
    [
      "restart, reschedule, periodic, parameterized and migrate blocks",
      'job "j" {\n  type = "batch"\n  periodic {\n    cron = "*/5 * * * *"\n    prohibit_overlap = true\n  }\n  parameterized {\n    payload = "required"\n    meta_required = ["a"]\n  }\n  reschedule {\n    attempts = 2\n    interval = "1h"\n    unlimited = false\n  }\n  group "g" {\n    restart {\n      attempts = 3\n      delay = "15s"\n      mode = "fail"\n    }\n  }\n}',
      "",
      {
        Periodic: { Spec: "*/5 * * * *", SpecType: "cron", ProhibitOverlap: true },
        ParameterizedJob: { Payload: "required", MetaRequired: ["a"] },
        Reschedule: { Attempts: 2, Interval: 3600 * S, Unlimited: false },
        TaskGroups: [{ RestartPolicy: { Attempts: 3, Delay: 15 * S, Mode: "fail" } }],
      },
    ],
    [
      "services with checks, templates with their defaults, resources and lifecycle",
      'job "j" {\n  group "g" {\n    task "t" {\n      lifecycle {\n        hook = "prestart"\n        sidecar = true\n      }\n      resources {\n        cpu = 200\n        memory = 256\n      }\n      service {\n        name = "web"\n        port = "http"\n        tags = ["a"]\n        check {\n          type = "http"\n          path = "/health"\n          interval = "10s"\n          timeout = "2s"\n        }\n      }\n      template {\n        data = "x={{ env \\"A\\" }}"\n        destination = "local/x.env"\n        env = true\n      }\n    }\n  }\n}',
      "",
      {
        TaskGroups: [
          {
            Tasks: [
              {
                Lifecycle: { Hook: "prestart", Sidecar: true },
                Resources: { CPU: 200, MemoryMB: 256 },
                Services: [{ Name: "web", PortLabel: "http", Tags: ["a"], Checks: [{ Type: "http", Path: "/health", Interval: 10 * S, Timeout: 2 * S }] }],
                Templates: [{ EmbeddedTmpl: 'x={{ env "A" }}', DestPath: "local/x.env", Envvars: true, ChangeMode: "restart", Perms: "0644", Splay: 5 * S, ErrMissingKey: false }],
              },
            ],
          },
        ],
      },
    ],
    [
      "a group's scaling block horizontal by default, a task's scaling blocks vertical",
      'job "j" {\n  group "g" {\n    scaling {\n      min = 1\n      max = 5\n      policy {\n        cooldown = "1m"\n      }\n    }\n    task "t" {\n      scaling "cpu" {\n        max = 500\n      }\n      scaling "mem" {\n        max = 300\n      }\n    }\n  }\n}',
      "",
      { TaskGroups: [{ Scaling: { Min: 1, Max: 5, Type: "horizontal", Policy: { cooldown: "1m" } }, Tasks: [{ ScalingPolicies: [{ Max: 500, Type: "vertical_cpu" }, { Max: 300, Type: "vertical_mem" }] }] }] },
    ],
    [
      "a task in the job as a group of its own, the job's vault given to its tasks",
      'job "j" {\n  vault {\n    policies = ["p"]\n  }\n  task "solo" {\n    driver = "exec"\n  }\n  group "g" {\n    task "t" {}\n  }\n}',
      "",
      {
        TaskGroups: [
          { Name: "solo", Tasks: [{ Name: "solo", Driver: "exec", Vault: { Policies: ["p"], Env: true, DisableFile: false, ChangeMode: "restart" } }] },
          { Name: "g", Tasks: [{ Name: "t", Vault: { Policies: ["p"] } }] },
        ],
      },
    ],
    ["the default identity as the task's Identity", 'job "j" {\n  group "g" {\n    task "t" {\n      identity {\n        env = true\n      }\n    }\n  }\n}', "", { TaskGroups: [{ Tasks: [{ Identity: { Env: true }, Identities: [] }] }] }],
    ["a JSON jobspec read as HCL's JSON form", '{"job": {"j": {"type": "batch"}}}', "", { ID: "j", Type: "batch" }],
  ])("gives %s", async (_name, hcl, variables, expected) => {
    expect(await parseJobspec(hcl, variables)).toMatchObject(expected);
  });

  // The reference's TestParse_UndefinedVariables: run-time references kept as written, spaces and all.
  it.each(["plain", "foo-${BAR}", "foo-${attr.network.dev-us-east1-relay-vpc.external-ip.0}", '${env["BLAH"]}', '${mixed-indexing.0[3]["FOO"].5}'])(
    "keeps %s verbatim",
    async (text) => {
      // As the Go test writes it: the text between quotes, the quotes inside its interpolation unescaped.
      expect((await parseJobspec(`job "example" {\n  region = "${text}"\n}`)).Region).toBe(text);
    },
  );

  it("keeps a run-time reference with spaces inside its braces, without them (hcl2json drops them; the reference keeps them)", async () => {
    expect((await parseJobspec('job "example" {\n  region = "with spaces ${   root.  field[  "FOO"].5  }"\n}')).Region).toBe('with spaces ${root.  field[  "FOO"].5}');
  });

  it("gives each struct's fields in its order, the ones not set at Go's zero", async () => {
    const job = await parseJobspec('job "j" {\n  group "g" {\n    task "t" {\n      driver = "mock"\n    }\n  }\n}');
    expect(Object.keys(job).slice(0, 6)).toEqual(["Region", "Namespace", "ID", "Name", "Type", "Priority"]);
    const task = (job.TaskGroups as Record<string, unknown>[])[0]!.Tasks as Record<string, unknown>[];
    expect(task[0]).toMatchObject({ Name: "t", Driver: "mock", User: "", Leader: false, Resources: null, Config: null, KillTimeout: null });
  });

  const refusals: [string, string, string, JobspecError["code"], RegExp][] = [
    ["a syntax error, with hcl's diagnostic", 'job "x" {', "", "syntax", /^input\.hcl:1,9-10: Unclosed configuration block; /],
    ["an argument the block does not have", 'job "x" {\n  colour = "red"\n}', "", "unexpected_field", /^input\.hcl:2,3: Unsupported argument; An argument named "colour" is not expected here\.$/],
    ["a block the block does not have", 'job "x" {\n  group "g" {\n    gadget {}\n  }\n}', "", "unexpected_field", /Unsupported block type; Blocks of type "gadget" are not expected here\./],
    ["a function, named with its position", 'job "x" {\n  group "g" {\n    count = max(1, 2)\n  }\n}', "", "unsupported_expression", /^input\.hcl:3,13: Unsupported expression; .*"max\(1, 2\)"/],
    ["arithmetic", 'job "x" {\n  priority = 10 * 5\n}', "", "unsupported_expression", /"10 \* 5"/],
    ["a template directive", 'job "x" {\n  meta {\n    a = "%{ if true }y%{ endif }"\n  }\n}', "", "unsupported_expression", /template directives/],
    ["an unset variable", 'variable "image" {}\njob "x" {}', "", "variable", /^Unset variable "image"; A used variable must be set or have a default value/],
    ["an undeclared variable's reference", 'job "x" {\n  name = var.nope\n}', "", "variable", /Unsupported attribute; This object does not have an attribute named "nope"\./],
    ["a variable's value of the wrong type", 'variable "n" {\n  type = number\n}\njob "x" {}', 'n = "many"', "variable", /The value for n is not compatible with the variable's type constraint: number required\./],
    ["a variable declared in the variables", 'job "x" {}', 'variable "x" {}', "variable", /^Variable declaration in a \.var file; /],
    ["locals that refer to each other", 'locals {\n  a = local.b\n  b = local.a\n}\njob "x" {}', "", "variable", /Cycle in locals/],
    ["a duration that does not parse", 'job "x" {\n  update {\n    stagger = "soon"\n  }\n}', "", "invalid_value", /Unsuitable duration value: time: invalid duration "soon"/],
    ["a number where a whole number is due", 'job "x" {\n  priority = 1.5\n}', "", "invalid_value", /whole number/],
    ["a whole number no Go int holds", 'job "x" {\n  priority = 1e20\n}', "", "invalid_value", /"priority": the number must be between -9007199254740991 and 9007199254740991/],
    ["a percent past a uint8", 'job "x" {\n  spread {\n    attribute = "a"\n    target "b" {\n      percent = 256\n    }\n  }\n}', "", "invalid_value", /"percent": the number must be between 0 and 255/],
    ["no job block", 'variable "a" {\n  default = 1\n}', "", "missing_job", /^Missing job block; A job block is required$/],
    ["two job blocks", 'job "a" {}\njob "b" {}', "", "invalid_value", /Duplicate job block/],
    ["a second block where one is allowed", 'job "a" {\n  update {}\n  update {}\n}', "", "invalid_value", /Duplicate update block/],
    ["env as a list", 'job "a" {\n  group "g" {\n    task "t" {\n      env = ["a"]\n    }\n  }\n}', "", "invalid_value", /Unsuitable value: map of string required/],
    ["an undefined local in env", 'job "a" {\n  group "g" {\n    task "t" {\n      env = { key = local.undefined_local }\n    }\n  }\n}', "", "variable", /does not have an attribute named "undefined_local"/],
    ["a group scaling block without its max", 'job "a" {\n  group "g" {\n    scaling {\n      type = "horizontal"\n    }\n  }\n}', "", "invalid_value", /argument "max" is required/],
    ["a group scaling block of another type", 'job "a" {\n  group "g" {\n    scaling {\n      max = 4\n      type = "invalid_type"\n    }\n  }\n}', "", "invalid_value", /task group scaling policy had invalid type: "invalid_type"/],
    ["two task scaling blocks of one name", 'job "a" {\n  group "g" {\n    task "t" {\n      scaling "cpu" {\n        max = 1\n      }\n      scaling "cpu" {\n        max = 2\n      }\n    }\n  }\n}', "", "invalid_value", /Duplicate scaling "cpu" block/],
    ["a task scaling block of another type", 'job "a" {\n  group "g" {\n    task "t" {\n      scaling "cpu" {\n        max = 1\n        type = "invalid"\n      }\n    }\n  }\n}', "", "invalid_value", /Invalid scaling policy type/],
    ["a task scaling block of another name", 'job "a" {\n  group "g" {\n    task "t" {\n      scaling "disk" {}\n    }\n  }\n}', "", "invalid_value", /scaling policy name must be "cpu" or "mem"/],
  ];

  it("takes a whole number at the edge of its Go type (a uint8 percent of 255)", async () => {
    const job = (await parseJobspec('job "x" {\n  spread {\n    attribute = "a"\n    target "b" {\n      percent = 255\n    }\n  }\n}')) as { Spreads: { SpreadTarget: { Percent: number }[] }[] };
    expect(job.Spreads[0]!.SpreadTarget[0]!.Percent).toBe(255);
  });

  it.each(refusals)("refuses %s", async (_name, hcl, variables, code, message) => {
    const error = await parseJobspec(hcl, variables).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(JobspecError);
    expect((error as JobspecError).code).toBe(code);
    expect((error as JobspecError).message).toMatch(message);
  });
});

describe("the jobspec's limits", () => {
  const refusal = (hcl: string, variables = "") => parseJobspec(hcl, variables).then(() => undefined, (error: JobspecError) => error);

  it("reads a jobspec of MAX_JOBSPEC_BYTES and refuses one byte more", async () => {
    const head = 'job "big" {\n  meta {\n    pad = "';
    const tail = '"\n  }\n}\n';
    const padded = head + "x".repeat(MAX_JOBSPEC_BYTES - head.length - tail.length) + tail;
    expect(Buffer.byteLength(padded)).toBe(MAX_JOBSPEC_BYTES);
    expect(((await parseJobspec(padded)).Meta as Record<string, string>).pad).toHaveLength(MAX_JOBSPEC_BYTES - head.length - tail.length);
    const error = await refusal(padded, " ");
    expect({ code: error?.code, message: error?.message }).toEqual({ code: "too_large", message: `the job spec and its variables are ${MAX_JOBSPEC_BYTES + 1} bytes long; the limit is ${MAX_JOBSPEC_BYTES}` });
  });

  it("reads brackets nested MAX_JOBSPEC_DEPTH deep and refuses one more, before the HCL parser sees them", async () => {
    // job, group, task, config: four levels, then the lists.
    const nested = (depth: number) => `job "deep" {\n  group "g" {\n    task "t" {\n      config {\n        a = ${"[".repeat(depth - 4)}${"]".repeat(depth - 4)}\n      }\n    }\n  }\n}`;
    expect(await refusal(nested(MAX_JOBSPEC_DEPTH))).toBeUndefined();
    const error = await refusal(nested(MAX_JOBSPEC_DEPTH + 1));
    expect({ code: error?.code, message: error?.message }).toEqual({ code: "too_large", message: `the job nests deeper than ${MAX_JOBSPEC_DEPTH} levels of brackets` });
  });

  it.each([
    ["blocks", `job "d" {\n${"a {\n".repeat(15_000)}${"}\n".repeat(15_000)}}`],
    ["lists", `job "d" {\n  meta {\n    a = ${"[".repeat(20_000)}${"]".repeat(20_000)}\n  }\n}`],
    ["parentheses", `job "d" {\n  name = ${"(".repeat(20_000)}1${")".repeat(20_000)}\n}`],
    ["variables", 'job "d" {}', `a = ${"{".repeat(10_000)}`],
  ])("refuses %s nested thousands deep at once (they crashed the HCL parser's runtime)", async (_name, hcl, variables = "") => {
    expect((await refusal(hcl.slice(0, MAX_JOBSPEC_BYTES), variables))?.code).toBe("too_large");
  });

  it("refuses locals that expand past MAX_JOBSPEC_EXPANSION", async () => {
    const doubling = Array.from({ length: 30 }, (_, i) => `  l${i + 1} = "\${local.l${i}}\${local.l${i}}"`).join("\n");
    const error = await refusal(`locals {\n  l0 = "xxxxxxxx"\n${doubling}\n}\njob "x" {}`);
    expect({ code: error?.code, message: error?.message }).toEqual({ code: "too_large", message: `the job's expressions expand to more than ${MAX_JOBSPEC_EXPANSION} characters` });
  });
});
