/**
 * An agent of the cluster benchmark (bench/cluster.ts), in a process of its own so that several
 * agents sharing one PostgreSQL schema, and the load generator, each have their own event loop.
 * Started with `fork()`: `node cluster-child.js '<AgentOptions as JSON>'` (the store, the node's
 * name, the placement delay, the limits). It starts a silent agent without demo data through the
 * public API (`startAgent` from `bexpr/server`), sends its URL and how long the start took (for an
 * agent joining a shared store: loading the whole state), answers each probe as bench/agent-child.ts
 * does, with whether it leads, and closes the agent (leaving the cluster) on SIGTERM or when the
 * parent goes away.
 */
import { startAgent, type AgentOptions } from "bexpr/server";
import { BENCH_AGENT_DATA } from "./data.js";

/** What the child sends to the parent (the `listening` and `probed` messages of bench/agent-child.ts, with more fields). */
export type ClusterChildMessage =
  | { readonly kind: "listening"; readonly url: string; readonly startMs: number }
  | { readonly kind: "probed"; readonly blockingQueries: number; readonly leading: boolean };

/** What the parent sends: a probe, with a full garbage collection first when `collect` (as bench/agent-child.ts). */
export type ClusterParentMessage = { readonly kind: "probe"; readonly collect: boolean };

/** How long closing may take before the process exits anyway. */
const CLOSE_TIMEOUT_MS = 1_500;

const options = JSON.parse(process.argv[2] ?? "null") as AgentOptions | null;
if (options === null || typeof options !== "object") throw new Error("usage: cluster-child.js '<agent options as JSON>'");

const started = performance.now();
const agent = await startAgent({ port: 0, logLevel: "silent", demo: false, data: BENCH_AGENT_DATA, ...options });
const startMs = performance.now() - started;

const send = (message: ClusterChildMessage) => process.send?.(message);

process.on("message", (message: ClusterParentMessage) => {
  if (message.kind !== "probe") return;
  if (message.collect) (globalThis as { gc?: () => void }).gc?.();
  send({ kind: "probed", blockingQueries: agent.blockingQueries, leading: agent.leading });
});

let exiting = false;
const exit = () => {
  if (exiting) return;
  exiting = true;
  setTimeout(() => process.exit(0), CLOSE_TIMEOUT_MS).unref();
  agent.close().then(
    () => process.exit(0),
    () => process.exit(0),
  );
};
process.on("SIGTERM", exit);
// Without its parent, nobody would stop it.
process.on("disconnect", exit);

send({ kind: "listening", url: agent.url, startMs });
