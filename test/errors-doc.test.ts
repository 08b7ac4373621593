/**
 * docs/errors.md explains every error code, each in a section of its own whose anchor is the code
 * (the language server links diagnostics there). The codes are read from the unions of
 * src/errors.ts, so a new code without its section fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const errors = readFileSync(join(ROOT, "src/errors.ts"), "utf8");
const doc = readFileSync(join(ROOT, "docs/errors.md"), "utf8");

/** The string members of the union type `name` in src/errors.ts. */
function union(name: string): string[] {
  const start = errors.indexOf(`export type ${name} =`);
  // The union ends at its last member's semicolon (comments inside it hold semicolons too).
  const end = errors.indexOf('";\n', start) + 1;
  return [...errors.slice(start, end).matchAll(/\|\s*"([a-z_]+)"/g)].map((match) => match[1]!);
}

const codes = [...new Set([...union("SyntaxErrorCode"), ...union("EvaluationErrorCode")])];
const headings = new Set([...doc.matchAll(/^### ([a-z_]+)$/gm)].map((match) => match[1]!));

describe("docs/errors.md", () => {
  it("reads the codes from src/errors.ts", () => {
    expect(codes).toContain("unknown_field");
    expect(codes).toContain("cost_exceeded");
    expect(codes.length).toBeGreaterThan(30);
  });

  it.each(codes)("has a section for %s", (code) => {
    expect(headings.has(code), `docs/errors.md has no "### ${code}"`).toBe(true);
  });

  it("has no section for a code that does not exist", () => {
    expect([...headings].filter((heading) => !codes.includes(heading))).toEqual([]);
  });
});
