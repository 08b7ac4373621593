/**
 * Agents as real processes (`node dist/cli.js agent --store postgres://…`), started, watched and
 * killed by a test as a user would: the tests of several agents on one database
 * (several-agents.test.ts) and the fault suite (test/faults/). Every agent a test starts is killed
 * after it (`killAll`), and when the worker exits. The agents are the built CLI (`npm run build`
 * first).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { send, type Response } from "../agent/support.js";

/** The built command line, whatever the working directory. */
const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

/** How long an agent may take to print its listening line (a loaded machine, demo data). */
const START_TIMEOUT_MS = 15_000;

/** How often the polls below look again. */
const POLL_MS = 25;

// ---------------------------------------------------------------------------------------------
// Agent processes

/** Every agent process alive, whichever test started it: killed after each test, and when this worker exits. */
const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** A running `bexpr agent` child process. */
export interface AgentProcess {
  /** The node name it was given (`--node-name`). */
  readonly name: string;
  /** Its member name in `/v1/agent/members`: `<node name>.<region>`. */
  readonly member: string;
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** How many of its output lines match `pattern`. */
  count(pattern: RegExp): number;
  /** Resolves when the process has exited and its output is read to the end. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  get(path: string, headers?: Record<string, string>, signal?: AbortSignal): Promise<Response>;
  /** Registers a job; throws unless the agent answers 200. */
  register(job: Record<string, unknown>): Promise<{ Index: number; JobModifyIndex: number; EvalID: string }>;
}

/** Starts `bexpr agent` on `schema` of the PostgreSQL server at `url`, as node `name`; resolves once it prints its listening line. */
export function startAgentProcess(url: string, name: string, schema: string, extra: readonly string[] = ["--no-demo"]): Promise<AgentProcess> {
  const args = [CLI, "agent", "--port", "0", "--node-name", name, "--log-level", "info", "--store", url, "--store-schema", schema, ...extra];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // "close", not "exit": the output is read to its end first.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent ${name} did not print its listening line in ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`agent ${name} exited (code ${code}, signal ${signal}) before listening:\n${output}`));
    });
    const listening = () => {
      const match = /^bexpr agent listening on (http:\/\/\S+)/m.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout!.off("data", listening);
      const url = match[1]!;
      const agent: AgentProcess = {
        name,
        member: `${name}.global`,
        url,
        child,
        output: () => output,
        count: (pattern) => output.split("\n").filter((line) => pattern.test(line)).length,
        exited,
        get: (path, headers, signal) => send(url + path, { ...(headers === undefined ? {} : { headers }), ...(signal === undefined ? {} : { signal }) }),
        register: async (job) => {
          const response = await send(`${url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job }) });
          if (response.status !== 200) throw new Error(`registering ${String(job.ID)} through ${name}: ${response.status} ${response.text}`);
          return response.json();
        },
      };
      resolve(agent);
    };
    child.stdout!.on("data", listening);
  });
}

/** Kills every agent still running (SIGKILL) and waits for them to exit. */
export async function killAll(): Promise<void> {
  const exits = [...children].map(
    (child) =>
      new Promise<void>((resolve) => {
        // Still in the set: its "close" (which removes it) has not come yet.
        child.once("close", () => resolve());
        child.kill("SIGKILL");
      }),
  );
  await Promise.all(exits);
}

/** Stops an agent with `signal` and waits for it to exit. */
export async function stop(agent: AgentProcess, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  agent.child.kill(signal);
  return agent.exited;
}

// ---------------------------------------------------------------------------------------------
// Polling and jobs

/** Polls `check` until it returns a value other than undefined; throws `what` when `timeoutMs` passes first. */
export async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result !== undefined) return result;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not in ${timeoutMs} ms${last === undefined ? "" : ` (last error: ${String(last)})`}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Polls `check` for `forMs`: throws `what` as soon as it fails (a property that must keep holding). */
export async function holds(what: string, forMs: number, check: () => boolean): Promise<void> {
  const deadline = Date.now() + forMs;
  while (Date.now() < deadline) {
    if (!check()) throw new Error(what);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (!check()) throw new Error(what);
}
