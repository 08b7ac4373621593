/** The README's speed table is what `npm run bench` wrote from bench/results.json, not edited by hand. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { README_END, README_START, renderReadmeTable, withReadmeTable, type BenchResults } from "../bench/report.js";

describe("the README's speed table", () => {
  it("shows the figures of bench/results.json", () => {
    const results = JSON.parse(readFileSync("bench/results.json", "utf8")) as BenchResults;
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toContain(README_START);
    expect(readme).toContain(README_END);
    expect(withReadmeTable(readme, renderReadmeTable(results))).toBe(readme);
  });
});
