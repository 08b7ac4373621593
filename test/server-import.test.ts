/**
 * Importing `bexpr/server` loads the agent's own modules only: its HTTP layer (fastify and its
 * plugins), Prometheus's client and PostgreSQL's are loaded by the first agent started that uses
 * them, so a suite that imports the module pays for them only when it starts an agent
 * (measured on a loaded 2-core machine: +990 ms over `node -e 0` before, +190 ms after).
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/** The packages under node_modules a fresh process has loaded after running `code`. */
function packagesLoadedBy(code: string): string[] {
  const script = `import { createRequire } from "node:module";
${code}
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes("/node_modules/"));
console.log(JSON.stringify([...new Set(loaded.map((path) => path.split("/node_modules/").at(-1).split("/").slice(0, path.split("/node_modules/").at(-1).startsWith("@") ? 2 : 1).join("/")))]));`;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 120_000 })) as string[];
}

describe("importing bexpr/server", () => {
  it("loads no HTTP, Prometheus or PostgreSQL package", () => {
    const loaded = packagesLoadedBy('await import("bexpr/server");');
    for (const name of ["fastify", "@fastify/compress", "prom-client", "pg", "@electric-sql/pglite"]) expect(loaded).not.toContain(name);
  });

  it("loads them once an agent starts, and the agent serves", () => {
    const loaded = packagesLoadedBy(`const { startAgent } = await import("bexpr/server");
const agent = await startAgent({ port: 0, demo: false, logLevel: "silent" });
const response = await fetch(agent.url + "/v1/status/leader");
if (response.status !== 200) throw new Error("status " + response.status);
await agent.close();`);
    expect(loaded).toContain("fastify");
    expect(loaded).toContain("prom-client");
  });
});
