import { spawnSync } from "node:child_process";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { METRICS, startAgent, type Agent, type AgentOptions, type MetricsSummary } from "../../src/server/index.js";
import { eventually, job, ON_POSTGRES, send, settled, startTestAgent, useAgent } from "./support.js";

/** One interval that outlasts any test run (2^40 ms is about 35 years): everything lands in it. */
const ONE_INTERVAL = { intervalMs: 2 ** 40, retentionMs: 2 ** 40 };

type Gauge = MetricsSummary["Gauges"][number];
type Sampled = MetricsSummary["Counters"][number];
/** The document as the route writes it (the sink's, with floats written as floats). */
type MetricsDocument = MetricsSummary;

async function readDocument(url: string): Promise<MetricsDocument> {
  const response = await send(`${url}/v1/metrics`);
  expect(response.status).toBe(200);
  return response.json<MetricsDocument>();
}

/** The entry named `name` whose labels include `labels`, or undefined. */
function entry<T extends Gauge | Sampled>(entries: readonly T[], name: string, labels: Record<string, string> = {}): T | undefined {
  return entries.find((item) => item.Name === name && Object.entries(labels).every(([key, value]) => item.Labels[key] === value));
}

/** Runs `test` against an agent of its own (for counts that must start from zero). */
async function withAgent<T>(options: AgentOptions, test: (agent: Agent) => Promise<T>): Promise<T> {
  const agent = await startTestAgent({ port: 0, demo: false, logLevel: "silent", ...options });
  try {
    return await test(agent);
  } finally {
    await agent.close();
  }
}

const shared = useAgent({ metrics: ONE_INTERVAL });

describe("the JSON document", () => {
  it("has the reference's keys, a Go timestamp, and Name and a Labels object on every entry", async () => {
    await shared.get("/v1/jobs");
    const response = await shared.get("/v1/metrics");
    expect(response.headers["content-type"]).toBe("application/json");
    // No X-Svc-* headers on metrics, as the reference.
    expect(Object.keys(response.headers).filter((name) => name.startsWith("x-svc"))).toEqual([]);
    const document = response.json<MetricsDocument>();
    expect(Object.keys(document)).toEqual(["Timestamp", "Gauges", "PrecisionGauges", "Points", "Counters", "Samples"]);
    expect(document.Timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC$/);
    expect(document.PrecisionGauges).toEqual([]);
    expect(document.Points).toEqual([]);
    for (const gauge of document.Gauges) expect(Object.keys(gauge)).toEqual(["Name", "Value", "Labels"]);
    for (const sampled of [...document.Counters, ...document.Samples]) {
      expect(Object.keys(sampled)).toEqual(["Name", "Count", "Rate", "Sum", "Min", "Max", "Mean", "Stddev", "Labels"]);
      expect(Number.isInteger(sampled.Count)).toBe(true);
    }
    expect(document.Counters.length).toBeGreaterThan(0);
    expect(document.Samples.length).toBeGreaterThan(0);
  });

  it("has a counter and a sample on a fresh agent's first request: its becoming the leader, counted and timed", async () => {
    await withAgent({ metrics: ONE_INTERVAL }, async (agent) => {
      const document = await readDocument(agent.url);
      // The request being answered is not counted yet: what is there, the agent did as it started.
      expect(entry(document.Counters, "svc.http.requests")).toBeUndefined();
      expect(entry(document.Counters, "svc.raft.state.leader")?.Sum).toBe(1);
      const established = entry(document.Samples, "svc.svc.leader.establish_leadership");
      expect(established?.Count).toBe(1);
      expect(established?.Min).toBeGreaterThanOrEqual(0);
      // An agent of a shared store follows until it gains the lease.
      expect(entry(document.Counters, "svc.raft.state.follower")?.Sum).toBe(ON_POSTGRES ? 1 : undefined);
      expect(document.Gauges.length).toBeGreaterThan(0);
    });
  });

  it("labels every entry with the host, and gauges with the node's ID and datacenter", async () => {
    const members = (await shared.get("/v1/agent/members")).json<{ Members: { Tags: { id: string } }[] }>();
    const nodeId = members.Members[0]!.Tags.id;
    const document = await readDocument(shared.url);
    for (const item of [...document.Gauges, ...document.Counters, ...document.Samples]) expect(item.Labels.host).toBe(shared.agent.options.nodeName);
    expect(document.Gauges.length).toBeGreaterThan(0);
    for (const gauge of document.Gauges) expect(gauge.Labels).toMatchObject({ node_id: nodeId, datacenter: "dc1" });
  });

  it("writes floating-point fields as floats (56.0) and counts as integers", async () => {
    const text = (await shared.get("/v1/metrics")).text;
    expect(text).toMatch(/"Value":\d+\.0,/);
    expect(text).toMatch(/"Count":\d+,/);
    // Every Rate, Sum, Min, Max, Mean, Stddev and Value has a fraction or an exponent.
    for (const match of text.matchAll(/"(?:Rate|Sum|Min|Max|Mean|Stddev|Value)":(-?[0-9.e+-]+)/g)) expect(match[1]).toMatch(/[.e]/);
  });

  it("is pretty with ?pretty and gzipped for a client that accepts gzip", async () => {
    const pretty = await shared.get("/v1/metrics?pretty");
    expect(pretty.text.startsWith('{\n    "Timestamp": "')).toBe(true);
    expect(pretty.text.endsWith("}\n")).toBe(true);
    const gzipped = await shared.get("/v1/metrics", { headers: { "accept-encoding": "gzip" } });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(Object.keys(JSON.parse(gzipped.text))).toContain("Counters");
  });

  it.each(["", "xml", "json", "PROMETHEUS"])("answers JSON for ?format=%s", async (format) => {
    const response = await shared.get(`/v1/metrics?format=${format}`);
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json");
    expect(response.json<MetricsDocument>().Timestamp).toBeDefined();
  });

  it("answers other methods with 405 Invalid method", async () => {
    const response = await shared.get("/v1/metrics", { method: "POST" });
    expect([response.status, response.text]).toEqual([405, "Invalid method"]);
  });
});

describe("instrumentation", () => {
  const requests = (document: MetricsDocument, route: string, code: string, method = "GET") => ({
    counted: entry(document.Counters, "svc.http.requests", { method, route, code })?.Sum ?? 0,
    timed: entry(document.Samples, "svc.http.request", { method, route, code })?.Count ?? 0,
  });

  it("a request to /v1/jobs moves the request counters, the list timer and the query counter", async () => {
    const before = await readDocument(shared.url);
    await shared.get("/v1/jobs");
    await shared.get("/v1/jobs?namespace=*");
    await shared.get("/v1/jobs?per_page=nope");
    const after = await readDocument(shared.url);
    expect(requests(after, "/v1/jobs", "200").counted - requests(before, "/v1/jobs", "200").counted).toBe(2);
    expect(requests(after, "/v1/jobs", "200").timed - requests(before, "/v1/jobs", "200").timed).toBe(2);
    expect(requests(after, "/v1/jobs", "400").counted - requests(before, "/v1/jobs", "400").counted).toBe(1);
    const count = (document: MetricsDocument, kind: "Counters" | "Samples", name: string) => entry(document[kind], name)?.Count ?? 0;
    // The list timer runs for every GET, the refused one included (as the reference times its RPC).
    expect(count(after, "Samples", "svc.svc.job.list") - count(before, "Samples", "svc.svc.job.list")).toBe(3);
    expect(count(after, "Counters", "svc.svc.rpc.query") - count(before, "Counters", "svc.svc.rpc.query")).toBe(2);
    // The metrics requests themselves are counted too, under their own route.
    expect(requests(after, "/v1/metrics", "200").counted).toBeGreaterThan(0);
  });

  it("counts requests to unknown paths under the route *, not per path", async () => {
    const before = await readDocument(shared.url);
    await shared.get("/v1/no-such-thing");
    await shared.get("/v2/another");
    const after = await readDocument(shared.url);
    expect(requests(after, "*", "404").counted - requests(before, "*", "404").counted).toBe(2);
    expect(after.Counters.some((item) => item.Labels.route?.includes("no-such-thing"))).toBe(false);
  });

  it("times job registrations, failed ones included", async () => {
    const before = entry((await readDocument(shared.url)).Samples, "svc.svc.job.register")?.Count ?? 0;
    await shared.register(job("timed"));
    expect((await shared.put("/v1/jobs", { Job: { ID: "" } })).status).toBe(400);
    const after = entry((await readDocument(shared.url)).Samples, "svc.svc.job.register");
    expect(after!.Count - before).toBe(2);
    expect(after!.Min).toBeGreaterThan(0);
    expect(after!.Max).toBeGreaterThanOrEqual(after!.Min);
  });

  it("records filter compilations and evaluations with known values: Count, Sum, Min, Max, Mean, Stddev, Rate", async () => {
    await withAgent({ metrics: ONE_INTERVAL }, async (agent) => {
      for (const id of ["a", "b", "c"]) {
        expect((await send(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job(id) }) })).status).toBe(200);
      }
      const filter = encodeURIComponent('Type == "service"');
      // Three jobs evaluated; then one page of one: the first match and the one after it (the next token).
      expect((await send(`${agent.url}/v1/jobs?filter=${filter}`)).status).toBe(200);
      expect((await send(`${agent.url}/v1/jobs?filter=${filter}&per_page=1`)).status).toBe(200);
      expect((await send(`${agent.url}/v1/jobs?filter=${encodeURIComponent("Type ==")}`)).status).toBe(400);
      expect((await send(`${agent.url}/v1/jobs?filter=${encodeURIComponent('NoSuchField == "x"')}`)).status).toBe(400);
      const document = await readDocument(agent.url);
      const seconds = ONE_INTERVAL.intervalMs / 1000;
      const labels = { endpoint: "job" };
      // 3 then 2 (then 1 for the evaluation error's query, which is not an evaluation count). On
      // PostgreSQL the database decides this filter (its translation is exact): the agent evaluates nothing.
      expect(entry(document.Counters, "svc.svc.filter.evaluations", labels)).toEqual({
        Name: "svc.svc.filter.evaluations",
        Count: 2,
        ...(ON_POSTGRES ? { Rate: 0, Sum: 0, Min: 0, Max: 0, Mean: 0, Stddev: 0 } : { Rate: 5 / seconds, Sum: 5, Min: 2, Max: 3, Mean: 2.5, Stddev: Math.sqrt(0.5) }),
        Labels: { endpoint: "job", host: agent.options.nodeName },
      });
      // The same filter twice is compiled once (the second comes from the cache).
      expect(entry(document.Counters, "svc.svc.filter.compiled", labels)?.Sum).toBe(2);
      expect(entry(document.Counters, "svc.svc.filter.compile_errors", labels)?.Sum).toBe(1);
      expect(entry(document.Counters, "svc.svc.filter.evaluation_errors", labels)?.Sum).toBe(1);
      expect(entry(document.Counters, "svc.svc.filter.compiled", { endpoint: "deployment" })).toBeUndefined();
    });
  });

  it("reports blocking queries waiting (gauge) and woken by change, timeout and disconnect (counter)", async () => {
    await withAgent({ metrics: ONE_INTERVAL }, async (agent) => {
      const index = (await send(`${agent.url}/v1/jobs`)).headers["x-svc-index"];
      const woken = async (reason: string) => entry((await readDocument(agent.url)).Counters, "svc.svc.blocking.woken", { reason })?.Sum ?? 0;
      const waiting = async () => entry((await readDocument(agent.url)).Gauges, "svc.svc.blocking.waiting")?.Value;

      const blocked = send(`${agent.url}/v1/jobs?index=${index}&wait=30s`);
      await eventually(async () => (agent.blockingQueries === 1 ? true : undefined));
      expect(await waiting()).toBe(1);
      await send(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("wake") }) });
      expect((await blocked).status).toBe(200);
      expect(await woken("change")).toBe(1);
      expect(await waiting()).toBe(0);
      await settled(agent.url);

      const index2 = (await send(`${agent.url}/v1/jobs`)).headers["x-svc-index"];
      await send(`${agent.url}/v1/deployments?index=${index2}&wait=20ms`);
      expect(await woken("timeout")).toBe(1);

      const controller = new AbortController();
      const abandoned = send(`${agent.url}/v1/jobs?index=${index2}&wait=30s`, { signal: controller.signal }).catch(() => undefined);
      await eventually(async () => (agent.blockingQueries === 1 ? true : undefined));
      controller.abort();
      await abandoned;
      await eventually(async () => ((await woken("disconnect")) === 1 ? true : undefined));
      expect(await waiting()).toBe(0);
      expect(await woken("change")).toBe(1);
    });
  });

  it("keeps job-status gauges per namespace, updated every second", async () => {
    await withAgent({ metrics: ONE_INTERVAL, namespaces: [{ Name: "prod" }] }, async (agent) => {
      const statuses = async (namespace: string) => {
        const document = await readDocument(agent.url);
        return ["pending", "running", "dead"].map((status) => entry(document.Gauges, `svc.svc.job_status.${status}`, { namespace })?.Value);
      };
      expect(await statuses("prod")).toEqual([0, 0, 0]);
      for (const id of ["x", "y"]) await send(`${agent.url}/v1/jobs?namespace=prod`, { method: "PUT", body: JSON.stringify({ Job: job(id) }) });
      const jobs = (await send(`${agent.url}/v1/jobs?namespace=prod`)).json<{ Status: string }[]>();
      // Within a collection (one second), the gauges count the jobs by the status the list shows.
      const counted = await eventually(async () => {
        const values = await statuses("prod");
        return values[0]! + values[1]! + values[2]! === 2 ? values : undefined;
      }, 5000);
      expect(counted[0]! + counted[1]!).toBe(jobs.filter((item) => item.Status !== "dead").length);
      expect(await statuses("default")).toEqual([0, 0, 0]);
    });
  });

  it("collects runtime gauges: heap, RSS, event-loop delay, active handles", async () => {
    const document = await readDocument(shared.url);
    const value = (name: string) => entry(document.Gauges, name)?.Value;
    expect(value("svc.runtime.heap_used_bytes")).toBeGreaterThan(1_000_000);
    expect(value("svc.runtime.heap_total_bytes")).toBeGreaterThanOrEqual(value("svc.runtime.heap_used_bytes")!);
    expect(value("svc.runtime.rss_bytes")).toBeGreaterThan(value("svc.runtime.heap_used_bytes")!);
    expect(value("svc.runtime.event_loop_delay_ms")).toBeGreaterThanOrEqual(0);
    // At least the listening socket.
    expect(value("svc.runtime.active_handles")).toBeGreaterThanOrEqual(1);
  });
});

describe("intervals over HTTP", () => {
  it("shows the finished interval once the next one starts, not what happens in the current one", async () => {
    await withAgent({ metrics: { intervalMs: 1000, retentionMs: 5000 } }, async (agent) => {
      const untilNextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 30));
      const jobs = (document: MetricsDocument) => entry(document.Counters, "svc.http.requests", { route: "/v1/jobs" })?.Sum;
      // Three requests inside one interval (tried again if they straddle a boundary on a slow machine).
      let second = 0;
      for (let attempt = 0; attempt < 5; attempt++) {
        await untilNextSecond();
        second = Math.floor(Date.now() / 1000);
        for (let i = 0; i < 3; i++) await send(`${agent.url}/v1/jobs`);
        if (Math.floor(Date.now() / 1000) === second) break;
      }
      await untilNextSecond();
      await send(`${agent.url}/v1/jobs`);
      const document = await readDocument(agent.url);
      expect(document.Timestamp).toBe(new Date(second * 1000).toISOString().replace("T", " ").replace(".000Z", " +0000 UTC"));
      expect(jobs(document)).toBe(3);
    });
  });
});

describe("Prometheus", () => {
  const labelsKey = (labels: Readonly<Record<string, string>> = {}) => JSON.stringify(Object.entries(labels).sort());
  /**
   * The families as the parser reads them, and every sample line by name and labels. The parser
   * folds a summary's series into one when they have labels besides `quantile`, so the samples are
   * read a second time with summaries declared untyped: then each line is a sample of its own.
   */
  const scrape = async (url: string) => {
    const response = await send(`${url}/v1/metrics?format=prometheus`);
    expect(response.status).toBe(200);
    const families = parsePrometheusTextFormat(response.text);
    const samples = new Map<string, string>();
    for (const family of parsePrometheusTextFormat(response.text.replace(/^(# TYPE \S+) summary$/gm, "$1 untyped"))) {
      for (const series of family.metrics) samples.set(`${family.name} ${labelsKey(series.labels)}`, series.value!);
    }
    return { response, families, samples };
  };

  it("answers the text format, parsed by a real parser, with the reference's names, types and help", async () => {
    await shared.get("/v1/jobs");
    const { response, families, samples } = await scrape(shared.url);
    expect(response.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.text.endsWith("\n")).toBe(true);
    const byName = new Map(families.map((family) => [family.name, family]));
    const types = { counter: "COUNTER", gauge: "GAUGE", sample: "SUMMARY" } as const;
    let checked = 0;
    for (const definition of Object.values(METRICS)) {
      const family = byName.get(definition.name.replaceAll(".", "_"));
      if (family === undefined) continue; // created on first use, as the reference's sink
      expect(family.type).toBe(types[definition.type]);
      expect(family.help).toBe(family.name);
      checked++;
    }
    // Runtime, job-status and blocking gauges, request counters and timers, the list timer, the query counter.
    expect(checked).toBeGreaterThanOrEqual(12);
    expect(byName.get("svc_http_requests")?.type).toBe("COUNTER");
    expect(byName.has("svc_http_requests_total")).toBe(false);
    const host = shared.agent.options.nodeName;
    for (const quantile of ["0.5", "0.9", "0.99"]) expect(samples.has(`svc_svc_job_list ${labelsKey({ host, quantile })}`)).toBe(true);
  });

  it("includes the process and Node runtime metrics prom-client collects by default", async () => {
    const { families } = await scrape(shared.url);
    const names = new Set(families.map((family) => family.name));
    for (const name of ["process_cpu_user_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds", "nodejs_gc_duration_seconds", "nodejs_version_info"]) {
      expect(names, name).toContain(name);
    }
  });

  it("agrees with the JSON document: counters with Sum, summaries with Count and Sum, gauges with Value", async () => {
    await withAgent({ metrics: ONE_INTERVAL }, async (agent) => {
      await send(`${agent.url}/v1/jobs`, { method: "PUT", body: JSON.stringify({ Job: job("one") }) });
      await send(`${agent.url}/v1/jobs?filter=${encodeURIComponent('ID == "one"')}`);
      await send(`${agent.url}/v1/deployments`);
      await send(`${agent.url}/v1/nowhere`);
      await readDocument(agent.url); // so that the metrics route has series in both
      const document = await readDocument(agent.url);
      const { samples } = await scrape(agent.url);
      const sample = (name: string, labels: Record<string, string>) => {
        const value = samples.get(`${name.replaceAll(".", "_")} ${labelsKey(labels)}`);
        expect(value, `${name} ${labelsKey(labels)}`).toBeDefined();
        return Number(value);
      };

      // The scrape also counts the JSON read just before it.
      const extra = (labels: Record<string, string>) => (labels.route === "/v1/metrics" ? 1 : 0);
      for (const counter of document.Counters) expect(sample(counter.Name, counter.Labels), `${counter.Name} ${labelsKey(counter.Labels)}`).toBe(counter.Sum + extra(counter.Labels));
      for (const timer of document.Samples) {
        expect(sample(`${timer.Name}_count`, timer.Labels)).toBe(timer.Count + extra(timer.Labels));
        if (extra(timer.Labels) === 0) expect(sample(`${timer.Name}_sum`, timer.Labels)).toBe(timer.Sum);
        for (const quantile of ["0.5", "0.9", "0.99"]) {
          const value = sample(timer.Name, { ...timer.Labels, quantile });
          if (extra(timer.Labels) === 0) expect(value).toBeGreaterThanOrEqual(timer.Min);
          if (extra(timer.Labels) === 0) expect(value).toBeLessThanOrEqual(timer.Max);
        }
      }
      for (const gauge of document.Gauges) {
        const value = sample(gauge.Name, gauge.Labels);
        // Runtime gauges move every second; the others hold still while nothing happens.
        if (!gauge.Name.startsWith("svc.runtime.")) expect(value, `${gauge.Name} ${labelsKey(gauge.Labels)}`).toBe(gauge.Value);
      }
      // And nothing of ours is in one format only: a summary has 5 lines (3 quantiles, _sum, _count).
      const ours = [...samples.keys()].filter((key) => key.startsWith("svc_")).length;
      expect(ours).toBe(document.Counters.length + 5 * document.Samples.length + document.Gauges.length);
    });
  });

  it("passes promtool check metrics (the official checker) without a parse error, where promtool is installed", async (context) => {
    const probe = spawnSync("promtool", ["--version"]);
    if (probe.error !== undefined) context.skip("promtool is not installed");
    const { response } = await scrape(shared.url);
    const result = spawnSync("promtool", ["check", "metrics"], { input: response.text, encoding: "utf8" });
    // 0: clean; 3: only lint findings (style rules such as the `_total` suffix, which the reference's names lack); 1: a parse error.
    expect([0, 3], result.stdout + result.stderr).toContain(result.status);
    expect(result.stdout + result.stderr).not.toMatch(/error/i);
  });

  it("is gzipped for a client that accepts gzip", async () => {
    const response = await shared.get("/v1/metrics?format=prometheus", { headers: { "accept-encoding": "gzip" } });
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(parsePrometheusTextFormat(response.text).length).toBeGreaterThan(10);
  });

  it("answers 415 Prometheus is not enabled when disabled, and JSON still", async () => {
    await withAgent({ metrics: { prometheus: false } }, async (agent) => {
      const response = await send(`${agent.url}/v1/metrics?format=prometheus`);
      expect([response.status, response.text, response.headers["content-type"]]).toEqual([415, "Prometheus is not enabled", "text/plain; charset=utf-8"]);
      expect((await send(`${agent.url}/v1/metrics`)).status).toBe(200);
    });
  });
});

describe("options", () => {
  it.each([
    [{ intervalMs: 9 }, "invalid value for metrics.intervalMs: 9; expected a whole number of milliseconds, at least 10"],
    [{ intervalMs: 1.5 }, "invalid value for metrics.intervalMs: 1.5"],
    [{ retentionMs: 0 }, "invalid value for metrics.retentionMs: 0"],
    [{ prometheus: "yes" }, 'invalid value for metrics.prometheus: "yes"; expected true or false'],
    [{ colour: "blue" }, "unknown option metrics.colour; known options: intervalMs, retentionMs, prometheus"],
    [{ intervalMs: 10_000, retentionMs: 9_999 }, "metrics.retentionMs must hold 1 to 1000 intervals of metrics.intervalMs (9999 / 10000 gives 0)"],
    [{ intervalMs: 10, retentionMs: 10_010 }, "metrics.retentionMs must hold 1 to 1000 intervals of metrics.intervalMs (10010 / 10 gives 1001)"],
  ])("refuses metrics %j", async (metrics, message) => {
    await expect(startTestAgent({ port: 0, logLevel: "silent", metrics: metrics as never })).rejects.toThrow(message);
  });

  it("accepts the edges: a 10 ms interval and 1000 intervals of retention", async () => {
    await withAgent({ metrics: { intervalMs: 10, retentionMs: 10_000 } }, async (agent) => {
      expect(agent.options.metrics).toEqual({ intervalMs: 10, retentionMs: 10_000, prometheus: true });
      expect((await send(`${agent.url}/v1/metrics`)).status).toBe(200);
    });
  });
});
