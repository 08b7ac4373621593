/**
 * The agent's answer to a full memory: past a share of the process's heap limit, writes that add
 * to the state are refused (`503`, the reason in plain text) rather than taken until the process
 * runs out of heap and dies with every client's state. The reference has no such limit (its
 * state is bounded by its servers' memory, and a server out of memory is killed); a `503` is
 * what its HTTP layer answers when it cannot serve a request now, and a client may retry once
 * jobs are deleted or collected. Reads, deletions and `PUT /v1/system/gc` are still served.
 *
 * @module
 */
import { getHeapStatistics } from "node:v8";
import { Refusal } from "../base/errors.js";

/**
 * The default share of the heap limit (`v8.getHeapStatistics().heap_size_limit`, set by
 * `--max-old-space-size`) past which writes are refused: the rest is room for the requests in
 * flight, the scheduler's work on the jobs already taken, and V8's own collection.
 */
export const STATE_HEAP_FRACTION = 0.85;

/** The heap's use and limit, in bytes. */
export interface HeapUse {
  readonly usedBytes: number;
  readonly limitBytes: number;
}

/** The heap's use and limit now (V8's `used_heap_size` and `heap_size_limit`). */
export function heapUse(): HeapUse {
  const { used_heap_size: usedBytes, heap_size_limit: limitBytes } = getHeapStatistics();
  return { usedBytes, limitBytes };
}

/** Whether `use` is past `fraction` of its limit: a use of exactly the share is still accepted. */
export function heapFull(use: HeapUse, fraction: number): boolean {
  return use.usedBytes > use.limitBytes * fraction;
}

const MIB = 1024 * 1024;

/**
 * Throws a `full` refusal (`503`) when the heap is past `fraction` of its limit ({@link heapFull}),
 * naming the figures, the limit and what to do.
 */
export function checkHeapForWrite(fraction: number, use: HeapUse = heapUse()): void {
  if (!heapFull(use, fraction)) return;
  throw new Refusal(
    "full",
    `The agent's memory is full: its heap holds ${Math.round(use.usedBytes / MIB)} MiB, past ${fraction} of its ${Math.round(use.limitBytes / MIB)} MiB limit ` +
      "(limits.stateHeapFraction); writes are refused until jobs are deleted or collected, or the agent is restarted with a larger --max-old-space-size",
  );
}
