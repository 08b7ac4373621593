import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("the API reference", () => {
  it("builds with typedoc from the JSDoc of every export, without a warning (npm run docs)", () => {
    // typedoc.json treats warnings as errors and requires documentation on every exported member.
    // Without typedoc's own type check (half its time): npm test's tsc --noEmit checks the sources.
    const result = spawnSync(process.execPath, ["node_modules/typedoc/bin/typedoc", "--emit", "none", "--skipErrorChecking"], { encoding: "utf8" });
    expect(result.stdout + result.stderr).not.toMatch(/warning|error/i);
    expect(result.status).toBe(0);
  }, 120_000);
});
