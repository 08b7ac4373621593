/** The README's figures are what `npm run bench` wrote from bench/results.json, not edited by hand. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  README_AGENT_END,
  README_AGENT_START,
  README_EDITOR_END,
  README_EDITOR_START,
  README_END,
  README_START,
  renderAgentFigures,
  renderEditorFigures,
  renderReadmeTable,
  withReadmeFigures,
  withReadmeSection,
  withReadmeTable,
  type AgentReadmeFigures,
  type BenchResults,
  type Spread,
} from "../bench/report.js";

const readResults = () => JSON.parse(readFileSync("bench/results.json", "utf8")) as BenchResults;
const readReadme = () => readFileSync("README.md", "utf8");

describe("the README's speed table", () => {
  it("shows the figures of bench/results.json", () => {
    const readme = readReadme();
    expect(readme).toContain(README_START);
    expect(readme).toContain(README_END);
    expect(withReadmeTable(readme, renderReadmeTable(readResults()))).toBe(readme);
  });

  it("and its editor figures, in the Editors section", () => {
    const results = readResults();
    const readme = readReadme();
    expect(results.editor).toBeDefined();
    expect(withReadmeSection(readme, README_EDITOR_START, README_EDITOR_END, renderEditorFigures(results.editor!))).toBe(readme);
  });

  it("and the agent's figures, in The mini-agent section", () => {
    const results = readResults();
    const readme = readReadme();
    expect(readme).toContain(README_AGENT_START);
    expect(readme).toContain(README_AGENT_END);
    expect(results.agent).toBeDefined();
    expect(withReadmeSection(readme, README_AGENT_START, README_AGENT_END, renderAgentFigures(results.agent!))).toBe(readme);
    expect(withReadmeFigures(readme, results)).toBe(readme);
  });
});

const spread = (median: number, max: number): Spread => ({ median, min: median, max });

describe("the speed table's rows", () => {
  const results = readResults();
  const name = Object.keys(results.evaluation)[0]!;
  const table = renderReadmeTable({
    ...results,
    compile: { ...results.compile, [name]: { ...results.compile[name]!, compileUs: spread(4, 5), compileDistinctUs: spread(30, 45), parseUs: spread(1, 2) } },
  });
  const cells = (title: string) => table.split("\n").find((line) => line.startsWith(`| ${title} |`))?.split(" | ")[1];

  it.each([
    ["`compileFilter`, a string not seen before, µs", "30.0 (45.0)"],
    ["`compileFilter`, the same string again, µs", "4.0 (5.0)"],
    ["`parse`, the same string again, µs", "1.0 (2.0)"],
  ])("shows %s as the median and, in parentheses, the slowest run: %s", (title, cell) => {
    expect(cells(title)).toBe(cell);
  });

  it("shows a ratio's worst run as the slowest run over the baseline's median", () => {
    const evaluation = results.evaluation[name]!;
    const worst = (evaluation.alone.testNs!.max / evaluation.alone.predicateNs!.median).toFixed(2);
    expect(cells("`test()` loop vs hand loop")).toBe(`${(evaluation.alone.testNs!.median / evaluation.alone.predicateNs!.median).toFixed(2)}× (${worst}×)`);
  });
});

/** An agent section with one repeated request and one new-filter request; `extra` adds the fields of issue 39's client. */
function agentFigures(extra: { client?: string; bareCpu?: number; clientCpu?: { agent: number; bare: number }; clientMayLimit?: boolean; newFilterClientCpu?: number; inProcess?: { ms: number; ratio: number; meanMs?: number } }): AgentReadmeFigures {
  const registration = { concurrency: 8, chunk: 1000, jobsPerSecond: [400, 900, 1000], medianJobsPerSecond: 900, worstJobsPerSecond: 400, totalSeconds: 4.5 };
  return {
    date: "2026-12-07T04:00:00.000Z",
    jobs: 3000,
    registration,
    largeRegistration: { ...registration, chunk: 10_000, jobs: 30_000 },
    load: {
      rounds: 5,
      ...(extra.client === undefined ? {} : { client: extra.client }),
      requests: {
        page: {
          label: "GET /v1/jobs?namespace=*&per_page=100",
          connections: 50,
          agent: { requestsPerSecond: 9000, p50Ms: 5, p99Ms: 12.34 },
          bare: { requestsPerSecond: 20_000, p50Ms: 2, p99Ms: 6 },
          agentToBare: 0.45,
          agentToBareWorst: 0.4,
          agentCpuMsPerRequest: 0.1,
          agentCpuMsPerRequestWorst: 0.125,
          ...(extra.bareCpu === undefined ? {} : { bareCpuMsPerRequest: extra.bareCpu }),
          ...(extra.clientCpu === undefined ? {} : { clientCpuMsPerRequest: extra.clientCpu }),
          ...(extra.clientMayLimit === undefined ? {} : { clientMayLimit: extra.clientMayLimit }),
          rounds: { agent: [{ requestsPerSecond: 9000 }, { requestsPerSecond: 8000 }], bare: [{ requestsPerSecond: 20_000 }, { requestsPerSecond: 19_000 }] },
        },
      },
    },
    newFilters: {
      newFilterAllNamespaces: {
        label: "GET /v1/jobs?namespace=*&filter=<new>",
        rows: 3000,
        connections: 8,
        agent: { requestsPerSecond: 100, p50Ms: 80, p99Ms: 200 },
        agentCpuMsPerRequest: 4,
        agentCpuMsPerRequestWorst: 5.5,
        ...(extra.newFilterClientCpu === undefined ? {} : { clientCpuMsPerRequest: extra.newFilterClientCpu }),
        ...(extra.inProcess === undefined ? {} : { inProcessMs: extra.inProcess.ms, cpuToInProcess: extra.inProcess.ratio, ...(extra.inProcess.meanMs === undefined ? {} : { inProcessMeanMs: extra.inProcess.meanMs }) }),
        rounds: [{ requestsPerSecond: 100 }, { requestsPerSecond: 90 }],
      },
    },
    fanOut: null,
    postgres: null,
  };
}

const rowOf = (text: string, start: string) => text.split("\n").find((line) => line.startsWith(`| ${start}`));

describe("the README's agent section", () => {
  it.each([
    [
      "results written before issue 39 (the undici client, no CPU but the agent's)",
      agentFigures({}),
      "| GET /v1/jobs?namespace=\\*&per\\_page=100 | 50 | 9,000 (8,000) | 12.3 | 100 µs (125 µs) | 20,000 (19,000) | — | — | 0.45× (0.40×) |",
      "| GET /v1/jobs?namespace=\\*&filter=&lt;new&gt;, 3,000 jobs | 8 | 100 (90) | 200.0 | 4.0 ms (5.5 ms) | — | — | — | — |",
    ],
    [
      "results of wrk, with each side's CPU",
      agentFigures({ client: "wrk (/usr/bin/wrk, 1 thread, a process of its own)", bareCpu: 0.04, clientCpu: { agent: 0.05, bare: 0.045 }, clientMayLimit: false, newFilterClientCpu: 0.2 }),
      "| GET /v1/jobs?namespace=\\*&per\\_page=100 | 50 | 9,000 (8,000) | 12.3 | 100 µs (125 µs) | 20,000 (19,000) | 40 µs | 50 µs / 45 µs | 0.45× (0.40×) |",
      "| GET /v1/jobs?namespace=\\*&filter=&lt;new&gt;, 3,000 jobs | 8 | 100 (90) | 200.0 | 4.0 ms (5.5 ms) | — | — | 200 µs | — |",
    ],
  ])("renders %s: medians, worst rounds and each side's CPU per request", (_, figures, pageRow, newFilterRow) => {
    const text = renderAgentFigures(figures);
    expect(rowOf(text, "GET /v1/jobs?namespace=\\*&per")).toBe(pageRow);
    expect(rowOf(text, "GET /v1/jobs?namespace=\\*&filter")).toBe(newFilterRow);
  });

  it.each([
    ["no client named (before issue 39)", agentFigures({}), "Load: undici in the bench's own process (client-bound"],
    ["the client the bench named", agentFigures({ client: "wrk (/usr/bin/wrk, 1 thread, a process of its own)" }), "Load: wrk (/usr/bin/wrk, 1 thread, a process of its own)."],
  ])("says which client made the load: %s", (_, figures, sentence) => {
    expect(renderAgentFigures(figures).replace(/\n/g, " ")).toContain(sentence);
  });

  it.each([
    [true, true],
    [false, false],
  ])("marks a row whose bare server did not reach the headroom over the agent (flagged %s): footnote %s", (clientMayLimit, footnote) => {
    const text = renderAgentFigures(agentFigures({ client: "wrk", clientMayLimit }));
    expect(rowOf(text, "GET /v1/jobs?namespace=\\*&per")!.includes(" ¹ |")).toBe(footnote);
    expect(text.includes("¹ The bare server did not answer")).toBe(footnote);
  });

  it.each([
    ["results without it (before this figure)", agentFigures({}), undefined],
    ["the in-process figure (a median, before the means)", agentFigures({ inProcess: { ms: 1.25, ratio: 2.4 } }), "GET /v1/jobs?namespace=\\*&filter=&lt;new&gt;: 2.4× (1.3 ms in process)."],
    [
      "the in-process mean",
      agentFigures({ inProcess: { ms: 1.25, ratio: 2.4, meanMs: 1.6 } }),
      "GET /v1/jobs?namespace=\\*&filter=&lt;new&gt;: 2.4× (1.6 ms in process).",
    ],
  ])("compares a new filter's agent CPU with compiling and filtering in the bench's process: %s", (_, figures, sentence) => {
    const text = renderAgentFigures(figures).replace(/\n/g, " ");
    if (sentence === undefined) expect(text).not.toContain("in the bench's process:");
    else expect(text).toContain(`filtering the same rows in the bench's process${figures.newFilters.newFilterAllNamespaces?.inProcessMeanMs === undefined ? "" : " (means: the agent's CPU over its requests, the bench's time over its filters)"}: ${sentence}`);
  });

  const postgres = (writers: NonNullable<AgentReadmeFigures["postgres"]>["writers"]): AgentReadmeFigures["postgres"] => ({
    source: "the server BEXPR_BENCH_POSTGRES_URL names",
    registration: { concurrency: 8, chunk: 1000, jobsPerSecond: [300, 320], medianJobsPerSecond: 310, worstJobsPerSecond: 300, totalSeconds: 10 },
    requests: {},
    ...(writers === undefined ? {} : { writers }),
  });

  it.each([
    ["results without the writer test", undefined, undefined],
    ["one round (before its rounds)", { oneJobsPerSecond: 210.4, twoJobsPerSecond: 74.2, twoToOne: 0.3527 }, "Two agents registering at once: 74 jobs/s in all against one agent's 210, 0.35× (one round)."],
    [
      "rounds, with the worst",
      { oneJobsPerSecond: 200, twoJobsPerSecond: 190, twoToOne: 0.951, twoToOneWorst: 0.42, rounds: [{}, {}, {}] },
      "Two agents registering at once: 190 jobs/s in all against one agent's 200, 0.95× (median of 3 rounds, worst round 0.42×).",
    ],
  ])("says how two agents writing at once compare with one: %s", (_, writers, sentence) => {
    const text = renderAgentFigures({ ...agentFigures({}), postgres: postgres(writers) }).replace(/\n/g, " ");
    if (sentence === undefined) expect(text).not.toContain("Two agents registering");
    else expect(text).toContain(sentence);
  });

  it("gives the registration's median, worst and first chunk, and says when PostgreSQL was not measured", () => {
    const text = renderAgentFigures(agentFigures({})).replace(/\n/g, " ");
    expect(text).toContain("3,000 jobs register through the API in 4.5 s with 8 in flight (per 1,000: median 900 jobs/s, worst 400, first 400");
    expect(text).toContain("On PostgreSQL: not measured in this run.");
  });
});
