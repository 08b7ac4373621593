/** The README's speed table is what `npm run bench` wrote from bench/results.json, not edited by hand. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { README_EDITOR_END, README_EDITOR_START, README_END, README_START, renderEditorFigures, renderReadmeTable, withReadmeSection, withReadmeTable, type BenchResults } from "../bench/report.js";

describe("the README's speed table", () => {
  it("shows the figures of bench/results.json", () => {
    const results = JSON.parse(readFileSync("bench/results.json", "utf8")) as BenchResults;
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toContain(README_START);
    expect(readme).toContain(README_END);
    expect(withReadmeTable(readme, renderReadmeTable(results))).toBe(readme);
  });

  it("and its editor figures, in the Editors section", () => {
    const results = JSON.parse(readFileSync("bench/results.json", "utf8")) as BenchResults;
    const readme = readFileSync("README.md", "utf8");
    expect(results.editor).toBeDefined();
    expect(withReadmeSection(readme, README_EDITOR_START, README_EDITOR_END, renderEditorFigures(results.editor!))).toBe(readme);
  });
});
