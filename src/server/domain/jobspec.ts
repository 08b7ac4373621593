/**
 * A jobspec in HCL2 read as the reference's `jobspec2` reads it (`PUT /v1/jobs/parse`): the HCL
 * grammar is `@cdktf/hcl2json`'s (HashiCorp's HCL parser, compiled to WebAssembly), which gives
 * the document as JSON; this module decodes that JSON into the reference's `api.Job` with the
 * HCL names of the api structs' tags (`jobspec-blocks.ts`), and the reference's special cases:
 *
 * - labels: the job's is its ID and Name, a group's and a task's their Name, a port's its Label;
 * - durations (`"10s"`, or a number of nanoseconds) as nanoseconds;
 * - `variable` blocks with their defaults and the request's `Variables` (HCL text), `locals`,
 *   and the references to them (`jobspec-expressions.ts`); run-time references kept verbatim;
 * - `meta` and `env` as a block or as a map argument; `config` and a scaling `policy` as maps;
 * - `constraint` and `affinity` with their shortcuts (`distinct_hosts = true`, `version = …`,
 *   `regexp`, `semver`, `set_contains…`, `distinct_property`);
 * - a `task` directly in the job as a group of its own; `vault` and `secret` of the job and a
 *   group given to their tasks; a task's `scaling "cpu"`/`"mem"` blocks;
 * - `normalizeJob`'s defaults: a periodic's `cron` spec type, ports split into dynamic and
 *   reserved ones, templates' change mode, permissions, splay, a vault block's defaults, the
 *   default identity as the task's `Identity`.
 *
 * Each decoded struct has every field its HCL could set, at Go's zero when the jobspec does not
 * set it (null for pointers, lists and maps), in the struct's order.
 *
 * @module
 */
import { GoDurationError, parseGoDurationNs } from "../../go/duration.js";
import { HCL_STRUCTS, type HclField } from "./jobspec-blocks.js";
import { parseHclText } from "./hcl.js";
import { checkNesting, evaluateValue, ExpansionBudget, JobspecError, MAX_DECODING_DEPTH, MAX_JOBSPEC_DEPTH, type Locate, type Scope } from "./jobspec-expressions.js";

export { JobspecError, MAX_JOBSPEC_DEPTH, MAX_JOBSPEC_EXPANSION, type JobspecErrorCode } from "./jobspec-expressions.js";

/**
 * The longest jobspec (its HCL and its variables together) accepted, in bytes. The HCL parser is
 * WebAssembly that holds the event loop while it runs, about 3.5 ms a KiB on a loaded 2-core
 * machine (best of 7: 10 KiB 45 ms, 64 KiB 216 ms, 256 KiB 779 ms; the decoding after it adds
 * little): a quarter of a second at most. Real jobspecs are a few KiB.
 */
export const MAX_JOBSPEC_BYTES = 64 * 1024;

/** The name the reference's parse endpoint gives the HCL in its diagnostics. */
const FILE_NAME = "input.hcl";

type Json = Record<string, unknown>;

/** What decoding a body reads: the evaluation's scope and budget, and where text is in the HCL. */
interface Decoding {
  readonly scope: Scope;
  readonly locate: Locate;
  readonly budget: ExpansionBudget;
}

/** A value of hcl2json's output that is an object (a block's body or a map). */
function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The bodies of a block written any number of times (hcl2json writes each block as a list of bodies). */
function bodies(value: unknown, name: string): Json[] {
  const list = Array.isArray(value) ? value : [value];
  for (const each of list) if (!isObject(each)) throw new JobspecError("invalid_value", `Unsupported argument; An argument named ${JSON.stringify(name)} is not expected here. Did you mean to define a block of type ${JSON.stringify(name)}?`);
  return list as Json[];
}

/** The one body of a block that may be written once. */
function single(value: unknown, name: string): Json {
  const list = bodies(value, name);
  if (list.length > 1) throw new JobspecError("invalid_value", `Duplicate ${name} block; Only one ${JSON.stringify(name)} block is allowed. Another was defined earlier.`);
  return list[0]!;
}

/** Go's zero value of a field's type, as its JSON: null for pointers, lists, maps and structs. */
function zeroOf(type: string): unknown {
  if (type.startsWith("*") || type.startsWith("[]") || type.startsWith("map[")) return null;
  if (type === "string" || type === "CSIPluginType" || type === "ReconcileOption") return "";
  if (type === "bool") return false;
  if (/^(u?int\d*|time\.Duration)$/.test(type)) return 0;
  return null;
}

/** An argument's value as its Go type (`cty`'s conversions: numbers and bools from their text, and back). */
function convert(value: unknown, type: string, name: string): unknown {
  if (value === null || value === undefined) return null;
  const base = type.replace(/^\*/, "");
  const wrong = (expected: string) =>
    new JobspecError("invalid_value", `Unsuitable value type; Unsuitable value for ${JSON.stringify(name)}: ${expected} required.`);
  if (base === "time.Duration") {
    if (typeof value === "number") return Math.trunc(value);
    if (typeof value !== "string") throw wrong("string");
    try {
      return Number(parseGoDurationNs(value));
    } catch (error) {
      if (!(error instanceof GoDurationError)) throw error;
      throw new JobspecError("invalid_value", `Unsuitable value type; Unsuitable duration value: ${error.message}`);
    }
  }
  if (base === "string" || base === "CSIPluginType" || base === "ReconcileOption") {
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    throw wrong("string");
  }
  if (base === "bool") {
    if (typeof value === "boolean") return value;
    if (value === "true" || value === "false") return value === "true";
    throw wrong("bool");
  }
  if (/^u?int\d*$/.test(base)) {
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof number !== "number" || !Number.isFinite(number)) throw wrong("number");
    if (!Number.isInteger(number)) throw new JobspecError("invalid_value", `Unsuitable value type; Unsuitable value for ${JSON.stringify(name)}: a whole number is required.`);
    if (base.startsWith("u") && number < 0) throw new JobspecError("invalid_value", `Unsuitable value type; Unsuitable value for ${JSON.stringify(name)}: a non-negative number is required.`);
    const [low, high] = integerRange(base);
    if (number < low || number > high) throw new JobspecError("invalid_value", `Unsuitable value type; Unsuitable value for ${JSON.stringify(name)}: the number must be between ${low} and ${high}.`);
    return number;
  }
  if (base === "[]string" || base === "[]uint16") {
    if (!Array.isArray(value)) throw wrong("list");
    return value.map((each) => convert(each, base.slice(2), name));
  }
  if (base.startsWith("map[string]string")) return stringMap(value, name);
  if (base === "map[string][]string") {
    if (!isObject(value)) throw wrong("map");
    return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, convert(each, "[]string", name)]));
  }
  return value;
}

/**
 * The whole numbers a Go integer type of the api structs holds, within those JSON numbers carry
 * exactly (2^53): `priority = 1e20` was taken as 100000000000000000000, which no Go `int` holds.
 */
function integerRange(base: string): readonly [number, number] {
  const bits = Number(base.replace(/^u?int/, "") || "64");
  const unsigned = base.startsWith("u");
  const high = Math.min(Number.MAX_SAFE_INTEGER, unsigned ? 2 ** bits - 1 : 2 ** (bits - 1) - 1);
  return [unsigned ? 0 : -Math.min(Number.MAX_SAFE_INTEGER, 2 ** (bits - 1)), high];
}

/** A map of strings (`meta`, `env`): a block's body or a map argument, its values as text. */
function stringMap(value: unknown, name: string): Json {
  // hcl2json writes a block as a list of bodies; any other list is an argument of the wrong type.
  const body = Array.isArray(value) && value.length > 0 && value.every(isObject) ? single(value, name) : value;
  if (!isObject(body)) throw new JobspecError("invalid_value", `Unsuitable value type; Unsuitable value: map of string required (${JSON.stringify(name)}).`);
  return Object.fromEntries(Object.entries(body).map(([key, each]) => [key, convert(each, "string", `${name}.${key}`)]));
}

/** The fields of an api struct, by HCL name. */
function fieldsOf(typeName: string): readonly HclField[] {
  const fields = HCL_STRUCTS[typeName];
  if (fields === undefined) throw new Error(`no HCL table for api.${typeName}`);
  return fields;
}

/** The api struct a block field holds (`[]*Task` → `Task`), or undefined for a map or a value. */
function structOf(type: string): string | undefined {
  const name = type.replace(/^(\[\]|\*|map\[string\]\*?)+/, "").replace(/^\*/, "");
  return HCL_STRUCTS[name] === undefined ? undefined : name;
}

/**
 * Decodes a block's body into the api struct `typeName` (with its label, when it has one), as
 * gohcl does: each argument and block the struct's tags name, and any other a {@link JobspecError}.
 */
function decodeStruct(typeName: string, body: Json, label: string | undefined, decoding: Decoding, depth: number): Json {
  if (depth > MAX_DECODING_DEPTH) throw new JobspecError("too_large", `the job nests deeper than ${MAX_JOBSPEC_DEPTH} levels of brackets`);
  const fields = fieldsOf(typeName);
  const out: Json = {};
  for (const [, json, type] of fields) out[json] = zeroOf(type);
  const labelField = fields.find((field) => field[3] === "label");
  if (labelField !== undefined && label !== undefined) out[labelField[1]] = label;
  for (const [key, raw] of Object.entries(body)) {
    const field = fields.find(([hcl, , , kind]) => hcl === key && (kind === "attr" || kind === "block"));
    if (field === undefined) {
      const where = decoding.locate(new RegExp(`^[ \\t]*${key.replace(/[^\w-]/g, "\\$&")}[ \\t]*[={"]`, "m"));
      const prefix = where === "" ? "" : `${where}: `;
      // hcl2json writes a block as a list of bodies.
      const block = Array.isArray(raw) && raw.every(isObject);
      throw new JobspecError(
        "unexpected_field",
        block ? `${prefix}Unsupported block type; Blocks of type ${JSON.stringify(key)} are not expected here.` : `${prefix}Unsupported argument; An argument named ${JSON.stringify(key)} is not expected here.`,
      );
    }
    out[field[1]] = decodeField(field, raw, decoding, depth + 1);
  }
  return out;
}

/** A field's value decoded by its Go type and its tag's kind. */
function decodeField(field: HclField, raw: unknown, decoding: Decoding, depth: number): unknown {
  const [hcl, , type, kind] = field;
  const struct = structOf(type);
  // Values are evaluated where they are read (arguments and maps), once: a block's body is decoded field by field.
  if (type === "map[string]any" || kind === "attr" || struct === undefined) {
    const value = evaluateValue(raw, decoding.scope, decoding.locate, decoding.budget, depth);
    // A map of any values (`config`, a scaling `policy`) is a block's body, its nested blocks lists of maps, as `decodeMapInterfaceType` leaves them.
    return type === "map[string]any" ? single(value, hcl) : convert(value, type, hcl);
  }
  const custom = CUSTOM_BLOCKS[struct];
  const decode = (body: Json, label: string | undefined) => (custom !== undefined ? custom(body, label, decoding, depth) : decodeStruct(struct, body, label, decoding, depth));
  const labelled = fieldsOf(struct).some((each) => each[3] === "label");
  // A labelled block: hcl2json writes it as an object of its labels, each with the list of its bodies.
  const entries: [string | undefined, Json][] = labelled
    ? Object.entries(isObject(raw) ? raw : {}).flatMap(([label, each]) => bodies(each, hcl).map((body) => [label, body] as [string, Json]))
    : bodies(raw, hcl).map((body) => [undefined, body]);
  if (labelled && !isObject(raw)) throw new JobspecError("invalid_value", `Missing name for ${hcl}; All ${hcl} blocks must have 1 labels (name).`);
  if (type.startsWith("map[string]")) return Object.fromEntries(entries.map(([label, body]) => [label, decode(body, label)]));
  if (type.startsWith("[]")) return entries.map(([label, body]) => decode(body, label));
  if (entries.length > 1) throw new JobspecError("invalid_value", `Duplicate ${hcl} block; Only one ${JSON.stringify(hcl)} block is allowed. Another was defined earlier.`);
  return entries.length === 0 ? null : decode(entries[0]![1], entries[0]![0]);
}

type CustomBlock = (body: Json, label: string | undefined, decoding: Decoding, depth: number) => Json;

/** The shortcut arguments of a constraint and an affinity: each sets the operator and the value. */
const OPERATOR_SHORTCUTS = ["version", "semver", "regexp", "set_contains", "set_contains_all", "set_contains_any", "attribute_is_set", "attribute_is_not_set"];

/** `decodeConstraint` and `decodeAffinity`: `attribute`, `value`, `operator` and the shortcuts, `=` by default. */
function placementRule(kind: "constraint" | "affinity"): CustomBlock {
  return (raw, _label, decoding, depth) => {
    const body = evaluateValue(raw, decoding.scope, decoding.locate, decoding.budget, depth) as Json;
    const allowed = new Set(["attribute", "value", "operator", ...OPERATOR_SHORTCUTS, ...(kind === "affinity" ? ["weight"] : ["distinct_hosts", "distinct_property"])]);
    for (const key of Object.keys(body)) {
      if (!allowed.has(key)) throw new JobspecError("unexpected_field", `Unsupported argument; An argument named ${JSON.stringify(key)} is not expected here.`);
    }
    const text = (name: string) => (body[name] === undefined || body[name] === null ? "" : (convert(body[name], "string", name) as string));
    const rule: Json = { LTarget: text("attribute"), RTarget: text("value"), Operand: text("operator") };
    // The reference reads the shortcuts in this order; the last one set wins. Its affinity has no `attribute_is_…` shortcuts.
    const shortcuts = kind === "affinity" ? ["version", "semver", "regexp", "set_contains_any", "set_contains_all", "set_contains"] : ["version", "semver", "regexp", "set_contains"];
    for (const name of shortcuts) {
      const value = text(name);
      if (value !== "") {
        rule.Operand = name;
        rule.RTarget = value;
      }
    }
    if (kind === "constraint") {
      if (body.distinct_hosts !== undefined && body.distinct_hosts !== null) {
        rule.Operand = "distinct_hosts";
        rule.RTarget = String(convert(body.distinct_hosts, "bool", "distinct_hosts"));
      }
      const property = text("distinct_property");
      if (property !== "") {
        rule.Operand = "distinct_property";
        rule.LTarget = property;
      }
    }
    if (rule.Operand === "") rule.Operand = "=";
    if (kind === "affinity") rule.Weight = body.weight === undefined || body.weight === null ? null : convert(body.weight, "int8", "weight");
    return rule;
  };
}

/** `decodeTaskGroup`: `meta` as a block or a map, the group's `vault` and `secret` for its tasks, a scaling block's type. */
function decodeGroup(body: Json, label: string | undefined, decoding: Decoding, depth: number): Json {
  const { vault, secret, ...rest } = body;
  const group = decodeStruct("TaskGroup", rest, label, decoding, depth);
  const tasks = (group.Tasks ?? []) as Json[];
  if (vault !== undefined) {
    const decoded = decodeField(["vault", "Vault", "*Vault", "block"], vault, decoding, depth + 1);
    for (const task of tasks) if (task.Vault === null) task.Vault = decoded;
  }
  if (secret !== undefined) {
    const decoded = decodeField(["secret", "Secrets", "[]*Secret", "block"], secret, decoding, depth + 1) as Json[];
    for (const task of tasks) task.Secrets = task.Secrets === null || (task.Secrets as Json[]).length === 0 ? decoded : [...(task.Secrets as Json[]), ...decoded];
  }
  const scaling = group.Scaling as Json | null;
  if (scaling !== null) {
    if (scaling.Type === "") scaling.Type = "horizontal";
    // `validateGroupScalingPolicy`: a group's policy needs its maximum, and is horizontal.
    if (scaling.Max === null) throw new JobspecError("invalid_value", 'Missing required argument; The argument "max" is required, but no definition was found.');
    if (scaling.Type !== "horizontal") throw new JobspecError("invalid_value", `Invalid group scaling type; task group scaling policy had invalid type: ${JSON.stringify(scaling.Type)}`);
  }
  return group;
}

/** `decodeTask`: a task's `scaling "cpu"` and `"mem"` blocks are its vertical scaling policies. */
function decodeTask(body: Json, label: string | undefined, decoding: Decoding, depth: number): Json {
  const { scaling, ...rest } = body;
  const task = decodeStruct("Task", rest, label, decoding, depth);
  if (scaling !== undefined) {
    if (!isObject(scaling)) throw new JobspecError("invalid_value", 'Missing name for scaling; All scaling blocks must have 1 labels (name).');
    const policies: Json[] = [];
    for (const [name, each] of Object.entries(scaling)) {
      const type = { cpu: "vertical_cpu", mem: "vertical_mem" }[name.toLowerCase()];
      if (type === undefined) throw new JobspecError("invalid_value", 'Invalid scaling policy name; scaling policy name must be "cpu" or "mem"');
      const list = bodies(each, "scaling");
      if (list.length > 1) throw new JobspecError("invalid_value", `Duplicate scaling ${JSON.stringify(name.toLowerCase())} block; Only one scaling ${name.toLowerCase()} block is allowed.`);
      const policy = decodeStruct("ScalingPolicy", list[0]!, undefined, decoding, depth + 1);
      if (policy.Type === "") policy.Type = type;
      else if (policy.Type !== type) throw new JobspecError("invalid_value", `Invalid scaling policy type; Invalid policy type, expected ${JSON.stringify(policy.Type)} but found ${JSON.stringify(type)}`);
      policies.push(policy);
    }
    task.ScalingPolicies = policies;
  }
  return task;
}

/** The api structs decoded by their own rules, as `jobspec2` registers block decoders for them. */
const CUSTOM_BLOCKS: Readonly<Record<string, CustomBlock>> = {
  Constraint: placementRule("constraint"),
  Affinity: placementRule("affinity"),
  TaskGroup: decodeGroup,
  Task: decodeTask,
};

/** `normalizeJob`'s defaults, applied to the decoded job in place. */
function normalizeJob(job: Json, jobVault: Json | null, jobSecrets: Json[]): void {
  const periodic = job.Periodic as Json | null;
  if (periodic !== null && (periodic.Spec !== null || periodic.Specs !== null)) periodic.SpecType = "cron";
  for (const group of (job.TaskGroups ?? []) as Json[]) {
    normalizePorts(group.Networks as Json[] | null);
    for (const task of (group.Tasks ?? []) as Json[]) {
      const resources = task.Resources as Json | null;
      if (resources !== null) normalizePorts(resources.Networks as Json[] | null);
      for (const template of (task.Templates ?? []) as Json[]) normalizeTemplate(template);
      normalizeVault(task.Vault as Json | null);
      if (task.Vault === null) task.Vault = jobVault;
      const secrets = (task.Secrets ?? []) as Json[];
      task.Secrets = secrets.length === 0 ? (jobSecrets.length === 0 ? null : jobSecrets) : [...secrets, ...jobSecrets];
      // The default identity (unnamed or "default") is the task's Identity, as before Nomad 1.7.
      const identities = (task.Identities ?? []) as Json[];
      const index = identities.findIndex((identity) => identity.Name === "" || identity.Name === "default");
      if (index >= 0) {
        task.Identity = identities[index];
        task.Identities = identities.filter((_, i) => i !== index);
      }
    }
  }
}

/** Ports given a static value are reserved, the others dynamic (`normalizeNetworkPorts`). */
function normalizePorts(networks: Json[] | null): void {
  for (const network of networks ?? []) {
    const ports = (network.DynamicPorts ?? []) as Json[];
    if (ports.length === 0) continue;
    const dynamic = ports.filter((port) => !((port.Value as number) > 0));
    const reserved = ports.filter((port) => (port.Value as number) > 0);
    network.DynamicPorts = dynamic.length === 0 ? null : dynamic;
    network.ReservedPorts = reserved.length === 0 ? null : reserved;
  }
}

/** A template's defaults (`normalizeTemplates`): restart on change, mode 0644, 5 s splay, and its change script's. */
function normalizeTemplate(template: Json): void {
  template.ChangeMode ??= "restart";
  template.Perms ??= "0644";
  template.Splay ??= 5_000_000_000;
  template.ErrMissingKey ??= false;
  const script = template.ChangeScript as Json | null;
  if (script !== null) {
    script.Args ??= [];
    script.Timeout ??= 5_000_000_000;
    script.FailOnError ??= false;
    script.RunOnFirstRender ??= false;
  }
}

/** A vault block's defaults (`normalizeVault`). */
function normalizeVault(vault: Json | null): void {
  if (vault === null) return;
  vault.Env ??= true;
  vault.DisableFile ??= false;
  vault.ChangeMode ??= "restart";
}

/** hcl2json's message (`parse config: [input.hcl:1,5-6: Summary; Detail. …]`) as hcl's diagnostics print: the first, and how many others. */
function syntaxMessage(error: unknown, file: string): string {
  const text = String((error as Error).message ?? error).replace(/^parse config: \[/, "").replace(/\]$/, "");
  const starts = [...text.matchAll(new RegExp(`(?:^| )(?=${file.replace(".", "\\.")}:\\d+,\\d+)`, "g"))].map((match) => match.index + (match[0].length > 0 ? 1 : 0));
  if (starts.length <= 1) return text;
  const first = text.slice(0, starts[1]! - 1);
  return `${first}, and ${starts.length - 1} other diagnostic(s)`;
}

/** Parses HCL text with hcl2json (loaded with the first jobspec: WebAssembly and a Go runtime, as for HCL policies), or its JSON form. */
async function parseHcl(file: string, text: string): Promise<Json> {
  // HCL's JSON form, as `jobspec2` tells it (the first character not a space is a brace): JSON's own parser.
  if (/^ *\{/.test(text)) {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new JobspecError("syntax", `${file}: Invalid JSON; ${(error as Error).message}`);
    }
    if (!isObject(document)) throw new JobspecError("syntax", `${file}: Incorrect JSON value type; The root value in a JSON-based configuration must be an object.`);
    return document;
  }
  try {
    return (await parseHclText(file, text)) as Json;
  } catch (error) {
    throw new JobspecError("syntax", syntaxMessage(error, file));
  }
}

/** Where `text` (or the first match of a pattern) first occurs in `source`, as `input.hcl:line,column`, or "" when it does not. */
function locator(source: string): Locate {
  return (text) => {
    const index = typeof text === "string" ? (text === "" ? -1 : source.indexOf(text)) : source.search(text);
    if (index < 0) return "";
    const before = source.slice(0, index);
    const line = before.split("\n").length;
    const column = index - before.lastIndexOf("\n") + (typeof text === "string" ? 0 : (/^[ \t]*/.exec(source.slice(index))?.[0].length ?? 0));
    return `${FILE_NAME}:${line},${column}`;
  };
}

/** A variable's value converted to its declared simple type (`string`, `number`, `bool`), as cty converts it. */
function typed(value: unknown, type: unknown, name: string): unknown {
  const declared = typeof type === "string" ? type.replace(/^\$\{(.*)\}$/, "$1").trim() : "";
  try {
    if (declared === "string") return convert(value, "string", name);
    if (declared === "number") {
      const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      if (typeof number !== "number" || Number.isNaN(number)) throw new Error();
      return number;
    }
    if (declared === "bool") return convert(value, "bool", name);
  } catch {
    throw new JobspecError("variable", `Invalid value for variable; The value for ${name} is not compatible with the variable's type constraint: ${declared} required.`);
  }
  return value;
}

/** The request's variables text (`name = value` lines, HCL), as values by name. */
async function variableValues(text: string): Promise<Json> {
  if (text.trim() === "") return {};
  let values: Json;
  try {
    values = await parseHcl(FILE_NAME, text);
  } catch (error) {
    throw new JobspecError("variable", `unable to parse var content: ${(error as Error).message}`);
  }
  if (values.variable !== undefined) {
    const name = isObject(values.variable) ? Object.keys(values.variable)[0] ?? "" : "";
    throw new JobspecError(
      "variable",
      `Variable declaration in a .var file; A .var file is used to assign values to variables that have already been declared in job files, not to declare new variables. To declare variable ${JSON.stringify(name)}, place this block in one of your job files\n\nTo set a value for this variable in ${FILE_NAME}, use the definition syntax instead:\n    ${name} = <value>`,
    );
  }
  return values;
}

/** The scope of a jobspec: its declared variables with their values, and its locals (evaluated when first read, a cycle refused). */
function scopeOf(document: Json, given: Json, locate: Locate, budget: ExpansionBudget): Scope {
  const variables = new Map<string, unknown>();
  // `variable "name" { … }` blocks, and `variables { name = default }` blocks declaring several at once.
  const declared: [string, Json][] = Object.entries(isObject(document.variable) ? document.variable : {}).map(([name, declarations]) => [name, single(declarations, "variable")]);
  for (const block of document.variables === undefined ? [] : bodies(document.variables, "variables")) {
    for (const [name, value] of Object.entries(block)) declared.push([name, { default: value }]);
  }
  for (const [name, declaration] of declared) {
    if (variables.has(name)) throw new JobspecError("variable", `Duplicate variable; Duplicate ${name} variable definition found.`);
    const value = Object.hasOwn(given, name) ? given[name] : declaration.default;
    if (value === undefined) {
      throw new JobspecError(
        "variable",
        // Without a position: the reference's diagnostic has a context, not a subject.
        `Unset variable ${JSON.stringify(name)}; A used variable must be set or have a default value; see https://developer.hashicorp.com/nomad/docs/reference/hcl2/variables  for details.`,
      );
    }
    variables.set(name, typed(value, declaration.type, name));
  }
  const localText = new Map<string, unknown>();
  for (const block of document.locals === undefined ? [] : bodies(document.locals, "locals")) {
    for (const [name, value] of Object.entries(block)) {
      if (localText.has(name)) throw new JobspecError("variable", `Duplicate local variable; Duplicate ${name} local variable definition found.`);
      localText.set(name, value);
    }
  }
  const values = new Map<string, unknown>();
  const evaluating = new Set<string>();
  const scope: Scope = {
    var: variables,
    local: (name) => {
      if (values.has(name)) return values.get(name);
      if (!localText.has(name)) throw new JobspecError("variable", `Unsupported attribute; This object does not have an attribute named ${JSON.stringify(name)}.`);
      if (evaluating.has(name)) throw new JobspecError("variable", `Cycle in locals; local.${name} refers to itself.`);
      evaluating.add(name);
      const value = evaluateValue(localText.get(name), scope, locate, budget, 0);
      evaluating.delete(name);
      values.set(name, value);
      return value;
    },
  };
  // Every local is evaluated, used or not, as the reference evaluates them all before the job.
  for (const name of localText.keys()) scope.local(name);
  return scope;
}

/** The top-level blocks a jobspec may have. */
const TOP_LEVEL = new Set(["job", "variable", "variables", "locals"]);

/**
 * Decodes an HCL2 jobspec into the reference's `api.Job` JSON (what `jobspec2.ParseWithConfig`
 * returns), with `variables` (HCL `name = value` text) over the variables' defaults.
 *
 * @throws JobspecError with the reason (hcl's diagnostic text where the reference gives one).
 */
export async function parseJobspec(hcl: string, variables = ""): Promise<Json> {
  const bytes = Buffer.byteLength(hcl) + Buffer.byteLength(variables);
  if (bytes > MAX_JOBSPEC_BYTES) throw new JobspecError("too_large", `the job spec and its variables are ${bytes} bytes long; the limit is ${MAX_JOBSPEC_BYTES}`);
  checkNesting(hcl);
  checkNesting(variables);
  const document = await parseHcl(FILE_NAME, hcl);
  const given = await variableValues(variables);
  for (const key of Object.keys(document)) {
    if (!TOP_LEVEL.has(key)) throw new JobspecError("unexpected_field", `Unsupported block type; Blocks of type ${JSON.stringify(key)} are not expected here.`);
  }
  const locate = locator(hcl);
  const budget = new ExpansionBudget();
  const scope = scopeOf(document, given, locate, budget);
  const jobs = isObject(document.job) ? Object.entries(document.job) : [];
  if (jobs.length === 0) throw new JobspecError("missing_job", "Missing job block; A job block is required");
  const [[id, jobBodies]] = jobs as [[string, unknown]];
  const list = bodies(jobBodies, "job");
  if (jobs.length > 1 || list.length > 1) throw new JobspecError("invalid_value", 'Duplicate job block; Only one block of type "job" is allowed.');
  const decoding: Decoding = { scope, locate, budget };
  const { task, vault, secret, ...body } = list[0]!;
  const job = decodeStruct("Job", body, undefined, decoding, 0);
  job.Name ??= id;
  job.ID ??= id;
  // A task in the job itself is a group of its own, ahead of the job's groups.
  if (task !== undefined) {
    const tasks = decodeField(["task", "Tasks", "[]*Task", "block"], task, decoding, 1) as Json[];
    job.TaskGroups = [...tasks.map((each) => ({ ...decodeStruct("TaskGroup", {}, each.Name as string, decoding, 1), Tasks: [each] })), ...((job.TaskGroups ?? []) as Json[])];
  }
  const jobVault = vault === undefined ? null : (decodeField(["vault", "Vault", "*Vault", "block"], vault, decoding, 1) as Json);
  normalizeVault(jobVault);
  const jobSecrets = secret === undefined ? [] : (decodeField(["secret", "Secrets", "[]*Secret", "block"], secret, decoding, 1) as Json[]);
  normalizeJob(job, jobVault, jobSecrets);
  return job;
}
