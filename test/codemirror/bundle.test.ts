/**
 * `bexpr/codemirror` goes into browser bundles: from its source and from what `npm run build`
 * writes (dist/codemirror/index.js and its chunks), it bundles for the browser with the engine
 * alone, CodeMirror's packages left to the application, and nothing of Node's or of the agent's.
 */
import { build, type Metafile } from "esbuild";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
/** CodeMirror's packages: peer dependencies, so never in the extension's own code. */
const PEERS = ["@codemirror/*", "@lezer/*"];

/** Bundles `entry` for browsers as an application would, CodeMirror's packages left out. */
async function bundleForBrowsers(entry: string): Promise<{ inputs: string[]; imports: Metafile["outputs"][string]["imports"] }> {
  const result = await build({
    entryPoints: [resolve(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    format: "esm",
    platform: "browser",
    external: PEERS,
    write: false,
    logLevel: "silent",
    metafile: true,
  });
  const [output] = Object.values(result.metafile.outputs);
  return { inputs: Object.keys(result.metafile.inputs), imports: output!.imports };
}

describe("the browser bundle of bexpr/codemirror", () => {
  it("holds the engine and the extension, and imports nothing but CodeMirror's packages", async () => {
    const { inputs, imports } = await bundleForBrowsers("src/codemirror/index.ts");
    const sources = inputs.filter((input) => input.startsWith("src/"));
    expect(sources).toContain("src/codemirror/index.ts");
    expect(sources.filter((input) => /^src\/(server|cli|sql|lsp|ui)\b/.test(input) || input === "src/cli.ts")).toEqual([]);
    expect(inputs.filter((input) => input.startsWith("node:") || /node_modules\/(fastify|pg|prom-client|vscode-)/.test(input))).toEqual([]);
    expect(imports.every((imported) => imported.external && /^@(codemirror|lezer)\//.test(imported.path))).toBe(true);
    // The extension's own code never bundles a copy of CodeMirror (two copies of @codemirror/state break an editor).
    expect(inputs.filter((input) => /node_modules\/@(codemirror|lezer)\//.test(input))).toEqual([]);
  });

  it.skipIf(!existsSync(resolve(ROOT, "dist/codemirror/index.js")))("is built into dist/ with CodeMirror's packages left as imports", async () => {
    const { inputs, imports } = await bundleForBrowsers("dist/codemirror/index.js");
    expect(inputs.filter((input) => input.startsWith("node:") || /node_modules\//.test(input))).toEqual([]);
    expect(imports.map((imported) => imported.path).filter((path) => !/^@(codemirror|lezer)\//.test(path))).toEqual([]);
  });
});
