/**
 * The JavaScript of dist/: the entry points (`bexpr`, `bexpr/server`, `bexpr/sql`, `bexpr/codemirror`,
 * the `bexpr` command) bundled by esbuild, with the code they share in chunks, so that importing the engine reads a few files
 * instead of some 700 (Chevrotain alone pulls in 640 lodash-es modules). The engine's own
 * dependencies (chevrotain, re2js, lossless-json) are bundled in; the agent's (fastify and the rest, the package's
 * optional dependencies) stay imports, loaded only by `bexpr/server` and `bexpr agent`. CodeMirror's
 * packages (the peer dependencies of `bexpr/codemirror`) stay imports too: the application that
 * uses the extension brings its own, and two copies of @codemirror/state in one editor break it.
 * tsc writes the declarations beside it (`npm run build`).
 *
 * Plain JavaScript, as it runs before anything is compiled.
 */
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { buildUi } from "./bundle-ui.mjs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

await build({
  entryPoints: ["src/index.ts", "src/server/index.ts", "src/sql/index.ts", "src/codemirror/index.ts", "src/cli.ts"],
  outdir: "dist",
  outbase: "src",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // The engine's dependencies are bundled; the agent's (the optional dependencies) stay imports.
  // They stay dependencies all the same: the declarations name their types.
  external: [...Object.keys(pkg.optionalDependencies ?? {}), "@codemirror/*", "@lezer/*"],
  define: { BEXPR_BUILD_VERSION: JSON.stringify(pkg.version) },
  // The licence headers of bundled code (Chevrotain, lodash-es, re2js) are kept at the end of each file.
  legalComments: "eof",
  logLevel: "warning",
});

// The agent's web UI, for browsers, into dist/ui/ (see bundle-ui.mjs).
await buildUi();
