/**
 * The one analysis of a filter behind the editor features: made once per source and shared (hover,
 * completion, diagnostics, semantic tokens, selection, highlight read the same one), its cache
 * bounded, its contexts naming no token, and no module outside the parser reading a token.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { complete, hover, schemas, validate } from "../../src/index.js";
import { classifyTokens, occurrences, selectionSpans } from "../../src/editor/structure.js";
import { ANALYSIS_CACHE_CHARS, analysisOf, isBindableName, lexicalWords } from "../../src/parser/analysis.js";

const SRC = join(import.meta.dirname, "../../src");

describe("the analysis of a filter", () => {
  it("is made once per source and limits, and shared by every feature that reads it", () => {
    const source = `any TaskGroups as g { (g.Count == 0) } or ID == "${Math.random()}"`;
    const first = analysisOf(source);
    hover(source, 2, { schema: schemas.job });
    complete(source, source.length, { schema: schemas.job });
    validate(source, { schema: schemas.job });
    classifyTokens(source);
    selectionSpans(source, 25);
    occurrences(source, 22);
    expect(analysisOf(source)).toBe(first);
    // Other limits are another analysis: a limit decides what is read.
    expect(analysisOf(source, { maxNestingDepth: 1 })).not.toBe(first);
    expect(analysisOf(source, { maxNestingDepth: 1 }).beyondLimits).toBe(true);
    expect(first.beyondLimits).toBe(false);
  });

  it("keeps the last analysis only, and none that costs more than ANALYSIS_CACHE_CHARS", () => {
    const first = analysisOf(`Status == "first-${Math.random()}"`);
    const second = analysisOf(`Status == "second-${Math.random()}"`);
    expect(analysisOf(second.source)).toBe(second);
    expect(analysisOf(first.source)).not.toBe(first);
    // About ANALYSIS_CACHE_CHARS / 100 tokens (a token counts as 100 characters): over the bound, not kept.
    const large = Array.from({ length: ANALYSIS_CACHE_CHARS / 300 }, (_, k) => `A${k} == 1`).join(" or ");
    expect(analysisOf(large)).not.toBe(analysisOf(large));
    const small = Array.from({ length: ANALYSIS_CACHE_CHARS / 600 }, (_, k) => `A${k} == 1`).join(" or ");
    expect(analysisOf(small)).toBe(analysisOf(small));
  });

  it.each([
    ["g", true],
    ["tg2", true],
    ["_", false],
    ["and", false],
    ["in", false],
    ["2x", false],
    ['"g"', false],
    ["g h", false],
    ["", false],
  ])("takes %j as a variable's name: %s", (name, ok) => {
    expect(isBindableName(name)).toBe(ok);
  });

  it("gives the lexer's words with their type names, a keyword used as a name still a keyword", () => {
    expect(lexicalWords("Meta.in == `x`")).toEqual([
      { type: "Identifier", start: 0, end: 4 },
      { type: "Dot", start: 4, end: 5 },
      { type: "In", start: 5, end: 7 },
      { type: "Equal", start: 8, end: 10 },
      { type: "RawString", start: 11, end: 14 },
    ]);
  });
});

describe("the boundary of the parser", () => {
  const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(SRC, join(entry.parentPath, entry.name)));

  it("has files to check", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it("lets no module outside the lexer and the parser read a token (the token types, the lexer, Chevrotain)", () => {
    const readers = files.filter((path) => !path.startsWith("parser/") && !path.startsWith("lexer/")).filter((path) => /from "(chevrotain|[./]+\/lexer\/[^"]+)"/.test(readFileSync(join(SRC, path), "utf8")));
    expect(readers).toEqual([]);
  });
});
