import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseJson } from "../../src/json.js";
import { useAgent } from "./support.js";

const run = promisify(execFile);
const agent = useAgent({ demo: true, acl: { enabled: true }, placementDelayMs: 60_000 });

const readme = readFileSync("README.md", "utf8");
const section = readme.slice(readme.indexOf("### ACLs, namespaces and regions"), readme.indexOf("### In a test suite"));
const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
const steps = block.split("\n").filter((line) => line.startsWith("curl ") || line.startsWith("export "));

describe("the README's ACL walkthrough", () => {
  it("runs from bootstrap to a client token, each step answering as the README says", async () => {
    expect(steps.length).toBeGreaterThanOrEqual(10);
    const env: Record<string, string> = {};
    let previous = "";
    for (const step of steps) {
      if (step.startsWith("export ")) {
        // `export NAME=<SecretID of …>`: the secret of the response just before.
        const name = /^export (\w+)=/.exec(step)![1]!;
        env[name] = (parseJson(previous) as { SecretID: string }).SecretID;
        continue;
      }
      const [command, comment] = step.split(/\s+# → /) as [string, string];
      const status = Number(comment.slice(0, 3));
      const expected = /"(.*)"$/.exec(comment)?.[1] ?? "";
      const address = new URL(agent.url).host;
      const { stdout } = await run("sh", ["-c", `${command.replaceAll("127.0.0.1:4646", address)} -w '\\n%{http_code}'`], { env: { ...process.env, ...env } });
      const lines = stdout.split("\n");
      previous = lines.slice(0, -1).join("\n");
      expect(Number(lines[lines.length - 1]), command).toBe(status);
      expect(previous, command).toContain(expected);
    }
  });
});
