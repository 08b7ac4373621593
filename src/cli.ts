#!/usr/bin/env node
/**
 * The `bexpr` command.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { LOG_LEVELS, OptionsError, readConfigFile, startAgent, type AgentOptions, type LogLevel } from "./server/index.js";
import { VERSION } from "./version.js";

const USAGE = `Usage: bexpr <command> [options]

The filter-expression language of the scheduler's HTTP API.

Commands:
  agent             run the mini-agent (the scheduler's HTTP API) with a demo data set
  help              show this help

Options:
  -h, --help        show this help
  -v, --version     print the version

Run "bexpr agent --help" for the agent's options.
`;

const AGENT_USAGE = `Usage: bexpr agent [options]

Runs the mini-agent: /v1/jobs, /v1/deployments, /v1/agent/members and /v1/metrics.

Options:
  --bind ADDRESS          address to listen on (default 127.0.0.1)
  --port PORT             port to listen on (default 4646; 0 picks a free port)
  --region NAME           the agent's region (default global)
  --datacenter NAME       the agent's datacenter (default dc1)
  --node-name NAME        the node name (default: the host name)
  --no-demo               start empty, without the demo data set
  --acl                   enforce ACLs (bootstrap a token with POST /v1/acl/bootstrap, or give one
                          in the config file: "acl": {"enabled": true, "bootstrapToken": "<uuid>"})
  --placement-delay MS    milliseconds until a new deployment is healthy (default 2000)
  --config FILE           a JSON file of options: bind, port, region, datacenter, nodeName,
                          demo, placementDelayMs, logLevel, acl, namespaces, metrics
                          ("metrics": {"intervalMs": 10000, "retentionMs": 60000,
                          "prometheus": true}); flags override it
  --log-level LEVEL       ${LOG_LEVELS.join(", ")} (default info)
  -h, --help              show this help
`;

/** A mistake on the command line: printed with the usage, exit status 2. */
class UsageError extends Error {}

function number(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`--${name} needs a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** Reads the agent's options: defaults, then the config file, then the flags. */
export function agentOptions(args: readonly string[]): AgentOptions | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      strict: true,
      options: {
        bind: { type: "string" },
        port: { type: "string" },
        region: { type: "string" },
        datacenter: { type: "string" },
        "node-name": { type: "string" },
        demo: { type: "boolean" },
        "no-demo": { type: "boolean" },
        acl: { type: "boolean" },
        "placement-delay": { type: "string" },
        config: { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) return "help";
  const fromFile = values.config === undefined ? {} : readConfigFile(values.config);
  const flags: AgentOptions = {
    bind: values.bind,
    port: number("port", values.port),
    region: values.region,
    datacenter: values.datacenter,
    nodeName: values["node-name"],
    demo: values["no-demo"] ? false : values.demo,
    placementDelayMs: number("placement-delay", values["placement-delay"]),
    logLevel: values["log-level"] as LogLevel | undefined,
    acl: values.acl ? { ...fromFile.acl, enabled: true } : undefined,
  };
  const defined = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  return { ...fromFile, ...defined };
}

async function runAgent(args: readonly string[]): Promise<number> {
  const options = agentOptions(args);
  if (options === "help") {
    process.stdout.write(AGENT_USAGE);
    return 0;
  }
  const agent = await startAgent(options);
  const { region, datacenter, demo, acl } = agent.options;
  const notes = [`region ${region}`, `datacenter ${datacenter}`, ...(demo ? ["demo data loaded"] : []), ...(acl.enabled ? ["ACLs enforced"] : [])];
  process.stdout.write(`bexpr agent listening on ${agent.url} (${notes.join(", ")})\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.stdout.write("bexpr agent stopping\n");
      void agent.close().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

/** Runs the command line; resolves to the exit status. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case "help":
      case "-h":
      case "--help":
        process.stdout.write(USAGE);
        return 0;
      case "-v":
      case "--version":
        process.stdout.write(`${VERSION}\n`);
        return 0;
      case "agent":
        return await runAgent(rest);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`bexpr: ${error.message}\n\n${command === "agent" ? AGENT_USAGE : USAGE}`);
      return 2;
    }
    if (error instanceof OptionsError || (error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      process.stderr.write(`bexpr: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
