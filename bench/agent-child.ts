/**
 * The agent of the agent benchmark (bench/agent.ts), in a process of its own so that it does not
 * share an event loop with the load generator. Started with `fork()` and `--expose-gc`:
 * `node agent-child.js <placement delay ms>`. It starts an empty, silent agent through the public
 * API (`startAgent` from `bexpr/server`), sends its URL, answers each probe with the number of
 * blocking queries waiting (`Agent.blockingQueries`; after a full garbage collection when asked,
 * so that the parent's reading of the process's RSS does not depend on when V8 last collected),
 * and exits when the parent goes away.
 */
import { startAgent } from "bexpr/server";
import { BENCH_AGENT_DATA } from "./data.js";

/** What the child sends to the parent. */
export type AgentChildMessage = { readonly kind: "listening"; readonly url: string } | { readonly kind: "probed"; readonly blockingQueries: number };

/** What the parent sends to the child: a probe, with a full garbage collection first when `collect`. */
export type AgentParentMessage = { readonly kind: "probe"; readonly collect: boolean };

const placementDelayMs = Number(process.argv[2]);
if (!Number.isFinite(placementDelayMs)) throw new Error("usage: agent-child.js <placement delay ms>");

const agent = await startAgent({ port: 0, logLevel: "silent", demo: false, placementDelayMs, data: BENCH_AGENT_DATA });

const send = (message: AgentChildMessage) => process.send?.(message);

process.on("message", (message: AgentParentMessage) => {
  if (message.kind !== "probe") return;
  if (message.collect) (globalThis as { gc?: () => void }).gc?.();
  send({ kind: "probed", blockingQueries: agent.blockingQueries });
});
// Without its parent, nobody would stop it.
process.on("disconnect", () => process.exit(0));

send({ kind: "listening", url: agent.url });
