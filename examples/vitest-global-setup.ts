/**
 * A vitest `globalSetup` that starts one mini-agent for the whole test run and gives its URL to
 * the tests (`inject("agentUrl")`). Reference it from vitest.config.ts:
 * `defineConfig({ test: { globalSetup: ["./examples/vitest-global-setup.ts"] } })`.
 */
import { startAgent } from "bexpr/server";
import type { TestProject } from "vitest/node";

export default async function setup(project: TestProject) {
  const agent = await startAgent({ port: 0, demo: false, logLevel: "silent" });
  project.provide("agentUrl", agent.url);
  return () => agent.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    agentUrl: string;
  }
}
