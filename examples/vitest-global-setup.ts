/**
 * A vitest `globalSetup` that starts one mini-agent for the whole test run and gives its URL to
 * the tests (`inject("agentUrl")`). Reference it from vitest.config.ts:
 * `defineConfig({ test: { globalSetup: ["./examples/vitest-global-setup.ts"] } })`.
 *
 * Its clock is manual: the tests move it over HTTP (`POST /_bexpr/clock/advance`), and add faults
 * (`POST /_bexpr/faults`), as the control API is on for an agent on a loopback address.
 */
import { startAgent } from "bexpr/server";
import type { TestProject } from "vitest/node";

export default async function setup(project: TestProject) {
  const agent = await startAgent({ port: 0, demo: false, logLevel: "silent", clock: "manual" });
  project.provide("agentUrl", agent.url);
  return () => agent.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    agentUrl: string;
  }
}
