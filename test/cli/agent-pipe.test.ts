/**
 * The README's pipes of the agent's lists into `bexpr eval --count` (`curl … | bexpr eval …` lines),
 * run as written with curl against an agent with the demo data: each prints the count the
 * agent's own `filter` lists.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useAgent } from "../agent/support.js";

const run = promisify(execFile);
const agent = useAgent({ demo: true, placementDelayMs: 60_000 });

/** The README's lines that pipe a list into `bexpr eval --count`, with the filter (their last quoted argument). */
const pipes = readFileSync("README.md", "utf8")
  .split("\n")
  .filter((line) => line.startsWith("curl ") && line.includes("| bexpr eval ") && line.includes("--count"))
  .map((line) => {
    const command = line.split(/\s+# /)[0]!.trim();
    const filter = /'([^']*)'$/.exec(command)?.[1];
    if (filter === undefined) throw new Error(`no quoted filter at the end of ${command}`);
    return [command, filter] as const;
  });

describe("the README's pipe of the agent's list into bexpr eval", () => {
  it("is there, on a field the list item shows only when asked (Meta)", () => {
    expect(pipes.map(([, filter]) => filter)).toContain('Meta.owner == "team-a"');
  });

  it.each(pipes)("%s prints the count the agent's own filter lists", async (command, filter) => {
    const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(resolve("dist/cli.js"))}`;
    const { stdout } = await run("sh", ["-c", command.replaceAll("127.0.0.1:4646", new URL(agent.url).host).replace("| bexpr ", `| ${cli} `)]);
    const listed = await agent.get(`/v1/jobs?filter=${encodeURIComponent(filter)}`);
    expect(listed.status, listed.text).toBe(200);
    const count = listed.json<unknown[]>().length;
    expect(count).toBeGreaterThan(0);
    expect(stdout.trim()).toBe(String(count));
  });
});
