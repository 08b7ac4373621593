/**
 * The editor section of `npm run bench` (alone: `npm run bench:editor`): what an editor calls on
 * every keystroke (`validate`, `complete`, `hover`, `explain`; `fixAll` and `format` on demand) on a 2 KB
 * filter, and the size of what a web page ships: the engine, the CodeMirror extension, and the
 * agent's /ui/ page, bundled and minified by esbuild, raw and gzipped.
 */
import { build } from "esbuild";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { complete, explain, fixAll, format, hover, schemas, validate } from "../src/index.js";
import { jobListItems } from "./data.js";
import { README_EDITOR_END, README_EDITOR_START, renderEditorFigures, withReadmeSection } from "./report.js";
import { median } from "./stats.js";

/** The size the issue names: a long filter, as pasted into an editor. */
const FILTER_BYTES = 2_048;
/** Calls timed per operation, after as many to warm up. */
const CALLS = 300;

/** Clause groups repeated until the filter is {@link FILTER_BYTES} long: every kind of clause the language has. */
const GROUPS = [
  '(Status == "running" and "dc1" in Datacenters and Meta.owner != "team-{i}")',
  '(Name matches "^web-[0-9]+$" or Type == "batch" or Priority == 5{i})',
  '((any TaskGroups as g { g.Count == {i} and g.Name != "api" }) or Stop == false)',
  '(Meta["team-{i}"] is not empty and not (ParentID is empty))',
];

/** A valid 2 KB filter over the job schema. */
export function longFilter(): string {
  const parts: string[] = [];
  for (let i = 0; parts.join(" or ").length < FILTER_BYTES; i++) parts.push(GROUPS[i % GROUPS.length]!.replaceAll("{i}", String(i)));
  return parts.join(" or ");
}

/** The same filter with three mistakes an editor would see while it is typed. */
export function longFilterWithMistakes(): string {
  return longFilter().replace('Status == "running"', 'Status = "running"').replace("Stop == false", "Stop == false AND Stauts").replace("and not", "and !");
}

/**
 * Median microseconds of one call of `run`, over {@link CALLS} calls; `run` gets the call's
 * number, so that each call can read a text no call read before (the editor functions share one
 * cached analysis per text: the same text again measures the cache, which the `…SameText`
 * figures do on purpose).
 */
function timeUs(run: (call: number) => unknown): number {
  for (let i = 0; i < CALLS; i++) run(i);
  const samples: number[] = [];
  for (let i = CALLS; i < 2 * CALLS; i++) {
    const start = process.hrtime.bigint();
    run(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  return median(samples);
}

/** `text` as typed on the `call`th keystroke: the same length and shape, with a number no other call has. */
function typed(text: string, call: number): string {
  const stamp = String(call).padStart(4, "0");
  return text.replace("team-0", `team-${stamp}`);
}

/** Bytes of a bundle, raw and gzipped (level 9, as a server would serve it). */
interface BundleSize {
  readonly rawBytes: number;
  readonly gzipBytes: number;
}

/** Bundles `contents` for the browser (minified ESM), with `external` left out, and measures it. */
async function bundleSize(contents: string, external: readonly string[]): Promise<BundleSize> {
  const root = resolve(import.meta.dirname, "../..");
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    external: [...external],
    write: false,
    logLevel: "error",
    legalComments: "none",
  });
  const code = result.outputFiles[0]!.contents;
  return { rawBytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength };
}

/** The built /ui/ page (dist/ui, from `npm run build`): every file, raw and gzipped; null before a build. */
function uiSize(): BundleSize | null {
  const directory = resolve(import.meta.dirname, "../../dist/ui");
  if (!existsSync(directory)) return null;
  let rawBytes = 0;
  let gzipBytes = 0;
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (!statSync(path).isFile()) continue;
    const bytes = readFileSync(path);
    rawBytes += bytes.byteLength;
    gzipBytes += gzipSync(bytes, { level: 9 }).byteLength;
  }
  return { rawBytes, gzipBytes };
}

/** The figures of this section, under `editor` in bench/results.json. */
export interface EditorFigures {
  readonly filterBytes: number;
  /** Median µs per call. */
  readonly calls: Record<string, number>;
  readonly bundles: Record<string, BundleSize | null>;
}

/** Runs the section and prints its figures. */
export async function editorBench(): Promise<EditorFigures> {
  const source = longFilter();
  const broken = longFilterWithMistakes();
  const schema = schemas.job;
  const job = { ...jobListItems(1)[0]!, TaskGroups: [{ Name: "web", Count: 3 }], Meta: { owner: "team-a" } };
  if (validate(source, { schema }).length !== 0) throw new Error("the bench filter should be valid");
  if (validate(broken, { schema }).length < 3) throw new Error("the bench filter with mistakes should have three problems");
  const middle = source.indexOf("Meta.owner") + "Meta.".length;

  // Each call reads a new text (as on every keystroke), but for the `…SameText` figures: an
  // editor asks for diagnostics, semantic tokens, hover and completion of one text in a row.
  const calls: Record<string, number> = {
    validate: timeUs((call) => validate(typed(source, call), { schema })),
    validateWithMistakes: timeUs((call) => validate(typed(broken, call), { schema })),
    completeAtEnd: timeUs((call) => complete(`${typed(source, call)} and `, source.length + 5 + 3, { schema })),
    completeInMiddle: timeUs((call) => complete(typed(source, call), middle, { schema, samples: [job] })),
    explain: timeUs((call) => explain(typed(source, call), job, { schema })),
    fixAll: timeUs((call) => fixAll(typed(broken, call), { schema })),
    hover: timeUs((call) => hover(typed(source, call), middle, { schema })),
    format: timeUs((call) => format(typed(source, call))),
    validateSameText: timeUs(() => validate(source, { schema })),
    completeSameText: timeUs(() => complete(source, middle, { schema, samples: [job] })),
    hoverSameText: timeUs(() => hover(source, middle, { schema })),
  };

  const codemirror = ["@codemirror/state", "@codemirror/view", "@codemirror/language", "@codemirror/autocomplete", "@codemirror/lint", "@codemirror/commands", "@lezer/highlight", "@lezer/common"];
  const bundles: Record<string, BundleSize | null> = {
    engine: await bundleSize('export * from "./src/index.ts";', []),
    // What an application that already has CodeMirror adds: the engine and the extension.
    engineAndExtension: await bundleSize('export * from "./src/codemirror/index.ts";', codemirror),
    // With the CodeMirror packages the extension uses, for an application that has none.
    withCodeMirror: await bundleSize('export * from "./src/codemirror/index.ts";', []),
    ui: uiSize(),
  };

  console.log(`\neditor calls on a ${source.length}-character filter (µs per call, median of ${CALLS})`);
  for (const [name, us] of Object.entries(calls)) console.log(`  ${name.padEnd(22)} ${us.toFixed(1).padStart(9)}`);
  console.log("browser bundles (esbuild, minified; KB raw / gzipped)");
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  for (const [name, size] of Object.entries(bundles)) {
    console.log(`  ${name.padEnd(26)} ${size === null ? "—" : `${kb(size.rawBytes).padStart(7)} / ${kb(size.gzipBytes).padStart(6)}`}`);
  }
  return { filterBytes: source.length, calls, bundles };
}

// Run alone (`npm run bench:editor`): write the figures under `editor` in bench/results.json.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const figures = await editorBench();
  const path = resolve(import.meta.dirname, "../../bench/results.json");
  const results = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  writeFileSync(path, `${JSON.stringify({ ...results, editor: figures }, null, 2)}\n`);
  const readme = resolve(import.meta.dirname, "../../README.md");
  writeFileSync(readme, withReadmeSection(readFileSync(readme, "utf8"), README_EDITOR_START, README_EDITOR_END, renderEditorFigures(figures)));
  console.log(`wrote the editor figures to ${path} and the README`);
}
