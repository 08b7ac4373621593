/**
 * The engine runs in browsers (the CodeMirror extension and the agent's /ui/ page bundle it): the
 * engine (`bexpr`, what dist/index.js is built from) bundles for the browser platform with nothing of Node's in it.
 */
import { build } from "esbuild";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

describe("the browser bundle of bexpr", () => {
  it("bundles the engine (src/index.ts) for the browser without any node: module", async () => {
    const result = await build({
      stdin: { contents: 'export * from "./src/index.ts";', resolveDir: ROOT, loader: "ts" },
      bundle: true,
      format: "esm",
      platform: "browser",
      write: false,
      logLevel: "silent",
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => input.startsWith("node:"))).toEqual([]);
    expect(result.outputFiles[0]!.text).not.toMatch(/from\s*"node:|require\("node:/);
  });
});
