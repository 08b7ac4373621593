/** Runs the built `bexpr` command as a child process, as a user would. */
import { spawn } from "node:child_process";

/** What a run printed, and its exit status. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `bexpr args…` with `stdin` as its standard input (none: an empty one) and `env` added. */
export function runCli(args: readonly string[], options: { stdin?: string; env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, ["dist/cli.js", ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...options.env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.stdin ?? "");
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
