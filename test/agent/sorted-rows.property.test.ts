/**
 * The in-memory tables keep their rows in sorted blocks (`state/sorted-rows.ts`): whatever the
 * sequence of inserts, replacements and removals, the rows read by position, by lower bound and in
 * order are those of a plain sorted array, and no block grows past its bound, so that a row put
 * anywhere moves at most one block's rows.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BLOCK_ROWS, SortedRows } from "../../src/server/state/sorted-rows.js";

interface Item {
  readonly key: number;
  readonly version: number;
}

const order = (a: Item, b: Item) => a.key - b.key;

/** An operation on the rows: put a key (insert, or replace the row of that key), or remove one. */
const operation = fc.oneof(
  fc.record({ kind: fc.constant("put" as const), key: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ kind: fc.constant("remove" as const), key: fc.integer({ min: 0, max: 200 }) }),
);

describe("sorted rows", () => {
  it("read as a sorted array after any inserts, replacements and removals, blocks within their bound", () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 400 }), fc.integer({ min: 2, max: 9 }), fc.integer({ min: -5, max: 205 }), (operations, blockRows, probe) => {
        const rows = new SortedRows<Item>(order, blockRows);
        const model = new Map<number, Item>();
        operations.forEach(({ kind, key }, version) => {
          const stored = model.get(key);
          if (kind === "put") {
            const row = { key, version };
            if (stored === undefined) rows.insert(row);
            else rows.replace(stored, row);
            model.set(key, row);
          } else if (stored !== undefined) {
            rows.remove(stored);
            model.delete(key);
          }
        });
        const sorted = [...model.values()].sort(order);
        expect(rows.size).toBe(sorted.length);
        expect([...rows]).toEqual(sorted);
        // By position, forwards and backwards (the cache of the last block read must not mislead).
        expect(sorted.map((_, position) => rows.at(position))).toEqual(sorted);
        expect(sorted.map((_, position) => rows.at(sorted.length - 1 - position))).toEqual([...sorted].reverse());
        expect(rows.at(sorted.length)).toBeUndefined();
        expect(rows.at(-1)).toBeUndefined();
        const expected = sorted.findIndex((row) => row.key >= probe);
        expect(rows.lowerBound((row) => row.key - probe)).toBe(expected === -1 ? sorted.length : expected);
        expect(rows.filter((row) => row.key % 2 === 0)).toEqual(sorted.filter((row) => row.key % 2 === 0));
        for (const size of rows.blockSizes) expect(size).toBeGreaterThan(0);
        for (const size of rows.blockSizes) expect(size).toBeLessThanOrEqual(blockRows);
      }),
      { numRuns: 300 },
    );
  });

  it(`keeps 20,000 rows put in random order in blocks of at most ${BLOCK_ROWS}`, () => {
    const rows = new SortedRows<Item>(order);
    const keys = fc.sample(fc.integer({ min: 0, max: 2 ** 31 }), { numRuns: 20_000, seed: 7 });
    const unique = [...new Set(keys)];
    for (const key of unique) rows.insert({ key, version: 0 });
    expect(rows.size).toBe(unique.length);
    expect(Math.max(...rows.blockSizes)).toBeLessThanOrEqual(BLOCK_ROWS);
    expect(rows.blockSizes.length).toBeGreaterThanOrEqual(Math.ceil(unique.length / BLOCK_ROWS));
    expect([...rows].map((row) => row.key)).toEqual([...unique].sort((a, b) => a - b));
  });
});
