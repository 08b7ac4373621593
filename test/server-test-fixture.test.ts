/**
 * `testAgent`, the agent as a vitest fixture: each test that names it gets an agent of its own,
 * closed once the test is over, passed or failed; with `scope: "file"`, one for the whole file.
 */
import { test as base, describe, expect } from "vitest";
import { testAgent, type Agent } from "../src/server/index.js";
import { send } from "./agent/support.js";

const answers = async (url: string) => (await send(`${url}/v1/status/leader`)).status;

/** The URL of every agent the tests were given, in order. */
const seen: string[] = [];

const test = base.extend<{ agent: Agent }>({ agent: testAgent({ clock: "manual", namespaces: [{ Name: "prod" }] }) });

describe("testAgent, per test", () => {
  test("gives the test a running agent, with the defaults under the options given", async ({ agent }) => {
    seen.push(agent.url);
    expect(agent.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(agent.clock.kind).toBe("manual");
    expect(agent.options.demo).toBe(false);
    expect(await answers(agent.url)).toBe(200);
    const namespaces = await send(`${agent.url}/v1/namespaces`);
    expect(namespaces.json<{ Name: string }[]>().map((namespace) => namespace.Name)).toEqual(["default", "prod"]);
  });

  test("gives the next test another agent, and has closed the first", async ({ agent }) => {
    seen.push(agent.url);
    expect(seen[1]).not.toBe(seen[0]);
    await expect(answers(seen[0]!)).rejects.toThrow();
  });

  // A test that fails still has its agent closed: the failure is expected, and checked by the next test.
  test.fails("closes the agent of a test that fails", async ({ agent }) => {
    seen.push(agent.url);
    throw new Error("the test failed");
  });

  test("…as the next test sees", async ({ agent }) => {
    expect(agent.url).not.toBe(seen[2]);
    await expect(answers(seen[2]!)).rejects.toThrow();
  });
});

const fileTest = base.extend<{ shared: Agent }>({ shared: [testAgent(), { scope: "file" }] });

describe("testAgent, one for a file", () => {
  const urls: string[] = [];
  fileTest("serves the first test", async ({ shared }) => {
    urls.push(shared.url);
    expect(await answers(shared.url)).toBe(200);
  });
  fileTest("and the next, the same agent", async ({ shared }) => {
    urls.push(shared.url);
    expect(urls[1]).toBe(urls[0]);
    expect(await answers(shared.url)).toBe(200);
  });
});

// As a user gets it: the bundle keeps the fixture's `({}, use)`, which vitest reads to accept it.
const built = (await import(new URL("../dist/server/index.js", import.meta.url).href)) as typeof import("../src/server/index.js");
const builtTest = base.extend<{ agent: Agent }>({ agent: built.testAgent() });

describe("testAgent, from the built package", () => {
  builtTest("gives the test a running agent", async ({ agent }) => {
    expect(await answers(agent.url)).toBe(200);
  });
});
