/**
 * The agent of the agent benchmark (bench/agent.ts), in a process of its own so that it does not
 * share an event loop with the load generator. Started with `fork()` and `--expose-gc`:
 * `node agent-child.js '<AgentChildConfig as JSON>'` (or just the placement delay in ms, for the
 * memory store). It starts empty, silent agents through the public API (`startAgent` from
 * `bexpr/server`): one by default; with `agents: 2`, two in this process sharing one PGlite
 * instance (PGlite cannot be shared across processes). It sends their URLs, answers each probe
 * with the number of blocking queries waiting (`Agent.blockingQueries`; after a full garbage
 * collection when asked, so that the parent's reading of the process's RSS does not depend on
 * when V8 last collected: the compacting one the agent runs once idle, src/cli/heap.ts), and exits when the parent goes away. The parent reads the process's CPU
 * time from /proc/<pid>/stat (bench/load.ts), as it does the bare server's. Its heap is set up as
 * `bexpr agent` sets its own (src/cli/heap.ts: compacted when idle), so that its CPU and memory
 * are the command's.
 */
import { startAgent, type Agent, type AgentOptions } from "bexpr/server";
import { compactHeapWhenIdle } from "../src/cli/heap.js";
import { BENCH_AGENT_DATA } from "./data.js";

const { compactor } = compactHeapWhenIdle();

/** What the parent asks for. */
export interface AgentChildConfig {
  readonly placementDelayMs: number;
  /** The memory store (default), a PostgreSQL server's URL and schema, or PGlite in this process. */
  readonly store?: "memory" | { readonly url: string; readonly schema: string } | { readonly pglite: true; readonly schema: string };
  /** Agents to start (they share the store; 2 only with PGlite: each agent of a server's store gets a process of its own). */
  readonly agents?: 1 | 2;
  /** The first agent's node name (the second gets `-2`): agents sharing a store need distinct names. */
  readonly nodeName?: string;
}

/** What the child sends to the parent. */
export type AgentChildMessage =
  | { readonly kind: "listening"; readonly url: string; readonly urls: readonly string[] }
  | { readonly kind: "probed"; readonly blockingQueries: number };

/** What the parent sends to the child: a probe, with a full garbage collection first when `collect`. */
export type AgentParentMessage = { readonly kind: "probe"; readonly collect: boolean };

const argument = process.argv[2] ?? "";
const config: AgentChildConfig = /^\d+$/.test(argument) ? { placementDelayMs: Number(argument) } : (JSON.parse(argument) as AgentChildConfig);
if (!Number.isFinite(config.placementDelayMs)) throw new Error("usage: agent-child.js <placement delay ms> | '<config as JSON>'");

async function storeOption(): Promise<AgentOptions["store"]> {
  const store = config.store ?? "memory";
  if (store === "memory" || "url" in store) return store;
  const { PGlite } = await import("@electric-sql/pglite");
  return { pglite: new PGlite(), schema: store.schema };
}

const store = await storeOption();
const agents: Agent[] = [];
for (let i = 0; i < (config.agents ?? 1); i++) {
  const nodeName = config.nodeName === undefined ? undefined : i === 0 ? config.nodeName : `${config.nodeName}-${i + 1}`;
  agents.push(await startAgent({ port: 0, logLevel: "silent", demo: false, placementDelayMs: config.placementDelayMs, data: BENCH_AGENT_DATA, store, ...(nodeName === undefined ? {} : { nodeName }) }));
}

const send = (message: AgentChildMessage) => process.send?.(message);

process.on("message", (message: AgentParentMessage) => {
  if (message.kind !== "probe") return;
  // What the agent does once idle, at once (a Node started with a choice of its own: a plain collection).
  if (message.collect) compactor === undefined ? (globalThis as { gc?: () => void }).gc?.() : compactor.compactNow();
  send({ kind: "probed", blockingQueries: agents[0]!.blockingQueries });
});
// Without its parent, nobody would stop it.
process.on("disconnect", () => process.exit(0));

send({ kind: "listening", url: agents[0]!.url, urls: agents.map((agent) => agent.url) });
