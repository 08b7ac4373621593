/**
 * How `bexpr agent` asks V8 to keep its heap dense.
 *
 * The agent's state is long-lived objects (jobs, versions, allocations) written among
 * medium-lived ones that die in the old generation after seconds or minutes (the request
 * journal's entries, the event buffer's writes, evaluations on their way, a request's objects
 * kept across the placement delay). V8's full collections free those but compact only a few
 * fragmented pages each, so the old generation keeps about twice its live bytes in pages it
 * does not give back (measured: 169 MiB live in 457 MiB of old space at 30,000 jobs; docs/agent.md,
 * "Memory"). With `--compact-on-every-full-gc`, each full collection moves the live objects
 * together and returns the emptied pages (170 MiB live in 173 MiB). Full collections are rare at
 * the agent's allocation rates (the heap grows about twofold between two), so the copying costs
 * little beside the memory it gives back.
 *
 * It is a flag of the whole process: the command line sets it, since the process is the agent's;
 * `startAgent` does not, since an embedding program's heap is its own (docs/agent.md says how to
 * set it there).
 *
 * @module
 */
import { setFlagsFromString } from "node:v8";

/** The V8 flag that makes every full collection compact the heap. */
export const COMPACTION_FLAG = "--compact-on-every-full-gc";

/**
 * Sets {@link COMPACTION_FLAG} unless the process was started with it or with its negation
 * (`node --no-compact-on-every-full-gc dist/cli.js agent`: the user's choice stands); whether
 * the flag is on afterwards, as far as this process's arguments tell.
 */
export function compactHeapOnFullCollections(execArgv: readonly string[] = process.execArgv): boolean {
  const chosen = execArgv.findLast((argument) => argument.replaceAll("_", "-").replace(/^--no-/, "--") === COMPACTION_FLAG);
  if (chosen !== undefined) return !chosen.startsWith("--no-");
  setFlagsFromString(COMPACTION_FLAG);
  return true;
}
