/**
 * The README's speed section, written from bench/results.json (`npm run bench` rewrites it
 * between its markers; a test checks that the README shows what the results file holds).
 */
import type { EditorFigures } from "./editor.js";

/** A figure over several runs, each in its own process. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export type EvaluationFigures = Record<
  "coldTestNs" | "coldFilterNs" | "testNs" | "filterNs" | "predicateNs" | "arrayFilterNs" | "celNs" | "filtrexNs",
  Spread | null
>;

export interface BenchResults {
  readonly machine: { readonly node: string; readonly cpu: string; readonly cores: number; readonly date: string };
  readonly runs: number;
  readonly objects: number;
  readonly evaluation: Record<string, { readonly label: string; readonly alone: EvaluationFigures; readonly after: EvaluationFigures }>;
  readonly compile: Record<string, Record<"parseUs" | "compileUs" | "celParseUs" | "filtrexCompileUs", Spread | null> & Partial<Record<"compileDistinctUs" | "celParseDistinctUs", Spread | null>>>;
  readonly startup: Record<"nodeMs" | "importMs" | "checkMs" | "serverMs", Spread>;
  readonly limits: unknown;
  /** Editor calls on a 2 KB filter and browser bundle sizes (bench/editor.ts); in the README's "Editors" section. */
  readonly editor?: EditorFigures;
  /** The agent's section (bench/agent.ts); not in the README's table. */
  readonly agent?: unknown;
  /** bexpr/sql on 100,000 documents (bench/sql.ts); not in the README's table. */
  readonly sql?: unknown;
  /** Agents sharing their state through PostgreSQL (bench/cluster.ts; null when no server could be had); not in the README's table. */
  readonly cluster?: unknown;
  /** Many agents in one process: each one's start and memory (bench/many-agents.ts); not in the README's table. */
  readonly manyAgents?: unknown;
}

export const README_START = "<!-- bench:start (npm run bench writes this table from bench/results.json) -->";
export const README_END = "<!-- bench:end -->";

const ratio = (a: Spread | null, b: Spread | null): string => (a === null || b === null ? "—" : `${(a.median / b.median).toFixed(2)}×`);
const fixed = (value: Spread | null, digits = 1): string => (value === null ? "—" : value.median.toFixed(digits));

/** The section between the README's markers. */
export function renderReadmeTable(results: BenchResults): string {
  const cases = Object.values(results.evaluation);
  const compiles = Object.keys(results.evaluation).map((name) => results.compile[name]!);
  const row = (title: string, cells: string[]) => `| ${title} | ${cells.join(" | ")} |`;
  const { machine, startup } = results;
  return [
    `Measured by \`npm run bench\` on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}, ${machine.date.slice(0, 10)}:`,
    `${results.objects.toLocaleString("en")} job list items, medians of ${results.runs} runs, each in a process of its own`,
    "(bench/results.json has every figure with its spread). Ratios are to the hand-written JavaScript of the same filter.",
    "",
    row("", cases.map((c) => c.label)),
    `|---|${cases.map(() => "---").join("|")}|`,
    row("hand-written loop, ns/object", cases.map((c) => fixed(c.alone.predicateNs))),
    row("`filter()` vs `Array#filter`", cases.map((c) => ratio(c.alone.filterNs, c.alone.arrayFilterNs))),
    row("`test()` loop vs hand loop", cases.map((c) => ratio(c.alone.testNs, c.alone.predicateNs))),
    row("`test()` after the other filters ran", cases.map((c) => ratio(c.after.testNs, c.after.predicateNs))),
    row("first pass of `test()` (cold)", cases.map((c) => ratio(c.alone.coldTestNs, c.alone.predicateNs))),
    row("@marcbachmann/cel-js / filtrex", cases.map((c) => `${ratio(c.alone.celNs, c.alone.predicateNs)} / ${ratio(c.alone.filtrexNs, c.alone.predicateNs)}`)),
    row("`compileFilter`, µs", compiles.map((c) => fixed(c.compileUs))),
    row("of which `parse`, µs", compiles.map((c) => fixed(c.parseUs))),
    row("cel-js parse / filtrex compile, µs", compiles.map((c) => `${fixed(c.celParseUs)} / ${fixed(c.filtrexCompileUs)}`)),
    "",
    `A 1 KB filter compiles in ${fixed(results.compile["kilobyte"]?.compileUs ?? null)} µs. Start-up: \`import("bexpr")\` ${fixed(startup.importMs, 0)} ms,` +
      ` \`bexpr check\` ${fixed(startup.checkMs, 0)} ms, \`import("bexpr/server")\` ${fixed(startup.serverMs, 0)} ms, against ${fixed(startup.nodeMs, 0)} ms for \`node -e 0\`.`,
  ].join("\n");
}

/** The README with its speed section replaced by `table`. */
export function withReadmeTable(readme: string, table: string): string {
  return withReadmeSection(readme, README_START, README_END, table);
}

export const README_EDITOR_START = "<!-- bench-editor:start (npm run bench writes these figures from bench/results.json) -->";
export const README_EDITOR_END = "<!-- bench-editor:end -->";

/** The README's text between `startMarker` and `endMarker` replaced by `text`. */
export function withReadmeSection(readme: string, startMarker: string, endMarker: string, text: string): string {
  const start = readme.indexOf(startMarker);
  const end = readme.indexOf(endMarker);
  if (start < 0 || end < start) throw new Error(`the README has no ${startMarker} … ${endMarker} markers`);
  return `${readme.slice(0, start + startMarker.length)}\n${text}\n${readme.slice(end)}`;
}

/** The editor figures in the README's "Editors" section (bench/editor.ts). */
export function renderEditorFigures(editor: EditorFigures): string {
  const ms = (name: string) => `${((editor.calls[name] ?? NaN) / 1000).toFixed(2)} ms`;
  const size = (name: string) => {
    const bundle = editor.bundles[name];
    return bundle === null || bundle === undefined ? "—" : `${Math.round(bundle.rawBytes / 1024)} KB (${Math.round(bundle.gzipBytes / 1024)} KB gzipped)`;
  };
  return [
    `On a ${editor.filterBytes.toLocaleString("en")}-character filter, \`validate\` takes ${ms("validate")} (${ms("validateWithMistakes")} with three`,
    `mistakes), \`complete\` ${ms("completeAtEnd")} at the end and ${ms("completeInMiddle")} in the middle, \`hover\` ${ms("hover")} and`,
    `\`explain\` ${ms("explain")} (medians, each call on a text no call read before; \`fixAll\`, on demand, ${ms("fixAll")}).`,
    `On a text already analysed (an editor asks for diagnostics, hover and completion of one text in a`,
    `row, and the functions share one cached analysis), \`validate\` takes ${ms("validateSameText")}, \`complete\``,
    `${ms("completeSameText")} and \`hover\` ${ms("hoverSameText")}. Bundled for browsers by esbuild and`,
    `minified, the engine is ${size("engine")}; the engine with the extension, what an application`,
    `that already has CodeMirror adds, ${size("engineAndExtension")}; the same with the CodeMirror`,
    `packages it uses ${size("withCodeMirror")}; the agent's whole page ${size("ui")}.`,
  ].join("\n");
}
