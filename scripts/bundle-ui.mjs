/**
 * The agent's web UI (src/ui/) built for browsers into dist/ui/: index.html, one JavaScript
 * bundle and one style sheet, minified, with everything bundled (CodeMirror and the engine
 * included), so the page needs nothing but the agent that serves it. The bundles' names carry a
 * hash of their content, so the agent lets browsers keep them for good; index.html names them.
 *
 * Called by scripts/bundle.mjs (`npm run build`); `node scripts/bundle-ui.mjs` builds the UI alone.
 * Plain JavaScript, as it runs before anything is compiled.
 */
import { build } from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The page's entry point; it imports its style sheet, which esbuild writes beside the bundle. */
const ENTRY = "src/ui/main.ts";
const TEMPLATE = "src/ui/index.html";
const OUT_DIR = "dist/ui";
/** The placeholders of the template that name the built files. */
const SCRIPT_PLACEHOLDER = "%MAIN_JS%";
const STYLE_PLACEHOLDER = "%MAIN_CSS%";

/** Builds the UI into dist/ui/, replacing what was there; returns the built files' names and sizes. */
export async function buildUi() {
  const root = fileURLToPath(new URL("..", import.meta.url));
  rmSync(`${root}${OUT_DIR}`, { recursive: true, force: true });
  mkdirSync(`${root}${OUT_DIR}`, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [ENTRY],
    outdir: OUT_DIR,
    entryNames: "[name]-[hash]",
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    // The browsers of the last few years; CodeMirror itself needs ES2020.
    target: ["es2022", "chrome105", "firefox110", "safari16"],
    metafile: true,
    // Licence texts of the bundled code go in one file beside the bundle, named at its end.
    legalComments: "linked",
    logLevel: "warning",
  });
  const [script, output] = Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint === ENTRY) ?? [];
  if (script === undefined || output?.cssBundle === undefined) throw new Error(`${ENTRY} built no script and style sheet`);
  const page = readFileSync(`${root}${TEMPLATE}`, "utf8");
  if (!page.includes(SCRIPT_PLACEHOLDER) || !page.includes(STYLE_PLACEHOLDER)) {
    throw new Error(`${TEMPLATE} must name ${SCRIPT_PLACEHOLDER} and ${STYLE_PLACEHOLDER}`);
  }
  writeFileSync(`${root}${OUT_DIR}/index.html`, page.replace(SCRIPT_PLACEHOLDER, basename(script)).replace(STYLE_PLACEHOLDER, basename(output.cssBundle)));
  return Object.fromEntries(Object.entries(result.metafile.outputs).map(([file, out]) => [basename(file), out.bytes]));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await buildUi());
}
