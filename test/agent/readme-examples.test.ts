import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useAgent } from "./support.js";

const run = promisify(execFile);
const agent = useAgent({ demo: true, placementDelayMs: 60_000 });

const readme = readFileSync("README.md", "utf8");
const section = readme.slice(readme.indexOf("## The mini-agent"), readme.indexOf("### ACLs, namespaces and regions"));

/** `curl …  # → 200 description: "expected text"` lines of the README. */
const examples = section
  .split("\n")
  .filter((line) => line.startsWith("curl "))
  .map((line) => {
    const [command, comment] = line.split(/\s+# → /) as [string, string];
    const status = Number(comment.slice(0, 3));
    const expected = /"(.*)"$/.exec(comment)?.[1] ?? "";
    return [command.trim(), status, expected] as const;
  });

describe("the README's agent examples", () => {
  it("has examples", () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
  });

  it.each(examples)("%s answers %i with %j", async (command, status, expected) => {
    const address = new URL(agent.url).host;
    const { stdout } = await run("sh", ["-c", `${command.replaceAll("127.0.0.1:4646", address)} -w '\\n%{http_code}'`]);
    const lines = stdout.split("\n");
    expect(Number(lines[lines.length - 1])).toBe(status);
    expect(lines.slice(0, -1).join("\n").replaceAll("\r", "")).toContain(expected);
  });
});

describe("the README's vitest globalSetup example", () => {
  it("starts an agent for a test run and hands its URL to the tests", async () => {
    const { stdout } = await run(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--root", "test/fixtures/global-setup"], {
      env: { ...process.env, CI: "1" },
    });
    expect(stdout).toMatch(/3 passed/);
  }, 60_000);
});
