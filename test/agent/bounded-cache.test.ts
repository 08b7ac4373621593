/**
 * The caches bounded by bytes (`list/bounded-cache.ts`): the least recently used entry goes first,
 * a repeated hit included, and an entry larger than the bound is never kept.
 */
import { describe, expect, it } from "vitest";
import { BoundedCache } from "../../src/server/list/bounded-cache.js";

/** Runs `steps` on a cache of `maxBytes` whose entries weigh one byte each (`big`: more than the bound); its keys, oldest first. */
function keysAfter(maxBytes: number, steps: readonly string[]): string[] {
  const cache = new BoundedCache<string>(maxBytes);
  const kept: string[] = [];
  for (const step of steps) {
    const [verb, key] = step.split(" ") as [string, string];
    if (verb === "get") cache.get(key);
    else cache.set(key, key, verb === "big" ? maxBytes + 1 : 1);
  }
  for (const key of ["a", "b", "c", "d"]) if (cache.get(key) !== undefined) kept.push(key);
  return kept.sort();
}

describe("a bounded cache", () => {
  it.each<[string, number, string[], string[]]>([
    ["evicts the least recently set", 2, ["set a", "set b", "set c"], ["b", "c"]],
    ["keeps an entry read since", 2, ["set a", "set b", "get a", "set c"], ["a", "c"]],
    ["keeps an entry read twice in a row (the second read leaves it last)", 2, ["set a", "set b", "get a", "get a", "set c"], ["a", "c"]],
    ["moves an entry read after another was set", 2, ["set a", "set b", "get a", "set b", "get a", "set c"], ["a", "c"]],
    ["moves an entry read after another was read", 3, ["set a", "set b", "set c", "get a", "get b", "get a", "set d"], ["a", "b", "d"]],
    ["never keeps an entry larger than the bound, and drops the one it replaces", 2, ["set a", "set b", "big b", "set c"], ["a", "c"]],
    ["forgets a replaced newest entry (a read of it is a miss)", 2, ["set a", "big a", "get a", "set b", "set c"], ["b", "c"]],
  ])("%s", (_name, maxBytes, steps, kept) => {
    expect(keysAfter(maxBytes, steps)).toEqual(kept);
  });

  it("counts the bytes its entries hold", () => {
    const cache = new BoundedCache<string>(10);
    cache.set("a", "a", 4);
    cache.set("b", "b", 5);
    cache.get("a");
    cache.get("a");
    expect([cache.bytes, cache.size]).toEqual([9, 2]);
    cache.set("c", "c", 3);
    expect([cache.bytes, cache.size, cache.get("b"), cache.get("a")]).toEqual([7, 2, undefined, "a"]);
  });
});
