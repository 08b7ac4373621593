/**
 * `bexpr agent`: the mini-agent from the command line.
 *
 * @module
 */
import { LOG_LEVELS, OptionsError, readConfigFile, startAgent, type Agent, type AgentOptions, type HeaderStyle, type LogLevel } from "../server/index.js";
import { DEFAULT_OPTIONS, resolveOptions } from "../server/options.js";
import { parseAllowedHosts } from "../server/control/browser-guard.js";
import { compactHeapWhenIdle, type HeapCompaction, type IdleHeapCompactor } from "./heap.js";
import { CommandError, parseCommandLine, UsageError, type Io, type Outcome } from "./terminal.js";

export const AGENT_USAGE = `Usage: bexpr agent [options]

Runs the mini-agent: the scheduler's /v1 HTTP API (HashiCorp Nomad's; docs/agent.md lists every
route) with a simulated scheduler, and the test controls under /_bexpr/.

Options:
  --bind ADDRESS          address to listen on (default 127.0.0.1)
  --port PORT             port to listen on (default 4646; 0 picks a free port)
  --region NAME           the agent's region (default global)
  --datacenter NAME       the agent's datacenter (default dc1)
  --node-name NAME        the node name (default: the host name)
  --headers STYLE         the header style: svc (default) reads X-Svc-Token and answers
                          X-Svc-Index and the other X-Svc-* headers, as the spec names them;
                          nomad reads X-Nomad-Token and answers X-Nomad-*, as HashiCorp Nomad
                          does, so that its own CLI and SDKs can be tested against it unchanged
  --no-demo               start empty, without the demo data set
  --data FILE             start from a data file instead of the demo data: a snapshot
                          (GET /_bexpr/snapshots/<name>) or a fixture of Namespaces, Nodes, Jobs,
                          Deployments and ACL (docs/agent.md, "Fixtures and isolation")
  --acl                   enforce ACLs (bootstrap a token with POST /v1/acl/bootstrap, or give one
                          in the config file: "acl": {"enabled": true, "bootstrapToken": "<uuid>"})
  --control, --no-control serve the control API under /_bexpr/ (the request journal, faults, the
                          leader switch) or not (default: on when --bind is a loopback address)
  --allowed-hosts HOSTS   host names the agent answers to besides localhost, its IP addresses and
                          --bind (comma-separated, or repeated; .example.com for it and its
                          subdomains; * for any, behind a proxy); others get 421, so that no web
                          page reaches the agent by DNS rebinding
  --placement-delay MS    milliseconds until placed allocations run, twice over (default 2000)
  --clock manual          freeze the agent's clock: it moves only when a test says so
                          (POST /_bexpr/clock/advance {"By": "10m"}), running what falls due
  --nodes N               simulated client nodes in the datacenter (default 3)
  --store URL             where the state is kept: memory (default), or a PostgreSQL URL
                          (postgres://user:password@host:port/database) that several agents
                          share, as the servers of one region, and that survives them
  --store-schema NAME     the PostgreSQL schema of the agent's tables (default bexpr)
  --config FILE           a JSON file of options: bind, port, region, datacenter, nodeName,
                          headers, demo, data, placementDelayMs, clock, nodes, logLevel, logFormat, acl,
                          control, allowedHosts, namespaces, metrics, store
                          ("metrics": {"intervalMs": 10000, "retentionMs": 60000,
                          "prometheus": true}); flags override it
  --log-level LEVEL       ${LOG_LEVELS.join(", ")} (default info)
  -h, --help              show this help
  -v, --version           print the version

Environment: BEXPR_<OPTION> gives an option for suites that start the agent as a process
(BEXPR_PORT=0, BEXPR_NODE_NAME=alpha, BEXPR_STORE=postgres://…, BEXPR_DEMO=false,
BEXPR_ACL=true, BEXPR_CONFIG=FILE, …: the option's name in capitals, - as _; booleans true or
false). The config file < the environment < the flags.
`;

/** The environment variables of the agent's options: `BEXPR_` and the flag's name, in capitals, `-` as `_`. */
export const AGENT_ENVIRONMENT_PREFIX = "BEXPR_";

/** The flags that take a value, and the boolean flags, that the environment may give. */
const VALUE_FLAGS = ["bind", "port", "region", "datacenter", "node-name", "headers", "data", "allowed-hosts", "placement-delay", "clock", "nodes", "store", "store-schema", "config", "log-level"] as const;
const BOOLEAN_FLAGS = ["demo", "control", "acl"] as const;

/** The variable of a flag. */
const variableOf = (flag: string) => `${AGENT_ENVIRONMENT_PREFIX}${flag.toUpperCase().replaceAll("-", "_")}`;

/**
 * The options the environment gives, as the arguments of their flags (the flags given on the
 * command line come after them, and so win).
 *
 * @throws UsageError naming the variable when a boolean is neither true nor false.
 */
function environmentArgs(env: Readonly<Record<string, string | undefined>>): string[] {
  const args: string[] = [];
  for (const flag of VALUE_FLAGS) {
    const value = env[variableOf(flag)];
    if (value !== undefined && value !== "") args.push(`--${flag}=${value}`);
  }
  for (const flag of BOOLEAN_FLAGS) {
    const value = env[variableOf(flag)];
    if (value === undefined || value === "") continue;
    if (!/^(true|false|1|0)$/i.test(value)) throw new UsageError(`${variableOf(flag)} must be true or false, got ${JSON.stringify(value)}`);
    args.push(/^(true|1)$/i.test(value) ? `--${flag}` : `--no-${flag}`);
  }
  return args;
}

function number(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`--${name} needs a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** `--store` and `--store-schema` over the config file's `store`. */
function storeOption(url: string | undefined, schema: string | undefined, fromFile: AgentOptions["store"]): AgentOptions["store"] {
  if (schema === undefined) return url;
  const base = url ?? fromFile;
  if (base === undefined || base === "memory") throw new UsageError("--store-schema needs a PostgreSQL store: give --store postgres://…");
  return typeof base === "string" ? { url: base, schema } : { ...base, schema };
}

/** Reads the agent's options: defaults, then the config file, then the environment (`BEXPR_*`), then the flags. */
export function agentOptions(args: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): AgentOptions | "help" | "version" {
  const fromEnvironment = environmentArgs(env);
  const { values, tokens } = parseCommandLine({
    args: [...fromEnvironment, ...args],
    tokens: true,
    strict: true,
    options: {
      bind: { type: "string" },
      port: { type: "string" },
      region: { type: "string" },
      datacenter: { type: "string" },
      "node-name": { type: "string" },
      headers: { type: "string" },
      demo: { type: "boolean" },
      "no-demo": { type: "boolean" },
      data: { type: "string" },
      control: { type: "boolean" },
      "no-control": { type: "boolean" },
      "allowed-hosts": { type: "string", multiple: true },
      acl: { type: "boolean" },
      "no-acl": { type: "boolean" },
      "placement-delay": { type: "string" },
      clock: { type: "string" },
      nodes: { type: "string" },
      store: { type: "string" },
      "store-schema": { type: "string" },
      config: { type: "string" },
      "log-level": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
  // Of a boolean flag and its --no- form, the last given wins (the command line's over the environment's).
  const last = (flag: string): boolean | undefined => {
    let value: boolean | undefined;
    for (const token of tokens ?? []) {
      if (token.kind !== "option") continue;
      if (token.name === flag) value = true;
      else if (token.name === `no-${flag}`) value = false;
    }
    return value;
  };
  if (values.help) return "help";
  if (values.version) return "version";
  const fromFile = values.config === undefined ? {} : readConfigFile(values.config);
  const flags: AgentOptions = {
    bind: values.bind,
    port: number("port", values.port),
    region: values.region,
    datacenter: values.datacenter,
    nodeName: values["node-name"],
    // Checked with the other options: anything but a style is refused with the styles named.
    headers: values.headers as HeaderStyle | undefined,
    demo: last("demo"),
    data: values.data,
    control: last("control"),
    allowedHosts: values["allowed-hosts"] === undefined ? undefined : parseAllowedHosts(values["allowed-hosts"]),
    placementDelayMs: number("placement-delay", values["placement-delay"]),
    clock: values.clock as AgentOptions["clock"],
    nodes: number("nodes", values.nodes),
    logLevel: values["log-level"] as LogLevel | undefined,
    acl: last("acl") === undefined ? undefined : { ...fromFile.acl, enabled: last("acl")! },
    store: storeOption(values.store, values["store-schema"], fromFile.store),
  };
  const defined = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  // The flags and variables alone first: a bad value there is a usage error (exit 2, as an unknown
  // option is); one that only the config file brings stays the file's (exit 1, below).
  try {
    resolveOptions(defined);
  } catch (error) {
    if (error instanceof OptionsError) throw new UsageError(error.message);
    throw error;
  }
  // People read the command's log: one line of text per event, unless the config asks for JSON.
  return { logFormat: "text", ...fromFile, ...defined };
}

/** Errors of `listen` that a user fixes with another --bind or --port. */
const LISTEN_ERRORS: ReadonlySet<string> = new Set(["EADDRINUSE", "EADDRNOTAVAIL", "EACCES", "ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EINVAL"]);

/** What to do about a listen error, for the line that reports it. */
function listenHint(code: string, port: number): string {
  if (code === "EADDRINUSE" && port === 0) return " (no free port on this machine: its ephemeral ports are taken; stop other processes' connections, or give a --port)";
  if (code === "EADDRINUSE") return ` (another process listens there: give another --port, or --port 0 for a free one)`;
  if (code === "EACCES") return " (a port below 1024 needs privileges: give a --port of 1024 or more)";
  return " (give another --bind or --port)";
}

/** `bexpr agent`: runs until SIGINT or SIGTERM. */
export async function runAgent(args: readonly string[], io: Pick<Io, "stdout">): Promise<Outcome> {
  let agent: Agent;
  let options: AgentOptions | "help" | "version" = {};
  let compaction: HeapCompaction = "never";
  let compactor: IdleHeapCompactor | undefined;
  try {
    options = agentOptions(args);
    if (options === "help" || options === "version") return options;
    // Before the state grows: the process is the agent's (src/cli/heap.ts).
    ({ compaction, compactor } = compactHeapWhenIdle());
    agent = await startAgent(options);
  } catch (error) {
    compactor?.stop();
    // A bad option, a taken port or an address that cannot be listened on is the user's to fix:
    // one line, exit status 1.
    if (error instanceof OptionsError) throw new CommandError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && LISTEN_ERRORS.has(code)) {
      const { bind = DEFAULT_OPTIONS.bind, port = DEFAULT_OPTIONS.port } = typeof options === "object" ? options : {};
      throw new CommandError(`cannot listen on ${bind} port ${port}: ${(error as Error).message}${listenHint(code, port)}`);
    }
    throw error;
  }
  const { region, datacenter, demo, acl } = agent.options;
  const { store } = agent.options;
  const notes = [
    `region ${region}`,
    `datacenter ${datacenter}`,
    ...(demo ? ["demo data loaded"] : []),
    ...(agent.options.data === undefined ? [] : [typeof agent.options.data === "string" ? `data from ${agent.options.data}` : "data loaded"]),
    ...(acl.enabled ? ["ACLs enforced"] : []),
    ...(agent.options.headers === "svc" ? [] : [`${agent.options.headers} headers`]),
    ...(store === "memory" ? [] : [`state in PostgreSQL${agent.leading ? ", leading" : ""}`]),
    ...(compaction === "idle" ? ["heap compacted when idle"] : compaction === "always" ? ["heap compacted on full collections"] : []),
  ];
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      io.stdout.write("bexpr agent stopping\n");
      compactor?.stop();
      void agent.close().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  // Only once the handlers are in place: whoever reads this line may signal at once.
  io.stdout.write(`bexpr agent listening on ${agent.url} (${notes.join(", ")})\n`);
  await stopped;
  return 0;
}

