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
  /** The agent's section (bench/agent.ts); in the README's "The mini-agent" section. */
  readonly agent?: AgentReadmeFigures;
  /** bexpr/sql on 100,000 documents (bench/sql.ts); not in the README's table. */
  readonly sql?: unknown;
  /** Agents sharing their state through PostgreSQL (bench/cluster.ts; null when no server could be had); not in the README's table. */
  readonly cluster?: unknown;
  /** Many agents in one process: each one's start and memory (bench/many-agents.ts); not in the README's table. */
  readonly manyAgents?: unknown;
}

export const README_START = "<!-- bench:start (npm run bench writes this table from bench/results.json) -->";
export const README_END = "<!-- bench:end -->";

/** The median ratio of `a` to `b`, and in parentheses the worst run's: `a`'s slowest run over `b`'s median. */
const ratio = (a: Spread | null, b: Spread | null): string =>
  a === null || b === null ? "—" : `${(a.median / b.median).toFixed(2)}× (${(a.max / b.median).toFixed(2)}×)`;
/** A time's median, and in parentheses its slowest run. */
const fixed = (value: Spread | null | undefined, digits = 1): string => (value === null || value === undefined ? "—" : `${value.median.toFixed(digits)} (${value.max.toFixed(digits)})`);

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
    "In parentheses, the worst run: the slowest run's figure (over the baseline's median, for a ratio).",
    "",
    row("", cases.map((c) => c.label)),
    `|---|${cases.map(() => "---").join("|")}|`,
    row("hand-written loop, ns/object", cases.map((c) => fixed(c.alone.predicateNs))),
    row("`filter()` vs `Array#filter`", cases.map((c) => ratio(c.alone.filterNs, c.alone.arrayFilterNs))),
    row("`test()` loop vs hand loop", cases.map((c) => ratio(c.alone.testNs, c.alone.predicateNs))),
    row("`test()` after the other filters ran", cases.map((c) => ratio(c.after.testNs, c.after.predicateNs))),
    row("first pass of `test()` (cold)", cases.map((c) => ratio(c.alone.coldTestNs, c.alone.predicateNs))),
    row("@marcbachmann/cel-js / filtrex", cases.map((c) => `${ratio(c.alone.celNs, c.alone.predicateNs)} / ${ratio(c.alone.filtrexNs, c.alone.predicateNs)}`)),
    row("`compileFilter`, a string not seen before, µs", compiles.map((c) => fixed(c.compileDistinctUs))),
    row("`compileFilter`, the same string again, µs", compiles.map((c) => fixed(c.compileUs))),
    row("`parse`, the same string again, µs", compiles.map((c) => fixed(c.parseUs))),
    row("cel-js parse (strings not seen before) / filtrex compile, µs", compiles.map((c) => `${fixed(c.celParseDistinctUs)} / ${fixed(c.filtrexCompileUs)}`)),
    "",
    `A 1 KB filter not seen before compiles in ${fixed(results.compile["kilobyte"]?.compileDistinctUs)} µs. Start-up, ms: \`import("bexpr")\` ${fixed(startup.importMs, 0)},` +
      ` \`bexpr check\` ${fixed(startup.checkMs, 0)}, \`import("bexpr/server")\` ${fixed(startup.serverMs, 0)}, against ${fixed(startup.nodeMs, 0)} for \`node -e 0\`.`,
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

export const README_AGENT_START = "<!-- bench-agent:start (npm run bench writes these figures from bench/results.json) -->";
export const README_AGENT_END = "<!-- bench-agent:end -->";

/** One server's figures of a request (medians of the rounds). */
interface ReadmeServerFigures {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * What the README shows of bench/results.json's `agent` (bench/agent.ts's `AgentBenchResults`).
 * The fields marked optional are absent from results written before issue 39 (the undici client,
 * which measured no CPU but the agent's): the README shows "—" for them.
 */
export interface AgentReadmeFigures {
  readonly date: string;
  readonly jobs: number;
  readonly registration: RegistrationReadmeFigures;
  readonly largeRegistration: RegistrationReadmeFigures & { readonly jobs: number };
  readonly load: {
    readonly rounds: number;
    /** How the load was made; absent: the undici client in the bench's process. */
    readonly client?: string;
    readonly requests: Record<
      string,
      {
        readonly label: string;
        readonly connections: number;
        readonly agent: ReadmeServerFigures;
        readonly bare: ReadmeServerFigures;
        readonly agentToBare: number;
        readonly agentToBareWorst: number;
        readonly agentCpuMsPerRequest: number;
        readonly agentCpuMsPerRequestWorst: number;
        readonly bareCpuMsPerRequest?: number;
        readonly clientCpuMsPerRequest?: { readonly agent: number; readonly bare: number };
        readonly clientMayLimit?: boolean;
        readonly rounds: { readonly agent: readonly { readonly requestsPerSecond: number }[]; readonly bare: readonly { readonly requestsPerSecond: number }[] };
      }
    >;
  };
  readonly newFilters: Record<
    string,
    {
      readonly label: string;
      readonly rows: number;
      readonly connections: number;
      readonly agent: ReadmeServerFigures;
      readonly agentCpuMsPerRequest: number;
      readonly agentCpuMsPerRequestWorst: number;
      readonly clientCpuMsPerRequest?: number;
      readonly inProcessMs?: number;
      readonly inProcessMeanMs?: number;
      readonly cpuToInProcess?: number;
      readonly rounds: readonly { readonly requestsPerSecond: number }[];
    }
  >;
  readonly fanOut: {
    readonly queries: number;
    readonly rssBytesPerQuery: number;
    readonly medianAnswerMs: number;
    readonly lastAnswerMs: number;
  } | null;
  readonly postgres: {
    readonly source: string;
    readonly registration: RegistrationReadmeFigures;
    readonly requests: Record<string, { readonly label: string; readonly postgresToMemory: number; readonly postgresToMemoryWorst: number }>;
    /** Two agents writing at once against one (without `twoToOneWorst`: one round, before issue 39's third session). */
    readonly writers?: { readonly oneJobsPerSecond: number; readonly twoJobsPerSecond: number; readonly twoToOne: number; readonly twoToOneWorst?: number; readonly rounds?: readonly unknown[] };
  } | null;
}

/** A registration's figures as the README shows them. */
interface RegistrationReadmeFigures {
  readonly concurrency: number;
  readonly chunk: number;
  readonly jobsPerSecond: readonly number[];
  readonly medianJobsPerSecond: number;
  readonly worstJobsPerSecond: number;
  readonly totalSeconds: number;
}

const count = (value: number) => Math.round(value).toLocaleString("en");
/** Text for a Markdown table's cell: a request's `*`, `<new>` and `|` shown as they are, not as emphasis, an HTML tag or a column. */
const cellText = (text: string) => text.replace(/[*|_]/g, "\\$&").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** CPU or latency in ms: µs below a millisecond, "—" when not measured. */
const duration = (ms: number | undefined) => (ms === undefined || !Number.isFinite(ms) ? "—" : ms < 1 ? `${Math.round(ms * 1000)} µs` : `${ms.toFixed(1)} ms`);
const worstRate = (rounds: readonly { readonly requestsPerSecond: number }[]) => Math.min(...rounds.map((round) => round.requestsPerSecond));
const rates = (r: RegistrationReadmeFigures) =>
  `per ${count(r.chunk)}: median ${count(r.medianJobsPerSecond)} jobs/s, worst ${count(r.worstJobsPerSecond)}, first ${count(r.jobsPerSecond[0] ?? Number.NaN)}`;

/** Two agents registering at once against one, as the README says it (nothing for results without it). */
function writersSentence(writers: NonNullable<AgentReadmeFigures["postgres"]>["writers"]): string {
  if (writers === undefined) return "";
  const worst = writers.twoToOneWorst === undefined ? "one round" : `median of ${writers.rounds?.length ?? "several"} rounds, worst round ${writers.twoToOneWorst.toFixed(2)}×`;
  return ` Two agents registering at once: ${count(writers.twoJobsPerSecond)} jobs/s in all against one agent's ${count(writers.oneJobsPerSecond)}, ${writers.twoToOne.toFixed(2)}× (${worst}).`;
}

/** The agent's figures in the README's "The mini-agent" section (bench/agent.ts, bench/agent-postgres.ts). */
export function renderAgentFigures(agent: AgentReadmeFigures): string {
  const { registration, largeRegistration: large, fanOut, postgres } = agent;
  const client = agent.load.client ?? "undici in the bench's own process (client-bound: its rate was its own ceiling; a run before issue 39)";
  const header = ["request", "conns", "agent req/s (worst)", "p99 ms", "agent CPU/req (worst)", "bare req/s (worst)", "bare CPU/req", "client CPU/req, agent / bare", "agent/bare (worst)"];
  const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  const requests = Object.values(agent.load.requests).map((r) =>
    row([
      cellText(r.label) + (r.clientMayLimit === true ? " ¹" : ""),
      String(r.connections),
      `${count(r.agent.requestsPerSecond)} (${count(worstRate(r.rounds.agent))})`,
      r.agent.p99Ms.toFixed(1),
      `${duration(r.agentCpuMsPerRequest)} (${duration(r.agentCpuMsPerRequestWorst)})`,
      `${count(r.bare.requestsPerSecond)} (${count(worstRate(r.rounds.bare))})`,
      duration(r.bareCpuMsPerRequest),
      r.clientCpuMsPerRequest === undefined ? "—" : `${duration(r.clientCpuMsPerRequest.agent)} / ${duration(r.clientCpuMsPerRequest.bare)}`,
      `${r.agentToBare.toFixed(2)}× (${r.agentToBareWorst.toFixed(2)}×)`,
    ]),
  );
  const newFilters = Object.values(agent.newFilters).map((f) =>
    row([
      `${cellText(f.label)}, ${count(f.rows)} jobs`,
      String(f.connections),
      `${count(f.agent.requestsPerSecond)} (${count(worstRate(f.rounds))})`,
      f.agent.p99Ms.toFixed(1),
      `${duration(f.agentCpuMsPerRequest)} (${duration(f.agentCpuMsPerRequestWorst)})`,
      "—",
      "—",
      f.clientCpuMsPerRequest === undefined ? "—" : duration(f.clientCpuMsPerRequest),
      "—",
    ]),
  );
  const flagged = Object.values(agent.load.requests).some((r) => r.clientMayLimit === true);
  const pg = postgres === null ? undefined : (name: string) => postgres.requests[name];
  const pgRatio = (name: string) => {
    const figures = pg?.(name);
    return figures === undefined ? "—" : `${figures.postgresToMemory.toFixed(2)}× (worst round ${figures.postgresToMemoryWorst.toFixed(2)}×)`;
  };
  /** A filter never seen before against the same filters compiled and run in the bench's process (runs before these figures: none). */
  function inProcessLines(figures: AgentReadmeFigures["newFilters"]): string[] {
    const measured = Object.values(figures).filter((f) => f.inProcessMs !== undefined && f.cpuToInProcess !== undefined);
    if (measured.length === 0) return [];
    const parts = measured.map((f) => `${cellText(f.label)}: ${f.cpuToInProcess!.toFixed(1)}× (${duration(f.inProcessMeanMs ?? f.inProcessMs!)} in process)`);
    const statistic = measured.every((f) => f.inProcessMeanMs !== undefined) ? " (means: the agent's CPU over its requests, the bench's time over its filters)" : "";
    return ["", `A filter never seen before, the agent's CPU per request against compiling the same kind of filter and filtering the same rows in the bench's process${statistic}: ${parts.join("; ")}.`];
  }
  return [
    `Its footprint and speed, measured by \`npm run bench\` (${agent.date.slice(0, 10)}; figures in bench/results.json under`,
    "`agent`, on the benchmark's jobs: random IDs, one to three task groups, varied `Meta`, four namespaces):",
    `${count(agent.jobs)} jobs register through the API in ${registration.totalSeconds.toFixed(1)} s with ${registration.concurrency} in flight`,
    `(${rates(registration)}: V8 warms up), ${count(large.jobs)} in ${large.totalSeconds.toFixed(1)} s`,
    `(${rates(large)}). Each list answer is computed once per index and request, and shared by the`,
    "blocking queries one write wakes" +
      (fanOut === null
        ? "."
        : ` (${count(fanOut.queries)} of them answered within ${(fanOut.medianAnswerMs / 1000).toFixed(1)} s median, ${(fanOut.lastAnswerMs / 1000).toFixed(1)} s at worst,\nof the write; ${(fanOut.rssBytesPerQuery / 1024).toFixed(1)} KiB each).`) +
      " A repeated request is answered from that cache before the router runs.",
    "Below, each request under closed-loop load, the agent against a bare `node:http` server sending the",
    "same bytes, in turns; the CPU per request of each server's process and of the client; medians of",
    `${agent.load.rounds} rounds, the worst round in parentheses. Load: ${client}.`,
    "",
    row(header),
    `|${header.map(() => "---").join("|")}|`,
    ...requests,
    ...newFilters,
    ...(flagged ? ["", "¹ The bare server did not answer 1.5 times the agent's rate: the client or the shared cores may be the limit of that row."] : []),
    ...inProcessLines(agent.newFilters),
    "",
    postgres === null
      ? "On PostgreSQL: not measured in this run."
      : `On PostgreSQL (${postgres.source}): ${count(postgres.registration.medianJobsPerSecond)} jobs/s registered with ${postgres.registration.concurrency} in flight` +
        ` (${rates(postgres.registration)}); repeated pages ${pgRatio("page")} the memory agent, with a filter ${pgRatio("filteredPage")}.` +
        writersSentence(postgres.writers),
  ].join("\n");
}

/** The README with every section written from the results file: the speed table, the editor figures and (when the file has them) the agent's. */
export function withReadmeFigures(readme: string, results: BenchResults): string {
  let out = withReadmeTable(readme, renderReadmeTable(results));
  if (results.editor !== undefined) out = withReadmeSection(out, README_EDITOR_START, README_EDITOR_END, renderEditorFigures(results.editor));
  if (results.agent !== undefined) out = withReadmeSection(out, README_AGENT_START, README_AGENT_END, renderAgentFigures(results.agent));
  return out;
}
