#!/usr/bin/env node
/**
 * The `bexpr` command.
 *
 * @module
 */
import { readFileSync } from "node:fs";

const USAGE = `Usage: bexpr <command> [options]

The filter-expression language of the scheduler's HTTP API.

Commands:
  help              show this help

Options:
  -h, --help        show this help
  -v, --version     print the version

Commands to check, format and evaluate filters and to run the mini-agent are coming;
see README.md.
`;

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

/** Runs the command line; returns the exit status. */
export function main(argv: readonly string[]): number {
  const [first] = argv;
  if (first === undefined || first === "help" || first === "-h" || first === "--help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (first === "-v" || first === "--version") {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  process.stderr.write(`bexpr: unknown command ${JSON.stringify(first)}\n\n${USAGE}`);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
