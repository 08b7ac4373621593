/**
 * The JavaScript of dist/: the entry points (`bexpr`, `bexpr/server`, `bexpr/sql`, `bexpr/codemirror`,
 * the `bexpr` command) bundled by esbuild, with the code they share in chunks, so that importing the engine reads a few files
 * instead of some 700 (Chevrotain alone pulls in 640 lodash-es modules). The engine's own
 * dependencies (chevrotain, re2js, lossless-json) are bundled in, and croner (the agent's cron times) and @noble/hashes' BLAKE2b (ACL role hashes), small and without
 * dependencies of its own); the agent's (fastify and the rest, the package's
 * optional peer dependencies, see src/optional-packages.ts) stay imports, loaded only by `bexpr/server` and `bexpr agent`. CodeMirror's
 * packages (the peer dependencies of `bexpr/codemirror`) stay imports too: the application that
 * uses the extension brings its own, and two copies of @codemirror/state in one editor break it.
 * tsc writes the declarations beside it, and rollup-types.mjs rolls them up, one file per entry
 * point (`npm run build`).
 *
 * Plain JavaScript, as it runs before anything is compiled.
 */
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { buildUi } from "./bundle-ui.mjs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

const result = await build({
  metafile: true,
  entryPoints: ["src/index.ts", "src/server/index.ts", "src/sql/index.ts", "src/codemirror/index.ts", "src/cli.ts"],
  outdir: "dist",
  outbase: "src",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // No keepNames: it wraps every function and closure the engine makes with a naming call, which
  // doubled the time to compile a filter (C 17 → 32 µs). The public classes that bundling renames
  // (a class naming itself inside its body becomes `class _Name`), Filter and FilterEvaluationError,
  // set their own name in a static block instead (test/packaging.test.ts holds it).
  // The engine's dependencies are bundled (so they are devDependencies: a consumer never installs
  // them, and rollup-types.mjs writes the few types of theirs the declarations name into the
  // roll-ups); the agent's and CodeMirror's (the optional peer dependencies) stay imports.
  external: [...Object.keys(pkg.peerDependencies), "@codemirror/*", "@lezer/*"],
  define: { BEXPR_BUILD_VERSION: JSON.stringify(pkg.version), BEXPR_BUILD_PEERS: JSON.stringify(pkg.peerDependencies) },
  // The licence headers of bundled code (Chevrotain, lodash-es, re2js) are kept at the end of each file.
  legalComments: "eof",
  logLevel: "warning",
});

// bexpr/codemirror as Node loads it (the "node" condition of its export): the same module, loaded
// so that a missing peer is named with the command that installs them all, rather than left to
// Node's raw ERR_MODULE_NOT_FOUND. Browsers and bundlers take the module itself.
const codemirrorExports = result.metafile.outputs["dist/codemirror/index.js"]?.exports;
if (codemirrorExports === undefined || codemirrorExports.length === 0) throw new Error("bundle: dist/codemirror/index.js has no exports");
const peers = Object.keys(pkg.peerDependencies).filter((name) => /^@(codemirror|lezer)\//.test(name));
// One message for both ways in (the "import" and the "require" condition of the export).
const missingPeer = `const PEERS = ${JSON.stringify(peers)};
function missingPeer(error) {
  const missing = error?.code === "ERR_MODULE_NOT_FOUND" ? PEERS.find((peer) => String(error.message).includes(\`'\${peer}'\`)) : undefined;
  return missing === undefined ? error : new Error(\`bexpr/codemirror needs CodeMirror 6 beside it, and \${missing} is not installed: npm install \${PEERS.join(" ")}\`, { cause: error });
}`;
writeFileSync(
  "dist/codemirror/node.js",
  `// bexpr/codemirror in Node: the module itself, with its missing peer packages named (scripts/bundle.mjs).
${missingPeer}
let extension;
try {
  extension = await import("./index.js");
} catch (error) {
  throw missingPeer(error);
}
export const { ${codemirrorExports.join(", ")} } = extension;
`,
);
// require("bexpr/codemirror") (Node 20.19+ and 22.12+ load ES modules with require()): the same.
writeFileSync(
  "dist/codemirror/node.cjs",
  `// bexpr/codemirror for require() in Node: the module itself, with its missing peer packages named (scripts/bundle.mjs).
${missingPeer}
try {
  module.exports = require("./index.js");
} catch (error) {
  throw missingPeer(error);
}
`,
);

// The agent's web UI, for browsers, into dist/ui/ (see bundle-ui.mjs).
await buildUi();
