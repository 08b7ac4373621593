/**
 * An agent as a test fixture: the function `test.extend` takes in vitest (and in Playwright's test
 * runner, whose fixtures have the same shape), starting an agent for the test that uses it and
 * closing it after, however the test ends.
 *
 * @module
 */
import { startAgent, type Agent } from "./agent.js";
import type { AgentOptions } from "./options.js";

/** What a fixture is given to hand its value to the test: it resolves once the test is over. */
export type UseFixture<T> = (value: T) => Promise<void>;

/**
 * The defaults of {@link testAgent}: a free port of 127.0.0.1, no demo data, no log. The caller's
 * options are applied over them.
 */
export const TEST_AGENT_DEFAULTS: Readonly<AgentOptions> = Object.freeze({ port: 0, demo: false, logLevel: "silent" });

/**
 * A fixture that starts an agent ({@link TEST_AGENT_DEFAULTS} under `options`) for each test that
 * names it, and closes it when the test is over, passed or failed. With vitest's `scope: "file"`,
 * one agent serves every test of a file.
 *
 * @param options - the agent's options, over {@link TEST_AGENT_DEFAULTS}.
 * @param start - what starts the agent; `startAgent` by default (another function of the same
 *   shape, to start one on a store of the suite's own, say).
 * @example
 * ```ts
 * import { test as base, expect } from "vitest";
 * import { testAgent, type Agent } from "bexpr/server";
 *
 * const test = base.extend<{ agent: Agent }>({ agent: testAgent({ clock: "manual" }) });
 *
 * test("lists no job at first", async ({ agent }) => {
 *   const jobs = await (await fetch(`${agent.url}/v1/jobs`)).json();
 *   expect(jobs).toEqual([]);
 * });
 * ```
 */
export function testAgent(options: AgentOptions = {}, start?: (options: AgentOptions) => Promise<Agent>): ({}: object, use: UseFixture<Agent>) => Promise<void> {
  // The first parameter must stay a destructuring pattern: vitest reads a fixture's source to find
  // which other fixtures it depends on, and refuses one whose first parameter is not `{ … }`.
  return async ({}, use) => {
    const agent = await (start ?? startAgent)({ ...TEST_AGENT_DEFAULTS, ...options });
    try {
      await use(agent);
    } finally {
      await agent.close();
    }
  };
}
