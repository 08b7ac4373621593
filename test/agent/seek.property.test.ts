/**
 * Pages are found by seeking: the position a page starts at must be the one the reference's
 * paginator reaches by walking every row from the first and skipping those before `next_token`
 * (after it, in reverse), whatever the rows, segments and token, including tokens that order
 * differently from the rows across namespaces (`a.x` after `a-b.c`) and tokens that do not parse.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareStrings } from "../../src/go/order.js";
import { cutPage, seek, type PageSource } from "../../src/server/list/page.js";
import { MemoryStore } from "../../src/server/state/memory.js";
import type { Job } from "../../src/server/state/model.js";

/** The reference's walk: the first position not before the token, by scanning. */
function scan<Row>(source: Pick<PageSource<Row>, "rows" | "token" | "compare">, nextToken: string, reverse: boolean): number {
  const { rows, token, compare } = source;
  if (nextToken === "") return reverse ? rows.size - 1 : 0;
  if (reverse) {
    let position = rows.size - 1;
    while (position >= 0 && compare(token(rows.at(position)), nextToken) > 0) position--;
    return position;
  }
  let position = 0;
  while (position < rows.size && compare(token(rows.at(position)), nextToken) < 0) position++;
  return position;
}

const namespace = fc.constantFrom("a", "a-b", "a.b", "b", "default", "\u{1F600}");
const id = fc.constantFrom("a", "b", "c", "web", "web-1", "web.1", "x", "\u{FFFD}");

describe("a seek to next_token", () => {
  it("starts the jobs list where a scan from the first row would, in every namespace selection and direction", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(namespace, id), { selector: ([ns, i]) => `${ns}\u0000${i}`, maxLength: 30 }),
        fc.constantFrom("*", "a", "a-b", "default"),
        fc.oneof(fc.constant(""), fc.tuple(namespace, id).map(([ns, i]) => `${ns}.${i}`), fc.string({ maxLength: 4 })),
        fc.boolean(),
        (rows, selected, nextToken, reverse) => {
          const store = new MemoryStore();
          store.write(["jobs"], (state) => rows.forEach(([Namespace, ID]) => state.jobs.put({ Namespace, ID } as Job)), "JobRegister");
          const source = { rows: store.queries.jobs(selected, ""), token: (job: Job) => `${job.Namespace}.${job.ID}`, compare: compareStrings, seekable: true };
          expect(seek(source, nextToken, reverse)).toBe(scan(source, nextToken, reverse));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("falls back to the scan where the endpoint says its tokens do not order as its rows", () => {
    // Rows by number, tokens compared as text: "10" < "9" as text.
    const numbers = [1, 2, 9, 10, 11, 100];
    const rows = { size: numbers.length, at: (position: number) => numbers[position]!, segments: [] };
    const source = { rows, token: String, compare: compareStrings, seekable: false };
    expect(seek(source, "9", false)).toBe(scan(source, "9", false));
    expect(seek(source, "9", false)).toBe(2);
    expect(seek(source, "10", true)).toBe(scan(source, "10", true));
  });

  it("cuts the same pages from the seek as from the scan", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 50 }), { maxLength: 25 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 5 }), fc.boolean(), (values, from, perPage, reverse) => {
        const sorted = [...values].sort((x, y) => x - y);
        const rows = { size: sorted.length, at: (position: number) => sorted[position]!, segments: [] };
        const token = (value: number) => String(value).padStart(3, "0");
        const nextToken = token(from);
        const source = { rows, token, compare: compareStrings, seekable: true, filterTarget: (value: number) => value, permitted: (value: number) => value % 7 !== 0 };
        const page = cutPage(source, { perPage, nextToken, reverse, filter: undefined });
        const walked = (reverse ? [...sorted].reverse() : sorted).filter((value) => (reverse ? value <= from : value >= from)).filter(source.permitted);
        expect(page.rows).toEqual(perPage === 0 ? walked : walked.slice(0, perPage));
        expect(page.nextToken).toBe(perPage > 0 && walked.length > perPage ? token(walked[perPage]!) : "");
      }),
      { numRuns: 1000 },
    );
  });
});
