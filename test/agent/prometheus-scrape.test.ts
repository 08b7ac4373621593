/**
 * A real Prometheus server scrapes the agent: the strongest check that the text format is right.
 * It runs where Debian's `prometheus` package is installed (`.ci/run` installs it).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually, send, useAgent } from "./support.js";

const installed = spawnSync("prometheus", ["--version"]).error === undefined;
const agent = useAgent();
const directory = mkdtempSync(join(tmpdir(), "bexpr-prometheus-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A port nothing listens on (the server's web port must be given as a number). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(!installed)("a Prometheus server", () => {
  it("scrapes /v1/metrics?format=prometheus without errors and stores the agent's series", async () => {
    const port = await freePort();
    const target = new URL(agent.url).host;
    writeFileSync(
      join(directory, "prometheus.yml"),
      [
        "global: { scrape_interval: 1s, scrape_timeout: 1s }",
        "scrape_configs:",
        "  - job_name: bexpr-agent",
        "    metrics_path: /v1/metrics",
        "    params: { format: [prometheus] }",
        `    static_configs: [{ targets: ["${target}"] }]`,
        "",
      ].join("\n"),
    );
    const server = spawn(
      "prometheus",
      [`--config.file=${join(directory, "prometheus.yml")}`, `--storage.tsdb.path=${join(directory, "data")}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: "ignore" },
    );
    const exited = new Promise((resolve) => server.on("exit", resolve));
    try {
      const api = `http://127.0.0.1:${port}/api/v1`;
      await send(`${agent.url}/v1/jobs`);
      const scraped = await eventually(async () => {
        const targets = await send(`${api}/targets`).catch(() => undefined);
        const active = targets?.status === 200 ? targets.json<{ data: { activeTargets: { health: string; lastError: string }[] } }>().data.activeTargets[0] : undefined;
        return active?.health === "up" ? active : undefined;
      }, 20_000);
      expect(scraped.lastError).toBe("");
      // The agent's own series arrive, with their labels, as the server stored them.
      const stored = await eventually(async () => {
        const query = await send(`${api}/query?query=${encodeURIComponent('svc_http_requests{route="/v1/jobs"}')}`);
        const result = query.json<{ data: { result: { metric: Record<string, string>; value: [number, string] }[] } }>().data.result;
        return result.length > 0 ? result[0] : undefined;
      }, 20_000);
      expect(stored.metric).toMatchObject({ method: "GET", code: "200", host: agent.agent.options.nodeName, job: "bexpr-agent" });
      expect(Number(stored.value[1])).toBeGreaterThanOrEqual(1);
    } finally {
      server.kill("SIGTERM");
      await exited;
    }
  }, 45_000);
});
