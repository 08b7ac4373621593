import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { complete, schemas, validate } from "../src/index.js";

const run = promisify(execFile);
const readme = readFileSync("README.md", "utf8");
const editor = readme.slice(readme.indexOf("## Editor support"), readme.indexOf("## The bexpr command"));
const cli = readme.slice(readme.indexOf("## The bexpr command"), readme.indexOf("## Typed mode"));

/** The rows of the markdown table that follows `heading` in `section`, as cells (`\|` unescaped). */
function table(section: string, heading: string): string[][] {
  const start = section.indexOf(heading);
  const lines = section.slice(start).split("\n").slice(2);
  const rows: string[][] = [];
  for (const line of lines) {
    if (!line.startsWith("|")) break;
    rows.push(line.replace(/\\\|/g, "\u0000").split("|").slice(1, -1).map((cell) => cell.trim().replace(/\u0000/g, "|")));
  }
  return rows;
}

/** The code spans of a cell. */
const code = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** The sample jobs the README's completion table describes. */
const samples = [
  { ID: "web", Status: "running", Meta: { owner: "team-a", "web-api": "yes" }, Datacenters: ["dc1"], TaskGroups: [{ Name: "web", Count: 3 }] },
  { ID: "db", Status: "pending", Meta: { owner: "team-b" }, Datacenters: ["dc2"], TaskGroups: [] },
];

describe("the README's diagnostics table", () => {
  const rows = table(editor, "| Filter | Diagnostic");
  it("has a row for each kind of hint", () => expect(rows.length).toBeGreaterThanOrEqual(8));

  it.each(rows)("%s gives %s", (filterCell, diagnosticCell, suggestion) => {
    const [source] = code(filterCell);
    const [expectedCode] = code(diagnosticCell);
    const [, start, end] = /at (\d+)–(\d+)/.exec(diagnosticCell)!;
    const diagnostics = validate(source!, filterCell.includes("schemas.job") ? { schema: schemas.job } : {});
    expect(diagnostics.map((d) => [d.code, d.span.start, d.span.end, d.suggestion])).toContainEqual([expectedCode, Number(start), Number(end), suggestion]);
  });
});

describe("the README's completion table", () => {
  const rows = table(editor, "| Source | Completions |");
  it("has a row for each kind of position", () => expect(rows.length).toBeGreaterThanOrEqual(9));

  it.each(rows)("%s offers %s", (sourceCell, completionsCell) => {
    const [written] = code(sourceCell);
    const offset = written!.indexOf("|");
    const source = written!.replace("|", "");
    const completions = complete(source, offset, { schema: schemas.job, samples });
    const shown = completions.map((c) => (c.kind === "value" || (c.kind === "key" && c.text.startsWith("[")) ? c.text : c.label));
    expect(shown).toEqual(code(completionsCell));
  });
});

describe("the README's bexpr runs", () => {
  const block = /```console\n([\s\S]*?)```/.exec(cli)![1]!;
  const runs = block
    .split(/^\$ /m)
    .slice(1)
    .map((chunk) => {
      const [command, ...output] = chunk.split("\n");
      return [command!, output.join("\n")] as const;
    });

  it("has runs of check, fmt and eval", () => {
    for (const command of ["check", "fmt", "eval"]) expect(runs.some(([line]) => line.includes(`bexpr ${command}`))).toBe(true);
  });

  it.each(runs)("$ %s", async (command, expected) => {
    const shell = `bexpr() { "${process.execPath}" dist/cli.js "$@"; }; ${command} 2>&1; true`;
    const { stdout } = await run("sh", ["-c", shell], { env: { ...process.env, NO_COLOR: "1" } });
    expect(stdout).toBe(expected);
  });
});
