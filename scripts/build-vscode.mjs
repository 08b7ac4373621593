/**
 * The VS Code extension's package (`npm run build:vscode`): the client bundled by esbuild into
 * editors/vscode/dist/extension.js (VS Code's `vscode` module left to the editor), the project's
 * LICENSE beside it, and `vsce package` making editors/vscode/dist/bexpr-vscode-<version>.vsix.
 * The extension's dependencies are in the bundle, so vsce adds none.
 *
 * Plain JavaScript, as it runs before anything is compiled.
 */
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const EXTENSION = join(ROOT, "editors/vscode");
const manifest = JSON.parse(readFileSync(join(EXTENSION, "package.json"), "utf8"));

await build({
  entryPoints: [join(EXTENSION, "src/extension.ts")],
  outfile: join(EXTENSION, "dist/extension.js"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node18",
  external: ["vscode"],
  minify: true,
  legalComments: "eof",
  logLevel: "warning",
});
copyFileSync(join(ROOT, "LICENSE"), join(EXTENSION, "LICENSE"));

/** Where the package is written. */
export const VSIX = join(EXTENSION, "dist", `${manifest.name}-${manifest.version}.vsix`);
const vsce = spawnSync(join(ROOT, "node_modules/.bin/vsce"), ["package", "--no-dependencies", "--out", VSIX], { cwd: EXTENSION, encoding: "utf8" });
if (vsce.status !== 0) {
  process.stderr.write(`${vsce.stdout}${vsce.stderr}`);
  throw new Error(`vsce package exited with ${vsce.status}`);
}
process.stdout.write(`${VSIX}\n`);
